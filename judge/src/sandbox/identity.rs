//! The user layer: when the judge runs as root, the launcher becomes an
//! unprivileged user (by default `nobody`, 65534) before it becomes the
//! target, so that student code cannot write the judge's files, signal its
//! processes or undo the other layers.
//!
//! It keeps one capability, `CAP_DAC_READ_SEARCH`, as an ambient capability
//! that survives `exec`: it reads past the file modes, so that the toolchain
//! in root's home (`/root/.cargo`, mode 0700 above it) and a course in a
//! private folder stay readable. What it may read is decided by landlock's
//! rules instead, which the judge refuses to grade without; seccomp refuses
//! `open_by_handle_at`, the one call that capability would open around them.
//! Every other capability leaves the bounding set. Where root itself lacks
//! that capability (a container's default set), the user keeps none, and
//! reads by the file modes.

use crate::sandbox::config::User;
use nix::unistd::{Gid, Uid, setgroups, setresgid, setresuid};
use rustix::thread::{
    CapabilitySet, CapabilitySets, configure_capability_in_ambient_set,
    remove_capability_from_bounding_set, set_capabilities,
};

/// The capability the sandbox user keeps.
const KEPT: CapabilitySet = CapabilitySet::DAC_READ_SEARCH;

/// Becomes `user`, keeping only [`KEPT`] where root has it; returns whether
/// it was kept. Needs root.
pub(crate) fn become_user(user: User) -> std::io::Result<bool> {
    for capability in CapabilitySet::all().iter() {
        if capability != KEPT {
            // Capabilities the kernel does not know are not in the set anyway.
            let _ = remove_capability_from_bounding_set(capability);
        }
    }
    let (uid, gid) = (Uid::from_raw(user.uid), Gid::from_raw(user.gid));
    setgroups(&[gid])?;
    setresgid(gid, gid, gid)?;
    nix::sys::prctl::set_keepcaps(true)?;
    setresuid(uid, uid, uid)?;
    let only = |set: CapabilitySet| CapabilitySets {
        effective: set,
        permitted: set,
        inheritable: set,
    };
    if set_capabilities(None, only(KEPT)).is_err() {
        // Whatever else root's permitted set held must go all the same.
        set_capabilities(None, only(CapabilitySet::empty()))?;
        return Ok(false);
    }
    configure_capability_in_ambient_set(KEPT, true)?;
    Ok(true)
}
