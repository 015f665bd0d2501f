//! The link's carrier: two byte rings in memory both processes map, one
//! each way, and a socket beside them that carries only what shared memory
//! cannot: the memory itself (its file, once), a doorbell for a side that
//! waits asleep, and the other side's end (the socket closes with it).
//!
//! A side that waits for bytes (or for room) first polls the ring for a
//! while ([`Pipe::spin`], set by the side that made the rings): on the CUDA
//! backend, where the judge's checker and the learner's process run on cores
//! of their own, a call's round trip is then two cache-line transfers, not
//! two wake-ups of a sleeping process. Past that it says it sleeps (a flag
//! in the shared page) and sleeps on the socket; the other side rings the
//! doorbell (one byte on the socket) when it sees the flag. With no spin
//! (the virtual GPU, where checker and agent take turns on one CPU) every
//! message rings it.
//!
//! Nothing the other process writes in the shared memory is believed: this
//! side keeps its own positions in its own memory and only publishes them;
//! the other side's position is checked against the ring's size before it
//! is used (a position that says more bytes than the ring holds, or less
//! room than none, is [`io::ErrorKind::InvalidData`]); bytes are copied out
//! of the ring into this side's memory before anything reads them; and the
//! memory's size is sealed, so that the other side cannot shrink it under
//! this one.
//!
//! Just over 400 lines: the mapping, the two directions and the sleep
//! protocol share one layout and one set of `// SAFETY:` arguments, which
//! read best in one place; the tests are in `ring/tests.rs`.

use rustix::event::{PollFd, PollFlags, poll};
use rustix::fs::{MemfdFlags, SealFlags};
use rustix::mm::{MapFlags, ProtFlags};
use rustix::net::{
    RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer,
    SendAncillaryMessage, SendFlags,
};
use std::cell::Cell;
use std::io::{self, IoSlice, IoSliceMut};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering, fence};
use std::time::{Duration, Instant};

/// The bytes each ring holds.
pub(crate) const CAPACITY: usize = 1 << 20;
/// The page of positions and flags before the rings.
const HEADER: usize = 4096;
/// The shared memory: the header and two rings.
const SIZE: usize = HEADER + 2 * CAPACITY;
/// Where the header keeps each ring's fields (each on a cache line of its
/// own, so that the two sides do not share one).
const RING_FIELDS: [usize; 2] = [0, 1024];
const HEAD: usize = 0;
const TAIL: usize = 128;
const READER_SLEEPS: usize = 256;
const WRITER_SLEEPS: usize = 384;
/// The spin of the side that accepts, as the side that offers set it, in
/// nanoseconds (the offering side keeps its own).
const SPIN_AT: usize = 2048;
/// The longest spin either side takes.
pub(crate) const LONGEST_SPIN: Duration = Duration::from_millis(20);
/// How long a sleeping side sleeps before it looks at the ring again even
/// without a doorbell (a flag the other side cleared costs it this, never
/// a hang).
const NAP: Duration = Duration::from_millis(20);

/// The shared memory, mapped.
struct Mapping {
    base: NonNull<u8>,
}

// SAFETY: the mapping is memory of the process, not of a thread: the end
// that owns it may move to another thread (it is not `Sync`, so one thread
// uses it at a time).
unsafe impl Send for Mapping {}

impl Mapping {
    fn new(fd: &OwnedFd) -> io::Result<Self> {
        // SAFETY: a new mapping the kernel places (null hint) of `SIZE` bytes
        // of `fd`, which is at least that long and sealed against shrinking
        // (`offer` makes it so; `accept` checks the length), so no access
        // within it faults; nothing else in this process aliases it.
        let base = unsafe {
            rustix::mm::mmap(
                std::ptr::null_mut(),
                SIZE,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
                fd,
                0,
            )
        }?;
        let base = NonNull::new(base.cast::<u8>()).ok_or_else(|| io::Error::other("mmap null"))?;
        Ok(Self { base })
    }

    fn u64_at(&self, offset: usize) -> &AtomicU64 {
        debug_assert!(offset.is_multiple_of(8) && offset + 8 <= HEADER);
        // SAFETY: `offset` is within the header and 8-aligned (the mapping
        // is page-aligned); an `AtomicU64` has the layout of a `u64`, every
        // bit pattern is one, and the mapping lives as long as `self`.
        unsafe { &*self.base.as_ptr().add(offset).cast::<AtomicU64>() }
    }

    fn u32_at(&self, offset: usize) -> &AtomicU32 {
        debug_assert!(offset.is_multiple_of(4) && offset + 4 <= HEADER);
        // SAFETY: as `u64_at`, for 4 bytes.
        unsafe { &*self.base.as_ptr().add(offset).cast::<AtomicU32>() }
    }

    /// Ring `ring`'s byte `at` (below [`CAPACITY`]) as a pointer.
    fn data(&self, ring: usize, at: usize) -> *mut u8 {
        debug_assert!(ring < 2 && at < CAPACITY);
        // SAFETY: within the mapping: `HEADER + ring * CAPACITY + at` is
        // below `SIZE`.
        unsafe { self.base.as_ptr().add(HEADER + ring * CAPACITY + at) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the mapping `new` made, of `SIZE` bytes; every reference
        // into it borrows `self`, so none outlives this.
        let _ = unsafe { rustix::mm::munmap(self.base.as_ptr().cast(), SIZE) };
    }
}

/// One end of the link's carrier: the ring it writes, the ring it reads,
/// its own positions in them and the socket.
pub(crate) struct Pipe {
    map: Mapping,
    socket: UnixStream,
    /// The ring this end writes (the other end reads the other one).
    out: usize,
    /// Where this end writes next in `out`, and reads next in the other.
    tail: Cell<u64>,
    head: Cell<u64>,
    /// Room this end knows of in `out` without reading the reader's
    /// position again (a line the other core wrote: each read moves it).
    room: Cell<usize>,
    spin: Duration,
}

impl std::fmt::Debug for Pipe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pipe(ring {}, spin {:?})", self.out, self.spin)
    }
}

impl Pipe {
    /// Makes the rings, hands them to the other end of `socket` and returns
    /// this end, which polls for `spin.0` before it sleeps; the other polls
    /// for `spin.1`, which it learns from the header.
    pub(crate) fn offer(socket: UnixStream, spin: (Duration, Duration)) -> io::Result<Self> {
        let fd =
            rustix::fs::memfd_create("gpu-link", MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING)?;
        rustix::fs::ftruncate(&fd, SIZE as u64)?;
        rustix::fs::fcntl_add_seals(&fd, SealFlags::SHRINK | SealFlags::GROW | SealFlags::SEAL)?;
        let map = Mapping::new(&fd)?;
        let (spin, theirs) = (spin.0.min(LONGEST_SPIN), spin.1.min(LONGEST_SPIN));
        map.u64_at(SPIN_AT)
            .store(theirs.as_nanos() as u64, Ordering::Relaxed);
        let fds = [fd.as_fd()];
        let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
        let mut control = SendAncillaryBuffer::new(&mut space);
        control.push(SendAncillaryMessage::ScmRights(&fds));
        rustix::net::sendmsg(
            &socket,
            &[IoSlice::new(&[1])],
            &mut control,
            SendFlags::NOSIGNAL,
        )?;
        Self::end(map, socket, 0, spin)
    }

    /// Takes the rings the other end of `socket` offers.
    pub(crate) fn accept(socket: UnixStream) -> io::Result<Self> {
        let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
        let mut control = RecvAncillaryBuffer::new(&mut space);
        let mut byte = [0u8; 1];
        let got = rustix::net::recvmsg(
            &socket,
            &mut [IoSliceMut::new(&mut byte)],
            &mut control,
            RecvFlags::CMSG_CLOEXEC,
        )?;
        let fd = control
            .drain()
            .find_map(|message| match message {
                RecvAncillaryMessage::ScmRights(mut fds) => fds.next(),
                _ => None,
            })
            .filter(|_| got.bytes == 1)
            .ok_or_else(|| invalid("the link's first message carries no shared memory"))?;
        let len = rustix::fs::fstat(&fd)?.st_size;
        let seals = rustix::fs::fcntl_get_seals(&fd)?;
        if len != SIZE as i64 || !seals.contains(SealFlags::SHRINK) {
            return Err(invalid(
                "the link's shared memory is not the size it must be",
            ));
        }
        let map = Mapping::new(&fd)?;
        let spin = Duration::from_nanos(map.u64_at(SPIN_AT).load(Ordering::Relaxed));
        Self::end(map, socket, 1, spin.min(LONGEST_SPIN))
    }

    fn end(map: Mapping, socket: UnixStream, out: usize, spin: Duration) -> io::Result<Self> {
        socket.set_nonblocking(true)?;
        Ok(Self {
            map,
            socket,
            out,
            tail: Cell::new(0),
            head: Cell::new(0),
            room: Cell::new(0),
            spin,
        })
    }

    /// How long this end polls before it sleeps.
    pub(crate) fn spin(&self) -> Duration {
        self.spin
    }

    fn field(&self, ring: usize, field: usize) -> &AtomicU64 {
        self.map.u64_at(RING_FIELDS[ring] + field)
    }

    fn flag(&self, ring: usize, field: usize) -> &AtomicU32 {
        self.map.u32_at(RING_FIELDS[ring] + field)
    }

    /// Writes all of `bytes`, waiting for room as the reader makes it.
    pub(crate) fn write_all(&self, mut bytes: &[u8]) -> io::Result<()> {
        let ring = self.out;
        while !bytes.is_empty() {
            let room = match self.room.get() {
                known if known >= bytes.len() => known,
                _ => self.wait(ring, WRITER_SLEEPS, || self.room())?,
            };
            let n = room.min(bytes.len());
            self.room.set(room - n);
            let tail = self.tail.get();
            self.copy_in(ring, tail, &bytes[..n]);
            self.tail.set(tail + n as u64);
            self.field(ring, TAIL)
                .store(tail + n as u64, Ordering::Release);
            self.ring_if_asleep(ring, READER_SLEEPS);
            bytes = &bytes[n..];
        }
        Ok(())
    }

    /// Fills `buf`, waiting for bytes as the writer sends them.
    pub(crate) fn read_exact(&self, mut buf: &mut [u8]) -> io::Result<()> {
        let ring = 1 - self.out;
        while !buf.is_empty() {
            let ready = self.wait(ring, READER_SLEEPS, || self.ready())?;
            let n = ready.min(buf.len());
            let head = self.head.get();
            self.copy_out(ring, head, &mut buf[..n]);
            self.head.set(head + n as u64);
            self.field(ring, HEAD)
                .store(head + n as u64, Ordering::Release);
            self.ring_if_asleep(ring, WRITER_SLEEPS);
            buf = &mut buf[n..];
        }
        Ok(())
    }

    /// Room in the ring this end writes: what the reader's published
    /// position leaves, checked.
    fn room(&self) -> io::Result<usize> {
        let read = self.field(self.out, HEAD).load(Ordering::Acquire);
        let used = self.tail.get().wrapping_sub(read);
        match usize::try_from(used).ok().filter(|&u| u <= CAPACITY) {
            Some(used) => Ok(CAPACITY - used),
            None => Err(invalid(
                "its read position says it read past what was written to the link",
            )),
        }
    }

    /// Bytes ready in the ring this end reads: what the writer's published
    /// position says, checked.
    fn ready(&self) -> io::Result<usize> {
        let written = self.field(1 - self.out, TAIL).load(Ordering::Acquire);
        let ready = written.wrapping_sub(self.head.get());
        usize::try_from(ready)
            .ok()
            .filter(|&r| r <= CAPACITY)
            .ok_or_else(|| invalid("its write position says it wrote more than the link holds"))
    }

    /// Waits until `amount` is above zero (or fails): polls for the spin,
    /// then raises `ring`'s flag `sleeps` and sleeps on the socket.
    fn wait(
        &self,
        ring: usize,
        sleeps: usize,
        amount: impl Fn() -> io::Result<usize>,
    ) -> io::Result<usize> {
        let start = Instant::now();
        loop {
            let n = amount()?;
            if n > 0 {
                return Ok(n);
            }
            if start.elapsed() >= self.spin {
                break;
            }
            std::hint::spin_loop();
        }
        let flag = self.flag(ring, sleeps);
        flag.store(1, Ordering::SeqCst);
        let result = loop {
            fence(Ordering::SeqCst);
            match amount() {
                Ok(0) => {}
                other => break other,
            }
            if let Err(e) = self.sleep() {
                // The other end is gone: what it wrote before it went is
                // still read; past that, the link has ended.
                break match amount() {
                    Ok(0) => Err(e),
                    other => other,
                };
            }
        };
        flag.store(0, Ordering::Relaxed);
        result
    }

    /// Sleeps until the doorbell rings or a nap has passed; drains the
    /// doorbell. The other end's close is `UnexpectedEof`.
    fn sleep(&self) -> io::Result<()> {
        let timeout = rustix::time::Timespec {
            tv_sec: 0,
            tv_nsec: NAP.as_nanos() as i64,
        };
        let mut fds = [PollFd::new(&self.socket, PollFlags::IN)];
        match poll(&mut fds, Some(&timeout)) {
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
        let mut bells = [0u8; 256];
        loop {
            match rustix::net::recv(&self.socket, &mut bells, RecvFlags::DONTWAIT) {
                Ok((0, _)) => {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the other side of the link closed it",
                    ));
                }
                Ok(_) => {}
                Err(rustix::io::Errno::AGAIN | rustix::io::Errno::INTR) => return Ok(()),
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Rings the doorbell when the other side sleeps on `ring`'s flag
    /// `sleeps`. A full socket already holds a ring, and a closed one has
    /// nobody to wake.
    fn ring_if_asleep(&self, ring: usize, sleeps: usize) {
        fence(Ordering::SeqCst);
        if self.flag(ring, sleeps).load(Ordering::SeqCst) != 0 {
            let _ = rustix::net::send(
                &self.socket,
                &[1],
                SendFlags::DONTWAIT | SendFlags::NOSIGNAL,
            );
        }
    }

    /// Copies `bytes` into `ring` from position `at`, wrapping.
    fn copy_in(&self, ring: usize, at: u64, bytes: &[u8]) {
        let start = (at % CAPACITY as u64) as usize;
        let first = bytes.len().min(CAPACITY - start);
        // SAFETY: `first` bytes from `start` and the rest from 0 lie within
        // the ring (`bytes` is at most the room, at most `CAPACITY`); the
        // reader does not read them until the tail this end publishes after
        // the copy says they are there. The other process may write them
        // meanwhile: they are plain bytes, and only its own reads suffer.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.map.data(ring, start), first);
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr().add(first),
                self.map.data(ring, 0),
                bytes.len() - first,
            );
        }
    }

    /// Copies `buf.len()` bytes of `ring` from position `at` into `buf`.
    fn copy_out(&self, ring: usize, at: u64, buf: &mut [u8]) {
        let start = (at % CAPACITY as u64) as usize;
        let first = buf.len().min(CAPACITY - start);
        // SAFETY: within the ring, as in `copy_in`. The bytes are plain `u8`s,
        // which have no invalid values: whatever the other process wrote
        // there, or writes while they are copied, this end reads only the
        // copy in its own memory, and the frame's decoder checks it.
        unsafe {
            std::ptr::copy_nonoverlapping(self.map.data(ring, start), buf.as_mut_ptr(), first);
            std::ptr::copy_nonoverlapping(
                self.map.data(ring, 0),
                buf.as_mut_ptr().add(first),
                buf.len() - first,
            );
        }
    }
}

fn invalid(why: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why.to_string())
}

#[cfg(test)]
mod tests;
