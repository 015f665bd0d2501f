//! A bridge and an agent in one process: for a bridge's own tests, which
//! call the learner's API through the bridge against the reference
//! solution without building an agent.

use crate::agent::{self, Serve};
use crate::bridge;
use gpu::remote::Link;
use std::rc::Rc;

/// Runs `f` with the bridge connected to an agent served by `serve` in a
/// thread of this process: for a bridge's own tests, which call the
/// learner's API through it against the reference solution without
/// building an agent. The agent's panics carry no location here (the
/// process's panic hook is the test harness's).
pub fn loopback<R>(serve: Serve, f: impl FnOnce() -> R) -> R {
    let (ours, theirs) = std::os::unix::net::UnixStream::pair().expect("a socket pair");
    let agent = std::thread::spawn(move || {
        let link = Rc::new(Link::accept(theirs).expect("a link"));
        agent::serve_link(link, serve);
    });
    let link = Rc::new(Link::offer(ours, Default::default()).expect("a link"));
    bridge::connect(Some(Rc::clone(&link)));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    let ended = !bridge::in_call() && bridge::end_check(&link);
    bridge::connect(None);
    gpu::remote::host::reset();
    drop(link);
    let _ = agent.join();
    match result {
        Ok(result) if ended => result,
        Ok(_) => panic!("the agent did not end the check"),
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

/// A virtual device and a stream of it, with a small decoder on the stream
/// (16 tokens, 8 wide, 1 ms a step): what a bridge's test lends the
/// learner's code.
pub fn virtual_decoder() -> (gpu::Device, gpu::Stream, gpu::Decoder) {
    let device = gpu::Device::open(gpu::Backend::Virtual).expect("the virtual GPU opens");
    let stream = device.new_stream().expect("a stream of the virtual GPU");
    let config = gpu::DecoderConfig {
        vocab: 16,
        hidden: 8,
        seed: 2,
        step_time: std::time::Duration::from_millis(1),
    };
    let decoder = gpu::Decoder::new(&stream, config).expect("a decoder on the virtual GPU");
    (device, stream, decoder)
}

/// How many kernels named `name` the trace of `device` holds: for a
/// bridge's test, that the learner's code ran on the judge's device.
pub fn launches(device: &gpu::Device, name: &str) -> usize {
    device
        .trace()
        .entries
        .iter()
        .filter(|e| e.name == name)
        .count()
}

/// How many calls of kind `op` the trace of `device` holds: for a bridge's
/// test, that the learner's code made them on the judge's device.
pub fn calls(device: &gpu::Device, op: gpu::OpKind) -> usize {
    device.trace().entries.iter().filter(|e| e.op == op).count()
}
