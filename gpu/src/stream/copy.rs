//! Copies between host and device, and within the device.

use super::Stream;
use crate::core::{NodeAccess, Op, Race};
use crate::elem::{AsView, Elem, View};
use crate::error::{GpuError, Result};
use crate::exec::Copy;
use crate::memory::PinnedBuffer;
use crate::race::Range;
use crate::remote::What;
use crate::trace::{BlockReason, CallSite, OpKind};

fn device_range<T: Elem>(view: View<T>, write: bool) -> Range {
    Range {
        addr: view.addr(),
        bytes: view.bytes() as u64,
        write,
    }
}

/// What a copy touches, for the race checker (and the view checks).
fn access<const N: usize>(ranges: [Range; N], what: &'static str) -> Race {
    Race::Access(NodeAccess::new(ranges, what))
}

fn same_len(op: &'static str, from: usize, to: usize, site: CallSite) -> Result<()> {
    if from == to {
        Ok(())
    } else {
        Err(GpuError::Length {
            op,
            detail: format!("the source has {from} elements and the destination {to}"),
            site,
        })
    }
}

impl Stream {
    /// Copies pageable host memory (`src`) to the device.
    ///
    /// **Can block.** The driver stages pageable memory through a small
    /// pinned buffer: a copy that fits it returns once staged, a larger one
    /// waits until the stream reaches it. Either way `src` may be reused as
    /// soon as the call returns. Use a [`PinnedBuffer`] to copy asynchronously.
    #[track_caller]
    pub fn copy_from_host<T: Elem>(&self, src: &[T], dst: impl AsView<T>) -> Result<()> {
        let site = CallSite::caller();
        let dst = dst.view();
        same_len("copy_from_host", src.len(), dst.len(), site)?;
        if let Some(remote) = self.device.proxy() {
            let src = bytemuck::cast_slice(src).to_vec();
            let (stream, dst) = (self.id, dst.raw());
            return remote.call(site, What::CopyFromHost { stream, src, dst });
        }
        let op = Op::new(OpKind::CopyHostToDevice, "copy pageable to device", site)
            .blocking(BlockReason::PageableHostToDevice)
            .race(access(
                [device_range(dst, true)],
                "a copy from pageable memory",
            ));
        let src = bytemuck::cast_slice(src);
        self.queue_copy(
            op,
            Copy::PageableToDevice {
                src,
                dst: dst.addr(),
            },
        )
    }

    /// Copies device memory into pageable host memory (`dst`).
    ///
    /// **Blocks** until the stream has run everything queued before the copy
    /// and the data has arrived: this is the `.tolist()` / `.item()` sync.
    #[track_caller]
    pub fn copy_to_host<T: Elem>(&self, src: impl AsView<T>, dst: &mut [T]) -> Result<()> {
        let site = CallSite::caller();
        let src = src.view();
        same_len("copy_to_host", src.len(), dst.len(), site)?;
        if let Some(remote) = self.device.proxy() {
            let (stream, src) = (self.id, src.raw());
            let bytes: Vec<u8> = remote.call(site, What::CopyToHost { stream, src })?;
            let into: &mut [u8] = bytemuck::cast_slice_mut(dst);
            if bytes.len() != into.len() {
                return Err(GpuError::Length {
                    op: "copy_to_host",
                    detail: format!("the judge sent {} bytes for {}", bytes.len(), into.len()),
                    site,
                });
            }
            into.copy_from_slice(&bytes);
            return Ok(());
        }
        let op = Op::new(OpKind::CopyDeviceToHost, "copy device to pageable", site)
            .blocking(BlockReason::PageableDeviceToHost)
            .race(access(
                [device_range(src, false)],
                "a copy to pageable memory",
            ))
            .race(Race::StreamDone);
        let dst = bytemuck::cast_slice_mut(dst);
        self.queue_copy(
            op,
            Copy::DeviceToPageable {
                src: src.addr(),
                dst,
            },
        )
    }

    /// Copies device memory into a new `Vec`. **Blocks**, like [`Stream::copy_to_host`].
    #[track_caller]
    pub fn to_vec<T: Elem>(&self, src: impl AsView<T>) -> Result<Vec<T>> {
        let src = src.view();
        let mut out = vec![T::default(); src.len()];
        self.copy_to_host(src, &mut out)?;
        Ok(out)
    }

    /// Copies the first `dst.len()` elements of pinned `src` to the device.
    /// Asynchronous: `src` is read when the copy runs, so don't overwrite it
    /// until the copy is known to be done.
    #[track_caller]
    pub fn copy_from_pinned<T: Elem>(
        &self,
        src: &PinnedBuffer<T>,
        dst: impl AsView<T>,
    ) -> Result<()> {
        let site = CallSite::caller();
        let dst = dst.view();
        self.check_pinned(src, dst.len(), "copy_from_pinned", site)?;
        if let Some(remote) = self.device.proxy() {
            let (stream, src, dst) = (self.id, src.host(), dst.raw());
            return remote.call(site, What::CopyFromPinned { stream, src, dst });
        }
        let ranges = [src.range(dst.len(), false), device_range(dst, true)];
        let op = Op::new(OpKind::CopyHostToDevice, "copy pinned to device", site)
            .race(access(ranges, "a copy from pinned memory"));
        let copy = Copy::PinnedToDevice {
            src: src.host(),
            offset: 0,
            bytes: dst.bytes(),
            dst: dst.addr(),
        };
        self.queue_copy(op, copy)
    }

    /// Copies device memory into the first `src.len()` elements of pinned
    /// `dst`. Asynchronous: the data is there once the copy is known to be
    /// done (an event recorded after it has completed).
    #[track_caller]
    pub fn copy_to_pinned<T: Elem>(
        &self,
        src: impl AsView<T>,
        dst: &PinnedBuffer<T>,
    ) -> Result<()> {
        let site = CallSite::caller();
        let src = src.view();
        self.check_pinned(dst, src.len(), "copy_to_pinned", site)?;
        if let Some(remote) = self.device.proxy() {
            let (stream, src, dst) = (self.id, src.raw(), dst.host());
            return remote.call(site, What::CopyToPinned { stream, src, dst });
        }
        let ranges = [device_range(src, false), dst.range(src.len(), true)];
        let op = Op::new(OpKind::CopyDeviceToHost, "copy device to pinned", site)
            .race(access(ranges, "a copy into pinned memory"));
        let copy = Copy::DeviceToPinned {
            src: src.addr(),
            dst: dst.host(),
            offset: 0,
            bytes: src.bytes(),
        };
        self.queue_copy(op, copy)
    }

    /// Copies device memory to device memory, in stream order.
    #[track_caller]
    pub fn copy<T: Elem>(&self, src: impl AsView<T>, dst: impl AsView<T>) -> Result<()> {
        let site = CallSite::caller();
        let (src, dst) = (src.view(), dst.view());
        same_len("copy", src.len(), dst.len(), site)?;
        if let Some(remote) = self.device.proxy() {
            let (stream, src, dst) = (self.id, src.raw(), dst.raw());
            return remote.call(site, What::Copy { stream, src, dst });
        }
        let ranges = [device_range(src, false), device_range(dst, true)];
        let op = Op::new(OpKind::CopyDeviceToDevice, "copy device to device", site)
            .race(access(ranges, "a device-to-device copy"));
        let copy = Copy::DeviceToDevice {
            src: src.addr(),
            dst: dst.addr(),
            bytes: src.bytes(),
        };
        self.queue_copy(op, copy)
    }

    /// Queues `copy` on this stream as the work of `op`, traced with the
    /// bytes the copy moves: the one way every copy reaches the choke point.
    fn queue_copy(&self, op: Op, copy: Copy<'_>) -> Result<()> {
        let (stream, bytes) = (self.id, copy.bytes() as u64);
        self.enqueue(&op.on(stream).bytes(bytes), |exec| exec.copy(stream, copy))
    }

    fn check_pinned<T: Elem>(
        &self,
        pinned: &PinnedBuffer<T>,
        len: usize,
        op: &'static str,
        site: CallSite,
    ) -> Result<()> {
        if !self.device.same(pinned.device()) {
            return Err(GpuError::ForeignHandle { op, site });
        }
        if len > pinned.len() {
            return Err(GpuError::Length {
                op,
                detail: format!(
                    "{len} elements do not fit the pinned buffer of {}",
                    pinned.len()
                ),
                site,
            });
        }
        Ok(())
    }
}
