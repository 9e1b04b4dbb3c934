"""The results the book's Python reference shows (docs/src/reference/python.md), checked one by
one; the page's examples themselves run as doctests (scripts/test.sh: pytest --doctest-glob)."""
import tessera
from tessera import Layout


def test_python_reference_results():
    A = Layout((3, (2, 4)), (2, (1, 6)))
    assert (A(17), A(2, 5), A(2, (1, 2)), repr(A[1][0])) == (17, 17, 17, "Layout(2, 1)")
    assert A == Layout.parse("(3,(2,4)):(2,(1,6))")
    assert str(tessera.composition(Layout((6, 2), (8, 2)), Layout((4, 3), (3, 1)))) == "((2,2),3):((24,2),8)"
    assert repr(tessera.complement(Layout(4, 2), extend=20)) == "Layout((2, 3), (1, 8))"
    p = tessera.prove("injective", Layout((4, 8), (8, 2)))
    assert (p.verdict, p.counterexample["summary"]) == ("refuted", "L(1) == L(16) == 8")
    M, N = tessera.params("M, N where M % 128 == 0, 1 <= N <= 4096")
    L = Layout((M, N), (1, M))
    assert (str(L), repr(L.size())) == ("(M,N):(1,M)", 'Sym("M*N")')
    assert str(tessera.logical_divide(L, (Layout(128, 1), None))) == "((128,M/128),N):((1,128),M)"
    assert tessera.prove("injective", L).verdict == "proved"
