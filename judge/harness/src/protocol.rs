//! What the judge and a harness binary say to each other.
//!
//! The harness's stdin is one end of a socket pair, the results channel.
//! The judge writes one [`Setup`] line (JSON) to it; the harness reads it,
//! moves the socket to a descriptor of its own and puts `/dev/null` on
//! stdin, so that learner code can neither read the setup nor reach the
//! channel (a socket cannot be reopened through `/proc/self/fd`, and code
//! without `unsafe` cannot make a file of a descriptor number). The harness
//! then writes [`Event`] lines (JSON) back on the socket, one write each, so
//! a crash or a timeout still leaves every finished check with the judge.
//!
//! The first event, [`Event::Suite`], is signed with the setup's nonce
//! (HMAC-SHA256; the nonce itself is never written): it proves that the
//! channel was opened by the harness this run started. The harness then
//! wipes the nonce (and the line that carried it) before any learner code
//! runs; the events after it are believed because only the harness holds
//! the channel, and carry no signature.

use gpu::CallSite;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The judge's instructions, read from stdin before any check runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    /// A secret the judge chose, which signs the first event and is then wiped.
    pub nonce: String,
    /// `auto`, `cuda` or `virtual`.
    pub backend: String,
    /// Run only these checks (all when `None`).
    pub only: Option<Vec<String>>,
    /// Where checks may write timelines and traces.
    pub artifacts: Option<PathBuf>,
    /// The seed chosen at grading time, which the checks mix into their
    /// generated workloads ([`crate::Ctx::seed`]); `None` outside grading.
    #[serde(default)]
    pub seed: Option<u64>,
    /// The landlock rules the harness applies to itself once its device is
    /// open, before any learner code runs ([`crate::lockdown`]); `None`
    /// without the sandbox.
    #[serde(default)]
    pub lockdown: Option<crate::Lockdown>,
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
        /// The event's signature (see [`Event::sign`]).
        tag: String,
        /// Every check, in order.
        checks: Vec<CheckInfo>,
        /// The backend the harness uses (`cuda` or `virtual`).
        backend: String,
    },
    /// A check starts.
    Start {
        /// The event's signature.
        tag: String,
        /// Which check.
        check: String,
    },
    /// A check ended.
    End {
        /// The event's signature.
        tag: String,
        /// Which check.
        check: String,
        /// How.
        outcome: Outcome,
        /// Wall time it took, in seconds.
        seconds: f64,
    },
    /// Every requested check ran.
    Done {
        /// The event's signature.
        tag: String,
    },
}

impl Event {
    fn tag_mut(&mut self) -> &mut String {
        match self {
            Self::Suite { tag, .. }
            | Self::Start { tag, .. }
            | Self::End { tag, .. }
            | Self::Done { tag } => tag,
        }
    }

    /// HMAC-SHA256, keyed with the setup's nonce, of the event's JSON with
    /// an empty tag, in hex.
    fn signature(&self, key: &str) -> String {
        use hmac::{Hmac, Mac};
        let mut unsigned = self.clone();
        unsigned.tag_mut().clear();
        let json = serde_json::to_string(&unsigned).expect("events serialize");
        let mut mac = Hmac::<sha2::Sha256>::new_from_slice(key.as_bytes()).expect("any key length");
        mac.update(json.as_bytes());
        mac.finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// The event signed with `key`. The key (the nonce) never reaches the
    /// results file, so code that reads the file cannot sign lines of its own.
    pub fn sign(mut self, key: &str) -> Self {
        *self.tag_mut() = self.signature(key);
        self
    }

    /// Whether the event was signed with `key`.
    pub fn verify(&self, key: &str) -> bool {
        let mut copy = self.clone();
        let tag = std::mem::take(copy.tag_mut());
        !tag.is_empty() && copy.signature(key) == tag
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_event_verifies_and_a_changed_one_does_not() {
        let end = Event::End {
            tag: String::new(),
            check: "c".into(),
            outcome: Outcome::NotRun,
            seconds: 0.25,
        };
        let signed = end.clone().sign("key");
        assert!(signed.verify("key"));
        assert!(!signed.verify("other key"));
        let json = serde_json::to_string(&signed).unwrap();
        let back: Event = serde_json::from_str(&json).unwrap();
        assert!(back.verify("key"), "a JSON round trip keeps the signature");
        let forged = match back {
            Event::End {
                tag,
                check,
                seconds,
                ..
            } => Event::End {
                tag,
                check,
                outcome: Outcome::Passed,
                seconds,
            },
            other => other,
        };
        assert!(
            !forged.verify("key"),
            "changing the outcome breaks the signature"
        );
        assert!(!end.verify("key"), "an unsigned event does not verify");
    }
}
