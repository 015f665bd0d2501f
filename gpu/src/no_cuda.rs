//! What stands in for the CUDA backend in a build without it: the `cuda`
//! feature off, or a wasm32 target (the book's widgets run the virtual GPU
//! in the browser). [`probe`] says why there is no CUDA, so that
//! [`crate::Backend::Auto`] opens the virtual GPU, and [`open`] fails the
//! way a machine without a driver does.

use crate::error::{GpuError, Result};
use crate::virt::VirtualGpu;

/// Why this build cannot use CUDA.
const NOT_BUILT: &str = "this build of the `gpu` crate has no CUDA backend \
     (its `cuda` feature is off, or the target is wasm32)";

/// Never `Ok`: the reason is always [`NOT_BUILT`].
pub(crate) fn probe() -> Result<(), String> {
    Err(NOT_BUILT.into())
}

/// Always `None`: this build loads no NVRTC.
pub fn nvrtc_version() -> Option<String> {
    None
}

/// Never opens: the error of a machine without a CUDA device. (Typed as the
/// virtual GPU, which it never returns, so that the caller's `Box<dyn Exec>`
/// is the same in either build.)
pub(crate) fn open(_gpu_timing: bool) -> Result<VirtualGpu> {
    Err(GpuError::NoCudaDevice {
        reason: NOT_BUILT.into(),
    })
}

/// The raw launches of `measure_launches`, which need the CUDA backend:
/// none can exist in this build ([`RawLaunches::open`] always fails).
/// (`measure_launches` is not built for wasm32.)
#[cfg(not(target_arch = "wasm32"))]
pub(crate) enum RawLaunches {}

#[cfg(not(target_arch = "wasm32"))]
impl RawLaunches {
    /// Never opens: this build has no CUDA backend.
    pub(crate) fn open() -> Result<Self> {
        Err(GpuError::NoCudaDevice {
            reason: NOT_BUILT.into(),
        })
    }

    /// Cannot be called: there is no value to call it on.
    pub(crate) fn bind(&self) -> Result<()> {
        match *self {}
    }

    /// Cannot be called: there is no value to call it on.
    pub(crate) fn result_layer(&self) -> Result<()> {
        match *self {}
    }

    /// Cannot be called: there is no value to call it on.
    pub(crate) fn launch_builder(&self) -> Result<()> {
        match *self {}
    }

    /// Cannot be called: there is no value to call it on.
    pub(crate) fn synchronize(&self) -> Result<()> {
        match *self {}
    }
}
