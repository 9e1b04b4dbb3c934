#!/usr/bin/env bash
# Installs what Tessera needs on a fresh Debian machine. Idempotent: installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
pkg-config --exists z3 2>/dev/null || need_apt+=(libz3-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
  echo "setup: installing ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}"
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

# NumPy, for the round trip of `tessera run`'s .npy files through NumPy (tests/kernel_cli.rs):
# into .deps/numpy (git-ignored), found there through PYTHONPATH.
NUMPY=numpy==2.2.6
if ! PYTHONPATH=.deps/numpy python3 -c 'import numpy' >/dev/null 2>&1; then
  echo "setup: installing $NUMPY into .deps/numpy"
  python3 -m pip install --quiet --upgrade --target .deps/numpy "$NUMPY"
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo not found; install Rust 1.95 (rustup) first" >&2
  exit 1
fi
echo "setup: ok"
