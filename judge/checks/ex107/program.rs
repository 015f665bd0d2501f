//! The judge's programs: a dozen calls each, drawn from a seed, each
//! described to the learner as a `Call` (what it is, and what is queued
//! ahead of it).
//!
//! A program is built from *scenes* (a long kernel, then calls that probe
//! it: copies of each kind, event calls, waits) in an order, on streams and
//! with sizes the seed draws, and filled up with calls drawn at random. A
//! model of the device follows the program to describe each call: time in
//! units of the gate kernel (every long kernel runs [`GATE`]), the CPU's own
//! costs taken as nothing. Those costs stay far below half a gate, so every
//! wait is either about nothing or at least a gate long on both backends,
//! and the model says which. The model also refuses the calls whose outcome
//! would depend on the backend: a copy that an earlier copy queued on
//! another stream holds up (the virtual GPU has one copy engine per
//! direction), and pageable copies that share staging slots across
//! streams, or that are larger than a slot while a slot is in use. Copy
//! sizes come from the backend's calibration, well inside each regime.

use judge_harness::SplitMix;
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

/// A size of class `class` drawn well inside it: at most a quarter of the
/// inline limit, between four inline limits and half a slot, or two to four
/// slots.
fn draw_size(class: Size, staging: &Staging, rng: &mut SplitMix) -> u64 {
    let (low, high, unit) = match class {
        Size::Inline => (1 << 10, staging.inline_bytes / 4, 1 << 10),
        Size::Slot => (staging.inline_bytes * 4, staging.slot_bytes / 2, 64 << 10),
        Size::Large => (staging.slot_bytes * 2, staging.slot_bytes * 4, 1 << 20),
    };
    let steps = (high.saturating_sub(low) / unit).max(1);
    low + rng.below(steps + 1) * unit
}

/// The most bytes a copy of the programs moves, for the runner's buffers.
pub(crate) fn largest_copy(staging: &Staging) -> u64 {
    staging.slot_bytes * 4
}

/// The model of the device a program runs on.
#[derive(Clone, Debug)]
struct State {
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
    fn new(staging: &Staging) -> Self {
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
    fn ahead(&self, action: &Action) -> Ahead {
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
    fn allowed(&self, action: &Action, staging: &Staging) -> bool {
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
                let start = self.now.max(self.ready[stream]);
                let upload = (direction, memory) == (Direction::HostToDevice, Memory::Pageable);
                engine <= start
                    && (!upload
                        || match size(bytes, staging) {
                            Size::Inline => true,
                            Size::Slot => self.held().iter().all(|s| s.1 == stream),
                            Size::Large => self.held().is_empty() && self.large < 2,
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
    fn apply(&mut self, action: &Action, staging: &Staging) -> bool {
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

/// A program being written: the model follows each call added.
struct Writer<'a> {
    state: State,
    steps: Vec<Step>,
    staging: &'a Staging,
}

impl Writer<'_> {
    /// Adds `action` if the model allows it now and there is room.
    fn push(&mut self, action: Action) {
        if self.steps.len() >= CALLS || !self.state.allowed(&action, self.staging) {
            return;
        }
        let call = Call {
            op: op(&action),
            ahead: self.state.ahead(&action),
        };
        let waits = self.state.apply(&action, self.staging);
        self.steps.push(Step {
            action,
            call,
            waits,
        });
    }
}

/// The scenes a program is made of: a long kernel, then calls that probe it.
const SCENES: usize = 8;

/// Scene `kind` on streams `s` and `t` (the other one) with event `e`.
fn scene(kind: usize, s: usize, e: usize, staging: &Staging, rng: &mut SplitMix) -> Vec<Action> {
    let t = 1 - s;
    let copy = |direction, memory, class, rng: &mut SplitMix| Action::Copy {
        stream: s,
        direction,
        memory,
        bytes: draw_size(class, staging, rng),
    };
    let (h2d, d2h) = (Direction::HostToDevice, Direction::DeviceToHost);
    let (pageable, pinned) = (Memory::Pageable, Memory::Pinned);
    let gate = Action::Launch { stream: s };
    match kind {
        0 => {
            let mut probes = vec![
                copy(h2d, pinned, Size::Large, rng),
                copy(d2h, pinned, Size::Slot, rng),
                copy(h2d, pageable, Size::Inline, rng),
                copy(h2d, pageable, Size::Slot, rng),
            ];
            rng.shuffle(&mut probes);
            [vec![gate], probes, vec![Action::SyncStream { stream: s }]].concat()
        }
        1 => vec![
            gate,
            copy(h2d, pageable, Size::Slot, rng),
            copy(h2d, pageable, Size::Slot, rng),
            copy(h2d, pageable, Size::Slot, rng),
        ],
        2 => vec![
            gate,
            Action::Record {
                event: e,
                stream: s,
            },
            Action::Query { event: e },
            Action::WaitEvent {
                stream: t,
                event: e,
            },
            Action::SyncEvent { event: e },
            Action::SyncEvent { event: e },
        ],
        3 => vec![
            gate,
            Action::FreeSegment,
            Action::Launch { stream: t },
            Action::SyncDevice,
        ],
        4 => vec![
            gate,
            copy(h2d, pageable, Size::Large, rng),
            copy(h2d, pageable, Size::Large, rng),
        ],
        5 => vec![
            gate,
            copy(d2h, pageable, Size::Inline, rng),
            copy(d2h, pageable, Size::Slot, rng),
        ],
        6 => vec![
            Action::GraphLaunch { stream: s },
            Action::Launch { stream: s },
            Action::Launch { stream: t },
            Action::SyncStream { stream: s },
            Action::FreeSegment,
        ],
        _ => vec![
            gate,
            Action::Record {
                event: e,
                stream: s,
            },
            Action::WaitEvent {
                stream: t,
                event: e,
            },
            Action::SyncStream { stream: t },
            Action::Query { event: e },
        ],
    }
}

/// A call drawn at random (to fill a program up).
fn filler(staging: &Staging, rng: &mut SplitMix) -> Action {
    let stream = rng.below(STREAMS as u64) as usize;
    let event = rng.below(EVENTS as u64) as usize;
    let direction = [Direction::HostToDevice, Direction::DeviceToHost][rng.below(2) as usize];
    let memory = [Memory::Pageable, Memory::Pinned][rng.below(2) as usize];
    let class = [Size::Inline, Size::Slot, Size::Large][rng.below(3) as usize];
    match rng.below(10) {
        0 | 1 => Action::Launch { stream },
        2 => Action::GraphLaunch { stream },
        3..=5 => Action::Copy {
            stream,
            direction,
            memory,
            bytes: draw_size(class, staging, rng),
        },
        6 => Action::Record { event, stream },
        7 => Action::Query { event },
        8 => Action::SyncEvent { event },
        _ => Action::SyncStream { stream },
    }
}

/// The programs of `seed`: every scene at least once, in an order the seed
/// draws, with streams, sizes and filler calls it draws too.
pub(crate) fn programs(seed: u64, staging: &Staging) -> Vec<Vec<Step>> {
    let mut rng = SplitMix::new(seed);
    let mut scenes: Vec<usize> = (0..SCENES)
        .chain((0..SCENES).map(|_| rng.below(SCENES as u64) as usize))
        .collect();
    rng.shuffle(&mut scenes);
    let mut scenes = scenes.into_iter();
    (0..PROGRAMS)
        .map(|_| {
            let mut writer = Writer {
                state: State::new(staging),
                steps: Vec::new(),
                staging,
            };
            for kind in scenes.by_ref().take(2) {
                let (s, e) = (rng.below(2) as usize, rng.below(2) as usize);
                for action in scene(kind, s, e, staging, &mut rng) {
                    writer.push(action);
                }
            }
            while writer.steps.len() < CALLS {
                writer.push(filler(staging, &mut rng));
            }
            writer.steps
        })
        .collect()
}
