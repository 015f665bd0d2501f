//! The judge's programs: a dozen calls each, drawn from a seed.
//!
//! A program is built from *scenes* (a long kernel, then calls that probe
//! it: copies of each kind, event calls, waits) in an order, on streams and
//! with sizes the seed draws, and filled up with calls drawn at random;
//! every scene comes at least once in a run. The model of `program.rs`
//! describes each call and drops the ones it cannot foresee on every
//! backend.

use super::program::{Action, CALLS, EVENTS, PROGRAMS, STREAMS, Size, State, Step, op};
use judge_harness::SplitMix;
use which_calls_wait::{Call, Direction, Memory, Staging};

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
const SCENES: usize = 9;

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
            copy(d2h, pageable, Size::Inline, rng),
        ],
        // The staging slots are the driver's: a busy stream's copies hold
        // every one, and a copy on the idle stream waits for one.
        8 => {
            let held: Vec<Action> = (0..staging.slots)
                .map(|_| copy(h2d, pageable, Size::Slot, rng))
                .collect();
            let idle = Action::Copy {
                stream: t,
                direction: h2d,
                memory: pageable,
                bytes: draw_size(Size::Slot, staging, rng),
            };
            [vec![gate], held, vec![idle]].concat()
        }
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
    // A read into pageable memory costs the CPU the copy itself: small ones
    // only, so that a program's own CPU time stays far below half a gate.
    let class = match (direction, memory) {
        (Direction::DeviceToHost, Memory::Pageable) => Size::Inline,
        _ => class,
    };
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
    // Every scene once, the rest of the programs' two scenes drawn.
    let mut scenes: Vec<usize> = (0..SCENES)
        .chain((SCENES..PROGRAMS * 2).map(|_| rng.below(SCENES as u64) as usize))
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
