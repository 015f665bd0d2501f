//! The outputs against the batches' sums, and no race between the streams.

use super::workload::{BATCHES, Bench, expected_sum};
use gpu::{Actor, RaceKind, RaceReport};
use judge_harness::ordering::missed_order;
use judge_harness::{Ctx, Failure};

pub(super) fn outputs_are_every_batchs_sum(ctx: &Ctx) -> Result<(), Failure> {
    let bench = Bench::open(ctx)?;
    let (outputs, _, _) = bench.run()?;
    let expected: Vec<f32> = (0..BATCHES).map(expected_sum).collect();
    if outputs.len() != BATCHES {
        return Err(Failure::new(
            format!("{BATCHES} outputs, one per batch"),
            format!("{} outputs", outputs.len()),
        ));
    }
    let Some(i) = (0..BATCHES).find(|&i| outputs[i] != expected[i]) else {
        return Ok(());
    };
    let got = outputs[i];
    let whose = (0..BATCHES).find(|&b| b != i && expected[b] == got);
    let why = match (got, whose) {
        (0.0, _) => "zeros: the step read its buffer before the batch's copy arrived (nothing made the compute stream wait for the copy), or after the memory was handed out again and zeroed".to_string(),
        (_, Some(b)) => format!(
            "that is batch {b}'s sum: the step read its buffer after batch {b}'s copy had overwritten it, because the memory was reused while the compute stream still read it (the `record_stream` rule)"
        ),
        _ => "the step read a buffer another copy was writing".to_string(),
    };
    Err(Failure::new(
        format!("batch {i}'s output, its sum {}", expected[i]),
        format!("{got}"),
    )
    .detail(format!(
        "{why}; see streams-and-events.md#copies-that-overlap-compute"
    )))
}

pub(super) fn no_race_between_the_streams(ctx: &Ctx) -> Result<(), Failure> {
    let bench = Bench::open(ctx)?;
    bench.run()?;
    ctx.save_trace("races", &bench.device);
    let races = bench.device.races();
    let Some(race) = races.first() else {
        return Ok(());
    };
    let missed = missed_order(&bench.device.trace().entries, race);
    let (what, section) = race_kind(race, &bench, missed.as_deref());
    Err(Failure::new(
        "no race between the copy stream and the compute stream",
        format!("{} race(s); the first: {what}", races.len()),
    )
    .at(race.current.site)
    .detail(format!("{race}\nsee {section}")))
}

/// What a race between the two streams means here, and the section about
/// it; `missed`, when the trace shows it, is the wait or the event record
/// that was put in the wrong place ([`missed_order`]), said instead of the
/// rule it broke.
fn race_kind(race: &RaceReport, bench: &Bench, missed: Option<&str>) -> (String, &'static str) {
    let compute = Actor::Stream(bench.compute.id());
    let record_stream = "streams-and-events.md#when-a-buffer-crosses-streams-record_stream";
    match race.kind {
        RaceKind::ReuseAfterFree => (
            format!(
                "memory freed on the copy stream at {} was handed to a new buffer and written while the compute stream still read it: before a batch's buffer is dropped, make the copy stream wait for an event recorded on the compute stream after the step (the `record_stream` rule)",
                race.freed_at.map_or("?".into(), |s| s.to_string())
            ),
            record_stream,
        ),
        RaceKind::UnorderedFree => (
            format!(
                "a buffer ({}) was freed on {} while {}'s use of it at {} was not ordered before the free: nothing in this run reused it, but the pool may hand that memory to the very next allocation on the freeing stream, as a batch's copy would overwrite a step's input. {}",
                race.allocated_at.map_or("dropped".into(), |s| format!("allocated at {s}")),
                race.current.actor,
                race.previous.actor,
                race.previous.site,
                missed.map_or(
                    "Before a batch's buffer is dropped, make the copy stream wait for an event recorded on the compute stream after the step that reads it (the `record_stream` rule)".to_string(),
                    |why| format!("The `record_stream` rule: {why}")
                )
            ),
            record_stream,
        ),
        RaceKind::Unordered if race.current.actor == Actor::Cpu => (
            format!(
                "the CPU read host memory at {} that {} was still writing: nothing the CPU waited for covers that stream's copy (a synchronize of another stream says nothing about it); wait for the stream that copies the outputs, or an event recorded on it after the copy, before reading them",
                race.current.site, race.previous.actor
            ),
            "streams-and-events.md#waiting-on-the-gpu-against-waiting-on-the-cpu",
        ),
        RaceKind::Unordered
            if race.previous.actor == compute
                && race.previous.write
                && race.previous.what.contains("zeroing") =>
        {
            (
                format!(
                    "the copy stream wrote a batch's buffer that the compute stream had allocated (and zeroed) at {}, with nothing ordering the copy after that: a buffer belongs to the pool of the stream it is allocated on, and its zeroing and its reuse follow that stream's order; allocate a batch's buffer on the copy stream, which writes it, and order the step that reads it before its drop (the `record_stream` rule)",
                    race.previous.site
                ),
                record_stream,
            )
        }
        RaceKind::Unordered if race.previous.actor == compute && !race.previous.write => (
            "the copy stream overwrote a buffer the compute stream still read: before a buffer is written again, make the copy stream wait for an event recorded after the step that reads it".to_string(),
            record_stream,
        ),
        RaceKind::Unordered => (
            format!(
                "a step read its batch with nothing ordering it after the batch's copy: {}",
                missed.unwrap_or("record an event on the copy stream after the copy, and make the compute stream `wait_event` for it")
            ),
            "streams-and-events.md#events",
        ),
    }
}
