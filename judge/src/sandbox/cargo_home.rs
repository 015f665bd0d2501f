//! The `CARGO_HOME` a sandboxed build sees: one of the judge's making,
//! beside its other state, never the grader's own. It holds the real home's
//! package caches (`registry/` and `git/`, by symbolic links: the builds are
//! offline) and the parts of its configuration that say where packages come
//! from (`[source]`, `[net]`, `[http]`, and each registry's `index` and
//! `protocol`), and nothing else: not `credentials.toml`, not a token written
//! in `config.toml`, not the installed binaries' records. The sandbox lets a
//! build read this folder and the real home's `bin/`, `registry/` and `git/`
//! ([`super::allowances`]), so that `include_str!` of the grader's
//! credentials finds nothing to read.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The package caches a build needs, linked from the real home.
const CACHES: &[&str] = &["registry", "git"];

/// The configuration tables that say where packages come from, copied whole.
const WHERE_PACKAGES_COME_FROM: &[&str] = &["source", "net", "http"];

/// The fields of a `[registries.NAME]` table kept: where it is, never its
/// token or credential provider.
const REGISTRY_FIELDS: &[&str] = &["index", "protocol"];

/// The cargo home of the judge's making in `dir` for a sandboxed build
/// (see [`prepare`]), or `None` where the grader's is not known (no
/// `CARGO_HOME` and no `HOME`): cargo then finds its own.
pub(crate) fn for_builds(dir: &Path) -> Result<Option<PathBuf>> {
    super::allowances::cargo_home()
        .map(|real| prepare(dir, &real))
        .transpose()
}

/// Makes (or brings up to date) the judge's cargo home in `dir`, for the
/// grader's real home `real`; returns `dir`. Safe to run from several
/// judges at once: links that exist are left, the configuration is
/// replaced whole.
pub(crate) fn prepare(dir: &Path, real: &Path) -> Result<PathBuf> {
    fs_err::create_dir_all(dir)?;
    for cache in CACHES {
        let link = dir.join(cache);
        let target = real.join(cache);
        if link.symlink_metadata().is_ok() || !target.exists() {
            continue;
        }
        let target = fs_err::canonicalize(&target)?;
        match std::os::unix::fs::symlink(&target, &link) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
                return Err(e).with_context(|| format!("cannot link `{}`", link.display()));
            }
            _ => {}
        }
    }
    let config = kept_configuration(real)?;
    let temporary = dir.join(format!("config.toml.{}", std::process::id()));
    fs_err::write(&temporary, config)?;
    fs_err::rename(&temporary, dir.join("config.toml"))?;
    Ok(dir.to_path_buf())
}

/// The part of the real home's configuration (`config.toml`, or the older
/// `config`) that a build keeps, as TOML; empty when there is none.
fn kept_configuration(real: &Path) -> Result<String> {
    let file = ["config.toml", "config"]
        .iter()
        .map(|name| real.join(name))
        .find(|f| f.is_file());
    let Some(file) = file else {
        return Ok(String::new());
    };
    let text = fs_err::read_to_string(&file)?;
    let table: toml::Table = toml::from_str(&text)
        .with_context(|| format!("cannot read cargo's configuration `{}`", file.display()))?;
    Ok(toml::to_string(&kept(&table))?)
}

/// What `config` keeps: the tables that say where packages come from, and
/// where each named registry is.
fn kept(config: &toml::Table) -> toml::Table {
    let mut kept = toml::Table::new();
    for name in WHERE_PACKAGES_COME_FROM {
        if let Some(value) = config.get(*name) {
            kept.insert(name.to_string(), value.clone());
        }
    }
    if let Some(toml::Value::Table(registries)) = config.get("registries") {
        let located: toml::Table = registries
            .iter()
            .filter_map(|(name, registry)| {
                let fields: toml::Table = registry
                    .as_table()?
                    .iter()
                    .filter(|(field, _)| REGISTRY_FIELDS.contains(&field.as_str()))
                    .map(|(field, value)| (field.clone(), value.clone()))
                    .collect();
                Some((name.clone(), fields.into()))
            })
            .collect();
        kept.insert("registries".into(), located.into());
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    const GRADERS: &str = r#"
[source.crates-io]
replace-with = "mirror"

[source.mirror]
registry = "sparse+https://mirror.example/index/"

[registries.mirror]
index = "sparse+https://mirror.example/index/"
token = "secret-token-1"
credential-provider = "cargo:token"

[registry]
token = "secret-token-2"

[net]
offline = true

[alias]
b = "build"
"#;

    #[test]
    fn the_configuration_keeps_where_packages_come_from_and_no_token() {
        let real = tempfile::tempdir().unwrap();
        fs_err::write(real.path().join("config.toml"), GRADERS).unwrap();
        let text = kept_configuration(real.path()).unwrap();
        assert!(!text.contains("secret-token"), "{text}");
        assert!(!text.contains("credential-provider"), "{text}");
        assert!(!text.contains("alias"), "{text}");
        let table: toml::Table = toml::from_str(&text).unwrap();
        assert_eq!(
            table["source"]["crates-io"]["replace-with"].as_str(),
            Some("mirror")
        );
        assert_eq!(
            table["registries"]["mirror"]["index"].as_str(),
            Some("sparse+https://mirror.example/index/")
        );
        assert_eq!(table["net"]["offline"].as_bool(), Some(true));
    }

    #[test]
    fn the_home_links_the_caches_and_holds_no_credentials() {
        let real = tempfile::tempdir().unwrap();
        fs_err::create_dir_all(real.path().join("registry/cache")).unwrap();
        fs_err::write(
            real.path().join("credentials.toml"),
            "[registry]\ntoken = \"t\"\n",
        )
        .unwrap();
        fs_err::write(real.path().join("config.toml"), GRADERS).unwrap();
        let judges = tempfile::tempdir().unwrap();
        let dir = judges.path().join("cargo-home");
        for _ in 0..2 {
            prepare(&dir, real.path()).unwrap();
        }
        assert!(
            dir.join("registry/cache").is_dir(),
            "the registry is linked"
        );
        assert!(
            !dir.join("git").exists(),
            "a cache the real home lacks is not made up"
        );
        assert!(!dir.join("credentials.toml").exists());
        let config = fs_err::read_to_string(dir.join("config.toml")).unwrap();
        assert!(!config.contains("secret-token"), "{config}");
        let mut names: Vec<String> = fs_err::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["config.toml", "registry"]);
    }
}
