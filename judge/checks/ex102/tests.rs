//! One steady-state step of the overlapped loop, as insta snapshots of its
//! trace: the calls from one `decode_step` launch to the next, with their
//! streams, what can block, and where they were made. The virtual GPU's
//! snapshot has exact times (CPU and GPU, relative to the launch); the other
//! runs on whichever backend is here (CUDA on a GPU machine) with the times
//! redacted, so it holds on both.

use gpu::{Backend, Decoder, DecoderConfig, OpKind, TraceEntry};
use overlap_sampler::{Batch, Request, generate};
use std::time::Duration;

/// The entries of the fifth step: from its `decode_step` launch up to the next.
fn steady_step(backend: Backend) -> Vec<TraceEntry> {
    let device = crate::tests::device(backend);
    let stream = device.new_stream().unwrap();
    let config = DecoderConfig {
        vocab: 512,
        hidden: 64,
        seed: 102,
        step_time: Duration::from_millis(2),
    };
    let decoder = Decoder::new(&stream, config).unwrap();
    stream.synchronize().unwrap();
    let requests = (0..4)
        .map(|i| Request {
            prompt: 7 + 61 * i,
            max_new_tokens: 10,
        })
        .collect();
    let batch = Batch { requests, eos: 512 };
    generate(&stream, &decoder, &batch, Duration::from_micros(1500)).unwrap();
    let trace = device.trace();
    let launches: Vec<usize> = (0..trace.entries.len())
        .filter(|&i| {
            let e = &trace.entries[i];
            e.op == OpKind::Launch && e.name == "decode_step"
        })
        .collect();
    trace.entries[launches[4]..launches[5]].to_vec()
}

/// One line per call; times in microseconds from the launch, or redacted.
fn render(entries: &[TraceEntry], times: bool) -> String {
    let t0 = entries[0].cpu_start_ns;
    let us = |ns: u64| format!("{:>8.1}", (ns - t0) as f64 / 1e3);
    let mut out = String::new();
    for e in entries {
        let file = e.site.file.rsplit('/').next().unwrap_or(e.site.file);
        let stream = e
            .stream
            .map_or("cpu".to_string(), |s| format!("stream {}", s.0));
        let blocks = e
            .blocking
            .map(|b| format!("  can block: {b:?}"))
            .unwrap_or_default();
        out += &format!(
            "{:<24} {:<9} {file}:{}{blocks}\n",
            e.name, stream, e.site.line
        );
        if times {
            let gpu = e
                .gpu
                .map(|g| format!("   gpu {} .. {} us", us(g.start_ns), us(g.end_ns)))
                .unwrap_or_default();
            out += &format!(
                "    cpu {} .. {} us{gpu}\n",
                us(e.cpu_start_ns),
                us(e.cpu_end_ns)
            );
        }
    }
    out
}

#[test]
fn one_steady_state_step_on_the_virtual_gpu() {
    let _snapshots = crate::tests::snapshots(102).bind_to_scope();
    insta::assert_snapshot!(
        "steady_step_virtual",
        render(&steady_step(Backend::Virtual), true)
    );
}

#[test]
fn one_steady_state_step_on_any_backend() {
    let _snapshots = crate::tests::snapshots(102).bind_to_scope();
    insta::assert_snapshot!(
        "steady_step_ops",
        render(&steady_step(Backend::Auto), false)
    );
}

/// The steady-state windows of the solution's loop have no event wait
/// after their reads; a loop that waits for the GPU before each `submit`
/// has one in every window, and the check names it.
#[test]
fn a_wait_that_holds_back_the_next_launch_is_found() {
    use super::steady::wait_before_the_next_launch;
    use super::support::Steps;
    let device = crate::tests::device(Backend::Virtual);
    let stream = device.new_stream().unwrap();
    let config = DecoderConfig {
        vocab: 512,
        hidden: 64,
        seed: 102,
        step_time: Duration::from_millis(2),
    };
    let decoder = Decoder::new(&stream, config).unwrap();
    let requests = (0..4)
        .map(|i| Request {
            prompt: 7 + 61 * i,
            max_new_tokens: 10,
        })
        .collect();
    let batch = Batch { requests, eos: 512 };
    stream.synchronize().unwrap();
    device.clear_trace();
    generate(&stream, &decoder, &batch, Duration::from_micros(1500)).unwrap();
    let trace = device.trace();
    let steps = Steps::of(&trace.entries);
    assert!(!steps.steady().is_empty());
    for window in steps.steady() {
        assert_eq!(wait_before_the_next_launch(window).map(|e| e.site), None);
    }
    device.clear_trace();
    let mut sampler = overlap_sampler::Sampler::new(&stream, &decoder, &batch).unwrap();
    sampler.submit().unwrap();
    let previous = device.new_event().unwrap();
    while !sampler.is_finished() {
        device.host_work(Duration::from_micros(1500));
        previous.record(&stream).unwrap();
        previous.synchronize().unwrap();
        sampler.submit().unwrap();
        sampler.process().unwrap();
    }
    let trace = device.trace();
    let steps = Steps::of(&trace.entries);
    assert!(!steps.steady().is_empty());
    for window in steps.steady() {
        let wait = wait_before_the_next_launch(window).expect("the wait before the launch");
        assert_eq!(wait.op, OpKind::EventSynchronize);
    }
}

#[test]
fn the_solution_passes_every_check() {
    crate::tests::passes_every_check(102);
}
