//! What the checker (the judge's process that runs a suite's checks) and
//! the agent (the learner's process that runs the learner's code) say to
//! each other, inside the link's [`Frame::Harness`](gpu::remote::Frame)
//! frames; and how the checker starts an agent.
//!
//! The checker calls the exercise's API ([`Message::Invoke`]); the agent
//! answers ([`Message::Returned`] or [`Message::Panicked`]) after as many
//! device calls ([`Frame::Gpu`](gpu::remote::Frame)) and callbacks of the
//! judge's code ([`Message::Callback`]) as the learner's code makes. The
//! payloads of a call, of its answer and of a callback are the bridge's
//! (one per exercise, `judge/bridges/exID`), in postcard.
//!
//! Nothing the agent sends is believed: an answer is a value the check then
//! verifies, and what does not decode is the learner's process breaking
//! the protocol, which fails the check.

use crate::Lockdown;
use gpu::CallSite;
use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::path::PathBuf;

/// One harness message on the link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Message {
    /// The agent's instructions, first on the link (checker → agent).
    Setup {
        /// The landlock rules the agent applies to itself before it runs
        /// any learner code.
        lockdown: Option<Lockdown>,
    },
    /// A call of the exercise's API (checker → agent): the bridge's request.
    Invoke(Vec<u8>),
    /// What the call returned (agent → checker): the bridge's answer.
    Returned(Vec<u8>),
    /// The learner's code panicked in the call (agent → checker).
    Panicked {
        /// The panic message.
        message: String,
        /// Where, in the learner's source.
        location: Option<CallSite>,
    },
    /// The learner's code called a closure or a trait method the check
    /// gave it (agent → checker): the bridge's callback.
    Callback(Vec<u8>),
    /// What the callback returned (checker → agent).
    CallbackReturned(Vec<u8>),
    /// The check is over: drop everything its calls made (checker → agent),
    /// answered with [`Message::Ended`] once dropped.
    EndCheck,
    /// Everything the check made is dropped (agent → checker).
    Ended,
}

impl Message {
    /// The message as a link frame.
    pub fn frame(&self) -> gpu::remote::Frame {
        gpu::remote::Frame::Harness(postcard::to_stdvec(self).expect("messages serialize"))
    }

    /// The message a harness frame holds, if it decodes.
    pub fn read(bytes: &[u8]) -> Option<Self> {
        postcard::from_bytes(bytes).ok()
    }
}

/// How the checker starts an agent: the command the judge made (in its
/// sandbox, when on), which the checker runs with one end of a new link as
/// its stdin and its own stdout and stderr (which the judge reads).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentLaunch {
    /// The program: the agent binary, or the judge's sandbox launcher.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Start from an empty environment (the sandbox's way) rather than the
    /// checker's.
    pub clear_env: bool,
    /// The environment it gets on top of that.
    pub env: Vec<(OsString, OsString)>,
    /// Its working folder.
    pub dir: PathBuf,
    /// The landlock rules it applies to itself before any learner code runs
    /// ([`Message::Setup`]).
    pub lockdown: Option<Lockdown>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_and_garbage_reads_as_none() {
        let sent = Message::Panicked {
            message: "not yet".into(),
            location: Some(CallSite {
                file: "src/lib.rs",
                line: 3,
                column: 5,
            }),
        };
        let gpu::remote::Frame::Harness(bytes) = sent.frame() else {
            panic!("a harness frame")
        };
        assert_eq!(Message::read(&bytes), Some(sent));
        assert_eq!(Message::read(&[0xff, 0xff, 0xff]), None);
    }
}
