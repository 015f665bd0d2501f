//! Reading a trace as a profile: which GPU work ended while the CPU was in
//! a call, and what was still running when it began.

use gpu::{GpuSpan, TraceEntry};

/// The entries before `call` whose GPU work ended while the CPU was in
/// `call`: after it began, and before it returned or a tenth of its time
/// after (the GPU's times are placed on the CPU's clock to a few
/// microseconds).
pub(crate) fn ended_in<'t>(entries: &'t [TraceEntry], call: &TraceEntry) -> Vec<&'t TraceEntry> {
    let slack = call.cpu_ns() / 10;
    before(entries, call)
        .filter(|(_, gpu)| gpu.end_ns > call.cpu_start_ns && gpu.end_ns <= call.cpu_end_ns + slack)
        .map(|(e, _)| e)
        .collect()
}

/// The entries before `call` whose GPU work was still running when the
/// call began.
pub(crate) fn running_at<'t>(entries: &'t [TraceEntry], call: &TraceEntry) -> Vec<&'t TraceEntry> {
    before(entries, call)
        .filter(|(_, gpu)| gpu.end_ns > call.cpu_start_ns)
        .map(|(e, _)| e)
        .collect()
}

/// When the GPU finished the last work queued before `call`, if any.
pub(crate) fn last_end_before(entries: &[TraceEntry], call: &TraceEntry) -> Option<u64> {
    before(entries, call).map(|(_, gpu)| gpu.end_ns).max()
}

/// The entries before `call` that ran on the GPU, with their spans.
fn before<'t>(
    entries: &'t [TraceEntry],
    call: &TraceEntry,
) -> impl Iterator<Item = (&'t TraceEntry, GpuSpan)> {
    entries
        .iter()
        .take_while(move |e| e.seq < call.seq)
        .filter_map(|e| Some((e, e.gpu?)))
}
