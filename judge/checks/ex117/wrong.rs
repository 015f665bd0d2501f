//! `run`s for the suite's own tests, written with the `gpu` crate: the
//! solution's loop with one mistake each ([`Mistake`]), and the starter.
//! `tests.rs` snapshots the message each one gets.

use gpu::{Event, PinnedBuffer, Result};
use pipeline::{Layer, Streams};

/// The one thing a known-wrong `run` does differently from the solution.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mistake {
    /// The input buffer is refilled without waiting for its last layer.
    NoInputRefillWait,
    /// The result buffer is overwritten without waiting for its copy-out.
    NoResultRefillWait,
    /// The layer does not wait for its chunk's copy-in.
    NoCopyInEvent,
    /// The copy-out does not wait for its chunk's layer.
    NoLayerEvent,
    /// Each refill waits for the latest reader (chunk k − 1), not chunk k − 2's.
    WaitsForTheLatest,
    /// One buffer per stage, each refill after its latest reader (right, and serial).
    OneBufferPerStage,
    /// The stages are ordered by a CPU wait on the copy-in stream.
    SynchronizesInTheLoop,
    /// The one CPU wait is for the compute stream, not the copy-out stream.
    WaitsForTheWrongStream,
    /// The buffers are sized by `chunks[0]`, which a run of no chunk lacks.
    SizedByTheFirstChunk,
    /// The layer's wait for the copy-in's event queued on the copy-in stream.
    WaitsOnTheCopyInStream,
    /// The copy-out waits for the copy-in's event, not the layer's.
    CopyOutWaitsForTheCopyIn,
    /// The input slot's last use marked by the copy-in's own event.
    InputFreedByTheCopyIn,
    /// The result slot's last use marked by an event on the compute stream.
    ResultFreedByTheLayer,
    /// The result buffers allocated (and zeroed) on the copy-out stream.
    ResultsOnCopyOut,
}

/// The solution's loop, with `mistake`.
fn with(
    mistake: Mistake,
    layer: &Layer,
    chunks: &[PinnedBuffer<f32>],
    outputs: &[PinnedBuffer<f32>],
    streams: Streams<'_>,
) -> Result<Vec<Vec<f32>>> {
    use Mistake::*;
    let Streams {
        copy_in,
        compute,
        copy_out,
    } = streams;
    let len = if mistake == SizedByTheFirstChunk {
        chunks[0].len()
    } else {
        chunks.first().map_or(1, PinnedBuffer::len)
    };
    let per_stage = if mistake == OneBufferPerStage { 1 } else { 2 };
    let inputs = (0..per_stage)
        .map(|_| copy_in.alloc_zeros::<f32>(len))
        .collect::<Result<Vec<_>>>()?;
    let allocates = if mistake == ResultsOnCopyOut {
        copy_out
    } else {
        compute
    };
    let results = (0..per_stage)
        .map(|_| allocates.alloc_zeros::<f32>(len))
        .collect::<Result<Vec<_>>>()?;
    let mut input_read: [Option<Event>; 2] = [None, None];
    let mut result_read: [Option<Event>; 2] = [None, None];
    for (k, (chunk, out)) in chunks.iter().zip(outputs).enumerate() {
        let slot = if mistake == OneBufferPerStage {
            0
        } else {
            k % 2
        };
        let waited = if matches!(mistake, WaitsForTheLatest | OneBufferPerStage) {
            (k + 1) % 2
        } else {
            slot
        };
        if let (Some(read), false) = (&input_read[waited], mistake == NoInputRefillWait) {
            copy_in.wait_event(read)?;
        }
        copy_in.copy_from_pinned(chunk, &inputs[slot])?;
        let arrived = copy_in.record_event()?;
        if mistake == SynchronizesInTheLoop {
            copy_in.synchronize()?;
        } else if mistake == WaitsOnTheCopyInStream {
            copy_in.wait_event(&arrived)?;
        } else if mistake != NoCopyInEvent {
            compute.wait_event(&arrived)?;
        }
        if let (Some(read), false) = (&result_read[waited], mistake == NoResultRefillWait) {
            compute.wait_event(read)?;
        }
        layer.forward(compute, &inputs[slot], &results[slot])?;
        let computed = compute.record_event()?;
        if mistake == CopyOutWaitsForTheCopyIn {
            copy_out.wait_event(&arrived)?;
        } else if mistake != NoLayerEvent {
            copy_out.wait_event(&computed)?;
        }
        copy_out.copy_to_pinned(&results[slot], out)?;
        let index = if mistake == OneBufferPerStage {
            k % 2
        } else {
            slot
        };
        result_read[index] = Some(if mistake == ResultFreedByTheLayer {
            compute.record_event()?
        } else {
            copy_out.record_event()?
        });
        input_read[index] = Some(if mistake == InputFreedByTheCopyIn {
            arrived
        } else {
            computed
        });
    }
    if mistake == WaitsForTheWrongStream {
        compute.synchronize()?;
    } else {
        copy_out.synchronize()?;
    }
    Ok(outputs[..chunks.len()]
        .iter()
        .map(|output| output.to_vec())
        .collect())
}

macro_rules! wrong {
    ($($(#[$doc:meta])* $name:ident => $mistake:ident,)*) => {$(
        $(#[$doc])*
        pub(super) fn $name(
            layer: &Layer,
            chunks: &[PinnedBuffer<f32>],
            outputs: &[PinnedBuffer<f32>],
            streams: Streams<'_>,
        ) -> Result<Vec<Vec<f32>>> {
            with(Mistake::$mistake, layer, chunks, outputs, streams)
        }
    )*};
}

wrong! {
    /// The input buffer is refilled without waiting for its last layer.
    no_input_refill_wait => NoInputRefillWait,
    /// The result buffer is overwritten without waiting for its copy-out.
    no_result_refill_wait => NoResultRefillWait,
    /// The layer does not wait for its chunk's copy-in.
    no_copy_in_event => NoCopyInEvent,
    /// The copy-out does not wait for its chunk's layer.
    no_layer_event => NoLayerEvent,
    /// Each refill waits for the latest reader's event.
    waits_for_the_latest => WaitsForTheLatest,
    /// One buffer per stage.
    one_buffer_per_stage => OneBufferPerStage,
    /// A CPU wait on the copy-in stream in the loop.
    synchronizes_in_the_loop => SynchronizesInTheLoop,
    /// The final wait is for the compute stream.
    waits_for_the_wrong_stream => WaitsForTheWrongStream,
    /// The buffers sized by the first chunk.
    sized_by_the_first_chunk => SizedByTheFirstChunk,
    /// The layer's wait queued on the copy-in stream.
    waits_on_the_copy_in_stream => WaitsOnTheCopyInStream,
    /// The copy-out waits for the copy-in's event.
    copy_out_waits_for_the_copy_in => CopyOutWaitsForTheCopyIn,
    /// The input slot freed by the copy-in's event.
    input_freed_by_the_copy_in => InputFreedByTheCopyIn,
    /// The result slot freed by an event on the compute stream.
    result_freed_by_the_layer => ResultFreedByTheLayer,
    /// The result buffers allocated on the copy-out stream.
    results_on_copy_out => ResultsOnCopyOut,
}

/// The starter: every stage on the compute stream, one buffer per stage.
pub(super) fn starter(
    layer: &Layer,
    chunks: &[PinnedBuffer<f32>],
    outputs: &[PinnedBuffer<f32>],
    streams: Streams<'_>,
) -> Result<Vec<Vec<f32>>> {
    let compute = streams.compute;
    let len = chunks.first().map_or(1, PinnedBuffer::len);
    let input = compute.alloc_zeros::<f32>(len)?;
    let result = compute.alloc_zeros::<f32>(len)?;
    for (chunk, out) in chunks.iter().zip(outputs) {
        compute.copy_from_pinned(chunk, &input)?;
        layer.forward(compute, &input, &result)?;
        compute.copy_to_pinned(&result, out)?;
    }
    compute.synchronize()?;
    Ok(outputs[..chunks.len()]
        .iter()
        .map(|output| output.to_vec())
        .collect())
}
