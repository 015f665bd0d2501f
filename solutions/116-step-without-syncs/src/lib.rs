//! One decode step of a small inference engine, run step after step on one
//! stream: the scheduler hands each step its input tokens, the decoder
//! predicts one token per request, the GPU marks the requests that
//! predicted `eos` as finished, and the step's GPU time is measured.
//!
//! The step is in `src/decoding.rs` ([`Decoding`]); this file holds what it
//! is configured with and what it reports, which stay as they are.

mod decoding;

pub use decoding::Decoding;

/// How the decoding runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Requests in the batch: every step takes this many input tokens.
    pub batch: usize,
    /// The most steps the decoding will be asked to run.
    pub max_steps: usize,
    /// The end-of-sequence token: a request whose prediction is `eos` is
    /// finished, and its later predictions are not part of its output.
    pub eos: i32,
}

/// What a run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// For each request, its predictions in step order, up to and including
    /// its first `eos` (or all of them if it never finished).
    pub outputs: Vec<Vec<i32>>,
    /// How many requests finished (predicted `eos` at some step).
    pub finished: usize,
    /// Each step's GPU time in milliseconds, one per step.
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
