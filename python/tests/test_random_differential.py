"""Random layouts through Tessera and PyCuTe (nvidia-cutlass 4.2.0.0) side by side. Where the
two disagree, Tessera's answer must satisfy the operation's definition at every point and
PyCuTe's must not (or PyCuTe raises); an equivalent form (the same offsets) is agreement."""
import random
from collections import Counter

import pytest
import tessera
from tessera import Layout

N = 250  # cases per operation
STRIDES = [0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32]


def rand_shape(rng, depth=2):
    if depth == 0 or rng.random() < 0.6:
        return rng.randint(1, 6)
    return tuple(rand_shape(rng, depth - 1) for _ in range(rng.randint(2, 3)))


def rand_layout(rng, rank=None):
    rank = rank or rng.randint(1, 3)
    shape = tuple(rand_shape(rng, 1) for _ in range(rank))
    if rank == 1:
        shape = shape[0]
    if rng.random() < 0.5:
        # A compact layout with its leaves in a random order.
        L = Layout(shape)
        leaves = tessera.flatten(L.shape) if isinstance(L.shape, tuple) else (L.shape,)
        order = list(range(len(leaves)))
        rng.shuffle(order)
        return tessera.make_ordered_layout(shape, tessera.unflatten(tuple(order), L.shape)) if len(leaves) > 1 else L
    stride = tessera.repeat_like(0, shape)
    leaves = [rng.choice(STRIDES) for _ in range(len(tessera.flatten(shape)) if isinstance(shape, tuple) else 1)]
    stride = tessera.unflatten(tuple(leaves), shape) if isinstance(shape, tuple) else leaves[0]
    return Layout(shape, stride)


def offs(L, n=None):
    return [L(i) for i in range(L.size() if n is None else n)]


def ok_composition(args, R):
    A, B = args
    return R.size() == B.size() and all(R(i) == A(B(i)) for i in range(B.size()))


def ok_coalesce(args, R):
    (A,) = args
    return R.size() == A.size() and R.depth() <= 1 and offs(R) == offs(A)


def ok_complement(args, R):
    """Ordered, disjoint from A past R(0), and (A, R) reaches all of [0, n)."""
    A, n = args
    image = set(offs(A))
    vals = offs(R)
    ordered = all(vals[i - 1] < vals[i] for i in range(1, len(vals)))
    disjoint = not any(v in image for v in vals[1:])
    covered = set(range(n)) <= {a + r for a in image for r in vals}
    return ordered and disjoint and covered


def ok_logical_divide(args, R):
    A, B = args
    if R.rank() != 2 or R[0].size() != B.size():
        return False
    if any(R(i, 0) != A(B(i)) for i in range(B.size())):
        return False
    return set(offs(A)) <= set(offs(R))


def ok_right_inverse(args, R):
    (A,) = args
    return all(A(R(k)) == k for k in range(R.size()))


def ok_left_inverse(args, R):
    (A,) = args
    return all(A(R(A(k))) == A(k) for k in range(A.size()))


def chain_ok(A):
    """The seed's pre-condition of left_inverse: the nonzero strides (of extents > 1), sorted,
    form an ordered chain: each divides the next and the next is at least it times its
    extent."""
    shape, stride = A.shape, A.stride
    ss = tessera.flatten(shape) if isinstance(shape, tuple) else (shape,)
    ds = tessera.flatten(stride) if isinstance(stride, tuple) else (stride,)
    modes = sorted((d, s) for s, d in zip(ss, ds) if d != 0 and s != 1)
    return all(d1 % d0 == 0 and d1 >= d0 * s0 for (d0, s0), (d1, _) in zip(modes, modes[1:]))


def gen(op, rng):
    if op == "composition":
        A = rand_layout(rng)
        return [A, rand_layout(rng)]
    if op == "logical_divide":
        A = rand_layout(rng)
        return [A, rand_layout(rng, 1)]
    if op == "complement":
        A = rand_layout(rng)
        return [A, rng.choice([1, A.cosize(), 2 * A.cosize(), 64])]
    return [rand_layout(rng)]


OPS = {
    "composition": ok_composition,
    "coalesce": ok_coalesce,
    "complement": ok_complement,
    "logical_divide": ok_logical_divide,
    "right_inverse": ok_right_inverse,
    "left_inverse": ok_left_inverse,
}
SUMMARY = Counter()


def to_pc(pc, x):
    return pc.Layout(x.shape, x.stride) if isinstance(x, Layout) else x


def safe_ok(ok, args, R):
    try:
        return ok(args, R)
    except (tessera.LayoutError, IndexError):
        return False


@pytest.mark.parametrize("op", sorted(OPS))
def test_random_differential(op, pycute):
    rng = random.Random(f"tessera-{op}")
    ok = OPS[op]
    bad = []
    for _ in range(N):
        args = gen(op, rng)
        try:
            mine = getattr(tessera, op)(*args)
        except tessera.LayoutError as e:
            mine = e
        try:
            theirs = getattr(pycute, op)(*[to_pc(pycute, a) for a in args])
            P = Layout.parse(str(theirs))
        except Exception as e:  # PyCuTe's assertions and errors, or a result Tessera cannot read
            theirs, P = e, None
        if isinstance(mine, Layout) and P is not None and (mine == P or offs(mine) == offs(P) and mine.size() == P.size()):
            kind = "same" if mine == P else "equivalent"
        elif isinstance(mine, Layout) and P is not None and op in ("left_inverse", "right_inverse") and safe_ok(ok, args, mine):
            # Inverses are not unique; a right inverse must be at least as large as PyCuTe's
            # valid one (the largest is the definition).
            larger = op == "left_inverse" or mine.size() >= P.size() or not safe_ok(ok, args, P)
            kind = "another valid inverse" if larger else "disagree"
        elif P is None:
            # PyCuTe raised: Tessera refuses too, or answers correctly.
            kind = "both refuse" if isinstance(mine, Exception) else ("pycute raised, tessera right" if safe_ok(ok, args, mine) else "disagree")
        elif isinstance(mine, Exception) and op == "left_inverse" and not chain_ok(args[0]):
            kind = "outside the seed's pre-condition, pycute answers"
        elif isinstance(mine, Exception):
            kind = "tessera refused, pycute wrong" if not safe_ok(ok, args, P) else "disagree"
        else:
            kind = "tessera right, pycute wrong" if safe_ok(ok, args, mine) and not safe_ok(ok, args, P) else "disagree"
        SUMMARY[kind] += 1
        if kind == "disagree":
            bad.append(([str(a) for a in args], str(mine), str(theirs)))
    assert not bad, bad[:8]


def test_random_summary():
    print("\nrandom differential against PyCuTe 4.2.0.0:", dict(SUMMARY))
