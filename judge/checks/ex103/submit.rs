//! The CPU's submit time per step: a graph launch against the eager stack,
//! measured in the same run, medians after warm-up.

use super::support::{batch_sizes, micros, runner};
use graph_buffers::{LAYERS, MAX_ROWS, Model, WIDTH};
use judge_harness::{Ctx, Failure, median};

/// Steps timed each way (after the warm-up steps).
const TIMED: usize = 40;
/// Steps run each way before timing.
const WARM: usize = 5;
/// How much less CPU time a replayed step must take than an eager one. On
/// the H200, 200 empty kernels took 782 us to submit eagerly and 4–10 us as
/// one graph launch; the eager stack here is 64 launches (about 300 us), a
/// replayed step four calls (tens of us), so 5x leaves a wide margin.
const MIN_RATIO: f64 = 5.0;

pub(super) fn submit_at_least_5x_less_than_eager(ctx: &Ctx) -> Result<(), Failure> {
    let device = ctx.device()?;
    let stream = device.new_stream()?;
    let model = Model::new();
    let len = MAX_ROWS * WIDTH;
    let input = stream.alloc_zeros::<f32>(len)?;
    let output = stream.alloc_zeros::<f32>(len)?;
    let scratch = [
        stream.alloc_zeros::<f32>(len)?,
        stream.alloc_zeros::<f32>(len)?,
    ];
    stream.fill(&input, 0.25)?;
    let mut runner = runner(&stream, &model)?;
    let sizes = batch_sizes();
    let (mut eager, mut graph) = (Vec::new(), Vec::new());
    for (k, &rows) in sizes.iter().cycle().take(WARM + TIMED).enumerate() {
        let n = rows * WIDTH;
        let (x, y) = (input.slice(0..n), output.slice(0..n));
        let s = [scratch[0].slice(0..n), scratch[1].slice(0..n)];
        // Each timed call starts on an idle stream, so no queue is full.
        stream.synchronize()?;
        let start = device.now();
        model.forward(&stream, x, y, s)?;
        let eager_ns = (device.now() - start).as_nanos() as f64;
        stream.synchronize()?;
        let start = device.now();
        runner.decode(&[x], &[y]).map_err(|e| {
            Failure::new(format!("a step of {rows} rows to succeed"), e.to_string())
        })?;
        let graph_ns = (device.now() - start).as_nanos() as f64;
        if k >= WARM {
            eager.push(eager_ns);
            graph.push(graph_ns);
        }
    }
    stream.synchronize()?;
    let (eager, graph) = (median(&eager), median(&graph));
    let ratio = eager / graph.max(1.0);
    if ratio >= MIN_RATIO {
        return Ok(());
    }
    Err(Failure::new(
        format!(
            "the median CPU time to submit a step at least {MIN_RATIO}x less than the eager stack of {LAYERS} launches"
        ),
        format!(
            "eager {}, yours {} (eager / yours = {ratio:.1}). A replayed step is a copy in, the padding, one graph launch and a copy out; \
             {}",
            micros(eager),
            micros(graph),
            if ratio < 1.5 {
                "yours costs about as much as launching every layer: is the model still launched eagerly, or captured every step?"
            } else {
                "look for extra calls in the step (`judge run 103 --timeline steps.svg` draws them)"
            }
        ),
    ))
}
