//! Running a harness binary: in the sandbox, in its own process group, with
//! a deadline, its results on a channel of its own (a socket given as its
//! stdin, whose first event is signed with a nonce; see
//! `judge_harness::protocol`).
//!
//! The suite runs in one process while it can. When the process dies in the
//! middle of a check (an abort, a crash, `process::exit` in learner code),
//! that check gets the verdict and the rest run again in a new process. When
//! the deadline passes, the sandbox kills everything the harness started
//! (whatever process group it moved to) and the judge kills the process
//! group: the check that was running timed out and the ones after it did not
//! run.
//!
//! The harness's environment is the learner's, but for insta's variables
//! ([`insta`]): nothing the learner sets can make a snapshot assertion pass
//! or write a snapshot. In grade mode the harness reads a read-only copy of
//! the suite's snapshots ([`insta::Snapshots`]).
//!
//! Under 500 lines: starting a run, waiting for it and reading its
//! channel are one protocol, and its parts read best together.

mod insta;

use crate::sandbox::{Confined, Grant, Kind, Sandbox};
use anyhow::{Context, Result};
use insta::{Snapshots, insta_env};
use judge_harness::wire::AgentLaunch;
use judge_harness::{Artifact, CheckInfo, Event, Outcome, Setup};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// How to run a harness.
#[derive(Clone, Debug)]
pub(crate) struct RunSpec {
    /// The harness binary, or the checker's when `agent` is set.
    pub(crate) binary: PathBuf,
    /// The agent binary, which runs the learner's code while the checker
    /// (`binary`, run outside the sandbox: it is the judge's code alone)
    /// decides; `None` for a harness that links the learner's crate.
    pub(crate) agent: Option<PathBuf>,
    /// The backend the judge asks for.
    pub(crate) backend: gpu::Backend,
    /// The whole suite's time limit.
    pub(crate) timeout: Duration,
    /// Where checks write timelines and traces.
    pub(crate) artifacts: Option<PathBuf>,
    /// The suite's folder, `judge/checks/exID`: its snapshots are in
    /// `snapshots/`, and `judge/checks` is insta's workspace root.
    pub(crate) suite: PathBuf,
    /// Whether the harness gets a read-only copy of the snapshots (grade mode).
    pub(crate) seal_snapshots: bool,
    /// Where each run's own home folder goes (removed after the run).
    pub(crate) scratch: PathBuf,
    /// The sandbox the harness runs in.
    pub(crate) sandbox: Sandbox,
    /// The seed chosen at grading time, when grading.
    pub(crate) seed: Option<u64>,
}

/// What a run produced.
#[derive(Clone, Debug, Default)]
pub(crate) struct Execution {
    /// The suite's checks, in order (empty if the harness never started).
    pub(crate) checks: Vec<CheckInfo>,
    /// Each check's outcome and its seconds.
    pub(crate) outcomes: BTreeMap<String, (Outcome, f64)>,
    /// The backend the harness used.
    pub(crate) backend: String,
    /// Everything the process printed (stdout then stderr), cut to a size.
    pub(crate) output: String,
    /// What the checks saved (timelines), in order.
    pub(crate) artifacts: Vec<Artifact>,
    /// Lines of the results channel before a suite signed with the nonce
    /// (forgeries, or garbage), ignored.
    pub(crate) forged: usize,
    /// Set when the harness could not start its suite at all.
    pub(crate) failure: Option<String>,
}

/// The most output kept from a run.
const OUTPUT_LIMIT: usize = 64 << 10;

/// The most of the results channel read from a run.
const CHANNEL_LIMIT: usize = 64 << 20;

/// How long the sandbox gets, after the deadline, to kill what it started
/// before the judge kills its process group.
const GRACE: Duration = Duration::from_secs(2);

/// Runs the suite, retrying after a crash, until every check has an outcome
/// or the deadline passes.
pub(crate) fn execute(spec: &RunSpec) -> Result<Execution> {
    fs_err::create_dir_all(&spec.scratch)?;
    let deadline = Instant::now() + spec.timeout;
    let snapshots = Snapshots::new(spec)?;
    let mut run = Execution::default();
    let mut only: Option<Vec<String>> = None;
    loop {
        let attempt = attempt(spec, &snapshots, only.clone(), deadline, &mut run)?;
        let pending: Vec<String> = run
            .checks
            .iter()
            .map(|c| c.name.clone())
            .filter(|n| !run.outcomes.contains_key(n))
            .collect();
        if pending.is_empty() || run.checks.is_empty() {
            if run.checks.is_empty() && run.failure.is_none() {
                run.failure = Some(format!(
                    "the harness ended ({attempt}) before listing its checks"
                ));
            }
            return Ok(run);
        }
        if Instant::now() >= deadline || attempt == Ended::TimedOut {
            for name in pending {
                run.outcomes.insert(name, (Outcome::NotRun, 0.0));
            }
            return Ok(run);
        }
        only = Some(pending);
    }
}

/// How one process ended.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Ended {
    Finished,
    Died(String),
    TimedOut,
}

impl std::fmt::Display for Ended {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Finished => f.write_str("it finished"),
            Self::Died(how) => f.write_str(how),
            Self::TimedOut => f.write_str("it ran out of time"),
        }
    }
}

fn attempt(
    spec: &RunSpec,
    snapshots: &Snapshots,
    only: Option<Vec<String>>,
    deadline: Instant,
    run: &mut Execution,
) -> Result<Ended> {
    let nonce = format!("{:016x}{:016x}", fastrand::u64(..), fastrand::u64(..));
    let home = spec
        .scratch
        .join(format!("home-{:016x}", fastrand::u64(..)));
    // An agent's own sandbox ends it only after the judge has ended the
    // checker (whose process group it is in): the checker must not see its
    // agent die of the deadline and report a crash for a check that ran
    // out of time.
    let own_deadline = match spec.agent {
        Some(_) => deadline + 2 * GRACE,
        None => deadline,
    };
    // The run's sandbox, decided once: the harness's, or the agents' (one
    // for every agent the checker starts). It lives until the run has
    // ended; dropping it ends whatever was left behind.
    let sandboxed = match &spec.agent {
        Some(agent) => Command::new(agent),
        None => harness_command(spec),
    };
    let grant = grant(spec, &snapshots.folder, &home, own_deadline);
    let confined = spec.sandbox.confine(&grant, &sandboxed);
    let (lockdown, agent) = match &spec.agent {
        None => (confined.lockdown(), None),
        Some(_) => (None, Some(agent_launch(&confined))),
    };
    let agent_scope = spec.agent.as_ref().and(confined.scope());
    let setup = Setup {
        nonce: nonce.clone(),
        backend: spec.backend,
        only,
        artifacts: spec.artifacts.clone(),
        snapshots: Some(snapshots.folder.clone()),
        seed: spec.seed,
        lockdown,
        memory_limit: agent.as_ref().map(|_| spec.sandbox.config().limits.memory),
        agent,
    };
    let (mut child, channel) = spawn(spec, &setup, &confined)?;
    let (out, err) = (
        drain(child.stdout.take(), OUTPUT_LIMIT),
        drain(child.stderr.take(), OUTPUT_LIMIT),
    );
    let ended = wait(&mut child, deadline)?;
    // A checker's own standard error is the judge's log, never the
    // learner's output: its agents write both their streams on its standard
    // output, which is the learner's.
    let output = match spec.agent {
        Some(_) => {
            log_checker(&collect(err));
            collect(out)
        }
        None => [collect(out), collect(err)].concat(),
    };
    append_output(&mut run.output, &output);
    let in_flight = read_events(&collect(channel), &nonce, run);
    let _ = std::fs::remove_dir_all(&home);
    if let Some(check) = in_flight {
        let outcome = match (&ended, &agent_scope) {
            (Ended::TimedOut, _) => Outcome::TimedOut {
                limit_s: spec.timeout.as_secs_f64(),
            },
            (_, Some(scope)) if crate::sandbox::cgroup::memory_kills(&scope.dirs()) > 0 => {
                Outcome::Crashed {
                    how: crate::sandbox::cgroup::memory_message(
                        spec.sandbox.config().limits.memory,
                    ),
                }
            }
            (Ended::Died(how), _) if spec.agent.is_some() => checker_failed(how),
            (Ended::Finished, _) if spec.agent.is_some() => {
                checker_failed("it exited in the middle of the check")
            }
            (Ended::Died(how), _) => Outcome::Crashed { how: how.clone() },
            (Ended::Finished, _) => Outcome::Crashed {
                how: "the process exited in the middle of the check".into(),
            },
        };
        run.outcomes.insert(check, (outcome, 0.0));
    }
    Ok(ended)
}

/// Prints what a checker wrote on its standard error (the judge's code
/// alone: a panic's report, an allocator's abort) on the judge's, for the
/// instructor's log.
fn log_checker(text: &str) {
    if !text.trim().is_empty() {
        eprintln!("judge: the checker said:\n{}", text.trim_end());
    }
}

/// The outcome of a check during which the checker (the judge's own code,
/// which runs none of the learner's) ended: the judge's failure, with what
/// it printed for the instructor's log (the judge's standard error).
fn checker_failed(how: &str) -> Outcome {
    eprintln!("judge: the checker ended during a check ({how})");
    Outcome::JudgeFailed {
        message: format!("the judge's checker ended: {how}"),
        log: String::new(),
    }
}

/// What a run of `spec`'s learner code may use in the sandbox: a harness,
/// its binary, the snapshot folder `snapshots`, the suite's folder and the
/// artifacts folder; an agent, its binary alone (the checker, outside,
/// reads the rest); its own `home`, until `deadline`.
fn grant(spec: &RunSpec, snapshots: &Path, home: &Path, deadline: Instant) -> Grant {
    let checks = spec.suite.parent().unwrap_or(&spec.suite);
    let (read, write) = match &spec.agent {
        Some(agent) => (vec![agent.clone()], Vec::new()),
        None => (
            vec![
                spec.binary.clone(),
                snapshots.to_path_buf(),
                checks.to_path_buf(),
            ],
            spec.artifacts.iter().cloned().collect(),
        ),
    };
    Grant {
        kind: match spec.agent {
            Some(_) => Kind::Agent,
            None => Kind::Run,
        },
        read,
        write,
        home: home.to_path_buf(),
        deadline: Some(deadline.saturating_duration_since(Instant::now())),
        as_user: true,
        quota: Some(Vec::new()),
    }
}

/// How the checker starts the agent: the agent binary in the run's
/// sandbox, in its home folder.
fn agent_launch(confined: &Confined) -> AgentLaunch {
    let command = confined.command();
    AgentLaunch {
        program: PathBuf::from(command.get_program()),
        args: command.get_args().map(OsString::from).collect(),
        clear_env: confined.clears_environment(),
        env: command
            .get_envs()
            .filter_map(|(k, v)| Some((k.to_os_string(), v?.to_os_string())))
            .collect(),
        dir: confined.home().to_path_buf(),
        lockdown: confined.lockdown(),
    }
}

/// The harness's (or the checker's) command, with the judge's settings of
/// insta for its snapshots.
fn harness_command(spec: &RunSpec) -> Command {
    let mut harness = Command::new(&spec.binary);
    insta_env(&mut harness, spec.suite.parent().unwrap_or(&spec.suite));
    harness
}

/// Starts the harness in the sandbox (or the checker outside it: it runs
/// the judge's code alone, and starts its agents in the sandbox) with one
/// end of a socket pair as its stdin, and sends the setup on the other;
/// returns the child and what the channel will have carried when the
/// harness (and all it started) ends.
fn spawn(spec: &RunSpec, setup: &Setup, confined: &Confined) -> Result<(Child, Receiver<String>)> {
    use std::os::unix::process::CommandExt;
    let (mut ours, theirs) = UnixStream::pair().context("cannot open a results channel")?;
    spec.sandbox.hand_over(confined.home())?;
    if let Some(artifacts) = &spec.artifacts {
        spec.sandbox.hand_over(artifacts)?;
    }
    // A checker runs the judge's code alone, outside the sandbox; a
    // harness, in it.
    let mut command = match spec.agent {
        None => confined.command(),
        Some(_) => harness_command(spec),
    };
    // The command (which holds the harness's end of the channel) is dropped
    // once spawned, so that the channel ends when the harness does.
    let mut child = command
        .current_dir(confined.home())
        .process_group(0)
        .stdin(Stdio::from(OwnedFd::from(theirs)))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start the harness `{}`", spec.binary.display()))?;
    // The checker joins its agents' control groups before it reads its
    // setup, so before it starts any: what it holds and spends for them is
    // the submission's. Without them it runs as before, under the judge's.
    if let Some(scope) = spec.agent.as_ref().and(confined.scope())
        && let Err(e) = scope.take_in(child.id())
    {
        let _ = child.kill();
        let _ = child.wait();
        return Err(e).context("cannot move the checker into the submission's control group");
    }
    let mut line = serde_json::to_string(setup).expect("a setup serializes");
    line.push('\n');
    let _ = ours.write_all(line.as_bytes());
    Ok((child, drain(Some(ours), CHANNEL_LIMIT)))
}

/// The output a drain thread read, waiting at most a second after the
/// process ended: without the sandbox, a process that escaped the group may
/// hold the pipe open.
fn collect(drain: Receiver<String>) -> String {
    drain
        .recv_timeout(Duration::from_secs(1))
        .unwrap_or_else(|_| "[output cut: a process the code started still holds it open]\n".into())
}

/// Reads `pipe` to its end in a thread, keeping at most `limit` bytes.
fn drain(pipe: Option<impl Read + Send + 'static>, limit: usize) -> Receiver<String> {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = Vec::new();
        if let Some(mut pipe) = pipe {
            let mut chunk = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                if text.len() < limit {
                    text.extend_from_slice(&chunk[..n]);
                }
            }
        }
        let _ = send.send(String::from_utf8_lossy(&text).into_owned());
    });
    receive
}

fn append_output(all: &mut String, more: &str) {
    if all.len() < OUTPUT_LIMIT {
        all.push_str(more);
    }
    if all.len() > OUTPUT_LIMIT {
        let cut = (0..=OUTPUT_LIMIT)
            .rev()
            .find(|&i| all.is_char_boundary(i))
            .unwrap_or(0);
        all.truncate(cut);
        all.push_str("\n[output cut]\n");
    }
}

/// Waits for the child until the deadline; then gives the sandbox (which
/// has the same deadline) a moment to kill what it started, and kills the
/// whole process group.
fn wait(child: &mut Child, deadline: Instant) -> Result<Ended> {
    use wait_timeout::ChildExt;
    let left = deadline.saturating_duration_since(Instant::now());
    let status = child
        .wait_timeout(left)
        .context("cannot wait for the harness")?;
    if status.is_none() {
        let _ = child.wait_timeout(GRACE);
    }
    kill_group(child);
    match status {
        Some(status) => Ok(ended(status)),
        None => {
            let _ = child.wait();
            Ok(Ended::TimedOut)
        }
    }
}

/// Kills every process of the group the harness leads (it and anything it
/// spawned); a group already gone is fine.
fn kill_group(child: &Child) {
    use rustix::process::{Pid, Signal, kill_process_group};
    let _ = kill_process_group(Pid::from_child(child), Signal::KILL);
}

fn ended(status: ExitStatus) -> Ended {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(0), _) => Ended::Finished,
        (Some(code), _) => Ended::Died(format!("the process exited with code {code}")),
        (None, Some(signal)) => Ended::Died(format!(
            "the process was killed by signal {signal}{}",
            judge_harness::signals::meaning(signal)
        )),
        (None, None) => Ended::Died("the process ended abnormally".into()),
    }
}

/// Reads the events of a run's channel: the first must be the suite, signed
/// with the run's nonce; the ones after it are believed, since only the
/// harness held the channel. Returns a check that started and never ended.
fn read_events(text: &str, nonce: &str, run: &mut Execution) -> Option<String> {
    let mut in_flight = None;
    let mut opened = false;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let event: Event = match serde_json::from_str::<Event>(line) {
            Ok(e) if opened || (matches!(e, Event::Suite { .. }) && e.verify(nonce)) => e,
            _ => {
                run.forged += 1;
                continue;
            }
        };
        opened = true;
        match event {
            Event::Suite {
                checks, backend, ..
            } => {
                run.checks = checks;
                run.backend = backend;
            }
            Event::Start { check, .. } => in_flight = Some(check),
            Event::Artifact { artifact, .. } => run.artifacts.push(artifact),
            Event::End {
                check,
                outcome,
                seconds,
                ..
            } => {
                in_flight = None;
                if let Outcome::JudgeFailed { message, log } = &outcome {
                    eprintln!("judge: the checker failed in check `{check}`: {message}\n{log}");
                }
                run.outcomes
                    .insert(check, (crate::text::clean_outcome(outcome), seconds));
            }
            Event::Done { .. } => {}
        }
    }
    in_flight
}
