//! The lines a measurement file starts with: what produced its figures, from
//! which commit, on which device, driver and compiler, on which day.
//!
//! Every program whose output the book quotes (the examples of this crate
//! and of `workbook-benches`) prints a [`MeasurementHeader`] first, so that
//! a figure copied into the book carries its provenance, and the book's
//! checks (`book-check`) can ask git whether the code measured has changed
//! since (the `commit:` line).

use crate::{BackendKind, Device};
use std::fmt;

/// The provenance of a measurement, printed as one `key: value` line each:
///
/// ```text
/// command: cargo run --release -p workbook-benches --example startup
/// device:  NVIDIA H200 (cuda backend)
/// driver:  580.159.04
/// nvrtc:   13.0
/// commit:  3f538a8d0c2e
/// date:    2026-12-01
/// ```
///
/// `driver:` and `nvrtc:` are there on the CUDA backend only (the virtual
/// GPU has neither), each when it is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MeasurementHeader {
    /// The command that printed the measurement.
    pub command: String,
    /// The device's name and backend: `NVIDIA H200 (cuda backend)`.
    pub device: String,
    /// The NVIDIA kernel driver's version ([`crate::nvidia_driver_version`]).
    pub driver: Option<String>,
    /// The version of NVRTC, which compiled the kernels ([`crate::nvrtc_version`]).
    pub nvrtc: Option<String>,
    /// The git commit the program was built from (`-dirty` when the measured
    /// code had uncommitted changes then).
    pub commit: String,
    /// The day of the measurement, `YYYY-MM-DD` (UTC).
    pub date: String,
}

impl MeasurementHeader {
    /// The header of a measurement made now on `device` by `command`, built
    /// from `commit`, on `date`. Reads the driver's and NVRTC's versions on
    /// the CUDA backend.
    pub fn new(device: &Device, command: &str, commit: &str, date: &str) -> Self {
        let cuda = device.backend() == BackendKind::Cuda;
        Self {
            command: command.to_string(),
            device: format!("{} ({} backend)", device.name(), device.backend()),
            driver: cuda.then(crate::nvidia_driver_version).flatten(),
            nvrtc: cuda.then(crate::nvrtc_version).flatten(),
            commit: commit.to_string(),
            date: date.to_string(),
        }
    }
}

impl fmt::Display for MeasurementHeader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "command: {}", self.command)?;
        writeln!(f, "device:  {}", self.device)?;
        if let Some(driver) = &self.driver {
            writeln!(f, "driver:  {driver}")?;
        }
        if let Some(nvrtc) = &self.nvrtc {
            writeln!(f, "nvrtc:   {nvrtc}")?;
        }
        writeln!(f, "commit:  {}", self.commit)?;
        writeln!(f, "date:    {}", self.date)
    }
}

#[cfg(test)]
mod tests {
    use super::MeasurementHeader;
    use crate::{Backend, Device};

    #[test]
    fn the_virtual_gpu_has_no_driver_nor_nvrtc_line() {
        let device = Device::open(Backend::Virtual).unwrap();
        let header =
            MeasurementHeader::new(&device, "cargo run --example x", "0123abcd", "2026-12-01");
        assert_eq!(
            header.to_string(),
            "command: cargo run --example x\n\
             device:  virtual GPU (virtual backend)\n\
             commit:  0123abcd\n\
             date:    2026-12-01\n"
        );
    }

    #[test]
    fn a_cuda_header_names_the_driver_and_nvrtc() {
        let header = MeasurementHeader {
            command: "cargo run --example x".into(),
            device: "NVIDIA H200 (cuda backend)".into(),
            driver: Some("580.159.04".into()),
            nvrtc: Some("13.0".into()),
            commit: "0123abcd-dirty".into(),
            date: "2026-12-01".into(),
        };
        assert_eq!(
            header.to_string(),
            "command: cargo run --example x\n\
             device:  NVIDIA H200 (cuda backend)\n\
             driver:  580.159.04\n\
             nvrtc:   13.0\n\
             commit:  0123abcd-dirty\n\
             date:    2026-12-01\n"
        );
    }
}
