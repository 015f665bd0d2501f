//! The runtime of the judge's harness binaries.
//!
//! The judge generates a tiny crate per run whose `main` calls one of this
//! crate's three mains:
//!
//! * [`checker_main`]: a **checker**, the suite of one exercise built with
//!   the exercise's bridge (`judge/bridges/exID`), the judge's code alone.
//!   It runs every check here and starts an **agent** ([`agent::main`]: the
//!   learner's crate with the bridge's serve function) in the sandbox; the
//!   bridge calls the learner's code there ([`bridge`](mod@bridge)), and every device
//!   the learner's code uses is a proxy of one of the checker's
//!   ([`gpu::remote`]). So no verdict, trace, timing or diagnosis is
//!   computed in a process that runs learner code ([`wire`] says what the
//!   two say to each other). The judge does this on every backend.
//! * [`main`]: a **harness**, the suite built with the learner's crate,
//!   run in one process in the sandbox: the judge's `--in-process`, to
//!   compare the two ways or to audit.
//!
//! Either reports each outcome to the judge through a socket that arrives
//! as stdin and that only it holds once it has read its setup
//! ([`protocol`] says how). Whatever the learner's code prints goes to
//! stdout and stderr, which the judge shows as output and never reads as a
//! verdict.
//!
//! A check is a plain function returning `Result<(), Failure>`: a failure
//! says what was expected, what happened, where in the learner's code, and
//! which chapter section explains it. A panic (a `todo!()` in a starter, an
//! `unwrap` on a GPU error) becomes its own outcome with its location, in
//! the agent as in a harness. A suite lists its checks with [`check!`],
//! which names each check after its function.
//!
//! A check may compare text with an insta snapshot the judge owns
//! ([`snapshot!`]: a mismatch is the check's failure, and insta's diff goes
//! to the output) and save its device's timeline for `judge run --timeline`
//! ([`Ctx::save_timeline`]: the runner sends the judge an
//! [`Event::Artifact`] with the files' paths).
//!
//! The files stack in layers (`tests/layers.rs` holds the table and fails
//! on an import of a layer above): the link's frames ([`wire`]), the
//! protocol and what a check is made of at the bottom; the runner of a
//! suite over them; the agent's serve loop ([`agent`]) and the checker's
//! calls ([`bridge`](mod@bridge)) above it; and at the top what joins those two: the
//! checker's agents ([`checker_main`]) and the loopback of the bridges'
//! tests ([`loopback()`]).

pub mod agent;
pub mod api;
mod api_agent;
mod api_checker;
mod api_driven;
pub mod bridge;
mod channel;
mod check;
mod checker;
mod ctx;
mod failure;
pub mod gaps;
pub mod lockdown;
mod loopback;
mod macros;
pub mod ordering;
mod panics;
pub mod polling;
pub mod protocol;
mod rng;
mod runner;
pub mod signals;
pub mod wire;

pub use check::Check;
pub use checker::checker_main;
pub use ctx::{COURSE_SEED, Ctx};
pub use failure::{Failure, ensure_eq, median};
pub use lockdown::Lockdown;
pub use loopback::{calls, launches, loopback, virtual_decoder};
pub use protocol::{Artifact, CheckInfo, Event, Outcome, Setup};
pub use rng::SplitMix;
pub use runner::{main, run_check};

#[doc(hidden)]
pub use insta;
