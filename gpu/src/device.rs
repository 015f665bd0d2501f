//! Opening a device, and the calls that belong to the whole device.

use crate::calibration::Calibration;
use crate::core::{AllocKind, Checks, Core, Op, Race, SyncDebug};
use crate::elem::{Elem, View};
use crate::error::{GpuError, Result};
use crate::memory::{PinnedBuffer, Segment};
use crate::race::RaceReport;
use crate::remote::{Proxy as Remote, What};
use crate::stream::Stream;
use crate::trace::{BackendKind, BlockReason, CallSite, OpKind, Trace};
use crate::virt::VirtualGpu;
use std::cell::{RefCell, RefMut};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

mod backend;

pub use backend::{Backend, ResolvedBackend, cuda_available};

// The unit tests at the end check the first step of the backend rule under
// the names it has always had here.
#[cfg(test)]
use backend::resolve;
#[cfg(test)]
type Resolved = ResolvedBackend;

/// How to open a device.
#[derive(Clone, Debug)]
pub struct DeviceOptions {
    /// Which backend.
    pub backend: Backend,
    /// What to do with calls that can block the CPU.
    pub sync_debug: SyncDebug,
    /// On the CUDA backend, time every GPU operation with events so the trace
    /// shows GPU spans (costs a few microseconds of CPU per operation).
    pub gpu_timing: bool,
    /// The virtual GPU's cost table; `None` reads `GPU_CALIBRATION` or uses the defaults.
    pub calibration: Option<Calibration>,
    /// Do not print which backend `Auto` chose.
    pub quiet: bool,
    /// Keep a trace entry for every call ([`Device::trace`]); on by default.
    /// Off, the trace stays empty, and so does every trace drawn from it
    /// (GPU timing is then off too, as nothing would show its spans). The
    /// capture rules, the views' checks and sync debug mode do not depend on it.
    pub trace: bool,
    /// Run the race checker ([`Device::races`]); on by default. Off, no
    /// race is ever reported; a graph still remembers what its nodes touch,
    /// so that each replay's views are checked against the live allocations.
    pub race_check: bool,
}

impl Default for DeviceOptions {
    /// `Auto`, sync debug mode off, no GPU timing, the calibration from
    /// `GPU_CALIBRATION` or the defaults, the backend announced, tracing and
    /// race checking on.
    fn default() -> Self {
        Self {
            backend: Backend::default(),
            sync_debug: SyncDebug::default(),
            gpu_timing: false,
            calibration: None,
            quiet: false,
            trace: true,
            race_check: true,
        }
    }
}

/// A GPU: real or virtual. Cheap to clone (all clones are the same device).
///
/// A device is used from one thread: it is neither `Send` nor `Sync`.
#[derive(Clone)]
pub struct Device {
    inner: Inner,
}

/// Where a device lives: in this process, or in the judge's
/// ([`crate::remote`]: every call goes over a link).
#[derive(Clone)]
enum Inner {
    Local(Rc<RefCell<Core>>),
    #[cfg_attr(
        target_arch = "wasm32",
        expect(dead_code, reason = "wasm32 has no other process to hold a device")
    )]
    Remote(Rc<Remote>),
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.inner {
            Inner::Local(_) => f.write_str("Device(in this process)"),
            Inner::Remote(_) => f.write_str("Device(in the judge's process)"),
        }
    }
}

static ANNOUNCED: AtomicBool = AtomicBool::new(false);

impl Device {
    /// Opens a device on `backend` with default options.
    pub fn open(backend: Backend) -> Result<Self> {
        Self::with_options(DeviceOptions {
            backend,
            ..DeviceOptions::default()
        })
    }

    /// Opens a device with `options`.
    pub fn with_options(options: DeviceOptions) -> Result<Self> {
        let calibration = match options.calibration.clone() {
            Some(c) => c,
            None => Calibration::from_env()?,
        };
        let exec: Box<dyn crate::exec::Exec> = match options.backend.resolve()? {
            ResolvedBackend::Cuda => {
                Box::new(crate::cuda::open(options.gpu_timing && options.trace)?)
            }
            ResolvedBackend::Virtual => Box::new(VirtualGpu::new(calibration.clone())),
            ResolvedBackend::VirtualBecause(reason) => {
                if !options.quiet && !ANNOUNCED.swap(true, Ordering::Relaxed) {
                    eprintln!("gpu: no CUDA device ({reason}); using the virtual GPU");
                }
                Box::new(VirtualGpu::new(calibration.clone()))
            }
        };
        let checks = Checks {
            trace: options.trace,
            races: options.race_check,
        };
        let core = Core::new(exec, calibration, options.sync_debug, checks);
        if options.backend == Backend::Auto
            && core.info.backend == BackendKind::Cuda
            && !options.quiet
            && !ANNOUNCED.swap(true, Ordering::Relaxed)
        {
            eprintln!("gpu: using the CUDA backend ({})", core.info.name);
        }
        Ok(Self {
            inner: Inner::Local(Rc::new(RefCell::new(core))),
        })
    }

    /// A proxy of a device of the judge's ([`crate::remote::agent`]).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn remote(proxy: Rc<Remote>) -> Self {
        Self {
            inner: Inner::Remote(proxy),
        }
    }

    /// The device's front end. Every public call takes its remote path
    /// first, so a proxy never gets here.
    #[inline]
    pub(crate) fn core(&self) -> RefMut<'_, Core> {
        match &self.inner {
            Inner::Local(core) => core.borrow_mut(),
            Inner::Remote(_) => unreachable!("a call of a remote device took the local path"),
        }
    }

    /// The front end unless a call is using it (a drop during a panic in a
    /// call), or `None` for a proxy.
    pub(crate) fn try_core(&self) -> Option<RefMut<'_, Core>> {
        match &self.inner {
            Inner::Local(core) => core.try_borrow_mut().ok(),
            Inner::Remote(_) => None,
        }
    }

    /// The proxy, when the device lives in the judge's process.
    #[inline]
    pub(crate) fn proxy(&self) -> Option<&Remote> {
        match &self.inner {
            Inner::Local(_) => None,
            Inner::Remote(proxy) => Some(proxy),
        }
    }

    pub(crate) fn same(&self, other: &Device) -> bool {
        match (&self.inner, &other.inner) {
            (Inner::Local(a), Inner::Local(b)) => Rc::ptr_eq(a, b),
            (Inner::Remote(a), Inner::Remote(b)) => a.same(b),
            _ => false,
        }
    }

    /// The backend in use.
    pub fn backend(&self) -> BackendKind {
        match self.proxy() {
            Some(remote) => remote.description().backend,
            None => self.core().info.backend,
        }
    }

    /// The device's name ("NVIDIA H200", "virtual GPU").
    pub fn name(&self) -> String {
        match self.proxy() {
            Some(remote) => remote.description().name.clone(),
            None => self.core().info.name.clone(),
        }
    }

    /// Compute capability (major, minor); the virtual GPU reports 9.0.
    pub fn compute_capability(&self) -> (u32, u32) {
        match self.proxy() {
            Some(remote) => remote.description().compute_capability,
            None => self.core().info.compute_capability,
        }
    }

    /// Device memory in bytes.
    pub fn total_memory(&self) -> u64 {
        match self.proxy() {
            Some(remote) => remote.description().total_memory,
            None => self.core().info.total_memory,
        }
    }

    /// The cost table the virtual GPU uses (also kept on the CUDA backend, for reference).
    pub fn calibration(&self) -> Calibration {
        match self.proxy() {
            Some(remote) => remote.description().calibration.clone(),
            None => self.core().calibration.clone(),
        }
    }

    /// The CPU clock: time since the device opened (virtual time on the virtual GPU).
    #[track_caller]
    pub fn now(&self) -> Duration {
        if let Some(remote) = self.proxy() {
            let ns = remote
                .call(CallSite::caller(), What::Now)
                .unwrap_or_default();
            return Duration::from_nanos(ns);
        }
        Duration::from_nanos(self.core().exec.now_ns())
    }

    /// A new stream. Streams are non-blocking: nothing orders them with each
    /// other unless an event says so.
    #[track_caller]
    pub fn new_stream(&self) -> Result<Stream> {
        let site = CallSite::caller();
        if let Some(remote) = self.proxy() {
            let id = remote.call(site, What::NewStream)?;
            return Ok(Stream::new(self.clone(), id));
        }
        let mut core = self.core();
        let id = core.call(&Op::new(OpKind::CreateStream, "new_stream", site), |exec| {
            exec.create_stream()
        })?;
        core.streams.push(id);
        drop(core);
        Ok(Stream::new(self.clone(), id))
    }

    /// A new event with timing enabled.
    #[track_caller]
    pub fn new_event(&self) -> Result<crate::event::Event> {
        let site = CallSite::caller();
        if let Some(remote) = self.proxy() {
            let id = remote.call(site, What::NewEvent)?;
            return Ok(crate::event::Event::new(self.clone(), id));
        }
        let id = self
            .core()
            .call(&Op::new(OpKind::CreateEvent, "new_event", site), |exec| {
                exec.create_event()
            })?;
        Ok(crate::event::Event::new(self.clone(), id))
    }

    /// Blocks the CPU until every stream is idle (`cudaDeviceSynchronize`).
    #[track_caller]
    pub fn synchronize(&self) -> Result<()> {
        let site = CallSite::caller();
        if let Some(remote) = self.proxy() {
            return remote.call(site, What::Synchronize);
        }
        let op = Op::new(OpKind::DeviceSynchronize, "device synchronize", site)
            .blocking(BlockReason::DeviceSynchronize)
            .race(Race::DeviceDone);
        self.core().call(&op, |exec| exec.sync_device())
    }

    /// Busy CPU work for `duration`: scheduling, bookkeeping, tokenizing.
    /// The virtual GPU advances its CPU clock; the CUDA backend really spins.
    #[track_caller]
    pub fn host_work(&self, duration: Duration) {
        let site = CallSite::caller();
        let ns = duration.as_nanos() as u64;
        if let Some(remote) = self.proxy() {
            return remote.forget(site, What::HostWork { ns });
        }
        let op = Op::new(OpKind::HostWork, "host work", site);
        self.core()
            .call(&op, |exec| {
                exec.host_work(ns);
                Ok(())
            })
            .expect("host work cannot fail");
    }

    /// A raw segment of `bytes` device bytes (`cuMemAlloc`): slow (hundreds of
    /// microseconds) but it does not wait for the GPU. Not zeroed.
    #[track_caller]
    pub fn alloc_segment(&self, bytes: usize) -> Result<Segment> {
        let site = CallSite::caller();
        if let Some(remote) = self.proxy() {
            let addr = remote.call(site, What::AllocSegment { bytes })?;
            return Ok(Segment::new(self.clone(), addr, bytes, site));
        }
        let mut core = self.core();
        let op = Op::new(OpKind::AllocSegment, "cuMemAlloc", site).bytes(bytes as u64);
        let capacity = core.info.total_memory;
        let addr = core
            .call(&op, |exec| exec.malloc_segment(bytes))
            .map_err(|e| e.in_allocation("alloc_segment", bytes as u64, capacity, site))?;
        core.allocations.add(addr, bytes as u64, AllocKind::Segment);
        drop(core);
        Ok(Segment::new(self.clone(), addr, bytes, site))
    }

    /// Frees a raw segment (`cuMemFree`): blocks the CPU until the whole device
    /// is idle, because the driver cannot know who still uses the memory.
    /// When the call is refused (sync debug mode `Error`, a capture in
    /// progress), the segment is freed as it is dropped: a drop cannot be
    /// refused, so the memory is never leaked.
    #[track_caller]
    pub fn free_segment(&self, segment: Segment) -> Result<()> {
        let site = CallSite::caller();
        segment.free(self, site)
    }

    /// A pinned (page-locked, not write-combined) host buffer of `len`
    /// zeroed elements: copies to and from it are asynchronous.
    #[track_caller]
    pub fn alloc_pinned<T: Elem>(&self, len: usize) -> Result<PinnedBuffer<T>> {
        let site = CallSite::caller();
        let bytes = crate::elem::byte_len::<T>(len, "alloc_pinned", site)?;
        if let Some(remote) = self.proxy() {
            let host = remote.call(site, What::AllocPinned { elem: T::KIND, len })?;
            return Ok(PinnedBuffer::new(self.clone(), host, len));
        }
        let op = Op::new(OpKind::AllocPinned, "cuMemHostAlloc", site).bytes(bytes as u64);
        let host = self.core().call(&op, |exec| exec.alloc_pinned(bytes))?;
        Ok(PinnedBuffer::new(self.clone(), host, len))
    }

    /// A view of `len` elements at device address `addr`, checked against the
    /// live allocations (for allocators that hand out addresses inside segments).
    #[track_caller]
    pub fn view<T: Elem>(&self, addr: u64, len: usize) -> Result<View<T>> {
        let site = CallSite::caller();
        if !addr.is_multiple_of(T::KIND.size() as u64) {
            return Err(GpuError::Length {
                op: "view",
                detail: format!(
                    "address {addr:#x} is not aligned to {} bytes",
                    T::KIND.size()
                ),
                site,
            });
        }
        let bytes = crate::elem::byte_len::<T>(len, "view", site)? as u64;
        if let Some(remote) = self.proxy() {
            let elem = T::KIND;
            remote.call::<()>(site, What::CheckView { elem, addr, len })?;
            return Ok(View::new(addr, len));
        }
        self.core().allocations.check("view", addr, bytes, site)?;
        Ok(View::new(addr, len))
    }

    /// Sets sync debug mode.
    pub fn set_sync_debug(&self, mode: SyncDebug) {
        if self.proxy().is_some() {
            crate::remote::judges_only("Device::set_sync_debug");
        }
        self.core().sync_debug = mode;
    }

    /// The trace so far. On the CUDA backend with GPU timing on, this waits
    /// for the timed work to finish so its GPU times are known.
    pub fn trace(&self) -> Trace {
        if self.proxy().is_some() {
            crate::remote::judges_only("Device::trace");
        }
        self.core().trace()
    }

    /// The sequence number the next call will get (mark the start of a phase).
    pub fn trace_mark(&self) -> u64 {
        if self.proxy().is_some() {
            crate::remote::judges_only("Device::trace_mark");
        }
        self.core().trace_len()
    }

    /// Forgets the trace so far.
    pub fn clear_trace(&self) {
        if self.proxy().is_some() {
            crate::remote::judges_only("Device::clear_trace");
        }
        self.core().clear_trace();
    }

    /// The races found so far.
    pub fn races(&self) -> Vec<RaceReport> {
        if self.proxy().is_some() {
            crate::remote::judges_only("Device::races");
        }
        self.core().races().to_vec()
    }

    /// Removes and returns the races found so far.
    pub fn take_races(&self) -> Vec<RaceReport> {
        if self.proxy().is_some() {
            crate::remote::judges_only("Device::take_races");
        }
        self.core().take_races()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_gpu() -> std::result::Result<(), String> {
        Err("no driver".into())
    }

    fn gpu() -> std::result::Result<(), String> {
        Ok(())
    }

    #[test]
    fn auto_follows_the_probe() {
        assert_eq!(resolve(Backend::Auto, None, gpu).unwrap(), Resolved::Cuda);
        assert_eq!(
            resolve(Backend::Auto, None, no_gpu).unwrap(),
            Resolved::VirtualBecause("no driver".into())
        );
    }

    #[test]
    fn the_environment_overrides_auto_only() {
        let env = |v: &str| Some(v.to_string());
        assert_eq!(
            resolve(Backend::Auto, env("virtual"), gpu).unwrap(),
            Resolved::Virtual
        );
        assert_eq!(
            resolve(Backend::Auto, env("CUDA"), no_gpu).unwrap(),
            Resolved::Cuda
        );
        assert_eq!(
            resolve(Backend::Auto, env(""), gpu).unwrap(),
            Resolved::Cuda
        );
        assert_eq!(
            resolve(Backend::Virtual, env("cuda"), gpu).unwrap(),
            Resolved::Virtual
        );
        let err = resolve(Backend::Auto, env("metal"), gpu)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "`GPU_BACKEND=metal` is not a backend; use `cuda`, `virtual` or `auto`"
        );
    }
}
