//! Unit tests of `measure`.
use super::*;
use crate::{Backend, DeviceOptions};

/// Fields that must come back exactly.
const EXACT: [&str; 2] = ["total_memory", "staging_bytes"];
/// How far another measured field may be from the table.
const TOLERANCE: f64 = 0.25;

#[test]
fn the_virtual_gpu_reproduces_its_own_table() {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        calibration: Some(Calibration::default()),
        ..Default::default()
    })
    .unwrap();
    let measured = serde_json::to_value(measure(&device).unwrap()).unwrap();
    let table = serde_json::to_value(Calibration::default()).unwrap();
    let mut wrong = Vec::new();
    for (field, want) in table.as_object().unwrap() {
        let (Some(got), Some(want)) = (measured[field].as_f64(), want.as_f64()) else {
            continue; // the source
        };
        let exact = EXACT.contains(&field.as_str());
        if (exact && got != want) || (got / want - 1.0).abs() > TOLERANCE {
            wrong.push(format!("{field}: measured {got}, table {want}"));
        }
    }
    assert!(wrong.is_empty(), "measured vs table:\n{}", wrong.join("\n"));
    let source = measured["source"].as_str().unwrap();
    assert!(source.starts_with("virtual GPU (virtual)"), "{source}");
}
