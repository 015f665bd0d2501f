//! The chapters' figures, each drawn from the code it illustrates, so that
//! no picture can drift from what the code does: the allocator's segments and
//! blocks from the reference allocator's snapshots (`allocator`), and
//! timelines from the virtual GPU's traces (`timing`, `cpu_gpu`, `streams`,
//! `default_stream`, `hidden_syncs`, `overlap`, `graphs`, `profile`). `cargo test`
//! redraws every one and fails when a committed SVG differs, and
//!
//! ```text
//! cargo run -p workbook-benches --example figures
//! ```
//!
//! writes them again into `chapters/figures/`.

pub mod allocator;
pub mod cpu_gpu;
mod default_stream;
pub mod graphs;
pub mod hidden_syncs;
pub mod overlap;
pub mod profile;
pub mod streams;
mod timing;

use gpu::{Backend, Calibration, Device, DeviceOptions};
use std::cell::RefCell;

/// A figure drawn from one run on the virtual GPU, with what the run
/// returned and its device (for its trace and race reports): what the
/// chapters' live timelines show next to the picture.
pub struct Live<T> {
    /// The SVG, byte for byte what the static figure is for the same parameters.
    pub svg: String,
    /// What the scenario returned.
    pub run: T,
    /// The virtual GPU it ran on.
    pub device: gpu::Device,
}

thread_local! {
    /// Where this thread's live figures run: see [`run_on`].
    static ON: RefCell<On> = const { RefCell::new(On::Virtual(None)) };
}

/// Where the live figures' scenarios run.
#[derive(Clone, Debug)]
pub enum On {
    /// A fresh virtual GPU, with this cost table (`None`: the default,
    /// `GPU_CALIBRATION` or the H200's built-in table).
    Virtual(Option<Box<Calibration>>),
    /// A fresh device of the CUDA backend: a real GPU; `timed`, every
    /// operation timed with events (GPU spans in the trace, a few µs of
    /// CPU per call more).
    Cuda {
        /// Whether the trace has GPU spans.
        timed: bool,
    },
}

/// Runs `f` with every live figure's scenario opened on `on` rather than the
/// virtual GPU with its default table (on this thread, until `f` returns):
/// how the book's predictions are posed to a real GPU
/// (`widgets/examples/predictions_on_gpu.rs`), or to the virtual GPU with
/// another host's CPU costs.
pub fn run_on<T>(on: On, f: impl FnOnce() -> T) -> T {
    let before = ON.with(|cell| cell.replace(on));
    let out = f();
    ON.with(|cell| cell.replace(before));
    out
}

/// A fresh device for a live figure that prints nothing: the virtual GPU
/// with the default (H200) calibration, unless [`run_on`] chose another.
pub fn live_device() -> gpu::Result<Device> {
    device_on(true)
}

/// A fresh device like [`live_device`]'s, without GPU timing: for what the
/// two event records a timed device puts around every operation would
/// change on a real GPU (they take GPU time and the CPU's, and a pair
/// around a launch that finds the GPU idle also times the wait for it).
pub fn untimed_device() -> gpu::Result<Device> {
    device_on(false)
}

/// The device [`run_on`] chose, timed on a real GPU when asked and `timed`.
fn device_on(timed: bool) -> gpu::Result<Device> {
    let (backend, calibration, gpu_timing) = match ON.with(|cell| cell.borrow().clone()) {
        On::Virtual(calibration) => (Backend::Virtual, calibration.map(|c| *c), false),
        On::Cuda { timed: asked } => (Backend::Cuda, None, asked && timed),
    };
    Device::with_options(DeviceOptions {
        backend,
        calibration,
        gpu_timing,
        quiet: true,
        ..DeviceOptions::default()
    })
}

/// Every figure: its file name under `chapters/figures/` and its SVG text.
pub fn all() -> Vec<(&'static str, String)> {
    let mut figures = vec![
        ("allocator-split-merge.svg", allocator::split_and_merge()),
        ("allocator-fragmentation.svg", allocator::fragmentation()),
        ("allocator-record-stream.svg", allocator::record_stream()),
        ("allocator-seams.svg", allocator::seams()),
        ("cpu-gpu-launch-loop.svg", cpu_gpu::launch_loop()),
        ("cpu-gpu-compute-bound.svg", cpu_gpu::compute_bound_loop()),
        ("cpu-and-gpu-timing.svg", timing::measurement()),
        ("streams-one-stream.svg", streams::serial()),
        ("streams-copy-overlap.svg", streams::overlapped()),
        ("streams-legacy-default.svg", default_stream::stray()),
        ("hidden-syncs-every-step.svg", hidden_syncs::every_step()),
        ("hidden-syncs-per-window.svg", hidden_syncs::per_window()),
        ("overlap-naive.svg", overlap::naive()),
        ("overlap-overlapped.svg", overlap::overlapped()),
        ("profile-step.svg", profile::step()),
    ];
    figures.extend(graphs::all());
    figures
}

#[cfg(test)]
mod tests {
    use super::all;

    #[test]
    fn the_committed_figures_are_up_to_date() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../chapters/figures");
        for (name, svg) in all() {
            let path = format!("{dir}/{name}");
            let committed = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                committed == svg,
                "`{path}` is missing or stale: run `cargo run -p workbook-benches --example figures`"
            );
        }
    }
}
