//! Which calls make the CPU wait, and for what: the chapter's rules as a
//! function, checked against the GPU.
//!
//! The judge describes each call of a short program as a [`Call`]: what the
//! call is ([`Op`]) and what is queued ahead of it ([`Ahead`]). [`predict`]
//! says whether the CPU will wait in that call, and for what ([`Wait`]).
//! The judge then runs the program and compares each prediction with the
//! wait it measured.

/// Where the host side of a copy lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Memory {
    /// Ordinary memory (a `Vec`): the driver stages it through its own
    /// pinned buffers.
    Pageable,
    /// Page-locked memory (a `PinnedBuffer`): a copy engine reads or writes it
    /// directly.
    Pinned,
}

/// Which way a copy goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// From the host to the device (`copy_from_host`, `copy_from_pinned`).
    HostToDevice,
    /// From the device to the host (`copy_to_host`, `to_vec`, `copy_to_pinned`).
    DeviceToHost,
}

/// What a call is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// A kernel launch on the call's stream.
    Launch,
    /// A captured graph launched on the call's stream (`Graph::launch`).
    GraphLaunch,
    /// A copy between the host and the device on the call's stream.
    Copy {
        /// Which way.
        direction: Direction,
        /// The host side's memory.
        memory: Memory,
        /// How many bytes.
        bytes: u64,
    },
    /// `Event::record` on the call's stream.
    EventRecord,
    /// `Stream::wait_event`: the call's stream waits for the call's event.
    StreamWaitEvent,
    /// `Event::query` of the call's event.
    EventQuery,
    /// `Event::synchronize` of the call's event.
    EventSynchronize,
    /// `Stream::synchronize` of the call's stream.
    StreamSynchronize,
    /// `Device::synchronize`.
    DeviceSynchronize,
    /// `Device::free_segment`: a raw free (`cuMemFree`).
    FreeSegment,
}

/// What is queued ahead of a call, when it is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ahead {
    /// The call's stream has work queued that has not finished (a long
    /// kernel, or a wait for an event that has not completed).
    pub stream_busy: bool,
    /// The call's event was recorded behind work that has not finished.
    pub event_pending: bool,
    /// Some stream of the device has work queued that has not finished.
    pub device_busy: bool,
    /// Pageable host-to-device copies holding one of the driver's staging
    /// slots: staged, and waiting behind unfinished work to be copied.
    pub staging_slots_in_use: u32,
}

/// A call of the judge's program, as the judge describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Call {
    /// What the call is.
    pub op: Op,
    /// What is queued ahead of it.
    pub ahead: Ahead,
}

/// The driver's staging buffers for pageable host-to-device copies, as the
/// backend's calibration has them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Staging {
    /// Copies of at most this many bytes travel in the command stream.
    pub inline_bytes: u64,
    /// The size of a staging slot: a larger copy does not fit one.
    pub slot_bytes: u64,
    /// How many staging slots there are.
    pub slots: u32,
}

/// Whether the CPU waits in a call, and for what.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wait {
    /// The call returns without waiting for the GPU.
    Nothing,
    /// The CPU waits for the work queued on the call's stream.
    Stream,
    /// The CPU waits for the work recorded before the call's event.
    Event,
    /// The CPU waits for every stream of the device.
    Device,
    /// The CPU waits for one of the driver's staging slots to drain.
    StagingSlot,
}

/// Whether the CPU waits in `call`, and for what, with the driver's
/// `staging` buffers as they are.
pub fn predict(call: &Call, staging: &Staging) -> Wait {
    let ahead = &call.ahead;
    let unless_idle = |busy: bool, wait: Wait| if busy { wait } else { Wait::Nothing };
    match call.op {
        // Queued and returned: the GPU gets to it later, and a stream that
        // waits for an event waits on the GPU.
        Op::Launch | Op::GraphLaunch | Op::EventRecord | Op::StreamWaitEvent => Wait::Nothing,
        // A question, never a wait.
        Op::EventQuery => Wait::Nothing,
        // The explicit waits wait for what they name, when it is not done.
        Op::EventSynchronize => unless_idle(ahead.event_pending, Wait::Event),
        Op::StreamSynchronize => unless_idle(ahead.stream_busy, Wait::Stream),
        Op::DeviceSynchronize => unless_idle(ahead.device_busy, Wait::Device),
        // `cuMemFree` cannot know who still uses the memory.
        Op::FreeSegment => unless_idle(ahead.device_busy, Wait::Device),
        // A copy engine reads and writes pinned memory by itself.
        Op::Copy {
            memory: Memory::Pinned,
            ..
        } => Wait::Nothing,
        // The data must be in the `Vec` when the call returns.
        Op::Copy {
            direction: Direction::DeviceToHost,
            ..
        } => unless_idle(ahead.stream_busy, Wait::Stream),
        Op::Copy { bytes, .. } => pageable_upload(bytes, ahead, staging),
    }
}

/// A copy from pageable memory to the device: small ones travel in the
/// command stream, larger ones take a staging slot (waiting for one when
/// every slot is in use), and one too large for a slot waits for its stream.
fn pageable_upload(bytes: u64, ahead: &Ahead, staging: &Staging) -> Wait {
    if bytes <= staging.inline_bytes {
        Wait::Nothing
    } else if bytes > staging.slot_bytes {
        if ahead.stream_busy {
            Wait::Stream
        } else {
            Wait::Nothing
        }
    } else if ahead.staging_slots_in_use >= staging.slots {
        Wait::StagingSlot
    } else {
        Wait::Nothing
    }
}
