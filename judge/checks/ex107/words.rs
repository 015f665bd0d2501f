//! The calls in words: what each is, what is queued ahead of it, and the
//! rule that says whether it waits, with the chapter section about it.

use super::program::{Action, Size, Step, size, targets};
use which_calls_wait::{Direction, Memory, Staging};

/// `bytes` as KiB or MiB.
pub(crate) fn bytes(n: u64) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else {
        format!("{} KiB", n >> 10)
    }
}

/// What the call is, as the learner would write it.
pub(crate) fn what(action: &Action) -> String {
    match *action {
        Action::Launch { stream } => format!("a kernel launch on stream {}", stream + 1),
        Action::GraphLaunch { stream } => format!("a graph launch on stream {}", stream + 1),
        Action::Copy {
            stream,
            direction,
            memory,
            bytes: n,
        } => {
            let memory = match memory {
                Memory::Pageable => "pageable memory",
                Memory::Pinned => "pinned memory",
            };
            let way = match direction {
                Direction::HostToDevice => format!("from {memory} to the device"),
                Direction::DeviceToHost => format!("from the device into {memory}"),
            };
            format!("a copy of {} {way} on stream {}", bytes(n), stream + 1)
        }
        Action::Record { event, stream } => {
            format!(
                "`Event::record` of event {} on stream {}",
                event + 1,
                stream + 1
            )
        }
        Action::WaitEvent { stream, event } => format!(
            "`Stream::wait_event`: stream {} waits for event {}",
            stream + 1,
            event + 1
        ),
        Action::Query { event } => format!("`Event::query` of event {}", event + 1),
        Action::SyncEvent { event } => format!("`Event::synchronize` of event {}", event + 1),
        Action::SyncStream { stream } => format!("`Stream::synchronize` of stream {}", stream + 1),
        Action::SyncDevice => "`Device::synchronize`".into(),
        Action::FreeSegment => "`Device::free_segment` of a raw segment".into(),
    }
}

/// What is queued ahead of the call, in words.
pub(crate) fn ahead(step: &Step, staging: &Staging) -> String {
    let a = &step.call.ahead;
    let (stream, event) = targets(&step.action);
    let mut parts = Vec::new();
    if let Some(s) = stream {
        let state = if a.stream_busy { "busy" } else { "idle" };
        parts.push(format!("stream {} {state}", s + 1));
    }
    if let (Some(e), false) = (event, matches!(step.action, Action::Record { .. })) {
        let state = if a.event_pending {
            "pending"
        } else {
            "complete"
        };
        parts.push(format!("event {} {state}", e + 1));
    }
    if stream.is_none() && event.is_none() {
        let state = if a.device_busy {
            "some stream busy"
        } else {
            "every stream idle"
        };
        parts.push(state.into());
    }
    if let Action::Copy {
        direction: Direction::HostToDevice,
        memory: Memory::Pageable,
        ..
    } = step.action
    {
        parts.push(format!(
            "{} of {} staging slots in use",
            a.staging_slots_in_use, staging.slots
        ));
    }
    parts.join(", ")
}

/// The rule that decides the call, and the chapter section about it.
pub(crate) fn rule(action: &Action, staging: &Staging) -> (String, &'static str) {
    let events = "streams-and-events.md#events";
    let waits = "hidden-syncs.md#cpu-waits-and-gpu-waits";
    let copies = "hidden-syncs.md#pageable-copies";
    let (text, section): (String, &str) = match *action {
        Action::Launch { .. } => (
            "a launch only queues the kernel and returns, however much work is queued ahead of it".into(),
            "cpu-and-gpu.md#a-launch-is-enqueue-and-return",
        ),
        Action::GraphLaunch { .. } => (
            "a graph launch queues the whole graph with one call and returns".into(),
            "cuda-graphs.md#capture-and-replay",
        ),
        Action::Record { .. } => (
            "`Event::record` puts a marker in the stream's queue and returns".into(),
            events,
        ),
        Action::WaitEvent { .. } => (
            "`Stream::wait_event` makes the stream wait on the GPU; the CPU goes on at once".into(),
            "streams-and-events.md#waiting-on-the-gpu-against-waiting-on-the-cpu",
        ),
        Action::Query { .. } => (
            "`Event::query` asks whether the event has completed and returns at once, done or not".into(),
            events,
        ),
        Action::SyncEvent { .. } => (
            "`Event::synchronize` waits for the work recorded before the event, when it has not finished".into(),
            waits,
        ),
        Action::SyncStream { .. } => (
            "`Stream::synchronize` waits for everything queued on that stream, when it has not finished".into(),
            waits,
        ),
        Action::SyncDevice => (
            "`Device::synchronize` waits for every stream of the device".into(),
            waits,
        ),
        Action::FreeSegment => (
            "a raw free (`cuMemFree`) waits until the whole device is idle, and returns at once when it already is: the driver cannot know who still uses the memory".into(),
            "hidden-syncs.md#allocation-and-free",
        ),
        Action::Copy {
            memory: Memory::Pinned,
            ..
        } => (
            "a copy to or from pinned memory is queued like a launch: a copy engine reads or writes the memory itself, later".into(),
            copies,
        ),
        Action::Copy {
            direction: Direction::DeviceToHost,
            ..
        } => (
            "a copy into pageable memory (a `Vec`) returns only once the data is there, so it waits for everything queued on its stream".into(),
            "hidden-syncs.md#reading-values",
        ),
        Action::Copy { bytes: n, .. } => (upload_rule(n, staging), copies),
    };
    (text, section)
}

/// The rule of a pageable upload of `n` bytes.
fn upload_rule(n: u64, staging: &Staging) -> String {
    match size(n, staging) {
        Size::Inline => format!(
            "a pageable copy of at most {} travels in the command stream and never waits",
            bytes(staging.inline_bytes)
        ),
        Size::Slot => format!(
            "a pageable copy that fits a staging slot ({}) returns once the driver has staged it; it waits (for a slot) only when all {} slots hold copies still queued behind unfinished work, of any stream: the slots are the driver's, not each stream's",
            bytes(staging.slot_bytes),
            staging.slots
        ),
        Size::Large => format!(
            "a pageable copy larger than a staging slot ({}) is staged piece by piece as the copy engine drains it, so it waits for its stream to get there",
            bytes(staging.slot_bytes)
        ),
    }
}
