//! The benchmarks behind the book's "Measured on the H200" tables, and the
//! allocator chapter's figures.
//!
//! A benchmark is an example of this crate, so that it is built in release
//! mode and run by hand on the machine whose figures the book reports:
//!
//! ```text
//! cargo run --release -p workbook-benches --example alloc
//! ```
//!
//! Its measuring code lives in this library, where `cargo test` runs it
//! briefly on the virtual GPU, and where the book includes it from.
//!
//! * [`allocator`]: the caching allocator of exercise 101 (the reference
//!   solution) against raw device segments: cached `malloc` + `free` pairs,
//!   with and without a busy GPU, and `cuMemAlloc` + `cuMemFree` pairs on an
//!   idle and a busy device.
//! * [`GpuDriver`]: the allocator's `Driver` over the `gpu` crate.
//! * [`figures`]: the allocator chapter's pictures of segments and blocks,
//!   drawn from the allocator's own snapshots.
//! * [`hidden_syncs`]: every implicit sync point of the hidden-syncs
//!   chapter and its fix, behind a gate.
//! * [`sync_loop`]: a small serving loop with a sync every step or one per
//!   window, and its step time against the decoder alone.
//! * [`header`]: the provenance lines (command, device, date) that every
//!   measurement printed for the book starts with.

pub mod allocator;
mod date;
mod driver;
pub mod figures;
mod header;
pub mod hidden_syncs;
mod summary;
pub mod sync_loop;

pub use date::today;
pub use driver::GpuDriver;
pub use header::header;
pub use summary::{Summary, duration_text};
