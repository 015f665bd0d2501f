//! Tests of a class's files in Gradescope's format, one per submission.

use super::*;
use crate::report::Decided;
use crate::sandbox::Layers;
use crate::submission::Submission;

/// A class of `names`, nothing graded (the course has no exercise).
fn class(names: &[&str]) -> Grading {
    let submission = |name: &&str| Submission {
        name: name.to_string(),
        dir: PathBuf::from("/class").join(name),
        note: None,
    };
    Grading {
        submissions: names
            .iter()
            .map(|name| SubmissionResult::pending(submission(name), &[]))
            .collect(),
        shard: None,
        complete: false,
        sandbox: Layers::off(),
        seed: 7,
        decided: Decided::default(),
    }
}

/// The JSON files of `folder`, each file's name with its `submission`.
fn written(folder: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = fs_err::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .map(|path| {
            let text = fs_err::read_to_string(&path).unwrap();
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let submission = value["extra_data"]["submission"].as_str().unwrap();
            (name, submission.to_string())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn each_submission_gets_a_file_named_by_the_judge_with_its_name_inside() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("results");
    let sink = Sink::new(Format::Gradescope, Some(&folder), true).unwrap();
    let long = "c".repeat(255);
    let mut grading = class(&["ada", "a b", &long]);
    sink.save_all(&mut grading).unwrap();
    let files = written(&folder);
    let stem = |name: &str| names::stem(name);
    let expected = [
        (format!("{}.json", stem("a b")), "a b".to_string()),
        ("ada.json".to_string(), "ada".to_string()),
        (format!("{}.json", stem(&long)), long.clone()),
    ];
    assert_eq!(files, expected);
    assert!(
        grading
            .submissions
            .iter()
            .all(|s| s.results_error.is_none())
    );
}

#[test]
fn a_file_that_cannot_be_written_is_that_submissions_error_and_the_class_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("results");
    let sink = Sink::new(Format::Gradescope, Some(&folder), true).unwrap();
    // A folder where `ada`'s file goes: the rename over it fails.
    fs_err::create_dir_all(folder.join("ada.json/kept")).unwrap();
    let mut grading = class(&["ada", "bob"]);
    sink.save_all(&mut grading).unwrap();
    assert_eq!(written(&folder), [("bob.json".into(), "bob".into())]);
    let error = grading.submissions[0].results_error.as_deref().unwrap();
    assert!(
        error.starts_with("the results file `") && error.contains("ada.json` of this submission"),
        "{error}"
    );
    assert!(
        error.contains("judge grade --submission /class/ada --format gradescope --out "),
        "{error}"
    );
    assert_eq!(grading.submissions[1].results_error, None);
    let report = class::report(&Results::parse(&json::render(&grading), "x").unwrap());
    assert_eq!(report.unwritten.len(), 1);
    assert_eq!(report.unwritten[0].student, "ada");
    assert!(class::markdown(&report).contains("## Results files not written"));
    fs_err::remove_dir_all(folder.join("ada.json")).unwrap();
    sink.save_all(&mut grading).unwrap();
    assert_eq!(grading.submissions[0].results_error, None, "written now");
}
