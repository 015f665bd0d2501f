//! The CUDA graphs chapter's timelines: three decode steps of exercise 103,
//! run eagerly and replayed from graphs, drawn from the virtual GPU's trace
//! on the same time scale; and one step of `count` kernels of any length,
//! eager or replayed ([`crate::graphs::kernel_step`], the chapter's live
//! timeline, whose figure is 200 empty kernels launched one by one); and
//! a capture across two streams ([`crate::graphs::fork`]): its two chains
//! run on two streams, then replayed from a graph captured on one stream and
//! from one captured across both.

use super::{Live, live_device};
use crate::duration_text;
use crate::graphs::fork::{CHAIN, KERNEL, capture_two_chains};
use crate::graphs::{Error, KernelStep, Timing, kernel_step};
use gpu::{Backend, Device, SvgOptions};
use graph_buffers::{MAX_ROWS, Model, Runner, WIDTH};
use std::time::Duration;

/// The live timeline's figure: 200 empty kernels, launched one by one.
pub const KERNELS: KernelStep = KernelStep {
    count: 200,
    length: Duration::ZERO,
    replay: false,
};

/// Runs `step` on a fresh virtual GPU (one warm-up, one timed run) and draws
/// the timed run, from its first call until the stream is idle (and a
/// margin after, none before: the warm-up ends there).
pub fn live(step: &KernelStep) -> Result<Live<Timing>, Error> {
    let device = live_device()?;
    let stream = device.new_stream()?;
    let run = kernel_step(&device, &stream, step, 1)?;
    let end = device.now().as_nanos() as u64;
    let start = end - run.total.median as u64;
    let pad = (end - start) / 20;
    let kernels = match step.length {
        Duration::ZERO => "empty kernels".to_string(),
        length => format!("kernels of {}", duration_text(length.as_nanos() as f64)),
    };
    let how = if step.replay {
        "replayed as one graph"
    } else {
        "launched one by one"
    };
    let svg = device.trace().to_svg(&SvgOptions {
        width: 1000,
        title: Some(format!("A step of {} {kernels}, {how}", step.count)),
        window_ns: Some((start, end + pad)),
    });
    Ok(Live { svg, run, device })
}

/// The batch sizes of the three steps drawn.
const ROWS: [usize; 3] = [3, 16, 5];
/// The time both timelines span, in nanoseconds: the eager steps fill it.
const SPAN_NS: u64 = 820_000;

/// Both figures: `(file name, SVG)`.
pub(super) fn all() -> Vec<(&'static str, String)> {
    vec![
        ("graphs-eager.svg", draw(false)),
        ("graphs-replay.svg", draw(true)),
        (
            "graphs-kernels.svg",
            live(&KERNELS)
                .expect("the kernels run on the virtual GPU")
                .svg,
        ),
        ("graphs-fork.svg", fork()),
    ]
}

/// The two chains of [`capture_two_chains`]: queued on two streams with a
/// fork and a join, then replayed from the graph captured on one stream,
/// then from the one captured across both, each after the other has ended.
fn fork() -> String {
    let device = Device::open(Backend::Virtual).expect("the virtual GPU opens");
    let (s, t) = (
        device.new_stream().expect("a stream"),
        device.new_stream().expect("a stream"),
    );
    let chained = capture_two_chains(&s, None).expect("a capture on one stream");
    let forked = capture_two_chains(&s, Some(&t)).expect("a capture across two");
    s.synchronize().expect("setup done");
    device.clear_trace();
    let start = device.now().as_nanos() as u64;
    let run = || -> gpu::Result<()> {
        t.wait_event(&s.record_event()?)?;
        for _ in 0..CHAIN {
            s.spin(KERNEL)?;
            t.spin(KERNEL)?;
        }
        s.wait_event(&t.record_event()?)?;
        s.synchronize()?;
        chained.launch()?;
        s.synchronize()?;
        forked.launch()?;
        s.synchronize()
    };
    run().expect("the chains run");
    let end = device.now().as_nanos() as u64;
    let pad = (end - start) / 40;
    let title = format!(
        "Two chains of {CHAIN} kernels of {} on two streams, then replayed: captured on one stream, across two",
        duration_text(KERNEL.as_nanos() as f64)
    );
    device.trace().to_svg(&SvgOptions {
        width: 1000,
        title: Some(title),
        window_ns: Some((start, end + pad)),
    })
}

/// Three steps on a fresh virtual GPU, eager or replayed, as an SVG timeline.
fn draw(replay: bool) -> String {
    let device = Device::open(Backend::Virtual).expect("the virtual GPU opens");
    let stream = device.new_stream().expect("a stream");
    let model = Model::new();
    let len = MAX_ROWS * WIDTH;
    let alloc = || stream.alloc_zeros::<f32>(len).expect("memory");
    let (input, output, scratch) = (alloc(), alloc(), [alloc(), alloc()]);
    let mut runner = Runner::new(&stream, &model).expect("the captures succeed");
    stream.synchronize().expect("setup done");
    device.clear_trace();
    let start = device.now().as_nanos() as u64;
    for rows in ROWS {
        let n = rows * WIDTH;
        let (x, y) = (input.slice(0..n), output.slice(0..n));
        if replay {
            runner.decode(&[x], &[y]).expect("a replayed step");
        } else {
            let s = [scratch[0].slice(0..n), scratch[1].slice(0..n)];
            model.forward(&stream, x, y, s).expect("an eager step");
        }
    }
    stream.synchronize().expect("the steps finish");
    let title = if replay {
        "Three decode steps replayed: copy in, pad, one graph launch, copy out (3, 16, 5 rows)"
    } else {
        "Three decode steps run eagerly: 64 launches each (3, 16, 5 rows)"
    };
    let mut trace = device.trace();
    // The warm-up's side stream has nothing in the window: leave its lane out.
    trace.streams.retain(|&s| s == stream.id());
    trace.to_svg(&SvgOptions {
        width: 1000,
        title: Some(title.to_string()),
        window_ns: Some((start, start + SPAN_NS)),
    })
}
