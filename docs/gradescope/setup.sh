#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image
# (Ubuntu, no GPU). The autograder zip is the course (the workbook, with its
# `solutions/`, which the sandbox keeps from students) with this file and
# `run_autograder` at its top; Gradescope unpacks it into /autograder/source.
# `docs/gradescope/make_autograder` makes it (every workspace member's
# folder, as cargo lists them, and the course's `exercises/` and `judge/`):
#
#   docs/gradescope/make_autograder autograder.zip
#
# Rust goes to /usr/local (not root's home), where the sandbox's unprivileged
# user reads it as well. The last step builds the judge's cache (the `gpu`
# crate and the harness runtime), so that grading a submission compiles only
# the student's crates.
set -euo pipefail
source_dir="${AUTOGRADER_ROOT:-/autograder}/source"
rust_version=1.95

apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    build-essential ca-certificates curl >/dev/null

export RUSTUP_HOME=/usr/local/rustup CARGO_HOME=/usr/local/cargo
export PATH="$CARGO_HOME/bin:$PATH"
curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs |
    sh -s -- -y --quiet --profile minimal --default-toolchain "$rust_version" --no-modify-path

cd "$source_dir"
cargo build --release --locked -p judge
target/release/judge doctor
# An empty submission: grading it builds the cache and grades nothing.
empty=$(mktemp -d)
target/release/judge grade --submission "$empty" --backend virtual --out "$empty/warm.json"
rm -rf "$empty"
