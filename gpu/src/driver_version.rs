//! The NVIDIA kernel driver's version, as measurement files record it.

use std::path::Path;

/// Where the NVIDIA kernel module says its version.
const VERSION_FILE: &str = "/proc/driver/nvidia/version";

/// The NVIDIA kernel driver's version (`580.159.04`), read from
/// `/proc/driver/nvidia/version`, or `None` on a machine without one.
pub fn nvidia_driver_version() -> Option<String> {
    version_in(&std::fs::read_to_string(Path::new(VERSION_FILE)).ok()?)
}

/// The version in the text of that file: the first word of its first line
/// made of digits and dots with at least one dot.
fn version_in(text: &str) -> Option<String> {
    text.lines()
        .next()?
        .split_whitespace()
        .find(|w| w.contains('.') && w.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::version_in;

    #[test]
    fn the_version_is_read_from_the_modules_first_line() {
        let text = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Tue Oct 14 2025\nGCC version:  gcc version 12.2.0\n";
        assert_eq!(version_in(text).as_deref(), Some("580.159.04"));
        assert_eq!(version_in("no version here\n"), None);
        assert_eq!(version_in(""), None);
    }
}
