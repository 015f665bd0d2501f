//! Greedy decoding with the sampler on the GPU: the tokens go from one step
//! to the next in device memory, and the CPU reads them once, at the end.
//!
//! Each step of [`generate`] is one [`gpu::Stream::decode_step`]: the
//! decoder's forward pass and its greedy sampler (an argmax over each row of
//! logits) in one kernel, from token ids on the device to token ids on the
//! device. Nothing on the CPU needs a token before the last step, so no step
//! waits for the GPU: the CPU queues every step at once and runs ahead,
//! and a single copy at the end brings all the tokens back.

use gpu::{Decoder, Result, Stream};

// ANCHOR: generate
/// Decodes `steps` tokens after each of `prompts` (at least one) on
/// `stream`, greedily; returns each prompt's tokens, in order.
pub fn generate(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
) -> Result<Vec<Vec<i32>>> {
    let n = prompts.len();
    // Row s of `history` holds the tokens step s decodes from: the prompts
    // in row 0, then each step's output, which is the next step's input.
    let history = stream.alloc_zeros::<i32>((steps + 1) * n)?;
    stream.copy_from_host(prompts, history.slice(0..n))?; // setup: the one upload
    for s in 0..steps {
        let input = history.slice(s * n..(s + 1) * n);
        let output = history.slice((s + 1) * n..(s + 2) * n);
        stream.decode_step(decoder, input, output)?; // forward and argmax, on the GPU
    }
    // The one read: it waits for the last step, and brings every step's tokens.
    let tokens = stream.to_vec(history.slice(n..(steps + 1) * n))?;
    Ok((0..n)
        .map(|i| (0..steps).map(|s| tokens[s * n + i]).collect())
        .collect())
}
// ANCHOR_END: generate
