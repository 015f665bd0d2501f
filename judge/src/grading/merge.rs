//! `judge grade --merge`: the results of a class graded in shards, joined
//! into one file of their format (JSON or JUnit), as if graded whole.
//!
//! The shards must have been graded alike: the same judge, verdicts decided
//! in the same place, the same sandbox layers; each submission in one shard
//! only; and shards `I/N` of one `N`, each once. A shard missing makes the
//! merged results incomplete (and says which). The merged JSON document is
//! the one [`super::json`] documents, its submissions in name order, with
//! `shard` null, `seed` the shards' common seed (null when they differ) and
//! one more field, `merged_from`: each file merged with its shard, seed and
//! whether it was complete.

use super::class::Results;
use anyhow::{Context, Result, bail};
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What a merge wrote, and what it noticed.
#[derive(Debug)]
pub(crate) struct Merged {
    /// The merged document.
    pub(crate) text: String,
    /// The JSON results, to derive the gradebook and the report from (none
    /// for JUnit).
    pub(crate) results: Option<Results>,
    /// Shards the files do not cover (`3/4`).
    pub(crate) missing: Vec<String>,
}

/// The format of a results file, from its first characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The judge's JSON.
    Json,
    /// JUnit XML.
    Junit,
}

/// Merges the files `paths`, which must all be of one format.
pub(crate) fn merge(paths: &[PathBuf]) -> Result<Merged> {
    let mut files = Vec::new();
    for path in paths {
        let text = fs_err::read_to_string(path)
            .with_context(|| format!("cannot read the results `{}`", path.display()))?;
        files.push((path.clone(), kind(&text, path)?, text));
    }
    let first = files.first().map(|f| f.1).context("no results to merge")?;
    if let Some((path, other, _)) = files.iter().find(|f| f.1 != first) {
        bail!(
            "`{}` is {other:?} results and `{}` {first:?}: merge the files of one format",
            path.display(),
            files[0].0.display()
        );
    }
    match first {
        Kind::Json => merge_json(&files),
        Kind::Junit => merge_junit(&files),
    }
}

/// The format of `text`, read from `path`.
fn kind(text: &str, path: &Path) -> Result<Kind> {
    let start = text.trim_start();
    if start.starts_with('<') {
        return Ok(Kind::Junit);
    }
    let value: Value = serde_json::from_str(text).with_context(|| {
        format!(
            "`{}` is neither the judge's JSON nor JUnit results",
            path.display()
        )
    })?;
    if value.get("tests").is_some() {
        bail!(
            "`{}` is a Gradescope results file: those are one per student already, nothing to merge; merge the JSON results of the shards (`--format json`)",
            path.display()
        );
    }
    Ok(Kind::Json)
}

/// One shard's document, read.
struct Shard<'a> {
    /// Its file.
    path: &'a Path,
    /// The document.
    value: Map<String, Value>,
    /// As much as the gradebook reads (to validate it).
    results: Results,
}

/// Merges JSON documents.
fn merge_json(files: &[(PathBuf, Kind, String)]) -> Result<Merged> {
    let mut shards = Vec::new();
    for (path, _, text) in files {
        let what = path.display().to_string();
        let results = Results::parse(text, &what)?;
        let Ok(Value::Object(value)) = serde_json::from_str::<Value>(text) else {
            bail!("`{what}` is not a JSON object");
        };
        shards.push(Shard {
            path,
            value,
            results,
        });
    }
    for field in ["judge", "decided", "sandbox"] {
        same(&shards, field)?;
    }
    let names = unique_names(&shards)?;
    let missing = missing_shards(&shards)?;
    let seeds: BTreeSet<String> = shards.iter().map(|s| s.value["seed"].to_string()).collect();
    let seed = match seeds.len() {
        1 => shards[0].value["seed"].clone(),
        _ => Value::Null,
    };
    let complete = missing.is_empty() && shards.iter().all(|s| s.results.complete);
    let mut submissions: Vec<Value> = shards
        .iter()
        .flat_map(|s| {
            s.value["submissions"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    submissions.sort_by_key(|s| s["name"].as_str().unwrap_or_default().to_string());
    debug_assert_eq!(submissions.len(), names);
    let merged_from: Vec<Value> = shards
        .iter()
        .map(|s| {
            json!({
                "file": s.path.display().to_string(),
                "shard": s.value["shard"],
                "seed": s.value["seed"],
                "complete": s.results.complete,
            })
        })
        .collect();
    let first = &shards[0].value;
    let document = json!({
        "format": 1,
        "judge": first["judge"],
        "complete": complete,
        "shard": Value::Null,
        "seed": seed,
        "decided": first["decided"],
        "sandbox": first["sandbox"],
        "merged_from": merged_from,
        "submissions": submissions,
    });
    let mut text = serde_json::to_string_pretty(&document).expect("results serialize");
    text.push('\n');
    let results = Results::parse(&text, "the merged results")?;
    Ok(Merged {
        text,
        results: Some(results),
        missing,
    })
}

/// Fails unless every shard has the same `field` as the first.
fn same(shards: &[Shard<'_>], field: &str) -> Result<()> {
    let first = &shards[0];
    for shard in &shards[1..] {
        if shard.value.get(field) != first.value.get(field) {
            bail!(
                "`{}` and `{}` were not graded alike (their `{field}` differs): merge shards graded by one judge, in one way",
                first.path.display(),
                shard.path.display()
            );
        }
    }
    Ok(())
}

/// How many submissions in all; fails when one is in two shards.
fn unique_names(shards: &[Shard<'_>]) -> Result<usize> {
    let mut seen: std::collections::BTreeMap<&str, &Path> = Default::default();
    for shard in shards {
        for submission in &shard.results.submissions {
            if let Some(before) = seen.insert(&submission.name, shard.path) {
                bail!(
                    "`{}` is graded in `{}` and in `{}`: merge each shard once",
                    submission.name,
                    before.display(),
                    shard.path.display()
                );
            }
        }
    }
    Ok(seen.len())
}

/// The shards (`I/N`) the files do not cover; fails when they mix counts,
/// or one is there twice.
fn missing_shards(shards: &[Shard<'_>]) -> Result<Vec<String>> {
    let mut count = None;
    let mut seen = BTreeSet::new();
    for shard in shards {
        let Some(name) = shard.value["shard"].as_str() else {
            continue;
        };
        let parsed = name
            .split_once('/')
            .and_then(|(i, n)| Some((i.parse::<u32>().ok()?, n.parse::<u32>().ok()?)));
        let Some((index, of)) = parsed else {
            bail!(
                "`{}` names its shard `{name}`, not `I/N`",
                shard.path.display()
            );
        };
        if *count.get_or_insert(of) != of {
            bail!(
                "`{}` is shard {name}, of another sharding than the files before it: merge the shards of one run",
                shard.path.display()
            );
        }
        if !seen.insert(index) {
            bail!("shard {name} is there twice (`{}`)", shard.path.display());
        }
    }
    Ok(match count {
        Some(of) => (1..=of)
            .filter(|i| !seen.contains(i))
            .map(|i| format!("{i}/{of}"))
            .collect(),
        None => Vec::new(),
    })
}

/// Merges JUnit reports: every test suite of every file, in name order.
fn merge_junit(files: &[(PathBuf, Kind, String)]) -> Result<Merged> {
    let mut merged = quick_junit::Report::new("judge grade");
    let mut suites = Vec::new();
    let mut seen = BTreeSet::new();
    let mut time = std::time::Duration::ZERO;
    for (path, _, text) in files {
        let report = quick_junit::Report::deserialize_from_str(text)
            .map_err(|e| anyhow::anyhow!("{e}"))
            .with_context(|| format!("`{}` is not a JUnit report", path.display()))?;
        time += report.time.unwrap_or_default();
        for suite in report.test_suites {
            if !seen.insert(suite.name.as_str().to_string()) {
                bail!(
                    "the test suite `{}` is in two files (`{}` among them): merge each shard once",
                    suite.name.as_str(),
                    path.display()
                );
            }
            suites.push(suite);
        }
    }
    suites.sort_by(|a, b| a.name.cmp(&b.name));
    merged.set_time(time);
    merged.add_test_suites(suites);
    Ok(Merged {
        text: merged.to_string().context("the merged JUnit report")?,
        results: None,
        missing: Vec::new(),
    })
}

#[cfg(test)]
mod tests;
