//! The kernel library: each kernel's results, and the CUDA code against its
//! CPU twin, bit for bit, on the same inputs.

use crate::both;
use crate::support::{GATE, cpu_time, open};
use gpu::{Backend, Decoder, DecoderConfig, Device};
use std::time::Duration;

/// Every kernel on seeded random inputs; returns all outputs as bits.
fn run_all(device: &Device, seed: u64) -> Vec<Vec<u32>> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let s = device.new_stream().unwrap();
    let mut out = Vec::new();
    let floats: Vec<f32> = (0..5000).map(|_| rng.f32() * 200.0 - 100.0).collect();
    let x = s.alloc_zeros::<f32>(floats.len()).unwrap();
    s.copy_from_host(&floats, &x).unwrap();
    let total = s.alloc_zeros::<f32>(1).unwrap();
    s.sum(&x, &total).unwrap();
    out.push(
        s.to_vec(&total)
            .unwrap()
            .iter()
            .map(|v| v.to_bits())
            .collect(),
    );
    let rows = s.alloc_zeros::<i32>(50).unwrap();
    s.argmax_rows(&x, 50, 100, &rows).unwrap();
    out.push(s.to_vec(&rows).unwrap().iter().map(|&v| v as u32).collect());
    let y = s.alloc_zeros::<f32>(floats.len()).unwrap();
    s.affine(&x, 1.1, -0.3, &y).unwrap();
    out.push(s.to_vec(&y).unwrap().iter().map(|v| v.to_bits()).collect());
    let ints: Vec<i32> = (0..3000).map(|_| rng.i32(0..8)).collect();
    let (t, flags) = (
        s.alloc_zeros::<i32>(ints.len()).unwrap(),
        s.alloc_zeros::<i32>(ints.len()).unwrap(),
    );
    s.copy_from_host(&ints, &t).unwrap();
    s.flag_eq(&t, 3, &flags).unwrap();
    s.flag_eq(&t, 5, &flags).unwrap();
    out.push(
        s.to_vec(&flags)
            .unwrap()
            .iter()
            .map(|&v| v as u32)
            .collect(),
    );
    let counts = s.alloc_zeros::<i32>(2).unwrap();
    s.count_eq(&t, 3, counts.slice(0..1)).unwrap();
    s.count_eq(&t, 3, counts.slice(0..1)).unwrap();
    s.count_eq(&flags, 0, counts.slice(1..2)).unwrap();
    out.push(
        s.to_vec(&counts)
            .unwrap()
            .iter()
            .map(|&v| v as u32)
            .collect(),
    );
    let u = s.alloc_zeros::<u32>(777).unwrap();
    s.fill(&u, 0xdead_beef).unwrap();
    out.push(s.to_vec(&u).unwrap());
    let decoder = Decoder::new(
        &s,
        DecoderConfig {
            vocab: 300,
            hidden: 64,
            seed,
            step_time: Duration::from_micros(50),
        },
    )
    .unwrap();
    let tokens: Vec<i32> = (0..17)
        .map(|i| if i == 16 { 300 } else { rng.i32(0..300) })
        .collect();
    let (tin, tout) = (
        s.alloc_zeros::<i32>(17).unwrap(),
        s.alloc_zeros::<i32>(17).unwrap(),
    );
    s.copy_from_host(&tokens, &tin).unwrap();
    s.decode_step(&decoder, &tin, &tout).unwrap();
    let next = s.to_vec(&tout).unwrap();
    assert_eq!(
        next,
        decoder.reference_step(&tokens),
        "decode_step against its reference"
    );
    assert_eq!(next[16], -1, "a token outside the vocabulary gives -1");
    out.push(next.iter().map(|&v| v as u32).collect());
    out
}

both!(count_eq_accumulates_on_the_gpu_without_waiting);

/// `count_eq` adds its matches to a counter in device memory: queued behind
/// a gate it returns at once, and the counts of several launches add up.
fn count_eq_accumulates_on_the_gpu_without_waiting(backend: Backend) {
    let device = open(backend);
    let s = device.new_stream().unwrap();
    let values: Vec<i32> = (0..1000).map(|i| i % 7).collect();
    let src = s.alloc_zeros::<i32>(values.len()).unwrap();
    s.copy_from_host(&values, &src).unwrap();
    let counter = s.alloc_zeros::<i32>(1).unwrap();
    s.fill(&counter, 5).unwrap();
    s.synchronize().unwrap();
    s.spin(GATE).unwrap();
    let ((), submit) = cpu_time(&device, || {
        for _ in 0..3 {
            s.count_eq(&src, 3, &counter).unwrap();
        }
        s.count_eq(src.slice(0..0), 3, &counter).unwrap();
    });
    assert!(
        submit < GATE / 2,
        "count_eq waited for the gate: {submit:?}"
    );
    let expected = 5 + 3 * values.iter().filter(|&&v| v == 3).count() as i32;
    assert_eq!(s.to_vec(&counter).unwrap(), [expected]);
}

#[test]
fn kernels_compute_what_they_document_on_the_virtual_gpu() {
    let device = open(Backend::Virtual);
    let s = device.new_stream().unwrap();
    let x = s.alloc_zeros::<f32>(6).unwrap();
    s.copy_from_host(&[1.0, 5.0, 5.0, -1.0, 2.0, 2.0], &x)
        .unwrap();
    let rows = s.alloc_zeros::<i32>(2).unwrap();
    s.argmax_rows(&x, 2, 3, &rows).unwrap();
    assert_eq!(s.to_vec(&rows).unwrap(), [1, 1]);
    let total = s.alloc_zeros::<f32>(1).unwrap();
    s.sum(&x, &total).unwrap();
    assert_eq!(s.to_vec(&total).unwrap(), [14.0]);
    let _ = run_all(&device, 7);
}

#[test]
#[ignore = "needs a CUDA device: run with --ignored on a GPU machine"]
fn cuda_kernels_match_their_cpu_twins_bit_for_bit() {
    let _one_at_a_time = crate::support::gpu_lock();
    let (cuda, virt) = (open(Backend::Cuda), open(Backend::Virtual));
    for seed in 1..=3 {
        assert_eq!(run_all(&cuda, seed), run_all(&virt, seed), "seed {seed}");
    }
}

/// The bits of `sum` (and of `sum_after`, whose blocks first wait) over
/// `values` on `device`.
fn sum_bits(device: &Device, values: &[f32]) -> [u32; 2] {
    let s = device.new_stream().unwrap();
    let x = s.alloc_zeros::<f32>(values.len()).unwrap();
    s.copy_from_host(values, &x).unwrap();
    let out = s.alloc_zeros::<f32>(2).unwrap();
    s.sum(&x, out.slice(0..1)).unwrap();
    s.sum_after(Duration::from_micros(50), &x, out.slice(1..2))
        .unwrap();
    let out = s.to_vec(&out).unwrap();
    [out[0].to_bits(), out[1].to_bits()]
}

#[test]
#[ignore = "needs a CUDA device: run with --ignored on a GPU machine"]
fn cuda_sum_matches_its_cpu_twin_on_awkward_lengths() {
    let _one_at_a_time = crate::support::gpu_lock();
    let (cuda, virt) = (open(Backend::Cuda), open(Backend::Virtual));
    // Empty, one element, one block not a multiple of 256, a block and a
    // bit, every block full (4 Mi: 128 blocks of 8 tiles), one element more
    // (a short last block), and long chunks with a short last one.
    let lengths = [0, 1, 300, 4097, 4 << 20, (4 << 20) + 1, 80_000_001];
    let mut rng = fastrand::Rng::with_seed(11);
    for n in lengths {
        let values: Vec<f32> = (0..n)
            .map(|_| (rng.f32() - 0.5) * 2f32.powi(rng.i32(-20..20)))
            .collect();
        let (on_gpu, twin) = (sum_bits(&cuda, &values), sum_bits(&virt, &values));
        assert_eq!(on_gpu, twin, "{n} elements: CUDA against the CPU twin");
        assert_eq!(on_gpu[0], on_gpu[1], "{n} elements: sum against sum_after");
    }
}

#[test]
fn argument_lengths_are_checked() {
    let device = open(Backend::Virtual);
    let s = device.new_stream().unwrap();
    let x = s.alloc_zeros::<f32>(10).unwrap();
    let y = s.alloc_zeros::<f32>(9).unwrap();
    let err = s.affine(&x, 1.0, 0.0, &y).unwrap_err().to_string();
    assert!(err.contains("`x` has 10 elements and `y` 9"), "{err}");
    let err = s.copy(&x, &y).unwrap_err().to_string();
    assert!(err.starts_with("length mismatch in `copy` at"), "{err}");
    let out = s.alloc_zeros::<i32>(1).unwrap();
    assert!(s.argmax_rows(&x, 2, 4, &out).is_err());
}

#[test]
fn a_freed_buffer_cannot_be_used() {
    let device = open(Backend::Virtual);
    let s = device.new_stream().unwrap();
    let x = s.alloc_zeros::<f32>(10).unwrap();
    let stale = x.slice(0..10);
    drop(x);
    let err = s.fill(stale, 1.0).unwrap_err();
    assert!(matches!(err, gpu::GpuError::InvalidView { .. }), "{err}");
    assert!(err.to_string().contains("was its buffer freed"), "{err}");
}

#[test]
fn a_graph_whose_memory_was_freed_is_refused() {
    let device = open(Backend::Virtual);
    let s = device.new_stream().unwrap();
    let segment = device.alloc_segment(4096).unwrap();
    let view = segment.view::<f32>(0, 1024).unwrap();
    s.begin_capture().unwrap();
    s.fill(view, 1.0).unwrap();
    let graph = s.end_capture().unwrap();
    device.free_segment(segment).unwrap();
    let err = graph.launch().unwrap_err();
    assert!(
        matches!(
            err,
            gpu::GpuError::InvalidView {
                op: "Graph::launch",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn sizes_that_overflow_are_errors_not_wraps() {
    let device = open(Backend::Virtual);
    let s = device.new_stream().unwrap();
    assert!(matches!(
        s.alloc_zeros::<f32>(usize::MAX / 4 + 2),
        Err(gpu::GpuError::Length { .. })
    ));
    let segment = device.alloc_segment(4096).unwrap();
    assert!(device.view::<f32>(segment.addr(), 1 << 62).is_err());
    assert!(device.view::<f32>(u64::MAX - 3, 1).is_err());
    assert!(segment.view::<f32>(usize::MAX - 2, 1).is_err());
    let x = s.alloc_zeros::<f32>(4).unwrap();
    let out = s.alloc_zeros::<i32>(4).unwrap();
    assert!(s.argmax_rows(&x, usize::MAX, 2, &out).is_err());
}

#[test]
fn an_empty_view_of_freed_memory_is_harmless() {
    let device = open(Backend::Virtual);
    let s = device.new_stream().unwrap();
    let segment = device.alloc_segment(4096).unwrap();
    let empty = segment.view::<f32>(0, 0).unwrap();
    device.free_segment(segment).unwrap();
    s.fill(empty, 1.0).unwrap();
    s.synchronize().unwrap();
}

#[test]
fn out_of_memory_names_the_call() {
    let device = open(Backend::Virtual);
    let s = device.new_stream().unwrap();
    let too_much = (device.total_memory() / 4) as usize + 1;
    let line = line!() + 1;
    match s.alloc_zeros::<f32>(too_much) {
        Err(gpu::GpuError::OutOfMemory {
            op: "alloc_zeros",
            site,
            ..
        }) => assert_eq!(site.line, line),
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
}
