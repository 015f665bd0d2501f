//! The keys of `judge watch`: single keys from a terminal, or lines from a
//! pipe, turned into the actions of the watch loop.
//!
//! On a terminal, stdin is put in non-canonical mode without echo (what
//! rustlings does, rather than a raw mode: output stays as it is, and
//! Ctrl-C still interrupts), so that a key acts as soon as it is pressed;
//! [`SingleKeys`] puts the terminal back as it was when it is dropped. From
//! a pipe (or where the terminal cannot be changed), each line counts: its
//! first letter, or Enter for an empty line.

use super::Signal;
use rustix::termios::{self, LocalModes, OptionalActions, Termios};
use std::io::{BufRead, Read};
use std::sync::mpsc::Sender;

/// A key, or a line's first letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Key {
    /// Enter, or an empty line.
    Enter,
    /// A letter, lower-cased.
    Char(char),
}

/// What the learner asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Action {
    /// Run the exercise again (`r`, Enter).
    Run,
    /// Show a hint, one more level each time (`h`).
    Hint,
    /// Show the exercise table (`l`).
    List,
    /// Put the starter back, after a `y` (`x`).
    Reset,
    /// Move on to the next exercise (`n`).
    Next,
    /// Leave watch mode (`q`).
    Quit,
}

/// The keys and what they do, for the help line.
pub(super) const KEYS: &str = "h hint · l list · x reset · n next · r run again · q quit";

/// The action `key` asks for, if any.
pub(super) fn action(key: Key) -> Option<Action> {
    match key {
        Key::Enter | Key::Char('r') => Some(Action::Run),
        Key::Char('h') => Some(Action::Hint),
        Key::Char('l') => Some(Action::List),
        Key::Char('x') => Some(Action::Reset),
        Key::Char('n') => Some(Action::Next),
        Key::Char('q') => Some(Action::Quit),
        Key::Char(_) => None,
    }
}

/// The key a typed line stands for: Enter when empty, `q` for `quit` and
/// `exit`, else its first letter.
pub(super) fn line_key(line: &str) -> Key {
    let line = line.trim().to_lowercase();
    match line.as_str() {
        "" => Key::Enter,
        "quit" | "exit" => Key::Char('q'),
        _ => Key::Char(line.chars().next().unwrap_or(' ')),
    }
}

/// The terminal in single-key mode while this lives.
pub(super) struct SingleKeys {
    /// The settings to put back, when the terminal was changed.
    saved: Option<Termios>,
}

impl SingleKeys {
    /// Single keys when stdin is a terminal that lets its mode be changed.
    pub(super) fn enable() -> Self {
        let stdin = std::io::stdin();
        let saved = match termios::isatty(&stdin) {
            true => termios::tcgetattr(&stdin).ok(),
            false => None,
        };
        let saved = saved.filter(|before| {
            let mut single = before.clone();
            single
                .local_modes
                .remove(LocalModes::ICANON | LocalModes::ECHO);
            termios::tcsetattr(&stdin, OptionalActions::Now, &single).is_ok()
        });
        Self { saved }
    }

    /// Whether keys act as soon as they are pressed (else lines count).
    pub(super) fn on(&self) -> bool {
        self.saved.is_some()
    }
}

impl Drop for SingleKeys {
    fn drop(&mut self) {
        if let Some(saved) = &self.saved {
            let _ = termios::tcsetattr(std::io::stdin(), OptionalActions::Now, saved);
        }
    }
}

/// Reads keys (single keys, or lines) into the channel, on a thread of its own.
pub(super) fn spawn_reader(send: Sender<Signal>, single: bool) {
    let reader = move || {
        let stdin = std::io::stdin();
        if single {
            for byte in stdin.lock().bytes() {
                let Ok(byte) = byte else { break };
                let key = match byte {
                    b'\n' | b'\r' => Key::Enter,
                    other => Key::Char(char::from(other).to_ascii_lowercase()),
                };
                if send
                    .send(Signal::Key(key, std::time::Instant::now()))
                    .is_err()
                {
                    return;
                }
            }
        } else {
            for line in stdin.lock().lines() {
                let Ok(line) = line else { break };
                if send
                    .send(Signal::Key(line_key(&line), std::time::Instant::now()))
                    .is_err()
                {
                    return;
                }
            }
        }
        let _ = send.send(Signal::Closed);
    };
    // Without a reader the keyboard does nothing, but saving still runs.
    let _ = std::thread::Builder::new()
        .name("judge watch keys".into())
        .spawn(reader);
}
