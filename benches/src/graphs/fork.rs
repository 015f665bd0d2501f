//! A capture across two streams: two independent chains of kernels,
//! captured on one stream (one chain after the other) or forked onto a
//! second stream and joined back (the chains side by side), and what a
//! replay of each costs the GPU.

use super::{Error, gpu_time, range};
use crate::{Summary, duration_text};
use gpu::{Graph, Stream};
use std::fmt;
use std::time::Duration;

/// Kernels in each chain.
pub const CHAIN: usize = 4;
/// How long each kernel of the chains runs.
pub const KERNEL: Duration = Duration::from_micros(100);

// ANCHOR: capture_two_chains
/// Captures two chains of [`CHAIN`] kernels on `stream`: both on it, one
/// after the other, or with `side`, the second chain forked onto `side`
/// and joined back before the capture ends.
pub fn capture_two_chains(stream: &Stream, side: Option<&Stream>) -> Result<Graph, Error> {
    stream.begin_capture()?;
    let second = match side {
        Some(side) => {
            side.wait_event(&stream.record_event()?)?; // fork: `side` joins the capture
            side
        }
        None => stream,
    };
    for _ in 0..CHAIN {
        stream.spin(KERNEL)?;
        second.spin(KERNEL)?;
    }
    if let Some(side) = side {
        stream.wait_event(&side.record_event()?)?; // join: back into `stream`
    }
    Ok(stream.end_capture()?)
}
// ANCHOR_END: capture_two_chains

/// GPU time of a replay (behind a gate, between events) of both graphs.
#[derive(Clone, Copy, Debug)]
pub struct ForkJoin {
    /// Captured on one stream.
    pub one_stream: Summary,
    /// Captured across two streams.
    pub two_streams: Summary,
}

/// The block of the `graphs_replay` report: both replays' GPU times.
impl fmt::Display for ForkJoin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "two chains of {CHAIN} kernels of {}, replayed (GPU time behind a gate, events)",
            duration_text(KERNEL.as_nanos() as f64)
        )?;
        writeln!(
            f,
            "  captured on one stream:                    {}",
            range(&self.one_stream)
        )?;
        writeln!(
            f,
            "  captured across two streams (fork, join):  {}",
            range(&self.two_streams)
        )
    }
}

/// Captures both graphs and times `reps` replays of each.
pub fn measure(stream: &Stream, side: &Stream, reps: usize) -> Result<ForkJoin, Error> {
    let chained = capture_two_chains(stream, None)?;
    let forked = capture_two_chains(stream, Some(side))?;
    Ok(ForkJoin {
        one_stream: gpu_time(stream, reps, |_| Ok(chained.launch()?))?,
        two_streams: gpu_time(stream, reps, |_| Ok(forked.launch()?))?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu::{Backend, Device};

    #[test]
    fn the_forked_graph_replays_its_chains_side_by_side() {
        let device = Device::open(Backend::Virtual).unwrap();
        let (s, t) = (device.new_stream().unwrap(), device.new_stream().unwrap());
        let m = measure(&s, &t, 3).unwrap();
        let chain = (CHAIN as f64) * KERNEL.as_nanos() as f64;
        let (one, two) = (m.one_stream.median, m.two_streams.median);
        assert!((2.0 * chain..2.1 * chain).contains(&one), "{m:?}");
        assert!((chain..1.1 * chain).contains(&two), "{m:?}");
    }

    #[test]
    fn both_graphs_hold_every_kernel() {
        let device = Device::open(Backend::Virtual).unwrap();
        let (s, t) = (device.new_stream().unwrap(), device.new_stream().unwrap());
        let one = capture_two_chains(&s, None).unwrap();
        let two = capture_two_chains(&s, Some(&t)).unwrap();
        assert_eq!((one.len(), two.len()), (2 * CHAIN, 2 * CHAIN));
    }
}
