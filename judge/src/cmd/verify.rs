//! `judge verify`: the author gate, which CI runs ([`crate::gate`] says what
//! it checks). One line per item; exit 1 if anything is wrong.

use crate::cli::VerifyArgs;
use crate::course::Course;
use crate::exit;
use crate::gate::{self, Finding};
use crate::judging::Options;
use crate::manifest::Exercise;
use crate::sandbox::Sandbox;
use crate::starter;
use crate::ticker::Shown;
use anstyle::{AnsiColor, Style};
use anyhow::Result;
use std::io::Write;
use std::path::Path;

/// Runs the gate and prints one line per item; exit 1 if anything is wrong.
pub(crate) fn verify(root: Option<&Path>, args: &VerifyArgs) -> Result<u8> {
    let course = Course::open(root)?;
    if args.record_starters {
        let count = starter::shipped::record(&course)?;
        println!(
            "recorded the starters of {count} exercises in `{}`: commit it with them",
            starter::shipped::FILE
        );
        return Ok(exit::OK);
    }
    if let Some(dir) = &args.write_class {
        let students = crate::rehearsal::write(&course, dir)?;
        println!(
            "wrote a class of {students} students in `{}` (who got what: `CLASS.md` there); grade it with `judge grade --class {}`",
            dir.display(),
            dir.display()
        );
        return Ok(exit::OK);
    }
    let mut chosen = Vec::new();
    for id in &args.ids {
        chosen.push(course.manifest.get(id)?.id);
    }
    let mut out = anstream::stdout();
    let mut problems = 0;
    let layout = gate::check_layout(&course);
    for finding in &layout {
        problems += report(&mut out, finding)?;
    }
    let options = Options {
        backend: args.options.backend.into(),
        prebuilt: args.options.prebuilt.clone(),
        progress: Shown::on_stderr(),
        artifacts: None,
        seal_snapshots: false,
        sandbox: Sandbox::new(args.options.sandbox.config()),
        seed: None,
        checkers: None,
        in_process: args.options.in_process,
        deadline: None,
    };
    let wanted = |e: &&Exercise| chosen.is_empty() || chosen.contains(&e.id);
    if layout.iter().all(|f| f.ok) {
        for exercise in course.manifest.exercises.iter().filter(wanted) {
            for finding in gate::check_exercise(&course, exercise, &options)? {
                problems += report(&mut out, &finding)?;
            }
        }
    }
    if problems == 0 {
        writeln!(out, "\nthe course is in order")?;
        Ok(exit::OK)
    } else {
        writeln!(out, "\n{problems} problem(s) found")?;
        Ok(exit::FAILED)
    }
}

/// Prints one finding; 1 when it is a problem.
fn report(out: &mut dyn Write, finding: &Finding) -> Result<usize> {
    let (mark, style) = if finding.ok {
        ("✓", AnsiColor::Green.on_default())
    } else {
        ("✗", AnsiColor::Red.on_default())
    };
    writeln!(out, "{style}{mark}{style:#} {}", finding.what)?;
    let dim = Style::new().dimmed();
    for line in finding.why.iter().flat_map(|why| why.lines()) {
        writeln!(out, "    {dim}{line}{dim:#}")?;
    }
    Ok(usize::from(!finding.ok))
}
