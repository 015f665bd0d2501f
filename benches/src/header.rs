//! The first lines of every measurement the book shows: what produced it,
//! from which commit, on which device, driver and NVRTC, on which day.

use gpu::{Backend, Device, DeviceOptions, MeasurementHeader};

/// The header of a measurement ([`gpu::MeasurementHeader`]): the command
/// that printed it, the device and its backend, on a real GPU the NVIDIA
/// driver's and NVRTC's versions, the commit the program was built from
/// (`workbook_commit::COMMIT` in the examples) and today's date, one
/// `key: value` line each, so that a figure copied into the book carries
/// its provenance.
pub fn header(device: &Device, command: &str, commit: &str) -> String {
    MeasurementHeader::new(device, command, commit, &crate::today()).to_string()
}

/// The command that runs example `name` of this crate, in release mode.
pub fn example_command(name: &str) -> String {
    format!("cargo run --release -p workbook-benches --example {name}")
}

/// Opens the device example `name` measures (CUDA when a GPU is present,
/// else the virtual GPU) and prints the header of its output, with the
/// commit the example was built from.
pub fn open_example(name: &str, commit: &str) -> gpu::Result<Device> {
    open_with(name, commit, false)
}

/// [`open_example`] with GPU timing on: on the CUDA backend every operation
/// is timed with events (a few µs of CPU each), so that the trace has the
/// GPU start and end times the virtual GPU always gives.
pub fn open_timed_example(name: &str, commit: &str) -> gpu::Result<Device> {
    open_with(name, commit, true)
}

fn open_with(name: &str, commit: &str, gpu_timing: bool) -> gpu::Result<Device> {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Auto,
        gpu_timing,
        ..DeviceOptions::default()
    })?;
    print!("{}", header(&device, &example_command(name), commit));
    Ok(device)
}

#[cfg(test)]
mod tests {
    use super::{example_command, header};
    use gpu::{Backend, Device};

    #[test]
    fn the_header_names_command_device_commit_and_date() {
        let device = Device::open(Backend::Virtual).unwrap();
        let text = header(&device, &example_command("startup"), "0123456789ab-dirty");
        let keys: Vec<&str> = text.lines().map(|l| l.split(':').next().unwrap()).collect();
        // The virtual GPU has no driver and no NVRTC: no lines for them.
        assert_eq!(keys, ["command", "device", "commit", "date"], "{text}");
        assert!(text.starts_with(
            "command: cargo run --release -p workbook-benches --example startup\n\
             device:  virtual GPU (virtual backend)\n\
             commit:  0123456789ab-dirty\n\
             date:    "
        ));
        assert!(text.ends_with(&format!("{}\n", crate::today())), "{text}");
    }
}
