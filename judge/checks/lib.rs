//! The judge's check suites, one module per exercise.
//!
//! A suite is a folder, `exID/`, whose `mod.rs` holds the table of checks,
//! `CHECKS`, in the order they run, and declares the submodules the checks
//! live in. The judge never links this crate: it generates a harness per run
//! whose `main.rs` includes `exID/mod.rs` by path (`#[path = "…"] mod
//! suite;`) and depends on the learner's crate under the name the suite
//! imports. This crate compiles the same files against the reference
//! solutions, so that clippy, rustdoc and the suites' own tests (the
//! snapshots of `exID/snapshots/`, reviewed with `cargo insta review`)
//! cover them.
//!
//! A new exercise's suite is a folder here, a `pub mod` line below and an
//! arm of [`suite`].

pub mod ex101;
pub mod ex102;
pub mod ex103;
pub mod ex104;
pub mod ex105;
pub mod ex106;
pub mod ex107;
pub mod ex108;
pub mod ex109;
pub mod ex110;
pub mod ex111;
pub mod ex112;
pub mod ex113;
pub mod ex114;
pub mod ex115;
pub mod ex116;
pub mod ex117;
pub mod ex118;
pub mod ex119;
pub mod ex120;
pub mod ex121;

#[cfg(test)]
mod tests;

use judge_harness::Check;

/// The checks of exercise `id`, if it has a suite here.
pub fn suite(id: u32) -> Option<&'static [Check]> {
    match id {
        101 => Some(ex101::CHECKS),
        102 => Some(ex102::CHECKS),
        103 => Some(ex103::CHECKS),
        104 => Some(ex104::CHECKS),
        105 => Some(ex105::CHECKS),
        106 => Some(ex106::CHECKS),
        107 => Some(ex107::CHECKS),
        108 => Some(ex108::CHECKS),
        109 => Some(ex109::CHECKS),
        110 => Some(ex110::CHECKS),
        111 => Some(ex111::CHECKS),
        112 => Some(ex112::CHECKS),
        113 => Some(ex113::CHECKS),
        114 => Some(ex114::CHECKS),
        115 => Some(ex115::CHECKS),
        116 => Some(ex116::CHECKS),
        117 => Some(ex117::CHECKS),
        118 => Some(ex118::CHECKS),
        119 => Some(ex119::CHECKS),
        120 => Some(ex120::CHECKS),
        121 => Some(ex121::CHECKS),
        _ => None,
    }
}
