//! The tokens: every request's output equals the reference, and no result is
//! read before its copy is known to be done.

use super::support::{CPU_STEP, EOS, mixed_batch, reference, request, setup};
use gpu::OpKind;
use judge_harness::bridge::{AgentGone, LearnerPanic};
use judge_harness::{Ctx, Failure};
use overlap_sampler::Batch;

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
        return stops_once_every_request_has_finished(ctx);
    }
    Err(Failure::new(
        format!(
            "each request's tokens up to and including EOS (token {EOS}), or up to max_new_tokens"
        ),
        format!("{} of {} requests differ", wrong.len(), want.len()),
    )
    .detail(wrong.join("\n")))
}

/// `generate` decodes until every request has finished, and no further
/// (the statement's loop: `while !sampler.is_finished()`): a batch whose
/// requests all meet EOS within three tokens is done after three steps,
/// whatever its `max_new_tokens`, and an empty batch has nothing to decode.
fn stops_once_every_request_has_finished(ctx: &Ctx) -> Result<(), Failure> {
    let (device, stream, decoder) = setup(ctx)?;
    // 396, 104 and 68 meet EOS at their first, second and third token.
    let batch = Batch {
        requests: vec![request(396, 16), request(104, 16), request(68, 16)],
        eos: EOS,
    };
    let steps = reference(&decoder, &batch)
        .iter()
        .map(Vec::len)
        .max()
        .unwrap_or(0);
    overlap_sampler::generate(&stream, &decoder, &batch, CPU_STEP)?;
    let launches = device
        .trace()
        .entries
        .iter()
        .filter(|e| e.op == OpKind::Launch && e.name == "decode_step")
        .count();
    if launches > steps + 1 {
        return Err(Failure::new(
            format!("a batch of three requests (max_new_tokens 16) that all meet EOS within {steps} tokens: {steps} steps, plus the one submitted ahead ({} `decode_step` launches)", steps + 1),
            format!("{launches} `decode_step` launches"),
        )
        .detail(format!("`generate` kept decoding after every request had finished (at step {steps}): it runs until every request is finished, and no further (`while !sampler.is_finished()`), not for a number of steps taken from the batch's limits")));
    }
    let empty = Batch {
        requests: Vec::new(),
        eos: EOS,
    };
    match unless_it_panics(|| overlap_sampler::generate(&stream, &decoder, &empty, CPU_STEP)) {
        Ok(outputs) => {
            let outputs = outputs?;
            judge_harness::ensure_eq(outputs.len(), 0, "no output for an empty batch")
        }
        Err(panic) => Err(Failure::new(
            "`generate` of an empty batch to return no outputs",
            format!("it panicked: {panic}"),
        )
        .detail("an empty batch has every request finished before the first step (there are none), so the loop runs no step: an empty batch has no longest limit to run for, nor any request to index; loop `while !sampler.is_finished()`, which is true at once")),
    }
}

/// `f`'s value, or the message and place of the learner's panic in it.
fn unless_it_panics<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        if payload.is::<AgentGone>() {
            std::panic::resume_unwind(payload);
        }
        if let Some(p) = payload.downcast_ref::<LearnerPanic>() {
            return match p.location {
                Some(at) => format!("`{}` at {at}", p.message),
                None => format!("`{}`", p.message),
            };
        }
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_string()))
            .map_or_else(|| "a panic".into(), |m| format!("`{m}`"))
    })
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
