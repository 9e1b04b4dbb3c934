"""`fn[mode]`: PyCuTe's `ComposedLayout[i]` (CuTe's `get<I>(ComposedLayout)`) keeps the
swizzle and offset around mode i of the domain; symbolic layouts' modes; the expression
language's `get` on functions; bad modes as IndexError / LayoutError with a caret."""
import pytest
import tessera
from tessera import ComposedLayout, Layout


def test_composed_layout_modes_keep_the_function():
    C = ComposedLayout.parse("Sw<3,0,3> o 5 o ((8,2),8):((8,64),1)")
    c0, c1 = C[0], C[1]
    assert str(c0) == "Sw<3,0,3> o 5 o (8,2):(8,64)" and str(c1) == "Sw<3,0,3> o 5 o 8:1"
    assert C[-1] == c1 and C[0][1] == ComposedLayout.parse("Sw<3,0,3> o 5 o 2:64")
    # Pointwise: mode i at j is C at the coordinate with j in mode i, 0 elsewhere.
    assert [c0(j) for j in range(16)] == [C(j, 0) for j in range(16)]
    assert [c1(j) for j in range(8)] == [C(0, j) for j in range(8)]
    assert C[0:2] == C
    assert str(C[::-1]) == "Sw<3,0,3> o 5 o (8,(8,2)):(1,(8,64))"
    # The expression language's get is the same selection.
    assert tessera.get(C, 0) == c0 and tessera.get(C, 0, 1) == C[0][1]
    assert str(tessera.select(C, (1, 0))) == "Sw<3,0,3> o 5 o (8,(8,2)):(1,(8,64))"


def test_pycute_composed_layout_agrees():
    pycute = pytest.importorskip("pycute")
    P = pycute.ComposedLayout(pycute.Swizzle(3, 0, 3), 5, pycute.Layout(((8, 2), 8), ((8, 64), 1)))
    C = ComposedLayout.parse("Sw<3,0,3> o 5 o ((8,2),8):((8,64),1)")
    for i in range(2):
        assert [P[i](j) for j in range(P[i].size())] == [C[i](j) for j in range(C[i].size())]


def test_bad_modes():
    C = ComposedLayout.parse("Sw<3,0,3> o (8,8):(8,1)")
    with pytest.raises(IndexError, match="mode 2 of a rank-2"):
        C[2]
    with pytest.raises(IndexError, match="mode -3 of a rank-2"):
        Layout((2, 3))[-3]
    with pytest.raises(tessera.LayoutError) as e:
        tessera.get(C, 2)
    # Python calls have no source line: the message names the mode and the rank.
    assert "mode 2 out of range: (8,8):(8,1) has 2 modes (0..2)" in str(e.value)
    # tessera.eval has one: the caret points at the bad mode.
    with pytest.raises(tessera.LayoutError) as e:
        tessera.eval("get(Sw<3,0,3> o (8,8):(8,1), 2)")
    lines = str(e.value).splitlines()
    assert lines[-1].index("^") == lines[-2].index(", 2)") + 2


def test_symbolic_modes():
    M, N = tessera.params("M, N where M % 8 == 0")
    L = Layout((M, (4, N)), (1, (M, 4 * M)))
    assert str(L[0]) == "M:1" and str(L[1]) == "(4,N):(M,4*M)" and str(L[-1][1]) == "N:4*M"
    assert str(L[::-1]) == "((4,N),M):((M,4*M),1)"
    assert L[1] == tessera.get(L, 1)
    # A mode without symbols comes back concrete.
    assert Layout((M, 4), (1, 8))[1] == Layout(4, 8)
    with pytest.raises(IndexError, match="rank-2"):
        L[2]
