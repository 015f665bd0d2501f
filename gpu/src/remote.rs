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
//! Time: every clock a check reads is the judge's. The virtual GPU's is
//! advanced by the modelled cost of each call, so the round trip of a call
//! costs the learner nothing. On the CUDA backend the clock is the judge's
//! process's and the call is the real one, made when it arrives: the link
//! ([`Link`], two rings in shared memory that both sides poll while a check
//! runs) carries a call and its answer in one to two microseconds on the
//! H200, and a call that only queues work is posted: the learner's process
//! runs at most one call ahead of the judge's, so the GPU sees its launches
//! at the pace the judge makes them.
//!
//! Learner code may not read or change the device's record (its trace,
//! races, sync debug mode): those calls panic on a proxy, naming the call.

mod call;
// The heap's count for the judge's checker: a global allocator, an unsafe
// trait, forwarded to the system's (each block with its `// SAFETY:` line);
// with `ring` and the CUDA backend, the only modules of the crate that allow
// `unsafe`.
#[allow(unsafe_code)]
mod counted;
mod guard;
mod link;
mod proxy;
// Two rings in memory the judge's process shares with the learner's:
// mapping it, and reading and writing it, are unsafe (each block with its
// `// SAFETY:` line).
#[allow(unsafe_code)]
mod ring;

pub mod agent;
pub mod bench;
pub mod host;

pub use call::Call;
pub(crate) use call::What;
pub use counted::{Counted, live_bytes};
pub use guard::{
    LONGEST_CALL, Limits, Refusal, Stop, TRACE_ENTRIES, heap_fits, limits, set_limits,
};
pub use link::{Frame, Link, MAX_FRAME};

/// How long each side of a link polls for the other's next frame before it
/// sleeps, where each has a core of its own (a real GPU): the judge's
/// checker, then the learner's process.
///
/// The checker waits for the learner's next call: far longer than the gap
/// between two calls of a loop that launches (microseconds), and short
/// enough that a learner's own long CPU work soon stops costing a core.
/// The learner's process waits for a call to be made: in one process it
/// would be busy in that call all along (a `host_work`, a synchronize,
/// which CUDA's own wait spins in), so it polls up to the longest spin,
/// and the call after a long one leaves as soon as in one process, not a
/// wake-up later.
pub const SPIN_ON_A_GPU: (std::time::Duration, std::time::Duration) =
    (std::time::Duration::from_millis(1), ring::LONGEST_SPIN);
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
