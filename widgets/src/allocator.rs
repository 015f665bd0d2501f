//! The allocator chapter's widget: a small script run on the reference
//! caching allocator, drawn as the allocator figures are
//! ([`workbook_benches::figures::allocator::script`]).

use crate::controls::{Spec, Values, range, text};
use crate::view::{Error, View};
use workbook_benches::figures::allocator::script::{self, RECORD_STREAM, RECORD_STREAM_DEVICE_MIB};

/// The script and the device's size; the defaults are the `record_stream`
/// figure's.
pub(crate) fn spec() -> Spec {
    Spec {
        figure: "allocator-record-stream.svg",
        controls: vec![
            text("script", "script", RECORD_STREAM, 6),
            range(
                "device_mib",
                "device memory",
                (8, 256, 8),
                RECORD_STREAM_DEVICE_MIB as i64,
                "MiB",
            ),
        ],
    }
}

/// Runs the script: the segments and blocks after each line, allocated
/// against reserved at the end.
pub(crate) fn render(values: &Values) -> Result<View, Error> {
    let done = script::run(values.text("script"), values.int("device_mib") as usize)
        .map_err(Error::new)?;
    let report = match done.out_of_memory.is_empty() {
        true => String::new(),
        false => format!("Out of memory:\n{}", done.out_of_memory.join("\n")),
    };
    Ok(View::new(done.svg)
        .number("allocated", size(done.allocated))
        .number("reserved", size(done.reserved))
        .number("segments", done.segments.to_string())
        .number("pending frees", done.pending.to_string())
        .report(report))
}

/// `bytes` as `1 MiB`, `1.5 MiB` or `512 KiB`.
fn size(bytes: usize) -> String {
    const MIB: usize = 1 << 20;
    match bytes {
        b if b % MIB == 0 => format!("{} MiB", b / MIB),
        b if b >= MIB => format!("{:.1} MiB", b as f64 / MIB as f64),
        b => format!("{} KiB", b >> 10),
    }
}
