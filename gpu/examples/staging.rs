//! How the driver stages copies from pageable memory: several small copies
//! queued behind a busy stream, and a small copy on an idle stream while
//! another stream's copy waits in the staging buffer; last, whether the
//! slots are the driver's or each stream's: two copies on a busy stream
//! (as many as there are slots), then one on an idle stream.
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
    shared_slots(&device, &a, &b)
}

/// Two slot-sized copies queued behind a busy stream, then one on an idle
/// stream: whether it waits says whether the staging slots are shared.
fn shared_slots(device: &Device, a: &gpu::Stream, b: &gpu::Stream) -> Result<()> {
    let host = vec![1u32; 256 * 256];
    let dst: Vec<_> = (0..2)
        .map(|_| a.alloc_zeros::<u32>(host.len()))
        .collect::<Result<_>>()?;
    let other = b.alloc_zeros::<u32>(host.len())?;
    device.synchronize()?;
    a.spin(GATE)?;
    for d in &dst {
        a.copy_from_host(&host, d)?;
    }
    let t = device.now();
    b.copy_from_host(&host, &other)?;
    println!(
        "2 copies of 256 KiB on a stream behind a {} ms kernel, then 256 KiB on an idle stream: {:.2} ms",
        GATE.as_millis(),
        (device.now() - t).as_secs_f64() * 1e3
    );
    device.synchronize()
}
