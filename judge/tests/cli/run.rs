//! `judge run`: each kind of verdict.

use crate::support::{Course, processes_running};

#[test]
fn a_passing_crate_passes_and_is_recorded() {
    let course = Course::fixture();
    let out = course.judge(&["run", "901"]);
    assert_eq!(out.code, 0, "{out:?}");
    insta::assert_snapshot!(course.redact(&out.stdout));
    let progress = std::fs::read_to_string(course.root.join(".judge-progress")).unwrap();
    assert!(progress.contains("901 passed"), "{progress}");
}

#[test]
fn a_wrong_answer_says_what_was_expected() {
    let course = Course::fixture();
    let out = course.judge(&["run", "902"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(course.redact(&out.stdout));
}

#[test]
fn a_compile_error_shows_the_compilers_message() {
    let course = Course::fixture();
    let out = course.judge(&["run", "903"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains("your crate does not compile"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("error[E0277]: cannot add `&str` to `i32`"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("903-compile-error/src/lib.rs:4:7"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_todo_is_a_panic_with_its_location() {
    let course = Course::fixture();
    let out = course.judge(&["run", "904"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(course.redact(&out.stdout));
}

#[test]
fn an_endless_loop_times_out_and_its_whole_process_group_is_killed() {
    let course = Course::fixture();
    let seconds = course.unique_helper("905-endless");
    let started = std::time::Instant::now();
    let out = course.judge(&["run", "905"]);
    assert_eq!(out.code, 1);
    assert!(
        started.elapsed().as_secs() < 60,
        "the 3 s limit was enforced"
    );
    insta::assert_snapshot!(course.redact(&out.stdout));
    assert_eq!(
        processes_running(&["sleep", &seconds]),
        Vec::<String>::new(),
        "the helper process the learner code started is still alive"
    );
}

#[test]
fn a_forged_verdict_printed_by_learner_code_is_not_believed() {
    let course = Course::fixture();
    let out = course.judge(&["run", "906"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.contains("0 of 3 checks passed"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("test result: ok. all checks passed"),
        "shown as output: {}",
        out.stdout
    );
}

#[test]
fn a_suite_folder_is_built_with_its_submodules() {
    // Exercise 906's suite is `judge/checks/ex906/mod.rs`, whose device check
    // lives in the submodule `ex906/device.rs`.
    let course = Course::fixture();
    let suite = course.root.join("judge/checks/ex906");
    assert!(suite.join("mod.rs").is_file() && !suite.with_extension("rs").exists());
    let out = course.judge(&["run", "906", "--solution"]);
    assert_eq!(out.code, 0, "{out:?}");
    for line in [
        "✓ adds_small_numbers add(2, 3) is 5",
        "✓ adds_on_the_gpu_clock the device opens and the sum is copied back",
        "all 3 checks passed",
    ] {
        assert!(out.stdout.contains(line), "{}", out.stdout);
    }
}

#[test]
fn an_abort_fails_its_check_and_the_others_still_run() {
    let course = Course::fixture();
    let out = course.judge(&["run", "907"]);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(course.redact(&out.stdout));
}

#[test]
fn the_solution_passes_and_is_not_recorded() {
    let course = Course::fixture();
    let out = course.judge(&["run", "902", "--solution"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(!course.root.join(".judge-progress").exists());
}

#[test]
fn an_unknown_exercise_is_a_clear_error() {
    let course = Course::fixture();
    for id in ["999", "abc"] {
        let out = course.judge(&["run", id]);
        assert_eq!(out.code, 2, "an unknown exercise is bad usage");
        assert_eq!(
            out.stderr.trim(),
            format!(
                "error: exercise `{id}` not found (known exercises: 901, 902, 903, 904, 905, 906, 907, 908); `judge list` shows them"
            )
        );
    }
}

/// An exercise folder emptied (or its `Cargo.toml` gone) is bad usage, with
/// the way back: `judge reset`.
#[test]
fn an_empty_exercise_folder_says_how_to_put_the_starter_back() {
    let course = Course::fixture();
    let folder = course.root.join("exercises/901-passes");
    std::fs::remove_dir_all(&folder).unwrap();
    std::fs::create_dir_all(&folder).unwrap();
    let out = course.judge(&["run", "901"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr
            .contains("`exercises/901-passes` has no `Cargo.toml`")
            && out
                .stderr
                .contains("`judge reset 901` puts the starter back"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_timeline_of_a_run_is_written() {
    let course = Course::fixture();
    let svg = course.root.join("mine.svg");
    let json = course.root.join("mine.json");
    let out = course.judge(&[
        "run",
        "901",
        "--timeline",
        svg.to_str().unwrap(),
        "--trace",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    // The check saves its timeline with `ctx.save_timeline`, under a file
    // name of its own: the judge copies the files the harness names.
    let drawing = std::fs::read_to_string(&svg).unwrap();
    assert!(drawing.contains("<svg"), "{drawing}");
    assert!(
        drawing.contains("adds_on_the_gpu_clock"),
        "titled after its check"
    );
    let trace: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(
        trace["traceEvents"]
            .as_array()
            .is_some_and(|e| !e.is_empty())
    );
}

#[test]
fn a_trace_named_timeline_is_not_the_timeline() {
    // Exercise 906's device check saves a trace named "timeline" with
    // `ctx.save_trace` and no timeline: a name is no timeline.
    let course = Course::fixture();
    let svg = course.root.join("mine.svg");
    let out = course.judge(&[
        "run",
        "906",
        "--solution",
        "--timeline",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!svg.exists(), "{out:?}");
    assert!(
        out.stderr.contains("drew no timeline, so `"),
        "{}",
        out.stderr
    );
}

#[test]
fn results_forged_in_the_results_file_itself_are_not_believed() {
    let course = Course::fixture();
    let out = course.judge(&["run", "908"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.contains("0 of 3 checks passed"),
        "{}",
        out.stdout
    );
    // The harness's results channel is a socket that `/proc/self/fd` can
    // neither list (in the sandbox) nor open: nothing was appended to it.
    assert!(
        out.stdout.contains("forger: cannot list /proc/self/fd"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("not signed"), "{}", out.stdout);
}

/// A crate without an item of the exercise's API fails to build in the
/// judge's own code (the bridge that calls it): the report says that the
/// API is what is missing, before the compiler's errors.
#[test]
fn a_crate_missing_its_api_is_told_so_not_only_the_judges_errors() {
    let course = Course::fixture();
    let lib = course.root.join("exercises/902-wrong-answer/src/lib.rs");
    std::fs::write(&lib, "//! My attempt, without `add`.\n").unwrap();
    let out = course.judge(&["run", "902"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stdout.contains(
            "note: these errors are in the judge's code that calls your crate, not in yours: your crate lacks an item of the exercise's public API"
        ),
        "{}",
        out.stdout
    );
}
