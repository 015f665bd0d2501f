//! The trace of one steady-state step, as insta snapshots: what the chapter
//! shows a replayed step to be (a copy in, the padding, one graph launch, a
//! copy out), reviewable as text (`cargo insta review`). The judge's
//! `one_graph_launch_per_step` check asserts the same shape against a
//! learner's crate. On the virtual GPU the snapshot has exact times; the
//! redacted one (no times) must also hold on CUDA, where times differ from
//! run to run: `cargo test -p judge-checks -- --ignored` on a GPU machine.

use gpu::{Backend, TraceEntry};
use graph_buffers::{MAX_ROWS, Model, Runner, WIDTH};

/// One line per call: what it was, its stream, bytes and where it was made;
/// unless `redact`, its CPU and GPU times relative to the step's first call.
fn render(entries: &[TraceEntry], redact: bool) -> String {
    let origin = entries.first().map_or(0, |e| e.cpu_start_ns);
    let time = |ns: u64| format!("{:>6.2} us", ns.saturating_sub(origin) as f64 / 1e3);
    let mut out = String::new();
    for e in entries {
        let stream = e.stream.map_or("-".to_string(), |s| s.to_string());
        let file = e.site.file.rsplit('/').next().unwrap_or(e.site.file);
        out += &format!(
            "{:<20} {:<26} stream {stream} {:>6} B  {file}:{}",
            format!("{:?}", e.op),
            e.name,
            e.bytes,
            e.site.line,
        );
        if !redact {
            out += &format!("  cpu {} .. {}", time(e.cpu_start_ns), time(e.cpu_end_ns));
            if let Some(gpu) = e.gpu {
                out += &format!("  gpu {} .. {}", time(gpu.start_ns), time(gpu.end_ns));
            }
        }
        if let Some(reason) = e.blocking {
            out += &format!("  BLOCKS: {reason:?}");
        }
        out.push('\n');
    }
    out
}

/// The calls of one replayed step of 3 rows (bucket 4), after warm steps.
fn one_step(backend: Backend) -> Vec<TraceEntry> {
    let device = crate::tests::device(backend);
    let stream = device.new_stream().unwrap();
    let model = Model::new();
    let mut runner = Runner::new(&stream, &model).unwrap();
    let input = stream.alloc_zeros::<f32>(MAX_ROWS * WIDTH).unwrap();
    let output = stream.alloc_zeros::<f32>(MAX_ROWS * WIDTH).unwrap();
    stream.fill(&input, 1.0).unwrap();
    for rows in [16, 1, 5] {
        let n = rows * WIDTH;
        runner
            .decode(&[input.slice(0..n)], &[output.slice(0..n)])
            .unwrap();
    }
    stream.synchronize().unwrap();
    let mark = device.trace_mark();
    let n = 3 * WIDTH;
    runner
        .decode(&[input.slice(0..n)], &[output.slice(0..n)])
        .unwrap();
    let end = device.trace_mark();
    let host = stream.to_vec(output.slice(0..n)).unwrap();
    assert_eq!(host, model.reference(&vec![1.0; n]));
    let trace = device.trace();
    trace
        .since(mark)
        .iter()
        .take_while(|e| e.seq < end)
        .cloned()
        .collect()
}

#[test]
fn one_steady_state_step_on_the_virtual_gpu() {
    let step = one_step(Backend::Virtual);
    let _snapshots = crate::tests::snapshots(103).bind_to_scope();
    insta::assert_snapshot!("one_step", render(&step, false));
    insta::assert_snapshot!("one_step_redacted", render(&step, true));
}

#[test]
#[ignore = "needs a CUDA device: run with --ignored on a GPU machine"]
fn one_steady_state_step_on_cuda() {
    let step = one_step(Backend::Cuda);
    let _snapshots = crate::tests::snapshots(103).bind_to_scope();
    insta::assert_snapshot!("one_step_redacted", render(&step, true));
}

#[test]
fn the_solution_passes_every_check() {
    crate::tests::passes_every_check(103);
}
