//! Devices that live in another process: how the judge keeps every device a
//! learner's code uses, with its trace, race checker, sync debug mode and
//! CPU clock, out of the learner's process.
//!
//! The learner's process holds proxies ([`agent`]): a [`Device`](crate::Device), its
//! streams, events, buffers and graphs look and behave as ever, but each of
//! their calls goes over a [`Link`] as one [`Call`] (what it is, the handles
//! of its objects, its arguments, the learner's file and line) and waits for
//! the answer. The judge's process holds the real objects ([`host`]) and
//! makes each call with the same public API under the learner's call site.
//! So both processes agree on everything a lesson observes, and the record
//! of what happened is written where the learner's code cannot reach it:
//! a memory-safety hole in the learner's process can forge what it sends,
//! never what the judge's device recorded of it.
//!
//! Time: the virtual GPU's clock is the judge's, advanced by the modelled
//! cost of each call, so the round trip of a call costs the learner nothing.
//! On the CUDA backend the round trip would be measured with the launch it
//! carries, so the judge keeps CUDA devices in the learner's process.
//!
//! Learner code may not read or change the device's record (its trace,
//! races, sync debug mode): those calls panic on a proxy, naming the call.

mod call;
// The heap's count for the judge's checker: a global allocator, an unsafe
// trait, forwarded to the system's (each block with its `// SAFETY:` line);
// with the CUDA backend, the only modules of the crate that allow `unsafe`.
#[allow(unsafe_code)]
mod counted;
mod guard;
mod link;
mod proxy;

pub mod agent;
pub mod host;

pub use call::Call;
pub(crate) use call::What;
pub use counted::{Counted, live_bytes};
pub use guard::{
    LONGEST_CALL, Limits, Refusal, Stop, TRACE_ENTRIES, heap_fits, limits, set_limits,
};
pub use link::{Frame, Link, MAX_FRAME};
pub use proxy::LINK_LOST;
pub(crate) use proxy::Proxy;

use crate::decoder::DecoderConfig;
use crate::elem::ElemKind;
use crate::exec::HostId;
use crate::trace::StreamId;
use serde::{Deserialize, Serialize};

/// A device of the judge's, as its handle travels to the learner's process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceRef(pub(crate) u32);

/// A stream of the judge's, as it travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamRef {
    pub(crate) device: u32,
    pub(crate) stream: StreamId,
}

impl StreamRef {
    /// The stream's id, as traces show it.
    pub fn id(&self) -> StreamId {
        self.stream
    }
}

/// A pinned buffer the judge lends, as it travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PinnedRef {
    pub(crate) device: u32,
    pub(crate) host: HostId,
    pub(crate) elem: ElemKind,
    pub(crate) len: usize,
}

/// A decoder the judge lends, as it travels.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecoderRef {
    pub(crate) device: u32,
    pub(crate) decoder: u32,
    pub(crate) config: DecoderConfig,
}

/// The panic of a call that reads or changes the device's record from the
/// learner's process.
pub(crate) fn judges_only(call: &str) -> ! {
    panic!(
        "`{call}` is the judge's: in a judged run the device and its record live in the judge's process, out of reach of the code under test; remove the call"
    )
}
