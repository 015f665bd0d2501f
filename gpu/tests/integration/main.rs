//! The `gpu` crate's integration tests: one binary, a module per subject.
//!
//! Every semantic test is a function of the backend, run twice by
//! [`both!`]: on the virtual GPU (always, in CI) and on CUDA (ignored by
//! default: `cargo test -p gpu --test integration -- --ignored` on a machine
//! with a GPU). The same assertions hold on both; thresholds are fractions of
//! a "gate" (a long `spin` queued first), never absolute times.

mod support;

mod blocking;
mod capture;
mod fork;
mod kernels;
mod profile;
mod races;
mod remote;
mod trace;

/// Without a GPU, asking for CUDA is a clear error, never a panic; with one,
/// it opens.
#[test]
fn cuda_without_a_gpu_is_a_clear_error() {
    let _one_at_a_time = support::gpu_lock();
    match (gpu::cuda_available(), gpu::Device::open(gpu::Backend::Cuda)) {
        (Ok(()), Ok(device)) => assert_eq!(device.backend(), gpu::BackendKind::Cuda),
        (Err(_), Err(gpu::GpuError::NoCudaDevice { reason })) => {
            let text = gpu::GpuError::NoCudaDevice { reason }.to_string();
            assert!(
                text.contains("Backend::Virtual"),
                "the error says what to do: {text}"
            );
        }
        (probe, opened) => panic!(
            "probe {probe:?} disagrees with open {:?}",
            opened.map(|d| d.name())
        ),
    }
}
