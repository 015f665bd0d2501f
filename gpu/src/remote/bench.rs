//! What the link costs a learner's call, measured the way the judge runs it:
//! the same calls timed on a stream of the process's own and on a proxy of a
//! stream of another process's ([`time_calls`], run in each), the other
//! process serving them as a checker does ([`serve_until_done`]).
//!
//! Three calls: a launch (`spin(0)`, which returns once the checker has made
//! it, so the learner's loop pays what one process pays plus the trip), a
//! `query` (a call that waits for the device's answer), and `now` (the
//! checker's clock: the round trip alone, for a proxy).

use super::link::{Frame, Link};
use super::{StreamRef, agent, host};
use crate::{Result, Stream};
use serde::{Deserialize, Serialize};
use std::io;
use std::os::unix::net::UnixStream;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Individually timed calls of one kind, in nanoseconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CallTimes {
    /// Each round's median launch, in microseconds (rounds of `launches`).
    pub launch_rounds_us: Vec<f64>,
    /// Every timed launch.
    pub launches_ns: Vec<u64>,
    /// Every timed `query`.
    pub queries_ns: Vec<u64>,
    /// Every timed `now`.
    pub nows_ns: Vec<u64>,
}

impl CallTimes {
    /// The `q`-quantile (0 to 1) of `times`, in microseconds; `None` of none.
    pub fn quantile_us(times: &[u64], q: f64) -> Option<f64> {
        let mut sorted = times.to_vec();
        sorted.sort_unstable();
        let last = sorted.len().checked_sub(1)?;
        let at = ((last as f64) * q.clamp(0.0, 1.0)).round() as usize;
        Some(sorted[at] as f64 / 1e3)
    }
}

/// Times `rounds` rounds (after one warm-up round) of `launches` launches
/// of an empty kernel on `stream`, each launch on its own, the stream
/// drained between rounds; then as many `query` and `now` calls.
pub fn time_calls(stream: &Stream, rounds: usize, launches: usize) -> Result<CallTimes> {
    let mut times = CallTimes::default();
    let mut round = Vec::with_capacity(launches);
    for r in 0..=rounds {
        stream.synchronize()?;
        round.clear();
        for _ in 0..launches {
            let start = Instant::now();
            stream.spin(Duration::ZERO)?;
            round.push(start.elapsed().as_nanos() as u64);
        }
        if r == 0 {
            continue;
        }
        times.launches_ns.extend_from_slice(&round);
        let median = CallTimes::quantile_us(&round, 0.5).unwrap_or(0.0);
        times.launch_rounds_us.push(median);
        stream.synchronize()?;
        for _ in 0..launches {
            let start = Instant::now();
            stream.query()?;
            times.queries_ns.push(start.elapsed().as_nanos() as u64);
            let start = Instant::now();
            std::hint::black_box(stream.device().now());
            times.nows_ns.push(start.elapsed().as_nanos() as u64);
        }
    }
    stream.synchronize()?;
    Ok(times)
}

/// Serves the device calls that arrive on `link`, as the judge's checker
/// does, until the other side sends a harness message: returns its bytes.
pub fn serve_until_done(link: &Link) -> io::Result<Vec<u8>> {
    loop {
        match link.recv()? {
            Frame::Gpu(call) => {
                let answer =
                    host::serve(call).map_err(|stop| io::Error::other(format!("{stop:?}")))?;
                link.send(&Frame::GpuReply(answer))?;
            }
            Frame::Harness(bytes) => return Ok(bytes),
            Frame::GpuReply(_) => {
                return Err(io::Error::other(
                    "an answer arrived from the learner's side",
                ));
            }
        }
    }
}

/// What the measuring side asks of the other: the stream to launch on, how
/// many rounds of how many launches.
#[derive(Serialize, Deserialize)]
struct Ask {
    stream: StreamRef,
    rounds: usize,
    launches: usize,
}

/// The measuring side, over `socket` (whose other end is the process that
/// runs [`calling_side`]): offers the link, hands over `stream`, serves the
/// other side's calls on it and returns what it timed.
pub fn serving_side(
    socket: UnixStream,
    stream: &Stream,
    rounds: usize,
    launches: usize,
) -> io::Result<CallTimes> {
    let spin = match stream.device().backend() {
        crate::BackendKind::Cuda => super::SPIN_ON_A_GPU,
        crate::BackendKind::Virtual => (Duration::ZERO, Duration::ZERO),
    };
    let link = Link::offer(socket, spin)?;
    let ask = Ask {
        stream: host::export_stream(stream),
        rounds,
        launches,
    };
    link.send(&Frame::Harness(
        postcard::to_stdvec(&ask).map_err(io::Error::other)?,
    ))?;
    let answer = serve_until_done(&link);
    host::reset();
    postcard::from_bytes(&answer?).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// The calling side (the learner's process, as the judge runs it): takes
/// the link on `socket`, times the calls on the stream it is handed, sends
/// the times back.
pub fn calling_side(socket: UnixStream) -> io::Result<()> {
    let link = Rc::new(Link::accept(socket)?);
    let Frame::Harness(bytes) = link.recv()? else {
        return Err(io::Error::other("the serving side sent no stream"));
    };
    let ask: Ask =
        postcard::from_bytes(&bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    let stream = agent::stream(&link, ask.stream);
    let times = time_calls(&stream, ask.rounds, ask.launches).map_err(io::Error::other)?;
    drop(stream);
    link.send(&Frame::Harness(
        postcard::to_stdvec(&times).map_err(io::Error::other)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Backend, Device};

    #[test]
    fn calls_are_timed_in_one_process_and_through_the_link() {
        let device = Device::open(Backend::Virtual).unwrap();
        let stream = device.new_stream().unwrap();
        let one = time_calls(&stream, 2, 10).unwrap();
        let (ours, theirs) = UnixStream::pair().unwrap();
        let other = std::thread::spawn(move || calling_side(theirs));
        let through = serving_side(ours, &stream, 2, 10).unwrap();
        other.join().unwrap().unwrap();
        for times in [&one, &through] {
            assert_eq!(times.launch_rounds_us.len(), 2);
            assert_eq!(times.launches_ns.len(), 20);
            assert_eq!((times.queries_ns.len(), times.nows_ns.len()), (20, 20));
        }
        // Every launch through the link reached the serving side's device.
        let trace = device.trace();
        let launches = trace
            .entries
            .iter()
            .filter(|e| e.op == crate::trace::OpKind::Launch)
            .count();
        assert_eq!(
            launches,
            2 * (3 * 10),
            "a warm-up round and two timed, each way"
        );
    }

    #[test]
    fn quantiles_pick_from_the_sorted_times() {
        let times = [5_000, 1_000, 3_000, 2_000, 4_000];
        assert_eq!(CallTimes::quantile_us(&times, 0.5), Some(3.0));
        assert_eq!(CallTimes::quantile_us(&times, 0.99), Some(5.0));
        assert_eq!(CallTimes::quantile_us(&[], 0.5), None);
    }
}
