//! Killing everything student code started. The launcher is the subreaper
//! of the process tree it starts (`PR_SET_CHILD_SUBREAPER`): a process whose
//! parent dies becomes the launcher's child, whatever process group or
//! session it moved to, so once the target has ended, killing the
//! launcher's children until none are left kills every descendant. In a pid
//! namespace the kernel does it too, when the namespace's first process ends.

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, waitpid};
use nix::unistd::Pid;

/// Rounds of killing before giving up on a tree that keeps forking (the
/// process limit stops one long before).
const ROUNDS: usize = 10_000;

/// Kills and reaps every child of this process, and their children as they
/// become ours, until none are left.
pub(crate) fn kill_descendants() {
    for _ in 0..ROUNDS {
        reap();
        let children = children();
        if children.is_empty() {
            return;
        }
        for child in children {
            let _ = kill(child, Signal::SIGKILL);
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Reaps every child that has ended.
fn reap() {
    while let Ok(status) = waitpid(None, Some(WaitPidFlag::WNOHANG)) {
        if status == nix::sys::wait::WaitStatus::StillAlive {
            break;
        }
    }
}

/// This process's children, from `/proc/*/stat` (its fourth field is the parent).
fn children() -> Vec<Pid> {
    let me = std::process::id().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| parent(*pid).is_some_and(|p| p == me))
        .map(Pid::from_raw)
        .collect()
}

/// The parent of `pid`.
fn parent(pid: i32) -> Option<String> {
    parent_in(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// The parent in a `/proc/PID/stat` line, read after the command name
/// (which may hold spaces and parentheses).
fn parent_in(stat: &str) -> Option<String> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(1).map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_parent_after_a_name_with_spaces_and_parentheses() {
        assert_eq!(parent_in("12 (a (b) c) S 34 12 12").as_deref(), Some("34"));
        assert_eq!(parent_in("garbage"), None);
        let mine = parent(std::process::id() as i32);
        assert_eq!(mine, Some(std::os::unix::process::parent_id().to_string()));
    }
}
