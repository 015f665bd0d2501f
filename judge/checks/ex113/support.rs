//! What the checks share: the decoder, the workload of batch sizes, the
//! run of the learner's `BucketedStep` (or a test's stand-in) with the
//! trace of each step and the static buffers read after it, eager decoding
//! on the CPU, the bucket a batch needs, and words for a failed call.

use bucketed_step::{BUCKETS, Error, MAX_ROWS, PAD};
use gpu::{Decoder, DecoderConfig, Device, RaceReport, Stream, TraceEntry, View};
use judge_harness::{Ctx, Failure};
use std::time::Duration;

/// GPU time of one decode step (the decoder's spin pad).
const GPU_STEP: Duration = Duration::from_micros(200);
/// The batch sizes of the workload, in order: every bucket, empty batches,
/// and small batches after bigger ones (3 after 8 leaves row 3 of the
/// static input stale for a batch of 3's bucket of 4).
pub(super) const SIZES: [usize; 12] = [3, 8, 5, 0, 1, 6, 8, 2, 0, 7, 3, 2];
/// What each batch's `next` holds before the run: no token.
pub(super) const UNWRITTEN: i32 = -1;
/// What the judge writes over the static output before each step, so that
/// the rows a graph computed show.
pub(super) const BLANK: i32 = -2;
/// The section of the chapter on buckets.
pub(super) const SECTION: &str = "cuda-graphs.md#one-graph-per-bucket";

/// A bucketed step as the checks drive it: the learner's, or in the
/// suite's own tests a known-wrong one.
pub(super) trait Stepper {
    /// One step: `next` gets the tokens the decoder chooses after `tokens`.
    fn step(&mut self, tokens: View<i32>, next: View<i32>) -> Result<(), Error>;
    /// The static input and output, whole.
    fn static_buffers(&self) -> (View<i32>, View<i32>);
}

impl Stepper for bucketed_step::BucketedStep {
    fn step(&mut self, tokens: View<i32>, next: View<i32>) -> Result<(), Error> {
        bucketed_step::BucketedStep::step(self, tokens, next)
    }
    fn static_buffers(&self) -> (View<i32>, View<i32>) {
        bucketed_step::BucketedStep::static_buffers(self)
    }
}

/// A `BucketedStep::new` with the exercise's signature.
pub(super) type New = fn(&Stream, &Decoder) -> Result<Box<dyn Stepper>, Error>;

/// The `new` the checks run: the learner's, unless a test of the suite put
/// another in its place.
fn chosen() -> New {
    #[cfg(test)]
    if let Some(other) = super::tests::replacement() {
        return other;
    }
    |stream, decoder| Ok(Box::new(bucketed_step::BucketedStep::new(stream, decoder)?))
}

/// The smallest bucket that holds `rows` rows, as the judge counts.
pub(super) fn bucket_for(rows: usize) -> Option<usize> {
    BUCKETS.iter().copied().find(|&bucket| bucket >= rows)
}

/// One step of the run, as the judge saw it.
pub(super) struct Step {
    /// The tokens of its batch.
    pub(super) tokens: Vec<i32>,
    /// The trace of the call.
    pub(super) calls: Vec<TraceEntry>,
    /// The static input after the step.
    pub(super) input: Vec<i32>,
    /// The static output after the step ([`BLANK`] where no graph wrote).
    pub(super) output: Vec<i32>,
    /// What the step's `next` held after the whole run.
    pub(super) next: Vec<i32>,
}

impl Step {
    /// The rows of its batch.
    pub(super) fn rows(&self) -> usize {
        self.tokens.len()
    }

    /// The rows the graph launched computed: the rows of the static output
    /// written, from the first.
    pub(super) fn computed(&self) -> usize {
        self.output.iter().take_while(|&&t| t != BLANK).count()
    }
}

/// One run of the learner's step over [`SIZES`].
pub(super) struct Run {
    /// The device, whose trace holds the run.
    pub(super) device: Device,
    /// The decoder.
    pub(super) decoder: Decoder,
    /// Each step of the workload.
    pub(super) steps: Vec<Step>,
    /// The races the race checker found during the run.
    pub(super) races: Vec<RaceReport>,
}

impl Run {
    /// What eager decoding chooses after the tokens of step `s`.
    pub(super) fn eager(&self, s: usize) -> Vec<i32> {
        self.decoder.reference_step(&self.steps[s].tokens)
    }
}

/// Distinct tokens for `count` rows, none of them [`PAD`]: a row of the
/// static input tells which batch and row it came from.
fn tokens(seed: u64, count: usize) -> Vec<i32> {
    // 131 is prime to 511, so the first 511 rows get distinct tokens 1..512.
    let start = (seed % 511) as usize;
    (0..count)
        .map(|i| 1 + ((start + 131 * i) % 511) as i32)
        .collect()
}

/// The device, its stream and the decoder (warmed up by one eager step),
/// the trace cleared.
pub(super) fn setup(ctx: &Ctx) -> Result<(Device, Stream, Decoder), Failure> {
    let device = ctx.device()?;
    let stream = device.new_stream()?;
    let config = DecoderConfig {
        vocab: 512,
        hidden: 64,
        seed: ctx.seed_for(113),
        step_time: GPU_STEP,
    };
    let decoder = Decoder::new(&stream, config)?;
    // A real GPU may load a kernel at its first launch: not in the run.
    let warm = stream.alloc_zeros::<i32>(2)?;
    stream.decode_step(&decoder, warm.slice(0..1), warm.slice(1..2))?;
    stream.synchronize()?;
    drop(warm);
    device.clear_trace();
    Ok((device, stream, decoder))
}

/// The learner's `new` on `stream`, its failure told.
pub(super) fn make(stream: &Stream, decoder: &Decoder) -> Result<Box<dyn Stepper>, Failure> {
    chosen()(stream, decoder).map_err(|e| call_failed("new", None, &e))
}

/// Makes the learner's step and runs the workload through it, one batch
/// after the other, each step's trace marked and the static buffers read
/// after it (the judge's reads wait for the step's work: they are outside
/// its trace); every `next` is read once, at the end.
pub(super) fn run(ctx: &Ctx) -> Result<Run, Failure> {
    let (device, stream, decoder) = setup(ctx)?;
    let total: usize = SIZES.iter().sum();
    let all = tokens(ctx.seed_for(113), total);
    let inputs = stream.alloc_zeros::<i32>(total)?;
    stream.copy_from_host(&all, &inputs)?;
    let outputs = stream.alloc_zeros::<i32>(total)?;
    stream.fill(&outputs, UNWRITTEN)?;
    let mut step = make(&stream, &decoder)?;
    let (input, output) = step.static_buffers();
    let mut steps = Vec::with_capacity(SIZES.len());
    let mut at = 0;
    for (s, &rows) in SIZES.iter().enumerate() {
        stream.fill(output, BLANK)?;
        let batch = at..at + rows;
        let mark = device.trace_mark();
        step.step(inputs.slice(batch.clone()), outputs.slice(batch.clone()))
            .map_err(|e| call_failed(&format!("step {s}"), Some(rows), &e))?;
        let calls = device.trace().since(mark).to_vec();
        steps.push(Step {
            tokens: all[batch].to_vec(),
            calls,
            input: stream.to_vec(input)?,
            output: stream.to_vec(output)?,
            next: Vec::new(),
        });
        at += rows;
    }
    let next = stream.to_vec(&outputs)?;
    let mut at = 0;
    for step in &mut steps {
        step.next = next[at..at + step.rows()].to_vec();
        at += step.rows();
    }
    drop(step);
    let races = device.take_races();
    Ok(Run {
        device,
        decoder,
        steps,
        races,
    })
}

/// A call of the learner's (`new`, `step 3` of a batch of `rows`) that
/// returned an error, with what the error means for a bucketed step.
pub(super) fn call_failed(call: &str, rows: Option<usize>, e: &Error) -> Failure {
    let batch = rows.map_or(String::new(), |n| format!(" (a batch of {n} rows)"));
    let expected = format!("`{call}`{batch} to succeed");
    let text = e.to_string();
    let failed = Failure::new(expected.clone(), format!("`{call}`{batch} failed: {text}"));
    // For a batch that fits, the error's own text (no bucket, split the
    // batch) would contradict the batch: say what the step refused instead.
    match (e, rows) {
        (Error::TooManyRows { .. }, Some(0)) => Failure::new(
            expected,
            format!("`{call}`{batch} returned `Error::TooManyRows`, but an empty batch is no step at all: it returns `Ok(())` having queued nothing"),
        )
        .detail(format!(
            "`Error::TooManyRows` is only for a batch of more than `MAX_ROWS` = {MAX_ROWS} rows; an empty batch (a serving loop's idle step) has no bucket because it needs none: return before looking for one; see {SECTION}"
        )),
        (Error::TooManyRows { .. }, Some(n)) if n <= MAX_ROWS => Failure::new(
            expected,
            format!(
                "`{call}`{batch} returned `Error::TooManyRows`, but {n} rows fit the bucket of {}: the step refused a batch it must run",
                bucket_for(n).unwrap_or(MAX_ROWS)
            ),
        )
        .detail(format!(
            "`Error::TooManyRows` is only for a batch of more than `MAX_ROWS` = {MAX_ROWS} rows: the bucket of a batch is the first of `BUCKETS` = {BUCKETS:?} that is at least its rows (look for `<` where `<=` belongs, or a search that stops one bucket early); see {SECTION}"
        )),
        (Error::TooManyRows { .. }, _) => failed.detail(format!(
            "only a batch of more than `MAX_ROWS` = {MAX_ROWS} rows has no bucket: `bucket_for` is the first of `BUCKETS` = {BUCKETS:?} that is at least the batch's rows, and an empty batch is no step at all; see {SECTION}"
        )),
        (Error::Gpu(_), _) if text.contains("length mismatch") => failed.detail(format!(
            "a copy or a fill got views of different lengths or out of the static buffers: the batch goes into rows `0..n` of the static input, the padding into rows `n..bucket`, and only rows `0..n` of the static output go to `next`, which holds `n` tokens; see {SECTION}"
        )),
        (Error::Gpu(_), _) => failed,
    }
}

/// One trace entry for a person: what and where.
pub(super) fn describe(e: &TraceEntry) -> String {
    format!("`{}` at {}", e.name, e.site)
}

/// The padding token, as the messages spell it.
pub(super) const PAD_WORDS: &str = "`PAD` (token 0)";

/// Rows `range` of the static input held [`PAD`].
pub(super) fn padded(input: &[i32], range: std::ops::Range<usize>) -> bool {
    input
        .get(range)
        .is_some_and(|rows| rows.iter().all(|&t| t == PAD))
}

/// Whether `e` is a fill kernel: the padding, when a step queues one.
pub(super) fn is_fill(e: &TraceEntry) -> bool {
    e.op == gpu::OpKind::Launch && e.name.starts_with("fill")
}

/// The row inside the batch where the padding began, if it did: the fills
/// before the graph launch wrote more rows than the bucket has after the
/// batch, and the static input held `PAD` from there to the batch's end.
pub(super) fn padding_inside(step: &Step) -> Option<usize> {
    let n = step.rows();
    let launch = step
        .calls
        .iter()
        .position(|e| e.op == gpu::OpKind::GraphLaunch)?;
    let filled: u64 = step.calls[..launch]
        .iter()
        .filter(|e| is_fill(e))
        .map(|e| e.bytes / 4)
        .sum();
    let bucket = step.computed().max(bucket_for(n)?);
    let k = bucket.checked_sub(usize::try_from(filled).ok()?)?;
    (k < n && padded(&step.input, k..n)).then_some(k)
}
