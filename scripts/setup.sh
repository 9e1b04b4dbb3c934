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

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo not found; install Rust 1.95 (rustup) first" >&2
  exit 1
fi
echo "setup: ok"
