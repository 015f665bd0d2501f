//! The live device allocations, against which every view is checked.

use crate::error::{GpuError, Result};
use crate::trace::CallSite;
use std::collections::BTreeMap;

/// The kind of a live device allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AllocKind {
    Buffer,
    Segment,
}

/// The live device allocations of one device: their first byte, length and kind.
#[derive(Default)]
pub(crate) struct Allocations(BTreeMap<u64, (u64, AllocKind)>);

impl Allocations {
    /// Registers a live device allocation.
    pub(crate) fn add(&mut self, addr: u64, bytes: u64, kind: AllocKind) {
        self.0.insert(addr, (bytes, kind));
    }

    /// Forgets a device allocation.
    pub(crate) fn remove(&mut self, addr: u64) {
        self.0.remove(&addr);
    }

    /// Checks that `[addr, addr + bytes)` lies inside one live allocation.
    pub(crate) fn check(
        &self,
        op: &'static str,
        addr: u64,
        bytes: u64,
        site: CallSite,
    ) -> Result<()> {
        let inside = self
            .0
            .range(..=addr)
            .next_back()
            .is_some_and(|(&base, &(len, _))| {
                addr.checked_add(bytes).is_some_and(|end| end <= base + len)
            });
        if inside {
            Ok(())
        } else {
            Err(GpuError::InvalidView {
                op,
                addr,
                bytes,
                site,
            })
        }
    }
}
