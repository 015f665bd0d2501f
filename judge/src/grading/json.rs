//! `--format json`: the judge's own results model, for scripts.
//!
//! ```text
//! {
//!   "format": 1,                    this layout's version
//!   "judge": "0.1.0",               the judge's version
//!   "complete": false,              true once every submission is graded
//!   "shard": "2/4" | null,          the shard of the class graded here
//!   "seed": 1234,                   the seed the checks' generated workloads took (null in a
//!                                   merge of shards graded with different seeds)
//!   "decided": "outside_the_learners_process | in_the_learners_process",
//!                                   where the verdicts were decided: in the judge's
//!                                   process (every backend, by default), or in the one that
//!                                   ran the student's code (`--in-process`)
//!   "sandbox": {                    what student code was built and run in
//!     "enabled": true,              false with `--no-sandbox`
//!     "summary": "files, ... (all in force)",
//!     "layers": [{"name": "files", "in_force": true, "detail": "landlock ABI 7: ..."}, ...]
//!   },
//!   "merged_from": [{"file": "shard-1.json", "shard": "1/4", "seed": 1234, "complete": true}],
//!                                   only in `judge grade --merge`'s document: the files joined
//!   "submissions": [{
//!     "name": "ada",                the submission folder's name
//!     "path": "/abs/class/ada",
//!     "complete": true,             every exercise graded
//!     "score": 12.5, "max_score": 30, "duration_s": 8.1,
//!     "budget_s": 180.0,            the wall time its builds and checks could take in all
//!     "note": "..." | null,         an entry of the class folder that is no folder (an
//!                                   archive left packed): what it is; nothing was graded
//!     "unknown_folders": [{"folder": "105-timeit", "meant": "105-time-it" | null}],
//!                                   folders of its `exercises/` that are no exercise
//!     "results_error": "...",       only when its own results file (Gradescope's, one per
//!                                   student of a class) could not be written: why, what to do
//!     "exercises": [{
//!       "id": 101, "slug": "...", "title": "...", "chapter": "...",
//!       "status": "pending | not_started | compile_error | harness_failure | passed | failed | over_budget",
//!       "score": 2.5, "max_score": 10,
//!       "backend": "cuda | virtual" (empty when nothing ran),
//!       "decided": "outside_the_learners_process | ..." | null (null when nothing ran),
//!       "duration_s": 3.2,          build and run, wall time
//!       "message": "..." | null,    why there are no checks: the compiler's messages, ...
//!       "checks": [{
//!         "name", "title", "section",   the check, and the chapter section that explains it
//!         "weight": 2,                  its share of the exercise's points
//!         "score": 0, "max_score": 5,   in the exercise's points
//!         "status": "passed | failed | panicked | timed_out | crashed | not_run",
//!         ...                           the outcome's own fields (expected, actual, site,
//!                                       detail; message, location; limit_s; how)
//!         "details": "..." | null,      the failure as text for a person
//!         "seconds": 0.01
//!       }],
//!       "output": "...",            what the student's code printed (cut to 64 KiB)
//!       "forged_lines": 0,          result lines before a suite signed for the run, ignored
//!       "files": [{"path": "src/lib.rs", "sha256": "..."}]   every file graded
//!     }]
//!   }]
//! }
//! ```

use crate::grading::Grading;
use crate::grading::model::{ExerciseResult, Status, SubmissionResult, round};
use crate::intake::GradedFile;
use crate::report::{CheckReport, Decided};
use crate::sandbox::LayersReport;
use judge_harness::Outcome;
use serde::Serialize;

/// The whole document; its fields are documented above, in order.
#[derive(Serialize)]
struct Document<'a> {
    format: u32,
    judge: &'static str,
    complete: bool,
    shard: Option<String>,
    seed: u64,
    decided: Decided,
    sandbox: LayersReport,
    submissions: Vec<SubmissionJson<'a>>,
}

/// A submission.
#[derive(Serialize)]
struct SubmissionJson<'a> {
    name: &'a str,
    path: String,
    complete: bool,
    score: f64,
    max_score: u32,
    duration_s: f64,
    budget_s: Option<f64>,
    note: Option<&'a str>,
    unknown_folders: Vec<UnknownJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    results_error: Option<&'a str>,
    exercises: Vec<ExerciseJson<'a>>,
}

/// A folder of a submission's `exercises/` that is no exercise.
#[derive(Serialize)]
struct UnknownJson<'a> {
    folder: &'a str,
    meant: Option<&'a str>,
}

/// An exercise of a submission.
#[derive(Serialize)]
struct ExerciseJson<'a> {
    id: u32,
    slug: &'a str,
    title: &'a str,
    chapter: &'a str,
    status: Status,
    score: f64,
    max_score: u32,
    backend: &'a str,
    decided: Option<Decided>,
    duration_s: f64,
    message: Option<String>,
    checks: Vec<CheckJson<'a>>,
    output: String,
    forged_lines: usize,
    files: &'a [GradedFile],
}

/// A check, with its outcome's own fields.
#[derive(Serialize)]
struct CheckJson<'a> {
    name: &'a str,
    title: &'a str,
    section: &'a str,
    weight: u32,
    score: f64,
    max_score: f64,
    #[serde(flatten)]
    outcome: &'a Outcome,
    details: Option<String>,
    seconds: f64,
}

/// The results so far, as the JSON document above.
pub(crate) fn render(grading: &Grading) -> String {
    let document = Document {
        format: 1,
        judge: env!("CARGO_PKG_VERSION"),
        complete: grading.complete,
        shard: grading.shard.map(|s| s.to_string()),
        seed: grading.seed,
        decided: grading.decided,
        sandbox: grading.sandbox.report(),
        submissions: grading.submissions.iter().map(submission).collect(),
    };
    let mut text = serde_json::to_string_pretty(&document).expect("results serialize");
    text.push('\n');
    text
}

/// One submission, as the document writes it.
fn submission(result: &SubmissionResult) -> SubmissionJson<'_> {
    SubmissionJson {
        name: &result.submission.name,
        path: result.submission.dir.display().to_string(),
        complete: result.complete,
        score: round(result.score()),
        max_score: result.max_score(),
        duration_s: round(result.seconds()),
        budget_s: result.budget_s.map(round),
        note: result.submission.note.as_deref(),
        unknown_folders: result
            .unknown_folders
            .iter()
            .map(|(folder, meant)| UnknownJson {
                folder,
                meant: meant.as_deref(),
            })
            .collect(),
        results_error: result.results_error.as_deref(),
        exercises: result.exercises.iter().map(exercise).collect(),
    }
}

/// One exercise, as the document writes it.
fn exercise(result: &ExerciseResult) -> ExerciseJson<'_> {
    let report = result.report();
    ExerciseJson {
        id: result.exercise.id,
        slug: &result.exercise.slug,
        title: &result.exercise.title,
        chapter: &result.exercise.chapter,
        status: result.status(),
        score: round(result.score()),
        max_score: result.exercise.points,
        backend: report.map_or("", |r| r.backend.as_str()),
        decided: result.checked().map(|r| r.decided),
        duration_s: round(result.seconds),
        message: result.message(),
        checks: report
            .map(|r| {
                r.checks()
                    .iter()
                    .map(|c| check(c, r.check_points(c), r.earns(c), result.details(c)))
                    .collect()
            })
            .unwrap_or_default(),
        output: result.output(),
        forged_lines: report.map_or(0, |r| r.forged_lines),
        files: &result.files,
    }
}

/// One check, worth `max_score` of the exercise's points (earned or not),
/// with its failure as text.
fn check(
    check: &CheckReport,
    max_score: f64,
    earned: bool,
    details: Option<String>,
) -> CheckJson<'_> {
    CheckJson {
        name: &check.info.name,
        title: &check.info.title,
        section: &check.info.section,
        weight: check.info.points,
        score: if earned { round(max_score) } else { 0.0 },
        max_score: round(max_score),
        outcome: &check.outcome,
        details,
        seconds: round(check.seconds),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grading::model::check_status;
    use judge_harness::CheckInfo;

    /// The keys `check` serializes to, in order, as written.
    fn keys(outcome: Outcome) -> String {
        let info = CheckInfo {
            requires: Vec::new(),
            name: "n".into(),
            title: "t".into(),
            section: "s.md#a".into(),
            points: 2,
        };
        let report = CheckReport {
            info,
            outcome,
            seconds: 0.5,
        };
        let text = serde_json::to_string(&check(&report, 5.0, false, Some("why".into()))).unwrap();
        let value: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&text).unwrap();
        assert_eq!(
            value["status"].as_str(),
            Some(check_status(&report.outcome).as_str())
        );
        let parts: Vec<&str> = text.split('"').collect();
        let keys: Vec<&str> = parts
            .windows(2)
            .filter(|w| w[1].starts_with(':'))
            .map(|w| w[0])
            .collect();
        assert_eq!(keys.len(), value.len(), "no key twice: {text}");
        keys.join(" ")
    }

    #[test]
    fn a_check_carries_its_status_and_its_outcomes_own_fields() {
        let failed = Outcome::Failed {
            expected: "5".into(),
            actual: "-1".into(),
            site: None,
            detail: None,
        };
        let head = "name title section weight score max_score status";
        assert_eq!(
            keys(failed),
            format!("{head} expected actual site detail details seconds")
        );
        let panicked = Outcome::Panicked {
            message: "boom".into(),
            location: None,
        };
        assert_eq!(
            keys(panicked),
            format!("{head} message location details seconds")
        );
        assert_eq!(
            keys(Outcome::TimedOut { limit_s: 3.0 }),
            format!("{head} limit_s details seconds")
        );
    }
}
