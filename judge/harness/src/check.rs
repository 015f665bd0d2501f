//! A check of a suite: a named function with its title, its chapter
//! section and its points, which [`check!`](crate::check!) writes.

use crate::ctx::Ctx;
use crate::failure::Failure;

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
    /// `const CHECKS: &[Check]`. Suites write [`check!`](crate::check!), which names the
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
