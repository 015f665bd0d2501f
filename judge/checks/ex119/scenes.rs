//! The judge's steps: what each call is and whether the CPU waits in it,
//! drawn from a seed.
//!
//! A step is a run of *beats*, each a short pattern of an engine's step
//! whose waits are known from how it is built: a kernel of hundreds of
//! microseconds and then a call that waits for it, or host work longer
//! than the kernel and then the same call, which finds the GPU done. Every
//! beat comes once in a run, on a stream, with durations and in an order
//! the seed draws, dealt over [`STEPS`] steps; each beat begins with a
//! little host work, so that a call that finds the GPU done finds it done
//! long before (hundreds of microseconds: no device's clocks blur that).
//! Two beats sit at the edge on purpose: a synchronize that begins just as
//! the GPU finishes, and one that returns just before another stream's
//! kernel ends. The virtual GPU runs them exactly as built; a real GPU's
//! clocks may blur them, and the judge then leaves them out (`runner.rs`).

use find_the_wait::WaitKind;

/// The steps of a run, each traced and handed over on its own.
pub(crate) const STEPS: usize = 3;

/// A call of the judge's step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// `spin` of `us` microseconds on `stream` (a kernel launch).
    Kernel { stream: usize, us: u64 },
    /// `Device::host_work` of `us` microseconds: the CPU's own work.
    HostWork { us: u64 },
    /// `Device::host_work` until `calls` calls that return at once (the
    /// device's `api_call_ns` each) before a kernel of `kernel_us`, just
    /// launched on an idle GPU, ends: the kernel's time and the smallest
    /// kernel's (`kernel_min_ns`), less those calls.
    HostWorkUntil { kernel_us: u64, calls: u64 },
    /// `to_vec` of the stream's logits: a copy into pageable memory.
    ToVec { stream: usize },
    /// `copy_from_host` of a few KiB from a `Vec`: it travels inline.
    SmallUpload { stream: usize },
    /// `copy_from_host` of a `Vec` larger than the driver's staging buffer.
    LargeUpload { stream: usize },
    /// `copy_to_pinned` of the stream's logits: queued.
    PinnedDownload { stream: usize },
    /// `Event::record` of event `event` on `stream`.
    Record { event: usize, stream: usize },
    /// `Event::query` of event `event`.
    Query { event: usize },
    /// `Event::synchronize` of event `event`.
    SyncEvent { event: usize },
    /// `Stream::synchronize`.
    SyncStream { stream: usize },
    /// `Device::synchronize`.
    SyncDevice,
    /// `Event::elapsed_ms` from event 0 to event 1.
    Elapsed,
    /// `Device::alloc_pinned` of a new pinned buffer (`cuMemHostAlloc`).
    AllocPinned,
    /// `Device::alloc_segment` of a new raw segment (`cuMemAlloc`).
    AllocSegment,
    /// Dropping a pinned buffer (`cuMemFreeHost`).
    FreePinned,
    /// `Device::free_segment` of a raw segment (`cuMemFree`).
    FreeSegment,
}

/// A call and its truth: the wait it makes, if the CPU waits in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Step {
    /// The call.
    pub(crate) action: Action,
    /// What the CPU waits for in it, by how the step is built.
    pub(crate) waits: Option<WaitKind>,
}

/// A call that can make the CPU wait, probed behind a kernel or after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Probe {
    /// `Stream::synchronize` of the kernel's stream.
    SyncStream,
    /// `Event::synchronize` of an event recorded after the kernel.
    SyncEvent,
    /// `Device::synchronize`.
    SyncDevice,
    /// `to_vec` on the kernel's stream.
    ToVec,
    /// A large `copy_from_host` on the kernel's stream.
    LargeUpload,
    /// `Device::free_segment`.
    FreeSegment,
    /// Dropping a pinned buffer.
    FreePinned,
}

/// Every probe, in a fixed order.
pub(crate) const PROBES: [Probe; 7] = [
    Probe::SyncStream,
    Probe::SyncEvent,
    Probe::SyncDevice,
    Probe::ToVec,
    Probe::LargeUpload,
    Probe::FreeSegment,
    Probe::FreePinned,
];

impl Probe {
    /// The probe's calls on `stream`: an event is recorded first for
    /// `SyncEvent`.
    fn calls(self, stream: usize) -> Vec<Action> {
        let call = match self {
            Self::SyncStream => Action::SyncStream { stream },
            Self::SyncEvent => {
                let record = Action::Record { event: 1, stream };
                return vec![record, Action::SyncEvent { event: 1 }];
            }
            Self::SyncDevice => Action::SyncDevice,
            Self::ToVec => Action::ToVec { stream },
            Self::LargeUpload => Action::LargeUpload { stream },
            Self::FreeSegment => Action::FreeSegment,
            Self::FreePinned => Action::FreePinned,
        };
        vec![call]
    }

    /// The kind of its wait, when it waits.
    fn kind(self) -> WaitKind {
        match self {
            Self::SyncStream | Self::SyncEvent | Self::SyncDevice => WaitKind::Synchronize,
            Self::ToVec => WaitKind::PageableDownload,
            Self::LargeUpload => WaitKind::PageableUpload,
            Self::FreeSegment | Self::FreePinned => WaitKind::RawFree,
        }
    }
}

/// A pattern of an engine's step, with the truth of each of its calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Beat {
    /// A decode loop: a kernel and host work per step (the host work
    /// shorter than the kernel, so the CPU runs ahead), the logits read
    /// with `to_vec` at step `read` (a wait), a synchronize at the end (a
    /// wait).
    DecodeLoop {
        stream: usize,
        steps: usize,
        read: usize,
        kernel_us: u64,
        host_us: u64,
    },
    /// A kernel, then the probe: it waits.
    Waits {
        probe: Probe,
        stream: usize,
        kernel_us: u64,
    },
    /// A kernel, host work longer than it, then the probe: the GPU is done.
    FindsIdle {
        probe: Probe,
        stream: usize,
        kernel_us: u64,
    },
    /// A kernel on the other stream; a synchronize and a `to_vec` of this
    /// one, which is idle (no wait); a synchronize of the other (a wait).
    OtherStreamBusy { stream: usize, kernel_us: u64 },
    /// A kernel, then calls that only queue behind it (a small pageable
    /// upload, a pinned download, an event record and query), then an
    /// event synchronize (a wait).
    Queued { stream: usize, kernel_us: u64 },
    /// A kernel between two events, then `elapsed_ms`: it waits, unless an
    /// event synchronize came first (which waits instead).
    Timed {
        stream: usize,
        kernel_us: u64,
        sync_first: bool,
    },
    /// Slow calls on an idle GPU: a pinned allocation and a segment's, and
    /// their frees; none waits.
    SlowCalls,
    /// A kernel on the other stream, host work until it is about to end,
    /// then a synchronize of this stream, which is idle (no wait): the
    /// kernel ends shortly after the call returns, [`AHEAD_CALLS`] less
    /// one calls' time later. A rule that allows an end many times the
    /// call's time after its return takes it for a wait.
    EndsJustAfter { stream: usize, kernel_us: u64 },
    /// A kernel, host work exactly as long as it runs, then a synchronize
    /// of its stream, which begins as the kernel ends: it finds the GPU
    /// done (no wait). A rule that counts an end at the call's start takes
    /// it for a wait.
    EndsAsItBegins { stream: usize, kernel_us: u64 },
}

impl Beat {
    /// The beat's calls, each with its truth.
    pub(crate) fn steps(self) -> Vec<Step> {
        let wait = |action, kind| Step {
            action,
            waits: Some(kind),
        };
        let go = |action| Step {
            action,
            waits: None,
        };
        match self {
            Self::DecodeLoop {
                stream,
                steps,
                read,
                kernel_us,
                host_us,
            } => {
                let mut calls = Vec::new();
                for k in 0..steps {
                    calls.push(go(Action::Kernel {
                        stream,
                        us: kernel_us,
                    }));
                    calls.push(go(Action::HostWork { us: host_us }));
                    if k == read {
                        calls.push(wait(Action::ToVec { stream }, WaitKind::PageableDownload));
                    }
                }
                calls.push(wait(Action::SyncStream { stream }, WaitKind::Synchronize));
                calls
            }
            Self::Waits {
                probe,
                stream,
                kernel_us,
            } => {
                let mut calls = vec![go(Action::Kernel {
                    stream,
                    us: kernel_us,
                })];
                let probed = probe.calls(stream);
                let last = probed.len() - 1;
                for (i, action) in probed.into_iter().enumerate() {
                    calls.push(if i == last {
                        wait(action, probe.kind())
                    } else {
                        go(action)
                    });
                }
                calls
            }
            Self::FindsIdle {
                probe,
                stream,
                kernel_us,
            } => {
                let kernel = Action::Kernel {
                    stream,
                    us: kernel_us,
                };
                let host = Action::HostWork {
                    us: kernel_us + kernel_us / 2 + GAP_US,
                };
                // The event of `SyncEvent` is recorded after the kernel.
                let mut calls = vec![go(kernel)];
                let mut probed = probe.calls(stream);
                if probed.len() > 1 {
                    calls.push(go(probed.remove(0)));
                }
                calls.push(go(host));
                calls.extend(probed.into_iter().map(go));
                calls
            }
            Self::OtherStreamBusy { stream, kernel_us } => {
                let other = 1 - stream;
                vec![
                    go(Action::Kernel {
                        stream: other,
                        us: kernel_us,
                    }),
                    go(Action::SyncStream { stream }),
                    go(Action::ToVec { stream }),
                    wait(Action::SyncStream { stream: other }, WaitKind::Synchronize),
                ]
            }
            Self::Queued { stream, kernel_us } => vec![
                go(Action::Kernel {
                    stream,
                    us: kernel_us,
                }),
                go(Action::SmallUpload { stream }),
                go(Action::PinnedDownload { stream }),
                go(Action::Record { event: 1, stream }),
                go(Action::Query { event: 1 }),
                wait(Action::SyncEvent { event: 1 }, WaitKind::Synchronize),
            ],
            Self::Timed {
                stream,
                kernel_us,
                sync_first,
            } => {
                let mut calls = vec![
                    go(Action::Record { event: 0, stream }),
                    go(Action::Kernel {
                        stream,
                        us: kernel_us,
                    }),
                    go(Action::Record { event: 1, stream }),
                ];
                if sync_first {
                    calls.push(wait(Action::SyncEvent { event: 1 }, WaitKind::Synchronize));
                    calls.push(go(Action::Elapsed));
                } else {
                    calls.push(wait(Action::Elapsed, WaitKind::ElapsedTime));
                }
                calls
            }
            Self::SlowCalls => [
                Action::AllocPinned,
                Action::AllocSegment,
                Action::FreePinned,
                Action::FreeSegment,
            ]
            .into_iter()
            .map(go)
            .collect(),
            Self::EndsJustAfter { stream, kernel_us } => vec![
                go(Action::Kernel {
                    stream: 1 - stream,
                    us: kernel_us,
                }),
                go(Action::HostWorkUntil {
                    kernel_us,
                    calls: AHEAD_CALLS,
                }),
                go(Action::SyncStream { stream }),
            ],
            Self::EndsAsItBegins { stream, kernel_us } => vec![
                go(Action::Kernel {
                    stream,
                    us: kernel_us,
                }),
                go(Action::HostWorkUntil {
                    kernel_us,
                    calls: 0,
                }),
                go(Action::SyncStream { stream }),
            ],
        }
    }

    /// How many raw segments and pinned buffers the beat frees that it did
    /// not allocate itself.
    pub(crate) fn frees(self) -> (usize, usize) {
        let probe = match self {
            Self::Waits { probe, .. } | Self::FindsIdle { probe, .. } => probe,
            _ => return (0, 0),
        };
        match probe {
            Probe::FreeSegment => (1, 0),
            Probe::FreePinned => (0, 1),
            _ => (0, 0),
        }
    }
}

/// The host work before each beat, at least: the CPU preparing the next
/// piece of the step, which also leaves the GPU idle that long before a
/// call that finds it done.
pub(crate) const GAP_US: u64 = 300;

/// How many quick calls' time before the other stream's kernel ends the
/// host work of [`Beat::EndsJustAfter`] stops: the synchronize takes one,
/// and the kernel ends the rest after it returns (twice the call's time:
/// after a tenth of it, within ten times it).
pub(crate) const AHEAD_CALLS: u64 = 3;
