//! The judge's integration tests: one binary, a module per verb, driving
//! the real `judge` binary against the fixture course in
//! `tests/fixtures/course` (a tiny exercise per known outcome: passes,
//! wrong answer, compile error, panic, endless loop, forged verdict, abort).
//!
//! Everything runs on the virtual GPU. Outputs that a person reads are insta
//! snapshots, with the machine's paths and times redacted.

mod attacks;
mod class;
mod formats;
mod layers;
mod support;

mod build;
mod doctor;
mod grade;
mod gradescope;
mod list;
mod reset;
mod run;
mod snapshot;
mod verify;
mod watch;
