//! Running a harness binary: its own process group, a deadline, a results
//! file with a nonce.
//!
//! The suite runs in one process while it can. When the process dies in the
//! middle of a check (an abort, a crash, `process::exit` in learner code),
//! that check gets the verdict and the rest run again in a new process. When
//! the deadline passes, the whole process group is killed: the check that was
//! running timed out and the ones after it did not run.
//!
//! The harness's environment is the learner's, but for insta's variables
//! ([`insta_env`]): nothing the learner sets can make a snapshot assertion
//! pass or write a snapshot. In grade mode the harness reads a read-only
//! copy of the suite's snapshots ([`Snapshots`]). (Past 400 lines with its
//! tests; the code itself is under 400.)

use anyhow::{Context, Result};
use judge_harness::{Artifact, CheckInfo, Event, Outcome, Setup};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// How to run a harness.
#[derive(Clone, Debug)]
pub(crate) struct RunSpec {
    /// The harness binary.
    pub(crate) binary: PathBuf,
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
    /// The seed the checks get ([`Setup::seed`]): grade mode only.
    pub(crate) seed: Option<u64>,
    /// Where results files go.
    pub(crate) scratch: PathBuf,
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
    /// Lines of the results file not signed with the nonce (forgeries), ignored.
    pub(crate) forged: usize,
    /// Set when the harness could not start its suite at all.
    pub(crate) failure: Option<String>,
}

/// The most output kept from a run.
const OUTPUT_LIMIT: usize = 64 << 10;

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
    let results = spec
        .scratch
        .join(format!("results-{:016x}.jsonl", fastrand::u64(..)));
    let setup = Setup {
        nonce: nonce.clone(),
        results: results.clone(),
        backend: spec.backend,
        only,
        artifacts: spec.artifacts.clone(),
        snapshots: Some(snapshots.folder.clone()),
        seed: spec.seed,
    };
    let checks = spec.suite.parent().unwrap_or(&spec.suite);
    let mut child = spawn(&spec.binary, &setup, checks)?;
    let (out, err) = (drain(child.stdout.take()), drain(child.stderr.take()));
    let ended = wait(&mut child, deadline)?;
    let output = [collect(out), collect(err)].concat();
    append_output(&mut run.output, &output);
    let in_flight = read_events(&results, &nonce, run)?;
    let _ = std::fs::remove_file(&results);
    if let Some(check) = in_flight {
        let outcome = match &ended {
            Ended::TimedOut => Outcome::TimedOut {
                limit_s: spec.timeout.as_secs_f64(),
            },
            Ended::Died(how) => Outcome::Crashed { how: how.clone() },
            Ended::Finished => Outcome::Crashed {
                how: "the process exited in the middle of the check".into(),
            },
        };
        run.outcomes.insert(check, (outcome, 0.0));
    }
    Ok(ended)
}

fn spawn(binary: &Path, setup: &Setup, checks: &Path) -> Result<Child> {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(binary);
    insta_env(&mut command, checks);
    let mut child = command
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start the harness `{}`", binary.display()))?;
    let mut line = serde_json::to_string(setup).expect("a setup serializes");
    line.push('\n');
    let mut stdin = child.stdin.take().expect("piped");
    // The setup goes first; closing stdin afterwards gives learner code nothing to read.
    let _ = stdin.write_all(line.as_bytes());
    drop(stdin);
    Ok(child)
}

/// The insta variables of the harness: every `INSTA_*` variable of the
/// judge's environment (the learner's) is removed, so no pending folder,
/// diff tool or references file is used, and the ones that decide whether
/// a snapshot passes or is written are set: no update (no `.snap` or
/// `.snap.new` is written), no force-pass, a full diff in the output.
/// insta's workspace root is `checks`, the judge's `judge/checks` (an
/// `insta.yaml` there would be the judge's, and these variables override
/// any file anyway); that also spares insta a `cargo metadata` call.
/// `INSTA_CARGO_INSTA=1` keeps insta from telling the learner to run
/// `cargo insta test`, and `CI=true` makes insta's `auto` mode `no` too.
fn insta_env(command: &mut Command, checks: &Path) {
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("INSTA_") {
            command.env_remove(key);
        }
    }
    command
        .env("INSTA_UPDATE", "no")
        .env("INSTA_FORCE_PASS", "0")
        .env("INSTA_REQUIRE_FULL_MATCH", "0")
        .env("INSTA_OUTPUT", "diff")
        .env("INSTA_WORKSPACE_ROOT", checks)
        .env("INSTA_CARGO_INSTA", "1")
        .env("CI", "true");
}

/// The snapshot folder the harness reads: the suite's own, or in grade mode
/// a copy made for this run, its files and folder read-only, removed when
/// the run ends. The permissions stop a harness of another uid (with the
/// judge as root they stop nothing, so the copy is what counts): whatever a
/// harness writes there never reaches the course or the next submission.
struct Snapshots {
    folder: PathBuf,
    sealed: bool,
}

impl Snapshots {
    fn new(spec: &RunSpec) -> Result<Self> {
        let snapshots = spec.suite.join("snapshots");
        if !spec.seal_snapshots {
            return Ok(Self {
                folder: snapshots,
                sealed: false,
            });
        }
        // Made first, so that a copy that fails half-way is removed too.
        let sealed = Self {
            folder: spec
                .scratch
                .join(format!("snapshots-{:016x}", fastrand::u64(..))),
            sealed: true,
        };
        std::fs::create_dir_all(&sealed.folder)
            .with_context(|| format!("cannot create `{}`", sealed.folder.display()))?;
        let entries = std::fs::read_dir(&snapshots)
            .into_iter()
            .flatten()
            .flatten();
        for from in entries
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "snap"))
        {
            let to = sealed.folder.join(from.file_name().unwrap_or_default());
            std::fs::copy(&from, &to)
                .with_context(|| format!("cannot copy `{}`", from.display()))?;
            set_mode(&to, 0o444)?;
        }
        set_mode(&sealed.folder, 0o555)?;
        Ok(sealed)
    }
}

impl Drop for Snapshots {
    fn drop(&mut self) {
        if self.sealed {
            let _ = set_mode(&self.folder, 0o755);
            let _ = std::fs::remove_dir_all(&self.folder);
        }
    }
}

fn set_mode(path: &Path, mode: u32) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .with_context(|| format!("cannot set the permissions of `{}`", path.display()))
}

/// The output a drain thread read, waiting at most a second after the
/// process ended: a process that escaped the group may hold the pipe open.
fn collect(drain: std::sync::mpsc::Receiver<String>) -> String {
    drain
        .recv_timeout(Duration::from_secs(1))
        .unwrap_or_else(|_| "[output cut: a process the code started still holds it open]\n".into())
}

fn drain(pipe: Option<impl Read + Send + 'static>) -> std::sync::mpsc::Receiver<String> {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = Vec::new();
        if let Some(mut pipe) = pipe {
            let mut chunk = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                if text.len() < OUTPUT_LIMIT {
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

/// Waits for the child until the deadline; then kills its whole process group.
fn wait(child: &mut Child, deadline: Instant) -> Result<Ended> {
    use wait_timeout::ChildExt;
    let left = deadline.saturating_duration_since(Instant::now());
    let status = child
        .wait_timeout(left)
        .context("cannot wait for the harness")?;
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
            signal_name(signal)
        )),
        (None, None) => Ended::Died("the process ended abnormally".into()),
    }
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        6 => " (SIGABRT: an abort)",
        9 => " (SIGKILL)",
        11 => " (SIGSEGV: an invalid memory access)",
        _ => "",
    }
}

/// Reads the events signed with the run's nonce; returns a check that started and
/// never ended.
fn read_events(path: &Path, nonce: &str, run: &mut Execution) -> Result<Option<String>> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(None);
    };
    let mut in_flight = None;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let event: Event = match serde_json::from_str::<Event>(line) {
            Ok(e) if e.verify(nonce) => e,
            _ => {
                run.forged += 1;
                continue;
            }
        };
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
                run.outcomes.insert(check, (outcome, seconds));
            }
            Event::Done { .. } => {}
        }
    }
    Ok(in_flight)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(suite: &Path, scratch: &Path, seal: bool) -> RunSpec {
        RunSpec {
            binary: PathBuf::new(),
            backend: gpu::Backend::Virtual,
            timeout: Duration::from_secs(1),
            artifacts: None,
            suite: suite.to_path_buf(),
            seal_snapshots: seal,
            seed: None,
            scratch: scratch.to_path_buf(),
        }
    }

    #[test]
    fn grading_reads_a_read_only_copy_of_the_snapshots_that_goes_away() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let (suite, scratch) = (dir.path().join("ex7"), dir.path().join("runs"));
        std::fs::create_dir_all(suite.join("snapshots")).unwrap();
        std::fs::write(suite.join("snapshots/a.snap"), "a").unwrap();
        std::fs::write(suite.join("snapshots/a.snap.new"), "pending").unwrap();
        let own = Snapshots::new(&spec(&suite, &scratch, false)).unwrap();
        assert_eq!(own.folder, suite.join("snapshots"));
        let sealed = Snapshots::new(&spec(&suite, &scratch, true)).unwrap();
        let folder = sealed.folder.clone();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let names: Vec<_> = std::fs::read_dir(&folder)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(
            names,
            ["a.snap"],
            "only the snapshots, no pending `.snap.new`"
        );
        assert_eq!(
            (mode(&folder), mode(&folder.join("a.snap"))),
            (0o555, 0o444)
        );
        drop(sealed);
        assert!(!folder.exists(), "the copy is removed after the run");
        assert!(suite.join("snapshots/a.snap").is_file());
    }
}
