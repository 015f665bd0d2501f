//! The results channel, from the harness's side: the socket the judge gives
//! as stdin ([`crate::protocol`] says why it is one).

use crate::protocol::{Event, Setup};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use zeroize::Zeroizing;

/// The longest setup line the harness reads.
const SETUP_LIMIT: usize = 64 << 10;

/// The harness's end of the socket to the judge.
#[derive(Debug)]
pub(crate) struct Channel {
    socket: File,
}

impl Channel {
    /// Takes the channel from stdin, reads the setup from it, and puts
    /// `/dev/null` on stdin, before any learner code runs. The bytes of the
    /// setup line are wiped once read.
    pub(crate) fn open() -> io::Result<(Self, Setup)> {
        let socket = File::from(io::stdin().as_fd().try_clone_to_owned()?);
        let mut channel = Self { socket };
        let line = channel.read_line()?;
        let setup = serde_json::from_slice(&line).map_err(io::Error::other)?;
        rustix::stdio::dup2_stdin(File::open("/dev/null")?)?;
        Ok((channel, setup))
    }

    /// Reads up to the first newline, byte by byte (the judge sends nothing
    /// after it), into memory that is wiped when dropped.
    fn read_line(&mut self) -> io::Result<Zeroizing<Vec<u8>>> {
        let mut line = Zeroizing::new(Vec::with_capacity(1024));
        let mut byte = [0u8; 1];
        while line.len() < SETUP_LIMIT {
            match self.socket.read(&mut byte)? {
                0 => break,
                _ if byte[0] == b'\n' => return Ok(line),
                _ => line.push(byte[0]),
            }
        }
        Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "no setup line on stdin",
        ))
    }

    /// Sends one event, signed with `key` when given, in one write.
    pub(crate) fn send(&mut self, event: &Event, key: Option<&str>) -> io::Result<()> {
        let event = match key {
            Some(key) => event.clone().sign(key),
            None => event.clone(),
        };
        let mut line = serde_json::to_string(&event).expect("events serialize");
        line.push('\n');
        self.socket.write_all(line.as_bytes())
    }
}
