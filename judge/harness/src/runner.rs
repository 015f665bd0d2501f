//! Running a suite: read the setup, run each check, send events.

use crate::channel::Channel;
use crate::check::Check;
use crate::ctx::Ctx;
use crate::failure::Failure;
use crate::panics::{self, AgentGone, CallRefused, JudgeFault, LearnerPanic};
use crate::protocol::{Artifact, CheckInfo, Event, Outcome, Setup};
use gpu::Backend;
use std::panic::{self as std_panic, AssertUnwindSafe};
use std::process::ExitCode;
use std::time::Instant;
use zeroize::Zeroize;

/// The harness's `main`: reads the setup from the channel on stdin, runs
/// `suite` in this process with the learner's crate linked in, reports on
/// the channel.
pub fn main(suite: &[Check]) -> ExitCode {
    serve_suite(suite, Place::InProcess)
}

/// What runs around each check of a checker's suite: its agents
/// ([`crate::checker`]), which the runner does not know.
pub(crate) trait Around {
    /// Makes ready for the next check.
    fn start_check(&mut self);
    /// Ends the check, whose outcome it may tell more precisely.
    fn end_check(&mut self, outcome: &mut Outcome);
}

/// Where the learner's code runs.
pub(crate) enum Place {
    /// Here: the harness links the learner's crate, and locks itself down.
    InProcess,
    /// In agents, which this checker starts from the setup (whether the
    /// device is a real GPU's is the second argument) and calls through a
    /// bridge; `None` when the setup names no agent.
    Agents(fn(&mut Setup, bool) -> Option<Box<dyn Around>>),
}

/// Reads the setup from the channel on stdin, runs `suite` with the
/// learner's code where `place` says, reports on the channel.
pub(crate) fn serve_suite(suite: &[Check], place: Place) -> ExitCode {
    let (mut channel, setup) = match Channel::open() {
        Ok(opened) => opened,
        Err(_) => {
            eprintln!(
                "error: this is a judge harness; run it through `judge run`, which sends its setup on stdin"
            );
            return ExitCode::from(2);
        }
    };
    match run(suite, &mut channel, setup, place) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot send results to the judge: {e}");
            ExitCode::from(3)
        }
    }
}

fn run(suite: &[Check], out: &mut Channel, mut setup: Setup, place: Place) -> std::io::Result<()> {
    let backend = setup.backend;
    let ctx = context(&setup);
    let checks = suite.iter().map(info).collect();
    // A real GPU's device stays open for the whole run, so that the CUDA
    // driver has done its setup before the lockdown below.
    let (backend_name, device) = resolved_backend(backend);
    let mut around = match &place {
        Place::Agents(start) => Some(start(&mut setup, device.is_some()).ok_or_else(|| {
            std::io::Error::other("a checker needs an agent to call, and the setup names none")
        })?),
        Place::InProcess => None,
    };
    let suite_event = Event::Suite {
        tag: String::new(),
        checks,
        backend: backend_name,
    };
    out.send(&suite_event, Some(&setup.nonce))?;
    // The nonce has signed all it will: wipe it before any learner code runs.
    setup.nonce.zeroize();
    // The checker runs no learner code: the agents it starts lock
    // themselves down instead.
    if let (Place::InProcess, Some(lockdown)) = (&place, &setup.lockdown) {
        lockdown.apply().map_err(std::io::Error::other)?;
    }
    panics::install_hook();
    for check in suite.iter().filter(|c| wanted(&setup, c.name)) {
        let start = Event::Start {
            tag: String::new(),
            check: check.name.into(),
        };
        out.send(&start, None)?;
        let started = Instant::now();
        let (outcome, artifacts) = match &mut around {
            None => run_check(check, &ctx),
            Some(around) => {
                around.start_check();
                let (mut outcome, artifacts) = run_check(check, &ctx);
                around.end_check(&mut outcome);
                (outcome, artifacts)
            }
        };
        let seconds = started.elapsed().as_secs_f64();
        for artifact in artifacts {
            let event = Event::Artifact {
                tag: String::new(),
                check: check.name.into(),
                artifact,
            };
            out.send(&event, None)?;
        }
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

/// The context the setup asks for: its backend, artifacts folder,
/// snapshot folder and seed.
fn context(setup: &Setup) -> Ctx {
    Ctx::new(setup.backend)
        .with_artifacts(setup.artifacts.clone())
        .with_snapshots(setup.snapshots.clone())
        .with_seed(setup.seed)
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
        requires: check.requires.iter().map(|r| r.to_string()).collect(),
    }
}

/// Runs one check as the harness does: a failure is its outcome, a panic
/// too (with its location, once [`main`] has installed its panic hook);
/// returns the outcome and the artifacts the check saved. A suite's own
/// tests call it to run a check outside a harness.
pub fn run_check(check: &Check, ctx: &Ctx) -> (Outcome, Vec<Artifact>) {
    panics::last_site();
    ctx.begin(check.name);
    let outcome = outcome(std_panic::catch_unwind(AssertUnwindSafe(|| {
        (check.run)(ctx)
    })));
    (outcome, ctx.take_artifacts())
}

fn outcome(result: std::thread::Result<Result<(), Failure>>) -> Outcome {
    match result {
        Ok(Ok(())) => Outcome::Passed,
        Err(payload) if payload.is::<LearnerPanic>() => {
            let panic = payload.downcast::<LearnerPanic>().expect("checked");
            Outcome::Panicked {
                message: panic.message,
                location: panic.location,
            }
        }
        Err(payload) if payload.is::<AgentGone>() => {
            let gone = payload.downcast::<AgentGone>().expect("checked");
            Outcome::Crashed { how: gone.why }
        }
        Err(payload) if payload.is::<CallRefused>() => {
            let CallRefused(refusal) = *payload.downcast::<CallRefused>().expect("checked");
            refused(refusal)
        }
        Err(payload) if payload.is::<JudgeFault>() => {
            let fault = payload.downcast::<JudgeFault>().expect("checked");
            Outcome::JudgeFailed {
                message: fault.message,
                log: panics::judge_backtrace(),
            }
        }
        Err(payload) if payload.is::<Failure>() => {
            let failure = *payload.downcast::<Failure>().expect("checked");
            outcome(Ok(Err(failure)))
        }
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
            message: panics::panic_message(payload.as_ref()),
            location: panics::last_site(),
        },
    }
}

/// A refused call's outcome: the learner's error at the learner's line.
fn refused(refusal: gpu::remote::Refusal) -> Outcome {
    Outcome::Failed {
        expected: "every device call with arguments the real call accepts, within the submission's limits".into(),
        actual: refusal.message,
        site: Some(refusal.site),
        detail: Some(
            "the judge checks every value your code passes to the device before it makes the call, and refused this one; the check ended there".into(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu::CallSite;
    use std::panic;

    #[test]
    fn the_checks_see_the_seed_of_the_setup() {
        let mut setup = Setup {
            nonce: "n".into(),
            backend: Backend::Virtual,
            only: None,
            artifacts: None,
            snapshots: None,
            seed: None,
            lockdown: None,
            agent: None,
            memory_limit: None,
        };
        assert_eq!(context(&setup).seed(), crate::ctx::COURSE_SEED);
        setup.seed = Some(0xdead);
        assert_eq!(context(&setup).seed(), 0xdead);
    }

    #[test]
    fn a_refused_call_is_the_learners_failure_at_the_learners_line() {
        let site = CallSite {
            file: "src/lib.rs",
            line: 20,
            column: 5,
        };
        let refusal = gpu::remote::Refusal {
            message: "`host_work` at src/lib.rs:20:5: a duration of 584.9 years is longer than any call may take".into(),
            site,
        };
        let raised = panic::catch_unwind(|| -> Result<(), Failure> {
            panic::panic_any(CallRefused(refusal.clone()))
        });
        let Outcome::Failed {
            actual,
            site: at,
            detail,
            ..
        } = outcome(raised)
        else {
            panic!("a refusal is a failure");
        };
        assert_eq!((actual, at), (refusal.message, Some(site)));
        assert!(detail.unwrap().contains("refused"));
    }

    #[test]
    fn a_fault_of_the_judges_code_is_the_judges_failure_not_the_learners() {
        let raised = panic::catch_unwind(|| -> Result<(), Failure> {
            panic::panic_any(JudgeFault {
                message: "virtual gpu: no allocation holds 0x10".into(),
            })
        });
        assert!(
            matches!(
                outcome(raised),
                Outcome::JudgeFailed { ref message, .. } if message.contains("no allocation holds")
            ),
            "a judge's fault is never the learner's panic or crash"
        );
    }

    #[test]
    fn a_raised_failure_is_the_checks_outcome() {
        let raised = panic::catch_unwind(|| -> Result<(), Failure> {
            Failure::new("a segment freed once", "freed twice")
                .detail("why")
                .raise()
        });
        assert_eq!(
            outcome(raised),
            Outcome::Failed {
                expected: "a segment freed once".into(),
                actual: "freed twice".into(),
                site: None,
                detail: Some("why".into()),
            }
        );
    }
}
