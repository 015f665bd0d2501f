//! Tests of `judge watch`: the debounce, which file changes count, what a
//! typed line asks for, and which exercise is current.

use super::*;
use notify::event::{AccessKind, CreateKind, ModifyKind};

#[test]
fn a_burst_counts_once_it_has_been_quiet() {
    let t0 = Instant::now();
    let ms = Duration::from_millis;
    let mut burst = Debounce::new(ms(200));
    assert_eq!(burst.remaining(t0), None, "nothing pending");
    burst.note(t0);
    assert_eq!(burst.remaining(t0 + ms(50)), Some(ms(150)));
    burst.note(t0 + ms(150));
    assert_eq!(
        burst.remaining(t0 + ms(250)),
        Some(ms(100)),
        "a new change restarts the wait"
    );
    assert_eq!(burst.remaining(t0 + ms(350)), Some(Duration::ZERO));
    assert_eq!(burst.remaining(t0 + ms(999)), Some(Duration::ZERO));
}

#[test]
fn only_changes_to_the_learners_files_count() {
    let dir = Path::new("/course/exercises/101-x");
    let at = |p: &str| vec![dir.join(p)];
    let write = EventKind::Modify(ModifyKind::Any);
    assert!(counts(&write, &at("src/lib.rs"), dir));
    assert!(counts(
        &EventKind::Create(CreateKind::File),
        &at("src/new.rs"),
        dir
    ));
    assert!(
        !counts(&EventKind::Access(AccessKind::Any), &at("src/lib.rs"), dir),
        "cargo reading"
    );
    assert!(!counts(&write, &at("target/debug/x"), dir));
    assert!(!counts(&write, &at(".git/index"), dir));
    assert!(!counts(
        &write,
        &[PathBuf::from("/course/exercises/102-y/src/lib.rs")],
        dir
    ));
    for scratch in [
        "src/.lib.rs.swp",
        "src/lib.rs~",
        "src/4913",
        "src/.#lib.rs",
        "src/#lib.rs#",
    ] {
        assert!(!counts(&write, &at(scratch), dir), "{scratch}");
    }
    assert!(counts(&write, &at("src/target.rs"), dir));
}

#[test]
fn typed_lines_run_or_quit() {
    assert_eq!(command(""), Some(Next::Run));
    assert_eq!(command("  \r"), Some(Next::Run));
    assert_eq!(command("q"), Some(Next::Quit));
    assert_eq!(command("Quit"), Some(Next::Quit));
    assert_eq!(command("hello"), None);
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
