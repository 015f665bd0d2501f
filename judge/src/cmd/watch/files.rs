//! Which file changes make `judge watch` run the exercise again: the
//! watcher on the crate, and the filter of its events (changes, not reads;
//! the learner's files, not `target/` or an editor's swap files; made after
//! the run began).

use super::{QUIET, Signal};
use notify::{EventHandler, EventKind, RecommendedWatcher, RecursiveMode, Watcher, WatcherKind};
use notify_debouncer_mini::{
    DebounceEventResult, DebouncedEvent, DebouncedEventKind, Debouncer, new_debouncer_opt,
};
use std::path::{Component, Path};
use std::sync::mpsc::Sender;
use std::time::Instant;

/// The recommended watcher, passing on only the events that change files
/// (see [`is_change`]): cargo opening the crate's files to build it must not
/// start a run.
pub(super) struct ChangesOnly(RecommendedWatcher);

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

/// Starts watching `crate_dir`; `None` (after saying why) when it cannot.
pub(super) fn start_watcher(
    crate_dir: &Path,
    send: Sender<Signal>,
) -> Option<Debouncer<ChangesOnly>> {
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

/// Whether an event of `kind` changes files: they are created, written,
/// renamed or removed (not merely opened or read).
pub(super) fn is_change(kind: &EventKind) -> bool {
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
pub(super) fn counts(
    events: &[DebouncedEvent],
    crate_dir: &Path,
    at: Instant,
    ran: Instant,
) -> bool {
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
