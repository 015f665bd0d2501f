use super::*;

const COURSE: &str = r#"
[package]
name = "ex901"
version = "0.1.0"
edition = "2024"
build = "build.rs"
links = "x"

[lib]
name = "fixture"
path = "elsewhere.rs"
proc-macro = true

[dependencies]
helper = { path = "../helper" }

[build-dependencies]
cc = "1"

[patch.crates-io]
serde = { path = "/tmp/serde" }

[lints.rust]
unsafe_code = "allow"
missing_docs = "warn"
"#;

#[test]
fn the_course_manifest_is_made_safe() {
    let safe: toml::Table =
        toml::from_str(&safe_manifest(COURSE, Path::new("/course/exercises/901-x")).unwrap())
            .unwrap();
    assert_eq!(safe["package"]["name"].as_str(), Some("ex901"));
    assert_eq!(safe["package"]["build"].as_bool(), Some(false));
    assert!(safe["package"].get("links").is_none());
    assert_eq!(safe["lib"]["name"].as_str(), Some("fixture"));
    assert_eq!(safe["lib"]["path"].as_str(), Some("src/lib.rs"));
    assert!(safe["lib"].get("proc-macro").is_none());
    for gone in ["build-dependencies", "patch", "bin", "workspace"] {
        assert!(safe.get(gone).is_none(), "{gone}");
    }
    assert_eq!(
        safe["dependencies"]["helper"]["path"].as_str(),
        Some("/course/exercises/901-x/../helper")
    );
    assert_eq!(
        safe["lints"]["rust"]["unsafe_code"].as_str(),
        Some("forbid")
    );
    assert_eq!(safe["lints"]["rust"]["missing_docs"].as_str(), Some("warn"));
}

/// A submission at `dir/sub` with files `(path, text)` in `exercises/901-x`.
fn submission(dir: &Path, files: &[(&str, &str)]) -> PathBuf {
    let crate_dir = dir.join("sub/exercises/901-x");
    for (path, text) in files {
        std::fs::create_dir_all(crate_dir.join(path).parent().unwrap()).unwrap();
        std::fs::write(crate_dir.join(path), text).unwrap();
    }
    dir.join("sub")
}

fn take_from(dir: &Path, sub: &Path) -> Intake {
    let manifest = dir.join("course.toml");
    std::fs::write(&manifest, COURSE).unwrap();
    let source = Source {
        submission: sub,
        folder: Path::new("exercises/901-x"),
    };
    take(
        &source,
        &dir.join("to"),
        &manifest,
        Path::new("/course/exercises/901-x"),
    )
    .unwrap()
}

#[test]
fn only_the_rs_files_of_src_are_taken_with_their_hashes() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("Cargo.toml", "[package]\nbuild = \"src/build.rs\"\n"),
        ("build.rs", "fn main() {}"),
        ("src/lib.rs", "pub fn add() {}"),
        ("src/deep/mod.rs", "//"),
        ("src/notes.txt", "x"),
        ("tests/cheat.rs", "x"),
    ];
    let sub = submission(dir.path(), &files);
    let Intake::Taken(taken) = take_from(dir.path(), &sub) else {
        panic!("taken")
    };
    let mut paths: Vec<&str> = taken.iter().map(|f| f.path.as_str()).collect();
    paths.sort();
    assert_eq!(paths, ["Cargo.toml", "src/deep/mod.rs", "src/lib.rs"]);
    let lib = taken.iter().find(|f| f.path == "src/lib.rs").unwrap();
    assert_eq!(lib.sha256.len(), 64);
    let built = std::fs::read_to_string(dir.path().join("to/Cargo.toml")).unwrap();
    assert!(
        built.contains("build = false"),
        "the course's manifest, made safe: {built}"
    );
}

#[test]
fn links_devices_and_bad_files_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let sub = submission(dir.path(), &[("src/lib.rs", "//")]);
    let crate_dir = sub.join("exercises/901-x");
    std::os::unix::fs::symlink("/etc/hostname", crate_dir.join("src/stolen.rs")).unwrap();
    let refused = |intake: Intake| match intake {
        Intake::Refused(why) => why,
        Intake::Taken(_) => panic!("refused"),
    };
    let why = refused(take_from(dir.path(), &sub));
    assert!(
        why.starts_with("`exercises/901-x/src/stolen.rs` is a symbolic link"),
        "{why}"
    );
    std::fs::remove_file(crate_dir.join("src/stolen.rs")).unwrap();
    std::fs::write(crate_dir.join("src/latin1.rs"), b"// caf\xe9").unwrap();
    let why = refused(take_from(dir.path(), &sub));
    assert!(
        why.contains("`exercises/901-x/src/latin1.rs` is not UTF-8"),
        "{why}"
    );
    std::fs::remove_file(crate_dir.join("src/latin1.rs")).unwrap();
    std::fs::write(
        crate_dir.join("src/big.rs"),
        vec![b' '; FILE_LIMIT as usize + 1],
    )
    .unwrap();
    let why = refused(take_from(dir.path(), &sub));
    assert!(
        why.contains("`exercises/901-x/src/big.rs` is 1048577 bytes"),
        "{why}"
    );
    std::fs::remove_file(crate_dir.join("src/big.rs")).unwrap();
    nix::unistd::mkfifo(
        &crate_dir.join("src/pipe.rs"),
        nix::sys::stat::Mode::S_IRWXU,
    )
    .unwrap();
    let why = refused(take_from(dir.path(), &sub));
    assert!(
        why.contains("`exercises/901-x/src/pipe.rs` is not a regular file"),
        "{why}"
    );
    std::fs::remove_file(crate_dir.join("src/pipe.rs")).unwrap();
    std::fs::rename(crate_dir.join("src"), dir.path().join("real-src")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("real-src"), crate_dir.join("src")).unwrap();
    let why = refused(take_from(dir.path(), &sub));
    assert!(
        why.starts_with("`exercises/901-x/src` is a symbolic link"),
        "{why}"
    );
}

/// A source path that the judge reads whole but that, under the judge's
/// scratch folder, is longer than a path may be: that submission's crate
/// is refused with a message that names the file and what to do, and
/// nothing is returned as an error (which would stop the class).
#[test]
fn a_path_too_long_for_the_scratch_folder_is_refused_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let deep = format!("src/{}/more.rs", "m".repeat(255));
    let sub = submission(
        dir.path(),
        &[("src/lib.rs", "pub fn add() {}"), (&deep, "//! more")],
    );
    let manifest = dir.path().join("course.toml");
    std::fs::write(&manifest, COURSE).unwrap();
    let source = Source {
        submission: &sub,
        folder: Path::new("exercises/901-x"),
    };
    // Nearly as long as a path may be: the crate's folder can be made, a
    // file of its `src/` cannot.
    let long = (0..15).fold(dir.path().join("scratch"), |to, _| to.join("s".repeat(255)));
    let taken = take(
        &source,
        &long,
        &manifest,
        Path::new("/course/exercises/901-x"),
    );
    let Ok(Intake::Refused(why)) = taken else {
        panic!("refused, not {taken:?}");
    };
    assert!(
        why.starts_with("`exercises/901-x/")
            && why.contains("cannot be copied into the judge's scratch folder")
            && why.ends_with("shorten its path"),
        "{why}"
    );
}
