"""The corpus (tests/data/pycute_public.jsonl) through the Python API, judged as
tests/data/CORPUS_README.md says, and the same inputs run through PyCuTe in the same process:
each disagreement with PyCuTe must be one where PyCuTe raised or its answer fails the
definition pointwise (the corpus marks those `suspect`)."""
import os
import re
from collections import Counter

import pytest
import tessera
from cases import ROOT, corpus, cute, parse_call

CASES = corpus()


def known_changes():
    """The reviewed differences from PyCuTe, (expression, Tessera's answer), read from the
    KNOWN_CHANGES list of tests/corpus.rs (the Rust replay of the corpus): one list for both."""
    with open(os.path.join(ROOT, "tests", "corpus.rs")) as f:
        src = f.read()
    body = src[src.index("const KNOWN_CHANGES"):]
    body = body[: body.index("];")]
    return set(re.findall(r'\(\s*"([^"]*)",\s*"([^"]*)",', body))


KNOWN = known_changes()


def args_of(texts):
    """The arguments as Python objects, read by Tessera's text format (`_` is None)."""
    return [tessera.eval(t) for t in texts]


def run(case):
    """Tessera's answer through the Python API: the result, or the LayoutError."""
    name, texts = parse_call(case["expr"])
    args = args_of(texts)
    try:
        if name == "eval":
            L, i = args
            return L(*i) if isinstance(i, tuple) else L(i)
        return getattr(tessera, name)(*args)
    except tessera.LayoutError as e:
        return e


def offsets(L):
    return [L(i) for i in range(L.size())]


def agrees(case, got):
    """The corpus README's rule."""
    expect = case["expect"]
    if expect == "ERROR":
        return isinstance(got, tessera.LayoutError)
    if isinstance(got, tessera.LayoutError):
        return False
    if cute(got) == expect.replace(" ", ""):
        return True
    name, texts = parse_call(case["expr"])
    if name in ("left_inverse", "right_inverse"):
        L = args_of(texts)[0]
        if name == "left_inverse":
            return all(got(L(i)) == i for i in range(L.size()))
        return all(L(got(k)) == k for k in range(got.size())) and got.size() >= tessera.Layout.parse(expect).size()
    if cute(got) == expect.replace(" ", ""):
        return True
    return isinstance(got, tessera.Layout) and "offsets" in case and offsets(got) == case["offsets"]


def test_corpus_agrees_with_the_readme_rules():
    bad = []
    for case in CASES:
        if case.get("suspect"):
            continue
        got = run(case)
        if not agrees(case, got) and (case["expr"], cute(got)) not in KNOWN:
            bad.append((case["id"], case["expr"], case["expect"], cute(got)))
    assert not bad, bad[:10]
    assert len(CASES) == 1410 and len(KNOWN) > 5


def test_suspect_cases_never_give_pycutes_answer():
    n = 0
    for case in CASES:
        if not case.get("suspect"):
            continue
        n += 1
        got = run(case)
        assert isinstance(got, tessera.LayoutError) or cute(got) != case["expect"], case
    assert n > 0


def pycute_call(pc, name, args):
    """The same call through PyCuTe, from Tessera's Python values."""

    def conv(x):
        if isinstance(x, tessera.Layout):
            return pc.Layout(x.shape, x.stride)
        if isinstance(x, tuple):
            return tuple(conv(v) for v in x)
        return x

    args = [conv(a) for a in args]
    if name == "eval":
        L, i = args
        return L(*i) if isinstance(i, tuple) else L(i)
    if name == "layout_add":
        return pc.layout_add(*args)
    return getattr(pc, name)(*args)


def pointwise_ok(name, args, R):
    """Whether a layout R satisfies the definition of name(args) at every point (the ops whose
    result is a function of the arguments' values)."""
    A = args[0]
    if name == "composition" and isinstance(args[1], tessera.Layout):
        B = args[1]
        return R.size() == B.size() and all(R(i) == A(B(i)) for i in range(B.size()))
    if name in ("logical_divide", "zipped_divide"):
        # Every offset of A appears, in a layout of A's size.
        return R.size() == A.size() and sorted(R(i) for i in range(R.size())) == sorted(A(i) for i in range(A.size()))
    if name in ("blocked_product", "raked_product", "logical_product"):
        return R.size() == A.size() * tessera.size(args[1])
    return False


SUMMARY = Counter()


@pytest.mark.parametrize("op", sorted({c["op"] for c in CASES}))
def test_differential_against_pycute(op, pycute):
    """Tessera and PyCuTe (the nvidia-cutlass 4.2.0.0 wheel) on the same inputs, live. Each case
    is one of: the same text; an equivalent layout (the same offsets) or a valid inverse;
    PyCuTe raised; Tessera refused and PyCuTe's answer fails the definition pointwise; this
    PyCuTe differs from the corpus's (seed 004) and Tessera gives the corpus's answer; a
    reviewed change of tests/corpus.rs. Anything else fails."""
    disagreements = []
    for case in CASES:
        if case["op"] != op:
            continue
        name, texts = parse_call(case["expr"])
        args = args_of(texts)
        mine = run(case)
        try:
            theirs = pycute_call(pycute, name, args)
        except Exception as e:  # PyCuTe raises assorted exception types
            theirs = e
        kind = classify(case, name, args, mine, theirs)
        SUMMARY[kind] += 1
        if kind == "disagree":
            disagreements.append((case["expr"], cute(mine), str(theirs)))
    assert not disagreements, disagreements[:10]


def as_layout(x):
    try:
        return tessera.Layout.parse(str(x))
    except tessera.LayoutError:
        return None


def classify(case, name, args, mine, theirs):
    if isinstance(theirs, AttributeError):
        return "not in this pycute"  # layout_add, nullspace, blocked/raked_product: seed-only
    if isinstance(theirs, Exception):
        return "pycute raised"
    if not isinstance(mine, tessera.LayoutError) and (cute(mine) == str(theirs).replace(" ", "") or cute(mine) == cute(theirs)):
        return "same"
    if (case["expr"], cute(mine)) in KNOWN or (case.get("suspect") and isinstance(mine, tessera.LayoutError)):
        return "reviewed change"
    P = as_layout(theirs) if ":" in str(theirs) else None
    if isinstance(mine, tessera.LayoutError) and case["expect"] == "ERROR":
        return "refused, as the corpus's pycute (seed 004) does"
    if isinstance(mine, tessera.LayoutError):
        return "tessera refused, pycute wrong" if P is None or not pointwise_ok(name, args, P) else "disagree"
    if isinstance(mine, tessera.Layout) and P is not None:
        if P.size() == mine.size() and offsets(P) == offsets(mine):
            return "equivalent"
        if name == "left_inverse":
            L = args[0]
            if all(L(mine(L(i))) == L(i) for i in range(L.size())):
                return "valid inverse"
        if name == "right_inverse":
            L = args[0]
            if all(L(mine(k)) == k for k in range(mine.size())) and mine.size() >= P.size():
                return "valid inverse"
    if cute(theirs) != case["expect"].replace(" ", "") and agrees(case, mine):
        return "this pycute differs from the corpus's"
    return "disagree"


def test_differential_summary():
    """Prints the kinds of the differential (pytest -s shows them)."""
    print("\ndifferential against PyCuTe 4.2.0.0:", dict(SUMMARY))
