//! The runtime of the judge's harness binaries.
//!
//! The judge generates a tiny crate per run whose `main` calls one of this
//! crate's three mains:
//!
//! * [`checker_main`]: a **checker**, the suite of one exercise built with
//!   the exercise's bridge (`judge/bridges/exID`), the judge's code alone.
//!   It runs every check here and starts an **agent** ([`agent::main`]: the
//!   learner's crate with the bridge's serve function) in the sandbox; the
//!   bridge calls the learner's code there ([`bridge`]), and every device
//!   the learner's code uses is a proxy of one of the checker's
//!   ([`gpu::remote`]). So no verdict, trace, timing or diagnosis is
//!   computed in a process that runs learner code ([`wire`] says what the
//!   two say to each other). The judge does this on every backend.
//! * [`main`]: a **harness**, the suite built with the learner's crate,
//!   run in one process in the sandbox: the judge's `--in-process`, to
//!   compare the two ways or to audit.
//!
//! Either reports each outcome to the judge through a socket that arrives
//! as stdin and that only it holds once it has read its setup
//! ([`protocol`] says how). Whatever the learner's code prints goes to
//! stdout and stderr, which the judge shows as output and never reads as a
//! verdict.
//!
//! A check is a plain function returning `Result<(), Failure>`: a failure
//! says what was expected, what happened, where in the learner's code, and
//! which chapter section explains it. A panic (a `todo!()` in a starter, an
//! `unwrap` on a GPU error) becomes its own outcome with its location, in
//! the agent as in a harness. A suite lists its checks with [`check!`],
//! which names each check after its function.
//!
//! A check may compare text with an insta snapshot the judge owns
//! ([`snapshot!`]: a mismatch is the check's failure, and insta's diff goes
//! to the output) and save its device's timeline for `judge run --timeline`
//! ([`Ctx::save_timeline`]: the runner sends the judge an
//! [`Event::Artifact`] with the files' paths).

pub mod agent;
pub mod bridge;
mod channel;
mod checker;
mod ctx;
pub mod gaps;
pub mod lockdown;
mod macros;
pub mod ordering;
pub mod polling;
pub mod protocol;
mod rng;
mod runner;
pub mod signals;
pub mod wire;

pub use ctx::Ctx;
pub use lockdown::Lockdown;
pub use protocol::{Artifact, CheckInfo, Event, Outcome, Setup};
pub use rng::SplitMix;
pub use runner::{checker_main, main, run_check};

/// The course's fixed seed: what [`Ctx::seed`] is outside grade mode, so
/// that a check that generates its inputs shows every learner the same ones
/// with `judge run`. In grade mode the judge chooses another seed at grading
/// time ([`Setup::seed`]).
pub const COURSE_SEED: u64 = 0x5eed_2026;

#[doc(hidden)]
pub use insta;

use gpu::CallSite;

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
    /// Checks of the suite that must pass too for this one to earn its
    /// points: a check that the untouched starter passes (its results are
    /// right, only slow) is guarded by one that tells it from work.
    pub requires: &'static [&'static str],
    /// The check itself.
    pub run: fn(&Ctx) -> Result<(), Failure>,
}

impl Check {
    /// A check; a `const fn`, so that a suite lists its checks in a
    /// `const CHECKS: &[Check]`. Suites write [`check!`], which names the
    /// check after its function.
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
            requires: &[],
            run,
        }
    }

    /// The check, earning its points only when the checks `requires` pass
    /// too ([`Check::requires`]).
    pub const fn requiring(mut self, requires: &'static [&'static str]) -> Self {
        self.requires = requires;
        self
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

    /// Ends the running check with this failure from where no `Result` can
    /// carry it: a callback of the judge's that the learner's code calls
    /// (a driver the learner's allocator misuses), whose signature is the
    /// exercise's. The check's outcome is this failure, as if returned.
    pub fn raise(self) -> ! {
        std::panic::panic_any(self)
    }
}

impl From<gpu::GpuError> for Failure {
    fn from(e: gpu::GpuError) -> Self {
        Failure::new("the GPU calls to succeed", e.to_string())
    }
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
    use super::{COURSE_SEED, Ctx, median};

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

    #[test]
    fn median_is_the_middle_sample_whatever_the_order() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 3.0);
        assert_eq!(median(&[]), 0.0);
    }
}
