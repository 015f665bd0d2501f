//! The caching allocator against raw device segments.
//!
//! Three measurements, all with blocks of one size so that the cache always
//! hits:
//!
//! 1. cached `malloc` + `free` pairs of the allocator over [`SimDriver`]:
//!    pure CPU work, timed with the CPU's clock;
//! 2. the same over [`GpuDriver`], while a spin kernel keeps the GPU busy:
//!    a cached pair never calls the driver, so it never waits for the GPU;
//!    the benchmark counts the device calls made during the pairs (none)
//!    and checks that the spin is still running afterwards;
//! 3. raw `alloc_segment` + `free_segment` pairs (`cuMemAlloc` +
//!    `cuMemFree`) on an idle device and behind a kernel, timed with the
//!    device's clock: real time on a GPU, modelled time (the H200
//!    calibration) on the virtual GPU. The free waits for the kernel.

use crate::GpuDriver;
use crate::{Summary, duration_text};
use caching_allocator::{CachingAllocator, Driver, SimDriver, StreamId};
use gpu::Device;
use std::fmt;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Errors of the benchmark: the device's or the allocator's.
pub type Error = Box<dyn std::error::Error>;

const STREAM: StreamId = StreamId(0);

/// How much to measure.
#[derive(Clone, Debug)]
pub struct Config {
    /// The size of every block and segment, in bytes.
    pub bytes: usize,
    /// Runs of cached pairs over `SimDriver` (the median is reported).
    pub runs: usize,
    /// Cached pairs in each run.
    pub pairs: usize,
    /// Gates: spin kernels behind which cached pairs run over the GPU driver.
    pub gates: usize,
    /// How long each gate keeps the GPU busy.
    pub gate: Duration,
    /// Cached pairs behind each gate.
    pub gated_pairs: usize,
    /// Raw segment pairs in each setting (after one not counted).
    pub raw_pairs: usize,
    /// The kernel that raw pairs run behind in the busy setting.
    pub kernel: Duration,
}

impl Config {
    /// The benchmark as the book reports it: a few seconds in all.
    pub fn full() -> Self {
        Self {
            bytes: 64 << 20,
            runs: 7,
            pairs: 1_000_000,
            gates: 5,
            gate: Duration::from_millis(20),
            gated_pairs: 50_000,
            raw_pairs: 10,
            kernel: Duration::from_millis(5),
        }
    }

    /// A small run, for tests.
    pub fn quick() -> Self {
        Self {
            runs: 3,
            pairs: 1_000,
            gates: 2,
            gated_pairs: 1_000,
            raw_pairs: 3,
            ..Self::full()
        }
    }
}

/// Cached pairs behind a busy GPU: how fast, and the proof that they did
/// not wait.
#[derive(Clone, Debug)]
pub struct Gated {
    /// CPU nanoseconds per pair, one sample per gate.
    pub ns_per_pair: Summary,
    /// Calls into the device made during the pairs, over all gates.
    pub device_calls: u64,
    /// Segments the allocator asked the driver for during the pairs.
    pub new_segments: usize,
    /// Gates whose spin was still running when the pairs were done.
    pub still_running: usize,
}

/// Raw segment pairs: device-clock microseconds of each call.
#[derive(Clone, Debug)]
pub struct Raw {
    /// `alloc_segment` (`cuMemAlloc`).
    pub alloc_us: Summary,
    /// `free_segment` (`cuMemFree`).
    pub free_us: Summary,
    /// The two together.
    pub pair_us: Summary,
}

/// Everything the benchmark measured, printed as a table by `Display`.
#[derive(Clone, Debug)]
pub struct Report {
    /// The provenance header ([`crate::header`]).
    pub header: String,
    /// The backend ("cuda" or "virtual").
    pub backend: String,
    /// What was measured.
    pub config: Config,
    /// CPU nanoseconds per cached pair over `SimDriver`, one sample per run.
    pub sim_ns_per_pair: Summary,
    /// Cached pairs over the GPU driver, behind a busy GPU.
    pub gated: Gated,
    /// Raw pairs on an idle device.
    pub raw_idle: Raw,
    /// Raw pairs behind a kernel.
    pub raw_busy: Raw,
}

/// Runs the whole benchmark on `device`; `header` is the provenance the
/// report starts with ([`crate::header`]).
pub fn run(device: &Device, header: &str, config: &Config) -> Result<Report, Error> {
    Ok(Report {
        header: header.to_string(),
        backend: device.backend().to_string(),
        config: config.clone(),
        sim_ns_per_pair: cached_pairs_on_sim(config)?,
        gated: cached_pairs_behind_a_gate(device, config)?,
        raw_idle: raw_pairs(device, config, None)?,
        raw_busy: raw_pairs(device, config, Some(config.kernel))?,
    })
}

/// CPU nanoseconds per cached pair over `SimDriver`, one sample per run.
pub fn cached_pairs_on_sim(config: &Config) -> Result<Summary, Error> {
    let mut alloc = CachingAllocator::new(SimDriver::new(config.bytes));
    let samples = (0..config.runs)
        .map(|_| time_pairs(&mut alloc, config.bytes, config.pairs))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Summary::of(samples))
}

// ANCHOR: pairs
/// Warms the cache with one pair, then times `pairs` cached pairs: CPU
/// nanoseconds per pair.
fn time_pairs<D: Driver>(
    alloc: &mut CachingAllocator<D>,
    bytes: usize,
    pairs: usize,
) -> Result<f64, Error> {
    let first = alloc.malloc(bytes, STREAM)?; // the one pair that may reach the driver
    alloc.free(first)?;
    let start = Instant::now();
    for _ in 0..pairs {
        let block = alloc.malloc(black_box(bytes), STREAM)?;
        alloc.free(black_box(block))?;
    }
    Ok(start.elapsed().as_nanos() as f64 / pairs as f64)
}
// ANCHOR_END: pairs

// ANCHOR: gated
/// Cached pairs over [`GpuDriver`] while a spin kernel keeps the GPU busy.
pub fn cached_pairs_behind_a_gate(device: &Device, config: &Config) -> Result<Gated, Error> {
    let stream = device.new_stream()?;
    let mut driver = GpuDriver::new(device.clone());
    driver.add_stream(STREAM, stream.clone());
    let mut alloc = CachingAllocator::new(driver);
    let first = alloc.malloc(config.bytes, STREAM)?; // the segment, before the gates
    alloc.free(first)?;
    let segments = alloc.stats().num_device_alloc;
    let (mut samples, mut device_calls, mut still_running) = (Vec::new(), 0, 0);
    for _ in 0..config.gates {
        stream.spin(config.gate)?; // the GPU is busy from now on
        let gate = stream.record_event()?;
        let mark = device.trace_mark();
        samples.push(time_pairs(&mut alloc, config.bytes, config.gated_pairs)?);
        device_calls += device.trace_mark() - mark; // calls made by the pairs
        still_running += usize::from(!gate.query()?); // the CPU did not wait for it
        stream.synchronize()?;
    }
    let new_segments = alloc.stats().num_device_alloc - segments;
    alloc.empty_cache();
    Ok(Gated {
        ns_per_pair: Summary::of(samples),
        device_calls,
        new_segments,
        still_running,
    })
}
// ANCHOR_END: gated

/// Raw segment pairs, on an idle device (`behind` is `None`) or each behind
/// a spin kernel of `behind`; the first pair is not counted.
pub fn raw_pairs(device: &Device, config: &Config, behind: Option<Duration>) -> Result<Raw, Error> {
    let stream = device.new_stream()?;
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let (mut alloc_us, mut free_us, mut pair_us) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..=config.raw_pairs {
        device.synchronize()?;
        if let Some(kernel) = behind {
            stream.spin(kernel)?;
        }
        let start = device.now();
        let segment = device.alloc_segment(config.bytes)?;
        let allocated = device.now();
        device.free_segment(segment)?;
        let freed = device.now();
        if i > 0 {
            alloc_us.push(us(allocated - start));
            free_us.push(us(freed - allocated));
            pair_us.push(us(freed - start));
        }
    }
    Ok(Raw {
        alloc_us: Summary::of(alloc_us),
        free_us: Summary::of(free_us),
        pair_us: Summary::of(pair_us),
    })
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = &self.config;
        write!(f, "{}", self.header)?;
        writeln!(
            f,
            "\nCaching allocator against raw device segments ({} MiB)",
            c.bytes >> 20
        )?;
        let clock = match self.backend.as_str() {
            "cuda" => "",
            _ => " (modelled: the virtual GPU's H200 calibration)",
        };
        writeln!(
            f,
            "cached pairs: this CPU's clock; raw calls: the device clock{clock}\n"
        )?;
        writeln!(f, "| what | median | range | samples |")?;
        writeln!(f, "|---|---:|---:|---:|")?;
        let (sim, g) = (&self.sim_ns_per_pair, &self.gated);
        let n = format!("{} × {}", c.runs, grouped(c.pairs as f64));
        row(f, "cached malloc+free, `SimDriver`", sim, 1.0, &n)?;
        let what = format!(
            "cached malloc+free, gpu driver, behind a {} ms spin",
            c.gate.as_millis()
        );
        let n = format!("{} × {}", c.gates, grouped(c.gated_pairs as f64));
        row(f, &what, &g.ns_per_pair, 1.0, &n)?;
        let kernel = format!("behind a {} ms kernel", c.kernel.as_millis());
        let n = c.raw_pairs.to_string();
        for (raw, when) in [
            (&self.raw_idle, "idle device"),
            (&self.raw_busy, kernel.as_str()),
        ] {
            row(
                f,
                &format!("raw `alloc_segment`, {when}"),
                &raw.alloc_us,
                1e3,
                &n,
            )?;
            row(
                f,
                &format!("raw `free_segment`, {when}"),
                &raw.free_us,
                1e3,
                &n,
            )?;
            row(
                f,
                &format!("raw alloc+free pair, {when}"),
                &raw.pair_us,
                1e3,
                &n,
            )?;
        }
        let verdict = if g.device_calls == 0 && g.still_running == c.gates {
            "the CPU never waited"
        } else {
            "the CPU may have waited"
        };
        writeln!(
            f,
            "\nbehind the spin: {} device calls and {} new segments during the pairs; \
             the spin still running afterwards in {} of {} gates: {verdict}",
            g.device_calls, g.new_segments, g.still_running, c.gates
        )?;
        let ratio = |raw: &Raw| raw.pair_us.median * 1e3 / sim.median;
        writeln!(
            f,
            "raw pair / cached pair (SimDriver): {}× on an idle device, {}× {kernel}",
            grouped(ratio(&self.raw_idle)),
            grouped(ratio(&self.raw_busy))
        )
    }
}

/// `x` rounded, with thousands separated: `1,000,000`.
fn grouped(x: f64) -> String {
    let digits = format!("{:.0}", x.max(0.0));
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// One table row: `summary` is in units of `ns` nanoseconds.
fn row(f: &mut fmt::Formatter<'_>, what: &str, s: &Summary, ns: f64, n: &str) -> fmt::Result {
    let t = |x: f64| duration_text(x * ns);
    writeln!(
        f,
        "| {what} | {} | {} – {} | {n} |",
        t(s.median),
        t(s.min),
        t(s.max)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu::Backend;

    #[test]
    fn thousands_are_separated() {
        assert_eq!(grouped(1e6), "1,000,000");
        assert_eq!(grouped(6854.4), "6,854");
        assert_eq!(grouped(999.0), "999");
    }

    #[test]
    fn the_quick_benchmark_runs_on_the_virtual_gpu() -> Result<(), Error> {
        let device = Device::open(Backend::Virtual)?;
        let report = run(&device, "command: test\n", &Config::quick())?;
        assert_eq!(report.gated.device_calls, 0);
        assert_eq!(report.gated.new_segments, 0);
        assert_eq!(report.gated.still_running, 2);
        // The virtual GPU's clock follows its H200 calibration exactly.
        assert!(report.raw_busy.free_us.median > 4_000.0, "{report}");
        assert!(report.raw_idle.free_us.median < 1_000.0, "{report}");
        let text = report.to_string();
        assert!(
            text.starts_with("command: test\n\nCaching allocator"),
            "{text}"
        );
        assert!(text.contains("the CPU never waited"), "{text}");
        assert!(
            text.contains("| raw `free_segment`, behind a 5 ms kernel |"),
            "{text}"
        );
        Ok(())
    }
}
