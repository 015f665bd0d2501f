//! The judge's own engine step: the reference solution's step, with each
//! of the four regressions one knob away ([`Change`]). The pairs of part 1
//! are steps of it before and after a change; the time of part 2 is
//! measured against its unchanged step.

use gpu::{Device, DeviceBuffer, Event, PinnedBuffer, Segment, Stream};
use std::time::Duration;

/// Requests in a batch (the exercise's `ROWS`).
pub(super) const ROWS: usize = 32;
/// Columns of a batch in part 2 (the exercise's `COLS`).
pub(super) const COLS: usize = 65_536;
/// Decoder layers (the exercise's `LAYERS`).
pub(super) const LAYERS: usize = 4;
/// The layer whose MLP turns the batch into scores (the exercise's `SPLIT_LAYER`).
pub(super) const SPLIT_LAYER: usize = 2;

/// The kernels' lengths and the batch's size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Shape {
    /// The embedding's kernel, µs.
    pub(super) embed_us: u64,
    /// Each layer's attention kernels, µs.
    pub(super) attention_us: [u64; 4],
    /// Each layer's MLP kernels (up, down), µs.
    pub(super) mlp_us: [u64; 2],
    /// Columns of a batch: its copy is `ROWS × cols` floats.
    pub(super) cols: usize,
}

/// The exercise's step: the shape of the reference solution.
pub(super) const EXERCISE: Shape = Shape {
    embed_us: 20,
    attention_us: [30, 20, 15, 25],
    mlp_us: [40, 40],
    cols: COLS,
};

/// What a step does otherwise than the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Change {
    /// Nothing.
    None,
    /// The CPU waits after layer `layer`'s MLP: a synchronize, or with
    /// `read` a read of one value into a `Vec`.
    Sync { layer: usize, read: bool },
    /// The next batch's copy on the compute stream.
    CopyOnCompute,
    /// The copy on its own stream, but after the layers, and the sampling
    /// after it.
    CopyWaitsForCompute,
    /// Layer `layer`'s attention (or MLP) as 1 µs kernels, as many as its
    /// microseconds.
    Split { layer: usize, attention: bool },
    /// A raw scratch segment allocated at the step's start (or in layer
    /// `layer`) and freed before the read.
    Alloc { layer: Option<usize> },
}

/// A device, its streams and the buffers of the steps.
pub(super) struct Rig {
    pub(super) device: Device,
    pub(super) compute: Stream,
    copy: Stream,
    shape: Shape,
    batches: [DeviceBuffer<f32>; 2],
    work: DeviceBuffer<f32>,
    tokens: DeviceBuffer<i32>,
    probe: DeviceBuffer<f32>,
    next: PinnedBuffer<f32>,
    arrived: Event,
    steps: usize,
    /// A layer whose first attention kernel is 60% longer: a slower
    /// kernel, which is no regression of the four.
    pub(super) slower: Option<usize>,
}

impl Rig {
    /// A rig of `shape` on `device`, the first batch arrived.
    pub(super) fn new(device: &Device, shape: Shape) -> gpu::Result<Self> {
        Self::on(device.new_stream()?, shape)
    }

    /// A rig of `shape` whose layers run on `compute`.
    pub(super) fn on(compute: Stream, shape: Shape) -> gpu::Result<Self> {
        let device = compute.device().clone();
        let floats = ROWS * shape.cols;
        let rig = Self {
            copy: device.new_stream()?,
            batches: [compute.alloc_zeros(floats)?, compute.alloc_zeros(floats)?],
            work: compute.alloc_zeros(floats)?,
            tokens: compute.alloc_zeros(ROWS)?,
            probe: compute.alloc_zeros(1)?,
            next: compute.device().alloc_pinned(floats)?,
            arrived: compute.record_event()?,
            device,
            compute,
            shape,
            steps: 0,
            slower: None,
        };
        rig.device.synchronize()?;
        Ok(rig)
    }

    /// The trace's `seq` of the next call.
    fn mark(&self) -> u64 {
        self.device.trace_mark()
    }

    /// One step with `change`; the `seq` of the call the change is about
    /// (the wait, the copy, the allocation), if any.
    pub(super) fn step(&mut self, change: Change) -> gpu::Result<Option<u64>> {
        let device = self.device.clone();
        let _step = device.range("step");
        let mut at = None;
        let scratch = match change {
            Change::Alloc { layer: None } => Some(self.alloc(&mut at)?),
            _ => None,
        };
        self.compute.wait_event(&self.arrived)?;
        if change != Change::CopyWaitsForCompute {
            let _prefetch = device.range("prefetch");
            at = at.or(self.prefetch(change == Change::CopyOnCompute)?);
        }
        let in_layers = self.layers(change, &mut at)?;
        let scratch = scratch.or(in_layers);
        if change == Change::CopyWaitsForCompute {
            let _prefetch = device.range("prefetch");
            self.copy.wait_event(&self.compute.record_event()?)?;
            at = self.prefetch(false)?;
            self.compute.wait_event(&self.arrived)?;
        }
        {
            let _sample = device.range("sample");
            self.compute
                .argmax_rows(&self.work, ROWS, self.shape.cols, &self.tokens)?;
        }
        if let Some(segment) = scratch {
            device.free_segment(segment)?;
        }
        self.steps += 1;
        let _read = device.range("read tokens");
        self.compute.to_vec(&self.tokens)?;
        Ok(at)
    }

    /// Allocates the scratch segment; its `seq` in `at`.
    fn alloc(&self, at: &mut Option<u64>) -> gpu::Result<Segment> {
        *at = Some(self.mark());
        self.device.alloc_segment(ROWS * self.shape.cols * 4)
    }

    /// Queues the next batch's copy, on the compute stream or its own;
    /// returns its `seq`.
    fn prefetch(&mut self, on_compute: bool) -> gpu::Result<Option<u64>> {
        let stream = if on_compute {
            &self.compute
        } else {
            &self.copy
        };
        let upcoming = &self.batches[(self.steps + 1) % 2];
        let seq = self.mark();
        stream.copy_from_pinned(&self.next, upcoming)?;
        self.arrived = stream.record_event()?;
        Ok(Some(seq))
    }

    /// The embedding and the layers; a scratch segment allocated in them.
    fn layers(&self, change: Change, at: &mut Option<u64>) -> gpu::Result<Option<Segment>> {
        let (s, device) = (&self.compute, &self.device);
        let mut scratch = None;
        {
            let _embed = device.range("embed");
            s.spin(us(self.shape.embed_us))?;
        }
        for layer in 0..LAYERS {
            let _layer = device.range(&format!("layer.{layer}"));
            if change == (Change::Alloc { layer: Some(layer) }) {
                scratch = Some(self.alloc(at)?);
            }
            let split = |attention| change == Change::Split { layer, attention };
            {
                let _attention = device.range(&format!("layer.{layer}.attention"));
                let mut kernels = self.shape.attention_us;
                if self.slower == Some(layer) {
                    kernels[0] = kernels[0] * 8 / 5;
                }
                self.kernels(&kernels, split(true))?;
            }
            {
                let _mlp = device.range(&format!("layer.{layer}.mlp"));
                self.kernels(&self.shape.mlp_us[..1], split(false))?;
                if layer == SPLIT_LAYER {
                    let batch = &self.batches[self.steps % 2];
                    s.affine(batch, -1.0, 0.0, &self.work)?;
                }
                self.kernels(&self.shape.mlp_us[1..], split(false))?;
            }
            if let Change::Sync { layer: l, read } = change
                && l == layer
            {
                *at = Some(self.mark());
                if read {
                    s.to_vec(&self.probe)?;
                } else {
                    s.synchronize()?;
                }
            }
        }
        Ok(scratch)
    }

    /// Spins of `lengths` µs, or with `split` as many 1 µs spins as their
    /// microseconds.
    fn kernels(&self, lengths: &[u64], split: bool) -> gpu::Result<()> {
        for &length in lengths {
            if split {
                for _ in 0..length {
                    self.compute.spin(us(1))?;
                }
            } else {
                self.compute.spin(us(length))?;
            }
        }
        Ok(())
    }
}

/// `n` microseconds.
fn us(n: u64) -> Duration {
    Duration::from_micros(n)
}
