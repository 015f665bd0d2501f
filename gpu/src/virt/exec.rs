//! The backend interface of the virtual GPU: each call's CPU cost, then its
//! effect on the model (see the parent module for the model itself).

use super::{Effect, Engine, Node, Pool, Recording, SEGMENT_ALIGN, VirtualGpu};
use crate::error::{GpuError, Result};
use crate::exec::{Copy, DeviceInfo, EventId, Exec, GraphId, HostId, Span};
use crate::kernels::Kernel;
use crate::trace::{BackendKind, GpuSpan, StreamId};

impl Exec for VirtualGpu {
    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            backend: BackendKind::Virtual,
            name: "virtual GPU".into(),
            compute_capability: (9, 0),
            total_memory: self.cal.total_memory,
        }
    }

    fn now_ns(&mut self) -> u64 {
        self.cpu
    }

    fn host_work(&mut self, ns: u64) {
        self.spend(ns);
    }

    fn create_stream(&mut self) -> Result<StreamId> {
        self.spend(self.cal.create_ns);
        self.ready.push(self.cpu);
        Ok(StreamId(self.ready.len() as u32))
    }

    fn create_event(&mut self) -> Result<EventId> {
        self.spend(self.cal.create_ns);
        self.events.push(None);
        Ok(EventId(self.events.len() as u32 - 1))
    }

    fn malloc_async(&mut self, stream: StreamId, bytes: usize) -> Result<u64> {
        self.spend(self.cal.pool_alloc_ns);
        let rounded = Pool::rounded(bytes);
        let fits = self.in_use().saturating_add(rounded as u64) <= self.cal.total_memory
            && super::memory::heap_fits(rounded);
        let (addr, fresh) = self
            .pool
            .alloc(bytes, stream, self.cpu, fits)
            .ok_or_else(|| self.out_of_memory("alloc", bytes as u64))?;
        if fresh {
            self.mem.add_device(addr, Pool::rounded(bytes));
        }
        Ok(addr)
    }

    fn free_async(&mut self, stream: StreamId, addr: u64) -> Result<()> {
        self.spend(self.cal.api_call_ns);
        let done = self.cpu.max(*self.stream_ready(stream));
        self.pool.free(addr, stream, done);
        Ok(())
    }

    fn memset_zero(&mut self, stream: StreamId, addr: u64, bytes: usize) -> Result<Span> {
        let node = Node {
            engine: Engine::Compute,
            effect: Effect::Memset { addr, bytes },
            copy_bytes: 0,
        };
        Ok(self.submit_node(stream, node, self.cal.api_call_ns))
    }

    fn malloc_segment(&mut self, bytes: usize) -> Result<u64> {
        self.spend(self.cal.segment_alloc_ns);
        if self.in_use().saturating_add(bytes as u64) > self.cal.total_memory {
            return Err(self.out_of_memory("alloc_segment", bytes as u64));
        }
        let addr = self.next_segment;
        self.mem
            .try_add_device(addr, bytes)
            .ok_or_else(|| self.out_of_memory("alloc_segment", bytes as u64))?;
        self.next_segment += (bytes as u64).div_ceil(SEGMENT_ALIGN).max(1) * SEGMENT_ALIGN;
        self.segments.insert(addr, bytes);
        Ok(addr)
    }

    fn free_segment(&mut self, addr: u64) -> Result<()> {
        self.wait_for_device();
        self.spend(self.cal.segment_free_ns);
        self.segments.remove(&addr);
        self.mem.remove_device(addr);
        Ok(())
    }

    fn alloc_pinned(&mut self, bytes: usize) -> Result<HostId> {
        self.spend(self.cal.pinned_alloc_ns);
        self.mem
            .add_pinned(bytes)
            .ok_or_else(|| self.out_of_memory("alloc_pinned", bytes as u64))
    }

    fn free_pinned(&mut self, host: HostId) -> Result<()> {
        self.wait_for_device();
        self.spend(self.cal.pinned_free_ns);
        self.mem.remove_pinned(host);
        Ok(())
    }

    fn read_pinned(&mut self, host: HostId, offset: usize, out: &mut [u8]) {
        self.settle();
        out.copy_from_slice(&self.mem.read_pinned(host, offset, out.len()));
    }

    fn write_pinned(&mut self, host: HostId, offset: usize, data: &[u8]) {
        self.settle();
        self.mem.write_pinned(host, offset, data);
    }

    fn launch(&mut self, stream: StreamId, kernel: &Kernel) -> Result<Span> {
        let node = Node {
            engine: Engine::Compute,
            effect: Effect::Kernel(kernel.clone()),
            copy_bytes: 0,
        };
        Ok(self.submit_node(stream, node, self.cal.launch_ns))
    }

    fn copy(&mut self, stream: StreamId, copy: Copy<'_>) -> Result<Span> {
        let bytes = copy.bytes();
        let (engine, effect) = match copy {
            Copy::PageableToDevice { src, dst } => {
                return Ok(self.copy_pageable_to_device(stream, src, dst));
            }
            Copy::DeviceToPageable { src, dst } => {
                return Ok(self.copy_device_to_pageable(stream, src, dst));
            }
            Copy::PinnedToDevice {
                src,
                offset,
                bytes,
                dst,
            } => (
                Engine::HostToDevice,
                Effect::PinnedToDevice {
                    src,
                    offset,
                    bytes,
                    dst,
                },
            ),
            Copy::DeviceToPinned {
                src,
                dst,
                offset,
                bytes,
            } => (
                Engine::DeviceToHost,
                Effect::DeviceToPinned {
                    src,
                    dst,
                    offset,
                    bytes,
                },
            ),
            Copy::DeviceToDevice { src, dst, bytes } => {
                (Engine::Compute, Effect::DeviceToDevice { src, dst, bytes })
            }
        };
        let node = Node {
            engine,
            effect,
            copy_bytes: bytes,
        };
        Ok(self.submit_node(stream, node, self.cal.copy_submit_ns))
    }

    fn record_event(&mut self, event: EventId, stream: StreamId) -> Result<()> {
        self.spend(self.cal.api_call_ns);
        if let Some(recording) = &mut self.capture
            && recording.record(event, stream)
        {
            return Ok(());
        }
        let done = self.cpu.max(*self.stream_ready(stream));
        self.events[event.0 as usize] = Some(done);
        Ok(())
    }

    fn wait_event(&mut self, stream: StreamId, event: EventId) -> Result<()> {
        self.spend(self.cal.api_call_ns);
        if let Some(recording) = &mut self.capture
            && recording.wait(stream, event)
        {
            return Ok(());
        }
        if let Some(done) = self.events[event.0 as usize] {
            let ready = self.stream_ready(stream);
            *ready = (*ready).max(done);
        }
        Ok(())
    }

    fn sync_stream(&mut self, stream: StreamId) -> Result<()> {
        self.spend(self.cal.api_call_ns);
        let ready = *self.stream_ready(stream);
        self.wait_until(ready);
        Ok(())
    }

    fn sync_event(&mut self, event: EventId) -> Result<()> {
        self.spend(self.cal.api_call_ns);
        if let Some(done) = self.events[event.0 as usize] {
            self.wait_until(done);
        }
        Ok(())
    }

    fn sync_device(&mut self) -> Result<()> {
        self.spend(self.cal.api_call_ns);
        self.wait_for_device();
        Ok(())
    }

    fn query_stream(&mut self, stream: StreamId) -> Result<bool> {
        self.spend(self.cal.api_call_ns);
        Ok(*self.stream_ready(stream) <= self.cpu)
    }

    fn query_event(&mut self, event: EventId) -> Result<bool> {
        self.spend(self.cal.api_call_ns);
        Ok(self.events[event.0 as usize].is_none_or(|done| done <= self.cpu))
    }

    fn elapsed_ms(&mut self, start: EventId, end: EventId) -> Result<f32> {
        self.spend(self.cal.api_call_ns);
        let (Some(t0), Some(t1)) = (self.events[start.0 as usize], self.events[end.0 as usize])
        else {
            return Err(GpuError::Driver {
                call: "cuEventElapsedTime",
                message: "an event was never recorded: record both events on a stream first (CUDA_ERROR_INVALID_HANDLE)".into(),
            });
        };
        self.wait_until(t0.max(t1));
        Ok((t1 as f64 - t0 as f64) as f32 / 1e6)
    }

    fn begin_capture(&mut self, stream: StreamId) -> Result<()> {
        self.spend(self.cal.begin_capture_ns);
        self.capture = Some(Recording::new(stream));
        Ok(())
    }

    fn end_capture(&mut self, stream: StreamId) -> Result<GraphId> {
        let nodes = match self.capture.take() {
            Some(recording) if recording.origin == stream => recording.nodes,
            other => {
                self.capture = other;
                Vec::new()
            }
        };
        self.spend(self.cal.end_capture_ns + self.cal.instantiate_node_ns * nodes.len() as u64);
        self.graphs.push(nodes);
        Ok(GraphId(self.graphs.len() as u32 - 1))
    }

    fn abort_capture(&mut self, stream: StreamId) {
        if self.capture.as_ref().is_some_and(|r| r.origin == stream) {
            self.capture = None;
        }
    }

    fn launch_graph(&mut self, graph: GraphId, stream: StreamId) -> Result<Span> {
        self.spend(self.cal.graph_launch_ns);
        let nodes = std::mem::take(&mut self.graphs[graph.0 as usize]);
        let span = self.replay(&nodes, stream);
        self.graphs[graph.0 as usize] = nodes;
        Ok(span)
    }

    fn destroy_event(&mut self, event: EventId) {
        self.events[event.0 as usize] = None;
    }

    fn destroy_graph(&mut self, graph: GraphId) {
        self.graphs[graph.0 as usize] = Vec::new();
    }

    fn graph_nodes(&self, graph: GraphId) -> usize {
        self.graphs[graph.0 as usize].len()
    }

    fn resolve(&mut self, _token: u64) -> Option<GpuSpan> {
        None
    }
}
