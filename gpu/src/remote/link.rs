//! The link between the judge's process and the learner's: frames over a
//! Unix socket, each a little-endian `u32` length and the frame in postcard.
//!
//! Both sides read with a bound ([`MAX_FRAME`]): a frame the other side says
//! is longer is an error, never an allocation of that size, so a process
//! that writes garbage on its end cannot make the judge's exhaust memory.

use super::call::Call;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::os::unix::net::UnixStream;

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

/// One end of the link: the socket, buffered both ways. Single-threaded,
/// like a device: each call sends one frame and waits for the answer.
#[derive(Debug)]
pub struct Link {
    reader: RefCell<BufReader<UnixStream>>,
    writer: RefCell<BufWriter<UnixStream>>,
}

impl Link {
    /// The link over `socket`.
    pub fn new(socket: UnixStream) -> io::Result<Self> {
        let reader = socket.try_clone()?;
        Ok(Self {
            reader: RefCell::new(BufReader::new(reader)),
            writer: RefCell::new(BufWriter::new(socket)),
        })
    }

    /// Sends `frame`, whole.
    pub fn send(&self, frame: &Frame) -> io::Result<()> {
        let bytes = postcard::to_stdvec(frame).map_err(io::Error::other)?;
        let len = u32::try_from(bytes.len())
            .ok()
            .filter(|&n| n as usize <= MAX_FRAME)
            .ok_or_else(|| io::Error::other("a frame longer than the link carries"))?;
        let mut writer = self.writer.borrow_mut();
        writer.write_all(&len.to_le_bytes())?;
        writer.write_all(&bytes)?;
        writer.flush()
    }

    /// The next frame. An end of the socket is `UnexpectedEof`; a frame
    /// that is too long or does not decode is `InvalidData`.
    pub fn recv(&self) -> io::Result<Frame> {
        let mut reader = self.reader.borrow_mut();
        let mut len = [0u8; 4];
        reader.read_exact(&mut len)?;
        let len = u32::from_le_bytes(len) as usize;
        if len > MAX_FRAME {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("a frame of {len} bytes, over the link's {MAX_FRAME}"),
            ));
        }
        let mut bytes = vec![0u8; len];
        reader.read_exact(&mut bytes)?;
        postcard::from_bytes(&bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_cross_the_link_whole_and_in_order() {
        let (a, b) = UnixStream::pair().unwrap();
        let (a, b) = (Link::new(a).unwrap(), Link::new(b).unwrap());
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
        let (mut a, b) = UnixStream::pair().unwrap();
        let b = Link::new(b).unwrap();
        a.write_all(&u32::MAX.to_le_bytes()).unwrap();
        let err = b.recv().unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(err.to_string().contains("over the link's"), "{err}");
        a.write_all(&[3, 0, 0, 0, 0xff, 0xff, 0xff]).unwrap();
        assert_eq!(
            b.recv().unwrap_err().kind(),
            io::ErrorKind::InvalidData,
            "garbage does not decode"
        );
    }
}
