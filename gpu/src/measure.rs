//! Measuring the cost table: [`measure`] times every figure of a
//! [`Calibration`] through the public API, on whichever backend the device has.
//!
//! The CPU clock is [`Device::now`] (virtual time on the virtual GPU, real time
//! on CUDA). GPU times come from two events ([`Event::elapsed_ms`]) recorded
//! behind a *gate*, a `spin` queued first, so that the work between them runs
//! back to back whatever the CPU does meanwhile. Each figure is the median of
//! [`REPS`] runs after one warm-up run. A bandwidth is the slope between two
//! sizes (a quarter and the whole: 16 MiB and 64 MiB), which cancels what does
//! not grow with the size: the fixed latency of a copy or a launch, the part
//! of a pageable copy staged before it starts moving, the wake-up of a blocked
//! CPU.
//!
//! The rates of device memory (a device-to-device copy, a `fill`, a `sum`)
//! are timed between two *flushes* of the GPU's L2 cache ([`Flush`]), so that
//! each timed operation finds none of its data in L2 and its writes reach
//! device memory before the end event. Without them, a 16 MiB copy (32 MiB of
//! data) fits in an H200's 50 MB L2, and timed copies can find their data
//! there or leave their writes there for the next one. Timed that way, the slope
//! gave 2.39 TB/s copied on the H200 (2026-11-29): 4.8 TB/s of traffic, the
//! whole peak of its HBM3e, which no copy reaches. A device-to-device rate
//! here is bytes *copied* per ns; each byte is read once and written once, so
//! the memory traffic is twice that.
//!
//! On the virtual GPU the result reproduces the table the device was opened
//! with (the test below checks it): that tests the model and the method at once.
//!
//! [`measure_launches`] (in `launches`) is the one measurement that looks
//! past the API: it sets the crate's launch beside cudarc's own, to say how
//! much of `launch_ns` is the crate's bookkeeping.
//!
//! Over 400 lines: every figure of the table is one short function here,
//! with the gate, the flush and the slope they share; the launch comparison
//! and the staging probes, which need more, are in their own modules.

use crate::{
    Calibration, Decoder, DecoderConfig, Device, DeviceBuffer, Event, Graph, Result, Stream,
};
use staging::{staging, staging_slots};
use std::time::Duration;

#[cfg(not(target_arch = "wasm32"))]
mod launches;
mod staging;

#[cfg(not(target_arch = "wasm32"))]
pub use launches::{LaunchBench, LaunchCosts, LaunchWay, Spread, measure_launches};

/// Timed runs of each figure, after one warm-up run; the figure is their median.
const REPS: usize = 7;
/// Timed runs of a decoder step: long and stable on a GPU, long on the virtual
/// GPU's CPU twin.
const STEP_REPS: usize = 3;
/// The gate queued before GPU-timed work: longer than the CPU takes to submit that work.
const GATE: Duration = Duration::from_millis(5);
/// The kernel a synchronize waits for when measuring the wake-up.
const WAKE_SPIN: Duration = Duration::from_millis(5);
/// Launches of `spin(0)` in a burst, and nodes in the large graph.
const BURST: usize = 200;
/// Nodes in the small graph (instantiation is fitted from two graph sizes).
const SMALL_GRAPH: usize = 10;
/// One mebibyte.
const MIB: usize = 1 << 20;
/// Bytes of the large bandwidth measurements (the small ones move a quarter).
const BIG: usize = 64 * MIB;
/// The decoder step whose time gives the arithmetic rate: vocabulary, width, batch.
const DECODER: (usize, usize, usize) = (4096, 512, 16);

/// Measures the cost table on `device` through the public API: every field of
/// [`Calibration`], on whichever backend `device` has.
///
/// Takes a few seconds on an H200 and on the virtual GPU, and frees every
/// buffer it allocates (events and graphs have no destructor in this API). The
/// `source` names the device; adding the date is the caller's business.
pub fn measure(device: &Device) -> Result<Calibration> {
    let b = Bench::new(device)?;
    let [launch, kernel_min] = launches(&b)?;
    let [begin, end, per_node, graph_launch, node] = graphs(&b)?;
    let [api_call, wake] = waits(&b)?;
    let [copy_submit, pinned_h2d, pinned_d2h] = pinned_copies(&b)?;
    let [d2d, hbm, sum] = device_memory(&b)?;
    let [pageable_h2d, pageable_d2h] = pageable_copies(&b)?;
    let (staging_bytes, staging_rate) = staging(&b)?;
    let (staging_slots, inline_bytes) = staging_slots(&b, staging_bytes)?;
    let flops = flops_per_ns(&b, hbm)?;
    let [seg_alloc, seg_free, pool, pin_alloc, pin_free, create] = allocations(&b, api_call)?;
    device.synchronize()?;
    let (name, backend) = (device.name(), device.backend());
    Ok(Calibration {
        source: format!("{name} ({backend}), measured by gpu::measure"),
        total_memory: device.total_memory(),
        launch_ns: ns(launch),
        kernel_min_ns: ns(kernel_min),
        graph_node_ns: ns(node),
        graph_launch_ns: ns(graph_launch),
        begin_capture_ns: ns(begin),
        end_capture_ns: ns(end),
        instantiate_node_ns: ns(per_node),
        hbm_bytes_per_ns: hbm,
        sum_bytes_per_ns: sum,
        flops_per_ns: flops,
        copy_submit_ns: ns(copy_submit),
        pinned_h2d_bytes_per_ns: pinned_h2d,
        pinned_d2h_bytes_per_ns: pinned_d2h,
        pageable_h2d_bytes_per_ns: pageable_h2d,
        pageable_d2h_bytes_per_ns: pageable_d2h,
        d2d_bytes_per_ns: d2d,
        staging_bytes,
        staging_bytes_per_ns: staging_rate,
        staging_slots,
        inline_bytes,
        api_call_ns: ns(api_call),
        wake_ns: ns(wake),
        segment_alloc_ns: ns(seg_alloc),
        segment_free_ns: ns(seg_free),
        pool_alloc_ns: ns(pool),
        pinned_alloc_ns: ns(pin_alloc),
        pinned_free_ns: ns(pin_free),
        create_ns: ns(create),
    })
}

/// What every measurement uses: the device, one stream, two timing events.
struct Bench {
    device: Device,
    stream: Stream,
    start: Event,
    end: Event,
}

impl Bench {
    /// A new stream and two new events on `device`.
    fn new(device: &Device) -> Result<Self> {
        Ok(Self {
            device: device.clone(),
            stream: device.new_stream()?,
            start: device.new_event()?,
            end: device.new_event()?,
        })
    }

    /// Runs `f` once the device is idle: its value and its CPU time, ns.
    fn idle<R>(&self, f: impl FnOnce() -> Result<R>) -> Result<(R, f64)> {
        self.device.synchronize()?;
        let timer = Timer::start(&self.device);
        let value = f()?;
        Ok((value, timer.ns()))
    }

    /// The CPU time of `f` on an idle device, ns.
    fn idle_ns<R>(&self, f: impl FnOnce() -> Result<R>) -> Result<f64> {
        Ok(self.idle(f)?.1)
    }

    /// Runs `f` between two events behind a gate: its value and the GPU time
    /// of the work it queued, ns.
    fn gpu<R>(&self, f: impl FnOnce() -> Result<R>) -> Result<(R, f64)> {
        self.stream.spin(GATE)?;
        self.start.record(&self.stream)?;
        let value = f()?;
        self.end.record(&self.stream)?;
        Ok((value, f64::from(self.start.elapsed_ms(&self.end)?) * 1e6))
    }

    /// The GPU time of the work `f` queues, ns.
    fn gpu_ns(&self, f: impl FnOnce() -> Result<()>) -> Result<f64> {
        Ok(self.gpu(f)?.1)
    }

    /// The GPU time of the work `f` queues and of one `flush`, ns: the work
    /// runs between two flushes of the L2 cache, behind a gate, and the
    /// events bracket the work and the second flush.
    fn flushed_ns(&self, flush: &Flush, f: impl FnOnce() -> Result<()>) -> Result<f64> {
        self.stream.spin(GATE)?;
        flush.run(&self.stream)?;
        self.start.record(&self.stream)?;
        f()?;
        flush.run(&self.stream)?;
        self.end.record(&self.stream)?;
        Ok(f64::from(self.start.elapsed_ms(&self.end)?) * 1e6)
    }
}

/// A span of CPU time on the device's clock.
struct Timer<'a> {
    device: &'a Device,
    start: Duration,
}

impl<'a> Timer<'a> {
    /// Starts now.
    fn start(device: &'a Device) -> Self {
        Self {
            device,
            start: device.now(),
        }
    }

    /// Nanoseconds since the start.
    fn ns(&self) -> f64 {
        (self.device.now() - self.start).as_nanos() as f64
    }
}

/// Runs `f` once to warm up, then `reps` times: the median of each figure.
fn medians<const N: usize>(
    reps: usize,
    mut f: impl FnMut() -> Result<[f64; N]>,
) -> Result<[f64; N]> {
    f()?;
    let runs = (0..reps).map(|_| f()).collect::<Result<Vec<_>>>()?;
    Ok(std::array::from_fn(|i| {
        median(runs.iter().map(|run| run[i]).collect())
    }))
}

/// The median of `values` (not empty).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

/// Bytes per ns from `time(len)`, the time to move `len` f32 elements: the
/// slope between a quarter of `bytes` and all of it.
fn slope(bytes: usize, mut time: impl FnMut(usize) -> Result<f64>) -> Result<f64> {
    let len = bytes / 4;
    let extra = time(len)? - time(len / 4)?;
    Ok((bytes - bytes / 4) as f64 / extra.max(1.0))
}

/// Rounds a time to whole nanoseconds (never below 0).
fn ns(time: f64) -> u64 {
    time.max(0.0).round() as u64
}

/// Queues `n` launches of `spin(0)`, the smallest kernel.
fn burst(stream: &Stream, n: usize) -> Result<()> {
    (0..n).try_for_each(|_| stream.spin(Duration::ZERO))
}

/// `launch_ns` (CPU time per launch) and `kernel_min_ns` (GPU time per
/// kernel) from a burst of `spin(0)` behind a gate.
fn launches(b: &Bench) -> Result<[f64; 2]> {
    medians(REPS, || {
        let (cpu, gpu) = b.gpu(|| {
            let timer = Timer::start(&b.device);
            burst(&b.stream, BURST)?;
            Ok(timer.ns())
        })?;
        Ok([cpu / BURST as f64, gpu / BURST as f64])
    })
}

/// `begin_capture_ns`, `end_capture_ns` and `instantiate_node_ns` (a line
/// through two graph sizes), `graph_launch_ns` (CPU) and `graph_node_ns`
/// (GPU time per node of the large graph, replayed: its first launch, which
/// uploads the graph to the device and which no replay pays, is not timed).
fn graphs(b: &Bench) -> Result<[f64; 5]> {
    medians(REPS, || {
        let (begin, small_end, _) = capture(b, SMALL_GRAPH)?;
        let (_, big_end, graph) = capture(b, BURST)?;
        let per_node = (big_end - small_end) / (BURST - SMALL_GRAPH) as f64;
        let fixed = small_end - per_node * SMALL_GRAPH as f64;
        graph.launch()?; // the upload, as every replay after it does not pay
        b.stream.synchronize()?;
        let (launch, run) = b.gpu(|| {
            let timer = Timer::start(&b.device);
            graph.launch()?;
            Ok(timer.ns())
        })?;
        Ok([begin, fixed, per_node, launch, run / BURST as f64])
    })
}

/// Captures a graph of `nodes` launches of `spin(0)`: the CPU times of
/// `begin_capture` and of `end_capture`, and the graph.
fn capture(b: &Bench, nodes: usize) -> Result<(f64, f64, Graph)> {
    let begin = b.idle_ns(|| b.stream.begin_capture())?;
    burst(&b.stream, nodes)?;
    let timer = Timer::start(&b.device); // no synchronize while capturing
    let graph = b.stream.end_capture()?;
    Ok((begin, timer.ns(), graph))
}

/// `api_call_ns` (recording an event on an idle stream) and `wake_ns` (a
/// synchronize that waits for a spin, less the spin, from its launch on an
/// idle stream).
fn waits(b: &Bench) -> Result<[f64; 2]> {
    medians(REPS, || {
        let record = b.idle_ns(|| b.start.record(&b.stream))?;
        b.stream.spin(WAKE_SPIN)?;
        let timer = Timer::start(&b.device);
        b.stream.synchronize()?;
        Ok([record, (timer.ns() - WAKE_SPIN.as_nanos() as f64).max(0.0)])
    })
}

/// `copy_submit_ns` (a 4 KiB pinned copy), then by events the pinned copy
/// bandwidths both ways.
fn pinned_copies(b: &Bench) -> Result<[f64; 3]> {
    let buffer = b.stream.alloc_zeros::<f32>(BIG / 4)?;
    let pinned = b.device.alloc_pinned::<f32>(BIG / 4)?;
    medians(REPS, || {
        let submit = b.idle_ns(|| b.stream.copy_from_pinned(&pinned, buffer.slice(0..1024)))?;
        let h2d = slope(BIG, |len| {
            b.gpu_ns(|| b.stream.copy_from_pinned(&pinned, buffer.slice(0..len)))
        })?;
        let d2h = slope(BIG, |len| {
            b.gpu_ns(|| b.stream.copy_to_pinned(buffer.slice(0..len), &pinned))
        })?;
        Ok([submit, h2d, d2h])
    })
}

/// By events, each timed operation between two L2 flushes: the
/// device-to-device copy rate (bytes copied per ns: half the traffic), the
/// rate of a kernel that writes (a `fill`: bytes written per ns) and of one
/// that reads (a `sum`: bytes read per ns).
fn device_memory(b: &Bench) -> Result<[f64; 3]> {
    let (src, dst) = (
        b.stream.alloc_zeros::<f32>(BIG / 4)?,
        b.stream.alloc_zeros::<f32>(BIG / 4)?,
    );
    let out = b.stream.alloc_zeros::<f32>(1)?;
    let flush = Flush::new(&b.stream)?;
    medians(REPS, || {
        let d2d = slope(BIG, |len| {
            b.flushed_ns(&flush, || {
                b.stream.copy(src.slice(0..len), dst.slice(0..len))
            })
        })?;
        let fill = slope(BIG, |len| {
            b.flushed_ns(&flush, || b.stream.fill(dst.slice(0..len), 1.0))
        })?;
        let sum = slope(BIG, |len| {
            b.flushed_ns(&flush, || b.stream.sum(src.slice(0..len), &out))
        })?;
        Ok([d2d, fill, sum])
    })
}

/// What evicts the GPU's L2 cache: a copy of [`BIG`] bytes between two
/// buffers of its own. It reads and writes 128 MiB, more than twice the
/// H200's 50 MB of L2, so that afterwards L2 holds only its lines (some
/// dirty, always the same ones), whatever ran before. A timed operation
/// between two flushes then reads every byte from device memory, and the
/// second flush writes back the lines that operation left dirty, where the
/// first flush's dirty lines, evicted by the operation, balance those that
/// the second leaves behind: the interval holds the operation's whole
/// traffic plus one flush, which the slope cancels.
struct Flush {
    from: DeviceBuffer<f32>,
    to: DeviceBuffer<f32>,
}

impl Flush {
    /// The two buffers, on `stream`.
    fn new(stream: &Stream) -> Result<Self> {
        Ok(Self {
            from: stream.alloc_zeros(BIG / 4)?,
            to: stream.alloc_zeros(BIG / 4)?,
        })
    }

    /// Queues the flush on `stream`.
    fn run(&self, stream: &Stream) -> Result<()> {
        stream.copy(&self.from, &self.to)
    }
}

/// Pageable bandwidths from CPU times on an idle device: a host-to-device copy
/// larger than the staging buffer returns once its last chunk is staged, a
/// device-to-host copy once its data has arrived.
fn pageable_copies(b: &Bench) -> Result<[f64; 2]> {
    let buffer = b.stream.alloc_zeros::<f32>(BIG / 4)?;
    let mut host = vec![0.0f32; BIG / 4];
    medians(REPS, || {
        let h2d = slope(BIG, |len| {
            b.idle_ns(|| b.stream.copy_from_host(&host[..len], buffer.slice(0..len)))
        })?;
        let d2h = slope(BIG, |len| {
            b.idle_ns(|| {
                b.stream
                    .copy_to_host(buffer.slice(0..len), &mut host[..len])
            })
        })?;
        Ok([h2d, d2h])
    })
}

/// `flops_per_ns`: the GPU time of a decoder step less the time of the bytes
/// the cost model counts for it at `hbm` bytes/ns, then flops per remaining ns.
fn flops_per_ns(b: &Bench, hbm: f64) -> Result<f64> {
    let (vocab, hidden, batch) = DECODER;
    let config = DecoderConfig {
        vocab,
        hidden,
        seed: 1,
        step_time: Duration::ZERO,
    };
    let decoder = Decoder::new(&b.stream, config)?;
    let (tokens_in, tokens_out) = (
        b.stream.alloc_zeros::<i32>(batch)?,
        b.stream.alloc_zeros::<i32>(batch)?,
    );
    let [step] = medians(STEP_REPS, || {
        Ok([b.gpu_ns(|| b.stream.decode_step(&decoder, &tokens_in, &tokens_out))?])
    })?;
    // Both weight matrices (the model counts the whole embedding), tokens in and out.
    let bytes = (2 * vocab * hidden + 2 * batch) * 4;
    let flops = 2 * batch * hidden * vocab;
    Ok(flops as f64 / (step - bytes as f64 / hbm).max(1.0))
}

/// On an idle device: `segment_alloc_ns` and `segment_free_ns` (64 MiB),
/// `pool_alloc_ns` (4 KiB), `pinned_alloc_ns` and `pinned_free_ns` (4 MiB),
/// `create_ns` (an event).
fn allocations(b: &Bench, api_call_ns: f64) -> Result<[f64; 6]> {
    medians(REPS, || {
        let (segment, seg_alloc) = b.idle(|| b.device.alloc_segment(BIG))?;
        let seg_free = b.idle_ns(|| b.device.free_segment(segment))?;
        // `alloc_zeros` also queues the memset that zeroes the block: one API call.
        let (buffer, zeroed) = b.idle(|| b.stream.alloc_zeros::<f32>(1024))?;
        drop(buffer);
        let pool = zeroed - api_call_ns;
        let (pinned, pin_alloc) = b.idle(|| b.device.alloc_pinned::<f32>(MIB))?;
        let pin_free = b.idle_ns(|| {
            drop(pinned);
            Ok(())
        })?;
        let create = b.idle_ns(|| b.device.new_event())?;
        Ok([seg_alloc, seg_free, pool, pin_alloc, pin_free, create])
    })
}

#[cfg(test)]
mod tests;
