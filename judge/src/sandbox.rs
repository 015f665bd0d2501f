//! The sandbox: every build and every run of student code happens in one,
//! set up for that one process tree, so that a student's crate can neither
//! earn points it did not deserve nor touch the course, the judge or
//! another student's work.
//!
//! The judge never restricts itself. It starts itself again as a small
//! launcher (`judge __sandbox`, a hidden verb; [`launcher`] says how), which
//! applies the layers to its own process and then becomes the target:
//!
//! | layer | how | module |
//! |---|---|---|
//! | files | landlock: read only the system, the toolchain, the checks and its own crate; write only its own folders; no `/proc` | [`fs_rules`] |
//! | processes | a pid namespace, or the launcher as subreaper: nothing outlives the target | [`namespaces`], [`reaper`] |
//! | signals | landlock's scope (ABI 6), or the pid namespace | [`fs_rules`], [`namespaces`] |
//! | system calls | seccomp: no ptrace, `process_vm_*`, `pidfd_getfd`, namespaces, mounts | [`syscalls`] |
//! | network | a network namespace, or landlock's TCP rules (ABI 4) | [`namespaces`], [`fs_rules`] |
//! | limits | `setrlimit`: memory, processes, file size, CPU time | [`limits`] |
//! | control groups | a group per sandbox: its processes and memory counted together, and everything it started ended at once | [`cgroup`] |
//! | disk | what a sandbox adds to its folders, all files together, limited; past it the sandbox is ended | [`disk`] |
//! | user | as root: an unprivileged uid | [`identity`], [`mounts`] |
//!
//! Each layer degrades cleanly where the kernel lacks it. [`Sandbox::new`]
//! probes the machine once (the launcher run with `--probe`, which reports
//! what it put in place instead of starting a target), and [`Layers`] says
//! which are in force. What every sandbox may read besides its grant is
//! listed in one place, [`allowances`] (the CUDA driver's files among it).

mod allowances;
pub(crate) mod cgroup;
mod config;
pub(crate) mod disk;
mod fs_rules;
mod identity;
pub(crate) mod launcher;
mod layers;
mod limits;
mod mounts;
mod namespaces;
mod policy;
mod reaper;
mod syscalls;

pub(crate) use allowances::Kind;
pub(crate) use config::{Config, GIB, Limits, User};
pub(crate) use layers::{Layers, Report as LayersReport};
pub(crate) use policy::Grant;
use policy::Policy;

use anyhow::{Context, Result};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The launcher's hidden verb.
pub(crate) const SUBCOMMAND: &str = "__sandbox";

/// The sandbox as the judge uses it: its settings, and what the machine allows.
#[derive(Clone, Debug)]
pub(crate) struct Sandbox {
    config: Config,
    layers: Layers,
    /// The judge's own binary, which is the launcher; `None` when off.
    launcher: Option<PathBuf>,
    /// The control groups sandboxes get theirs under (none where the
    /// layer is not in force).
    cgroups: cgroup::Hierarchies,
    /// What every sandbox of each kind may use on this machine, found once.
    allowed: allowances::ByKind,
}

impl Default for Sandbox {
    /// A sandbox that is off.
    fn default() -> Self {
        Self::new(Config {
            enabled: false,
            ..Config::default()
        })
    }
}

impl Sandbox {
    /// The sandbox `config` asks for, with the layers this machine allows
    /// (found by running the launcher once).
    pub(crate) fn new(config: Config) -> Self {
        let launcher = std::env::current_exe().ok().filter(|_| config.enabled);
        let omitted = policy::omitted_layers().iter().any(|l| l == "cgroup");
        let mut cgroups = match (&launcher, omitted) {
            (Some(_), false) => cgroup::Hierarchies::find(),
            _ => cgroup::Hierarchies::default(),
        };
        let allowed = allowances::ByKind::find();
        let layers = match &launcher {
            Some(launcher) => probe(launcher, &config, &cgroups, &allowed),
            None => Layers::off(),
        };
        if !layers.cgroup {
            cgroups = cgroup::Hierarchies::default();
        }
        Self {
            config,
            layers,
            launcher,
            cgroups,
            allowed,
        }
    }

    /// The layers in force.
    pub(crate) fn layers(&self) -> &Layers {
        &self.layers
    }

    /// The settings.
    pub(crate) fn config(&self) -> &Config {
        &self.config
    }

    /// The user student code runs as, when it is not the judge's own (the judge is root).
    pub(crate) fn user(&self) -> Option<User> {
        self.layers.user
    }

    /// The sandbox of one build or run of `command` granted `grant`,
    /// decided once, where the judge knows the role and the submission: the
    /// launcher's policy (what it may read and write, its limits, its
    /// control groups, its user), the environment it keeps, the command
    /// that starts it and the lockdown rules it applies to itself, made
    /// here and nowhere else, and the groups themselves. Everything after
    /// reads it; dropping it ends everything it started.
    pub(crate) fn confine(&self, grant: &Grant, command: &Command) -> Confined {
        let home = grant.home.clone();
        let Some(launcher) = &self.launcher else {
            let command = copy(command, command.get_program(), &[]);
            return Confined {
                home,
                command,
                lockdown: None,
                scope: None,
                clears_environment: false,
            };
        };
        let allowed = self.allowed.of(grant.kind);
        let (decided, scope) = decide(
            grant,
            command,
            &self.config,
            self.user(),
            &self.cgroups,
            allowed,
        );
        Confined {
            command: wrapped(command, launcher, &decided.policy, decided.environment),
            lockdown: decided.lockdown,
            home,
            scope,
            clears_environment: true,
        }
    }

    /// Makes `path` (a folder, made if missing, and everything in it) the
    /// sandbox user's, so that student code may write there.
    pub(crate) fn hand_over(&self, path: &Path) -> Result<()> {
        fs_err::create_dir_all(path)?;
        for entry in walkdir::WalkDir::new(path) {
            let entry = entry.with_context(|| format!("cannot read `{}`", path.display()))?;
            self.give(entry.path())?;
        }
        Ok(())
    }

    /// Makes the folder `path` (made if missing), but not what it holds,
    /// the sandbox user's: it may add files there, not change those in it.
    pub(crate) fn hand_over_folder(&self, path: &Path) -> Result<()> {
        fs_err::create_dir_all(path)?;
        self.give(path)
    }

    /// Makes `path` the sandbox user's, when it has one.
    fn give(&self, path: &Path) -> Result<()> {
        let Some(user) = self.user() else {
            return Ok(());
        };
        std::os::unix::fs::lchown(path, Some(user.uid), Some(user.gid)).with_context(|| {
            format!(
                "cannot give `{}` to the sandbox user {user}",
                path.display()
            )
        })
    }
}

/// The policy, the environment and the lockdown rules of `command` granted
/// `grant`, under `config`'s limits, as `user`, in a new scope of
/// `cgroups` (returned: the groups live as long as it), with what every
/// sandbox of its kind may use on this machine (`allowed`): the one place
/// a policy is made.
fn decide(
    grant: &Grant,
    command: &Command,
    config: &Config,
    user: Option<User>,
    cgroups: &cgroup::Hierarchies,
    allowed: &allowances::Allowed,
) -> (policy::Decided, Option<cgroup::Scope>) {
    let scope = cgroups.scope(&config.limits);
    let groups = scope
        .as_ref()
        .map(|scope| (scope.dirs(), cgroups.counts_processes()));
    let decided = grant.decide(command, config.limits, user, allowed, groups);
    (decided, scope)
}

/// `command` run by the launcher `launcher` with `policy`, in
/// `environment` alone.
fn wrapped(
    command: &Command,
    launcher: &Path,
    policy: &Policy,
    environment: Vec<(OsString, OsString)>,
) -> Command {
    let json = serde_json::to_string(policy).expect("a policy serializes");
    let launch = [
        SUBCOMMAND,
        "--stage",
        "outer",
        "--policy",
        json.as_str(),
        "--",
    ];
    let mut program = launch.map(OsString::from).to_vec();
    program.push(command.get_program().to_os_string());
    let mut wrapped = copy(command, launcher.as_os_str(), &program);
    wrapped.env_clear().envs(environment);
    wrapped
}

/// One build's or run's sandbox, decided once ([`Sandbox::confine`]).
#[derive(Debug)]
pub(crate) struct Confined {
    /// Its home folder, where it starts.
    home: PathBuf,
    /// The command that starts it: the launcher's, or the command itself
    /// where the sandbox is off.
    command: Command,
    /// The landlock rules it applies to itself once its device is open.
    lockdown: Option<judge_harness::Lockdown>,
    /// Its control groups, where it has them.
    scope: Option<cgroup::Scope>,
    /// Whether its environment is of the sandbox's making.
    clears_environment: bool,
}

impl Confined {
    /// The command that starts it, to spawn once: set its standard
    /// streams and process group on it. Its environment is the sandbox's
    /// alone when the sandbox is on (a copy of a command keeps the
    /// variables it sets, not that it cleared the rest: it is cleared
    /// again here).
    pub(crate) fn command(&self) -> Command {
        let mut command = copy(&self.command, self.command.get_program(), &[]);
        if self.clears_environment {
            let kept: Vec<_> = self
                .command
                .get_envs()
                .filter_map(|(k, v)| Some((k.to_os_string(), v?.to_os_string())))
                .collect();
            command.env_clear().envs(kept);
        }
        command
    }

    /// Whether [`Confined::command`] has an environment of the sandbox's
    /// making (the sandbox is on) rather than the judge's.
    pub(crate) fn clears_environment(&self) -> bool {
        self.clears_environment
    }

    /// The landlock rules a harness or an agent of this sandbox applies to
    /// itself once its device is open; none when the sandbox is off.
    pub(crate) fn lockdown(&self) -> Option<judge_harness::Lockdown> {
        self.lockdown.clone()
    }

    /// Its control groups, where it has them.
    pub(crate) fn scope(&self) -> Option<&cgroup::Scope> {
        self.scope.as_ref()
    }

    /// Its home folder.
    pub(crate) fn home(&self) -> &Path {
        &self.home
    }
}

/// A copy of `command` (arguments, environment, folder) that runs `program`
/// with `before` ahead of its arguments.
fn copy(command: &Command, program: &std::ffi::OsStr, before: &[std::ffi::OsString]) -> Command {
    let mut copy = Command::new(program);
    copy.args(before).args(command.get_args());
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => copy.env(key, value),
            None => copy.env_remove(key),
        };
    }
    if let Some(dir) = command.get_current_dir() {
        copy.current_dir(dir);
    }
    copy
}

/// What the launcher puts in place on this machine, as it reports with
/// `--probe`; nothing in force when it cannot run.
fn probe(
    launcher: &Path,
    config: &Config,
    cgroups: &cgroup::Hierarchies,
    allowed: &allowances::ByKind,
) -> Layers {
    // A folder of its own: the disk layer walks the home of what it
    // sandboxes, and the machine's temporary folder may hold anything.
    let Ok(own) = tempfile::Builder::new().prefix("judge-probe-").tempdir() else {
        return Layers::default();
    };
    let home = own.path().to_path_buf();
    let grant = Grant {
        kind: Kind::Run,
        read: Vec::new(),
        write: Vec::new(),
        home,
        deadline: None,
        as_user: true,
        quota: Some(Vec::new()),
    };
    let (decided, scope) = decide(
        &grant,
        &Command::new(launcher),
        config,
        Some(config.user),
        cgroups,
        allowed.of(Kind::Run),
    );
    let json = serde_json::to_string(&decided.policy).expect("a policy serializes");
    let output = Command::new(launcher)
        .args([SUBCOMMAND, "--stage", "outer", "--probe", "--policy", &json])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output();
    drop(scope);
    let mut layers: Layers = match output {
        Ok(out) if out.status.success() => serde_json::from_slice(&out.stdout).unwrap_or_default(),
        _ => Layers::default(),
    };
    if layers.cgroup {
        layers.cgroup_detail = Some(cgroups.describe());
    }
    layers
}
