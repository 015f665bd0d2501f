//! A serving loop, as an inference engine runs it: every step the scheduler
//! does some CPU work, sends the step's input tokens to the GPU, the model
//! predicts one token per request, finished requests are marked, and every
//! `log_every` steps a line of metrics is logged.
//!
//! The loop is in `src/server.rs` ([`Server`]); this file holds what it is
//! configured with and what it reports, which stay as they are.

mod server;

pub use server::Server;

use std::time::Duration;

/// How the server runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Requests in the batch: every step takes this many input tokens.
    pub batch: usize,
    /// The most steps the server will be asked to run.
    pub max_steps: usize,
    /// Steps per log line (`K`): a line is logged after steps `K - 1`,
    /// `2K - 1`, … (counting from 0).
    pub log_every: usize,
    /// The end-of-sequence token: a request whose prediction is `eos` is
    /// finished, and its later predictions are not part of its output.
    pub eos: i32,
    /// The scheduler's CPU time per step (`Device::host_work`).
    pub host_work: Duration,
}

/// One log line: the metrics of the `log_every` steps that end at `step`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogLine {
    /// The last step of the window (from 0).
    pub step: usize,
    /// Tokens generated in the window: in each step, one per request that
    /// was not finished before the step.
    pub tokens: u32,
    /// Requests finished after the window.
    pub finished: u32,
}

/// What a run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// For each request, its predictions in step order, up to and including
    /// its first `eos` (or all of them if it never finished).
    pub outputs: Vec<Vec<i32>>,
    /// The log lines, one per complete window of `log_every` steps.
    pub logs: Vec<LogLine>,
    /// The duration of each step in milliseconds: the time the GPU took
    /// for it.
    pub step_ms: Vec<f64>,
}

/// Each request's output from the predictions of `steps` steps, stored step
/// after step (`history[t * batch + r]` is request `r`'s prediction at step
/// `t`): its predictions up to and including the first `eos`.
pub fn outputs_from_history(
    history: &[i32],
    batch: usize,
    steps: usize,
    eos: i32,
) -> Vec<Vec<i32>> {
    (0..batch)
        .map(|r| {
            let mut out = Vec::new();
            for t in 0..steps {
                let token = history[t * batch + r];
                out.push(token);
                if token == eos {
                    break;
                }
            }
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_stops_after_its_first_eos() {
        // Two requests, three steps; request 0 finishes at step 1.
        let history = [4, 5, 9, 6, 4, 9];
        assert_eq!(
            outputs_from_history(&history, 2, 3, 9),
            [vec![4, 9], vec![5, 6, 9]]
        );
        assert_eq!(outputs_from_history(&history, 2, 1, 9), [vec![4], vec![5]]);
    }
}
