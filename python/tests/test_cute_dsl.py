"""The CuTe DSL (nvidia-cutlass-dsl) against tessera: its objects accepted wherever a layout
is, and a differential test of the layout algebra on random cases, every disagreement
classified. The DSL builds its layouts only while a @cute.jit function is traced (on a CPU:
no GPU is needed), so each check runs inside one. Skipped when the DSL is not installed."""

import collections
import random

import pytest

import tessera
from tessera import Layout

cute = pytest.importorskip("cutlass.cute")


def test_dsl_objects_are_accepted_wherever_a_layout_is():
    got = {}

    @cute.jit
    def kernel():
        smem = cute.make_composed_layout(cute.make_swizzle(3, 3, 3), 0, cute.make_layout((8, 64), stride=(64, 1)))
        plain = cute.make_layout((8, 64), stride=(64, 1))
        tv = cute.make_layout(((8, 4), 8), stride=((1, 64), 8))
        got["parse"] = tessera.Layout.parse(plain)
        got["composed"] = tessera.ComposedLayout.parse(smem)
        got["composition"] = tessera.composition(plain, cute.make_layout(8, stride=4))
        got["swizzle"] = tessera.composition(cute.make_swizzle(2, 4, 3), cute.make_layout(16, stride=1))
        got["proved"] = tessera.prove("bank_conflict_free", smem, tv, elem=2, access=16)
        got["refuted"] = tessera.prove("bank_conflict_free", plain, tv, elem=2, access=16)
        got["identity"] = tessera.Layout.parse(cute.make_identity_layout((4, 3)))

    kernel()
    assert got["parse"] == Layout((8, 64), (64, 1))
    assert str(got["composed"]) == "Sw<3,3,3> o (8,64):(64,1)"
    assert str(got["composition"]) == str(tessera.composition(Layout((8, 64), (64, 1)), Layout(8, 4)))
    assert str(got["swizzle"]) == "Sw<2,4,3> o 16:1"
    assert got["proved"] and not got["refuted"]
    assert [got["identity"](i) for i in range(5)] == [(0, 0), (1, 0), (2, 0), (3, 0), (0, 1)]


# ---------------------------------------------------------------------------------------------
# The differential test.


def random_layout(rng, max_leaves=3, max_extent=6):
    """A small layout: 1 to max_leaves leaves, sometimes nested, positive or zero strides."""
    n = rng.randint(1, max_leaves)
    shape = [rng.randint(1, max_extent) for _ in range(n)]
    stride = [rng.choice([0, 1, 2, 3, 4, 6, 8, 16]) for _ in range(n)]
    if n == 3 and rng.random() < 0.4:
        return (shape[0], (shape[1], shape[2])), (stride[0], (stride[1], stride[2]))
    if n == 1:
        return shape[0], stride[0]
    return tuple(shape), tuple(stride)


OPS = ["composition", "logical_divide", "zipped_divide", "logical_product", "blocked_product",
       "raked_product", "complement", "right_inverse", "left_inverse", "coalesce"]


def cases(n=240, seed=25):
    rng = random.Random(seed)
    out = []
    for k in range(n):
        op = OPS[k % len(OPS)]
        a = random_layout(rng)
        b = random_layout(rng, max_leaves=2, max_extent=4)
        if op in ("logical_divide", "zipped_divide", "composition"):
            # A tiler: a compact divisor-sized layout most of the time.
            b = (rng.choice([1, 2, 3, 4]), rng.choice([1, 2]))
        out.append((op, a, b))
    return out


def trace_cases(cs, start):
    """Evaluates the cases from `start` with the DSL and prints `index<TAB>result` per case
    (called while a @cute.jit function is traced; a plain function, so that its loop and try
    are Python's, not the DSL's control flow)."""
    for k in range(start, len(cs)):
        op, (sa, da), (sb, db) = cs[k]
        try:
            A = cute.make_layout(sa, stride=da)
            B = cute.make_layout(sb, stride=db)
            if op in ("right_inverse", "left_inverse", "coalesce"):
                r = getattr(cute, op)(A)
            elif op == "complement":
                r = cute.complement(A, cute.size(A) * 2)
            else:
                r = getattr(cute, op)(A, B)
            text = str(r)
        except Exception:
            text = "ERROR"
        print(f"{k}\t{text}", flush=True)


def dsl_results(cs):
    """Each case's result as the DSL prints it, 'ERROR' when it raises, 'CRASH' when it kills
    the process (the DSL divides by zero on some inputs: SIGFPE). The DSL runs in a child
    process, restarted after the crashing case."""
    import subprocess
    import sys

    res = {}
    start = 0
    while start < len(cs):
        p = subprocess.run([sys.executable, __file__, str(start)], capture_output=True, text=True, timeout=600)
        for line in p.stdout.splitlines():
            k, _, text = line.partition("\t")
            if k.isdigit():
                res[int(k)] = text
        done = max(res, default=-1) + 1
        if p.returncode != 0 and done < len(cs):
            res[done] = "CRASH"
            done += 1
        elif done <= start:
            raise AssertionError(f"the DSL child answered nothing from case {start}: {p.stderr[-2000:]}")
        start = done
    return [res[k] for k in range(len(cs))]


if __name__ == "__main__":
    import sys

    @cute.jit
    def _run():
        trace_cases(cases(), int(sys.argv[1]))

    _run()


def tessera_result(op, A, B):
    try:
        if op in ("right_inverse", "left_inverse", "coalesce"):
            return getattr(tessera, op)(A)
        if op == "complement":
            return tessera.complement(A, tessera.size(A) * 2)
        return getattr(tessera, op)(A, B)
    except tessera.LayoutError:
        return None


def offsets(L):
    return [L(i) for i in range(tessera.size(L))]


def product_offsets(A, B):
    """The offsets of the product's definition, (A, C o B) with C = complement(A,
    size(A) * cosize(B)), C o B taken pointwise: A(a) + C(B(b)); None where Tessera has no
    such complement."""
    try:
        C = tessera.complement(A, tessera.size(A) * tessera.cosize(B))
        return [a + C(B(b)) for b in range(tessera.size(B)) for a in offsets(A)]
    except (tessera.LayoutError, IndexError):
        return None


def meets_definition(op, A, B, R):
    """Whether R meets the definition's pointwise post-condition for op(A, B); None when the
    definition itself cannot be evaluated here."""
    n = tessera.size(R)
    if op == "composition":
        return n == tessera.size(B) and all(R(i) == A(B(i)) for i in range(n))
    if op in ("logical_divide", "zipped_divide"):
        return n == tessera.size(A) and sorted(offsets(R)) == sorted(offsets(A))
    if op in ("logical_product", "blocked_product", "raked_product"):
        want = product_offsets(A, B)
        if want is None:
            return None
        if op == "logical_product":
            return offsets(R) == want
        return sorted(offsets(R)) == sorted(want)
    if op == "right_inverse":
        return all(A(R(i)) == i for i in range(n))
    if op == "left_inverse":
        return all(R(A(i)) == i for i in range(tessera.size(A)))
    if op == "coalesce":
        return n == tessera.size(A) and offsets(R) == offsets(A)
    if op == "complement":
        # Disjoint from A, ordered, and filling A's holes: (A, R) covers [0, cosize(A)).
        mine, theirs = set(offsets(A)), offsets(R)
        ordered = all(x < y for x, y in zip(theirs, theirs[1:]))
        covered = {a + r for a in mine for r in theirs}
        return ordered and (n == 1 or mine.isdisjoint(set(theirs) - {0})) and set(range(tessera.cosize(A))) <= covered
    return False


def classify(op, A, B, dsl_text, ours):
    """One of: agree, equivalent, both refuse, DSL crashes, DSL wrong by the definition, DSL
    refuses (ours meets the definition), convention (both meet it, different functions), ours."""
    if dsl_text == "CRASH":
        return "DSL crashes"
    if dsl_text == "ERROR":
        if ours is None:
            return "both refuse"
        return "DSL refuses" if meets_definition(op, A, B, ours) else "ours"
    try:
        theirs = Layout.parse(dsl_text)
    except tessera.LayoutError:
        # Not a layout (an extent 0, say): the pre-condition the DSL did not check.
        return "DSL wrong by the definition"
    if ours is None:
        ok = meets_definition(op, A, B, theirs)
        if ok is None:
            return "convention"
        return "ours" if ok else "DSL wrong by the definition"
    if str(ours) == str(theirs):
        return "agree"
    if tessera.size(ours) == tessera.size(theirs) and offsets(ours) == offsets(theirs):
        return "equivalent"
    ok_ours, ok_theirs = meets_definition(op, A, B, ours), meets_definition(op, A, B, theirs)
    if ok_ours is False:
        return "ours"
    if ok_ours and ok_theirs is False:
        return "DSL wrong by the definition"
    if ok_ours and ok_theirs:
        return "convention"
    return "ours"


def test_differential_against_the_cute_dsl():
    cs = cases()
    theirs = dsl_results(cs)
    counts = collections.Counter()
    examples = collections.defaultdict(list)
    for (op, (sa, da), (sb, db)), t in zip(cs, theirs):
        A, B = Layout(sa, da), Layout(sb, db)
        c = classify(op, A, B, t, tessera_result(op, A, B))
        counts[c] += 1
        if len(examples[c]) < 3:
            examples[c].append(f"{op}({A}, {B}): DSL {t}, tessera {tessera_result(op, A, B)}")
    print("\nCuTe DSL differential:", dict(counts))
    for c, ex in examples.items():
        if c not in ("agree", "equivalent", "both refuse"):
            print(c, ex)
    assert sum(counts.values()) == len(cs)
    assert counts["ours"] == 0, examples["ours"]
    # The example: 8 elements for a 6-element input.
    assert classify("logical_divide", Layout((3, 2), (3, 16)), Layout(2, 1), "(2,(2,2)):(3,(6,16))",
                    tessera_result("logical_divide", Layout((3, 2), (3, 16)), Layout(2, 1))) == "DSL wrong by the definition"
