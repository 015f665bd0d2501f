//! A run may stop before `max_steps`: `Config::max_steps` is the most
//! steps the decoding will be asked to run, not how many it runs. After 8
//! of its 16 steps, and after none, the report holds the steps that ran:
//! each output cut from their predictions, the requests that finished in
//! them, and one step time per step that ran.

use super::report::is_the_reference;
use super::support::{Run, STEPS, run_steps};
use judge_harness::{Ctx, Failure};

/// The steps of the shorter run (of `max_steps` [`STEPS`]).
pub(super) const SHORT: usize = STEPS / 2;

/// What the check expects, in words.
const EXPECTED: &str = "after 8 of `max_steps` 16 steps, and after none, a report of the steps that ran: each output from their predictions, the requests finished in them, one step time per step";

pub(super) fn a_run_may_stop_before_max_steps(ctx: &Ctx) -> Result<(), Failure> {
    for steps in [SHORT, 0] {
        reports_the_steps_run(&run_steps(ctx, steps)?, steps)?;
    }
    Ok(())
}

/// The check on one run of `steps` steps.
pub(super) fn reports_the_steps_run(run: &Run, steps: usize) -> Result<(), Failure> {
    let got = &run.report;
    let run_of = format!("a run of {steps} of its `max_steps` {STEPS} steps");
    if let Some(r) = (0..got.outputs.len()).find(|&r| got.outputs[r].len() > steps) {
        return Err(Failure::new(
            EXPECTED,
            format!(
                "after {run_of}, request {r}'s output is {:?}: {} predictions, more than the steps that ran, the rest what the history held before the run. `finish` built the outputs from `max_steps` rows of the history; a run may stop before `max_steps` (it is the most steps the decoding will be asked to run), so read and cut only the rows of the steps that ran (as many as `step` was called)",
                got.outputs[r],
                got.outputs[r].len()
            ),
        ));
    }
    if got.step_ms.len() != steps {
        return Err(Failure::new(
            EXPECTED,
            format!(
                "after {run_of}, {} step times: one per step that ran, not one per step of `max_steps`",
                got.step_ms.len()
            ),
        ));
    }
    is_the_reference(run).map_err(|f| Failure {
        expected: EXPECTED.into(),
        actual: format!("after {run_of}: {}", f.actual),
        ..f
    })
}
