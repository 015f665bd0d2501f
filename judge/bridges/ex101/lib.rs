//! Exercise 101's API as the checks see it in the judge's checker: the
//! constants, types and [`Driver`] trait of `exercises/101-caching-allocator`,
//! the judge's own [`SimDriver`], and a [`CachingAllocator`] that stands for
//! the learner's, which lives in the agent ([`judge_harness::bridge`](mod@judge_harness::bridge)). The
//! driver stays here: each of its calls by the learner's allocator comes
//! back as a callback and runs on the judge's driver (the scripted one, or
//! a check's own over the judge's device).
//!
//! Declared once in `api.rs`; the agent's end (`serve.rs`) adds how a
//! block travels ([`judge_harness::bridge!`]). The judge's `SimDriver` is
//! the course's own `src/sim.rs`, from the reference solution (the checks
//! drive the learner's allocator over the judge's copy, not over one the
//! learner could change).

judge_harness::bridge!(api: "api.rs", agent: "serve.rs", tests: "tests.rs");

#[path = "../../../solutions/101-caching-allocator/src/sim.rs"]
mod sim;
mod types;

pub use sim::{SimDriver, SimEvent};
pub use types::Block;

/// Every request is rounded up to a multiple of this, and is at least this.
pub const MIN_BLOCK: usize = 512;
/// A rounded request of at most this many bytes goes to the small pool.
pub const SMALL_SIZE: usize = 1 << 20;
/// The size of a small-pool segment.
pub const SMALL_BUFFER: usize = 2 << 20;
/// The size of a large-pool segment for requests under [`MIN_LARGE_ALLOC`].
pub const LARGE_BUFFER: usize = 20 << 20;
/// From this size on, a request gets a segment of its own size.
pub const MIN_LARGE_ALLOC: usize = 10 << 20;
/// Such a segment is rounded up to a multiple of this.
pub const ROUND_LARGE: usize = 2 << 20;

/// The learner's message (the checks read it).
impl std::fmt::Display for AllocError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_string())
    }
}

impl std::error::Error for AllocError {}
