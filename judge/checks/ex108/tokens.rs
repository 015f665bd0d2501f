//! The tokens: every prompt's list equals the reference, and when it does
//! not, the shape of the difference names the cause (the prompts kept, a
//! step lost, every step decoded from the prompts, the history read request
//! by request, a row never written, a read not ordered after the steps).

use super::support::{PROMPTS, STEPS, chosen, launches, reference, setup};
use judge_harness::{Ctx, Failure};

/// The runs of the check: the main one, one prompt, and no step at all.
const RUNS: [(&[i32], usize); 3] = [(&PROMPTS, STEPS), (&[17], 5), (&PROMPTS, 0)];

pub(super) fn tokens_match_the_reference(ctx: &Ctx) -> Result<(), Failure> {
    let (device, stream, decoder) = setup(ctx)?;
    for (prompts, steps) in RUNS {
        device.clear_trace();
        let got = chosen()(&stream, &decoder, prompts, steps)?;
        stream.synchronize()?;
        let races = device.take_races();
        let launched = launches(&device.trace().entries).len();
        let want = reference(&decoder, prompts, steps);
        let from_zero = reference(&decoder, &vec![0; prompts.len()], steps);
        let failure = match (
            compare(prompts, steps, (&want, &from_zero), &got),
            races.first(),
        ) {
            (Ok(()), None) => continue,
            // Right by timing alone: on a real GPU the copy often wins.
            (Ok(()), Some(race)) => right_by_timing(prompts, steps, race),
            (Err(failure), Some(race)) => unordered(failure, race),
            (Err(failure), None) if launched != steps => miscounted(failure, launched, steps),
            (Err(failure), None) => failure,
        };
        return Err(within(failure, prompts, steps));
    }
    Ok(())
}

/// The failure of one run, saying which run it was.
fn within(failure: Failure, prompts: &[i32], steps: usize) -> Failure {
    Failure {
        actual: format!(
            "with {} prompt(s) and {steps} step(s): {}",
            prompts.len(),
            failure.actual
        ),
        ..failure
    }
}

/// A wrong result from a loop that launched a step too many or too few:
/// the count is the cause.
fn miscounted(failure: Failure, launched: usize, steps: usize) -> Failure {
    Failure::new(
        failure.expected,
        format!(
            "the lists are not the reference, and the trace says why: {launched} `decode_step` launch(es) for {steps} step(s). Each step is one launch, step s decoding from the tokens step s - 1 chose, so `steps` steps are `steps` launches"
        ),
    )
}

/// A wrong result with a race behind it: the race is the cause.
fn unordered(failure: Failure, race: &gpu::RaceReport) -> Failure {
    Failure::new(
        failure.expected,
        format!(
            "the tokens read are not the ones the steps chose, and the race checker says why: {}",
            race_cause(race)
        ),
    )
    .at(race.current.site)
    .detail(race.to_string())
}

/// The tokens came out right, but the race checker saw an access that
/// nothing ordered: right in this run only because the GPU was quick.
fn right_by_timing(prompts: &[i32], steps: usize, race: &gpu::RaceReport) -> Failure {
    Failure::new(
        expected(prompts, steps),
        format!(
            "the tokens came out right in this run, but only because the GPU happened to finish first; the race checker says: {}",
            race_cause(race)
        ),
    )
    .at(race.current.site)
    .detail(race.to_string())
}

/// The cause a race report names, in words.
fn race_cause(race: &gpu::RaceReport) -> &'static str {
    if race.host {
        "the CPU read the pinned buffer before the copy into it was done: a copy into pinned memory returns at once, so the CPU must wait for an event recorded after the copy (or synchronize the stream after it) before it reads"
    } else {
        "two operations on the tokens' memory that nothing orders one after the other, such as a read on another stream that the steps' stream was never made to precede. Every operation on the tokens belongs on the steps' stream, or waits for an event recorded there"
    }
}

/// What `compare` expects, in words.
fn expected(prompts: &[i32], steps: usize) -> String {
    format!(
        "{} list(s) of {steps} token(s), one per prompt, each the decoder's greedy choice after the token before it (the prompt first)",
        prompts.len()
    )
}

/// `Ok` when `got` is the reference (`want`); otherwise the cause the
/// difference points to. `from_zero` is what a loop whose step 0 decoded
/// from token 0 instead of the prompts would return.
pub(super) fn compare(
    prompts: &[i32],
    steps: usize,
    (want, from_zero): (&[Vec<i32>], &[Vec<i32>]),
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
    if let Some(cause) = length_cause(prompts, steps, want, got) {
        return fail(cause);
    }
    if got == from_zero && steps > 0 {
        return fail("every list is the one that starts from token 0, not from its prompt: step 0 decoded from a zeroed buffer. The prompts must be in step 0's input when it runs (uploaded there before it, and not overwritten by anything queued between)".into());
    }
    fail(value_cause(prompts, steps, want, got))
}

/// Why the lists have the wrong length, if they do.
fn length_cause(
    prompts: &[i32],
    steps: usize,
    want: &[Vec<i32>],
    got: &[Vec<i32>],
) -> Option<String> {
    let (i, list) = got.iter().enumerate().find(|(_, l)| l.len() != steps)?;
    let with_prompt = got
        .iter()
        .zip(prompts)
        .all(|(l, &p)| l.first() == Some(&p) && l.len() == steps + 1);
    if with_prompt {
        return Some(format!(
            "every list has {} tokens and starts with its prompt: the read took the prompts' row too; the tokens a step chose are in the rows after it, one row per step",
            steps + 1
        ));
    }
    let short = list.len() < steps && want[i].starts_with(list);
    if short {
        return Some(format!(
            "prompt {i}'s list stops after {} of {steps} tokens: the tokens of the last {} step(s) were not read (launched but left out of the one read, or never launched)",
            list.len(),
            steps - list.len()
        ));
    }
    Some(format!(
        "prompt {i}'s list has {} token(s) for {steps} step(s): one token per step, no more",
        list.len()
    ))
}

/// Whether the lists are those of steps whose `decode_step` had its input
/// and output swapped: each step read the row after its own, zeros, so
/// every token but the last is the decoder's choice after 0 (one token for
/// all), and the last row read, which no step wrote, is 0.
fn swapped_arguments(steps: usize, got: &[Vec<i32>]) -> bool {
    let Some(first) = got.first().and_then(|l| l.first()) else {
        return false;
    };
    steps > 1
        && got
            .iter()
            .all(|list| list.last() == Some(&0) && list[..steps - 1].iter().all(|t| t == first))
}

/// Why the values differ, the lengths being right.
fn value_cause(prompts: &[i32], steps: usize, want: &[Vec<i32>], got: &[Vec<i32>]) -> String {
    let n = prompts.len();
    let flat: Vec<i32> = (0..steps)
        .flat_map(|s| want.iter().map(move |w| w[s]))
        .collect();
    let by_request = (0..n).all(|i| (0..steps).all(|s| got[i][s] == flat[i * steps + s]));
    if by_request {
        return format!(
            "the right tokens in the wrong places: the lists were cut from the read request by request, but the steps wrote them step by step (step s's token of prompt i is element s × {n} + i)"
        );
    }
    if let Some((i, j)) = swapped(want, got) {
        return format!(
            "prompt {i} got the tokens of prompt {j}: `generate` returns one list per prompt, in the order of the prompts"
        );
    }
    let from_prompts = (0..n).all(|i| got[i].iter().all(|&t| t == want[i][0]));
    if from_prompts && steps > 1 {
        return "every token of a list is its first one: every step decoded from the prompts. Step s + 1 must decode from the tokens step s chose, where that step wrote them".into();
    }
    if swapped_arguments(steps, got) {
        return "every list but its last token is one same token, the same for every prompt, and every last token is 0: every step decoded from a row of zeros and wrote where it should have read, and the last row read was never written. `decode_step(decoder, input, output)` reads its second argument and writes its third: swapped, step s reads row s + 1 (still zeros) and writes row s, over the prompts for step 0. Pass the row the step reads, then the row it writes".into();
    }
    let late = (0..n).all(|i| got[i][0] == prompts[i] && got[i][1..] == want[i][..steps - 1]);
    if late {
        return "every list is one step late: it starts with its prompt and misses the last step's tokens; the read starts a row too early".into();
    }
    let (i, s) = first_difference(want, got);
    if got[i][s] == 0 && want[i][s] != 0 {
        return format!(
            "prompt {i}, step {s}: 0 where the decoder chose {}: nothing wrote the tokens there before the read (a zeroed buffer); each step must write where the read looks, and the next step read from there",
            want[i][s]
        );
    }
    let after = if s == 0 { prompts[i] } else { want[i][s - 1] };
    format!(
        "prompt {i}, step {s}: {} where the decoder chooses {} after {after} (the tokens before are right): step {s} decoded from the wrong tokens",
        got[i][s], want[i][s]
    )
}

/// A prompt `i` whose list is another prompt's (`j`), when the lists are
/// the right ones in the wrong order.
fn swapped(want: &[Vec<i32>], got: &[Vec<i32>]) -> Option<(usize, usize)> {
    let all_there = got.iter().all(|g| want.contains(g));
    let (i, g) = got.iter().enumerate().find(|(i, g)| *g != &want[*i])?;
    let j = want.iter().position(|w| w == g)?;
    all_there.then_some((i, j))
}

/// The first (prompt, step) where `got` differs from `want`, same shapes.
fn first_difference(want: &[Vec<i32>], got: &[Vec<i32>]) -> (usize, usize) {
    let steps = want.first().map_or(0, Vec::len);
    (0..steps)
        .flat_map(|s| (0..want.len()).map(move |i| (i, s)))
        .find(|&(i, s)| got[i][s] != want[i][s])
        .unwrap_or((0, 0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu::{Backend, Device, DeviceOptions};

    /// A CPU read of pinned memory before the copy into it is done: the
    /// race the check must report even when the tokens come out right.
    fn early_pinned_read() -> gpu::RaceReport {
        let device = Device::with_options(DeviceOptions {
            backend: Backend::Virtual,
            quiet: true,
            ..DeviceOptions::default()
        })
        .expect("the virtual GPU");
        let stream = device.new_stream().expect("a stream");
        let tokens = stream.alloc_zeros::<i32>(4).expect("device memory");
        let pinned = device.alloc_pinned::<i32>(4).expect("pinned memory");
        stream.synchronize().expect("idle");
        stream
            .spin(std::time::Duration::from_millis(1))
            .expect("a gate");
        stream.copy_to_pinned(&tokens, &pinned).expect("the copy");
        let _early = pinned.to_vec();
        device.take_races().remove(0)
    }

    #[test]
    fn right_tokens_behind_a_race_still_fail_and_name_the_race() {
        let race = early_pinned_read();
        let failure = right_by_timing(&[1, 2], 3, &race);
        assert!(
            failure
                .actual
                .contains("only because the GPU happened to finish first")
                && failure
                    .actual
                    .contains("read the pinned buffer before the copy into it was done"),
            "{}",
            failure.actual
        );
        assert_eq!(failure.site, Some(race.current.site));
        assert!(failure.expected.contains("2 list(s) of 3 token(s)"));
    }
}
