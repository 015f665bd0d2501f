//! The measurements of the chapter "Streams and events": order within a
//! stream and none across, what each sync primitive costs the CPU, and
//! copy/compute overlap with pinned memory and two buffers, with what each
//! copy and each sum took on the GPU.

use gpu::{Device, PinnedBuffer, Result, Stream};
use std::time::Duration;

mod gpu_times;

pub use gpu_times::{GpuTimes, Longer};

const MS: Duration = Duration::from_millis(1);

/// Sums read by a second stream, without and with an event.
#[derive(Clone, Debug, PartialEq)]
pub struct Order {
    /// The same stream: fill(2.0) then sum, no sync at all.
    pub same_stream: f32,
    /// Another stream, nothing ordering it after the fill.
    pub no_event: f32,
    /// Another stream that waits for an event recorded after the fill.
    pub with_event: f32,
    /// Races the race checker found in the run without an event.
    pub races: usize,
}

// ANCHOR: order
/// `x` holds 1.0s; stream `a` spins 5 ms and fills `x` with 2.0; a reader
/// sums `x`. The expected sum is 2.0 × 1024 = 2048.
pub fn order(device: &Device) -> Result<Order> {
    let (a, b) = (device.new_stream()?, device.new_stream()?);
    let x = a.alloc_zeros::<f32>(1024)?;
    let out = a.alloc_zeros::<f32>(1)?;
    let run = |reader: &Stream, with_event: bool| -> Result<f32> {
        a.fill(&x, 1.0)?;
        a.synchronize()?;
        a.spin(5 * MS)?;
        a.fill(&x, 2.0)?;
        if with_event {
            reader.wait_event(&a.record_event()?)?; // GPU-side: the CPU goes on
        }
        reader.sum(&x, &out)?;
        let sum = reader.to_vec(&out)?[0];
        device.synchronize()?;
        Ok(sum)
    };
    let same_stream = run(&a, false)?; // in-stream order is free
    let no_event = run(&b, false)?; // b runs at once, before the fill
    let races = device.take_races().len();
    let with_event = run(&b, true)?;
    Ok(Order {
        same_stream,
        no_event,
        with_event,
        races,
    })
}
// ANCHOR_END: order

/// One sync primitive: whether it blocked, and for how long.
#[derive(Clone, Debug, PartialEq)]
pub struct Primitive {
    /// The call.
    pub name: &'static str,
    /// CPU time spent in it, ns.
    pub cpu_ns: f64,
}

// ANCHOR: primitives
/// Stream `a` runs 10 ms, an event `mid`, 10 ms more; stream `b` runs 30 ms.
/// Each primitive is timed on the CPU from this same state.
pub fn primitives(device: &Device) -> Result<Vec<Primitive>> {
    let (a, b, c) = (
        device.new_stream()?,
        device.new_stream()?,
        device.new_stream()?,
    );
    let mid = device.new_event()?;
    let busy = || -> Result<()> {
        device.synchronize()?;
        a.spin(10 * MS)?;
        mid.record(&a)?;
        a.spin(10 * MS)?;
        b.spin(30 * MS)
    };
    let time = |name, f: &dyn Fn() -> Result<()>| -> Result<Primitive> {
        busy()?;
        let t = device.now();
        f()?;
        let cpu_ns = (device.now() - t).as_nanos() as f64;
        Ok(Primitive { name, cpu_ns })
    };
    let all = vec![
        time("device.synchronize()", &|| device.synchronize())?,
        time("a.synchronize()", &|| a.synchronize())?,
        time("mid.synchronize()", &|| mid.synchronize())?,
        time("c.wait_event(&mid)", &|| c.wait_event(&mid))?,
        time("mid.query()", &|| mid.query().map(drop))?,
        time("a.query()", &|| a.query().map(drop))?,
    ];
    device.synchronize()?;
    Ok(all)
}
// ANCHOR_END: primitives

/// Copy/compute overlap: the same chunks three ways.
#[derive(Clone, Debug, PartialEq)]
pub struct Overlap {
    /// One stream, copy then compute, chunk after chunk, ns.
    pub serial_ns: f64,
    /// A copy stream and a compute stream, two device slots, pinned source, ns.
    pub overlapped_ns: f64,
    /// The same two-stream schedule from pageable memory, ns.
    pub pageable_ns: f64,
    /// CPU time the pageable schedule spent inside its copy calls, ns.
    pub pageable_copy_cpu_ns: f64,
    /// The sums the compute stream found (each should be the chunk's length).
    pub sums: Vec<f32>,
    /// What a copy and a sum of the two-stream pinned run took on the GPU,
    /// from the trace; `None` when the trace has no GPU times (the CUDA
    /// backend opened without `gpu_timing`).
    pub gpu: Option<GpuTimes>,
}

/// Elements of a chunk: 16 MiB of `f32`.
pub const CHUNK: usize = 4 << 20;

/// GPU time of the compute on one chunk (a slow reader that then sums it).
pub const COMPUTE: Duration = Duration::from_micros(300);

/// Where the chunks come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A pinned buffer: the copy is asynchronous.
    Pinned,
    /// A `Vec`: the driver stages it, and a 16 MiB copy waits.
    Pageable,
}

/// One run over the chunks.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// The sums the compute stream found (each should be the chunk's length).
    pub sums: Vec<f32>,
    /// From the first copy call until the sums were on the host, ns.
    pub loop_ns: f64,
    /// CPU time spent inside the copy calls, ns.
    pub copy_cpu_ns: f64,
}

/// How the chunks are scheduled: the parameters of [`schedule`] (and of the
/// chapter's live timeline).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Chunks to copy and sum.
    pub chunks: usize,
    /// Streams: 1 copies and sums on one stream; 2 has a copy and a compute
    /// stream; 3 a copy stream and two compute streams that take the chunks
    /// in turn.
    pub streams: usize,
    /// Device slots, which the chunks take in turn.
    pub slots: usize,
    /// Where the chunks come from.
    pub source: Source,
}

impl Schedule {
    /// The chapter's two-stream schedule of `chunks` chunks: two slots.
    pub fn two_streams(chunks: usize, source: Source) -> Self {
        Self {
            chunks,
            streams: 2,
            slots: 2,
            source,
        }
    }
}

/// Runs `schedule` on `device`: [`copy_and_compute`] on two streams or more,
/// else the same chunks on one stream.
pub fn schedule(device: &Device, schedule: &Schedule) -> Result<Run> {
    if schedule.streams > 1 {
        copy_and_compute(device, schedule)
    } else {
        serial(device, schedule)
    }
}

/// The host copy of a chunk: pinned, and a `Vec` when the schedule reads one.
fn host_chunk(device: &Device, source: Source) -> Result<(PinnedBuffer<f32>, Vec<f32>)> {
    let pinned = device.alloc_pinned::<f32>(CHUNK)?;
    pinned.write(&vec![1.0; CHUNK])?;
    let pageable = match source {
        Source::Pinned => Vec::new(),
        Source::Pageable => vec![1.0f32; CHUNK],
    };
    Ok((pinned, pageable))
}

// ANCHOR: overlap
/// `chunks` chunks: copy each to the device on `copy`, sum it on `compute`.
/// Slot `i % 2` holds chunk `i`; events order the two streams both ways.
pub fn two_streams(device: &Device, chunks: usize, source: Source) -> Result<Run> {
    copy_and_compute(device, &Schedule::two_streams(chunks, source))
}

/// The chunks on a copy stream and `streams - 1` compute streams (chunk `i`
/// on compute stream `i % (streams - 1)`), in `slots` device slots (chunk
/// `i` in slot `i % slots`). The events are double buffering's: the copy of
/// chunk `i` waits for the sum of chunk `i - 2`, which is right for two
/// slots or more; with one slot the copy overwrites the chunk still being
/// summed, and the race checker says so.
pub fn copy_and_compute(device: &Device, schedule: &Schedule) -> Result<Run> {
    let copy = device.new_stream()?;
    let compute = (1..schedule.streams)
        .map(|_| device.new_stream())
        .collect::<Result<Vec<_>>>()?;
    let (pinned, pageable) = host_chunk(device, schedule.source)?;
    let slots = (0..schedule.slots)
        .map(|_| copy.alloc_zeros(CHUNK))
        .collect::<Result<Vec<_>>>()?;
    let sums = compute[0].alloc_zeros::<f32>(schedule.chunks)?;
    let (copied, consumed) = (
        [device.new_event()?, device.new_event()?],
        [device.new_event()?, device.new_event()?],
    );
    device.synchronize()?;
    let (start, mut copy_cpu_ns) = (device.now(), 0.0);
    for i in 0..schedule.chunks {
        let (slot, compute) = (&slots[i % slots.len()], &compute[i % compute.len()]);
        copy.wait_event(&consumed[i % 2])?; // chunk i - 2 is summed: reuse its slot
        let t = device.now();
        match schedule.source {
            Source::Pinned => copy.copy_from_pinned(&pinned, slot)?,
            Source::Pageable => copy.copy_from_host(&pageable, slot)?,
        }
        copy_cpu_ns += (device.now() - t).as_nanos() as f64;
        copied[i % 2].record(&copy)?;
        compute.wait_event(&copied[i % 2])?; // chunk i has arrived
        compute.sum_after(COMPUTE, slot, sums.slice(i..i + 1))?;
        consumed[i % 2].record(compute)?;
    }
    for other in &compute[1..] {
        compute[0].wait_event(&other.record_event()?)?; // every sum is in `sums`
    }
    let sums = compute[0].to_vec(&sums)?; // waits for the last sum
    let loop_ns = (device.now() - start).as_nanos() as f64;
    device.synchronize()?; // both streams idle before the slots are freed
    Ok(Run {
        sums,
        loop_ns,
        copy_cpu_ns,
    })
}
// ANCHOR_END: overlap

/// The same chunks on one stream: copy, sum, copy, sum.
pub fn one_stream(device: &Device, chunks: usize) -> Result<Run> {
    serial(
        device,
        &Schedule {
            chunks,
            streams: 1,
            slots: 1,
            source: Source::Pinned,
        },
    )
}

/// `schedule`'s chunks on one stream, in its slots in turn, from its source.
fn serial(device: &Device, schedule: &Schedule) -> Result<Run> {
    let s = device.new_stream()?;
    let (pinned, pageable) = host_chunk(device, schedule.source)?;
    let slots = (0..schedule.slots)
        .map(|_| s.alloc_zeros::<f32>(CHUNK))
        .collect::<Result<Vec<_>>>()?;
    let sums = s.alloc_zeros::<f32>(schedule.chunks)?;
    s.synchronize()?;
    let (start, mut copy_cpu_ns) = (device.now(), 0.0);
    for i in 0..schedule.chunks {
        let slot = &slots[i % slots.len()];
        let t = device.now();
        match schedule.source {
            Source::Pinned => s.copy_from_pinned(&pinned, slot)?,
            Source::Pageable => s.copy_from_host(&pageable, slot)?,
        }
        copy_cpu_ns += (device.now() - t).as_nanos() as f64;
        s.sum_after(COMPUTE, slot, sums.slice(i..i + 1))?;
    }
    let sums = s.to_vec(&sums)?;
    let loop_ns = (device.now() - start).as_nanos() as f64;
    s.synchronize()?;
    Ok(Run {
        sums,
        loop_ns,
        copy_cpu_ns,
    })
}

/// Runs the three schedules of `chunks` chunks, each timed from its first
/// copy call to the sums on the host (setup excluded), and reads the GPU
/// times of the two-stream pinned run from the trace.
pub fn overlap(device: &Device, chunks: usize) -> Result<Overlap> {
    let serial = one_stream(device, chunks)?;
    let mark = device.trace_mark();
    let overlapped = two_streams(device, chunks, Source::Pinned)?;
    let gpu = GpuTimes::of(device.trace().since(mark));
    let pageable = two_streams(device, chunks, Source::Pageable)?;
    Ok(Overlap {
        serial_ns: serial.loop_ns,
        overlapped_ns: overlapped.loop_ns,
        pageable_ns: pageable.loop_ns,
        pageable_copy_cpu_ns: pageable.copy_cpu_ns,
        sums: overlapped.sums,
        gpu,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu::Backend;

    fn device() -> Device {
        Device::open(Backend::Virtual).unwrap()
    }

    #[test]
    fn only_an_event_orders_two_streams() {
        let o = order(&device()).unwrap();
        assert_eq!(
            (o.same_stream, o.no_event, o.with_event),
            (2048.0, 1024.0, 2048.0)
        );
        assert!(o.races > 0);
    }

    #[test]
    fn only_the_synchronizes_block() {
        let p = primitives(&device()).unwrap();
        let ms: Vec<f64> = p.iter().map(|p| (p.cpu_ns / 1e6).round()).collect();
        assert_eq!(ms, [30.0, 20.0, 10.0, 0.0, 0.0, 0.0], "{p:?}");
    }

    #[test]
    fn two_streams_overlap_copies_from_pinned_memory_only() {
        let o = overlap(&device(), 6).unwrap();
        assert_eq!(o.sums, vec![CHUNK as f32; 6]);
        assert!(o.overlapped_ns < 0.75 * o.serial_ns, "{o:?}");
        assert!(o.pageable_ns > o.serial_ns, "{o:?}");
    }

    #[test]
    fn a_copy_and_a_sum_take_about_as_long_on_the_gpu() {
        let gpu = overlap(&device(), 4).unwrap().gpu.expect("GPU times");
        assert_eq!(gpu.longer(), Longer::Neither, "{gpu:?}");
        let longer = |copy_ns, sum_ns| GpuTimes { copy_ns, sum_ns }.longer();
        assert_eq!(longer(1.0, 1.09), Longer::Neither);
        assert_eq!(longer(1.0, 1.2), Longer::Sums);
        assert_eq!(longer(1.2, 1.0), Longer::Copies);
    }
}
