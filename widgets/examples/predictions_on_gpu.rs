//! Poses every prediction of the book to a real GPU: each program at each
//! value of its parameter, run by the same scenario code as the page's (on
//! the CUDA backend, [`RUNS`] times), its answer next to the virtual GPU's.
//! The allocator's predictions run on the reference allocator's simulated
//! driver; they are posed to PyTorch's caching allocator by
//! `benches/python/predictions_allocator.py` instead.
//!
//! ```text
//! cargo run --release -p workbook-widgets --example predictions_on_gpu
//! cargo run --release -p workbook-widgets --example predictions_on_gpu -- profile-
//! ```
//!
//! An argument poses only the predictions whose id starts with it (the
//! second line: the profiling chapter's). Every row should say `same`: the
//! virtual GPU and the GPU agree.

use gpu::{Backend, Device, DeviceOptions};
use std::process::ExitCode;
use workbook_benches::figures::{On, run_on};
use workbook_widgets::predict::{Prediction, predictions};

/// Times each program runs on the GPU.
const RUNS: usize = 5;

/// The chapters whose scenarios need the GPU's own times in the trace.
fn timed(p: &Prediction) -> bool {
    p.chapter != "cpu-and-gpu"
}

fn main() -> ExitCode {
    let device = Device::with_options(DeviceOptions {
        backend: Backend::Cuda,
        quiet: true,
        ..DeviceOptions::default()
    });
    let device = match device {
        Ok(device) => device,
        Err(e) => {
            eprintln!("error: this program poses the predictions to a real GPU: {e}");
            return ExitCode::FAILURE;
        }
    };
    let command = "cargo run --release -p workbook-widgets --example predictions_on_gpu";
    print!(
        "{}",
        workbook_benches::header(&device, command, workbook_commit::COMMIT)
    );
    drop(device);
    println!(
        "\nEach prediction's program at each value of its parameter: the virtual GPU's answer, and the GPU's in {RUNS} runs.\n"
    );
    println!(
        "{:<22}  {:<10}  {:<8}  {:<12}  {:<28}  verdict",
        "prediction", "value", "part", "virtual", "GPU"
    );
    let mut failed = false;
    let only = std::env::args().nth(1).unwrap_or_default();
    let posed = predictions().filter(|p| p.chapter != "allocator" && p.id.starts_with(&only));
    for p in posed {
        for value in p.parameter.options.iter().map(|o| o.value) {
            failed |= pose(p, value).is_err();
        }
    }
    println!(
        "\nallocator-*: the reference allocator's simulated driver; posed to PyTorch's allocator in torch_predictions_allocator.txt"
    );
    match failed {
        true => ExitCode::FAILURE,
        false => ExitCode::SUCCESS,
    }
}

/// Poses `p`'s program at `value`: one row per part.
fn pose(p: &Prediction, value: &str) -> Result<(), ()> {
    let model = p
        .answer(value)
        .map_err(|e| eprintln!("{} {value}: {e}", p.id))?;
    let mut runs = Vec::new();
    for _ in 0..RUNS {
        let on = On::Cuda { timed: timed(p) };
        let answer = run_on(on, || p.answer(value));
        runs.push(answer.map_err(|e| eprintln!("{} {value} on the GPU: {e}", p.id))?);
    }
    for (i, part) in p.parts.iter().enumerate() {
        let gpu: Vec<&str> = runs.iter().map(|r| r[i]).collect();
        let same = gpu.iter().all(|a| *a == model[i]);
        println!(
            "{:<22}  {:<10}  {:<8}  {:<12}  {:<28}  {}",
            p.id,
            value,
            part.name,
            model[i],
            tally(&gpu),
            if same { "same" } else { "DIFFERS" }
        );
    }
    Ok(())
}

/// `answers` counted, as `launch ×4, compute ×1`.
fn tally(answers: &[&str]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for a in answers {
        match counts.iter_mut().find(|(seen, _)| seen == a) {
            Some((_, n)) => *n += 1,
            None => counts.push((a, 1)),
        }
    }
    counts
        .iter()
        .map(|(a, n)| format!("{a} ×{n}"))
        .collect::<Vec<_>>()
        .join(", ")
}
