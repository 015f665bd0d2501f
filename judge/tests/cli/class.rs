//! What an instructor reads of a class: the gradebook and the class report
//! beside the results, and `judge grade --merge` of a class graded in
//! shards, which gives the same files as the class graded whole.

use crate::formats::read_json;
use crate::support::{Course, arg, copy_marked};
use std::fs;
use std::path::{Path, PathBuf};

/// A class of four on exercises 901 and 902: ada has both solutions, bob
/// the starters, cy a crate of 902 that panics, dee nothing but a folder
/// named for no exercise (901's starter passes: the fixture's is its solution).
fn class() -> Course {
    let course = Course::fixture_with(&[901, 902]);
    for folder in ["901-passes", "902-wrong-answer"] {
        let from = course.root.join("solutions").join(folder);
        copy_marked(&from, &course.class.join("ada/exercises").join(folder), &[]);
    }
    course.submit(
        "bob",
        &[
            ("901-passes", "901-passes"),
            ("902-wrong-answer", "902-wrong-answer"),
        ],
    );
    course.submit("cy", &[("902-wrong-answer", "904-panics")]);
    course.submit("dee", &[("902-wrong", "902-wrong-answer")]);
    course
}

/// Grades `class` with a fixed seed into `out`, with more `args`.
fn grade(course: &Course, out: &Path, args: &[&str]) {
    let mut all = vec![
        "grade",
        "--class",
        arg(&course.class),
        "--seed",
        "7",
        "--out",
        arg(out),
    ];
    all.extend(args);
    let graded = course.judge(&all);
    assert_eq!(graded.code, 0, "{graded:?}");
}

/// The gradebook and the report's files beside the results `STEM.json`.
fn derived(stem: &Path) -> [PathBuf; 3] {
    ["gradebook.csv", "report.md", "report.json"].map(|suffix| {
        let mut name = stem.as_os_str().to_os_string();
        name.push(format!(".{suffix}"));
        PathBuf::from(name)
    })
}

#[test]
fn a_class_gets_its_gradebook_and_report_and_merged_shards_get_the_same() {
    let course = class();
    let results = course.root.join("out");
    let whole = results.join("whole.json");
    grade(&course, &whole, &[]);
    let [gradebook, markdown, report] = derived(&results.join("whole"));
    assert_eq!(
        fs::read_to_string(&gradebook).unwrap(),
        "student,901-passes (of 10),902-wrong-answer (of 10),total (of 20),complete\r\n\
         ada,10,10,20,true\r\n\
         bob,10,0,10,true\r\n\
         cy,0,0,0,true\r\n\
         dee,0,0,0,true\r\n"
    );
    let text = fs::read_to_string(&markdown).unwrap();
    insta::assert_snapshot!(course.redact(&text));
    let report_json = read_json(&report);
    assert_eq!(report_json["submissions"], 4);
    assert_eq!(report_json["unknown_folders"][0]["student"], "dee");
    assert_eq!(
        report_json["unknown_folders"][0]["meant"],
        "902-wrong-answer"
    );

    for index in 1..=2 {
        let shard = format!("{index}/2");
        let file = results.join(format!("shard-{index}.json"));
        grade(&course, &file, &["--shard", &shard]);
    }
    let merged = results.join("class.json");
    let shards = [results.join("shard-1.json"), results.join("shard-2.json")];
    let out = course.judge(&[
        "grade",
        "--merge",
        arg(&shards[0]),
        arg(&shards[1]),
        "--out",
        arg(&merged),
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.starts_with("merged 2 files into `"),
        "{}",
        out.stderr
    );
    let [merged_gradebook, merged_markdown, merged_report] = derived(&results.join("class"));
    let read = |path: &Path| fs::read_to_string(path).unwrap();
    assert_eq!(read(&merged_gradebook), read(&gradebook));
    assert_eq!(read(&merged_markdown), read(&markdown));
    assert_eq!(read_json(&merged_report), report_json);
    let document = read_json(&merged);
    assert_eq!(document["complete"], true);
    assert_eq!(document["seed"], 7);
    let whole_document = read_json(&whole);
    let scores = |doc: &serde_json::Value| -> Vec<(String, f64)> {
        doc["submissions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["name"].as_str().unwrap().into(),
                    s["score"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(scores(&document), scores(&whole_document));
}

#[test]
fn a_merge_missing_a_shard_says_so_and_a_bad_file_changes_nothing() {
    let course = class();
    let results = course.root.join("out");
    let first = results.join("shard-1.json");
    grade(&course, &first, &["--shard", "1/2"]);
    let merged = results.join("class.json");
    let out = course.judge(&["grade", "--merge", arg(&first), "--out", arg(&merged)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains(
            "note: shard 2/2 is missing: its submissions are not in the merge, which says `\"complete\": false`"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(read_json(&merged)["complete"], false);

    let bad = results.join("notes.json");
    fs::write(&bad, "not json").unwrap();
    let before = fs::read_to_string(&merged).unwrap();
    let out = course.judge(&[
        "grade",
        "--merge",
        arg(&first),
        arg(&bad),
        "--out",
        arg(&merged),
    ]);
    assert_eq!(out.code, 3, "{out:?}");
    assert!(
        out.stderr
            .contains("is neither the judge's JSON nor JUnit results"),
        "{}",
        out.stderr
    );
    assert_eq!(
        fs::read_to_string(&merged).unwrap(),
        before,
        "nothing written"
    );
    let out = course.judge(&["grade", "--merge", arg(&first), "--out", arg(&first)]);
    assert_eq!(out.code, 3, "{out:?}");
    assert!(
        out.stderr.contains("is one of the files merged"),
        "{}",
        out.stderr
    );
}

/// `judge verify --write-class`: a class made from the course, each of its
/// variants in one student's submission, then solutions, starters and
/// exercises not started in turn, and a misnamed folder.
#[test]
fn a_class_written_from_the_course_holds_every_variant_once() {
    let course = Course::fixture_with(&[901, 902]);
    let variants = course.root.join("judge/variants/902");
    fs::create_dir_all(&variants).unwrap();
    for (name, body) in [("subtracts", "a - b"), ("multiplies", "a * b")] {
        let text = format!(
            "//! mistake: {name}\n//! fails: adds_small_numbers\n//! says: -1\n/// Adds, wrongly.\npub fn add(a: i32, b: i32) -> i32 {{\n    {body}\n}}\n"
        );
        fs::write(variants.join(format!("{name}.rs")), text).unwrap();
    }
    let class = course.root.parent().unwrap().join("rehearsal");
    let out = course.judge(&["verify", "--write-class", arg(&class)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.starts_with("wrote a class of 50 students in `"),
        "{}",
        out.stdout
    );
    let lib = |student: &str| {
        fs::read_to_string(
            class
                .join(student)
                .join("exercises/902-wrong-answer/src/lib.rs"),
        )
        .ok()
    };
    assert!(
        lib("student-01").unwrap().contains("a * b"),
        "multiplies, first by name"
    );
    assert!(lib("student-02").unwrap().contains("a - b"));
    let solution =
        fs::read_to_string(course.root.join("solutions/902-wrong-answer/src/lib.rs")).unwrap();
    let starter =
        fs::read_to_string(course.root.join("exercises/902-wrong-answer/src/lib.rs")).unwrap();
    assert_eq!(lib("student-03").as_deref(), Some(solution.as_str()));
    assert_eq!(lib("student-04").as_deref(), Some(starter.as_str()));
    assert_eq!(lib("student-06"), None, "not started");
    assert!(
        class.join("student-50/exercises/901-passe").is_dir(),
        "the last student's first exercise is misnamed"
    );
    let table = fs::read_to_string(class.join("CLASS.md")).unwrap();
    assert!(
        table.contains("| student-01 | solution | `multiplies` |")
            && table.contains("| student-50 | starter in `901-passe` | not started |"),
        "{table}"
    );
    let again = course.judge(&["verify", "--write-class", arg(&class)]);
    assert_eq!(again.code, 3, "{again:?}");
    assert!(
        again
            .stderr
            .contains("is not empty; write the class into a new folder"),
        "{}",
        again.stderr
    );
}

/// The instructor guide's worked example (`docs/class-dry-run/`: a class
/// made by `judge verify --write-class` and graded) got the grades it was
/// made for: in its gradebook, every solution has its exercise's points,
/// every starter and every exercise not started none, every known-wrong
/// variant fewer than all.
#[test]
fn the_dry_run_class_got_the_grades_it_was_made_for() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/class-dry-run");
    let class = std::fs::read_to_string(dir.join("CLASS.md")).unwrap();
    let gradebook = std::fs::read_to_string(dir.join("class.gradebook.csv")).unwrap();
    let cells = |line: &str| -> Vec<String> {
        line.trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect()
    };
    let header = class
        .lines()
        .find(|l| l.starts_with("| student |"))
        .unwrap();
    let ids = cells(header)[1..].to_vec();
    let columns: Vec<String> = gradebook
        .lines()
        .next()
        .unwrap()
        .split(',')
        .map(String::from)
        .collect();
    let points = |student: &str, id: &str| -> (f64, f64) {
        let row: Vec<&str> = gradebook
            .lines()
            .find(|l| l.starts_with(&format!("{student},")))
            .unwrap_or_else(|| panic!("{student} has no row"))
            .split(',')
            .collect();
        let column = columns
            .iter()
            .position(|c| c.starts_with(&format!("{id}-")))
            .unwrap();
        let of: f64 = columns[column]
            .rsplit("(of ")
            .next()
            .unwrap()
            .trim_end_matches(')')
            .parse()
            .unwrap();
        (row[column].parse().unwrap(), of)
    };
    let mut seen = 0;
    for line in class.lines().filter(|l| l.starts_with("| student-")) {
        let row = cells(line);
        for (id, part) in ids.iter().zip(&row[1..]) {
            let (got, of) = points(&row[0], id);
            match part.as_str() {
                "solution" => assert_eq!(got, of, "{} {id}: a solution", row[0]),
                "starter" | "not started" => assert_eq!(got, 0.0, "{} {id}: {part}", row[0]),
                variant if variant.starts_with('`') => {
                    assert!(
                        got < of,
                        "{} {id}: the variant {variant} got {got} of {of}",
                        row[0]
                    )
                }
                _ => {}
            }
            seen += 1;
        }
    }
    assert!(seen >= 50 * 7, "only {seen} cells");
}
