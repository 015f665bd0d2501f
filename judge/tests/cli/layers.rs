//! The judge's modules stack in layers (`src/main.rs` draws them): the verbs
//! in `src/cmd/` sit over data modules that never import a verb, no verb
//! imports another, and the imports among the data modules have no cycle.
//!
//! The graph is read from the sources: every `crate::NAME` a file of a
//! top-level module mentions is an edge from that module to `NAME`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The modules of the verb layer, which the data layer must never import.
const VERB_LAYER: [&str; 2] = ["cmd", "cli"];

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// The module a file of `src/` belongs to: its first path component, less
/// `.rs` (`cmd/grade.rs` → `cmd/grade`, `grading/json.rs` → `grading`).
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts = relative.iter().map(|p| p.to_string_lossy().into_owned());
    let first = parts.next().unwrap();
    match (first.as_str(), parts.next()) {
        ("cmd", Some(verb)) => format!("cmd/{verb}"),
        _ => first,
    }
}

/// The modules `text` names as `crate::NAME` (and `crate::cmd::VERB`).
fn imports(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in text.match_indices("crate::") {
        let rest = &text[at + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if name == "cmd" {
            let verb: String = rest["cmd::".len().min(rest.len())..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            found.insert(format!("cmd/{verb}"));
        } else if !name.is_empty() {
            found.insert(name);
        }
    }
    found
}

/// Module → the modules it imports, for the judge's `src/` (main.rs left out:
/// it is the top, and imports every verb).
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in sources(src) {
        let module = module_of(src, &file);
        if module == "main" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let mut uses = imports(&text);
        uses.remove(&module);
        uses.remove("exit"); // `main`'s exit codes, a constant table
        graph.entry(module).or_default().extend(uses);
    }
    graph
}

/// A cycle in `graph`, if there is one, as the path of modules around it.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_string());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

fn is_verb_layer(module: &str) -> bool {
    VERB_LAYER
        .iter()
        .any(|v| module == *v || module.starts_with("cmd/"))
}

fn judge_graph() -> BTreeMap<String, BTreeSet<String>> {
    graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

#[test]
fn no_data_module_imports_a_verb_or_the_command_line() {
    let wrong: Vec<String> = judge_graph()
        .iter()
        .filter(|(module, _)| !is_verb_layer(module))
        .flat_map(|(module, uses)| {
            uses.iter()
                .filter(|u| is_verb_layer(u))
                .map(move |u| format!("`{module}` imports `{u}`"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn no_verb_imports_another() {
    let wrong: Vec<String> = judge_graph()
        .iter()
        .filter(|(module, _)| module.starts_with("cmd/"))
        .flat_map(|(module, uses)| {
            uses.iter()
                .filter(|u| u.starts_with("cmd/"))
                .map(move |u| format!("`{module}` imports `{u}`"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_modules_import_each_other_without_a_cycle() {
    let graph = judge_graph();
    assert!(graph.contains_key("judging") && graph.contains_key("cmd/run"));
    if let Some(found) = cycle(&graph) {
        panic!("an import cycle: {}", found.join(" → "));
    }
}

#[test]
fn the_graph_reader_finds_imports_and_cycles() {
    let uses = imports("use crate::course::Course;\nuse crate::cmd::run;\ncrate::x::y()");
    let expected: BTreeSet<String> = ["course", "cmd/run", "x"].map(String::from).into();
    assert_eq!(uses, expected);
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(
        cycle(&graph),
        Some(["a", "b", "c", "a"].map(String::from).to_vec())
    );
}

/// The sandbox's value is decided in one place (`sandbox.rs`, `decide`):
/// every call that makes a part of it (what each kind of sandbox may use,
/// found once per judge; its control groups; its policy, environment and
/// lockdown rules, which `Grant::decide` makes together) stands there
/// once, outside tests, and nowhere else asks for a part again. The
/// lockdown rules a harness gets (the launcher's, less `/proc`) are made in
/// `Grant::decide` alone.
#[test]
fn a_sandbox_is_decided_in_one_place() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let parts = [
        ("ByKind::find(", "sandbox.rs"),
        (".scope(&", "sandbox.rs"),
        (".decide(", "sandbox.rs"),
        ("without_write(", "sandbox/policy.rs"),
    ];
    for (part, place) in parts {
        let places: Vec<String> = sources(&src)
            .into_iter()
            .flat_map(|file| {
                let text = std::fs::read_to_string(&file).unwrap();
                let code = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
                let name = file.strip_prefix(&src).unwrap().display().to_string();
                code.lines()
                    .filter(|l| !l.trim_start().starts_with("//") && l.contains(part))
                    .map(|_| name.clone())
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(places, [place], "`{part}` is called in {places:?}");
    }
}
