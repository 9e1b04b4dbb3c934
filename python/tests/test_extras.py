"""prove, lower and emit: Tessera's prover and code generators from Python."""
import threading

import pytest
import tessera
from tessera import Layout, LayoutError


def test_prove_injective():
    p = tessera.prove("injective", Layout((4, 8), (8, 1)))
    assert p and p.verdict == "proved" and p.counterexample is None and p.reason is None
    assert p.time >= 0 and p.assertion == "injective((4,8):(8,1))"
    q = tessera.prove("injective", Layout((4, 8), (8, 2)))
    assert not q and q.verdict == "refuted"
    c = q.counterexample
    assert c["summary"] == "L(1) == L(16) == 8" and c["params"] == {}
    assert [(w["index"], w["value"]) for w in c["witnesses"]] == [(1, "8"), (16, "8")]
    assert "refuted" in repr(q)


def test_prove_other_properties():
    assert tessera.prove("equal", tessera.coalesce(Layout((2, (1, 6)), (1, (6, 2)))), Layout(12, 1))
    assert tessera.prove("bijective", "(4,8):(8,1)")
    assert not tessera.prove("contiguous", Layout((4, 8), (8, 1)))
    sw = tessera.eval("Sw<3,3,3> o (8,64):(64,1)")
    t = Layout(((8, 4), 8), ((1, 64), 8))
    assert tessera.prove("bank_conflict_free", sw, t, elem=2, access=16)
    assert not tessera.prove("bank_conflict_free", Layout((8, 64), (64, 1)), t, elem=2, access=16)


def test_prove_bad_input():
    with pytest.raises(LayoutError, match="unknown property 'nonsense'"):
        tessera.prove("nonsense", Layout(4, 1))
    with pytest.raises(LayoutError):
        tessera.prove("injective", Layout(4, 1), timeout=-1)


def test_prove_releases_the_gil():
    """Proofs on several Python threads: each releases the GIL while z3 works."""
    results = []

    def work():
        results.append(bool(tessera.prove("injective", Layout((16, 16), (1, 16)))))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results == [True] * 4


def test_lower_and_emit():
    low = tessera.lower(Layout((4, 8), (8, 1)))
    assert low.startswith("# (4,8):(8,1) at linear index i") and "offset =" in low
    c = tessera.emit(Layout((4, 8), (8, 1)))
    assert "static inline int64_t index_fn(int64_t i) {" in c
    r = tessera.emit("(4,8):(8,1)", lang="rust", name="f")
    assert "pub fn f(i: i64) -> i64 {" in r
    assert ".visible .func" in tessera.emit(Layout(8, 2), lang="ptx")
    with pytest.raises(LayoutError):
        tessera.emit(Layout(8, 2), lang="cobol")


def test_a_refutation_shows_its_picture_in_notebooks():
    """A refuted proof's HTML has the counterexample drawn, as the check report draws it."""
    import xml.etree.ElementTree as ET

    p = tessera.prove("injective", tessera.Layout((4, 4), (1, 2)))
    assert p.verdict == "refuted"
    html = p._repr_html_()
    assert "refuted" in html and "<svg" in html
    ET.fromstring(html)  # well-formed: the SVG inline, the text escaped
    b = tessera.prove("bank_conflict_free", "(32,32):(32,1)", "(32,32):(1,32)", elem=4, access=4)
    assert b.verdict == "refuted" and "<svg" in b._repr_html_()
    ok = tessera.prove("injective", tessera.Layout((4, 4), (1, 4)))
    assert ok.verdict == "proved" and "<svg" not in ok._repr_html_()
