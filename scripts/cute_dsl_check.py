#!/usr/bin/env python3
"""Compares the CuTe DSL (`pip install nvidia-cutlass-dsl`) with ir/tests/data/cute_oracle.txt.

The DSL evaluates make_tiled_mma / make_tiled_copy_A and their thread-value layouts while it
traces a @cute.jit function: on a CPU, no GPU needed. Its names differ from CuTe C++'s:
`TiledMma.tv_layout_A` is the atom's layout, `tv_layout_A_tiled` is C++'s get_layoutA_TV();
a tiled copy's `layout_src_tv_tiled` / `layout_dst_tv_tiled` are get_layoutS_TV / D.

    python3 scripts/cute_dsl_check.py      # prints each case and exits 1 on a difference
"""
import os, sys
import cutlass
import cutlass.cute as cute
from cutlass.cute.nvgpu import warp

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = {}
for line in open(os.path.join(HERE, "..", "ir", "tests", "data", "cute_oracle.txt")):
    if "|" in line and not line.startswith(("#", "def:")):
        k, v = line.rstrip("\n").split("|", 1)
        ORACLE[k] = v.replace("_", "")

got = {}


@cute.jit
def trace():
    op = warp.MmaF16BF16Op(cutlass.Float16, cutlass.Float32, (16, 8, 16))
    t = cute.make_tiled_mma(op, cute.make_layout((2, 2, 1)))
    tp = cute.make_tiled_mma(op, cute.make_layout((2, 2, 1)), (32, 32, 16))
    for key, mma in (("sm80_2x2", t), ("sm80_2x2_p32", tp)):
        got[f"mma:{key}:A"] = str(mma.tv_layout_A_tiled)
        got[f"mma:{key}:B"] = str(mma.tv_layout_B_tiled)
        got[f"mma:{key}:C"] = str(mma.tv_layout_C_tiled)
    ldsm = cute.make_copy_atom(warp.LdMatrix8x8x16bOp(False, 4), cutlass.Float16)
    for key, tc in (("ldsm_a", cute.make_tiled_copy_A(ldsm, t)),
                    ("ldsm_a_p", cute.make_tiled_copy_A(ldsm, tp)),
                    ("ldsm_b_p", cute.make_tiled_copy_B(ldsm, tp))):
        got[f"copy:{key}:S"] = str(tc.layout_src_tv_tiled)
        got[f"copy:{key}:D"] = str(tc.layout_dst_tv_tiled)


trace()
bad = 0
for k, v in sorted(got.items()):
    ok = ORACLE.get(k) == v
    bad += not ok
    print(f"{'same' if ok else 'DIFFERENT'}  {k}  dsl {v}  c++ {ORACLE.get(k)}")
print(f"{len(got) - bad} of {len(got)} the same")
sys.exit(1 if bad else 0)
