//! The paths every sandbox may use besides its own folders: the system's
//! libraries and tools, the Rust toolchain (for builds), and what the CUDA
//! driver and NVRTC need (for runs). This is the one place to look when a
//! machine keeps something elsewhere; `JUDGE_SANDBOX_READ` (paths separated
//! by `:`) adds more to every sandbox without a change here.

use std::path::{Path, PathBuf};

/// The system: libraries, the dynamic loader's cache, the C toolchain the
/// linker uses, the user database. Not all of `/etc` (it holds secrets that
/// a process reading with `CAP_DAC_READ_SEARCH` could open).
const SYSTEM: &[&str] = &[
    "/usr",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/bin",
    "/sbin",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/localtime",
    "/sys/devices/system/cpu",
    "/sys/fs/cgroup",
];

/// What the CUDA driver (`libcuda.so`, loaded from the system or from these
/// folders) and NVRTC read besides the system: the driver's `/proc` and
/// `/sys` files, the container toolkit's and the CUDA toolkit's folders.
/// Not `/proc/self`: that would open `/proc/self/mem`.
const CUDA: &[&str] = &[
    "/usr/local/nvidia",
    "/usr/local/cuda",
    "/opt/cuda",
    "/etc/nvidia",
    "/proc/driver/nvidia",
    "/proc/driver/nvidia-uvm",
    "/proc/devices",
    "/proc/cpuinfo",
    "/proc/meminfo",
    "/sys/bus/pci",
    "/sys/devices",
    "/sys/module/nvidia",
    "/sys/module/nvidia_uvm",
    "/run/nvidia-persistenced",
];

/// What the launcher's layer lets a harness write on a machine with NVIDIA
/// GPUs, until the harness has opened its device and restricted itself
/// further (see `judge_harness::lockdown`): the CUDA driver names its threads
/// by writing `/proc/self/task/TID/comm`, and fails when it cannot.
pub(crate) const PROC: &str = "/proc";

/// Device files every sandbox may read, write and `ioctl`.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// The device files of NVIDIA GPUs: `/dev/nvidia*` (`nvidia0`, `nvidiactl`,
/// `nvidia-uvm`, ...) and `/dev/nvidia-caps/`.
const NVIDIA_DEVICES: &str = "nvidia";

/// What a sandboxed process is, which decides what it may use besides its grant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Cargo and the compiler: the toolchain.
    Build,
    /// A harness: the GPU's device files and driver libraries.
    Run,
    /// An agent: the learner's code whose devices are the checker's (over
    /// its link), so no GPU device file, no driver and no `/proc` to write:
    /// on every machine it gets the pid namespace.
    Agent,
}

/// What every sandbox of a kind may use besides its grant, found once for
/// each kind ([`Allowed::of`], kept in [`ByKind`]) and read by a sandbox's
/// policy and environment.
#[derive(Clone, Debug)]
pub(crate) struct Allowed {
    /// What it may read: the system, and the toolchain or CUDA by kind.
    pub(crate) read: Vec<PathBuf>,
    /// The device files it may use.
    pub(crate) devices: Vec<PathBuf>,
    /// Whether it runs the CUDA driver: a run, on a machine whose device
    /// files include an NVIDIA GPU's (it then gets a `/proc` of its own).
    pub(crate) cuda: bool,
    /// `CARGO_HOME` and `RUSTUP_HOME`, for its environment.
    pub(crate) homes: Vec<(&'static str, PathBuf)>,
}

impl Allowed {
    /// What a sandbox of `kind` may use on this machine.
    pub(crate) fn of(kind: Kind) -> Self {
        let read = match kind {
            Kind::Build => for_builds(),
            Kind::Run => for_runs(),
            Kind::Agent => for_agents(),
        };
        let devices = match kind {
            Kind::Agent => plain_devices(),
            Kind::Build | Kind::Run => devices(),
        };
        let cuda = is_cuda_run(kind, &devices);
        Self {
            read,
            devices,
            cuda,
            homes: toolchain_homes(),
        }
    }
}

/// What each kind may use on this machine, found once when the judge makes
/// its sandbox (the machine's files and devices do not change under it),
/// not again for every build and run.
#[derive(Clone, Debug)]
pub(crate) struct ByKind {
    build: Allowed,
    run: Allowed,
    agent: Allowed,
}

impl ByKind {
    /// What each kind may use on this machine.
    pub(crate) fn find() -> Self {
        Self {
            build: Allowed::of(Kind::Build),
            run: Allowed::of(Kind::Run),
            agent: Allowed::of(Kind::Agent),
        }
    }

    /// What `kind` may use.
    pub(crate) fn of(&self, kind: Kind) -> &Allowed {
        match kind {
            Kind::Build => &self.build,
            Kind::Run => &self.run,
            Kind::Agent => &self.agent,
        }
    }
}

/// Whether a sandboxed process of `kind` runs the CUDA driver: a run, on a
/// machine whose device files `devices` include an NVIDIA GPU's.
fn is_cuda_run(kind: Kind, devices: &[PathBuf]) -> bool {
    kind == Kind::Run && has_nvidia(devices)
}

/// What a build may read besides its own grant: the system and the toolchain.
fn for_builds() -> Vec<PathBuf> {
    let mut all = paths(SYSTEM);
    all.extend(toolchain());
    all.extend(extra());
    all
}

/// What a run may read besides its own grant: the system and CUDA.
fn for_runs() -> Vec<PathBuf> {
    let mut all = paths(SYSTEM);
    all.extend(paths(CUDA));
    all.extend(cuda_toolkits());
    all.extend(library_path());
    all.extend(std::env::var_os("GPU_CALIBRATION").map(PathBuf::from));
    all.extend(extra());
    all
}

/// What an agent may read besides its own grant: the system alone (its
/// devices are the checker's, so it needs no driver and no toolkit).
fn for_agents() -> Vec<PathBuf> {
    let mut all = paths(SYSTEM);
    all.extend(extra());
    all
}

/// The usual device files, never a GPU's.
fn plain_devices() -> Vec<PathBuf> {
    paths(DEVICES)
}

/// The device files: the usual ones, and the GPUs' where there are some.
fn devices() -> Vec<PathBuf> {
    let mut devices = paths(DEVICES);
    if let Ok(entries) = std::fs::read_dir("/dev") {
        let nvidia = entries
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(NVIDIA_DEVICES))
            .map(|e| e.path());
        devices.extend(nvidia);
    }
    devices.sort();
    devices
}

/// `CARGO_HOME` and `RUSTUP_HOME`, as set or as cargo and rustup find them
/// from `HOME` (which a sandbox changes).
pub(crate) fn toolchain_homes() -> Vec<(&'static str, PathBuf)> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let dir = |var: &'static str, default: &str| {
        let path = std::env::var_os(var)
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(default)));
        path.map(|p| (var, p))
    };
    [dir("CARGO_HOME", ".cargo"), dir("RUSTUP_HOME", ".rustup")]
        .into_iter()
        .flatten()
        .collect()
}

/// Whether `devices` has NVIDIA GPUs among it.
fn has_nvidia(devices: &[PathBuf]) -> bool {
    devices.iter().any(|d| {
        d.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with(NVIDIA_DEVICES))
    })
}

/// What a build may read of the grader's `CARGO_HOME`: the binaries (the
/// `rustup` proxies), the package caches and cargo's configuration (which
/// cargo must read), never the rest: not `credentials.toml`, where `cargo
/// login` keeps a registry's token. The path stays the grader's own, so that
/// cargo finds the judge's own builds of the same packages fresh.
const CARGO_HOME_READ: &[&str] = &["bin", "registry", "git", "config.toml", "config"];

/// The Rust toolchain: the parts of `CARGO_HOME` in [`CARGO_HOME_READ`],
/// `RUSTUP_HOME` (the toolchains), and the folders of `CARGO` and `RUSTC`
/// when they name binaries elsewhere.
fn toolchain() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = toolchain_homes()
        .into_iter()
        .flat_map(|(var, path)| match var {
            "CARGO_HOME" => CARGO_HOME_READ
                .iter()
                .flat_map(|part| as_given_and_resolved(path.join(part)))
                .collect(),
            _ => vec![path],
        })
        .collect();
    for binary in ["CARGO", "RUSTC"] {
        let toolchain = std::env::var_os(binary)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .and_then(|p| p.parent()?.parent().map(Path::to_path_buf));
        paths.extend(toolchain);
    }
    paths
}

/// `path`, and where it is a symbolic link (a `CARGO_HOME` whose `bin/`
/// links elsewhere), the path it resolves to as well: the sandbox makes
/// each path reachable by its own name.
fn as_given_and_resolved(path: PathBuf) -> Vec<PathBuf> {
    match std::fs::canonicalize(&path) {
        Ok(resolved) if resolved != path => vec![path, resolved],
        _ => vec![path],
    }
}

/// `/usr/local/cuda-12.8` and the like.
fn cuda_toolkits() -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir("/usr/local") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("cuda"))
        .map(|e| e.path())
        .collect()
}

/// The folders of `LD_LIBRARY_PATH`, where the driver and NVRTC may be.
fn library_path() -> Vec<PathBuf> {
    std::env::var_os("LD_LIBRARY_PATH")
        .map(|paths| std::env::split_paths(&paths).collect())
        .unwrap_or_default()
}

/// `JUDGE_SANDBOX_READ`: more paths for every sandbox, as the machine needs.
fn extra() -> Vec<PathBuf> {
    std::env::var_os("JUDGE_SANDBOX_READ")
        .map(|paths| std::env::split_paths(&paths).collect())
        .unwrap_or_default()
}

fn paths(list: &[&str]) -> Vec<PathBuf> {
    list.iter().map(PathBuf::from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cuda_run_gets_a_proc_of_its_own_and_a_build_or_an_agent_does_not() {
        let nvidia = [
            PathBuf::from("/dev/nvidiactl"),
            PathBuf::from("/dev/nvidia0"),
        ];
        assert!(is_cuda_run(Kind::Run, &nvidia));
        assert!(!is_cuda_run(Kind::Build, &nvidia));
        assert!(!is_cuda_run(Kind::Agent, &nvidia));
        assert!(!is_cuda_run(Kind::Run, &[PathBuf::from("/dev/null")]));
        assert!(
            !Allowed::of(Kind::Agent).cuda,
            "an agent never runs the driver"
        );
    }

    #[test]
    fn nvidia_gpus_are_told_by_their_device_files() {
        let usual = paths(DEVICES);
        assert!(!has_nvidia(&usual));
        let gpu = [PathBuf::from("/dev/null"), PathBuf::from("/dev/nvidia0")];
        assert!(has_nvidia(&gpu));
        let lockdown = judge_harness::Lockdown {
            write: vec![PathBuf::from("/home"), PathBuf::from(PROC)],
            ..Default::default()
        };
        let harness = lockdown.without_write(Path::new(PROC));
        assert_eq!(
            harness.write,
            [PathBuf::from("/home")],
            "the harness's own layer has no /proc"
        );
    }
}
