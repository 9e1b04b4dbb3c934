"""`tessera.run`: a kernel of the kernel language, proved, compiled and run over NumPy arrays."""
import os
import threading
import tracemalloc

import pytest
import tessera
from cases import ROOT

np = pytest.importorskip("numpy")
KERNELS = os.path.join(ROOT, "examples", "kernels.tess")
M, N = 64, 32
BIND = {"M": M, "N": N}


def test_transpose_flat_buffers_with_storage():
    src = np.arange(M * N, dtype=np.float32)
    dst = np.zeros(M * N, dtype=np.float32)
    how = tessera.run(KERNELS, "transpose", bind=BIND, storage=True, src=src, dst=dst)
    assert how == {"src": "view", "dst": "view"}  # contiguous raw buffers: lent, no copy
    # src is (M,N):(1,M) (column-major), dst (M,N):(N,1) (row-major).
    assert np.array_equal(src.reshape(N, M).T, dst.reshape(M, N))
    assert np.array_equal(src, np.arange(M * N, dtype=np.float32))  # inputs untouched


def test_arrays_by_shape_never_by_storage():
    a = np.arange(M * N, dtype=np.float32).reshape(M, N)
    dst = np.zeros((M, N), np.float32)
    # The column-major tensor takes a Fortran-order array, a C-order one is refused with the fix.
    tessera.run(KERNELS, "transpose", bind=BIND, src=np.asfortranarray(a), dst=dst)
    assert np.array_equal(dst, a)
    cases = [
        (a, r"np\.asfortranarray\(a\)"),
        (np.ascontiguousarray(a.T), r"fix: a\.T"),
        (a.reshape(2, 32, 32), r"reshape"),
        (a.reshape(-1), r"shape \(64, 32\) with strides \(1, 64\)"),
        (np.asfortranarray(a)[:, ::2], r"shape \(64, 16\)"),
    ]
    for bad, fix in cases:
        dst[...] = 7
        with pytest.raises(ValueError, match=fix):
            tessera.run(KERNELS, "transpose", bind=BIND, src=bad, dst=dst)
        assert np.all(dst == 7)  # nothing ran
    # A non-contiguous view whose strides are the layout's: accepted, read and written by
    # coordinate.
    wide = np.asfortranarray(np.zeros((M, N + 8), np.float32))
    view = wide[:, :N]
    view[...] = a
    big = np.zeros((M, 2 * N), np.float32)
    with pytest.raises(ValueError, match=r"strides \(64, 2\)"):
        tessera.run(KERNELS, "transpose", bind=BIND, src=view, dst=big[:, ::2])
    out = np.zeros((M, N), np.float32)
    tessera.run(KERNELS, "transpose", bind=BIND, src=view, dst=out)
    assert np.array_equal(out, a) and np.all(wide[:, N:] == 0)


def test_hierarchical_offset_and_broadcast_layouts(tmp_path):
    f = tmp_path / "h.tess"
    f.write_text("tensor x : f32[((2,3),4):((1,2),6)]\ntensor y : f32[((2,3),4):((12,4),1)]\n"
                 "kernel h { y[i,j] = x[i,j] }\n"
                 "tensor v : f32[3 o (2,2):(1,4)]\ntensor w : f32[(2,2):(0,1)]\ntensor z : f32[(2,2):(2,1)]\n"
                 "kernel o { z[i,j] = v[i,j] + w[i,j] }\n")
    x = np.asfortranarray(np.arange(24, dtype=np.float32).reshape(6, 4))
    y = np.zeros((2, 3, 4), np.float32)  # the leaves' shape, C order: strides (12, 4, 1)
    tessera.run(str(f), "h", x=x, y=y)
    assert np.array_equal(y.reshape(6, 4, order="F"), x)
    # The top-level shape of y has no single stride for its first mode: refused.
    with pytest.raises(ValueError, match=r"shape \(2, 3, 4\)"):
        tessera.run(str(f), "h", x=x, y=np.zeros((6, 4), np.float32))
    # An offset view of a buffer, and a broadcast (stride 0) array.
    base = np.arange(16, dtype=np.float32)
    v = np.lib.stride_tricks.as_strided(base[3:], shape=(2, 2), strides=(4, 16))
    w = np.broadcast_to(np.array([10, 20], np.float32), (2, 2))
    z = np.zeros((2, 2), np.float32)
    tessera.run(str(f), "o", v=v, w=w, z=z)
    assert np.array_equal(z, v + w)


def test_zero_size_arrays():
    # Tensors have positive extents (a layout's shape is positive), so an empty array never
    # matches one: it is refused with the shape it needs, never read as an empty buffer.
    dst = np.zeros((M, N), np.float32)
    for empty in (np.zeros((0, N), np.float32), np.zeros((M, 0), np.float32, order="F"), np.zeros(0, np.float32)):
        with pytest.raises(ValueError, match=r"needs shape \(64, 32\)"):
            tessera.run(KERNELS, "transpose", bind=BIND, src=empty, dst=dst)


def test_bad_arguments():
    src = np.zeros((M, N), np.float32, order="F")
    dst = np.zeros((M, N), np.float32)
    with pytest.raises(tessera.LayoutError, match="not admitted"):
        tessera.run(KERNELS, "transpose", bind={"M": 33, "N": N}, src=src, dst=dst)
    with pytest.raises(tessera.LayoutError, match="not bound"):
        tessera.run(KERNELS, "transpose", bind={"M": M}, src=src, dst=dst)
    with pytest.raises(tessera.LayoutError, match="no kernel"):
        tessera.run(KERNELS, "nope", bind=BIND, src=src, dst=dst)
    with pytest.raises(TypeError, match="f32"):
        tessera.run(KERNELS, "transpose", bind=BIND, src=src, dst=dst.astype(np.float64))
    with pytest.raises(ValueError, match=r"shape \(64, 32\)"):
        tessera.run(KERNELS, "transpose", bind=BIND, src=src[:10], dst=dst)
    with pytest.raises(TypeError, match="holds 2048"):
        tessera.run(KERNELS, "transpose", bind=BIND, storage=True, src=np.zeros(10, np.float32), dst=dst)
    with pytest.raises(TypeError, match="missing"):
        tessera.run(KERNELS, "transpose", bind=BIND, src=src)
    with pytest.raises(TypeError, match="no tensor 'z'"):
        tessera.run(KERNELS, "transpose", bind=BIND, src=src, dst=dst, z=dst)
    with pytest.raises(TypeError, match="contiguous"):
        tessera.run(KERNELS, "transpose", bind=BIND, storage=True, src=np.zeros(2 * M * N, np.float32)[::2],
                    dst=dst)
    with pytest.raises(TypeError, match="dtype"):
        tessera.run(KERNELS, "transpose", bind=BIND, src=src.astype(np.uint8), dst=dst)
    with pytest.raises(TypeError, match="NumPy"):
        tessera.run(KERNELS, "transpose", bind=BIND, src=[0.0] * (M * N), dst=dst)
    with pytest.raises(OSError):
        tessera.run("missing.tess", "k")
    ro = np.zeros((M, N), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        tessera.run(KERNELS, "transpose", bind=BIND, src=np.ones((M, N), np.float32, order="F"), dst=ro)
    assert np.all(ro == 0)


def test_gil_released_while_running():
    # Two threads run kernels at once; each gets the right answer.
    out = {}

    def work(k):
        src = np.asfortranarray(np.arange(M * N, dtype=np.float32).reshape(M, N) + k)
        dst = np.zeros((M, N), np.float32)
        tessera.run(KERNELS, "transpose", bind=BIND, src=src, dst=dst)
        out[k] = np.array_equal(src, dst)

    ts = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert out == {0: True, 1: True, 2: True}


ZERO_COPY = """param M, N where 1 <= M <= 4096, 1 <= N <= 4096
tensor x : f32[(M,N):(N,1)]
tensor y : f32[(M,N):(1,M)]
tensor p : f32[(M,N):(N+3,1)]
tensor xl : f32[(48,40):(40,1)]
tensor q : f32[(48,40):(43,1)] of 2064
tensor h : f16[(M,N):(N,1)]
tensor g : f16[(M,N):(1,M)]
kernel scale { y[i,j] = x[i,j] * 2.0 }
kernel padded { p[i,j] = x[i,j] + 1.0 }
kernel stated { q[i,j] = xl[i,j] + 1.0 }
kernel half { g[i,j] = h[i,j] * h[i,j] }
"""


def peak_bytes(f):
    """The peak of Python's own allocations (bytes objects, NumPy arrays) while `f` runs."""
    tracemalloc.start()
    try:
        f()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_matching_arrays_run_in_place_without_a_copy(tmp_path):
    f = tmp_path / "z.tess"
    f.write_text(ZERO_COPY)
    m, n = 512, 256  # 512 KiB per f32 array
    bind = {"M": m, "N": n}
    x = np.arange(m * n, dtype=np.float32).reshape(m, n)
    y = np.zeros((m, n), np.float32, order="F")
    addr = y.__array_interface__["data"][0]
    how = {}
    peak = peak_bytes(lambda: how.update(tessera.run(str(f), "scale", bind=bind, x=x, y=y)))
    assert how == {"x": "view", "y": "view"}
    assert np.array_equal(y, 2 * x) and y.__array_interface__["data"][0] == addr
    # No copy of either array was made: Python allocated far less than one array's bytes
    # (a copy reads each array with tobytes, and writes the output back from a fresh one).
    assert peak < x.nbytes // 8, peak

    # The same kernel on arrays that do not lend their memory: copied in and out, still by
    # coordinate and into the caller's arrays. A read-only input, an input in the other
    # order (refused, as ever), an output that shares memory with the input.
    ro = x.copy()
    ro.flags.writeable = False
    y[...] = 0
    peak = peak_bytes(lambda: how.update(tessera.run(str(f), "scale", bind=bind, x=ro, y=y)))
    assert how == {"x": "copy", "y": "view"} and np.array_equal(y, 2 * x)
    assert peak >= x.nbytes, peak  # the input's bytes were read
    with pytest.raises(ValueError, match=r"np\.ascontiguousarray\(a\)"):
        tessera.run(str(f), "scale", bind=bind, x=np.asfortranarray(x), y=y)
    both = np.zeros(2 * m * n, np.float32)
    xs = both[: m * n].reshape(m, n)
    xs[...] = x
    ys = np.lib.stride_tricks.as_strided(both[m * n // 2 :], shape=(m, n), strides=(4, 4 * m))
    assert np.shares_memory(xs, ys)
    how = tessera.run(str(f), "scale", bind=bind, x=xs, y=ys)
    assert how == {"x": "copy", "y": "copy"}
    # Copy semantics: the kernel read x before any output was written back.
    assert np.array_equal(ys, 2 * x)


def test_strided_views_lend_their_span(tmp_path):
    f = tmp_path / "z.tess"
    f.write_text(ZERO_COPY)
    m, n = 48, 40
    bind = {"M": m, "N": n}
    x = np.random.default_rng(1).standard_normal((m, n)).astype(np.float32)
    # p's layout is (M,N):(N+3,1), its buffer its cosize: a padded array's first N columns.
    wide = np.full((m, n + 3), -7.0, np.float32)
    how = tessera.run(str(f), "padded", bind=bind, x=x, p=wide[:, :n])
    assert how == {"x": "view", "p": "view"}
    assert np.array_equal(wide[:, :n], x + 1) and np.all(wide[:, n:] == -7)  # padding untouched
    # q states a buffer of 48*43 elements, longer than the span of the view's elements: lending
    # it would reach past the caller's array, so it is copied (and still written in place).
    wide[...] = -7
    how = tessera.run(str(f), "stated", xl=x, q=wide[:, :n])
    assert how == {"xl": "view", "q": "copy"}
    assert np.array_equal(wide[:, :n], x + 1) and np.all(wide[:, n:] == -7)
    # An unaligned array (a float32 view at an odd byte): the buffer protocol refuses to lend
    # it as f32 elements, so it is copied.
    raw = np.zeros(m * n * 4 + 1, np.uint8)
    odd = np.frombuffer(raw.data, np.float32, count=m * n, offset=1).reshape(m, n)
    odd[...] = x
    how = tessera.run(str(f), "padded", bind=bind, x=odd, p=wide[:, :n])
    assert how == {"x": "copy", "p": "view"} and np.array_equal(wide[:, :n], x + 1)
    # f16 through its bits.
    h = (np.random.default_rng(2).standard_normal((m, n)) * 3).astype(np.float16)
    g = np.zeros((m, n), np.float16, order="F")
    how = tessera.run(str(f), "half", bind=bind, h=h, g=g)
    assert how == {"h": "view", "g": "view"}
    assert np.array_equal(g.view(np.uint16), (h * h).view(np.uint16))
