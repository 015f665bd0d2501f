//! What the checks share: the run of batch sizes, the inputs, the model on
//! the CPU, and building the learner's `Runner` with a diagnosis when a
//! capture fails.

use graph_buffers::{MAX_ROWS, Model, Runner, WIDTH};
use judge_harness::Failure;

/// A long run of batch sizes: every size from 1 to 16 several times, in a
/// scrambled order that jumps up and down between buckets, and last the
/// largest batch (so that every earlier output lies inside the last one's
/// rows of the static output).
pub(super) fn batch_sizes() -> Vec<usize> {
    let mut state: u32 = 0x2545_f491;
    let mut sizes: Vec<usize> = (0..4).flat_map(|_| 1..=MAX_ROWS).collect();
    // Fisher-Yates with a fixed xorshift: the same order on every run.
    for i in (1..sizes.len()).rev() {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        sizes.swap(i, state as usize % (i + 1));
    }
    sizes.push(MAX_ROWS);
    sizes
}

/// Element `col` of row `row` of step `step`'s batch: every row of the run
/// differs from every other, and from a row of zeros.
pub(super) fn input_value(step: usize, row: usize, col: usize) -> f32 {
    ((step * 131 + row * 17 + col * 3) % 251) as f32 / 32.0 - 3.75
}

/// The batch of step `step`, `rows` rows.
pub(super) fn batch(step: usize, rows: usize) -> Vec<f32> {
    (0..rows * WIDTH)
        .map(|i| input_value(step, i / WIDTH, i % WIDTH))
        .collect()
}

/// The eager model on the GPU, over all of `x`: one `affine` launch per
/// layer, queued by the check itself, then read back.
pub(super) fn eager(
    stream: &gpu::Stream,
    model: &Model,
    x: &gpu::DeviceBuffer<f32>,
) -> Result<Vec<f32>, Failure> {
    let scratch = [
        stream.alloc_zeros::<f32>(x.len())?,
        stream.alloc_zeros::<f32>(x.len())?,
    ];
    let mut src = 0;
    stream.copy(x, &scratch[0])?;
    for &(a, b) in model.layers() {
        stream.affine(&scratch[src], a, b, &scratch[1 - src])?;
        src = 1 - src;
    }
    Ok(stream.to_vec(&scratch[src])?)
}

/// The model on the CPU, layer by layer, each product and sum rounded as the
/// `affine` kernel rounds them: what the eager stack computes on the GPU.
pub(super) fn reference(model: &Model, x: &[f32]) -> Vec<f32> {
    x.iter()
        .map(|&v| model.layers().iter().fold(v, |v, &(a, b)| a * v + b))
        .collect()
}

/// The learner's `Runner::new`, with what a failed capture means.
pub(super) fn runner(stream: &gpu::Stream, model: &Model) -> Result<Runner, Failure> {
    Runner::new(stream, model).map_err(|e| {
        let text = e.to_string();
        let failure = Failure::new(
            "Runner::new to allocate the static buffers, warm up, and capture one graph per bucket",
            format!("it failed: {text}"),
        );
        if text.contains("capturing a graph") || text.contains("invalidated") {
            failure.detail(
                "the capture is invalidated: a call that can make the CPU wait for the GPU \
                 (a synchronize, a pageable copy, a read of device data) cannot be captured, \
                 and neither can an allocation. CUDA invalidates the whole capture and \
                 `end_capture` fails. Do such calls before `begin_capture`, or after `end_capture`.",
            )
        } else {
            failure
        }
    })
}

/// `ns` for people: `3.9 us`, `250 us`.
pub(super) fn micros(ns: f64) -> String {
    let us = ns / 1e3;
    if us < 10.0 {
        format!("{us:.1} us")
    } else {
        format!("{us:.0} us")
    }
}
