//! Submitting loops for the suite's own tests, written with the `gpu`
//! crate: the known-wrong ones whose messages `tests.rs` snapshots, each one
//! mistake in the solution's loop.

use gpu::{Result, Stream};
use std::collections::VecDeque;

/// A mistake in the solution's loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mistake {
    /// None: the solution.
    None,
    /// The loop never waits; one wait at the end.
    NeverWaits,
    /// The stream synchronized after every step.
    SynchronizesEachStep,
    /// The newest event waited for, once `depth` are queued.
    WaitsForTheNewest,
    /// The wait only once more than `depth` are queued.
    OneTooMany,
    /// No wait at the end.
    NoFinalWait,
    /// Every remaining event waited for at the end, one by one.
    DrainsEachAtTheEnd,
    /// The steps called for `1..=steps`.
    CountsFromOne,
    /// The stream synchronized once `depth` are queued.
    SynchronizesWhenFull,
    /// Each step's time read with `elapsed_ms` right after it.
    ElapsedEachStep,
    /// The wait once `depth − 1` are queued.
    OneTooFew,
    /// Each step on a stream of its own.
    StreamPerStep,
    /// Each step's event recorded before the step, none after it.
    RecordsBeforeTheStep,
    /// The events recorded on a stream of their own.
    EventsOnAnotherStream,
    /// The oldest event waited for at the end.
    OldestAtTheEnd,
    /// The last event unwrapped at the end: a panic with no step.
    UnwrapsAtTheEnd,
    /// The wait for the oldest queued after the step, not before.
    WaitsAfterTheStep,
    /// The oldest event waited for on the GPU (`Stream::wait_event`).
    WaitsOnTheGpu,
}

fn submit_with(
    mistake: Mistake,
    stream: &Stream,
    steps: usize,
    depth: usize,
    step: &mut dyn FnMut(&Stream, usize) -> Result<()>,
) -> Result<()> {
    let mut in_flight: VecDeque<gpu::Event> = VecDeque::new();
    let marks = match mistake {
        Mistake::EventsOnAnotherStream => Some(stream.device().new_stream()?),
        _ => None,
    };
    let ks: Vec<usize> = match mistake {
        Mistake::CountsFromOne => (1..=steps).collect(),
        _ => (0..steps).collect(),
    };
    let limit = match mistake {
        Mistake::OneTooMany => depth + 1,
        Mistake::OneTooFew => depth.saturating_sub(1),
        _ => depth.max(1),
    };
    for k in ks {
        let full = in_flight.len() >= limit;
        match mistake {
            Mistake::NeverWaits
            | Mistake::SynchronizesEachStep
            | Mistake::ElapsedEachStep
            | Mistake::WaitsAfterTheStep => {}
            Mistake::WaitsForTheNewest if full => {
                if let Some(newest) = in_flight.back() {
                    newest.synchronize()?;
                }
                in_flight.clear();
            }
            Mistake::WaitsOnTheGpu if full => {
                if let Some(oldest) = in_flight.pop_front() {
                    stream.wait_event(&oldest)?;
                }
            }
            Mistake::SynchronizesWhenFull if full => {
                stream.synchronize()?;
                in_flight.clear();
            }
            _ if full => {
                if let Some(oldest) = in_flight.pop_front() {
                    oldest.synchronize()?;
                }
            }
            _ => {}
        }
        let start = stream.record_event()?;
        match mistake {
            Mistake::StreamPerStep => step(&stream.device().new_stream()?, k)?,
            _ => step(stream, k)?,
        }
        if mistake == Mistake::WaitsAfterTheStep
            && in_flight.len() >= limit
            && let Some(oldest) = in_flight.pop_front()
        {
            oldest.synchronize()?;
        }
        if mistake == Mistake::RecordsBeforeTheStep {
            in_flight.push_back(start);
            continue;
        }
        let end = match &marks {
            Some(marks) => marks.record_event()?,
            None => stream.record_event()?,
        };
        if mistake == Mistake::ElapsedEachStep {
            start.elapsed_ms(&end)?;
        }
        in_flight.push_back(end);
        if mistake == Mistake::SynchronizesEachStep {
            stream.synchronize()?;
        }
    }
    match mistake {
        Mistake::NoFinalWait => Ok(()),
        Mistake::OldestAtTheEnd => match in_flight.front() {
            Some(oldest) => oldest.synchronize(),
            None => Ok(()),
        },
        #[allow(clippy::unwrap_used)]
        Mistake::UnwrapsAtTheEnd => in_flight.back().unwrap().synchronize(),
        Mistake::DrainsEachAtTheEnd => {
            for event in &in_flight {
                event.synchronize()?;
            }
            Ok(())
        }
        _ => match in_flight.back() {
            Some(last) => last.synchronize(),
            None => Ok(()),
        },
    }
}

macro_rules! wrong {
    ($($name:ident => $mistake:ident),+ $(,)?) => {$(
        #[doc = concat!("The solution's loop with [`Mistake::", stringify!($mistake), "`].")]
        pub(super) fn $name(
            stream: &Stream,
            steps: usize,
            depth: usize,
            step: &mut dyn FnMut(&Stream, usize) -> Result<()>,
        ) -> Result<()> {
            submit_with(Mistake::$mistake, stream, steps, depth, step)
        }
    )+};
}

wrong! {
    right => None,
    never_waits => NeverWaits,
    synchronizes_each_step => SynchronizesEachStep,
    waits_for_the_newest => WaitsForTheNewest,
    one_too_many => OneTooMany,
    no_final_wait => NoFinalWait,
    drains_each_at_the_end => DrainsEachAtTheEnd,
    counts_from_one => CountsFromOne,
    synchronizes_when_full => SynchronizesWhenFull,
    elapsed_each_step => ElapsedEachStep,
    one_too_few => OneTooFew,
    stream_per_step => StreamPerStep,
    records_before_the_step => RecordsBeforeTheStep,
    events_on_another_stream => EventsOnAnotherStream,
    oldest_at_the_end => OldestAtTheEnd,
    unwraps_at_the_end => UnwrapsAtTheEnd,
    waits_after_the_step => WaitsAfterTheStep,
    waits_on_the_gpu => WaitsOnTheGpu,
}
