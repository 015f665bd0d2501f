//! Tests of `judge grade --merge` on small shard files.

use super::*;

/// A shard's JSON document: shard `shard`, graded with `seed`, holding
/// the submissions `names`.
fn shard(shard: Option<&str>, seed: u64, names: &[&str]) -> String {
    let submissions: Vec<Value> = names
        .iter()
        .map(|name| {
            json!({
                "name": name, "path": format!("/class/{name}"), "complete": true,
                "score": 1.0, "max_score": 1, "exercises": [],
            })
        })
        .collect();
    json!({
        "format": 1, "judge": "0.1.0", "complete": true, "shard": shard, "seed": seed,
        "decided": "outside_the_learners_process",
        "sandbox": {"enabled": true, "summary": "files", "layers": []},
        "submissions": submissions,
    })
    .to_string()
}

/// Writes `files` into a temporary folder; their paths.
fn written(files: &[(&str, String)]) -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().unwrap();
    let paths = files
        .iter()
        .map(|(name, text)| {
            let path = dir.path().join(name);
            fs_err::write(&path, text).unwrap();
            path
        })
        .collect();
    (dir, paths)
}

#[test]
fn shards_merge_into_one_document_in_name_order() {
    let (_dir, paths) = written(&[
        ("shard-2.json", shard(Some("2/2"), 9, &["bob", "dee"])),
        ("shard-1.json", shard(Some("1/2"), 9, &["cy", "ada"])),
    ]);
    let merged = merge(&paths).unwrap();
    let value: Value = serde_json::from_str(&merged.text).unwrap();
    let names: Vec<&str> = value["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ada", "bob", "cy", "dee"]);
    assert_eq!(value["complete"], true);
    assert_eq!(value["seed"], 9);
    assert_eq!(value["shard"], Value::Null);
    assert_eq!(value["merged_from"][0]["shard"], "2/2");
    assert!(merged.missing.is_empty());
    assert_eq!(merged.results.unwrap().submissions.len(), 4);
}

#[test]
fn a_missing_shard_makes_the_merge_incomplete_and_different_seeds_leave_none() {
    let (_dir, paths) = written(&[
        ("a.json", shard(Some("1/3"), 1, &["ada"])),
        ("c.json", shard(Some("3/3"), 2, &["cy"])),
    ]);
    let merged = merge(&paths).unwrap();
    assert_eq!(merged.missing, ["2/3"]);
    let value: Value = serde_json::from_str(&merged.text).unwrap();
    assert_eq!(value["complete"], false);
    assert_eq!(value["seed"], Value::Null);
    assert_eq!(value["merged_from"][1]["seed"], 2);
}

#[test]
fn what_cannot_be_merged_is_refused_with_the_reason() {
    let refused = |files: &[(&str, String)]| {
        let (_dir, paths) = written(files);
        let err = merge(&paths).unwrap_err();
        let text = format!("{err:#}");
        text.replace(&_dir.path().display().to_string(), "D")
    };
    assert_eq!(
        refused(&[
            ("a.json", shard(Some("1/2"), 1, &["ada"])),
            ("b.json", shard(Some("2/2"), 1, &["ada"])),
        ]),
        "`ada` is graded in `D/a.json` and in `D/b.json`: merge each shard once"
    );
    assert_eq!(
        refused(&[
            ("a.json", shard(Some("1/2"), 1, &["ada"])),
            ("b.json", shard(Some("1/2"), 1, &["bob"])),
        ]),
        "shard 1/2 is there twice (`D/b.json`)"
    );
    assert!(
        refused(&[
            ("a.json", shard(Some("1/2"), 1, &["ada"])),
            ("b.json", shard(Some("2/3"), 1, &["bob"])),
        ])
        .contains("of another sharding")
    );
    let other_judge = shard(None, 1, &["bob"]).replace("0.1.0", "0.2.0");
    assert!(
        refused(&[
            ("a.json", shard(None, 1, &["ada"])),
            ("b.json", other_judge)
        ])
        .contains("their `judge` differs")
    );
    assert!(refused(&[("a.json", "{\"tests\": []}".into())]).contains("a Gradescope results file"));
    assert!(
        refused(&[
            ("a.json", shard(None, 1, &["ada"])),
            ("b.xml", "<testsuites/>".into())
        ])
        .contains("merge the files of one format")
    );
}

#[test]
fn junit_reports_merge_suite_by_suite() {
    let report = |suite: &str| {
        let mut report = quick_junit::Report::new("judge grade");
        report.add_test_suite(quick_junit::TestSuite::new(suite));
        report.to_string().unwrap()
    };
    let (_dir, paths) = written(&[
        ("b.xml", report("bob/101-x")),
        ("a.xml", report("ada/101-x")),
    ]);
    let merged = merge(&paths).unwrap();
    let back = quick_junit::Report::deserialize_from_str(&merged.text).unwrap();
    let names: Vec<String> = back
        .test_suites
        .iter()
        .map(|s| s.name.as_str().to_string())
        .collect();
    assert_eq!(names, ["ada/101-x", "bob/101-x"]);
    let (_dir, paths) = written(&[
        ("a.xml", report("ada/101-x")),
        ("b.xml", report("ada/101-x")),
    ]);
    assert!(format!("{:#}", merge(&paths).unwrap_err()).contains("is in two files"));
}
