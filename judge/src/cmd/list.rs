//! `judge list`: every exercise in the book's order, with its chapter and
//! status, and the progress bar ([`crate::listing`] draws the table).

use crate::course::Course;
use crate::exit;
use crate::listing;
use crate::progress;
use anyhow::Result;
use std::path::Path;

/// Prints the exercise table.
pub(crate) fn list(root: Option<&Path>) -> Result<u8> {
    let course = Course::open(root)?;
    let statuses = progress::load(&course);
    listing::write(&course, &statuses, None, &mut anstream::stdout())?;
    Ok(exit::OK)
}
