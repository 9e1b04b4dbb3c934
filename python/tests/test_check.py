"""`tessera.check`: check files through the library behind `tessera check`."""
import os

import pytest
import tessera
from cases import ROOT

BROKEN = os.path.join(ROOT, "examples", "broken", "bank_conflict.tess")
INVERSES = os.path.join(ROOT, "examples", "inverses.tess")


def test_check_results():
    r = tessera.check(BROKEN, INVERSES, timeout=60)
    assert [p.file for p in r[:2]] == [BROKEN, BROKEN]
    assert (r[0].line, r[0].assertion, r[0].verdict) == (6, "bijective(Smem)", "proved")
    assert (r[1].line, r[1].verdict) == (7, "refuted")
    assert r[1].assertion == "bank_conflict_free(Smem, TV, elem=2, access=16)"
    assert "2-way conflict" in r[1].counterexample["summary"]
    assert len(r[1].counterexample["witnesses"]) == 2
    assert all(p.file == INVERSES and p.verdict == "proved" for p in r[2:])
    assert len(r) > 3 and all(p.time >= 0 for p in r)
    assert bool(r[0]) and not bool(r[1])
    assert f"{BROKEN}:7:" in repr(r[1])


def test_check_pathlib_and_threads():
    from pathlib import Path

    r = tessera.check(Path(INVERSES), threads=1)
    assert r and all(p.verdict == "proved" for p in r)


def test_check_errors(tmp_path):
    with pytest.raises(OSError):
        tessera.check(str(tmp_path / "missing.tess"))
    bad = tmp_path / "bad.tess"
    bad.write_text("param M where M % 4 == 0\nassert injective((M,4):(1,\n")
    with pytest.raises(tessera.LayoutError, match="bad.tess:2"):
        tessera.check(str(bad))
    with pytest.raises(TypeError):
        tessera.check()
    with pytest.raises(tessera.LayoutError):
        tessera.check(INVERSES, timeout=0)


def test_check_symbolic_file(tmp_path):
    f = tmp_path / "sym.tess"
    f.write_text("param M where M % 32 == 0, 32 <= M <= 4096\nassert injective((M,8):(8,1))\n"
                 "assert injective((M,8):(1,4))\n")
    r = tessera.check(str(f))
    assert [p.verdict for p in r] == ["proved", "refuted"]
    assert "M" in r[1].counterexample["params"]


def test_check_kernels():
    r = tessera.check(os.path.join(ROOT, "examples", "kernels.tess"))
    assert [p.assertion.split(":")[0] for p in r] == ["kernel transpose", "kernel gemm", "kernel bias_relu"]
    assert all(p.verdict == "proved" for p in r)


def test_engines_are_named_and_forced():
    # The portfolio names its engine; a forced engine answers alone.
    p = tessera.prove("injective", "Sw<3,3,3> o (8,64):(64,1)")
    assert (p.verdict, p.prover) == ("proved", "F2")
    p = tessera.prove("injective", "(48,40):(1,48)")
    assert (p.verdict, p.prover) == ("proved", "structural")
    p = tessera.prove("injective", "(2,3):(3,2)")
    assert (p.verdict, p.prover) == ("proved", "enumeration")
    p = tessera.prove("injective", "(2,3):(3,2)", engine="z3")
    assert (p.verdict, p.prover) == ("proved", "z3")
    p = tessera.prove("injective", "(2,3):(3,2)", engine="f2")
    assert p.verdict == "unknown" and "F2 fragment" in p.reason
    r = tessera.check(BROKEN, engine="enum")
    assert [p.prover for p in r] == ["enumeration", "enumeration"]
    assert r[1].verdict == "refuted"
    with pytest.raises(tessera.LayoutError, match="not an engine"):
        tessera.prove("injective", "4:1", engine="cvc5")
