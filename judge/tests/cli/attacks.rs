//! A hostile student against `judge grade`: one test per kind of attack
//! (the crates are in `tests/fixtures/attacks/`, which says how they are
//! submitted). Each grades a class of two for exercise 902 of the fixture
//! course: `a-attacker`, whose own `add` is wrong, then `b-honest`, who
//! submitted the reference solution. Every test checks the same four
//! things, and then what its attack was after:
//!
//! * the attacker's exercise gets a verdict, and no point: any would be unearned;
//! * the honest submission graded after it gets full marks;
//! * the course is exactly as it was;
//! * `grade` exits 0, well within its time.
//!
//! The attacks share one file (over 400 lines) so that the four checks
//! every one of them makes stay in one place.
//!
//! These need the sandbox's layers, which this CI machine has (landlock
//! ABI 7, seccomp, user namespaces, root for the unprivileged user).

use crate::formats::read_json;
use crate::support::{Course, Output, arg, copy_marked, processes_holding};
use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The exercise every attack is submitted for.
const FOLDER: &str = "902-wrong-answer";

/// The longest a class of two may take to grade.
const LIMIT: Duration = Duration::from_secs(240);

/// The judge's environment for one layer set, and any more variables.
type Env<'a> = &'a [(&'a str, &'a OsStr)];

/// A class with an attacker and an honest student, graded.
struct Graded {
    out: Output,
    results: Value,
    /// The results file.
    file: PathBuf,
}

impl Graded {
    /// The attacker's exercise, as the results say.
    fn attacker(&self) -> &Value {
        &self.results["submissions"][0]["exercises"][0]
    }
}

/// A number no other test uses, for `@UNIQUE@`.
fn unique() -> String {
    fastrand::u32(1_000_000..).to_string()
}

/// A course with only exercise 902, the attack `fixture` (from
/// `tests/fixtures/attacks/`, marks replaced) as `a-attacker`'s crate.
fn class_with(fixture: &str, marks: &[(&str, &str)]) -> Course {
    let course = Course::fixture_with(&[902]);
    let results = results_file(&course);
    let mut all = vec![
        ("@COURSE@", arg(&course.root).to_string()),
        ("@RESULTS@", arg(&results).to_string()),
    ];
    all.extend(marks.iter().map(|(m, v)| (*m, v.to_string())));
    let all: Vec<(&str, &str)> = all.iter().map(|(m, v)| (*m, v.as_str())).collect();
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/attacks")
        .join(fixture);
    copy_marked(&from, &attacker_crate(&course), &all);
    course
}

/// Where a class's results go: outside the course, so that the course's
/// digest covers all of it (the gradebook and the report go beside them).
fn results_file(course: &Course) -> PathBuf {
    course.root.parent().unwrap().join("results/results.json")
}

/// Where `a-attacker`'s crate of exercise 902 goes.
fn attacker_crate(course: &Course) -> PathBuf {
    course.class.join("a-attacker/exercises").join(FOLDER)
}

/// Adds `b-honest` (the reference solution) to the class and grades it;
/// checks the four things every attack test checks (see the module).
#[track_caller]
fn grade(course: &Course, alone: bool, env: Env<'_>) -> Graded {
    let graded = grade_env(course, alone, &[], env);
    let attacker = graded.attacker();
    assert_eq!(attacker["score"], 0.0, "{attacker:#}");
    assert_ne!(attacker["status"], "passed", "{attacker:#}");
    graded
}

/// Grades the class as [`grade`] does, with more arguments to `judge
/// grade`, and checks all but the attacker's score: the course unchanged,
/// the exit code, the honest student's full marks.
#[track_caller]
fn grade_with(course: &Course, alone: bool, more: &[&str]) -> Graded {
    grade_env(course, alone, more, &[])
}

/// [`grade_with`], with more variables in the judge's environment.
#[track_caller]
fn grade_env(course: &Course, alone: bool, more: &[&str], env: Env<'_>) -> Graded {
    let honest = course.class.join("b-honest/exercises").join(FOLDER);
    copy_marked(&course.root.join("solutions").join(FOLDER), &honest, &[]);
    let before = course.digest();
    let file = results_file(course);
    let mut args = vec!["grade", "--class", arg(&course.class), "--out", arg(&file)];
    args.extend(more);
    let out = course.judge_within_env(&args, LIMIT, alone, env);
    assert_eq!(out.code, 0, "{env:?}: {out:?}");
    assert!(course.digest() == before, "{env:?}: the course changed");
    let results = read_json(&file);
    let graded = Graded { out, results, file };
    let honest = &graded.results["submissions"][1];
    assert_eq!(
        (honest["name"].as_str(), honest["score"].as_f64()),
        (Some("b-honest"), Some(10.0)),
        "{env:?}: {honest:#}"
    );
    graded
}

/// Asserts that the attacker's exercise is `status` and that its message or
/// output says `says`.
#[track_caller]
fn assert_verdict(graded: &Graded, status: &str, says: &str) {
    assert_eq!(
        graded.attacker()["status"],
        status,
        "{:#}",
        graded.attacker()
    );
    assert!(said(graded).contains(says), "{}", said(graded));
}

/// The attacker's message (why there are no checks) or output.
fn said(graded: &Graded) -> String {
    let attacker = graded.attacker();
    format!(
        "{}\n{}",
        attacker["message"].as_str().unwrap_or_default(),
        attacker["output"].as_str().unwrap_or_default()
    )
}

/// A forgery through memory unsafety in safe Rust (the soundness hole
/// `cve-rs` packages): the attacker writes a passing harness's events on
/// every descriptor it has, in each of three kinds. Decided in the judge's
/// process, it earns nothing: the agent holds no results channel, and what
/// it wrote on its link breaks the protocol. The defence removed (the
/// verdicts decided in the student's process, `--in-process`), the same
/// class gives the attacker full marks: the attack is real.
#[test]
fn a_forgery_through_memory_unsafety_earns_nothing_when_decided_outside_the_students_process() {
    for attack in ["end-events", "second-suite", "quiet"] {
        let course = class_with("forges-through-memory", &[("@ATTACK@", attack)]);
        let graded = grade(&course, false, &[]);
        let attacker = graded.attacker();
        assert_eq!(
            attacker["decided"], "outside_the_learners_process",
            "{attack}"
        );
        assert_eq!(attacker["forged_lines"], 0, "{attack}: {attacker:#}");
        let undefended = grade_with(&course, false, &["--in-process"]);
        let attacker = undefended.attacker();
        assert_eq!(attacker["decided"], "in_the_learners_process");
        assert_eq!(
            attacker["score"], 10.0,
            "{attack}: in the student's process the forgery succeeds: {attacker:#}"
        );
    }
}

#[test]
fn a_build_script_in_src_does_not_run() {
    for env in both_layer_sets() {
        let course = class_with("build-script", &[]);
        let graded = grade(&course, false, &env);
        assert_eq!(
            graded.attacker()["status"],
            "failed",
            "{env:?}: its own wrong `add` was checked"
        );
        assert!(
            !said(&graded).contains("the course's suite is mine"),
            "{env:?}: {}",
            said(&graded)
        );
    }
}

#[test]
fn a_path_dependency_on_the_solution_is_not_the_students_code() {
    let course = class_with("path-dependency", &[]);
    let graded = grade(&course, false, &[]);
    assert_eq!(graded.attacker()["status"], "compile_error");
    assert!(said(&graded).contains("`sol`"), "{}", said(&graded));
}

#[test]
fn a_lib_path_to_the_solution_is_not_the_students_code() {
    let course = class_with("lib-path", &[]);
    let graded = grade(&course, false, &[]);
    assert_eq!(
        graded.attacker()["status"],
        "failed",
        "its own `src/lib.rs` was checked"
    );
}

#[test]
fn an_exercise_folder_linked_to_the_solution_is_refused() {
    let course = Course::fixture_with(&[902]);
    let folder = attacker_crate(&course);
    std::fs::create_dir_all(folder.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(course.root.join("solutions").join(FOLDER), &folder).unwrap();
    let graded = grade(&course, false, &[]);
    assert_verdict(
        &graded,
        "compile_error",
        "`exercises/902-wrong-answer` is a symbolic link",
    );
}

#[test]
fn a_src_linked_to_the_solution_is_refused_and_the_class_goes_on() {
    let course = Course::fixture_with(&[902]);
    let folder = attacker_crate(&course);
    std::fs::create_dir_all(&folder).unwrap();
    let solution = course.root.join("solutions").join(FOLDER);
    std::fs::copy(solution.join("Cargo.toml"), folder.join("Cargo.toml")).unwrap();
    std::os::unix::fs::symlink(solution.join("src"), folder.join("src")).unwrap();
    let graded = grade(&course, false, &[]);
    assert_verdict(
        &graded,
        "compile_error",
        "`exercises/902-wrong-answer/src` is a symbolic link",
    );
}

#[test]
fn a_nonce_read_from_proc_self_mem_signs_nothing() {
    for env in both_layer_sets() {
        let course = class_with("memory-reader", &[]);
        let graded = grade(&course, false, &env);
        assert_verdict(&graded, "failed", "forger: cannot read /proc/self/maps");
        assert_eq!(graded.attacker()["forged_lines"], 0, "{env:?}");
    }
}

#[test]
fn a_child_in_its_own_process_group_dies_before_it_can_rewrite_the_results() {
    for env in both_layer_sets() {
        let unique = unique();
        let course = class_with("orphan-writer", &[("@UNIQUE@", &unique)]);
        let graded = grade(&course, false, &env);
        assert!(
            said(&graded).contains("orphan: started true"),
            "{env:?}: {}",
            said(&graded)
        );
        // The child would have waited for its parent, then a second more.
        std::thread::sleep(Duration::from_secs(3));
        assert_eq!(
            processes_holding(&unique),
            Vec::<String>::new(),
            "{env:?}: the child outlived the judge"
        );
        let after = read_json(&graded.file);
        assert_eq!(
            after, graded.results,
            "{env:?}: the results file changed after the judge ended"
        );
    }
}

#[test]
fn stopping_the_parent_does_not_stop_grading() {
    for env in both_layer_sets() {
        let course = class_with("stops-parent", &[]);
        let graded = grade(&course, false, &env);
        assert_verdict(&graded, "failed", "stopper: kill -STOP");
    }
}

#[test]
fn include_str_of_a_course_file_leaks_nothing() {
    for env in both_layer_sets() {
        let course = class_with("includes-solution", &[]);
        let graded = grade(&course, false, &env);
        assert_eq!(graded.attacker()["status"], "compile_error", "{env:?}");
        let written = std::fs::read_to_string(&graded.file).unwrap();
        assert!(
            !written.contains("//! The reference."),
            "{env:?}: the solution leaked:\n{written}"
        );
        assert!(!graded.out.stdout.contains("//! The reference."));
    }
}

/// The layers of this machine, then those of a machine with NVIDIA GPUs,
/// where a CUDA run has no pid namespace (`JUDGE_SANDBOX_OMIT=pid`): the
/// judge's environment for each.
fn both_layer_sets() -> [Vec<(&'static str, &'static OsStr)>; 2] {
    [Vec::new(), vec![("JUDGE_SANDBOX_OMIT", OsStr::new("pid"))]]
}

#[test]
fn a_fork_loop_stops_at_the_process_limit_and_nothing_outlives_it() {
    for env in both_layer_sets() {
        fork_loop_is_stopped(&env);
    }
}

#[track_caller]
fn fork_loop_is_stopped(env: Env<'_>) {
    let unique = unique();
    let course = class_with("fork-loop", &[("@UNIQUE@", &unique)]);
    let graded = grade_env(&course, true, &[], env);
    assert_eq!(graded.attacker()["score"], 0.0, "{env:?}");
    let said = said(&graded);
    let started: usize = said
        .split("fork loop: ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("the loop ran: {said}"));
    assert!(
        started < 512,
        "the process limit (512) stopped the loop: {said}"
    );
    assert_eq!(
        processes_holding(&unique),
        Vec::<String>::new(),
        "a process outlived the loop"
    );
}

#[test]
fn a_16_gib_allocation_is_refused() {
    for env in both_layer_sets() {
        let course = class_with("allocates-16-gib", &[]);
        let graded = grade(&course, false, &env);
        assert!(
            !said(&graded).contains("allocated 16 GiB"),
            "{env:?}: {}",
            said(&graded)
        );
        let first = &graded.attacker()["checks"][0];
        assert_eq!(first["status"], "crashed", "{env:?}: {first:#}");
    }
}

#[test]
fn output_hard_coded_for_the_courses_inputs_fails_the_grading_seed() {
    let course = class_with("hard-coded", &[]);
    let attacker = course.class.join("a-attacker");
    copy_marked(
        &attacker_crate(&course),
        &course.root.join("exercises").join(FOLDER),
        &[],
    );
    let run = course.judge(&["run", "902"]);
    assert!(
        run.stdout.contains("all 3 checks passed"),
        "the course's inputs: {}",
        run.stdout
    );
    let file = course.root.join("results.json");
    let (submission, out_file) = (arg(&attacker), arg(&file));
    let out = course.judge(&[
        "grade",
        "--submission",
        submission,
        "--out",
        out_file,
        "--seed",
        "1",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    let results = read_json(&file);
    let zero = &results["submissions"][0]["exercises"][0]["checks"][1];
    assert_eq!(
        (zero["name"].as_str(), zero["status"].as_str()),
        (Some("adds_zero"), Some("failed")),
        "{zero:#}"
    );
    let seed = results["seed"].as_u64().expect("the seed is recorded");
    let expected = zero["expected"].as_str().unwrap();
    assert!(
        !expected.starts_with("add(0, 7)"),
        "seed {seed} drew the course's input: {expected}"
    );
}

#[test]
fn the_shared_build_cache_stays_the_judges() {
    use std::os::unix::fs::MetadataExt;
    let course = class_with("build-script", &[]);
    grade(&course, false, &[]);
    let cache = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/judge/cache/target/release");
    let me = std::fs::metadata("/proc/self").unwrap().uid();
    let mut files = 0;
    for entry in walkdir::WalkDir::new(&cache) {
        let entry = entry.unwrap();
        let meta = entry.path().symlink_metadata().unwrap();
        assert_eq!(
            meta.uid(),
            me,
            "`{}` is not the judge's",
            entry.path().display()
        );
        assert_eq!(
            meta.mode() & 0o022,
            0,
            "`{}` is writable by others",
            entry.path().display()
        );
        files += 1;
    }
    assert!(
        files > 100,
        "the cache is there: {files} files in `{}`",
        cache.display()
    );
}

/// A constant that the compiler evaluates forever: the build is stopped at
/// its limit, sandbox or not (`--build-timeout`), and is the attacker's
/// compile error; the honest student is graded after it.
#[test]
fn a_constant_evaluated_forever_at_compile_time_is_stopped_at_the_build_limit() {
    for env in both_layer_sets() {
        let course = class_with("const-eval-never-ends", &[]);
        warm(&course);
        let started = std::time::Instant::now();
        let graded = grade_env(&course, false, &["--build-timeout", "20"], &env);
        assert_verdict(
            &graded,
            "compile_error",
            "the build ran past its 20 s limit",
        );
        assert_eq!(graded.attacker()["score"], 0.0);
        assert!(
            started.elapsed() < Duration::from_secs(150),
            "{env:?}: the attacker's build held the class for {:?}",
            started.elapsed()
        );
    }
}

/// The compiler asked to include a file that never ends (`/dev/zero`)
/// reads until it holds more than the sandbox's memory: the build runs
/// under the sandbox's limits, so it is stopped there, the attacker's
/// build is a compile error that says which limit, and the honest student
/// is graded after it. (The compiler alone once reached 8.3 GB.)
#[test]
fn a_file_that_never_ends_included_at_compile_time_is_stopped_at_the_memory_limit() {
    for env in both_layer_sets() {
        let course = class_with("includes-dev-zero", &[]);
        let graded = grade_env(&course, true, &["--memory-limit", "2"], &env);
        assert_verdict(&graded, "compile_error", "memory limit of 2 GiB");
        assert!(!said(&graded).contains("zeros: "), "{env:?}");
    }
}

/// Submission folders whose names would be code if pasted into a manifest
/// (a quote that closes the crate's path, then a `[patch]` table that
/// points the crate at the course's solution), a name of 255 bytes (the
/// most a file system holds), and a crate whose `src/` is nearly as deep
/// as a path may be long: each attacker submitted the starter's wrong
/// `add`, and each is graded as what it is, its own crate. None stops the
/// class: the honest student after them gets full marks. (A path that the
/// judge reads whole but cannot copy into its scratch folder is refused
/// by name: `intake::tests`.)
#[test]
fn names_and_paths_are_data_and_none_stops_the_class() {
    for env in both_layer_sets() {
        names_are_data(&env);
    }
}

/// The attackers' names, in the order they are graded.
const CRAFTED: [&str; 2] = [
    "a\"}\n[patch.crates-io]\nfixture = { path = \"..\" }\n[x]\ny = {\"",
    "b\\\"\n[dependencies]\nfixture = { path = \"..\", package = \"ex902-wrong-answer\" }\n#",
];

#[track_caller]
fn names_are_data(env: Env<'_>) {
    let course = Course::fixture_with(&[902]);
    let long = "c".repeat(255);
    let starter = [(FOLDER, FOLDER)];
    for name in CRAFTED.iter().copied().chain([long.as_str()]) {
        course.submit(name, &starter);
    }
    let deep = course.submit("d-deep", &starter);
    nest(&deep.join("exercises").join(FOLDER).join("src"), 15);
    course.submit("~honest", &[(FOLDER, "../solutions/902-wrong-answer")]);
    let before = course.digest();
    let file = results_file(&course);
    let args = ["grade", "--class", arg(&course.class), "--out", arg(&file)];
    let out = course.judge_within_env(&args, LIMIT, false, env);
    assert_eq!(out.code, 0, "{env:?}: {out:?}");
    assert!(course.digest() == before, "{env:?}: the course changed");
    let results = read_json(&file);
    let rows: Vec<(&str, &str, f64)> = results["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let exercise = &s["exercises"][0];
            let status = exercise["status"].as_str().unwrap_or("?");
            (
                s["name"].as_str().unwrap(),
                status,
                s["score"].as_f64().unwrap(),
            )
        })
        .collect();
    let expected = [
        (CRAFTED[0], "failed", 0.0),
        (CRAFTED[1], "failed", 0.0),
        (long.as_str(), "failed", 0.0),
        ("d-deep", "failed", 0.0),
        ("~honest", "passed", 10.0),
    ];
    assert_eq!(rows, expected, "{env:?}");
}

/// Makes `levels` folders of 255-byte names, one in the other, under `dir`,
/// with a source file at the bottom: a path longer than any the system
/// takes whole (`PATH_MAX`, 4096 bytes), made one step at a time by a shell.
fn nest(dir: &Path, levels: usize) {
    let name = "n".repeat(255);
    let script = format!(
        "cd \"$1\" && for i in $(seq {levels}); do mkdir {name} && cd {name} || exit 1; done && echo '//! deep' > deep.rs"
    );
    let made = std::process::Command::new("sh")
        .args(["-c", &script, "sh", arg(dir)])
        .status()
        .unwrap();
    assert!(made.success(), "the deep folders were made");
}

/// A submission that sleeps in every call of every exercise, each exercise
/// within its time limit: with a budget for the whole submission, it costs
/// the class run its budget, its first exercise is cut at the budget and
/// the next is `over_budget`. The defence removed (a budget larger than
/// every limit together), the same submission takes both exercises' time.
#[test]
fn a_submission_that_sleeps_in_every_exercise_costs_its_budget_not_every_limit() {
    let course = Course::fixture_with(&[901, 902]);
    let marks = [("@SLEEP@", "4")];
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/attacks/sleeps-in-every-exercise");
    for folder in ["901-passes", FOLDER] {
        copy_marked(
            &from,
            &course.class.join("a-attacker/exercises").join(folder),
            &marks,
        );
        let honest = course.class.join("b-honest/exercises").join(folder);
        copy_marked(&course.root.join("solutions").join(folder), &honest, &[]);
    }
    let file = course.root.join("results.json");
    warm(&course);
    let run = |budget: &str| {
        let args = [
            "grade",
            "--class",
            arg(&course.class),
            "--out",
            arg(&file),
            "--budget",
            budget,
        ];
        let out = course.judge_within(&args, LIMIT, false);
        assert_eq!(out.code, 0, "{out:?}");
        read_json(&file)
    };
    let budgeted = run("8");
    let attacker = &budgeted["submissions"][0];
    let took = attacker["duration_s"].as_f64().unwrap();
    assert!(
        took < 8.0 + 4.0,
        "the attacker took {took} s of an 8 s budget: {attacker:#}"
    );
    assert_eq!(
        attacker["exercises"][1]["status"], "over_budget",
        "{attacker:#}"
    );
    assert_eq!(attacker["score"], 0.0);
    let honest = &budgeted["submissions"][1];
    assert_eq!(honest["score"], 20.0, "{honest:#}");
    assert_eq!(honest["budget_s"], 8.0);
    let unbudgeted = run("1000");
    let took = unbudgeted["submissions"][0]["duration_s"].as_f64().unwrap();
    assert!(
        took > 2.0 * 3.0 * 4.0,
        "without a budget, every call sleeps: {took} s"
    );
}

/// Everything of a graded class a person or a script reads: the results,
/// the judge's output, the gradebook and the report beside the results.
fn everything_written(graded: &Graded) -> String {
    let mut all = format!("{}\n{}\n", graded.out.stdout, graded.out.stderr);
    let dir = graded.file.parent().unwrap();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        all.push_str(&String::from_utf8_lossy(
            &std::fs::read(entry.path()).unwrap(),
        ));
    }
    all
}

/// The grader's environment holds tokens (a cloud's `NVIDIA_API_KEY`, a
/// `CUDA_TOKEN`); the attacker prints them at build and at run time. The
/// sandbox passes variables by their whole names only, so none reaches the
/// student's code; with the old prefixes (`NVIDIA_`, `CUDA_`) both leaked.
#[test]
fn the_graders_environment_stays_out_of_the_students_build_and_run() {
    for layers in both_layer_sets() {
        let unique = unique();
        let (nvidia, cuda) = (format!("nvapi-{unique}"), format!("cuda-{unique}"));
        let course = class_with("reads-environment", &[]);
        let mut env = vec![
            ("NVIDIA_API_KEY", OsStr::new(&nvidia)),
            ("CUDA_TOKEN", OsStr::new(&cuda)),
        ];
        env.extend(layers.iter().copied());
        let graded = grade_env(&course, false, &[], &env);
        assert_eq!(
            graded.attacker()["status"],
            "failed",
            "{layers:?}: its own `add` ran"
        );
        assert!(
            said(&graded).contains("at build: None"),
            "{layers:?}: {}",
            said(&graded)
        );
        let written = everything_written(&graded);
        assert!(
            !written.contains(&nvidia) && !written.contains(&cuda),
            "{layers:?}: {written}"
        );
    }
}

/// The grader's cargo home holds `credentials.toml` (where `cargo login`
/// keeps a registry token); the attacker includes it at compile time. Of
/// the grader's cargo home a build reads only `bin/`, `registry/`, `git/`
/// and the configuration: the include fails, and nothing leaks. The test
/// puts a file of its own beside the real `credentials.toml` (which it
/// leaves alone), in the judge's real cargo home (another home would move
/// the package sources, and cargo would rebuild every harness's
/// dependencies), and removes it after.
#[test]
fn the_graders_cargo_credentials_are_out_of_the_students_reach() {
    let unique = unique();
    let token = format!("cio-token-{unique}");
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cargo"));
    let secret = home.join(format!("credentials-{unique}.toml"));
    struct Removed(PathBuf);
    impl Drop for Removed {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }
    std::fs::write(&secret, format!("[registry]\ntoken = \"{token}\"\n")).unwrap();
    let _removed = Removed(secret.clone());
    for env in both_layer_sets() {
        let course = class_with("reads-credentials", &[("@CREDENTIALS@", arg(&secret))]);
        let graded = grade(&course, false, &env);
        assert_eq!(
            graded.attacker()["status"],
            "compile_error",
            "{env:?}: {}",
            said(&graded)
        );
        let written = everything_written(&graded);
        assert!(
            !written.contains(&token),
            "{env:?}: the token leaked:\n{written}"
        );
    }
}

/// A panic message is the student's text: terminal escapes (clear the
/// screen, write in green), a right-to-left override, ten million bytes.
/// Every format gets it cleaned and cut: no escape, no reordering, and a
/// results file of a few kilobytes.
#[test]
fn a_deceiving_panic_message_is_shown_plain_and_short_in_every_format() {
    for env in both_layer_sets() {
        panic_message_is_cleaned(&env);
    }
}

#[track_caller]
fn panic_message_is_cleaned(env: Env<'_>) {
    let course = class_with("loud-panic", &[]);
    let graded = grade(&course, false, env);
    let mut written = vec![("json", everything_written(&graded))];
    for (format, out) in [("junit", "junit/class.xml"), ("gradescope", "gradescope")] {
        let out = course.root.parent().unwrap().join(out);
        let args = [
            "grade",
            "--class",
            arg(&course.class),
            "--format",
            format,
            "--out",
            arg(&out),
        ];
        let run = course.judge_within_env(&args, LIMIT, false, env);
        assert_eq!(run.code, 0, "{env:?}: {run:?}");
        let folder = if out.is_dir() {
            out.clone()
        } else {
            out.parent().unwrap().to_path_buf()
        };
        let mut text = format!("{}\n{}\n", run.stdout, run.stderr);
        for entry in walkdir::WalkDir::new(&folder)
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file())
        {
            text.push_str(&String::from_utf8_lossy(
                &std::fs::read(entry.path()).unwrap(),
            ));
        }
        written.push((format, text));
    }
    for (format, text) in written {
        for bad in ['\u{1b}', '\u{202e}', '\u{202c}'] {
            assert!(
                !text.contains(bad),
                "{env:?}, {format}: {bad:?} in what was written"
            );
        }
        assert!(
            text.contains("all checks passed"),
            "{format}: the message is shown"
        );
        assert!(
            text.len() < 1 << 20,
            "{format}: {} bytes written",
            text.len()
        );
    }
}

/// A chain of shells that re-fork in sessions of their own. With the
/// layers of a machine with NVIDIA GPUs (no pid namespace there: the CUDA
/// driver needs the machine's `/proc`), the sandbox's control group ends
/// the whole chain when the run ends (cgroup v2's `cgroup.kill`, or v1's
/// freezer), so nothing of it outlives the grading and the honest student
/// after it builds and passes; with this machine's, the pid namespace ends
/// it too. Its process limit is the sandbox's own (`pids.max`), not the
/// sandbox user's, which the chain would otherwise fill for every sandbox
/// after it.
#[test]
fn a_re_forking_setsid_chain_ends_with_its_sandbox() {
    for env in both_layer_sets() {
        setsid_chain_ends(&env);
    }
}

#[track_caller]
fn setsid_chain_ends(env: Env<'_>) {
    let unique = unique();
    let course = class_with("setsid-chain", &[("@UNIQUE@", &unique)]);
    let graded = grade_env(&course, true, &[], env);
    assert!(
        said(&graded).contains("chain: started true"),
        "{env:?}: {}",
        said(&graded)
    );
    assert!(
        graded.out.stderr.contains("cgroups")
            || graded.results["sandbox"]["summary"]
                .as_str()
                .unwrap_or("")
                .contains("cgroups"),
        "{env:?}: the layer is named: {:#}",
        graded.results["sandbox"]
    );
    assert_eq!(
        processes_holding(&unique),
        Vec::<String>::new(),
        "{env:?}: a link of the chain outlived the grading"
    );
}

/// Three children of the attacker each hold 800 MiB, under the 2 GiB limit
/// each process has, over it together: the sandbox's control group counts
/// them together, and the kernel ends one before all three have held their
/// share. (With a limit per process alone, all three do.)
#[test]
fn memory_is_limited_for_the_sandbox_as_a_whole() {
    for env in both_layer_sets() {
        let course = class_with("three-children", &[]);
        let graded = grade_env(&course, true, &["--memory-limit", "2"], &env);
        let said = said(&graded);
        let held: usize = said
            .split("held: ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("the children ran: {said}"));
        assert!(held < 3, "all three held their share ({env:?}): {said}");
    }
}

/// Twenty processes, one after the other, each spinning for about a third
/// of a second of CPU, far under the 3 s each process may use, more than
/// that together: where the sandbox's control group counts its CPU time,
/// the launcher ends the sandbox past 3 s and says why. (With a limit per
/// process alone, all twenty spin.)
#[test]
fn cpu_time_is_limited_for_the_sandbox_as_a_whole() {
    for env in both_layer_sets() {
        let course = class_with("spins-in-many-processes", &[]);
        let graded = grade_env(&course, true, &["--cpu-limit", "3"], &env);
        let said = said(&graded);
        assert!(
            said.contains("of CPU time, past the sandbox's CPU-time limit of 3 s"),
            "{env:?}: {said}"
        );
        assert!(!said.contains("spun: 20 of 20"), "{env:?}: {said}");
    }
}

/// Builds the judge's checks of `course` (its solutions, graded untimed),
/// so that a test whose limits are tight times the student's build alone,
/// whatever the shared target folder held before.
fn warm(course: &Course) {
    let out = course.judge_within(&["verify", "--backend", "virtual"], LIMIT, false);
    assert!(out.code == 0 || out.code == 1, "{out:?}");
}

/// Six files of 100 MiB, each under the 1 GiB a file may hold, more than
/// the quarter of a GiB the sandbox may add to its folders together: the
/// launcher, which keeps the account of the sandbox's files, ends it past
/// that, and says why. (With a limit per file alone, all six are written.)
#[test]
fn the_disk_is_limited_for_the_sandbox_as_a_whole() {
    for env in both_layer_sets() {
        let course = class_with("fills-the-disk", &[]);
        let limits = ["--disk-limit", "0.25", "--file-size-limit", "1"];
        let graded = grade_env(&course, true, &limits, &env);
        assert_eq!(graded.attacker()["score"], 0.0, "{env:?}");
        let said = said(&graded);
        assert!(
            said.contains("its files grew by") && said.contains("past the disk limit of 256 MiB"),
            "{env:?}: {said}"
        );
        assert!(!said.contains("wrote: 6 of 6"), "{env:?}: {said}");
        let layers = &graded.results["sandbox"];
        let disk = layers["layers"].as_array().and_then(|rows| {
            rows.iter()
                .find(|row| row["name"] == "disk" && row["in_force"] == true)
        });
        assert!(disk.is_some(), "the layer is named: {layers:#}");
    }
}

/// Students whose folders' names are as long as a file's name may be (251
/// and 255 bytes), graded in Gradescope's format, a file per student:
/// each file is named by the judge, bounded, so every student gets one,
/// the honest student graded after them included, and the class goes on.
/// The defence removed (a file named `NAME.json` after the folder), the
/// first of them stops the class: its file's name is too long.
#[test]
fn a_folder_name_too_long_for_a_file_does_not_stop_the_class_in_gradescope_format() {
    let course = Course::fixture_with(&[902]);
    let (long, longest) = ("a".repeat(251), "a".repeat(254) + "b");
    for name in [&long, &longest] {
        course.submit(name, &[(FOLDER, FOLDER)]);
    }
    let honest = course.class.join("b-honest/exercises").join(FOLDER);
    copy_marked(&course.root.join("solutions").join(FOLDER), &honest, &[]);
    let before = course.digest();
    let folder = results_file(&course).with_extension("");
    let args = [
        "grade",
        "--class",
        arg(&course.class),
        "--format",
        "gradescope",
        "--out",
        arg(&folder),
    ];
    let out = course.judge_within(&args, LIMIT, false);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(course.digest() == before, "the course changed");
    let files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    for file in &files {
        let name = file.file_name().unwrap().len();
        assert!(name < 100, "{name} bytes: {}", file.display());
    }
    let mut graded: Vec<(String, f64)> = files
        .iter()
        .map(|file| {
            let results = read_json(file);
            let name = results["extra_data"]["submission"].as_str().unwrap();
            (name.to_string(), results["score"].as_f64().unwrap())
        })
        .collect();
    graded.sort_by(|a, b| a.0.cmp(&b.0));
    let expected = [(long, 0.0), (longest, 0.0), ("b-honest".to_string(), 10.0)];
    assert_eq!(graded, expected, "{out:?}");
}

/// A constant of 48 MiB that the compiler writes several times over
/// (`writes-at-compile-time`), submitted by four attackers: each one's
/// build is stopped at a 128 MiB disk limit, having written at least that
/// much in its scratch folder. What a stopped build wrote is taken back,
/// and a submission's scratch folder goes when its grading ends, so the
/// class's scratch holds one build's worth at most, watched while it is
/// graded, and nothing after; the honest student graded after them gets
/// full marks. The defence removed, every attacker's share stays: on a
/// small disk, a few such attackers filled it, and every honest student
/// after them failed to build.
#[test]
fn builds_stopped_at_the_disk_limit_leave_nothing_behind() {
    use std::sync::atomic::{AtomicBool, Ordering};
    const ATTACKERS: usize = 4;
    const DISK_LIMIT: u64 = 128 << 20;
    let course = class_with("writes-at-compile-time", &[]);
    for n in 2..=ATTACKERS {
        let twin = course.class.join(format!("a-attacker-{n}/exercises"));
        copy_marked(&attacker_crate(&course), &twin.join(FOLDER), &[]);
    }
    let honest = course.class.join("b-honest/exercises").join(FOLDER);
    copy_marked(&course.root.join("solutions").join(FOLDER), &honest, &[]);
    let before = course.digest();
    let file = results_file(&course);
    let args = [
        "grade",
        "--class",
        arg(&course.class),
        "--out",
        arg(&file),
        "--disk-limit",
        "0.125",
    ];
    let graded = AtomicBool::new(false);
    let (out, most) = std::thread::scope(|scope| {
        let watcher = scope.spawn(|| {
            let mut most = 0;
            while !graded.load(Ordering::Relaxed) {
                most = most.max(class_scratch(&course).1);
                std::thread::sleep(Duration::from_millis(50));
            }
            most
        });
        let out = course.judge_within(&args, LIMIT, true);
        graded.store(true, Ordering::Relaxed);
        (out, watcher.join().unwrap())
    });
    assert_eq!(out.code, 0, "{out:?}");
    assert!(course.digest() == before, "the course changed");
    let results = read_json(&file);
    let submissions = results["submissions"].as_array().unwrap();
    for attacker in &submissions[..ATTACKERS] {
        let exercise = &attacker["exercises"][0];
        assert_eq!(exercise["status"], "compile_error", "{exercise:#}");
        let said = exercise["message"].as_str().unwrap_or_default();
        assert!(said.contains("past the disk limit of 128 MiB"), "{said}");
        assert_eq!(attacker["score"], 0.0, "{attacker:#}");
    }
    let honest = &submissions[ATTACKERS];
    assert_eq!(
        (honest["name"].as_str(), honest["score"].as_f64()),
        (Some("b-honest"), Some(10.0)),
        "{honest:#}"
    );
    // One stopped build at a time: the limit and what it overshoots by
    // (tens of MiB), under twice the limit; the four kept hold over four.
    assert!(
        most < 2 * DISK_LIMIT,
        "the class's scratch held {} MiB at once, more than one stopped build's \
         worth: the attackers' builds were kept",
        most >> 20
    );
    assert_eq!(
        class_scratch(&course),
        (0, 0),
        "the class's scratch folders and their bytes, once graded"
    );
}

/// The judge's scratch folders of `course`'s class (each names its
/// submission in its `SUBMISSION` file), and the bytes of the files in
/// them that nothing outside them links to (the judge's cache, which the
/// target folders link to, is not the class's).
fn class_scratch(course: &Course) -> (usize, u64) {
    use std::os::unix::fs::MetadataExt;
    let class = course.class.canonicalize().unwrap();
    let grade = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/judge/grade");
    let ours: Vec<PathBuf> = std::fs::read_dir(grade)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|dir| {
            std::fs::read_to_string(dir.join("SUBMISSION"))
                .is_ok_and(|named| Path::new(named.trim_end()).starts_with(&class))
        })
        .collect();
    // Each file by its inode: its links, the links seen here, its bytes.
    let mut files = std::collections::HashMap::new();
    for entry in ours.iter().flat_map(walkdir::WalkDir::new).flatten() {
        let Ok(meta) = entry.metadata() else { continue };
        let id = (meta.dev(), meta.ino());
        let file = files
            .entry(id)
            .or_insert((meta.nlink(), 0, meta.blocks() * 512));
        file.1 += 1;
    }
    let bytes = files
        .values()
        .filter(|(links, seen, _)| seen >= links)
        .map(|(_, _, bytes)| bytes)
        .sum();
    (ours.len(), bytes)
}

/// The exercise the device attacks are submitted for: its learner's
/// `submit` gets a stream of the judge's, and its one check gates on the
/// device's CPU clock (`tests/fixtures/attacks/device-course`).
const DEVICE_FOLDER: &str = "909-queues-without-waiting";

/// A course with only exercise 909 (installed from the device course,
/// marks replaced), the attack `fixture` as `a-attacker`'s crate, and
/// `b-honest` with the reference solution.
fn device_class_with(fixture: &str, marks: &[(&str, &str)]) -> Course {
    let course = Course::fixture_with(&[]);
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut all = vec![("@TOOLS@", arg(&tools))];
    all.extend_from_slice(marks);
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/attacks");
    let device = from.join("device-course");
    for part in ["exercises", "solutions", "judge"] {
        copy_marked(&device.join(part), &course.root.join(part), &all);
    }
    let manifest = course.root.join("exercises/info.toml");
    let mut text = std::fs::read_to_string(&manifest).unwrap();
    text.push_str(&std::fs::read_to_string(device.join("info.toml")).unwrap());
    std::fs::write(&manifest, text).unwrap();
    let exercises = course.class.join("a-attacker/exercises");
    copy_marked(&from.join(fixture), &exercises.join(DEVICE_FOLDER), &all);
    let honest = course.class.join("b-honest/exercises").join(DEVICE_FOLDER);
    copy_marked(
        &course.root.join("solutions").join(DEVICE_FOLDER),
        &honest,
        &all,
    );
    course
}

/// Grades a device class with `more` arguments: the honest student gets
/// full marks and the attacker none, the course is unchanged, `grade`
/// exits 0; returns what it wrote.
#[track_caller]
fn grade_device(course: &Course, more: &[&str]) -> Graded {
    let before = course.digest();
    let file = results_file(course);
    let mut args = vec!["grade", "--class", arg(&course.class), "--out", arg(&file)];
    args.extend(more);
    let out = course.judge_within(&args, LIMIT, false);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(course.digest() == before, "the course changed");
    let results = read_json(&file);
    let graded = Graded { out, results, file };
    let honest = &graded.results["submissions"][1];
    assert_eq!(
        (honest["name"].as_str(), honest["score"].as_f64()),
        (Some("b-honest"), Some(10.0)),
        "{honest:#}"
    );
    let attacker = graded.attacker();
    assert_eq!(attacker["score"], 0.0, "{attacker:#}");
    assert_eq!(attacker["decided"], "outside_the_learners_process");
    graded
}

/// The attacker's one check, and everything said about it.
fn device_check(graded: &Graded) -> (String, String) {
    let check = &graded.attacker()["checks"][0];
    let status = check["status"].as_str().unwrap_or_default().to_string();
    (status, format!("{check}\n{}", said(graded)))
}

/// The starter of 909 (which waits for the GPU), with the device's CPU
/// clock wound back after its wait by a `host_work` of 2^64 - k ns: through
/// the API (the proxy refuses it in the learner's process) and as a raw
/// frame written on the link in safe code (the judge's checker refuses it).
/// Neither earns a point, and each says why at the learner's line; the
/// honest student after them gets full marks. Before the bound (a
/// duration taken as wrapping nanoseconds), this starter earned 10 of 10.
/// The raw frame finds the link's shared memory in `/proc/self/maps`, which
/// the sandbox hides: it is graded without, where only the checker stands.
#[test]
fn a_clock_rewind_on_a_starter_earns_nothing() {
    for (how, says, more) in [
        ("api", "longer than any call may take", &[][..]),
        (
            "frame",
            "longer than any call may take",
            &["--no-sandbox"][..],
        ),
    ] {
        let course = device_class_with("rewinds-the-clock", &[("@HOW@", how)]);
        let graded = grade_device(&course, more);
        let (status, said) = device_check(&graded);
        assert!(status == "failed" || status == "panicked", "{how}: {said}");
        assert!(said.contains(says), "{how}: {said}");
        assert!(
            said.contains("src/lib.rs"),
            "{how}: the learner's line: {said}"
        );
        assert!(
            !said.contains("rewound:"),
            "{how}: the checker answered: {said}"
        );
    }
}

/// The link's shared memory written by the learner's process past the
/// `gpu` crate's own end (through the soundness hole, graded without the
/// sandbox, which hides where the memory is): a record that decodes as no
/// frame, a write position past what the ring holds, a record abandoned
/// half-written by a process that exits. Each ends the attacker's check as
/// the learner's (`crashed`, saying what the process did to the link, or
/// how it ended); the checker goes on, and the honest student after gets
/// full marks.
#[test]
fn a_link_written_garbage_overrun_or_abandoned_is_the_learners_crash() {
    for (how, says) in [
        ("garbage", "broke the protocol"),
        ("overrun", "more than the link holds"),
        ("abandoned", "the learner's process exited with code 0"),
    ] {
        let course = device_class_with("corrupts-the-link", &[("@HOW@", how)]);
        let graded = grade_device(&course, &["--no-sandbox"]);
        let (status, said) = device_check(&graded);
        assert_eq!(status, "crashed", "{how}: {said}");
        assert!(said.contains(says), "{how}: {said}");
    }
}

/// A pinned allocation of 2^44 bytes: the judge's checker would make it on
/// the learner's behalf. It is the learner's out-of-memory error, as the
/// driver returns one; the checker goes on (the check runs to its own
/// verdict), and nothing of the judge's (a backtrace, an allocator's
/// abort) reaches what the learner reads.
#[test]
fn a_huge_pinned_allocation_is_the_learners_out_of_memory_error() {
    let course = device_class_with("pins-16-tib", &[]);
    let graded = grade_device(&course, &[]);
    let (status, said) = device_check(&graded);
    assert_eq!(
        status, "failed",
        "the starter's own wait is checked: {said}"
    );
    assert!(said.contains("pinned: Err(OutOfMemory"), "{said}");
    for judges in ["stack backtrace", "memory allocation of", "judge_harness::"] {
        assert!(!said.contains(judges), "{judges}: {said}");
    }
}

/// Eighteen device allocations of 512 MiB under a 2 GiB memory limit: the
/// virtual GPU's memory is the checker's, and what it holds for the learner
/// counts against the learner's limit: the allocations past it are the
/// learner's out-of-memory errors (before, all 18 were held, 9 GiB in the
/// judge's process, while the sandbox's processes held 2 MiB).
#[test]
fn what_the_checker_holds_for_a_submission_is_held_to_its_memory_limit() {
    let course = device_class_with("holds-device-memory", &[]);
    let graded = grade_device(&course, &["--memory-limit", "2"]);
    let (_, said) = device_check(&graded);
    let held: usize = said
        .split("held: ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("the allocations ran: {said}"));
    assert!(
        held < 4,
        "{held} × 512 MiB held under a 2 GiB limit: {said}"
    );
}

/// Ten million traced calls: the check's trace is bounded
/// (`gpu::remote::TRACE_ENTRIES`), and the call past the bound ends the
/// check as the learner's error, which says what to do, long before the
/// grader's memory holds gigabytes of trace.
#[test]
fn a_flood_of_traced_calls_ends_at_the_traces_bound() {
    let course = device_class_with("floods-the-trace", &[]);
    let graded = grade_device(&course, &[]);
    let (status, said) = device_check(&graded);
    assert_eq!(status, "failed", "{said}");
    assert!(said.contains("has traced 1048576 calls"), "{said}");
    assert!(!said.contains("flooded: 10000000"), "{said}");
}
