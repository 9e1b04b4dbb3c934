#!/usr/bin/env python3
"""Side-by-side throughput of Tessera and PyCuTe on the corpus inputs.

Runs `cargo bench --bench algebra` (criterion), then times PyCuTe (the `pycute` package of the
`nvidia-cutlass` wheel, installed into .deps/py) on the same inputs, single-threaded, and
prints a markdown table of operations per second and the ratio. Then the text path: corpus
composition and logical_divide lines parsed, computed and printed, PyCuTe against
`tessera eval --batch` on 1 and 2 threads. Also times `tessera eval --batch` over the whole
corpus (best of 5 runs of the release binary).

Usage: python3 scripts/bench_compare.py [--no-cargo]
"""
import json, os, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEPS = os.path.join(ROOT, ".deps", "py")
OPS = ["composition", "logical_divide", "complement", "coalesce"]


def corpus_path():
    shared = os.path.join(ROOT, "..", "shared", "corpus", "pycute_public.jsonl")
    return shared if os.path.exists(shared) else os.path.join(ROOT, "tests", "data", "pycute_public.jsonl")


def ensure_pycute():
    if not os.path.isdir(os.path.join(DEPS, "pycute")):
        subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                               "--target", DEPS, "nvidia-cutlass==4.2.0.0"])
    sys.path.insert(0, DEPS)
    import pycute
    return pycute


class Parser:
    """The corpus subset of Tessera's text format, to PyCuTe objects."""

    def __init__(self, pc, src):
        self.pc, self.s, self.i = pc, src.replace(" ", ""), 0

    def peek(self):
        return self.s[self.i] if self.i < len(self.s) else ""

    def value(self):
        if self.peek() == "(":
            self.i += 1
            items = [self.value()]
            while self.peek() == ",":
                self.i += 1
                items.append(self.value())
            assert self.peek() == ")"
            self.i += 1
            v = tuple(items)
        else:
            j = self.i
            while self.peek().isdigit() or self.peek() == "-":
                self.i += 1
            v = int(self.s[j:self.i])
        if self.peek() == ":":
            self.i += 1
            return self.pc.Layout(v, self.value())
        return v

    def call(self):
        name = self.s[:self.s.index("(")]
        self.i = len(name) + 1
        args = [self.value()]
        while self.peek() == ",":
            self.i += 1
            args.append(self.value())
        return name, args


def tiler(pc, t):
    if isinstance(t, tuple):
        return tuple(pc.Layout(x, 1) if isinstance(x, int) else x for x in t)
    return pc.Layout(t, 1) if isinstance(t, int) else t


def pycute_inputs(pc):
    ins = {op: [] for op in OPS}
    for line in open(corpus_path()):
        case = json.loads(line)
        if case["op"] not in ins:
            continue
        name, args = Parser(pc, case["expr"]).call()
        if name in ("composition", "logical_divide"):
            args = [args[0], tiler(pc, args[1])]
        ins[name].append(args)
    return ins


def time_pycute(pc, ins):
    fns = {"composition": pc.composition, "logical_divide": pc.logical_divide,
           "complement": pc.complement, "coalesce": pc.coalesce}
    out = {}
    for op in OPS:
        f, xs = fns[op], ins[op]
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < 2.0:
            for a in xs:
                try:
                    f(*a)
                except Exception:
                    pass
            n += len(xs)
        out[op] = n / (time.perf_counter() - t0)
    return out


def tessera_rates():
    out = {}
    counts = {}
    log = os.path.join(ROOT, "target", "bench_algebra.log")
    if os.path.exists(log):
        for line in open(log):
            if line.startswith("inputs:"):
                for kv in line.split()[1:]:
                    k, v = kv.split("=")
                    counts[k] = int(v)
    for op in OPS:
        est = os.path.join(ROOT, "target", "criterion", "corpus", op, "new", "estimates.json")
        if not os.path.exists(est) or op not in counts:
            continue
        mean_ns = json.load(open(est))["mean"]["point_estimate"]
        out[op] = counts[op] / (mean_ns * 1e-9)
    return out


def time_batch():
    exe = os.path.join(ROOT, "target", "release", "tessera")
    if not os.path.exists(exe):
        subprocess.check_call(["cargo", "build", "--release", "--quiet"], cwd=ROOT)
    exprs = "".join(json.loads(l)["expr"] + "\n" for l in open(corpus_path()))
    best = None
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run([exe, "eval", "--batch", "-"], input=exprs.encode(), stdout=subprocess.DEVNULL, check=True)
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    return best, exprs.count("\n")


def text_path(pc, reps):
    """Text in, text out: for each corpus composition and logical_divide line, PyCuTe parses it
    (the parser above), computes, and prints the result with str(); Tessera runs
    `tessera eval --batch` over the same lines (repeated `reps` times) on 1 and 2 threads."""
    exe = os.path.join(ROOT, "target", "release", "tessera")
    fns = {"composition": pc.composition, "logical_divide": pc.logical_divide}
    rows = []
    for op in ("composition", "logical_divide"):
        lines = [json.loads(l)["expr"] for l in open(corpus_path()) if json.loads(l)["op"] == op]
        # PyCuTe: at least 2 s of work.
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < 2.0:
            for line in lines:
                name, args = Parser(pc, line).call()
                try:
                    str(fns[name](args[0], tiler(pc, args[1])))
                except Exception:
                    pass
            n += len(lines)
        py = n / (time.perf_counter() - t0)
        path = os.path.join(ROOT, "target", f"text_path_{op}.txt")
        with open(path, "w") as f:
            f.write("".join(l + "\n" for l in lines) * reps)
        total = len(lines) * reps
        rates = {}
        for threads in (1, 2):
            best = None
            for _ in range(3):
                t0 = time.perf_counter()
                subprocess.run([exe, "eval", "--batch", path, "-j", str(threads)], stdout=subprocess.DEVNULL, check=True)
                dt = time.perf_counter() - t0
                best = dt if best is None else min(best, dt)
            rates[threads] = total / best
        rows.append((op, len(lines), total, py, rates))
    return rows


def main():
    if "--no-cargo" not in sys.argv:
        with open(os.path.join(ROOT, "target", "bench_algebra.log"), "w") as log:
            subprocess.check_call(["cargo", "bench", "--bench", "algebra", "--", "--warm-up-time", "1",
                                   "--measurement-time", "4"], cwd=ROOT, stdout=log)
    pc = ensure_pycute()
    py = time_pycute(pc, pycute_inputs(pc))
    ts = tessera_rates()
    print("| operation | inputs | PyCuTe ops/s | Tessera ops/s | ratio |")
    print("|---|---|---|---|---|")
    ins = pycute_inputs(pc)
    for op in OPS:
        t = ts.get(op)
        ratio = f"{t / py[op]:.0f}x" if t else "n/a"
        tstr = f"{t:,.0f}" if t else "n/a"
        print(f"| {op} | {len(ins[op])} | {py[op]:,.0f} | {tstr} | {ratio} |")
    print("\nText in, text out (parse, compute, print; Tessera: `eval --batch`, lines repeated to"
          " 1,000 per corpus line, best of 3 process runs):\n")
    print("| operation | lines | PyCuTe lines/s | Tessera 1 thread | ratio | Tessera 2 threads | ratio |")
    print("|---|---|---|---|---|---|---|")
    for op, n_lines, total, py_rate, rates in text_path(pc, 1000):
        print(f"| {op} | {total:,} | {py_rate:,.0f} | {rates[1]:,.0f} | {rates[1] / py_rate:.0f}x |"
              f" {rates[2]:,.0f} | {rates[2] / py_rate:.0f}x |")
    wall, n = time_batch()
    print(f"\n`tessera eval --batch` over the whole corpus ({n} lines): {wall * 1000:.1f} ms (best of 5)")


if __name__ == "__main__":
    main()
