//! Measurement files in repositories made for each test: fresh, stale, and
//! each way of not saying where they come from.

use super::*;
use std::path::PathBuf;

/// A git repository in a temporary folder.
struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    /// A repository with one commit: `code/kernel.rs` and `other/notes.md`.
    fn new() -> Self {
        let repo = Self {
            dir: tempfile::tempdir().unwrap(),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.write("code/kernel.rs", "// v1\n");
        repo.write("other/notes.md", "v1\n");
        repo.commit("the code");
        repo
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs git as a user of its own; its trimmed output.
    fn git(&self, args: &[&str]) -> String {
        let output = Command::new("git")
            .arg("-C")
            .arg(self.path())
            .args(["-c", "user.name=test", "-c", "user.email=test@example.com"])
            .args(["-c", "commit.gpgsign=false"])
            .args(args)
            .output()
            .expect("git runs");
        assert!(output.status.success(), "git {args:?}: {output:?}");
        String::from_utf8(output.stdout).unwrap().trim().to_string()
    }

    fn write(&self, path: &str, text: &str) {
        let path = self.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Commits everything; the new commit's short hash (12 digits).
    fn commit(&self, message: &str) -> String {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message]);
        self.git(&["rev-parse", "--short=12", "HEAD"])
    }

    /// Writes and commits `measurements/run.txt`, its header naming `commit`.
    fn measure(&self, commit: &str) -> PathBuf {
        self.write(
            "measurements/run.txt",
            &format!(
                "command: cargo run --release -p workbook-benches --example run\n\
                 device:  NVIDIA H200 (cuda backend)\n\
                 commit:  {commit}\n\
                 date:    2026-12-01\n\nlaunch  3.23 µs\n"
            ),
        );
        self.commit("measured");
        self.path().join("measurements/run.txt")
    }

    fn check(&self, file: &Path) -> Result<(), String> {
        check_file(self.path(), "run.txt", file, &["code", ":!code/virt"])
    }
}

#[test]
fn a_file_is_fresh_until_a_commit_changes_its_code() {
    let repo = Repo::new();
    let measured_at = repo.git(&["rev-parse", "--short=12", "HEAD"]);
    let file = repo.measure(&measured_at);
    assert_eq!(repo.check(&file), Ok(()));
    repo.write("other/notes.md", "v2\n");
    repo.commit("notes");
    repo.write("code/virt/model.rs", "// the virtual GPU\n");
    repo.commit("excluded code");
    assert_eq!(repo.check(&file), Ok(()), "no change to the measured code");
    repo.write("code/kernel.rs", "// v2\n");
    let changed = repo.commit("a faster kernel");
    let error = repo.check(&file).unwrap_err();
    assert!(error.starts_with("`run.txt` is stale"), "{error}");
    assert!(error.contains(&format!("`{measured_at}`")), "{error}");
    assert!(error.contains(&changed[..7]), "{error}");
    assert!(error.contains("a faster kernel"), "{error}");
    assert!(error.contains("benches/remeasure"), "{error}");
}

#[test]
fn a_commit_listed_as_unmeasured_leaves_the_file_fresh_and_no_other() {
    let repo = Repo::new();
    let measured_at = repo.git(&["rev-parse", "--short=12", "HEAD"]);
    let file = repo.measure(&measured_at);
    repo.write("code/kernel.rs", "// v1, and a type no measurement uses\n");
    repo.commit("a new type");
    let full = repo.git(&["rev-parse", "HEAD"]);
    let commit: &'static str = Box::leak(full.into_boxed_str());
    let unmeasured = [Unmeasured {
        commit,
        why: "a type no measurement uses",
    }];
    let check =
        |repo: &Repo| check_file_except(repo.path(), "run.txt", &file, &["code"], &unmeasured);
    assert_eq!(check(&repo), Ok(()));
    assert!(
        repo.check(&file).unwrap_err().contains("a new type"),
        "not exempt elsewhere"
    );
    repo.write("code/kernel.rs", "// v2\n");
    repo.commit("a faster kernel");
    let error = check(&repo).unwrap_err();
    assert!(
        error.contains("1 commit(s)") && error.contains("a faster kernel"),
        "{error}"
    );
    assert!(!error.contains("a new type"), "{error}");
}

#[test]
fn a_dirty_commit_counts_as_its_commit() {
    let repo = Repo::new();
    let measured_at = repo.git(&["rev-parse", "--short=12", "HEAD"]);
    let file = repo.measure(&format!("{measured_at}-dirty"));
    assert_eq!(repo.check(&file), Ok(()));
    repo.write("code/kernel.rs", "// v2\n");
    repo.commit("a faster kernel");
    assert!(repo.check(&file).unwrap_err().contains("is stale"));
}

#[test]
fn a_file_without_a_commit_line_says_how_to_measure_it() {
    let repo = Repo::new();
    repo.write(
        "measurements/run.txt",
        "command: cargo run --release -p workbook-benches --example run\ndate:    2026-12-01\n\n1 µs\n",
    );
    let error = repo
        .check(&repo.path().join("measurements/run.txt"))
        .unwrap_err();
    assert_eq!(
        error,
        "`run.txt` has no `commit:` line: measure it again with `benches/remeasure` \
         (or `cargo run --release -p workbook-benches --example run`) on the GPU machine"
    );
}

#[test]
fn a_commit_the_repository_lacks_is_named() {
    let repo = Repo::new();
    let file = repo.measure("0123456789ab");
    let error = repo.check(&file).unwrap_err();
    assert!(
        error.contains("commit `0123456789ab`, which is not in this repository"),
        "{error}"
    );
    let file = repo.measure("unknown");
    let error = repo.check(&file).unwrap_err();
    assert!(
        error.contains("`commit: unknown`, which is not a commit"),
        "{error}"
    );
}

#[test]
fn a_commit_off_heads_history_is_named() {
    let repo = Repo::new();
    repo.git(&["checkout", "-q", "-b", "abandoned"]);
    repo.write("code/kernel.rs", "// tried\n");
    let abandoned = repo.commit("an idea");
    repo.git(&["checkout", "-q", "main"]);
    let file = repo.measure(&abandoned);
    let error = repo.check(&file).unwrap_err();
    assert!(
        error.contains(&format!(
            "`{abandoned}`, which is not in the history of `HEAD`"
        )),
        "{error}"
    );
}

#[test]
fn the_header_ends_at_its_first_line_that_is_not_a_key() {
    let text = "command: x --y\ndevice:  NVIDIA H200 (cuda backend)\ncommit:  abc123\n\
                measured in 2.0 s: z\nlater: no\n";
    assert_eq!(header_value(text, "command"), Some("x --y"));
    assert_eq!(header_value(text, "commit"), Some("abc123"));
    assert_eq!(header_value(text, "later"), None);
    assert_eq!(header_value("title\ncommit: abc\n", "commit"), None);
}

/// The entry of `run.txt` in a table of one, measuring `code`.
const TABLE: &[Measured] = &[Measured {
    file: "run.txt",
    code: &["code"],
    on: On::Python,
}];

#[test]
fn the_folder_is_held_to_the_table_and_the_list_of_files_not_measured_again() {
    let repo = Repo::new();
    repo.write("benches/python/common.py", "\n");
    repo.write("measurements/run.txt", "command: python3 run.py\n\n1 µs\n");
    let folder = repo.path().join("measurements");
    // Not measured again yet, and listed: nothing to say.
    assert_eq!(
        check_with(repo.path(), &folder, TABLE, &["run.txt"]),
        Vec::<String>::new()
    );
    // Off the list, its missing `commit:` line is an error.
    let problems = check_with(repo.path(), &folder, TABLE, &[]);
    assert_eq!(
        problems,
        [
            "`run.txt` has no `commit:` line: measure it again with `python3 run.py` on the GPU machine"
        ]
    );
    // Measured again and still listed: take it off.
    let at = repo.git(&["rev-parse", "--short=12", "HEAD"]);
    repo.write(
        "measurements/run.txt",
        &format!(
            "command: python3 run.py\n\
             device:  NVIDIA H200 (torch 2.11.0+cu130, CUDA 13.0, Python 3.12.3)\n\
             driver:  580.159.04\n\
             commit:  {at}\n\n1 µs\n"
        ),
    );
    let problems = check_with(repo.path(), &folder, TABLE, &["run.txt"]);
    assert_eq!(
        problems,
        ["`run.txt` has a `commit:` line now: take it off `NOT_YET_REMEASURED`"]
    );
    assert_eq!(
        check_with(repo.path(), &folder, TABLE, &[]),
        Vec::<String>::new()
    );
    // A file the table lacks, and a table path that is gone.
    repo.write("measurements/new.txt", "\n");
    std::fs::remove_file(repo.path().join("benches/python/common.py")).unwrap();
    let problems = check_with(repo.path(), &folder, TABLE, &[]);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].starts_with("`new.txt` is not in `book_check::provenance::MEASURED`"));
    assert!(problems[1].contains("measures `benches/python/common.py`, which does not exist"));
}

#[test]
fn a_header_without_its_driver_or_its_cuda_compiler_is_refused() {
    let rust = "command: cargo run --release -p workbook-benches --example run\n\
                device:  NVIDIA H200 (cuda backend)\n\
                driver:  580.159.04\n\
                nvrtc:   13.0\n\
                commit:  abc123\n\n1 µs\n";
    assert_eq!(check_toolchain("run.txt", rust, On::Benches), Ok(()));
    let no_driver = rust.replace("driver:  580.159.04\n", "");
    let error = check_toolchain("run.txt", &no_driver, On::Benches).unwrap_err();
    assert!(error.contains("which driver"), "{error}");
    let unknown = rust.replace("580.159.04", "unknown");
    assert!(check_toolchain("run.txt", &unknown, On::Gpu).is_err());
    let no_nvrtc = rust.replace("nvrtc:   13.0\n", "");
    let error = check_toolchain("run.txt", &no_nvrtc, On::Gpu).unwrap_err();
    assert!(error.contains("an `nvrtc:` line"), "{error}");
    assert!(error.contains("benches/remeasure"), "{error}");
    let python = "command: python3 benches/python/x.py\n\
                  device:  NVIDIA H200 (torch 2.11.0+cu130, CUDA 13.0, Python 3.12.3)\n\
                  driver:  580.159.04\n\
                  commit:  abc123\n";
    assert_eq!(check_toolchain("x.txt", python, On::Python), Ok(()));
    let cpu_torch = python.replace("CUDA 13.0", "CUDA None");
    let error = check_toolchain("x.txt", &cpu_torch, On::Python).unwrap_err();
    assert!(error.contains("`CUDA x.y`"), "{error}");
    assert!(error.contains("python3 benches/python/x.py"), "{error}");
}
