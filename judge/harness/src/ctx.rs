//! What a check may use: the judge's backend, a folder for timelines and
//! traces, the suite's snapshot folder, and the seed of generated inputs.

use crate::failure::Failure;
use crate::protocol::Artifact;
use gpu::{Backend, Device, DeviceOptions};
use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// The course's fixed seed: what [`Ctx::seed`] is outside grade mode, so
/// that a check that generates its inputs shows every learner the same ones
/// with `judge run`. In grade mode the judge chooses another seed at grading
/// time ([`Setup::seed`](crate::protocol::Setup::seed)).
pub const COURSE_SEED: u64 = 0x5eed_2026;

/// What a check may use: the backend to open devices on, a folder for
/// timelines and traces, the suite's snapshot folder, and the seed of
/// generated inputs.
#[derive(Debug)]
pub struct Ctx {
    backend: Backend,
    artifacts: Option<PathBuf>,
    snapshots: Option<PathBuf>,
    seed: Option<u64>,
    /// The check that runs now (the runner sets it): it names the timeline.
    check: Cell<&'static str>,
    /// The artifacts saved since they were last taken.
    saved: RefCell<Vec<Artifact>>,
}

impl Ctx {
    /// A context for `backend`, with no artifacts folder and no snapshots.
    pub fn new(backend: Backend) -> Self {
        Self {
            backend,
            artifacts: None,
            snapshots: None,
            seed: None,
            check: Cell::new(""),
            saved: RefCell::new(Vec::new()),
        }
    }

    /// Where timelines and traces go (the judge asked for them), if anywhere.
    pub fn with_artifacts(mut self, dir: Option<PathBuf>) -> Self {
        self.artifacts = dir;
        self
    }

    /// The suite's snapshot folder, which [`snapshot!`](crate::snapshot!)
    /// compares against.
    pub fn with_snapshots(mut self, dir: Option<PathBuf>) -> Self {
        self.snapshots = dir;
        self
    }

    /// The seed the judge chose for this run ([`Setup::seed`](crate::Setup::seed)),
    /// if any: in grade mode only.
    pub fn with_seed(mut self, seed: Option<u64>) -> Self {
        self.seed = seed;
        self
    }

    /// The seed of checks that generate their inputs (programs, workloads):
    /// the one the judge chose at grading time, else the course's fixed
    /// [`COURSE_SEED`], so that `judge run` shows every
    /// learner the same inputs.
    pub fn seed(&self) -> u64 {
        self.seed.unwrap_or(COURSE_SEED)
    }

    /// The seed of a generated workload whose course seed is `course`:
    /// `course` itself in `judge run` and `judge verify`, so that what a
    /// learner sees is what the book shows; when grading, a seed mixed from
    /// `course` and the seed chosen at grading time (recorded in the
    /// results), so that output hard-coded for the course's seeds fails.
    /// Each `course` seed gives a stream of its own.
    pub fn seed_for(&self, course: u64) -> u64 {
        // One step of splitmix64: a well-mixed 64-bit value of `x`.
        let mix = |x| crate::rng::SplitMix::new(x).next_u64();
        match self.seed {
            None => course,
            Some(grading) => mix(grading ^ mix(course)),
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

    /// Opens a device on the judge's backend, quietly, whose trace has every
    /// operation's GPU start and end (a real GPU times each with events): for
    /// a check that reads how long each operation took on the GPU in the run
    /// it grades.
    pub fn timed_device(&self) -> Result<Device, Failure> {
        Device::with_options(DeviceOptions {
            backend: self.backend,
            quiet: true,
            gpu_timing: true,
            ..DeviceOptions::default()
        })
        .map_err(|e| Failure::new("a device to open", e.to_string()))
    }

    /// Writes `device`'s trace as `NAME.json` (Chrome trace) and `NAME.svg`
    /// (timeline) into the artifacts folder, if the judge asked for one. The
    /// judge does not show a named trace; the timeline it shows is the one
    /// [`Ctx::save_timeline`] saves.
    pub fn save_trace(&self, name: &str, device: &Device) {
        if let Some(dir) = &self.artifacts {
            write_trace(dir, name, name, device);
        }
    }

    /// Saves `device`'s trace as the timeline that `judge run --timeline`
    /// (the SVG) and `--trace` (the Chrome trace) write, when the judge
    /// asked for one: the files are named after the running check, and the
    /// runner tells the judge their paths ([`Artifact::Timeline`]).
    pub fn save_timeline(&self, device: &Device) {
        let Some(dir) = &self.artifacts else { return };
        let check = match self.check.get() {
            "" => "timeline",
            name => name,
        };
        let (svg, json) = write_trace(dir, &format!("{check}.timeline"), check, device);
        self.saved
            .borrow_mut()
            .push(Artifact::Timeline { svg, json });
    }

    /// The artifacts saved since the last call, in order.
    pub fn take_artifacts(&self) -> Vec<Artifact> {
        self.saved.take()
    }

    /// Names the check that runs now (the runner calls it before each check).
    pub(crate) fn begin(&self, check: &'static str) {
        self.check.set(check);
    }

    /// Runs `assert`, an insta assertion of the snapshot `name`, against the
    /// suite's snapshot folder; a mismatch is a failure that expects
    /// `expected`. Write it with [`snapshot!`](crate::snapshot!), which
    /// builds `assert`.
    ///
    /// The snapshot is `FOLDER/NAME.snap`, wherever the suite is compiled
    /// (no module prefix, no path relative to the source file). What insta
    /// does on a mismatch is up to the environment: the judge runs the
    /// harness with `INSTA_UPDATE=no` and `INSTA_FORCE_PASS=0`, so insta
    /// writes nothing and prints its diff to the harness's output.
    #[doc(hidden)]
    pub fn snapshot(
        &self,
        name: &str,
        expected: &str,
        assert: impl FnOnce(),
    ) -> Result<(), Failure> {
        let Some(dir) = &self.snapshots else {
            return Err(Failure::new(
                format!("{expected}: the judge's snapshot `{name}`"),
                "the judge named no snapshot folder for this suite",
            ));
        };
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(dir);
        settings.set_prepend_module_to_snapshot(false);
        let outcome = settings.bind(|| panic::catch_unwind(AssertUnwindSafe(assert)));
        outcome.map_err(|_| {
            Failure::new(
                format!("{expected}: the judge's snapshot `{name}`"),
                "something else: insta's diff of yours (`+new results`) against the reference (`-old snapshot`) is in the output below",
            )
        })
    }
}

/// Writes `device`'s trace as `STEM.json` and `STEM.svg` (titled `title`)
/// into `dir`; returns the two paths. A file that cannot be written is
/// left out: a timeline is a help, never a verdict.
fn write_trace(dir: &Path, stem: &str, title: &str, device: &Device) -> (PathBuf, PathBuf) {
    let trace = device.trace();
    let (svg, json) = (
        dir.join(format!("{stem}.svg")),
        dir.join(format!("{stem}.json")),
    );
    let _ = std::fs::create_dir_all(dir);
    let _ = std::fs::write(&json, trace.to_chrome_json());
    let options = gpu::SvgOptions {
        title: Some(title.to_string()),
        ..Default::default()
    };
    let _ = std::fs::write(&svg, trace.to_svg(&options));
    (svg, json)
}

#[cfg(test)]
mod tests {
    use super::{COURSE_SEED, Ctx};

    #[test]
    fn the_seed_is_the_judges_else_the_courses() {
        let ctx = Ctx::new(gpu::Backend::Virtual);
        assert_eq!(ctx.seed(), COURSE_SEED);
        assert_eq!(ctx.with_seed(Some(7)).seed(), 7);
    }

    #[test]
    fn grading_seeds_change_every_workload_and_the_course_seed_is_kept_otherwise() {
        let run = Ctx::new(gpu::Backend::Virtual);
        assert_eq!(run.seed_for(102), 102);
        let graded = Ctx::new(gpu::Backend::Virtual).with_seed(Some(7));
        let other = Ctx::new(gpu::Backend::Virtual).with_seed(Some(8));
        assert_ne!(graded.seed_for(102), 102);
        assert_ne!(
            graded.seed_for(102),
            graded.seed_for(104),
            "each workload its own stream"
        );
        assert_ne!(graded.seed_for(102), other.seed_for(102));
        assert_eq!(
            graded.seed_for(102),
            graded.seed_for(102),
            "a recorded seed reproduces"
        );
    }
}
