//! Launch-bound or compute-bound: what one size of kernel costs the CPU to
//! launch and the GPU to run, and which of the two sets the pace of a loop
//! of launches.
//!
//! [`profile`] times a loop of launches of one kernel twice at once: the
//! CPU's clock around the launches (each only queues its kernel) and a pair
//! of events around the kernels on the GPU, queued behind a long kernel so
//! that they run back to back. [`Profile::bound`] says which side is the
//! larger, and [`crossover`] finds the first size at which the GPU's is.

use gpu::{Result, Stream};
use std::time::Duration;

/// How to measure one size: launches to throw away first, then launches to
/// time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Untimed launches before the timed ones.
    pub warmup: usize,
    /// Timed launches (at least one).
    pub launches: usize,
}

/// What one size of kernel costs each processor, per launch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Profile {
    /// CPU time of one launch, in microseconds.
    pub cpu_us: f64,
    /// GPU time of one kernel, in microseconds.
    pub gpu_us: f64,
}

/// Which processor sets the pace of a loop of launches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The CPU: a launch takes longer than its kernel, and the GPU idles
    /// between kernels.
    Launch,
    /// The GPU: a kernel takes longer than its launch, and the CPU runs
    /// ahead.
    Compute,
}

impl Profile {
    /// Launch-bound when a launch costs the CPU more than its kernel costs
    /// the GPU, compute-bound otherwise.
    pub fn bound(&self) -> Bound {
        if self.cpu_us > self.gpu_us {
            Bound::Launch
        } else {
            Bound::Compute
        }
    }
}

/// The gate's length per timed launch: ten times what a launch costs the
/// CPU, so the GPU is still busy with the gate when the last launch is
/// queued.
const GATE_PER_LAUNCH: Duration = Duration::from_micros(50);

// ANCHOR: profile
/// Launches one kernel (`launch` queues one on the stream it is given)
/// `plan.warmup` times untimed, then `plan.launches` times timed, and
/// reports the CPU time of one launch and the GPU time of one kernel.
pub fn profile(
    stream: &Stream,
    plan: Plan,
    launch: &mut dyn FnMut(&Stream) -> Result<()>,
) -> Result<Profile> {
    // Warm-up: a kernel's first launch pays one-time costs (its module is
    // loaded) that no later launch pays.
    for _ in 0..plan.warmup {
        launch(stream)?;
    }
    // The gate: a long kernel ahead of the timed ones keeps the GPU busy
    // while the CPU queues them, so they run back to back and the events
    // see the kernels, not the gaps between the launches.
    stream.spin(GATE_PER_LAUNCH * plan.launches as u32)?;
    let start = stream.record_event()?;
    let device = stream.device();
    let started = device.now();
    for _ in 0..plan.launches {
        launch(stream)?; // queued: returns at once, nothing waits here
    }
    let cpu = device.now() - started;
    let end = stream.record_event()?;
    let gpu_ms = f64::from(start.elapsed_ms(&end)?); // the one wait, after the loop
    let launches = plan.launches as f64;
    Ok(Profile {
        cpu_us: cpu.as_secs_f64() * 1e6 / launches,
        gpu_us: gpu_ms * 1e3 / launches,
    })
}
// ANCHOR_END: profile

/// The index of the first compute-bound profile of `profiles` (one per
/// kernel size, from the smallest to the largest): the size from which the
/// GPU sets the pace. `None` when every size is launch-bound.
pub fn crossover(profiles: &[Profile]) -> Option<usize> {
    profiles.iter().position(|p| p.bound() == Bound::Compute)
}
