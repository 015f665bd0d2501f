//! `judge watch`, driven from a pipe (`--manual`: each key followed by
//! Enter), as a learner's keys would drive it.

use crate::reset::commit;
use crate::support::Course;
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

/// How long one step of the session may take.
const STEP: Duration = Duration::from_secs(300);

/// Reads the judge's lines until one contains `wanted`; every line read.
fn until(lines: &mpsc::Receiver<String>, wanted: &str, seen: &mut Vec<String>) {
    loop {
        let line = lines
            .recv_timeout(STEP)
            .unwrap_or_else(|_| panic!("no `{wanted}` in:\n{}", seen.join("\n")));
        let found = line.contains(wanted);
        seen.push(line);
        if found {
            return;
        }
    }
}

#[test]
fn the_reset_key_leaves_the_backup_and_how_to_undo_under_the_next_report() {
    let course = Course::fixture_with(&[902]);
    commit(&course, &["."]);
    let lib = course.root.join("exercises/902-wrong-answer/src/lib.rs");
    std::fs::write(&lib, "// my attempt\n").unwrap();
    let above = course.root.parent().unwrap();
    let mut child = course
        .command(&["watch", "--manual", "902"])
        .env("GIT_CEILING_DIRECTORIES", above)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the judge runs");
    let (send, lines) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = send.send(line);
        }
    });
    let mut keys = child.stdin.take().unwrap();
    let mut seen = Vec::new();
    until(&lines, "press `r`", &mut seen);
    writeln!(keys, "x").unwrap();
    until(&lines, "[y/N]", &mut seen);
    writeln!(keys, "y").unwrap();
    until(&lines, "back to its starter code", &mut seen);
    let reset_at = seen.len();
    until(&lines, "press `r`", &mut seen);
    writeln!(keys, "q").unwrap();
    let _ = child.wait();

    let after: &[String] = &seen[reset_at..];
    let report = after
        .iter()
        .position(|l| l.contains("checks passed"))
        .unwrap_or_else(|| panic!("the run after the reset:\n{}", seen.join("\n")));
    assert!(
        after[report..]
            .iter()
            .any(|l| l.starts_with("to undo the reset: `cp -a ")
                && l.ends_with("` puts your files back")),
        "the undo line is under the report of the run after the reset:\n{}",
        seen.join("\n")
    );
    assert_ne!(std::fs::read_to_string(&lib).unwrap(), "// my attempt\n");
}
