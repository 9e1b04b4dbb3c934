"""The corpus and CuTe text of Python values, for the tests and python/bench.py."""
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "data", "pycute_public.jsonl")


def corpus():
    """The corpus cases (tests/data/CORPUS_README.md)."""
    with open(CORPUS) as f:
        return [json.loads(line) for line in f if line.strip()]


def cute(x):
    """CuTe text of a Python result: ints, tuples (a one-element tuple is `(x)`), layouts."""
    if isinstance(x, (tuple, list)):
        return "(" + ",".join(cute(v) for v in x) + ")"
    if isinstance(x, bool):
        return str(x).lower()
    return str(x)


def split_args(s):
    """The top-level comma-separated parts of `s`."""
    out, depth, start = [], 0, 0
    for i, c in enumerate(s):
        if c in "(<":
            depth += 1
        elif c in ")>":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(s[start:i])
            start = i + 1
    out.append(s[start:])
    return out


def parse_call(expr):
    """A corpus expression as (function name, argument texts); `eval` is `L(i)`."""
    name = expr[: expr.index("(")]
    if name.isidentifier():
        return name, split_args(expr[len(name) + 1 : -1])
    # `L(i)`: the last parenthesised group is the argument.
    depth = 0
    for i in range(len(expr) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(expr[i], 0)
        if depth == 0:
            return "eval", [expr[:i], expr[i + 1 : -1]]
    raise ValueError(expr)
