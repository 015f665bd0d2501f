//! Where each step's tokens wait for the CPU: two pinned slots, each with
//! the event recorded after the copy into it (see `README.md`).
//!
//! As given, `queue` copies the tokens into a `Vec` at once: a copy into
//! pageable memory, which returns only when the GPU has run the step. So the
//! CPU waits for every step as soon as it is launched, and the GPU has
//! nothing queued while the CPU works on the tokens. Replace it with two
//! pinned slots: `queue` copies into one without waiting, and `read` waits
//! for that slot's event only.

use gpu::{DeviceBuffer, Result, Stream};
use std::collections::VecDeque;

/// Two pinned slots and their events: step s's tokens land in slot s % 2.
pub struct TokenSlots<'a> {
    stream: &'a Stream,
    // TODO: two `PinnedBuffer<i32>` and two `Event`s, allocated once in
    // `new`, and the counts of steps queued and read.
    waiting: VecDeque<Vec<i32>>,
}

impl<'a> TokenSlots<'a> {
    /// Two slots of `n` tokens and their events (setup: may block).
    pub fn new(stream: &'a Stream, n: usize) -> Result<Self> {
        let _ = n;
        Ok(Self {
            stream,
            waiting: VecDeque::new(),
        })
    }

    /// Queues the copy of the next step's `tokens` into its slot, and the
    /// event after it; returns at once.
    pub fn queue(&mut self, tokens: &DeviceBuffer<i32>) -> Result<()> {
        // TODO: `copy_to_pinned` into slot `queued % 2`, then record that
        // slot's event. This copy into a `Vec` waits for the step.
        self.waiting.push_back(self.stream.to_vec(tokens)?);
        Ok(())
    }

    /// Waits for the oldest slot not read yet (its event only), and reads it.
    pub fn read(&mut self) -> Result<Vec<i32>> {
        // TODO: synchronize the event of slot `read % 2`, then read the slot.
        Ok(self
            .waiting
            .pop_front()
            .expect("`read`: no tokens are queued; call `queue` first"))
    }
}
