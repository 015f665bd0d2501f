//! A decode step replayed from CUDA graphs, one graph per batch-size bucket.
//!
//! The model ([`Model`]) is a stack of [`LAYERS`] tiny layers: run eagerly,
//! a step costs the CPU one launch per layer, far more than the GPU needs to
//! compute it. A graph submits the whole stack with one launch, but it
//! replays fixed kernels on fixed addresses and fixed sizes. So the
//! [`Runner`]:
//!
//! * allocates static buffers for [`MAX_ROWS`] rows once: the input, the
//!   output and two scratch buffers the layers ping-pong between;
//! * warms the model up eagerly on a side stream, then captures one graph
//!   per bucket in [`BUCKETS`], each over the first `bucket` rows of the
//!   static buffers;
//! * for each batch of a decode: picks the smallest bucket that holds it
//!   ([`bucket_for`]), copies the batch into the static input, fills the
//!   padding rows with zeros, launches that bucket's graph, and copies the
//!   real rows out of the static output before the next replay overwrites
//!   them.

mod error;
mod model;

pub use error::Error;
pub use model::{LAYERS, Model, WIDTH};

use gpu::{DeviceBuffer, Graph, Stream, View};

/// The batch sizes a graph is captured for.
pub const BUCKETS: [usize; 5] = [1, 2, 4, 8, 16];
/// The largest batch a step takes: the largest bucket.
pub const MAX_ROWS: usize = 16;

// ANCHOR: bucket_for
/// The smallest bucket that holds `rows` rows; `None` for 0 rows or more
/// than [`MAX_ROWS`].
pub fn bucket_for(rows: usize) -> Option<usize> {
    if rows == 0 {
        return None;
    }
    BUCKETS.iter().copied().find(|&bucket| bucket >= rows)
}
// ANCHOR_END: bucket_for

/// Runs decode steps of a changing batch size with one graph launch each.
pub struct Runner {
    stream: Stream,
    static_in: DeviceBuffer<f32>,
    static_out: DeviceBuffer<f32>,
    // The scratch buffers are only used by the graphs, but the graphs hold
    // their addresses: they must live as long as the graphs do.
    _scratch: [DeviceBuffer<f32>; 2],
    /// One graph per bucket, in the order of [`BUCKETS`].
    graphs: Vec<Graph>,
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Runner({} graphs on {:?})",
            self.graphs.len(),
            self.stream
        )
    }
}

impl Runner {
    // ANCHOR: new
    /// Allocates the static buffers, warms `model` up, and captures one
    /// graph per bucket on `stream`. Everything that allocates, compiles or
    /// waits happens here, before the first step.
    pub fn new(stream: &Stream, model: &Model) -> Result<Self, Error> {
        let len = MAX_ROWS * WIDTH;
        let static_in = stream.alloc_zeros::<f32>(len)?;
        let static_out = stream.alloc_zeros::<f32>(len)?;
        let scratch = [stream.alloc_zeros::<f32>(len)?, stream.alloc_zeros(len)?];
        let views = |rows: usize| {
            let n = rows * WIDTH;
            let s = [scratch[0].slice(0..n), scratch[1].slice(0..n)];
            (static_in.slice(0..n), static_out.slice(0..n), s)
        };
        warm_up(stream, model, &views(MAX_ROWS))?;
        let mut graphs = Vec::with_capacity(BUCKETS.len());
        for bucket in BUCKETS {
            let (x, y, s) = views(bucket);
            stream.begin_capture()?;
            model.forward(stream, x, y, s)?;
            graphs.push(stream.end_capture()?);
        }
        Ok(Self {
            stream: stream.clone(),
            static_in,
            static_out,
            _scratch: scratch,
            graphs,
        })
    }
    // ANCHOR_END: new

    // ANCHOR: decode
    /// Runs one step per batch: `outputs[i]` gets the model's output for
    /// `inputs[i]`. A batch is 1 to [`MAX_ROWS`] rows of [`WIDTH`] elements,
    /// and `outputs[i]` has the length of `inputs[i]`. Everything is queued
    /// on the runner's stream; nothing here waits for the GPU.
    pub fn decode(&mut self, inputs: &[View<f32>], outputs: &[View<f32>]) -> Result<(), Error> {
        check_batches(inputs, outputs)?;
        for (&x, &y) in inputs.iter().zip(outputs) {
            let rows = x.len() / WIDTH;
            let bucket = bucket_for(rows).ok_or(Error::BatchSize { rows })?;
            let graph = &self.graphs[BUCKETS.iter().position(|&b| b == bucket).expect("a bucket")];
            let (real, padded) = (rows * WIDTH, bucket * WIDTH);
            // The graph reads the static input: the batch must be there.
            self.stream.copy(x, self.static_in.slice(0..real))?;
            if padded > real {
                // Padding rows hold defined values, never a stale request.
                self.stream.fill(self.static_in.slice(real..padded), 0.0)?;
            }
            graph.launch()?;
            // The next replay overwrites the static output: copy the real
            // rows out now, in stream order, before that replay is queued.
            self.stream.copy(self.static_out.slice(0..real), y)?;
        }
        Ok(())
    }
    // ANCHOR_END: decode
}

// ANCHOR: warm_up
/// Runs the model once eagerly on a side stream, outside any capture, so that
/// whatever a first run sets up happens now; then orders `stream` after it.
fn warm_up(
    stream: &Stream,
    model: &Model,
    (x, y, scratch): &(View<f32>, View<f32>, [View<f32>; 2]),
) -> Result<(), Error> {
    let side = stream.device().new_stream()?;
    // The static buffers were zeroed on `stream`: the side stream waits.
    side.wait_event(&stream.record_event()?)?;
    model.forward(&side, *x, *y, *scratch)?;
    // The captures (and every replay) come after the warm-up's writes.
    stream.wait_event(&side.record_event()?)?;
    Ok(())
}
// ANCHOR_END: warm_up

/// Checks that every batch has 1 to [`MAX_ROWS`] whole rows and an output
/// of its length.
fn check_batches(inputs: &[View<f32>], outputs: &[View<f32>]) -> Result<(), Error> {
    if inputs.len() != outputs.len() {
        return Err(Error::Batches {
            inputs: inputs.len(),
            outputs: outputs.len(),
        });
    }
    for (index, (x, y)) in inputs.iter().zip(outputs).enumerate() {
        if !x.len().is_multiple_of(WIDTH) || x.len() != y.len() {
            return Err(Error::Shape {
                index,
                input: x.len(),
                output: y.len(),
            });
        }
        let rows = x.len() / WIDTH;
        if bucket_for(rows).is_none() {
            return Err(Error::BatchSize { rows });
        }
    }
    Ok(())
}
