//! What one launch of an empty kernel costs the CPU, and how much of that is
//! the `gpu` crate's bookkeeping: cudarc's result layer, cudarc's
//! `launch_builder`, and the crate's `spin(0)` with its trace and race
//! checker on and off, 120 rounds of 200 launches each, pair by pair; then
//! the crate's launch made from a second process through the link the
//! judge's checker serves a learner's process over, with what a launch, a
//! `query` and the clock cost the calling process each way. Three runs of
//! that, one after the other, with the ratios per run.
//!
//! ```text
//! cargo run --release -p workbook-benches --example launch_overhead
//! GPU_BACKEND=virtual cargo run --release -p workbook-benches --example launch_overhead
//! ```
//!
//! On the virtual GPU only the crate's two ways and the link run, timed on
//! this machine's real clock: their differences are the cost of the trace
//! and the race checker, and of the link, which are the same code on both
//! backends.

use gpu::{Backend, BackendKind, LaunchBench, measure_launches};
use std::error::Error;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};
use workbook_benches::launch_overhead::{self, LinkRun, Run};
use workbook_benches::{example_command, header};
use workbook_commit::COMMIT;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

fn main() -> Result<()> {
    if std::env::args().nth(1).as_deref() == Some(launch_overhead::CALLING_SIDE) {
        let socket = UnixStream::from(std::io::stdin().as_fd().try_clone_to_owned()?);
        gpu::remote::bench::calling_side(socket)?;
        return Ok(());
    }
    let device = gpu::Device::open(Backend::Auto)?;
    let backend = match device.backend() {
        BackendKind::Cuda => Backend::Cuda,
        BackendKind::Virtual => Backend::Virtual,
    };
    let bench = LaunchBench {
        backend,
        rounds: launch_overhead::ROUNDS,
        ..LaunchBench::default()
    };
    let runs = (0..launch_overhead::RUNS)
        .map(|_| {
            Ok(Run {
                costs: measure_launches(&bench)?,
                link: Some(through_the_link(&device, &bench)?),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let header = header(&device, &example_command("launch_overhead"), COMMIT);
    print!("{}", launch_overhead::report(&header, &runs));
    Ok(())
}

/// The calls timed on a stream of `device`, then from this program run
/// again as the calling side, through the link.
fn through_the_link(device: &gpu::Device, bench: &LaunchBench) -> Result<LinkRun> {
    let stream = device.new_stream()?;
    let one_process = gpu::remote::bench::time_calls(&stream, bench.rounds, bench.launches)?;
    let (ours, theirs) = UnixStream::pair()?;
    let mut child = Command::new(std::env::current_exe()?)
        .arg(launch_overhead::CALLING_SIDE)
        .stdin(Stdio::from(OwnedFd::from(theirs)))
        .spawn()?;
    let through_link =
        gpu::remote::bench::serving_side(ours, &stream, bench.rounds, bench.launches);
    let _ = child.wait();
    Ok(LinkRun {
        one_process,
        through_link: through_link?,
    })
}
