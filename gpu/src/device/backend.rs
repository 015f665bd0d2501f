//! Which backend a device opens on: [`Backend`], and the one statement of
//! the rule of [`Backend::Auto`], [`Backend::resolve`].

use crate::error::{GpuError, Result};
use crate::trace::BackendKind;
use serde::{Deserialize, Serialize};

/// Which backend to open. In JSON (the judge's setup, for one) it is one of
/// the lowercase names `"auto"`, `"cuda"` and `"virtual"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// CUDA when a driver and a device are present, else the virtual GPU.
    /// `GPU_BACKEND=cuda|virtual` in the environment overrides this choice.
    /// [`Backend::resolve`] states the rule.
    #[default]
    Auto,
    /// A real GPU through the CUDA driver; an error where there is none.
    Cuda,
    /// The deterministic virtual GPU.
    Virtual,
}

impl Backend {
    /// The backend a device opened with `self` runs on: the one statement of
    /// the rule of [`Backend::Auto`].
    ///
    /// - `GPU_BACKEND`, when set and not empty, replaces `Auto` (and only
    ///   `Auto`): `cuda`, `virtual` or `auto`, in any case; any other value is
    ///   [`GpuError::BadBackendVariable`].
    /// - `Auto` is CUDA when the driver library and NVRTC load and the driver
    ///   reports a device ([`cuda_available`]), else the virtual GPU, with the
    ///   reason ([`ResolvedBackend::VirtualBecause`]).
    /// - `Cuda` is CUDA where [`cuda_available`] finds a device, else
    ///   [`GpuError::NoCudaDevice`].
    /// - `Virtual` is the virtual GPU.
    ///
    /// It opens no device: on CUDA, opening can still fail (the device does
    /// not open, the kernels do not compile).
    pub fn resolve(self) -> Result<ResolvedBackend> {
        let env = std::env::var("GPU_BACKEND").ok();
        self.resolve_with(env.as_deref(), crate::cuda::probe)
    }

    /// [`Backend::resolve`] with its two inputs given: `env`, the value of
    /// `GPU_BACKEND`, and `probe`, what [`cuda_available`] says. For tests,
    /// and for tools that explain what a machine will run on. `probe` is
    /// called at most once.
    pub fn resolve_with(
        self,
        env: Option<&str>,
        probe: impl FnOnce() -> std::result::Result<(), String>,
    ) -> Result<ResolvedBackend> {
        // `Auto` probes on its way to CUDA; checking a choice of CUDA then
        // finds the probe passed already, and only `Cuda` itself probes here.
        let mut probe = Some(probe);
        let mut probe_once = || probe.take().map_or(Ok(()), |probe| probe());
        match resolve(self, env.map(str::to_owned), &mut probe_once)? {
            ResolvedBackend::Cuda => probe_once()
                .map(|()| ResolvedBackend::Cuda)
                .map_err(|reason| GpuError::NoCudaDevice { reason }),
            virtual_gpu => Ok(virtual_gpu),
        }
    }
}

/// The backend a device opens on, as [`Backend::resolve`] decides it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResolvedBackend {
    /// A real GPU through the CUDA driver: asked for, or found by `Auto`.
    Cuda,
    /// The virtual GPU, as asked for (`Backend::Virtual`, `GPU_BACKEND=virtual`).
    Virtual,
    /// The virtual GPU, because `Auto` found no usable CUDA device: why.
    VirtualBecause(String),
}

impl ResolvedBackend {
    /// Which backend it is, as traces name it.
    pub fn kind(&self) -> BackendKind {
        match self {
            Self::Cuda => BackendKind::Cuda,
            Self::Virtual | Self::VirtualBecause(_) => BackendKind::Virtual,
        }
    }
}

impl std::str::FromStr for Backend {
    type Err = GpuError;

    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Self::Auto),
            "cuda" => Ok(Self::Cuda),
            "virtual" => Ok(Self::Virtual),
            _ => Err(GpuError::BadBackendVariable {
                value: s.to_string(),
            }),
        }
    }
}

/// The choice of [`Backend::resolve_with`]: applies the `GPU_BACKEND` value
/// `env` to `Auto`, then `probe`s for CUDA if still `Auto`. A choice of
/// `Cuda` is not checked here: `resolve_with` checks it.
pub(super) fn resolve(
    backend: Backend,
    env: Option<String>,
    probe: impl FnOnce() -> std::result::Result<(), String>,
) -> Result<ResolvedBackend> {
    let backend = match (backend, env) {
        (Backend::Auto, Some(value)) if !value.is_empty() => value.parse()?,
        (b, _) => b,
    };
    Ok(match backend {
        Backend::Virtual => ResolvedBackend::Virtual,
        Backend::Cuda => ResolvedBackend::Cuda,
        Backend::Auto => match probe() {
            Ok(()) => ResolvedBackend::Cuda,
            Err(reason) => ResolvedBackend::VirtualBecause(reason),
        },
    })
}

/// Whether a CUDA driver and device are present, and if not, why (never panics).
pub fn cuda_available() -> std::result::Result<(), String> {
    crate::cuda::probe()
}

#[cfg(test)]
mod tests;
