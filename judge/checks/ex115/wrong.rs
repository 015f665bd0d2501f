//! Decode loops for the suite's own tests: the given loop of `generate`
//! over known-wrong token slots, each one mistake in the solution's
//! `TokenSlots` (or the starter itself), whose messages `tests.rs`
//! snapshots.

use gpu::{Decoder, DeviceBuffer, Event, PinnedBuffer, Result, Stream};
use std::time::Duration;

/// What the given loop needs of the slots.
pub(super) trait Slots: Sized {
    fn new(stream: &Stream, n: usize) -> Result<Self>;
    fn queue(&mut self, stream: &Stream, tokens: &DeviceBuffer<i32>) -> Result<()>;
    fn read(&mut self, stream: &Stream) -> Result<Vec<i32>>;
}

/// The exercise's given loop over slots `S`.
pub(super) fn given<S: Slots>(
    stream: &Stream,
    decoder: &Decoder,
    prompts: &[i32],
    steps: usize,
    host_work: Duration,
) -> Result<Vec<Vec<i32>>> {
    let n = prompts.len();
    let tokens = [stream.alloc_zeros::<i32>(n)?, stream.alloc_zeros::<i32>(n)?];
    stream.copy_from_host(prompts, &tokens[0])?;
    let mut slots = S::new(stream, n)?;
    let mut outputs = vec![Vec::new(); n];
    let mut take = |tokens: Vec<i32>| {
        outputs.iter_mut().zip(tokens).for_each(|(o, t)| o.push(t));
        stream.device().host_work(host_work);
    };
    for s in 0..steps {
        stream.decode_step(decoder, &tokens[s % 2], &tokens[(s + 1) % 2])?;
        slots.queue(stream, &tokens[(s + 1) % 2])?;
        if s > 0 {
            take(slots.read(stream)?);
        }
    }
    if steps > 0 {
        take(slots.read(stream)?);
    }
    Ok(outputs)
}

/// The solution's slots, with a knob per mistake.
pub(super) struct Two<const M: u8> {
    n: usize,
    pinned: Vec<PinnedBuffer<i32>>,
    copied: [Event; 2],
    side: Option<Stream>,
    queued: usize,
    read: usize,
}

/// Right.
pub(super) const RIGHT: u8 = 0;
/// `read` waits on the newest event, reads the older slot.
pub(super) const NEWEST_WAIT: u8 = 1;
/// `read` reads without any wait.
pub(super) const NO_WAIT: u8 = 2;
/// `read` reads the slot, then waits.
pub(super) const READ_THEN_WAIT: u8 = 3;
/// Both steps' copies go into slot 0.
pub(super) const ONE_SLOT: u8 = 4;
/// The event recorded before the copy.
pub(super) const EVENT_FIRST: u8 = 5;
/// A new pinned slot allocated at every `queue`.
pub(super) const ALLOC_EACH: u8 = 6;
/// `read` synchronizes the stream instead of the event.
pub(super) const STREAM_SYNC: u8 = 7;
/// `read` polls the event with `query`.
pub(super) const POLLS: u8 = 8;
/// `read` waits on and reads the newest slot.
pub(super) const NEWEST_SLOT: u8 = 9;
/// The copies queued on a stream of their own, which never waits for the steps.
pub(super) const SIDE_STREAM: u8 = 10;
/// A fresh event recorded after the copy and dropped: the slot's is never recorded.
pub(super) const NEVER_RECORDED: u8 = 11;
/// The slot's event recorded in `read`, just before the wait, not after the copy.
pub(super) const RECORDED_AT_READ: u8 = 12;
/// `queue` puts step s's tokens (and the event after them) into slot
/// (s + 1) % 2, while `read` is right.
pub(super) const QUEUE_OTHER_SLOT: u8 = 13;

impl<const M: u8> Slots for Two<M> {
    fn new(stream: &Stream, n: usize) -> Result<Self> {
        let device = stream.device();
        Ok(Self {
            n,
            pinned: (0..if M == ONE_SLOT { 1 } else { 2 })
                .map(|_| device.alloc_pinned(n))
                .collect::<Result<_>>()?,
            side: if M == SIDE_STREAM {
                Some(device.new_stream()?)
            } else {
                None
            },
            copied: [device.new_event()?, device.new_event()?],
            queued: 0,
            read: 0,
        })
    }

    fn queue(&mut self, stream: &Stream, tokens: &DeviceBuffer<i32>) -> Result<()> {
        let slot = match M {
            ONE_SLOT => 0,
            QUEUE_OTHER_SLOT => (self.queued + 1) % 2,
            _ => self.queued % 2,
        };
        if M == ALLOC_EACH {
            self.pinned[slot] = stream.device().alloc_pinned(self.n)?;
        }
        let copier = self.side.as_ref().unwrap_or(stream);
        if M == EVENT_FIRST {
            self.copied[slot].record(copier)?;
        }
        copier.copy_to_pinned(tokens, &self.pinned[slot])?;
        match M {
            EVENT_FIRST | RECORDED_AT_READ => {}
            NEVER_RECORDED => drop(copier.record_event()?),
            QUEUE_OTHER_SLOT => self.copied[slot].record(copier)?,
            _ => self.copied[self.queued % 2].record(copier)?,
        }
        self.queued += 1;
        Ok(())
    }

    fn read(&mut self, stream: &Stream) -> Result<Vec<i32>> {
        let (older, newest) = (self.read % 2, (self.queued - 1) % 2);
        let slot = match M {
            ONE_SLOT => 0,
            NEWEST_SLOT => newest,
            _ => older,
        };
        self.read += 1;
        if M == RECORDED_AT_READ {
            self.copied[slot].record(stream)?;
        }
        match M {
            NEWEST_WAIT | NEWEST_SLOT => self.copied[newest].synchronize()?,
            NO_WAIT => {}
            READ_THEN_WAIT => {
                let tokens = self.pinned[slot].to_vec();
                self.copied[slot].synchronize()?;
                return Ok(tokens);
            }
            STREAM_SYNC => stream.synchronize()?,
            POLLS => while !self.copied[slot].query()? {},
            _ => self.copied[older].synchronize()?,
        }
        Ok(self.pinned[slot].to_vec())
    }
}

/// The starter's slots: each step's tokens copied into a `Vec` at once.
pub(super) struct Pageable {
    waiting: std::collections::VecDeque<Vec<i32>>,
}

impl Slots for Pageable {
    fn new(_: &Stream, _: usize) -> Result<Self> {
        Ok(Self {
            waiting: std::collections::VecDeque::new(),
        })
    }

    fn queue(&mut self, stream: &Stream, tokens: &DeviceBuffer<i32>) -> Result<()> {
        self.waiting.push_back(stream.to_vec(tokens)?);
        Ok(())
    }

    fn read(&mut self, _: &Stream) -> Result<Vec<i32>> {
        Ok(self.waiting.pop_front().expect("queued first"))
    }
}
