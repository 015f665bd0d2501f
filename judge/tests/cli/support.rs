//! Running the judge binary against a copy of the fixture course.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::RwLock;
use std::time::Duration;

/// Held (shared) by every judge a test runs, and alone by a test whose
/// student code uses up the sandbox user's processes (the fork loop): the
/// process limit counts every process of that user on the machine, so the
/// other tests' builds would fail meanwhile.
static SANDBOX_USER: RwLock<()> = RwLock::new(());

/// The sandbox's layers, in the order the judge lists them.
pub(crate) const LAYERS: [&str; 9] = [
    "files",
    "processes",
    "signals",
    "system calls",
    "network",
    "limits",
    "cgroups",
    "disk",
    "user",
];

/// A private copy of the fixture course (tests may edit it) and the judge binary.
pub(crate) struct Course {
    pub(crate) root: PathBuf,
    /// A class folder beside the course, for `judge grade --class`: one
    /// folder per submission, made by [`Course::submit`].
    pub(crate) class: PathBuf,
    _dir: tempfile::TempDir,
}

/// What a judge invocation produced.
#[derive(Debug)]
pub(crate) struct Output {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Course {
    /// A fresh copy of `tests/fixtures/course`.
    pub(crate) fn fixture() -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let root = dir.path().join("course");
        copy_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/course"),
            &root,
        );
        // The bridge's dependencies are the judge's workspace's crates.
        let bridge = root.join("judge/bridges/fixture/Cargo.toml");
        let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let text = std::fs::read_to_string(&bridge).unwrap();
        std::fs::write(&bridge, text.replace("@TOOLS@", arg(&tools))).unwrap();
        let class = dir.path().join("class");
        std::fs::create_dir_all(&class).unwrap();
        Self {
            root,
            class,
            _dir: dir,
        }
    }

    /// A copy of the fixture course whose manifest keeps only the exercises `ids`
    /// (grading builds every exercise of the manifest: fewer is faster).
    pub(crate) fn fixture_with(ids: &[u32]) -> Self {
        let course = Self::fixture();
        let manifest = course.root.join("exercises/info.toml");
        let text = std::fs::read_to_string(&manifest).unwrap();
        let mut parts = text.split("[[exercise]]");
        let mut kept = parts.next().unwrap().to_string();
        for part in parts.filter(|p| ids.iter().any(|id| p.contains(&format!("id = {id}\n")))) {
            kept.push_str("[[exercise]]");
            kept.push_str(part);
        }
        std::fs::write(&manifest, kept).unwrap();
        // The record of the starters keeps the same exercises.
        let starters = course.root.join("exercises/starters.toml");
        let text = std::fs::read_to_string(&starters).unwrap();
        let mut record: toml::Table = toml::from_str(&text).unwrap();
        let all = record["starter"].as_table_mut().unwrap();
        all.retain(|id, _| ids.iter().any(|kept| kept.to_string() == *id));
        std::fs::write(&starters, toml::to_string(&record).unwrap()).unwrap();
        course
    }

    /// Makes the submission `class/NAME`: for each `(folder, from)`, its
    /// `exercises/FOLDER` is a copy of the course's `exercises/FROM` crate.
    pub(crate) fn submit(&self, name: &str, crates: &[(&str, &str)]) -> PathBuf {
        let submission = self.class.join(name);
        std::fs::create_dir_all(&submission).unwrap();
        for (folder, from) in crates {
            copy_dir(
                &self.root.join("exercises").join(from),
                &submission.join("exercises").join(folder),
            );
        }
        submission
    }

    /// Runs `judge --root COURSE ARGS…` on the virtual GPU, without colors.
    pub(crate) fn judge(&self, args: &[&str]) -> Output {
        self.judge_with(args, &[])
    }

    /// Like [`Course::judge`], with more environment variables.
    pub(crate) fn judge_with(&self, args: &[&str], env: &[(&str, &Path)]) -> Output {
        let _shared = SANDBOX_USER.read().unwrap_or_else(|e| e.into_inner());
        let out = self
            .command(args)
            .envs(env.iter().copied())
            .output()
            .expect("the judge runs");
        Output {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Runs `judge --root COURSE ARGS…` (as [`Course::judge`] does), killing
    /// it after `limit`, when its code is -1 and its stderr says so. With
    /// `alone`, no other test's judge runs meanwhile.
    pub(crate) fn judge_within(&self, args: &[&str], limit: Duration, alone: bool) -> Output {
        self.judge_within_env(args, limit, alone, &[])
    }

    /// Like [`Course::judge_within`], with more environment variables.
    pub(crate) fn judge_within_env(
        &self,
        args: &[&str],
        limit: Duration,
        alone: bool,
        env: &[(&str, &std::ffi::OsStr)],
    ) -> Output {
        use std::io::Read;
        use wait_timeout::ChildExt;
        let _shared = (!alone).then(|| SANDBOX_USER.read().unwrap_or_else(|e| e.into_inner()));
        let _alone = alone.then(|| SANDBOX_USER.write().unwrap_or_else(|e| e.into_inner()));
        let mut child = self
            .command(args)
            .envs(env.iter().copied())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the judge runs");
        let read = |mut pipe: Box<dyn Read + Send>| {
            std::thread::spawn(move || {
                let mut text = String::new();
                let _ = pipe.read_to_string(&mut text);
                text
            })
        };
        let out = read(Box::new(child.stdout.take().unwrap()));
        let err = read(Box::new(child.stderr.take().unwrap()));
        let status = child.wait_timeout(limit).unwrap();
        let _ = child.kill();
        let _ = child.wait();
        let (out, mut stderr) = (out.join().unwrap(), err.join().unwrap());
        if status.is_none() {
            stderr.push_str(&format!("\n[the test killed the judge after {limit:?}]"));
        }
        Output {
            code: status.and_then(|s| s.code()).unwrap_or(-1),
            stdout: out,
            stderr,
        }
    }

    /// A digest of every file of the course (its path and content), to
    /// tell that nothing changed.
    pub(crate) fn digest(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut files = Vec::new();
        let mut dirs = vec![self.root.clone()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    files.push((path.clone(), std::fs::read(&path).unwrap_or_default()));
                }
            }
        }
        files.sort();
        files
    }

    /// The command [`Course::judge`] runs, to start it and watch it.
    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_judge"));
        command
            .arg("--root")
            .arg(&self.root)
            .args(args)
            .env("NO_COLOR", "1")
            .env("GPU_BACKEND", "virtual")
            .env("CARGO_TARGET_DIR", shared_target());
        command
    }

    /// Makes the helper process of the fixture crate `folder` (one that
    /// starts a `sleep` for `HELPER_SECONDS`) sleep for a number of seconds
    /// no other test uses; returns it, to look for the process.
    pub(crate) fn unique_helper(&self, folder: &str) -> String {
        let seconds = format!("300.{}", fastrand::u32(..));
        let lib = self.root.join("exercises").join(folder).join("src/lib.rs");
        let text = std::fs::read_to_string(&lib).unwrap();
        assert!(
            text.contains("HELPER_SECONDS: &str = \"300\""),
            "{folder} has a helper"
        );
        std::fs::write(&lib, text.replace("\"300\"", &format!("\"{seconds}\""))).unwrap();
        seconds
    }

    /// `text` with this course's path and timings replaced by stable markers.
    pub(crate) fn redact(&self, text: &str) -> String {
        let root = self.root.display().to_string();
        let class = self.class.display().to_string();
        let text = text
            .replace(&root, "[COURSE]")
            .replace(&class, "[CLASS]")
            .replace(env!("CARGO_MANIFEST_DIR"), "[JUDGE]");
        text.lines()
            .map(redact_budget)
            .collect::<Vec<_>>()
            .join("\n")
            + if text.ends_with('\n') { "\n" } else { "" }
    }
}

/// `line` with a submission's time and budget (` (12 s of a 120 s
/// budget)`, the summary's) written `([TIME])`: they change run to run.
fn redact_budget(line: &str) -> String {
    match (line.rfind(" ("), line.ends_with(" s budget)")) {
        (Some(open), true) if line[open..].contains(" s of a ") => {
            format!("{} ([TIME])", &line[..open])
        }
        _ => line.to_string(),
    }
}

/// Copies the crate `from` to `to`, replacing the marks `(mark, text)` in
/// each of its files.
pub(crate) fn copy_marked(from: &Path, to: &Path, marks: &[(&str, &str)]) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_marked(&entry.path(), &target, marks);
        } else {
            let mut text = std::fs::read_to_string(entry.path()).unwrap();
            for (mark, value) in marks {
                text = text.replace(mark, value);
            }
            std::fs::write(&target, text).unwrap();
        }
    }
}

/// A path as a command-line argument.
pub(crate) fn arg(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// The workspace's target folder: harness builds are shared between tests.
fn shared_target() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target")
}

/// Copies the folder `from` to `to`, recursively.
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The processes (their command lines) whose arguments are exactly `argv`,
/// waiting up to two seconds for them to go.
pub(crate) fn processes_running(argv: &[&str]) -> Vec<String> {
    let wanted = argv.join("\0") + "\0";
    processes_where(|cmdline| cmdline == wanted)
}

/// The processes whose command line (its arguments joined by NUL) holds
/// `text`, waiting up to two seconds for them to go.
pub(crate) fn processes_holding(text: &str) -> Vec<String> {
    processes_where(|cmdline| cmdline.contains(text))
}

/// The processes whose command line passes `wanted`, waiting up to two
/// seconds for them to go.
fn processes_where(wanted: impl Fn(&str) -> bool) -> Vec<String> {
    let me = std::process::id().to_string();
    let running = || -> Vec<String> {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
            .filter(|e| e.file_name() != me.as_str())
            .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
            .map(|cmdline| String::from_utf8_lossy(&cmdline).into_owned())
            .filter(|cmdline| wanted(cmdline))
            .collect()
    };
    for _ in 0..40 {
        if running().is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    running()
}
