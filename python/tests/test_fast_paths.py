"""The binding's fast paths (python/src/fast.rs) against its general path.

`complement`, `coalesce`, `composition`, the divides and the products answer calls on `Layout`
objects (with int, `None` and tuple tilers, cotargets and profiles) without the expression
language; the same arguments passed as text take the general path (`tessera::lang::call`).
Every answer and every error must be the same, on the corpus and on random layouts whose
extents and strides reach the edges of i64."""
import random

import tessera
from cases import corpus, parse_call
from tessera import Layout, LayoutError

OPS = ["complement", "coalesce", "composition", "logical_divide", "zipped_divide"]
OPS += ["tiled_divide", "flat_divide", "logical_product", "zipped_product"]
OPS += ["tiled_product", "flat_product"]


def text(x):
    """The argument as text in Tessera's format: the general path reads it."""
    if x is None:
        return "_"
    if isinstance(x, (tuple, list)):
        return "(" + ",".join(text(v) for v in x) + ")"
    return str(x)


def outcome(f, args):
    """The printed answer, or the error's message, and the answer's type."""
    try:
        r = f(*args)
        return type(r).__name__, str(r)
    except LayoutError as e:
        return "error", str(e)


def agree(op, args):
    f = getattr(tessera, op)
    fast = outcome(f, args)
    general = outcome(f, [text(a) for a in args])
    assert fast == general, (op, [text(a) for a in args])
    return fast[0] != "error"


def test_the_fast_paths_agree_with_the_general_one_on_the_corpus():
    answered = {op: 0 for op in OPS}
    for case in corpus():
        name, texts = parse_call(case["expr"])
        if name not in OPS:
            continue
        try:
            args = [tessera.eval(t) for t in texts]
        except LayoutError:
            continue
        ops = [name] if name in ("complement", "coalesce") else OPS[2:]
        for op in ops:
            answered[op] += agree(op, args)
    # Each operation answered some calls (the comparison is not vacuous).
    assert all(n >= 20 for n in answered.values()), answered


EDGES = [0, 1, 2, 3, 4, 7, 8, -1, -2, 2**31, 2**32, 2**62, 2**63 - 1, -(2**63)]


def rand_layout(rng, leaves):
    """A random layout of `leaves` leaves, nested, with extents and strides now small, now at
    the edges of i64."""
    def ext():
        return rng.choice([1, 2, 3, 4, 6, 8]) if rng.random() < 0.9 else rng.choice(EDGES[1:])

    def stride():
        return rng.choice([0, 1, 2, 3, 4, 8, 16]) if rng.random() < 0.85 else rng.choice(EDGES)

    shape = [ext() for _ in range(leaves)]
    strides = [stride() for _ in range(leaves)]
    if leaves > 2 and rng.random() < 0.5:
        k = rng.randrange(1, leaves - 1)
        shape = [tuple(shape[: k + 1])] + shape[k + 1 :]
        strides = [tuple(strides[: k + 1])] + strides[k + 1 :]
    s, d = (tuple(shape), tuple(strides)) if leaves > 1 else (shape[0], strides[0])
    try:
        return Layout(s, d)
    except LayoutError:
        return None


def rand_tiler(rng, a):
    """A tiler for `a`: a layout, an int, None, or a tuple of them by mode."""
    pick = rng.random()
    if pick < 0.35:
        return rand_layout(rng, rng.randint(1, 3))
    if pick < 0.5:
        return rng.choice([1, 2, 4, 3, 2**32, -1, 0])
    modes = []
    for _ in range(rng.choice([1, a.rank(), a.rank(), 3])):
        r = rng.random()
        if r < 0.1:
            # A nested tuple: the tiler is then built (fast.rs `tiler_of`), not read in place.
            modes.append(tuple(rng.choice([None, 1, 2, rand_layout(rng, 1)]) for _ in range(2)))
        else:
            modes.append(None if r < 0.25 else rng.choice([1, 2, 4]) if r < 0.6 else rand_layout(rng, 1))
    # A list reads as a tuple (also built, not read in place).
    return list(modes) if rng.random() < 0.1 else tuple(modes)


def rand_profile(rng, a):
    return tuple(rng.choice([None, 1, (1, 1)]) for _ in range(a.rank()))


def test_the_fast_paths_agree_with_the_general_one_on_random_layouts():
    rng = random.Random(29)
    answered = {op: 0 for op in OPS}
    errors = 0
    for _ in range(1500):
        a = rand_layout(rng, rng.randint(1, 5))
        if a is None:
            continue
        for op in OPS:
            if op == "complement":
                args = [a] if rng.random() < 0.5 else [a, rng.choice([24, 64, (4, 8), 2**40, 0])]
            elif op == "coalesce":
                args = [a] if rng.random() < 0.5 else [a, rand_profile(rng, a)]
            else:
                t = rand_tiler(rng, a)
                if t is None:
                    continue
                args = [a, t]
            ok = agree(op, args)
            answered[op] += ok
            errors += not ok
    assert all(n >= 100 for n in answered.values()), answered
    assert errors >= 100, errors


def test_none_as_the_whole_tiler_returns_the_layout_itself():
    A = Layout((4, 8), (8, 1))
    assert tessera.composition(A, None) is A
    assert tessera.logical_divide(A, None) is A
