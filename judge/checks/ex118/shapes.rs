//! Other shapes: depth 1, a depth larger than the step count, and no step.

use super::flight::bounded;
use super::order::{finished_on_return, in_order};
use super::waits::oldest_only;
use super::workload::{STEPS, submitted};
use judge_harness::{Ctx, Failure};

/// The shapes the check tries: (steps, depth).
pub(super) const SHAPES: [(usize, usize); 3] = [(STEPS, 1), (STEPS, STEPS + 4), (0, 2)];

pub(super) fn other_shapes_are_followed(ctx: &Ctx) -> Result<(), Failure> {
    for (steps, depth) in SHAPES {
        let submission = submitted(ctx, steps, depth)?;
        let shape = |f: Failure| {
            let actual = format!("with {steps} steps at depth {depth}: {}", f.actual);
            Failure { actual, ..f }
        };
        in_order(&submission).map_err(shape)?;
        bounded(&submission).map_err(shape)?;
        oldest_only(&submission).map_err(shape)?;
        finished_on_return(&submission).map_err(shape)?;
    }
    Ok(())
}
