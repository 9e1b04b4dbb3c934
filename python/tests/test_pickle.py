"""Pickling, copy and deepcopy of symbolic values and of `Proof`s (issue 25): round trips in
one process and across processes, contexts kept apart per `params` call, bound values kept."""
import copy
import os
import pickle
import subprocess
import sys

import pytest
import tessera
from tessera import Layout


def roundtrip(x):
    return pickle.loads(pickle.dumps(x))


def test_symbolic_values_round_trip_in_one_process():
    M, N = tessera.params("M, N where M % 8 == 0, 1 <= N <= 64")
    L = Layout((M, (4, N)), (1, (M, 4 * M)))
    for x in [M, N, M * N, M // 8, L, tessera.size(L)]:
        y = roundtrip(x)
        assert y == x and str(y) == str(x) and type(y) is type(x)
        assert copy.copy(x) is x and copy.deepcopy(x) is x
    # Restored values still mix with the originals: the same params call.
    A, B = roundtrip((M, L))
    assert str(tessera.composition(B, Layout(2, 1))) == "2:1"
    assert A * 2 == M * 2
    assert str(tessera.logical_divide(B, Layout(8, 1))) == str(tessera.logical_divide(L, Layout(8, 1)))


def test_bound_values_keep_their_bindings():
    M, N = tessera.params("M, N where M % 8 == 0")
    x = (M * N).bind(N=3)
    y = roundtrip(x)
    assert str(y) == "3*M" and y == x
    assert y.bind(M=8) == 24


def test_two_params_calls_stay_apart():
    M = tessera.params("M where M % 8 == 0")
    K = tessera.params("M where M % 8 == 0")
    a, b = roundtrip((M, K))
    assert a == M and b == K and a != b
    with pytest.raises(tessera.LayoutError, match="cannot be mixed"):
        a + b


CHILD = r"""
import pickle, sys, tessera
M, N = tessera.params("M, N where M % 16 == 0")
K = tessera.params("K where K > 0")
L = tessera.Layout((M, N), (1, M))
p = tessera.prove("injective", tessera.Layout((4, 2), (1, 2)))
sys.stdout.buffer.write(pickle.dumps((M, L, M * N, K, (M * N).bind(N=2), p)))
"""


def test_symbolic_values_round_trip_across_processes():
    out = subprocess.run([sys.executable, "-c", CHILD], check=True, capture_output=True).stdout
    M, L, MN, K, M2, p = pickle.loads(out)
    assert (str(M), str(L), str(MN), str(K), str(M2)) == ("M", "(M,N):(1,M)", "M*N", "K", "2*M")
    assert M.declaration == "M, N where M % 16 == 0"
    # One context for the values of one params call: they mix, and equal values compare equal.
    assert M * tessera.size(L) == M * MN
    assert str(tessera.composition(L, Layout(M, 1))) == "M:1"
    # The facts came back: M is a multiple of 16.
    assert str(M // 16) == "M/16"
    with pytest.raises(tessera.LayoutError, match="cannot be mixed"):
        M + K
    assert M2.bind(M=16) == 32
    assert p.verdict == "refuted" and p.counterexample["summary"] == "L(2) == L(4) == 2"
    # A second load joins the first one's context.
    M_again = pickle.loads(out)[0]
    assert M_again == M


def proofs():
    refuted = tessera.prove("injective", Layout((4, 2), (1, 2)))
    proved = tessera.prove("injective", Layout((4, 2), (1, 4)))
    M = tessera.params("M where M % 8 == 0")
    symbolic = tessera.prove("injective", Layout((M, 2), (1, M)))
    return [refuted, proved, symbolic]


FIELDS = ["verdict", "counterexample", "reason", "time", "assertion", "file", "line", "prover", "assumption"]


def test_proofs_pickle_and_copy():
    for p in proofs():
        for q in [roundtrip(p), copy.deepcopy(p), copy.copy(p)]:
            assert type(q) is tessera.Proof
            assert [getattr(q, f) for f in FIELDS] == [getattr(p, f) for f in FIELDS]
            assert repr(q) == repr(p) and q._repr_html_() == p._repr_html_() and bool(q) == bool(p)
    refuted = proofs()[0]
    assert "<svg" in roundtrip(refuted)._repr_html_()
    deep = copy.deepcopy(refuted)
    assert deep.counterexample == refuted.counterexample
    assert deep.counterexample is not refuted.counterexample
    deep.counterexample["witnesses"].clear()
    assert refuted.counterexample["witnesses"]
    assert copy.copy(refuted) is refuted


def test_check_proofs_keep_file_and_line(tmp_path):
    f = tmp_path / "a.tess"
    f.write_text("assert injective((4,2):(1,2))\nassert injective(8:1)\n")
    ps = tessera.check(str(f))
    qs = roundtrip(ps)
    assert [(q.file, q.line, q.verdict) for q in qs] == [(p.file, p.line, p.verdict) for p in ps]


def test_a_tampered_pickle_is_an_error():
    with pytest.raises(tessera.LayoutError):
        tessera._symbolic("x-1", "M where M %", [], "M")
    with pytest.raises(tessera.LayoutError):
        tessera._symbolic("x-2", "M", [], "size(")
    M = tessera.params("M")
    state = M.__reduce__()[1]
    with pytest.raises(tessera.LayoutError, match="unpickling"):
        tessera._symbolic(state[0], "N", [], "N")


def test_a_proofs_int64_assumption_survives_pickling():
    M, N = tessera.params("M, N where M >= 1, 1 <= N <= 4096")
    p = tessera.prove("injective", Layout((M, N), (1, M)))
    assert p.assumption and p.assumption.startswith("offsets fit in int64 (")
    for q in [roundtrip(p), copy.deepcopy(p)]:
        assert q.assumption == p.assumption and repr(q) == repr(p)
