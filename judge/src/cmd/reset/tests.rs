//! Tests of `judge reset`: the UTC stamp, the `git ls-tree` listing, and
//! what a reset writes and removes (the git side is tested in `tests/cli/reset.rs`).

use super::*;

#[test]
fn stamps_are_utc_dates() {
    assert_eq!(utc_stamp(0), "19700101T000000Z");
    assert_eq!(utc_stamp(951_782_400), "20000229T000000Z");
    assert_eq!(utc_stamp(1_709_210_096), "20240229T123456Z");
    assert_eq!(utc_stamp(4_102_444_799), "20991231T235959Z");
}

#[test]
fn reads_the_tree_of_the_crate_only() {
    let listing = "100644 blob aaa\tcourse/exercises/902-x/Cargo.toml\0\
                   100755 blob bbb\tcourse/exercises/902-x/run.sh\0\
                   160000 commit ccc\tcourse/exercises/902-x/vendored\0\
                   100644 blob ddd\tcourse/exercises/902-xy/src/lib.rs\0";
    let files = parse_tree(listing, "course/exercises/902-x/").unwrap();
    let paths: Vec<_> = files
        .iter()
        .map(|f| (f.path.to_str().unwrap(), f.mode.as_str()))
        .collect();
    assert_eq!(paths, [("Cargo.toml", "100644"), ("run.sh", "100755")]);
    assert!(parse_tree("garbage\0", "").is_err());
}

#[test]
fn finds_what_differs_and_what_was_added() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join("target/release")).unwrap();
    std::fs::write(root.join("Cargo.toml"), "same").unwrap();
    std::fs::write(root.join("src/lib.rs"), "edited").unwrap();
    std::fs::write(root.join("src/extra.rs"), "mine").unwrap();
    std::fs::write(root.join("target/release/junk"), "built").unwrap();
    let file = |path: &str, text: &str| StarterFile {
        path: path.into(),
        object: String::new(),
        mode: "100644".into(),
        bytes: text.into(),
    };
    let starter = [file("Cargo.toml", "same"), file("src/lib.rs", "todo!()")];
    let found = changes(root, &starter).unwrap();
    let written: Vec<_> = found.write.iter().map(|f| f.path.clone()).collect();
    assert_eq!(written, [PathBuf::from("src/lib.rs")]);
    assert_eq!(found.remove, [PathBuf::from("src/extra.rs")]);
    apply(root, &found).unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join("src/lib.rs")).unwrap(),
        "todo!()"
    );
    assert!(!root.join("src/extra.rs").exists());
    assert!(
        root.join("target/release/junk").exists(),
        "target/ is left alone"
    );
}
