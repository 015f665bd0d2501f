//! The tokens: every prompt's list equals the reference, in order; when it
//! does not, a race behind it is named first, then the shape of the
//! difference (a list one step ahead: the newest slot read).

use super::slots::race_cause;
use super::support::{PROMPTS, STEPS, chosen, reference, setup};
use judge_harness::{Ctx, Failure};
use std::time::Duration;

/// The runs of the check: the main one, one step of one prompt, no step.
const RUNS: [(&[i32], usize); 3] = [(&PROMPTS, STEPS), (&[17], 1), (&PROMPTS, 0)];

pub(super) fn tokens_match_the_reference(ctx: &Ctx) -> Result<(), Failure> {
    let (device, stream, decoder) = setup(ctx)?;
    for (prompts, steps) in RUNS {
        device.clear_trace();
        let got = chosen()(&stream, &decoder, prompts, steps, Duration::ZERO)?;
        stream.synchronize()?;
        let race = device.take_races().into_iter().next();
        let want = reference(&decoder, prompts, steps);
        let failure = match (compare(prompts, steps, &want, &got), race) {
            (Ok(()), None) => continue,
            (result, Some(race)) => {
                let (cause, site) = race_cause(&device.trace().entries, &race);
                let how = if result.is_ok() {
                    "the tokens came out right in this run, but only because the GPU happened to finish first"
                } else {
                    "the tokens read are not the ones the steps chose"
                };
                Failure::new(expected(prompts, steps), format!("{how}: {cause}"))
                    .at(site)
                    .detail(race.to_string())
            }
            (Err(failure), None) => failure,
        };
        return Err(Failure {
            actual: format!(
                "with {} prompt(s) and {steps} step(s): {}",
                prompts.len(),
                failure.actual
            ),
            ..failure
        });
    }
    Ok(())
}

/// What `compare` expects, in words.
fn expected(prompts: &[i32], steps: usize) -> String {
    format!(
        "{} list(s) of {steps} token(s), one per prompt, each the decoder's greedy choice after the token before it (the prompt first)",
        prompts.len()
    )
}

/// Why every list is one step ahead, told by the last token read: after
/// the loop, the last `read` finds the last step's tokens when `read`
/// takes the newest slot, and the step before's when `queue` and `read`
/// disagree by one about a step's slot, which the tokens alone cannot pin
/// on either (`queue` filling slot (s + 1) % 2, or `read` moving its
/// counter before it takes the slot): both are named, with how to tell.
fn one_step_ahead(steps: usize, want: &[Vec<i32>], got: &[Vec<i32>]) -> String {
    let last = |k: usize| (0..want.len()).all(|i| got[i][steps - 1] == want[i][k]);
    if last(steps - 2) {
        format!(
            "every list is one step ahead, and its last token is step {}'s, read after step {}'s: `queue` and `read` disagree by one about the slot of a step, so each read in the loop found the step queued just before it, and the last one the older slot. The tokens fit either of two slips: `queue` putting step s's tokens into slot (s + 1) % 2 (or counting with `read`), or `read` moving its counter before it takes the slot. Step s's tokens belong in slot s % 2: `queue` fills slot `queued % 2`, and `read` takes slot `read % 2`, then moves `read` on",
            steps - 2,
            steps - 1
        )
    } else if last(steps - 1) {
        "every list is one step ahead: the tokens read after step s + 1's launch are step s + 1's, not step s's. `read` reads the oldest slot not read yet (slot `read % 2`, its event waited for), not the newest one".into()
    } else {
        "every list is one step ahead: each read in the loop found the tokens of the step queued just before it, not the oldest ones not read yet. Either `read` takes the newest slot, or `queue` fills another slot than the one `read` takes for the same step; both count steps from 0, step s's tokens in slot s % 2".into()
    }
}

/// `Ok` when `got` is the reference (`want`); otherwise the cause the
/// difference points to.
pub(super) fn compare(
    prompts: &[i32],
    steps: usize,
    want: &[Vec<i32>],
    got: &[Vec<i32>],
) -> Result<(), Failure> {
    if got == want {
        return Ok(());
    }
    let fail = |actual: String| Err(Failure::new(expected(prompts, steps), actual));
    if got.len() != want.len() {
        return fail(format!(
            "{} list(s) for {} prompt(s): `generate` returns one list per prompt, in the order of the prompts",
            got.len(),
            want.len()
        ));
    }
    if let Some((i, list)) = got.iter().enumerate().find(|(_, l)| l.len() != steps) {
        return fail(format!(
            "prompt {i}'s list has {} token(s) for {steps} step(s): each step's tokens are read once, one `read` per `queue`, the last step's after the loop",
            list.len()
        ));
    }
    let ahead = steps > 1 && (0..want.len()).all(|i| got[i][..steps - 1] == want[i][1..]);
    if ahead {
        return fail(one_step_ahead(steps, want, got));
    }
    let (i, s) = (0..steps)
        .flat_map(|s| (0..want.len()).map(move |i| (i, s)))
        .find(|&(i, s)| got[i][s] != want[i][s])
        .unwrap_or((0, 0));
    let late = s >= 1 && got[i][s] == want[i][s - 1];
    let cause = if got[i][s] == 0 && want[i][s] != 0 {
        "a slot read before any copy landed in it (a zeroed slot): each `read` takes the slot its `queue` filled, after that slot's event"
    } else if late {
        "the tokens of the step before: a slot read before this step's copy landed in it, or the wrong slot read"
    } else {
        "not this step's tokens: each `read` takes the slot its `queue` filled, step s's tokens in slot s % 2"
    };
    fail(format!(
        "prompt {i}, step {s}: {} where the decoder chose {}: {cause}",
        got[i][s], want[i][s]
    ))
}
