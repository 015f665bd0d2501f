//! The streams chapter's legacy default stream timeline:
//! [`crate::default_stream::stray_kernel`] on the virtual GPU, both runs in
//! one window.

use super::live_device;
use crate::default_stream::stray_kernel;
use gpu::{OpKind, SvgOptions};

/// The figure: from the first kernel of the first run to the end of the
/// second.
pub(super) fn stray() -> String {
    let device = live_device().expect("the virtual GPU opens");
    stray_kernel(&device).expect("the runs fit on the virtual GPU");
    let mut trace = device.trace();
    // The flag is freed when the scenario returns: teardown, not the pattern.
    trace.entries.retain(|e| e.op != OpKind::Free);
    let first = trace
        .entries
        .iter()
        .find(|e| e.op == OpKind::Launch)
        .map_or(0, |e| e.cpu_start_ns);
    let end = trace.entries.last().map_or(first, |e| e.cpu_end_ns);
    let pad = (end - first) / 40;
    trace.to_svg(&SvgOptions {
        width: 1000,
        title: Some(
            "Streams 1 and 2 side by side, then again with one fill on the legacy default stream (stream 3)"
                .to_string(),
        ),
        window_ns: Some((first.saturating_sub(pad), end + pad)),
    })
}
