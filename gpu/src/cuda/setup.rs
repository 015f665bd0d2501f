//! Opening the CUDA backend: finding the driver, creating the context,
//! describing the device and compiling the kernel library.
//!
//! cudarc loads `libcuda` and `libnvrtc` lazily and *panics* when a library
//! is missing, so [`probe`] asks whether both libraries load before any other
//! cudarc call. The kernel library is compiled by NVRTC once per process (the
//! PTX is cached here) and loaded into each context that opens.

use super::drv;
use crate::error::{GpuError, Result};
use crate::exec::DeviceInfo;
use crate::kernels::{CUDA_KERNELS, CUDA_SOURCE};
use crate::trace::BackendKind;
use cudarc::driver::{CudaContext, CudaFunction};
use cudarc::nvrtc::result::NvrtcError;
use cudarc::nvrtc::sys::nvrtcResult;
use cudarc::nvrtc::{CompileError, CompileOptions, Ptx, compile_ptx_with_opts};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// Why the driver library is unusable.
const NO_DRIVER: &str = "the CUDA driver library (libcuda.so) could not be loaded; \
     is an NVIDIA driver installed and on LD_LIBRARY_PATH?";

/// Why NVRTC is unusable.
const NO_NVRTC: &str = "the CUDA driver is present but NVRTC (libnvrtc.so) could not be \
     loaded, so the kernel library cannot be compiled; is the CUDA toolkit's lib directory \
     on LD_LIBRARY_PATH?";

/// Why CUDA can't be used here, or `Ok(())` when a driver, NVRTC and at least
/// one device exist. Never panics.
pub(crate) fn probe() -> Result<(), String> {
    // SAFETY: `is_culib_present` only tries to `dlopen` the driver library
    // under its usual names (running its initialisers, as any CUDA program
    // does) and closes it again; it touches no other state.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(NO_DRIVER.into());
    }
    // SAFETY: as above, for libnvrtc.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err(NO_NVRTC.into());
    }
    // cudarc panics when a driver symbol is missing (a driver older than the
    // bindings); turn that into a reason as well.
    match std::panic::catch_unwind(CudaContext::device_count) {
        Ok(Ok(n)) if n > 0 => Ok(()),
        Ok(Ok(_)) => Err("the CUDA driver is installed but reports no device".into()),
        Ok(Err(e)) => Err(format!(
            "the CUDA driver could not be initialised (cuInit): {e:?}"
        )),
        Err(_) => Err("the CUDA driver library is older than this crate needs \
                       (a driver function is missing)"
            .into()),
    }
}

/// The two libraries the CUDA backend loads at run time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CudaLibraries {
    /// The driver library, `libcuda.so` (installed with the NVIDIA driver).
    pub driver: CudaLibrary,
    /// The runtime compiler, `libnvrtc.so` (from the CUDA toolkit), which
    /// compiles the kernel library.
    pub nvrtc: CudaLibrary,
}

/// Whether one CUDA library loads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CudaLibrary {
    /// It loads, from this file (`None` where the system does not say which).
    Loaded(Option<PathBuf>),
    /// It loads under none of the names cudarc tries.
    Missing,
}

/// Whether the driver library and NVRTC load, each on its own (unlike
/// `probe`, which stops at the first that is missing), and from which
/// file. Loads them into the process, as the first CUDA call would; never
/// panics. Asks for no device: [`crate::cuda_available`] says whether one is there.
pub fn cuda_libraries() -> CudaLibraries {
    // SAFETY: `is_culib_present` only `dlopen`s the library under its usual
    // names (running its initialisers, as any CUDA program does). When one
    // loads, `culib` loads the first name that does (the same one, so it does
    // not panic) and keeps it loaded for the life of the process, as the first
    // driver call would; neither calls into the library.
    let driver = unsafe {
        cudarc::driver::sys::is_culib_present() && {
            cudarc::driver::sys::culib();
            true
        }
    };
    // SAFETY: as above, for libnvrtc.
    let nvrtc = unsafe {
        cudarc::nvrtc::sys::is_culib_present() && {
            cudarc::nvrtc::sys::culib();
            true
        }
    };
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    let library = |loaded: bool, name: &str| match loaded {
        true => CudaLibrary::Loaded(mapped_file(&maps, name)),
        false => CudaLibrary::Missing,
    };
    CudaLibraries {
        driver: library(driver, "libcuda.so"),
        nvrtc: library(nvrtc, "libnvrtc.so"),
    }
}

/// The version of the NVRTC library this process loads (`"13.0"`), as
/// `nvrtcVersion` reports it: the CUDA toolkit whose compiler builds the
/// kernel library. `None` when `libnvrtc.so` does not load, or when it
/// refuses to say. Never panics.
pub fn nvrtc_version() -> Option<String> {
    // SAFETY: as in `probe`: `is_culib_present` only `dlopen`s libnvrtc under
    // its usual names and touches no other state. It must come first: cudarc
    // panics when it looks a symbol up in a library that is not there.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return None;
    }
    let (mut major, mut minor) = (0, 0);
    // SAFETY: libnvrtc loads (checked above), and `nvrtcVersion` has been in
    // every NVRTC since the first (CUDA 7); it writes two `int`s through the
    // pointers it is given, which point at the two live locals above.
    let result = unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) };
    (result == nvrtcResult::NVRTC_SUCCESS).then(|| format!("{major}.{minor}"))
}

/// The file mapped into the process (per `/proc/self/maps`, given as `maps`)
/// whose name starts with `name` (`libcuda.so` matches `libcuda.so.580.82.07`).
pub(super) fn mapped_file(maps: &str, name: &str) -> Option<PathBuf> {
    maps.lines()
        .filter_map(|line| line.find('/').map(|at| Path::new(&line[at..])))
        .find(|path| {
            path.file_name()
                .is_some_and(|file| file.to_string_lossy().starts_with(name))
        })
        .map(Path::to_path_buf)
}

/// Creates the context of device 0 with cudarc's event tracking turned off.
///
/// Every device of a process shares device 0's primary context. The first
/// one opened is kept for the life of the process (as the CUDA runtime
/// does), so that a device opened after all others were dropped finds the
/// context and its memory pool ready instead of creating them again.
pub(super) fn context() -> Result<Arc<CudaContext>> {
    /// Keeps the primary context retained once it has been opened.
    static KEEP: OnceLock<Arc<CudaContext>> = OnceLock::new();
    let ctx = CudaContext::new(0).map_err(|e| GpuError::NoCudaDevice {
        reason: format!("the CUDA driver could not open device 0: {e:?}"),
    })?;
    KEEP.get_or_init(|| Arc::clone(&ctx));
    // SAFETY: tracking is turned off before this context object has created
    // any stream, event or allocation. This backend never uses `CudaSlice`
    // (only raw device pointers), so nothing relies on the tracking; ordering
    // work across streams is the front end's and the learner's job, which is
    // what the lessons teach. With tracking on, the first `new_stream` would
    // also synchronize the whole device.
    unsafe { ctx.disable_event_tracking() };
    Ok(ctx)
}

/// Name, compute capability and memory of the context's device.
pub(super) fn device_info(ctx: &CudaContext) -> Result<DeviceInfo> {
    let name = ctx.name().map_err(drv("cuDeviceGetName"))?;
    let (major, minor) = ctx
        .compute_capability()
        .map_err(drv("cuDeviceGetAttribute"))?;
    let total_memory = ctx.total_mem().map_err(drv("cuDeviceTotalMem"))?;
    Ok(DeviceInfo {
        backend: BackendKind::Cuda,
        name,
        compute_capability: (major.max(0) as u32, minor.max(0) as u32),
        total_memory: total_memory as u64,
    })
}

/// The NVRTC virtual architecture for a compute capability, or `None` (NVRTC's
/// default, JIT-compiled forward by the driver) for one not listed.
pub(super) fn arch(capability: (u32, u32)) -> Option<&'static str> {
    Some(match capability {
        (7, 0) => "compute_70",
        (7, 2) => "compute_72",
        (7, 5) => "compute_75",
        (8, 0) => "compute_80",
        (8, 6) => "compute_86",
        (8, 7) => "compute_87",
        (8, 9) => "compute_89",
        (9, 0) => "compute_90",
        (10, 0) => "compute_100",
        (10, 1) => "compute_101",
        (10, 3) => "compute_103",
        (11, 0) => "compute_110",
        (12, 0) => "compute_120",
        (12, 1) => "compute_121",
        _ => return None,
    })
}

/// The PTX of the kernel library for `arch`, compiled at most once per
/// process (per architecture).
pub(super) fn kernel_ptx(arch: Option<&'static str>) -> Result<Ptx> {
    /// The last successful compilation and the architecture it was asked for.
    static CACHE: Mutex<Option<(Option<&'static str>, Ptx)>> = Mutex::new(None);
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((cached_arch, ptx)) = cache.as_ref()
        && *cached_arch == arch
    {
        return Ok(ptx.clone());
    }
    let ptx = compile(arch)?;
    *cache = Some((arch, ptx.clone()));
    Ok(ptx)
}

/// Compiles [`CUDA_SOURCE`] with `--fmad=false`. When NVRTC rejects the
/// architecture as an option (a toolkit that dropped or does not yet know
/// it), compiles again for NVRTC's default architecture.
fn compile(arch: Option<&'static str>) -> Result<Ptx> {
    match compile_for(arch) {
        Err(CompileError::CompileError {
            nvrtc: NvrtcError(nvrtcResult::NVRTC_ERROR_INVALID_OPTION),
            ..
        }) if arch.is_some() => compile_for(None),
        other => other,
    }
    .map_err(compile_error)
}

/// One NVRTC compilation of the kernel library.
fn compile_for(arch: Option<&'static str>) -> Result<Ptx, CompileError> {
    let options = CompileOptions {
        options: vec!["--fmad=false".into()],
        arch,
        ..Default::default()
    };
    compile_ptx_with_opts(CUDA_SOURCE, options)
}

/// The crate's error for a failed compilation: NVRTC's log as text.
fn compile_error(error: CompileError) -> GpuError {
    let log = match error {
        CompileError::CompileError { nvrtc, log, .. } => {
            let text = log.to_string_lossy().trim().to_owned();
            if text.is_empty() {
                format!("{nvrtc:?}")
            } else {
                text
            }
        }
        other => format!("{other:?}"),
    };
    GpuError::Compile { log }
}

/// Loads the PTX into the context and looks up every kernel of
/// [`CUDA_KERNELS`], in its order. The functions keep the module loaded.
pub(super) fn load_kernels(ctx: &Arc<CudaContext>, ptx: Ptx) -> Result<Vec<CudaFunction>> {
    let module = ctx.load_module(ptx).map_err(drv("cuModuleLoadData"))?;
    CUDA_KERNELS
        .iter()
        .map(|&name| {
            let function = module.load_function(name).map_err(|e| GpuError::Driver {
                call: "cuModuleGetFunction",
                message: format!("kernel `{name}`: {e:?}"),
            })?;
            Ok(function)
        })
        .collect()
}
