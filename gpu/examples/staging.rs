//! How the driver stages copies from pageable memory: several small copies
//! queued behind a busy stream, and a small copy on an idle stream while
//! another stream's copy waits in the staging buffer.
//!
//! ```text
//! cargo run --release -p gpu --example staging
//! ```

mod support;

use gpu::{Backend, Device, DeviceOptions, Result};
use std::time::Duration;

const GATE: Duration = Duration::from_millis(50);

fn main() -> Result<()> {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Auto,
        ..Default::default()
    })?;
    print!("{}", support::header(&device, "staging"));
    println!("\nbackend: {} ({})", device.backend(), device.name());
    let (a, b) = (device.new_stream()?, device.new_stream()?);
    for (kib, count) in [(4, 4), (256, 4), (1024, 4)] {
        let host = vec![1u32; kib * 256];
        let dst: Vec<_> = (0..count)
            .map(|_| a.alloc_zeros::<u32>(host.len()))
            .collect::<Result<_>>()?;
        device.synchronize()?;
        a.spin(GATE)?;
        let times: Vec<String> = dst
            .iter()
            .map(|d| {
                let t = device.now();
                a.copy_from_host(&host, d)
                    .map(|()| format!("{:.2}", (device.now() - t).as_secs_f64() * 1e3))
            })
            .collect::<Result<_>>()?;
        println!(
            "{count} copies of {kib} KiB on a stream behind a {} ms kernel: {} ms each",
            GATE.as_millis(),
            times.join(", ")
        );
        let other = b.alloc_zeros::<u32>(host.len())?;
        let t = device.now();
        b.copy_from_host(&host, &other)?;
        println!(
            "  then {kib} KiB on an idle stream: {:.2} ms",
            (device.now() - t).as_secs_f64() * 1e3
        );
        device.synchronize()?;
    }
    Ok(())
}
