//! `judge doctor`: can this machine build and run the exercises?
//!
//! One line per thing the judge needs (the Rust toolchain, the course, the
//! judge's own crates) or can use (the CUDA driver, NVRTC, a GPU), then the
//! `GPU_BACKEND` override and the backend `judge run` will use, then the
//! sandbox's layers in force here ([`crate::sandbox`]), then what to do about
//! anything missing. A missing GPU is not a failure: the virtual GPU runs
//! every exercise; nor is a missing layer (but `judge grade` refuses to
//! start without the `files` layer). The exit code is 1 only when the judge
//! cannot build or run here at all.

use crate::course::Course;
use crate::exit;
use crate::sandbox::{Config as SandboxConfig, Sandbox};
use anstyle::{AnsiColor, Style};
use anyhow::Result;
use std::ffi::OsString;
use std::io::Write;
use std::path::Path;
use std::process::Command;

mod cuda;

/// How a line is marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mark {
    /// Present and working.
    Ok,
    /// Absent or broken.
    Missing,
    /// For information.
    Note,
}

/// One line of the report.
#[derive(Clone, Debug)]
struct Row {
    /// Its mark.
    mark: Mark,
    /// What was checked.
    what: &'static str,
    /// What was found, and where.
    detail: String,
}

/// Everything the checks found.
#[derive(Debug, Default)]
struct Findings {
    /// The lines, in order.
    rows: Vec<Row>,
    /// The sandbox's layers, one line each.
    layers: Vec<Row>,
    /// What to do, one paragraph each.
    advice: Vec<String>,
    /// Set when the judge cannot build or run here.
    blocked: bool,
}

impl Findings {
    /// Adds a line.
    fn row(&mut self, mark: Mark, what: &'static str, detail: impl Into<String>) {
        let detail = detail.into();
        self.rows.push(Row { mark, what, detail });
    }

    /// Something missing; `fatal` when the judge cannot run without it.
    fn missing(&mut self, what: &'static str, detail: impl Into<String>, fatal: bool) {
        self.row(Mark::Missing, what, detail);
        self.blocked |= fatal;
    }

    /// Adds a paragraph to `what to do`.
    fn advise(&mut self, text: impl Into<String>) {
        self.advice.push(text.into());
    }
}

/// Checks the machine, prints the report; exit 0 when the judge can build
/// (or, with `prebuilt`, run prebuilt harnesses) and run here.
pub(crate) fn doctor(root: Option<&Path>, prebuilt: bool) -> Result<u8> {
    let mut findings = Findings::default();
    check_toolchain(&mut findings, prebuilt);
    if let Some(course) = check_course(&mut findings, root)
        && !prebuilt
    {
        check_sources(&mut findings, &course.tools);
    }
    let calibration = std::env::var_os("GPU_CALIBRATION").map(std::path::PathBuf::from);
    cuda::check(
        &mut findings,
        std::env::var("GPU_BACKEND").ok().as_deref(),
        calibration.as_deref(),
    );
    check_sandbox(&mut findings);
    render(&findings, prebuilt, &mut anstream::stdout())?;
    Ok(if findings.blocked {
        exit::FAILED
    } else {
        exit::OK
    })
}

/// `cargo` and `rustc`: the ones the judge's builds use.
fn check_toolchain(findings: &mut Findings, prebuilt: bool) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let mut absent = false;
    for (what, program) in [("cargo", cargo), ("rustc", rustc)] {
        match version_of(&program) {
            Ok(version) if what == "rustc" && too_old(&version) => {
                findings.missing(what, format!("{version}: too old"), !prebuilt);
                findings.advise(format!("{OLD_RUST} {}", env!("CARGO_PKG_RUST_VERSION")));
            }
            Ok(version) => findings.row(Mark::Ok, what, format!("{version} {}", at(&program))),
            Err(why) if prebuilt => {
                let detail = format!("{why}; not needed with `--prebuilt`");
                findings.row(Mark::Note, what, detail);
            }
            Err(why) => {
                findings.missing(what, why, true);
                absent = true;
            }
        }
    }
    if absent {
        findings.advise(INSTALL_RUST);
    }
}

/// The first line of `PROGRAM --version`, or why there is none.
fn version_of(program: &OsString) -> Result<String, String> {
    let name = program.to_string_lossy();
    let out = Command::new(program)
        .arg("--version")
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound if Path::new(program).components().count() > 1 => {
                format!("`{name}` not found")
            }
            std::io::ErrorKind::NotFound => format!("`{name}` not found on `PATH`"),
            _ => format!("`{name}` does not run: {e}"),
        })?;
    let text = String::from_utf8_lossy(&out.stdout);
    match (out.status.success(), text.lines().next()) {
        (true, Some(line)) => Ok(line.trim().to_string()),
        _ => Err(format!("`{name} --version` failed ({})", out.status)),
    }
}

/// Where `program` is: itself when it is a path, else the first match on `PATH`.
fn at(program: &OsString) -> String {
    let path = Path::new(program);
    let found = match path.components().count() > 1 {
        true => Some(path.to_path_buf()),
        false => std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(path))
                .find(|candidate| candidate.is_file())
        }),
    };
    found.map_or_else(String::new, |p| format!("at {}", p.display()))
}

/// Whether a `rustc --version` line names a release older than this judge needs.
fn too_old(version: &str) -> bool {
    let needed = parse_version(env!("CARGO_PKG_RUST_VERSION"));
    let found = version.split_whitespace().nth(1).and_then(parse_version);
    matches!((found, needed), (Some(found), Some(needed)) if found < needed)
}

/// `1.95.0` (or `1.95`, or `1.96.0-nightly`) as numbers.
fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    let release = text.split('-').next()?;
    let mut parts = release.split('.').map(str::parse::<u32>);
    let major = parts.next()?.ok()?;
    let minor = parts.next()?.ok()?;
    let patch = parts.next().unwrap_or(Ok(0)).ok()?;
    Some((major, minor, patch))
}

/// The course: found and its manifest valid.
fn check_course(findings: &mut Findings, root: Option<&Path>) -> Option<Course> {
    match Course::open(root) {
        Ok(course) => {
            let count = course.manifest.exercises.len();
            let detail = format!("{count} exercises in {}", course.root.display());
            findings.row(Mark::Ok, "course", detail);
            Some(course)
        }
        Err(err) => {
            findings.missing("course", format!("{err:#}"), true);
            findings.advise(NO_COURSE);
            None
        }
    }
}

/// The `gpu` and `judge-harness` crates every harness is built against.
fn check_sources(findings: &mut Findings, tools: &Path) {
    let needed = ["gpu/Cargo.toml", "judge/harness/Cargo.toml"];
    match needed.iter().find(|file| !tools.join(file).is_file()) {
        None => {
            let detail = format!("`gpu` and `judge-harness` in {}", tools.display());
            findings.row(Mark::Ok, "judge crates", detail);
        }
        Some(file) => {
            findings.missing(
                "judge crates",
                format!("no `{file}` in {}", tools.display()),
                true,
            );
            findings.advise(NO_SOURCES);
        }
    }
}

/// The sandbox's layers, as the launcher puts them in place here.
fn check_sandbox(findings: &mut Findings) {
    let sandbox = Sandbox::new(SandboxConfig::default());
    for layer in sandbox.layers().rows() {
        let mark = if layer.in_force {
            Mark::Ok
        } else {
            Mark::Missing
        };
        findings.layers.push(Row {
            mark,
            what: layer.name,
            detail: layer.detail,
        });
    }
    if !sandbox.layers().isolates_files() {
        findings.advise(NO_FILES_LAYER);
    }
}

/// The style of `ok`.
const OK: Style = AnsiColor::Green.on_default().bold();
/// The style of `missing`.
const MISSING: Style = AnsiColor::Red.on_default().bold();
/// The style of notes.
const DIM: Style = Style::new().dimmed();
/// The style of headings.
const HEAD: Style = Style::new().bold();

/// Writes the report.
fn render(findings: &Findings, prebuilt: bool, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "{HEAD}judge doctor: what this machine has for the workbook{HEAD:#}\n"
    )?;
    render_rows(&findings.rows, out)?;
    writeln!(
        out,
        "\n{HEAD}the sandbox student code is built and run in:{HEAD:#}"
    )?;
    render_rows(&findings.layers, out)?;
    if !findings.advice.is_empty() {
        writeln!(out, "\n{HEAD}what to do:{HEAD:#}")?;
        for advice in &findings.advice {
            writeln!(out, "  - {advice}")?;
        }
    }
    let verdict = match (findings.blocked, prebuilt) {
        (true, _) => format!("{MISSING}not ready:{MISSING:#} {NOT_READY}"),
        (false, false) => {
            format!("{OK}ready:{OK:#} the judge can build and run the exercises here")
        }
        (false, true) => format!("{OK}ready:{OK:#} the judge can run prebuilt harnesses here"),
    };
    writeln!(out, "\n{verdict}")
}

/// Writes one line per row.
fn render_rows(rows: &[Row], out: &mut dyn Write) -> std::io::Result<()> {
    for row in rows {
        let (style, mark) = match row.mark {
            Mark::Ok => (OK, "ok"),
            Mark::Missing => (MISSING, "missing"),
            Mark::Note => (DIM, "-"),
        };
        writeln!(
            out,
            "  {style}{mark:<8}{style:#} {:<13} {}",
            row.what, row.detail
        )?;
    }
    Ok(())
}

/// No landlock: what grading needs.
const NO_FILES_LAYER: &str = "the sandbox cannot isolate files here (no landlock): `judge run` \
     works, but `judge grade` refuses to grade without `--no-sandbox`; grade on Linux 5.13 or \
     newer with landlock enabled";

/// The last line when the judge cannot work here.
const NOT_READY: &str = "the judge cannot build or run exercises here until the problems above \
     are fixed (see `what to do`); then run `judge doctor` again";

/// No cargo.
const INSTALL_RUST: &str = "the judge builds each exercise with cargo: install Rust with rustup \
     (`curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh`, see https://rustup.rs), \
     then open a new shell; on a GPU machine without Rust, run harnesses built elsewhere with \
     `judge run ID --prebuilt DIR`";

/// An old rustc (the version follows).
const OLD_RUST: &str = "update Rust with `rustup update stable`: the workbook needs Rust";

/// No course, or a broken one.
const NO_COURSE: &str = "the judge works on the workbook's exercises: run it inside the \
     workbook (the folder that holds `exercises/info.toml`) or pass `--root DIR`; when the \
     manifest is broken, the line above says where";

/// No `gpu/` or `judge/harness/` next to the judge.
const NO_SOURCES: &str = "the judge builds each exercise against its own `gpu` and \
     `judge-harness` crates: use the judge built from the workbook (`cargo run -p judge`), or \
     set `JUDGE_TOOLS` to the workbook folder that holds `gpu/` and `judge/`";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_rust_versions() {
        assert_eq!(parse_version("1.95.0"), Some((1, 95, 0)));
        assert_eq!(parse_version("1.95"), Some((1, 95, 0)));
        assert_eq!(parse_version("1.96.0-nightly"), Some((1, 96, 0)));
        assert_eq!(parse_version("nonsense"), None);
        assert!(too_old("rustc 1.70.0 (90c541806 2023-05-31)"));
        assert!(!too_old("rustc 9.0.0 (abcdef 2099-01-01)"));
        assert!(!too_old("rustc (unknown version)"));
    }
}
