//! Where the results go. They are rewritten after each exercise, each time
//! whole and valid (written to a temporary file beside the target, then
//! renamed over it), so a grading run that is stopped keeps every exercise
//! it finished, and a reader never sees half a file. A class's results
//! have the gradebook and the class report beside them ([`Derived`]),
//! rewritten after each submission.

use crate::files::write_atomically;
use crate::grading::class::{self, Results};
use crate::grading::{Format, Grading, gradescope, json, junit};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The results' format and place.
#[derive(Debug)]
pub(crate) struct Sink {
    /// The format.
    format: Format,
    /// A file, or (Gradescope, a class) a folder of `NAME.json` files.
    place: PathBuf,
    /// Whether `place` is a folder with a file per submission.
    per_submission: bool,
    /// Whether a class is graded (its gradebook and report are written).
    class: bool,
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

    /// Writes the results as they stand, after a change to submission `current`.
    pub(crate) fn save(&self, grading: &Grading, current: usize) -> Result<()> {
        match self.format {
            Format::Json => write_atomically(&self.place, &json::render(grading)),
            Format::Junit => write_atomically(&self.place, &junit::render(grading)),
            Format::Gradescope => {
                let Some(result) = grading.submissions.get(current) else {
                    return Ok(());
                };
                let path = match self.per_submission {
                    true => self.place.join(format!("{}.json", result.submission.name)),
                    false => self.place.clone(),
                };
                write_atomically(&path, &gradescope::render(grading, current))
            }
        }
    }

    /// Writes the results of every submission.
    pub(crate) fn save_all(&self, grading: &Grading) -> Result<()> {
        match self.per_submission {
            true => {
                (0..grading.submissions.len()).try_for_each(|current| self.save(grading, current))
            }
            false => self.save(grading, 0),
        }
    }
}
