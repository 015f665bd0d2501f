//! New namespaces for student code, where the machine allows them: a pid
//! namespace (nothing in it outlives its first process, and nothing outside
//! it can be named) and a network namespace (no network at all: only a
//! loopback device that is down). As root the launcher makes them directly
//! (where root may: a container's root often may not, and then goes
//! without: a user namespace would map no user but root, and the sandbox's
//! user must be mapped); as another user, inside a new user namespace that
//! maps the user to itself (which some systems forbid: the launcher then
//! goes without).

use nix::sched::{CloneFlags, unshare};
use std::io::Write;

/// Which namespaces the launcher is in now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Entered {
    /// A new pid namespace: the next process started is its pid 1.
    pub(crate) pid: bool,
    /// A new network namespace.
    pub(crate) net: bool,
    /// A new user namespace owns them.
    pub(crate) user: bool,
}

/// Moves this (single-threaded) process into a new pid namespace (when
/// `pid`) and a new network namespace (when `net`); as `root`, without a
/// user namespace. Nothing entered is not an error.
pub(crate) fn enter(root: bool, pid: bool, net: bool) -> Entered {
    let mut both = CloneFlags::empty();
    both.set(CloneFlags::CLONE_NEWPID, pid);
    both.set(CloneFlags::CLONE_NEWNET, net);
    if both.is_empty() {
        return Entered::default();
    }
    if root {
        let entered = unshare(both).is_ok();
        return Entered {
            pid: entered && pid,
            net: entered && net,
            user: false,
        };
    }
    let (uid, gid) = (nix::unistd::getuid(), nix::unistd::getgid());
    if unshare(both | CloneFlags::CLONE_NEWUSER).is_err() {
        return Entered::default();
    }
    // Map the user to itself, so that its files stay its own; without the
    // maps it is `nobody` inside, which works too.
    let _ = map("/proc/self/setgroups", "deny");
    let _ = map("/proc/self/uid_map", &format!("{uid} {uid} 1"));
    let _ = map("/proc/self/gid_map", &format!("{gid} {gid} 1"));
    Entered {
        pid,
        net,
        user: true,
    }
}

fn map(file: &str, line: &str) -> std::io::Result<()> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(file)?
        .write_all(line.as_bytes())
}
