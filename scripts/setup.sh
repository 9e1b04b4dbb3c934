#!/usr/bin/env bash
# Installs what Tessera needs on a fresh Debian machine. Idempotent: installs only what is missing.
#   scripts/setup.sh        what the main job needs (build, `tessera check examples/`, pictures):
#                           pkg-config, z3, the fonts of PNG pictures.
#   scripts/setup.sh --dev  also what the tests need (scripts/test.sh calls it): chromium,
#                           ptxas and nvcc 13 (NVIDIA's wheels), NumPy, the Python environment
#                           with maturin, pytest and PyCuTe, and mdbook (the book under docs/).
set -euo pipefail
cd "$(dirname "$0")/.."

DEV=0
for arg in "$@"; do
  case "$arg" in
    --dev) DEV=1 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "setup: unknown argument '$arg' (--dev)" >&2; exit 2 ;;
  esac
done

need_apt=()
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
pkg-config --exists z3 2>/dev/null || need_apt+=(libz3-dev)
# The text of `tessera draw --format png` (resvg renders with the system's fonts).
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf ] || need_apt+=(fonts-dejavu-core)
# python3 -m venv, for the Python bindings' environment (Debian splits ensurepip out).
if [ "$DEV" = 1 ]; then
  python3 -c 'import ensurepip' >/dev/null 2>&1 || need_apt+=(python3-venv)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
  echo "setup: installing ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}"
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo not found; install Rust 1.95 (rustup) first" >&2
  exit 1
fi
if [ "$DEV" = 0 ]; then
  echo "setup: ok (the main job; scripts/setup.sh --dev adds what the tests need)"
  exit 0
fi

# Chromium, for the test that renders `tessera check --html` headless (tests/report_browser.rs):
# Debian's `chromium` package, installed only when no `chromium` runs (the machines here run as
# root; elsewhere through sudo, as above).
if ! chromium --version >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
  echo "setup: installing chromium"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium
fi
if ! chromium --version >/dev/null 2>&1; then
  echo "setup: chromium is missing or does not run" >&2
  exit 1
fi

# ptxas, for the tests that assemble emitted PTX: from NVIDIA's wheel, into .deps/ (git-ignored).
PTXAS=.deps/nvcc/nvidia/cuda_nvcc/bin/ptxas
NVCC_WHEEL=nvidia-cuda-nvcc-cu12==12.9.86
if ! "$PTXAS" --version >/dev/null 2>&1; then
  echo "setup: installing ptxas ($NVCC_WHEEL) into .deps/nvcc"
  python3 -m pip install --quiet --no-deps --upgrade --target .deps/nvcc "$NVCC_WHEEL"
  chmod +x "$PTXAS" 2>/dev/null || true
fi
if ! "$PTXAS" --version >/dev/null 2>&1; then
  echo "setup: $PTXAS does not run" >&2
  exit 1
fi

# nvcc 13, for the figure that compares Tessera's PTX index code with `nvcc -O3` on the naive
# CUDA C index function (tests/ptx_index_figures.rs): NVIDIA's wheels, into .deps/nvcc13
# (git-ignored). `nvcc -ptx` of a device-only .cu needs all four: the driver (nvidia-cuda-nvcc),
# cicc (nvidia-nvvm), cuda_runtime.h (nvidia-cuda-runtime) and crt/*.h (nvidia-cuda-crt); one
# pip call, since `pip install --target` does not merge a second install into nvidia/.
# The host compiler is the system gcc (12).
NVCC13=.deps/nvcc13/nvidia/cu13/bin/nvcc
CUDA13=13.5.37
NVCC13_WHEELS=(nvidia-cuda-nvcc==$CUDA13 nvidia-nvvm==$CUDA13 nvidia-cuda-runtime==$CUDA13 nvidia-cuda-crt==$CUDA13)
nvcc13_ok() {
  [ -f .deps/nvcc13/nvidia/cu13/include/cuda_runtime.h ] && [ -f .deps/nvcc13/nvidia/cu13/include/crt/host_config.h ] &&
    [ -x .deps/nvcc13/nvidia/cu13/nvvm/bin/cicc ] && "$NVCC13" --version 2>/dev/null | grep -q "V$CUDA13"
}
if ! nvcc13_ok; then
  echo "setup: installing nvcc ${NVCC13_WHEELS[*]} into .deps/nvcc13"
  rm -rf .deps/nvcc13
  python3 -m pip install --quiet --no-deps --upgrade --target .deps/nvcc13 "${NVCC13_WHEELS[@]}"
  chmod +x .deps/nvcc13/nvidia/cu13/bin/* .deps/nvcc13/nvidia/cu13/nvvm/bin/* 2>/dev/null || true
fi
if ! nvcc13_ok; then
  echo "setup: $NVCC13 (or its cicc and headers) is missing or does not run" >&2
  exit 1
fi

# NumPy, for the round trip of `tessera run`'s .npy files through NumPy (tests/kernel_cli.rs):
# into .deps/numpy (git-ignored), found there through PYTHONPATH.
NUMPY=numpy==2.2.6
if ! PYTHONPATH=.deps/numpy python3 -c 'import numpy' >/dev/null 2>&1; then
  echo "setup: installing $NUMPY into .deps/numpy"
  python3 -m pip install --quiet --upgrade --target .deps/numpy "$NUMPY"
fi

# The Python bindings (python/): a virtual environment (.deps/venv, git-ignored; TESSERA_VENV
# overrides the path) with maturin, pytest and PyCuTe (the `pycute` package of the
# nvidia-cutlass wheel, for the differential tests) and NumPy (for `tessera.run`'s tests), into
# which the `tessera` module is built and installed (`maturin develop`, a debug build) by
# scripts/test.sh.
VENV=${TESSERA_VENV:-.deps/venv}
PY_PKGS=(maturin==1.16.0 pytest==9.2.0 "$NUMPY")
CUTLASS=nvidia-cutlass==4.2.0.0
if ! "$VENV/bin/python" -c 'import maturin, pytest, pycute, numpy' >/dev/null 2>&1; then
  echo "setup: creating the Python environment $VENV (${PY_PKGS[*]} $CUTLASS)"
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet "${PY_PKGS[@]}"
  # PyCuTe is pure Python; the wheel's other packages and dependencies are not needed.
  "$VENV/bin/python" -m pip install --quiet --no-deps "$CUTLASS"
fi
# The CuTe DSL, for python/tests/test_cute_dsl.py (its layout algebra traces on a CPU): about
# 105 MB to download (the cu12 libraries 92 MB, cuda-bindings 8 MB), 290 MB installed. The
# test is skipped where it is missing; TESSERA_NO_CUTE_DSL=1 leaves it out.
CUTE_DSL=nvidia-cutlass-dsl==4.8.1
if [ -z "${TESSERA_NO_CUTE_DSL:-}" ] && ! "$VENV/bin/python" -c 'import cutlass.cute' >/dev/null 2>&1; then
  echo "setup: installing $CUTE_DSL into $VENV"
  "$VENV/bin/python" -m pip install --quiet "$CUTE_DSL" ||
    echo "setup: $CUTE_DSL did not install; python/tests/test_cute_dsl.py will be skipped" >&2
fi

# mdbook, which builds the book under docs/ (`scripts/test.sh` runs `mdbook build docs`): from
# crates.io, pinned and locked, into .deps/mdbook (git-ignored). Only the `search` feature: the
# book's search box, whose index is built into the book, so that it works offline; not `serve`
# or `watch` (a web server on tokio and axum, a file watcher), which CI does not use. Cold, the
# install takes 253 s of CPU (the book's figures, on the tools page).
MDBOOK_VERSION=0.5.4
MDBOOK=.deps/mdbook/bin/mdbook
if ! "$MDBOOK" --version 2>/dev/null | grep -qx "mdbook v$MDBOOK_VERSION"; then
  echo "setup: installing mdbook $MDBOOK_VERSION into .deps/mdbook (cargo install, a few minutes)"
  cargo install --quiet --locked --root .deps/mdbook --version "$MDBOOK_VERSION" \
    --no-default-features --features search mdbook
fi
if ! "$MDBOOK" --version >/dev/null 2>&1; then
  echo "setup: $MDBOOK is missing or does not run" >&2
  exit 1
fi

echo "setup: ok (with the tests' tools)"
