"""Generated kernels run through `tessera.run` against NumPy (not against Tessera's own
interpreter): copies and transposes between layouts of every order (row- and column-major,
padded, offset, negative-stride views with a stated buffer), elementwise expressions with
casts, reductions, matrix products, multi-statement kernels and symbolic extents, in every
element type; the arrays are NumPy arrays whose strides are the layouts' (views included).
Elementwise results are compared bit for bit with NumPy's (IEEE arithmetic, round to nearest;
NaN by the canonical-NaN rule), sums within a tolerance."""
import random

import pytest
import tessera

np = pytest.importorskip("numpy")

DTYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64, "f16": np.float16}


def orders(m, n):
    """Layouts of an (m, n) tensor and a maker of a NumPy array with exactly those strides."""
    def rowmajor():
        return f"({m},{n}):({n},1)", lambda dt: np.zeros((m, n), dt)

    def colmajor():
        return f"({m},{n}):(1,{m})", lambda dt: np.zeros((m, n), dt, order="F")

    def padded_rows():
        p = 3
        return f"({m},{n}):({n + p},1)", lambda dt: np.zeros((m, n + p), dt)[:, :n]

    def padded_cols():
        p = 2
        return f"({m},{n}):(1,{m + p})", lambda dt: np.zeros((m + p, n), dt, order="F")[:m, :]

    def offset():
        o = 5
        def make(dt):
            buf = np.zeros(o + m * n, dt)
            return np.lib.stride_tricks.as_strided(buf[o:], shape=(m, n), strides=(n * buf.itemsize, buf.itemsize))
        return f"{o} o ({m},{n}):({n},1)", make

    def reversed_cols():
        # a[:, ::-1] of a row-major (m, n) array: offset n-1, strides (n, -1), a buffer of m*n.
        return f"{n - 1} o ({m},{n}):({n},-1)] of {m * n} #", lambda dt: np.zeros((m, n), dt)[:, ::-1]

    return [rowmajor, colmajor, padded_rows, padded_cols, offset, reversed_cols]


def decl(name, elem, layout):
    # `reversed_cols` carries its own `] of N`; the others close the bracket here.
    if layout.endswith("#"):
        return f"tensor {name} : {elem}[{layout[:-1].rstrip()}\n"
    return f"tensor {name} : {elem}[{layout}]\n"


def values(rng, shape, elem):
    if elem in ("i32", "i64"):
        return rng.integers(-1000, 1000, size=shape).astype(DTYPES[elem])
    x = rng.standard_normal(shape) * 4
    if elem != "f16":
        x[rng.random(shape) < 0.05] = np.inf
        x[rng.random(shape) < 0.05] = -0.0
    return x.astype(DTYPES[elem])


def fill(a, v):
    a[...] = v
    return a


def same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype.kind == "f":
        nan = np.isnan(want)
        assert np.array_equal(np.isnan(got), nan)
        got, want = got[~nan], want[~nan]
        assert np.array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}")), (got, want)
    else:
        assert np.array_equal(got, want)


@pytest.mark.parametrize("seed", range(6))
def test_copies_and_transposes_between_every_order(tmp_path, seed):
    rng = np.random.default_rng(seed)
    r = random.Random(seed)
    for case in range(12):
        m, n = r.randint(1, 9), r.randint(1, 9)
        elem = r.choice(list(DTYPES))
        (sl, smake), (dl, dmake) = r.choice(orders(m, n))(), r.choice(orders(m, n))()
        f = tmp_path / f"c{case}.tess"
        f.write_text(decl("x", elem, sl) + decl("y", elem, dl) + "kernel k { y[i,j] = x[i,j] }\n")
        x = fill(smake(DTYPES[elem]), values(rng, (m, n), elem))
        y = dmake(DTYPES[elem])
        tessera.run(str(f), "k", x=x, y=y)
        same_bits(y, x)  # a copy moves bits


# (text, NumPy reference, compared bit for bit): NumPy's fmax/fmin leave the order of +0 and
# -0 open, where Tessera's maximumNumber puts +0 above -0, so those compare by value.
EXPRS = [
    ("a[i,j] + b[i,j]", lambda a, b: a + b, True),
    ("a[i,j] * b[i,j] - a[i,j]", lambda a, b: a * b - a, True),
    ("max(a[i,j], b[i,j])", lambda a, b: np.fmax(a, b), False),
    ("min(a[i,j], 0)", lambda a, b: np.fmin(a, a.dtype.type(0)), False),
    ("abs(a[i,j]) + b[i,j]", lambda a, b: np.abs(a) + b, True),
    ("-a[i,j] * 3", lambda a, b: -a * a.dtype.type(3), True),
]


@pytest.mark.parametrize("seed", range(4))
def test_elementwise_expressions_bit_for_bit(tmp_path, seed):
    rng = np.random.default_rng(100 + seed)
    r = random.Random(seed)
    for case in range(10):
        m, n = r.randint(1, 8), r.randint(4, 12)
        elem = r.choice(["f32", "f64", "i32", "i64"])
        text, ref, bits = r.choice(EXPRS)
        lays = [r.choice(orders(m, n))() for _ in range(3)]
        f = tmp_path / f"e{case}.tess"
        f.write_text(decl("a", elem, lays[0][0]) + decl("b", elem, lays[1][0]) + decl("y", elem, lays[2][0])
                     + f"kernel k {{ y[i,j] = {text} }}\n")
        a = fill(lays[0][1](DTYPES[elem]), values(rng, (m, n), elem))
        b = fill(lays[1][1](DTYPES[elem]), values(rng, (m, n), elem))
        y = lays[2][1](DTYPES[elem])
        arrays = {"a": a, "y": y, **({"b": b} if "b[" in text else {})}
        tessera.run(str(f), "k", **arrays)
        with np.errstate(all="ignore"):
            want = ref(np.asarray(a), np.asarray(b))
        if bits:
            same_bits(y, want)
        else:
            assert np.array_equal(y, want, equal_nan=True)


def test_casts_and_f16(tmp_path):
    rng = np.random.default_rng(7)
    f = tmp_path / "cast.tess"
    f.write_text("param M where 1 <= M <= 64\ntensor x : f32[(M,8):(8,1)]\ntensor d : f64[(M,8):(1,M)]\n"
                 "tensor h : f16[(M,8):(8,1)]\n"
                 "kernel up { d[i,j] = f64(x[i,j]) * 2 }\nkernel down { h[i,j] = f16(x[i,j]) }\n")
    for m in (1, 5, 33):
        x = values(rng, (m, 8), "f32")
        d = np.zeros((m, 8), np.float64, order="F")
        h = np.zeros((m, 8), np.float16)
        tessera.run(str(f), "up", bind={"M": m}, x=x, d=d)
        tessera.run(str(f), "down", bind={"M": m}, x=x, h=h)
        same_bits(d, x.astype(np.float64) * 2)
        same_bits(h, x.astype(np.float16))


@pytest.mark.parametrize("seed", range(3))
def test_reductions_and_matrix_products(tmp_path, seed):
    rng = np.random.default_rng(200 + seed)
    r = random.Random(seed)
    for case in range(4):
        m, n, k = r.randint(1, 40), r.randint(1, 40), r.randint(1, 40)
        f = tmp_path / f"g{case}.tess"
        f.write_text(
            "param M, N, K where 1 <= M <= 64, 1 <= N <= 64, 1 <= K <= 64\n"
            "tensor A : f32[(M,K):(K,1)]\ntensor B : f32[(K,N):(1,K)]\ntensor C : f32[(M,N):(1,M)]\n"
            "tensor s : f64[M:1]\ntensor D : f64[(M,K):(1,M)]\n"
            "kernel gemm { C[i,j] += A[i,k] * B[k,j] }\nkernel rows { s[i] += D[i,k] }\n")
        bind = {"M": m, "N": n, "K": k}
        A = rng.standard_normal((m, k)).astype(np.float32)
        B = np.asfortranarray(rng.standard_normal((k, n)).astype(np.float32))
        C0 = np.asfortranarray(rng.standard_normal((m, n)).astype(np.float32))
        C = C0.copy(order="F")
        tessera.run(str(f), "gemm", bind=bind, A=A, B=B, C=C)
        np.testing.assert_allclose(C, C0 + A.astype(np.float64) @ B.astype(np.float64), rtol=1e-4, atol=1e-4)
        D = np.asfortranarray(rng.standard_normal((m, k)))
        s = np.zeros(m)
        tessera.run(str(f), "rows", bind=bind, D=D, s=s)
        np.testing.assert_allclose(s, D.sum(axis=1), rtol=1e-12, atol=1e-12)


def test_multi_statement_kernel_and_nan_rule(tmp_path):
    f = tmp_path / "m.tess"
    f.write_text("param N where 1 <= N <= 4096\ntensor a : f32[N:1]\ntensor t : f32[N:1]\ntensor y : f32[N:1]\n"
                 "kernel k { t[i] = a[i] * 2; y[i] = t[i] - a[i] }\n")
    a = np.array([1.5, np.inf, -np.inf, np.nan, -0.0, 1e-45, 3.0], np.float32)
    a[3] = np.frombuffer(np.uint32(0xFFC00001).tobytes(), np.float32)[0]  # a NaN with sign and payload
    t, y = np.zeros_like(a), np.zeros_like(a)
    with np.errstate(all="ignore"):
        want_t, want_y = a * 2, a * 2 - a
    tessera.run(str(f), "k", bind={"N": len(a)}, a=a, t=t, y=y)
    same_bits(t, want_t)
    same_bits(y, want_y)
    # Every NaN a computed statement stores is the canonical quiet NaN.
    for out in (t, y):
        assert set(out[np.isnan(out)].view(np.uint32).tolist()) == {0x7FC00000}


def generator():
    """The kernel generator of `tests/kernel_numpy.rs` (tests/data/kernel_numpy.py)."""
    import importlib.util
    import os

    from cases import ROOT
    spec = importlib.util.spec_from_file_location("kernel_numpy", os.path.join(ROOT, "tests", "data", "kernel_numpy.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("seed", range(2))
def test_the_generator_families_through_python_at_1_and_2_threads(tmp_path, seed):
    # Every family of the CLI's generator (swizzled tensors and GPU clauses included) through
    # tessera.run: arrays by shape where the layouts are row- or column-major (lent, no copy),
    # raw buffers (storage=True) otherwise; NaN, infinities, signed zeros and subnormals in.
    gen = generator()
    r, g = random.Random(seed), np.random.default_rng(seed)
    for family in gen.FAMILIES:
        for k in range(3):
            c = gen.gen_case(r, g, f"{family}{k}", family)
            f = tmp_path / f"{c.id}.tess"
            f.write_text(c.text)
            storage = c.storage()
            for threads in (1, 2):
                arrays = {}
                for name, (elem, lay, shape) in c.tensors.items():
                    data = c.inputs.get(name)
                    if data is None and name not in c.outputs:
                        continue
                    if data is None:
                        data = np.zeros(shape, gen.DT[elem])
                    arrays[name] = gen.to_file(data.copy(), lay, shape, storage)  # fresh per run
                tessera.run(str(f), "k", bind=c.bind, threads=threads, storage=storage, **arrays)
                for name in c.outputs:
                    elem, lay, shape = c.tensors[name]
                    got = gen.from_file(arrays[name], lay, shape, storage)
                    want, how = c.ref[name]
                    why = gen.same(got, want, how)
                    assert why is None, f"{c.id} ({how}), {threads} thread(s):\n{c.text}{why}"
