"""PyCuTe parity: the checks of CUTLASS's PyCuTe unit tests (test/python/pycute), written
anew and run on tessera standing in for pycute (sys.modules["pycute"] = tessera), plus the
PyCuTe and CuTe names added for it: Integer, is_int, is_tuple, is_layout, shape_div,
filter(L, profile), complement(L, max_idx=), copy/deepcopy/pickle, coordinate evaluation
with every component, `eval` kept out of `from tessera import *`, None named as None."""

import copy
from fractions import Fraction
import importlib
import pickle
import sys

import pytest

import tessera


@pytest.fixture
def cute(monkeypatch):
    """tessera imported under PyCuTe's name, as a PyCuTe user's code would import it."""
    monkeypatch.setitem(sys.modules, "pycute", tessera)
    return importlib.import_module("pycute")


def test_int_tuple_functions(cute):
    assert cute.product(5) == 5 and cute.product((2, 7)) == 14
    assert cute.product(cute.product(((3, 2), 5))) == 30
    assert cute.inner_product(4, 5) == 20
    assert cute.inner_product((2, 3), (5, 1)) == 13
    assert cute.inner_product(((1, 2), 3), ((4, 5), 6)) == 32
    assert cute.prefix_product(7) == 1
    assert cute.prefix_product((2, 5, 3)) == (1, 2, 10)
    assert cute.prefix_product(((2, 2), (3, 1))) == ((1, 2), (4, 12))


def test_shape_div(cute):
    # Each mode divided by what the modes before it left of the divisor.
    assert cute.shape_div((2, 6), 4) == (1, 3)
    assert cute.shape_div((2, 6), 12) == (1, 1)
    assert cute.shape_div((2, 6), 24) == (1, 1)
    assert cute.shape_div(((2, 6), 5), 60) == ((1, 1), 1)
    assert cute.shape_div((4, (2, 6)), 16) == (1, (1, 3))
    with pytest.raises(tessera.LayoutError, match="divisibility condition"):
        cute.shape_div(6, 4)
    assert cute.ceil_div((4, 6), 8) == (1, 3)
    assert cute.elem_scale((2, 3), (4, (1, 5))) == (8, 15)


def test_typing(cute):
    for cls, obj, want in ((int, 3, True), (float, 3.0, False), (str, "x", False), (bool, True, False)):
        assert issubclass(cls, cute.Integer) == want
        assert isinstance(obj, cute.Integer) == want
    assert cute.is_int(4) and not cute.is_int((4,))
    assert cute.is_tuple((4,)) and not cute.is_tuple(4)
    assert cute.is_layout(cute.Layout(4, 1)) and not cute.is_layout((4, 1))


def test_layout_algebra_under_pycute_names(cute):
    L = cute.Layout
    assert cute.coalesce(L((2, (1, 6)), (1, (6, 2)))) == L(12, 1)
    assert cute.filter(L((2, 4, 3), (0, 1, 4))) == L(12, 1)
    # filter by mode: mode 0 kept, mode 1 filtered.
    a = L(((2, 2), (3, 1)), ((0, 1), (2, 5)))
    assert cute.filter(a, (None, 1)) == L(((2, 2), 3), ((0, 1), 2))
    assert str(cute.complement(L(4, 2), max_idx=16)) == "(2,2):(1,8)"
    assert cute.complement(L(4, 2), 16) == cute.complement(L(4, 2), extend=16)
    assert cute.composition(L((4, 8), (8, 1)), L(8, 4)) == L(8, 1)
    assert cute.composition(L((4, 8), (8, 1)), L((2, 4), (1, 8))) == L((2, 4), (8, 2))
    assert cute.right_inverse(L((4, 8), (8, 1))) == L((8, 4), (4, 1))
    assert cute.left_inverse(L((4, 8), (8, 1))) == L((8, 4), (4, 1))
    assert str(cute.logical_product(L(2, 1), L(3, 1))) == "(2,3):(1,2)"
    assert str(cute.logical_divide(L(12, 1), L(4, 1))) == "(4,3):(1,4)"
    # `None` as the whole tiler is A itself, as in PyCuTe.
    A = L((3, 7), (7, 1))
    assert cute.logical_product(A, None) is A and cute.logical_divide(A, None) is A


def test_new_cute_functions():
    L = tessera.Layout
    assert str(tessera.append(L((4, 8), (1, 4)))) == "(4,8,1):(1,4,0)"
    assert tessera.append((2, 3), 4, 5) == (2, 3, 4, 4, 4)
    assert tessera.prepend((2, 3), 1) == (1, 2, 3)
    assert str(tessera.replace(L((4, 8), (1, 4)), 1, L((2, 4), (4, 8)))) == "(4,(2,4)):(1,(4,8))"
    assert tessera.group_modes((1, 2, 3, 4), 1, 3) == (1, (2, 3), 4)
    assert str(tessera.group(L((2, 3, 4), (1, 2, 6)), 0, 2)) == "((2,3),4):((1,2),6)"
    assert str(tessera.tile_to_shape(L((2, 2), (1, 2)), (4, 6))) == "((2,2),(2,3)):((1,4),(2,8))"
    assert str(tessera.make_fragment_like(L((4, 8), (8, 1)))) == "(4,8):(1,4)"
    assert str(tessera.max_common_layout(L((4, 8), (1, 4)), L((4, 8), (1, 5)))) == "4:1"
    assert str(tessera.filter_zeros(L((4, (2, 3)), (0, (1, 0))))) == "(1,(2,1)):(0,(1,0))"
    assert str(tessera.upcast(L((4, 8), (8, 1)), 4)) == "(4,2):(2,1)"
    assert str(tessera.downcast(L((4, 2), (2, 1)), 4)) == "(4,8):(8,1)"
    with pytest.raises(tessera.LayoutError, match="requires adjacent elements"):
        tessera.downcast(L(8, 4), 2)
    assert str(tessera.composition(tessera.Swizzle(2, 4, 3), L(16, 1))) == "Sw<2,4,3> o 16:1"
    sw = tessera.ComposedLayout.parse("Sw<3,3,3> o (8,64):(64,1)")
    assert str(tessera.recast(sw, 2)) == "Sw<3,2,3> o (8,32):(32,1)"
    assert str(tessera.upcast(sw, 2)) == "Sw<3,2,3> o (8,32):(32,1)"
    assert str(tessera.recast(sw, Fraction(1, 2))) == "Sw<3,4,3> o (8,128):(128,1)"


def test_coordinate_strides_keep_every_component():
    ident = tessera.make_identity_layout((4, 3))
    assert [ident(i) for i in range(5)] == [(0, 0), (1, 0), (2, 0), (3, 0), (0, 1)]
    assert ident(2, 1) == (2, 1)


def test_scaled_basis_objects():
    E, SB = tessera.E, tessera.ScaledBasis
    ident = tessera.make_identity_layout((4, 3))
    assert ident.stride == (E(0), E(1)) and ident.stride == ("1@0", "1@1")
    assert isinstance(ident.stride[0], SB) and ident.stride[1].value == 1 and list(ident.stride[1].mode) == [1]
    L = tessera.Layout((4, 3), (E(0), 2 * E(1)))
    assert str(L) == "(4,3):(1@0,2@1)" and L(5) == (1, 2)
    assert eval(repr(ident), {"Layout": tessera.Layout, "ScaledBasis": SB}) == ident
    s = E(0) + E(1)
    assert str(s) == "1@0+1@1" and s.value is None
    assert pickle.loads(pickle.dumps(3 * E(1))) == SB(3, 1)
    with pytest.raises(tessera.LayoutError):
        SB(1)


def test_copy_deepcopy_pickle():
    objs = [
        tessera.Layout(((2, 4), 8), ((1, 16), 2)),
        tessera.Swizzle(3, 3, 3),
        tessera.ComposedLayout.parse("Sw<3,3,3> o 4 o (8,64):(64,1)"),
    ]
    for o in objs:
        assert copy.copy(o) == o
        assert copy.deepcopy(o) == o
        assert pickle.loads(pickle.dumps(o)) == o
        assert str(pickle.loads(pickle.dumps(o))) == str(o)


def test_star_import_leaves_eval_alone():
    ns = {}
    exec("from tessera import *", ns)
    assert "eval" not in ns and "Layout" in ns and "shape_div" in ns
    assert tessera.eval("size((2,3))") == 6


def test_none_is_reported_as_none():
    with pytest.raises(tessera.LayoutError) as e:
        tessera.composition(None, tessera.Layout(4, 1))
    assert "None" in str(e.value) and "'_'" not in str(e.value)


def test_f2_objects():
    F2 = tessera.F2
    L = tessera.Layout.parse("(2,2,2):(F2(1),F2(3),F2(4))")
    assert L.stride == (F2(1), F2(3), F2(4)) and L.stride[1] == "F2(3)"
    assert [int(L(i)) for i in range(8)] == [0, 1, 3, 2, 4, 5, 7, 6]
    assert isinstance(L(0), F2)
    assert str(tessera.Layout((2, 2), (F2(1), F2(2)))) == "(2,2):(F2(1),F2(2))"
    assert F2(3) + F2(5) == F2(6) and F2(3) ^ 5 == F2(6)
    assert pickle.loads(pickle.dumps(F2(7))) == F2(7)


def test_mode_slices():
    L = tessera.Layout((2, 3, 4), (1, 2, 6))
    assert str(L[0:2]) == "(2,3):(1,2)" and str(L[1:]) == "(3,4):(2,6)" and str(L[::2]) == "(2,4):(1,6)"
    assert L[-1] == tessera.Layout(4, 6)
