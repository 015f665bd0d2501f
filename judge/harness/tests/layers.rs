//! The harness's files stack in layers, bottom first: the link's frames and
//! what a check is made of, then the runner of a suite, then the two ends
//! of a call (the agent's serve loop and the checker's calls), then what
//! joins them (the checker's agents, the loopback of the bridges' tests).
//! A file imports only files of lower layers, so the harness has no import
//! cycle and a change of an upper layer never reaches a lower one.
//!
//! The graph is read from the sources: every `crate::NAME` outside a
//! comment is an edge to the file of `NAME` (a module, or an item `lib.rs`
//! re-exports from one); `$crate::` in a macro names the user's side.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The harness's files by layer, bottom first (`lib.rs`, the crate's root,
/// is above them all).
const LAYERS: &[&[&str]] = &[
    // a declared API's driven objects
    &["api_driven"],
    // the sandbox's rules, the checks' helpers
    &[
        "signals",
        "lockdown",
        "rng",
        "failure",
        "gaps",
        "ordering",
        "polling",
        "macros",
        "api",
        "api_checker",
        "api_agent",
    ],
    // the link's frames
    &["wire"],
    // the judge's protocol; panics told apart
    &["protocol", "panics"],
    // the judge's channel; what a check may use
    &["channel", "ctx"],
    // a check
    &["check"],
    // the runner of a suite
    &["runner"],
    // the two ends of a call: the agent's serve loop, the checker's calls
    &["agent", "bridge"],
    // what joins them: the checker's agents, the bridges' tests' loopback
    &["checker", "loopback"],
];

fn layer_of(file: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&file))
}

/// The source without its comments (doc links are not imports).
fn code(text: &str) -> String {
    text.lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

fn ident(text: &str) -> String {
    text.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// The names `text` reaches as `crate::NAME` or `crate::{A, B::c}`.
fn names(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in text.match_indices("crate::") {
        if text[..at].ends_with('$') {
            continue;
        }
        let rest = &text[at + "crate::".len()..];
        match rest.strip_prefix('{') {
            Some(group) => {
                let group = &group[..group.find('}').unwrap_or(group.len())];
                found.extend(group.split(',').map(|n| ident(n.trim())));
            }
            None => {
                found.insert(ident(rest));
            }
        }
    }
    found.remove("");
    found
}

/// `lib.rs`'s re-exports: item → the file it comes from.
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let mut items = BTreeMap::new();
    for line in lib.lines() {
        let Some(path) = line.trim().strip_prefix("pub use ") else {
            continue;
        };
        let path = path.trim_end_matches(';');
        let Some((module, tail)) = path.split_once("::") else {
            continue;
        };
        let tail = tail.trim_start_matches('{').trim_end_matches('}');
        for item in tail.split(',') {
            items.insert(ident(item.trim()), module.to_string());
        }
    }
    items
}

/// File → the files it imports, or the names no file holds.
fn graph(src: &Path) -> (BTreeMap<String, BTreeSet<String>>, Vec<String>) {
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let items = reexports(&lib);
    let mut graph = BTreeMap::new();
    let mut unknown = Vec::new();
    for entry in std::fs::read_dir(src).unwrap() {
        let path = entry.unwrap().path();
        let file = path.file_stem().unwrap().to_string_lossy().into_owned();
        if file == "lib" {
            continue;
        }
        let text = code(&std::fs::read_to_string(&path).unwrap());
        let mut uses = BTreeSet::new();
        for name in names(&text) {
            if src.join(format!("{name}.rs")).exists() {
                uses.insert(name);
            } else if let Some(module) = items.get(&name) {
                uses.insert(module.clone());
            } else {
                unknown.push(format!("`{file}` names `crate::{name}`"));
            }
        }
        uses.remove(&file);
        graph.insert(file, uses);
    }
    (graph, unknown)
}

fn harness_graph() -> BTreeMap<String, BTreeSet<String>> {
    let (graph, unknown) = graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(unknown.is_empty(), "{}", unknown.join("\n"));
    graph
}

#[test]
fn every_file_of_the_harness_has_a_layer() {
    let graph = harness_graph();
    let missing: Vec<_> = graph.keys().filter(|f| layer_of(f).is_none()).collect();
    assert!(
        missing.is_empty(),
        "files with no layer in `LAYERS`: {missing:?}"
    );
    let listed: BTreeSet<&str> = LAYERS.iter().flat_map(|l| l.iter().copied()).collect();
    let gone: Vec<_> = listed.iter().filter(|f| !graph.contains_key(**f)).collect();
    assert!(
        gone.is_empty(),
        "`LAYERS` names files that are gone: {gone:?}"
    );
}

#[test]
fn no_file_of_the_harness_imports_one_of_its_layer_or_above() {
    let wrong: Vec<String> = harness_graph()
        .iter()
        .flat_map(|(file, uses)| {
            let at = layer_of(file);
            uses.iter()
                .filter(move |u| layer_of(u) >= at)
                .map(move |u| format!("`{file}` imports `{u}`, of its layer or above"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_reader_finds_every_kind_of_import() {
    let text = code(
        "use crate::wire::Message;\nuse crate::{Check, ctx::Ctx};\n// crate::runner\n$crate::insta::x\nlet _ = crate::panics::hook();",
    );
    let expected: BTreeSet<String> = ["wire", "Check", "ctx", "panics"].map(String::from).into();
    assert_eq!(names(&text), expected);
    let items = reexports("pub use check::Check;\npub use failure::{Failure, median};");
    assert_eq!(items["Check"], "check");
    assert_eq!(items["median"], "failure");
}
