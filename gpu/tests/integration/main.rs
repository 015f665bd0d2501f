//! The `gpu` crate's integration tests: one binary, a module per subject.
//!
//! Every semantic test is a function of the backend, run twice by
//! [`both!`]: on the virtual GPU (always, in CI) and on CUDA (ignored by
//! default: `cargo test -p gpu --test integration -- --ignored` on a machine
//! with a GPU). The same assertions hold on both; thresholds are fractions of
//! a "gate" (a long `spin` queued first), never absolute times.

mod support;

mod blocking;
mod capture;
mod kernels;
mod races;
mod trace;
