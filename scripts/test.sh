#!/usr/bin/env bash
# The test command: set up the machine (`scripts/setup.sh --dev`), then build and run every test, doc test and lint, and
# build the documentation with its links checked.
# Benchmarks are compiled, not run (run them with `cargo bench`).
set -euo pipefail
cd "$(dirname "$0")/.."
# The tests' tools too (chromium, ptxas, nvcc 13, NumPy, the Python environment).
bash scripts/setup.sh --dev
# The PTX tests fail, rather than skip, without ptxas.
export TESSERA_REQUIRE_PTXAS=1
cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace --lib --bins --tests
cargo test --workspace --doc
# The `cuda` feature (tessera run --target gpu): linted, and its refusals tested without a GPU
# (a stand-in driver built with cc); scripts/gpu_check.sh runs it on a GPU.
cargo clippy --features cuda --all-targets -- -D warnings
cargo test --features cuda --test gpu_cli
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
cargo build --workspace --benches
# The Python bindings (python/, their own workspace): linted, built into the environment of
# scripts/setup.sh (a debug build) and tested with pytest, PyCuTe alongside.
# The crate shares the root's target directory, and so its compiled dependencies.
VENV=$(cd "${TESSERA_VENV:-.deps/venv}" && pwd)
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
(cd python && cargo fmt --check && cargo clippy --all-targets --features extension-module -- -D warnings)
(cd python && VIRTUAL_ENV="$VENV" "$VENV/bin/maturin" develop --quiet)
"$VENV/bin/python" -m pytest -q python/tests
# The book (docs/): its Python examples run as doctests (its console examples run in
# tests/docs_book.rs, its generated pages are checked in tests/docs_reference.rs), then mdbook
# builds it (tests/docs_book.rs also checks its links and its table of contents).
"$VENV/bin/python" -m pytest -q --doctest-glob='*.md' docs/src
# mdbook's warnings (an unclosed HTML tag, a missing file) fail the build; the book loads
# nothing from the network (scripts, styles, fonts, pictures and the search index are its own).
book_log=$(.deps/mdbook/bin/mdbook build docs 2>&1) || { echo "$book_log"; exit 1; }
echo "$book_log"
if grep -q WARN <<<"$book_log"; then echo "mdbook build docs: warnings" >&2; exit 1; fi
if grep -rEl '<(script|link|img)[^>]+(src|href)="(https?:)?//' docs/book --include='*.html'; then
  echo "the book loads something from the network (above)" >&2; exit 1
fi
