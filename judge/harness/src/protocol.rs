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
    /// The backend the judge asks for (`"auto"`, `"cuda"` or `"virtual"`
    /// in JSON; any other name makes the setup line unreadable).
    pub backend: gpu::Backend,
    /// Run only these checks (all when `None`).
    pub only: Option<Vec<String>>,
    /// Where checks may write timelines and traces.
    pub artifacts: Option<PathBuf>,
    /// The suite's snapshot folder, which snapshot assertions compare
    /// against (they never write it: see the judge's environment).
    pub snapshots: Option<PathBuf>,
    /// The seed of checks that generate their inputs ([`Ctx::seed`](crate::Ctx::seed)):
    /// set by the judge in grade mode only, chosen at grading time, so that
    /// no table of answers made with the course's fixed seed
    /// ([`COURSE_SEED`](crate::COURSE_SEED)) passes. Absent in the JSON is `None`.
    #[serde(default)]
    pub seed: Option<u64>,
    /// The landlock rules the harness applies to itself once its device is
    /// open, before any learner code runs ([`crate::lockdown`]); `None`
    /// without the sandbox.
    #[serde(default)]
    pub lockdown: Option<crate::Lockdown>,
    /// For a checker: how to start the agent that runs the learner's code
    /// (the learner's code then never runs in the harness's process);
    /// `None` for a harness that links the learner's crate.
    #[serde(default)]
    pub agent: Option<crate::wire::AgentLaunch>,
    /// For a checker: the submission's memory limit in bytes, which what the
    /// checker holds for the agent's calls counts against
    /// ([`gpu::remote::Limits`]); `None`: no limit but the machine's.
    #[serde(default)]
    pub memory_limit: Option<u64>,
}

/// A file a check saved for the learner.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Artifact {
    /// The timeline of a check's device (`Ctx::save_timeline`).
    Timeline {
        /// The drawing.
        svg: PathBuf,
        /// The Chrome trace (`chrome://tracing`, Perfetto).
        json: PathBuf,
    },
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
    /// The checks that must pass too for this one to earn its points.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requires: Vec<String>,
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
    /// The judge's own code failed during the check (a panic of its
    /// checker while serving a call, or its checker died): no verdict on
    /// the learner's code, whose points are withheld until it is run again.
    JudgeFailed {
        /// What failed, for the learner and the instructor.
        message: String,
        /// The judge's backtrace, for the instructor's log alone: the judge
        /// prints it on its standard error and keeps it out of every result.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        log: String,
    },
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
    /// A check saved a file (sent before its [`Event::End`]).
    Artifact {
        /// The event's signature.
        tag: String,
        /// Which check.
        check: String,
        /// What it saved.
        artifact: Artifact,
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
            | Self::Artifact { tag, .. }
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
    fn a_setup_with_an_unknown_backend_is_refused_not_read_as_auto() {
        let line = |backend: &str| {
            format!(r#"{{"nonce":"n","backend":"{backend}","only":null,"artifacts":null}}"#)
        };
        let setup: Setup = serde_json::from_str(&line("virtual")).unwrap();
        assert_eq!(setup.backend, gpu::Backend::Virtual);
        assert_eq!(setup.seed, None, "no seed outside grade mode");
        for typo in ["virtaul", "metal", ""] {
            let err = serde_json::from_str::<Setup>(&line(typo)).unwrap_err();
            assert!(err.to_string().contains("unknown variant"), "{typo}: {err}");
        }
    }

    #[test]
    fn a_seed_travels_in_the_setup_line() {
        let setup = Setup {
            nonce: "n".into(),
            backend: gpu::Backend::Virtual,
            only: None,
            artifacts: None,
            snapshots: None,
            seed: Some(42),
            lockdown: None,
            agent: None,
            memory_limit: Some(2 << 30),
        };
        let line = serde_json::to_string(&setup).unwrap();
        assert!(line.contains(r#""seed":42"#), "{line}");
        assert_eq!(serde_json::from_str::<Setup>(&line).unwrap(), setup);
    }

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
