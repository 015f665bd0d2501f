//! The first lines of every measurement the book shows: what produced it,
//! on which device, on which day.

use gpu::Device;

/// The header of a measurement: the command that printed it, the device and
/// its backend, and today's date, one `key: value` line each, so that a
/// figure copied into the book carries its provenance.
pub fn header(device: &Device, command: &str) -> String {
    format!(
        "command: {command}\ndevice:  {} ({} backend)\ndate:    {}\n",
        device.name(),
        device.backend(),
        crate::today()
    )
}
