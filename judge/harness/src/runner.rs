//! Running a suite: read the setup, run each check, send events.

use crate::channel::Channel;
use crate::protocol::{CheckInfo, Event, Outcome, Setup};
use crate::{Check, Ctx, Failure};
use gpu::{Backend, CallSite};
use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::time::Instant;
use zeroize::Zeroize;

thread_local! {
    /// Where the last panic happened (the panic hook stores it).
    static PANIC_AT: RefCell<Option<CallSite>> = const { RefCell::new(None) };
}

/// The harness's `main`: reads the setup from the channel on stdin, runs
/// `suite`, reports on the channel.
pub fn main(suite: &[Check]) -> ExitCode {
    let (mut channel, setup) = match Channel::open() {
        Ok(opened) => opened,
        Err(_) => {
            eprintln!(
                "error: this is a judge harness; run it through `judge run`, which sends its setup on stdin"
            );
            return ExitCode::from(2);
        }
    };
    match run(suite, &mut channel, setup) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot send results to the judge: {e}");
            ExitCode::from(3)
        }
    }
}

fn run(suite: &[Check], out: &mut Channel, mut setup: Setup) -> std::io::Result<()> {
    let backend: Backend = setup.backend.parse().unwrap_or(Backend::Auto);
    let ctx = Ctx::new(backend, setup.artifacts.clone()).with_seed(setup.seed);
    let checks = suite.iter().map(info).collect();
    // A real GPU's device stays open for the whole run, so that the CUDA
    // driver has done its setup before the lockdown below.
    let (backend_name, _device) = resolved_backend(backend);
    let suite_event = Event::Suite {
        tag: String::new(),
        checks,
        backend: backend_name,
    };
    out.send(&suite_event, Some(&setup.nonce))?;
    // The nonce has signed all it will: wipe it before any learner code runs.
    setup.nonce.zeroize();
    if let Some(lockdown) = &setup.lockdown {
        lockdown.apply().map_err(std::io::Error::other)?;
    }
    install_panic_hook();
    for check in suite.iter().filter(|c| wanted(&setup, c.name)) {
        let start = Event::Start {
            tag: String::new(),
            check: check.name.into(),
        };
        out.send(&start, None)?;
        let started = Instant::now();
        let outcome = run_one(check, &ctx);
        let seconds = started.elapsed().as_secs_f64();
        let end = Event::End {
            tag: String::new(),
            check: check.name.into(),
            outcome,
            seconds,
        };
        out.send(&end, None)?;
    }
    out.send(&Event::Done { tag: String::new() }, None)
}

/// The backend the checks' devices will use: the one a device opened with
/// the judge's choice reports (the same rule as every check's `ctx.device()`),
/// or the choice itself when no device opens; and the device, when it is a
/// real GPU's.
fn resolved_backend(backend: Backend) -> (String, Option<gpu::Device>) {
    let options = gpu::DeviceOptions {
        backend,
        quiet: true,
        ..Default::default()
    };
    match gpu::Device::with_options(options) {
        Ok(device) => {
            let cuda = device.backend() == gpu::BackendKind::Cuda;
            (device.backend().to_string(), cuda.then_some(device))
        }
        Err(_) => (format!("{backend:?} (unavailable)").to_lowercase(), None),
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

fn run_one(check: &Check, ctx: &Ctx) -> Outcome {
    PANIC_AT.with(|p| p.borrow_mut().take());
    match panic::catch_unwind(AssertUnwindSafe(|| (check.run)(ctx))) {
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
