//! What a long build shows while it runs: on a terminal a spinner with
//! the crate cargo finished last; elsewhere (a CI log, a pipe, `tee`) a
//! line every few seconds naming what is being built, how many crates are
//! done and the last one, so that a first build of several minutes is not
//! silent. A build done within the first interval prints nothing there.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often a line is printed outside a terminal.
pub(crate) const EVERY: Duration = Duration::from_secs(5);

/// How a build shows that it is running.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Shown {
    /// A spinner (stderr is a terminal).
    Spinner,
    /// A line every [`EVERY`] on stderr.
    Lines,
    /// Nothing.
    #[default]
    Nothing,
}

impl Shown {
    /// A spinner on a terminal, else lines.
    pub(crate) fn on_stderr() -> Self {
        match std::io::stderr().is_terminal() {
            true => Self::Spinner,
            false => Self::Lines,
        }
    }
}

/// What the lines report: crates done, and the last one.
#[derive(Debug, Default)]
struct Done {
    /// Crates cargo has finished.
    count: usize,
    /// The last one.
    last: Option<String>,
}

/// A running build's display; [`Ticker::finish`] (or dropping it) ends it.
#[derive(Debug)]
pub(crate) struct Ticker {
    /// The spinner, on a terminal.
    spinner: Option<ProgressBar>,
    /// What the lines report, outside one.
    done: Arc<Mutex<Done>>,
    /// Stops the thread that prints the lines.
    stop: Option<mpsc::Sender<()>>,
    /// That thread.
    thread: Option<JoinHandle<()>>,
}

impl Ticker {
    /// Starts showing that `what` (`exercise 105's checks`) is being built.
    pub(crate) fn start(shown: Shown, what: &str) -> Self {
        let done = Arc::new(Mutex::new(Done::default()));
        let mut ticker = Self {
            spinner: None,
            done: Arc::clone(&done),
            stop: None,
            thread: None,
        };
        match shown {
            Shown::Spinner => ticker.spinner = Some(spinner(&format!("building {what}"))),
            Shown::Lines => {
                let (stop, stopped) = mpsc::channel();
                let what = what.to_string();
                ticker.thread = Some(std::thread::spawn(move || lines(&what, &done, &stopped)));
                ticker.stop = Some(stop);
            }
            Shown::Nothing => {}
        }
        ticker
    }

    /// Cargo finished the crate `name`.
    pub(crate) fn finished(&self, name: &str) {
        if let Some(spinner) = &self.spinner {
            spinner.set_message(format!("compiling: {name} done"));
        }
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        done.count += 1;
        done.last = Some(name.to_string());
    }

    /// Ends the display.
    pub(crate) fn finish(mut self) {
        self.end();
    }

    /// Clears the spinner, stops the lines.
    fn end(&mut self) {
        if let Some(spinner) = self.spinner.take() {
            spinner.finish_and_clear();
        }
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.end();
    }
}

/// Prints a line every [`EVERY`] until `stopped` says the build ended.
fn lines(what: &str, done: &Mutex<Done>, stopped: &mpsc::Receiver<()>) {
    let started = Instant::now();
    while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(EVERY) {
        let done = done.lock().unwrap_or_else(|e| e.into_inner());
        eprintln!("{}", line(what, &done, started.elapsed()));
    }
}

/// One progress line: `building exercise 105's checks: 37 crates compiled,
/// the last `serde` (25 s)`.
fn line(what: &str, done: &Done, elapsed: Duration) -> String {
    let seconds = elapsed.as_secs();
    match (&done.last, done.count) {
        (None, _) => format!("building {what}: cargo is starting ({seconds} s)"),
        (Some(last), 1) => format!("building {what}: 1 crate compiled, `{last}` ({seconds} s)"),
        (Some(last), n) => {
            format!("building {what}: {n} crates compiled, the last `{last}` ({seconds} s)")
        }
    }
}

/// A terminal's spinner showing `message` and the time so far.
fn spinner(message: &str) -> ProgressBar {
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{elapsed}]").expect("a valid template"),
    );
    bar.set_message(message.to_string());
    bar.enable_steady_tick(Duration::from_millis(100));
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_names_the_build_the_crates_done_and_the_time() {
        let mut done = Done::default();
        let at = Duration::from_secs(5);
        assert_eq!(
            line("exercise 105's checks", &done, at),
            "building exercise 105's checks: cargo is starting (5 s)"
        );
        done.count = 1;
        done.last = Some("libc".into());
        assert_eq!(
            line("x", &done, at),
            "building x: 1 crate compiled, `libc` (5 s)"
        );
        done.count = 37;
        done.last = Some("serde".into());
        assert_eq!(
            line("x", &done, Duration::from_millis(25_900)),
            "building x: 37 crates compiled, the last `serde` (25 s)"
        );
    }

    #[test]
    fn a_ticker_counts_what_cargo_finished_and_ends_at_once() {
        let ticker = Ticker::start(Shown::Lines, "x");
        ticker.finished("a");
        ticker.finished("b");
        {
            let done = ticker.done.lock().unwrap();
            assert_eq!((done.count, done.last.as_deref()), (2, Some("b")));
        }
        let started = Instant::now();
        ticker.finish();
        assert!(started.elapsed() < EVERY, "finishing does not wait a tick");
    }
}
