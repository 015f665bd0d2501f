//! Decode loops for the suite's own tests, written with the `gpu` crate:
//! the other right way (a pinned read behind an event) and the known-wrong
//! loops whose messages `tests.rs` snapshots, each one mistake in the
//! solution's loop (a row of a device history per step, one read at the
//! end) or the starter itself.

use gpu::{Decoder, DeviceBuffer, Result, Stream};

/// Rows `0..=steps` of a device history, the prompts in row 0.
fn history(stream: &Stream, prompts: &[i32], steps: usize) -> Result<DeviceBuffer<i32>> {
    let n = prompts.len();
    let history = stream.alloc_zeros::<i32>((steps + 1) * n)?;
    stream.copy_from_host(prompts, history.slice(0..n))?;
    Ok(history)
}

/// Launches step `s` from row `s` into row `s + 1`.
fn step(
    stream: &Stream,
    decoder: &Decoder,
    h: &DeviceBuffer<i32>,
    n: usize,
    s: usize,
) -> Result<()> {
    let input = h.slice(s * n..(s + 1) * n);
    stream.decode_step(decoder, input, h.slice((s + 1) * n..(s + 2) * n))
}

/// Cuts a step-major read into one list per prompt.
fn lists(tokens: &[i32], n: usize, steps: usize) -> Vec<Vec<i32>> {
    (0..n)
        .map(|i| (0..steps).map(|s| tokens[s * n + i]).collect())
        .collect()
}

/// The other right way: the history copied into pinned memory, one event
/// wait, one read of the pinned buffer.
pub(super) fn pinned_read(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
) -> Result<Vec<Vec<i32>>> {
    let n = prompts.len();
    let h = history(stream, prompts, steps)?;
    for s in 0..steps {
        step(stream, decoder, &h, n, s)?;
    }
    let host = stream.device().alloc_pinned::<i32>(steps * n)?;
    stream.copy_to_pinned(h.slice(n..(steps + 1) * n), &host)?;
    stream.record_event()?.synchronize()?;
    Ok(lists(&host.to_vec(), n, steps))
}

/// The starter: every step's tokens go to the CPU and back.
pub(super) fn round_trip(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
) -> Result<Vec<Vec<i32>>> {
    let n = prompts.len();
    let (input, output) = (stream.alloc_zeros::<i32>(n)?, stream.alloc_zeros::<i32>(n)?);
    let (mut outputs, mut tokens) = (vec![Vec::new(); n], prompts.to_vec());
    for _ in 0..steps {
        stream.copy_from_host(&tokens, &input)?;
        stream.decode_step(decoder, &input, &output)?;
        tokens = stream.to_vec(&output)?;
        outputs
            .iter_mut()
            .zip(&tokens)
            .for_each(|(o, &t)| o.push(t));
    }
    Ok(outputs)
}

/// The right loop with a `synchronize` after every launch.
pub(super) fn synchronizes_every_step(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
) -> Result<Vec<Vec<i32>>> {
    let n = prompts.len();
    let h = history(stream, prompts, steps)?;
    for s in 0..steps {
        step(stream, decoder, &h, n, s)?;
        stream.synchronize()?;
    }
    Ok(lists(
        &stream.to_vec(h.slice(n..(steps + 1) * n))?,
        n,
        steps,
    ))
}

/// The right loop with each step's tokens copied to pinned memory as it goes.
pub(super) fn pinned_copy_every_step(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
) -> Result<Vec<Vec<i32>>> {
    let n = prompts.len();
    let h = history(stream, prompts, steps)?;
    let host = stream.device().alloc_pinned::<i32>((steps + 1) * n)?;
    for s in 0..steps {
        step(stream, decoder, &h, n, s)?;
        stream.copy_to_pinned(h.slice((s + 1) * n..(s + 2) * n), &host)?;
    }
    Ok(lists(
        &stream.to_vec(h.slice(n..(steps + 1) * n))?,
        n,
        steps,
    ))
}

/// The right loop polling the stream after every launch.
pub(super) fn polls_every_step(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
) -> Result<Vec<Vec<i32>>> {
    let n = prompts.len();
    let h = history(stream, prompts, steps)?;
    for s in 0..steps {
        step(stream, decoder, &h, n, s)?;
        while !stream.query()? {}
    }
    Ok(lists(
        &stream.to_vec(h.slice(n..(steps + 1) * n))?,
        n,
        steps,
    ))
}

/// The right loop, read with the prompts' row.
pub(super) fn keeps_the_prompts(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
) -> Result<Vec<Vec<i32>>> {
    let n = prompts.len();
    let h = history(stream, prompts, steps)?;
    for s in 0..steps {
        step(stream, decoder, &h, n, s)?;
    }
    Ok(lists(&stream.to_vec(&h)?, n, steps + 1))
}

/// Every step decodes from the prompts' row.
pub(super) fn decodes_from_the_prompts(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
) -> Result<Vec<Vec<i32>>> {
    let n = prompts.len();
    let h = history(stream, prompts, steps)?;
    for s in 0..steps {
        stream.decode_step(decoder, h.slice(0..n), h.slice((s + 1) * n..(s + 2) * n))?;
    }
    Ok(lists(
        &stream.to_vec(h.slice(n..(steps + 1) * n))?,
        n,
        steps,
    ))
}

/// The right loop with `decode_step`'s input and output swapped: each
/// step reads the row after its own and writes its own.
pub(super) fn swaps_the_rows(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
) -> Result<Vec<Vec<i32>>> {
    let n = prompts.len();
    let h = history(stream, prompts, steps)?;
    for s in 0..steps {
        let row = |r: usize| h.slice(r * n..(r + 1) * n);
        stream.decode_step(decoder, row(s + 1), row(s))?;
    }
    Ok(lists(
        &stream.to_vec(h.slice(n..(steps + 1) * n))?,
        n,
        steps,
    ))
}

/// The right loop, its read cut request by request.
pub(super) fn cut_by_request(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
) -> Result<Vec<Vec<i32>>> {
    let n = prompts.len();
    let h = history(stream, prompts, steps)?;
    for s in 0..steps {
        step(stream, decoder, &h, n, s)?;
    }
    let tokens = stream.to_vec(h.slice(n..(steps + 1) * n))?;
    Ok((0..n)
        .map(|i| tokens[i * steps..(i + 1) * steps].to_vec())
        .collect())
}

/// The right loop, read one row at a time after the last launch.
pub(super) fn reads_row_by_row(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
) -> Result<Vec<Vec<i32>>> {
    let n = prompts.len();
    let h = history(stream, prompts, steps)?;
    for s in 0..steps {
        step(stream, decoder, &h, n, s)?;
    }
    let mut tokens = Vec::new();
    for s in 1..=steps {
        tokens.extend(stream.to_vec(h.slice(s * n..(s + 1) * n))?);
    }
    Ok(lists(&tokens, n, steps))
}

/// The right loop with a `synchronize` before the read.
pub(super) fn synchronizes_before_the_read(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
) -> Result<Vec<Vec<i32>>> {
    let n = prompts.len();
    let h = history(stream, prompts, steps)?;
    for s in 0..steps {
        step(stream, decoder, &h, n, s)?;
    }
    stream.synchronize()?;
    Ok(lists(
        &stream.to_vec(h.slice(n..(steps + 1) * n))?,
        n,
        steps,
    ))
}

/// The right loop, read on a new stream that nothing orders after the steps.
pub(super) fn reads_on_another_stream(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
) -> Result<Vec<Vec<i32>>> {
    let n = prompts.len();
    let h = history(stream, prompts, steps)?;
    for s in 0..steps {
        step(stream, decoder, &h, n, s)?;
    }
    let reader = stream.device().new_stream()?;
    Ok(lists(
        &reader.to_vec(h.slice(n..(steps + 1) * n))?,
        n,
        steps,
    ))
}

/// One step too few: the last row is read but never written.
pub(super) fn one_step_too_few(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
) -> Result<Vec<Vec<i32>>> {
    let n = prompts.len();
    let h = history(stream, prompts, steps)?;
    for s in 0..steps.saturating_sub(1) {
        step(stream, decoder, &h, n, s)?;
    }
    Ok(lists(
        &stream.to_vec(h.slice(n..(steps + 1) * n))?,
        n,
        steps,
    ))
}

/// Another right way: the whole history read, the prompts' row skipped on
/// the CPU.
pub(super) fn reads_the_whole_history(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
) -> Result<Vec<Vec<i32>>> {
    let n = prompts.len();
    let h = history(stream, prompts, steps)?;
    for s in 0..steps {
        step(stream, decoder, &h, n, s)?;
    }
    Ok(lists(&stream.to_vec(&h)?[n..], n, steps))
}

/// The right tokens, the lists in the reverse order of the prompts.
pub(super) fn reversed_lists(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
) -> Result<Vec<Vec<i32>>> {
    let mut lists = gpu_sampler::generate(stream, decoder, prompts, steps)?;
    lists.reverse();
    Ok(lists)
}

/// A pinned read with its wait before the copy instead of after it.
pub(super) fn waits_before_the_pinned_copy(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
) -> Result<Vec<Vec<i32>>> {
    let n = prompts.len();
    let h = history(stream, prompts, steps)?;
    for s in 0..steps {
        step(stream, decoder, &h, n, s)?;
    }
    let host = stream.device().alloc_pinned::<i32>(steps * n)?;
    stream.record_event()?.synchronize()?;
    stream.copy_to_pinned(h.slice(n..(steps + 1) * n), &host)?;
    Ok(lists(&host.to_vec(), n, steps))
}

/// Two buffers, the output copied into the input before each step: step 0
/// decodes from the zeroed output, not from the prompts.
pub(super) fn copies_the_output_in_first(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
) -> Result<Vec<Vec<i32>>> {
    let n = prompts.len();
    let h = history(stream, prompts, steps)?;
    let (input, output) = (stream.alloc_zeros::<i32>(n)?, stream.alloc_zeros::<i32>(n)?);
    stream.copy(h.slice(0..n), &input)?;
    for s in 0..steps {
        stream.copy(&output, &input)?;
        stream.decode_step(decoder, &input, &output)?;
        stream.copy(&output, h.slice((s + 1) * n..(s + 2) * n))?;
    }
    Ok(lists(
        &stream.to_vec(h.slice(n..(steps + 1) * n))?,
        n,
        steps,
    ))
}

/// The right loop, each output row cleared from the host before its step.
pub(super) fn clears_each_row_from_the_host(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
) -> Result<Vec<Vec<i32>>> {
    let n = prompts.len();
    let h = history(stream, prompts, steps)?;
    for s in 0..steps {
        stream.copy_from_host(&vec![0; n], h.slice((s + 1) * n..(s + 2) * n))?;
        step(stream, decoder, &h, n, s)?;
    }
    Ok(lists(
        &stream.to_vec(h.slice(n..(steps + 1) * n))?,
        n,
        steps,
    ))
}
