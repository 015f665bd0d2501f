//! scratch
#![allow(dead_code, missing_docs, unreachable_pub)]
pub mod calibration;
pub mod elem;
pub mod error;
pub(crate) mod exec;
pub(crate) mod kernels;
pub mod trace;
