//! Captured steps for the suite's own tests, written with the `gpu` crate:
//! another right way (the copy out on a side stream, ordered by events both
//! ways) and the known-wrong steps whose messages `tests.rs` snapshots,
//! each one mistake in the solution's step or the starter itself.

use super::support::Stepper;
use gpu::{Decoder, DeviceBuffer, Graph, Result, Stream, View};

/// A mistake in the solution's step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mistake {
    /// None: the solution, or the side-stream copy out when `side` is set.
    None,
    /// The tokens are never copied into the static input.
    InputNotCopied,
    /// The tokens are copied into a buffer made in the step.
    FreshInputEachStep,
    /// The static input is replaced by a new buffer in every step.
    ReplacesTheInput,
    /// The static output is never copied into `next`.
    OutputNotCopied,
    /// The static output is copied into `next` before the launch.
    CopiesOutBeforeTheLaunch,
    /// The stream synchronizes after the launch.
    SynchronizesEveryStep,
    /// The static output goes to `next` through a `Vec`.
    ReadsThroughAVec,
    /// The copy out is on another stream that nothing orders.
    CopiesOutOnAnotherStream,
    /// The graph is launched twice.
    ReplaysTwice,
    /// The step runs `decode_step` eagerly on the static buffers.
    EagerOnTheStaticBuffers,
    /// The tokens are copied into the static input in the first step only.
    CopiesInOnce,
    /// The copy out is on a side stream that waits for the replay, but the
    /// stream never waits for the side stream.
    SideStreamOneWay,
    /// The static output is copied into `tokens` instead of `next`.
    CopiesOutIntoTokens,
    /// The tokens are copied into the static input after the launch.
    CopiesInAfterTheLaunch,
    /// From the second step on, the static output is copied into the
    /// static input instead of the tokens given.
    FeedsTheOutputBack,
}

/// The solution's step, with one mistake.
struct Wrong {
    mistake: Mistake,
    stream: Stream,
    decoder: Decoder,
    input: DeviceBuffer<i32>,
    output: DeviceBuffer<i32>,
    graph: Graph,
    /// A stream for the copy out, when it goes on one of its own.
    side: Option<Stream>,
    /// Steps made so far.
    steps: usize,
}

impl Wrong {
    /// The solution's `new`: static buffers, one capture, on `capture` (the
    /// stream given, unless a mistake captures elsewhere).
    fn new(
        stream: &Stream,
        capture: &Stream,
        decoder: &Decoder,
        batch: usize,
        mistake: Mistake,
    ) -> Result<Self> {
        let input = stream.alloc_zeros::<i32>(batch)?;
        let output = stream.alloc_zeros::<i32>(batch)?;
        capture.begin_capture()?;
        capture.decode_step(decoder, &input, &output)?;
        let graph = capture.end_capture()?;
        Ok(Self {
            mistake,
            stream: stream.clone(),
            decoder: decoder.clone(),
            input,
            output,
            graph,
            side: None,
            steps: 0,
        })
    }

    /// Boxed, with `mistake`, captured on `stream`.
    fn boxed(
        stream: &Stream,
        decoder: &Decoder,
        batch: usize,
        mistake: Mistake,
    ) -> Result<Box<dyn Stepper>> {
        Ok(Box::new(Self::new(
            stream, stream, decoder, batch, mistake,
        )?))
    }

    fn copy_out(&self, next: View<i32>) -> Result<()> {
        match &self.side {
            Some(side) if self.mistake == Mistake::None => {
                side.wait_event(&self.stream.record_event()?)?;
                side.copy(&self.output, next)?;
                self.stream.wait_event(&side.record_event()?)
            }
            Some(side) if self.mistake == Mistake::SideStreamOneWay => {
                side.wait_event(&self.stream.record_event()?)?;
                side.copy(&self.output, next)
            }
            Some(side) => side.copy(&self.output, next),
            None => self.stream.copy(&self.output, next),
        }
    }
}

impl Stepper for Wrong {
    fn step(&mut self, tokens: View<i32>, next: View<i32>) -> Result<()> {
        let stream = self.stream.clone();
        self.steps += 1;
        match self.mistake {
            Mistake::InputNotCopied | Mistake::CopiesInAfterTheLaunch => {}
            Mistake::FeedsTheOutputBack if self.steps > 1 => {
                stream.copy(&self.output, &self.input)?;
            }
            Mistake::CopiesInOnce if self.steps > 1 => {}
            Mistake::FreshInputEachStep => {
                let staged = stream.alloc_zeros::<i32>(tokens.len())?;
                stream.copy(tokens, &staged)?;
            }
            Mistake::ReplacesTheInput => {
                self.input = stream.alloc_zeros::<i32>(tokens.len())?;
                stream.copy(tokens, &self.input)?;
            }
            _ => stream.copy(tokens, &self.input)?,
        }
        if self.mistake == Mistake::CopiesOutBeforeTheLaunch {
            stream.copy(&self.output, next)?;
        }
        if self.mistake == Mistake::EagerOnTheStaticBuffers {
            stream.decode_step(&self.decoder, &self.input, &self.output)?;
        } else {
            self.graph.launch()?;
        }
        if self.mistake == Mistake::CopiesInAfterTheLaunch {
            stream.copy(tokens, &self.input)?;
        }
        if self.mistake == Mistake::ReplaysTwice {
            self.graph.launch()?;
        }
        match self.mistake {
            Mistake::OutputNotCopied | Mistake::CopiesOutBeforeTheLaunch => Ok(()),
            Mistake::SynchronizesEveryStep => {
                stream.synchronize()?;
                stream.copy(&self.output, next)
            }
            Mistake::ReadsThroughAVec => {
                let tokens = stream.to_vec(&self.output)?;
                stream.copy_from_host(&tokens, next)
            }
            Mistake::CopiesOutIntoTokens => stream.copy(&self.output, tokens),
            _ => self.copy_out(next),
        }
    }
}

/// Another right way: the copy out on a side stream, which waits for the
/// replay and which the stream waits for in turn.
pub(super) fn side_stream_behind_events(
    stream: &Stream,
    decoder: &Decoder,
    batch: usize,
) -> Result<Box<dyn Stepper>> {
    let mut step = Wrong::new(stream, stream, decoder, batch, Mistake::None)?;
    step.side = Some(stream.device().new_stream()?);
    Ok(Box::new(step))
}

/// The starter: no capture, `decode_step` eagerly on the caller's views.
pub(super) fn eager(stream: &Stream, decoder: &Decoder, _batch: usize) -> Result<Box<dyn Stepper>> {
    struct Eager(Stream, Decoder);
    impl Stepper for Eager {
        fn step(&mut self, tokens: View<i32>, next: View<i32>) -> Result<()> {
            self.0.decode_step(&self.1, tokens, next)
        }
    }
    Ok(Box::new(Eager(stream.clone(), decoder.clone())))
}

/// A capture in every step, on the caller's views, then its launch.
pub(super) fn captures_every_step(
    stream: &Stream,
    decoder: &Decoder,
    _batch: usize,
) -> Result<Box<dyn Stepper>> {
    struct Recapture(Stream, Decoder);
    impl Stepper for Recapture {
        fn step(&mut self, tokens: View<i32>, next: View<i32>) -> Result<()> {
            self.0.begin_capture()?;
            self.0.decode_step(&self.1, tokens, next)?;
            self.0.end_capture()?.launch()
        }
    }
    Ok(Box::new(Recapture(stream.clone(), decoder.clone())))
}

/// The static buffers allocated between `begin_capture` and `end_capture`.
pub(super) fn allocates_in_the_capture(
    stream: &Stream,
    decoder: &Decoder,
    batch: usize,
) -> Result<Box<dyn Stepper>> {
    stream.begin_capture()?;
    let input = stream.alloc_zeros::<i32>(batch)?;
    let output = stream.alloc_zeros::<i32>(batch)?;
    stream.decode_step(decoder, &input, &output)?;
    let graph = stream.end_capture()?;
    Ok(Box::new(Wrong {
        mistake: Mistake::None,
        stream: stream.clone(),
        decoder: decoder.clone(),
        input,
        output,
        graph,
        side: None,
        steps: 0,
    }))
}

/// The graph captured on a pair of buffers dropped at the end of the
/// capture, while the struct keeps another pair, made after it (which the
/// pool hands the same memory).
pub(super) fn captured_on_dropped_buffers(
    stream: &Stream,
    decoder: &Decoder,
    batch: usize,
) -> Result<Box<dyn Stepper>> {
    let graph = {
        let input = stream.alloc_zeros::<i32>(batch)?;
        let output = stream.alloc_zeros::<i32>(batch)?;
        stream.begin_capture()?;
        stream.decode_step(decoder, &input, &output)?;
        stream.end_capture()?
    };
    Ok(Box::new(Wrong {
        mistake: Mistake::None,
        stream: stream.clone(),
        decoder: decoder.clone(),
        input: stream.alloc_zeros::<i32>(batch)?,
        output: stream.alloc_zeros::<i32>(batch)?,
        graph,
        side: None,
        steps: 0,
    }))
}

/// Two graphs captured in `new`, the first thrown away.
pub(super) fn captures_twice_in_new(
    stream: &Stream,
    decoder: &Decoder,
    batch: usize,
) -> Result<Box<dyn Stepper>> {
    let first = Wrong::new(stream, stream, decoder, batch, Mistake::None)?;
    stream.begin_capture()?;
    stream.decode_step(decoder, &first.input, &first.output)?;
    let graph = stream.end_capture()?;
    Ok(Box::new(Wrong { graph, ..first }))
}

/// A graph of two steps: the one from the static input into the static
/// output, then one from the output back into the input.
pub(super) fn two_steps_in_the_graph(
    stream: &Stream,
    decoder: &Decoder,
    batch: usize,
) -> Result<Box<dyn Stepper>> {
    let input = stream.alloc_zeros::<i32>(batch)?;
    let output = stream.alloc_zeros::<i32>(batch)?;
    stream.begin_capture()?;
    stream.decode_step(decoder, &input, &output)?;
    stream.decode_step(decoder, &output, &input)?;
    let graph = stream.end_capture()?;
    Ok(Box::new(Wrong {
        mistake: Mistake::None,
        stream: stream.clone(),
        decoder: decoder.clone(),
        input,
        output,
        graph,
        side: None,
        steps: 0,
    }))
}

/// The copy out on a side stream that waits for the replay, which the
/// stream never waits for in turn.
pub(super) fn side_stream_one_way(
    stream: &Stream,
    decoder: &Decoder,
    batch: usize,
) -> Result<Box<dyn Stepper>> {
    let mut step = Wrong::new(stream, stream, decoder, batch, Mistake::SideStreamOneWay)?;
    step.side = Some(stream.device().new_stream()?);
    Ok(Box::new(step))
}

/// The graph captured on a stream of its own, so it replays there, while
/// the copies go on the stream given.
pub(super) fn captured_on_a_side_stream(
    stream: &Stream,
    decoder: &Decoder,
    batch: usize,
) -> Result<Box<dyn Stepper>> {
    let side = stream.device().new_stream()?;
    Ok(Box::new(Wrong::new(
        stream,
        &side,
        decoder,
        batch,
        Mistake::None,
    )?))
}

/// The copy out on a stream of its own, which nothing orders.
pub(super) fn copies_out_on_another_stream(
    stream: &Stream,
    decoder: &Decoder,
    batch: usize,
) -> Result<Box<dyn Stepper>> {
    let mut step = Wrong::new(
        stream,
        stream,
        decoder,
        batch,
        Mistake::CopiesOutOnAnotherStream,
    )?;
    step.side = Some(stream.device().new_stream()?);
    Ok(Box::new(step))
}

/// One `new` per mistake of the solution's step.
macro_rules! with_mistake {
    ($($name:ident => $mistake:ident,)*) => {$(
        #[doc = concat!("The solution's step with the mistake `", stringify!($mistake), "`.")]
        pub(super) fn $name(
            stream: &Stream,
            decoder: &Decoder,
            batch: usize,
        ) -> Result<Box<dyn Stepper>> {
            Wrong::boxed(stream, decoder, batch, Mistake::$mistake)
        }
    )*};
}

with_mistake! {
    input_not_copied => InputNotCopied,
    fresh_input_each_step => FreshInputEachStep,
    replaces_the_input => ReplacesTheInput,
    output_not_copied => OutputNotCopied,
    copies_out_before_the_launch => CopiesOutBeforeTheLaunch,
    synchronizes_every_step => SynchronizesEveryStep,
    reads_through_a_vec => ReadsThroughAVec,
    replays_twice => ReplaysTwice,
    eager_on_the_static_buffers => EagerOnTheStaticBuffers,
    copies_in_once => CopiesInOnce,
    copies_out_into_tokens => CopiesOutIntoTokens,
    copies_in_after_the_launch => CopiesInAfterTheLaunch,
    feeds_the_output_back => FeedsTheOutputBack,
}
