//! `judge grade`: the three formats and their field names, results on disk
//! while grading goes on, shards, a student's own checks being ignored, and
//! what every format records of the sandbox. (Long: one test per property
//! of grading, each with the class it needs.)
//!
//! Submissions are made from the fixture course's own crates: a folder named
//! for one exercise may hold another's crate (one that aborts, say), since
//! every fixture suite checks the same `fixture::add`.
//!
//! Over 400 lines: one test per behaviour of `judge grade`, each short;
//! what they share is in `support.rs`.

use crate::formats::{gradescope_shape, json_shape, junit_shape, read_json};
use crate::support::{Course, arg};
use std::time::{Duration, Instant};

#[test]
fn every_format_has_its_documented_field_names() {
    let course = Course::fixture_with(&[901, 902, 903, 904]);
    let crates = ["901-passes", "902-wrong-answer", "903-compile-error"].map(|c| (c, c));
    let ada = course.submit("ada", &crates);
    let grade = |format: &str, file: &str| {
        let out = course.judge(&[
            "grade",
            "--submission",
            arg(&ada),
            "--format",
            format,
            "--out",
            file,
        ]);
        assert_eq!(out.code, 0, "{out:?}");
        out
    };
    let json = course.root.join("ada.json");
    let out = grade("json", arg(&json));
    insta::assert_snapshot!(course.redact(&out.stdout));
    let stderr = course.redact(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 6, "{stderr}");
    assert_eq!(lines[0], "grading 1 submission");
    assert!(lines[1].starts_with("sandbox: files, "), "{stderr}");
    assert_eq!(
        lines[2],
        "verdicts: decided in the judge's process, the learner's code in another"
    );
    assert!(lines[3].starts_with("seed: "), "{stderr}");
    assert!(
        lines[4].starts_with("budget: 120 s per submission"),
        "{stderr}"
    );
    assert_eq!(lines[5], "wrote `[COURSE]/ada.json`");
    let results = read_json(&json);
    json_shape(&results);
    assert_eq!(
        (results["complete"].as_bool(), results["shard"].as_str()),
        (Some(true), None)
    );
    assert!(
        results["seed"].is_u64(),
        "grade mode chooses the seed of generated inputs and records it: {}",
        results["seed"]
    );
    let seed = results["seed"].as_u64().unwrap();
    assert!(lines[3].contains(&format!("`--seed {seed}`")), "{stderr}");
    let exercises = results["submissions"][0]["exercises"].as_array().unwrap();
    let statuses: Vec<&str> = exercises
        .iter()
        .map(|e| e["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        ["passed", "failed", "compile_error", "not_started"]
    );
    assert_eq!(exercises[1]["checks"][0]["actual"], "-1");
    let log = exercises[2]["message"].as_str().unwrap();
    assert!(
        log.contains("--> exercises/903-compile-error/src/lib.rs:4:7"),
        "the student's path: {log}"
    );
    assert_eq!(
        exercises[3]["message"],
        "not started: the submission has no `exercises/904-panics`"
    );

    let xml = course.root.join("ada.xml");
    grade("junit", arg(&xml));
    let report = junit_shape(&std::fs::read_to_string(&xml).unwrap());
    let suites: Vec<(&str, usize, usize, usize)> = report
        .test_suites
        .iter()
        .map(|s| (s.name.as_str(), s.tests, s.failures, s.errors))
        .collect();
    let expected = [
        ("ada/901-passes", 3, 0, 0),
        ("ada/902-wrong-answer", 3, 3, 0),
        ("ada/903-compile-error", 1, 0, 1),
        ("ada/904-panics", 1, 1, 0),
    ];
    assert_eq!(suites, expected);
    assert_eq!(report.test_suites[2].test_cases[0].name.as_str(), "compile");

    let gradescope = course.root.join("results.json");
    grade("gradescope", arg(&gradescope));
    gradescope_shape(&read_json(&gradescope), 10.0, 40.0);
}

#[test]
fn results_are_on_disk_after_each_exercise_while_grading_goes_on() {
    let course = Course::fixture_with(&[901, 905]);
    let ada = course.submit(
        "ada",
        &[("901-passes", "901-passes"), ("905-endless", "905-endless")],
    );
    let results = course.root.join("ada.json");
    let mut judge = course
        .command(&["grade", "--submission", arg(&ada), "--out", arg(&results)])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    // 905 runs into its 3 s limit: 901's result must be on disk meanwhile,
    // whole (each write is a rename, so every read parses).
    let (partial, still_running) = loop {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "901's result never appeared"
        );
        let partial = results.is_file().then(|| read_json(&results));
        if let Some(partial) =
            partial.filter(|p| p["submissions"][0]["exercises"][0]["status"] == "passed")
        {
            break (partial, judge.try_wait().unwrap().is_none());
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(
        still_running,
        "901's result was on disk only once the judge had ended"
    );
    json_shape(&partial);
    assert_eq!(
        partial["submissions"][0]["exercises"][1]["status"], "pending",
        "{partial:#}"
    );
    assert_eq!(partial["complete"], false);
    assert_eq!(partial["submissions"][0]["score"], 10.0);
    assert!(judge.wait().unwrap().success());
    let done = read_json(&results);
    let endless = &done["submissions"][0]["exercises"][1];
    assert_eq!(
        (done["complete"].as_bool(), endless["status"].as_str()),
        (Some(true), Some("failed"))
    );
    assert_eq!(endless["checks"][0]["status"], "timed_out");
}

#[test]
fn a_run_stopped_by_a_judge_failure_keeps_what_it_finished() {
    let course = Course::fixture_with(&[901, 902]);
    std::fs::remove_dir_all(course.root.join("judge/checks/ex902")).unwrap();
    let crates = ["901-passes", "902-wrong-answer"].map(|c| (c, c));
    let ada = course.submit("ada", &crates);
    let results = course.root.join("ada.xml");
    // A budget given: no measurement of the solutions, which would meet
    // the missing suite before any student's exercise.
    let args = [
        "grade",
        "--submission",
        arg(&ada),
        "--format",
        "junit",
        "--out",
        arg(&results),
        "--budget",
        "600",
    ];
    let out = course.judge(&args);
    assert_eq!(out.code, 3, "{out:?}");
    assert!(out.stderr.contains("the check suite `"), "{}", out.stderr);
    let report = junit_shape(&std::fs::read_to_string(&results).unwrap());
    let cases: Vec<(&str, &str)> = report
        .test_suites
        .iter()
        .flat_map(|s| {
            s.test_cases
                .iter()
                .map(|c| (s.name.as_str(), c.name.as_str()))
        })
        .collect();
    let expected = [
        ("ada/901-passes", "adds_small_numbers"),
        ("ada/901-passes", "adds_zero"),
        ("ada/901-passes", "adds_on_the_gpu_clock"),
        ("ada/902-wrong-answer", "pending"),
    ];
    assert_eq!(cases, expected);
}

#[test]
fn the_shards_of_a_class_cover_every_submission_exactly_once() {
    let course = Course::fixture_with(&[901]);
    let names = ["amy", "ben", "cat", "dan", "eve", "fay", "gus"];
    for name in names {
        course.submit(name, &[]);
    }
    std::fs::create_dir_all(course.class.join(".git")).unwrap(); // hidden: not a submission
    for count in 1..=4 {
        let mut graded = Vec::new();
        for index in 1..=count {
            let shard = format!("{index}/{count}");
            let file = course.root.join(format!("shard-{index}-of-{count}.json"));
            let out = course.judge(&[
                "grade",
                "--class",
                arg(&course.class),
                "--shard",
                &shard,
                "--out",
                arg(&file),
            ]);
            assert_eq!(out.code, 0, "{out:?}");
            let results = read_json(&file);
            assert_eq!(results["shard"].as_str(), Some(shard.as_str()));
            let submissions = results["submissions"].as_array().unwrap();
            let mine: Vec<&str> = submissions
                .iter()
                .map(|s| s["name"].as_str().unwrap())
                .collect();
            assert!(
                mine.len().abs_diff(names.len() / count) <= 1,
                "shard {shard} is balanced: {mine:?}"
            );
            graded.extend(mine.iter().map(|name| name.to_string()));
        }
        graded.sort();
        assert_eq!(
            graded, names,
            "the {count} shards together grade each submission once"
        );
    }
}

#[test]
fn a_class_in_gradescope_format_is_a_folder_of_results() {
    let course = Course::fixture_with(&[901]);
    course.submit("ada", &[("901-passes", "901-passes")]);
    course.submit("bob", &[]);
    let folder = course.root.join("gradescope");
    let args = [
        "grade",
        "--class",
        arg(&course.class),
        "--format",
        "gradescope",
        "--out",
        arg(&folder),
    ];
    let out = course.judge(&args);
    assert_eq!(out.code, 0, "{out:?}");
    insta::assert_snapshot!(course.redact(&out.stdout));
    gradescope_shape(&read_json(&folder.join("ada.json")), 10.0, 10.0);
    let bob = read_json(&folder.join("bob.json"));
    gradescope_shape(&bob, 0.0, 10.0);
    assert_eq!(
        bob["tests"][0]["output"],
        "not started: the submission has no `exercises/901-passes`"
    );
}

#[test]
fn a_students_own_tests_checks_and_build_script_take_no_part() {
    let course = Course::fixture_with(&[902]);
    let eve = course.submit("eve", &[("902-wrong-answer", "902-wrong-answer")]);
    let planted = [
        (
            "exercises/902-wrong-answer/tests/cheat.rs",
            "#[test]\nfn passes() {}\n",
        ),
        (
            "exercises/902-wrong-answer/build.rs",
            "fn main() { panic!(\"the student's build script ran\") }\n",
        ),
        (
            "exercises/902-wrong-answer/judge/checks/ex902/mod.rs",
            FAKE_SUITE,
        ),
        ("judge/checks/ex902/mod.rs", FAKE_SUITE),
        ("exercises/info.toml", "format = 1\n"),
    ];
    for (file, text) in planted {
        std::fs::create_dir_all(eve.join(file).parent().unwrap()).unwrap();
        std::fs::write(eve.join(file), text).unwrap();
    }
    let results = course.root.join("eve.json");
    let out = course.judge(&["grade", "--submission", arg(&eve), "--out", arg(&results)]);
    assert_eq!(out.code, 0, "{out:?}");
    let exercise = &read_json(&results)["submissions"][0]["exercises"][0];
    let checks: Vec<&str> = exercise["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        checks,
        ["adds_small_numbers", "adds_zero", "adds_on_the_gpu_clock"],
        "the judge's own suite ran"
    );
    assert_eq!(
        (exercise["status"].as_str(), exercise["score"].as_f64()),
        (Some("failed"), Some(0.0))
    );
    assert_eq!(
        exercise["max_score"], 10,
        "the course's manifest, not the student's"
    );
}

/// A check suite that passes anything, as a student might write one.
const FAKE_SUITE: &str = r#"use judge_harness::{Check, Ctx, Failure};
pub(crate) const CHECKS: &[Check] = &[Check { name: "always_passes", title: "yes", section: "x.md", points: 1, run: yes }];
fn yes(_: &Ctx) -> Result<(), Failure> { Ok(()) }
"#;

#[test]
fn bad_input_is_a_clear_error() {
    let course = Course::fixture_with(&[901]);
    let ada = course.submit("ada", &[]);
    let (class, ada, nobody) = (arg(&course.class), arg(&ada), course.root.join("nobody"));
    let cases = [
        (
            &["--submission", arg(&nobody)][..],
            3,
            "the submission folder `[COURSE]/nobody` does not exist; pass the folder",
        ),
        (
            &["--class", class, "--shard", "3/2"],
            2,
            "shard `3/2` does not exist: `I` counts from 1 to `N`",
        ),
        (
            &["--class", class, "--shard", "0/4"],
            2,
            "shard `0/4` does not exist",
        ),
        (
            &["--class", class, "--shard", "two"],
            2,
            "shard `two` is not `I/N`",
        ),
        (
            &["--class", class, "--format", "csv"],
            2,
            "[possible values: json, junit, gradescope]",
        ),
        (
            &["--submission", ada, "--shard", "1/2"],
            2,
            "cannot be used with",
        ),
        (
            &["--class", ada],
            3,
            "the class folder `[CLASS]/ada` holds no submission folders",
        ),
    ];
    for (args, code, message) in cases {
        let out = course.judge(&[&["grade"], args].concat());
        assert_eq!(out.code, code, "{args:?}: {out:?}");
        assert!(
            course.redact(&out.stderr).contains(message),
            "{args:?}: {}",
            out.stderr
        );
    }
}

#[test]
fn every_format_names_the_sandboxs_layers_and_the_seed() {
    let course = Course::fixture_with(&[901]);
    let ada = course.submit("ada", &[("901-passes", "901-passes")]);
    let grade = |format: &str, file: &str| {
        let args = ["grade", "--submission", arg(&ada), "--format", format];
        let out = course.judge(&[&args[..], &["--out", file, "--seed", "7"]].concat());
        assert_eq!(out.code, 0, "{out:?}");
    };
    let (json, xml, gradescope) = (
        course.root.join("ada.json"),
        course.root.join("ada.xml"),
        course.root.join("results.json"),
    );
    grade("json", arg(&json));
    grade("junit", arg(&xml));
    grade("gradescope", arg(&gradescope));
    let json = read_json(&json);
    let names: Vec<&str> = json["sandbox"]["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    let all = crate::support::LAYERS;
    assert_eq!(names, all);
    assert_eq!(json["seed"], 7);
    let report = junit_shape(&std::fs::read_to_string(&xml).unwrap());
    let properties: Vec<String> = report.test_suites[0]
        .properties
        .iter()
        .filter(|p| p.name.starts_with("sandbox") || p.name.as_str() == "seed")
        .map(|p| format!("{} = {}", p.name.as_str(), p.value.as_str()))
        .collect();
    assert_eq!(properties.len(), 2 + all.len(), "{properties:#?}");
    let gradescope = read_json(&gradescope);
    assert_eq!(gradescope["extra_data"]["sandbox"], json["sandbox"]);
    assert_eq!(gradescope["extra_data"]["seed"], 7);
    let first_line = gradescope["output"]
        .as_str()
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    let summary = json["sandbox"]["summary"].as_str().unwrap();
    let as_root = json.to_string().contains("(the judge runs as root)");
    if summary.ends_with("(all in force)") && as_root {
        let shown = format!(
            "json sandbox:\n{:#}\n\njunit properties:\n{}\n\ngradescope output:\n{first_line}\n",
            json["sandbox"],
            properties.join("\n")
        );
        insta::assert_snapshot!(redact_abi(&shown));
    }
}

/// `text` with landlock's ABI (`landlock ABI 7`) written `landlock ABI [N]`.
fn redact_abi(text: &str) -> String {
    let mut redacted = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("landlock ABI ") {
        let (before, after) = rest.split_at(at + "landlock ABI ".len());
        redacted.push_str(before);
        redacted.push_str("[N]");
        rest = after.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    redacted.push_str(rest);
    redacted
}

#[test]
fn grading_without_the_sandbox_is_recorded_in_the_results() {
    let course = Course::fixture_with(&[901]);
    let ada = course.submit("ada", &[("901-passes", "901-passes")]);
    let file = course.root.join("ada.json");
    let out = course.judge(&[
        "grade",
        "--submission",
        arg(&ada),
        "--out",
        arg(&file),
        "--no-sandbox",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains("sandbox: off (`--no-sandbox`)"),
        "{}",
        out.stderr
    );
    let results = read_json(&file);
    assert_eq!(results["sandbox"]["enabled"], false);
    assert_eq!(results["sandbox"]["layers"], serde_json::json!([]));
    assert_eq!(results["submissions"][0]["score"], 10.0);
}

#[test]
fn keep_keeps_the_exact_sources_graded_with_the_hashes_the_results_record() {
    let course = Course::fixture_with(&[901]);
    let ada = course.submit("ada", &[("901-passes", "901-passes")]);
    std::fs::write(ada.join("exercises/901-passes/build.rs"), "fn main() {}").unwrap();
    let (file, kept) = (course.root.join("ada.json"), course.root.join("kept"));
    let args = [
        "grade",
        "--submission",
        arg(&ada),
        "--out",
        arg(&file),
        "--keep",
        arg(&kept),
    ];
    let out = course.judge(&args);
    assert_eq!(out.code, 0, "{out:?}");
    let results = read_json(&file);
    let files = results["submissions"][0]["exercises"][0]["files"]
        .as_array()
        .unwrap();
    let crate_dir = kept.join("ada/901-passes");
    assert!(
        !crate_dir.join("build.rs").exists(),
        "only what was graded is kept"
    );
    let mut paths = Vec::new();
    for graded in files {
        let path = graded["path"].as_str().unwrap();
        let bytes = std::fs::read(crate_dir.join(path)).unwrap();
        let digest: String = <sha2::Sha256 as sha2::Digest>::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(graded["sha256"].as_str(), Some(digest.as_str()), "{path}");
        paths.push(path);
    }
    assert_eq!(paths, ["Cargo.toml", "src/lib.rs"]);
}

/// Submission folders named with anything a file system holds (a name of
/// 250 bytes, quotes, a backslash, a newline, emoji) are graded as the
/// names they are: the names are data (the judge names the scratch
/// folders), so none breaks a build or stops the class.
#[test]
fn folders_of_any_name_are_graded_and_none_stops_the_class() {
    let course = Course::fixture_with(&[902]);
    let long = "x".repeat(250);
    let names = [
        long.as_str(),
        "q-zoë-\"zed\"",
        "b-dom\\user",
        "new\nline",
        "🦀 crab",
    ];
    for name in names {
        course.submit(
            name,
            &[("902-wrong-answer", "../solutions/902-wrong-answer")],
        );
    }
    let file = course.root.join("results.json");
    let out = course.judge(&["grade", "--class", arg(&course.class), "--out", arg(&file)]);
    assert_eq!(out.code, 0, "{out:?}");
    let results = read_json(&file);
    let mut graded: Vec<(String, f64)> = results["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["score"].as_f64().unwrap(),
            )
        })
        .collect();
    graded.sort_by(|a, b| a.0.cmp(&b.0));
    let mut expected: Vec<(String, f64)> = names.iter().map(|n| (n.to_string(), 10.0)).collect();
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(graded, expected);
}

/// An entry of the class folder that is no folder (an archive a student
/// uploaded and nobody unpacked) gets a row with no point and a note that
/// says what it is, in the results, the gradebook and the class report;
/// the students after it are graded.
#[test]
fn an_entry_of_the_class_that_is_no_folder_gets_a_row_that_says_what_it_is() {
    for layers in ["", "pid"] {
        stray_entry_gets_a_row(layers);
    }
}

/// [`an_entry_of_the_class_that_is_no_folder_gets_a_row_that_says_what_it_is`]
/// with the sandbox's layers less `omitted` (`JUDGE_SANDBOX_OMIT`: `pid`
/// for the layers of a machine with NVIDIA GPUs).
#[track_caller]
fn stray_entry_gets_a_row(omitted: &str) {
    let course = Course::fixture_with(&[902]);
    course.submit(
        "b-honest",
        &[("902-wrong-answer", "../solutions/902-wrong-answer")],
    );
    std::fs::write(course.class.join("ada.zip"), b"PK\x03\x04").unwrap();
    let file = course.root.parent().unwrap().join("results/results.json");
    let args = ["grade", "--class", arg(&course.class), "--out", arg(&file)];
    let env = [("JUDGE_SANDBOX_OMIT", std::ffi::OsStr::new(omitted))];
    let out = course.judge_within_env(&args, std::time::Duration::from_secs(240), false, &env);
    assert_eq!(out.code, 0, "{omitted}: {out:?}");
    assert!(
        out.stderr
            .contains("`ada.zip` in the class folder is an archive of 4 bytes, not unpacked"),
        "{}",
        out.stderr
    );
    let results = read_json(&file);
    let rows: Vec<(&str, f64)> = results["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["score"].as_f64().unwrap()))
        .collect();
    assert_eq!(rows, [("ada.zip", 0.0), ("b-honest", 10.0)]);
    let note = results["submissions"][0]["note"].as_str().unwrap();
    assert!(note.contains("unpack an archive into `ada/`"), "{note}");
    assert!(results["submissions"][1]["note"].is_null());
    let dir = file.parent().unwrap();
    let gradebook = std::fs::read_to_string(dir.join("results.gradebook.csv")).unwrap();
    assert!(
        gradebook.lines().any(|l| l.starts_with("ada.zip,")),
        "{gradebook}"
    );
    let report = std::fs::read_to_string(dir.join("results.report.md")).unwrap();
    assert!(
        report.contains("## Entries that are no submission\n\n- `ada.zip` in the class folder"),
        "{report}"
    );
}
