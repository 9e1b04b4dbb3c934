//! The functions of the layout algebra, one per built-in of `tessera eval`, and `recast`.

#[allow(unused_imports)]
use crate::*;

/// The algebra function behind a tiler built-in of `tessera eval` (`composition(A, tiler)`,
/// the divides and the products): the function its registry entry applies to a plain layout
/// `A` (`src/lang/builtins/algebra.rs`).
pub(crate) type TilerFn = fn(&ir::Layout<i64>, &Tiler<i64>) -> ir::Result<ir::Layout<i64>>;

/// A tiler built-in's function on a tiler read in place, where the algebra has one (the same
/// result and error as its [`TilerFn`] on the tiler built).
pub(crate) type ViewFn = fn(&ir::Layout<i64>, &TilerView<'_, i64>) -> ir::Result<ir::Layout<i64>>;

/// The fast path of a built-in (`fast.rs`): its first argument, and its second if given.
pub(crate) type FastFn =
    for<'py> fn(Python<'py>, &Bound<'py, PyAny>, Option<&Bound<'py, PyAny>>) -> Option<PyResult<Py<PyAny>>>;

/// A built-in with a fast path: `fast` when the call gives one or two positional arguments
/// and no keywords; otherwise, or when the fast path declines, the general path
/// ([`call_builtin`]), which gives the canonical answer or error.
pub(crate) fn call_fast(
    name: &str,
    kws: &[&str],
    fast: FastFn,
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let py = args.py();
    if kwargs.is_none()
        && let n @ 1..=2 = args.len()
        && let Ok(a) = args.get_borrowed_item(0)
    {
        let b = if n == 2 {
            args.get_borrowed_item(1).ok()
        } else {
            None
        };
        if let Some(r) = fast(py, &a, b.as_deref()) {
            return r;
        }
    }
    call_builtin(py, name, kws, args, kwargs)
}

/// Calls Tessera's built-in `name` with the positional arguments, and keyword arguments named
/// in `kws` (each position's accepted names, `|`-separated) placed at their positions.
pub(crate) fn call_builtin(
    py: Python<'_>,
    name: &str,
    kws: &[&str],
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let mut objs: Vec<Option<Bound<'_, PyAny>>> = args.iter().map(Some).collect();
    if let Some(kw) = kwargs {
        for (k, v) in kw.iter() {
            let k: String = k.extract()?;
            let Some(pos) = kws.iter().position(|n| n.split('|').any(|x| x == k)) else {
                return Err(PyTypeError::new_err(format!(
                    "{name}() got an unexpected keyword argument '{k}'"
                )));
            };
            if pos < args.len() {
                return Err(PyTypeError::new_err(format!(
                    "{name}() got multiple values for argument '{k}'"
                )));
            }
            if v.is_none() {
                continue;
            }
            if objs.len() <= pos {
                objs.resize(pos + 1, None);
            }
            objs[pos] = Some(v);
        }
    }
    let objs = objs
        .into_iter()
        .enumerate()
        .map(|(k, v)| {
            v.ok_or_else(|| {
                let n = kws.get(k).copied().unwrap_or("?");
                PyTypeError::new_err(format!("{name}() is missing argument '{n}'"))
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    if objs.iter().any(is_symbolic) {
        return sym_call(py, name, &objs);
    }
    let vals = objs.iter().map(to_value).collect::<PyResult<Vec<_>>>()?;
    let none = objs.iter().any(|o| o.is_none());
    to_py(
        py,
        lang::call(name, vals).map_err(|e| {
            // `None` is `_` to the language; name it as the user wrote it.
            let m = e.to_string();
            if none {
                bad(m.replace("'_' (_)", "None"))
            } else {
                bad(m)
            }
        })?,
    )
}

/// Declares one Python function per built-in with a fast path: `name (argument names) "text
/// signature" "doc" => fast path;`, called with its path directly (no lookup by name).
///
/// Here and in [`builtins!`], a function takes exactly `(*args, **kwargs)` (no `py`
/// parameter): pyo3 then hands over the call's argument tuple as it is, where any other
/// parameter list makes it copy the tuple (a slice) on every call.
macro_rules! fast_builtins {
    ($( $name:ident ( $($kw:literal),* ) $sig:literal $doc:literal => $fast:expr ; )*) => {
        /// The module's functions with a fast path (`fast.rs`).
        mod fast_fns {
            use super::*;
            $(
                #[doc = $doc]
                #[pyfunction]
                #[pyo3(signature = (*args, **kwargs), text_signature = $sig)]
                pub fn $name(
                    args: &Bound<'_, PyTuple>,
                    kwargs: Option<&Bound<'_, PyDict>>,
                ) -> PyResult<Py<PyAny>> {
                    call_fast(stringify!($name), &[$($kw),*], $fast, args, kwargs)
                }
            )*
        }

        /// Adds every fast built-in's function to the module.
        pub(crate) fn add_fast_builtins(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $( m.add_function(wrap_pyfunction!(fast_fns::$name, m)?)?; )*
            Ok(())
        }
    };
}

fast_builtins! {
    coalesce("A", "profile") "(A, profile=None)" "The simplest layout of the same function as A: R(i) == A(i), depth(R) <= 1. With a profile (a tuple), each mode is coalesced on its own."
        => coalesce_call;
    composition("A", "B") "(A, B)" "A o B: R(i) == A(B(i)) for every i below size(B), compatible(B, R). B may be a tiler: a tuple of layouts, ints (n:1) or None (the whole mode)."
        => |py, a, b| tiler_call(py, alg::composition_tiler, Some(alg::composition_view), a, b);
    complement("A", "cotarget|max_idx|extend") "(A, cotarget=None)" "The ordered layout that fills A's holes: disjoint from A, extended to cover the cotarget (a shape or an int) when one is given. `max_idx=` (CUTLASS PyCuTe's name) and `extend=` are accepted too."
        => complement_call;
    logical_divide("A", "tiler") "(A, tiler)" "A o (B, complement(B, size(A))): mode 0 is the tile B, mode 1 the layout of the tiles. The tiler is a layout, an int, or a tuple of them (None: the whole mode)."
        => |py, a, b| tiler_call(py, alg::logical_divide, Some(alg::logical_divide_view), a, b);
    zipped_divide("A", "tiler") "(A, tiler)" "logical_divide with the tiles of every mode gathered: ((tile), (rest))."
        => |py, a, b| tiler_call(py, alg::zipped_divide, None, a, b);
    tiled_divide("A", "tiler") "(A, tiler)" "logical_divide as ((tile), rest0, rest1, ...)."
        => |py, a, b| tiler_call(py, alg::tiled_divide, None, a, b);
    flat_divide("A", "tiler") "(A, tiler)" "logical_divide as (tile0, tile1, ..., rest0, rest1, ...)."
        => |py, a, b| tiler_call(py, alg::flat_divide, None, a, b);
    logical_product("A", "tiler") "(A, tiler)" "(A, complement(A) o B): a copy of A at every position of B."
        => |py, a, b| tiler_call(py, alg::logical_product, None, a, b);
    zipped_product("A", "tiler") "(A, tiler)" "logical_product gathered by mode: ((A modes), (grid modes))."
        => |py, a, b| tiler_call(py, alg::zipped_product, None, a, b);
    tiled_product("A", "tiler") "(A, tiler)" "logical_product as ((A), grid0, grid1, ...)."
        => |py, a, b| tiler_call(py, alg::tiled_product, None, a, b);
    flat_product("A", "tiler") "(A, tiler)" "logical_product as (A0, A1, ..., grid0, grid1, ...)."
        => |py, a, b| tiler_call(py, alg::flat_product, None, a, b);
}

/// Declares one Python function per built-in: `name (argument names) "text signature" "doc"`.
macro_rules! builtins {
    ($( $name:ident ( $($kw:literal),* ) $sig:literal $doc:literal ; )*) => {
        /// The module's functions of the layout algebra, one per built-in (named as the
        /// built-ins are: `tv_layout_A`).
        #[allow(non_snake_case)]
        mod fns {
            use super::*;
            $(
                #[doc = $doc]
                #[pyfunction]
                #[pyo3(signature = (*args, **kwargs), text_signature = $sig)]
                pub fn $name(
                    args: &Bound<'_, PyTuple>,
                    kwargs: Option<&Bound<'_, PyDict>>,
                ) -> PyResult<Py<PyAny>> {
                    call_builtin(args.py(), stringify!($name), &[$($kw),*], args, kwargs)
                }
            )*
        }

        /// Adds every built-in's function to the module.
        pub(crate) fn add_builtins(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $( m.add_function(wrap_pyfunction!(fns::$name, m)?)?; )*
            Ok(())
        }
    };
}

builtins! {
    // The algebra.
    coalesce_z("A", "profile") "(A, profile=None)" "coalesce, keeping a trailing size-1 mode, so that every integer (not only those below size(A)) maps alike.";
    filter("A", "profile") "(A, profile=None)" "coalesce without stride-0 and size-1 modes; with a profile (a tuple), mode by mode.";
    blocked_product("A", "B") "(A, B)" "Rank-sensitive product, tile first: mode k is (A_k, grid_k); unequal ranks are padded with 1:0.";
    raked_product("A", "B") "(A, B)" "Rank-sensitive product, grid first: mode k is (grid_k, A_k); unequal ranks are padded with 1:0.";
    right_inverse("A") "(A)" "The largest R with A(R(k)) == k for every k below size(R).";
    left_inverse("A") "(A)" "R with R(A(i)) == i for every i below size(A); A must be injective.";
    nullspace("A") "(A)" "The layout of the indices that A sends to 0.";
    layout_add("A", "B") "(A, B)" "The layout of A(i) + B(i); A and B of equal size.";
    greatest_common_domain("A", "B") "(A, B)" "The largest layout both shapes can index (the common factorisation of their leaves).";
    max_common_vector("A", "B") "(A, B)" "How many leading indices A and B map alike and contiguously.";
    max_common_layout("A", "B") "(A, B)" "The layout R of B's leading contiguous offsets that A maps alike: A(R(i)) == B(R(i)) == i; 1:0 if none.";
    upcast("A", "n") "(A, n)" "recast(A, n): A for elements n times larger.";
    downcast("A", "n") "(A, n)" "recast(A, 1/n): A for elements n times smaller; A needs a unit stride.";
    filter_zeros("A", "profile") "(A, profile=None)" "A with every stride-0 leaf (or every part under a 0 of the profile) of extent 1.";
    // Construction.
    make_layout() "(*args)" "As CuTe: make_layout(L0, L1, ...) of layouts is the layout whose modes they are (also one list or tuple of layouts); make_layout(shape) the compact column-major layout; make_layout(shape, stride) the layout shape:stride.";
    make_layout_like("A") "(A)" "A compact layout of A's shape, its modes ordered like A's strides.";
    make_ordered_layout("shape", "order") "(shape, order)" "A compact layout of the shape with its modes ordered by 'order'.";
    make_identity_layout("shape") "(shape)" "The layout of each coordinate to itself (coordinate strides, returned as text such as '1@0').";
    make_basis_like("shape") "(shape)" "The unit coordinate strides of a shape (as text such as '1@0').";
    tiler_to_layout("tiler") "(tiler)" "One layout equal to a by-mode tiler.";
    tile_to_shape("block", "shape", "order") "(block, shape, order=None)" "Copies of block covering shape (blocked_product), ordered by order (column-major by default).";
    make_fragment_like("A") "(A)" "A compact layout of A's shape: mode 0 column-major, the other modes ordered like A's strides.";
    // Tuples and shapes.
    select() "(x, modes)" "Modes i, j, ... of x (a tuple of indices); with three arguments (L, dim, i), the view at index i of dimension dim.";
    take("x", "begin", "end") "(x, begin, end)" "Modes begin..end of x.";
    get() "(x, *path)" "The mode of x at the path i, j, ...";
    flatten("x") "(x)" "The leaves of x as one flat tuple (or layout).";
    wrap("x") "(x)" "x as a one-mode tuple (a tuple stays as it is).";
    unwrap("x") "(x)" "The single mode of a one-mode tuple, recursively.";
    size("x") "(x)" "The product of the extents of a shape or layout.";
    cosize("L") "(L)" "One past the largest offset of a layout.";
    rank("x") "(x)" "The number of top-level modes.";
    depth("x") "(x)" "The nesting depth.";
    shape("L") "(L)" "The shape of a layout.";
    stride("L") "(L)" "The stride of a layout.";
    coshape("L") "(L)" "The shape of the codomain of a layout.";
    coprofile("L") "(L)" "The profile of a layout's codomain (zeros).";
    product("t") "(t)" "The product of the leaves.";
    product_each("t") "(t)" "The product of each top-level mode.";
    prefix_product("t", "init") "(t, init=1)" "Exclusive prefix products of the leaves.";
    inner_product("a", "b") "(a, b)" "The sum of the products of the leaves.";
    idx2crd("idx", "shape", "stride") "(idx, shape, stride=None)" "The coordinate of an index in a shape (with a stride: (idx // stride) % shape).";
    crd2idx("crd", "shape", "stride") "(crd, shape, stride=None)" "The index of a coordinate in a shape (with a stride: the layout shape:stride at crd).";
    congruent("a", "b") "(a, b)" "Whether a and b have the same tree.";
    weakly_congruent("a", "b") "(a, b)" "Whether b refines a's tree.";
    compatible("a", "b") "(a, b)" "Whether every coordinate of shape a is one of shape b.";
    common_refinement("a", "b") "(a, b)" "The coarsest shape refining both.";
    common_coarsening("a", "b") "(a, b)" "The finest shape coarsening both.";
    repeat_like("x", "profile") "(x, profile)" "x at every leaf of the profile.";
    lift() "(x, *path)" "x placed at the path i, j, ... (zeros around it).";
    slice_("crd", "x") "(crd, x)" "The parts of x under None in crd.";
    dice_("crd", "x") "(crd, x)" "The parts of x under integers in crd.";
    unflatten("flat", "profile") "(flat, profile)" "The leaves of flat in the tree of profile.";
    is_tuple("x") "(x)" "Whether x is a tuple.";
    fdiv("a", "b") "(a, b)" "The floor quotient.";
    fmod("a", "b") "(a, b)" "The floor remainder.";
    shape_div("a", "b") "(a, b)" "a divided by b mode by mode (each mode by what the ones before left of b), under the divisibility condition.";
    ceil_div("a", "b") "(a, b)" "a divided by b mode by mode, rounding up.";
    elem_scale("a", "b") "(a, b)" "a scaled mode by mode by the products of b.";
    append("x", "elem", "up_to_rank") "(x, elem=None, up_to_rank=None)" "elem added after the last mode of x (a layout's default: 1:0), or until the rank is up_to_rank.";
    prepend("x", "elem", "up_to_rank") "(x, elem=None, up_to_rank=None)" "elem added before the first mode of x (a layout's default: 1:0), or until the rank is up_to_rank.";
    replace("x", "i", "elem") "(x, i, elem)" "Mode i of x replaced by elem.";
    group_modes("x", "begin", "end") "(x, begin, end=None)" "Modes begin..end of x gathered into one mode.";
    group("x", "begin", "end") "(x, begin, end=None)" "CuTe's group<B,E>: group_modes.";
    // Views.
    tile_view("L", "offset", "shape") "(L, offset, shape=None)" "The view at an offset (integers select, None keeps a dimension), of a shape.";
    narrow("L", "dim", "start", "length") "(L, dim, start, length)" "Indices start..start+length of a dimension, as a view.";
    permute("L", "order") "(L, order)" "The dimensions reordered, as a view.";
    broadcast("L", "dims") "(L, dims)" "Stride-0 dimensions to the target dimensions (NumPy's rule), as a view.";
    diagonal("L", "dims") "(L, dims)" "The diagonal of paired dimensions, as a view.";
    local_tile("L", "tiler", "coord") "(L, tiler, coord)" "The tile at coord of zipped_divide(L, tiler), as a view.";
    local_partition("L", "threads", "index") "(L, threads, index)" "The elements one thread works on, as a view.";
    // Atoms (make_tiled_mma, copy_atom, smem_atom and tma_swizzle take a name: atoms.rs).
    tv_layout_A("T") "(T)" "get_layoutA_TV() of a tiled MMA: (thread, value) -> (m,k) of its A tile.";
    tv_layout_B("T") "(T)" "get_layoutB_TV(): (thread, value) -> (n,k).";
    tv_layout_C("T") "(T)" "get_layoutC_TV(): (thread, value) -> (m,n).";
    tile_size("T") "(T)" "(tile_size<0>, tile_size<1>, tile_size<2>) of a tiled MMA, the tile of a tiled copy.";
    make_tiled_copy("copy_atom", "thr_layout", "val_layout") "(copy_atom, thr_layout, val_layout=None)" "CuTe's make_tiled_copy: raked_product(thr, val) inverted.";
    make_tiled_copy_A("copy_atom", "mma") "(copy_atom, mma)" "The tiled copy of a tiled MMA's A operand.";
    make_tiled_copy_B("copy_atom", "mma") "(copy_atom, mma)" "The tiled copy of a tiled MMA's B operand.";
    make_tiled_copy_C("copy_atom", "mma") "(copy_atom, mma)" "The tiled copy of a tiled MMA's C operand.";
    tv_layout_S("TC") "(TC)" "get_layoutS_TV() of a tiled copy: (thread, value) -> source tile coordinate.";
    tv_layout_D("TC") "(TC)" "get_layoutD_TV(): (thread, value) -> destination tile coordinate.";
    partition_A("T", "tensor", "thread") "(T, tensor, thread)" "thr_mma.partition_A(tensor): the thread's (FrgV, RestM, RestK) view.";
    partition_B("T", "tensor", "thread") "(T, tensor, thread)" "thr_mma.partition_B(tensor), a view.";
    partition_C("T", "tensor", "thread") "(T, tensor, thread)" "thr_mma.partition_C(tensor), a view.";
    partition_S("TC", "tensor", "thread") "(TC, tensor, thread)" "thr_copy.partition_S(tensor): the thread's ((FrgV,FrgX), Rest...) view.";
    partition_D("TC", "tensor", "thread") "(TC, tensor, thread)" "thr_copy.partition_D(tensor), a view.";
    thrfrg_A("T", "tensor") "(T, tensor)" "Every thread's A values over a tensor: ((ThrV,(ThrM,ThrK)),(FrgV,(RestM,RestK))).";
    thrfrg_B("T", "tensor") "(T, tensor)" "Every thread's B values over a tensor.";
    thrfrg_C("T", "tensor") "(T, tensor)" "Every thread's C values over a tensor.";
    tidfrg_S("TC", "tensor") "(TC, tensor)" "Every thread's source values over a tensor: (Thr,(FrgV,FrgX),(Rest...)).";
    tidfrg_D("TC", "tensor") "(TC, tensor)" "Every thread's destination values over a tensor.";
}

/// `recast(L, scale)`: `L` for elements `scale` times larger; `scale` is an int or a
/// `fractions.Fraction` (`Fraction(1, 2)`: elements half as large).
#[pyfunction]
pub(crate) fn recast(
    py: Python<'_>,
    layout: &Bound<'_, PyAny>,
    scale: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let l = to_value(layout)?;
    if !scale.is_instance_of::<PyInt>() && scale.hasattr("denominator")? {
        let p = int_of(&scale.getattr("numerator")?)?;
        let q = int_of(&scale.getattr("denominator")?)?;
        return to_py(
            py,
            lang::parse_value(&format!("recast({l},{p}/{q})")).map_err(err)?,
        );
    }
    to_py(py, lang::call("recast", vec![l, to_value(scale)?]).map_err(err)?)
}
