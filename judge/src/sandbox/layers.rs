//! Which layers of the sandbox are in force on this machine, as the launcher
//! found them: what `judge doctor` lists, what `judge grade` says first, and
//! what every results format records.

use crate::sandbox::config::{Limits, User};
use serde::{Deserialize, Serialize};

/// What the launcher put in place (all `false` or `None` where it could not).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Layers {
    /// The sandbox was turned off (`--no-sandbox`): nothing below applies.
    pub(crate) disabled: bool,
    /// Landlock's ABI, when file access is restricted.
    pub(crate) landlock: Option<u32>,
    /// Landlock scopes signals and abstract sockets to the sandbox (ABI 6).
    pub(crate) signal_scope: bool,
    /// Landlock refuses TCP binds and connections (ABI 4).
    pub(crate) tcp_refused: bool,
    /// The seccomp filter refuses ptrace and the other calls of [`crate::sandbox::syscalls`].
    pub(crate) seccomp: bool,
    /// Student code runs in a pid namespace of its own.
    pub(crate) pid_namespace: bool,
    /// Student code runs in a network namespace of its own (no network).
    pub(crate) net_namespace: bool,
    /// The namespaces are owned by a user namespace (the judge is not root).
    pub(crate) user_namespace: bool,
    /// The launcher is the subreaper of everything student code starts.
    pub(crate) subreaper: bool,
    /// The resource limits, when set.
    pub(crate) limits: Option<Limits>,
    /// The process limit is among them.
    pub(crate) process_limit: bool,
    /// The judge runs as root.
    pub(crate) root: bool,
    /// The unprivileged user student code runs as, when the judge is root.
    pub(crate) user: Option<User>,
    /// That user kept `CAP_DAC_READ_SEARCH` (reads past the file modes).
    #[serde(default)]
    pub(crate) reads_past_modes: bool,
    /// The launcher joined the sandbox's control groups.
    #[serde(default)]
    pub(crate) cgroup: bool,
    /// How the control groups end and limit a sandbox, for a person (the
    /// judge's, once the launcher joined them).
    #[serde(default)]
    pub(crate) cgroup_detail: Option<String>,
    /// The disk limit of one sandbox, in bytes, when the launcher keeps its
    /// account ([`crate::sandbox::disk`]).
    #[serde(default)]
    pub(crate) disk: Option<u64>,
}

/// One layer, for a person.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Layer {
    /// Its name: `files`, `processes`, `signals`, `system calls`, `network`,
    /// `limits`, `cgroups`, `disk`, `user`.
    pub(crate) name: &'static str,
    /// Whether it is in force.
    pub(crate) in_force: bool,
    /// How (or why not), in one line.
    pub(crate) detail: String,
}

/// The layers as every results format records them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Report {
    /// Whether the sandbox was on (`false` with `--no-sandbox`).
    pub(crate) enabled: bool,
    /// [`Layers::summary`].
    pub(crate) summary: String,
    /// [`Layers::rows`].
    pub(crate) layers: Vec<Layer>,
}

impl Layers {
    /// The record of the layers for the results.
    pub(crate) fn report(&self) -> Report {
        Report {
            enabled: !self.disabled,
            summary: self.summary(),
            layers: self.rows(),
        }
    }

    /// The report of a sandbox turned off.
    pub(crate) fn off() -> Self {
        Self {
            disabled: true,
            ..Self::default()
        }
    }

    /// Whether file access is restricted (`judge grade` refuses to start without).
    pub(crate) fn isolates_files(&self) -> bool {
        !self.disabled && self.landlock.is_some()
    }

    /// Every layer, in force or not, in a fixed order (none when the
    /// sandbox is off).
    pub(crate) fn rows(&self) -> Vec<Layer> {
        if self.disabled {
            return Vec::new();
        }
        vec![
            self.files(),
            self.processes(),
            self.signals(),
            row("system calls", self.seccomp, SECCOMP, "no seccomp here"),
            self.network(),
            self.limits(),
            self.control_groups(),
            self.disk(),
            self.user(),
        ]
    }

    /// One line: the layers in force, then those that are not.
    pub(crate) fn summary(&self) -> String {
        if self.disabled {
            return "off (`--no-sandbox`): student code runs with the judge's rights".into();
        }
        let rows = self.rows();
        let names = |in_force: bool| {
            let names: Vec<&str> = rows
                .iter()
                .filter(|r| r.in_force == in_force)
                .map(|r| r.name)
                .collect();
            names.join(", ")
        };
        match names(false) {
            missing if missing.is_empty() => format!("{} (all in force)", names(true)),
            missing => format!("{}; not in force: {missing}", names(true)),
        }
    }

    fn files(&self) -> Layer {
        match self.landlock {
            Some(abi) => row("files", true, &format!("landlock ABI {abi}: {FILES}"), ""),
            None => row("files", false, "", NO_LANDLOCK),
        }
    }

    fn processes(&self) -> Layer {
        let detail = match (self.pid_namespace, self.subreaper) {
            (true, _) => "a pid namespace: what student code starts dies with it",
            (false, true) => "a subreaper: what student code starts is killed when it ends",
            (false, false) => "",
        };
        row(
            "processes",
            !detail.is_empty(),
            detail,
            "nothing reaps what student code starts",
        )
    }

    fn signals(&self) -> Layer {
        let detail = match (self.signal_scope, self.pid_namespace) {
            (true, _) => "landlock scope: no signal reaches a process outside the sandbox",
            (false, true) => "the pid namespace: no process outside it can be named",
            (false, false) => "",
        };
        row(
            "signals",
            !detail.is_empty(),
            detail,
            "no landlock scope (ABI 6) and no pid namespace here",
        )
    }

    fn network(&self) -> Layer {
        match (self.net_namespace, self.tcp_refused) {
            (true, _) => row("network", true, "none: a network namespace of its own", ""),
            (false, true) => row(
                "network",
                true,
                "no TCP (landlock); no network namespace here, so UDP is open",
                "",
            ),
            (false, false) => row("network", false, "", "open: no network namespace here"),
        }
    }

    fn limits(&self) -> Layer {
        match self.limits {
            Some(limits) if self.process_limit => row("limits", true, &limits.to_string(), ""),
            Some(limits) => row(
                "limits",
                true,
                &format!("{limits} (not enforced: {NO_PROCESS_LIMIT})"),
                "",
            ),
            None => row("limits", false, "", "setrlimit failed"),
        }
    }

    fn control_groups(&self) -> Layer {
        match (&self.cgroup_detail, self.cgroup) {
            (Some(detail), true) => row("cgroups", true, detail, ""),
            _ => row("cgroups", false, "", NO_CGROUP),
        }
    }

    fn disk(&self) -> Layer {
        match self.disk {
            Some(bytes) => {
                let limits = Limits {
                    disk: bytes,
                    ..self.limits.unwrap_or_default()
                };
                let detail = format!(
                    "what a sandbox's folders hold beyond what the judge put there, all files \
                     together, at most {} (walked every {} ms or more; the sandbox is ended past it)",
                    limits.disk_shown(),
                    crate::sandbox::disk::INTERVAL.as_millis()
                );
                row("disk", true, &detail, "")
            }
            None => row(
                "disk",
                false,
                "",
                "the launcher kept no account of the sandbox's files",
            ),
        }
    }

    fn user(&self) -> Layer {
        match (self.root, self.user) {
            (true, Some(user)) => {
                let reads = match self.reads_past_modes {
                    true => "reading with CAP_DAC_READ_SEARCH only",
                    false => "with no capability (reading by the file modes)",
                };
                let detail = format!(
                    "uid:gid {user} (the judge runs as root) for every run and every build of a submission, {reads}"
                );
                row("user", true, &detail, "")
            }
            (true, None) => row(
                "user",
                false,
                "",
                "the judge runs as root and could not drop it",
            ),
            (false, _) => row("user", true, "the judge's own user, which is not root", ""),
        }
    }
}

/// A row: `detail` when in force, `missing` when not.
fn row(name: &'static str, in_force: bool, detail: &str, missing: &str) -> Layer {
    let detail = if in_force {
        detail.to_string()
    } else {
        format!("not in force: {missing}")
    };
    Layer {
        name,
        in_force,
        detail,
    }
}

/// What landlock allows.
const FILES: &str = "reads only the system, the toolchain, the checks and its own crate \
     (no /proc, no `solutions/`); writes only its own scratch and target folders";

/// What seccomp refuses.
const SECCOMP: &str =
    "seccomp: no ptrace, process_vm_readv/writev, pidfd_getfd, namespaces, mounts, bpf or io_uring";

/// Why there is no landlock.
const NO_LANDLOCK: &str =
    "the kernel has no landlock (Linux 5.13 or newer, with `landlock` in its `lsm=` list)";

/// Why there are no control groups.
const NO_CGROUP: &str = "no control group per sandbox (it needs the judge to be root and a \
     cgroup file system it may write): the limits count each process alone, the process limit \
     every process of the sandbox's user, and only the launcher ends what a sandbox started";

/// Why the process limit is off without a user namespace.
const NO_PROCESS_LIMIT: &str =
    "the process limit, which without a user namespace would count your other processes";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_machine_with_everything_has_every_layer_in_force() {
        let layers = Layers {
            landlock: Some(7),
            signal_scope: true,
            tcp_refused: true,
            seccomp: true,
            pid_namespace: true,
            net_namespace: true,
            subreaper: true,
            limits: Some(Limits::default()),
            process_limit: true,
            root: true,
            user: Some(User::NOBODY),
            reads_past_modes: true,
            cgroup: true,
            cgroup_detail: Some("a control group per sandbox".into()),
            disk: Some(2 << 30),
            ..Layers::default()
        };
        assert!(layers.isolates_files());
        assert!(layers.rows().iter().all(|r| r.in_force));
        assert_eq!(
            layers.summary(),
            "files, processes, signals, system calls, network, limits, cgroups, disk, user (all in force)"
        );
        let joined_without_detail = Layers {
            cgroup_detail: None,
            ..layers
        };
        assert!(
            joined_without_detail
                .summary()
                .ends_with("not in force: cgroups")
        );
    }

    #[test]
    fn missing_layers_are_named() {
        let layers = Layers {
            subreaper: true,
            limits: Some(Limits::default()),
            ..Layers::default()
        };
        assert!(!layers.isolates_files());
        assert_eq!(
            layers.summary(),
            "processes, limits, user; not in force: files, signals, system calls, network, cgroups, disk"
        );
        assert!(Layers::off().rows().is_empty());
        assert!(Layers::off().summary().starts_with("off"));
    }
}
