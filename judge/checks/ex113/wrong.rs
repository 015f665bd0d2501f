//! Bucketed steps for the suite's own tests, written with the `gpu` crate
//! and the given graphs (`Buckets`): another right way (the whole bucket
//! filled before the batch is copied in) and the known-wrong steps whose
//! messages `tests.rs` snapshots, each one mistake in the solution's step.

use super::support::Stepper;
use bucketed_step::{BUCKETS, Buckets, Error, MAX_ROWS, PAD};
use gpu::{Decoder, Stream, View};

/// A mistake in the solution's step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mistake {
    /// None: the solution.
    None,
    /// None either: the whole bucket filled with `PAD`, then the batch
    /// copied over its first rows.
    FillsTheBucketFirst,
    /// The padding rows are never written.
    NoPadding,
    /// The padding fill begins at the batch's last row.
    PaddingFromTheLastRow,
    /// The padding is filled after the graph launch.
    PaddingAfterTheLaunch,
    /// The padding is filled with -1, not `PAD`.
    PadsWithMinusOne,
    /// The padding rows of the static output are filled, not the input's.
    PadsTheStaticOutput,
    /// The copy out is queued before the graph launch.
    CopiesOutBeforeTheLaunch,
    /// Every batch runs the largest bucket's graph.
    AlwaysTheLargestBucket,
    /// The bucket is the largest that fits inside the batch.
    RoundsDown,
    /// The bucket is the first strictly bigger than the batch.
    StrictlyBigger,
    /// An empty batch runs the smallest bucket's graph.
    EmptyBatchLaunches,
    /// An empty batch is refused.
    EmptyBatchRefused,
    /// The batch is never copied into the static input.
    NotCopiedIn,
    /// The static output is never copied into `next`.
    NotCopiedOut,
    /// The whole bucket of the static output is copied into `next`.
    CopiesOutTheBucket,
    /// The stream synchronizes after the launch.
    Synchronizes,
    /// The output goes to `next` through a `Vec`.
    ReadsThroughAVec,
    /// The step runs `decode_step` eagerly on the static buffers.
    Eager,
    /// The copy out is on another stream that nothing orders.
    CopiesOutOnAnotherStream,
    /// A batch too big runs the largest bucket with its first rows.
    ClampsToTheLargestBucket,
    /// The refusal names the number of buckets as the largest.
    MaxIsTheNumberOfBuckets,
    /// The whole static input is filled with `PAD` before the size is
    /// checked.
    PadsBeforeTheSizeCheck,
}

/// The solution's step, with one mistake.
struct Wrong {
    mistake: Mistake,
    stream: Stream,
    decoder: Decoder,
    buckets: Buckets,
    /// A stream for the copy out, when it goes on one of its own.
    side: Stream,
}

impl Wrong {
    /// The given graphs, and the mistake.
    fn boxed(
        stream: &Stream,
        decoder: &Decoder,
        mistake: Mistake,
    ) -> Result<Box<dyn Stepper>, Error> {
        Ok(Box::new(Self {
            mistake,
            stream: stream.clone(),
            decoder: decoder.clone(),
            buckets: Buckets::capture(stream, decoder)?,
            side: stream.device().new_stream()?,
        }))
    }

    /// The bucket the mistake picks for `n` rows.
    fn bucket(&self, n: usize) -> Option<usize> {
        let mut buckets = BUCKETS.iter().copied();
        match self.mistake {
            Mistake::AlwaysTheLargestBucket if n <= MAX_ROWS => Some(MAX_ROWS),
            Mistake::RoundsDown => buckets.rev().find(|&b| b <= n),
            Mistake::StrictlyBigger => buckets.find(|&b| b > n),
            Mistake::ClampsToTheLargestBucket => {
                Some(buckets.find(|&b| b >= n).unwrap_or(MAX_ROWS))
            }
            _ => buckets.find(|&b| b >= n),
        }
    }
}

impl Stepper for Wrong {
    fn step(&mut self, tokens: View<i32>, next: View<i32>) -> Result<(), Error> {
        let (stream, mistake) = (&self.stream, self.mistake);
        let n = tokens.len();
        if n == 0 && mistake == Mistake::EmptyBatchRefused {
            return Err(Error::TooManyRows {
                rows: 0,
                max: MAX_ROWS,
            });
        }
        if n == 0 && mistake != Mistake::EmptyBatchLaunches {
            return Ok(());
        }
        if mistake == Mistake::PadsBeforeTheSizeCheck {
            stream.fill(self.buckets.input(0..MAX_ROWS), PAD)?;
        }
        let max = match mistake {
            Mistake::MaxIsTheNumberOfBuckets => BUCKETS.len(),
            _ => MAX_ROWS,
        };
        let bucket = self.bucket(n).ok_or(Error::TooManyRows { rows: n, max })?;
        let n = match mistake {
            Mistake::ClampsToTheLargestBucket => n.min(bucket),
            _ => n,
        };
        let (tokens, next) = (tokens.slice(0..n), next.slice(0..n));
        let input = &self.buckets;
        if mistake == Mistake::FillsTheBucketFirst {
            stream.fill(input.input(0..bucket), PAD)?;
        }
        if mistake != Mistake::NotCopiedIn {
            stream.copy(tokens, input.input(0..n))?;
        }
        let padding = match mistake {
            Mistake::PaddingFromTheLastRow => n - 1..bucket,
            _ => n..bucket,
        };
        let pad = match mistake {
            Mistake::PadsWithMinusOne => -1,
            _ => PAD,
        };
        let pads = !matches!(
            mistake,
            Mistake::NoPadding | Mistake::FillsTheBucketFirst | Mistake::PaddingAfterTheLaunch
        );
        if pads && bucket > padding.start {
            if mistake == Mistake::PadsTheStaticOutput {
                stream.fill(input.output(padding.clone()), pad)?;
            } else {
                stream.fill(input.input(padding.clone()), pad)?;
            }
        }
        if mistake == Mistake::CopiesOutBeforeTheLaunch {
            stream.copy(input.output(0..n), next)?;
        }
        if mistake == Mistake::Eager {
            stream.decode_step(
                &self.decoder,
                input.input(0..bucket),
                input.output(0..bucket),
            )?;
        } else {
            input.graph(bucket).launch()?;
        }
        if mistake == Mistake::PaddingAfterTheLaunch && bucket > n {
            stream.fill(input.input(n..bucket), PAD)?;
        }
        match mistake {
            Mistake::NotCopiedOut | Mistake::CopiesOutBeforeTheLaunch => {}
            Mistake::CopiesOutTheBucket => stream.copy(input.output(0..bucket), next)?,
            Mistake::Synchronizes => {
                stream.synchronize()?;
                stream.copy(input.output(0..n), next)?;
            }
            Mistake::ReadsThroughAVec => {
                let tokens = stream.to_vec(input.output(0..n))?;
                stream.copy_from_host(&tokens, next)?;
            }
            Mistake::CopiesOutOnAnotherStream => self.side.copy(input.output(0..n), next)?,
            _ => stream.copy(input.output(0..n), next)?,
        }
        Ok(())
    }

    fn static_buffers(&self) -> (View<i32>, View<i32>) {
        (
            self.buckets.input(0..MAX_ROWS),
            self.buckets.output(0..MAX_ROWS),
        )
    }
}

/// One `new` per mistake of the solution's step.
macro_rules! with_mistake {
    ($($name:ident => $mistake:ident,)*) => {$(
        #[doc = concat!("The solution's step with the mistake `", stringify!($mistake), "`.")]
        pub(super) fn $name(stream: &Stream, decoder: &Decoder) -> Result<Box<dyn Stepper>, Error> {
            Wrong::boxed(stream, decoder, Mistake::$mistake)
        }
    )*};
}

with_mistake! {
    solution => None,
    fills_the_bucket_first => FillsTheBucketFirst,
    no_padding => NoPadding,
    padding_from_the_last_row => PaddingFromTheLastRow,
    padding_after_the_launch => PaddingAfterTheLaunch,
    pads_with_minus_one => PadsWithMinusOne,
    pads_the_static_output => PadsTheStaticOutput,
    copies_out_before_the_launch => CopiesOutBeforeTheLaunch,
    always_the_largest_bucket => AlwaysTheLargestBucket,
    rounds_down => RoundsDown,
    strictly_bigger => StrictlyBigger,
    empty_batch_launches => EmptyBatchLaunches,
    empty_batch_refused => EmptyBatchRefused,
    not_copied_in => NotCopiedIn,
    not_copied_out => NotCopiedOut,
    copies_out_the_bucket => CopiesOutTheBucket,
    synchronizes => Synchronizes,
    reads_through_a_vec => ReadsThroughAVec,
    eager => Eager,
    copies_out_on_another_stream => CopiesOutOnAnotherStream,
    clamps_to_the_largest_bucket => ClampsToTheLargestBucket,
    max_is_the_number_of_buckets => MaxIsTheNumberOfBuckets,
    pads_before_the_size_check => PadsBeforeTheSizeCheck,
}
