//! Running the programs on the judge's device and reading each call's wait
//! from the trace.
//!
//! A run opens a device of the judge's backend with two streams, a graph
//! captured on each (one gate kernel), and buffers for the largest copy;
//! each program gets fresh events and raw segments, and the device is
//! synchronized between programs. The measured wait of a call is the CPU
//! time of its trace entry; a call waited when that is at least half a gate.
//! The programs depend only on the seed and the backend, so a harness runs
//! them once and every check reads the same run.

use super::program::{Action, EVENTS, GATE, SEGMENTS, STREAMS, Size, Step, largest_copy, size};
use super::scenes::programs;
use gpu::{Device, DeviceBuffer, Event, Graph, PinnedBuffer, Segment, Stream};
use judge_harness::{Ctx, Failure};
use std::cell::RefCell;
use std::rc::Rc;
use which_calls_wait::{Direction, Memory, Staging, Wait};

/// One call as it ran.
#[derive(Clone, Debug)]
pub(crate) struct Ran {
    /// Its program (from 1) and its place in it (from 1).
    pub(crate) program: usize,
    pub(crate) index: usize,
    /// The call.
    pub(crate) step: Step,
    /// The CPU time it took, from the trace.
    pub(crate) cpu_ns: u64,
    /// Whether the CPU waited, and for what.
    pub(crate) truth: Wait,
}

impl Ran {
    /// Whether the measurement agrees with the model that described the
    /// call: only then is the call graded (the judge's own test shows they
    /// always agree on the virtual GPU).
    pub(crate) fn foreseen(&self) -> bool {
        (self.truth != Wait::Nothing) == self.step.waits
    }
}

/// A whole run: the seed, the staging buffers, every call of every program.
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) seed: u64,
    pub(crate) staging: Staging,
    pub(crate) programs: Vec<Vec<Ran>>,
}

thread_local! {
    /// The runs made so far in this process, by seed and backend.
    static RUNS: RefCell<Vec<(u64, gpu::Backend, Rc<Run>)>> = const { RefCell::new(Vec::new()) };
}

/// The run of `ctx`'s seed on its backend, made once per process.
pub(crate) fn run(ctx: &Ctx) -> Result<Rc<Run>, Failure> {
    let key = (ctx.seed(), ctx.backend());
    let cached = RUNS.with(|runs| {
        let runs = runs.borrow();
        runs.iter()
            .find(|r| (r.0, r.1) == key)
            .map(|r| Rc::clone(&r.2))
    });
    if let Some(run) = cached {
        return Ok(run);
    }
    let run = Rc::new(run_programs(ctx)?);
    RUNS.with(|runs| runs.borrow_mut().push((key.0, key.1, Rc::clone(&run))));
    Ok(run)
}

/// The staging buffers of `device`'s calibration.
pub(crate) fn staging(device: &Device) -> Staging {
    let calibration = device.calibration();
    Staging {
        inline_bytes: calibration.inline_bytes,
        slot_bytes: calibration.staging_bytes,
        slots: calibration.staging_slots as u32,
    }
}

/// The device and what every program shares.
struct Rig {
    device: Device,
    streams: Vec<Stream>,
    graphs: Vec<Graph>,
    on_device: Vec<DeviceBuffer<u32>>,
    pinned: Vec<PinnedBuffer<u32>>,
    pageable: Vec<u32>,
}

impl Rig {
    /// Opens the judge's device and sets it up; returns it with its
    /// staging buffers.
    fn open(ctx: &Ctx) -> Result<(Self, Staging), Failure> {
        let device = ctx.device()?;
        let staging = staging(&device);
        let words = (largest_copy(&staging) / 4) as usize;
        let mut rig = Self {
            streams: Vec::new(),
            graphs: Vec::new(),
            on_device: Vec::new(),
            pinned: Vec::new(),
            pageable: vec![7; words],
            device,
        };
        for _ in 0..STREAMS {
            let stream = rig.device.new_stream()?;
            stream.begin_capture()?;
            stream.spin(GATE)?;
            rig.graphs.push(stream.end_capture()?);
            rig.on_device.push(stream.alloc_zeros(words)?);
            rig.pinned.push(rig.device.alloc_pinned(words)?);
            rig.streams.push(stream);
        }
        rig.device.synchronize()?;
        Ok((rig, staging))
    }

    /// Does `action` with `events` and `segments`.
    fn act(
        &mut self,
        action: &Action,
        events: &[Event],
        segments: &mut Vec<Segment>,
    ) -> gpu::Result<()> {
        match *action {
            Action::Launch { stream } => self.streams[stream].spin(GATE),
            Action::GraphLaunch { stream } => self.graphs[stream].launch(),
            Action::Copy {
                stream,
                direction,
                memory,
                bytes,
            } => self.copy(stream, direction, memory, bytes),
            Action::Record { event, stream } => events[event].record(&self.streams[stream]),
            Action::WaitEvent { stream, event } => self.streams[stream].wait_event(&events[event]),
            Action::Query { event } => events[event].query().map(drop),
            Action::SyncEvent { event } => events[event].synchronize(),
            Action::SyncStream { stream } => self.streams[stream].synchronize(),
            Action::SyncDevice => self.device.synchronize(),
            Action::FreeSegment => match segments.pop() {
                Some(segment) => self.device.free_segment(segment),
                None => Ok(()),
            },
        }
    }

    fn copy(
        &mut self,
        stream: usize,
        direction: Direction,
        memory: Memory,
        bytes: u64,
    ) -> gpu::Result<()> {
        let words = (bytes / 4) as usize;
        let (s, on_device) = (
            &self.streams[stream],
            self.on_device[stream].slice(0..words),
        );
        match (direction, memory) {
            (Direction::HostToDevice, Memory::Pageable) => {
                s.copy_from_host(&self.pageable[..words], on_device)
            }
            (Direction::HostToDevice, Memory::Pinned) => {
                s.copy_from_pinned(&self.pinned[stream], on_device)
            }
            (Direction::DeviceToHost, Memory::Pageable) => {
                s.copy_to_host(on_device, &mut self.pageable[..words])
            }
            (Direction::DeviceToHost, Memory::Pinned) => {
                s.copy_to_pinned(on_device, &self.pinned[stream])
            }
        }
    }
}

/// What the CPU waited for in `action`, given whether it waited at all.
pub(crate) fn truth(action: &Action, waited: bool, staging: &Staging) -> Wait {
    if !waited {
        return Wait::Nothing;
    }
    match *action {
        Action::SyncEvent { .. } => Wait::Event,
        Action::SyncDevice | Action::FreeSegment => Wait::Device,
        Action::Copy {
            direction: Direction::HostToDevice,
            bytes,
            ..
        } if size(bytes, staging) == Size::Slot => Wait::StagingSlot,
        _ => Wait::Stream,
    }
}

/// Runs every program of `ctx`'s seed.
fn run_programs(ctx: &Ctx) -> Result<Run, Failure> {
    let (mut rig, staging) = Rig::open(ctx)?;
    let threshold = GATE.as_nanos() as u64 / 2;
    let mut ran = Vec::new();
    for (p, program) in programs(ctx.seed(), &staging).into_iter().enumerate() {
        let events = (0..EVENTS)
            .map(|_| rig.device.new_event())
            .collect::<gpu::Result<Vec<_>>>()?;
        let mut segments = (0..SEGMENTS)
            .map(|_| rig.device.alloc_segment(1 << 20))
            .collect::<gpu::Result<Vec<_>>>()?;
        let mut calls = Vec::new();
        for (i, step) in program.into_iter().enumerate() {
            let mark = rig.device.trace_mark();
            rig.act(&step.action, &events, &mut segments)?;
            let trace = rig.device.trace();
            let cpu_ns = trace.since(mark).first().map_or(0, |e| e.cpu_ns());
            let truth = truth(&step.action, cpu_ns >= threshold, &staging);
            calls.push(Ran {
                program: p + 1,
                index: i + 1,
                step,
                cpu_ns,
                truth,
            });
        }
        rig.device.synchronize()?;
        ran.push(calls);
    }
    ctx.save_timeline(&rig.device);
    Ok(Run {
        seed: ctx.seed(),
        staging,
        programs: ran,
    })
}
