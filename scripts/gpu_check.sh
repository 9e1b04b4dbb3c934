#!/usr/bin/env bash
# Runs the examples' kernels on the GPU: `tessera run --target gpu --bench` for each, which
# checks the GPU's result against the CPU's on the same inputs and prints the figures (GB/s,
# and a device-to-device cudaMemcpy of the same bytes in the same run).
#
# Usage: bash scripts/gpu_check.sh   (TESSERA=path/to/tessera skips the build)
# Exit codes: 0 every kernel ran and matched; 1 a kernel failed (a mismatch, a CUDA error);
# 2 no GPU here (nothing was run).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v nvidia-smi >/dev/null 2>&1 && ! [ -e /dev/nvidia0 ]; then
  echo "gpu_check: refused: no NVIDIA GPU on this machine (no nvidia-smi, no /dev/nvidia0)" >&2
  exit 2
fi

if [ -z "${TESSERA:-}" ]; then
  cargo build --release --features cuda --bin tessera
  TESSERA="${CARGO_TARGET_DIR:-target}/release/tessera"
fi

# file, kernel, bindings: the sizes keep the whole run well under a minute on a current GPU.
RUNS=(
  "examples/kernels.tess transpose M=4096,N=4096"
  "examples/staged.tess transpose_staged M=4096,N=4096"
  "examples/staged.tess transpose_conflicted M=4096,N=4096"
  "examples/kernels.tess gemm M=2048,N=2048,K=2048"
  "examples/kernels.tess bias_relu M=4096,N=4096"
)

failed=()
first=1
for run in "${RUNS[@]}"; do
  read -r file kernel bind <<<"$run"
  echo "== $kernel ($file, $bind)"
  code=0
  "$TESSERA" run "$file" --kernel "$kernel" --bind "$bind" --target gpu --bench || code=$?
  if [ "$code" -eq 3 ] && [ "$first" -eq 1 ]; then
    # The first kernel could not run at all: no driver, no device, or a build without CUDA.
    echo "gpu_check: refused: tessera cannot run on a GPU here (see the error above)" >&2
    exit 2
  fi
  first=0
  if [ "$code" -ne 0 ]; then
    failed+=("$kernel (exit $code)")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "gpu_check: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "gpu_check: ${#RUNS[@]} kernels ran on the GPU and matched the CPU"
