//! What the judge and a harness binary say to each other.
//!
//! The judge writes one [`Setup`] line (JSON) to the harness's stdin. The
//! harness appends [`Event`] lines (JSON) to the results file the setup
//! names, each carrying the setup's nonce, and flushes after each, so a
//! crash or a timeout still leaves every finished check on disk.

use gpu::CallSite;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The judge's instructions, read from stdin before any check runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    /// A secret the judge chose: every event must carry it.
    pub nonce: String,
    /// Where to append events.
    pub results: PathBuf,
    /// `auto`, `cuda` or `virtual`.
    pub backend: String,
    /// Run only these checks (all when `None`).
    pub only: Option<Vec<String>>,
    /// Where checks may write timelines and traces.
    pub artifacts: Option<PathBuf>,
}

/// A check as the judge lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckInfo {
    /// Identifier.
    pub name: String,
    /// One sentence.
    pub title: String,
    /// The chapter section that explains it.
    pub section: String,
    /// Points.
    pub points: u32,
}

/// How a check ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// It passed.
    Passed,
    /// It failed: expected one thing, saw another.
    Failed {
        /// What the check expected.
        expected: String,
        /// What happened.
        actual: String,
        /// The learner's call site, when known.
        site: Option<CallSite>,
        /// More detail.
        detail: Option<String>,
    },
    /// The code panicked (a `todo!()`, an `unwrap`).
    Panicked {
        /// The panic message.
        message: String,
        /// Where it panicked.
        location: Option<CallSite>,
    },
    /// The check did not finish in time (set by the judge).
    TimedOut {
        /// The limit, in seconds.
        limit_s: f64,
    },
    /// The process died while the check ran (set by the judge): an abort,
    /// a segfault, an exit from the learner's code.
    Crashed {
        /// How the process ended.
        how: String,
    },
    /// The check never ran because an earlier one took the process down
    /// and the judge did not retry (set by the judge).
    NotRun,
}

impl Outcome {
    /// True for [`Outcome::Passed`].
    pub fn passed(&self) -> bool {
        matches!(self, Self::Passed)
    }
}

/// One line of the results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The suite, before anything runs.
    Suite {
        /// The nonce from the setup.
        nonce: String,
        /// Every check, in order.
        checks: Vec<CheckInfo>,
        /// The backend the harness uses (`cuda` or `virtual`).
        backend: String,
    },
    /// A check starts.
    Start {
        /// The nonce.
        nonce: String,
        /// Which check.
        check: String,
    },
    /// A check ended.
    End {
        /// The nonce.
        nonce: String,
        /// Which check.
        check: String,
        /// How.
        outcome: Outcome,
        /// Wall time it took, in seconds.
        seconds: f64,
    },
    /// Every requested check ran.
    Done {
        /// The nonce.
        nonce: String,
    },
}

impl Event {
    /// The nonce the event carries.
    pub fn nonce(&self) -> &str {
        match self {
            Self::Suite { nonce, .. }
            | Self::Start { nonce, .. }
            | Self::End { nonce, .. }
            | Self::Done { nonce } => nonce,
        }
    }
}
