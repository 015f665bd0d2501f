//! The suite's own tests: the solution passes under the course's seed and
//! under many others, the model that describes the calls foresees every
//! wait the virtual GPU shows, every program set holds every situation the
//! checks need, two seeds give different programs, a wrong prediction names
//! the call, the measured wait and the section, and a learner who answers
//! from a table made with the course's seed fails under another seed.

use super::program::{Action, CALLS, PROGRAMS};
use super::runner::{Run, run, staging};
use super::scenes::programs;
use super::verdict::{Family, grade};
use gpu::Backend;
use judge_harness::{COURSE_SEED, Ctx};
use std::collections::HashMap;
use std::rc::Rc;
use which_calls_wait::{Call, Direction, Memory, Staging, Wait};

/// The families in the order of the suite's checks.
const FAMILIES: [Family; 5] = [
    Family::Queued,
    Family::Synchronize,
    Family::Free,
    Family::ToHost,
    Family::FromHost,
];

fn run_of(seed: u64) -> Rc<Run> {
    run(&Ctx::new(Backend::Virtual).with_seed(Some(seed))).expect("the programs run")
}

fn default_staging() -> Staging {
    staging(&crate::tests::device(Backend::Virtual))
}

/// Whether `predict` gets every family of `run` right.
fn passes(run: &Run, predict: &mut dyn FnMut(&Call, &Staging) -> Wait) -> bool {
    FAMILIES.iter().all(|&f| grade(run, f, predict).is_ok())
}

#[test]
fn the_solution_passes_every_check() {
    crate::tests::passes_every_check(107);
}

#[test]
fn the_model_foresees_every_wait_and_the_solution_passes_under_many_seeds() {
    for seed in (0..24).chain([COURSE_SEED]) {
        let run = run_of(seed);
        let calls: Vec<_> = run.programs.iter().flatten().collect();
        assert_eq!(calls.len(), PROGRAMS * CALLS, "seed {seed}");
        for ran in &calls {
            assert!(
                ran.foreseen(),
                "seed {seed}: program {} call {}: {:?} took {} ns",
                ran.program,
                ran.index,
                ran.step,
                ran.cpu_ns
            );
        }
        assert!(passes(&run, &mut which_calls_wait::predict), "seed {seed}");
    }
}

/// A test of a call and its measured answer.
type Holds = fn(&Action, &Call, Wait) -> bool;

/// The situations the checks need, each a name and its test.
fn situations() -> Vec<(&'static str, Holds)> {
    vec![
        ("a launch behind work", |a, c, _| {
            matches!(a, Action::Launch { .. }) && c.ahead.stream_busy
        }),
        ("a graph launch", |a, _, _| {
            matches!(a, Action::GraphLaunch { .. })
        }),
        ("a query of a pending event", |a, c, _| {
            matches!(a, Action::Query { .. }) && c.ahead.event_pending
        }),
        ("a wait for a pending event", |a, c, _| {
            matches!(a, Action::WaitEvent { .. }) && c.ahead.event_pending
        }),
        ("an event synchronize that waits", |a, _, w| {
            matches!(a, Action::SyncEvent { .. }) && w == Wait::Event
        }),
        ("an event synchronize that does not", |a, _, w| {
            matches!(a, Action::SyncEvent { .. }) && w == Wait::Nothing
        }),
        ("a stream synchronize that waits", |a, _, w| {
            matches!(a, Action::SyncStream { .. }) && w == Wait::Stream
        }),
        ("a device synchronize that waits", |a, _, w| {
            matches!(a, Action::SyncDevice) && w == Wait::Device
        }),
        ("a raw free that waits", |a, _, w| {
            matches!(a, Action::FreeSegment) && w == Wait::Device
        }),
        ("a pinned upload behind work", |a, c, _| {
            matches!(
                a,
                Action::Copy {
                    direction: Direction::HostToDevice,
                    memory: Memory::Pinned,
                    ..
                }
            ) && c.ahead.stream_busy
        }),
        ("a pinned download behind work", |a, c, _| {
            matches!(
                a,
                Action::Copy {
                    direction: Direction::DeviceToHost,
                    memory: Memory::Pinned,
                    ..
                }
            ) && c.ahead.stream_busy
        }),
        ("a pageable download that waits", |a, _, w| {
            matches!(
                a,
                Action::Copy {
                    direction: Direction::DeviceToHost,
                    memory: Memory::Pageable,
                    ..
                }
            ) && w == Wait::Stream
        }),
        ("a pageable upload waiting for a slot", |_, _, w| {
            w == Wait::StagingSlot
        }),
        (
            "a pageable upload on an idle stream waiting for a slot other streams hold",
            |a, c, w| {
                matches!(a, Action::Copy { .. }) && !c.ahead.stream_busy && w == Wait::StagingSlot
            },
        ),
        ("a large pageable upload that waits", |a, _, w| {
            matches!(
                a,
                Action::Copy {
                    direction: Direction::HostToDevice,
                    ..
                }
            ) && w == Wait::Stream
        }),
        ("an inline upload behind work", |a, c, w| {
            matches!(a, Action::Copy { direction: Direction::HostToDevice, memory: Memory::Pageable, bytes, .. } if *bytes <= 16 << 10)
                && c.ahead.stream_busy
                && w == Wait::Nothing
        }),
        (
            "a staged upload behind work that does not wait",
            |a, c, w| {
                matches!(a, Action::Copy { direction: Direction::HostToDevice, memory: Memory::Pageable, bytes, .. } if (256 << 10..=1 << 20).contains(bytes))
                    && c.ahead.stream_busy
                    && w == Wait::Nothing
            },
        ),
    ]
}

#[test]
fn every_seed_holds_every_situation_the_checks_need() {
    for seed in (0..24).chain([COURSE_SEED]) {
        let run = run_of(seed);
        for (name, holds) in situations() {
            let found = run
                .programs
                .iter()
                .flatten()
                .any(|r| holds(&r.step.action, &r.step.call, r.truth));
            assert!(found, "seed {seed} has no {name}");
        }
    }
}

#[test]
fn two_grading_seeds_give_different_programs() {
    let staging = default_staging();
    let actions = |seed| -> Vec<Action> {
        programs(seed, &staging)
            .into_iter()
            .flatten()
            .map(|s| s.action)
            .collect()
    };
    assert_eq!(
        actions(7),
        actions(7),
        "a seed gives its programs every time"
    );
    assert_ne!(actions(7), actions(8));
    assert_ne!(actions(COURSE_SEED), actions(0x1234_5678));
}

#[test]
fn a_wrong_prediction_names_the_call_the_measured_wait_and_the_section() {
    let run = run_of(COURSE_SEED);
    let failure = grade(&run, Family::Synchronize, &mut |_, _| Wait::Nothing).unwrap_err();
    let first = run
        .programs
        .iter()
        .flatten()
        .find(|r| {
            matches!(
                r.step.action,
                Action::SyncEvent { .. } | Action::SyncStream { .. } | Action::SyncDevice
            ) && r.truth != Wait::Nothing
        })
        .unwrap();
    let call = format!("program {}, call {}, ", first.program, first.index);
    assert!(failure.actual.contains(&call), "{}", failure.actual);
    assert!(
        failure.actual.contains("you said `Nothing`"),
        "{}",
        failure.actual
    );
    let ms = format!("the CPU waited {:.3} ms", first.cpu_ns as f64 / 1e6);
    assert!(failure.actual.contains(&ms), "{}", failure.actual);
    let detail = failure.detail.unwrap();
    assert!(
        detail.contains("see hidden-syncs.md#cpu-waits-and-gpu-waits"),
        "{detail}"
    );
    assert!(
        detail.contains("→"),
        "the program, the call marked: {detail}"
    );
}

/// The answers the learner's function gives, in order, when the checks
/// grade `run` with `predict`.
fn answers(run: &Run) -> Vec<Wait> {
    let mut seen = Vec::new();
    for family in FAMILIES {
        let _ = grade(run, family, &mut |call, staging| {
            let said = which_calls_wait::predict(call, staging);
            seen.push(said);
            said
        });
    }
    seen
}

#[test]
fn answers_copied_from_the_course_seed_fail_under_another_seed() {
    let course = run_of(COURSE_SEED);
    // A table of answers in the order the checks ask (a learner who
    // replays the judge's verdicts)…
    let replayed = answers(&course);
    let replay = |run: &Run| {
        let mut next = replayed.iter().copied();
        passes(run, &mut |_, _| next.next().unwrap_or(Wait::Nothing))
    };
    // …and a table by the exact call (a learner who looks the call up).
    let table: HashMap<Call, Wait> = course
        .programs
        .iter()
        .flatten()
        .map(|r| (r.step.call, r.truth))
        .collect();
    let lookup = |run: &Run| {
        passes(run, &mut |call, _| {
            table.get(call).copied().unwrap_or(Wait::Nothing)
        })
    };
    assert!(
        replay(&course) && lookup(&course),
        "both pass with the course's seed"
    );
    for seed in [1, 2, 0xfeed] {
        let other = run_of(seed);
        assert!(
            !replay(&other),
            "replaying the course seed's answers fails under seed {seed}"
        );
        assert!(!lookup(&other), "a table by call fails under seed {seed}");
    }
}

/// The measured waits of the course's seed and others on `backend`: every
/// call foreseen, and the shortest wait against the longest return and the
/// most CPU time a program spends outside its waits, which must stay well
/// below half a gate for the model's verdicts to hold.
fn waits_are_far_from_returns(backend: Backend, seeds: &[u64]) {
    let (mut shortest_wait, mut longest_return, mut busiest) = (u64::MAX, 0, 0);
    for &seed in seeds {
        let run = run(&Ctx::new(backend).with_seed(Some(seed))).expect("the programs run");
        for program in &run.programs {
            let mut own = 0;
            for ran in program {
                assert!(ran.foreseen(), "seed {seed}: {ran:?}");
                match ran.truth {
                    Wait::Nothing => {
                        longest_return = longest_return.max(ran.cpu_ns);
                        own += ran.cpu_ns;
                    }
                    _ => shortest_wait = shortest_wait.min(ran.cpu_ns),
                }
            }
            busiest = busiest.max(own);
        }
    }
    let ms = |ns: u64| ns as f64 / 1e6;
    println!(
        "{backend:?}, {} seeds: the shortest wait {:.3} ms, the longest return {:.3} ms, the most CPU time of a program outside its waits {:.3} ms (the threshold is 10 ms)",
        seeds.len(),
        ms(shortest_wait),
        ms(longest_return),
        ms(busiest)
    );
    assert!(
        ms(busiest) <= 6.0,
        "a program's own CPU time nears half a gate"
    );
}

#[test]
fn waits_are_far_from_returns_on_the_virtual_gpu() {
    let seeds: Vec<u64> = (0..64).chain([COURSE_SEED]).collect();
    waits_are_far_from_returns(Backend::Virtual, &seeds);
}

#[test]
#[ignore = "needs a CUDA device"]
fn waits_are_far_from_returns_on_the_gpu() {
    waits_are_far_from_returns(Backend::Cuda, &[COURSE_SEED, 1, 2, 3]);
}

/// The solution, except that a copy of exactly `slot_bytes` counts as too
/// large for a slot (`>=` for `>`): a mistake the programs never show, since
/// their sizes stay well inside each class.
fn slot_sized_copies_wait(call: &Call, staging: &Staging) -> Wait {
    match call.op {
        which_calls_wait::Op::Copy {
            direction: Direction::HostToDevice,
            memory: Memory::Pageable,
            bytes,
        } if bytes == staging.slot_bytes && call.ahead.stream_busy => Wait::Stream,
        _ => which_calls_wait::predict(call, staging),
    }
}

#[test]
fn the_edges_of_the_staging_rules_pass_the_solution_and_catch_an_off_by_one() {
    let staging = default_staging();
    assert_eq!(
        super::verdict::edges(&staging, &mut which_calls_wait::predict),
        Ok(())
    );
    let run = run_of(COURSE_SEED);
    assert!(
        passes(&run, &mut slot_sized_copies_wait),
        "the programs alone never reach the edge"
    );
    let failure = super::verdict::edges(&staging, &mut slot_sized_copies_wait).unwrap_err();
    assert!(failure.actual.contains("`Stream`"), "{failure:?}");
    let detail = failure.detail.unwrap_or_default();
    assert!(detail.contains("exactly `slot_bytes`"), "{detail}");
}

/// The solution, except that a graph launch waits for a busy stream and
/// recording a pending event waits for it: the programs never show either.
fn graph_launches_and_records_wait(call: &Call, staging: &Staging) -> Wait {
    match call.op {
        which_calls_wait::Op::GraphLaunch if call.ahead.stream_busy => Wait::Stream,
        which_calls_wait::Op::EventRecord if call.ahead.event_pending => Wait::Event,
        _ => which_calls_wait::predict(call, staging),
    }
}

#[test]
fn the_queued_calls_with_everything_busy_pass_the_solution_and_catch_a_waiting_graph_launch() {
    let staging = default_staging();
    assert_eq!(
        super::verdict::queued_edges(&staging, &mut which_calls_wait::predict),
        Ok(())
    );
    let failure =
        super::verdict::queued_edges(&staging, &mut graph_launches_and_records_wait).unwrap_err();
    assert!(failure.expected.contains("a graph launch"), "{failure:?}");
    assert!(
        failure
            .detail
            .unwrap_or_default()
            .contains("returns at once"),
        "the rule is named"
    );
}
