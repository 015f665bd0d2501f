//! Panics as the harness tells them apart: the payloads a check ends with
//! when the learner's code panicked in the agent, the agent is gone, a
//! device call was refused or the judge's own code failed, and the hook
//! that remembers where each panic happened (and the backtrace of one
//! that may be the judge's own).

use crate::failure::Failure;
use gpu::CallSite;
use std::cell::RefCell;
use std::panic;

/// The payload of the panic that ends a check whose learner code panicked
/// in the agent: the runner reports it as that panic, at that place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LearnerPanic {
    /// The panic message.
    pub message: String,
    /// Where, in the learner's source.
    pub location: Option<CallSite>,
}

/// The payload of the panic that ends a check whose agent is gone (it
/// died, exited, or sent what the protocol does not allow): the runner
/// reports the check as crashed, with how the agent ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentGone {
    /// What the checker saw.
    pub why: String,
}

/// The payload of the panic that ends a check whose learner code made a
/// device call the judge refused ([`gpu::remote::Refusal`]): an argument
/// no real call takes, a call past the check's trace or the submission's
/// memory. The runner reports it as the learner's error at its line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallRefused(pub gpu::remote::Refusal);

/// The payload of the panic that ends a check whose device call made the
/// judge's own code fail: the runner reports it as the judge's failure,
/// not the learner's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JudgeFault {
    /// The panic's message and where the judge's code was.
    pub message: String,
}

thread_local! {
    /// Where the last panic happened (the panic hook stores it).
    static PANIC_AT: RefCell<Option<CallSite>> = const { RefCell::new(None) };
    /// The backtrace of the last panic that may be the judge's own.
    static JUDGE_BACKTRACE: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The text of a panic's payload.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-text payload".into()
    }
}

/// Remembers where a panic happened, for the outcome, which carries the
/// message and the location; the default report (and its backtrace) would
/// only repeat them in the learner's output.
pub(crate) fn install_hook() {
    panic::set_hook(Box::new(move |info| {
        if judges_own(info.payload()) {
            let trace = std::backtrace::Backtrace::force_capture();
            let at = info.location().map(|l| format!("{l}")).unwrap_or_default();
            JUDGE_BACKTRACE.with(|b| *b.borrow_mut() = Some(format!("at {at}\n{trace}")));
        }
        if let Some(loc) = info.location() {
            let site = CallSite {
                file: leak(loc.file()),
                line: loc.line(),
                column: loc.column(),
            };
            PANIC_AT.with(|p| *p.borrow_mut() = Some(site));
        }
    }));
}

/// Whether a panic is one a check can end with on the learner's account
/// (a learner's panic relayed, a failure, an agent gone, a refusal):
/// every other panic may be the judge's own, and its backtrace is kept
/// for the judge's log ([`Outcome::JudgeFailed`]).
fn judges_own(payload: &(dyn std::any::Any + Send)) -> bool {
    !(payload.is::<LearnerPanic>()
        || payload.is::<AgentGone>()
        || payload.is::<CallRefused>()
        || payload.is::<JudgeFault>()
        || payload.is::<Failure>())
}

/// The backtrace of the last panic that may be the judge's own, taken.
pub(crate) fn judge_backtrace() -> String {
    JUDGE_BACKTRACE
        .with(|b| b.borrow_mut().take())
        .unwrap_or_default()
}

/// Where the last panic of this thread happened, taken.
pub(crate) fn last_site() -> Option<CallSite> {
    PANIC_AT.with(|p| p.borrow_mut().take())
}

fn leak(file: &str) -> &'static str {
    Box::leak(file.to_string().into_boxed_str())
}
