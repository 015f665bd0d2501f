//! The checker's side of an exercise's API: what a bridge (the crate under
//! `judge/bridges/exID` that stands, in the checker, for the learner's
//! crate) uses to call the learner's code in the agent.
//!
//! [`invoke`] sends one call and serves the agent until it answers: its
//! device calls (on the judge's devices, [`gpu::remote::host`]), and its
//! callbacks of the judge's code (the closure or trait object the check
//! gave the learner's function). The answer is decoded as the bridge's
//! type; whatever does not decode, and every message out of turn, ends the
//! check as the learner's process breaking the protocol ([`AgentGone`]).
//! A panic of the learner's code ends it as that panic ([`LearnerPanic`]).

pub use crate::panics::{AgentGone, CallRefused, JudgeFault, LearnerPanic};
use crate::wire::Message;
use gpu::CallSite;
use gpu::remote::{Frame, Link};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// `f`'s value, or the message and place of the learner's panic in it: for
/// a check that tells a panic on an input it chose (no batch, no timed run)
/// by that input's rule rather than by the panic alone. A gone agent still
/// ends the check as it would have.
pub fn unless_it_panics<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        if payload.is::<AgentGone>() || payload.is::<CallRefused>() || payload.is::<JudgeFault>() {
            std::panic::resume_unwind(payload);
        }
        if let Some(p) = payload.downcast_ref::<LearnerPanic>() {
            return match p.location {
                Some(at) => format!("`{}` at {at}", p.message),
                None => format!("`{}`", p.message),
            };
        }
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_string()))
            .map_or_else(|| "a panic".into(), |m| format!("`{m}`"))
    })
}

thread_local! {
    /// The link to the agent of the running check, set by the runner.
    static LINK: RefCell<Option<Rc<Link>>> = const { RefCell::new(None) };
    /// Calls in flight: a check that ends with one in flight (a panic of the
    /// judge's code inside a callback) leaves its agent mid-call.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Sets the link calls go over (the runner's, per agent).
pub(crate) fn connect(link: Option<Rc<Link>>) {
    LINK.with(|l| *l.borrow_mut() = link);
    DEPTH.with(|d| d.set(0));
}

/// Whether a call is in flight.
pub(crate) fn in_call() -> bool {
    DEPTH.with(Cell::get) > 0
}

/// Ends the check as its agent gone.
fn gone(why: impl Into<String>) -> ! {
    std::panic::panic_any(AgentGone { why: why.into() })
}

fn link() -> Rc<Link> {
    LINK.with(|l| l.borrow().clone()).unwrap_or_else(|| {
        gone("no learner's process is running (a bridge called outside a check)")
    })
}

/// `value` in postcard, for a bridge's request, answer or callback.
pub fn encode(value: &impl Serialize) -> Vec<u8> {
    postcard::to_stdvec(value).expect("a bridge's values serialize")
}

/// `bytes` as a `T`, or the check ends as the learner's process breaking
/// the protocol.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> T {
    postcard::from_bytes(bytes).unwrap_or_else(|e| {
        gone(format!(
            "the learner's process sent a message that does not decode as `{}` ({e})",
            std::any::type_name::<T>()
        ))
    })
}

/// A callback of a driver's method as the learner's process sent it: the
/// method's name and the bytes of its arguments; a callback that does not
/// decode ends the check as the learner's process breaking the protocol.
pub fn read_callback(bytes: &[u8]) -> (String, &[u8]) {
    postcard::take_from_bytes::<String>(bytes).unwrap_or_else(|e| {
        gone(format!(
            "the learner's process sent a callback that names no method ({e})"
        ))
    })
}

/// A callback of a driver's method that the driver does not have: the end
/// of the check, as the learner's process breaking the protocol.
pub fn unknown_callback(name: &str) -> ! {
    gone(format!(
        "the learner's process called back `{name}`, which its driver does not have"
    ))
}

/// Calls the learner's code with `request`, already encoded (a declared
/// API's call, [`crate::api`]), and returns its answer; a callback the
/// learner's code makes meanwhile ends the check.
pub fn invoke_raw<R: DeserializeOwned>(request: Vec<u8>) -> R {
    invoke_bytes(request, &mut |_| {
        gone("the learner's process made a callback where the call gave it none")
    })
}

/// Calls the learner's code with `request`, already encoded, answering
/// each callback it makes with `callback`, and returns its answer.
pub fn invoke_raw_with<R: DeserializeOwned>(
    request: Vec<u8>,
    callback: &mut dyn FnMut(&[u8]) -> Vec<u8>,
) -> R {
    invoke_bytes(request, callback)
}

/// Calls the learner's code with `request` and returns its answer; a
/// callback the learner's code makes meanwhile ends the check (the call
/// gave it none).
pub fn invoke<R: DeserializeOwned>(request: &impl Serialize) -> R {
    invoke_with(request, &mut |_| {
        gone("the learner's process made a callback where the call gave it none")
    })
}

/// Calls the learner's code with `request`, answering each callback it
/// makes with `callback` (the bridge's request in, its answer out), and
/// returns its answer.
pub fn invoke_with<R: DeserializeOwned>(
    request: &impl Serialize,
    callback: &mut dyn FnMut(&[u8]) -> Vec<u8>,
) -> R {
    invoke_bytes(encode(request), callback)
}

fn invoke_bytes<R: DeserializeOwned>(
    request: Vec<u8>,
    callback: &mut dyn FnMut(&[u8]) -> Vec<u8>,
) -> R {
    let link = link();
    send(&link, &Message::Invoke(request));
    DEPTH.with(|d| d.set(d.get() + 1));
    let answer = serve_until_answer(&link, callback);
    DEPTH.with(|d| d.set(d.get() - 1));
    decode(&answer)
}

/// Serves the agent's device calls and callbacks until it answers.
fn serve_until_answer(link: &Link, callback: &mut dyn FnMut(&[u8]) -> Vec<u8>) -> Vec<u8> {
    loop {
        match receive(link) {
            Frame::Gpu(call) => {
                let answer = served(gpu::remote::host::serve(call));
                if link.send(&Frame::GpuReply(answer)).is_err() {
                    gone("the learner's process closed its link");
                }
            }
            Frame::GpuReply(_) => gone("the learner's process sent a device answer"),
            Frame::Harness(bytes) => match Message::read(&bytes) {
                Some(Message::Returned(answer)) => return answer,
                Some(Message::Panicked { message, location }) => {
                    std::panic::panic_any(LearnerPanic { message, location })
                }
                Some(Message::Callback(request)) => {
                    // A callback runs the judge's code on the learner's
                    // request: not past what the submission may hold.
                    if !gpu::remote::heap_fits(0) {
                        refuse_callback();
                    }
                    let answer = callback(&request);
                    send(link, &Message::CallbackReturned(answer));
                }
                Some(other) => gone(format!(
                    "the learner's process sent {} in the middle of a call",
                    name(&other)
                )),
                None => gone("the learner's process sent a message that does not decode"),
            },
        }
    }
}

/// Ends the check: a callback came while the judge already held more for
/// it than the submission's memory limit.
#[cold]
#[inline(never)]
fn refuse_callback() -> ! {
    std::panic::panic_any(CallRefused(gpu::remote::Refusal {
        message: format!(
            "the judge holds more for this check than the submission's memory limit of {} MiB (`--memory-limit`); hold less at once",
            gpu::remote::limits().memory >> 20
        ),
        site: CallSite::internal("a callback of the learner's code"),
    }))
}

/// The answer to a device call, or the end of the check: the learner's
/// error when the call was refused, the judge's when serving it failed.
fn served(answer: Result<Vec<u8>, gpu::remote::Stop>) -> Vec<u8> {
    match answer {
        Ok(answer) => answer,
        Err(gpu::remote::Stop::Refused(refusal)) => std::panic::panic_any(CallRefused(refusal)),
        Err(gpu::remote::Stop::Fault(message)) => std::panic::panic_any(JudgeFault { message }),
    }
}

/// Ends the agent's check: it drops what the check made (serving the
/// device calls those drops make) and says so. `false` when it did not.
pub(crate) fn end_check(link: &Link) -> bool {
    if link.send(&Message::EndCheck.frame()).is_err() {
        return false;
    }
    loop {
        match link.recv() {
            Ok(Frame::Gpu(call)) => {
                let Ok(answer) = gpu::remote::host::serve(call) else {
                    return false;
                };
                if link.send(&Frame::GpuReply(answer)).is_err() {
                    return false;
                }
            }
            Ok(Frame::Harness(bytes)) if Message::read(&bytes) == Some(Message::Ended) => {
                return true;
            }
            _ => return false,
        }
    }
}

fn send(link: &Link, message: &Message) {
    if link.send(&message.frame()).is_err() {
        gone("the learner's process closed its link");
    }
}

fn receive(link: &Link) -> Frame {
    link.recv().unwrap_or_else(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => {
            gone("the learner's process ended in the middle of a call")
        }
        _ => gone(format!("the learner's process broke the protocol ({e})")),
    })
}

fn name(message: &Message) -> &'static str {
    match message {
        Message::Setup { .. } => "a setup",
        Message::Invoke(_) => "a call",
        Message::Returned(_) => "an answer",
        Message::Panicked { .. } => "a panic",
        Message::Callback(_) => "a callback",
        Message::CallbackReturned(_) => "a callback's answer",
        Message::EndCheck => "the end of a check",
        Message::Ended => "an acknowledgement",
    }
}
