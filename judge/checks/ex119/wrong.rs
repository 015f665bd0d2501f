//! `waits` for the suite's own tests, written over the trace as a learner
//! writes them: another right way (a call that lasts until earlier GPU
//! work ends, found from the GPU's ends) and the known-wrong ones whose
//! messages `tests.rs` snapshots, each one mistake.

use find_the_wait::{Wait, WaitKind};
use gpu::{OpKind, Trace, TraceEntry};

/// The kind of a call of `op` that waits, as the solution names it.
fn kind(op: OpKind) -> Option<WaitKind> {
    match op {
        OpKind::StreamSynchronize | OpKind::EventSynchronize | OpKind::DeviceSynchronize => {
            Some(WaitKind::Synchronize)
        }
        OpKind::EventElapsed => Some(WaitKind::ElapsedTime),
        OpKind::CopyDeviceToHost => Some(WaitKind::PageableDownload),
        OpKind::CopyHostToDevice => Some(WaitKind::PageableUpload),
        OpKind::FreeSegment | OpKind::FreePinned => Some(WaitKind::RawFree),
        _ => None,
    }
}

/// The GPU ends of the entries before `call`.
fn ends_before<'t>(trace: &'t Trace, call: &'t TraceEntry) -> impl Iterator<Item = u64> + 't {
    trace
        .entries
        .iter()
        .take_while(|e| e.seq < call.seq)
        .filter_map(|e| e.gpu.map(|g| g.end_ns))
}

/// Whether an end `t` falls in `call`, with `slack` after it.
fn inside(call: &TraceEntry, t: u64, slack: u64) -> bool {
    t > call.cpu_start_ns && t <= call.cpu_end_ns + slack
}

/// The solution's reading, with the wait test `waited` and the kinds `kind_of`.
fn reading(
    trace: &Trace,
    waited: impl Fn(&Trace, &TraceEntry) -> bool,
    kind_of: impl Fn(OpKind) -> Option<WaitKind>,
) -> Vec<Wait> {
    trace
        .entries
        .iter()
        .filter(|c| waited(trace, c))
        .filter_map(|c| {
            Some(Wait {
                seq: c.seq,
                kind: kind_of(c.op)?,
            })
        })
        .collect()
}

/// The solution's wait test: an earlier GPU end inside the call, a tenth
/// of its time after it allowed.
fn covers(trace: &Trace, call: &TraceEntry) -> bool {
    ends_before(trace, call).any(|t| inside(call, t, call.cpu_ns() / 10))
}

/// Right, another way: for each GPU end, the call of a kind that can wait
/// in which it fell; each such call once.
pub(super) fn from_the_gpu_ends(trace: &Trace) -> Vec<Wait> {
    let mut seqs: Vec<u64> = Vec::new();
    for (i, work) in trace.entries.iter().enumerate() {
        let Some(gpu) = work.gpu else { continue };
        let waiter = trace.entries[i + 1..]
            .iter()
            .find(|c| kind(c.op).is_some() && inside(c, gpu.end_ns, c.cpu_ns() / 10));
        seqs.extend(waiter.map(|c| c.seq));
    }
    seqs.sort_unstable();
    seqs.dedup();
    let op = |seq| trace.entries.iter().find(|e| e.seq == seq).map(|e| e.op);
    seqs.into_iter()
        .filter_map(|seq| {
            Some(Wait {
                seq,
                kind: kind(op(seq)?)?,
            })
        })
        .collect()
}

/// Every call that can wait, waited or not.
pub(super) fn by_kind_alone(trace: &Trace) -> Vec<Wait> {
    reading(trace, |_, _| true, kind)
}

/// A copy into pageable memory taken for a call that never waits.
pub(super) fn no_pageable_download(trace: &Trace) -> Vec<Wait> {
    reading(trace, covers, |op| match op {
        OpKind::CopyDeviceToHost => None,
        other => kind(other),
    })
}

/// Every call that covers a GPU end, host work too, named a synchronize
/// when it is no call that can wait.
pub(super) fn host_work_counted(trace: &Trace) -> Vec<Wait> {
    reading(trace, covers, |op| {
        Some(kind(op).unwrap_or(WaitKind::Synchronize))
    })
}

/// A copy into pageable memory named a synchronize.
pub(super) fn download_named_synchronize(trace: &Trace) -> Vec<Wait> {
    reading(trace, covers, |op| match op {
        OpKind::CopyDeviceToHost => Some(WaitKind::Synchronize),
        other => kind(other),
    })
}

/// `elapsed_ms` named a synchronize.
pub(super) fn elapsed_named_synchronize(trace: &Trace) -> Vec<Wait> {
    reading(trace, covers, |op| match op {
        OpKind::EventElapsed => Some(WaitKind::Synchronize),
        other => kind(other),
    })
}

/// `cuMemFreeHost` forgotten among the raw frees.
pub(super) fn free_pinned_forgotten(trace: &Trace) -> Vec<Wait> {
    reading(trace, covers, |op| match op {
        OpKind::FreePinned => None,
        other => kind(other),
    })
}

/// Uploads from pageable memory taken never to wait.
pub(super) fn uploads_never_wait(trace: &Trace) -> Vec<Wait> {
    reading(trace, covers, |op| match op {
        OpKind::CopyHostToDevice => None,
        other => kind(other),
    })
}

/// The GPU work waited for reported instead of the call that waited.
pub(super) fn reports_the_work_waited_for(trace: &Trace) -> Vec<Wait> {
    let mut waits = Vec::new();
    for call in &trace.entries {
        let Some(k) = kind(call.op) else { continue };
        let slack = call.cpu_ns() / 10;
        let work = trace
            .entries
            .iter()
            .take_while(|e| e.seq < call.seq)
            .filter(|e| e.gpu.is_some_and(|g| inside(call, g.end_ns, slack)))
            .last();
        waits.extend(work.map(|w| Wait {
            seq: w.seq,
            kind: k,
        }));
    }
    waits
}

/// The first wait of the step, and no other.
pub(super) fn only_the_first(trace: &Trace) -> Vec<Wait> {
    let first = trace
        .entries
        .iter()
        .find(|c| covers(trace, c) && kind(c.op).is_some());
    first
        .map(|c| Wait {
            seq: c.seq,
            kind: kind(c.op).expect("a kind"),
        })
        .into_iter()
        .collect()
}

/// Positions in `trace.entries` reported instead of seqs.
pub(super) fn positions(trace: &Trace) -> Vec<Wait> {
    trace
        .entries
        .iter()
        .enumerate()
        .filter(|(_, c)| covers(trace, c))
        .filter_map(|(i, c)| {
            Some(Wait {
                seq: i as u64,
                kind: kind(c.op)?,
            })
        })
        .collect()
}

/// A wait once per GPU end that falls in the call.
pub(super) fn once_per_gpu_end(trace: &Trace) -> Vec<Wait> {
    let mut waits = Vec::new();
    for call in &trace.entries {
        let Some(k) = kind(call.op) else { continue };
        let slack = call.cpu_ns() / 10;
        let ends = ends_before(trace, call).filter(|&t| inside(call, t, slack));
        waits.extend(ends.map(|_| Wait {
            seq: call.seq,
            kind: k,
        }));
    }
    waits
}

/// The waits grouped by kind, not in trace order.
pub(super) fn grouped_by_kind(trace: &Trace) -> Vec<Wait> {
    let mut waits = reading(trace, covers, kind);
    waits.sort_by_key(|w| (w.kind as u8, w.seq));
    waits
}

/// A call that can wait, made while GPU work queued before it ran, taken
/// for a wait whether it lasted until that work ended or not.
pub(super) fn busy_when_it_began(trace: &Trace) -> Vec<Wait> {
    let busy =
        |trace: &Trace, call: &TraceEntry| ends_before(trace, call).any(|t| t > call.cpu_start_ns);
    reading(trace, busy, kind)
}

/// The call's own GPU work counted among the work it waited for.
pub(super) fn own_work_counted(trace: &Trace) -> Vec<Wait> {
    let covers_own = |trace: &Trace, call: &TraceEntry| {
        trace
            .entries
            .iter()
            .take_while(|e| e.seq <= call.seq)
            .filter_map(|e| e.gpu)
            .any(|g| inside(call, g.end_ns, call.cpu_ns() / 10))
    };
    reading(trace, covers_own, kind)
}

/// A call that can wait and lasted ten times the step's shortest call.
pub(super) fn ten_times_the_shortest(trace: &Trace) -> Vec<Wait> {
    let shortest = trace
        .entries
        .iter()
        .map(TraceEntry::cpu_ns)
        .min()
        .unwrap_or(0);
    reading(trace, |_, c| c.cpu_ns() > 10 * shortest, kind)
}

/// A call that can wait and lasted more than 100 µs.
pub(super) fn longer_than_100_us(trace: &Trace) -> Vec<Wait> {
    reading(trace, |_, c| c.cpu_ns() > 100_000, kind)
}

/// The solution's reading with a fixed slack of 50 µs after the call.
pub(super) fn fixed_slack(trace: &Trace) -> Vec<Wait> {
    let waited =
        |trace: &Trace, c: &TraceEntry| ends_before(trace, c).any(|t| inside(c, t, 50_000));
    reading(trace, waited, kind)
}

/// The solution's reading, of calls longer than 20 µs only (to leave out
/// noise).
pub(super) fn noise_floor_of_20_us(trace: &Trace) -> Vec<Wait> {
    reading(trace, |t, c| c.cpu_ns() > 20_000 && covers(t, c), kind)
}

/// `blocking` read, which the judge's traces leave `None`.
pub(super) fn reads_blocking(trace: &Trace) -> Vec<Wait> {
    reading(trace, |t, c| c.blocking.is_some() && covers(t, c), kind)
}

/// The solution's reading with no slack: an end after the call's return
/// is no end of it.
pub(super) fn no_slack(trace: &Trace) -> Vec<Wait> {
    let waited = |trace: &Trace, c: &TraceEntry| ends_before(trace, c).any(|t| inside(c, t, 0));
    reading(trace, waited, kind)
}

/// The solution's reading with a slack of ten times the call's time.
pub(super) fn ten_times_the_call_as_slack(trace: &Trace) -> Vec<Wait> {
    let waited = |trace: &Trace, c: &TraceEntry| {
        ends_before(trace, c).any(|t| inside(c, t, 10 * c.cpu_ns()))
    };
    reading(trace, waited, kind)
}

/// The solution's reading with an end at the call's start counted.
pub(super) fn an_end_at_the_start_counted(trace: &Trace) -> Vec<Wait> {
    let waited = |trace: &Trace, c: &TraceEntry| {
        let slack = c.cpu_ns() / 10;
        ends_before(trace, c).any(|t| t >= c.cpu_start_ns && t <= c.cpu_end_ns + slack)
    };
    reading(trace, waited, kind)
}
