//! A batch of any size, run by the graph of the smallest bucket that holds
//! it.
//!
//! A graph's shape is fixed at capture, and batch sizes change at every
//! step. So graphs are captured for a few batch sizes, the buckets, over
//! shared static buffers ([`Buckets`], given in `src/buckets.rs`). You
//! write [`bucket_for`] and [`BucketedStep::step`] (see `README.md`).

mod buckets;
mod error;

pub use buckets::{BUCKETS, Buckets, MAX_ROWS, PAD};
pub use error::Error;

use gpu::{Decoder, Stream, View};

/// The smallest bucket that holds `rows` rows (the smallest, 1, for none);
/// `None` for more than [`MAX_ROWS`].
pub fn bucket_for(rows: usize) -> Option<usize> {
    // TODO: the first of `BUCKETS` that is at least `rows`.
    todo!("the smallest bucket for {rows} rows")
}

/// Decode steps of a changing batch size, each one graph launch.
#[derive(Debug)]
pub struct BucketedStep {
    stream: Stream,
    buckets: Buckets,
}

impl BucketedStep {
    /// Captures one graph per bucket on `stream` (given: [`Buckets`]).
    pub fn new(stream: &Stream, decoder: &Decoder) -> Result<Self, Error> {
        Ok(Self {
            stream: stream.clone(),
            buckets: Buckets::capture(stream, decoder)?,
        })
    }

    /// The static input and output, whole: what the judge reads between
    /// steps (given).
    pub fn static_buffers(&self) -> (View<i32>, View<i32>) {
        (
            self.buckets.input(0..MAX_ROWS),
            self.buckets.output(0..MAX_ROWS),
        )
    }

    /// One step: `next` gets the tokens the decoder chooses after `tokens`
    /// (both `n` long, on the device). Queued on the stream given to
    /// [`BucketedStep::new`]; nothing here waits for the GPU. An empty batch
    /// queues nothing; more than [`MAX_ROWS`] rows is
    /// [`Error::TooManyRows`].
    pub fn step(&mut self, tokens: View<i32>, next: View<i32>) -> Result<(), Error> {
        // TODO: pick the bucket; copy `tokens` into the first rows of
        // `self.buckets.input(..)` and fill the rows after them, up to the
        // bucket, with `PAD`; launch `self.buckets.graph(bucket)`; copy the
        // batch's rows of `self.buckets.output(..)` into `next`.
        let _ = (&self.stream, next);
        todo!("one step of {} rows", tokens.len())
    }
}
