//! The link between the judge's process and the learner's: frames over a
//! [`Pipe`] (two rings in shared memory, and a socket for what they cannot
//! carry), each a little-endian `u32` length and the frame in postcard.
//!
//! Both sides read with a bound ([`MAX_FRAME`]): a frame the other side says
//! is longer is an error, never an allocation of that size, so a process
//! that writes garbage on its end cannot make the judge's exhaust memory.

use super::call::Call;
use super::ring::Pipe;
use crate::error::GpuError;
use serde::{Deserialize, Serialize};
use std::cell::{Cell, RefCell};
use std::io;
use std::os::unix::net::UnixStream;
use std::time::Duration;

/// The longest frame either side reads: 256 MiB, well above the largest
/// copy an exercise makes.
pub const MAX_FRAME: usize = 256 << 20;

/// One message on the link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Frame {
    /// A call of learner code on a device of the judge's (learner → judge).
    Gpu(Call),
    /// Its answer (judge → learner): postcard of the call's
    /// `Result<T, GpuError>`.
    GpuReply(Vec<u8>),
    /// A message of the judge's harness, which this crate does not read:
    /// calls of the exercise's API, callbacks, their answers.
    Harness(Vec<u8>),
}

/// One end of the link. Single-threaded, like a device: each call sends one
/// frame and waits for the answer, but for a call posted (`Link::post`),
/// whose answer is read when the next call is posted or anything else is
/// sent or read.
#[derive(Debug)]
pub struct Link {
    pipe: Pipe,
    /// Whether a posted call's answer is still to be read, and whether its
    /// error is to be returned (not for a drop's).
    in_flight: Cell<Option<bool>>,
    /// The first error a posted call answered that no call has returned yet.
    failed: RefCell<Option<GpuError>>,
}

impl Link {
    /// The judge's end over `socket`: makes the shared rings and hands them
    /// to the other end. Each side polls for its next frame before it
    /// sleeps, this one for `spin.0` and the other for `spin.1`: long enough
    /// to cover a call's round trip where both sides have a core of their
    /// own (the CUDA backend), zero where they take turns on one.
    pub fn offer(socket: UnixStream, spin: (Duration, Duration)) -> io::Result<Self> {
        Ok(Self::over(Pipe::offer(socket, spin)?))
    }

    /// The learner's end over `socket`, with the rings the judge's end
    /// offers on it.
    pub fn accept(socket: UnixStream) -> io::Result<Self> {
        Ok(Self::over(Pipe::accept(socket)?))
    }

    fn over(pipe: Pipe) -> Self {
        Self {
            pipe,
            in_flight: Cell::new(None),
            failed: RefCell::new(None),
        }
    }

    /// How long this end polls for a frame before it sleeps.
    pub fn spin(&self) -> Duration {
        self.pipe.spin()
    }

    /// Sends `frame`, whole, once the answer of a posted call is in.
    pub fn send(&self, frame: &Frame) -> io::Result<()> {
        self.settle()?;
        self.write(frame)
    }

    /// Sends `frame`, a call whose answer is `Result<(), GpuError>`, without
    /// waiting for its answer; then reads the answer of the call posted
    /// before it, if any. So the calling side runs at most one call ahead
    /// of the side that makes them, and pays per call what the other side
    /// pays to make one: the trip itself is hidden behind the call before.
    /// An error a posted call answers is kept for [`Link::take_failed`]
    /// when `report` says so (a drop's is not).
    pub(crate) fn post(&self, frame: &Frame, report: bool) -> io::Result<()> {
        self.write(frame)?;
        if let Some(earlier) = self.in_flight.replace(Some(report)) {
            self.read_posted(earlier)?;
        }
        Ok(())
    }

    /// Reads the answer of the call posted last, if it is not read yet.
    pub fn settle(&self) -> io::Result<()> {
        if let Some(report) = self.in_flight.take() {
            self.read_posted(report)?;
        }
        Ok(())
    }

    /// The error a posted call answered, once: the next call on the link
    /// returns it, as a CUDA call returns an earlier asynchronous error.
    pub fn take_failed(&self) -> Option<GpuError> {
        self.failed.borrow_mut().take()
    }

    fn read_posted(&self, report: bool) -> io::Result<()> {
        match self.read()? {
            Frame::GpuReply(bytes) => {
                match postcard::from_bytes::<Result<(), GpuError>>(&bytes) {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) if report => {
                        self.failed.borrow_mut().get_or_insert(e);
                    }
                    Ok(Err(_)) => {}
                    Err(e) => return Err(io::Error::new(io::ErrorKind::InvalidData, e)),
                }
                Ok(())
            }
            _ => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the answer of a posted call was another frame",
            )),
        }
    }

    fn write(&self, frame: &Frame) -> io::Result<()> {
        let bytes = postcard::to_extend(frame, vec![0u8; 4]).map_err(io::Error::other)?;
        let len = u32::try_from(bytes.len() - 4)
            .ok()
            .filter(|&n| n as usize <= MAX_FRAME)
            .ok_or_else(|| io::Error::other("a frame longer than the link carries"))?;
        let mut bytes = bytes;
        bytes[..4].copy_from_slice(&len.to_le_bytes());
        self.pipe.write_all(&bytes)
    }

    /// The next frame. An end of the other side is `UnexpectedEof`; a frame
    /// that is too long or does not decode, or rings the other side wrote
    /// nonsense in, is `InvalidData`.
    pub fn recv(&self) -> io::Result<Frame> {
        self.settle()?;
        self.read()
    }

    fn read(&self) -> io::Result<Frame> {
        let mut len = [0u8; 4];
        self.pipe.read_exact(&mut len)?;
        let len = u32::from_le_bytes(len) as usize;
        if len > MAX_FRAME {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("a frame of {len} bytes, over the link's {MAX_FRAME}"),
            ));
        }
        let mut bytes = vec![0u8; len];
        self.pipe.read_exact(&mut bytes)?;
        postcard::from_bytes(&bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }

    /// The raw carrier, for tests that write what a broken or hostile
    /// other side would.
    #[cfg(test)]
    pub(crate) fn pipe(&self) -> &Pipe {
        &self.pipe
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair() -> (Link, Link) {
        let (a, b) = UnixStream::pair().unwrap();
        let a = Link::offer(a, (Duration::ZERO, Duration::ZERO)).unwrap();
        (a, Link::accept(b).unwrap())
    }

    #[test]
    fn frames_cross_the_link_whole_and_in_order() {
        let (a, b) = pair();
        a.send(&Frame::Harness(vec![1, 2, 3])).unwrap();
        a.send(&Frame::GpuReply(vec![0; 100_000])).unwrap();
        assert_eq!(b.recv().unwrap(), Frame::Harness(vec![1, 2, 3]));
        assert_eq!(b.recv().unwrap(), Frame::GpuReply(vec![0; 100_000]));
        drop(a);
        assert_eq!(
            b.recv().unwrap_err().kind(),
            io::ErrorKind::UnexpectedEof,
            "a closed end reads as the end of the link"
        );
    }

    #[test]
    fn a_frame_said_to_be_too_long_is_refused_before_it_is_read() {
        let (a, b) = pair();
        a.pipe().write_all(&u32::MAX.to_le_bytes()).unwrap();
        let err = b.recv().unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(err.to_string().contains("over the link's"), "{err}");
        a.pipe().write_all(&[3, 0, 0, 0, 0xff, 0xff, 0xff]).unwrap();
        assert_eq!(
            b.recv().unwrap_err().kind(),
            io::ErrorKind::InvalidData,
            "garbage does not decode"
        );
    }

    #[test]
    fn a_posted_call_is_answered_when_the_next_is_posted_and_its_error_kept() {
        let (agent, checker) = pair();
        let answer = |r: Result<(), GpuError>| Frame::GpuReply(postcard::to_stdvec(&r).unwrap());
        let lost = GpuError::ForeignHandle {
            op: "spin",
            site: crate::trace::CallSite::internal("a posted call"),
        };
        agent.post(&Frame::Harness(vec![1]), true).unwrap();
        assert!(agent.in_flight.get().is_some(), "posted, not waited for");
        checker.recv().unwrap();
        let text = lost.to_string();
        checker.send(&answer(Err(lost))).unwrap();
        checker.send(&answer(Ok(()))).unwrap();
        agent.post(&Frame::Harness(vec![2]), false).unwrap();
        let failed = agent.take_failed().map(|e| e.to_string());
        assert_eq!(failed, Some(text), "the first call's error");
        assert!(agent.take_failed().is_none(), "once");
        agent.send(&Frame::Harness(vec![3])).unwrap();
        assert!(
            agent.in_flight.get().is_none(),
            "a send reads the posted answer first"
        );
        assert_eq!(checker.recv().unwrap(), Frame::Harness(vec![2]));
        assert_eq!(checker.recv().unwrap(), Frame::Harness(vec![3]));
        checker
            .send(&answer(Err(GpuError::ForeignHandle {
                op: "drop",
                site: crate::trace::CallSite::internal("a drop"),
            })))
            .unwrap();
        checker.send(&Frame::Harness(vec![4])).unwrap();
        agent.settle().unwrap();
        assert!(
            agent.take_failed().is_none(),
            "a drop's error is not the learner's"
        );
        agent.post(&Frame::Harness(vec![5]), true).unwrap();
        agent.post(&Frame::Harness(vec![6]), true).unwrap();
        assert_eq!(
            agent.recv().unwrap_err().kind(),
            io::ErrorKind::InvalidData,
            "a posted call answered with anything but an answer breaks the link"
        );
    }

    #[test]
    fn a_frame_abandoned_midway_is_the_end_of_the_link() {
        let (a, b) = pair();
        let frame = postcard::to_stdvec(&Frame::Harness(vec![7; 64])).unwrap();
        let mut record = (frame.len() as u32).to_le_bytes().to_vec();
        record.extend_from_slice(&frame[..frame.len() / 2]);
        a.pipe().write_all(&record).unwrap();
        drop(a);
        assert_eq!(b.recv().unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
    }
}
