//! The calls of the judge's programs, and the model of the device that
//! describes each to the learner as a `Call` (what it is, and what is
//! queued ahead of it); `scenes.rs` draws the programs from a seed.
//!
//! The model follows a program call by call: time in
//! units of the gate kernel (every long kernel runs [`GATE`]), the CPU's own
//! costs taken as nothing. Those costs stay far below half a gate, so every
//! wait is either about nothing or at least a gate long on both backends,
//! and the model says which. The model also refuses the calls whose outcome
//! would depend on the backend: a copy that an earlier copy queued on
//! another stream holds up (the virtual GPU has one copy engine per
//! direction), and pageable copies that share staging slots across
//! streams, or that are larger than a slot while a slot is in use. One
//! sharing is foreseen: a slot-sized copy that finds every slot held by
//! other streams' copies waits for the first to drain, on the H200 as on
//! the virtual GPU (the last line of `chapters/measurements/gpu-staging.txt`). Copy
//! sizes come from the backend's calibration, well inside each regime.

use std::time::Duration;
use which_calls_wait::{Ahead, Call, Direction, Memory, Op, Staging};

/// Programs per run.
pub(crate) const PROGRAMS: usize = 8;
/// Calls per program.
pub(crate) const CALLS: usize = 12;
/// Streams of a program.
pub(crate) const STREAMS: usize = 2;
/// Events of a program.
pub(crate) const EVENTS: usize = 2;
/// Raw segments a program may free.
pub(crate) const SEGMENTS: usize = 2;
/// The long kernel behind which calls wait, or do not.
pub(crate) const GATE: Duration = Duration::from_millis(20);

/// What the runner does for a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    Launch {
        stream: usize,
    },
    GraphLaunch {
        stream: usize,
    },
    Copy {
        stream: usize,
        direction: Direction,
        memory: Memory,
        bytes: u64,
    },
    Record {
        event: usize,
        stream: usize,
    },
    WaitEvent {
        stream: usize,
        event: usize,
    },
    Query {
        event: usize,
    },
    SyncEvent {
        event: usize,
    },
    SyncStream {
        stream: usize,
    },
    SyncDevice,
    FreeSegment,
}

/// One call of a program: what the runner does, and how the learner sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Step {
    pub(crate) action: Action,
    pub(crate) call: Call,
    /// Whether the model says the CPU waits in it.
    pub(crate) waits: bool,
}

/// How large a pageable upload is, against the staging buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Size {
    /// Travels in the command stream.
    Inline,
    /// Fits a staging slot.
    Slot,
    /// Larger than a slot.
    Large,
}

/// The size class of `bytes`.
pub(crate) fn size(bytes: u64, staging: &Staging) -> Size {
    if bytes <= staging.inline_bytes {
        Size::Inline
    } else if bytes <= staging.slot_bytes {
        Size::Slot
    } else {
        Size::Large
    }
}

/// The most bytes a copy of the programs moves, for the runner's buffers.
pub(crate) fn largest_copy(staging: &Staging) -> u64 {
    staging.slot_bytes * 4
}

/// The model of the device a program runs on.
#[derive(Clone, Debug)]
pub(crate) struct State {
    /// The CPU, in gates.
    now: u64,
    /// When each stream's queued work ends.
    ready: [u64; STREAMS],
    /// When each event completes, once recorded.
    events: [Option<u64>; EVENTS],
    /// Each staging slot: when it is free again, and the stream of its copy.
    slots: Vec<(u64, usize)>,
    /// When the host-to-device and the device-to-host copy engines are free.
    engines: [u64; 2],
    /// Raw segments left to free.
    segments: usize,
    /// Uploads larger than a slot so far (each costs the CPU a little).
    large: usize,
}

impl State {
    pub(crate) fn new(staging: &Staging) -> Self {
        Self {
            now: 0,
            ready: [0; STREAMS],
            events: [None; EVENTS],
            slots: vec![(0, 0); staging.slots as usize],
            engines: [0; 2],
            segments: SEGMENTS,
            large: 0,
        }
    }

    fn busy(&self, stream: usize) -> bool {
        self.ready[stream] > self.now
    }

    fn pending(&self, event: usize) -> bool {
        self.events[event].is_some_and(|t| t > self.now)
    }

    fn held(&self) -> Vec<(u64, usize)> {
        self.slots
            .iter()
            .copied()
            .filter(|s| s.0 > self.now)
            .collect()
    }

    /// What is queued ahead of `action`.
    pub(crate) fn ahead(&self, action: &Action) -> Ahead {
        let (stream, event) = targets(action);
        Ahead {
            stream_busy: stream.is_some_and(|s| self.busy(s)),
            event_pending: event.is_some_and(|e| self.pending(e)),
            device_busy: (0..STREAMS).any(|s| self.busy(s)),
            staging_slots_in_use: self.held().len() as u32,
        }
    }

    /// Whether `action` may be drawn now: its outcome is the same on every
    /// backend, and it is possible.
    pub(crate) fn allowed(&self, action: &Action, staging: &Staging) -> bool {
        match *action {
            Action::Launch { stream } | Action::GraphLaunch { stream } => {
                self.ready[stream] <= self.now + 1
            }
            Action::Copy {
                stream,
                direction,
                memory,
                bytes,
            } => {
                let engine = self.engines[direction as usize];
                let mut start = self.now.max(self.ready[stream]);
                let upload = (direction, memory) == (Direction::HostToDevice, Memory::Pageable);
                let class = size(bytes, staging);
                let held = self.held();
                // Every slot held by other streams' copies: it waits for
                // the first to drain, on the H200 as on the virtual GPU
                // (`gpu-staging.txt`), and starts only then.
                let others_hold_all = upload
                    && class == Size::Slot
                    && held.len() >= self.slots.len()
                    && held.iter().all(|s| s.1 != stream);
                if others_hold_all {
                    start = start.max(held.iter().map(|s| s.0).min().unwrap_or(0));
                }
                engine <= start
                    && (!upload
                        || match class {
                            Size::Inline => true,
                            Size::Slot => others_hold_all || held.iter().all(|s| s.1 == stream),
                            Size::Large => held.is_empty() && self.large < 2,
                        })
            }
            Action::WaitEvent { event, .. }
            | Action::Query { event }
            | Action::SyncEvent { event } => self.events[event].is_some(),
            Action::FreeSegment => self.segments > 0,
            Action::Record { .. } | Action::SyncStream { .. } | Action::SyncDevice => true,
        }
    }

    /// Makes the CPU wait until `t`; whether that is a wait.
    fn wait_until(&mut self, t: u64) -> bool {
        let waits = t > self.now;
        self.now = self.now.max(t);
        waits
    }

    /// Applies `action`; whether the CPU waits in it.
    pub(crate) fn apply(&mut self, action: &Action, staging: &Staging) -> bool {
        match *action {
            Action::Launch { stream } | Action::GraphLaunch { stream } => {
                self.ready[stream] = self.ready[stream].max(self.now) + 1;
                false
            }
            Action::Copy {
                stream,
                direction,
                memory,
                bytes,
            } => self.copy(stream, direction, memory, size(bytes, staging)),
            Action::Record { event, stream } => {
                self.events[event] = Some(self.now.max(self.ready[stream]));
                false
            }
            Action::WaitEvent { stream, event } => {
                self.ready[stream] = self.ready[stream].max(self.events[event].unwrap_or(0));
                false
            }
            Action::Query { .. } => false,
            Action::SyncEvent { event } => self.wait_until(self.events[event].unwrap_or(0)),
            Action::SyncStream { stream } => self.wait_until(self.ready[stream]),
            Action::SyncDevice => self.wait_until(self.ready.iter().copied().max().unwrap_or(0)),
            Action::FreeSegment => {
                self.segments -= 1;
                self.wait_until(self.ready.iter().copied().max().unwrap_or(0))
            }
        }
    }

    /// A copy of class `class` on `stream`; whether the CPU waits in it.
    fn copy(&mut self, stream: usize, direction: Direction, memory: Memory, class: Size) -> bool {
        let engine = direction as usize;
        let mut waits = false;
        let upload = (direction, memory) == (Direction::HostToDevice, Memory::Pageable);
        let slot = (0..self.slots.len()).min_by_key(|&i| self.slots[i].0);
        if let (true, Size::Slot | Size::Large, Some(i)) = (upload, class, slot) {
            waits |= self.wait_until(self.slots[i].0);
        }
        let start = self.now.max(self.ready[stream]).max(self.engines[engine]);
        self.ready[stream] = start;
        self.engines[engine] = start;
        if let (true, Size::Slot | Size::Large, Some(i)) = (upload, class, slot) {
            self.slots[i] = (start, stream);
        }
        let to_pageable = (direction, memory) == (Direction::DeviceToHost, Memory::Pageable);
        if to_pageable || (upload && class == Size::Large) {
            self.large += usize::from(upload);
            waits |= self.wait_until(start);
        }
        waits
    }
}

/// The stream and the event a call names, if any.
pub(crate) fn targets(action: &Action) -> (Option<usize>, Option<usize>) {
    match *action {
        Action::Launch { stream }
        | Action::GraphLaunch { stream }
        | Action::Copy { stream, .. }
        | Action::SyncStream { stream } => (Some(stream), None),
        Action::Record { event, stream } => (Some(stream), Some(event)),
        Action::WaitEvent { stream, event } => (Some(stream), Some(event)),
        Action::Query { event } | Action::SyncEvent { event } => (None, Some(event)),
        Action::SyncDevice | Action::FreeSegment => (None, None),
    }
}

/// The learner's view of `action`.
pub(crate) fn op(action: &Action) -> Op {
    match *action {
        Action::Launch { .. } => Op::Launch,
        Action::GraphLaunch { .. } => Op::GraphLaunch,
        Action::Copy {
            direction,
            memory,
            bytes,
            ..
        } => Op::Copy {
            direction,
            memory,
            bytes,
        },
        Action::Record { .. } => Op::EventRecord,
        Action::WaitEvent { .. } => Op::StreamWaitEvent,
        Action::Query { .. } => Op::EventQuery,
        Action::SyncEvent { .. } => Op::EventSynchronize,
        Action::SyncStream { .. } => Op::StreamSynchronize,
        Action::SyncDevice => Op::DeviceSynchronize,
        Action::FreeSegment => Op::FreeSegment,
    }
}
