//! On the GPU (real or virtual): a `Driver` over raw segments and events,
//! and a block freed while another stream's slow kernel still reads it.

use super::support::{S0, S1, ensure};
use caching_allocator::{CachingAllocator, Driver, StreamId};
use judge_harness::{Ctx, Failure};
use std::collections::BTreeMap;
use std::time::Duration;

/// A `Driver` over the `gpu` crate: raw segments (`cuMemAlloc`) and events.
struct GpuDriver {
    device: gpu::Device,
    streams: BTreeMap<StreamId, gpu::Stream>,
    segments: BTreeMap<u64, gpu::Segment>,
    problems: Vec<String>,
}

impl Driver for GpuDriver {
    type Event = gpu::Event;

    fn alloc_segment(&mut self, bytes: usize) -> Option<u64> {
        let segment = self.device.alloc_segment(bytes).ok()?;
        let addr = segment.addr();
        self.segments.insert(addr, segment);
        Some(addr)
    }

    fn free_segment(&mut self, addr: u64, bytes: usize) {
        match self.segments.remove(&addr) {
            Some(segment) if segment.bytes() == bytes => {
                if let Err(e) = self.device.free_segment(segment) {
                    self.problems
                        .push(format!("free_segment({addr:#x}) failed: {e}"));
                }
            }
            Some(segment) => {
                self.problems.push(format!(
                    "free_segment({addr:#x}, {}) for a segment of {}",
                    super::support::bytes(bytes),
                    super::support::bytes(segment.bytes())
                ));
                self.segments.insert(addr, segment);
            }
            None => self
                .problems
                .push(format!("free_segment({addr:#x}) of no segment")),
        }
    }

    fn record_event(&mut self, stream: StreamId) -> gpu::Event {
        let Some(s) = self.streams.get(&stream) else {
            Failure::new(
                "events recorded only on the streams of this check (0 and 1)",
                format!(
                    "the allocator recorded an event on stream {}, on which no block of this check was allocated or noted with `record_stream`",
                    stream.0
                ),
            )
            .detail("at free, the allocator records one event on each stream `record_stream` noted on the block, and no other; see allocator.md#record-stream")
            .raise()
        };
        s.record_event()
            .unwrap_or_else(|e| driver_refused("record_event", &e))
    }

    fn event_done(&mut self, event: &gpu::Event) -> bool {
        event
            .query()
            .unwrap_or_else(|e| driver_refused("event_done", &e))
    }

    fn wait_event(&mut self, event: &gpu::Event) {
        event
            .synchronize()
            .unwrap_or_else(|e| driver_refused("wait_event", &e));
    }
}

/// Ends the check: the device refused a driver call the allocator made
/// (`what`), with the device's own words for why.
fn driver_refused(what: &str, e: &gpu::GpuError) -> ! {
    Failure::new(
        format!("the driver's `{what}` to succeed"),
        format!("the device refused the allocator's `{what}`: {e}"),
    )
    .raise()
}

/// Elements in the block: 1 MiB of `f32`, a small-pool block.
const N: usize = 1 << 18;

pub(super) fn gpu_reuse_waits_for_a_slow_reader(ctx: &Ctx) -> Result<(), Failure> {
    let device = ctx.device()?;
    let (a, b) = (device.new_stream()?, device.new_stream()?);
    let driver = GpuDriver {
        device: device.clone(),
        streams: BTreeMap::from([(S0, a.clone()), (S1, b.clone())]),
        segments: BTreeMap::new(),
        problems: Vec::new(),
    };
    let mut alloc = CachingAllocator::new(driver);
    let out = b.alloc_zeros::<f32>(1)?;
    let block = alloc
        .malloc(N * 4, S0)
        .map_err(|e| Failure::new("malloc(1 MiB) on stream 0", e.to_string()))?;
    let old = block.addr();
    a.fill(device.view::<f32>(old, N)?, 1.0)?;
    b.wait_event(&a.record_event()?)?;
    b.sum_after(Duration::from_millis(20), device.view::<f32>(old, N)?, &out)?;
    alloc.record_stream(&block, S1);
    alloc
        .free(block)
        .map_err(|e| Failure::new("free of the block", e.to_string()))?;
    let again = alloc
        .malloc(N * 4, S0)
        .map_err(|e| Failure::new("a second malloc(1 MiB) on stream 0", e.to_string()))?;
    a.fill(device.view::<f32>(again.addr(), N)?, 999.0)?;
    let sum = b.to_vec(&out)?[0];
    ctx.save_trace("reuse", &device);
    let races: Vec<String> = device.races().iter().map(ToString::to_string).collect();
    let problems = std::mem::take(&mut alloc.driver_mut().problems);
    let reused = again.addr() == old;
    alloc
        .free(again)
        .map_err(|e| Failure::new("free of the second block", e.to_string()))?;
    if sum != N as f32 || !races.is_empty() {
        return Err(reused_under_the_reader(sum, old, reused, &races));
    }
    ensure(
        problems.is_empty(),
        "the driver to be used correctly",
        || problems.join("; "),
    )
}

/// Stream 1's slow reader did not sum what the block held when it was
/// queued (or a race was found): told in the allocator's stream names, with
/// the fix where it is, in the learner's `free` and `malloc`, not in the
/// judge's streams that the race reports' lines point at.
fn reused_under_the_reader(sum: f32, old: u64, reused: bool, races: &[String]) -> Failure {
    let expected = format!(
        "stream 1's slow reader to sum {N} ones to {N} (a block noted on stream 1 with `record_stream` and freed must not be reused before stream 1's work is done)"
    );
    if reused {
        return Failure::new(
            expected,
            format!(
                "a sum of {sum}: malloc on stream 0 handed out the block at {old:#x} again while stream 1's slow reader, queued before the free, still read it, so the fill that followed the second malloc landed under the read"
            ),
        )
        .detail(format!(
            "the race checker saw it too ({} race(s) on the block: the judge's fill on stream 0 against the read on stream 1). The fix is in the allocator, not in the streams: at `free`, record an event on each stream noted with `record_stream` and keep the block pending until those events complete; `malloc` reuses a pending block only once its events are done (it polls them, it never waits); see allocator.md#record-stream",
            races.len().max(1)
        ));
    }
    Failure::new(
        expected,
        format!("a sum of {sum}: the reader saw other data"),
    )
    .detail(format!(
        "races found by the race checker:\n{}",
        races.join("\n")
    ))
}

#[cfg(test)]
mod tests {
    use super::reused_under_the_reader;
    use judge_harness::Outcome;

    #[test]
    fn a_reuse_under_the_reader_names_the_fix_in_the_allocator_and_its_stream_names() {
        let f = reused_under_the_reader(999.0, 0x20_0000, true, &["a race".into()]);
        let outcome = Outcome::Failed {
            expected: f.expected,
            actual: f.actual,
            site: f.site,
            detail: f.detail,
        };
        crate::tests::fails_as(
            101,
            &outcome,
            "gpu_reuse_waits_for_a_slow_reader",
            "reused_under_the_reader",
        );
    }
}
