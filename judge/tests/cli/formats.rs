//! What the results files of `judge grade` hold, format by format: the
//! field names at every level (exactly, for the JSON formats), and the
//! element and attribute names of the JUnit XML. Key lists are written as
//! one string of names separated by spaces.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

/// The keys of the JSON object `value` are exactly the names in `keys`.
#[track_caller]
pub(crate) fn assert_keys(value: &Value, keys: &str) {
    let found: BTreeSet<&str> = value
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(found, keys.split_whitespace().collect(), "{value:#}");
}

/// Parses a JSON file, saying which when it is not JSON.
#[track_caller]
pub(crate) fn read_json(file: &Path) -> Value {
    let text = std::fs::read_to_string(file).unwrap();
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("`{}` is not valid JSON ({e}):\n{text}", file.display()))
}

/// `--format json`: the documented keys at every level.
#[track_caller]
pub(crate) fn json_shape(results: &Value) {
    assert_keys(
        results,
        "format judge complete shard seed decided sandbox submissions",
    );
    assert_keys(&results["sandbox"], "enabled summary layers");
    for layer in results["sandbox"]["layers"].as_array().unwrap() {
        assert_keys(layer, "name in_force detail");
    }
    for submission in results["submissions"].as_array().unwrap() {
        assert_keys(
            submission,
            "name path complete score max_score duration_s budget_s note unknown_folders exercises",
        );
        for exercise in submission["exercises"].as_array().unwrap() {
            let keys = "id slug title chapter status score max_score backend decided duration_s message checks output";
            assert_keys(exercise, &format!("{keys} forged_lines files"));
            for file in exercise["files"].as_array().unwrap() {
                assert_keys(file, "path sha256");
            }
            for check in exercise["checks"].as_array().unwrap() {
                let own = match check["status"].as_str().unwrap() {
                    "failed" => "expected actual site detail",
                    "panicked" => "message location",
                    "timed_out" => "limit_s",
                    "crashed" => "how",
                    _ => "",
                };
                assert_keys(
                    check,
                    &format!(
                        "name title section weight score max_score status {own} details seconds"
                    ),
                );
            }
        }
    }
}

/// `--format gradescope`: Gradescope's keys, exactly, and a score that is
/// the sum of the tests'.
#[track_caller]
pub(crate) fn gradescope_shape(results: &Value, score: f64, max_score: f64) {
    let top =
        "score execution_time output output_format test_output_format test_name_format visibility";
    assert_keys(
        results,
        &format!("{top} stdout_visibility extra_data tests"),
    );
    assert_keys(
        &results["extra_data"],
        "judge submission complete seed decided sandbox files",
    );
    let tests = results["tests"].as_array().unwrap();
    for test in tests {
        let keys =
            "name number score max_score status output output_format tags visibility extra_data";
        assert_keys(test, keys);
        assert!(
            ["passed", "failed"].contains(&test["status"].as_str().unwrap()),
            "{test}"
        );
        assert_eq!(
            (test["output_format"].as_str(), test["visibility"].as_str()),
            (Some("text"), Some("visible"))
        );
    }
    for format in ["output_format", "test_output_format", "test_name_format"] {
        assert_eq!(results[format].as_str(), Some("text"));
    }
    let sum = |key: &str| tests.iter().map(|t| t[key].as_f64().unwrap()).sum::<f64>();
    assert_eq!(
        (results["score"].as_f64(), sum("score"), sum("max_score")),
        (Some(score), score, max_score)
    );
}

/// `--format junit`: the elements are JUnit's, each with the attributes
/// it needs; returns the parsed report.
#[track_caller]
pub(crate) fn junit_shape(xml: &str) -> quick_junit::Report {
    let elements = xml_elements(xml);
    let allowed = "testsuites testsuite properties property testcase failure error skipped system-out system-err";
    let allowed: BTreeSet<&str> = allowed.split_whitespace().collect();
    for (name, _) in &elements {
        assert!(
            allowed.contains(name.as_str()),
            "<{name}> is not JUnit's:\n{xml}"
        );
    }
    for (element, needed) in [
        ("testsuites", "name tests failures errors"),
        ("testsuite", "name tests failures errors time"),
        ("testcase", "name classname"),
        ("failure", "message type"),
        ("error", "message type"),
        ("skipped", "message"),
        ("property", "name value"),
    ] {
        for (_, attributes) in elements.iter().filter(|(name, _)| name == element) {
            let missing: Vec<&str> = needed
                .split_whitespace()
                .filter(|n| !attributes.iter().any(|a| a == n))
                .collect();
            assert!(missing.is_empty(), "<{element}> lacks {missing:?}:\n{xml}");
        }
    }
    quick_junit::Report::deserialize_from_str(xml).expect("valid JUnit XML")
}

/// Each element's name and attribute names, in document order: enough XML
/// to check a report's vocabulary (text and attribute values are escaped,
/// so `<` only opens tags and `="` only follows an attribute's name).
fn xml_elements(xml: &str) -> Vec<(String, Vec<String>)> {
    let mut elements = Vec::new();
    for tag in xml
        .split('<')
        .skip(1)
        .filter(|t| !t.starts_with(['/', '?', '!']))
    {
        let tag = &tag[..tag.find('>').expect("a closed tag")];
        let name = tag
            .trim_end_matches('/')
            .split_whitespace()
            .next()
            .expect("a name")
            .to_string();
        let attributes = tag.match_indices("=\"").map(|(at, _)| {
            let before = &tag[..at];
            before[before.rfind(char::is_whitespace).map_or(0, |i| i + 1)..].to_string()
        });
        elements.push((name, attributes.collect()));
    }
    elements
}
