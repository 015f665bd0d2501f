//! What a check returns when the learner's code is wrong ([`Failure`]),
//! and the comparisons checks share.

use gpu::CallSite;

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
    use super::median;

    #[test]
    fn median_is_the_middle_sample_whatever_the_order() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 3.0);
        assert_eq!(median(&[]), 0.0);
    }
}
