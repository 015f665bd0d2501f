//! Measures the virtual GPU's cost table on this machine's GPU (or on the
//! virtual GPU itself where there is none) and compares it with the defaults.
//!
//! ```text
//! cargo run --release --example calibrate -- [OUT.json]
//! ```
//!
//! Prints the header every measurement of the book starts with (command,
//! device, driver, NVRTC, commit, date), then every figure next to its
//! default (the H200 of `DESIGN.md` section 3) and their ratio, right under
//! the header (the hidden-syncs chapter includes the header and some rows by
//! line number), then the device-memory traffic behind the three rates of
//! device memory: a device-to-device copy reads and writes each byte it
//! copies, so its traffic is twice its rate, and last how long it took and
//! the table's `source`. With `OUT.json`, saves the table
//! there: the virtual GPU then uses it with `GPU_CALIBRATION=OUT.json`. On the
//! virtual GPU every ratio should be close to 1: the model reproduces its own
//! table.

mod support;

use gpu::{Backend, Calibration, Device};
use serde_json::Value;
use std::path::PathBuf;
use std::time::Instant;

fn main() -> gpu::Result<()> {
    let out = std::env::args_os().nth(1).map(PathBuf::from);
    let device = Device::open(Backend::Auto)?;
    let started = Instant::now();
    let mut measured = gpu::measure(&device)?;
    let took = started.elapsed();
    let version = |name: &str, v: Option<String>| v.map(|v| format!(", {name} {v}"));
    measured.source = format!(
        "{}{}{}, commit {}, {}",
        measured.source,
        version("driver", gpu::nvidia_driver_version()).unwrap_or_default(),
        version("nvrtc", gpu::nvrtc_version()).unwrap_or_default(),
        workbook_commit::COMMIT,
        today()
    );
    print!("{}", support::header(&device, "calibrate"));
    print_table(&measured, &Calibration::default());
    print_traffic(&measured);
    println!(
        "\nmeasured in {:.1} s: {}",
        took.as_secs_f64(),
        measured.source
    );
    if let Some(path) = out {
        measured.save(&path)?;
        println!("saved to {}", path.display());
    }
    Ok(())
}

/// One line per field: the measured figure, the default and their ratio.
fn print_table(measured: &Calibration, default: &Calibration) {
    let text = serde_json::to_string_pretty(default).expect("a calibration serializes");
    let (measured, default) = (json(measured), json(default));
    println!(
        "{:<26} {:>16} {:>16} {:>7}",
        "field", "measured", "default", "ratio"
    );
    // The fields in the struct's order, as the JSON text has them.
    let fields = text
        .lines()
        .filter_map(|line| line.trim().split_once(':'))
        .map(|(key, _)| key.trim_matches('"'));
    for field in fields.filter(|field| default[*field].is_number()) {
        let (got, want) = (&measured[field], &default[field]);
        let ratio = got.as_f64().unwrap_or(f64::NAN) / want.as_f64().unwrap_or(f64::NAN);
        println!(
            "{field:<26} {:>16} {:>16} {ratio:>7.3}",
            figure(got),
            figure(want)
        );
    }
}

/// The rates of device memory (bytes per ns are GB/s) and the traffic each
/// makes: what to hold against the device's peak bandwidth.
fn print_traffic(measured: &Calibration) {
    println!("\ndevice memory, between L2 flushes      rate   traffic (GB/s)");
    let rows = [
        (
            "copy device to device (copied)",
            measured.d2d_bytes_per_ns,
            2.0,
        ),
        ("fill (written)", measured.hbm_bytes_per_ns, 1.0),
        ("sum (read)", measured.sum_bytes_per_ns, 1.0),
    ];
    for (what, rate, moves) in rows {
        println!("  {what:<32} {rate:>8.0}  {:>8.0}", rate * moves);
    }
}

/// The table as a JSON value, field by field.
fn json(calibration: &Calibration) -> Value {
    serde_json::to_value(calibration).expect("a calibration serializes")
}

/// A figure as the table shows it: whole numbers as they are, rates to 3 decimals.
fn figure(value: &Value) -> String {
    match (value.as_u64(), value.as_f64()) {
        (Some(n), _) => n.to_string(),
        (None, Some(x)) => format!("{x:.3}"),
        _ => value.to_string(),
    }
}

/// Today's date (UTC) as YYYY-MM-DD.
fn today() -> String {
    jiff::Timestamp::now().strftime("%Y-%m-%d").to_string()
}
