//! No code: a crate whose dependencies give the `gpu` and `workbook-benches`
//! examples the features the judge's release build has, so that
//! `cargo run --release -p gpu --example tour` after the quick start reuses
//! the judge's build instead of building again (`Cargo.toml` says more).
