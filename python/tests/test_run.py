"""`tessera.run`: a kernel of the kernel language, proved, compiled and run over NumPy arrays."""
import os
import threading

import pytest
import tessera
from cases import ROOT

np = pytest.importorskip("numpy")
KERNELS = os.path.join(ROOT, "examples", "kernels.tess")
M, N = 64, 32
BIND = {"M": M, "N": N}


def test_transpose_flat_arrays():
    src = np.arange(M * N, dtype=np.float32)
    dst = np.zeros(M * N, dtype=np.float32)
    assert tessera.run(KERNELS, "transpose", bind=BIND, src=src, dst=dst) is None
    # src is (M,N):(1,M) (column-major), dst (M,N):(N,1) (row-major).
    assert np.array_equal(src.reshape(N, M).T, dst.reshape(M, N))
    assert np.array_equal(src, np.arange(M * N, dtype=np.float32))  # inputs untouched


def test_transpose_fortran_and_c_arrays_in_place():
    src = np.asfortranarray(np.random.default_rng(1).random((M, N), dtype=np.float32))
    dst = np.zeros((M, N), dtype=np.float32)
    before = dst.ctypes.data
    tessera.run(KERNELS, "transpose", bind=BIND, src=src, dst=dst)
    assert np.array_equal(src, dst) and dst.ctypes.data == before


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "float16", "bf16"])
def test_every_dtype(tmp_path, dtype):
    elem = {"float32": "f32", "float64": "f64", "int32": "i32", "int64": "i64",
            "float16": "f16", "bf16": "bf16"}[dtype]
    f = tmp_path / "k.tess"
    f.write_text(f"param M where 1 <= M <= 64\ntensor a : {elem}[M:1]\ntensor b : {elem}[M:1]\n"
                 "kernel copy { b[i] = a[i] }\n")
    np_dtype = np.uint16 if dtype == "bf16" else np.dtype(dtype)
    a = (np.arange(16) * 3).astype(np_dtype)
    if dtype == "bf16":
        a = (np.arange(16, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)  # bf16 bits
    b = np.zeros(16, dtype=np_dtype)
    tessera.run(str(f), "copy", bind={"M": 16}, a=a, b=b)
    assert np.array_equal(a, b)


def test_bias_relu_f16():
    rng = np.random.default_rng(2)
    x = (rng.random((M, N)) - 0.5).astype(np.float16)
    b = rng.random(N).astype(np.float16)
    y = np.zeros((M, N), np.float16)
    tessera.run(KERNELS, "bias_relu", bind=BIND, x=x, b=b, y=y, threads=1)
    assert np.array_equal(y, np.maximum(x + b, np.float16(0)))


def test_refused_kernel_does_not_run(tmp_path):
    f = tmp_path / "race.tess"
    f.write_text("tensor x : f32[(4,4):(1,4)]\ntensor y : f32[(4,4):(0,1)]\n"
                 "kernel k { y[i,j] = x[i,j] }\n")
    y = np.full(4, 7, np.float32)
    with pytest.raises(tessera.LayoutError, match="k:"):
        tessera.run(str(f), "k", x=np.ones(16, np.float32), y=y)
    assert np.all(y == 7)


def test_bad_arguments():
    src = np.zeros(M * N, np.float32)
    dst = np.zeros(M * N, np.float32)
    with pytest.raises(tessera.LayoutError, match="not admitted"):
        tessera.run(KERNELS, "transpose", bind={"M": 33, "N": N}, src=src, dst=dst)
    with pytest.raises(tessera.LayoutError, match="not bound"):
        tessera.run(KERNELS, "transpose", bind={"M": M}, src=src, dst=dst)
    with pytest.raises(tessera.LayoutError, match="no kernel"):
        tessera.run(KERNELS, "nope", bind=BIND, src=src, dst=dst)
    with pytest.raises(tessera.LayoutError, match="f32"):
        tessera.run(KERNELS, "transpose", bind=BIND, src=src, dst=dst.astype(np.float64))
    with pytest.raises(tessera.LayoutError, match="cosize"):
        tessera.run(KERNELS, "transpose", bind=BIND, src=src[:10], dst=dst)
    with pytest.raises(TypeError, match="missing"):
        tessera.run(KERNELS, "transpose", bind=BIND, src=src)
    with pytest.raises(TypeError, match="no tensor 'z'"):
        tessera.run(KERNELS, "transpose", bind=BIND, src=src, dst=dst, z=dst)
    with pytest.raises(TypeError, match="contiguous"):
        tessera.run(KERNELS, "transpose", bind=BIND, src=np.zeros(2 * M * N, np.float32)[::2], dst=dst)
    with pytest.raises(TypeError, match="dtype"):
        tessera.run(KERNELS, "transpose", bind=BIND, src=src.astype(np.uint8), dst=dst)
    with pytest.raises(TypeError, match="NumPy"):
        tessera.run(KERNELS, "transpose", bind=BIND, src=[0.0] * (M * N), dst=dst)
    with pytest.raises(OSError):
        tessera.run("missing.tess", "k")
    ro = np.zeros(M * N, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        tessera.run(KERNELS, "transpose", bind=BIND, src=np.ones(M * N, np.float32), dst=ro)
    assert np.all(ro == 0)


def test_gil_released_while_running():
    # Two threads run kernels at once; each gets the right answer.
    out = {}

    def work(k):
        src = np.arange(M * N, dtype=np.float32) + k
        dst = np.zeros(M * N, np.float32)
        tessera.run(KERNELS, "transpose", bind=BIND, src=src, dst=dst)
        out[k] = np.array_equal(src.reshape(N, M).T, dst.reshape(M, N))

    ts = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert out == {0: True, 1: True, 2: True}
