//! The limits layer: `setrlimit`, applied by the launcher to itself before
//! it becomes the target: data memory (not address space, which the CUDA
//! driver reserves by the terabyte), processes, file size, CPU time, and no
//! core dumps. Limits only ever go down, so nothing the target starts can
//! raise them again.

use crate::sandbox::config::Limits;
use nix::sys::resource::{Resource, setrlimit};

/// Sets the limits; the process limit only where `count_processes` (when
/// the sandbox has a user of its own: an unprivileged uid, or a user
/// namespace). Returns whether the process limit was set.
pub(crate) fn apply(limits: &Limits, count_processes: bool) -> nix::Result<bool> {
    set(Resource::RLIMIT_CORE, 0)?;
    set(Resource::RLIMIT_DATA, limits.memory)?;
    set(Resource::RLIMIT_FSIZE, limits.file_size)?;
    set(Resource::RLIMIT_CPU, limits.cpu_s)?;
    if count_processes {
        set(Resource::RLIMIT_NPROC, limits.processes)?;
    }
    Ok(count_processes)
}

/// Sets both the soft and the hard limit of `resource`, never raising either.
fn set(resource: Resource, value: u64) -> nix::Result<()> {
    let (soft, hard) = nix::sys::resource::getrlimit(resource)?;
    setrlimit(resource, value.min(soft), value.min(hard))
}
