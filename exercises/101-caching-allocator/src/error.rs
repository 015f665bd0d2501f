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
        // TODO: a message a person can act on (the statement's "Out of
        // memory" says what it must say).
        let _ = f;
        todo!("explain {self:?}")
    }
}

impl std::error::Error for AllocError {}
