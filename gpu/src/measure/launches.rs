//! The CPU cost of one launch of an empty kernel, four ways side by side:
//! [`measure_launches`]. Not on wasm32, where there is no real clock to read.

use crate::cuda::RawLaunches;
use crate::{Backend, BackendKind, Device, DeviceOptions, Result, Stream};
use std::time::{Duration, Instant};

/// How [`measure_launches`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchBench {
    /// The backend of the crate's two ways; cudarc's two run only where it is CUDA.
    pub backend: Backend,
    /// Rounds timed (after one warm-up round).
    pub rounds: usize,
    /// Launches of each way in a round.
    pub launches: usize,
}

impl Default for LaunchBench {
    /// `Auto`, 30 rounds of 200 launches.
    fn default() -> Self {
        Self {
            backend: Backend::Auto,
            rounds: 30,
            launches: 200,
        }
    }
}

/// One way of launching an empty kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LaunchWay {
    /// `cuLaunchKernel` through cudarc's result layer
    /// (`cudarc::driver::result::launch_kernel`): the context bound once
    /// before the round, the one argument on the stack. CUDA only.
    ResultLayer,
    /// cudarc's safe `CudaStream::launch_builder`, one builder per launch
    /// (it binds the context each time). CUDA only.
    LaunchBuilder,
    /// [`Stream::spin`]`(Duration::ZERO)` on a device opened with the default
    /// options: a trace entry and the race checker for every launch.
    Checked,
    /// The same on a device opened with [`DeviceOptions::trace`] and
    /// [`DeviceOptions::race_check`] off.
    Unchecked,
}

impl LaunchWay {
    /// The four ways, in the order of [`LaunchCosts::rounds_us`].
    pub const ALL: [Self; 4] = [
        Self::ResultLayer,
        Self::LaunchBuilder,
        Self::Checked,
        Self::Unchecked,
    ];

    /// What a table calls the way.
    pub fn label(self) -> &'static str {
        match self {
            Self::ResultLayer => "cudarc result layer (cuLaunchKernel)",
            Self::LaunchBuilder => "cudarc launch_builder",
            Self::Checked => "gpu crate, trace and race checker on",
            Self::Unchecked => "gpu crate, trace and race checker off",
        }
    }

    /// Whether the way needs the CUDA backend (cudarc's own launches).
    pub fn cuda_only(self) -> bool {
        matches!(self, Self::ResultLayer | Self::LaunchBuilder)
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// The median of some figures and their range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    /// The middle figure (the mean of the two middle ones for an even count).
    pub median: f64,
    /// The smallest.
    pub min: f64,
    /// The largest.
    pub max: f64,
}

impl Spread {
    /// The spread of `figures`, `None` when there are none.
    pub fn of(figures: &[f64]) -> Option<Self> {
        let mut sorted = figures.to_vec();
        sorted.sort_by(f64::total_cmp);
        let (first, last) = (*sorted.first()?, *sorted.last()?);
        Some(Self {
            median: super::median(sorted),
            min: first,
            max: last,
        })
    }
}

/// What [`measure_launches`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchCosts {
    /// The device's name ("NVIDIA H200", "virtual GPU").
    pub device: String,
    /// The backend of the crate's two ways.
    pub backend: BackendKind,
    /// Rounds timed.
    pub rounds: usize,
    /// Launches of each way in a round.
    pub launches: usize,
    /// For each way, in [`LaunchWay::ALL`]'s order, the median CPU time of a
    /// launch in each round, µs; empty for a way that did not run (cudarc's
    /// two on the virtual GPU).
    pub rounds_us: [Vec<f64>; 4],
}

impl LaunchCosts {
    /// The round medians of `way`, µs (empty where it did not run).
    pub fn rounds(&self, way: LaunchWay) -> &[f64] {
        &self.rounds_us[way.index()]
    }

    /// µs per launch of `way`: the median of its round medians and their
    /// range; `None` where it did not run.
    pub fn per_launch(&self, way: LaunchWay) -> Option<Spread> {
        Spread::of(self.rounds(way))
    }

    /// `way` against `base`, pair by pair: the ratio of their medians in each
    /// round, summed up; `None` unless both ran.
    pub fn ratio(&self, way: LaunchWay, base: LaunchWay) -> Option<Spread> {
        let pairs = self.rounds(way).iter().zip(self.rounds(base));
        Spread::of(&pairs.map(|(w, b)| w / b).collect::<Vec<_>>())
    }
}

/// Times one launch of an empty kernel four ways ([`LaunchWay`]), pair by
/// pair in one process: cudarc's result layer and its `launch_builder` on
/// the CUDA backend, and this crate's `spin(0)` with its trace and race
/// checker on and off, on `bench.backend`. Opens two devices of its own.
///
/// Each way launches the same kernel (`spin(0)`, one block of one thread)
/// on a stream of its own. A round times [`LaunchBench::launches`] launches
/// of each way, one way after the other, each from an idle stream and each
/// launch on its own (one clock read between two launches); the round's
/// figure for a way is the median of its launches. The ways take turns going
/// first from one round to the next, and one round is run first as a
/// warm-up. So two ways are compared round against round, in one process,
/// with the machine in the same state ([`LaunchCosts::ratio`]).
///
/// The clock is the real one ([`std::time::Instant`]) on both backends. On
/// the virtual GPU only the crate's two ways run, and their times are this
/// machine's CPU time of the crate's bookkeeping and of the virtual GPU's
/// model, not of any GPU's driver. Takes well under a second with the
/// defaults, on an H200 and on the virtual GPU.
pub fn measure_launches(bench: &LaunchBench) -> Result<LaunchCosts> {
    let open = |checks: bool| {
        Device::with_options(DeviceOptions {
            backend: bench.backend,
            quiet: true,
            trace: checks,
            race_check: checks,
            ..DeviceOptions::default()
        })
    };
    let (checked, unchecked) = (open(true)?, open(false)?);
    let raw = match checked.backend() {
        BackendKind::Cuda => Some(RawLaunches::open()?),
        BackendKind::Virtual => None,
    };
    let ways = Ways {
        raw,
        checked: checked.new_stream()?,
        unchecked: unchecked.new_stream()?,
    };
    let launches = bench.launches.max(1);
    let mut times = Vec::with_capacity(launches);
    let mut rounds_us: [Vec<f64>; 4] = Default::default();
    for round in 0..=bench.rounds {
        for turn in 0..LaunchWay::ALL.len() {
            let way = LaunchWay::ALL[(round + turn) % LaunchWay::ALL.len()];
            if !ways.time(way, launches, &mut times)? {
                continue;
            }
            if round > 0 {
                let median = super::median(times.iter().map(|t| t.as_secs_f64() * 1e6).collect());
                rounds_us[way.index()].push(median);
            }
        }
    }
    Ok(LaunchCosts {
        device: checked.name(),
        backend: checked.backend(),
        rounds: bench.rounds,
        launches,
        rounds_us,
    })
}

/// What launches each way: cudarc's stream (CUDA only), and a stream of each device.
struct Ways {
    raw: Option<RawLaunches>,
    checked: Stream,
    unchecked: Stream,
}

impl Ways {
    /// Times `n` launches of `way` from an idle stream into `times` (one
    /// duration per launch); `false`, timing nothing, where `way` cannot run.
    fn time(&self, way: LaunchWay, n: usize, times: &mut Vec<Duration>) -> Result<bool> {
        match (way, &self.raw) {
            (LaunchWay::ResultLayer, Some(raw)) => {
                raw.synchronize()?;
                raw.bind()?;
                each(n, times, || raw.result_layer())?;
            }
            (LaunchWay::LaunchBuilder, Some(raw)) => {
                raw.synchronize()?;
                each(n, times, || raw.launch_builder())?;
            }
            (LaunchWay::Checked, _) => spins(&self.checked, n, times)?,
            (LaunchWay::Unchecked, _) => spins(&self.unchecked, n, times)?,
            (LaunchWay::ResultLayer | LaunchWay::LaunchBuilder, None) => return Ok(false),
        }
        Ok(true)
    }
}

/// Times `n` launches of `spin(0)` on `stream`, from an idle stream.
fn spins(stream: &Stream, n: usize, times: &mut Vec<Duration>) -> Result<()> {
    stream.synchronize()?;
    each(n, times, || stream.spin(Duration::ZERO))
}

/// Runs `launch` `n` times, writing the time each took into `times`: one
/// clock read between two launches, and no allocation (`times` is reused).
fn each(n: usize, times: &mut Vec<Duration>, mut launch: impl FnMut() -> Result<()>) -> Result<()> {
    times.clear();
    let mut last = Instant::now();
    for _ in 0..n {
        launch()?;
        let now = Instant::now();
        times.push(now - last);
        last = now;
    }
    Ok(())
}
