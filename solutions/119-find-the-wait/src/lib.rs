//! Find the wait: read a profile of one step the way an engineer reads
//! Nsight Systems, the CPU's row of calls against the GPU's rows of work.
//!
//! A [`Trace`] holds one entry per call into the runtime: what it was, when
//! the CPU entered and left it, and when the GPU ran its work. A profile
//! does not say which calls can block (every entry's `blocking` is `None`
//! here), so [`waits`] reads each wait from the timeline itself: a call
//! whose CPU time stretches until GPU work queued before it ends. It names
//! each wait's kind ([`WaitKind`]) from what the call is.

use gpu::{OpKind, Trace, TraceEntry};

/// A call in which the CPU waited for the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Wait {
    /// The call's `seq` in the trace.
    pub seq: u64,
    /// What made the CPU wait.
    pub kind: WaitKind,
}

/// What made the CPU wait, from what the call is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaitKind {
    /// An explicit synchronize: `Stream::synchronize`, `Event::synchronize`
    /// or `Device::synchronize`.
    Synchronize,
    /// Reading the time between two events (`Event::elapsed_ms`) before
    /// the later one completed.
    ElapsedTime,
    /// A copy into pageable host memory (`to_vec`, `copy_to_host`; in
    /// PyTorch `.item()`, `.tolist()`, `.cpu()`).
    PageableDownload,
    /// A copy from pageable host memory that the driver could not stage at
    /// once (`copy_from_host` of a large `Vec`).
    PageableUpload,
    /// A raw free: `cuMemFree` (`Device::free_segment`) or `cuMemFreeHost`
    /// (dropping a `PinnedBuffer`).
    RawFree,
}

/// Every call of `trace` in which the CPU waited for the GPU, in trace
/// order, each once, with the kind of its wait.
pub fn waits(trace: &Trace) -> Vec<Wait> {
    trace
        .entries
        .iter()
        .filter(|call| waited(trace, call))
        .filter_map(|call| {
            let kind = kind(call.op)?;
            Some(Wait {
                seq: call.seq,
                kind,
            })
        })
        .collect()
}

/// The kind of wait a call of `op` makes when it waits; `None` for a call
/// that never waits for the GPU (a launch, a record, host work). Only a
/// copy from or into pageable memory ever waits, so a copy that waited is
/// a pageable one.
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

/// Whether the CPU stayed in `call` until GPU work queued before it ended:
/// that work was still running when the call began, and ended when the
/// call returned. The GPU's times are placed on the CPU's clock to within a
/// few microseconds, so an end a little after the call's (a tenth of the
/// call's time) is still its end.
fn waited(trace: &Trace, call: &TraceEntry) -> bool {
    let slack = call.cpu_ns() / 10;
    trace
        .entries
        .iter()
        .take_while(|e| e.seq < call.seq)
        .filter_map(|e| e.gpu)
        .any(|gpu| gpu.end_ns > call.cpu_start_ns && gpu.end_ns <= call.cpu_end_ns + slack)
}
