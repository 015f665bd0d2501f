//! The `gpu` crate's own work in one launch, for callgrind to count: `N`
//! launches of `spin(0)` on the virtual GPU, with the trace and race
//! checker on or off. `benches/callgrind/launch-instructions` runs it under
//! callgrind and subtracts the virtual GPU's model of each launch from the
//! crate's `Stream::spin`: what is left is the front end, the same code on
//! both backends (the CUDA backend's own few steps before `cuLaunchKernel`
//! are not in it).
//!
//! ```text
//! benches/callgrind/launch-instructions
//! cargo run --release -p workbook-benches --example launch_instructions -- on 10000
//! ```

use gpu::{Backend, Device, DeviceOptions, Result};
use std::time::Duration;

fn main() -> Result<()> {
    let (checks, launches) = args().unwrap_or_else(|| {
        eprintln!(
            "error: `launch_instructions` takes `on` or `off` (the trace and race checker) and a number of launches, e.g. `on 10000`"
        );
        std::process::exit(2)
    });
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        trace: checks,
        race_check: checks,
        ..DeviceOptions::default()
    })?;
    let stream = device.new_stream()?;
    for _ in 0..launches {
        stream.spin(Duration::ZERO)?;
    }
    stream.synchronize()
}

/// `on|off N` from the command line.
fn args() -> Option<(bool, usize)> {
    let mut args = std::env::args().skip(1);
    let checks = match args.next()?.as_str() {
        "on" => true,
        "off" => false,
        _ => return None,
    };
    let launches = args.next()?.parse().ok()?;
    args.next().is_none().then_some((checks, launches))
}
