#!/usr/bin/env python3
"""The book's portfolio table (docs/src/figures/prover.md) from criterion's estimates of
`cargo bench -p tessera-verifier --bench portfolio`: per query and size, the mean time of
each engine that decides it, and `auto` over the fastest engine alone."""
import json
import pathlib
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion/portfolio")
rows = {}
for meta in root.glob("**/new/benchmark.json"):
    b = json.loads(meta.read_text())
    query, engine = b["function_id"].split("/")
    est = json.loads((meta.parent / "estimates.json").read_text())
    rows.setdefault((query, int(b["value_str"])), {})[engine] = est["mean"]["point_estimate"]

engines = ["auto", "F2", "structural", "enumeration", "z3"]


def show(ns):
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def size(n):
    return {1 << 10: "1K", 1 << 16: "64K", 1 << 20: "1M", 1 << 30: "2^30"}.get(n, str(n))


print("| query | size | " + " | ".join(engines) + " | auto / fastest |")
print("|---|---|" + "---|" * (len(engines) + 1))
worst = 0.0
for (query, n), t in sorted(rows.items()):
    alone = [v for k, v in t.items() if k != "auto"]
    ratio = t["auto"] / min(alone) if alone and "auto" in t else float("nan")
    worst = max(worst, ratio)
    cells = " | ".join(show(t.get(e)) for e in engines)
    print(f"| {query} | {size(n)} | {cells} | {ratio:.2f} |")
print(f"\nworst auto / fastest: {worst:.2f}")
