//! Shared helpers: opening a device on a backend, running a test on both.

use gpu::{Backend, Device, DeviceOptions};
use std::time::Duration;

/// Runs a test function on the virtual GPU and (ignored by default) on CUDA.
#[macro_export]
macro_rules! both {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[test]
                fn virtual_gpu() {
                    super::$name(gpu::Backend::Virtual)
                }

                #[test]
                #[ignore = "needs a CUDA device: run with --ignored on a GPU machine"]
                fn cuda() {
                    let _one_at_a_time = $crate::support::gpu_lock();
                    super::$name(gpu::Backend::Cuda)
                }
            }
        )*
    };
}

/// Serializes the tests that use the real GPU. Every device of a process
/// shares the GPU's primary context: one test's `cuMemFree` or capture
/// would stall or break another's gate.
pub(crate) fn gpu_lock() -> std::sync::MutexGuard<'static, ()> {
    static GPU: std::sync::Mutex<()> = std::sync::Mutex::new(());
    GPU.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A quiet device on `backend`.
pub(crate) fn open(backend: Backend) -> Device {
    Device::with_options(DeviceOptions {
        backend,
        quiet: true,
        ..DeviceOptions::default()
    })
    .unwrap_or_else(|e| panic!("cannot open the {backend:?} backend: {e}"))
}

/// The gate: long enough that a blocked call is unmistakable on a real GPU.
pub(crate) const GATE: Duration = Duration::from_millis(20);

/// CPU time `f` takes, on the device's clock.
pub(crate) fn cpu_time<R>(device: &Device, f: impl FnOnce() -> R) -> (R, Duration) {
    let start = device.now();
    let value = f();
    (value, device.now() - start)
}
