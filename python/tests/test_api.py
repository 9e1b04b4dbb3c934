"""The API of the `tessera` module: layouts, swizzles, every function, errors."""
from fractions import Fraction

import pytest
import tessera
from tessera import ComposedLayout, Layout, LayoutError, Swizzle


def test_layout_construction_and_accessors():
    A = Layout((3, (2, 4)), (2, (1, 6)))
    assert A.shape == (3, (2, 4))
    assert A.stride == (2, (1, 6))
    assert (A.size(), A.cosize(), A.rank(), A.depth(), len(A)) == (24, 24, 2, 2, 2)
    assert str(A) == "(3,(2,4)):(2,(1,6))"
    assert repr(A) == "Layout((3, (2, 4)), (2, (1, 6)))"
    assert Layout((4, 8)).stride == (1, 4)
    assert Layout(8) == Layout(8, 1)
    assert str(Layout(8)) == "8:1"
    assert Layout([2, [3, 4]], [1, [2, 6]]) == Layout((2, (3, 4)), (1, (2, 6)))
    assert Layout(5, 0).cosize() == 1
    assert (Layout(7, 3).rank(), Layout(7, 3).depth(), len(Layout(7, 3))) == (1, 0, 1)


def test_layout_call_and_modes():
    A = Layout((3, (2, 4)), (2, (1, 6)))
    assert (A(17), A(2, 5), A(2, (1, 2)), A((2, (1, 2)))) == (17, 17, 17, 17)
    assert A[1][0] == Layout(2, 1)
    assert A[-1] == Layout((2, 4), (1, 6))
    assert [str(m) for m in A] == ["3:2", "(2,4):(1,6)"]
    with pytest.raises(IndexError):
        A[2]
    assert [A(i) for i in range(4)] == [0, 2, 4, 1]


def test_layout_eq_hash_parse():
    A = Layout.parse("(8,64):(64,1)")
    assert A == Layout((8, 64), (64, 1))
    assert hash(A) == hash(Layout((8, 64), (64, 1)))
    assert A != Layout((8, 64))
    assert A != "(8,64):(64,1)"
    assert len({A, Layout((8, 64), (64, 1)), Layout(8)}) == 2
    assert Layout.parse("(4,8)") == Layout((4, 8))
    assert Layout.parse(A) == A

    class Text:
        def __str__(self):
            return "(2,3):(3,1)"

    assert Layout.parse(Text()) == Layout((2, 3), (3, 1))
    # Strings and objects whose str() is CuTe text are accepted wherever a layout is.
    assert tessera.composition("(6,2):(8,2)", Text()) == tessera.composition(Layout((6, 2), (8, 2)), Layout((2, 3), (3, 1)))


def test_swizzle_and_composed():
    s = Swizzle(3, 3, 3)
    assert (s.bits, s.base, s.shift) == (3, 3, 3)
    assert str(s) == "Sw<3,3,3>" and repr(s) == "Swizzle(3, 3, 3)"
    assert s(0b111000000) == 0b111111000 and s(0b111000) == 0b111000
    assert s == Swizzle(3, 3, 3) and hash(s) == hash(Swizzle(3, 3, 3)) and s != Swizzle(2, 3, 3)
    L = Layout((8, 64), (64, 1))
    c = ComposedLayout(s, 0, L)
    assert str(c) == "Sw<3,3,3> o (8,64):(64,1)"
    assert c.swizzle == s and c.offset == 0 and c.layout == L and c.shape == (8, 64) and c.size() == 512
    assert [c(i) for i in range(512)] == [s(L(i)) for i in range(512)]
    assert c(1, 8) == s(L(1, 8))
    assert ComposedLayout.parse(str(c)) == c
    assert tessera.eval("Sw<3,3,3> o (8,64):(64,1)") == c
    # The algebra keeps the swizzle around the layout.
    assert str(tessera.logical_divide(c, (None, 8))) == "Sw<3,3,3> o (8,(8,8)):(64,(1,8))"
    with pytest.raises(LayoutError):
        Swizzle(3, 3, 1)
    assert str(ComposedLayout(None, 5, Layout(4, 1))).startswith("5")


def test_algebra_examples():
    assert tessera.composition(Layout((6, 2), (8, 2)), Layout((4, 3), (3, 1))) == Layout(((2, 2), 3), ((24, 2), 8))
    assert tessera.complement(Layout(4, 2)) == Layout((2, 1), (1, 8))
    assert tessera.complement(Layout(4, 2), extend=20) == Layout((2, 3), (1, 8))
    assert tessera.complement(Layout(4, 2), 20) == Layout((2, 3), (1, 8))
    assert tessera.complement(Layout(4, 2), cotarget=None) == Layout((2, 1), (1, 8))
    assert tessera.coalesce(Layout((2, (1, 6)), (1, (6, 2)))) == Layout(12, 1)
    assert tessera.coalesce(Layout((2, (1, 6)), (1, (6, 2))), (1, 1)) == Layout((2, 6), (1, 2))
    assert tessera.logical_divide(Layout(24, 1), Layout(4, 2)) == Layout((4, (2, 3)), (2, (1, 8)))
    assert tessera.logical_divide(Layout((8, 4)), (2, 2)) == Layout(((2, 4), (2, 2)), ((1, 2), (8, 16)))
    assert str(tessera.zipped_divide(Layout((8, 4)), (2, None))) == "((2,4),(4,1)):((1,8),(2,0))"
    assert str(tessera.tiled_divide(Layout((8, 4)), (2, 2))) == "((2,2),4,2):((1,8),2,16)"
    assert tessera.logical_product(Layout((2, 2), (4, 1)), Layout(6, 1)) == Layout(((2, 2), (2, 3)), ((4, 1), (2, 8)))
    assert tessera.blocked_product(Layout((2, 5), (5, 1)), Layout((3, 4))).shape == ((2, 3), (5, 4))
    assert tessera.raked_product(Layout((2, 5), (5, 1)), Layout((3, 4))).shape == ((3, 2), (4, 5))
    assert tessera.right_inverse(Layout((4, 8), (1, 4))) == Layout(32, 1)
    assert tessera.right_inverse(Layout((4, 8), (1, 5))) == Layout(4, 1)
    assert tessera.left_inverse(Layout((4, 8), (1, 5))) == Layout((5, 8), (1, 4))
    assert tessera.nullspace(Layout((2, 4, 6), (1, 2, 0))) == Layout(6, 8)
    assert tessera.layout_add(Layout(12, 1), Layout(12, 1)) == Layout(12, 2)
    assert tessera.make_layout([Layout(3, 1), Layout((5, 1), (7, 2)), Layout(2, 42)]) == Layout((3, (5, 1), 2), (1, (7, 2), 42))
    assert tessera.make_layout(Layout(3, 1), Layout(2, 42)) == Layout((3, 2), (1, 42))
    # As CuTe: a shape and a stride, or a shape alone (compact column-major, stride 0 at extent 1).
    assert tessera.make_layout((4, 8), (1, 4)) == Layout((4, 8), (1, 4))
    assert str(tessera.make_layout((2, 1, 4))) == "(2,1,4):(1,0,2)"
    with pytest.raises(LayoutError, match="not both"):
        tessera.make_layout(Layout(3, 1), (4, 8))
    assert tessera.recast(Layout(24, 1), 8) == Layout(3, 1)
    assert tessera.recast(Layout(24, 1), Fraction(1, 2)) == Layout(48, 1)
    assert tessera.recast(Layout((4, 4), (4, 1)), 4) == Layout((4, 1), (1, 1))
    assert tessera.tiler_to_layout(3) == Layout(3, 1)
    assert tessera.make_identity_layout((2, 3)).stride == ("1@0", "1@1")


def test_tuple_functions():
    assert tessera.idx2crd(7, (3, (2, 4))) == (1, (0, 1))
    assert tessera.crd2idx((1, 0, 1), (3, 2, 4)) == 7
    assert tessera.size(((2, 3), 4)) == 24
    assert tessera.product(((2, 3), 4)) == 24
    assert tessera.product_each(((2, 3), 4, (5, 6))) == (6, 4, 30)
    assert tessera.rank((1, (2, 3))) == 2 and tessera.depth((1, (2, 3))) == 2
    assert tessera.wrap(7) == (7,) and tessera.unwrap(((((42,),),),)) == 42
    assert tessera.flatten(((1, 2), (3, (4,)))) == (1, 2, 3, 4)
    assert tessera.repeat_like(0, ((1, (2, 3)), 4)) == ((0, (0, 0)), 0)
    assert tessera.slice_((None, 1), ((2, 3), (5, 7, 9))) == ((2, 3),)
    assert tessera.dice_((None, 1), ((2, 3), (5, 7, 9))) == ((5, 7, 9),)
    assert tessera.lift(42, 0, 2, 3) == ((0, 0, (0, 0, 0, 42)),)
    assert tessera.get(((0, 0, (0, 0, 0, 42)),), 0, 2, 3) == 42
    A = Layout((2, 3, 5, 7), (1, 2, 6, 30))
    assert tessera.select(A, (1, 3)) == Layout((3, 7), (2, 30))
    assert tessera.take(A, 1, 3) == Layout((3, 5), (2, 6))
    assert tessera.congruent((1, (2, 3)), (4, (5, 6))) is True
    assert tessera.weakly_congruent(1, (2, 3)) is True
    assert tessera.compatible(6, (2, 3)) is True
    assert tessera.shape(A) == (2, 3, 5, 7) and tessera.stride(A) == (1, 2, 6, 30)
    assert tessera.cosize(A) == A.cosize()
    assert tessera.prefix_product((2, 3, 4)) == (1, 2, 6)
    assert tessera.inner_product((1, 2), (3, 4)) == 11
    assert tessera.is_tuple((1,)) is True and tessera.is_tuple(1) is False
    assert (tessera.fdiv(-7, 2), tessera.fmod(-7, 2)) == (-4, 1)
    assert tessera.eval("idx2crd(7,(3,(2,4)))") == (1, (0, 1))


def test_every_builtin_is_bound_and_documented():
    names = tessera._builtin_names()
    assert len(names) > 60
    for n in names:
        f = getattr(tessera, n)
        assert callable(f), n
        assert f.__doc__ and len(f.__doc__) > 10, n
    for obj in (tessera.Layout, tessera.Swizzle, tessera.ComposedLayout, tessera.recast, tessera.eval, tessera.LayoutError):
        assert obj.__doc__, obj
    for m in ("shape", "stride", "size", "cosize", "rank", "depth", "parse"):
        assert getattr(Layout, m).__doc__, m


def test_numpy_style_integers_are_read_through_index():
    class Index:
        def __index__(self):
            return 6

    assert Layout(Index(), 1) == Layout(6, 1)


@pytest.mark.parametrize(
    "call",
    [
        lambda: Layout((2, 3), (1,)),
        lambda: Layout(0, 1),
        lambda: Layout(-2, 1),
        lambda: Layout.parse("(2,3:(1"),
        lambda: Layout(2**70, 1),
        lambda: Layout(1.5, 1),
        lambda: tessera.composition(Layout((4, 3), (0, 1)), Layout((2, 3), (2, 1))),
        lambda: tessera.left_inverse(Layout((2, 2), (2, 3))),
        lambda: tessera.composition(Layout(4, 1)),
        lambda: tessera.complement(Layout((4, 2), (1, 1))),
        lambda: tessera.idx2crd(7, "(3,"),
        lambda: Layout(4, 1)(object()),
        lambda: Layout((2, 2), (1, 2))(1, 2, 3),
        lambda: tessera.eval("nonsense("),
        lambda: tessera.layout_add(Layout(4, 1), Layout(8, 1)),
    ],
)
def test_bad_input_raises_layout_error(call):
    with pytest.raises(LayoutError) as e:
        call()
    assert isinstance(e.value, ValueError)
    assert str(e.value)


def test_error_messages_are_tesseras():
    with pytest.raises(LayoutError, match="composition takes 2 arguments, got 1"):
        tessera.composition(Layout(4, 1))
    with pytest.raises(LayoutError, match="^composition: "):
        tessera.composition(Layout((4, 3), (0, 1)), Layout((2, 3), (2, 1)))
    with pytest.raises(TypeError):
        tessera.complement(Layout(4, 1), bogus=3)


def test_pycute_layouts_are_accepted(pycute):
    P = pycute.Layout((6, 2), (8, 2))
    assert Layout.parse(P) == Layout((6, 2), (8, 2))
    assert tessera.composition(P, pycute.Layout((4, 3), (3, 1))) == Layout(((2, 2), 3), ((24, 2), 8))


def test_the_stub_names_every_public_attribute():
    import ast
    import os

    stub = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tessera.pyi")
    tree = ast.parse(open(stub).read())
    declared = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    # `tessera.tessera` is the extension module inside maturin's package.
    public = {n for n in dir(tessera) if not n.startswith("__")} - {"tessera"}
    # `eval` is tessera.eval but not star-exported (it would shadow Python's built-in).
    assert set(tessera.__all__) == public - {"eval"}
    assert public - declared == set()
    assert declared - public == set()


def test_the_stub_defaults_are_the_modules():
    """Every default value the stub declares is the one the module uses (and no parameter has a
    default in one and not the other)."""
    import ast
    import inspect
    import os

    stub = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tessera.pyi")
    tree = ast.parse(open(stub).read())
    checked = 0
    for n in tree.body:
        if not isinstance(n, ast.FunctionDef):
            continue
        try:
            sig = inspect.signature(getattr(tessera, n.name))
        except (TypeError, ValueError):
            continue
        pos = n.args.posonlyargs + n.args.args
        names = [a.arg for a in pos][len(pos) - len(n.args.defaults):]
        declared = dict(zip(names, n.args.defaults))
        declared.update({a.arg: d for a, d in zip(n.args.kwonlyargs, n.args.kw_defaults) if d is not None})
        for name, p in sig.parameters.items():
            if p.default is inspect.Parameter.empty:
                assert name not in declared, (n.name, name)
                continue
            assert name in declared, (n.name, name)
            assert ast.literal_eval(declared[name]) == p.default, (n.name, name)
            checked += 1
    assert checked >= 10


def test_emit_names_its_function_as_the_cli_does():
    # `tessera emit`'s --name default is tessera::emit::DEFAULT_NAME, "index_fn" (its doc test).
    assert inspect_default(tessera.emit, "name") == "index_fn"
    assert "static inline int64_t index_fn(int64_t i) {" in tessera.emit("(4,8):(8,1)")
    assert "pub fn index_fn(i: i64) -> i64 {" in tessera.emit("(4,8):(8,1)", lang="rust")


def inspect_default(f, name):
    import inspect

    return inspect.signature(f).parameters[name].default


def test_views_and_products():
    L = Layout((8, 8))
    v = tessera.local_tile(L, (2, 2), (1, 1))
    assert isinstance(v, ComposedLayout) and v.swizzle is None and v.offset == 18 and v.layout == Layout((2, 2), (1, 8))
    assert [v(i) for i in range(4)] == [18, 19, 26, 27]
    assert str(tessera.permute(L, (1, 0))) == "0 o (8,8):(8,1)"
    assert str(tessera.narrow(L, 0, 2, 4)) == "2 o (4,8):(1,8)"
    assert str(tessera.local_partition(L, Layout((2, 2)), 3)) == "9 o (4,4):(2,16)"
    assert str(tessera.flat_divide(L, (2, 2))) == "(2,2,4,4):(1,8,2,16)"
    assert str(tessera.zipped_product(Layout(2), (3,))) == "((2),(3)):((1),(2))"
    assert tessera.idx2crd(5, (2, 4), (1, 2)) == (1, 2)
    assert tessera.max_common_vector(L, L) == 64


def test_the_layout_fast_path_agrees_with_the_general_one():
    """`op(Layout, Layout)` of a tiler built-in skips the expression language's values; passing
    the same layouts as text takes the general path: the answers (and errors) are equal."""
    from cases import corpus, parse_call

    ops = {"composition", "logical_divide", "zipped_divide", "logical_product"}
    ops |= {"tiled_divide", "flat_divide", "zipped_product", "tiled_product", "flat_product"}
    n = 0
    for case in corpus():
        name, texts = parse_call(case["expr"])
        if name not in ("composition", "logical_divide", "zipped_divide", "logical_product"):
            continue
        args = [tessera.eval(t) for t in texts]
        if not all(isinstance(a, Layout) for a in args):
            continue
        for op in sorted(ops):
            f = getattr(tessera, op)
            try:
                fast = str(f(*args))
            except LayoutError as e:
                fast = "error: " + str(e)
            try:
                general = str(f(*[str(a) for a in args]))
            except LayoutError as e:
                general = "error: " + str(e)
            assert fast == general, (op, texts)
            n += 1
    assert n > 1000


def test_layouts_draw_themselves_for_notebooks():
    """`_repr_svg_` is the picture `tessera draw` makes (one <text> per cell, the offsets),
    well-formed XML; `_repr_html_` wraps it; too large a layout falls back to the text repr."""
    import xml.etree.ElementTree as ET

    L = tessera.Layout((4, 8), (8, 1))
    svg = L._repr_svg_()
    root = ET.fromstring(svg)
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    for i in range(L.size()):
        assert str(L(i)) in texts
    assert "<svg" in L._repr_html_()
    C = tessera.ComposedLayout(tessera.Swizzle(3, 3, 3), 0, tessera.Layout((8, 64), (64, 1)))
    ET.fromstring(C._repr_svg_())
    assert tessera.Layout((512, 512))._repr_svg_() is None
    # IPython's display formatter, where IPython is installed, picks the picture up.
    try:
        from IPython.core.formatters import DisplayFormatter
    except ImportError:
        return
    data, _ = DisplayFormatter().format(L)
    assert "image/svg+xml" in data
