//! Exercise 107 in the agent: the checker's questions asked of the
//! learner's crate (`learner`), its types turned into the bridge's
//! (`bridge`) and back.

use bridge::{Direction, Memory, Op, Request, Wait};
use judge_harness::agent::{self, Agent};

/// Makes one call of the checker's with the learner's crate.
pub(crate) fn serve(_: &Agent, request: &[u8]) -> Vec<u8> {
    match agent::request::<Request>(request) {
        Request::Predict { call, staging } => {
            let call = learner::Call {
                op: op(call.op),
                ahead: learner::Ahead {
                    stream_busy: call.ahead.stream_busy,
                    event_pending: call.ahead.event_pending,
                    device_busy: call.ahead.device_busy,
                    staging_slots_in_use: call.ahead.staging_slots_in_use,
                },
            };
            let staging = learner::Staging {
                inline_bytes: staging.inline_bytes,
                slot_bytes: staging.slot_bytes,
                slots: staging.slots,
            };
            agent::answer(&wait(learner::predict(&call, &staging)))
        }
    }
}

fn op(op: Op) -> learner::Op {
    match op {
        Op::Launch => learner::Op::Launch,
        Op::GraphLaunch => learner::Op::GraphLaunch,
        Op::Copy {
            direction,
            memory,
            bytes,
        } => learner::Op::Copy {
            direction: match direction {
                Direction::HostToDevice => learner::Direction::HostToDevice,
                Direction::DeviceToHost => learner::Direction::DeviceToHost,
            },
            memory: match memory {
                Memory::Pageable => learner::Memory::Pageable,
                Memory::Pinned => learner::Memory::Pinned,
            },
            bytes,
        },
        Op::EventRecord => learner::Op::EventRecord,
        Op::StreamWaitEvent => learner::Op::StreamWaitEvent,
        Op::EventQuery => learner::Op::EventQuery,
        Op::EventSynchronize => learner::Op::EventSynchronize,
        Op::StreamSynchronize => learner::Op::StreamSynchronize,
        Op::DeviceSynchronize => learner::Op::DeviceSynchronize,
        Op::FreeSegment => learner::Op::FreeSegment,
    }
}

fn wait(wait: learner::Wait) -> Wait {
    match wait {
        learner::Wait::Nothing => Wait::Nothing,
        learner::Wait::Stream => Wait::Stream,
        learner::Wait::Event => Wait::Event,
        learner::Wait::Device => Wait::Device,
        learner::Wait::StagingSlot => Wait::StagingSlot,
    }
}
