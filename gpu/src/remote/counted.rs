//! A global allocator that counts the bytes a process holds, so that the
//! judge's checker can hold what it does for a learner's calls to that
//! learner's memory limit ([`crate::remote::host`]): every byte it keeps
//! for them (device memory of the virtual GPU, pinned buffers, trace
//! entries, answers) is on its heap, and this is the one place that sees
//! them all. A binary opts in with
//! `#[global_allocator] static A: gpu::remote::Counted = gpu::remote::Counted;`
//! (the judge's generated checker does); without it, [`live_bytes`] is `None`.
//!
//! The second place in the crate that allows `unsafe` (beside the CUDA
//! backend): `GlobalAlloc` is an unsafe trait, and this forwards each of
//! its calls to the system allocator unchanged.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The system allocator, counting what is allocated and not yet freed.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counted;

static LIVE: AtomicU64 = AtomicU64::new(0);
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// The bytes this process holds on its heap now, when [`Counted`] is its
/// global allocator.
pub fn live_bytes() -> Option<u64> {
    INSTALLED
        .load(Ordering::Relaxed)
        .then(|| LIVE.load(Ordering::Relaxed))
}

fn add(bytes: usize) {
    LIVE.fetch_add(bytes as u64, Ordering::Relaxed);
    if !INSTALLED.load(Ordering::Relaxed) {
        INSTALLED.store(true, Ordering::Relaxed);
    }
}

fn sub(bytes: usize) {
    LIVE.fetch_sub(bytes as u64, Ordering::Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's own
// arguments, so `System`'s guarantees are this allocator's; the counter
// is updated only after a successful allocation and before a free.
unsafe impl GlobalAlloc for Counted {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which is `System`'s.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            add(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            add(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        sub(layout.size());
        // SAFETY: `ptr` was allocated by this allocator, that is by `System`, with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` was allocated by `System` with `layout`; the caller upholds the rest.
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        if !moved.is_null() {
            sub(layout.size());
            add(new_size);
        }
        moved
    }
}

// The gpu crate's own tests count their heap, for the judge's side's
// property test (`remote::guard::tests`).
#[cfg(test)]
#[global_allocator]
static TEST_HEAP: Counted = Counted;
