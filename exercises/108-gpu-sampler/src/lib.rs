//! Greedy decoding with the sampler on the GPU: the tokens go from one step
//! to the next in device memory, and the CPU reads them once, at the end.
//!
//! Each step of [`generate`] is one [`gpu::Stream::decode_step`]: the
//! decoder's forward pass and its greedy sampler (an argmax over each row of
//! logits) in one kernel, from token ids on the device to token ids on the
//! device. As given, every step's tokens make a round trip through the CPU:
//! read into a `Vec` (the CPU waits for the step) and copied back for the
//! next step, so the GPU idles while the CPU catches up. Keep them on the
//! GPU (see `README.md`): the CPU should queue every step without waiting.

use gpu::{Decoder, Result, Stream};

/// Decodes `steps` tokens after each of `prompts` (at least one) on
/// `stream`, greedily; returns each prompt's tokens, in order.
pub fn generate(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
) -> Result<Vec<Vec<i32>>> {
    let n = prompts.len();
    let input = stream.alloc_zeros::<i32>(n)?;
    let output = stream.alloc_zeros::<i32>(n)?;
    let mut outputs = vec![Vec::with_capacity(steps); n];
    let mut tokens = prompts.to_vec();
    for _ in 0..steps {
        // TODO: the next step's input is this step's output, already on the
        // GPU: keep every step's tokens there and read them into a `Vec`
        // once, after the loop. Here they travel to the CPU and back.
        stream.copy_from_host(&tokens, &input)?;
        stream.decode_step(decoder, &input, &output)?;
        tokens = stream.to_vec(&output)?; // `.tolist()`: waits for the step
        for (out, &token) in outputs.iter_mut().zip(&tokens) {
            out.push(token);
        }
    }
    Ok(outputs)
}
