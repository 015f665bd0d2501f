//! Drawing a run's steps from the seed: every beat of `scenes.rs` once,
//! on a stream, with kernels of 500 to 1500 µs, dealt over the steps, each
//! beat after a little host work.

use super::scenes::{Action, Beat, GAP_US, PROBES, STEPS, Step};
use judge_harness::SplitMix;

/// A kernel's length: 500 to 1500 µs, in steps of 100 µs.
fn kernel_us(rng: &mut SplitMix) -> u64 {
    500 + 100 * rng.below(11)
}

/// Every beat of a run, drawn from `rng`, in a fixed order.
fn beats(rng: &mut SplitMix) -> Vec<Beat> {
    let mut stream = || rng.below(2) as usize;
    let mut beats = Vec::new();
    for probe in PROBES {
        beats.push(Beat::Waits {
            probe,
            stream: stream(),
            kernel_us: 0,
        });
        beats.push(Beat::FindsIdle {
            probe,
            stream: stream(),
            kernel_us: 0,
        });
    }
    beats.push(Beat::OtherStreamBusy {
        stream: stream(),
        kernel_us: 0,
    });
    beats.push(Beat::Queued {
        stream: stream(),
        kernel_us: 0,
    });
    for sync_first in [false, true] {
        beats.push(Beat::Timed {
            stream: stream(),
            kernel_us: 0,
            sync_first,
        });
    }
    beats.push(Beat::SlowCalls);
    beats.push(Beat::EndsJustAfter {
        stream: stream(),
        kernel_us: 0,
    });
    beats.push(Beat::EndsAsItBegins {
        stream: stream(),
        kernel_us: 0,
    });
    beats
        .iter()
        .map(|&b| with_kernel(b, kernel_us(rng)))
        .collect()
}

/// `beat` with kernels of `us` microseconds.
fn with_kernel(beat: Beat, us: u64) -> Beat {
    match beat {
        Beat::Waits { probe, stream, .. } => Beat::Waits {
            probe,
            stream,
            kernel_us: us,
        },
        Beat::FindsIdle { probe, stream, .. } => Beat::FindsIdle {
            probe,
            stream,
            kernel_us: us,
        },
        Beat::OtherStreamBusy { stream, .. } => Beat::OtherStreamBusy {
            stream,
            kernel_us: us,
        },
        Beat::Queued { stream, .. } => Beat::Queued {
            stream,
            kernel_us: us,
        },
        Beat::Timed {
            stream, sync_first, ..
        } => Beat::Timed {
            stream,
            kernel_us: us,
            sync_first,
        },
        Beat::EndsJustAfter { stream, .. } => Beat::EndsJustAfter {
            stream,
            kernel_us: us,
        },
        Beat::EndsAsItBegins { stream, .. } => Beat::EndsAsItBegins {
            stream,
            kernel_us: us,
        },
        Beat::SlowCalls => Beat::SlowCalls,
        Beat::DecodeLoop { .. } => beat,
    }
}

/// The decode loop of a run: 4 to 6 steps, the logits read at a step
/// between the second and the one before the last, host work of half to
/// three quarters of a kernel.
fn decode_loop(rng: &mut SplitMix) -> Beat {
    let steps = 4 + rng.below(3) as usize;
    let kernel_us = kernel_us(rng);
    Beat::DecodeLoop {
        stream: rng.below(2) as usize,
        steps,
        read: 1 + rng.below(steps as u64 - 2) as usize,
        kernel_us,
        host_us: kernel_us / 2 + kernel_us * rng.below(6) / 24 + 10,
    }
}

/// The steps of the run of `seed`: every beat once, dealt over [`STEPS`]
/// steps (those with a wait first, so that each step has its share of
/// them), each step's beats shuffled, the decode loop first in one step.
pub(crate) fn steps(seed: u64) -> Vec<Vec<Beat>> {
    let mut rng = SplitMix::new(seed);
    let (mut waiting, mut idle): (Vec<Beat>, Vec<Beat>) = beats(&mut rng)
        .into_iter()
        .partition(|b| b.steps().iter().any(|s| s.waits.is_some()));
    rng.shuffle(&mut waiting);
    rng.shuffle(&mut idle);
    let mut dealt: Vec<Vec<Beat>> = vec![Vec::new(); STEPS];
    for (i, beat) in waiting.into_iter().chain(idle).enumerate() {
        dealt[i % STEPS].push(beat);
    }
    for step in &mut dealt {
        rng.shuffle(step);
    }
    let with_loop = rng.below(STEPS as u64) as usize;
    dealt[with_loop].insert(0, decode_loop(&mut rng));
    dealt
}

/// The calls of a step of beats, each beat after host work of
/// [`GAP_US`] to twice that.
pub(crate) fn calls(beats: &[Beat], seed: u64) -> Vec<Step> {
    let mut rng = SplitMix::new(seed);
    let mut calls = Vec::new();
    for beat in beats {
        let gap = GAP_US + 50 * rng.below(GAP_US / 50 + 1);
        calls.push(Step {
            action: Action::HostWork { us: gap },
            waits: None,
        });
        calls.extend(beat.steps());
    }
    calls
}
