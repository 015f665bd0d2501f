//! The virtual GPU: a deterministic discrete-event model of one device.
//!
//! Each stream is a FIFO with a `ready` time (when its last queued operation
//! ends, or the last event it was told to wait for completes). Host-to-device
//! and device-to-host copies each have one copy engine; kernels of different
//! streams run side by side. The CPU has its own clock, advanced by the cost
//! of each call (from the [`Calibration`] table), by `host_work` and by
//! blocking waits.
//!
//! Every operation is scheduled when it is submitted: it starts once the CPU
//! has submitted it, its stream is ready and its engine is free, and lasts as
//! long as the table says. Its effect on memory (a kernel's CPU twin, a copy's
//! bytes) is applied at its end time, in global time order, before the CPU
//! can observe anything later. So a missing wait or an early reuse corrupts
//! data exactly the way it would on a GPU, and the same way on every run.
//!
//! Just over 400 lines: the timeline (streams, engines, the CPU clock) and
//! the cost of each kind of operation belong together; capture, execution,
//! memory and pools are in their own modules.

mod capture;
mod exec;
mod memory;
mod pool;

use crate::calibration::Calibration;
use crate::error::GpuError;
use crate::exec::{HostId, Span};
use crate::kernels::{Kernel, cpu};
use crate::trace::{CallSite, GpuSpan, StreamId};
use capture::{GraphNode, Recording};
use memory::Memory;
use pool::Pool;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// What a kernel that touches device memory pays on top of one that does
/// not: it cannot end before its first loads come back. Fitted, not in the
/// cost table (whose `kernel_min_ns` and `graph_node_ns` are `spin(0)`, a
/// kernel that touches nothing): on the H200, exercise 103's decode step,
/// 64 kernels of a few KiB each, ran 123 µs eagerly and 76.9 µs replayed
/// (`graphs_replay.txt`, 2026-12-04), about 0.5 µs a kernel more than
/// `spin(0)` alone either way.
const FIRST_LOAD_NS: u64 = 520;

/// Where device memory of each kind starts (readable, deterministic addresses).
const SEGMENT_BASE: u64 = 0x1_0000_0000;
const POOL_BASE: u64 = 0x10_0000_0000;
/// `cuMemAlloc` hands out 2 MiB-aligned segments.
const SEGMENT_ALIGN: u64 = 2 << 20;

/// Which engine an operation occupies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Engine {
    /// The SMs: kernels and device-to-device copies; streams run side by side.
    Compute,
    /// The host-to-device copy engine: one copy at a time.
    HostToDevice,
    /// The device-to-host copy engine: one copy at a time.
    DeviceToHost,
}

/// What an operation does to memory when it ends.
#[derive(Clone, Debug)]
enum Effect {
    Kernel(Kernel),
    Memset {
        addr: u64,
        bytes: usize,
    },
    /// Staged bytes from pageable memory land on the device.
    Write {
        dst: u64,
        data: Vec<u8>,
    },
    PinnedToDevice {
        src: HostId,
        offset: usize,
        bytes: usize,
        dst: u64,
    },
    DeviceToPinned {
        src: u64,
        dst: HostId,
        offset: usize,
        bytes: usize,
    },
    DeviceToDevice {
        src: u64,
        dst: u64,
        bytes: usize,
    },
    /// Bytes for a pageable destination, kept until the CPU collects them.
    DeviceToPageable {
        src: u64,
        bytes: usize,
        slot: u64,
    },
}

/// An operation recorded into a graph.
#[derive(Clone, Debug)]
struct Node {
    engine: Engine,
    effect: Effect,
    /// Bytes a copy moves, or 0 for kernels and memsets.
    copy_bytes: usize,
}

/// The deterministic virtual GPU.
pub(crate) struct VirtualGpu {
    cal: Calibration,
    /// The CPU clock.
    cpu: u64,
    /// Per stream (index = id - 1): when queued work and waits are done.
    ready: Vec<u64>,
    /// Per event: completion time of its last record, `None` if never recorded.
    events: Vec<Option<u64>>,
    h2d_free: u64,
    d2h_free: u64,
    /// When each pageable staging slot is free again.
    staging: Vec<u64>,
    /// Effects not yet applied, by (end time, submit order).
    pending: BinaryHeap<Reverse<(u64, u64)>>,
    effects: BTreeMap<u64, Effect>,
    next_seq: u64,
    /// Bytes collected for pageable destinations, by slot.
    pageable: BTreeMap<u64, Vec<u8>>,
    mem: Memory,
    pool: Pool,
    segments: BTreeMap<u64, usize>,
    next_segment: u64,
    /// The capture in progress, if any.
    capture: Option<Recording>,
    graphs: Vec<Vec<GraphNode>>,
}

impl VirtualGpu {
    /// A fresh device with the given cost table.
    pub(crate) fn new(cal: Calibration) -> Self {
        let slots = cal.staging_slots.max(1) as usize;
        Self {
            pool: Pool::new(POOL_BASE),
            cal,
            cpu: 0,
            ready: Vec::new(),
            events: Vec::new(),
            h2d_free: 0,
            d2h_free: 0,
            staging: vec![0; slots],
            pending: BinaryHeap::new(),
            effects: BTreeMap::new(),
            next_seq: 0,
            pageable: BTreeMap::new(),
            mem: Memory::default(),
            segments: BTreeMap::new(),
            next_segment: SEGMENT_BASE,
            capture: None,
            graphs: Vec::new(),
        }
    }

    /// Spend `ns` of CPU time in a call, then apply what the GPU finished meanwhile.
    ///
    /// Every sum of the model's clocks saturates, in every build: a clock
    /// never wraps, so it never runs backwards (the arguments that reach
    /// here are bounded first, `remote::guard`, so none comes near).
    fn spend(&mut self, ns: u64) {
        self.cpu = self.cpu.saturating_add(ns);
        self.settle();
    }

    /// Block the CPU until `time` (if later than now), then settle.
    fn wait_until(&mut self, time: u64) {
        if time > self.cpu {
            self.cpu = time.saturating_add(self.cal.wake_ns);
        }
        self.settle();
    }

    /// Apply, in time order, every effect that ended by the CPU's clock.
    fn settle(&mut self) {
        while let Some(&Reverse((end, seq))) = self.pending.peek() {
            if end > self.cpu {
                break;
            }
            self.pending.pop();
            let effect = self
                .effects
                .remove(&seq)
                .expect("every pending op has an effect");
            self.apply(effect);
        }
    }

    fn apply(&mut self, effect: Effect) {
        match effect {
            Effect::Kernel(kernel) => cpu::run(&kernel, &mut self.mem),
            Effect::Memset { addr, bytes } => self.mem.zero_device(addr, bytes),
            Effect::Write { dst, data } => self.mem.write_device(dst, &data),
            Effect::PinnedToDevice {
                src,
                offset,
                bytes,
                dst,
            } => self.mem.pinned_to_device(src, offset, bytes, dst),
            Effect::DeviceToPinned {
                src,
                dst,
                offset,
                bytes,
            } => self.mem.device_to_pinned(src, dst, offset, bytes),
            Effect::DeviceToDevice { src, dst, bytes } => {
                self.mem.device_to_device(src, dst, bytes);
            }
            Effect::DeviceToPageable { src, bytes, slot } => {
                let data = self.mem.read_device(src, bytes);
                self.pageable.insert(slot, data);
            }
        }
    }

    fn stream_ready(&mut self, stream: StreamId) -> &mut u64 {
        &mut self.ready[stream.0 as usize - 1]
    }

    /// Queue an operation on a stream: it starts when the CPU has submitted
    /// it, the stream is ready and the engine is free.
    fn schedule(
        &mut self,
        stream: StreamId,
        engine: Engine,
        duration: u64,
        effect: Effect,
    ) -> GpuSpan {
        let ready = *self.stream_ready(stream);
        let span = self.place(ready, engine, duration, effect);
        *self.stream_ready(stream) = span.end_ns;
        span
    }

    /// Places an operation on the timeline: it starts when the CPU has
    /// submitted it, at `after` or later, once its engine is free.
    fn place(&mut self, after: u64, engine: Engine, duration: u64, effect: Effect) -> GpuSpan {
        let engine_free = match engine {
            Engine::Compute => 0,
            Engine::HostToDevice => self.h2d_free,
            Engine::DeviceToHost => self.d2h_free,
        };
        let start = self.cpu.max(after).max(engine_free);
        let end = start.saturating_add(duration.max(1));
        match engine {
            Engine::Compute => {}
            Engine::HostToDevice => self.h2d_free = end,
            Engine::DeviceToHost => self.d2h_free = end,
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.pending.push(Reverse((end, seq)));
        self.effects.insert(seq, effect);
        GpuSpan {
            start_ns: start,
            end_ns: end,
        }
    }

    fn kernel_ns(&self, kernel: &Kernel, min: u64) -> u64 {
        if let Kernel::Sum { src, pad_ns, .. } = kernel {
            // A multi-block reduction (`kernels::SumGrid`), bound by device
            // memory: its blocks stream `src` once at `sum_bytes_per_ns`
            // (by default an assumption, about three quarters of the H200's
            // 4.8 TB/s HBM3e peak, until `calibrate` has measured it on the
            // H200: see its default in `calibration.rs`). The grid's launch and the last block's pass over the
            // partial sums (at most 4 KiB), a short chain of dependent
            // steps, are taken to cost what the smallest kernel costs.
            let read = src.bytes() as f64 / self.cal.sum_bytes_per_ns;
            return pad_ns.saturating_add(min).saturating_add(read as u64);
        }
        let work = kernel.bytes_touched() as f64 / self.cal.hbm_bytes_per_ns
            + kernel.flops() as f64 / self.cal.flops_per_ns;
        let first_load = match kernel.bytes_touched() {
            0 => 0,
            _ => FIRST_LOAD_NS,
        };
        // Every kernel pays the grid's launch and drain on top of its work
        // (the H200 ran 2, 5, 10 and 50 µs spins in 3.42, 6.45, 11.45 and
        // 51.5 µs: `cpu_gpu_launch_bound.txt`), not a floor under it.
        kernel
            .pad_ns()
            .saturating_add(work as u64)
            .saturating_add(min)
            .saturating_add(first_load)
    }

    fn copy_ns(bytes: usize, bytes_per_ns: f64) -> u64 {
        ((bytes as f64 / bytes_per_ns) as u64).saturating_add(1_000)
    }

    /// How long `node` runs: in a graph, the smallest kernel costs less.
    fn node_ns(&self, node: &Node, in_graph: bool) -> u64 {
        match (&node.effect, node.engine) {
            (Effect::Kernel(kernel), _) => {
                let min = if in_graph {
                    self.cal.graph_node_ns
                } else {
                    self.cal.kernel_min_ns
                };
                self.kernel_ns(kernel, min)
            }
            (Effect::Memset { bytes, .. }, _) => {
                let work = (*bytes as f64 / self.cal.hbm_bytes_per_ns) as u64;
                work.max(self.cal.kernel_min_ns)
            }
            (_, Engine::HostToDevice) => {
                Self::copy_ns(node.copy_bytes, self.cal.pinned_h2d_bytes_per_ns)
            }
            (_, Engine::DeviceToHost) => {
                Self::copy_ns(node.copy_bytes, self.cal.pinned_d2h_bytes_per_ns)
            }
            (_, Engine::Compute) => Self::copy_ns(node.copy_bytes, self.cal.d2d_bytes_per_ns),
        }
    }

    /// Queues `node` on `stream` after `cost` of CPU time, or records it
    /// into the capture in progress if `stream` is in it.
    fn submit_node(&mut self, stream: StreamId, node: Node, cost: u64) -> Span {
        self.spend(cost);
        let node = match &mut self.capture {
            Some(recording) => match recording.push(stream, node) {
                None => return Span::None,
                Some(node) => node,
            },
            None => node,
        };
        let duration = self.node_ns(&node, false);
        Span::Known(self.schedule(stream, node.engine, duration, node.effect))
    }

    fn copy_pageable_to_device(&mut self, stream: StreamId, src: &[u8], dst: u64) -> Span {
        let bytes = src.len();
        self.spend(self.cal.copy_submit_ns);
        if bytes as u64 <= self.cal.inline_bytes {
            // Small copies travel in the command stream: no staging slot.
            self.spend((bytes as f64 / self.cal.staging_bytes_per_ns) as u64);
            let duration = Self::copy_ns(bytes, self.cal.pageable_h2d_bytes_per_ns);
            let effect = Effect::Write {
                dst,
                data: src.to_vec(),
            };
            return Span::Known(self.schedule(stream, Engine::HostToDevice, duration, effect));
        }
        // The driver stages through a few slots: take the one free first,
        // waiting for it if every slot still holds a copy.
        let slot = (0..self.staging.len())
            .min_by_key(|&i| self.staging[i])
            .expect("at least one slot");
        self.wait_until(self.staging[slot]);
        let staged = bytes.min(self.cal.staging_bytes as usize);
        self.spend((staged as f64 / self.cal.staging_bytes_per_ns) as u64);
        let duration = Self::copy_ns(bytes, self.cal.pageable_h2d_bytes_per_ns);
        let effect = Effect::Write {
            dst,
            data: src.to_vec(),
        };
        let span = self.schedule(stream, Engine::HostToDevice, duration, effect);
        self.staging[slot] = span.end_ns;
        if bytes > staged {
            // The rest is staged chunk by chunk as the DMA drains the buffer:
            // the CPU returns when the last chunk is staged.
            let last_chunk = (staged as f64 / self.cal.pageable_h2d_bytes_per_ns) as u64;
            self.wait_until(span.end_ns.saturating_sub(last_chunk));
        }
        Span::Known(span)
    }

    fn copy_device_to_pageable(&mut self, stream: StreamId, src: u64, dst: &mut [u8]) -> Span {
        self.spend(self.cal.copy_submit_ns);
        let slot = self.next_seq;
        let duration = Self::copy_ns(dst.len(), self.cal.pageable_d2h_bytes_per_ns);
        let effect = Effect::DeviceToPageable {
            src,
            bytes: dst.len(),
            slot,
        };
        let span = self.schedule(stream, Engine::DeviceToHost, duration, effect);
        self.wait_until(span.end_ns);
        let data = self.pageable.remove(&slot).expect("the copy has ended");
        dst.copy_from_slice(&data);
        Span::Known(span)
    }

    fn wait_for_device(&mut self) {
        let idle = self.ready.iter().copied().max().unwrap_or(0);
        self.wait_until(idle);
    }

    fn out_of_memory(&self, op: &'static str, requested: u64) -> GpuError {
        GpuError::OutOfMemory {
            op,
            requested,
            capacity: self.cal.total_memory,
            site: CallSite::internal("virtual gpu"),
        }
    }

    fn in_use(&self) -> u64 {
        self.segments.values().map(|&b| b as u64).sum::<u64>() + self.pool.reserved()
    }
}
