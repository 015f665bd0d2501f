//! Exercise 118: backpressure.
//!
//! The learner's `submit` queues the judge's decode steps (`workload.rs`),
//! whose CPU and GPU costs the judge knows, keeping at most `depth` in
//! flight: each step once and in order, all finished on return
//! (`order.rs`); never `depth` unfinished when a step is queued
//! (`flight.rs`); the GPU never idle between steps, and the one wait per
//! step for the oldest step's event (`waits.rs`); depth 1, a depth larger
//! than the step count and no step (`shapes.rs`).

mod flight;
mod order;
mod shapes;
#[cfg(test)]
mod tests;
mod waits;
mod workload;
#[cfg(test)]
mod wrong;

use judge_harness::{Check, check};

pub(crate) const CHECKS: &[Check] = &[
    check!(
        order::every_step_once_in_order,
        "the step is called for k = 0..steps, in order, each once, on the stream given, and every step has finished when `submit` returns",
        "cpu-and-gpu.md#why-the-cpu-ever-waits",
        20,
    ),
    check!(
        flight::at_most_depth_in_flight,
        "when a step is queued, at most depth − 1 earlier steps are unfinished on the GPU",
        "cpu-and-gpu.md#why-the-cpu-ever-waits",
        25,
        requires = [every_step_once_in_order],
    ),
    check!(
        waits::the_gpu_never_idles,
        "with depth 3, the GPU never sits idle between two steps",
        "cpu-and-gpu.md#why-the-cpu-ever-waits",
        25,
        requires = [every_step_once_in_order],
    ),
    check!(
        waits::only_the_oldest_is_waited_for,
        "before step k the CPU waits at most once, with an event's `synchronize`, until step k − depth has finished; after the last step, once",
        "cpu-and-gpu.md#why-the-cpu-ever-waits",
        15,
        requires = [every_step_once_in_order],
    ),
    check!(
        shapes::other_shapes_are_followed,
        "depth 1, a depth larger than the step count, and no step at all follow the same rules",
        "cpu-and-gpu.md#why-the-cpu-ever-waits",
        15,
        requires = [every_step_once_in_order],
    ),
];
