//! What the examples whose output the book shows share: the header of that
//! output (`gpu::MeasurementHeader`).

use gpu::{Device, MeasurementHeader};

/// The header of example `name`'s output on `device`: the command that ran
/// it (with its arguments), the device, driver and NVRTC, the commit it was
/// built from and today's date (UTC).
pub(crate) fn header(device: &Device, name: &str) -> String {
    let mut command = format!("cargo run --release -p gpu --example {name}");
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !args.is_empty() {
        command = format!("{command} -- {}", args.join(" "));
    }
    let today = jiff::Timestamp::now().strftime("%Y-%m-%d").to_string();
    MeasurementHeader::new(device, &command, workbook_commit::COMMIT, &today).to_string()
}
