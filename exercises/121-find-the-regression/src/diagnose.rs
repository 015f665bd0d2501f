//! Part 1: name what made a step slower, from its profile before and after.
//!
//! Both traces are one step of the same engine, run on the same GPU; the
//! `after` one is slower because of one change, one of the four kinds of
//! [`Regression`]. Every entry's `blocking` is `None`, as in a real
//! profile: read the waits from the CPU's row against the GPU's rows.
//! Compare the two traces with each other (counts, overlaps, which calls
//! wait), never with a fixed number of microseconds: the judge runs the
//! pairs on its own GPU.

use crate::Regression;
use gpu::Trace;

/// What made the step of `after` slower than the same step in `before`,
/// and where, in `after`.
pub fn diagnose(before: &Trace, after: &Trace) -> Regression {
    // TODO: look for each regression in turn, comparing `after` with
    // `before` (see README.md), and point at it.
    let _ = (before, after);
    todo!()
}
