//! `judge watch [ID]`: runs the current exercise again each time one of its
//! files is saved, and moves on to the next one not passed when it passes.
//!
//! The current exercise is the one asked for, else the first one the
//! progress file does not list as passed. A file watcher (`notify`) on the
//! exercise's crate feeds changes in; a change counts once no other has come
//! for [`QUIET`] (editors save in bursts), and changes under `target/` or to
//! editor swap files do not count. Lines typed on stdin count too: Enter runs
//! again, `q` quits. Where the watcher cannot start (or with `--manual`) the
//! keyboard is the only trigger. Each run is `judge run ID`.

use crate::cli::WatchArgs;
use crate::course::Course;
use crate::exit;
use crate::judging::{Options, judge_learner};
use crate::progress::{self, Status};
use crate::report::render;
use crate::sandbox::{Config as SandboxConfig, Sandbox};
use anyhow::Result;
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

/// How long the files must stay unchanged before a run starts.
const QUIET: Duration = Duration::from_millis(200);

/// What arrives while waiting.
#[derive(Debug)]
enum Signal {
    /// The file watcher saw something.
    File(notify::Result<notify::Event>),
    /// A line typed on stdin.
    Line(String),
    /// Stdin ended.
    Closed,
}

/// What waiting ended with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Next {
    /// Run the exercise again.
    Run,
    /// Leave watch mode.
    Quit,
}

/// A burst of file changes, counted once it has been quiet for a while.
#[derive(Clone, Copy, Debug)]
struct Debounce {
    /// How long it must stay quiet.
    quiet: Duration,
    /// The last change not yet acted on.
    last: Option<Instant>,
}

impl Debounce {
    /// Nothing pending; a burst counts after `quiet`.
    fn new(quiet: Duration) -> Self {
        Self { quiet, last: None }
    }

    /// A change at `now`.
    fn note(&mut self, now: Instant) {
        self.last = Some(now);
    }

    /// How long to wait for more changes: `None` when none is pending, zero
    /// when it is time to act.
    fn remaining(&self, now: Instant) -> Option<Duration> {
        self.last.map(|last| {
            self.quiet
                .saturating_sub(now.saturating_duration_since(last))
        })
    }
}

/// Watches exercises until the learner quits or every exercise has passed.
pub(crate) fn watch(root: Option<&Path>, args: &WatchArgs) -> Result<u8> {
    let course = Course::open(root)?;
    let order: Vec<u32> = course.manifest.exercises.iter().map(|e| e.id).collect();
    let start = match &args.id {
        Some(id) => Some(course.manifest.get(id)?.id),
        None => first_unpassed(&order, &progress::load(&course)),
    };
    let Some(mut current) = start else {
        println!("every exercise has passed; `judge watch ID` works on one again");
        return Ok(exit::OK);
    };
    let (send, receive) = channel();
    spawn_stdin_reader(send.clone());
    while until_passed(&course, args, current, &send, &receive)? {
        let statuses = progress::load(&course);
        let Some(next) = next_unpassed(&order, &statuses, current) else {
            println!("\nexercise {current} passed, and with it every exercise: well done!");
            return Ok(exit::OK);
        };
        println!("\nexercise {current} passed; on to exercise {next}\n");
        current = next;
    }
    Ok(exit::OK)
}

/// Runs exercise `id`, then again after each change, until it passes
/// (`true`) or the learner quits (`false`).
fn until_passed(
    course: &Course,
    args: &WatchArgs,
    id: u32,
    send: &Sender<Signal>,
    receive: &Receiver<Signal>,
) -> Result<bool> {
    let crate_dir = course.exercise_dir(course.manifest.get(&id.to_string())?);
    let watcher = match args.manual {
        true => None,
        false => start_watcher(&crate_dir, send.clone()),
    };
    let mut clear = false;
    loop {
        if run_once(course, args, id, clear)? {
            return Ok(true);
        }
        print_help(&crate_dir, &course.root, watcher.is_some());
        match wait(receive, &crate_dir, watcher.is_none()) {
            Next::Run => clear = true,
            Next::Quit => return Ok(false),
        }
    }
}

/// Runs exercise `id` as `judge run ID` does; whether it passed. An error
/// (no cargo, a broken crate manifest) is printed: the learner may fix it
/// and save.
fn run_once(course: &Course, args: &WatchArgs, id: u32, clear: bool) -> Result<bool> {
    let mut out = anstream::stdout();
    if clear && std::io::stdout().is_terminal() {
        write!(out, "\x1b[H\x1b[2J\x1b[3J")?;
        out.flush()?;
    }
    let options = Options {
        backend: args.backend.into(),
        progress: std::io::stderr().is_terminal(),
        sandbox: Sandbox::new(SandboxConfig::default()),
        ..Options::default()
    };
    let judged = course
        .manifest
        .get(&id.to_string())
        .cloned()
        .and_then(|exercise| judge_learner(course, &exercise, false, &options));
    match judged {
        Ok(report) => {
            render(&report, &mut out)?;
            Ok(report.passed())
        }
        Err(err) => {
            eprintln!("error: {err:#}");
            Ok(false)
        }
    }
}

/// The line under each report that says what happens next.
fn print_help(crate_dir: &Path, root: &Path, watching: bool) {
    let shown = crate_dir.strip_prefix(root).unwrap_or(crate_dir).display();
    match watching {
        true => println!(
            "\nwatching {shown}: save a file to run again; Enter runs now, q + Enter quits"
        ),
        false => println!("\nedit {shown}, then press Enter to run again; q + Enter quits"),
    }
}

/// Starts watching `crate_dir`; `None` (after saying why) when it cannot.
fn start_watcher(crate_dir: &Path, send: Sender<Signal>) -> Option<RecommendedWatcher> {
    let watcher = notify::recommended_watcher(move |event| {
        let _ = send.send(Signal::File(event));
    });
    let started =
        watcher.and_then(|mut w| w.watch(crate_dir, RecursiveMode::Recursive).map(|()| w));
    match started {
        Ok(watcher) => Some(watcher),
        Err(err) => {
            eprintln!(
                "note: cannot watch `{}` for changes ({err}); switching to manual mode",
                crate_dir.display()
            );
            None
        }
    }
}

/// Reads stdin lines into the channel, on a thread of its own.
fn spawn_stdin_reader(send: Sender<Signal>) {
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if send.send(Signal::Line(line)).is_err() {
                return;
            }
        }
        let _ = send.send(Signal::Closed);
    });
}

/// Waits for the next reason to run (a quiet burst of relevant changes, or
/// Enter) or to quit (`q`, or stdin ending in manual mode).
fn wait(receive: &Receiver<Signal>, crate_dir: &Path, manual: bool) -> Next {
    let mut burst = Debounce::new(QUIET);
    // Lines typed while the exercise ran are dropped (but `q` still quits);
    // files saved meanwhile count.
    for signal in receive.try_iter() {
        match signal {
            Signal::File(Ok(event)) if counts(&event.kind, &event.paths, crate_dir) => {
                burst.note(Instant::now())
            }
            Signal::Line(line) if command(&line) == Some(Next::Quit) => return Next::Quit,
            Signal::Closed if manual => return Next::Quit,
            _ => {}
        }
    }
    loop {
        let signal = match burst.remaining(Instant::now()) {
            Some(left) => match receive.recv_timeout(left) {
                Err(RecvTimeoutError::Timeout) => return Next::Run,
                other => other.ok(),
            },
            None => receive.recv().ok(),
        };
        match signal {
            None => return Next::Quit,
            Some(Signal::File(Ok(event))) if counts(&event.kind, &event.paths, crate_dir) => {
                burst.note(Instant::now())
            }
            Some(Signal::File(Ok(_))) => {}
            Some(Signal::File(Err(err))) => eprintln!("note: the file watcher says: {err}"),
            Some(Signal::Line(line)) => match command(&line) {
                Some(next) => return next,
                None => println!("type Enter to run again, or q then Enter to quit"),
            },
            Some(Signal::Closed) if manual => return Next::Quit,
            Some(Signal::Closed) => {}
        }
    }
}

/// What a typed line asks for: Enter runs, `q` quits, anything else is unknown.
fn command(line: &str) -> Option<Next> {
    match line.trim().to_ascii_lowercase().as_str() {
        "" | "r" => Some(Next::Run),
        "q" | "quit" | "exit" => Some(Next::Quit),
        _ => None,
    }
}

/// Whether an event of `kind` on `paths` is a change to the crate in
/// `crate_dir` worth a run: files created, written, renamed or removed,
/// outside `target/` and `.git/`, and not editor swap or backup files.
fn counts(kind: &EventKind, paths: &[PathBuf], crate_dir: &Path) -> bool {
    let changed = matches!(
        kind,
        EventKind::Any | EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_)
    );
    changed && paths.iter().any(|path| relevant(path, crate_dir))
}

/// Whether `path` is a file of the crate that a run depends on.
fn relevant(path: &Path, crate_dir: &Path) -> bool {
    let Ok(inside) = path.strip_prefix(crate_dir) else {
        return false;
    };
    let mut parts = inside.components();
    if let Some(Component::Normal(first)) = parts.clone().next()
        && (first == "target" || first == ".git")
    {
        return false;
    }
    parts
        .next_back()
        .is_none_or(|last| !is_scratch_file(&last.as_os_str().to_string_lossy()))
}

/// Whether `name` is an editor's swap, backup or lock file, not the learner's code.
fn is_scratch_file(name: &str) -> bool {
    let swap = [".swp", ".swo", ".swx", ".swpx", ".tmp", ".bak", ".orig"];
    name.ends_with('~')
        || name.starts_with(".#")
        || (name.starts_with('#') && name.ends_with('#'))
        || name == "4913"
        || name == ".DS_Store"
        || name.contains("___jb_")
        || swap.iter().any(|ext| name.ends_with(ext))
}

/// The first exercise, in the manifest's order, not passed yet.
fn first_unpassed(order: &[u32], statuses: &BTreeMap<u32, Status>) -> Option<u32> {
    order.iter().copied().find(|id| !passed(statuses, *id))
}

/// The exercise after `current` not passed yet, coming round to the ones
/// before it; `None` when every exercise has passed.
fn next_unpassed(order: &[u32], statuses: &BTreeMap<u32, Status>, current: u32) -> Option<u32> {
    let at = order
        .iter()
        .position(|&id| id == current)
        .map_or(0, |i| i + 1);
    let (before, after) = order.split_at(at.min(order.len()));
    after
        .iter()
        .chain(before)
        .copied()
        .find(|&id| id != current && !passed(statuses, id))
}

/// Whether the progress file says exercise `id` passed.
fn passed(statuses: &BTreeMap<u32, Status>, id: u32) -> bool {
    statuses.get(&id) == Some(&Status::Passed)
}

#[cfg(test)]
mod tests;
