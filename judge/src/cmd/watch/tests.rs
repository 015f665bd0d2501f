//! Tests of `judge watch`: which file changes count (and when), what a
//! key or typed line asks for, the hints' levels, and which exercise is
//! current.

use super::*;
use files::is_change;
use notify::EventKind;
use notify::event::{AccessKind, CreateKind, ModifyKind, RemoveKind};
use notify_debouncer_mini::{DebouncedEvent, DebouncedEventKind};
use std::path::PathBuf;

/// A debounced change of `path` that has settled.
fn settled(path: PathBuf) -> DebouncedEvent {
    DebouncedEvent::new(path, DebouncedEventKind::Any)
}

#[test]
fn only_writes_creations_and_removals_reach_the_debouncer() {
    assert!(is_change(&EventKind::Modify(ModifyKind::Any)));
    assert!(is_change(&EventKind::Create(CreateKind::File)));
    assert!(is_change(&EventKind::Remove(RemoveKind::File)));
    assert!(is_change(&EventKind::Any));
    assert!(
        !is_change(&EventKind::Access(AccessKind::Any)),
        "cargo reading"
    );
    assert!(!is_change(&EventKind::Other));
}

#[test]
fn only_changes_to_the_learners_files_count() {
    let dir = Path::new("/course/exercises/101-x");
    let ran = Instant::now();
    let later = ran + QUIET;
    let at = |p: &str| [settled(dir.join(p))];
    assert!(counts(&at("src/lib.rs"), dir, later, ran));
    assert!(counts(&at("src/new.rs"), dir, later, ran));
    assert!(!counts(&at("target/debug/x"), dir, later, ran));
    assert!(!counts(&at(".git/index"), dir, later, ran));
    let other = [settled("/course/exercises/102-y/src/lib.rs".into())];
    assert!(!counts(&other, dir, later, ran));
    for scratch in [
        "src/.lib.rs.swp",
        "src/lib.rs~",
        "src/4913",
        "src/.#lib.rs",
        "src/#lib.rs#",
    ] {
        assert!(!counts(&at(scratch), dir, later, ran), "{scratch}");
    }
    assert!(counts(&at("src/target.rs"), dir, later, ran));
    let mixed = [
        settled(dir.join("src/lib.rs~")),
        settled(dir.join("src/lib.rs")),
    ];
    assert!(counts(&mixed, dir, later, ran), "an editor's atomic save");
}

#[test]
fn a_change_counts_once_settled_and_made_after_the_run_began() {
    let dir = Path::new("/course/exercises/101-x");
    let ran = Instant::now();
    let ms = Duration::from_millis;
    let lib = [settled(dir.join("src/lib.rs"))];
    assert!(
        !counts(&lib, dir, ran + ms(5), ran),
        "saved with the file the run began after, arriving a little later"
    );
    assert!(counts(&lib, dir, ran + QUIET, ran));
    assert!(
        counts(&lib, dir, ran + ms(5_000), ran),
        "saved during the run"
    );
    let writing = [DebouncedEvent::new(
        dir.join("src/lib.rs"),
        DebouncedEventKind::AnyContinuous,
    )];
    assert!(
        !counts(&writing, dir, ran + ms(5_000), ran),
        "still being written"
    );
    assert!(!counts(&[], dir, ran + ms(5_000), ran));
}

#[test]
fn keys_and_typed_lines_ask_for_the_actions() {
    use keys::line_key;
    let typed = |line: &str| action(line_key(line));
    assert_eq!(typed(""), Some(Action::Run));
    assert_eq!(typed("  \r"), Some(Action::Run));
    assert_eq!(typed("r"), Some(Action::Run));
    assert_eq!(typed("h"), Some(Action::Hint));
    assert_eq!(typed("l"), Some(Action::List));
    assert_eq!(typed("x"), Some(Action::Reset));
    assert_eq!(typed("n"), Some(Action::Next));
    assert_eq!(typed("q"), Some(Action::Quit));
    assert_eq!(typed("Quit"), Some(Action::Quit));
    assert_eq!(typed("exit"), Some(Action::Quit));
    assert_eq!(
        typed("H"),
        Some(Action::Hint),
        "a line's first letter, any case"
    );
    assert_eq!(typed("zebra"), None);
    assert_eq!(action(Key::Enter), Some(Action::Run));
    assert_eq!(
        action(Key::Char('y')),
        None,
        "`y` only answers a reset's question"
    );
}

#[test]
fn hints_come_one_level_more_each_time_then_the_last_again() {
    let exercise: Exercise = toml::from_str(
        "id = 7\nslug = \"s\"\ntitle = \"t\"\nchapter = \"c.md\"\ndifficulty = 1\npoints = 1\ntimeout_s = 1\nlib = \"l\"\nhints = [\"a\", \"b\"]\n",
    )
    .unwrap();
    assert_eq!(show_hint(&exercise, 0), 1);
    assert_eq!(show_hint(&exercise, 1), 2);
    assert_eq!(show_hint(&exercise, 2), 2, "the last one again");
}

#[test]
fn the_current_exercise_is_the_first_not_passed() {
    let order = [101, 102, 103, 104];
    let statuses = |passed: &[u32]| -> BTreeMap<u32, Status> {
        let status = |id| {
            if passed.contains(&id) {
                Status::Passed
            } else {
                Status::Failing
            }
        };
        order.iter().map(|&id| (id, status(id))).collect()
    };
    assert_eq!(first_unpassed(&order, &statuses(&[])), Some(101));
    assert_eq!(first_unpassed(&order, &statuses(&[101, 103])), Some(102));
    assert_eq!(first_unpassed(&order, &statuses(&order)), None);
    assert_eq!(
        first_unpassed(&order, &BTreeMap::new()),
        Some(101),
        "no progress file"
    );
}

#[test]
fn after_a_pass_comes_the_next_not_passed_then_the_skipped_ones() {
    let order = [101, 102, 103, 104];
    let with = |passed: &[u32]| -> BTreeMap<u32, Status> {
        passed.iter().map(|&id| (id, Status::Passed)).collect()
    };
    assert_eq!(next_unpassed(&order, &with(&[101]), 101), Some(102));
    assert_eq!(next_unpassed(&order, &with(&[102, 103]), 102), Some(104));
    assert_eq!(
        next_unpassed(&order, &with(&[103, 104]), 104),
        Some(101),
        "comes round"
    );
    assert_eq!(next_unpassed(&order, &with(&order), 103), None);
    assert_eq!(
        next_unpassed(&order, &with(&[101, 102, 104]), 103),
        None,
        "current passes last"
    );
    assert_eq!(
        next_unpassed(&order, &with(&[]), 999),
        Some(101),
        "unknown current"
    );
}
