//! The system-call layer: a seccomp filter, applied by the launcher to
//! itself after landlock, that makes these calls fail with `EPERM` for the
//! target and everything it starts:
//!
//! * reading or writing another process's memory, or taking its files:
//!   `ptrace`, `process_vm_readv`, `process_vm_writev`, `pidfd_getfd`,
//!   `kcmp`;
//! * going around landlock's path rules: `open_by_handle_at` (the sandbox
//!   user may keep `CAP_DAC_READ_SEARCH`, which allows it), `io_uring_*`;
//! * leaving the sandbox's view of the system: `unshare`, `setns`, mounts,
//!   `chroot`, `pivot_root`;
//! * the kernel's own interfaces no exercise needs: `bpf`,
//!   `perf_event_open`, `userfaultfd`, keyrings, modules, `kexec`, `reboot`,
//!   swap, `acct`, `quotactl`, `iopl`, `ioperm`.
//!
//! Everything else is allowed, as the toolchain and the CUDA driver need.

use nix::libc;
use seccompiler::{BpfProgram, SeccompAction, SeccompFilter, TargetArch};
use std::collections::BTreeMap;

/// The refused calls (see the module's documentation).
const REFUSED: &[i64] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_pidfd_getfd,
    libc::SYS_kcmp,
    libc::SYS_open_by_handle_at,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsmount,
    libc::SYS_fsconfig,
    libc::SYS_fspick,
    libc::SYS_chroot,
    libc::SYS_pivot_root,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_reboot,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_acct,
    libc::SYS_quotactl,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_iopl,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_ioperm,
];

/// The filter, compiled for this machine.
fn filter() -> Result<BpfProgram, seccompiler::Error> {
    let arch = TargetArch::try_from(std::env::consts::ARCH)?;
    let rules: BTreeMap<i64, Vec<seccompiler::SeccompRule>> =
        REFUSED.iter().map(|&call| (call, Vec::new())).collect();
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )?;
    Ok(filter.try_into()?)
}

/// Applies the filter to this process (and what it starts); it needs
/// `no_new_privs`, which landlock has set.
pub(crate) fn restrict() -> Result<(), seccompiler::Error> {
    seccompiler::apply_filter(&filter()?)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_filter_compiles_for_this_machine() {
        assert!(!super::filter().unwrap().is_empty());
    }
}
