//! Given: one graph per bucket, captured over shared static buffers.
//!
//! Every bucket's graph is one `decode_step` over the first `bucket` rows
//! of the same static input and output, which hold [`MAX_ROWS`] tokens
//! each: a stream runs one graph at a time, so the buckets can share them.

use gpu::{Decoder, DeviceBuffer, Graph, Result, Stream, View};

/// The batch sizes a graph is captured for, smallest first.
pub const BUCKETS: [usize; 4] = [1, 2, 4, 8];
/// The largest batch a step takes: the largest bucket.
pub const MAX_ROWS: usize = 8;
/// The padding token: what the rows between a batch and its bucket hold
/// when the graph runs. Token 0 is a token like any other for the decoder,
/// so the padding rows compute something defined, which nobody reads.
pub const PAD: i32 = 0;

/// The static input and output, and one graph per bucket over them.
#[derive(Debug)]
pub struct Buckets {
    input: DeviceBuffer<i32>,
    output: DeviceBuffer<i32>,
    /// One graph per bucket, in the order of [`BUCKETS`].
    graphs: Vec<Graph>,
}

impl Buckets {
    /// Allocates the static input and output ([`MAX_ROWS`] tokens each,
    /// zeros) and captures, for each bucket, one `decode_step` of `decoder`
    /// from the first `bucket` rows of the input into those of the output.
    pub fn capture(stream: &Stream, decoder: &Decoder) -> Result<Self> {
        let input = stream.alloc_zeros::<i32>(MAX_ROWS)?;
        let output = stream.alloc_zeros::<i32>(MAX_ROWS)?;
        let mut graphs = Vec::with_capacity(BUCKETS.len());
        for bucket in BUCKETS {
            stream.begin_capture()?;
            stream.decode_step(decoder, input.slice(0..bucket), output.slice(0..bucket))?;
            graphs.push(stream.end_capture()?);
        }
        Ok(Self {
            input,
            output,
            graphs,
        })
    }

    /// Rows `rows` of the static input, the tokens every graph decodes from.
    pub fn input(&self, rows: std::ops::Range<usize>) -> View<i32> {
        self.input.slice(rows)
    }

    /// Rows `rows` of the static output, where every graph writes.
    pub fn output(&self, rows: std::ops::Range<usize>) -> View<i32> {
        self.output.slice(rows)
    }

    /// The graph of `bucket` (one of [`BUCKETS`]): it decodes rows
    /// `0..bucket` of the static input into the same rows of the output.
    ///
    /// # Panics
    /// When `bucket` is not one of [`BUCKETS`].
    pub fn graph(&self, bucket: usize) -> &Graph {
        let Some(index) = BUCKETS.iter().position(|&b| b == bucket) else {
            panic!("{bucket} is not a bucket: the graphs are captured for {BUCKETS:?}");
        };
        &self.graphs[index]
    }
}
