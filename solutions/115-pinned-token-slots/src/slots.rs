//! Two pinned slots for the tokens, each with the event recorded after the
//! copy into it.
//!
//! Step s's tokens go into slot s % 2. The copy into pinned memory returns
//! at once, so the CPU waits for the slot's event before it reads, and
//! only for that one: the other slot's copy, of the step after, is still
//! queued behind the step the GPU is running.

use gpu::{DeviceBuffer, Event, PinnedBuffer, Result, Stream};

// ANCHOR: slots
/// Two pinned slots and their events: step s's tokens land in slot s % 2.
pub struct TokenSlots<'a> {
    stream: &'a Stream,
    /// Allocated once: allocating (and freeing) pinned memory synchronizes.
    pinned: [PinnedBuffer<i32>; 2],
    /// Recorded after the copy into the slot of the same index.
    copied: [Event; 2],
    /// Steps whose tokens were queued, and read.
    queued: usize,
    read: usize,
}

impl<'a> TokenSlots<'a> {
    /// Two slots of `n` tokens and their events (setup: may block).
    pub fn new(stream: &'a Stream, n: usize) -> Result<Self> {
        let device = stream.device();
        Ok(Self {
            stream,
            pinned: [device.alloc_pinned(n)?, device.alloc_pinned(n)?],
            copied: [device.new_event()?, device.new_event()?],
            queued: 0,
            read: 0,
        })
    }

    /// Queues the copy of the next step's `tokens` into its slot, and the
    /// event after it; returns at once.
    pub fn queue(&mut self, tokens: &DeviceBuffer<i32>) -> Result<()> {
        assert!(
            self.queued - self.read < 2,
            "`queue`: both slots hold tokens not read yet; call `read` first"
        );
        let slot = self.queued % 2;
        self.stream.copy_to_pinned(tokens, &self.pinned[slot])?;
        self.copied[slot].record(self.stream)?;
        self.queued += 1;
        Ok(())
    }

    /// Waits for the oldest slot not read yet (its event only), and reads it.
    pub fn read(&mut self) -> Result<Vec<i32>> {
        assert!(
            self.read < self.queued,
            "`read`: no tokens are queued; call `queue` first"
        );
        let slot = self.read % 2;
        self.copied[slot].synchronize()?;
        self.read += 1;
        Ok(self.pinned[slot].to_vec())
    }
}
// ANCHOR_END: slots
