//! The benchmarks behind the book's "Measured on the H200" sections, and the
//! chapters' figures.
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
//! * [`cpu_gpu`]: the chapter "CPU and GPU": a launch only queues work,
//!   launch-bound and compute-bound loops, timing with events.
//! * [`streams`]: the chapter "Streams and events": order across streams,
//!   the cost of each sync primitive, copy/compute overlap.
//! * [`default_stream`]: the legacy default stream's implicit waits,
//!   written out with events, and what one fill on it does to two streams.
//! * [`sampling`]: the chapter "Sampling on the GPU and overlap scheduling":
//!   the naive decode loop against exercise 102's overlapped one.
//! * [`GpuDriver`]: the allocator's `Driver` over the `gpu` crate.
//! * [`graphs`]: a decode step of 64 tiny layers (exercise 103's reference
//!   solution), eager against replayed from a CUDA graph, and 200 empty
//!   kernels each way.
//! * [`figures`]: every figure of the book: the allocator's segments and
//!   blocks drawn from its own snapshots, and timelines drawn from the
//!   virtual GPU's traces.
//! * [`hidden_syncs`]: every implicit sync point of the hidden-syncs
//!   chapter and its fix, behind a gate.
//! * [`launch_overhead`]: one launch of an empty kernel through cudarc's
//!   result layer, cudarc's `launch_builder` and the `gpu` crate with its
//!   checks on and off, pair by pair: what the crate's bookkeeping costs.
//!   The same bookkeeping counted in instructions, which do not depend on
//!   the machine's load: `benches/callgrind/launch-instructions` (valgrind's
//!   callgrind over the example `launch_instructions`; its last output in
//!   `benches/callgrind/launch-instructions.txt`).
//! * [`sync_loop`]: a small serving loop with a sync every step or one per
//!   window, and its step time against the decoder alone.
//! * [`header`]: the provenance lines (command, device, driver and NVRTC on
//!   a real GPU, the commit the example was built from, date) that every
//!   measurement printed for the book starts with; the examples take the
//!   commit from `workbook-commit`, and `benches/remeasure` runs them all.

pub mod allocator;
pub mod cpu_gpu;
mod date;
pub mod default_stream;
mod driver;
pub mod fidelity;
pub mod figures;
pub mod graphs;
mod header;
pub mod hidden_syncs;
pub mod hosts;
// Not for the browser (the widgets build this crate for wasm32): it reads
// the real clock, which `gpu::measure_launches` does not do there.
#[cfg(not(target_arch = "wasm32"))]
// Its `//!` names `Link` (gpu::remote::Link) as a link rustdoc cannot
// resolve there. The file is code of an H200 measurement
// (chapters/measurements/launch_overhead.txt, measured at 1b53b45): an edit
// would make that measurement stale until the H200 measures it again, so
// the fix (`[`Link`](gpu::remote::Link)`) waits for that run, and this
// allowance goes with it.
#[allow(rustdoc::broken_intra_doc_links)]
pub mod launch_overhead;
pub mod profile_step;
pub mod sampling;
pub mod streams;
mod summary;
pub mod sync_loop;

pub use date::today;
pub use driver::GpuDriver;
pub use header::{example_command, header, open_example, open_timed_example};
pub use summary::{Summary, duration_text};
