//! The files layer: landlock, applied by the launcher to itself just before
//! it becomes the target, so that the target and everything it starts may
//! read only the policy's `read` paths (and no `/proc` at all: not another
//! process's, not `/proc/self/mem` or `/proc/self/fd`), write only beneath
//! its `write` folders, open only its device files, bind or connect no TCP
//! port (ABI 4), and signal no process outside the sandbox (ABI 6).
//!
//! Each right the kernel lacks is dropped, not fatal (landlock's
//! best-effort mode); [`Restricted`] says what is left.

use crate::sandbox::policy::Policy;
use landlock::{
    ABI, Access, AccessFs, AccessNet, LandlockStatus, Ruleset, RulesetAttr, RulesetCreatedAttr,
    RulesetError, RulesetStatus, Scope, path_beneath_rules,
};

/// What landlock enforces, once applied.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Restricted {
    /// The ABI in use, when file access is restricted at all.
    pub(crate) abi: Option<u32>,
    /// Signals (and abstract unix sockets) stay inside the sandbox.
    pub(crate) signal_scope: bool,
    /// TCP binds and connections are refused.
    pub(crate) tcp_refused: bool,
}

/// The newest ABI whose rights this judge asks for (and was tested with).
const ABI_USED: ABI = ABI::V7;

/// Restricts this process (and what it starts) to `policy`'s files.
pub(crate) fn restrict(policy: &Policy) -> Result<Restricted, RulesetError> {
    let device = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::IoctlDev;
    let status = Ruleset::default()
        .handle_access(AccessFs::from_all(ABI_USED))?
        .handle_access(AccessNet::from_all(ABI_USED))?
        .scope(Scope::from_all(ABI_USED))?
        .create()?
        .add_rules(path_beneath_rules(
            &policy.read,
            AccessFs::from_read(ABI_USED),
        ))?
        .add_rules(path_beneath_rules(
            &policy.write,
            AccessFs::from_all(ABI_USED),
        ))?
        .add_rules(path_beneath_rules(&policy.devices, device))?
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
