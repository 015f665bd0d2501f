//! Exercise 104's API as the checks see it in the judge's checker: the
//! types of `exercises/104-sync-elimination` and a [`Server`] that stands
//! for the learner's, which lives in the agent ([`judge_harness::bridge`])
//! and runs on the judge's streams and decoder, lent to it.
//!
//! `serve.rs` is the agent's side: compiled into the agent with the
//! learner's crate as `learner` and this one as `bridge`.

#[cfg(test)]
extern crate self as bridge;

#[cfg(test)]
#[path = "serve.rs"]
mod serve;
#[cfg(test)]
mod tests;

use gpu::remote::{DecoderRef, StreamRef, host};
use gpu::{Decoder, Result, Stream};
use judge_harness::bridge::invoke;
use serde::{Deserialize, Serialize};
use std::marker::PhantomData;
use std::time::Duration;

/// How the server runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    /// Requests in the batch.
    pub batch: usize,
    /// The most steps the server will be asked to run.
    pub max_steps: usize,
    /// Steps per log line.
    pub log_every: usize,
    /// The end-of-sequence token.
    pub eos: i32,
    /// The scheduler's CPU time per step.
    pub host_work: Duration,
}

/// One log line: the metrics of the `log_every` steps that end at `step`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    /// The last step of the window (from 0).
    pub step: usize,
    /// Tokens generated in the window.
    pub tokens: u32,
    /// Requests finished after the window.
    pub finished: u32,
}

/// What a run produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// For each request, its predictions in step order, up to its first `eos`.
    pub outputs: Vec<Vec<i32>>,
    /// The log lines, one per complete window of `log_every` steps.
    pub logs: Vec<LogLine>,
    /// The duration of each step in milliseconds.
    pub step_ms: Vec<f64>,
}

/// A call of the learner's crate.
#[derive(Debug, Serialize, Deserialize)]
pub enum Call {
    /// `Server::new(decoder, compute, copy, config)`: answered with
    /// `Result<u64>`, the server's handle in the agent.
    New {
        /// The decoder, lent.
        decoder: DecoderRef,
        /// The compute stream.
        compute: StreamRef,
        /// The copy stream.
        copy: StreamRef,
        /// The configuration.
        config: Config,
    },
    /// `server.step(tokens)`: answered with `Option<Result<()>>` (`None`:
    /// no such server, an earlier call of it panicked).
    Step {
        /// The server.
        server: u64,
        /// One token per request.
        tokens: Vec<i32>,
    },
    /// `server.finish()`: answered with `Option<Result<Report>>`.
    Finish {
        /// The server.
        server: u64,
    },
    /// The drop of a server never finished: answered with `()`.
    Drop {
        /// The server.
        server: u64,
    },
}

/// The learner's server, which lives in the agent.
#[derive(Debug)]
pub struct Server<'d> {
    handle: u64,
    finished: bool,
    _decoder: PhantomData<&'d Decoder>,
}

/// A server's answer, or the end of the check when the server is gone.
fn present<T>(answer: Option<T>) -> T {
    answer.unwrap_or_else(|| {
        panic!(
            "the learner's `Server` is gone: an earlier call of it panicked in the learner's code"
        )
    })
}

impl<'d> Server<'d> {
    /// The learner's `Server::new`, in the agent.
    pub fn new(
        decoder: &'d Decoder,
        compute: &Stream,
        copy: &Stream,
        config: Config,
    ) -> Result<Self> {
        let handle: Result<u64> = invoke(&Call::New {
            decoder: host::export_decoder(decoder),
            compute: host::export_stream(compute),
            copy: host::export_stream(copy),
            config,
        });
        Ok(Self {
            handle: handle?,
            finished: false,
            _decoder: PhantomData,
        })
    }

    /// The learner's `Server::step`, in the agent.
    pub fn step(&mut self, tokens: &[i32]) -> Result<()> {
        let call = Call::Step {
            server: self.handle,
            tokens: tokens.to_vec(),
        };
        present(invoke(&call))
    }

    /// The learner's `Server::finish`, in the agent.
    pub fn finish(mut self) -> Result<Report> {
        self.finished = true;
        present(invoke(&Call::Finish {
            server: self.handle,
        }))
    }
}

impl Drop for Server<'_> {
    fn drop(&mut self) {
        if !self.finished && !std::thread::panicking() {
            let () = invoke(&Call::Drop {
                server: self.handle,
            });
        }
    }
}
