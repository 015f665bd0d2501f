//! Tests of the starter (`judge reset`): the UTC stamp, and what a reset
//! writes and removes in a crate (the git side is tested in
//! `tests/cli/reset.rs`).

use super::*;

#[test]
fn stamps_are_utc_dates() {
    assert_eq!(utc_stamp(0), "19700101T000000Z");
    assert_eq!(utc_stamp(951_782_400), "20000229T000000Z");
    assert_eq!(utc_stamp(1_709_210_096), "20240229T123456Z");
    assert_eq!(utc_stamp(4_102_444_799), "20991231T235959Z");
}

/// A starter of three files.
fn starter() -> BTreeMap<String, Vec<u8>> {
    [
        ("Cargo.toml", "[package]\n"),
        ("src/lib.rs", "todo!()\n"),
        ("src/deep/mod.rs", "// mod\n"),
    ]
    .into_iter()
    .map(|(p, b)| (p.to_string(), b.as_bytes().to_vec()))
    .collect()
}

#[test]
fn a_reset_writes_what_differs_and_removes_what_was_added_but_no_build_output() {
    let dir = tempfile::tempdir().unwrap();
    let at = |p: &str| dir.path().join(p);
    fs_err::create_dir_all(at("src/extra")).unwrap();
    fs_err::create_dir_all(at("target/debug")).unwrap();
    fs_err::write(at("Cargo.toml"), "[package]\n").unwrap();
    fs_err::write(at("src/lib.rs"), "my answer\n").unwrap();
    fs_err::write(at("src/extra/helper.rs"), "mine\n").unwrap();
    fs_err::write(at("notes.md"), "notes\n").unwrap();
    fs_err::write(at("Cargo.lock"), "# lock\n").unwrap();
    fs_err::write(at("target/debug/built"), "").unwrap();
    let starter = starter();

    let changes = changes(dir.path(), &starter).unwrap();
    assert_eq!(changes.write, ["src/deep/mod.rs", "src/lib.rs"]);
    assert_eq!(changes.remove, ["notes.md", "src/extra/helper.rs"]);

    restore(dir.path(), &starter, &changes).unwrap();
    for (path, bytes) in &starter {
        assert_eq!(&fs_err::read(at(path)).unwrap(), bytes, "{path}");
    }
    assert!(!at("notes.md").exists());
    assert!(!at("src/extra").exists(), "a folder left empty is removed");
    assert!(at("target/debug/built").exists(), "`target/` is left alone");
    assert!(at("Cargo.lock").exists(), "`Cargo.lock` is left alone");
    assert_eq!(changes_of(dir.path(), &starter), Changes::default());
}

/// What a second reset would change.
fn changes_of(dir: &Path, starter: &BTreeMap<String, Vec<u8>>) -> Changes {
    changes(dir, starter).unwrap()
}

#[test]
fn a_folder_or_a_link_where_a_starter_file_belongs_is_replaced_by_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let at = |p: &str| dir.path().join(p);
    fs_err::create_dir_all(at("src/lib.rs")).unwrap();
    fs_err::write(at("elsewhere"), "[package]\n").unwrap();
    std::os::unix::fs::symlink(at("elsewhere"), at("Cargo.toml")).unwrap();
    let starter = starter();
    let changes = changes(dir.path(), &starter).unwrap();
    assert_eq!(
        changes.write,
        ["Cargo.toml", "src/deep/mod.rs", "src/lib.rs"],
        "a link is not the starter's file, even with the same bytes"
    );
    restore(dir.path(), &starter, &changes).unwrap();
    assert!(
        fs_err::symlink_metadata(at("Cargo.toml"))
            .unwrap()
            .is_file()
    );
    assert_eq!(fs_err::read(at("src/lib.rs")).unwrap(), b"todo!()\n");
}

#[test]
fn a_missing_crate_is_written_whole() {
    let dir = tempfile::tempdir().unwrap();
    let krate = dir.path().join("101-x");
    let changes = changes(&krate, &starter()).unwrap();
    assert_eq!(changes.write.len(), 3);
    assert!(changes.remove.is_empty());
    restore(&krate, &starter(), &changes).unwrap();
    assert_eq!(changes_of(&krate, &starter()), Changes::default());
}
