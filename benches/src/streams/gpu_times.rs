//! What the copies and the sums of a copy/compute run took on the GPU, read
//! from the GPU start and end times that the trace gives each operation.

use super::CHUNK;
use crate::Summary;
use gpu::{OpKind, TraceEntry};

/// What one copy and one sum of a run took on the GPU: the medians, over the
/// run's chunks, of the time from the GPU start to the GPU end of each, as
/// the trace gives them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuTimes {
    /// A chunk's copy to the device, ns.
    pub copy_ns: f64,
    /// A chunk's sum (the compute's wait, then the reduction), ns.
    pub sum_ns: f64,
}

/// Which side of a copy/compute pipeline takes longer on the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Longer {
    /// The copies, by more than a tenth.
    Copies,
    /// The sums, by more than a tenth.
    Sums,
    /// Neither: the two are within a tenth of each other.
    Neither,
}

impl GpuTimes {
    /// The GPU times of the chunk copies and the `sum_f32` launches among
    /// `entries` (one run), or `None` if any of them has none.
    pub fn of(entries: &[TraceEntry]) -> Option<Self> {
        let median = |keep: &dyn Fn(&TraceEntry) -> bool| -> Option<f64> {
            let spans = entries
                .iter()
                .filter(|e| keep(e))
                .map(|e| e.gpu.map(|g| (g.end_ns - g.start_ns) as f64))
                .collect::<Option<Vec<f64>>>()?;
            (!spans.is_empty()).then(|| Summary::of(spans).median)
        };
        let chunk_bytes = (CHUNK * size_of::<f32>()) as u64;
        Some(Self {
            copy_ns: median(&|e| e.op == OpKind::CopyHostToDevice && e.bytes == chunk_bytes)?,
            sum_ns: median(&|e| e.op == OpKind::Launch && e.name == "sum_f32")?,
        })
    }

    /// The longer side, where one is longer than the other by more than a tenth.
    pub fn longer(&self) -> Longer {
        match self.sum_ns / self.copy_ns {
            r if r > 1.1 => Longer::Sums,
            r if r < 1.0 / 1.1 => Longer::Copies,
            _ => Longer::Neither,
        }
    }
}
