//! The cost table of the virtual GPU.
//!
//! The defaults are what an H200 measured: `gpu/calibration/h200.json`, the
//! table `cargo run --release -p gpu --example calibrate -- h200.json` saved
//! there (its `source` names the driver and the date), built into the crate.
//! On a real GPU,
//! [`crate::measure()`] measures the same quantities again, and
//! [`Calibration::save`] / [`Calibration::load`] keep them in a JSON file that
//! the virtual GPU can load (`GPU_CALIBRATION=path`).

use crate::error::{GpuError, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::LazyLock;

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

/// The H200's table, committed as `gpu/calibration/h200.json`: what
/// `cargo run --release -p gpu --example calibrate -- h200.json` measured on
/// an NVIDIA H200 (its `source` names the driver and the date).
const H200_JSON: &str = include_str!("../calibration/h200.json");

/// [`H200_JSON`], parsed once.
static H200: LazyLock<Calibration> =
    LazyLock::new(|| serde_json::from_str(H200_JSON).expect("gpu/calibration/h200.json parses"));

impl Default for Calibration {
    /// The H200's measured table: `gpu/calibration/h200.json`, built into the
    /// crate. Its `source` says where, when and with which driver it was
    /// measured.
    fn default() -> Self {
        H200.clone()
    }
}

/// The default of [`Calibration::sum_bytes_per_ns`] for a table saved before
/// the field existed: the H200's.
fn default_sum_bytes_per_ns() -> f64 {
    H200.sum_bytes_per_ns
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed H200 table, read from disk as `GPU_CALIBRATION` would.
    fn committed() -> Calibration {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("calibration/h200.json");
        Calibration::load(&path).expect("the committed table loads")
    }

    #[test]
    fn the_defaults_are_the_committed_h200_table() {
        assert_eq!(Calibration::default(), committed());
    }

    #[test]
    fn the_committed_table_names_its_gpu_driver_and_date() {
        let source = committed().source;
        assert!(source.contains("H200"), "{source}");
        assert!(source.contains("driver 580."), "{source}");
        let date = source.rsplit(", ").next().unwrap_or_default();
        let digits: Vec<_> = date.split('-').map(str::parse::<u32>).collect();
        assert!(
            digits.len() == 3 && digits.iter().all(|d| d.is_ok()),
            "{source}: no date at the end"
        );
    }

    #[test]
    fn a_table_saved_before_the_sum_rate_existed_loads_with_the_h200s() {
        let mut table = serde_json::to_value(Calibration::default()).unwrap();
        table.as_object_mut().unwrap().remove("sum_bytes_per_ns");
        table["launch_ns"] = 1.into();
        let loaded: Calibration = serde_json::from_value(table).unwrap();
        assert_eq!(
            loaded.sum_bytes_per_ns,
            Calibration::default().sum_bytes_per_ns
        );
        assert_eq!(loaded.launch_ns, 1);
    }
}
