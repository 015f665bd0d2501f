//! Decodings for the suite's own tests, written with the `gpu` crate:
//! another right way (one event per step boundary) and the known-wrong
//! steps whose messages `tests.rs` snapshots, each one mistake in the
//! solution's step, or the starter's four hidden syncs at once.

use super::support::{New, Stepper};
use gpu::{Decoder, DeviceBuffer, Event, PinnedBuffer, Result, Stream};
use step_without_syncs::{Config, Report, outputs_from_history};

/// A mistake in the solution's step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mistake {
    /// None: the solution.
    None,
    /// None either: a step's time runs from the end event of the step
    /// before (or a start event recorded in step 0).
    EventPerBoundary,
    /// The starter: the four hidden syncs below, at once.
    Starter,
    /// A pinned buffer allocated in the step and dropped at its end.
    PinnedPerStep,
    /// The count of finished requests read back to branch on it.
    BranchOnCount,
    /// The step's predictions read back to a `Vec`.
    ReadsPredictions,
    /// `elapsed_ms` in the step.
    ElapsedInStep,
    /// The input copied from the `&[i32]`, pageable memory.
    PageableInput,
    /// The stream synchronized at the end of the step.
    SynchronizesEachStep,
    /// The end event queried in a loop until it completes.
    PollsTheEndEvent,
    /// One pinned input buffer, rewritten every step.
    OnePinnedBuffer,
    /// A ring of two pinned slots, each rewritten once the event after its
    /// last copy is done: a wait in every step from the third on.
    ShallowRing,
    /// A slot per step, but one event for the whole ring (the last
    /// copy's), waited for before each write: a wait in every step from
    /// the second on.
    SharedEvent,
    /// The predictions decoded into a device buffer made in the step.
    FreshOutputEachStep,
    /// The step time from the CPU's clock around the step's calls.
    CpuClock,
    /// A start event recorded in `new`, before the spin.
    StartedInNew,
    /// Every step's time from the first step's start event.
    RunningTotal,
    /// The start event recorded after the decode: the events hold only
    /// the flags.
    StartAfterDecode,
    /// No `flag_eq`: the done flags are never set.
    NoFlags,
    /// The outputs not cut at their first `eos`.
    NotCut,
    /// Every step decoded into row 0 of the history.
    OneRow,
    /// Step t decoded at element t of the history, not row t.
    OffsetByStep,
    /// The end event recorded before `flag_eq`: the flags are in no step.
    EndBeforeFlags,
    /// `finish` reads and cuts `max_steps` rows of the history.
    ReadsMaxSteps,
    /// The done flags cleared with a `fill` at the start of each step.
    ClearsFlags,
    /// `flag_eq` on the step's input tokens, not its predictions.
    FlagsInput,
    /// The copy from the step's pinned buffer queued before its write.
    WritesAfterCopy,
    /// `finish` reads each time from the end event to the start event.
    ReversedElapsed,
    /// From step 1 on, the decoder reads the step before's predictions,
    /// not the step's tokens.
    DecodesPredictions,
}

/// The solution's decoding, with one mistake.
struct Wrong<'d> {
    mistake: Mistake,
    stream: Stream,
    decoder: &'d Decoder,
    config: Config,
    pinned: Vec<PinnedBuffer<i32>>,
    /// The event after the last copy from each pinned slot
    /// ([`Mistake::ShallowRing`]).
    copied: Vec<Option<Event>>,
    input: DeviceBuffer<i32>,
    done: DeviceBuffer<i32>,
    history: DeviceBuffer<i32>,
    /// Where the starter's mistakes keep what they read back.
    host_history: Vec<i32>,
    host_ms: Vec<f64>,
    /// Every event recorded, in order (the first one in `new` for
    /// [`Mistake::StartedInNew`]).
    marks: Vec<Event>,
    /// Each step's start and end, indices into `marks`.
    pairs: Vec<(usize, usize)>,
}

impl<'d> Wrong<'d> {
    /// The solution's `new`, boxed, with `mistake`.
    fn boxed(
        decoder: &'d Decoder,
        stream: &Stream,
        config: Config,
        mistake: Mistake,
    ) -> Result<Box<dyn Stepper + 'd>> {
        let device = stream.device();
        let (batch, steps) = (config.batch, config.max_steps);
        let slots = match mistake {
            Mistake::ShallowRing => 2,
            _ => steps,
        };
        let pinned = (0..slots)
            .map(|_| device.alloc_pinned::<i32>(batch))
            .collect::<Result<_>>()?;
        let marks = match mistake {
            Mistake::StartedInNew => vec![stream.record_event()?],
            _ => Vec::new(),
        };
        Ok(Box::new(Self {
            input: stream.alloc_zeros(batch)?,
            done: stream.alloc_zeros(batch)?,
            history: stream.alloc_zeros(batch * steps)?,
            host_history: Vec::new(),
            host_ms: Vec::new(),
            marks,
            pairs: Vec::new(),
            stream: stream.clone(),
            copied: (0..steps).map(|_| None).collect(),
            pinned,
            decoder,
            config,
            mistake,
        }))
    }

    /// Whether this decoding makes `mistake` (the starter makes four).
    fn makes(&self, mistake: Mistake) -> bool {
        use Mistake::*;
        self.mistake == mistake
            || (self.mistake == Starter
                && matches!(
                    mistake,
                    PinnedPerStep | BranchOnCount | ReadsPredictions | ElapsedInStep
                ))
    }

    /// The step's input into `self.input`, as the mistake sends it.
    fn send(&mut self, t: usize, tokens: &[i32]) -> Result<()> {
        let s = &self.stream;
        if self.makes(Mistake::PinnedPerStep) {
            let staged = s.device().alloc_pinned::<i32>(tokens.len())?;
            staged.write(tokens)?;
            return s.copy_from_pinned(&staged, &self.input); // dropped here
        }
        if self.makes(Mistake::PageableInput) {
            return s.copy_from_host(tokens, &self.input);
        }
        let slot = match self.mistake {
            Mistake::OnePinnedBuffer => 0,
            Mistake::ShallowRing => t % 2,
            _ => t,
        };
        if self.makes(Mistake::ShallowRing) || self.makes(Mistake::SharedEvent) {
            let event = if self.makes(Mistake::SharedEvent) {
                0
            } else {
                slot
            };
            if let Some(copied) = self.copied[event].take() {
                copied.synchronize()?;
            }
            self.pinned[slot].write(tokens)?;
            s.copy_from_pinned(&self.pinned[slot], &self.input)?;
            self.copied[event] = Some(s.record_event()?);
            return Ok(());
        }
        if self.makes(Mistake::WritesAfterCopy) {
            s.copy_from_pinned(&self.pinned[slot], &self.input)?;
            return self.pinned[slot].write(tokens);
        }
        self.pinned[slot].write(tokens)?;
        s.copy_from_pinned(&self.pinned[slot], &self.input)
    }
}

impl Stepper for Wrong<'_> {
    fn step(&mut self, tokens: &[i32]) -> Result<()> {
        let (s, t, batch) = (self.stream.clone(), self.pairs.len(), self.config.batch);
        let clock = s.device().now();
        let start = match (self.pairs.last(), self.mistake) {
            (Some(&(_, end)), Mistake::EventPerBoundary) => end,
            (Some(&(first, _)), Mistake::RunningTotal) => {
                self.marks.push(s.record_event()?);
                first
            }
            (None, Mistake::StartedInNew) => 0,
            (_, Mistake::StartAfterDecode) => usize::MAX,
            _ => {
                self.marks.push(s.record_event()?);
                self.marks.len() - 1
            }
        };
        if self.makes(Mistake::ClearsFlags) {
            s.fill(&self.done, 0)?;
        }
        self.send(t, tokens)?;
        let row = if self.makes(Mistake::OneRow) { 0 } else { t };
        let fresh;
        let predicted = if self.makes(Mistake::FreshOutputEachStep) {
            fresh = s.alloc_zeros::<i32>(batch)?;
            fresh.slice(0..batch)
        } else if self.makes(Mistake::OffsetByStep) {
            self.history.slice(t..t + batch)
        } else {
            self.history.slice(row * batch..(row + 1) * batch)
        };
        let decode = if self.makes(Mistake::BranchOnCount) {
            let finished = s.alloc_zeros::<i32>(1)?;
            s.count_eq(&self.done, 1, &finished)?;
            (s.to_vec(&finished)?[0] as usize) < batch
        } else {
            true
        };
        let mut start = start;
        if decode && self.makes(Mistake::DecodesPredictions) && t > 0 {
            let before = self.history.slice((t - 1) * batch..t * batch);
            s.decode_step(self.decoder, before, predicted)?;
        } else if decode {
            s.decode_step(self.decoder, &self.input, predicted)?;
        }
        if decode {
            if start == usize::MAX {
                self.marks.push(s.record_event()?);
                start = self.marks.len() - 1;
            }
            if self.makes(Mistake::EndBeforeFlags) {
                self.marks.push(s.record_event()?);
            }
            if self.makes(Mistake::FlagsInput) {
                s.flag_eq(&self.input, self.config.eos, &self.done)?;
            } else if !self.makes(Mistake::NoFlags) {
                s.flag_eq(predicted, self.config.eos, &self.done)?;
            }
        }
        if self.makes(Mistake::FreshOutputEachStep) {
            s.copy(predicted, self.history.slice(t * batch..(t + 1) * batch))?;
        }
        if self.makes(Mistake::ReadsPredictions) {
            let rows = s.to_vec(predicted)?;
            self.host_history.extend(rows);
        }
        if !self.makes(Mistake::EndBeforeFlags) {
            self.marks.push(s.record_event()?);
        }
        let end = self.marks.len() - 1;
        if self.makes(Mistake::ElapsedInStep) {
            let ms = self.marks[start].elapsed_ms(&self.marks[end])?;
            self.host_ms.push(f64::from(ms));
        }
        if self.makes(Mistake::SynchronizesEachStep) {
            s.synchronize()?;
        }
        if self.makes(Mistake::PollsTheEndEvent) {
            while !self.marks[end].query()? {}
        }
        if self.makes(Mistake::CpuClock) {
            self.host_ms
                .push((s.device().now() - clock).as_secs_f64() * 1e3);
        }
        self.pairs.push((start, end));
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<Report> {
        let (s, mut steps) = (&self.stream, self.pairs.len());
        if self.makes(Mistake::ReadsMaxSteps) {
            steps = self.config.max_steps;
        }
        let (batch, eos) = (self.config.batch, self.config.eos);
        let history = if self.makes(Mistake::ReadsPredictions) {
            self.host_history.clone()
        } else {
            s.to_vec(self.history.slice(0..steps * batch))?
        };
        let done = s.to_vec(&self.done)?;
        let step_ms = if self.makes(Mistake::ElapsedInStep) || self.makes(Mistake::CpuClock) {
            self.host_ms.clone()
        } else {
            self.pairs
                .iter()
                .map(|&(a, b)| match self.makes(Mistake::ReversedElapsed) {
                    true => self.marks[b].elapsed_ms(&self.marks[a]).map(f64::from),
                    false => self.marks[a].elapsed_ms(&self.marks[b]).map(f64::from),
                })
                .collect::<Result<_>>()?
        };
        let outputs = if self.makes(Mistake::NotCut) {
            (0..batch)
                .map(|r| (0..steps).map(|t| history[t * batch + r]).collect())
                .collect()
        } else {
            outputs_from_history(&history, batch, steps, eos)
        };
        Ok(Report {
            outputs,
            finished: done.iter().filter(|&&d| d != 0).count(),
            step_ms,
        })
    }
}

macro_rules! news {
    ($($name:ident => $mistake:ident),+ $(,)?) => {
        $(
            #[doc = concat!("`Decoding::new` with [`Mistake::", stringify!($mistake), "`].")]
            pub(super) fn $name<'d>(
                decoder: &'d Decoder,
                stream: &Stream,
                config: Config,
            ) -> Result<Box<dyn Stepper + 'd>> {
                Wrong::boxed(decoder, stream, config, Mistake::$mistake)
            }
        )+
        /// Every one of them, for a test that runs them all.
        pub(super) const ALL: &[(&str, New)] = &[$((stringify!($name), $name)),+];
    };
}

news! {
    solution => None,
    event_per_boundary => EventPerBoundary,
    starter => Starter,
    pinned_per_step => PinnedPerStep,
    branch_on_count => BranchOnCount,
    reads_predictions => ReadsPredictions,
    elapsed_in_step => ElapsedInStep,
    pageable_input => PageableInput,
    synchronizes_each_step => SynchronizesEachStep,
    polls_the_end_event => PollsTheEndEvent,
    one_pinned_buffer => OnePinnedBuffer,
    shallow_ring => ShallowRing,
    shared_event => SharedEvent,
    fresh_output_each_step => FreshOutputEachStep,
    cpu_clock => CpuClock,
    started_in_new => StartedInNew,
    running_total => RunningTotal,
    start_after_decode => StartAfterDecode,
    no_flags => NoFlags,
    not_cut => NotCut,
    one_row => OneRow,
    offset_by_step => OffsetByStep,
    end_before_flags => EndBeforeFlags,
    reads_max_steps => ReadsMaxSteps,
    clears_flags => ClearsFlags,
    flags_input => FlagsInput,
    writes_after_copy => WritesAfterCopy,
    reversed_elapsed => ReversedElapsed,
    decodes_predictions => DecodesPredictions,
}
