//! Events: markers in a stream's queue.
//!
//! Recording an event on a stream marks "everything queued here so far".
//! Another stream can wait for it on the GPU ([`crate::Stream::wait_event`]),
//! the CPU can wait for it ([`Event::synchronize`], blocking) or ask about it
//! ([`Event::query`], never blocking), and two events give the GPU time
//! between them ([`Event::elapsed_ms`], blocking).

use crate::core::{Op, Race};
use crate::device::Device;
use crate::error::{GpuError, Result};
use crate::exec::EventId;
use crate::remote::What;
use crate::stream::Stream;
use crate::trace::{BlockReason, CallSite, OpKind};
use std::cell::Cell;

/// An event with timing enabled.
pub struct Event {
    device: Device,
    id: EventId,
    recorded: Cell<bool>,
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Event({}, recorded: {})", self.id.0, self.recorded.get())
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        if let Some(remote) = self.device.proxy() {
            let site = CallSite::internal("drop of an Event");
            return remote.forget(site, What::DropEvent { event: self.id });
        }
        if let Some(mut core) = self.device.try_core() {
            core.exec.destroy_event(self.id);
        }
    }
}

impl Event {
    pub(crate) fn new(device: Device, id: EventId) -> Self {
        Self {
            device,
            id,
            recorded: Cell::new(false),
        }
    }

    pub(crate) fn id(&self) -> EventId {
        self.id
    }

    pub(crate) fn device(&self) -> &Device {
        &self.device
    }

    /// Whether the event was ever recorded.
    pub fn is_recorded(&self) -> bool {
        self.recorded.get()
    }

    /// Records the event on `stream`: it completes when the work queued there
    /// so far has finished. Recording again moves the marker.
    #[track_caller]
    pub fn record(&self, stream: &Stream) -> Result<()> {
        let site = CallSite::caller();
        if !self.device.same(stream.device()) {
            return Err(GpuError::ForeignHandle { op: "record", site });
        }
        let (id, sid) = (self.id, stream.id());
        if let Some(remote) = self.device.proxy() {
            let what = What::RecordEvent {
                event: id,
                stream: sid,
            };
            remote.call::<()>(site, what)?;
            self.recorded.set(true);
            return Ok(());
        }
        let op = Op::new(OpKind::EventRecord, "record event", site)
            .on(sid)
            .race(Race::Record(id));
        self.device
            .core()
            .call(&op, |exec| exec.record_event(id, sid))?;
        self.recorded.set(true);
        Ok(())
    }

    /// Blocks the CPU until the work recorded before the event has finished.
    #[track_caller]
    pub fn synchronize(&self) -> Result<()> {
        let site = CallSite::caller();
        let id = self.id;
        if let Some(remote) = self.device.proxy() {
            return remote.call(site, What::EventSynchronize { event: id });
        }
        let op = Op::new(OpKind::EventSynchronize, "event synchronize", site)
            .blocking(BlockReason::EventSynchronize)
            .race(Race::EventDone(id));
        self.device.core().call(&op, |exec| exec.sync_event(id))
    }

    /// Whether the event has completed (true if never recorded). Never
    /// blocks, but may not be called while a graph is being captured.
    #[track_caller]
    pub fn query(&self) -> Result<bool> {
        let site = CallSite::caller();
        let id = self.id;
        if let Some(remote) = self.device.proxy() {
            return remote.call(site, What::EventQuery { event: id });
        }
        let op = Op::new(OpKind::EventQuery, "event query", site).race(Race::EventDone(id));
        self.device.core().query(&op, |exec| exec.query_event(id))
    }

    /// Milliseconds of GPU time from this event to `end`. **Blocks** until
    /// both have completed. Both must have been recorded.
    #[track_caller]
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        let site = CallSite::caller();
        if !self.device.same(&end.device) {
            return Err(GpuError::ForeignHandle {
                op: "elapsed_ms",
                site,
            });
        }
        if !self.is_recorded() || !end.is_recorded() {
            return Err(GpuError::Event {
                op: "elapsed_ms",
                detail: "both events must be recorded on a stream first".into(),
                site,
            });
        }
        let (a, b) = (self.id, end.id);
        if let Some(remote) = self.device.proxy() {
            return remote.call(site, What::ElapsedMs { start: a, end: b });
        }
        let op = Op::new(OpKind::EventElapsed, "elapsed time", site)
            .blocking(BlockReason::ElapsedTime)
            .race(Race::EventDone(a))
            .race(Race::EventDone(b));
        self.device.core().call(&op, |exec| exec.elapsed_ms(a, b))
    }
}
