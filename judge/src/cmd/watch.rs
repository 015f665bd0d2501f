//! `judge watch [ID]`: runs the current exercise again each time one of its
//! files is saved, and moves on to the next one not passed when it passes.
//!
//! The current exercise is the one asked for, else the first one the
//! progress file does not list as passed. A file watcher (`notify`, through
//! `notify-debouncer-mini`) on the exercise's crate feeds changes in: a
//! file's change comes once the file has been quiet for [`QUIET`] (editors
//! save in bursts), and changes under `target/`, to editor swap files, or
//! made before the last run began do not count. Lines typed on stdin count
//! too: Enter runs again, `q` quits. Where the watcher cannot start (or with
//! `--manual`) the keyboard is the only trigger. Each run is `judge run ID`.

use crate::cli::WatchArgs;
use crate::course::Course;
use crate::exit;
use crate::judging::{Options, judge_learner};
use crate::progress::{self, Status};
use crate::report::render;
use anyhow::Result;
use notify::{EventHandler, EventKind, RecommendedWatcher, RecursiveMode, Watcher, WatcherKind};
use notify_debouncer_mini::{
    DebounceEventResult, DebouncedEvent, DebouncedEventKind, Debouncer, new_debouncer_opt,
};
use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal, Write};
use std::path::{Component, Path};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

/// How long a file must stay unchanged before its change counts.
const QUIET: Duration = Duration::from_millis(200);

/// What arrives while waiting.
#[derive(Debug)]
enum Signal {
    /// The file watcher's changes, each once its file had been quiet for
    /// [`QUIET`], and when they arrived.
    Files(Instant, DebounceEventResult),
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

/// The recommended watcher, passing on only the events that change files
/// (see [`is_change`]): cargo opening the crate's files to build it must not
/// start a run.
struct ChangesOnly(RecommendedWatcher);

impl Watcher for ChangesOnly {
    fn new<F: EventHandler>(mut handler: F, config: notify::Config) -> notify::Result<Self> {
        let changes_only = move |event: notify::Result<notify::Event>| {
            if event.as_ref().map_or(true, |event| is_change(&event.kind)) {
                handler.handle_event(event);
            }
        };
        RecommendedWatcher::new(changes_only, config).map(Self)
    }

    fn watch(&mut self, path: &Path, mode: RecursiveMode) -> notify::Result<()> {
        self.0.watch(path, mode)
    }

    fn unwatch(&mut self, path: &Path) -> notify::Result<()> {
        self.0.unwatch(path)
    }

    fn kind() -> WatcherKind {
        RecommendedWatcher::kind()
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
        let ran = Instant::now();
        if run_once(course, args, id, clear)? {
            return Ok(true);
        }
        print_help(&crate_dir, &course.root, watcher.is_some());
        match wait(receive, &crate_dir, watcher.is_none(), ran) {
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
fn start_watcher(crate_dir: &Path, send: Sender<Signal>) -> Option<Debouncer<ChangesOnly>> {
    // Not in batches: each change then comes `QUIET` after it was made,
    // which is what `counts` expects.
    let config = notify_debouncer_mini::Config::default()
        .with_timeout(QUIET)
        .with_batch_mode(false);
    let handler = move |result: DebounceEventResult| {
        let _ = send.send(Signal::Files(Instant::now(), result));
    };
    let started = new_debouncer_opt::<_, ChangesOnly>(config, handler).and_then(|mut debouncer| {
        let watching = debouncer
            .watcher()
            .watch(crate_dir, RecursiveMode::Recursive);
        watching.map(|()| debouncer)
    });
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

/// Waits for the next reason to run (a change to the crate's files made
/// after the run that began at `ran` began, or Enter) or to quit (`q`, or
/// stdin ending in manual mode).
fn wait(receive: &Receiver<Signal>, crate_dir: &Path, manual: bool, ran: Instant) -> Next {
    let mut changed = false;
    // Lines typed while the exercise ran are dropped (but `q` still quits);
    // files saved meanwhile count.
    for signal in receive.try_iter() {
        match signal {
            Signal::Files(at, Ok(events)) => changed |= counts(&events, crate_dir, at, ran),
            Signal::Line(line) if command(&line) == Some(Next::Quit) => return Next::Quit,
            Signal::Closed if manual => return Next::Quit,
            _ => {}
        }
    }
    if changed {
        return Next::Run;
    }
    loop {
        match receive.recv().ok() {
            None => return Next::Quit,
            Some(Signal::Files(at, Ok(events))) if counts(&events, crate_dir, at, ran) => {
                return Next::Run;
            }
            Some(Signal::Files(_, Ok(_))) => {}
            Some(Signal::Files(_, Err(err))) => eprintln!("note: the file watcher says: {err}"),
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

/// Whether an event of `kind` changes files: they are created, written,
/// renamed or removed (not merely opened or read).
fn is_change(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Any | EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_)
    )
}

/// Whether the debounced `events` that arrived `at` ask for a run: a file
/// of the crate in `crate_dir` (see [`relevant`]) has stopped changing, and
/// it changed after the run that began at `ran` began. A change arrives
/// [`QUIET`] after it was made, so one that arrives sooner was made before
/// that run, which saw it (an editor saving several files at once has their
/// changes arrive a few milliseconds apart).
fn counts(events: &[DebouncedEvent], crate_dir: &Path, at: Instant, ran: Instant) -> bool {
    let settled = |event: &DebouncedEvent| event.kind == DebouncedEventKind::Any;
    at.saturating_duration_since(ran) >= QUIET
        && events
            .iter()
            .any(|event| settled(event) && relevant(&event.path, crate_dir))
}

/// Whether `path` is a file of the crate that a run depends on: outside
/// `target/` and `.git/`, and not an editor's swap or backup file.
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
