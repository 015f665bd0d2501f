//! The first lines of every measurement the book shows: what produced it,
//! on which device, on which day.

use gpu::{Backend, Device, DeviceOptions};

/// The header of a measurement: the command that printed it, the device and
/// its backend, and today's date, one `key: value` line each, so that a
/// figure copied into the book carries its provenance.
/// On a real GPU a line names the NVIDIA driver too.
pub fn header(device: &Device, command: &str) -> String {
    let driver = match (device.backend(), gpu::nvidia_driver_version()) {
        (gpu::BackendKind::Cuda, Some(version)) => format!("driver:  {version}\n"),
        _ => String::new(),
    };
    format!(
        "command: {command}\ndevice:  {} ({} backend)\n{driver}date:    {}\n",
        device.name(),
        device.backend(),
        crate::today()
    )
}

/// The command that runs example `name` of this crate, in release mode.
pub fn example_command(name: &str) -> String {
    format!("cargo run --release -p workbook-benches --example {name}")
}

/// Opens the device example `name` measures (CUDA when a GPU is present,
/// else the virtual GPU) and prints the header of its output.
pub fn open_example(name: &str) -> gpu::Result<Device> {
    open_with(name, false)
}

/// [`open_example`] with GPU timing on: on the CUDA backend every operation
/// is timed with events (a few µs of CPU each), so that the trace has the
/// GPU start and end times the virtual GPU always gives.
pub fn open_timed_example(name: &str) -> gpu::Result<Device> {
    open_with(name, true)
}

fn open_with(name: &str, gpu_timing: bool) -> gpu::Result<Device> {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Auto,
        gpu_timing,
        ..DeviceOptions::default()
    })?;
    print!("{}", header(&device, &example_command(name)));
    Ok(device)
}
