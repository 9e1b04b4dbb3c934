#!/usr/bin/env python3
"""Python-level throughput of `complement`, `coalesce`, `composition` and `logical_divide` on the
corpus cases: Tessera's module against PyCuTe, in the same process and run, each call made from
Python (binding overhead included), the two libraries timed in turn. Also the module's import time and, given a wheel, its size.

Usage: python python/bench.py [WHEEL]   (in an environment with `tessera` and `pycute`;
build `tessera` with `maturin develop --release` for meaningful numbers)
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tests"))
import pycute  # noqa: E402
import tessera  # noqa: E402
from cases import corpus, parse_call  # noqa: E402


def to_pycute(x):
    if isinstance(x, tessera.Layout):
        return pycute.Layout(x.shape, x.stride)
    if isinstance(x, tuple):
        return tuple(to_pycute(v) for v in x)
    return x


def inputs(op):
    """The corpus calls of op that both libraries answer, as (tessera args, pycute args)."""
    out = []
    for case in corpus():
        if case["op"] != op or case["expect"] == "ERROR":
            continue
        _, texts = parse_call(case["expr"])
        ta = [tessera.eval(t) for t in texts]
        pa = [to_pycute(a) for a in ta]
        try:
            getattr(tessera, op)(*ta)
            getattr(pycute, op)(*pa)
        except Exception:
            continue
        out.append((ta, pa))
    return out


def rate(f, calls, min_time=1.0):
    """Calls per second of f over the list of argument lists, best of 3 runs of >= min_time/3."""
    best = 0.0
    for _ in range(3):
        n, t0 = 0, time.perf_counter()
        while True:
            for a in calls:
                f(*a)
            n += len(calls)
            dt = time.perf_counter() - t0
            if dt >= min_time / 3:
                break
        best = max(best, n / dt)
    return best


def import_time():
    """Seconds to import tessera in a fresh interpreter (`-X importtime`'s cumulative time of
    the package, best of 5)."""

    def once():
        out = subprocess.run([sys.executable, "-X", "importtime", "-c", "import tessera"],
                             capture_output=True, text=True, check=True).stderr
        times = [int(line.split("|")[1]) for line in out.splitlines()
                 if line.startswith("import time:") and line.split("|")[2].strip() == "tessera"]
        return times[-1] / 1e6

    return min(once() for _ in range(5))


def main():
    print("| op | cases | PyCuTe calls/s | Tessera calls/s | ratio |")
    print("|---|---:|---:|---:|---:|")
    for op in ("complement", "coalesce", "composition", "logical_divide"):
        ins = inputs(op)
        pc = rate(getattr(pycute, op), [p for _, p in ins])
        ts = rate(getattr(tessera, op), [t for t, _ in ins])
        print(f"| {op} | {len(ins)} | {pc:,.0f} | {ts:,.0f} | {ts / pc:.1f}x |")
    print(f"\nimport tessera: {import_time() * 1000:.1f} ms")
    if len(sys.argv) > 1:
        print(f"wheel {os.path.basename(sys.argv[1])}: {os.path.getsize(sys.argv[1]) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
