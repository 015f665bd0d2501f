//! A decode loop that reads every step's tokens on the CPU while the next
//! step runs on the GPU, through two pinned slots.
//!
//! [`generate`] is given: each step is one [`gpu::Stream::decode_step`]
//! (forward pass and greedy sampler in one kernel), from the tokens the step
//! before chose, which stay on the GPU. The CPU still needs each step's
//! tokens (to stream them to the client, detokenized: `host_work`), so they
//! travel to the host through [`TokenSlots`] (in `slots.rs`): step s's
//! tokens are queued into pinned slot s % 2 behind an event, and read once
//! step s + 1 is already queued on the GPU.

mod slots;

pub use slots::TokenSlots;

use gpu::{Decoder, Result, Stream};
use std::time::Duration;

/// Decodes `steps` tokens after each of `prompts` (at least one) on
/// `stream`, greedily; the CPU reads each step's tokens while the next step
/// runs, and spends `host_work` on them (detokenizing, streaming them out).
/// Returns each prompt's tokens, in order.
pub fn generate(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
    host_work: Duration,
) -> Result<Vec<Vec<i32>>> {
    let n = prompts.len();
    // Step s decodes from `tokens[s % 2]` into `tokens[(s + 1) % 2]`.
    let tokens = [stream.alloc_zeros::<i32>(n)?, stream.alloc_zeros::<i32>(n)?];
    stream.copy_from_host(prompts, &tokens[0])?; // setup: the one upload
    let mut slots = TokenSlots::new(stream, n)?;
    let mut outputs = vec![Vec::with_capacity(steps); n];
    for s in 0..steps {
        stream.decode_step(decoder, &tokens[s % 2], &tokens[(s + 1) % 2])?;
        slots.queue(&tokens[(s + 1) % 2])?; // step s's tokens, on their way to the host
        if s > 0 {
            // Step s - 1's tokens, while step s runs on the GPU.
            take(stream, &mut outputs, &slots.read()?, host_work);
        }
    }
    if steps > 0 {
        take(stream, &mut outputs, &slots.read()?, host_work); // the last step's
    }
    Ok(outputs)
}

/// The CPU's work on one step's tokens: append them, then `host_work`.
fn take(stream: &Stream, outputs: &mut [Vec<i32>], tokens: &[i32], host_work: Duration) {
    for (out, &token) in outputs.iter_mut().zip(tokens) {
        out.push(token);
    }
    stream.device().host_work(host_work);
}
