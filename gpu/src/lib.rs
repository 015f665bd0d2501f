//! The workbook's GPU runtime: one API over a real GPU and a virtual one.
//!
//! This crate is what the exercises program against. It teaches the CUDA
//! runtime the way an inference engine uses it: a launch only queues work;
//! some innocent calls make the CPU wait for the GPU; streams order work and
//! events connect them; copies overlap compute only from pinned memory;
//! memory freed on one stream may be handed out while another still uses it;
//! a graph replays kernels from fixed buffers.
//!
//! # Layering
//!
//! ```text
//!   measure                        times the cost table through the safe API; its
//!        │                         launch yardstick calls cudarc (cuda's `raw`)
//!        │
//!   Device, Stream, Event, DeviceBuffer, PinnedBuffer, Segment, Graph, Decoder   safe API
//!        │  every call: its argument checks, then an Op: what it is, its stream,
//!        │  bytes, the caller's file and line, why it can block, its race effects
//!        ▼
//!   core::Core ── the one choke point through which every call passes:
//!        │  the capture rule (Op::capture_rule, one match), the views against
//!        │  the live allocations, sync debug mode, the trace entry, the race
//!        │  checker (Core::apply_race, the one place that updates it)
//!        ▼  exec::Exec, the backend interface
//!   ┌────┴──────────────────────┐
//!   cuda::CudaExec              virt::VirtualGpu
//!   cudarc 0.19 (driver, NVRTC) a deterministic discrete-event model whose
//!   the only `unsafe` code      kernels run as CPU twins of the CUDA code
//!   (the crate denies `unsafe_code`; only this module allows it)
//! ```
//!
//! Both backends receive the same calls in the same order, and everything a
//! lesson depends on (which calls block, what a capture allows, what counts as
//! a race) is decided above the backend. So a program behaves the same on a
//! GPU and without one, except for how long things take: the virtual GPU
//! takes its times from a [`Calibration`] table measured on an H200.
//! Which of the two a [`Device`] opens on is decided in one place,
//! [`Backend::resolve`] (`GPU_BACKEND` and the CUDA probe).
//!
//! # Features
//!
//! `cuda` (on by default) builds the CUDA backend and its cudarc dependency.
//! Without it, and on wasm32 whatever the features (cudarc is not even a
//! dependency there), the crate is the virtual GPU alone: `Backend::Auto`
//! opens it, `Backend::Cuda` is [`GpuError::NoCudaDevice`], and nothing in it
//! reads a real clock or starts a thread, so it runs in a browser (the
//! book's widgets).
//!
//! # The three names of each concept
//!
//! | CUDA C | PyTorch | this crate |
//! |---|---|---|
//! | `cudaStreamCreateWithFlags(.., NonBlocking)` | `torch.cuda.Stream()` | [`Device::new_stream`] |
//! | `cudaEventRecord` | `event.record(stream)` | [`Event::record`], [`Stream::record_event`] |
//! | `cudaStreamWaitEvent` | `stream.wait_event(e)` | [`Stream::wait_event`] |
//! | `cudaEventSynchronize` | `event.synchronize()` | [`Event::synchronize`] (blocks) |
//! | `cudaStreamSynchronize` | `stream.synchronize()` | [`Stream::synchronize`] (blocks) |
//! | `cudaDeviceSynchronize` | `torch.cuda.synchronize()` | [`Device::synchronize`] (blocks) |
//! | `cudaEventElapsedTime` | `start.elapsed_time(end)` | [`Event::elapsed_ms`] (blocks) |
//! | `cudaMemcpyAsync` D2H, pageable | `t.tolist()`, `t.item()` | [`Stream::to_vec`], [`Stream::copy_to_host`] (block) |
//! | `cudaMemcpyAsync` H2D, pageable | `t.cuda()` | [`Stream::copy_from_host`] (can block) |
//! | `cudaHostAlloc` | `torch.empty(.., pin_memory=True)` | [`Device::alloc_pinned`] |
//! | `cudaMemcpyAsync` with pinned memory | `t.to(.., non_blocking=True)` | [`Stream::copy_to_pinned`], [`Stream::copy_from_pinned`] |
//! | `cudaMallocAsync` / `cudaFreeAsync` | `PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync` | [`Stream::alloc_zeros`], dropping a [`DeviceBuffer`] (the device's default pool, release threshold left at 0) |
//! | `cudaMalloc` / `cudaFree` | what the caching allocator avoids | [`Device::alloc_segment`], [`Device::free_segment`] (blocks) |
//! | `cudaStreamBeginCapture` / `EndCapture` | `torch.cuda.graph(g)` | [`Stream::begin_capture`], [`Stream::end_capture`] |
//! | `cudaGraphLaunch` | `g.replay()` | [`Graph::launch`] |
//! | — | `torch.cuda.set_sync_debug_mode` | [`Device::set_sync_debug`] |
//! | — | `TORCH_CUDA_SANITIZER=1` | [`Device::races`] |
//!
//! # Example
//!
//! ```
//! use gpu::{Backend, Device};
//! use std::time::Duration;
//!
//! let device = Device::open(Backend::Virtual)?;
//! let stream = device.new_stream()?;
//! let x = stream.alloc_zeros::<f32>(1024)?;
//! let total = stream.alloc_zeros::<f32>(1)?;
//! stream.spin(Duration::from_millis(20))?; // the GPU is busy for 20 ms
//! stream.fill(&x, 1.0)?;                   // queued: returns at once
//! stream.sum(&x, &total)?;
//! let before = device.now();
//! let host = stream.to_vec(&total)?;       // a hidden sync: waits for the spin
//! assert_eq!(host, [1024.0]);
//! assert!(device.now() - before >= Duration::from_millis(19));
//! # Ok::<(), gpu::GpuError>(())
//! ```

// `unsafe` is confined to the CUDA backend: the compiler refuses it anywhere
// else in the crate (each block there carries its `// SAFETY:` line, which
// clippy's `undocumented_unsafe_blocks` enforces).
#![deny(unsafe_code)]

mod calibration;
mod core;
// The CUDA backend, with the `cuda` feature (on by default) on any target
// but wasm32; elsewhere `no_cuda.rs` stands in for it under the same name,
// with a probe that says why there is no CUDA and an `open` that fails.
#[cfg(all(feature = "cuda", not(target_arch = "wasm32")))]
#[allow(unsafe_code)]
mod cuda;
#[cfg(not(all(feature = "cuda", not(target_arch = "wasm32"))))]
#[path = "no_cuda.rs"]
mod cuda;
mod decoder;
mod device;
mod driver_version;
mod elem;
mod error;
mod event;
mod exec;
mod graph;
mod kernels;
mod label;
mod measure;
mod memory;
mod profile;
mod provenance;
mod race;
// Devices in another process (the judge's): the proxies, the link, the
// judge's side. On wasm32, where no other process is, `no_remote.rs`
// stands in for it with the calls alone and a proxy that cannot exist.
#[cfg(not(target_arch = "wasm32"))]
pub mod remote;
#[cfg(target_arch = "wasm32")]
#[path = "no_remote.rs"]
mod remote;
mod stream;
mod trace;
mod virt;

pub use calibration::Calibration;
pub use core::SyncDebug;
pub use cuda::nvrtc_version;
#[cfg(all(feature = "cuda", not(target_arch = "wasm32")))]
pub use cuda::{CudaLibraries, CudaLibrary, cuda_libraries};
pub use decoder::{Decoder, DecoderConfig};
pub use device::{Backend, Device, DeviceOptions, ResolvedBackend, cuda_available};
pub use driver_version::nvidia_driver_version;
pub use elem::{AsView, Elem, ElemKind, View};
pub use error::{GpuError, Result};
pub use event::Event;
pub use graph::Graph;
pub use measure::measure;
#[cfg(not(target_arch = "wasm32"))]
pub use measure::{LaunchBench, LaunchCosts, LaunchWay, Spread, measure_launches};
pub use memory::{DeviceBuffer, PinnedBuffer, Segment};
pub use profile::{Range, RangeGuard};
pub use provenance::MeasurementHeader;
pub use race::{AccessRecord, Actor, RaceKind, RaceReport};
pub use stream::Stream;
pub use trace::{
    BackendKind, BlockReason, CallSite, GpuSpan, OpKind, StreamId, SvgOptions, Trace, TraceEntry,
};
