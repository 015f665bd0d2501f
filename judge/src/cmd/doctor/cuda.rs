//! The CUDA half of `judge doctor`: the driver library, NVRTC, the device,
//! and which backend `judge run` will use (the rule of `gpu::Backend::Auto`).

use super::{Findings, Mark};
use gpu::{Backend, CudaLibrary, GpuError, ResolvedBackend};
use std::path::Path;

/// What CUDA offers on this machine.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Cuda {
    /// A device that opens: its description.
    Ready(String),
    /// No driver library.
    NoDriver,
    /// A driver, but no NVRTC.
    NoNvrtc,
    /// Both libraries, but the probe failed (no device, `cuInit` failed): why.
    NoDevice(String),
    /// The probe passed but the device did not open: why.
    DeviceFails(String),
}

/// What `judge run` (with its default `--backend auto`) will run on.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Plan {
    /// The GPU.
    Cuda,
    /// The virtual GPU, because there is no usable GPU.
    VirtualNoGpu,
    /// The virtual GPU, because `GPU_BACKEND=virtual` says so.
    VirtualChosen,
    /// Nothing: every run will fail, for this reason.
    Fails(String),
}

/// The CUDA lines, the `GPU_BACKEND` and backend lines, the virtual GPU's
/// table (`calibration`: `GPU_CALIBRATION`), and the advice about them.
pub(super) fn check(findings: &mut Findings, env: Option<&str>, calibration: Option<&Path>) {
    let cuda = check_cuda(findings);
    check_backend(findings, env, &cuda);
    check_calibration(findings, calibration, &cuda);
}

/// The `GPU_CALIBRATION` line, where it is set: the table the virtual GPU
/// models, or why it does not load. On a machine with a GPU and no table
/// of its own, how to measure one: the default table's CPU side (the cost
/// of a driver call) is one host's, and the widgets and `--backend virtual`
/// then model this machine instead.
fn check_calibration(findings: &mut Findings, calibration: Option<&Path>, cuda: &Cuda) {
    match calibration {
        Some(path) => match gpu::Calibration::load(path) {
            Ok(table) => findings.row(
                Mark::Ok,
                "calibration",
                format!(
                    "`{}`: the virtual GPU models {}",
                    path.display(),
                    table.source
                ),
            ),
            Err(e) => {
                findings.missing("calibration", e.to_string(), false);
                findings.advise(BAD_CALIBRATION);
            }
        },
        None if matches!(cuda, Cuda::Ready(_)) => findings.advise(CALIBRATE),
        None => {}
    }
}

/// The two CUDA libraries and the device.
fn check_cuda(findings: &mut Findings) -> Cuda {
    let libraries = gpu::cuda_libraries();
    library_row(findings, "CUDA driver", "libcuda.so", &libraries.driver);
    library_row(findings, "NVRTC", "libnvrtc.so", &libraries.nvrtc);
    let cuda = match (&libraries.driver, &libraries.nvrtc, gpu::cuda_available()) {
        (CudaLibrary::Missing, _, _) => Cuda::NoDriver,
        (_, CudaLibrary::Missing, _) => Cuda::NoNvrtc,
        (_, _, Err(reason)) => Cuda::NoDevice(reason),
        (_, _, Ok(())) => open_device(),
    };
    match &cuda {
        Cuda::Ready(description) => findings.row(Mark::Ok, "GPU", description.as_str()),
        Cuda::NoDriver => findings.missing("GPU", "none found (no CUDA driver)", false),
        Cuda::NoNvrtc => findings.missing("GPU", "not usable without NVRTC", false),
        Cuda::NoDevice(why) | Cuda::DeviceFails(why) => {
            findings.missing("GPU", why.as_str(), false)
        }
    }
    cuda
}

/// The line of one library: where it loaded from, or that it did not.
fn library_row(findings: &mut Findings, what: &'static str, file: &str, library: &CudaLibrary) {
    match library {
        CudaLibrary::Loaded(Some(path)) => findings.row(Mark::Ok, what, path.display().to_string()),
        CudaLibrary::Loaded(None) => findings.row(Mark::Ok, what, format!("{file} loads")),
        CudaLibrary::Missing => findings.missing(what, format!("{file} does not load"), false),
    }
}

/// Opens the GPU as `judge run` would and describes it.
fn open_device() -> Cuda {
    match gpu::Device::open(Backend::Cuda) {
        Ok(device) => {
            let (major, minor) = device.compute_capability();
            let gib = device.total_memory() as f64 / f64::from(1u32 << 30);
            let name = device.name();
            Cuda::Ready(format!(
                "{name}, compute capability {major}.{minor}, {gib:.1} GiB"
            ))
        }
        Err(err) => Cuda::DeviceFails(format!("the device does not open: {err}")),
    }
}

/// The `GPU_BACKEND` line, the backend line, and the advice about them.
fn check_backend(findings: &mut Findings, env: Option<&str>, cuda: &Cuda) {
    match env {
        Some("") => findings.row(Mark::Note, "GPU_BACKEND", "empty: the same as not set"),
        Some(value) => findings.row(Mark::Note, "GPU_BACKEND", format!("`{value}`")),
        None => findings.row(Mark::Note, "GPU_BACKEND", "not set"),
    }
    match plan(env, cuda) {
        Plan::Cuda => findings.row(Mark::Ok, "backend", "`judge run` will use the GPU"),
        Plan::VirtualNoGpu => {
            findings.row(Mark::Ok, "backend", "`judge run` will use the virtual GPU");
            findings.advise(NO_GPU);
            findings.advise(how_to_get_cuda(cuda));
        }
        Plan::VirtualChosen => {
            let detail = "`judge run` will use the virtual GPU, as `GPU_BACKEND` asks";
            findings.row(Mark::Ok, "backend", detail);
            if matches!(cuda, Cuda::Ready(_)) {
                findings.advise(GPU_UNUSED);
            }
        }
        Plan::Fails(why) => {
            findings.missing("backend", format!("`judge run` will fail: {why}"), true);
            findings.advise(match cuda {
                Cuda::DeviceFails(_) => DEVICE_FAILS,
                _ => FIX_BACKEND,
            });
        }
    }
}

/// The backend `judge run` will use: `gpu::Backend::resolve` (the rule of
/// `Backend::Auto`) on what this machine has, and whether it will work.
fn plan(env: Option<&str>, cuda: &Cuda) -> Plan {
    let probe = || match cuda {
        Cuda::Ready(_) | Cuda::DeviceFails(_) => Ok(()),
        Cuda::NoDriver | Cuda::NoNvrtc | Cuda::NoDevice(_) => Err(String::new()),
    };
    match (Backend::Auto.resolve_with(env, probe), cuda) {
        (Ok(ResolvedBackend::Virtual), _) => Plan::VirtualChosen,
        (Ok(ResolvedBackend::VirtualBecause(_)), _) => Plan::VirtualNoGpu,
        (Ok(ResolvedBackend::Cuda), Cuda::DeviceFails(why)) => Plan::Fails(why.clone()),
        (Ok(ResolvedBackend::Cuda), _) => Plan::Cuda,
        (Err(GpuError::NoCudaDevice { .. }), _) => {
            Plan::Fails("`GPU_BACKEND=cuda` asks for a GPU, and CUDA finds none here".into())
        }
        (Err(err), _) => Plan::Fails(err.to_string()),
    }
}

/// What to install for the GPU, given what is missing.
fn how_to_get_cuda(cuda: &Cuda) -> &'static str {
    match cuda {
        Cuda::NoNvrtc => INSTALL_NVRTC,
        Cuda::NoDevice(_) | Cuda::DeviceFails(_) => CHECK_DEVICE,
        Cuda::NoDriver | Cuda::Ready(_) => INSTALL_DRIVER,
    }
}

/// No GPU, and that is fine.
const NO_GPU: &str = "no GPU here: the judge will use the virtual GPU; every exercise works, \
     timings are modelled (on measurements from an H200)";

/// How to get a GPU working, from nothing.
const INSTALL_DRIVER: &str = "to run on a real GPU: install the NVIDIA driver (it brings \
     `libcuda.so`) and the CUDA toolkit's NVRTC (`libnvrtc.so`), put their library folders on \
     `LD_LIBRARY_PATH`, and run `judge doctor` again";

/// How to get NVRTC.
const INSTALL_NVRTC: &str = "the driver is here but NVRTC is not: install the CUDA toolkit (or \
     just its NVRTC package) and add its library folder (e.g. `/usr/local/cuda/lib64`) to \
     `LD_LIBRARY_PATH`";

/// The libraries load but the device does not.
const CHECK_DEVICE: &str = "the CUDA libraries load but no device is usable: `nvidia-smi` shows \
     what the driver sees (in a container, the GPU must be passed in)";

/// CUDA was asked for and is not usable.
const FIX_BACKEND: &str = "`GPU_BACKEND` asks for something this machine cannot do, so every \
     run will fail: `unset GPU_BACKEND` (the judge then picks the GPU when there is one, else \
     the virtual GPU), or set it to `virtual`";

/// The probe passed, the device did not open.
const DEVICE_FAILS: &str = "CUDA finds a device but cannot open it, so every run will fail: \
     `nvidia-smi` shows what the driver sees; meanwhile `GPU_BACKEND=virtual` runs on the \
     virtual GPU";

/// A GPU is there: the virtual GPU may model it.
const CALIBRATE: &str = "the virtual GPU (`--backend virtual`, the tests) models an H200 whose \
     driver calls were timed on one host; to model this machine instead, measure its table once \
     (`cargo run --release -p gpu --example calibrate -- calibration.json`, about a minute) and \
     `export GPU_CALIBRATION=$PWD/calibration.json`";

/// `GPU_CALIBRATION` names a table that does not load.
const BAD_CALIBRATION: &str = "`GPU_CALIBRATION` names a table the virtual GPU cannot load, so \
     every run on the virtual GPU will fail: measure it again (`cargo run --release -p gpu \
     --example calibrate -- calibration.json` on the GPU machine), or `unset GPU_CALIBRATION` \
     for the H200's table";

/// A GPU is there, and ignored.
const GPU_UNUSED: &str = "`GPU_BACKEND=virtual` keeps your GPU out of it: `unset GPU_BACKEND` \
     to run on the GPU";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_uses_the_gpu_when_there_is_one() {
        let ready = Cuda::Ready("NVIDIA H200".into());
        assert_eq!(plan(None, &ready), Plan::Cuda);
        assert_eq!(plan(Some(""), &ready), Plan::Cuda);
        assert_eq!(plan(Some("auto"), &Cuda::NoDriver), Plan::VirtualNoGpu);
        assert_eq!(plan(None, &Cuda::NoNvrtc), Plan::VirtualNoGpu);
        assert_eq!(
            plan(None, &Cuda::NoDevice("none".into())),
            Plan::VirtualNoGpu
        );
    }

    #[test]
    fn the_environment_overrides_auto() {
        let ready = Cuda::Ready("NVIDIA H200".into());
        assert_eq!(plan(Some("virtual"), &ready), Plan::VirtualChosen);
        assert_eq!(plan(Some("CUDA"), &ready), Plan::Cuda);
        assert!(matches!(
            plan(Some("cuda"), &Cuda::NoDriver),
            Plan::Fails(_)
        ));
        let Plan::Fails(why) = plan(Some("metal"), &ready) else {
            panic!()
        };
        assert!(
            why.contains("`GPU_BACKEND=metal` is not a backend"),
            "{why}"
        );
        let broken = Cuda::DeviceFails("out of memory".into());
        assert_eq!(plan(None, &broken), Plan::Fails("out of memory".into()));
        assert_eq!(plan(Some("virtual"), &broken), Plan::VirtualChosen);
    }

    #[test]
    fn a_machine_with_a_gpu_is_told_how_to_model_it_and_a_set_table_is_named() {
        let ready = Cuda::Ready("NVIDIA H200".into());
        let mut findings = Findings::default();
        check_calibration(&mut findings, None, &ready);
        assert_eq!(findings.advice, [CALIBRATE]);
        let mut findings = Findings::default();
        check_calibration(&mut findings, None, &Cuda::NoDriver);
        assert!(findings.advice.is_empty() && findings.rows.is_empty());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("calibration.json");
        gpu::Calibration::default().save(&path).unwrap();
        let mut findings = Findings::default();
        check_calibration(&mut findings, Some(&path), &ready);
        assert!(findings.advice.is_empty(), "{:?}", findings.advice);
        assert!(
            findings.rows[0].detail.contains("H200"),
            "{:?}",
            findings.rows
        );
        std::fs::write(&path, "{").unwrap();
        let mut findings = Findings::default();
        check_calibration(&mut findings, Some(&path), &ready);
        assert_eq!(findings.rows[0].mark, Mark::Missing);
        assert_eq!(findings.advice, [BAD_CALIBRATION]);
    }
}
