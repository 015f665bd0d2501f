//! Backpressure: a decode loop that keeps the GPU fed and the CPU at most
//! `depth` steps ahead of it.
//!
//! A launch only queues work, so a loop of launches runs ahead of the GPU
//! as far as nothing stops it; [`submit`] stops it at `depth` steps in
//! flight, waiting for the oldest one only, so that the queue stays bounded
//! and the GPU always has the next step queued (the chapter's "Why the CPU
//! ever waits").

use gpu::{Event, Result, Stream};
use std::collections::VecDeque;

/// Submits decode steps `0..steps` in order on `stream`, each by one call of
/// `step(stream, k)` (it queues the step's kernels and records nothing),
/// keeping at most `depth` steps (at least 1) queued and unfinished; returns
/// once every step has finished on the GPU.
pub fn submit(
    stream: &Stream,
    steps: usize,
    depth: usize,
    step: &mut dyn FnMut(&Stream, usize) -> Result<()>,
) -> Result<()> {
    // One event after each step still in flight, oldest first.
    let mut in_flight: VecDeque<Event> = VecDeque::with_capacity(depth);
    for k in 0..steps {
        // Step k may be queued once step k - depth has finished: wait for
        // that step's event, the oldest, and never for a newer one (that
        // would drain the queue and leave the GPU idle).
        if in_flight.len() >= depth.max(1)
            && let Some(oldest) = in_flight.pop_front()
        {
            oldest.synchronize()?;
        }
        step(stream, k)?;
        in_flight.push_back(stream.record_event()?);
    }
    // Once, at the end: every step done before returning.
    match in_flight.back() {
        Some(last) => last.synchronize(),
        None => Ok(()),
    }
}
