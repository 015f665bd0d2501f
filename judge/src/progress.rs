//! The learner's progress: a plain file, `.judge-progress`, one line per
//! exercise run (`101 passed`, `102 failing`). Unknown ids and unreadable
//! lines are ignored, so an old file never stops the judge.

use crate::course::Course;
use anyhow::{Context, Result};
use std::collections::BTreeMap;

/// Where an exercise stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// Never run.
    NotStarted,
    /// Run, and some check failed.
    Failing,
    /// Run, and every check passed.
    Passed,
}

impl Status {
    /// How `judge list` shows it.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Self::NotStarted => "not started",
            Self::Failing => "failing",
            Self::Passed => "passed",
        }
    }
}

/// The recorded status of every exercise the manifest knows.
pub(crate) fn load(course: &Course) -> BTreeMap<u32, Status> {
    let text = std::fs::read_to_string(course.progress_file()).unwrap_or_default();
    let known: Vec<u32> = course.manifest.exercises.iter().map(|e| e.id).collect();
    let mut statuses: BTreeMap<u32, Status> =
        known.iter().map(|&id| (id, Status::NotStarted)).collect();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let (Some(id), Some(word)) = (
            words.next().and_then(|w| w.parse::<u32>().ok()),
            words.next(),
        ) else {
            continue;
        };
        let status = match word {
            "passed" => Status::Passed,
            "failing" => Status::Failing,
            _ => continue,
        };
        if let Some(slot) = statuses.get_mut(&id) {
            *slot = status;
        }
    }
    statuses
}

/// Records the outcome of running exercise `id`.
pub(crate) fn record(course: &Course, id: u32, passed: bool) -> Result<()> {
    let mut statuses = load(course);
    statuses.insert(
        id,
        if passed {
            Status::Passed
        } else {
            Status::Failing
        },
    );
    let mut text = String::from("# judge progress: one line per exercise you ran\n");
    for (id, status) in statuses.iter().filter(|(_, s)| **s != Status::NotStarted) {
        text.push_str(&format!("{id} {}\n", status.label()));
    }
    let path = course.progress_file();
    std::fs::write(&path, text)
        .with_context(|| format!("cannot write the progress file `{}`", path.display()))
}
