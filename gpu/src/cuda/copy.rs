//! Copies and memsets on a stream, with the raw driver calls.
//!
//! Pageable host memory is the caller's slice: the driver stages a host-to-
//! device copy before returning, and returns from a device-to-host copy only
//! once the bytes have arrived (this module also synchronizes the stream then,
//! so the slice is certainly no longer written when the call returns). Pinned
//! memory is a raw pointer into a [`Pinned`](super::pinned::Pinned)
//! allocation, read or written while the copy runs.

use super::{CudaExec, drv};
use crate::error::Result;
use crate::exec::{Copy, Span};
use crate::trace::StreamId;
use cudarc::driver::{result, sys};
use std::ffi::c_void;

impl CudaExec {
    /// Runs `copy` on `stream`, timed when timing is on. Skips a copy of zero
    /// bytes. A copy into pageable memory returns once the bytes are there.
    pub(super) fn run_copy(&mut self, stream: StreamId, copy: Copy<'_>) -> Result<Span> {
        if copy.bytes() == 0 {
            return Ok(Span::None);
        }
        self.bind()?;
        let into_pageable = matches!(copy, Copy::DeviceToPageable { .. });
        let started = self.timer_start(stream)?;
        let submitted = self.enqueue_copy(stream, copy);
        let queued = submitted.is_ok();
        let span = self.timer_finish(started, stream, submitted);
        if into_pageable && queued {
            // Even when timing failed: the caller's slice must not be
            // written once we return.
            self.stream(stream)
                .synchronize()
                .map_err(drv("cuStreamSynchronize"))?;
        }
        span
    }

    /// Zeroes `bytes` at `addr` on `stream` (`cuMemsetD8Async`), timed when
    /// timing is on. Skips zero bytes.
    pub(super) fn run_memset(&mut self, stream: StreamId, addr: u64, bytes: usize) -> Result<Span> {
        if bytes == 0 {
            return Ok(Span::None);
        }
        self.bind()?;
        let started = self.timer_start(stream)?;
        let cu = self.stream(stream).cu_stream();
        // SAFETY: `addr..addr + bytes` lies in a live device allocation
        // (checked by the front end); the memset runs in stream order.
        let submitted =
            unsafe { result::memset_d8_async(addr, 0, bytes, cu) }.map_err(drv("cuMemsetD8Async"));
        self.timer_finish(started, stream, submitted)
    }

    /// Queues one copy on `stream`. The context is bound.
    fn enqueue_copy(&self, stream: StreamId, copy: Copy<'_>) -> Result<()> {
        let cu = self.stream(stream).cu_stream();
        match copy {
            Copy::PageableToDevice { src, dst } => {
                // SAFETY: `dst` lies in a live allocation of at least
                // `src.len()` bytes (checked by the front end). From pageable
                // memory the driver copies `src` into its own staging buffers
                // before returning, so the borrow may end when we return.
                unsafe { result::memcpy_htod_async(dst, src, cu) }.map_err(drv("cuMemcpyHtoDAsync"))
            }
            Copy::DeviceToPageable { src, dst } => {
                // SAFETY: `src` lies in a live allocation of at least
                // `dst.len()` bytes (checked by the front end). Into pageable
                // memory the driver returns only once the bytes are in `dst`,
                // and `run_copy` synchronizes the stream before returning, so
                // `dst` is never written after its borrow ends.
                unsafe { result::memcpy_dtoh_async(dst, src, cu) }.map_err(drv("cuMemcpyDtoHAsync"))
            }
            Copy::PinnedToDevice {
                src,
                offset,
                bytes,
                dst,
            } => {
                let host = self.pinned(src).at(offset, bytes);
                // SAFETY: `host..host + bytes` lies in a live pinned
                // allocation (checked by `at`), which the front end frees only
                // after the copy; `dst` lies in a live device allocation.
                unsafe { sys::cuMemcpyHtoDAsync_v2(dst, host as *const c_void, bytes, cu) }
                    .result()
                    .map_err(drv("cuMemcpyHtoDAsync"))
            }
            Copy::DeviceToPinned {
                src,
                dst,
                offset,
                bytes,
            } => {
                let host = self.pinned(dst).at(offset, bytes);
                // SAFETY: as above. The device writes these bytes while the
                // copy runs; the CPU only touches them through raw pointers
                // (`Pinned::read`/`write`), never through a Rust reference.
                unsafe { sys::cuMemcpyDtoHAsync_v2(host.cast::<c_void>(), src, bytes, cu) }
                    .result()
                    .map_err(drv("cuMemcpyDtoHAsync"))
            }
            Copy::DeviceToDevice { src, dst, bytes } => {
                // SAFETY: both ranges lie in live device allocations (checked
                // by the front end); the copy runs in stream order.
                unsafe { result::memcpy_dtod_async(dst, src, bytes, cu) }
                    .map_err(drv("cuMemcpyDtoDAsync"))
            }
        }
    }
}
