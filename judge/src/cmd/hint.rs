//! `judge hint ID [--level N]`: hints in increasing detail.

use crate::course::Course;
use crate::exit;
use crate::usage::Usage;
use anyhow::Result;
use std::path::Path;

/// Prints hints 1 to `level` of the exercise.
pub(crate) fn hint(root: Option<&Path>, id: &str, level: usize) -> Result<u8> {
    let course = Course::open(root)?;
    let exercise = course.manifest.get(id)?;
    let count = exercise.hints.len();
    if level == 0 || level > count {
        return Err(Usage(format!(
            "exercise {} has hints at levels 1 to {count}; `--level {level}` is not one of them: try `--level {count}`",
            exercise.id
        ))
        .into());
    }
    for (i, hint) in exercise.hints.iter().take(level).enumerate() {
        println!("hint {} of {count}: {hint}", i + 1);
    }
    if level < count {
        println!(
            "(more detail: `judge hint {} --level {}`)",
            exercise.id,
            level + 1
        );
    }
    Ok(exit::OK)
}
