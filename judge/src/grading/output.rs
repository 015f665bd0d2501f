//! Where the results go. They are rewritten after each exercise, each time
//! whole and valid (written to a temporary file beside the target, then
//! renamed over it), so a grading run that is stopped keeps every exercise
//! it finished, and a reader never sees half a file. A class's results
//! have the gradebook and the class report beside them ([`Derived`]),
//! rewritten after each submission.
//!
//! A class in Gradescope's format has a file per submission, named by the
//! judge ([`names`]). One of those that cannot be written is that
//! submission's error, recorded in its result (and so in the class
//! report); the class goes on.

mod names;

use crate::files::write_atomically;
use crate::grading::class::{self, Results};
use crate::grading::model::SubmissionResult;
use crate::grading::{Format, Grading, gradescope, json, junit};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The results' format and place.
#[derive(Debug)]
pub(crate) struct Sink {
    /// The format.
    format: Format,
    /// A file, or (Gradescope, a class) a folder of a file per submission.
    place: PathBuf,
    /// Whether `place` is a folder with a file per submission.
    per_submission: bool,
    /// Whether a class is graded (its gradebook and report are written).
    class: bool,
    /// With a file per submission, each submission's, in the class's
    /// order (named once the class is known).
    files: OnceLock<Vec<PathBuf>>,
}

/// The files made from a class's results, beside them: for results
/// `STEM.json` (or `STEM.xml`, or the folder `STEM`), `STEM.gradebook.csv`,
/// `STEM.report.md` and `STEM.report.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Derived {
    /// The gradebook (CSV).
    pub(crate) gradebook: PathBuf,
    /// The class report in Markdown.
    pub(crate) markdown: PathBuf,
    /// The class report in JSON.
    pub(crate) json: PathBuf,
}

impl Derived {
    /// The files beside the results at `place`.
    pub(crate) fn beside(place: &Path, folder: bool) -> Self {
        let stem = match folder {
            true => place.to_path_buf(),
            false => place.with_extension(""),
        };
        let with = |suffix: &str| {
            let mut name = stem.as_os_str().to_os_string();
            name.push(suffix);
            PathBuf::from(name)
        };
        Self {
            gradebook: with(".gradebook.csv"),
            markdown: with(".report.md"),
            json: with(".report.json"),
        }
    }

    /// Writes the gradebook and the report of `results`.
    pub(crate) fn write(&self, results: &Results) -> Result<()> {
        let report = class::report(results);
        let mut json = serde_json::to_string_pretty(&report).expect("a report serializes");
        json.push('\n');
        write_atomically(&self.gradebook, &class::gradebook(results))?;
        write_atomically(&self.markdown, &class::markdown(&report))?;
        write_atomically(&self.json, &json)
    }

    /// The three files, in the order written.
    pub(crate) fn paths(&self) -> [&Path; 3] {
        [&self.gradebook, &self.markdown, &self.json]
    }
}

impl Sink {
    /// Where `format` goes: `out`, or the format's default name here.
    pub(crate) fn new(format: Format, out: Option<&Path>, class: bool) -> Result<Self> {
        let per_submission = class && format == Format::Gradescope;
        let default = match format {
            Format::Json => "grade.json",
            Format::Junit => "grade.xml",
            Format::Gradescope if per_submission => "results",
            Format::Gradescope => "results.json",
        };
        let place = out.map_or_else(|| PathBuf::from(default), Path::to_path_buf);
        let folder = if per_submission {
            Some(place.as_path())
        } else {
            place.parent()
        };
        if let Some(folder) = folder.filter(|f| !f.as_os_str().is_empty()) {
            std::fs::create_dir_all(folder).with_context(|| {
                format!(
                    "cannot create the results folder `{}`; pass another with `--out`",
                    folder.display()
                )
            })?;
        }
        Ok(Self {
            format,
            place,
            per_submission,
            class,
            files: OnceLock::new(),
        })
    }

    /// Every file written: the results, and for a class its gradebook and
    /// report.
    pub(crate) fn written(&self) -> Vec<PathBuf> {
        let mut files = vec![self.place.clone()];
        if let Some(derived) = self.derived() {
            files.extend(derived.paths().map(Path::to_path_buf));
        }
        files
    }

    /// The gradebook and report's files, for a class.
    fn derived(&self) -> Option<Derived> {
        self.class
            .then(|| Derived::beside(&self.place, self.per_submission))
    }

    /// Writes the class's gradebook and report as the results stand (for
    /// one submission, nothing).
    pub(crate) fn save_class(&self, grading: &Grading) -> Result<()> {
        let Some(derived) = self.derived() else {
            return Ok(());
        };
        let results = Results::parse(&json::render(grading), "the results")?;
        derived.write(&results)
    }

    /// Writes the results as they stand, after a change to submission
    /// `current`. Fails when the results cannot be written, except a
    /// submission's own file of a class, whose failure is recorded in its
    /// result ([`SubmissionResult::results_error`]).
    pub(crate) fn save(&self, grading: &mut Grading, current: usize) -> Result<()> {
        match self.format {
            Format::Json => write_atomically(&self.place, &json::render(grading)),
            Format::Junit => write_atomically(&self.place, &junit::render(grading)),
            Format::Gradescope if current >= grading.submissions.len() => Ok(()),
            Format::Gradescope if self.per_submission => {
                let path = self.file(grading, current).to_path_buf();
                grading.submissions[current].results_error = None;
                let written = write_atomically(&path, &gradescope::render(grading, current));
                let error = written
                    .err()
                    .map(|e| unwritten(&path, &grading.submissions[current], &e));
                grading.submissions[current].results_error = error;
                Ok(())
            }
            Format::Gradescope => {
                write_atomically(&self.place, &gradescope::render(grading, current))
            }
        }
    }

    /// The file of submission `current`, of a class with a file per
    /// submission.
    fn file(&self, grading: &Grading, current: usize) -> &Path {
        let files = self.files.get_or_init(|| {
            let names = grading
                .submissions
                .iter()
                .map(|s| s.submission.name.as_str());
            names::stems(names)
                .into_iter()
                .map(|stem| self.place.join(format!("{stem}.json")))
                .collect()
        });
        &files[current]
    }

    /// Writes the results of every submission.
    pub(crate) fn save_all(&self, grading: &mut Grading) -> Result<()> {
        match self.per_submission {
            true => {
                (0..grading.submissions.len()).try_for_each(|current| self.save(grading, current))
            }
            false => self.save(grading, 0),
        }
    }
}

/// Why `result`'s own results file `path` could not be written (`err`),
/// and what to do.
fn unwritten(path: &Path, result: &SubmissionResult, err: &anyhow::Error) -> String {
    format!(
        "the results file `{file}` of this submission could not be written ({err:#}); the class went on without it: once `{folder}` can take it (the right to write there, space on its disk), grade this submission again with `judge grade --submission {dir} --format gradescope --out {file}`",
        file = path.display(),
        folder = path.parent().unwrap_or(Path::new(".")).display(),
        dir = result.submission.dir.display(),
    )
}

#[cfg(test)]
mod tests;
