//! `judge reset ID`: puts back the starter code of an exercise, keeping a
//! backup of the learner's crate ([`crate::starter`] says how).

use crate::course::Course;
use crate::exit;
use crate::starter;
use anyhow::Result;
use std::path::Path;

/// Backs up the crate of exercise `id`, then restores its starter code.
pub(crate) fn reset(root: Option<&Path>, id: &str) -> Result<u8> {
    let course = Course::open(root)?;
    let exercise = course.manifest.get(id)?.clone();
    for line in starter::reset(&course, &exercise)?.lines() {
        println!("{line}");
    }
    Ok(exit::OK)
}
