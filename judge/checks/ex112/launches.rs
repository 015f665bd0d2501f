//! The CPU side: what one launch costs the CPU, measured around launches
//! that only queue, once each size's first (cold) launch is out of the way.

use super::support::{
    COLD, FACTOR, Measured, PLAN, SECTION, Size, close, describe_wait, judged, near, per_size, us,
};
use judge_harness::{Ctx, Failure};

pub(super) fn the_cpu_time_is_one_launch(ctx: &Ctx) -> Result<(), Failure> {
    judged(ctx, |measurement| {
        ctx.save_timeline(&measurement.device);
        one_launch(measurement)
    })
}

/// The verdict on one measurement.
fn one_launch(measurement: &Measured) -> Result<(), Failure> {
    follows_the_plan(measurement)?;
    reads_the_devices_clock(measurement)?;
    let sizes = &measurement.sizes;
    let Some(size) = sizes
        .iter()
        .find(|s| !close(s.profile.cpu_us, measurement.launch_truth_us(s)))
    else {
        return Ok(());
    };
    let expected = format!(
        "for each kernel size, the CPU time of one launch within a factor of {FACTOR} of the judge's measurement: {}",
        per_size(sizes, |s| measurement.launch_truth_us(s))
    );
    let actual = format!(
        "{}: {} for one launch; yours: {}",
        size.name(),
        us(size.profile.cpu_us),
        per_size(sizes, |s| s.profile.cpu_us)
    );
    let failure = Failure::new(expected, actual);
    let failure = match waited(measurement, size) {
        Some(site) => failure.at(site),
        None => failure,
    };
    Err(failure.detail(format!("{}; {SECTION}", why(measurement, size))))
}

/// Passes when each size's `launch` was called `warmup + launches` times
/// at least (the chapter's way times the launches and the kernels in two
/// loops, so it calls it `launches` times more).
fn follows_the_plan(measurement: &Measured) -> Result<(), Failure> {
    let calls = PLAN.warmup + PLAN.launches;
    let Some(size) = measurement.sizes.iter().find(|s| s.calls.len() < calls) else {
        return Ok(());
    };
    let made = size.calls.len();
    let why = if made == PLAN.launches {
        format!(
            "no warm-up: the first launch of a kernel loads its module ({:.0} ms of CPU here, once), and timed it lands in the CPU time of a launch; call `launch` `plan.warmup` times before timing anything",
            COLD.as_secs_f64() * 1e3
        )
    } else {
        format!(
            "{} launch(es) short of the plan: `plan.warmup` untimed launches, then `plan.launches` timed ones, each a call of `launch` (a range such as `1..plan.warmup` runs `plan.warmup - 1` times)",
            calls - made
        )
    };
    Err(Failure::new(
        format!(
            "{} untimed launches, then {} timed ones: {calls} calls of `launch` for each size, at least",
            PLAN.warmup, PLAN.launches
        ),
        format!("{made} calls of `launch` for {}", size.name()),
    )
    .detail(format!("{why}; {SECTION}")))
}

/// Passes unless the learner's `profile` never read the device's clock for
/// a size (counted when its code runs in a process of its own): its CPU
/// time then came from a clock of its own process, whatever it reads.
fn reads_the_devices_clock(measurement: &Measured) -> Result<(), Failure> {
    let Some(size) = measurement.sizes.iter().find(|s| s.clock_reads == Some(0)) else {
        return Ok(());
    };
    Err(Failure::new(
        "the CPU time of a launch read on the device's clock, `stream.device().now()`, before the first timed launch and after the last",
        format!(
            "`profile` never read `stream.device().now()` for {}, yet reported a CPU time for one launch: that figure came from another clock, one of your own process (`std::time::Instant`, say)",
            size.name()
        ),
    )
    .detail(format!(
        "rule 2 times a launch on the device's clock: the CPU's own on a real GPU, the modelled CPU's on the virtual GPU. A clock of your own process cannot see the modelled CPU: on the virtual GPU it times the model's own work, which depends on the machine and the moment, so the same code would pass in one run and fail in the next. The judge asks for the device's clock on every backend, so that a verdict depends on your code alone: read `stream.device().now()` around the timed launches; {SECTION}"
    )))
}

/// Where the CPU waited in the time the learner's clock counted: inside
/// the timed loop, or after it when the clock stopped after the wait.
fn waited(measurement: &Measured, size: &Size) -> Option<gpu::CallSite> {
    if let Some(wait) = measurement.wait_in_the_loop(size) {
        return Some(wait.site);
    }
    let (per_launch, wait) = measurement.until_the_wait(size)?;
    near(size.profile.cpu_us, per_launch).then_some(wait.site)
}

/// Whether a CPU time of `cpu` per launch, against `truth`, holds the cold
/// first launch: the extra over all the timed launches is the cold cost,
/// give or take 10%, plus up to ten launches' worth for the calls a clock
/// read too early also counts (the warm-up launches, the gate).
fn cold_in(cpu: f64, truth: f64) -> bool {
    let extra = (cpu - truth) * PLAN.launches as f64;
    let cold_us = COLD.as_secs_f64() * 1e6;
    extra >= cold_us * 0.9 && extra <= cold_us * 1.1 + 10.0 * truth
}

/// Why the CPU time of one launch of `size` is not what the judge measured.
fn why(measurement: &Measured, size: &Size) -> String {
    let (cpu, truth) = (size.profile.cpu_us, measurement.launch_us(size));
    let n = PLAN.launches as f64;
    if let Some(wait) = measurement.wait_in_the_loop(size) {
        return format!(
            "{} can make the CPU wait inside the timed loop: the CPU time then includes the GPU's, each launch waiting for its kernel (and for the CPU to wake) before the next is queued; a launch only queues, so the timed loop only launches, and the one wait comes after it",
            describe_wait(&wait)
        );
    }
    let cold_timed = cold_in(cpu, truth);
    if cold_timed && size.calls.len() > PLAN.launches {
        return format!(
            "{} is {} more than a launch costs, {:.0} ms over {} launches: the first launch of the kernel was timed, and it loads the kernel's module. `launch` was called {} times, the warm-up included, so the clock was read before the warm-up launches and counts them, the cold one among them; read `device.now()` after the warm-up (and after the gate), just before the first timed launch",
            us(cpu),
            us(cpu - truth),
            COLD.as_secs_f64() * 1e3,
            PLAN.launches,
            size.calls.len()
        );
    }
    if cold_timed {
        return format!(
            "{} is {} more than a launch costs, {:.0} ms over {} launches: the first launch of the kernel was timed, and it loads the kernel's module; warm up with `plan.warmup` launches before starting the clock",
            us(cpu),
            us(cpu - truth),
            COLD.as_secs_f64() * 1e3,
            PLAN.launches
        );
    }
    if let Some((per_launch, wait)) = measurement.until_the_wait(size)
        && near(cpu, per_launch)
    {
        return format!(
            "{} is the time from the first timed launch until {} returned, over the launches: the clock stopped after that wait for the GPU (a synchronize, or `elapsed_ms`, which waits for its events), so it counts the GPU's time too; read the clock right after the last launch, before any wait",
            us(cpu),
            describe_wait(&wait)
        );
    }
    if near(cpu, truth * n) {
        return format!(
            "{} is the CPU time of the whole loop of {} launches: divide it by `plan.launches`",
            us(cpu),
            PLAN.launches
        );
    }
    if near(cpu, truth / 1e3) || near(cpu, truth * 1e3) {
        return format!(
            "{} is a launch's CPU time in the wrong unit ({} is a launch's): `cpu_us` is in microseconds, `as_secs_f64() * 1e6`",
            us(cpu),
            us(truth)
        );
    }
    "the CPU time of a launch is the CPU clock (`stream.device().now()`) read before the first timed launch and after the last, with nothing in between that waits, over `plan.launches`".to_string()
}
