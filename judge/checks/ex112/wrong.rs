//! Profiling functions, classifications and crossovers the suite's tests
//! put in place of the solution's: one right way that is not the
//! solution's, and the known-wrong ones, each a mistake the checks name.

use gpu::{Result, Stream};
use launch_bound::{Bound, Plan, Profile};
use std::time::Duration;

/// The launch callback.
type Launch<'a> = &'a mut dyn FnMut(&Stream) -> Result<()>;

fn per_launch(total: Duration, plan: Plan) -> f64 {
    total.as_secs_f64() * 1e6 / plan.launches as f64
}

fn gpu_per_kernel(ms: f32, plan: Plan) -> f64 {
    f64::from(ms) * 1e3 / plan.launches as f64
}

fn warm_up(stream: &Stream, plan: Plan, launch: Launch<'_>) -> Result<()> {
    for _ in 0..plan.warmup {
        launch(stream)?;
    }
    Ok(())
}

/// Right, the chapter's way: the launches timed on an idle GPU first, then
/// the kernels timed with events behind a gate, in a second loop.
pub(super) fn two_loops(stream: &Stream, plan: Plan, launch: Launch<'_>) -> Result<Profile> {
    warm_up(stream, plan, launch)?;
    let device = stream.device();
    stream.synchronize()?;
    let started = device.now();
    for _ in 0..plan.launches {
        launch(stream)?;
    }
    let cpu = device.now() - started;
    stream.spin(Duration::from_millis(10))?;
    let start = stream.record_event()?;
    for _ in 0..plan.launches {
        launch(stream)?;
    }
    let end = stream.record_event()?;
    Ok(Profile {
        cpu_us: per_launch(cpu, plan),
        gpu_us: gpu_per_kernel(start.elapsed_ms(&end)?, plan),
    })
}

/// The solution's way with a gate of `gate` and the start event before or
/// after it (no gate when `gate` is zero); `sync` waits after every
/// launch; `warm` warms up first.
fn gated(
    stream: &Stream,
    plan: Plan,
    launch: Launch<'_>,
    (gate, start_first, sync, warm): (Duration, bool, bool, bool),
) -> Result<Profile> {
    if warm {
        warm_up(stream, plan, launch)?;
    }
    let early = match start_first {
        true => Some(stream.record_event()?),
        false => None,
    };
    if !gate.is_zero() {
        stream.spin(gate)?;
    }
    let start = match early {
        Some(start) => start,
        None => stream.record_event()?,
    };
    let device = stream.device();
    let started = device.now();
    for _ in 0..plan.launches {
        launch(stream)?;
        if sync {
            stream.synchronize()?; // wrong: the CPU waits for every kernel
        }
    }
    let cpu = device.now() - started;
    let end = stream.record_event()?;
    Ok(Profile {
        cpu_us: per_launch(cpu, plan),
        gpu_us: gpu_per_kernel(start.elapsed_ms(&end)?, plan),
    })
}

const GATE: Duration = Duration::from_millis(5);

/// A synchronize after every launch inside the timed loop.
pub(super) fn synchronizes_after_each_launch(
    stream: &Stream,
    plan: Plan,
    launch: Launch<'_>,
) -> Result<Profile> {
    gated(stream, plan, launch, (GATE, false, true, true))
}

/// No warm-up: the cold first launch is timed.
pub(super) fn no_warm_up(stream: &Stream, plan: Plan, launch: Launch<'_>) -> Result<Profile> {
    gated(stream, plan, launch, (GATE, false, false, false))
}

/// No gate: events around a launch-bound loop time the launches.
pub(super) fn no_gate(stream: &Stream, plan: Plan, launch: Launch<'_>) -> Result<Profile> {
    gated(stream, plan, launch, (Duration::ZERO, false, false, true))
}

/// A gate shorter than the launches take to queue.
pub(super) fn gate_too_short(stream: &Stream, plan: Plan, launch: Launch<'_>) -> Result<Profile> {
    gated(
        stream,
        plan,
        launch,
        (Duration::from_micros(50), false, false, true),
    )
}

/// The start event recorded before the gate.
pub(super) fn start_before_the_gate(
    stream: &Stream,
    plan: Plan,
    launch: Launch<'_>,
) -> Result<Profile> {
    gated(stream, plan, launch, (GATE, true, false, true))
}

/// The warm-up launches inside the timed loop: `warmup + launches` timed,
/// over `launches`.
pub(super) fn warm_up_timed(stream: &Stream, plan: Plan, launch: Launch<'_>) -> Result<Profile> {
    stream.spin(GATE)?;
    let start = stream.record_event()?;
    let device = stream.device();
    let started = device.now();
    for _ in 0..plan.warmup + plan.launches {
        launch(stream)?;
    }
    let cpu = device.now() - started;
    let end = stream.record_event()?;
    Ok(Profile {
        cpu_us: per_launch(cpu, plan),
        gpu_us: gpu_per_kernel(start.elapsed_ms(&end)?, plan),
    })
}

/// The CPU clock read after `elapsed_ms`, which waits for the kernels.
pub(super) fn clock_stopped_after_the_wait(
    stream: &Stream,
    plan: Plan,
    launch: Launch<'_>,
) -> Result<Profile> {
    warm_up(stream, plan, launch)?;
    stream.synchronize()?;
    let device = stream.device();
    let start = stream.record_event()?;
    let started = device.now();
    for _ in 0..plan.launches {
        launch(stream)?;
    }
    let end = stream.record_event()?;
    let gpu_ms = start.elapsed_ms(&end)?;
    let cpu = device.now() - started; // wrong: after the wait
    Ok(Profile {
        cpu_us: per_launch(cpu, plan),
        gpu_us: gpu_per_kernel(gpu_ms, plan),
    })
}

/// The GPU timed on the CPU clock: from the first launch to the end of a
/// synchronize after the loop.
pub(super) fn gpu_on_the_cpu_clock(
    stream: &Stream,
    plan: Plan,
    launch: Launch<'_>,
) -> Result<Profile> {
    warm_up(stream, plan, launch)?;
    stream.synchronize()?;
    let device = stream.device();
    let started = device.now();
    for _ in 0..plan.launches {
        launch(stream)?;
    }
    let cpu = device.now() - started;
    stream.synchronize()?;
    let wall = device.now() - started;
    Ok(Profile {
        cpu_us: per_launch(cpu, plan),
        gpu_us: per_launch(wall, plan),
    })
}

/// The totals of the loop, not divided by the launches.
pub(super) fn totals_not_divided(
    stream: &Stream,
    plan: Plan,
    launch: Launch<'_>,
) -> Result<Profile> {
    let one = gated(stream, plan, launch, (GATE, false, false, true))?;
    let n = plan.launches as f64;
    Ok(Profile {
        cpu_us: one.cpu_us * n,
        gpu_us: one.gpu_us * n,
    })
}

/// The solution's, the launches timed with `std::time::Instant` instead of
/// the device's clock.
pub(super) fn timed_with_instant(
    stream: &Stream,
    plan: Plan,
    launch: Launch<'_>,
) -> Result<Profile> {
    warm_up(stream, plan, launch)?;
    stream.spin(Duration::from_micros(50) * plan.launches as u32)?;
    let start = stream.record_event()?;
    let started = std::time::Instant::now();
    for _ in 0..plan.launches {
        launch(stream)?;
    }
    let cpu = started.elapsed();
    let end = stream.record_event()?;
    Ok(Profile {
        cpu_us: per_launch(cpu, plan),
        gpu_us: gpu_per_kernel(start.elapsed_ms(&end)?, plan),
    })
}

/// The starter's: no warm-up, a synchronize after every launch, the GPU
/// read on the CPU clock.
pub(super) fn starter(stream: &Stream, plan: Plan, launch: Launch<'_>) -> Result<Profile> {
    let device = stream.device();
    let (mut cpu, mut gpu) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..plan.launches {
        let started = device.now();
        launch(stream)?;
        cpu += device.now() - started;
        stream.synchronize()?;
        gpu += device.now() - started;
    }
    Ok(Profile {
        cpu_us: per_launch(cpu, plan),
        gpu_us: per_launch(gpu, plan),
    })
}

/// Inverted: compute-bound when the launch costs more.
pub(super) fn inverted(p: &Profile) -> Bound {
    match p.cpu_us > p.gpu_us {
        true => Bound::Compute,
        false => Bound::Launch,
    }
}

/// Compares the kernel with a constant, the H200's launch, instead of
/// this profile's launch.
pub(super) fn against_a_constant(p: &Profile) -> Bound {
    match p.gpu_us > 4.6 {
        true => Bound::Compute,
        false => Bound::Launch,
    }
}

fn compute(p: &Profile) -> bool {
    p.gpu_us > p.cpu_us
}

/// The last launch-bound size.
pub(super) fn last_launch_bound(profiles: &[Profile]) -> Option<usize> {
    let first = profiles.iter().position(compute)?;
    Some(first.saturating_sub(1))
}

/// One past the first compute-bound size.
pub(super) fn one_past_the_first(profiles: &[Profile]) -> Option<usize> {
    profiles.iter().position(compute).map(|i| i + 1)
}

/// One after the last launch-bound size.
pub(super) fn after_the_last_launch_bound(profiles: &[Profile]) -> Option<usize> {
    match profiles.iter().rposition(|p| !compute(p)) {
        Some(last) if last + 1 < profiles.len() => Some(last + 1),
        Some(_) => None,
        None => Some(0),
    }
}

/// The index after the last launch-bound size, whatever the list.
pub(super) fn index_after_the_last_launch_bound(profiles: &[Profile]) -> Option<usize> {
    profiles
        .iter()
        .rposition(|p| !compute(p))
        .map(|last| last + 1)
}

/// The clock read before the warm-up, which runs as the solution's does.
pub(super) fn clock_before_the_warm_up(
    stream: &Stream,
    plan: Plan,
    launch: Launch<'_>,
) -> Result<Profile> {
    let device = stream.device();
    let started = device.now();
    warm_up(stream, plan, launch)?;
    stream.spin(GATE)?;
    let start = stream.record_event()?;
    for _ in 0..plan.launches {
        launch(stream)?;
    }
    let cpu = device.now() - started;
    let end = stream.record_event()?;
    Ok(Profile {
        cpu_us: per_launch(cpu, plan),
        gpu_us: gpu_per_kernel(start.elapsed_ms(&end)?, plan),
    })
}

/// Looks at the first profile before anything else.
pub(super) fn panics_on_no_size(profiles: &[Profile]) -> Option<usize> {
    if compute(&profiles[0]) {
        return Some(0);
    }
    profiles.iter().position(compute)
}

/// The events recorded on a stream of their own, which has nothing queued.
pub(super) fn events_on_another_stream(
    stream: &Stream,
    plan: Plan,
    launch: Launch<'_>,
) -> Result<Profile> {
    warm_up(stream, plan, launch)?;
    let timer = stream.device().new_stream()?;
    stream.spin(GATE)?;
    let start = timer.record_event()?;
    let device = stream.device();
    let started = device.now();
    for _ in 0..plan.launches {
        launch(stream)?;
    }
    let cpu = device.now() - started;
    let end = timer.record_event()?;
    Ok(Profile {
        cpu_us: per_launch(cpu, plan),
        gpu_us: gpu_per_kernel(start.elapsed_ms(&end)?, plan),
    })
}

/// The starter's `crossover`: not written yet.
pub(super) fn crossover_not_written(_: &[Profile]) -> Option<usize> {
    panic!("not yet implemented")
}
