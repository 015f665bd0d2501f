//! Probing how the driver stages copies from pageable memory: the staging
//! buffer's size and speed, how many copies it holds at once, and which
//! copies skip it.

use super::{Bench, MIB, REPS, Timer, medians, slope};
use crate::Result;
use std::time::Duration;

/// The gate behind which the staging buffer is probed.
const STAGING_GATE: Duration = Duration::from_millis(20);
/// A probe that returns within this time, behind [`STAGING_GATE`], did not wait for the gate.
const AT_ONCE: Duration = Duration::from_millis(5);
/// Pageable copy sizes probed for the staging buffer, bytes, smallest first.
const STAGING_SIZES: [usize; 6] = [MIB / 4, MIB / 2, MIB, 2 * MIB, 4 * MIB, 8 * MIB];

/// `staging_bytes`: the largest of [`STAGING_SIZES`] up to which pageable
/// copies behind a busy stream return at once; `staging_bytes_per_ns`: the
/// slope of pageable copies that fit it, which return once staged.
pub(super) fn staging(b: &Bench) -> Result<(u64, f64)> {
    let largest = STAGING_SIZES[STAGING_SIZES.len() - 1] / 4;
    let buffer = b.stream.alloc_zeros::<f32>(largest)?;
    let host = vec![0.0f32; largest];
    let copy = |len: usize| b.stream.copy_from_host(&host[..len], buffer.slice(0..len));
    let times = medians(REPS, || {
        let mut times = [0.0; STAGING_SIZES.len()];
        for (time, bytes) in times.iter_mut().zip(STAGING_SIZES) {
            b.device.synchronize()?;
            b.stream.spin(STAGING_GATE)?;
            let timer = Timer::start(&b.device);
            copy(bytes / 4)?;
            *time = timer.ns();
        }
        Ok(times)
    })?;
    let at_once = AT_ONCE.as_nanos() as f64;
    let fits = STAGING_SIZES
        .iter()
        .zip(times)
        .take_while(|&(_, time)| time < at_once)
        .count();
    let staging_bytes = fits.checked_sub(1).map_or(0, |i| STAGING_SIZES[i]);
    let staged = staging_bytes.max(STAGING_SIZES[0]);
    let [rate] = medians(REPS, || Ok([slope(staged, |len| b.idle_ns(|| copy(len)))?]))?;
    Ok((staging_bytes as u64, rate))
}

/// Copies queued back to back behind the gate when probing the staging slots.
const QUEUED: usize = 8;
/// Sizes probed for copies that travel in the command stream, smallest first.
const INLINE_SIZES: [usize; 4] = [4 << 10, 16 << 10, 64 << 10, 128 << 10];

/// How many of `QUEUED` pageable copies, queued behind the gate, return at once.
fn at_once(
    b: &Bench,
    buffer: &crate::DeviceBuffer<f32>,
    host: &[f32],
    bytes: usize,
) -> Result<usize> {
    b.device.synchronize()?;
    b.stream.spin(STAGING_GATE)?;
    let mut fast = 0;
    for _ in 0..QUEUED {
        let timer = Timer::start(&b.device);
        b.stream
            .copy_from_host(&host[..bytes / 4], buffer.slice(0..bytes / 4))?;
        if timer.ns() >= AT_ONCE.as_nanos() as f64 {
            break;
        }
        fast += 1;
    }
    b.device.synchronize()?;
    Ok(fast)
}

/// `staging_slots`: how many staged copies (a quarter of the staging buffer
/// each) return at once behind a busy stream; `inline_bytes`: the largest of
/// [`INLINE_SIZES`] of which all `QUEUED` copies return at once.
pub(super) fn staging_slots(b: &Bench, staging_bytes: u64) -> Result<(u64, u64)> {
    let staged = (staging_bytes as usize / 4).max(INLINE_SIZES[INLINE_SIZES.len() - 1] * 2);
    let buffer = b.stream.alloc_zeros::<f32>(staged / 4)?;
    let host = vec![0.0f32; staged / 4];
    let slots = at_once(b, &buffer, &host, staged)? as u64;
    let mut inline = 0;
    for bytes in INLINE_SIZES {
        if at_once(b, &buffer, &host, bytes)? < QUEUED {
            break;
        }
        inline = bytes as u64;
    }
    Ok((slots, inline))
}
