//! `judge watch [ID]`: runs the current exercise again each time one of its
//! files is saved, and offers the actions a learner wants without leaving
//! it: a hint, the exercise table, a reset, the next exercise, quitting.
//!
//! The current exercise is the one asked for, else the first one, in the
//! manifest's order (the book's), that the progress file does not list as
//! passed. A file watcher (`notify`, through `notify-debouncer-mini`) on the
//! exercise's crate feeds changes in: a file's change comes once the file
//! has been quiet for [`QUIET`] (editors save in bursts), and changes under
//! `target/`, to editor swap files, or made before the last run began do
//! not count. Keys come from stdin ([`keys`]): single keys on a terminal, as
//! in rustlings' watch mode, or lines from a pipe. When the exercise passes,
//! `n` moves on to the next one not passed yet (as rustlings 6 does, the
//! learner moves on; the judge does not jump away from a passing crate).
//! Where the watcher cannot start (or with `--manual`) the keyboard is the
//! only trigger. Each run is `judge run ID`.

mod files;
mod keys;

use crate::book::Book;
use crate::cli::WatchArgs;
use crate::course::Course;
use crate::exit;
use crate::judging::{Options, judge_learner};
use crate::listing;
use crate::manifest::Exercise;
use crate::progress::{self, Status};
use crate::report::render;
use crate::sandbox::{Config as SandboxConfig, Sandbox};
use crate::starter;
use crate::ticker::Shown;
use anyhow::Result;
use files::{counts, start_watcher};
use keys::{Action, Key, SingleKeys, action};
use notify_debouncer_mini::DebounceEventResult;
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::Path;
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
    /// A key (or a line's first letter), and when it was read.
    Key(Key, Instant),
    /// Stdin ended.
    Closed,
}

/// How watching one exercise ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Leave {
    /// On to the next exercise.
    Next,
    /// Out of watch mode.
    Quit,
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
    let single = SingleKeys::enable();
    let (send, receive) = channel();
    keys::spawn_reader(send.clone(), single.on());
    let session = Session {
        course: &course,
        args,
        send: &send,
        receive: &receive,
        single: single.on(),
    };
    while session.exercise(current)? == Leave::Next {
        let statuses = progress::load(&course);
        let Some(next) = next_unpassed(&order, &statuses, current) else {
            println!("\nevery exercise has passed: well done!");
            return Ok(exit::OK);
        };
        println!("\non to exercise {next}\n");
        current = next;
    }
    Ok(exit::OK)
}

/// What watching needs, whichever the exercise.
struct Session<'a> {
    course: &'a Course,
    args: &'a WatchArgs,
    send: &'a Sender<Signal>,
    receive: &'a Receiver<Signal>,
    /// Whether keys act at once (a terminal) or with Enter (lines).
    single: bool,
}

impl Session<'_> {
    /// Watches exercise `id`: runs it, then again after each change, and
    /// acts on the keys until the learner moves on or quits.
    fn exercise(&self, id: u32) -> Result<Leave> {
        let exercise = self.course.manifest.get(&id.to_string())?.clone();
        let crate_dir = self.course.exercise_dir(&exercise);
        let watcher = match self.args.manual {
            true => None,
            false => start_watcher(&crate_dir, self.send.clone()),
        };
        let (mut clear, mut hints) = (false, 0);
        // What the last reset said about its backup, kept under each report
        // (a run clears the screen) until the learner leaves the exercise.
        let mut undo: Vec<String> = Vec::new();
        loop {
            let ran = Instant::now();
            let passed = run_once(self.course, self.args, id, clear)?;
            // Taken before the lines that invite a key: a key pressed after
            // the learner read them is never dropped as typed during the run.
            let ready = Instant::now();
            for line in &undo {
                println!("{line}");
            }
            self.help(&exercise, passed, watcher.is_some());
            loop {
                match wait(self.receive, &crate_dir, watcher.is_none(), (ran, ready)) {
                    Action::Run => break,
                    Action::Hint => hints = show_hint(&exercise, hints),
                    Action::List => self.list(id)?,
                    Action::Reset => match self.confirm_reset(&exercise)? {
                        Some(lines) => {
                            undo = lines;
                            break;
                        }
                        None => println!("not reset"),
                    },
                    Action::Next => return Ok(Leave::Next),
                    Action::Quit => return Ok(Leave::Quit),
                }
            }
            clear = true;
        }
    }

    /// The lines under each report: what happens next, and the keys.
    fn help(&self, exercise: &Exercise, passed: bool, watching: bool) {
        let root = &self.course.root;
        let crate_dir = self.course.exercise_dir(exercise);
        let shown = crate_dir.strip_prefix(root).unwrap_or(&crate_dir).display();
        let order: Vec<u32> = self
            .course
            .manifest
            .exercises
            .iter()
            .map(|e| e.id)
            .collect();
        let next = next_unpassed(&order, &progress::load(self.course), exercise.id);
        if passed {
            let then = match next {
                Some(next) => format!("`n` moves on to exercise {next}"),
                None => "every exercise has passed: `q` quits".into(),
            };
            println!("\nexercise {} passed: {then}", exercise.id);
        }
        match watching {
            true => println!("\nwatching {shown}: save a file to run it again"),
            false => println!("\nedit {shown}, then press `r` to run it again"),
        }
        let enter = if self.single {
            ""
        } else {
            " (each followed by Enter)"
        };
        println!("  {}{enter}", keys::KEYS);
    }

    /// Prints the exercise table, `id` marked.
    fn list(&self, id: u32) -> Result<()> {
        let statuses = progress::load(self.course);
        println!();
        listing::write(self.course, &statuses, Some(id), &mut anstream::stdout())?;
        println!("  {}", keys::KEYS);
        Ok(())
    }

    /// Asks whether to reset `exercise`, and does it on a `y`: when it
    /// did, the lines to keep on screen (the backup, and how to undo).
    fn confirm_reset(&self, exercise: &Exercise) -> Result<Option<Vec<String>>> {
        println!(
            "reset exercise {} to its starter code? your crate is backed up first [y/N]",
            exercise.id
        );
        let yes = loop {
            match self.receive.recv() {
                Ok(Signal::Key(key, _)) => break key == Key::Char('y'),
                Ok(Signal::Files(..)) => {}
                Ok(Signal::Closed) | Err(_) => break false,
            }
        };
        if !yes {
            return Ok(None);
        }
        match starter::reset(self.course, exercise) {
            Ok(done) => {
                done.lines().iter().for_each(|line| println!("{line}"));
                Ok(Some(done.undo_lines()))
            }
            Err(err) => {
                eprintln!("error: {err:#}");
                Ok(None)
            }
        }
    }
}

/// Prints hint `shown + 1` of `exercise` (the last one again once all are
/// shown); returns how many have been shown.
fn show_hint(exercise: &Exercise, shown: usize) -> usize {
    let count = exercise.hints.len();
    if count == 0 {
        return 0;
    }
    let level = (shown + 1).min(count);
    if let Some(hint) = exercise.hints.get(level - 1) {
        println!("\nhint {level} of {count}: {hint}");
    }
    if level < count {
        println!("(`h` again for hint {})", level + 1);
    }
    level
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
        progress: Shown::on_stderr(),
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
            render(&report, &Book::of(&course.root), &mut out)?;
            Ok(report.passed())
        }
        Err(err) => {
            eprintln!("error: {err:#}");
            Ok(false)
        }
    }
}

/// Waits for the next action: a run (after a change to the crate's files
/// made after the run that began at `ran` began, or a key), or what a key
/// asks for; stdin ending quits in manual mode. Keys read before `ready`
/// (while the exercise ran, before its report) are dropped, but `q` still
/// quits; files saved meanwhile count.
fn wait(
    receive: &Receiver<Signal>,
    crate_dir: &Path,
    manual: bool,
    (ran, ready): (Instant, Instant),
) -> Action {
    let mut changed = false;
    let mut pressed = Vec::new();
    for signal in receive.try_iter() {
        match signal {
            Signal::Files(at, Ok(events)) => changed |= counts(&events, crate_dir, at, ran),
            Signal::Key(key, _) if action(key) == Some(Action::Quit) => return Action::Quit,
            Signal::Key(key, at) if at >= ready => pressed.push(key),
            Signal::Closed if manual => return Action::Quit,
            _ => {}
        }
    }
    if changed {
        return Action::Run;
    }
    for key in pressed {
        match action(key) {
            Some(next) => return next,
            None => println!("  {}", keys::KEYS),
        }
    }
    loop {
        match receive.recv().ok() {
            None => return Action::Quit,
            Some(Signal::Files(at, Ok(events))) if counts(&events, crate_dir, at, ran) => {
                return Action::Run;
            }
            Some(Signal::Files(_, Ok(_))) => {}
            Some(Signal::Files(_, Err(err))) => eprintln!("note: the file watcher says: {err}"),
            Some(Signal::Key(key, _)) => match action(key) {
                Some(next) => return next,
                None => println!("  {}", keys::KEYS),
            },
            Some(Signal::Closed) if manual => return Action::Quit,
            Some(Signal::Closed) => {}
        }
    }
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
