//! Part 1: name what made a step slower, from its profile before and after.
//!
//! Each signal compares the two traces, never a number of microseconds
//! alone, so the answer is the same on any GPU: a raw allocation that
//! `before` did not make; a range with many times the kernels it had,
//! whose launches now take the CPU longer than the GPU takes to run them;
//! a pinned copy that overlapped a kernel of another stream and no longer
//! does; a call in which the CPU waits that did not wait before. The
//! allocation comes first: its free waits for the device, which is not a
//! new sync but the allocation's cost.

use crate::Regression;
use gpu::{OpKind, Range, Trace, TraceEntry};

/// What made the step of `after` slower than the same step in `before`,
/// and where, in `after`.
pub fn diagnose(before: &Trace, after: &Trace) -> Regression {
    if let Some(seq) = new_allocation(before, after) {
        return Regression::AllocationInLoop { seq };
    }
    if let Some(range) = launch_bound(before, after) {
        return Regression::LaunchBound { range };
    }
    if let Some(seq) = lost_overlap(before, after) {
        return Regression::LostOverlap { seq };
    }
    let longest = after.entries.iter().max_by_key(|e| e.cpu_ns());
    let seq = new_sync(before, after).or(longest.map(|e| e.seq));
    Regression::NewSync {
        seq: seq.unwrap_or(0),
    }
}

/// The first raw allocation of `after`, when `before` made fewer.
fn new_allocation(before: &Trace, after: &Trace) -> Option<u64> {
    let raw = |t: &Trace| {
        t.entries
            .iter()
            .filter(|e| e.op == OpKind::AllocSegment)
            .count()
    };
    let first = after
        .entries
        .iter()
        .find(|e| e.op == OpKind::AllocSegment)?;
    (raw(after) > raw(before)).then_some(first.seq)
}

/// The kernels launched inside `range`.
fn launches<'t>(trace: &'t Trace, range: &Range) -> impl Iterator<Item = &'t TraceEntry> {
    let entries = trace.range_entries(range).iter();
    entries.filter(|e| e.op == OpKind::Launch)
}

/// The innermost range of `after` with at least four times the kernels of
/// the range of its name in `before`, whose CPU time is longer than its
/// kernels' GPU time: the CPU's launches are what it waits on.
fn launch_bound(before: &Trace, after: &Trace) -> Option<String> {
    let split = |range: &&Range| {
        let was = before.ranges.iter().find(|r| r.name == range.name);
        let was = was.map_or(0, |r| launches(before, r).count());
        let now: Vec<&TraceEntry> = launches(after, range).collect();
        let gpu_ns: u64 = now
            .iter()
            .filter_map(|e| e.gpu)
            .map(|g| g.end_ns - g.start_ns)
            .sum();
        was > 0 && now.len() >= 4 * was && range.cpu_ns() > gpu_ns
    };
    let deepest = after.ranges.iter().filter(split).max_by_key(|r| r.depth)?;
    Some(deepest.name.clone())
}

/// Whether `copy` ran on the GPU while a kernel of another stream did.
fn overlaps_compute(trace: &Trace, copy: &TraceEntry) -> bool {
    let Some(c) = copy.gpu else { return false };
    let kernels = trace
        .entries
        .iter()
        .filter(|e| e.op == OpKind::Launch && e.stream != copy.stream);
    kernels
        .filter_map(|k| k.gpu)
        .any(|k| k.start_ns < c.end_ns && c.start_ns < k.end_ns)
}

/// The pinned copies of `trace` (the ones that can overlap compute).
fn pinned_copies(trace: &Trace) -> impl Iterator<Item = &TraceEntry> {
    let copy = |e: &&TraceEntry| {
        matches!(e.op, OpKind::CopyHostToDevice | OpKind::CopyDeviceToHost)
            && e.name.contains("pinned")
    };
    trace.entries.iter().filter(copy)
}

/// The pinned copy of `after` that overlaps no kernel, whose copy from the
/// same line in `before` overlapped one.
fn lost_overlap(before: &Trace, after: &Trace) -> Option<u64> {
    let overlapped = |copy: &TraceEntry| {
        pinned_copies(before).any(|b| b.site == copy.site && overlaps_compute(before, b))
    };
    let lost = pinned_copies(after).find(|c| !overlaps_compute(after, c) && overlapped(c))?;
    Some(lost.seq)
}

/// Whether the CPU waited in `call`: it can wait (a synchronize, a
/// pageable copy, an elapsed time, a raw free), and GPU work queued
/// before it ended while the CPU was in it, the call returning right after
/// (within a tenth of its time).
fn waited(trace: &Trace, call: &TraceEntry) -> bool {
    let can_wait = match call.op {
        OpKind::StreamSynchronize | OpKind::EventSynchronize | OpKind::DeviceSynchronize => true,
        OpKind::EventElapsed | OpKind::FreeSegment | OpKind::FreePinned => true,
        OpKind::CopyDeviceToHost | OpKind::CopyHostToDevice => call.name.contains("pageable"),
        _ => false,
    };
    let slack = call.cpu_ns() / 10;
    let earlier = trace.entries.iter().take_while(|e| e.seq < call.seq);
    can_wait
        && earlier
            .filter_map(|e| e.gpu)
            .any(|g| g.end_ns > call.cpu_start_ns && g.end_ns <= call.cpu_end_ns + slack)
}

/// The first call of `after` that waits, with no call from the same line
/// left that waited in `before`: each wait of `before` accounts for one
/// wait of `after` from its line (the read at the end of the step waits in
/// both, longer after).
fn new_sync(before: &Trace, after: &Trace) -> Option<u64> {
    let mut old: Vec<&TraceEntry> = before
        .entries
        .iter()
        .filter(|e| waited(before, e))
        .collect();
    for call in after.entries.iter().filter(|e| waited(after, e)) {
        match old
            .iter()
            .position(|o| o.op == call.op && o.site == call.site)
        {
            Some(i) => {
                old.remove(i);
            }
            None => return Some(call.seq),
        }
    }
    None
}
