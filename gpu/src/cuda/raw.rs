//! The yardsticks of a launch's cost: the crate's own `spin` kernel launched
//! straight through cudarc, with none of the crate's bookkeeping, for
//! [`crate::measure_launches`] to compare the crate's launch against.
//!
//! [`RawLaunches`] opens device 0's primary context (the one every device
//! of the process shares), loads the kernel library the CUDA backend
//! compiled (cached per process) and makes a stream of its own. It launches
//! `spin(0)` on one block of one thread, the launch `Stream::spin(0)` makes,
//! two ways: through cudarc's result layer (`cuLaunchKernel`, the context
//! bound once beforehand, the argument array on the stack) and through
//! cudarc's safe `launch_builder`, one builder per launch, as a program
//! using cudarc would write it.

use super::{drv, setup};
use crate::error::Result;
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, LaunchConfig, PushKernelArg, result};
use std::ffi::c_void;
use std::sync::Arc;

/// `spin(0)`'s one block of one thread.
const ONE_THREAD: (u32, u32, u32) = (1, 1, 1);

/// The `spin` kernel on a stream of its own, launched without the crate.
pub(crate) struct RawLaunches {
    /// Device 0's primary context, event tracking off.
    ctx: Arc<CudaContext>,
    /// The stream the launches go to; nothing else runs there.
    stream: Arc<CudaStream>,
    /// `spin(unsigned long long ns)` of the kernel library.
    spin: CudaFunction,
}

impl RawLaunches {
    /// Opens the context, loads the kernel library and creates the stream.
    /// Blocks while it sets up.
    pub(crate) fn open() -> Result<Self> {
        super::probe().map_err(|reason| crate::error::GpuError::NoCudaDevice { reason })?;
        let ctx = setup::context()?;
        let info = setup::device_info(&ctx)?;
        let ptx = setup::kernel_ptx(setup::arch(info.compute_capability))?;
        let module = ctx.load_module(ptx).map_err(drv("cuModuleLoadData"))?;
        let spin = module
            .load_function("spin")
            .map_err(drv("cuModuleGetFunction"))?;
        let stream = ctx.new_stream().map_err(drv("cuStreamCreate"))?;
        Ok(Self { ctx, stream, spin })
    }

    /// Makes the context current on this thread, once before a run of
    /// [`RawLaunches::result_layer`] calls (which do not bind it themselves).
    pub(crate) fn bind(&self) -> Result<()> {
        self.ctx.bind_to_thread().map_err(drv("cuCtxSetCurrent"))
    }

    /// One `spin(0)` through `result::launch_kernel` (`cuLaunchKernel`).
    pub(crate) fn result_layer(&self) -> Result<()> {
        let mut ns: u64 = 0;
        let mut params = [(&raw mut ns).cast::<c_void>()];
        // SAFETY: `spin` takes one `unsigned long long` and `params` holds a
        // pointer to one `u64`, alive until the call returns (the driver
        // copies the arguments at launch); the function and the stream belong
        // to `self.ctx`, which `bind` made current on this thread; the kernel
        // touches no memory.
        unsafe {
            result::launch_kernel(
                self.spin.cu_function(),
                ONE_THREAD,
                ONE_THREAD,
                0,
                self.stream.cu_stream(),
                &mut params,
            )
        }
        .map_err(drv("cuLaunchKernel"))
    }

    /// One `spin(0)` through cudarc's `launch_builder`.
    pub(crate) fn launch_builder(&self) -> Result<()> {
        let ns: u64 = 0;
        let mut builder = self.stream.launch_builder(&self.spin);
        builder.arg(&ns);
        let config = LaunchConfig {
            grid_dim: ONE_THREAD,
            block_dim: ONE_THREAD,
            shared_mem_bytes: 0,
        };
        // SAFETY: `spin` takes one `unsigned long long`, and the builder
        // holds a pointer to the one `u64` argument, alive until `launch`
        // returns; the kernel touches no memory.
        unsafe { builder.launch(config) }.map_err(drv("cuLaunchKernel"))?;
        Ok(())
    }

    /// Waits until every launch queued so far has run.
    pub(crate) fn synchronize(&self) -> Result<()> {
        self.stream
            .synchronize()
            .map_err(drv("cuStreamSynchronize"))
    }
}
