//! What an instructor (or a learner) can set about the sandbox: its limits,
//! the unprivileged user that runs student code when the judge is root, and
//! the build's time limit. The command line fills it in (`cli::SandboxArgs`).

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The sandbox's settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Config {
    /// Whether to sandbox at all (`--no-sandbox` turns it off).
    pub(crate) enabled: bool,
    /// The user and group that run student code when the judge runs as root.
    pub(crate) user: User,
    /// Resource limits of every sandboxed process.
    pub(crate) limits: Limits,
    /// The wall-clock limit of one build.
    pub(crate) build_timeout: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            enabled: true,
            user: User::NOBODY,
            limits: Limits::default(),
            build_timeout: Duration::from_secs(600),
        }
    }
}

/// A user and group id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct User {
    /// The user id.
    pub(crate) uid: u32,
    /// The group id.
    pub(crate) gid: u32,
}

impl User {
    /// `nobody:nogroup` (65534:65534), the default.
    pub(crate) const NOBODY: Self = Self {
        uid: 65534,
        gid: 65534,
    };
}

impl std::str::FromStr for User {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let (uid, gid) = text.split_once(':').unwrap_or((text, text));
        match (uid.parse::<u32>(), gid.parse::<u32>()) {
            (Ok(uid), Ok(gid)) if uid != 0 && gid != 0 => Ok(Self { uid, gid }),
            _ => Err(format!(
                "`{text}` is not `UID:GID` (two numbers, neither 0, such as `65534:65534`)"
            )),
        }
    }
}

impl std::fmt::Display for User {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.uid, self.gid)
    }
}

/// Resource limits (`setrlimit`) of every sandboxed process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Limits {
    /// Data memory per process (`RLIMIT_DATA`), in bytes. Not the address
    /// space: the CUDA driver reserves far more address space than it uses.
    pub(crate) memory: u64,
    /// Processes and threads of the sandbox's user (`RLIMIT_NPROC`).
    pub(crate) processes: u64,
    /// The largest file a process may write (`RLIMIT_FSIZE`), in bytes.
    pub(crate) file_size: u64,
    /// CPU time per process (`RLIMIT_CPU`), in seconds.
    pub(crate) cpu_s: u64,
    /// What one sandbox may add to its folders, all its files together, in
    /// bytes ([`crate::sandbox::disk`]).
    pub(crate) disk: u64,
}

/// A GiB.
pub(crate) const GIB: u64 = 1 << 30;

impl Default for Limits {
    /// Generous for the real exercises on a GPU machine: the largest check
    /// suite needs well under 1 GiB and a second of CPU per check; a build
    /// of a student's crate, a few hundred MiB and seconds.
    fn default() -> Self {
        Self {
            memory: 8 * GIB,
            processes: 512,
            file_size: 4 * GIB,
            cpu_s: 600,
            disk: 2 * GIB,
        }
    }
}

impl std::fmt::Display for Limits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "memory {}, {} processes, files {}, CPU {} s",
            gib(self.memory),
            self.processes,
            gib(self.file_size),
            self.cpu_s
        )
    }
}

impl Limits {
    /// The disk limit for a person: `2 GiB`, `0.25 GiB`.
    pub(crate) fn disk_shown(&self) -> String {
        gib(self.disk)
    }
}

/// Bytes as GiB for a person: `8 GiB`, `0.5 GiB`, `0.25 GiB`.
fn gib(bytes: u64) -> String {
    let text = format!("{:.2}", bytes as f64 / GIB as f64);
    format!("{} GiB", text.trim_end_matches('0').trim_end_matches('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_users_and_shows_limits() {
        assert_eq!(
            "1000:100".parse(),
            Ok(User {
                uid: 1000,
                gid: 100
            })
        );
        assert_eq!(
            "1000".parse(),
            Ok(User {
                uid: 1000,
                gid: 1000
            })
        );
        for bad in ["0:0", "root", "1:x", ""] {
            assert!(bad.parse::<User>().is_err(), "{bad}");
        }
        let limits = Limits {
            memory: GIB / 2,
            ..Limits::default()
        };
        assert_eq!(
            limits.to_string(),
            "memory 0.5 GiB, 512 processes, files 4 GiB, CPU 600 s"
        );
        let disk = Limits {
            disk: GIB / 4,
            ..Limits::default()
        };
        assert_eq!(disk.disk_shown(), "0.25 GiB");
        assert_eq!(Limits::default().disk_shown(), "2 GiB");
    }
}
