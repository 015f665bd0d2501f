//! Landlock rules for a sandboxed process, in one place for both who apply
//! them: the judge's sandbox launcher, to itself just before it becomes a
//! build or a harness, and a harness, to itself once more before any
//! learner code runs (the judge sends them in the setup: [`crate::Setup`]).
//!
//! The harness's own layer exists for the CUDA driver: its `cuInit` names
//! the threads it starts by writing `/proc/self/task/TID/comm`, and fails
//! when it cannot, so the launcher's layer lets a harness on a machine with
//! NVIDIA GPUs write `/proc`; the harness opens its device first, and then
//! restricts itself to these rules, which name no part of `/proc` but the
//! driver's own files: learner code gets no `/proc/self/mem`, no
//! `/proc/self/fd` and no other process's files. Layers only ever add
//! restrictions, so nothing after can undo it.
//!
//! Each right the kernel lacks is dropped, not fatal (landlock's
//! best-effort mode); [`Restricted`] says what is left.

use landlock::{
    ABI, Access, AccessFs, AccessNet, LandlockStatus, Ruleset, RulesetAttr, RulesetCreatedAttr,
    RulesetError, RulesetStatus, Scope, path_beneath_rules,
};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// What a sandboxed process may touch.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lockdown {
    /// Files and folders it may read and execute.
    pub read: Vec<PathBuf>,
    /// Folders it may write: create, change and remove what is beneath.
    pub write: Vec<PathBuf>,
    /// Device files it may read, write and `ioctl`.
    pub devices: Vec<PathBuf>,
}

/// What landlock enforces, once applied.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Restricted {
    /// The ABI in use, when file access is restricted at all.
    pub abi: Option<u32>,
    /// Signals (and abstract unix sockets) stay inside the sandbox (ABI 6).
    pub signal_scope: bool,
    /// TCP binds and connections are refused (ABI 4).
    pub tcp_refused: bool,
}

/// The newest ABI whose rights are asked for (and were tested).
const ABI_USED: ABI = ABI::V7;

impl Lockdown {
    /// Restricts this process, and what it starts, to these rules (and to
    /// no TCP and no signal outside).
    pub fn apply(&self) -> Result<Restricted, RulesetError> {
        let device = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::IoctlDev;
        let status = Ruleset::default()
            .handle_access(AccessFs::from_all(ABI_USED))?
            .handle_access(AccessNet::from_all(ABI_USED))?
            .scope(Scope::from_all(ABI_USED))?
            .create()?
            .add_rules(path_beneath_rules(
                &self.read,
                AccessFs::from_read(ABI_USED),
            ))?
            .add_rules(path_beneath_rules(
                &self.write,
                AccessFs::from_all(ABI_USED),
            ))?
            .add_rules(path_beneath_rules(&self.devices, device))?
            .restrict_self()?;
        let abi = match status.landlock {
            LandlockStatus::Available { effective_abi, .. } => effective_abi as u32,
            _ => 0,
        };
        let enforced = status.ruleset != RulesetStatus::NotEnforced && abi > 0;
        Ok(Restricted {
            abi: enforced.then_some(abi),
            signal_scope: enforced && abi >= 6,
            tcp_refused: enforced && abi >= 4,
        })
    }

    /// These rules without `path` among the writable ones.
    pub fn without_write(mut self, path: &std::path::Path) -> Self {
        self.write.retain(|p| p != path);
        self
    }
}
