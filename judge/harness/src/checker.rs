//! The checker's agents: the learner's processes it starts, one at a time,
//! as the judge's setup says ([`AgentLaunch`]), each with a new link on its
//! stdin.
//!
//! An agent serves every check of the suite while it lives. At the end of
//! each check it drops what the check made; when it died in a check (a
//! crash, an exit, a broken protocol) or was left in the middle of a call,
//! the check's outcome says how it ended, and the next check starts a new
//! one.

use crate::bridge;
use crate::check::Check;
use crate::protocol::{Outcome, Setup};
use crate::runner::{self, Around, Place};
use crate::wire::{AgentLaunch, Message};
use gpu::remote::Link;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, ExitCode, ExitStatus, Stdio};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// The checker's `main`: reads the setup from the channel on stdin, runs
/// `suite` here, against a bridge that calls the learner's crate in an agent
/// it starts as the setup says ([`AgentLaunch`]), and reports on the
/// channel. Nothing of the learner's runs in this process.
pub fn checker_main(suite: &[Check]) -> ExitCode {
    runner::serve_suite(suite, Place::Agents(agents))
}

/// The agents the setup asks for, under its memory limit; `None` when it
/// names none.
fn agents(setup: &mut Setup, real_gpu: bool) -> Option<Box<dyn Around>> {
    let launch = setup.agent.take()?;
    gpu::remote::set_limits(gpu::remote::Limits {
        memory: setup.memory_limit.unwrap_or(u64::MAX),
        trace_entries: gpu::remote::TRACE_ENTRIES,
    });
    Some(Box::new(Agents::new(launch, real_gpu)))
}

/// An agent that runs.
struct Running {
    child: Child,
    link: Rc<Link>,
}

/// The checker's agents.
struct Agents {
    launch: AgentLaunch,
    /// How long each side of a link polls before it sleeps: the checker,
    /// the agent.
    spin: (Duration, Duration),
    current: Option<Running>,
    /// Why the last start failed, for the check that needed it.
    failed: Option<String>,
}

impl Agents {
    /// The agents of a checker. On a real GPU (`real_gpu`) each side of
    /// the link has a core of its own and polls the link while a check runs
    /// ([`SPIN`]), so that a call's round trip costs far less than the call;
    /// on the virtual GPU, whose clock is the checker's, the checker runs
    /// from now on on the CPU it runs on now, as will every agent it starts
    /// ([`share_a_cpu`]), and neither side polls.
    fn new(launch: AgentLaunch, real_gpu: bool) -> Self {
        if !real_gpu {
            share_a_cpu();
        }
        Self {
            spin: match real_gpu {
                true => SPIN,
                false => (Duration::ZERO, Duration::ZERO),
            },
            launch,
            current: None,
            failed: None,
        }
    }

    fn spawn(&self) -> std::io::Result<Running> {
        let (ours, theirs) = UnixStream::pair()?;
        let launch = &self.launch;
        let mut command = Command::new(&launch.program);
        command.args(&launch.args).current_dir(&launch.dir);
        if launch.clear_env {
            command.env_clear();
        }
        command.envs(launch.env.iter().map(|(k, v)| (k, v)));
        // Both of the agent's streams are the learner's output (this
        // process's standard output); this process's standard error is the
        // judge's log, which no learner reads.
        let output = std::io::stdout().as_fd().try_clone_to_owned()?;
        let child = command
            .stdin(Stdio::from(OwnedFd::from(theirs)))
            .stdout(Stdio::inherit())
            .stderr(Stdio::from(output))
            .spawn()?;
        let link = Rc::new(Link::offer(ours, self.spin)?);
        let setup = Message::Setup {
            lockdown: launch.lockdown.clone(),
        };
        link.send(&setup.frame())?;
        Ok(Running { child, link })
    }
}

impl Around for Agents {
    /// Makes sure an agent runs for the next check, and connects the bridge to it.
    fn start_check(&mut self) {
        if self.current.is_none() {
            match self.spawn() {
                Ok(running) => self.current = Some(running),
                Err(e) => self.failed = Some(format!("the learner's process did not start: {e}")),
            }
        }
        bridge::connect(self.current.as_ref().map(|r| Rc::clone(&r.link)));
    }

    /// Ends the agent's part of a check: it drops what the check made, or,
    /// when it is gone or mid-call, it is stopped and `outcome` says how it
    /// ended.
    fn end_check(&mut self, outcome: &mut Outcome) {
        gpu::remote::host::reset();
        let Some(running) = self.current.take() else {
            if let (Some(why), Outcome::Crashed { how }) = (self.failed.take(), &mut *outcome) {
                *how = why;
            }
            bridge::connect(None);
            return;
        };
        let gone = matches!(outcome, Outcome::Crashed { .. });
        if !gone && !bridge::in_call() && bridge::end_check(&running.link) {
            gpu::remote::host::reset();
            self.current = Some(running);
            bridge::connect(None);
            return;
        }
        bridge::connect(None);
        // How it ended is the cause, when it ended by itself; when the
        // checker had to stop it, what the checker saw is.
        if let (Some(status), Outcome::Crashed { how }) = (stop(running), outcome) {
            *how = ended(status);
        }
    }
}

impl Drop for Agents {
    fn drop(&mut self) {
        if let Some(running) = self.current.take() {
            stop(running);
        }
    }
}

/// How long the checker and its agent poll the link for the next frame
/// before they sleep, on a real GPU.
const SPIN: (Duration, Duration) = gpu::remote::SPIN_ON_A_GPU;

/// Keeps this process, and the agents it starts (which inherit it), on the
/// CPU it runs on now. A checker and its agent take turns, never both
/// running at once: on one CPU each hand-over is a switch of process, on
/// two it is a wake-up across CPUs, more than ten times slower in a
/// virtual machine (3.3 against 43.6 microseconds a round trip on the
/// two-core machine of the judge's CI, 2026-12-02). Where it cannot be
/// set, nothing changes but the speed.
fn share_a_cpu() {
    let mut one = rustix::thread::CpuSet::new();
    one.set(rustix::thread::sched_getcpu());
    let _ = rustix::thread::sched_setaffinity(None, &one);
}

/// Closes the agent's link and waits a moment for it to end (it exits when
/// its link closes), then kills it; how it ended, when it ended by itself.
fn stop(running: Running) -> Option<ExitStatus> {
    let Running { mut child, link } = running;
    drop(link);
    let deadline = Instant::now() + Duration::from_millis(500);
    while Instant::now() < deadline {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// How a learner's process ended, for a person.
fn ended(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(gpu::remote::LINK_LOST), _) => {
            "the learner's process lost its link to the judge".into()
        }
        (Some(code), _) => format!("the learner's process exited with code {code}"),
        (None, Some(signal)) => format!(
            "the learner's process was killed by signal {signal}{}",
            crate::signals::meaning(signal)
        ),
        (None, None) => "the learner's process ended abnormally".into(),
    }
}
