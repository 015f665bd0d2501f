//! Looking up the backend's handles by id, wrapping operations in timing
//! events, and releasing what the backend still holds when it drops.
//!
//! Ids come from this backend and the front end passes back only ids it got,
//! so an unknown id is a bug in the crate: the lookups panic with a message
//! that says which id.

use super::launch::Plan;
use super::pinned::Pinned;
use super::timing::Started;
use super::{CudaExec, Graph, drv};
use crate::error::Result;
use crate::exec::{EventId, Exec, GraphId, HostId, Span};
use crate::trace::StreamId;
use cudarc::driver::sys::CUfunction;
use cudarc::driver::{CudaEvent, CudaStream};
use std::sync::Arc;

/// The stream of `id` (`StreamId(n)` is `streams[n - 1]`).
///
/// # Panics
/// When this device never returned `id`.
pub(super) fn stream_of(streams: &[Arc<CudaStream>], id: StreamId) -> &Arc<CudaStream> {
    (id.0 as usize)
        .checked_sub(1)
        .and_then(|i| streams.get(i))
        .unwrap_or_else(|| panic!("stream {id} was not created by this CUDA device"))
}

/// The id for the next entry of a vector indexed from 0.
pub(super) fn next_id(len: usize) -> u32 {
    u32::try_from(len).expect("fewer than 2^32 handles of one kind")
}

impl CudaExec {
    /// Makes the context current on this thread, as the raw `result::` and
    /// `sys::` calls need (cudarc's safe calls do it themselves).
    pub(super) fn bind(&self) -> Result<()> {
        self.ctx.bind_to_thread().map_err(drv("cuCtxSetCurrent"))
    }

    /// The stream of `id`.
    pub(super) fn stream(&self, id: StreamId) -> &Arc<CudaStream> {
        stream_of(&self.streams, id)
    }

    /// The `sum_f32` scratch slot of stream `id`.
    pub(super) fn sum_slot(&self, id: StreamId) -> u64 {
        (id.0 as usize)
            .checked_sub(1)
            .and_then(|i| self.sum_slots.get(i).copied())
            .unwrap_or_else(|| panic!("stream {id} was not created by this CUDA device"))
    }

    /// The event of `id`.
    pub(super) fn event(&self, id: EventId) -> &CudaEvent {
        match self.events.get(id.0 as usize) {
            Some(Some(event)) => event,
            _ => panic!("event {} is not live on this CUDA device", id.0),
        }
    }

    /// The live pinned allocation of `id`.
    pub(super) fn pinned(&self, id: HostId) -> &Pinned {
        match self.pinned.get(id.0 as usize) {
            Some(Some(pinned)) => pinned,
            _ => panic!("pinned allocation {} is not live on this CUDA device", id.0),
        }
    }

    /// The graph of `id`.
    pub(super) fn graph(&self, id: GraphId) -> &Graph {
        match self.graphs.get(id.0 as usize) {
            Some(Some(graph)) => graph,
            _ => panic!("graph {} is not live on this CUDA device", id.0),
        }
    }

    /// An error that cudarc parked in the context (a drop of one of its
    /// objects that failed), reported as the error of `call`, the wait that
    /// looks for it: a launch does not (see [`super::launch::launch`]).
    pub(super) fn parked_error(&self, call: &'static str) -> Result<()> {
        self.ctx.check_err().map_err(drv(call))
    }

    /// The loaded function of the kernel `plan` launches.
    pub(super) fn kernel(&self, plan: &Plan) -> CUfunction {
        self.kernels
            .get(plan.index)
            .unwrap_or_else(|| panic!("kernel `{}` is not in the kernel library", plan.name))
            .cu_function()
    }

    /// `stream`'s capture has ended (or been thrown away): no stream of this
    /// device captures any more, the ones that joined it included (the
    /// device has at most one capture at a time, the front end sees to it).
    pub(super) fn leave_capture(&mut self, stream: StreamId) {
        debug_assert!(self.capturing.first().is_none_or(|s| *s == stream));
        self.capturing.clear();
        self.captured_events.clear();
    }

    /// Records the start event of a timed operation on `stream`, unless
    /// timing is off or the stream is capturing (work in a graph is not timed).
    pub(super) fn timer_start(&mut self, stream: StreamId) -> Result<Option<Started>> {
        let capturing_here = self.capturing.contains(&stream);
        let capturing_any = !self.capturing.is_empty();
        match self.timing.as_mut() {
            Some(timing) if !capturing_here => {
                let s = stream_of(&self.streams, stream);
                timing.start(s, capturing_any).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// Ends a timed operation whose submission returned `submitted`: records
    /// the end event and returns the pending span, or gives the events back
    /// when the submission failed. Without timing, passes `submitted` on.
    pub(super) fn timer_finish(
        &mut self,
        started: Option<Started>,
        stream: StreamId,
        submitted: Result<()>,
    ) -> Result<Span> {
        let (Some(started), Some(timing)) = (started, self.timing.as_mut()) else {
            return submitted.map(|()| Span::None);
        };
        if let Err(e) = submitted {
            timing.cancel(started);
            return Err(e);
        }
        let s = stream_of(&self.streams, stream);
        timing.finish(started, s).map(Span::Pending)
    }
}

impl Drop for CudaExec {
    /// Ends any capture still open, waits for this device's streams, then
    /// frees the pinned memory still allocated, which a queued copy might
    /// otherwise still use, and the scratch of `sum_f32`. Other device
    /// memory is the front end's to free.
    fn drop(&mut self) {
        if let Some(&origin) = self.capturing.first() {
            self.abort_capture(origin);
        }
        let _ = self.ctx.bind_to_thread();
        for stream in &self.streams {
            let _ = stream.synchronize();
        }
        for pinned in self.pinned.drain(..).flatten() {
            let _ = pinned.free();
        }
        self.scratch.free();
    }
}
