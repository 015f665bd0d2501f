//! Exercise 111: order two streams with an event.
//!
//! The checks upload 65,536 floats through the learner's `handoff` while
//! the producer stream is still busy with 300 us of earlier work, then read
//! `y` once on the consumer stream. They compare `y` with the layer of the
//! batch (`2 * x + 1`) and read the race checker's reports, and they read
//! the trace of the call: no call that makes the CPU wait, and an event
//! recorded on the producer stream after the upload, waited for on the
//! consumer stream before the layer.

mod order;
mod output;
mod support;
#[cfg(test)]
mod tests;
mod waits;
#[cfg(test)]
mod wrong;

use judge_harness::{Check, check};

pub(crate) const CHECKS: &[Check] = &[
    check!(
        output::output_is_the_layer_of_the_upload,
        "`y` is `2 * x + 1` of the uploaded batch, and no read of `x` races its upload",
        "streams-and-events.md#order-within-a-stream-none-across",
        40,
        requires = [the_cpu_never_waits],
    ),
    check!(
        waits::the_cpu_never_waits,
        "`handoff` makes no call that can make the CPU wait: no synchronize, no copy to host memory",
        "streams-and-events.md#waiting-on-the-gpu-against-waiting-on-the-cpu",
        30,
    ),
    check!(
        order::an_event_orders_the_streams,
        "an event recorded on the producer stream after the upload, waited for on the consumer stream before the layer",
        "streams-and-events.md#events",
        30,
    ),
];
