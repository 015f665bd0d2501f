//! What the suites' own tests share, and the tests about every suite: each
//! folder is a module of this crate, and each timeline the book shows is
//! one a check saves.
//!
//! A suite's tests run against the reference solution, on the virtual GPU:
//! [`passes`] runs a check as a harness does ([`judge_harness::run_check`]),
//! with the suite's snapshot folder; [`snapshots`] gives the insta settings
//! of a test that asserts a snapshot itself. Either way a snapshot is
//! `exID/snapshots/NAME.snap`, the file a harness compares against.

use judge_harness::{Artifact, Ctx, Outcome, run_check};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::thread::LocalKey;

/// This crate's folder: the suites are `exID/` in it.
fn here() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The snapshot folder of suite `id`.
pub(crate) fn snapshot_dir(id: u32) -> PathBuf {
    here().join(format!("ex{id}/snapshots"))
}

/// The insta settings of a test of suite `id` that asserts a snapshot
/// itself: the suite's folder, no module prefix (as in a harness).
pub(crate) fn snapshots(id: u32) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(snapshot_dir(id));
    settings.set_prepend_module_to_snapshot(false);
    settings
}

/// A device on `backend`, quiet: what a suite's own test runs the solution on.
pub(crate) fn device(backend: gpu::Backend) -> gpu::Device {
    let options = gpu::DeviceOptions {
        backend,
        quiet: true,
        ..gpu::DeviceOptions::default()
    };
    gpu::Device::with_options(options).expect("a device opens")
}

/// Runs check `name` of suite `id` against the solution on the virtual GPU,
/// as a harness does; timelines and traces go to `artifacts`, if given.
pub(crate) fn run(id: u32, name: &str, artifacts: Option<PathBuf>) -> (Outcome, Vec<Artifact>) {
    let suite = crate::suite(id).unwrap_or_else(|| panic!("no suite `ex{id}`"));
    let check = suite
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("suite `ex{id}` has no check `{name}`"));
    let ctx = Ctx::new(gpu::Backend::Virtual)
        .with_artifacts(artifacts)
        .with_snapshots(Some(snapshot_dir(id)));
    run_check(check, &ctx)
}

/// Fails the test unless check `name` of suite `id` passes on the solution.
#[track_caller]
pub(crate) fn passes(id: u32, name: &str) {
    let (outcome, _) = run(id, name, None);
    assert!(outcome.passed(), "`ex{id}::{name}`: {outcome:#?}");
}

/// Fails the test unless every check of suite `id` passes on the solution.
#[track_caller]
pub(crate) fn passes_every_check(id: u32) {
    let suite = crate::suite(id).unwrap_or_else(|| panic!("no suite `ex{id}`"));
    for check in suite {
        passes(id, check.name);
    }
}

/// A thread's slot for the function (a `fn` pointer) that a suite's tests
/// put in place of the solution's: each test runs on a thread of its own.
pub(crate) type Slot<F> = LocalKey<Cell<Option<F>>>;

/// What a suite's tests put in place of a function of the solution, and
/// their ways to run the suite's checks with it. The suite's checks ask
/// [`StandIn::get`] before they call the solution's function.
pub(crate) struct StandIn<F: 'static> {
    /// The suite.
    id: u32,
    /// Where this thread's stand-in is.
    slot: &'static Slot<F>,
}

impl<F: Copy + 'static> StandIn<F> {
    /// The stand-in of suite `id`, kept in `slot`.
    pub(crate) const fn new(id: u32, slot: &'static Slot<F>) -> Self {
        Self { id, slot }
    }

    /// The function a test put in place of the solution's, if any.
    pub(crate) fn get(&self) -> Option<F> {
        self.slot.with(Cell::get)
    }

    /// What `body` returns, run with `f` in place of the solution's (taken
    /// away after, also when `body` panics).
    pub(crate) fn with<R>(&self, f: F, body: impl FnOnce() -> R) -> R {
        /// Empties the slot when dropped.
        struct Clear<F: 'static>(&'static Slot<F>);
        impl<F: 'static> Drop for Clear<F> {
            fn drop(&mut self) {
                self.0.with(|slot| slot.set(None));
            }
        }
        self.slot.with(|slot| slot.set(Some(f)));
        let _clear = Clear(self.slot);
        body()
    }

    /// The outcome of check `name` with `f` in place of the solution's.
    pub(crate) fn run(&self, f: F, name: &str) -> Outcome {
        self.with(f, || run(self.id, name, None).0)
    }

    /// Asserts that check `name` fails with `f`, its message the snapshot
    /// `snapshot`.
    #[track_caller]
    pub(crate) fn fails(&self, f: F, name: &str, snapshot: &str) {
        fails_as(self.id, &self.run(f, name), name, snapshot);
    }

    /// Asserts that check `name` passes with `f`.
    #[track_caller]
    pub(crate) fn passes(&self, f: F, name: &str) {
        let outcome = self.run(f, name);
        assert!(outcome.passed(), "`{name}` failed: {outcome:#?}");
    }

    /// Asserts that every check of the suite passes with `f`.
    #[track_caller]
    pub(crate) fn passes_every_check(&self, f: F) {
        self.with(f, || passes_every_check(self.id));
    }
}

/// Asserts that `outcome`, of check `name` of suite `id`, is a failure
/// whose message (as [`failure_text`] shows it) is the snapshot `snapshot`.
#[track_caller]
pub(crate) fn fails_as(id: u32, outcome: &Outcome, name: &str, snapshot: &str) {
    let text = failure_text(outcome, name);
    let _snapshots = snapshots(id).bind_to_scope();
    insta::assert_snapshot!(snapshot, text);
}

/// The failure `outcome` of check `name` as the learner reads it
/// ([`render`]); a panic if it passed.
#[track_caller]
pub(crate) fn failure_text(outcome: &Outcome, name: &str) -> String {
    let Outcome::Failed {
        expected,
        actual,
        site,
        detail,
    } = outcome
    else {
        panic!("`{name}` did not fail: {outcome:#?}");
    };
    render(expected, actual, *site, detail.as_deref())
}

/// A failure as the learner reads it, the call site reduced to its file.
pub(crate) fn render(
    expected: &str,
    actual: &str,
    site: Option<gpu::CallSite>,
    detail: Option<&str>,
) -> String {
    let site = site.map_or("none".into(), |s| {
        s.file.rsplit('/').next().unwrap_or(s.file).to_string()
    });
    let text = format!(
        "expected: {expected}\nactual:   {actual}\nsite:     {site}\ndetail:   {}\n",
        detail.unwrap_or("none")
    );
    without_lines(&text)
}

/// `text` with the line and column after each `wrong.rs:` and
/// `support.rs:` (the suites' known-wrong code and the judge's own calls,
/// which a race report names) and the number after each `line ` replaced by
/// `LINE`, so that a snapshot does not change when those files do.
fn without_lines(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some((at, marker)) = ["wrong.rs:", "support.rs:", "line "]
        .iter()
        .filter_map(|m| rest.find(m).map(|at| (at, m.len())))
        .min()
    {
        let (head, tail) = rest.split_at(at + marker);
        out.push_str(head);
        let bytes = tail.as_bytes();
        let mut digits = 0;
        while digits < bytes.len()
            && (bytes[digits].is_ascii_digit()
                || (bytes[digits] == b':' && bytes.get(digits + 1).is_some_and(u8::is_ascii_digit)))
        {
            digits += 1;
        }
        if digits > 0 {
            out.push_str("LINE");
        }
        rest = &tail[digits..];
    }
    out.push_str(rest);
    out
}

/// The ids of the suite folders `exID/` beside this file.
fn suite_folders() -> Vec<u32> {
    let mut ids: Vec<u32> = std::fs::read_dir(here())
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("mod.rs").is_file())
        .filter_map(|e| e.file_name().to_str()?.strip_prefix("ex")?.parse().ok())
        .collect();
    ids.sort_unstable();
    ids
}

#[test]
fn every_suite_folder_is_a_module_of_this_crate() {
    let folders = suite_folders();
    assert!(folders.len() >= 4, "the suite folders were not found");
    for id in folders {
        assert!(
            crate::suite(id).is_some(),
            "`judge/checks/ex{id}/` is not a module of the checks crate: add `pub mod ex{id};` and its arm of `suite` to `judge/checks/lib.rs`"
        );
    }
}

#[test]
fn a_check_requires_only_checks_of_its_suite_that_require_nothing() {
    for id in suite_folders() {
        let suite = crate::suite(id).unwrap();
        for check in suite.iter().filter(|c| !c.requires.is_empty()) {
            for name in check.requires {
                let required = suite.iter().find(|c| c.name == *name);
                assert!(
                    required.is_some_and(|r| r.requires.is_empty() && r.points > 0),
                    "ex{id}: `{}` requires `{name}`, which is not a check of its suite that earns points by itself",
                    check.name
                );
            }
        }
    }
}

#[test]
fn check_names_are_unique_in_each_suite() {
    for id in suite_folders() {
        let mut names: Vec<&str> = crate::suite(id).unwrap().iter().map(|c| c.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before, "`ex{id}` names a check twice");
    }
}

/// The exercises whose `judge run ID --timeline` a chapter shows.
fn timelines_the_book_shows() -> Vec<u32> {
    let chapters = here().join("../../chapters");
    let mut ids: Vec<u32> = walkdir::WalkDir::new(&chapters)
        .into_iter()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .flat_map(|text| timeline_commands(&text))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// The ids of the `judge run ID --timeline …` commands in `text`.
fn timeline_commands(text: &str) -> Vec<u32> {
    text.split("judge run ")
        .skip(1)
        .filter_map(|rest| {
            let (id, after) = rest.split_once(' ')?;
            let timeline = after.starts_with("--timeline");
            if timeline { id.parse().ok() } else { None }
        })
        .collect()
}

#[test]
fn the_books_timeline_commands_are_found() {
    let text = "$ judge run 102 --timeline mine.svg\n`judge run 104 --timeline FILE.svg`\njudge run 103 --solution\n";
    assert_eq!(timeline_commands(text), [102, 104]);
}

/// Whether a check of suite `id`, run in order on the solution, saves a
/// timeline (the run stops at the first that does).
fn saves_a_timeline(id: u32) -> bool {
    let dir = tempfile::tempdir().unwrap();
    crate::suite(id).unwrap().iter().any(|check| {
        let (_, artifacts) = run(id, check.name, Some(dir.path().to_path_buf()));
        artifacts.iter().any(|a| match a {
            Artifact::Timeline { svg, json } => svg.is_file() && json.is_file(),
        })
    })
}

#[test]
fn every_timeline_the_book_shows_is_saved_by_a_check() {
    let shown = timelines_the_book_shows();
    assert!(
        shown.len() >= 3,
        "the book's `--timeline` commands were not found: {shown:?}"
    );
    let missing: Vec<u32> = shown
        .into_iter()
        .filter(|&id| !saves_a_timeline(id))
        .collect();
    assert!(
        missing.is_empty(),
        "the book shows `judge run ID --timeline` for {missing:?}, but no check of theirs calls `ctx.save_timeline(&device)`"
    );
}
