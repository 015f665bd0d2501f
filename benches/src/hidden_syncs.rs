//! Every implicit sync point of the hidden-syncs chapter, measured.
//!
//! Each case queues a `spin` kernel (the gate) and then times, on the
//! device's CPU clock, how long one call or a few calls take to return. A
//! call that waits for the GPU takes the rest of the gate; a call that only
//! queues work takes microseconds. The fix of each sync is measured the same
//! way, next to it. [`run`] prints the table the chapter shows:
//!
//! ```text
//! cargo run --release -p workbook-benches --example hidden_syncs_implicit
//! ```
//!
//! On the virtual GPU the times are modelled (the H200 calibration); on a
//! real GPU they are real.

use gpu::{Device, Result, Stream, SyncDebug};
use std::fmt::Write as _;
use std::time::Duration;

/// How long the gate keeps the GPU busy.
pub const GATE: Duration = Duration::from_millis(20);
/// Repetitions of each case (the range is reported).
pub const REPS: usize = 5;

/// The device and the streams the cases run on.
pub struct Bench {
    /// The device.
    pub device: Device,
    /// The stream the gate and most cases use.
    pub s: Stream,
    /// A second stream (copies).
    pub copy: Stream,
}

impl Bench {
    /// Two streams on `device`.
    pub fn new(device: &Device) -> Result<Self> {
        Ok(Self {
            device: device.clone(),
            s: device.new_stream()?,
            copy: device.new_stream()?,
        })
    }

    /// Milliseconds the CPU spends in `f`, run right after a gate on both
    /// streams; the device is idle before the gate.
    pub fn behind_gate(&self, f: impl FnOnce(&Self) -> Result<()>) -> Result<f64> {
        self.device.synchronize()?;
        self.s.spin(GATE)?;
        self.copy.spin(GATE)?;
        let start = self.device.now();
        f(self)?;
        let ms = (self.device.now() - start).as_secs_f64() * 1e3;
        self.device.synchronize()?;
        Ok(ms)
    }

    /// `behind_gate` `REPS` times: the fastest and the slowest.
    pub fn range(&self, mut f: impl FnMut(&Self) -> Result<()>) -> Result<(f64, f64)> {
        let mut times = Vec::with_capacity(REPS);
        for _ in 0..REPS {
            times.push(self.behind_gate(&mut f)?);
        }
        let lo = times.iter().copied().fold(f64::MAX, f64::min);
        let hi = times.iter().copied().fold(0.0, f64::max);
        Ok((lo, hi))
    }
}

/// Reading one value: the `.item()` sync, and its fix.
pub fn reading_values(b: &Bench, out: &mut Table) -> Result<()> {
    let x = b.s.alloc_zeros::<f32>(1)?;
    let pinned = b.device.alloc_pinned::<f32>(1)?;
    // ANCHOR: item
    let item = b.range(|b| {
        let _value = b.s.to_vec(&x)?[0]; // `loss.item()`: waits for the stream
        Ok(())
    })?;
    let pinned_copy = b.range(|b| {
        b.s.copy_to_pinned(&x, &pinned)?; // queued: the value lands later
        let _arrived = b.s.record_event()?; // wait for this event when it is needed
        Ok(())
    })?;
    // ANCHOR_END: item
    out.section("reading values");
    out.row("to_vec of one f32 (`.item()`)", item);
    out.row("copy_to_pinned of one f32 + record an event", pinned_copy);
    Ok(())
}

/// Copies to and from pageable memory, and pinned copies.
pub fn pageable_copies(b: &Bench, out: &mut Table) -> Result<()> {
    out.section("pageable copies");
    for bytes in [4 << 10, 4 << 20] {
        let host = vec![0u32; bytes / 4];
        let dst = b.copy.alloc_zeros::<u32>(host.len())?;
        // ANCHOR: pageable
        let time = b.range(|b| b.copy.copy_from_host(&host, &dst))?;
        // ANCHOR_END: pageable
        out.row(&format!("H2D from a Vec, {}", size(bytes)), time);
    }
    let dst = b.copy.alloc_zeros::<u32>(1 << 20)?;
    let pinned = b.device.alloc_pinned::<u32>(1 << 20)?;
    let time = b.range(|b| b.copy.copy_from_pinned(&pinned, &dst))?;
    out.row("H2D from pinned memory, 4 MiB", time);
    let src = b.copy.alloc_zeros::<u32>(1 << 10)?;
    let mut host = vec![0u32; 1 << 10];
    let time = b.range(|b| b.copy.copy_to_host(&src, &mut host))?;
    out.row("D2H into a Vec, 4 KiB", time);
    Ok(())
}

/// A shape or a branch that depends on device data, and the fixed-shape fix.
pub fn data_dependent(b: &Bench, out: &mut Table) -> Result<()> {
    let n = 4096;
    let done = b.s.alloc_zeros::<i32>(n)?;
    let count = b.s.alloc_zeros::<i32>(1)?;
    let x = b.s.alloc_zeros::<f32>(n)?;
    // ANCHOR: shape
    let sized_by_data = b.range(|b| {
        b.s.fill(&count, 0)?;
        b.s.count_eq(&done, 0, &count)?; // how many are still active?
        let active = b.s.to_vec(&count)?[0] as usize; // the CPU waits for the count
        b.s.fill(x.slice(0..active), 1.0) // sized by it: `x[mask]`, `nonzero`
    })?;
    let fixed_shape = b.range(|b| {
        b.s.fill(&count, 0)?;
        b.s.count_eq(&done, 0, &count)?; // the count stays on the GPU
        b.s.fill(&x, 1.0) // every element, every time; the mask decides later
    })?;
    // ANCHOR_END: shape
    // ANCHOR: branch
    let branch = b.range(|b| {
        b.s.count_eq(&done, 1, &count)?;
        if b.s.to_vec(&count)?[0] > 0 {
            // `if done.any():` needs a Rust `bool`, so the CPU waits for it
            b.s.fill(&x, 0.0)?;
        }
        Ok(())
    })?;
    // ANCHOR_END: branch
    out.section("data-dependent shapes and control flow");
    out.row("launch sized by a count read back", sized_by_data);
    out.row("the same with a fixed shape", fixed_shape);
    out.row("`if` on a device value", branch);
    Ok(())
}

/// Raw allocation and free, and stream-ordered memory.
pub fn allocation(b: &Bench, out: &mut Table) -> Result<()> {
    let bytes = 64 << 20;
    out.section("allocation and free");
    let (mut alloc, mut free) = (Vec::new(), Vec::new());
    for _ in 0..REPS {
        // ANCHOR: free
        let mut segment = None;
        alloc.push(b.behind_gate(|b| {
            // cuMemAlloc: slow, no wait
            segment = Some(b.device.alloc_segment(bytes)?);
            Ok(())
        })?);
        let segment = segment.expect("allocated above");
        // cuMemFree: waits
        free.push(b.behind_gate(|b| b.device.free_segment(segment))?);
        // ANCHOR_END: free
    }
    out.row("alloc_segment 64 MiB (cuMemAlloc)", min_max(&alloc));
    out.row("free_segment 64 MiB (cuMemFree)", min_max(&free));
    let pooled = b.range(|b| {
        let buffer = b.s.alloc_zeros::<u32>(bytes / 4)?; // cuMemAllocAsync: stream-ordered
        drop(buffer); // cuMemFreeAsync: queued, no wait
        Ok(())
    })?;
    out.row("alloc_zeros + drop 64 MiB (stream-ordered)", pooled);
    Ok(())
}

/// Ordering two streams: a CPU wait, or a GPU wait on an event.
pub fn cpu_and_gpu_waits(b: &Bench, out: &mut Table) -> Result<()> {
    let x = b.copy.alloc_zeros::<f32>(1024)?;
    let y = b.s.alloc_zeros::<f32>(1)?;
    // ANCHOR: order
    let cpu_wait = b.range(|b| {
        b.copy.fill(&x, 1.0)?; // stands for a copy on the copy stream
        b.copy.synchronize()?; // the CPU waits for the copy stream
        b.s.sum(&x, &y)
    })?;
    let gpu_wait = b.range(|b| {
        b.copy.fill(&x, 1.0)?;
        b.s.wait_event(&b.copy.record_event()?)?; // a wait on the GPU, not the CPU
        b.s.sum(&x, &y)
    })?;
    // ANCHOR_END: order
    out.section("CPU waits and GPU waits");
    out.row("copy stream, then Stream::synchronize", cpu_wait);
    out.row("copy stream, then record + wait_event", gpu_wait);
    Ok(())
}

/// A CPU timer and events around the same GPU work.
pub fn timing(b: &Bench, out: &mut Table) -> Result<()> {
    b.device.synchronize()?;
    // ANCHOR: timing
    let cpu_start = b.device.now();
    let start = b.s.record_event()?;
    for _ in 0..10 {
        b.s.spin(Duration::from_millis(1))?;
    }
    let end = b.s.record_event()?;
    let cpu_ms = (b.device.now() - cpu_start).as_secs_f64() * 1e3; // the submit
    let gpu_ms = f64::from(start.elapsed_ms(&end)?); // the work (waits for `end`)
    // ANCHOR_END: timing
    out.section("timing 10 kernels of 1 ms");
    out.line(&format!("CPU clock around the launches: {cpu_ms:.3} ms"));
    out.line(&format!("events around the launches:    {gpu_ms:.3} ms"));
    Ok(())
}

/// Sync debug mode refusing a hidden sync: the message it gives.
pub fn sync_debug(b: &Bench, out: &mut Table) -> Result<()> {
    let x = b.s.alloc_zeros::<f32>(1)?;
    // ANCHOR: debug
    b.device.set_sync_debug(SyncDebug::Error);
    let refused = b.s.to_vec(&x).unwrap_err();
    b.device.set_sync_debug(SyncDebug::Off);
    // ANCHOR_END: debug
    out.section("sync debug mode (Error) and a to_vec");
    let text = refused.to_string();
    let text = match text.split_once(" at ") {
        // The call site is this file's line: not worth a line in the book.
        Some((before, after)) => match after.split_once(':') {
            Some((_, rest)) => format!(
                "{before} at <site>{}",
                rest.trim_start_matches(|c: char| c.is_ascii_digit() || c == ':')
            ),
            None => text.clone(),
        },
        None => text.clone(),
    };
    out.line(&text);
    Ok(())
}

/// 32 launches of a 100 µs kernel: the CPU time to submit them.
pub fn launches(s: &Stream) -> Result<f64> {
    let device = s.device();
    device.synchronize()?;
    let start = device.now();
    for _ in 0..32 {
        s.spin(Duration::from_micros(100))?;
    }
    let ms = (device.now() - start).as_secs_f64() * 1e3;
    device.synchronize()?;
    Ok(ms)
}

/// The printed table.
#[derive(Default)]
pub struct Table {
    text: String,
}

impl Table {
    /// A heading.
    pub fn section(&mut self, title: &str) {
        let _ = writeln!(self.text, "\n{title}");
    }

    /// A row: what, and the range of milliseconds.
    pub fn row(&mut self, what: &str, (lo, hi): (f64, f64)) {
        let _ = writeln!(self.text, "  {what:<46} {lo:>7.3} – {hi:.3} ms");
    }

    /// A free line.
    pub fn line(&mut self, text: &str) {
        let _ = writeln!(self.text, "  {text}");
    }

    /// The text so far.
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// The fastest and the slowest of `times`.
fn min_max(times: &[f64]) -> (f64, f64) {
    let lo = times.iter().copied().fold(f64::MAX, f64::min);
    let hi = times.iter().copied().fold(0.0, f64::max);
    (lo, hi)
}

fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
    }
}

/// Every case in the chapter's order, behind a gate of [`GATE`].
pub fn run(device: &Device) -> Result<String> {
    let b = Bench::new(device)?;
    b.s.spin(Duration::from_micros(10))?; // warm-up
    b.device.synchronize()?;
    let mut out = Table::default();
    let _ = writeln!(
        out.text,
        "\nBehind a {} ms gate on both streams, the CPU time until the calls return\n(fastest – slowest of {REPS}):",
        GATE.as_millis()
    );
    reading_values(&b, &mut out)?;
    pageable_copies(&b, &mut out)?;
    data_dependent(&b, &mut out)?;
    allocation(&b, &mut out)?;
    cpu_and_gpu_waits(&b, &mut out)?;
    timing(&b, &mut out)?;
    sync_debug(&b, &mut out)?;
    Ok(out.text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu::{Backend, DeviceOptions};

    fn virtual_device() -> Device {
        Device::with_options(DeviceOptions {
            backend: Backend::Virtual,
            quiet: true,
            ..DeviceOptions::default()
        })
        .unwrap()
    }

    /// The rows the chapter's prose relies on: each sync costs the gate, each
    /// fix microseconds.
    #[test]
    fn every_sync_waits_for_the_gate_and_every_fix_does_not() {
        let b = Bench::new(&virtual_device()).unwrap();
        let mut out = Table::default();
        reading_values(&b, &mut out).unwrap();
        data_dependent(&b, &mut out).unwrap();
        allocation(&b, &mut out).unwrap();
        cpu_and_gpu_waits(&b, &mut out).unwrap();
        let rows: Vec<(String, f64)> = out
            .text()
            .lines()
            .filter_map(|l| {
                let (what, ms) = l.trim().rsplit_once(" – ")?;
                let lo: f64 = what.rsplit(' ').find(|w| !w.is_empty())?.parse().ok()?;
                ms.trim_end_matches(" ms")
                    .parse::<f64>()
                    .ok()
                    .map(|_| (what.to_string(), lo))
            })
            .collect();
        let gate = GATE.as_secs_f64() * 1e3;
        let waits = |prefix: &str| {
            rows.iter()
                .find(|(w, _)| w.starts_with(prefix))
                .map(|&(_, lo)| lo)
                .unwrap_or_else(|| panic!("no row `{prefix}` in\n{}", out.text()))
        };
        for sync in [
            "to_vec",
            "launch sized",
            "`if`",
            "free_segment",
            "copy stream, then Stream",
        ] {
            assert!(
                waits(sync) > gate * 0.9,
                "`{sync}` should wait for the gate"
            );
        }
        for fix in [
            "copy_to_pinned",
            "the same with a fixed",
            "alloc_zeros",
            "copy stream, then record",
        ] {
            assert!(waits(fix) < gate * 0.1, "`{fix}` should not wait");
        }
    }
}
