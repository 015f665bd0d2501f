//! Other shapes: depth 1, a depth larger than the step count, and no step.

use super::flight::bounded;
use super::order::{finished_on_return, in_order};
use super::waits::oldest_only;
use super::workload::{STEPS, submitted};
use judge_harness::bridge::unless_it_panics;
use judge_harness::{Ctx, Failure};

/// The shapes the check tries: (steps, depth).
pub(super) const SHAPES: [(usize, usize); 3] = [(STEPS, 1), (STEPS, STEPS + 4), (0, 2)];

pub(super) fn other_shapes_are_followed(ctx: &Ctx) -> Result<(), Failure> {
    for (steps, depth) in SHAPES {
        let submission = unless_it_panics(|| submitted(ctx, steps, depth)).map_err(|panic| {
            let rule = if steps == 0 {
                "with no step at all, `submit` calls nothing and returns: no event was recorded, so the wait at the end is for the last step's event only if there is one (`if let Some(last) = in_flight.back()`)"
            } else {
                "`submit` follows the same rules at every depth"
            };
            Failure::new(
                format!("`submit` to return with {steps} steps at depth {depth}"),
                format!("with {steps} steps at depth {depth}, `submit` panicked: {panic}"),
            )
            .detail(format!("{rule}; see cpu-and-gpu.md#why-the-cpu-ever-waits"))
        })??;
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
