//! The tokens: every request's output equals the reference, and no result is
//! read before its copy is known to be done.

use super::support::{CPU_STEP, EOS, mixed_batch, reference, setup};
use judge_harness::{Ctx, Failure};

/// Why `got` differs from `want` for one request, in words.
fn difference(want: &[i32], got: &[i32]) -> String {
    let common = want.iter().zip(got).take_while(|(a, b)| a == b).count();
    if want.is_empty() && !got.is_empty() {
        return format!(
            "{} token(s) for a request with max_new_tokens = 0: it is finished before the first step (its finished flag starts from max_new_tokens == 0), so it gets none",
            got.len()
        );
    }
    if got.len() > want.len() && common == want.len() {
        let after_eos = want.last() == Some(&EOS);
        return if after_eos {
            format!(
                "{} token(s) after EOS: the request was finished one step late (a done flag read a step too late, or computed from the step's input instead of its output)",
                got.len() - want.len()
            )
        } else {
            format!(
                "{} token(s) beyond max_new_tokens = {}",
                got.len() - want.len(),
                want.len()
            )
        };
    }
    if got.len() < want.len() && common == got.len() {
        return format!(
            "{} token(s) missing at the end: the request was finished too early",
            want.len() - got.len()
        );
    }
    format!(
        "the tokens differ from position {common} on: results read from the wrong step or before their copy was done"
    )
}

pub(super) fn outputs_match_the_reference(ctx: &Ctx) -> Result<(), Failure> {
    let (_device, stream, decoder) = setup(ctx)?;
    let batch = mixed_batch();
    let want = reference(&decoder, &batch);
    let got = overlap_sampler::generate(&stream, &decoder, &batch, CPU_STEP)?;
    if got.len() != want.len() {
        return Err(Failure::new(
            format!("one output per request ({})", want.len()),
            format!("{} outputs", got.len()),
        ));
    }
    let wrong: Vec<String> = want
        .iter()
        .zip(&got)
        .enumerate()
        .filter(|(_, (w, g))| w != g)
        .map(|(i, (w, g))| {
            let r = batch.requests[i];
            format!(
                "request {i} (prompt {}, max_new_tokens {}): expected {w:?}, got {g:?}: {}",
                r.prompt,
                r.max_new_tokens,
                difference(w, g)
            )
        })
        .collect();
    if wrong.is_empty() {
        return Ok(());
    }
    Err(Failure::new(
        format!(
            "each request's tokens up to and including EOS (token {EOS}), or up to max_new_tokens"
        ),
        format!("{} of {} requests differ", wrong.len(), want.len()),
    )
    .detail(wrong.join("\n")))
}

pub(super) fn results_are_read_after_their_copy(ctx: &Ctx) -> Result<(), Failure> {
    let (device, stream, decoder) = setup(ctx)?;
    overlap_sampler::generate(&stream, &decoder, &mixed_batch(), CPU_STEP)?;
    let races = device.take_races();
    let Some(first) = races.first() else {
        return Ok(());
    };
    let failure = Failure::new(
        "every pinned slot read by the CPU only after the event recorded after its copies, and not overwritten by a later step's copy while it is read",
        format!(
            "the race checker found {} race(s): the CPU read a pinned buffer that a copy queued on the GPU may still be writing (a copy not yet waited for, or the next step's copy into the same buffer)",
            races.len()
        ),
    )
    .at(first.current.site)
    .detail(
        races
            .iter()
            .take(3)
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n"),
    );
    Err(failure)
}
