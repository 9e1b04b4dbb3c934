"""CuTe's atoms from Python: the objects of make_tiled_mma / make_tiled_copy and their CuTe DSL
attributes, checked against what CuTe C++ prints (ir/tests/data/cute_oracle.txt)."""

import os

import pytest
import tessera
from tessera import Layout

ORACLE = {}
with open(os.path.join(os.path.dirname(__file__), "..", "..", "ir", "tests", "data", "cute_oracle.txt")) as f:
    for line in f:
        if "|" in line and not line.startswith(("#", "def:")):
            k, v = line.rstrip("\n").split("|", 1)
            ORACLE[k] = v.replace("_", "")


def test_a_tiled_mma_has_the_dsl_attributes():
    t = tessera.make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1))
    assert isinstance(t, tessera.Atom) and t.kind == "tiled MMA"
    assert str(t.tv_layout_A) == ORACLE["mma:sm80_2x2:A"]
    assert str(t.tv_layout_B) == ORACLE["mma:sm80_2x2:B"]
    assert str(t.tv_layout_C) == ORACLE["mma:sm80_2x2:C"]
    assert t.tile_size == (32, 16, 16)
    assert tessera.tv_layout_A(t) == t.tv_layout_A
    assert str(t.partition_A(Layout((128, 32), (32, 1)), 37)) == ORACLE["part:pa_k:37"]
    assert tessera.eval(repr(t)) == t


def test_permutations_and_copies():
    t = tessera.make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN", (2, 2, 1), (32, 32, 16))
    assert str(t.tv_layout_B) == ORACLE["mma:sm80_2x2_p32:B"]
    lds = tessera.make_tiled_copy_B(tessera.copy_atom("SM75_U32x4_LDSM_N", 16), t)
    assert lds.kind == "tiled copy"
    assert str(lds.tv_layout_S) == ORACLE["copy:ldsm_b_p:S"]
    cp = tessera.make_tiled_copy(tessera.copy_atom("SM80_CP_ASYNC_CACHEALWAYS_128", 16), Layout((32, 4), (4, 1)), (1, 8))
    assert str(cp.tv_layout_D) == ORACLE["copy:cpasync_k:D"]
    assert str(cp.partition_S(Layout((128, 32), (32, 1)), 5)) == ORACLE["part:ps_cp:5"]
    assert str(tessera.smem_atom("Layout_K_SW128_Atom", 16)) == "Sw<3,3,3> o (8,64):(64,1)"
    assert str(tessera.tma_swizzle("SW64", 16)) == "Sw<2,3,3>"


def test_cute_static_asserts_are_layout_errors():
    with pytest.raises(tessera.LayoutError, match="too few vals"):
        tessera.make_tiled_copy(tessera.copy_atom("UniversalCopy_128", 16), (32, 8), (4, 1))
    with pytest.raises(tessera.LayoutError, match="must have K major"):
        tessera.make_tiled_mma("SM90_64x64x16_F16F16F16_RS_NT")
    with pytest.raises(tessera.LayoutError, match="not an atom name"):
        tessera.make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN), (1")
