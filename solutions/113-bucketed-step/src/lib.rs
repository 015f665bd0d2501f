//! A batch of any size, run by the graph of the smallest bucket that holds
//! it.
//!
//! A graph's shape is fixed at capture, and batch sizes change at every
//! step. So graphs are captured for a few batch sizes, the buckets, over
//! shared static buffers ([`Buckets`], given). A step of `n` rows:
//!
//! * picks the smallest bucket of at least `n` rows ([`bucket_for`]);
//! * copies the batch into the first `n` rows of the static input, and
//!   fills the rows after it, up to the bucket, with [`PAD`]: the graph
//!   computes every row of its bucket, and without the padding those rows
//!   would hold an earlier, bigger batch's tokens;
//! * launches that bucket's graph;
//! * copies the first `n` rows of the static output to the caller.
//!
//! An empty batch is no step; a batch bigger than the largest bucket is
//! [`Error::TooManyRows`].

mod buckets;
mod error;

pub use buckets::{BUCKETS, Buckets, MAX_ROWS, PAD};
pub use error::Error;

use gpu::{Decoder, Stream, View};

// ANCHOR: bucket_for
/// The smallest bucket that holds `rows` rows (the smallest, 1, for none);
/// `None` for more than [`MAX_ROWS`].
pub fn bucket_for(rows: usize) -> Option<usize> {
    BUCKETS.iter().copied().find(|&bucket| bucket >= rows)
}
// ANCHOR_END: bucket_for

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

    // ANCHOR: step
    /// One step: `next` gets the tokens the decoder chooses after `tokens`
    /// (both `n` long, on the device). Queued on the stream given to
    /// [`BucketedStep::new`]; nothing here waits for the GPU. An empty batch
    /// queues nothing; more than [`MAX_ROWS`] rows is
    /// [`Error::TooManyRows`].
    pub fn step(&mut self, tokens: View<i32>, next: View<i32>) -> Result<(), Error> {
        let n = tokens.len();
        if n == 0 {
            return Ok(());
        }
        let bucket = bucket_for(n).ok_or(Error::TooManyRows {
            rows: n,
            max: MAX_ROWS,
        })?;
        let stream = &self.stream;
        stream.copy(tokens, self.buckets.input(0..n))?;
        if bucket > n {
            // The graph computes rows n..bucket too: never from stale tokens.
            stream.fill(self.buckets.input(n..bucket), PAD)?;
        }
        self.buckets.graph(bucket).launch()?;
        // Only the batch's rows: the padding's are nobody's.
        stream.copy(self.buckets.output(0..n), next)?;
        Ok(())
    }
    // ANCHOR_END: step
}
