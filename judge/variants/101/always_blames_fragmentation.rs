//! mistake: the out-of-memory message blames fragmentation even when nothing is reserved but unallocated
//! fails: fragmentation_oom_explains_reserved_but_unallocated
//! says: does not blame fragmentation
//! replaces: src/error.rs
//!
//! Why a `malloc` or a `free` failed, and the message that explains it.

use std::fmt;

/// What went wrong.
#[derive(Debug, PartialEq, Eq)]
pub enum AllocError {
    /// No cached block fit, and the driver refused a new segment even after
    /// the allocator waited for pending frees and returned every wholly free
    /// segment. The figures are taken at that moment.
    OutOfMemory {
        /// The request, rounded up to a multiple of 512 bytes.
        requested: usize,
        /// Bytes in allocated blocks.
        allocated: usize,
        /// Bytes in segments held from the driver.
        reserved: usize,
    },
    /// `free` got a block this allocator does not hold as allocated: a block
    /// of another allocator. Nothing changed.
    NotAllocated {
        /// The block's address.
        addr: u64,
    },
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::OutOfMemory {
                requested,
                allocated,
                reserved,
            } => out_of_memory(f, requested, allocated, reserved),
            Self::NotAllocated { addr } => write!(
                f,
                "the block at {addr:#x} is not allocated by this allocator; nothing was freed"
            ),
        }
    }
}

impl std::error::Error for AllocError {}

/// The out-of-memory message: the figures, then the likely cause.
fn out_of_memory(
    f: &mut fmt::Formatter<'_>,
    requested: usize,
    allocated: usize,
    reserved: usize,
) -> fmt::Result {
    write!(
        f,
        "out of device memory: tried to allocate {} with {} reserved and {} allocated",
        Bytes(requested),
        Bytes(reserved),
        Bytes(allocated)
    )?;
    let idle = reserved.saturating_sub(allocated);
    // The mistake: fragmentation is blamed whatever the figures.
    if idle >= requested || idle < requested {
        write!(
            f,
            "; {} is reserved but unallocated, yet no cached block can hold the request: \
             the free space is fragmented into blocks that are each too small or cached \
             for other streams, and blocks never merge across segments. \
             Every wholly free segment was already returned; allocate long-lived buffers \
             once, up front, to avoid this pattern",
            Bytes(idle)
        )
    } else {
        f.write_str("; the device has no room left for another segment")
    }
}

/// A byte count written for people: `512 B`, `4 KiB`, `12 MiB`, `1.50 MiB`.
struct Bytes(usize);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const KIB: usize = 1 << 10;
        const MIB: usize = 1 << 20;
        let n = self.0;
        let (unit, name) = match n {
            n if n >= MIB => (MIB, "MiB"),
            n if n >= KIB => (KIB, "KiB"),
            _ => return write!(f, "{n} B"),
        };
        if n.is_multiple_of(unit) {
            write!(f, "{} {name}", n / unit)
        } else {
            write!(f, "{:.2} {name}", n as f64 / unit as f64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_naturally() {
        let text = |n| Bytes(n).to_string();
        assert_eq!(text(0), "0 B");
        assert_eq!(text(512), "512 B");
        assert_eq!(text(4096), "4 KiB");
        assert_eq!(text(12 << 20), "12 MiB");
        assert_eq!(text(3 << 19), "1.50 MiB");
    }

    #[test]
    fn fragmentation_is_named_only_when_it_is_the_cause() {
        let fragmented = AllocError::OutOfMemory {
            requested: 12 << 20,
            allocated: 16 << 20,
            reserved: 40 << 20,
        };
        let text = fragmented.to_string();
        assert!(text.contains("tried to allocate 12 MiB"), "{text}");
        assert!(
            text.contains("24 MiB is reserved but unallocated"),
            "{text}"
        );
        let full = AllocError::OutOfMemory {
            requested: 20 << 20,
            allocated: 30 << 20,
            reserved: 30 << 20,
        };
        assert!(!full.to_string().contains("reserved but unallocated"));
    }
}
