"""Type stubs of `tessera`, Tessera's Python module: CuTe layouts and their algebra under
PyCuTe's names, computed by Tessera's Rust layout algebra (the functions of `tessera eval`).

Arguments that take a layout also take a `str` in Tessera's text format (`"(8,64):(64,1)"`)
or any object whose `str()` is such text (a PyCuTe `Layout`). Tuples nest; `None` is CuTe's
`_` in a tiler or coordinate. Every error is a `LayoutError`, a `ValueError`.
"""

from fractions import Fraction
from typing import Any, Iterator, Optional, Tuple, Union

IntTuple = Union[int, "Sym", Tuple["IntTuple", ...]]
"""An int (or a `Sym` of `params`) or a nested tuple of them (lists are accepted too)."""
SymInt = Union[int, "Sym"]
"""An int, or a `Sym` for a symbolic layout."""
LayoutLike = Union["Layout", "ComposedLayout"]
"""A layout or a swizzled/offset layout: the algebra keeps a swizzle around the layout."""

__version__: str
__all__: list[str]

class LayoutError(ValueError):
    """An error of Tessera's layout algebra or text format, with Tessera's message."""

class Sym:
    """A symbolic value over the parameters of one `params` call (`M`, `M*N`, `M/128`).

    `str()` is its canonical text. `+`, `-`, `*`, `//` (Tessera's exact division `/`) and `%`
    with ints and symbols of the same call give symbols. Symbols of two `params` calls cannot
    be mixed. Symbols and symbolic layouts pickle, copy and deep-copy: the values of one
    `params` call come back sharing one context (in the same process, the original's).
    """

    @property
    def declaration(self) -> str:
        """The declaration of its parameters, as given to `params`."""
    def bind(self, **values: int) -> SymInt:
        """Values bound to parameters: an int when every parameter it names is bound, else a
        `Sym` over the others (which does not mix with the `params` call's symbols)."""
    def __add__(self, other: SymInt) -> Sym: ...
    def __radd__(self, other: SymInt) -> Sym: ...
    def __sub__(self, other: SymInt) -> Sym: ...
    def __rsub__(self, other: SymInt) -> Sym: ...
    def __mul__(self, other: SymInt) -> Sym: ...
    def __rmul__(self, other: SymInt) -> Sym: ...
    def __floordiv__(self, other: SymInt) -> Sym:
        """Exact division: a LayoutError unless the facts make it exact."""
    def __rfloordiv__(self, other: SymInt) -> Sym: ...
    def __mod__(self, other: SymInt) -> SymInt: ...
    def __rmod__(self, other: SymInt) -> SymInt: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

def params(declaration: str) -> Any:
    """Declares symbolic parameters with facts, as `tessera eval --param` and a check file's
    `param` line do: `M, N = params("M, N where M % 128 == 0, 1 <= N <= 4096")`. Returns one
    `Sym` per name (a tuple), or the `Sym` itself for a single name. Layouts built from them
    are symbolic; the algebra functions, `prove`, `lower` and `emit` take them, under the facts."""

class Layout:
    """A layout `shape:stride`: a function from coordinates (or indices) to offsets.

    With `Sym` extents or strides (from `params`) the layout is symbolic: `str()`, `shape`,
    `stride`, `size()`, `cosize()`, `rank()`, `depth()`, `==` and the module's functions work
    on it (answers that stay symbolic are `Sym`s); evaluating it, indexing modes and `len()`
    raise `LayoutError`.
    """

    def __init__(self, shape: IntTuple, stride: Optional[Any] = None) -> None:
        """`Layout(shape, stride=None)`; no stride is the compact column-major one."""
    @staticmethod
    def parse(text: Any) -> Layout:
        """Reads a layout from Tessera's text format, or from any object whose str() is such text."""
    @property
    def shape(self) -> IntTuple:
        """The shape: an int or a nested tuple of ints."""
    @property
    def stride(self) -> Any:
        """The stride, congruent with the shape (coordinate strides as text, e.g. '1@0')."""
    def size(self) -> SymInt:
        """The number of coordinates (a `Sym` for a symbolic layout)."""
    def cosize(self) -> SymInt:
        """One past the largest offset (a `Sym` for a symbolic layout)."""
    def rank(self) -> int:
        """The number of top-level modes."""
    def depth(self) -> int:
        """The nesting depth of the shape."""
    @property
    def symbolic(self) -> bool:
        """Whether the layout has symbolic extents or strides (built from `params`)."""
    def bind(self, **values: int) -> Layout:
        """Values bound to parameters (`L.bind(M=256)`), as `tessera eval --bind` does: concrete
        when every parameter it names is bound, else symbolic over the others (a new context,
        which does not mix with the `params` call's symbols). LayoutError for a value the facts
        do not admit."""
    def __call__(self, *coord: Any) -> Any:
        """`L(i)`, `L(coord)` or `L(c0, c1, ...)`: the offset."""
    def __getitem__(self, i: Union[int, slice]) -> Layout:
        """Mode i (negative: from the end), or the layout of the modes of a slice (PyCuTe's
        `L[i]`); a symbolic layout's modes are symbolic. IndexError for a mode past the rank."""
    def __len__(self) -> int:
        """The rank."""
    def __iter__(self) -> Iterator[Layout]:
        """The modes."""
    def _repr_svg_(self) -> Optional[str]:
        """The layout drawn as SVG (Jupyter's picture of it); None past 65,536 cells."""
    def _repr_html_(self) -> Optional[str]:
        """The picture in a minimal HTML page."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Swizzle:
    """The XOR swizzle Sw<bits, base, shift>."""

    def __init__(self, bits: int, base: int, shift: int) -> None: ...
    @property
    def bits(self) -> int:
        """Number of bits XORed."""
    @property
    def base(self) -> int:
        """Number of low bits left untouched."""
    @property
    def shift(self) -> int:
        """Distance between the source and the target bits."""
    def __call__(self, x: int) -> int:
        """The swizzled offset of x."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class ComposedLayout:
    """`swizzle o (offset + layout)`."""

    def _repr_svg_(self) -> Optional[str]:
        """The composed layout drawn as SVG (Jupyter's picture of it); None past 65,536 cells."""
    def _repr_html_(self) -> Optional[str]:
        """The picture in a minimal HTML page."""

    def __init__(self, swizzle: Optional[Swizzle], offset: int, layout: Any) -> None: ...
    @staticmethod
    def parse(text: Any) -> ComposedLayout:
        """Reads `Sw<3,3,3> o (8,64):(64,1)`."""
    @property
    def swizzle(self) -> Optional[Swizzle]:
        """The swizzle applied last, or None."""
    @property
    def offset(self) -> int:
        """The offset added to the layout's value."""
    @property
    def layout(self) -> Layout:
        """The layout applied first."""
    @property
    def shape(self) -> IntTuple:
        """The shape of the layout."""
    def size(self) -> int:
        """The number of coordinates."""
    def __getitem__(self, i: Union[int, slice]) -> ComposedLayout:
        """The function on mode i of its domain, `swizzle o offset o layout[i]` (PyCuTe's
        `ComposedLayout[i]`, CuTe's `get<I>`); a slice selects those modes."""
    def __call__(self, *coord: Any) -> int:
        """The swizzled offset of an index or a coordinate."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

class Proof:
    """The answer of `prove`, or of one assertion of `check`. It pickles, copies and
    deep-copies (a deep copy's counterexample is a new dict)."""

    def _repr_html_(self) -> str:
        """The answer as HTML for notebooks: verdict, assertion, time, and a refutation's picture."""

    verdict: str
    """`proved`, `refuted`, `unknown`, `internal error`, or (in `check`) `bad input`."""
    counterexample: Optional[dict[str, Any]]
    """For a refutation: `summary`, `params` (dict), `witnesses` (list of dicts: name, index, coord, value)."""
    reason: Optional[str]
    """Why the answer is unknown, an internal error or bad input."""
    time: float
    """Seconds spent proving."""
    assertion: str
    """The assertion proved, as `tessera check` writes it."""
    file: Optional[str]
    """The check file of the assertion (None for `prove`)."""
    line: Optional[int]
    """The assertion's line in its check file, 1-based (None for `prove`)."""
    prover: Optional[str]
    """The prover that answered: egg or normal form (an `equal` closed by rewriting), else the engine (F2, structural, enumeration, z3); None for a kernel."""
    assumption: Optional[str]
    """The assumption a proof holds under (`offsets fit in int64 (...)` with the valuation of an unbounded parameter past int64), else None."""
    def __bool__(self) -> bool:
        """True when proved."""

def prove(property: str, *args: Any, timeout: float = 60.0, engine: str = "auto", **keywords: Any) -> Proof:
    """Proves a property of layouts as `tessera prove` does (injective, equal, bank_conflict_free, ...);
    `engine` forces one engine (auto, enum, f2, z3, structural); the GIL is released while proving."""

def check(*files: Any, timeout: float = 60.0, threads: Optional[int] = None, engine: str = "auto") -> list[Proof]:
    """Proves every assertion of check files (`.tess`) as `tessera check` does: one `Proof` per
    assertion, in file order, with `file` and `line`; `timeout` per assertion; the GIL is
    released while proving. OSError for a file that cannot be read, LayoutError for one that
    cannot be parsed."""

def run(
    file: Any,
    kernel: str,
    bind: Optional[dict[str, int]] = None,
    threads: Optional[int] = None,
    storage: bool = False,
    **arrays: Any,
) -> dict[str, str]:
    """Proves kernel `kernel` of a check file (for every value its facts admit, or else at the
    bindings), compiles it for `bind` (`{"M": 64}`) and runs it over NumPy arrays named after
    its tensors (float32, float64, int32, int64, float16, or uint16 holding bfloat16 bits).
    Arrays are read by shape and strides: a tensor `f32[L]` takes an array of `L`'s shape (its
    top-level modes, or its leaves) whose strides in elements are `L`'s (a strided view is
    fine); anything else raises ValueError with the expected shape and strides and the NumPy
    fix (`np.asfortranarray(a)`, `a.T`, `a.reshape(..)`). `storage=True` takes each array as the
    tensor's raw buffer instead (contiguous, exactly its length, in storage order). The arrays
    it writes are updated in place. An array whose memory is the tensor's buffer (its strides
    the layout's, no offset, no negative stride, its elements spanning the whole buffer;
    writeable; sharing no memory with another argument) is run on without a copy, holding the
    GIL; any other array is copied in and out. Returns, per tensor, "view" (no copy) or
    "copy". A refuted or unknown proof raises LayoutError naming why, and nothing runs; the
    GIL is released while proving, and while running when every array is copied."""

def lower(layout: Any, coords: bool = False) -> str:
    """The index expression of a layout, as `tessera lower` prints it."""

def emit(layout: Any, lang: str = "c", name: str = "index_fn", coords: bool = False) -> str:
    """The layout's index function as C, Rust, CUDA or PTX source, as `tessera emit` writes it."""

def recast(layout: Any, scale: Union[int, Fraction]) -> LayoutLike:
    """L for elements `scale` times larger (a Fraction: smaller)."""

def eval(expr: str) -> Any:
    """Evaluates one line of Tessera's expression language, as `tessera eval` does."""

def _builtin_names() -> list[str]:
    """The names of every built-in function of `tessera eval`."""

def _symbolic(id: str, declaration: str, binds: list[str], text: str) -> Any:
    """Rebuilds a pickled symbolic value (a symbolic `Layout` or a `Sym`) in the context of its
    id: the live one in this process, else one made from the declaration and bound values and
    shared by every value of that id. Not for direct use."""

def _proof(verdict: str, counterexample: Optional[dict[str, Any]], reason: Optional[str], time: float,
           assertion: str, file: Optional[str], line: Optional[int], prover: Optional[str],
           picture: Optional[str], assumption: Optional[str] = None) -> Proof:
    """A `Proof` from its fields (unpickling). Not for direct use."""

def coalesce(A: Any, profile: Any = None) -> LayoutLike:
    """The simplest layout of the same function as A: R(i) == A(i), depth(R) <= 1. With a profile (a tuple), each mode is coalesced on its own."""

def coalesce_z(A: Any, profile: Any = None) -> LayoutLike:
    """coalesce, keeping a trailing size-1 mode, so that every integer (not only those below size(A)) maps alike."""

def filter(A: Any, profile: Any = None) -> LayoutLike:
    """coalesce without stride-0 and size-1 modes; with a profile (a tuple), mode by mode."""

def composition(A: Any, B: Any) -> LayoutLike:
    """A o B: R(i) == A(B(i)) for every i below size(B), compatible(B, R). B may be a tiler: a tuple of layouts, ints (n:1) or None (the whole mode)."""

def complement(A: Any, cotarget: Any = None, *, max_idx: Any = None, extend: Any = None) -> LayoutLike:
    """The ordered layout that fills A's holes: disjoint from A, extended to cover the cotarget (a shape or an int) when one is given. `max_idx=` (CUTLASS PyCuTe's name) and `extend=` are accepted too."""

def logical_divide(A: Any, tiler: Any) -> LayoutLike:
    """A o (B, complement(B, size(A))): mode 0 is the tile B, mode 1 the layout of the tiles. The tiler is a layout, an int, or a tuple of them (None: the whole mode)."""

def zipped_divide(A: Any, tiler: Any) -> LayoutLike:
    """logical_divide with the tiles of every mode gathered: ((tile), (rest))."""

def tiled_divide(A: Any, tiler: Any) -> LayoutLike:
    """logical_divide as ((tile), rest0, rest1, ...)."""

def flat_divide(A: Any, tiler: Any) -> LayoutLike:
    """logical_divide as (tile0, tile1, ..., rest0, rest1, ...)."""

def logical_product(A: Any, tiler: Any) -> LayoutLike:
    """(A, complement(A) o B): a copy of A at every position of B."""

def zipped_product(A: Any, tiler: Any) -> LayoutLike:
    """logical_product gathered by mode: ((A modes), (grid modes))."""

def tiled_product(A: Any, tiler: Any) -> LayoutLike:
    """logical_product as ((A), grid0, grid1, ...)."""

def flat_product(A: Any, tiler: Any) -> LayoutLike:
    """logical_product as (A0, A1, ..., grid0, grid1, ...)."""

def blocked_product(A: Any, B: Any) -> LayoutLike:
    """Rank-sensitive product, tile first: mode k is (A_k, grid_k); unequal ranks are padded with 1:0."""

def raked_product(A: Any, B: Any) -> LayoutLike:
    """Rank-sensitive product, grid first: mode k is (grid_k, A_k); unequal ranks are padded with 1:0."""

def right_inverse(A: Any) -> LayoutLike:
    """The largest R with A(R(k)) == k for every k below size(R)."""

def left_inverse(A: Any) -> LayoutLike:
    """R with R(A(i)) == i for every i below size(A); A must be injective."""

def nullspace(A: Any) -> LayoutLike:
    """The layout of the indices that A sends to 0."""

def layout_add(A: Any, B: Any) -> LayoutLike:
    """The layout of A(i) + B(i); A and B of equal size."""

def greatest_common_domain(A: Any, B: Any) -> LayoutLike:
    """The largest layout both shapes can index (the common factorisation of their leaves)."""

def recast(layout: Any, scale: Any) -> Any:
    """`recast(L, scale)`: `L` for elements `scale` times larger; `scale` is an int or a
`fractions.Fraction` (`Fraction(1, 2)`: elements half as large)."""

def max_common_vector(A: Any, B: Any) -> int:
    """How many leading indices A and B map alike and contiguously."""

def max_common_layout(A: Any, B: Any) -> LayoutLike:
    """The layout R of B's leading contiguous offsets that A maps alike: A(R(i)) == B(R(i)) == i; 1:0 if none."""

def upcast(A: Any, n: Any) -> LayoutLike:
    """recast(A, n): A for elements n times larger."""

def downcast(A: Any, n: Any) -> LayoutLike:
    """recast(A, 1/n): A for elements n times smaller; A needs a unit stride."""

def filter_zeros(A: Any, profile: Any = None) -> LayoutLike:
    """A with every stride-0 leaf (or every part under a 0 of the profile) of extent 1."""

def make_layout(*args: Any) -> LayoutLike:
    """As CuTe: make_layout(L0, L1, ...) of layouts is the layout whose modes they are (also one list or tuple of layouts); make_layout(shape) the compact column-major layout; make_layout(shape, stride) the layout shape:stride."""

def make_layout_like(A: Any) -> LayoutLike:
    """A compact layout of A's shape, its modes ordered like A's strides."""

def make_ordered_layout(shape: Any, order: Any) -> LayoutLike:
    """A compact layout of the shape with its modes ordered by 'order'."""

def make_identity_layout(shape: Any) -> LayoutLike:
    """The layout of each coordinate to itself (coordinate strides, returned as text such as '1@0')."""

def make_basis_like(shape: Any) -> Any:
    """The unit coordinate strides of a shape (as text such as '1@0')."""

def tile_to_shape(block: Any, shape: Any, order: Any = None) -> LayoutLike:
    """Copies of block covering shape (blocked_product), ordered by order (column-major by default)."""

def make_fragment_like(A: Any) -> LayoutLike:
    """A compact layout of A's shape: mode 0 column-major, the other modes ordered like A's strides."""

def tiler_to_layout(tiler: Any) -> LayoutLike:
    """One layout equal to a by-mode tiler."""

def select(x: Any, modes: Any) -> Any:
    """Modes i, j, ... of x (a tuple of indices); with three arguments (L, dim, i), the view at index i of dimension dim."""

def take(x: Any, begin: Any, end: Any) -> Any:
    """Modes begin..end of x."""

def get(x: Any, *path: Any) -> Any:
    """The mode of x at the path i, j, ..."""

def flatten(x: Any) -> Any:
    """The leaves of x as one flat tuple (or layout)."""

def wrap(x: Any) -> Any:
    """x as a one-mode tuple (a tuple stays as it is)."""

def unwrap(x: Any) -> Any:
    """The single mode of a one-mode tuple, recursively."""

def size(x: Any) -> int:
    """The product of the extents of a shape or layout."""

def cosize(L: Any) -> int:
    """One past the largest offset of a layout."""

def rank(x: Any) -> int:
    """The number of top-level modes."""

def depth(x: Any) -> int:
    """The nesting depth."""

def shape(L: Any) -> Any:
    """The shape of a layout."""

def stride(L: Any) -> Any:
    """The stride of a layout."""

def coshape(L: Any) -> Any:
    """The shape of the codomain of a layout."""

def coprofile(L: Any) -> Any:
    """The profile of a layout's codomain (zeros)."""

def product(t: Any) -> int:
    """The product of the leaves."""

def product_each(t: Any) -> Any:
    """The product of each top-level mode."""

def prefix_product(t: Any, init: Any = 1) -> Any:
    """Exclusive prefix products of the leaves."""

def inner_product(a: Any, b: Any) -> int:
    """The sum of the products of the leaves."""

def idx2crd(idx: Any, shape: Any, stride: Any = None) -> Any:
    """The coordinate of an index in a shape (with a stride: (idx // stride) % shape)."""

def crd2idx(crd: Any, shape: Any, stride: Any = None) -> int:
    """The index of a coordinate in a shape (with a stride: the layout shape:stride at crd)."""

def congruent(a: Any, b: Any) -> bool:
    """Whether a and b have the same tree."""

def weakly_congruent(a: Any, b: Any) -> bool:
    """Whether b refines a's tree."""

def compatible(a: Any, b: Any) -> bool:
    """Whether every coordinate of shape a is one of shape b."""

def common_refinement(a: Any, b: Any) -> Any:
    """The coarsest shape refining both."""

def common_coarsening(a: Any, b: Any) -> Any:
    """The finest shape coarsening both."""

def repeat_like(x: Any, profile: Any) -> Any:
    """x at every leaf of the profile."""

def lift(x: Any, *path: Any) -> Any:
    """x placed at the path i, j, ... (zeros around it)."""

def slice_(crd: Any, x: Any) -> Any:
    """The parts of x under None in crd."""

def dice_(crd: Any, x: Any) -> Any:
    """The parts of x under integers in crd."""

def unflatten(flat: Any, profile: Any) -> Any:
    """The leaves of flat in the tree of profile."""

def is_tuple(x: Any) -> bool:
    """Whether x is a tuple."""

class ScaledBasis:
    """A coordinate stride: v@i (v times the unit vector of coordinate mode i), v@i@j for a nested mode, or a sum (2@0+1@1). E(i) is 1@i; 3 * E(0) is 3@0; + adds. Equal to another ScaledBasis of the same value and to its text (E(0) == "1@0")."""
    def __init__(self, value: int, *modes: int) -> None: ...
    @staticmethod
    def parse(text: str) -> "ScaledBasis":
        """Reads a coordinate stride from its text ("2@0", "2@0+1@1")."""
    @property
    def value(self) -> Optional[int]:
        """The coefficient of a single-term stride; None for a sum."""
    @property
    def mode(self) -> Optional[list[int]]:
        """The mode path of a single-term stride; None for a sum."""
    def __mul__(self, n: int) -> "ScaledBasis": ...
    def __rmul__(self, n: int) -> "ScaledBasis": ...
    def __add__(self, other: Any) -> "ScaledBasis": ...

class F2:
    """A value of the binary field F2 as a stride or an offset (F2(6)): + and ^ are XOR; int(x) is its bits. Equal to another F2 of the same bits and to its text."""
    def __init__(self, bits: int) -> None: ...
    def __int__(self) -> int: ...
    def __index__(self) -> int: ...
    def __add__(self, other: Any) -> "F2": ...
    def __xor__(self, other: Any) -> "F2": ...

def E(*modes: int) -> ScaledBasis:
    """The unit coordinate stride 1@modes (CuTe's E<i>)."""

def is_int(x: Any) -> bool:
    """PyCuTe's test: isinstance(x, int)."""

def is_layout(x: Any) -> bool:
    """Whether x is a Layout (PyCuTe's test)."""

class Integer:
    """The integers of int tuples: int, but not bool (PyCuTe's Integer); for isinstance and issubclass."""

def shape_div(a: Any, b: Any) -> Any:
    """a divided by b mode by mode (each mode by what the ones before left of b), under the divisibility condition."""

def ceil_div(a: Any, b: Any) -> Any:
    """a divided by b mode by mode, rounding up."""

def elem_scale(a: Any, b: Any) -> Any:
    """a scaled mode by mode by the products of b."""

def append(x: Any, elem: Any = None, up_to_rank: Any = None) -> Any:
    """elem added after the last mode of x (a layout's default: 1:0), or until the rank is up_to_rank."""

def prepend(x: Any, elem: Any = None, up_to_rank: Any = None) -> Any:
    """elem added before the first mode of x (a layout's default: 1:0), or until the rank is up_to_rank."""

def replace(x: Any, i: Any, elem: Any) -> Any:
    """Mode i of x replaced by elem."""

def group_modes(x: Any, begin: Any, end: Any = None) -> Any:
    """Modes begin..end of x gathered into one mode."""

def group(x: Any, begin: Any, end: Any = None) -> Any:
    """CuTe's group<B,E>: group_modes."""

def fdiv(a: Any, b: Any) -> int:
    """The floor quotient."""

def fmod(a: Any, b: Any) -> int:
    """The floor remainder."""

def tile_view(L: Any, offset: Any, shape: Any = None) -> Any:
    """The view at an offset (integers select, None keeps a dimension), of a shape."""

def narrow(L: Any, dim: Any, start: Any, length: Any) -> Any:
    """Indices start..start+length of a dimension, as a view."""

def permute(L: Any, order: Any) -> Any:
    """The dimensions reordered, as a view."""

def broadcast(L: Any, dims: Any) -> Any:
    """Stride-0 dimensions to the target dimensions (NumPy's rule), as a view."""

def diagonal(L: Any, dims: Any) -> Any:
    """The diagonal of paired dimensions, as a view."""

def local_tile(L: Any, tiler: Any, coord: Any) -> Any:
    """The tile at coord of zipped_divide(L, tiler), as a view."""

def local_partition(L: Any, threads: Any, index: Any) -> Any:
    """The elements one thread works on, as a view."""

class Atom:
    """A tiled MMA (make_tiled_mma), a copy atom (copy_atom) or a tiled copy (make_tiled_copy); it prints as the expression that makes it."""

    @property
    def kind(self) -> str:
        """What the atom is: "tiled MMA", "copy atom" or "tiled copy"."""
    @property
    def tv_layout_A(self) -> Layout:
        """get_layoutA_TV(): (thread, value) -> (m,k) of the tiled MMA's A tile."""
    @property
    def tv_layout_B(self) -> Layout:
        """get_layoutB_TV(): (thread, value) -> (n,k)."""
    @property
    def tv_layout_C(self) -> Layout:
        """get_layoutC_TV(): (thread, value) -> (m,n)."""
    @property
    def tv_layout_S(self) -> Layout:
        """get_layoutS_TV() of a tiled copy."""
    @property
    def tv_layout_D(self) -> Layout:
        """get_layoutD_TV() of a tiled copy."""
    @property
    def tile_size(self) -> Tuple[int, ...]:
        """The tile: (tile_size<0>, tile_size<1>, tile_size<2>) of a tiled MMA, a tiled copy's."""
    def partition_A(self, tensor: Any, thread: int) -> ComposedLayout:
        """thr_mma.partition_A(tensor) of thread `thread`, a view."""
    def partition_B(self, tensor: Any, thread: int) -> ComposedLayout:
        """thr_mma.partition_B(tensor) of thread `thread`."""
    def partition_C(self, tensor: Any, thread: int) -> ComposedLayout:
        """thr_mma.partition_C(tensor) of thread `thread`."""
    def partition_S(self, tensor: Any, thread: int) -> ComposedLayout:
        """thr_copy.partition_S(tensor) of thread `thread`."""
    def partition_D(self, tensor: Any, thread: int) -> ComposedLayout:
        """thr_copy.partition_D(tensor) of thread `thread`."""

def make_tiled_mma(atom: str, atom_layout: Any = None, permutation: Any = None) -> Atom:
    """CuTe's make_tiled_mma of an MMA atom named as in CuTe C++ ("SM80_16x8x16_F32F16F16F32_TN", GMMA with "_SS_TN"...)."""

def copy_atom(op: str, bits: int) -> Atom:
    """Copy_Atom<op, T> for a T of that many bits ("SM75_U32x4_LDSM_N", "UniversalCopy_128", "SM80_CP_ASYNC_CACHEALWAYS_128"...)."""

def smem_atom(name: str, bits: int) -> ComposedLayout:
    """GMMA's Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom over element offsets."""

def tma_swizzle(mode: str, bits: int) -> Swizzle:
    """TMA's swizzle mode (INTER, SW32, SW64, SW128) on element offsets."""

def tv_layout_A(T: Any) -> Layout:
    """get_layoutA_TV() of a tiled MMA: (thread, value) -> (m,k) of its A tile."""

def tv_layout_B(T: Any) -> Layout:
    """get_layoutB_TV(): (thread, value) -> (n,k)."""

def tv_layout_C(T: Any) -> Layout:
    """get_layoutC_TV(): (thread, value) -> (m,n)."""

def tile_size(T: Any) -> Tuple[int, ...]:
    """(tile_size<0>, tile_size<1>, tile_size<2>) of a tiled MMA, the tile of a tiled copy."""

def make_tiled_copy(copy_atom: Any, thr_layout: Any, val_layout: Any = None) -> Atom:
    """CuTe's make_tiled_copy: raked_product(thr, val) inverted."""

def make_tiled_copy_A(copy_atom: Any, mma: Any) -> Atom:
    """The tiled copy of a tiled MMA's A operand."""

def make_tiled_copy_B(copy_atom: Any, mma: Any) -> Atom:
    """The tiled copy of a tiled MMA's B operand."""

def make_tiled_copy_C(copy_atom: Any, mma: Any) -> Atom:
    """The tiled copy of a tiled MMA's C operand."""

def tv_layout_S(TC: Any) -> Layout:
    """get_layoutS_TV() of a tiled copy: (thread, value) -> source tile coordinate."""

def tv_layout_D(TC: Any) -> Layout:
    """get_layoutD_TV(): (thread, value) -> destination tile coordinate."""

def partition_A(T: Any, tensor: Any, thread: int) -> ComposedLayout:
    """thr_mma.partition_A(tensor): the thread's (FrgV, RestM, RestK) view."""

def partition_B(T: Any, tensor: Any, thread: int) -> ComposedLayout:
    """thr_mma.partition_B(tensor), a view."""

def partition_C(T: Any, tensor: Any, thread: int) -> ComposedLayout:
    """thr_mma.partition_C(tensor), a view."""

def partition_S(TC: Any, tensor: Any, thread: int) -> ComposedLayout:
    """thr_copy.partition_S(tensor): the thread's ((FrgV,FrgX), Rest...) view."""

def partition_D(TC: Any, tensor: Any, thread: int) -> ComposedLayout:
    """thr_copy.partition_D(tensor), a view."""

def thrfrg_A(T: Any, tensor: Any) -> Layout:
    """Every thread's A values over a tensor: ((ThrV,(ThrM,ThrK)),(FrgV,(RestM,RestK)))."""

def thrfrg_B(T: Any, tensor: Any) -> Layout:
    """Every thread's B values over a tensor."""

def thrfrg_C(T: Any, tensor: Any) -> Layout:
    """Every thread's C values over a tensor."""

def tidfrg_S(TC: Any, tensor: Any) -> Layout:
    """Every thread's source values over a tensor: (Thr,(FrgV,FrgX),(Rest...))."""

def tidfrg_D(TC: Any, tensor: Any) -> Layout:
    """Every thread's destination values over a tensor."""
