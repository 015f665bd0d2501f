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
