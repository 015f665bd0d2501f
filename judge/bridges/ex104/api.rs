api! {
    types {
        /// How the server runs.
        #[derive(Clone, Debug, PartialEq, Eq)]
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
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct LogLine {
            /// The last step of the window (from 0).
            pub step: usize,
            /// Tokens generated in the window.
            pub tokens: u32,
            /// Requests finished after the window.
            pub finished: u32,
        }
        /// What a run produced.
        #[derive(Clone, Debug, PartialEq)]
        pub struct Report {
            /// For each request, its predictions in step order, up to its first `eos`.
            pub outputs: Vec<Vec<i32>>,
            /// The log lines, one per complete window of `log_every` steps.
            pub logs: Vec<LogLine>,
            /// The duration of each step in milliseconds.
            pub step_ms: Vec<f64>,
        }
    }
    objects {
        /// The learner's server, which lives in the agent.
        pub struct Server<'d> {
            /// The learner's `Server::new`, in the agent, on the judge's
            /// decoder and streams.
            pub fn new(decoder: &Decoder, compute: &Stream, copy: &Stream, config: Config) -> Result<Self>;
            /// The learner's `Server::step`, in the agent.
            pub fn step(&mut self, tokens: &[i32]) -> Result<()>;
            /// The learner's `Server::finish`, in the agent.
            pub fn finish(self) -> Result<Report>;
        }
    }
}
