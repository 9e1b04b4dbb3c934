#!/usr/bin/env bash
# The test command: set up the machine, then build and run every test, doc test and lint.
# Benchmarks are compiled, not run (run them with `cargo bench`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace --lib --bins --tests
cargo test --workspace --doc
cargo build --workspace --benches
