#!/usr/bin/env bash
# Regenerates the pictures the book shows, under docs/src/img/: a layout, a thread-value layout, a
# bank map without and with its swizzle (tessera draw, PNG through resvg), and the HTML check
# report of the examples (tessera check --html, screenshot by headless Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --bin tessera
T=target/debug/tessera
mkdir -p docs/src/img
$T draw '((2,4),(2,8)):((1,16),(2,64))' -o docs/src/img/layout.png
$T draw --tv '((8,4),8):((1,64),8)' --tile '(8,64)' -o docs/src/img/tv.png
$T draw --banks '(8,64):(64,1)' --tv '((8,4),8):((1,64),8)' elem=2 access=16 -o docs/src/img/banks_plain.png
$T draw --banks 'Sw<3,3,3> o (8,64):(64,1)' --tv '((8,4),8):((1,64),8)' elem=2 access=16 -o docs/src/img/banks_swizzled.png
report=$(mktemp -d)
$T check examples/ examples/broken/ --html "$report/report.html" > /dev/null || true
# The files with a refutation opened, as a click would.
sed -i 's/<details class="file has-refuted/<details open class="file has-refuted/' "$report/report.html"
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$report/profile" --window-size=1200,2000 \
  --screenshot="$PWD/docs/src/img/report.png" "file://$report/report.html" > /dev/null 2>&1
rm -rf "$report"
ls -l docs/src/img/*.png
