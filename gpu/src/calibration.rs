//! The cost table of the virtual GPU.
//!
//! The defaults are what an H200 (driver 580, CUDA 13.0) measured; see
//! `DESIGN.md` section 3 and the book's measurement appendix. On a real GPU,
//! [`crate::measure()`] measures the same quantities again, and
//! [`Calibration::save`] / [`Calibration::load`] keep them in a JSON file that
//! the virtual GPU can load (`GPU_CALIBRATION=path`).

use crate::error::{GpuError, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Costs of the virtual GPU. Times are nanoseconds, bandwidths bytes per ns (= GB/s).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Calibration {
    /// Where the figures come from (a GPU name and a date).
    pub source: String,
    /// Device memory, bytes.
    pub total_memory: u64,
    /// CPU time of one kernel launch.
    pub launch_ns: u64,
    /// GPU time of the smallest kernel launched on its own.
    pub kernel_min_ns: u64,
    /// GPU time of the smallest kernel inside a graph.
    pub graph_node_ns: u64,
    /// CPU time of one graph launch.
    pub graph_launch_ns: u64,
    /// CPU time to begin a capture.
    pub begin_capture_ns: u64,
    /// CPU time to end a capture and instantiate it: fixed part.
    pub end_capture_ns: u64,
    /// CPU time to instantiate: per node.
    pub instantiate_node_ns: u64,
    /// Device memory bandwidth seen by kernels (measured with a `fill`:
    /// bytes written per ns).
    pub hbm_bytes_per_ns: f64,
    /// Bytes per ns that `sum` reads: a multi-block reduction, bound by
    /// device memory bandwidth. A table saved before this field existed
    /// loads with the default.
    #[serde(default = "default_sum_bytes_per_ns")]
    pub sum_bytes_per_ns: f64,
    /// Arithmetic rate of the decoder step (multiply-adds count as 2).
    pub flops_per_ns: f64,
    /// CPU time to submit an asynchronous copy.
    pub copy_submit_ns: u64,
    /// Host-to-device bandwidth from pinned memory.
    pub pinned_h2d_bytes_per_ns: f64,
    /// Device-to-host bandwidth into pinned memory.
    pub pinned_d2h_bytes_per_ns: f64,
    /// Host-to-device bandwidth from pageable memory, once moving.
    pub pageable_h2d_bytes_per_ns: f64,
    /// Device-to-host bandwidth into pageable memory.
    pub pageable_d2h_bytes_per_ns: f64,
    /// Device-to-device copy bandwidth: bytes copied per ns. Each byte is
    /// read and written, so device memory moves twice as many.
    pub d2d_bytes_per_ns: f64,
    /// Size of the driver's staging buffer for pageable host-to-device copies:
    /// copies up to this size return once staged, larger ones wait for the stream.
    pub staging_bytes: u64,
    /// CPU bandwidth of copying into the staging buffer.
    pub staging_bytes_per_ns: f64,
    /// How many pageable host-to-device copies can be staged at once; one
    /// more waits until the oldest has drained.
    pub staging_slots: u64,
    /// Pageable host-to-device copies up to this size travel in the command
    /// stream itself: they never wait for a staging slot.
    pub inline_bytes: u64,
    /// CPU time of a call that returns at once (record, wait, query, a sync with nothing to wait for).
    pub api_call_ns: u64,
    /// CPU time a synchronizing call spends after the work it waited for completes.
    pub wake_ns: u64,
    /// CPU time of `cuMemAlloc`.
    pub segment_alloc_ns: u64,
    /// CPU time of `cuMemFree` once the device is idle.
    pub segment_free_ns: u64,
    /// CPU time of a stream-ordered allocation from the pool.
    pub pool_alloc_ns: u64,
    /// CPU time of `cuMemHostAlloc`.
    pub pinned_alloc_ns: u64,
    /// CPU time of `cuMemFreeHost` once the device is idle.
    pub pinned_free_ns: u64,
    /// CPU time of creating a stream or an event.
    pub create_ns: u64,
}

impl Default for Calibration {
    /// An H200 (driver 580, CUDA 13.0): the figures of `DESIGN.md` section 3
    /// where it has them (launch, graph node, copies from pageable memory,
    /// staging, `cuMemAlloc`), the rest measured by [`crate::measure()`] on an H200 on
    /// 2026-11-29 (`cargo run --release -p gpu --example calibrate`), except
    /// `sum_bytes_per_ns`, assumed until it is measured (see its default).
    fn default() -> Self {
        Self {
            source: "NVIDIA H200, driver 580, CUDA 13.0: DESIGN.md section 3 and gpu::measure, 2026-11-29".into(),
            total_memory: 150_109_880_320,
            launch_ns: 4_000,
            kernel_min_ns: 1_400,
            graph_node_ns: 700,
            graph_launch_ns: 7_000,
            begin_capture_ns: 2_000,
            end_capture_ns: 25_000,
            instantiate_node_ns: 3_000,
            hbm_bytes_per_ns: 1_700.0,
            sum_bytes_per_ns: default_sum_bytes_per_ns(),
            flops_per_ns: 50.0,
            copy_submit_ns: 6_000,
            pinned_h2d_bytes_per_ns: 55.0,
            pinned_d2h_bytes_per_ns: 55.0,
            pageable_h2d_bytes_per_ns: 5.5,
            pageable_d2h_bytes_per_ns: 1.0,
            d2d_bytes_per_ns: 2_400.0,
            staging_bytes: 2 << 20,
            staging_bytes_per_ns: 5.0,
            staging_slots: 2,
            inline_bytes: 64 << 10,
            api_call_ns: 2_800,
            wake_ns: 5_000,
            segment_alloc_ns: 300_000,
            segment_free_ns: 100_000,
            pool_alloc_ns: 80_000,
            pinned_alloc_ns: 2_000_000,
            pinned_free_ns: 700_000,
            create_ns: 4_000,
        }
    }
}

/// The default of [`Calibration::sum_bytes_per_ns`], not yet measured on the
/// H200: an assumption. `sum` is a multi-block reduction (1024 blocks of 256
/// threads for 4 Mi elements, 8 loads in flight per thread), which should
/// stream its input at about three quarters of the H200's 4.8 TB/s HBM3e
/// peak, as bandwidth-bound reads do. `calibrate` measures it.
fn default_sum_bytes_per_ns() -> f64 {
    3_600.0
}

impl Calibration {
    /// Reads a table saved by [`Calibration::save`].
    pub fn load(path: &Path) -> Result<Self> {
        let err = |detail: String| GpuError::Calibration {
            path: path.display().to_string(),
            detail,
        };
        let text =
            std::fs::read_to_string(path).map_err(|e| err(format!("cannot read it: {e}")))?;
        serde_json::from_str(&text).map_err(|e| err(format!("not a calibration table: {e}")))
    }

    /// Writes the table as JSON.
    pub fn save(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).expect("a calibration serializes");
        std::fs::write(path, text + "\n").map_err(|e| GpuError::Calibration {
            path: path.display().to_string(),
            detail: format!("cannot write it: {e}"),
        })
    }

    /// The table named by `GPU_CALIBRATION`, or the defaults.
    pub fn from_env() -> Result<Self> {
        match std::env::var_os("GPU_CALIBRATION") {
            Some(path) => Self::load(Path::new(&path)),
            None => Ok(Self::default()),
        }
    }
}
