//! The examples a learner runs after the quick start reuse the judge's
//! release build: every crate that `cargo run --release -p judge` and the
//! `gpu` or `workbook-benches` examples both build has the same features
//! in both (else cargo builds it, and everything above it, again).

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// Each crate (`name version`, path crates left out) with its features, as
/// `cargo tree` resolves `package` with the dependency kinds `edges`: one
/// set of features for each of its builds (a crate built for the host, for
/// a derive macro, and for the target may have two).
fn features(package: &str, edges: &str) -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree", "--locked", "--prefix", "none", "-f", "{p}|{f}", "-e", edges, "-p", package,
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut found = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Some((package, features)) = line.split_once('|') else {
            continue;
        };
        let words: Vec<&str> = package.split(' ').collect();
        if words.len() < 2 || package.contains("(/") || package.contains("(proc-macro) (/") {
            continue;
        }
        let features = features.trim_end_matches(" (*)");
        found
            .entry(format!("{} {}", words[0], words[1]))
            .or_insert_with(BTreeSet::new)
            .insert(format!("[{features}]"));
    }
    found
}

#[test]
fn the_examples_build_the_judges_crates_with_the_judges_features() {
    let judge = features("judge", "normal,build");
    let mut differ = Vec::new();
    for examples in ["gpu", "workbook-benches"] {
        for (krate, theirs) in features(examples, "normal,build,dev") {
            match judge.get(&krate) {
                Some(ours) if *ours != theirs => differ.push(format!(
                    "{krate}: the judge's build has {}, `-p {examples}`'s examples {}",
                    join(ours),
                    join(&theirs)
                )),
                _ => {}
            }
        }
    }
    assert!(
        differ.is_empty(),
        "the examples would build these crates again, and everything above them; list them \
         with the judge's features in workspace-hack/Cargo.toml:\n  {}",
        differ.join("\n  ")
    );
}

/// A crate's feature sets, as the message writes them.
fn join(sets: &BTreeSet<String>) -> String {
    sets.iter().cloned().collect::<Vec<_>>().join(" and ")
}
