//! The virtual GPU's memory: device allocations and pinned host buffers, as bytes.

use crate::exec::HostId;
use crate::kernels::cpu::KernelMemory;
use std::collections::BTreeMap;

/// Device allocations by base address, and pinned host buffers by id.
#[derive(Default)]
pub(super) struct Memory {
    device: BTreeMap<u64, Vec<u8>>,
    pinned: BTreeMap<u32, Vec<u8>>,
    next_pinned: u32,
}

impl Memory {
    /// Adds a zeroed device allocation at `addr`.
    pub(super) fn add_device(&mut self, addr: u64, bytes: usize) {
        self.device.insert(addr, vec![0; bytes]);
    }

    /// Removes the device allocation at `addr`.
    pub(super) fn remove_device(&mut self, addr: u64) {
        self.device.remove(&addr);
    }

    /// Adds a zeroed pinned buffer; `None` when this process cannot hold
    /// its bytes (the caller's out-of-memory error, never an abort).
    pub(super) fn add_pinned(&mut self, bytes: usize) -> Option<HostId> {
        let data = zeroed(bytes)?;
        let id = self.next_pinned;
        self.next_pinned += 1;
        self.pinned.insert(id, data);
        Some(HostId(id))
    }

    /// Adds a zeroed device allocation at `addr`, as [`Memory::add_device`]
    /// does; `None` when this process cannot hold its bytes.
    pub(super) fn try_add_device(&mut self, addr: u64, bytes: usize) -> Option<()> {
        self.device.insert(addr, zeroed(bytes)?);
        Some(())
    }

    /// Removes a pinned buffer.
    pub(super) fn remove_pinned(&mut self, host: HostId) {
        self.pinned.remove(&host.0);
    }

    /// The allocation holding `[addr, addr + bytes)` and the offset of `addr` in it.
    ///
    /// # Panics
    /// When no allocation holds the range: the front end checks every view
    /// before it reaches the backend, so this is a bug of the crate.
    fn locate(&self, addr: u64, bytes: usize) -> (u64, usize) {
        let (&base, data) = self
            .device
            .range(..=addr)
            .next_back()
            .unwrap_or_else(|| panic!("virtual gpu: no allocation holds {addr:#x}"));
        let offset = (addr - base) as usize;
        assert!(
            offset + bytes <= data.len(),
            "virtual gpu: [{addr:#x}, +{bytes}) overruns its allocation"
        );
        (base, offset)
    }

    /// Reads device bytes.
    pub(super) fn read_device(&self, addr: u64, bytes: usize) -> Vec<u8> {
        self.device_slice(addr, bytes).to_vec()
    }

    /// The device bytes `[addr, addr + bytes)`, in place.
    fn device_slice(&self, addr: u64, bytes: usize) -> &[u8] {
        if bytes == 0 {
            return &[];
        }
        let (base, offset) = self.locate(addr, bytes);
        &self.device[&base][offset..offset + bytes]
    }

    /// The device bytes `[addr, addr + bytes)`, in place, to write.
    fn device_slice_mut(&mut self, addr: u64, bytes: usize) -> &mut [u8] {
        if bytes == 0 {
            return &mut [];
        }
        let (base, offset) = self.locate(addr, bytes);
        let block = self.device.get_mut(&base).expect("located");
        &mut block[offset..offset + bytes]
    }

    /// Zeroes device bytes, in place.
    pub(super) fn zero_device(&mut self, addr: u64, bytes: usize) {
        self.device_slice_mut(addr, bytes).fill(0);
    }

    /// Copies pinned bytes to the device, without an intermediate buffer.
    pub(super) fn pinned_to_device(&mut self, host: HostId, offset: usize, bytes: usize, dst: u64) {
        let src = &self.pinned[&host.0][offset..offset + bytes];
        if bytes == 0 {
            return;
        }
        let (base, at) = self.locate(dst, bytes);
        let block = self.device.get_mut(&base).expect("located");
        block[at..at + bytes].copy_from_slice(src);
    }

    /// Copies device bytes to pinned memory, without an intermediate buffer.
    pub(super) fn device_to_pinned(&mut self, src: u64, host: HostId, offset: usize, bytes: usize) {
        let data = if bytes == 0 {
            &[][..]
        } else {
            let (base, at) = self.locate(src, bytes);
            &self.device[&base][at..at + bytes]
        };
        let buf = self.pinned.get_mut(&host.0).expect("a live pinned buffer");
        buf[offset..offset + bytes].copy_from_slice(data);
    }

    /// Copies `bytes` device bytes from `src` to `dst` (which may overlap),
    /// without an intermediate buffer.
    pub(super) fn device_to_device(&mut self, src: u64, dst: u64, bytes: usize) {
        if bytes == 0 {
            return;
        }
        let (src_base, from) = self.locate(src, bytes);
        let (dst_base, to) = self.locate(dst, bytes);
        if src_base == dst_base {
            let block = self.device.get_mut(&src_base).expect("located");
            block.copy_within(from..from + bytes, to);
            return;
        }
        // Two allocations: take the source out while the other is borrowed.
        let source = self.device.remove(&src_base).expect("located");
        let block = self.device.get_mut(&dst_base).expect("located");
        block[to..to + bytes].copy_from_slice(&source[from..from + bytes]);
        self.device.insert(src_base, source);
    }

    /// Writes device bytes.
    pub(super) fn write_device(&mut self, addr: u64, data: &[u8]) {
        self.device_slice_mut(addr, data.len())
            .copy_from_slice(data);
    }

    /// Reads pinned bytes.
    pub(super) fn read_pinned(&self, host: HostId, offset: usize, bytes: usize) -> Vec<u8> {
        self.pinned[&host.0][offset..offset + bytes].to_vec()
    }

    /// Writes pinned bytes.
    pub(super) fn write_pinned(&mut self, host: HostId, offset: usize, data: &[u8]) {
        let buf = self.pinned.get_mut(&host.0).expect("a live pinned buffer");
        buf[offset..offset + data.len()].copy_from_slice(data);
    }
}

impl KernelMemory for Memory {
    fn read(&self, addr: u64, bytes: usize) -> Vec<u8> {
        self.read_device(addr, bytes)
    }

    fn with_bytes(&self, addr: u64, bytes: usize, f: &mut dyn FnMut(&[u8])) {
        f(self.device_slice(addr, bytes));
    }

    fn write(&mut self, addr: u64, data: &[u8]) {
        self.write_device(addr, data);
    }
}

/// `bytes` zeroes, or `None` when the allocator cannot give them: the
/// sizes a learner's call asks for are its own, so asking for them must
/// fail like a driver's allocation, not abort the process that serves it.
fn zeroed(bytes: usize) -> Option<Vec<u8>> {
    if !heap_fits(bytes) {
        return None;
    }
    let mut data = Vec::new();
    data.try_reserve_exact(bytes).ok()?;
    data.resize(bytes, 0);
    Some(data)
}

/// Whether the process may hold `bytes` more: the judge's checker holds
/// its device memory for a submission within that submission's limit
/// ([`crate::remote::heap_fits`]); elsewhere, always.
#[cfg(not(target_arch = "wasm32"))]
pub(super) fn heap_fits(bytes: usize) -> bool {
    crate::remote::heap_fits(bytes as u64)
}

/// No judge's limit in a browser.
#[cfg(target_arch = "wasm32")]
pub(super) fn heap_fits(_: usize) -> bool {
    true
}
