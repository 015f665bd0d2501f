//! temporary until the CUDA backend lands
use crate::error::{GpuError, Result};
pub(crate) struct CudaExec;
pub(crate) fn probe() -> std::result::Result<(), String> { Err("the CUDA backend is not built yet".into()) }
pub(crate) fn open(_t: bool) -> Result<crate::virt::VirtualGpu> { Err(GpuError::NoCudaDevice { reason: probe().unwrap_err() }) }
