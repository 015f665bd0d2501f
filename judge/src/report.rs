//! Reports: what a run found, as data, and as text for a person.
//!
//! Over 400 lines with its unit tests (the code is about 470, the rendering
//! of a check told once for several among it): the data and its one
//! rendering for a person stay in one place, so a field and the line that
//! shows it change together.

use crate::book::Book;
use crate::manifest::Exercise;
use anstyle::{AnsiColor, Style};
use judge_harness::{Artifact, CheckInfo, Outcome};
use serde::Serialize;
use std::io::{self, Write};

/// One check's result.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct CheckReport {
    /// The check.
    #[serde(flatten)]
    pub(crate) info: CheckInfo,
    /// How it ended.
    pub(crate) outcome: Outcome,
    /// Wall time, in seconds.
    pub(crate) seconds: f64,
}

/// How far a run got.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "stage", rename_all = "snake_case")]
pub(crate) enum Stage {
    /// The crate did not compile.
    CompileError {
        /// The compiler's messages.
        log: String,
    },
    /// The harness could not run the suite at all.
    HarnessFailure {
        /// Why.
        reason: String,
    },
    /// The checks ran.
    Checked {
        /// Each check, in suite order.
        checks: Vec<CheckReport>,
    },
}

/// Where a run's verdicts were decided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Decided {
    /// In the judge's checker, with the learner's code in an agent: nothing
    /// the learner's code does in its own process can change a verdict.
    #[default]
    OutsideTheLearnersProcess,
    /// In the harness that runs the learner's code (`--in-process`, the
    /// audit switch): a verdict holds only as far as that code cannot
    /// reach the harness's memory (see the instructor guide's tampering
    /// section).
    InTheLearnersProcess,
}

impl Decided {
    /// One line for a person.
    pub(crate) fn explain(self) -> &'static str {
        match self {
            Self::OutsideTheLearnersProcess => {
                "decided in the judge's process, the learner's code in another"
            }
            Self::InTheLearnersProcess => {
                "decided in the learner's process (`--in-process`): the learner's code could reach them"
            }
        }
    }
}

/// Everything about one exercise's run.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct ExerciseReport {
    /// Exercise id.
    pub(crate) id: u32,
    /// Exercise title.
    pub(crate) title: String,
    /// The chapter that teaches it.
    pub(crate) chapter: String,
    /// Points the exercise is worth.
    pub(crate) max_points: u32,
    /// `cuda` or `virtual`.
    pub(crate) backend: String,
    /// Where its verdicts were decided.
    pub(crate) decided: Decided,
    /// How far it got.
    #[serde(flatten)]
    pub(crate) stage: Stage,
    /// What the learner's code printed.
    pub(crate) output: String,
    /// Result lines not signed with the run's nonce, ignored.
    pub(crate) forged_lines: usize,
    /// What the checks saved (timelines), for `judge run` to copy; no part
    /// of the results formats.
    #[serde(skip)]
    pub(crate) artifacts: Vec<Artifact>,
}

impl ExerciseReport {
    /// A report with no checks yet, for `exercise`.
    pub(crate) fn new(exercise: &Exercise, stage: Stage) -> Self {
        Self {
            id: exercise.id,
            title: exercise.title.clone(),
            chapter: exercise.chapter.clone(),
            max_points: exercise.points,
            backend: String::new(),
            decided: Decided::default(),
            stage,
            output: String::new(),
            forged_lines: 0,
            artifacts: Vec::new(),
        }
    }

    /// The checks that ran (none after a compile error).
    pub(crate) fn checks(&self) -> &[CheckReport] {
        match &self.stage {
            Stage::Checked { checks } => checks,
            _ => &[],
        }
    }

    /// True when every check passed.
    pub(crate) fn passed(&self) -> bool {
        matches!(&self.stage, Stage::Checked { checks } if !checks.is_empty() && checks.iter().all(|c| c.outcome.passed()))
    }

    /// Points earned: the exercise's points, split over the checks by
    /// their weights, of the checks that [`ExerciseReport::earns`].
    pub(crate) fn score(&self) -> f64 {
        let checks = self.checks();
        let total: u32 = checks.iter().map(|c| c.info.points).sum();
        if total == 0 {
            return 0.0;
        }
        let earned: u32 = checks
            .iter()
            .filter(|c| self.earns(c))
            .map(|c| c.info.points)
            .sum();
        f64::from(self.max_points) * f64::from(earned) / f64::from(total)
    }

    /// Whether `check` earns its points: it passed, and so did every check
    /// it requires (a check the untouched starter passes is guarded by one
    /// that tells the starter from work).
    pub(crate) fn earns(&self, check: &CheckReport) -> bool {
        check.outcome.passed() && self.waiting_for(check).is_empty()
    }

    /// The checks `check` requires that did not pass.
    pub(crate) fn waiting_for<'a>(&self, check: &'a CheckReport) -> Vec<&'a str> {
        let passed = |name: &str| {
            self.checks()
                .iter()
                .any(|c| c.info.name == name && c.outcome.passed())
        };
        check
            .info
            .requires
            .iter()
            .map(String::as_str)
            .filter(|name| !passed(name))
            .collect()
    }

    /// The points one check is worth, in the exercise's points.
    pub(crate) fn check_points(&self, check: &CheckReport) -> f64 {
        let total: u32 = self.checks().iter().map(|c| c.info.points).sum();
        if total == 0 {
            0.0
        } else {
            f64::from(self.max_points) * f64::from(check.info.points) / f64::from(total)
        }
    }
}

/// What an outcome says, as plain text: for a failure, what was expected,
/// what happened, where and the detail, one item a line; for the others,
/// one line. Grading formats and the author gate read this.
pub(crate) fn describe(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Passed => "passed".into(),
        Outcome::Failed { detail, .. } => {
            let mut text = failure_head(outcome).join("\n");
            if let Some(detail) = detail {
                text.push_str(&format!("\n{detail}"));
            }
            text
        }
        Outcome::Panicked { message, location } => {
            let at = location.map(|l| format!(" at {l}")).unwrap_or_default();
            format!("panicked{at}: {message}")
        }
        Outcome::TimedOut { limit_s } => {
            format!("did not finish within the exercise's {limit_s:.0} s limit")
        }
        Outcome::Crashed { how } => format!("the process died during this check: {how}"),
        Outcome::NotRun => "not run: the time limit had passed".into(),
        Outcome::JudgeFailed { message, .. } => judge_failed(message),
    }
}

/// What a check whose judge failed says: whose failure it is, and what to do.
pub(crate) fn judge_failed(message: &str) -> String {
    format!(
        "the judge failed during this check, not your code ({message}); no verdict was reached, so it earns no points yet: run it again, and if it fails again tell your instructor, whose judge log has the details"
    )
}

/// What a failed check says happened and why: its outcome without the
/// expectation (what happened, where, and the detail that explains it). A
/// known-wrong variant's `says:` must be found here, so that a variant never
/// counts as explained by the words of what the check expected.
pub(crate) fn diagnosis(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Failed {
            actual,
            site,
            detail,
            ..
        } => {
            let mut text = actual.clone();
            if let Some(site) = site {
                text.push_str(&format!("\nat: {site}"));
            }
            if let Some(detail) = detail {
                text.push_str(&format!("\n{detail}"));
            }
            text
        }
        other => describe(other),
    }
}

/// A failure's first lines: what was expected, what happened, and where
/// (none for another outcome).
fn failure_head(outcome: &Outcome) -> Vec<String> {
    let Outcome::Failed {
        expected,
        actual,
        site,
        ..
    } = outcome
    else {
        return Vec::new();
    };
    let mut lines = vec![
        format!("expected: {expected}"),
        format!("got:      {actual}"),
    ];
    lines.extend(site.iter().map(|site| format!("at:       {site}")));
    lines
}

const PASS: Style = AnsiColor::Green.on_default().bold();
const FAIL: Style = AnsiColor::Red.on_default().bold();
const DIM: Style = Style::new().dimmed();
const HEAD: Style = Style::new().bold();

/// Writes `report` for a person: a line per check, and for each failure
/// what was expected, what happened, where, and where the book explains it.
pub(crate) fn render(report: &ExerciseReport, book: &Book, out: &mut dyn Write) -> io::Result<()> {
    let backend = if report.backend.is_empty() {
        String::new()
    } else {
        format!(" {DIM}({} backend){DIM:#}", report.backend)
    };
    writeln!(
        out,
        "{HEAD}exercise {}: {}{HEAD:#}{backend}",
        report.id, report.title
    )?;
    match &report.stage {
        Stage::CompileError { log } => {
            writeln!(out, "  {FAIL}✗ your crate does not compile{FAIL:#}")?;
            for line in log.lines() {
                writeln!(out, "    {line}")?;
            }
        }
        Stage::HarnessFailure { reason } => {
            writeln!(out, "  {FAIL}✗ the checks could not run: {reason}{FAIL:#}")?
        }
        Stage::Checked { checks } => {
            for (i, check) in checks.iter().enumerate() {
                match first_with_the_same_block(&checks[..i], check) {
                    Some(first) => render_repeat(check, first, out)?,
                    None => render_check(check, &report.waiting_for(check), book, out)?,
                }
            }
        }
    }
    render_output(report, out)?;
    render_summary(report, out)
}

/// The earlier check that ended with the same panic, or the same failure
/// short of what it expected (one call of the learner's that failed and
/// stopped every check that needed it): its block is printed once.
fn first_with_the_same_block<'a>(
    earlier: &'a [CheckReport],
    check: &CheckReport,
) -> Option<&'a CheckReport> {
    let same = |a: &Outcome, b: &Outcome| match (a, b) {
        (
            Outcome::Failed {
                actual,
                site,
                detail,
                ..
            },
            Outcome::Failed {
                actual: actual_b,
                site: site_b,
                detail: detail_b,
                ..
            },
        ) => (actual, site, detail) == (actual_b, site_b, detail_b),
        (Outcome::Panicked { .. }, Outcome::Panicked { .. }) => a == b,
        _ => false,
    };
    earlier.iter().find(|e| same(&e.outcome, &check.outcome))
}

/// A check that ended as `first` did, above: one line that says it could
/// not run and why.
fn render_repeat(check: &CheckReport, first: &CheckReport, out: &mut dyn Write) -> io::Result<()> {
    let info = &check.info;
    writeln!(
        out,
        "  {FAIL}✗{FAIL:#} {} {DIM}{}{DIM:#}",
        info.name, info.title
    )?;
    let why = match &check.outcome {
        Outcome::Panicked { location, message } => {
            let at = location.map(|l| format!(" at {l}")).unwrap_or_default();
            if message.contains("not yet implemented") {
                format!("it stops at the same `todo!()`{at}")
            } else {
                format!("your code panicked{at}")
            }
        }
        Outcome::Failed { actual, .. } => first_sentence(actual),
        _ => String::new(),
    };
    writeln!(
        out,
        "      could not run: {why}, as told under `{}` above",
        first.info.name
    )
}

/// `text` up to the end of its first clause (a colon or a full stop), for
/// a one-line mention of a failure told in full above.
fn first_sentence(text: &str) -> String {
    let end = text
        .char_indices()
        .find(|&(i, c)| (c == ':' || c == '.') && text[i + 1..].starts_with(' '))
        .map_or(text.len(), |(i, _)| i);
    let head = &text[..end];
    if head.chars().count() > 100 {
        format!("{}…", head.chars().take(100).collect::<String>())
    } else {
        head.to_string()
    }
}

/// One check; `waiting` names the checks it requires that did not pass.
fn render_check(
    check: &CheckReport,
    waiting: &[&str],
    book: &Book,
    out: &mut dyn Write,
) -> io::Result<()> {
    let info = &check.info;
    if check.outcome.passed() {
        writeln!(
            out,
            "  {PASS}✓{PASS:#} {} {DIM}{}{DIM:#}",
            info.name, info.title
        )?;
        if !waiting.is_empty() {
            let names: Vec<String> = waiting.iter().map(|n| format!("`{n}`")).collect();
            writeln!(
                out,
                "      {DIM}│{DIM:#} the untouched starter passes this one too, so it counts toward your grade only once {} passes as well",
                names.join(" and ")
            )?;
        }
        return Ok(());
    }
    writeln!(
        out,
        "  {FAIL}✗{FAIL:#} {} {DIM}{}{DIM:#}",
        info.name, info.title
    )?;
    match &check.outcome {
        Outcome::Failed { detail, .. } => {
            for line in failure_head(&check.outcome) {
                writeln!(out, "      {line}")?;
            }
            for line in detail.iter().flat_map(|d| d.lines()) {
                writeln!(out, "      {DIM}│{DIM:#} {line}")?;
            }
        }
        Outcome::Panicked { message, location } => {
            let at = location.map(|l| format!(" at {l}")).unwrap_or_default();
            writeln!(out, "      panicked{at}: {message}")?;
            if message.contains("not yet implemented") {
                writeln!(
                    out,
                    "      (a `todo!()` is still there: that part is yours to write, and every check that reaches it stops there: start with it)"
                )?;
            }
        }
        Outcome::TimedOut { limit_s } => writeln!(
            out,
            "      did not finish within the exercise's {limit_s:.0} s limit (an endless loop, or a wait that never ends?)"
        )?,
        Outcome::JudgeFailed { message, .. } => writeln!(out, "      {}", judge_failed(message))?,
        Outcome::Crashed { how } => {
            writeln!(out, "      the process died during this check: {how}")?
        }
        Outcome::NotRun => writeln!(out, "      not run: the time limit had passed")?,
        Outcome::Passed => {}
    }
    writeln!(
        out,
        "      {DIM}explained in: {}{DIM:#}",
        book.place(&info.section)
    )
}

fn render_output(report: &ExerciseReport, out: &mut dyn Write) -> io::Result<()> {
    if report.forged_lines > 0 {
        writeln!(
            out,
            "  {FAIL}note:{FAIL:#} {} result line(s) not signed for this run were ignored",
            report.forged_lines
        )?;
    }
    if report.output.trim().is_empty() {
        return Ok(());
    }
    writeln!(out, "  {DIM}output of your code:{DIM:#}")?;
    for line in report.output.lines().take(40) {
        writeln!(out, "  {DIM}│{DIM:#} {line}")?;
    }
    Ok(())
}

fn render_summary(report: &ExerciseReport, out: &mut dyn Write) -> io::Result<()> {
    let checks = report.checks();
    let passed = checks.iter().filter(|c| c.outcome.passed()).count();
    if report.passed() {
        writeln!(out, "{PASS}all {} checks passed{PASS:#}", checks.len())
    } else if checks.is_empty() {
        writeln!(out, "{FAIL}not passed{FAIL:#}")
    } else {
        writeln!(
            out,
            "{FAIL}{passed} of {} checks passed{FAIL:#}; read the chapter sections named above",
            checks.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn check(name: &str, points: u32, passed: bool, requires: &[&str]) -> CheckReport {
        CheckReport {
            info: CheckInfo {
                name: name.into(),
                title: String::new(),
                section: String::new(),
                points,
                requires: requires.iter().map(|r| r.to_string()).collect(),
            },
            outcome: match passed {
                true => Outcome::Passed,
                false => Outcome::NotRun,
            },
            seconds: 0.0,
        }
    }

    fn report(checks: Vec<CheckReport>) -> ExerciseReport {
        let mut report = ExerciseReport {
            max_points: 100,
            ..ExerciseReport::new(
                &toml::from_str(
                    "id = 105\nslug = \"s\"\ntitle = \"t\"\nchapter = \"c.md\"\ndifficulty = 1\npoints = 100\ntimeout_s = 1\nlib = \"l\"\nhints = [\"h\"]\n",
                )
                .unwrap(),
                Stage::Checked { checks: Vec::new() },
            )
        };
        report.stage = Stage::Checked { checks };
        report
    }

    fn failed(name: &str, outcome: Outcome) -> CheckReport {
        CheckReport {
            outcome,
            ..check(name, 10, false, &[])
        }
    }

    fn call_failed(expected: &str) -> Outcome {
        Outcome::Failed {
            expected: expected.into(),
            actual: "`step 3` failed: an invalid argument. The rest of the text".into(),
            site: None,
            detail: Some("what the error means\nand what to do".into()),
        }
    }

    #[test]
    fn a_failed_call_or_a_todo_is_told_once_and_the_checks_it_stopped_say_so_in_a_line() {
        let todo = Outcome::Panicked {
            message: "not yet implemented: malloc".into(),
            location: None,
        };
        let report = report(vec![
            failed("tokens", call_failed("the tokens")),
            failed("replays", call_failed("one replay a step")),
            failed("first_todo", todo.clone()),
            failed("second_todo", todo),
            failed(
                "other",
                Outcome::Failed {
                    expected: "x".into(),
                    actual: "another cause".into(),
                    site: None,
                    detail: None,
                },
            ),
        ]);
        let mut text = Vec::new();
        render(&report, &Book::of(Path::new("/nonexistent")), &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let plain = anstream::adapter::strip_str(&text).to_string();
        insta::assert_snapshot!(plain);
    }

    #[test]
    fn a_guarded_check_earns_its_points_only_with_the_check_it_requires() {
        let starter = report(vec![
            check("right_results", 25, true, &["overlaps"]),
            check("overlaps", 75, false, &[]),
        ]);
        assert_eq!(
            starter.score(),
            0.0,
            "the starter's right results earn nothing"
        );
        assert_eq!(starter.waiting_for(&starter.checks()[0]), ["overlaps"]);
        let solved = report(vec![
            check("right_results", 25, true, &["overlaps"]),
            check("overlaps", 75, true, &[]),
        ]);
        assert_eq!(solved.score(), 100.0);
        let half = report(vec![
            check("right_results", 25, false, &["overlaps"]),
            check("overlaps", 75, true, &[]),
        ]);
        assert_eq!(half.score(), 75.0);
    }
}
