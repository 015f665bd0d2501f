//! Empty: it exists so that `syn`, a build-dependency, is built for the
//! host with the judge's features (`Cargo.toml` says why).

fn main() {}
