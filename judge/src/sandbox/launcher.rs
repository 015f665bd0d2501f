//! The launcher: what `judge __sandbox` does. The judge starts itself again
//! as this small program, which puts the layers in place on its own process
//! and then becomes the target, so that the judge needs no `unsafe`
//! `pre_exec` and never restricts itself. It runs in stages, each a fresh
//! `exec` of the judge's binary:
//!
//! * **outer**, the judge's child: becomes the subreaper of what it starts,
//!   enters new pid and network namespaces where it may, starts the next
//!   stage, kills everything at the policy's deadline or past its disk
//!   limit ([`crate::sandbox::disk`]), kills whatever is
//!   left once the target has ended ([`crate::sandbox::reaper`]), and exits
//!   as the target did (dying of the same signal), so the judge sees the
//!   target's own exit status;
//! * **init**, only in a new pid namespace: its pid 1, which starts inner
//!   and passes on how it ended (a pid 1 cannot die of its own signals, so
//!   the target must not be it: an `abort` would not end it);
//! * **inner**: sets the limits, becomes the unprivileged user (as root),
//!   applies landlock and seccomp to itself, and `exec`s the target. With
//!   `--probe` it prints what it put in place instead ([`Layers`], JSON).

use crate::sandbox::layers::Layers;
use crate::sandbox::policy::Policy;
use crate::sandbox::{
    SUBCOMMAND, cgroup, disk, fs_rules, identity, limits, mounts, namespaces, reaper, syscalls,
};
use anyhow::{Context, Result, bail};
use clap::ValueEnum;
use std::ffi::OsString;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

/// A stage of the launcher.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Stage {
    /// The judge's child: namespaces, deadline, reaping.
    Outer,
    /// Pid 1 of a new pid namespace.
    Init,
    /// Limits, user, landlock, seccomp, then the target.
    Inner,
}

/// One stage as `judge __sandbox` was asked to run it.
#[derive(Clone, Debug)]
pub(crate) struct Launch {
    /// Which stage.
    pub(crate) stage: Stage,
    /// What the sandbox allows.
    pub(crate) policy: Policy,
    /// What the stages before this one put in place.
    pub(crate) applied: Layers,
    /// Report the layers instead of starting a target.
    pub(crate) probe: bool,
    /// The target and its arguments.
    pub(crate) program: Vec<OsString>,
}

/// Runs one stage; returns the exit code to exit with (or dies of the
/// target's signal).
pub(crate) fn launch(launch: Launch) -> Result<u8> {
    if launch.program.is_empty() && !launch.probe {
        bail!("`judge {SUBCOMMAND}` needs a program to run after `--`");
    }
    match launch.stage {
        Stage::Outer => outer(launch),
        Stage::Init => init(&launch),
        Stage::Inner => inner(launch),
    }
}

fn outer(mut launch: Launch) -> Result<u8> {
    let applied = &mut launch.applied;
    applied.root = nix::unistd::geteuid().is_root();
    if !launch.policy.cgroups.is_empty() {
        cgroup::join(&launch.policy.cgroups, false)
            .context("cannot join the sandbox's control groups")?;
        applied.cgroup = true;
    }
    applied.subreaper = nix::sys::prctl::set_child_subreaper(true).is_ok();
    let policy = &launch.policy;
    // A `/proc` of its own needs the right to mount one: as root only.
    let pid = policy.pid_namespace
        && !policy.omits("pid")
        && (!policy.fresh_proc || applied.root && !policy.omits("proc"));
    let entered = match policy.namespaces {
        true => namespaces::enter(applied.root, pid, !policy.omits("net")),
        false => namespaces::Entered::default(),
    };
    (applied.pid_namespace, applied.net_namespace) = (entered.pid, entered.net);
    applied.user_namespace = entered.user;
    let deadline = launch.policy.deadline_ms.map(Duration::from_millis);
    let next = if entered.pid {
        Stage::Init
    } else {
        Stage::Inner
    };
    let quota = match (&policy.disk_quota, policy.omits("disk")) {
        (Some(seeded), false) => Some(disk::Quota::start(
            &policy.write,
            seeded,
            policy.limits.disk,
        )),
        _ => None,
    };
    applied.disk = quota.as_ref().map(disk::Quota::limit);
    let mut child = relaunch(&launch, next)
        .spawn()
        .context("cannot start the sandbox")?;
    let deadline = deadline.map(|d| Instant::now() + d);
    let cpu = (policy.cpu_together && !policy.omits("limits"))
        .then(|| Duration::from_secs(policy.limits.cpu_s));
    let watch = Watch {
        deadline,
        quota: quota.as_ref(),
        cpu,
        cgroups: &launch.policy.cgroups,
    };
    let (status, over) = wait(&mut child, &watch)?;
    // Everything the target started, however it detached, ends here at
    // once where the sandbox has a control group; the reaper then finds
    // nothing left, or ends what it finds.
    cgroup::end_work(&launch.policy.cgroups);
    reaper::kill_descendants();
    if cgroup::memory_kills(&launch.policy.cgroups) > 0 {
        eprintln!("{}", cgroup::memory_message(launch.policy.limits.memory));
    }
    match (over, &quota) {
        (Some(Over::Disk(added)), Some(quota)) => {
            eprintln!("{}", disk::message(added, quota.limit()));
            return Ok(die_of(nix::sys::signal::Signal::SIGXFSZ as i32));
        }
        (Some(Over::Cpu(used)), _) => {
            eprintln!("{}", cgroup::cpu_message(used, launch.policy.limits.cpu_s));
            return Ok(die_of(nix::sys::signal::Signal::SIGXCPU as i32));
        }
        _ => {}
    }
    Ok(pass_on(status, entered.pid))
}

fn init(launch: &Launch) -> Result<u8> {
    join_work(&launch.policy)?;
    if launch.policy.fresh_proc {
        mounts::fresh_proc().context("cannot mount a /proc of the pid namespace's own")?;
    }
    let status = relaunch(launch, Stage::Inner)
        .status()
        .context("cannot start the sandbox")?;
    Ok(match (status.code(), status.signal()) {
        (Some(code), _) => code as u8,
        (None, Some(signal)) => 128 + signal as u8,
        (None, None) => 1,
    })
}

fn inner(mut launch: Launch) -> Result<u8> {
    join_work(&launch.policy)?;
    let (policy, applied) = (&launch.policy, &mut launch.applied);
    let own_user = applied.root || applied.user_namespace;
    if !policy.omits("limits") {
        // Where the control group counts the sandbox's processes, the
        // per-user limit (shared by every sandbox of the user) is not set.
        let per_user = own_user && !(applied.cgroup && policy.processes_counted);
        let set = limits::apply(&policy.limits, per_user).context("cannot set the limits")?;
        applied.process_limit = set || (applied.cgroup && policy.processes_counted);
        applied.limits = Some(policy.limits);
    }
    if let (true, Some(user), false) = (applied.root, policy.user, policy.omits("user")) {
        let paths: Vec<_> = policy.read.iter().chain(&policy.write).cloned().collect();
        // Without the right to mount (a container's root), paths stay as
        // they are: the user then reads what the file modes let it.
        if !policy.omits("mounts") {
            let _ = mounts::reach(&paths, user);
        }
        let kept = identity::become_user(user)
            .with_context(|| format!("cannot become the user {user}"))?;
        (applied.user, applied.reads_past_modes) = (Some(user), kept);
    }
    if !policy.omits("landlock") {
        let files = fs_rules::restrict(policy).context("cannot apply landlock")?;
        applied.landlock = files.abi;
        (applied.signal_scope, applied.tcp_refused) = (files.signal_scope, files.tcp_refused);
    }
    applied.seccomp = !policy.omits("seccomp") && syscalls::restrict().is_ok();
    if launch.probe {
        println!("{}", serde_json::to_string(&launch.applied)?);
        return Ok(0);
    }
    let error = Command::new(&launch.program[0])
        .args(&launch.program[1..])
        .exec();
    bail!(
        "cannot start `{}` in the sandbox: {error}",
        launch.program[0].to_string_lossy()
    )
}

/// Moves this stage (the one after outer, which stays in the scope) into
/// the sandbox's `work` groups, where everything it starts stays.
fn join_work(policy: &Policy) -> Result<()> {
    cgroup::join(&policy.cgroups, true).context("cannot join the sandbox's control groups")
}

/// The command that runs `stage` next, with what this one knows.
fn relaunch(launch: &Launch, stage: Stage) -> Command {
    let me = std::env::current_exe().unwrap_or_else(|_| "/proc/self/exe".into());
    let mut command = Command::new(me);
    command
        .arg(SUBCOMMAND)
        .arg("--stage")
        .arg(stage.to_possible_value().expect("a named stage").get_name())
        .arg("--policy")
        .arg(serde_json::to_string(&launch.policy).expect("a policy serializes"))
        .arg("--applied")
        .arg(serde_json::to_string(&launch.applied).expect("layers serialize"));
    if launch.probe {
        command.arg("--probe");
    }
    command.arg("--").args(&launch.program);
    command
}

/// What the outer stage watches while the target runs.
struct Watch<'a> {
    /// When the target is killed.
    deadline: Option<Instant>,
    /// The account of the sandbox's folders, with its limit.
    quota: Option<&'a disk::Quota>,
    /// The CPU time the sandbox's processes may use together, where its
    /// control group counts it ([`cgroup::cpu_used`]).
    cpu: Option<Duration>,
    /// The sandbox's control groups.
    cgroups: &'a [std::path::PathBuf],
}

/// Which of the sandbox's limits for all its processes together it passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Over {
    /// Its folders grew by this many bytes, past the disk limit.
    Disk(u64),
    /// Its processes used this much CPU time, past the CPU-time limit.
    Cpu(Duration),
}

/// How often the outer stage reads the sandbox's CPU time.
const CPU_INTERVAL: Duration = Duration::from_millis(50);

/// Waits for `child`, killing it at the deadline, and meanwhile walking
/// the sandbox's folders (with a quota) and reading its CPU time (where
/// its control group counts it): past either limit it ends the sandbox
/// (its control groups' `work` groups, and `child`) and says which.
fn wait(child: &mut Child, watch: &Watch<'_>) -> Result<(ExitStatus, Option<Over>)> {
    use wait_timeout::ChildExt;
    let counts_cpu = watch
        .cpu
        .filter(|_| cgroup::cpu_used(watch.cgroups).is_some());
    let mut walk = Instant::now() + disk::INTERVAL;
    let mut read_cpu = Instant::now() + CPU_INTERVAL;
    loop {
        let now = Instant::now();
        if watch.deadline.is_some_and(|d| d <= now) {
            let _ = child.kill();
            return Ok((child.wait().context("cannot wait")?, None));
        }
        let next = [
            watch.deadline,
            watch.quota.map(|_| walk),
            counts_cpu.map(|_| read_cpu),
        ];
        let Some(until) = next.into_iter().flatten().min() else {
            return Ok((child.wait().context("cannot wait")?, None));
        };
        let left = until.saturating_duration_since(now);
        if let Some(status) = child.wait_timeout(left).context("cannot wait")? {
            return Ok((status, None));
        }
        let over = match (watch.quota, counts_cpu) {
            (Some(quota), _) if Instant::now() >= walk => {
                let began = Instant::now();
                let over = quota.over().map(Over::Disk);
                walk = disk::Quota::next_walk(began);
                over
            }
            (_, Some(limit)) if Instant::now() >= read_cpu => {
                read_cpu = Instant::now() + CPU_INTERVAL;
                cgroup::cpu_used(watch.cgroups)
                    .filter(|used| *used > limit)
                    .map(Over::Cpu)
            }
            _ => None,
        };
        if let Some(over) = over {
            cgroup::end_work(watch.cgroups);
            let _ = child.kill();
            return Ok((child.wait().context("cannot wait")?, Some(over)));
        }
    }
}

/// Exits as the target did: with its code, or of its signal (which `init`
/// passed on as `128 + signal`).
fn pass_on(status: ExitStatus, through_init: bool) -> u8 {
    let signal = status.signal().or(match status.code() {
        Some(code) if through_init && (129..=192).contains(&code) => Some(code - 128),
        _ => None,
    });
    match signal {
        Some(signal) => die_of(signal),
        None => status.code().unwrap_or(1) as u8,
    }
}

/// Kills this process with `signal` (no core dump), or, for a signal that
/// would not end it, returns `128 + signal` to exit with.
fn die_of(signal: i32) -> u8 {
    use nix::sys::signal::Signal;
    if let Ok(signal) = Signal::try_from(signal) {
        let stops = [
            Signal::SIGSTOP,
            Signal::SIGTSTP,
            Signal::SIGTTIN,
            Signal::SIGTTOU,
        ];
        if !stops.contains(&signal) {
            let core = nix::sys::resource::Resource::RLIMIT_CORE;
            let _ = nix::sys::resource::setrlimit(core, 0, 0);
            let _ = nix::sys::signal::kill(nix::unistd::Pid::this(), signal);
        }
    }
    128u8.wrapping_add(signal as u8)
}
