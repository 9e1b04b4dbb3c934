"""Symbolic extents: `tessera.params`, `Sym`, symbolic layouts through the algebra and `prove`."""
import pytest
import tessera
from tessera import Layout, LayoutError, Sym

DECL = "M, N where M % 128 == 0, 1 <= N <= 4096"


@pytest.fixture
def mn():
    return tessera.params(DECL)


def test_params_returns_symbols(mn):
    M, N = mn
    assert isinstance(M, Sym) and str(M) == "M" and str(N) == "N"
    assert M.declaration == DECL
    assert repr(M) == 'Sym("M")'
    K = tessera.params("K where K >= 1")  # one name: the symbol itself
    assert isinstance(K, Sym) and str(K) == "K"


def test_params_bad_declarations():
    with pytest.raises(LayoutError):
        tessera.params("M where")
    with pytest.raises(LayoutError, match="built-in"):
        tessera.params("size where size >= 1")


def test_arithmetic(mn):
    M, N = mn
    assert str(M * 2) == "2*M"
    assert str(2 * M + N) == "2*M+N"
    assert str(M // 128) == "M/128"
    assert str((M + 1) * 2) == "2*M+2"
    assert M % 128 == 0 or str(M % 128) == "0"
    assert str(M - M) == "0" or M - M == 0
    with pytest.raises(LayoutError):
        M // 3  # not exact under the facts
    with pytest.raises(TypeError):
        M + 1.5


def test_symbolic_layout(mn):
    M, N = mn
    L = Layout((M, N), (1, M))
    assert L.symbolic and not Layout((4, 8)).symbolic
    assert str(L) == "(M,N):(1,M)"
    assert str(L.size()) == "M*N" and isinstance(L.size(), Sym)
    assert str(L.cosize()) == "M*N"
    assert L.rank() == 2 and L.depth() == 1
    assert [str(x) for x in L.shape] == ["M", "N"]
    assert L.stride[0] == 1 and str(L.stride[1]) == "M"
    assert L == Layout((M, N), (1, M)) and L != Layout((N, M), (1, N))
    assert hash(L) == hash(Layout((M, N), (1, M)))
    assert "symbolic Layout (M,N):(1,M)" in repr(L)
    assert L._repr_svg_() is None
    # Compact stride, lists, and a symbol that becomes a constant.
    assert str(Layout([M, 4])) == "(M,4):(1,M)"
    assert Layout((M - M + 4, 2)) == Layout((4, 2))


def test_algebra_through_the_session(mn):
    M, N = mn
    L = Layout((M, N), (1, M))
    assert str(tessera.logical_divide(L, (Layout(128, 1), None))) == "((128,M/128),N):((1,128),M)"
    assert str(tessera.coalesce(L)) == "M*N:1"
    assert str(tessera.composition(L, Layout(M, 1))) == "M:1"
    assert str(tessera.size(L)) == "M*N"
    assert str(tessera.complement(Layout(M, 1), M * N)) == "N:M"
    # A keyword argument takes the symbolic path too.
    assert str(tessera.complement(Layout(M, 1), cotarget=M * N)) == "N:M"
    # The facts decide the pre-conditions: N may be below 16.
    with pytest.raises(LayoutError, match="N"):
        tessera.composition(Layout((16, 8), (1, 100)), N)
    # A symbolic result that is constant comes back concrete.
    assert tessera.rank(L) == 2


def test_matches_eval_param():
    M = tessera.params("M where M % 128 == 0")
    N = tessera.params("N where N % 64 == 0")
    with pytest.raises(LayoutError, match="cannot be mixed"):
        Layout((M, N))
    M, N = tessera.params("M, N where M % 128 == 0, N % 64 == 0")
    r = tessera.logical_divide(Layout((M, N), (1, M)), (Layout(128, 1), Layout(64, 1)))
    assert str(r) == "((128,M/128),(64,N/64)):((1,128),(M,64*M))"


def test_unsupported_operations_raise(mn):
    M, N = mn
    L = Layout((M, N), (1, M))
    with pytest.raises(LayoutError, match="symbolic"):
        L(3)
    # L[0] is supported now: the symbolic mode (tests/test_mode_select.py).
    assert str(L[0]) == "M:1"
    with pytest.raises(LayoutError, match="symbolic"):
        len(L)
    with pytest.raises(LayoutError, match="symbolic"):
        tessera.ComposedLayout(None, 0, L)
    with pytest.raises(LayoutError, match="symbol"):
        tessera.recast(Layout(4, 1), M)


def test_prove_with_the_facts(mn):
    M, N = mn
    L = Layout((M, N), (1, M))
    p = tessera.prove("injective", L)
    assert p.verdict == "proved", p
    assert p.assertion == "injective((M,N):(1,M))"
    r = tessera.prove("injective", Layout((M, N), (1, M // 2)))
    assert r.verdict == "refuted"
    assert set(r.counterexample["params"]) <= {"M", "N"} and r.counterexample["params"]
    assert tessera.prove("equal", tessera.coalesce(L), Layout(M * N, 1))


def test_a_proof_over_an_unbounded_parameter_states_its_int64_assumption(mn):
    M, N = mn
    # M has no upper bound: M * N leaves int64 at some admitted M, stated with the witness.
    p = tessera.prove("injective", Layout((M, N), (1, M)))
    assert p.verdict == "proved" and p
    assert p.assumption.startswith("offsets fit in int64 (") and "M = " in p.assumption, p
    assert "assuming offsets fit in int64" in repr(p)
    # N is bounded by 4096: its offsets always fit, no assumption.
    q = tessera.prove("injective", Layout((4, N), (N, 1)))
    assert q.verdict == "proved" and q.assumption is None, q


def test_lower_and_emit(mn):
    M, N = mn
    L = Layout((M, N), (1, M))
    assert "i % M" in tessera.lower(L)
    assert "index_fn(" in tessera.emit(L, lang="c")


def test_bind(mn):
    M, N = mn
    L = Layout((M, N), (1, M))
    assert L.bind(M=256, N=8) == Layout((256, 8), (1, 256))
    assert M.bind(M=128) == 128 and (M * N).bind(M=128, N=2) == 256
    half = L.bind(M=128)
    assert half.symbolic and str(half) == "(128,N):(1,128)"
    assert str(half.size()) == "128*N"
    with pytest.raises(LayoutError, match="cannot be mixed"):
        tessera.make_layout(half, L)  # a new context
    with pytest.raises(LayoutError, match="violates"):
        L.bind(M=100)
    with pytest.raises(LayoutError, match="not a declared parameter"):
        L.bind(K=1)
    C = Layout((4, 8))
    assert C.bind() is C
    with pytest.raises(LayoutError):
        C.bind(M=1)
