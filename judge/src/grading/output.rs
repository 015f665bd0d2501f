//! Where the results go. They are rewritten after each exercise, each time
//! whole and valid (written to a temporary file beside the target, then
//! renamed over it), so a grading run that is stopped keeps every exercise
//! it finished, and a reader never sees half a file.

use crate::files::write_atomically;
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
        })
    }

    /// Where the results are.
    pub(crate) fn place(&self) -> &Path {
        &self.place
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
