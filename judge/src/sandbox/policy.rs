//! What one sandboxed process tree may do: the launcher's instructions
//! ([`Policy`], passed on its command line as JSON), made from what the judge
//! grants one build or run ([`Grant`]) and what every sandbox may use
//! ([`crate::sandbox::allowances`]); and the environment it keeps.

use crate::sandbox::allowances::{self, Allowed, Kind};
use crate::sandbox::config::{Limits, User};
use serde::{Deserialize, Serialize};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The launcher's instructions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Policy {
    /// Files and folders it may read and execute.
    pub(crate) read: Vec<PathBuf>,
    /// Folders it may write: create, change and remove what is beneath.
    pub(crate) write: Vec<PathBuf>,
    /// Device files it may read, write and `ioctl`.
    pub(crate) devices: Vec<PathBuf>,
    /// Its resource limits.
    pub(crate) limits: Limits,
    /// The user to become, when the launcher runs as root.
    pub(crate) user: Option<User>,
    /// Whether to try new pid and network namespaces.
    pub(crate) namespaces: bool,
    /// Whether the pid namespace is among them.
    #[serde(default)]
    pub(crate) pid_namespace: bool,
    /// Whether the pid namespace gets a `/proc` of its own, mounted by its
    /// first process: for a run on a machine with NVIDIA GPUs, whose CUDA
    /// driver fails to start in a pid namespace whose `/proc` is the
    /// machine's (`cuInit` returns `CUDA_ERROR_OPERATING_SYSTEM`; found on
    /// the H200, driver 580, 2026-12-01). Where it cannot be mounted (no
    /// right to mount), the launcher goes without the pid namespace, and
    /// its subreaper kills what is left instead.
    #[serde(default)]
    pub(crate) fresh_proc: bool,
    /// Milliseconds after which the launcher kills everything it started.
    pub(crate) deadline_ms: Option<u64>,
    /// Layers left out for a diagnosis (`pid`, `proc` (a CUDA run's own
    /// `/proc`, and with it its pid namespace), `net`, `limits`, `cgroup`, `disk`, `user`,
    /// `mounts`, `landlock`, `seccomp`, and `harness`: the harness's own
    /// landlock layer), from the judge's
    /// `JUDGE_SANDBOX_OMIT` (names separated by commas): for finding which
    /// layer keeps a machine's driver from starting. What is left out is not
    /// in force, and the layers report says so.
    #[serde(default)]
    pub(crate) omit: Vec<String>,
    /// The sandbox's control groups ([`crate::sandbox::cgroup`]): the outer
    /// stage joins each, the stage after it each one's `work` group.
    #[serde(default)]
    pub(crate) cgroups: Vec<PathBuf>,
    /// Whether those groups count the sandbox's processes (a `pids`
    /// controller): then no per-user process limit is set, which every
    /// sandbox of the user would share.
    #[serde(default)]
    pub(crate) processes_counted: bool,
    /// Whether what `write` holds counts against `limits.disk`; the folders
    /// named are counted by what is added to them ([`Grant::quota`]).
    #[serde(default)]
    pub(crate) disk_quota: Option<Vec<PathBuf>>,
    /// Whether `limits.cpu_s` bounds the CPU time of all the sandbox's
    /// processes together too, where its control group counts it: for a
    /// run of student code. A build is bounded by its wall-clock limit
    /// instead: cargo compiling dependencies on many cores would use a
    /// run's CPU time in seconds.
    #[serde(default)]
    pub(crate) cpu_together: bool,
}

impl Policy {
    /// Whether `layer` is left out (see [`Policy::omit`]).
    pub(crate) fn omits(&self, layer: &str) -> bool {
        self.omit.iter().any(|l| l == layer)
    }

    /// Its landlock rules: what it may read and write, and its device files.
    pub(crate) fn lockdown(&self) -> judge_harness::Lockdown {
        judge_harness::Lockdown {
            read: self.read.clone(),
            write: self.write.clone(),
            devices: self.devices.clone(),
        }
    }
}

/// The layers `JUDGE_SANDBOX_OMIT` names.
pub(crate) fn omitted_layers() -> Vec<String> {
    layers_named(std::env::var("JUDGE_SANDBOX_OMIT").ok().as_deref())
}

/// The layers a `JUDGE_SANDBOX_OMIT` value names.
fn layers_named(omit: Option<&str>) -> Vec<String> {
    omit.map(|omit| {
        omit.split(',')
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty())
            .collect()
    })
    .unwrap_or_default()
}

/// What the judge grants one build or run.
#[derive(Clone, Debug)]
pub(crate) struct Grant {
    /// A build or a run.
    pub(crate) kind: Kind,
    /// Files and folders it may read, besides the system's.
    pub(crate) read: Vec<PathBuf>,
    /// Folders it may write.
    pub(crate) write: Vec<PathBuf>,
    /// A folder it may write, which becomes its `HOME` and `TMPDIR`.
    pub(crate) home: PathBuf,
    /// Its wall-clock limit, if the launcher should enforce one.
    pub(crate) deadline: Option<Duration>,
    /// Whether it runs as the sandbox's unprivileged user when the judge is
    /// root (its folders must then be the user's: [`crate::sandbox::Sandbox::hand_over`]).
    pub(crate) as_user: bool,
    /// Whether what its `write` folders and `home` hold counts against the
    /// disk limit ([`crate::sandbox::disk`]), as it does where they are its
    /// own (a submission's), not a course's shared target folder: then the
    /// folders named here, which the judge seeded (a build's target folder,
    /// from its cache), are counted by what is added to them, every other
    /// one by all it holds.
    pub(crate) quota: Option<Vec<PathBuf>>,
}

/// What the judge decides for one sandbox from its grant: the launcher's
/// instructions and the environment of the command it starts.
#[derive(Debug)]
pub(crate) struct Decided {
    /// The launcher's instructions.
    pub(crate) policy: Policy,
    /// The command's environment, whole.
    pub(crate) environment: Vec<(OsString, OsString)>,
    /// The landlock rules a harness or an agent applies to itself once its
    /// device is open: the launcher's, less `/proc`
    /// ([`judge_harness::lockdown`] says why); none for a build (it applies
    /// no rules of its own) or where the layer is left out.
    pub(crate) lockdown: Option<judge_harness::Lockdown>,
}

impl Grant {
    /// What this grant decides for `command`: its policy under `limits`, as
    /// `user`, with what every sandbox of its kind may use (`allowed`,
    /// found once for it) and its control groups (`groups`: their folders,
    /// and whether they count its processes), and its environment.
    pub(crate) fn decide(
        &self,
        command: &Command,
        limits: Limits,
        user: Option<User>,
        allowed: &Allowed,
        groups: Option<(Vec<PathBuf>, bool)>,
    ) -> Decided {
        let mut policy = self.policy(limits, user, allowed);
        if let Some((dirs, counted)) = groups {
            policy.cgroups = dirs;
            policy.processes_counted = counted;
        }
        let lockdown =
            (self.kind != Kind::Build && !policy.omits("landlock") && !policy.omits("harness"))
                .then(|| policy.lockdown().without_write(Path::new(allowances::PROC)));
        Decided {
            environment: environment(command, &self.home, &allowed.homes),
            lockdown,
            policy,
        }
    }

    /// The launcher's instructions for this grant, with what every sandbox
    /// of its kind may use (`allowed`, found once for it).
    fn policy(&self, limits: Limits, user: Option<User>, allowed: &Allowed) -> Policy {
        let mut read = allowed.read.clone();
        read.extend(self.read.iter().cloned());
        let mut write = self.write.clone();
        write.push(self.home.clone());
        let cuda_run = allowed.cuda;
        if cuda_run {
            write.push(PathBuf::from(allowances::PROC));
        }
        Policy {
            read,
            write,
            devices: allowed.devices.clone(),
            limits,
            user: user.filter(|_| self.as_user),
            namespaces: true,
            pid_namespace: true,
            fresh_proc: cuda_run,
            deadline_ms: self.deadline.map(|d| d.as_millis() as u64),
            omit: omitted_layers(),
            cgroups: Vec::new(),
            processes_counted: false,
            disk_quota: self.quota.clone(),
            cpu_together: self.kind != Kind::Build,
        }
    }
}

/// Variables a sandboxed process keeps, each by its whole name (never a
/// prefix: a grader's `NVIDIA_API_KEY` or `CUDA_TOKEN` would pass one):
/// what cargo, the compiler, the `gpu` crate and the CUDA driver read.
/// Never the rest of the grader's environment: student code reads its
/// build's environment with `env!`, and a grader's may hold tokens.
const KEPT: &[&str] = &[
    "PATH",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TERM",
    "NO_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "CARGO",
    "CARGO_TARGET_DIR",
    "CARGO_INCREMENTAL",
    "CARGO_TERM_COLOR",
    "CARGO_BUILD_JOBS",
    "CARGO_ENCODED_RUSTFLAGS",
    "RUSTFLAGS",
    "RUSTC",
    "RUSTUP_TOOLCHAIN",
    "RUST_BACKTRACE",
    "RUST_MIN_STACK",
    "LD_LIBRARY_PATH",
    "GPU_BACKEND",
    "GPU_CALIBRATION",
    "CUDA_VISIBLE_DEVICES",
    "CUDA_DEVICE_ORDER",
    "CUDA_MODULE_LOADING",
    "CUDA_CACHE_DISABLE",
    "NVIDIA_VISIBLE_DEVICES",
    "NVIDIA_DRIVER_CAPABILITIES",
];

/// Variables the judge itself sets on a sandboxed command, kept only then:
/// insta's (they keep a snapshot from being accepted or written) and `CI`.
fn set_by_the_judge(key: &str) -> bool {
    key.starts_with("INSTA_") || key == "CI"
}

/// The environment `command` runs with in a sandbox whose writable home is
/// `home`: the judge's own and the command's own settings, filtered, with
/// `HOME` and `TMPDIR` at `home` and the toolchain's folders named
/// (they were found from the real `HOME`).
fn environment(
    command: &Command,
    home: &Path,
    homes: &[(&'static str, PathBuf)],
) -> Vec<(OsString, OsString)> {
    let mut vars: std::collections::BTreeMap<OsString, OsString> = std::env::vars_os().collect();
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => vars.insert(key.to_os_string(), value.to_os_string()),
            None => vars.remove(key),
        };
    }
    // The judge's own settings on the command are kept (the learner's own
    // of those names were removed there). Of the rest, only what `kept`
    // allows.
    let on_the_command = |key: &OsStr| command.get_envs().any(|(k, v)| k == key && v.is_some());
    let judges = |key: &OsStr| set_by_the_judge(&key.to_string_lossy()) && on_the_command(key);
    let mut kept: Vec<(OsString, OsString)> = vars
        .into_iter()
        .filter(|(k, _)| kept(k) || judges(k))
        .collect();
    for (key, value) in homes {
        kept.push((key.into(), value.clone().into_os_string()));
    }
    kept.push(("HOME".into(), home.as_os_str().to_os_string()));
    kept.push(("TMPDIR".into(), home.as_os_str().to_os_string()));
    kept
}

/// Whether a sandboxed process keeps the variable `key`.
fn kept(key: &OsStr) -> bool {
    KEPT.contains(&key.to_string_lossy().as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(kind: Kind) -> Grant {
        Grant {
            kind,
            read: Vec::new(),
            write: Vec::new(),
            home: PathBuf::from("/tmp/h"),
            deadline: None,
            as_user: true,
            quota: Some(Vec::new()),
        }
    }

    #[test]
    fn a_harness_locks_itself_to_its_policy_less_proc_and_a_build_not_at_all() {
        let proc = PathBuf::from(allowances::PROC);
        let decide = |kind| {
            let grant = Grant {
                write: vec![proc.clone()],
                ..grant(kind)
            };
            let allowed = Allowed::of(kind);
            grant.decide(
                &Command::new("true"),
                Limits::default(),
                None,
                &allowed,
                None,
            )
        };
        let run = decide(Kind::Run);
        let rules = run.lockdown.expect("a harness applies rules of its own");
        assert!(run.policy.write.contains(&proc) && !rules.write.contains(&proc));
        assert_eq!(
            (rules.read, rules.devices),
            (run.policy.read, run.policy.devices)
        );
        assert!(decide(Kind::Build).lockdown.is_none());
    }

    #[test]
    fn an_agent_gets_a_pid_namespace_and_no_gpu() {
        let agent = grant(Kind::Agent).policy(Limits::default(), None, &Allowed::of(Kind::Agent));
        assert!(agent.pid_namespace && !agent.fresh_proc);
        assert!(
            !agent
                .devices
                .iter()
                .any(|d| d.to_string_lossy().contains("nvidia")),
            "an agent gets no GPU device: {:?}",
            agent.devices
        );
    }

    #[test]
    fn the_omitted_layers_are_named_by_commas() {
        assert_eq!(layers_named(Some("pid, seccomp,")), ["pid", "seccomp"]);
        assert!(layers_named(None).is_empty());
        let policy = Policy {
            omit: layers_named(Some("landlock")),
            ..Policy::default()
        };
        assert!(policy.omits("landlock") && !policy.omits("pid"));
    }

    #[test]
    fn secrets_of_the_graders_environment_are_not_kept() {
        for key in [
            "GITHUB_TOKEN",
            "CARGO_REGISTRY_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "INSTA_UPDATE",
            "NVIDIA_API_KEY",
            "CUDA_TOKEN",
            "GPU_CLOUD_SECRET",
            "LC_SECRET",
            "CARGO_BUILD_TOKEN",
            "CARGO_PROFILE_RELEASE_DEBUG",
            "CARGO_HOME",
        ] {
            assert!(!kept(OsStr::new(key)), "{key}");
        }
        for key in ["PATH", "GPU_BACKEND", "CUDA_VISIBLE_DEVICES", "LC_ALL"] {
            assert!(kept(OsStr::new(key)), "{key}");
        }
        let mut command = Command::new("true");
        command.env("GPU_BACKEND", "virtual").env("SECRET", "x");
        let homes = allowances::toolchain_homes();
        let env = environment(&command, Path::new("/scratch/home"), &homes);
        let get = |key: &str| env.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        assert_eq!(get("GPU_BACKEND"), Some("virtual".into()));
        assert_eq!(get("SECRET"), None);
        assert_eq!(get("HOME"), Some("/scratch/home".into()));
        assert!(get("CARGO_HOME").is_some() && get("RUSTUP_HOME").is_some());
        let mut harness = Command::new("true");
        harness
            .env("INSTA_UPDATE", "no")
            .env_remove("INSTA_FORCE_PASS");
        let env = environment(&harness, Path::new("/scratch/home"), &homes);
        let get = |key: &str| env.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        assert_eq!(
            get("INSTA_UPDATE"),
            Some("no".into()),
            "the judge's insta setting"
        );
        assert_eq!(get("INSTA_FORCE_PASS"), None);
    }
}
