//! Running a suite: read the setup, run each check, append events.

use crate::protocol::{CheckInfo, Event, Outcome, Setup};
use crate::{Check, Ctx, Failure};
use gpu::{Backend, CallSite};
use std::cell::RefCell;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::time::Instant;

thread_local! {
    /// Where the last panic happened (the panic hook stores it).
    static PANIC_AT: RefCell<Option<CallSite>> = const { RefCell::new(None) };
}

/// The harness's `main`: reads the setup from stdin, runs `suite`, reports.
pub fn main(suite: &[Check]) -> ExitCode {
    let mut line = String::new();
    let setup: Setup = match std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map(|_| serde_json::from_str(&line))
    {
        Ok(Ok(setup)) => setup,
        _ => {
            eprintln!(
                "error: this is a judge harness; run it through `judge run`, which sends its setup on stdin"
            );
            return ExitCode::from(2);
        }
    };
    match run(suite, &setup) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!(
                "error: cannot write the results file `{}`: {e}",
                setup.results.display()
            );
            ExitCode::from(3)
        }
    }
}

fn run(suite: &[Check], setup: &Setup) -> std::io::Result<()> {
    let mut out = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&setup.results)?;
    let backend = setup.backend;
    let ctx = context(setup);
    let nonce = setup.nonce.clone();
    let checks = suite.iter().map(info).collect();
    let backend_name = resolved_backend(backend);
    emit(
        &mut out,
        &nonce,
        &Event::Suite {
            tag: String::new(),
            checks,
            backend: backend_name,
        },
    )?;
    install_panic_hook();
    for check in suite.iter().filter(|c| wanted(setup, c.name)) {
        emit(
            &mut out,
            &nonce,
            &Event::Start {
                tag: String::new(),
                check: check.name.into(),
            },
        )?;
        let started = Instant::now();
        let (outcome, artifacts) = run_check(check, &ctx);
        let seconds = started.elapsed().as_secs_f64();
        for artifact in artifacts {
            emit(
                &mut out,
                &nonce,
                &Event::Artifact {
                    tag: String::new(),
                    check: check.name.into(),
                    artifact,
                },
            )?;
        }
        emit(
            &mut out,
            &nonce,
            &Event::End {
                tag: String::new(),
                check: check.name.into(),
                outcome,
                seconds,
            },
        )?;
    }
    emit(&mut out, &nonce, &Event::Done { tag: String::new() })
}

/// The context the setup asks for: its backend, artifacts folder,
/// snapshot folder and seed.
fn context(setup: &Setup) -> Ctx {
    Ctx::new(setup.backend)
        .with_artifacts(setup.artifacts.clone())
        .with_snapshots(setup.snapshots.clone())
        .with_seed(setup.seed)
}

/// The backend the checks' devices will use, as `gpu::Backend::resolve`
/// decides it for the judge's choice (the rule every check's `ctx.device()`
/// follows), or the choice itself when it cannot be used.
fn resolved_backend(backend: Backend) -> String {
    match backend.resolve() {
        Ok(resolved) => resolved.kind().to_string(),
        Err(_) => format!("{backend:?} (unavailable)").to_lowercase(),
    }
}

fn wanted(setup: &Setup, name: &str) -> bool {
    setup
        .only
        .as_ref()
        .is_none_or(|only| only.iter().any(|n| n == name))
}

fn info(check: &Check) -> CheckInfo {
    CheckInfo {
        name: check.name.into(),
        title: check.title.into(),
        section: check.section.into(),
        points: check.points,
    }
}

/// Runs one check as the harness does: a failure is its outcome, a panic
/// too (with its location, once [`main`] has installed its panic hook);
/// returns the outcome and the artifacts the check saved. A suite's own
/// tests call it to run a check outside a harness.
pub fn run_check(check: &Check, ctx: &Ctx) -> (Outcome, Vec<crate::Artifact>) {
    PANIC_AT.with(|p| p.borrow_mut().take());
    ctx.begin(check.name);
    let outcome = outcome(panic::catch_unwind(AssertUnwindSafe(|| (check.run)(ctx))));
    (outcome, ctx.take_artifacts())
}

fn outcome(result: std::thread::Result<Result<(), Failure>>) -> Outcome {
    match result {
        Ok(Ok(())) => Outcome::Passed,
        Ok(Err(Failure {
            expected,
            actual,
            site,
            detail,
        })) => Outcome::Failed {
            expected,
            actual,
            site,
            detail,
        },
        Err(payload) => Outcome::Panicked {
            message: panic_message(payload.as_ref()),
            location: PANIC_AT.with(|p| p.borrow_mut().take()),
        },
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-text payload".into()
    }
}

/// Remembers where a panic happened, for the outcome, which carries the
/// message and the location; the default report (and its backtrace) would
/// only repeat them in the learner's output.
fn install_panic_hook() {
    panic::set_hook(Box::new(move |info| {
        if let Some(loc) = info.location() {
            let site = CallSite {
                file: leak(loc.file()),
                line: loc.line(),
                column: loc.column(),
            };
            PANIC_AT.with(|p| *p.borrow_mut() = Some(site));
        }
    }));
}

fn leak(file: &str) -> &'static str {
    Box::leak(file.to_string().into_boxed_str())
}

fn emit(out: &mut File, key: &str, event: &Event) -> std::io::Result<()> {
    let mut line = serde_json::to_string(&event.clone().sign(key)).expect("events serialize");
    line.push('\n');
    out.write_all(line.as_bytes())?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checks_see_the_seed_of_the_setup() {
        let mut setup = Setup {
            nonce: "n".into(),
            results: "/r".into(),
            backend: Backend::Virtual,
            only: None,
            artifacts: None,
            snapshots: None,
            seed: None,
        };
        assert_eq!(context(&setup).seed(), crate::COURSE_SEED);
        setup.seed = Some(0xdead);
        assert_eq!(context(&setup).seed(), 0xdead);
    }
}
