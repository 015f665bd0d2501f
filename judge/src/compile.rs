//! Generating and building the harness crate of one run.
//!
//! A harness is a tiny crate under `target/judge/harness/NAME/`: it depends
//! on the learner's crate (under the name the check suite imports), on the
//! `gpu` crate and on the harness runtime, and its `main` includes the
//! judge's check suite by path. So the checks that run are always the
//! judge's own, never a copy the learner could edit. It is built in the
//! shared target folder (a submission's: in its own, seeded from the judge's
//! cache): a second build after a one-line edit recompiles
//! only the learner's crate and the harness. The build runs in the sandbox
//! ([`crate::sandbox`]): it reads the system, the toolchain, the `gpu` and
//! harness crates, the check suites and the crate under test, and writes
//! only its target folder and the harness crate. A submission's build that
//! fails or is stopped leaves nothing of what it wrote ([`crate::reclaim`]).
//!
//! Over 400 lines, about 600 before its unit tests: the harness
//! manifest, the cargo run that builds it and the reading of cargo's
//! messages belong together, and splitting them would only add imports.

use crate::course::Course;
use crate::files::{paths_hash, write_if_changed};
use crate::manifest::Exercise;
use crate::reclaim::Noted;
use crate::role::Role;
use crate::sandbox::{Confined, Grant, Kind as GrantKind, Sandbox};
use crate::ticker::{Shown, Ticker};
use anyhow::{Context, Result, bail};
use cargo_metadata::Message;
use cargo_metadata::diagnostic::DiagnosticLevel;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// What a build makes: where the learner's code will run, and so who
/// decides the verdicts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A harness: the check suite with the learner's crate linked in, one
    /// process (`--in-process`: `harness-ID-ROLE`).
    Harness,
    /// A checker: the check suite with the exercise's bridge, judge code
    /// only (`checker-ID`), which decides the verdicts.
    Checker,
    /// An agent: the learner's crate with the bridge's serve function
    /// (`agent-ID-ROLE`), which the checker calls.
    Agent,
}

/// What to build: a suite and the crate it checks.
#[derive(Clone, Debug)]
pub(crate) struct Spec {
    /// What it is.
    pub(crate) kind: Kind,
    /// Whose crate it builds.
    pub(crate) role: Role,
    /// The binary's name, also the file name of a prebuilt one:
    /// `harness-ID-ROLE`, `checker-ID` or `agent-ID-ROLE`.
    pub(crate) name: String,
    /// The package and binary name of the build: the name and a hash of the
    /// crate's path, so that courses built side by side never share one.
    pub(crate) package_name: String,
    /// The crate under test (for a checker, none is built: the solution's
    /// path stands in, to name it).
    pub(crate) crate_dir: PathBuf,
    /// Its package name (from its `Cargo.toml`).
    pub(crate) package: String,
    /// The library name the suite imports.
    pub(crate) lib: String,
    /// The check suite's source: its folder's `mod.rs`
    /// ([`Course::checks_file`]).
    pub(crate) checks: PathBuf,
    /// The exercise's bridge ([`Course::bridge_dir`]).
    pub(crate) bridge: PathBuf,
    /// Where the harness crate is generated (in a folder named for the package).
    pub(crate) harness_root: PathBuf,
    /// The target folder the build uses (`CARGO_TARGET_DIR`).
    pub(crate) target: PathBuf,
    /// A folder of the build's own: its `HOME` and `TMPDIR` in the sandbox.
    pub(crate) home: PathBuf,
    /// Whether the build writes only folders of its own (a submission's),
    /// which the sandbox user may be given; a course crate's build writes
    /// the shared target folder, as the judge's own user.
    pub(crate) isolated: bool,
}

/// The result of a build.
#[derive(Debug)]
pub(crate) enum Built {
    /// The harness binary.
    Binary(PathBuf),
    /// The compiler's messages.
    CompileError(String),
}

impl Spec {
    /// The spec of a build of `kind` for `crate_dir`, a crate of `exercise`
    /// in `role` (for a checker, the role and crate only name nothing).
    pub(crate) fn new(
        course: &Course,
        exercise: &Exercise,
        crate_dir: &Path,
        role: &Role,
        kind: Kind,
    ) -> Result<Self> {
        let package = package_name(crate_dir)?;
        let bridge = course.bridge_dir(exercise);
        let (name, hashed) = match kind {
            Kind::Harness => (role.harness_name(exercise.id), crate_dir.to_path_buf()),
            Kind::Agent => (
                role.binary_name("agent", exercise.id),
                crate_dir.to_path_buf(),
            ),
            Kind::Checker => (format!("checker-{}", exercise.id), bridge.clone()),
        };
        Ok(Self {
            kind,
            role: role.clone(),
            package_name: format!("{name}-{:08x}", paths_hash(&[&hashed])),
            name,
            crate_dir: crate_dir.to_path_buf(),
            package,
            lib: exercise.lib.clone(),
            checks: course.checks_file(exercise),
            bridge,
            harness_root: course.scratch("harness"),
            target: course.target_dir(),
            home: course.scratch("home"),
            isolated: false,
        })
    }

    /// The checker of `exercise`: its suite and its bridge, no learner crate.
    pub(crate) fn checker(course: &Course, exercise: &Exercise) -> Result<Self> {
        let solution = course.solution_dir(exercise);
        Self::new(course, exercise, &solution, &Role::Solution, Kind::Checker)
    }

    /// The spec built in `dir`'s own folders (a submission's scratch
    /// folder): its `harness/`, `target/` and `home/`.
    pub(crate) fn isolated_in(mut self, dir: &Path) -> Self {
        self.harness_root = dir.join("harness");
        self.target = dir.join("target");
        self.home = dir.join("home");
        self.isolated = true;
        self
    }

    /// The same crate built as `kind` (a harness's agent, say).
    pub(crate) fn as_kind(&self, course: &Course, exercise: &Exercise, kind: Kind) -> Result<Self> {
        let mut other = Self::new(course, exercise, &self.crate_dir, &self.role, kind)?;
        if self.isolated {
            other.harness_root.clone_from(&self.harness_root);
            other.target.clone_from(&self.target);
            other.home.clone_from(&self.home);
            other.isolated = true;
        }
        Ok(other)
    }

    /// The harness crate's folder.
    pub(crate) fn harness_dir(&self) -> PathBuf {
        self.harness_root.join(&self.package_name)
    }
}

/// Reads `[package] name` from `dir/Cargo.toml`.
pub(crate) fn package_name(dir: &Path) -> Result<String> {
    let path = dir.join("Cargo.toml");
    let text = fs_err::read_to_string(&path)?;
    let value: toml::Value =
        toml::from_str(&text).with_context(|| format!("`{}` is not valid TOML", path.display()))?;
    value
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str())
        .map(str::to_string)
        .with_context(|| format!("`{}` has no `[package] name`", path.display()))
}

/// Writes the harness crate; returns its manifest path.
pub(crate) fn generate(course: &Course, spec: &Spec) -> Result<PathBuf> {
    if !spec.checks.is_file() {
        bail!(
            "{}; the judge cannot check this exercise",
            crate::course::missing_suite(&spec.checks)
        );
    }
    if spec.kind != Kind::Harness && !spec.bridge.join("Cargo.toml").is_file() {
        bail!(
            "the exercise's bridge `{}` is missing (a crate with `lib.rs` and `api.rs` that calls the learner's crate from the judge's checker); the judge cannot decide this exercise outside the learner's process",
            spec.bridge.display()
        );
    }
    let dir = spec.harness_dir();
    fs_err::create_dir_all(&dir)?;
    write_if_changed(&dir.join("Cargo.toml"), manifest(course, spec)?.as_bytes())?;
    write_if_changed(&dir.join("main.rs"), main_rs(spec).as_bytes())?;
    copy_lock(&course.tools.join("Cargo.lock"), &dir.join("Cargo.lock"))?;
    Ok(dir.join("Cargo.toml"))
}

/// The generated `main.rs`: it includes the suite (a harness, a checker)
/// or the bridge's agent end (an agent) by path, written as a Rust string
/// literal (so any path is data, never code). An agent's end is the
/// bridge's `serve.rs` when it has one (code of its own around the
/// declaration), or else its `api.rs` under `judge_harness::agent_api!`.
fn main_rs(spec: &Spec) -> String {
    let (module, call) = match spec.kind {
        Kind::Harness => (
            include_module("suite", &spec.checks),
            "judge_harness::main(suite::CHECKS)",
        ),
        Kind::Checker => (
            include_module("suite", &spec.checks),
            "judge_harness::checker_main(suite::CHECKS)",
        ),
        Kind::Agent => (
            agent_module(&spec.bridge),
            "judge_harness::agent::main(serve::serve)",
        ),
    };
    // A checker counts its heap: what it holds for the agent's calls is
    // held to the submission's memory limit (`gpu::remote::Limits`).
    let allocator = match spec.kind {
        Kind::Checker => {
            "\n#[global_allocator]\nstatic HEAP: gpu::remote::Counted = gpu::remote::Counted;\n"
        }
        Kind::Harness | Kind::Agent => "",
    };
    format!(
        "// Generated by the judge for one run: edits are overwritten.\n{module}{allocator}\nfn main() -> std::process::ExitCode {{\n    {call}\n}}\n",
    )
}

/// `mod NAME;` of the file at `path`.
fn include_module(name: &str, path: &Path) -> String {
    format!("#[path = {:?}]\nmod {name};\n", path.to_string_lossy())
}

/// The agent's end of `bridge` as the module `serve`.
fn agent_module(bridge: &Path) -> String {
    let serve = bridge.join("serve.rs");
    if serve.is_file() {
        return include_module("serve", &serve);
    }
    format!(
        "mod serve {{\n    use judge_harness::agent_api as api;\n    include!({:?});\n}}\n",
        bridge.join("api.rs").to_string_lossy()
    )
}

/// Copies the workspace's `lock`, which pins every crate of the harness
/// (insta too, through the harness runtime), into the harness as `into`:
/// when `into` is missing or older, so that a harness made before a new
/// dependency still resolves offline, and a lock cargo has since extended
/// (a learner's own dependency) is kept.
fn copy_lock(lock: &Path, into: &Path) -> Result<()> {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if !lock.is_file() || modified(into) >= modified(lock) {
        return Ok(());
    }
    fs_err::copy(lock, into)?;
    Ok(())
}

/// A path dependency, as a TOML table.
fn path_dependency(path: &Path, package: Option<&str>) -> toml::Value {
    let mut table = toml::Table::new();
    table.insert("path".into(), path.to_string_lossy().into_owned().into());
    if let Some(package) = package {
        table.insert("package".into(), package.into());
    }
    table.into()
}

/// The harness crate's manifest, written with the TOML library: every
/// path and name in it is a string value, whatever characters it holds.
pub(crate) fn manifest(course: &Course, spec: &Spec) -> Result<String> {
    let mut dependencies = toml::Table::new();
    let learner = path_dependency(&spec.crate_dir, Some(&spec.package));
    match spec.kind {
        Kind::Harness => {
            dependencies.insert(spec.lib.clone(), learner);
        }
        Kind::Checker => {
            let bridge = package_name(&spec.bridge)?;
            dependencies.insert(
                spec.lib.clone(),
                path_dependency(&spec.bridge, Some(&bridge)),
            );
        }
        Kind::Agent => {
            let bridge = package_name(&spec.bridge)?;
            dependencies.insert("learner".into(), learner);
            dependencies.insert(
                "bridge".into(),
                path_dependency(&spec.bridge, Some(&bridge)),
            );
        }
    }
    dependencies.insert(
        "gpu".into(),
        path_dependency(&course.tools.join("gpu"), None),
    );
    let harness = path_dependency(&course.tools.join("judge/harness"), None);
    dependencies.insert("judge-harness".into(), harness);
    let table = |pairs: Vec<(&str, toml::Value)>| -> toml::Value {
        let table: toml::Table = pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        table.into()
    };
    let name = || toml::Value::from(spec.package_name.clone());
    let package = table(vec![
        ("name", name()),
        ("version", "0.0.0".into()),
        ("edition", "2024".into()),
        ("publish", false.into()),
    ]);
    let binary = table(vec![("name", name()), ("path", "main.rs".into())]);
    // No debug information: a learner's panic is located by the harness's
    // panic hook and a traced call by `#[track_caller]`, neither of which
    // reads it, and line tables made every harness eight times larger
    // (16 MB against 2 MB), gigabytes for a class's builds.
    let release = table(vec![("debug", false.into()), ("incremental", true.into())]);
    let mut manifest = toml::Table::new();
    manifest.insert("package".into(), package);
    manifest.insert("workspace".into(), toml::Table::new().into());
    manifest.insert("bin".into(), vec![binary].into());
    manifest.insert("dependencies".into(), dependencies.into());
    manifest.insert("profile".into(), table(vec![("release", release)]));
    Ok(format!(
        "# Generated by the judge for one run: edits are overwritten.\n{}",
        toml::to_string(&manifest)?
    ))
}

/// Builds the harness of `spec` in release mode in `sandbox`, showing
/// that it runs as `shown` says ([`crate::ticker`]), within `limit` of wall time (the sandbox's build
/// time limit, or less: what is left of a submission's budget). Past it,
/// cargo and everything it started (the compiler evaluating a constant that
/// never ends, say) are killed, sandbox or not, and the build is a compile
/// error that says so.
pub(crate) fn build(
    course: &Course,
    spec: &Spec,
    sandbox: &Sandbox,
    shown: Shown,
    limit: Duration,
) -> Result<Built> {
    let manifest = generate(course, spec)?;
    let inputs = checker_inputs(course, spec);
    if let Some(binary) = inputs
        .as_ref()
        .and_then(|i| crate::fresh::built(&built_binary(spec), i))
    {
        return Ok(Built::Binary(binary));
    }
    if !spec.isolated && spec.kind != Kind::Checker {
        // A learner's or the course's crate may name dependencies not yet
        // downloaded; the sandbox has no network. (A submission's crate
        // has the course's, which the judge's cache has fetched.)
        fetch(&manifest)?;
    }
    let ticker = Ticker::start(shown, &format!("{} with the judge's checks", spec.package));
    // What a submission's failed or stopped build writes is taken back
    // ([`crate::reclaim`]): its folders, and its home.
    let folders = [spec.target.clone(), spec.harness_dir(), spec.home.clone()];
    let noted = spec.isolated.then(|| Noted::of(&folders));
    let started = std::time::Instant::now();
    let (mut child, _confined) = cargo_build(course, spec, &manifest, sandbox, limit)?;
    let watchdog = Watchdog::start(&child, limit);
    let stderr = child.stderr.take().expect("piped");
    let errors = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    let mut messages = Vec::new();
    let mut binary = None;
    let stdout = std::io::BufReader::new(child.stdout.take().expect("piped"));
    for message in Message::parse_stream(stdout) {
        let message = message.context("cannot read cargo's output")?;
        if let Some(name) = compiling(&message) {
            ticker.finished(name);
        }
        read_cargo_message(message, &spec.package_name, &mut messages, &mut binary);
    }
    let status = child.wait().context("cargo did not finish")?;
    drop(watchdog);
    if let Some(noted) = noted.filter(|_| !status.success()) {
        noted.restore()?;
    }
    let mut stderr = errors.join().unwrap_or_default();
    ticker.finish();
    if !status.success() && started.elapsed() >= limit {
        stderr = format!(
            "the build ran past its {} s limit and was stopped\n{stderr}",
            limit.as_secs()
        );
        messages.insert(0, stderr.clone());
    } else if let Some(line) = past_disk_limit(&status, &stderr) {
        messages.insert(0, line);
    } else if let Some(line) = past_memory_limit(&status, &stderr) {
        stderr = format!("{line}\n{stderr}");
        messages.insert(0, line);
    }
    match (status.success(), binary) {
        (true, Some(path)) => {
            if let Some(inputs) = &inputs {
                crate::fresh::record(&path, inputs);
            }
            Ok(Built::Binary(path))
        }
        (true, None) => bail!("cargo built `{}` but reported no binary", spec.package_name),
        (false, _) if messages.is_empty() => Ok(Built::CompileError(stderr)),
        (false, _) => Ok(Built::CompileError(explain_api(spec, messages.join("\n")))),
    }
}

/// The sandbox's own line, when the kernel ended a process of the build
/// (the compiler, most often) past the sandbox's memory limit: without it,
/// cargo says only that `rustc` died of `SIGKILL`.
fn past_memory_limit(status: &std::process::ExitStatus, stderr: &str) -> Option<String> {
    match status.success() {
        true => None,
        false => crate::sandbox::cgroup::memory_said(stderr).map(str::to_string),
    }
}

/// The sandbox's own line, when it ended the build past its disk limit
/// (it then dies of `SIGXFSZ`, as a process past its file-size limit does).
fn past_disk_limit(status: &std::process::ExitStatus, stderr: &str) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    if status.signal() != Some(nix::sys::signal::Signal::SIGXFSZ as i32) {
        return None;
    }
    let line = crate::sandbox::disk::said(stderr);
    Some(line.map_or_else(
        || "the build wrote a file past the sandbox's file-size limit (`--file-size-limit`)".into(),
        str::to_string,
    ))
}

/// A compile error in the judge's own code that calls the learner's crate
/// (the bridge, or the check suite built with it) means that the crate
/// lacks an item of the exercise's public API, or changed its signature:
/// `log` with a first line saying so, since the errors name the judge's
/// files, not the learner's.
fn explain_api(spec: &Spec, log: String) -> String {
    let judges = [
        &spec.bridge,
        &spec.checks.parent().unwrap_or(&spec.checks).to_path_buf(),
    ];
    let in_judges_code = judges
        .iter()
        .any(|dir| log.contains(&format!("{}/", dir.display())));
    if spec.kind == Kind::Checker || !in_judges_code {
        return log;
    }
    format!(
        "note: these errors are in the judge's code that calls your crate, not in yours: your \
         crate lacks an item of the exercise's public API (the statement, `README.md`, \
         lists it), or changed its name, its signature or its `pub`; put it back as the \
         statement has it\n{log}"
    )
}

/// What a checker is built from, for [`crate::fresh`] (its dependencies are
/// the judge's own, which the workspace's lock downloaded: it needs no
/// `cargo fetch`); `None` for any other build, which cargo always checks.
fn checker_inputs(course: &Course, spec: &Spec) -> Option<Vec<PathBuf>> {
    (spec.kind == Kind::Checker).then(|| {
        let suite = spec.checks.parent().unwrap_or(&spec.checks).to_path_buf();
        vec![
            spec.harness_dir(),
            suite,
            spec.bridge.clone(),
            course.tools.join("gpu"),
            course.tools.join("judge/harness"),
            course.tools.join("Cargo.lock"),
            course.tools.join("Cargo.toml"),
        ]
    })
}

/// Where cargo puts the binary of `spec` (its release folder).
fn built_binary(spec: &Spec) -> PathBuf {
    spec.target.join("release").join(&spec.package_name)
}

/// The cargo in use: `CARGO` (set when the judge runs under cargo), else `cargo`.
fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

/// Kills a build's process group once its time limit has passed, unless
/// it is dropped first (the build ended).
struct Watchdog {
    done: Option<std::sync::mpsc::Sender<()>>,
}

impl Watchdog {
    fn start(child: &std::process::Child, limit: Duration) -> Self {
        let (done, finished) = std::sync::mpsc::channel::<()>();
        let group = rustix::process::Pid::from_child(child);
        std::thread::spawn(move || {
            if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(limit) {
                let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
            }
        });
        Self { done: Some(done) }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        if let Some(done) = self.done.take() {
            let _ = done.send(());
        }
    }
}

/// Starts `cargo build` of the harness at `manifest` in the sandbox, in a
/// process group of its own, with `limit` as the sandbox's deadline; with
/// the build's sandbox, to keep until the build has ended (dropping it ends
/// all the build started).
fn cargo_build(
    course: &Course,
    spec: &Spec,
    manifest: &Path,
    sandbox: &Sandbox,
    limit: Duration,
) -> Result<(std::process::Child, Confined)> {
    use std::os::unix::process::CommandExt;
    let mut command = cargo();
    command
        .args(["build", "--release", "--offline"])
        .arg("--message-format=json-diagnostic-rendered-ansi")
        .arg("--manifest-path")
        .arg(manifest)
        .current_dir(spec.harness_dir())
        .env("CARGO_TARGET_DIR", &spec.target);
    let writes = [spec.target.clone(), spec.harness_dir()];
    if spec.isolated {
        // The target folder's files are the judge's cache, hard-linked: its
        // folders only are the sandbox user's (see `cache::seed`).
        sandbox.hand_over_folder(&spec.target)?;
        sandbox.hand_over(&spec.harness_dir())?;
        sandbox.hand_over(&spec.home)?;
    } else {
        fs_err::create_dir_all(&spec.home)?;
    }
    let grant = Grant {
        kind: GrantKind::Build,
        read: build_reads(course, spec),
        write: writes.to_vec(),
        home: spec.home.clone(),
        deadline: Some(limit),
        as_user: spec.isolated,
        quota: spec.isolated.then(|| vec![spec.target.clone()]),
    };
    let confined = sandbox.confine(&grant, &command);
    let child = confined
        .command()
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("cannot run `cargo`; is the Rust toolchain installed? (`judge doctor` checks)")?;
    Ok((child, confined))
}

/// What a build reads besides the system and the toolchain: the crate under
/// test, the check suites, the judge's `gpu` and harness crates (and the
/// workspace manifest they inherit from), and the cargo configuration files
/// above the harness crate (which cargo reads).
fn build_reads(course: &Course, spec: &Spec) -> Vec<PathBuf> {
    let mut reads = vec![
        spec.crate_dir.clone(),
        course.root.join("judge/checks"),
        spec.bridge.clone(),
        course.tools.join("gpu"),
        course.tools.join("judge/harness"),
        course.tools.join("Cargo.toml"),
        course.tools.join("Cargo.lock"),
        // Cargo reads the manifests above a path dependency to find the
        // workspace whose package fields it inherits: a bridge's
        // (`judge/bridges/exID`) passes the judge's own on the way.
        course.tools.join("judge/Cargo.toml"),
    ];
    for dir in spec.harness_dir().ancestors() {
        reads.push(dir.join(".cargo/config.toml"));
        reads.push(dir.join(".cargo/config"));
    }
    reads
}

/// Downloads what the harness at `manifest` depends on, outside the sandbox
/// (downloading runs no code of the crates'); quick when all is there.
fn fetch(manifest: &Path) -> Result<()> {
    // A failure shows in the build that follows, with cargo's own message.
    cargo()
        .args(["fetch", "--quiet", "--manifest-path"])
        .arg(manifest)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .context("cannot run `cargo`; is the Rust toolchain installed? (`judge doctor` checks)")?;
    Ok(())
}

/// The crate one of cargo's messages says is done, for the ticker.
fn compiling(message: &Message) -> Option<&str> {
    match message {
        Message::CompilerArtifact(artifact) => Some(&artifact.target.name),
        _ => None,
    }
}

/// Collects compiler errors and the harness executable from one of cargo's
/// JSON messages.
fn read_cargo_message(
    message: Message,
    name: &str,
    messages: &mut Vec<String>,
    binary: &mut Option<PathBuf>,
) {
    match message {
        Message::CompilerMessage(message)
            if matches!(
                message.message.level,
                DiagnosticLevel::Error | DiagnosticLevel::Ice
            ) =>
        {
            if let Some(text) = message.message.rendered {
                messages.push(text.trim_end().to_string());
            }
        }
        Message::CompilerArtifact(artifact) if artifact.target.name == name => {
            if let Some(exe) = artifact.executable {
                *binary = Some(exe.into_std_path_buf());
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A spec of `kind` whose paths hold `name` (quotes, a backslash, a
    /// newline: whatever a submission folder is called), under `dir`, with
    /// a bridge there.
    fn spec_named(dir: &Path, name: &str, kind: Kind) -> (Course, Spec) {
        let root = dir.join(name);
        let bridge = root.join("judge/bridges/ex101");
        std::fs::create_dir_all(&bridge).unwrap();
        std::fs::write(
            bridge.join("Cargo.toml"),
            "[package]\nname = \"bridge101\"\n",
        )
        .unwrap();
        let course = crate::course::tests_support::course_at(&root);
        let spec = Spec {
            kind,
            role: Role::Submission,
            name: "agent-101-submission".into(),
            package_name: "agent-101-submission-00000000".into(),
            crate_dir: root.join("exercises/101-x"),
            package: "ex101-x".into(),
            lib: "caching_allocator".into(),
            checks: root.join("judge/checks/ex101/mod.rs"),
            bridge,
            harness_root: root.join("h"),
            target: root.join("t"),
            home: root.join("home"),
            isolated: true,
        };
        (course, spec)
    }

    #[test]
    fn any_path_stays_a_string_in_the_generated_manifest_and_main() {
        let dir = tempfile::tempdir().unwrap();
        let name = "q-zo\u{eb}-\"zed\"\\ b-dom\\user\nnext [dependencies] = 1";
        for kind in [Kind::Harness, Kind::Agent] {
            let (course, spec) = spec_named(dir.path(), name, kind);
            let text = manifest(&course, &spec).unwrap();
            let table: toml::Table = toml::from_str(&text).unwrap();
            let dependencies = table["dependencies"].as_table().unwrap();
            let learner = match kind {
                Kind::Agent => &dependencies["learner"],
                _ => &dependencies["caching_allocator"],
            };
            assert_eq!(
                learner["path"].as_str(),
                Some(spec.crate_dir.to_str().unwrap()),
                "{text}"
            );
            let expected = if kind == Kind::Agent { 4 } else { 3 };
            assert_eq!(dependencies.len(), expected, "{text}");
            let main = main_rs(&spec);
            let literal = main.lines().find(|l| l.contains("zed")).unwrap();
            assert!(
                literal.contains("\\\"zed\\\"") && literal.contains("\\n"),
                "the path is escaped as a Rust string: {literal}"
            );
        }
    }

    #[test]
    fn an_agent_serves_the_bridge_s_declaration_or_its_own_serve_rs() {
        let dir = tempfile::tempdir().unwrap();
        let (_, spec) = spec_named(dir.path(), "c", Kind::Agent);
        let api = spec.bridge.join("api.rs");
        let generated = main_rs(&spec);
        assert!(
            generated.contains("use judge_harness::agent_api as api;")
                && generated.contains(&format!("include!({:?});", api.to_string_lossy())),
            "{generated}"
        );
        std::fs::write(spec.bridge.join("serve.rs"), "").unwrap();
        let own = main_rs(&spec);
        let serve = spec.bridge.join("serve.rs");
        assert!(
            own.contains(&format!(
                "#[path = {:?}]\nmod serve;",
                serve.to_string_lossy()
            )) && !own.contains("agent_api"),
            "{own}"
        );
    }

    /// The fields of a message of cargo's about the binary crate `name`.
    fn about(name: &str) -> String {
        format!(
            r#""package_id":"path+file:///c/{name}#0.1.0","manifest_path":"/c/{name}/Cargo.toml","target":{{"kind":["bin"],"crate_types":["bin"],"name":"{name}","src_path":"/c/{name}/main.rs","edition":"2024","doc":true,"doctest":false,"test":true}}"#
        )
    }

    /// A `compiler-message` line of cargo's: a diagnostic at `level`.
    fn diagnostic(level: &str, rendered: &str) -> String {
        let about = about("harness-101-exercise");
        format!(
            r#"{{"reason":"compiler-message",{about},"message":{{"message":"m","code":null,"level":"{level}","spans":[],"children":[],"rendered":"{rendered}"}}}}"#
        )
    }

    /// A `compiler-artifact` line of cargo's for the crate `name`.
    fn artifact(name: &str, executable: &str) -> String {
        let about = about(name);
        format!(
            r#"{{"reason":"compiler-artifact",{about},"profile":{{"opt_level":"3","debuginfo":0,"debug_assertions":false,"overflow_checks":false,"test":false}},"features":[],"filenames":[],"executable":{executable},"fresh":false}}"#
        )
    }

    #[test]
    fn reads_errors_and_the_binary_from_cargo_json() {
        let (mut messages, mut binary) = (Vec::new(), None);
        let lines = [
            diagnostic("error", r"error[E0308]: mismatched types\n"),
            diagnostic("warning", "warning: unused"),
            diagnostic(
                "error: internal compiler error",
                "error: the compiler crashed",
            ),
            artifact("harness-101-exercise", r#""/t/h""#),
            artifact("gpu", "null"),
            "not json".into(),
        ];
        let (stream, mut compiled) = (lines.join("\n"), Vec::new());
        for message in Message::parse_stream(stream.as_bytes()) {
            let message = message.unwrap();
            compiled.extend(compiling(&message).map(str::to_string));
            read_cargo_message(message, "harness-101-exercise", &mut messages, &mut binary);
        }
        assert_eq!(
            compiled,
            ["harness-101-exercise", "gpu"],
            "the crates cargo finished, not those it has messages about"
        );
        assert_eq!(
            messages,
            [
                "error[E0308]: mismatched types",
                "error: the compiler crashed"
            ]
        );
        assert_eq!(binary, Some(PathBuf::from("/t/h")));
    }
}
