//! The link between the judge's process and the learner's: frames over a
//! [`Pipe`] (two rings in shared memory, and a socket for what they cannot
//! carry), each a little-endian `u32` length and the frame in postcard.
//!
//! Both sides read with a bound ([`MAX_FRAME`]): a frame the other side says
//! is longer is an error, never an allocation of that size, so a process
//! that writes garbage on its end cannot make the judge's exhaust memory.

use super::call::Call;
use super::ring::Pipe;
use serde::{Deserialize, Serialize};
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
/// frame and waits for the answer.
#[derive(Debug)]
pub struct Link {
    pipe: Pipe,
}

impl Link {
    /// The judge's end over `socket`: makes the shared rings and hands them
    /// to the other end. Each side polls for its next frame before it
    /// sleeps, this one for `spin.0` and the other for `spin.1`: long enough
    /// to cover a call's round trip where both sides have a core of their
    /// own (the CUDA backend), zero where they take turns on one.
    pub fn offer(socket: UnixStream, spin: (Duration, Duration)) -> io::Result<Self> {
        Ok(Self {
            pipe: Pipe::offer(socket, spin)?,
        })
    }

    /// The learner's end over `socket`, with the rings the judge's end
    /// offers on it.
    pub fn accept(socket: UnixStream) -> io::Result<Self> {
        Ok(Self {
            pipe: Pipe::accept(socket)?,
        })
    }

    /// How long this end polls for a frame before it sleeps.
    pub fn spin(&self) -> Duration {
        self.pipe.spin()
    }

    /// Sends `frame`, whole.
    pub fn send(&self, frame: &Frame) -> io::Result<()> {
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
