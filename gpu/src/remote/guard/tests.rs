//! The property the judge's side keeps, whatever a learner's process
//! sends: random and extreme arguments for every kind of call, on the
//! handles the calls made and on made-up ones, sent to [`host::serve`] as
//! a checker serves them. It never panics (a panic of the judge's code
//! would come back as [`Stop::Fault`]) and never aborts, the device's CPU
//! clock never runs backwards, and the process never holds more than the
//! memory limit (this test binary counts its heap: `remote::counted`).
//!
//! Over 400 lines: the generator draws every kind of call, one arm each,
//! and a kind left out would be a kind the property is never tried on.

use super::*;
use crate::calibration::Calibration;
use crate::decoder::DecoderConfig;
use crate::device::{Backend, Device, DeviceOptions};
use crate::elem::{ElemKind, Scalar};
use crate::exec::{EventId, GraphId, HostId};
use crate::remote::call::{Call, What};
use crate::remote::host;
use crate::trace::StreamId;
use serde::de::DeserializeOwned;
use std::time::Duration;

/// What the test process may hold above what it held when a run began:
/// the limit the judge's side is given.
const ALLOWANCE: u64 = 256 << 20;

/// Room for what other tests of this binary allocate meanwhile (the heap's
/// count is the process's).
const SLACK: u64 = 192 << 20;

const SITE: CallSite = CallSite {
    file: "src/lib.rs",
    line: 11,
    column: 5,
};

/// Random calls over the handles the calls so far made.
struct Calls {
    rng: fastrand::Rng,
    device: u32,
    streams: Vec<StreamId>,
    events: Vec<EventId>,
    hosts: Vec<HostId>,
    graphs: Vec<GraphId>,
    decoders: Vec<u32>,
    addrs: Vec<u64>,
}

impl Calls {
    fn pick<T: Copy>(&mut self, known: &[T], made_up: T) -> T {
        match known.is_empty() || self.rng.u8(..8) == 0 {
            true => made_up,
            false => known[self.rng.usize(..known.len())],
        }
    }

    fn ns(&mut self) -> u64 {
        let longest = LONGEST_NS;
        let choices = [
            0,
            1,
            1_000,
            20_000_000,
            longest,
            longest + 1,
            u64::MAX,
            u64::MAX - self.rng.u64(..1_000_000_000),
            self.rng.u64(..),
        ];
        choices[self.rng.usize(..choices.len())]
    }

    fn len(&mut self) -> usize {
        let choices = [
            0,
            1,
            3,
            4,
            1024,
            1 << 20,
            64 << 20,
            usize::MAX,
            usize::MAX / 4 + 1,
            self.rng.usize(..),
            self.rng.usize(..4096),
        ];
        choices[self.rng.usize(..choices.len())]
    }

    fn addr(&mut self) -> u64 {
        let made_up = [0, 4, u64::MAX, u64::MAX - 3, self.rng.u64(..)];
        let made_up = made_up[self.rng.usize(..made_up.len())];
        let addrs = self.addrs.clone();
        let base = self.pick(&addrs, made_up);
        base.wrapping_add(4 * self.rng.u64(..4))
    }

    fn elem(&mut self) -> ElemKind {
        [ElemKind::F32, ElemKind::I32, ElemKind::U32][self.rng.usize(..3)]
    }

    fn view(&mut self) -> RawView {
        let len = match self.rng.bool() {
            true => self.rng.usize(..1024),
            false => self.len(),
        };
        RawView {
            addr: self.addr(),
            len,
            elem: self.elem(),
        }
    }

    fn stream(&mut self) -> StreamId {
        let made_up = StreamId(self.rng.u32(..));
        let streams = self.streams.clone();
        self.pick(&streams, made_up)
    }

    fn event(&mut self) -> EventId {
        let made_up = EventId(self.rng.u32(..));
        let events = self.events.clone();
        self.pick(&events, made_up)
    }

    fn host(&mut self) -> HostId {
        let made_up = HostId(self.rng.u32(..));
        let hosts = self.hosts.clone();
        self.pick(&hosts, made_up)
    }

    fn graph(&mut self) -> GraphId {
        let made_up = GraphId(self.rng.u32(..));
        let graphs = self.graphs.clone();
        self.pick(&graphs, made_up)
    }

    fn decoder(&mut self) -> u32 {
        let made_up = self.rng.u32(..);
        let decoders = self.decoders.clone();
        self.pick(&decoders, made_up)
    }

    fn bytes(&mut self) -> Vec<u8> {
        let len = self.rng.usize(..4096);
        std::iter::repeat_with(|| self.rng.u8(..))
            .take(len)
            .collect()
    }

    /// One call, of any kind (every variant of [`What`] is drawn).
    fn what(&mut self) -> What {
        match self.rng.u8(..44) {
            0 => What::Describe,
            1 | 2 => What::Now,
            3 => What::NewStream,
            4 => What::NewEvent,
            5 => What::Synchronize,
            6..=8 => What::HostWork { ns: self.ns() },
            9 => What::AllocSegment { bytes: self.len() },
            10 => What::FreeSegment { addr: self.addr() },
            11 => What::DropSegment { addr: self.addr() },
            12 => What::AllocPinned {
                elem: self.elem(),
                len: self.len(),
            },
            13 => What::CheckView {
                elem: self.elem(),
                addr: self.addr(),
                len: self.len(),
            },
            14 | 15 => What::AllocZeros {
                stream: self.stream(),
                elem: self.elem(),
                len: self.len(),
            },
            16 => What::FreeBuffer { addr: self.addr() },
            17 => What::StreamSynchronize {
                stream: self.stream(),
            },
            18 => What::StreamQuery {
                stream: self.stream(),
            },
            19 => What::WaitEvent {
                stream: self.stream(),
                event: self.event(),
            },
            20 => What::BeginCapture {
                stream: self.stream(),
            },
            21 => What::EndCapture {
                stream: self.stream(),
            },
            22 => What::IsCapturing {
                stream: self.stream(),
            },
            23 => What::CopyFromHost {
                stream: self.stream(),
                src: self.bytes(),
                dst: self.view(),
            },
            24 => What::CopyToHost {
                stream: self.stream(),
                src: self.view(),
            },
            25 => What::CopyFromPinned {
                stream: self.stream(),
                src: self.host(),
                dst: self.view(),
            },
            26 => What::CopyToPinned {
                stream: self.stream(),
                src: self.view(),
                dst: self.host(),
            },
            27 => What::Copy {
                stream: self.stream(),
                src: self.view(),
                dst: self.view(),
            },
            28 | 29 => What::Spin {
                stream: self.stream(),
                ns: self.ns(),
            },
            30 => What::Fill {
                stream: self.stream(),
                dst: self.view(),
                value: Scalar::U32(self.rng.u32(..)),
            },
            31 => What::Sum {
                stream: self.stream(),
                delay_ns: self.ns(),
                src: self.view(),
                out: self.view(),
            },
            32 => What::ArgmaxRows {
                stream: self.stream(),
                src: self.view(),
                rows: self.len(),
                cols: self.len(),
                out: self.view(),
            },
            33 => What::FlagEq {
                stream: self.stream(),
                src: self.view(),
                value: self.rng.i32(..),
                flags: self.view(),
            },
            34 => What::CountEq {
                stream: self.stream(),
                src: self.view(),
                value: self.rng.i32(..),
                out: self.view(),
            },
            35 => What::Affine {
                stream: self.stream(),
                x: self.view(),
                a: f32::from_bits(self.rng.u32(..)),
                b: f32::from_bits(self.rng.u32(..)),
                y: self.view(),
            },
            36 => What::DecodeStep {
                stream: self.stream(),
                decoder: self.decoder(),
                tokens_in: self.view(),
                tokens_out: self.view(),
            },
            37 => What::RecordEvent {
                event: self.event(),
                stream: self.stream(),
            },
            38 => What::EventSynchronize {
                event: self.event(),
            },
            39 => What::EventQuery {
                event: self.event(),
            },
            40 => What::ElapsedMs {
                start: self.event(),
                end: self.event(),
            },
            41 => match self.rng.u8(..4) {
                0 => What::DropEvent {
                    event: self.event(),
                },
                1 => What::ReadPinned { host: self.host() },
                2 => What::DropPinned { host: self.host() },
                _ => What::WritePinned {
                    host: self.host(),
                    data: self.bytes(),
                },
            },
            42 => match self.rng.u8(..3) {
                0 => What::LaunchGraph {
                    graph: self.graph(),
                },
                1 => What::DropGraph {
                    graph: self.graph(),
                },
                _ => What::DropDecoder {
                    decoder: self.rng.u32(..4),
                },
            },
            _ => What::NewDecoder {
                stream: self.stream(),
                config: DecoderConfig {
                    vocab: self.len().min(self.rng.usize(..1 << 16)),
                    hidden: [self.rng.usize(..64), self.len()][self.rng.usize(..2)],
                    seed: self.rng.u64(..),
                    step_time: Duration::from_nanos(self.ns()),
                },
            },
        }
    }

    /// Remembers the handle or address an answer carries.
    fn learn(&mut self, what: &What, answer: &[u8]) {
        match what {
            What::NewStream => self.streams.extend(ok::<StreamId>(answer)),
            What::NewEvent => self.events.extend(ok::<EventId>(answer)),
            What::AllocPinned { .. } => self.hosts.extend(ok::<HostId>(answer)),
            What::AllocZeros { .. } | What::AllocSegment { .. } => {
                self.addrs.extend(ok::<u64>(answer));
            }
            What::EndCapture { .. } => {
                self.graphs
                    .extend(ok::<(GraphId, usize)>(answer).map(|(g, _)| g));
            }
            What::NewDecoder { .. } => self.decoders.extend(ok::<u32>(answer)),
            _ => {}
        }
    }
}

const LONGEST_NS: u64 = LONGEST_CALL.as_nanos() as u64;

/// The value of an answer that is `Ok`.
fn ok<T: DeserializeOwned>(answer: &[u8]) -> Option<T> {
    postcard::from_bytes::<crate::error::Result<T>>(answer)
        .ok()?
        .ok()
}

fn heap() -> u64 {
    super::super::counted::live_bytes().expect("this test binary counts its heap")
}

/// One run: `calls` random calls on a fresh virtual device.
fn run(seed: u64, calls: usize) {
    let options = DeviceOptions {
        backend: Backend::Virtual,
        calibration: Some(Calibration::default()),
        quiet: true,
        ..Default::default()
    };
    let device = Device::with_options(options).unwrap();
    let stream = device.new_stream().unwrap();
    let exported = host::export_stream(&stream);
    let limit = heap() + ALLOWANCE;
    set_limits(Limits {
        memory: limit,
        trace_entries: TRACE_ENTRIES,
    });
    let mut calls_made = Calls {
        rng: fastrand::Rng::with_seed(seed),
        device: exported.device,
        streams: vec![exported.stream],
        events: Vec::new(),
        hosts: Vec::new(),
        graphs: Vec::new(),
        decoders: Vec::new(),
        addrs: Vec::new(),
    };
    let mut clock = device.now();
    let mut refused = 0;
    for i in 0..calls {
        let what = calls_made.what();
        let device_handle = match calls_made.rng.u8(..16) {
            0 => calls_made.rng.u32(..),
            _ => calls_made.device,
        };
        let call = Call {
            device: device_handle,
            site: SITE,
            what: what.clone(),
        };
        match host::serve(call) {
            Ok(answer) => calls_made.learn(&what, &answer),
            Err(Stop::Refused(refusal)) => {
                assert_eq!(refusal.site, SITE, "{refusal:?}");
                refused += 1;
            }
            Err(Stop::Fault(fault)) => {
                panic!("seed {seed}, call {i}: the judge's side failed on {what:?}: {fault}")
            }
        }
        let now = device.now();
        assert!(
            now >= clock,
            "seed {seed}, call {i}: {what:?} moved the clock back from {clock:?} to {now:?}"
        );
        clock = now;
        let held = heap();
        assert!(
            held <= limit + SLACK,
            "seed {seed}, call {i}: {what:?} left the process holding {held} bytes, past the limit of {limit}"
        );
    }
    assert!(refused > 0, "seed {seed}: no call was refused");
    host::reset();
    set_limits(Limits::default());
}

#[test]
fn no_call_panics_moves_a_clock_back_or_holds_past_the_limit() {
    for seed in 0..12 {
        run(seed, 1500);
    }
}

#[test]
fn a_duration_that_would_wrap_the_clock_is_refused_at_the_learners_line() {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..Default::default()
    })
    .unwrap();
    let handle = host::export_device(&device);
    let before = device.now();
    let call = Call {
        device: handle.0,
        site: SITE,
        what: What::HostWork { ns: u64::MAX - 999 },
    };
    let Err(Stop::Refused(refusal)) = host::serve(call) else {
        panic!("a wrapping duration was served");
    };
    assert!(
        refusal.message.contains("longer than any call may take"),
        "{refusal:?}"
    );
    assert_eq!(refusal.site, SITE);
    assert_eq!(device.now(), before);
    host::reset();
}

#[test]
fn a_full_trace_ends_the_check() {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..Default::default()
    })
    .unwrap();
    let handle = host::export_device(&device);
    set_limits(Limits {
        memory: u64::MAX,
        trace_entries: 100,
    });
    let call = || Call {
        device: handle.0,
        site: SITE,
        what: What::HostWork { ns: 10 },
    };
    let served = (0..200).take_while(|_| host::serve(call()).is_ok()).count();
    set_limits(Limits::default());
    host::reset();
    assert!((90..=100).contains(&served), "{served} calls were served");
}

#[test]
fn an_allocation_past_the_memory_limit_is_the_learners_out_of_memory_error() {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Virtual,
        quiet: true,
        ..Default::default()
    })
    .unwrap();
    let handle = host::export_device(&device);
    set_limits(Limits {
        memory: heap() + (64 << 20),
        trace_entries: TRACE_ENTRIES,
    });
    let call = Call {
        device: handle.0,
        site: SITE,
        what: What::AllocPinned {
            elem: ElemKind::U32,
            len: 1 << 42,
        },
    };
    let answer = host::serve(call).expect("an answer, not a refusal");
    set_limits(Limits::default());
    host::reset();
    let error = postcard::from_bytes::<crate::error::Result<HostId>>(&answer)
        .unwrap()
        .unwrap_err();
    assert!(
        matches!(error, crate::GpuError::OutOfMemory { requested, .. } if requested == 1 << 44),
        "{error}"
    );
}

#[test]
fn a_duration_up_to_the_longest_call_is_its_nanoseconds_and_a_longer_one_is_refused() {
    assert_eq!(checked_ns("spin", 3_000, SITE).unwrap(), 3_000);
    assert_eq!(checked_ns("spin", LONGEST_NS, SITE).unwrap(), LONGEST_NS);
    for ns in [LONGEST_NS + 1, u64::MAX, u64::MAX - 999] {
        let refusal = checked_ns("host_work", ns, SITE).unwrap_err();
        assert!(refusal.message.contains("src/lib.rs:11"), "{refusal:?}");
    }
}

#[test]
fn spans_that_overflow_are_refused() {
    assert_eq!(span_bytes("view", 0x1000, 4, 4, SITE).unwrap(), 16);
    assert!(span_bytes("view", 0x1000, usize::MAX, 4, SITE).is_err());
    assert!(span_bytes("view", u64::MAX - 8, 4, 4, SITE).is_err());
}
