//! The runtime of the judge's harness binaries.
//!
//! For each run the judge generates a tiny crate whose `main` calls
//! [`main`] with the check suite of one exercise; the suite's checks call the
//! learner's crate. This crate runs the checks one by one and reports each
//! outcome to the judge through a socket that arrives as stdin and that
//! only it holds once it has read its setup ([`protocol`] says how).
//! Whatever the learner's code prints goes to stdout and stderr, which the
//! judge shows as output and never reads as a verdict.
//!
//! A check is a plain function returning `Result<(), Failure>`: a failure
//! says what was expected, what happened, where in the learner's code, and
//! which chapter section explains it. A panic (a `todo!()` in a starter, an
//! `unwrap` on a GPU error) becomes its own outcome with its location.

mod channel;
pub mod lockdown;
pub mod protocol;
mod runner;

pub use lockdown::Lockdown;
pub use protocol::{CheckInfo, Event, Outcome, Setup};
pub use runner::main;

use gpu::{Backend, CallSite, Device, DeviceOptions};
use std::path::PathBuf;

/// One check of a suite.
#[derive(Clone, Copy, Debug)]
pub struct Check {
    /// A stable identifier, unique in its suite (`best_fit_prefers_smallest`).
    pub name: &'static str,
    /// What it checks, in one sentence.
    pub title: &'static str,
    /// The chapter section that explains it (`chapters/allocator.md#best-fit`).
    pub section: &'static str,
    /// Points it is worth when grading.
    pub points: u32,
    /// The check itself.
    pub run: fn(&Ctx) -> Result<(), Failure>,
}

impl Check {
    /// A check; a `const fn`, so that a suite lists its checks in a
    /// `const CHECKS: &[Check]`.
    pub const fn new(
        name: &'static str,
        title: &'static str,
        section: &'static str,
        points: u32,
        run: fn(&Ctx) -> Result<(), Failure>,
    ) -> Self {
        Self {
            name,
            title,
            section,
            points,
            run,
        }
    }
}

/// What a check may use: the backend to open devices on, a folder for
/// timelines and traces, and the seed of generated workloads.
#[derive(Debug)]
pub struct Ctx {
    backend: Backend,
    artifacts: Option<PathBuf>,
    seed: Option<u64>,
}

impl Ctx {
    /// A context for `backend` (what the runner builds from the judge's setup).
    pub fn new(backend: Backend, artifacts: Option<PathBuf>) -> Self {
        Self {
            backend,
            artifacts,
            seed: None,
        }
    }

    /// The context with the seed chosen at grading time.
    pub fn with_seed(mut self, seed: Option<u64>) -> Self {
        self.seed = seed;
        self
    }

    /// The seed of a generated workload whose course seed is `course`:
    /// `course` itself in `judge run` and `judge verify`, so that what a
    /// learner sees is what the book shows; when grading, a seed mixed from
    /// `course` and the seed chosen at grading time (recorded in the
    /// results), so that output hard-coded for the course's seeds fails.
    /// Each `course` seed gives a stream of its own.
    pub fn seed(&self, course: u64) -> u64 {
        match self.seed {
            None => course,
            Some(grading) => splitmix(grading ^ splitmix(course)),
        }
    }

    /// The backend the judge asked for.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Opens a device on the judge's backend, quietly. When the judge asked
    /// for timelines (`judge run --timeline`), a real GPU also times every
    /// operation with events, so that the timeline has GPU lanes; that costs
    /// a few microseconds of CPU per call, which no check's margin feels.
    pub fn device(&self) -> Result<Device, Failure> {
        Device::with_options(DeviceOptions {
            backend: self.backend,
            quiet: true,
            gpu_timing: self.artifacts.is_some(),
            ..DeviceOptions::default()
        })
        .map_err(|e| Failure::new("a device to open", e.to_string()))
    }

    /// Writes `device`'s trace as `NAME.json` (Chrome trace) and `NAME.svg`
    /// (timeline) into the artifacts folder, if the judge asked for one.
    pub fn save_trace(&self, name: &str, device: &Device) {
        let Some(dir) = &self.artifacts else { return };
        let trace = device.trace();
        let _ = std::fs::create_dir_all(dir);
        let _ = std::fs::write(dir.join(format!("{name}.json")), trace.to_chrome_json());
        let options = gpu::SvgOptions {
            title: Some(name.to_string()),
            ..Default::default()
        };
        let _ = std::fs::write(dir.join(format!("{name}.svg")), trace.to_svg(&options));
    }
}

/// Why a check failed: what was expected, what happened, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// What the check expected.
    pub expected: String,
    /// What happened instead.
    pub actual: String,
    /// The learner's call site responsible, when known.
    pub site: Option<CallSite>,
    /// More detail: a race report, a trace excerpt.
    pub detail: Option<String>,
}

impl Failure {
    /// A failure: `expected` and what happened (`actual`).
    pub fn new(expected: impl Into<String>, actual: impl Into<String>) -> Self {
        Self {
            expected: expected.into(),
            actual: actual.into(),
            site: None,
            detail: None,
        }
    }

    /// Names the learner's call site.
    pub fn at(mut self, site: CallSite) -> Self {
        self.site = Some(site);
        self
    }

    /// Adds detail.
    pub fn detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }
}

impl From<gpu::GpuError> for Failure {
    fn from(e: gpu::GpuError) -> Self {
        Failure::new("the GPU calls to succeed", e.to_string())
    }
}

/// One step of SplitMix64: a well-mixed 64-bit value of `x`.
fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The median of `values` (the upper one of an even count); 0 when empty.
/// Checks judge timings by medians of one run, never by single samples.
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.get(sorted.len() / 2).copied().unwrap_or(0.0)
}

/// Fails with `expected`/`actual` unless `left == right`.
pub fn ensure_eq<T: PartialEq + std::fmt::Debug>(
    left: T,
    right: T,
    what: &str,
) -> Result<(), Failure> {
    if left == right {
        Ok(())
    } else {
        Err(Failure::new(
            format!("{what}: {right:?}"),
            format!("{left:?}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::{Ctx, median};

    #[test]
    fn grading_seeds_change_every_workload_and_the_course_seed_is_kept_otherwise() {
        let run = Ctx::new(gpu::Backend::Virtual, None);
        assert_eq!(run.seed(102), 102);
        let graded = Ctx::new(gpu::Backend::Virtual, None).with_seed(Some(7));
        let other = Ctx::new(gpu::Backend::Virtual, None).with_seed(Some(8));
        assert_ne!(graded.seed(102), 102);
        assert_ne!(
            graded.seed(102),
            graded.seed(104),
            "each workload its own stream"
        );
        assert_ne!(graded.seed(102), other.seed(102));
        assert_eq!(
            graded.seed(102),
            graded.seed(102),
            "a recorded seed reproduces"
        );
    }

    #[test]
    fn median_is_the_middle_sample_whatever_the_order() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 3.0);
        assert_eq!(median(&[]), 0.0);
    }
}
