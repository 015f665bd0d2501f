//! The tokens: every request's output equals the reference, and no result is
//! read before its copy is known to be done.
//!
//! Over 400 lines with its unit tests (the checks are about 330): the
//! checks of the tokens share the reference and the causes read from the trace.

use super::support::{CPU_STEP, EOS, Steps, mixed_batch, reference, request, setup};
use gpu::{Actor, CallSite, OpKind, RaceKind, TraceEntry};
use judge_harness::bridge::unless_it_panics;
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
    let (device, stream, decoder) = setup(ctx)?;
    let batch = mixed_batch();
    let want = reference(&decoder, &batch);
    let got = overlap_sampler::generate(&stream, &decoder, &batch, CPU_STEP)?;
    if got.len() != want.len() {
        return Err(Failure::new(
            format!("one output per request ({})", want.len()),
            format!("{} outputs", got.len()),
        ));
    }
    let differing = want.iter().zip(&got).filter(|(w, g)| w != g).count();
    if differing == 0 {
        return stops_once_every_request_has_finished(ctx);
    }
    let count = format!("{differing} of {} requests differ", want.len());
    let trace = device.trace();
    let seen = Seen {
        from_zero: reference(&decoder, &zero_prompt()).remove(0),
        copy_before_flag_eq: copy_before_flag_eq(&trace.entries),
    };
    let cause = whole_batch_cause(&batch, &want, &got, &seen);
    // Each request's own guess only where no cause explains them all: under
    // one, a guess per request would contradict it.
    let wrong: Vec<String> = want
        .iter()
        .zip(&got)
        .enumerate()
        .filter(|(_, (w, g))| w != g)
        .map(|(i, (w, g))| {
            let r = batch.requests[i];
            let line = format!(
                "request {i} (prompt {}, max_new_tokens {}): expected {w:?}, got {g:?}",
                r.prompt, r.max_new_tokens
            );
            match cause {
                Some(_) => line,
                None => format!("{line}: {}", difference(w, g)),
            }
        })
        .collect();
    let actual = match cause {
        Some(cause) => format!("{count}: {cause}"),
        None => count,
    };
    Err(Failure::new(
        format!(
            "each request's tokens up to and including EOS (token {EOS}), or up to max_new_tokens"
        ),
        actual,
    )
    .detail(wrong.join("\n")))
}

/// What the judge saw of the run besides the tokens.
struct Seen {
    /// The reference's tokens for a prompt of token 0 (a buffer of zeros).
    from_zero: Vec<i32>,
    /// A copy to pinned memory queued in a step before its `flag_eq`, and
    /// that `flag_eq`: their call sites.
    copy_before_flag_eq: Option<(CallSite, CallSite)>,
}

/// One request whose prompt is token 0, as a buffer of zeros would decode.
fn zero_prompt() -> Batch {
    Batch {
        requests: vec![request(0, 16)],
        eos: EOS,
    }
}

/// The first step whose trace queues every copy into pinned memory before
/// its `flag_eq`, none after: the last of them (the one that carries the
/// flags, when the tokens' copy comes first) and the `flag_eq`'s call
/// sites. A step that copies the tokens before `flag_eq` and the flags
/// after it is right, and is not named.
fn copy_before_flag_eq(entries: &[TraceEntry]) -> Option<(CallSite, CallSite)> {
    Steps::of(entries).windows.iter().find_map(|window| {
        let flag_eq = window
            .iter()
            .position(|e| e.op == OpKind::Launch && e.name.starts_with("flag_eq"))?;
        let is_copy = |e: &&TraceEntry| e.op == OpKind::CopyDeviceToHost;
        if window[flag_eq..].iter().any(|e| is_copy(&e)) {
            return None;
        }
        let copy = window[..flag_eq].iter().rfind(is_copy)?;
        Some((copy.site, window[flag_eq].site))
    })
}

/// The one cause that explains every wrong request at once, when there is
/// one: tokens of the step after (a slot read one step ahead), a first
/// step that decoded zeros, every request stopped when the first one
/// finished, done flags a step late because they were copied before
/// `flag_eq`, or the requests stopped by `max_new_tokens` one token short.
fn whole_batch_cause(
    batch: &Batch,
    want: &[Vec<i32>],
    got: &[Vec<i32>],
    seen: &Seen,
) -> Option<String> {
    let wrong: Vec<usize> = (0..want.len()).filter(|&i| want[i] != got[i]).collect();
    let prompts: std::collections::BTreeSet<i32> =
        wrong.iter().map(|&i| batch.requests[i].prompt).collect();
    let started: Vec<usize> = wrong
        .iter()
        .copied()
        .filter(|&i| !got[i].is_empty())
        .collect();
    let from_zero = |k: usize| {
        started.iter().all(|&i| {
            seen.from_zero
                .get(k..)
                .is_some_and(|z| z.starts_with(&got[i]))
        })
    };
    if let Some(k) = (0..2).find(|&k| prompts.len() > 1 && started.len() > 1 && from_zero(k)) {
        // Read one step ahead as well: the step's number was off by one,
        // so its buffers and its slot both were. Read in step: the
        // numbering was right and only the buffers were not.
        let cause = if k == 1 {
            ", and read one step ahead (each step's results from the next step's slot); step N reads `tokens[N % 2]` and fills slot N % 2, so number a step from `submitted` before counting it"
        } else {
            "; yet each step's results were read from its own slot, so the step was numbered right and its buffers were not: step N decodes from `tokens[N % 2]` into `tokens[(N + 1) % 2]`, so step 0 reads the prompts; with the step's input and output swapped, it read the zeroed `tokens[1]`"
        };
        return Some(format!(
            "every request's tokens are those a buffer of zeros decodes to ({:?}…), whatever its prompt: the first step decoded zeros, not the prompts `Sampler::new` wrote into `tokens[0]`{cause}",
            &seen.from_zero[..3.min(seen.from_zero.len())]
        ));
    }
    let late = wrong.iter().all(|&i| {
        got[i].len() == want[i].len() + 1
            && got[i].starts_with(&want[i])
            && want[i].last() == Some(&EOS)
    });
    if let (true, Some((copy, flag_eq))) = (late, seen.copy_before_flag_eq) {
        return Some(format!(
            "every request that met EOS got one token more: a copy into pinned memory at {copy} is queued before `flag_eq` at {flag_eq}, so the flags it copies are those before this step's update, and each done flag arrives a step late; queue the copies after `flag_eq`"
        ));
    }
    // Each wrong request's tokens are those of the step after, and at least
    // one has a token to compare: requests with nothing to compare (a limit
    // of 0) say nothing about a step read ahead.
    let shifted = |i: usize| {
        let (w, g) = (&want[i], &got[i]);
        !g.is_empty() && g.iter().zip(w.iter().skip(1)).all(|(a, b)| a == b)
    };
    let compared = |i: usize| want[i].len() > 1 && !got[i].is_empty();
    let ahead = wrong.iter().all(|&i| shifted(i)) && wrong.iter().any(|&i| compared(i));
    if ahead {
        return Some("each request's tokens are those of the step after it: `process` read the slot of the step submitted ahead (N + 1), not step N's; take the slot from the count of steps processed before moving it on".into());
    }
    let prefixes = wrong.iter().all(|&i| want[i].starts_with(&got[i]));
    let first = want.iter().map(Vec::len).min().unwrap_or(0);
    let stop = got.iter().map(Vec::len).max().unwrap_or(0);
    if prefixes && stop == first {
        return Some(format!(
            "every request stopped after {first} token(s), when the first request of the batch had finished: the batch is finished only once every request has (`all`, not `any`)"
        ));
    }
    let limited = |i: usize| {
        let r = batch.requests[i];
        want[i].len() == r.max_new_tokens && r.max_new_tokens > 0
    };
    let one_short = wrong
        .iter()
        .all(|&i| limited(i) && got[i].len() + 1 == want[i].len() && prefixes);
    one_short.then(|| "the requests stopped by max_new_tokens got one token fewer: the limit was counted from the steps submitted, which run one ahead of those processed; count a request's tokens, appended in `process`".into())
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
    let mark = device.trace_mark();
    match unless_it_panics(|| overlap_sampler::generate(&stream, &decoder, &empty, CPU_STEP)) {
        Ok(outputs) => {
            let outputs = outputs?;
            judge_harness::ensure_eq(outputs.len(), 0, "no output for an empty batch")?;
        }
        Err(panic) => {
            return Err(Failure::new(
                "`generate` of an empty batch to return no outputs",
                format!("it panicked: {panic}"),
            )
            .detail("an empty batch has every request finished before the first step (there are none), so the loop runs no step: an empty batch has no longest limit to run for, nor any request to index; loop `while !sampler.is_finished()`, which is true at once"));
        }
    }
    no_step_when_finished_at_once(&device, mark, "an empty batch")?;
    let nothing = Batch {
        requests: vec![request(396, 0), request(104, 0)],
        eos: EOS,
    };
    let mark = device.trace_mark();
    overlap_sampler::generate(&stream, &decoder, &nothing, CPU_STEP)?;
    no_step_when_finished_at_once(
        &device,
        mark,
        "a batch of two requests with max_new_tokens 0",
    )
}

/// A batch finished before its first step (the statement's loop tests
/// `is_finished` before each step) decodes no step but the one `generate`
/// submits ahead of its loop: one `decode_step` launch since `mark`.
fn no_step_when_finished_at_once(
    device: &gpu::Device,
    mark: u64,
    batch: &str,
) -> Result<(), Failure> {
    let trace = device.trace();
    let launches = trace
        .since(mark)
        .iter()
        .filter(|e| e.op == OpKind::Launch && e.name == "decode_step")
        .count();
    if launches <= 1 {
        return Ok(());
    }
    Err(Failure::new(
        format!("{batch}, every request finished before the first step: no step but the one submitted ahead of the loop (1 `decode_step` launch)"),
        format!("{launches} `decode_step` launches"),
    )
    .detail(format!("`generate` ran {} step(s) of its loop (each with its host work and its wait) for {batch}, which has nothing to generate: the loop tested `is_finished` only after a step, as a do-while does; a batch can be finished before any step (no requests, or every max_new_tokens 0), so test it before each step: `while !sampler.is_finished()`", launches - 1)))
}

pub(super) fn results_are_read_after_their_copy(ctx: &Ctx) -> Result<(), Failure> {
    let (device, stream, decoder) = setup(ctx)?;
    overlap_sampler::generate(&stream, &decoder, &mixed_batch(), CPU_STEP)?;
    let races = device.take_races();
    let Some(first) = races.first() else {
        return Ok(());
    };
    let what = match (first.kind, first.current.actor) {
        (RaceKind::Unordered, Actor::Cpu) if first.current.write => {
            "the CPU wrote a pinned buffer that a copy queued on the GPU may still read"
        }
        (RaceKind::Unordered, Actor::Cpu) => {
            "the CPU read a pinned buffer that a copy queued on the GPU may still be writing (a copy not yet waited for, or the next step's copy into the same buffer)"
        }
        (RaceKind::Unordered, _) => {
            "two streams touched one buffer with nothing ordering them: a copy and a step's kernels on different streams, each needing the other's work done first"
        }
        _ => "a buffer was freed while another stream's use of it was not ordered before the free",
    };
    let ordering = first.to_string();
    let missing = ordering.lines().last().unwrap_or_default().trim();
    let failure = Failure::new(
        "every pinned slot read by the CPU only after the event recorded after its copies, and not overwritten by a later step's copy while it is read",
        format!(
            "the race checker found {} race(s); the first: {what}; {missing}",
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

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(limits: &[usize]) -> Batch {
        Batch {
            requests: limits
                .iter()
                .enumerate()
                .map(|(i, &n)| request(i as i32 + 1, n))
                .collect(),
            eos: EOS,
        }
    }

    fn seen() -> Seen {
        Seen {
            from_zero: vec![77, 78],
            copy_before_flag_eq: None,
        }
    }

    #[test]
    fn a_first_step_that_decoded_zeros_is_told() {
        let want = vec![vec![1, 2], vec![4, 5]];
        let got = vec![vec![77, 78], vec![77]];
        let cause = whole_batch_cause(&batch(&[16, 16]), &want, &got, &seen()).expect("a cause");
        assert!(
            cause.contains("decoded zeros") && !cause.contains("ahead"),
            "{cause}"
        );
        assert!(
            cause.contains("input and output swapped") && !cause.contains("`submitted`"),
            "{cause}"
        );
        let later = vec![vec![78], vec![78]];
        let cause = whole_batch_cause(&batch(&[16, 16]), &want, &later, &seen()).expect("a cause");
        assert!(
            cause.contains("read one step ahead") && cause.contains("`submitted`"),
            "{cause}"
        );
    }

    #[test]
    fn flags_copied_before_flag_eq_are_told_only_when_seen() {
        let want = vec![vec![1, EOS], vec![EOS]];
        let got = vec![vec![1, EOS, 3], vec![EOS, 3]];
        let limits = batch(&[16, 16]);
        assert_eq!(whole_batch_cause(&limits, &want, &got, &seen()), None);
        let site = |line| CallSite {
            file: "sampler.rs",
            line,
            column: 1,
        };
        let seen = Seen {
            copy_before_flag_eq: Some((site(80), site(83))),
            ..seen()
        };
        let cause = whole_batch_cause(&limits, &want, &got, &seen).expect("a cause");
        assert!(
            cause.contains("queued before `flag_eq` at sampler.rs:83:1"),
            "{cause}"
        );
    }

    #[test]
    fn a_slot_read_one_step_ahead_is_told() {
        let want = vec![vec![1, 2, 3], vec![4, 5]];
        let got = vec![vec![2, 3, 9], vec![5, 9]];
        let cause = whole_batch_cause(&batch(&[16, 16]), &want, &got, &seen()).expect("a cause");
        assert!(cause.contains("the step after it"), "{cause}");
    }

    #[test]
    fn a_token_for_a_limit_of_zero_is_no_step_read_ahead() {
        let want = vec![vec![], vec![4, 5]];
        let got = vec![vec![7], vec![4, 5]];
        assert_eq!(
            whole_batch_cause(&batch(&[0, 16]), &want, &got, &seen()),
            None,
            "nothing to compare: the request's own line tells it"
        );
    }

    #[test]
    fn a_batch_that_stops_with_its_first_request_is_told() {
        let want = vec![vec![], vec![4, 5], vec![6]];
        let got = vec![vec![], vec![], vec![]];
        let cause = whole_batch_cause(&batch(&[0, 16, 16]), &want, &got, &seen()).expect("a cause");
        assert!(cause.contains("`all`, not `any`"), "{cause}");
    }

    #[test]
    fn limits_one_short_are_told_and_other_mistakes_are_not() {
        let want = vec![vec![1, 2, 3, 4], vec![5, EOS]];
        let got = vec![vec![1, 2, 3], vec![5, EOS]];
        let cause = whole_batch_cause(&batch(&[4, 16]), &want, &got, &seen()).expect("a cause");
        assert!(
            cause.contains("counted from the steps submitted"),
            "{cause}"
        );
        let other = vec![vec![1, 7, 3, 4], vec![5, EOS]];
        assert_eq!(
            whole_batch_cause(&batch(&[4, 16]), &want, &other, &seen()),
            None
        );
    }
}
