//! No race between the three stages or with the CPU. A race is named by
//! the buffer it hit (an input buffer, a result buffer, an output in pinned
//! memory), the chunk whose access raced, and the order that was missing.

use super::workload::{Bench, CHUNKS, LAYER_KERNEL};
use gpu::{Actor, OpKind, RaceKind, RaceReport, StreamId, TraceEntry};
use judge_harness::ordering::missed_order;
use judge_harness::{Ctx, Failure};

const SECTION: &str = "streams-and-events.md#three-stages-copy-in-compute-copy-out";

pub(super) fn no_race_between_the_stages(ctx: &Ctx) -> Result<(), Failure> {
    let bench = Bench::open(ctx)?;
    bench.run()?;
    ctx.save_trace("races", &bench.device);
    let races = bench.device.races();
    let Some(race) = races.first() else {
        return Ok(());
    };
    let what = cause(ctx, &bench, race)?;
    Err(Failure::new(
        "no race between the copy-in, compute and copy-out streams, or with the CPU",
        format!("{} race(s); the first: {what}", races.len()),
    )
    .at(race.current.site)
    .detail(format!("{race}\nsee {SECTION}")))
}

/// What `race`, found in a run of `bench`, means in the pipeline: the
/// buffer, the chunk, and the order that was missing.
pub(super) fn cause(ctx: &Ctx, bench: &Bench, race: &RaceReport) -> Result<String, Failure> {
    let entries = &bench.device.trace().entries;
    let missed = missed_order(entries, race);
    let chunk = first_racing_chunk(ctx)?;
    let tried = tried_wait(entries, race, bench, chunk, missed.as_deref());
    Ok(explain(
        race,
        bench,
        chunk,
        missed.as_deref(),
        tried.as_deref(),
    ))
}

/// The chunk whose access made the first race: the last chunk of the
/// shortest run that races (each run is on a fresh device).
fn first_racing_chunk(ctx: &Ctx) -> Result<Option<usize>, Failure> {
    for count in 1..=CHUNKS {
        let bench = Bench::open_on(ctx.device()?, count)?;
        bench.run()?;
        if !bench.device.races().is_empty() {
            return Ok(Some(count - 1));
        }
    }
    Ok(None)
}

/// What the first race means in the pipeline: which buffer, which chunk,
/// which order was missing. `missed` (a misplaced wait or record the trace
/// shows) is said only when the race is not one of the pipeline's four
/// orders: there, the later stream's legitimate wait for the other stage
/// reads as a misplaced one.
/// What the trace shows of the ordering that was tried, for a race of one
/// of the pipeline's four orders at chunk `k`: more waits queued on the
/// later stream just before chunk k's racing access than the pipeline's
/// other orders need there (the compute stream also waits for its copy-in,
/// and from chunk 2 on for a copy-out), so one of them waited for the wrong
/// event (the trace does not name it); or no wait there, but one on the
/// earlier stream for an event of its own (`missed_order`'s wait on the
/// wrong stream).
fn tried_wait(
    entries: &[TraceEntry],
    race: &RaceReport,
    bench: &Bench,
    k: Option<usize>,
    missed: Option<&str>,
) -> Option<String> {
    let (Actor::Stream(first), Actor::Stream(then)) = (race.previous.actor, race.current.actor)
    else {
        return None;
    };
    let k = k?;
    let (copy_in, compute) = (bench.copy_in.id(), bench.compute.id());
    let access = |e: &TraceEntry| {
        e.stream == Some(then)
            && e.site == race.current.site
            && (e.op != OpKind::Launch || e.name == LAYER_KERNEL)
            && e.op != OpKind::StreamWaitEvent
            && e.op != OpKind::EventRecord
    };
    let later_at = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| access(e))
        .nth(k)?
        .0;
    // The waits and records queued on the later stream since its work
    // before (the layer's spin, queued by the same call, aside).
    let mut waits: Vec<u32> = Vec::new();
    let mut started = false;
    for e in entries[..later_at].iter().rev() {
        if e.stream != Some(then) || (!started && e.site == race.current.site) {
            continue;
        }
        started = true;
        match e.op {
            OpKind::StreamWaitEvent => waits.push(e.site.line),
            OpKind::EventRecord => {}
            _ => break,
        }
    }
    let others = match (then == compute, first == copy_in) {
        (true, true) => usize::from(k >= 2),
        (true, false) => 1,
        _ => 0,
    };
    if waits.is_empty() {
        return missed
            .filter(|why| why.starts_with("the wait between the two is on the wrong stream"))
            .map(str::to_string);
    }
    if waits.len() <= others {
        return None;
    }
    let name = |id: StreamId| {
        [
            (&bench.copy_in, "copy_in"),
            (&bench.compute, "compute"),
            (&bench.copy_out, "copy_out"),
        ]
        .into_iter()
        .find(|(s, _)| s.id() == id)
        .map_or_else(|| format!("stream {id}"), |(_, n)| format!("`{n}`"))
    };
    let lines: Vec<String> = waits.iter().rev().map(|l| format!("line {l}")).collect();
    Some(format!(
        "{} did wait just before it (at {}), but for no event recorded on {} after that {}: an event marks only the work queued on its own stream before it",
        name(then),
        lines.join(" and "),
        name(first),
        if race.previous.write { "write" } else { "read" },
    ))
}

fn explain(
    race: &RaceReport,
    bench: &Bench,
    chunk: Option<usize>,
    missed: Option<&str>,
    tried: Option<&str>,
) -> String {
    let [copy_in, compute, copy_out] =
        [&bench.copy_in, &bench.compute, &bench.copy_out].map(|s| Actor::Stream(s.id()));
    let k = chunk.map_or("a chunk".to_string(), |k| format!("chunk {k}"));
    let (prev, cur) = (&race.previous, &race.current);
    match race.kind {
        RaceKind::ReuseAfterFree | RaceKind::UnorderedFree => format!(
            "a device buffer freed at {} while another stream's use of it at {} was not ordered before the free: allocate the two buffers of each stage once, before the loop, and drop them after the one CPU wait at the end",
            race.freed_at.map_or("?".into(), |s| s.to_string()),
            prev.site
        ),
        RaceKind::Unordered if cur.actor == Actor::Cpu => format!(
            "the CPU read {k}'s output in pinned memory while the copy-out stream's copy into it at {} was not known to be done: {}",
            prev.site,
            "wait once, after the loop, for the copy-out stream (its last copy-out is ordered after every stage), then read the outputs"
        ),
        RaceKind::Unordered if cur.actor == copy_in && prev.actor == compute => format!(
            "an input buffer was refilled by {k}'s copy-in while the layer of the chunk that used it before still read it: {}",
            with_tried(
                tried,
                "before the copy-in writes input buffer `k % 2`, `copy_in` must `wait_event` for the event recorded on `compute` after chunk k − 2's layer",
                "the copy-in's own event completes before that layer even starts"
            )
        ),
        RaceKind::Unordered if prev.what.starts_with("the zeroing of a new buffer") => format!(
            "{k}'s access at {} (on {}) met the zeroing of its buffer, queued at {} on {} when the buffer was allocated, with nothing ordering the two: `alloc_zeros` queues the zeroing on the stream it is called on. Allocate each buffer on the stream that writes it first (the inputs on `copy_in`, the results on `compute`), or make that stream wait for an event recorded after the allocation",
            cur.site,
            stream_word(cur.actor, bench),
            prev.site,
            stream_word(prev.actor, bench)
        ),
        RaceKind::Unordered if cur.actor == compute && prev.actor == copy_out => format!(
            "a result buffer was overwritten by {k}'s layer while the copy-out of the chunk that used it before still read it: {}",
            with_tried(
                tried,
                "before the layer writes result buffer `k % 2`, `compute` must `wait_event` for the event recorded on `copy_out` after chunk k − 2's copy-out",
                "an event recorded on `compute` marks only the layers"
            )
        ),
        RaceKind::Unordered if cur.actor == compute && prev.actor == copy_in => format!(
            "{k}'s layer read its input buffer with nothing ordering it after the copy-in that wrote it: {}",
            with_tried(
                tried,
                "record an event on `copy_in` after the chunk's copy-in and make `compute` `wait_event` for it before the layer",
                "`wait_event` makes the stream it is called on wait"
            )
        ),
        RaceKind::Unordered if cur.actor == copy_out && prev.actor == compute => format!(
            "{k}'s copy-out read its result buffer with nothing ordering it after the layer that wrote it: {}",
            with_tried(
                tried,
                "record an event on `compute` after the chunk's layer and make `copy_out` `wait_event` for it before the copy-out",
                "the copy-in's event completes before the layer has run"
            )
        ),
        RaceKind::Unordered => format!(
            "{} at {} and {} at {} touch the same memory in no known order: each stage belongs on its own stream (copy-ins on `copy_in`, the layer on `compute`, copy-outs on `copy_out`), ordered by events{}",
            prev.actor,
            prev.site,
            cur.actor,
            cur.site,
            missed.map_or(String::new(), |why| format!("; {why}"))
        ),
    }
}

/// A stream of the bench in the statement's words.
fn stream_word(actor: Actor, bench: &Bench) -> String {
    let named = [
        (&bench.copy_in, "`copy_in`"),
        (&bench.compute, "`compute`"),
        (&bench.copy_out, "`copy_out`"),
    ];
    named
        .iter()
        .find(|(s, _)| actor == Actor::Stream(s.id()))
        .map_or(actor.to_string(), |(_, name)| name.to_string())
}

/// The advice, after what the trace shows was tried, if anything, with
/// `aside` on why that did not order the two.
fn with_tried(tried: Option<&str>, advice: &str, aside: &str) -> String {
    match tried {
        Some(tried) => format!("{tried}; {advice} ({aside})"),
        None => advice.to_string(),
    }
}
