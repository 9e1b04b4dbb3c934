"""The kernel generator of tests/kernel_numpy.rs, against NumPy (issues 24 and 31).

`gen DIR SEED COUNT` writes COUNT kernels per family (copies, transposes, elementwise
expressions with casts, reductions, matrix products, multi-statement kernels, staged GPU
kernels) over layouts of every kind (row- and column-major, padded, offset, swizzled,
negative-stride views with a stated buffer), with their inputs as `.npy` files (NaN with sign
and payload, infinities, signed zeros, subnormals, INT_MIN and INT_MAX among the values), and
`DIR/cases.json` naming the runs. `check DIR` compares every output the runs wrote with NumPy's
result: bit for bit where IEEE arithmetic fixes the bits (NaN by the canonical-NaN rule: a plain
copy moves NaN bits, a computed NaN is the canonical quiet NaN), by value where NumPy leaves the
order of +0 and -0 open (fmax/fmin), within a tolerance for sums.

Arrays of row- and column-major tensors travel as `.npy` files of the tensor's shape (C or
Fortran order: the shape-and-strides rule); a case with any other layout passes every tensor
as its raw buffer (`--storage`), and the layout's offsets (computed here, independently of
Tessera: strides, offset, CuTe's swizzle) place and find the elements.
"""
import json
import os
import random
import sys

import numpy as np

DT = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64, "f16": np.float16}
CANONICAL = {np.float32: 0x7FC00000, np.float64: 0x7FF8000000000000, np.float16: 0x7E00}
UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def swizzle(b, m, s):
    """CuTe's Swizzle<B,M,S> on offsets (S > 0)."""
    yyy = ((1 << b) - 1) << (m + s)
    return lambda x: x ^ ((x & yyy) >> s)


class Lay:
    """A 2-D layout: its text, the offset of each coordinate, its buffer length, whether a
    `.npy` of its shape can hold it (and in which order)."""

    def __init__(self, text, off, length, npy=None):
        self.text, self.off, self.length, self.npy = text, off, length, npy

    def offsets(self, m, n):
        return np.array([[self.off(i, j) for j in range(n)] for i in range(m)], np.int64)


def layouts(r, m, n, swizzles=True, names=None):
    """The kinds of layout of an (m, n) tensor; one drawn. With `names` (`("M", "N")`), the
    extents are those parameters (bound to m and n at the run), and the kinds are the ones
    whose text stays a layout over them (no stated buffer, no swizzle)."""
    M, N = names or (str(m), str(n))
    def plus(x, k):
        return f"{x}+{k}" if names else str(int(x) + k)
    kinds = [
        lambda: Lay(f"({M},{N}):({N},1)", lambda i, j: i * n + j, m * n, "C"),
        lambda: Lay(f"({M},{N}):(1,{M})", lambda i, j: i + j * m, m * n, "F"),
        lambda: Lay(f"({M},{N}):({plus(N, 3)},1)", lambda i, j: i * (n + 3) + j, (m - 1) * (n + 3) + n),
        lambda: Lay(f"5 o ({M},{N}):(1,{plus(M, 1)})", lambda i, j: 5 + i + j * (m + 1), 5 + m + (n - 1) * (m + 1)),
    ]
    if not names:
        # a[:, ::-1] of a row-major array: offset n-1, strides (n, -1), a buffer of m*n.
        kinds.append(lambda: Lay(f"{n - 1} o ({m},{n}):({n},-1)] of [{m * n}", lambda i, j: n - 1 + i * n - j, m * n))
    # A swizzle whose bits lie inside the buffer's (m and n powers of two).
    if swizzles and not names and m * n >= 16 and (m * n) & (m * n - 1) == 0:
        bits = (m * n).bit_length() - 1
        b = r.randint(1, max(1, bits // 2 - 1))
        s = r.randint(b, bits - b)
        mm = r.randint(0, bits - b - s)
        f = swizzle(b, mm, s)
        kinds.append(lambda: Lay(f"Sw<{b},{mm},{s}> o ({m},{n}):({n},1)", lambda i, j: f(i * n + j), m * n))
    # Half the tensors row- or column-major (arrays by shape), half of the other kinds.
    if r.random() < 0.5:
        return r.choice(kinds[:2])()
    return r.choice(kinds[2:])()


def decl(name, elem, lay):
    text = lay.text
    if "] of [" in text:
        # a negative-stride view states its buffer: `f32[VIEW] of N`
        view, length = text.split("] of [")
        return f"tensor {name} : {elem}[{view}] of {length}\n"
    return f"tensor {name} : {elem}[{text}]\n"


def specials(elem):
    if elem in ("i32", "i64"):
        info = np.iinfo(DT[elem])
        return [info.min, info.max, 0, -1]
    t = DT[elem]
    tiny = np.finfo(t).smallest_subnormal
    bits = UINT[np.dtype(t).itemsize]
    # NaNs with a sign bit and a payload, beside the canonical one.
    width = 8 * np.dtype(t).itemsize
    mant = np.finfo(t).nmant
    neg_payload = ((1 << width) - 1) ^ ((1 << (mant - 1)) - 2)  # sign, all exponent, payload
    nan2 = np.array([neg_payload], bits).view(t)[0]
    return [np.nan, nan2, np.inf, -np.inf, -0.0, 0.0, tiny, -tiny * 3, np.finfo(t).tiny / 2]


def values(g, shape, elem, special=0.15, ints=1000):
    """Random values with a share of special ones (for integers: INT_MIN, INT_MAX, 0, -1)."""
    if elem in ("i32", "i64"):
        x = g.integers(-ints, ints, size=shape).astype(DT[elem])
    else:
        x = (g.standard_normal(shape) * 4).astype(DT[elem])
    if special:
        sp = np.array(specials(elem), dtype=DT[elem])
        mask = g.random(shape) < special
        x[mask] = sp[g.integers(0, len(sp), size=int(mask.sum()))]
    return x


class Case:
    def __init__(self, cid, family):
        self.id, self.family = cid, family
        self.text, self.kernel, self.bind = "", "k", {}
        self.tensors = {}  # name -> (elem, Lay, (m, n))
        self.inputs = {}  # name -> logical array
        self.outputs = []  # names
        self.ref = {}  # name -> (logical reference, how)

    def tensor(self, name, elem, lay, shape):
        self.tensors[name] = (elem, lay, shape)
        self.text += decl(name, elem, lay)

    def storage(self):
        return any(lay.npy is None for (_, lay, _) in self.tensors.values())

    def write(self, d):
        f = os.path.join(d, f"{self.id}.tess")
        with open(f, "w") as h:
            h.write(self.text)
        storage = self.storage()
        ins = {}
        for name, a in self.inputs.items():
            elem, lay, shape = self.tensors[name]
            p = os.path.join(d, f"{self.id}-in-{name}.npy")
            np.save(p, to_file(a, lay, shape, storage))
            ins[name] = p
        return {
            "id": self.id,
            "family": self.family,
            "file": f,
            "kernel": self.kernel,
            "bind": ",".join(f"{k}={v}" for k, v in self.bind.items()),
            "storage": storage,
            "inputs": ins,
            "outputs": self.outputs,
            "text": self.text,
        }


def as_2d(shape):
    return shape if len(shape) == 2 else (shape[0], 1)


def to_file(a, lay, shape, storage):
    """The array a `.npy` file holds for tensor data `a` (logical, of `shape`)."""
    if not storage:
        return np.asfortranarray(a) if lay.npy == "F" else np.ascontiguousarray(a)
    # The raw buffer: every element at its offset; the rest a marker value.
    buf = np.zeros(lay.length, a.dtype)
    m, n = as_2d(shape)
    buf[lay.offsets(m, n).reshape(shape)] = a
    return buf


def from_file(got, lay, shape, storage):
    if not storage:
        assert got.shape == tuple(shape), (got.shape, shape)
        return got
    m, n = as_2d(shape)
    return got[lay.offsets(m, n).reshape(shape)]


def vec_lay(n, name=None):
    return Lay(f"{name or n}:1", lambda i, j: i, n, "C")


EXPRS = [
    # (text over a, b; NumPy reference; bit for bit)
    ("a[i,j] + b[i,j]", lambda a, b: a + b, True),
    ("a[i,j] * b[i,j] - a[i,j]", lambda a, b: a * b - a, True),
    ("max(a[i,j], b[i,j])", lambda a, b: np.fmax(a, b), False),
    ("min(a[i,j], b[i,j])", lambda a, b: np.fmin(a, b), False),
    ("-a[i,j] * 3", lambda a, b: -a * a.dtype.type(3), True),
]


def gen_case(r, g, cid, family):
    c = Case(cid, family)
    # Symbolic extents: the layouts over parameters M and N, bound at the run.
    sym = family in ("copy", "transpose", "elementwise", "multi", "staged") and r.random() < 0.4
    names = ("M", "N") if sym else None
    tnames = ("N", "M") if sym else None
    if sym:
        c.text = "param M, N where 1 <= M <= 64, 1 <= N <= 64\n"
    floats = ["f32", "f64", "f16"]
    if family in ("copy", "transpose"):
        elem = r.choice(["f32", "f64", "i32", "i64", "f16"])
        m, n = r.choice([1, 3, 4, 7, 8, 16]), r.choice([1, 2, 4, 5, 8, 16])
        if family == "copy":
            c.tensor("x", elem, layouts(r, m, n, names=names), (m, n))
            c.tensor("y", elem, layouts(r, m, n, names=names), (m, n))
            c.text += "kernel k { y[i,j] = x[i,j] }\n"
            x = values(g, (m, n), elem)
            c.inputs["x"] = x
            c.ref["y"] = (x, "bits")
        else:
            c.tensor("x", elem, layouts(r, n, m, names=tnames), (n, m))
            c.tensor("y", elem, layouts(r, m, n, names=names), (m, n))
            c.text += "kernel k { y[i,j] = x[j,i] }\n"
            x = values(g, (n, m), elem)
            c.inputs["x"] = x
            c.ref["y"] = (x.T, "bits")
        c.outputs = ["y"]
    elif family == "elementwise":
        elem = r.choice(["f32", "f64", "i32", "i64"])
        m, n = r.choice([1, 4, 5, 8]), r.choice([3, 4, 8, 16])
        text, ref, bits = r.choice(EXPRS)
        cast = elem in ("f32", "f64") and r.random() < 0.4
        for name in ("a", "b"):
            c.tensor(name, elem, layouts(r, m, n, names=names), (m, n))
            if f"{name}[" in text:
                c.inputs[name] = values(g, (m, n), elem, ints=1000)
        c.inputs.setdefault("b", np.zeros((m, n), DT[elem]))
        if cast:
            # an f32 -> f64 (or f64 -> f32) cast of the result
            other = "f64" if elem == "f32" else "f32"
            c.tensor("y", other, layouts(r, m, n, names=names), (m, n))
            c.text += f"kernel k {{ y[i,j] = {other}({text}) }}\n"
            with np.errstate(all="ignore"):
                want = ref(c.inputs["a"], c.inputs["b"]).astype(DT[other])
            if "b[" not in text:
                del c.inputs["b"]
        else:
            c.tensor("y", elem, layouts(r, m, n, names=names), (m, n))
            c.text += f"kernel k {{ y[i,j] = {text} }}\n"
            with np.errstate(all="ignore"):
                want = ref(c.inputs["a"], c.inputs["b"])
            if "b[" not in text:
                del c.inputs["b"]
        c.outputs = ["y"]
        c.ref["y"] = (want, "computed" if bits else "value")
    elif family == "reduction":
        elem = r.choice(["f32", "f64"])
        m, k = r.choice([1, 3, 8, 16]), r.choice([1, 5, 16, 33])
        c.tensor("x", elem, layouts(r, m, k), (m, k))
        c.tensor("s", elem, vec_lay(m), (m,))
        c.text += "kernel k { s[i] += x[i,k] }\n"
        x = values(g, (m, k), elem, special=0.03)
        s = values(g, (m,), elem, special=0.0)
        c.inputs.update(x=x, s=s)
        with np.errstate(all="ignore"):
            c.ref["s"] = (s + x.astype(np.float64).sum(axis=1).astype(DT[elem]), "sum")
        c.outputs = ["s"]
    elif family == "gemm":
        m, n, k = r.choice([1, 4, 9, 16]), r.choice([1, 4, 8, 17]), r.choice([1, 4, 8, 16])
        c.tensor("A", "f32", layouts(r, m, k), (m, k))
        c.tensor("B", "f32", layouts(r, k, n), (k, n))
        c.tensor("C", "f32", layouts(r, m, n), (m, n))
        c.text += "kernel k { C[i,j] += A[i,k] * B[k,j] }\n"
        A, B = values(g, (m, k), "f32", special=0.02), values(g, (k, n), "f32", special=0.02)
        C = values(g, (m, n), "f32", special=0.0)
        c.inputs.update(A=A, B=B, C=C)
        with np.errstate(all="ignore"):
            c.ref["C"] = ((C + A.astype(np.float64) @ B.astype(np.float64)).astype(np.float32), "sum")
        c.outputs = ["C"]
    elif family == "multi":
        elem = r.choice(["f32", "f64"])
        m, n = r.choice([2, 4, 7]), r.choice([3, 8, 16])
        c.tensor("a", elem, layouts(r, m, n, names=names), (m, n))
        c.tensor("t", elem, layouts(r, m, n, names=names), (m, n))
        c.tensor("y", elem, layouts(r, m, n, names=names), (m, n))
        c.text += "kernel k { t[i,j] = a[i,j] * 2; y[i,j] = t[i,j] - a[i,j] }\n"
        a = values(g, (m, n), elem)
        c.inputs["a"] = a
        with np.errstate(all="ignore"):
            c.ref["t"] = (a * a.dtype.type(2), "computed")
            c.ref["y"] = (a * a.dtype.type(2) - a, "computed")
        c.outputs = ["t", "y"]
    elif family == "staged":
        # Tiles of 8 or 16 (partial ones included), threads dividing them, x staged through a
        # shared layout (row- or column-major, padded or swizzled), on an elementwise body.
        elem = r.choice(["f32", "f64"])
        ti, tj = r.choice([8, 16]), r.choice([8, 16])
        m, n = ti * r.randint(1, 2) + r.choice([0, 3]), tj * r.randint(1, 2) + r.choice([0, 5])
        smem = r.choice([f"({ti},{tj}):(1,{ti})", f"({ti},{tj}):({tj},1)", f"({ti},{tj}):({tj + 1},1)",
                         f"Sw<1,0,2> o ({ti},{tj}):({tj},1)", f"Sw<2,0,3> o ({ti},{tj}):(1,{ti})"])
        thr_i, thr_j = r.choice([1, 2, 4]), r.choice([4, 8])
        threads = r.choice([f"threads j:{thr_j}, i:{thr_i}", f"threads i:{thr_i}, j:{thr_j}"])
        c.tensor("x", elem, layouts(r, m, n, swizzles=False, names=names), (m, n))
        c.tensor("b", elem, vec_lay(n, "N" if sym else None), (n,))
        c.tensor("y", elem, layouts(r, m, n, swizzles=False, names=names), (m, n))
        text, ref, bits = r.choice(EXPRS[:2])
        body = text.replace("a[i,j]", "x[i,j]").replace("b[i,j]", "b[j]")
        c.text += f"let S = {smem}\nkernel k tile i:{ti}, j:{tj} {threads} {{\n  stage x in S\n  y[i,j] = {body}\n}}\n"
        x, b = values(g, (m, n), elem), values(g, (n,), elem)
        c.inputs.update(x=x, b=b)
        with np.errstate(all="ignore"):
            c.ref["y"] = (ref(x, np.broadcast_to(b, (m, n))), "computed")
        c.outputs = ["y"]
    if sym:
        c.bind = {"M": m, "N": n}
    return c


FAMILIES = ["copy", "transpose", "elementwise", "reduction", "gemm", "multi", "staged"]


def generate(d, seed, count):
    r, g = random.Random(seed), np.random.default_rng(seed)
    cases, refs = [], {}
    for family in FAMILIES:
        for k in range(count):
            c = gen_case(r, g, f"{family}{k}", family)
            cases.append(c.write(d))
            refs[c.id] = c
    with open(os.path.join(d, "cases.json"), "w") as h:
        json.dump(cases, h, indent=1)
    return refs


def same(got, want, how):
    """Whether `got` is NumPy's `want` under rule `how`; the reason if not."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"shape/dtype {got.shape} {got.dtype} vs {want.shape} {want.dtype}"
    if got.dtype.kind != "f":
        return None if np.array_equal(got, want) else f"{got} vs {want}"
    u = UINT[got.dtype.itemsize]
    if how == "bits":
        return None if np.array_equal(got.view(u), want.view(u)) else f"bits {got} vs {want}"
    nan = np.isnan(want)
    if not np.array_equal(np.isnan(got), nan):
        return f"NaN at other places: {got} vs {want}"
    canon = CANONICAL[got.dtype.type]
    if nan.any() and set(got[nan].view(u).tolist()) != {canon}:
        return f"a computed NaN that is not the canonical one: {[hex(x) for x in got[nan].view(u)]}"
    g, w = got[~nan], want[~nan]
    if how == "computed":
        return None if np.array_equal(g.view(u), w.view(u)) else f"bits {got} vs {want}"
    if how == "value":
        return None if np.array_equal(g, w) else f"value {got} vs {want}"
    tol = 1e-4 if got.dtype == np.float32 else 1e-9
    ok = np.array_equal(np.isinf(g), np.isinf(w)) and np.allclose(g, w, rtol=tol, atol=tol)
    return None if ok else f"sum {got} vs {want}"


def check(d, seed, count):
    refs = generate(os.path.join(d, "again"), seed, count)
    with open(os.path.join(d, "results.json")) as h:
        runs = json.load(h)
    bad, compared = [], 0
    for run in runs:
        c = refs[run["id"]]
        storage = c.storage()
        for name in c.outputs:
            elem, lay, shape = c.tensors[name]
            got = from_file(np.load(run["outputs"][name]), lay, shape, storage)
            want, how = c.ref[name]
            why = same(got, want, how)
            compared += 1
            if why:
                bad.append(f"{run['id']} {run['target']} {name} ({c.family}, {how}):\n{c.text}{why}")
    print(f"compared {compared} outputs with NumPy")
    if bad:
        print("\n\n".join(bad))
        sys.exit(1)


if __name__ == "__main__":
    cmd, d, seed, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    os.makedirs(d, exist_ok=True)
    if cmd == "gen":
        generate(d, seed, count)
    else:
        os.makedirs(os.path.join(d, "again"), exist_ok=True)
        check(d, seed, count)
