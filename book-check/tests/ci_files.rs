//! The grading workflow and the Slurm script that the instructor guide
//! includes are real files; these tests check them as far as a machine
//! without GitHub or Slurm can: the workflow is YAML with the structure
//! GitHub Actions needs, the script is valid bash whose `#SBATCH` lines come
//! before its first command. Each check is also shown to fail on a broken
//! copy, so that it cannot pass by checking nothing.

use std::path::{Path, PathBuf};
use std::process::Command;
use yaml_rust2::{Yaml, YamlLoader};

fn repository_file(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

/// What is wrong with a GitHub Actions workflow, as far as its structure goes.
fn workflow_problems(text: &str) -> Vec<String> {
    let docs = match YamlLoader::load_from_str(text) {
        Ok(docs) => docs,
        Err(e) => return vec![format!("not YAML: {e}")],
    };
    let Some(doc) = docs.first() else {
        return vec!["empty".into()];
    };
    let mut problems = Vec::new();
    if doc["name"].as_str().is_none() {
        problems.push("no `name`".to_string());
    }
    if doc["on"].is_badvalue() {
        problems.push("no `on` (triggers)".to_string());
    }
    let Some(jobs) = doc["jobs"].as_hash() else {
        problems.push("no `jobs`".to_string());
        return problems;
    };
    for (name, job) in jobs {
        let name = name.as_str().unwrap_or("?");
        if job["runs-on"].is_badvalue() {
            problems.push(format!("job `{name}` has no `runs-on`"));
        }
        let steps = job["steps"].as_vec().cloned().unwrap_or_default();
        if steps.is_empty() {
            problems.push(format!("job `{name}` has no steps"));
        }
        for (i, step) in steps.iter().enumerate() {
            let has_run = step["run"].as_str().is_some();
            let has_uses = step["uses"].as_str().is_some();
            if has_run == has_uses {
                problems.push(format!(
                    "job `{name}` step {}: needs exactly one of `run` and `uses`",
                    i + 1
                ));
            }
        }
    }
    problems
}

/// The `run` scripts of a job, joined.
fn job_script(doc: &Yaml, job: &str) -> String {
    doc["jobs"][job]["steps"]
        .as_vec()
        .into_iter()
        .flatten()
        .filter_map(|s| s["run"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_grading_workflow_is_a_valid_workflow() {
    let path = repository_file("docs/ci/grade.yml");
    let text = std::fs::read_to_string(&path).expect("docs/ci/grade.yml");
    let problems = workflow_problems(&text);
    assert!(problems.is_empty(), "`docs/ci/grade.yml`: {problems:#?}");
    let doc = &YamlLoader::load_from_str(&text).unwrap()[0];
    assert_eq!(
        doc["jobs"]["virtual"]["runs-on"].as_str(),
        Some("ubuntu-24.04")
    );
    let labels: Vec<_> = doc["jobs"]["gpu"]["runs-on"]
        .as_vec()
        .expect("labels")
        .iter()
        .filter_map(Yaml::as_str)
        .collect();
    assert!(
        labels.contains(&"self-hosted") && labels.contains(&"gpu"),
        "{labels:?}"
    );
    let virtual_script = job_script(doc, "virtual");
    assert!(
        virtual_script.contains("-p judge -- grade")
            && virtual_script.contains("--backend virtual"),
        "{virtual_script}"
    );
    assert!(job_script(doc, "gpu").contains("--backend cuda"));
}

#[test]
fn the_workflow_check_fails_on_broken_workflows() {
    assert!(
        workflow_problems("name: x\non: push\njobs:\n  a:\n    runs-on: x\n   steps: []\n")[0]
            .starts_with("not YAML")
    );
    let no_runs_on = "name: x\non: push\njobs:\n  a:\n    steps:\n      - run: echo\n";
    assert_eq!(workflow_problems(no_runs_on), ["job `a` has no `runs-on`"]);
    let both = "name: x\non: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: echo\n        uses: a/b@v1\n";
    assert_eq!(
        workflow_problems(both),
        ["job `a` step 1: needs exactly one of `run` and `uses`"]
    );
}

/// What `bash -n` and the `#SBATCH` rule say about a script.
fn sbatch_problems(path: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let output = Command::new("bash")
        .arg("-n")
        .arg(path)
        .output()
        .expect("bash runs");
    if !output.status.success() {
        problems.push(format!(
            "bash -n: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let text = std::fs::read_to_string(path).expect("the script");
    let first_command = text
        .lines()
        .position(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .unwrap_or(usize::MAX);
    let sbatch_lines: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with("#SBATCH"))
        .map(|(i, _)| i)
        .collect();
    if sbatch_lines.is_empty() {
        problems.push("no `#SBATCH` lines".into());
    }
    if sbatch_lines.iter().any(|&i| i > first_command) {
        problems.push("an `#SBATCH` line after the first command (Slurm ignores it)".into());
    }
    problems
}

#[test]
fn the_slurm_script_is_valid_bash_with_its_options_first() {
    let path = repository_file("docs/slurm/grade.sbatch");
    let problems = sbatch_problems(&path);
    assert!(
        problems.is_empty(),
        "`docs/slurm/grade.sbatch`: {problems:#?}"
    );
    let text = std::fs::read_to_string(&path).unwrap();
    for needed in [
        "build --out \"$prebuilt\"",
        "--prebuilt \"$prebuilt\"",
        "--shard \"$shard\"",
    ] {
        assert!(text.contains(needed), "the script runs `{needed}`");
    }
}

#[test]
fn the_slurm_check_fails_on_broken_scripts() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let broken = dir.join("broken.sbatch");
    std::fs::write(
        &broken,
        "#!/bin/bash\n#SBATCH --time=1\nif true; then\n  echo\n",
    )
    .unwrap();
    assert!(sbatch_problems(&broken)[0].starts_with("bash -n:"));
    let late = dir.join("late.sbatch");
    std::fs::write(&late, "#!/bin/bash\nset -e\n#SBATCH --time=1\necho\n").unwrap();
    assert_eq!(
        sbatch_problems(&late),
        ["an `#SBATCH` line after the first command (Slurm ignores it)"]
    );
}
