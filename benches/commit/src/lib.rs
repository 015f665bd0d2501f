//! The git commit the measuring programs were built from.
//!
//! The examples of `gpu` and `workbook-benches` print the provenance of their
//! figures first (`gpu::MeasurementHeader`), and its `commit:` line is
//! [`COMMIT`]: taken when the program is *built*, since the binaries may be
//! built on one machine and run on a GPU machine that has no git. The book's
//! checks (`book-check`) compare it with the history of the code measured.
//!
//! The build script runs `git rev-parse --short=12 HEAD` and adds `-dirty`
//! when `git status` shows changes under `gpu/`, `benches/`, `solutions/` or
//! in `Cargo.lock`; it runs again after a commit, a checkout, `git add` or an
//! edit there. `WORKBOOK_COMMIT=<commit>` at build time names the commit
//! instead (a build outside the repository); without either, it is
//! `unknown`, with a warning.
//!
//! Only the examples depend on this crate (a dev-dependency), so that a
//! commit rebuilds this crate and relinks them, never the `gpu` library nor
//! what is built on it.

mod describe;

pub use describe::{MEASURED, OVERRIDE, UNKNOWN, describe, watched};

/// The commit the workspace was built from: 12 hex digits, `-dirty` when the
/// measured code had uncommitted changes, or what `WORKBOOK_COMMIT` said.
pub const COMMIT: &str = env!("WORKBOOK_BUILT_FROM");

#[cfg(test)]
mod tests;
