//! The built-in functions of the expression language, declared once.
//!
//! [`BUILTINS`] is the registry: every function's name, arity, argument summary, group and a
//! line of help, declared in one `registry!` list together with the function that implements
//! it. The `--help` text and the book's list of built-ins are generated from it
//! ([`help_text`], [`markdown`]; `tests/docs_reference.rs` fails when the page drifts), the parser's
//! reserved names and the suggestions for a misspelled name come from it, and calls dispatch
//! through it: a name is looked up, its arity checked with one message for all, and its
//! implementation called with the evaluated arguments.
//!
//! ```
//! use tessera::lang::{builtins::{BUILTINS, lookup}, eval_str};
//! let c = lookup("composition").unwrap();
//! assert_eq!((c.args, c.min_args, c.max_args), ("A, B", 2, 2));
//! assert!(BUILTINS.len() > 60);
//! assert!(eval_str("composition(4:1)").unwrap_err().to_string().contains("composition takes 2 arguments, got 1"));
//! ```

mod algebra;
mod atoms;
mod mode_select;
mod modes;
mod tuples;
pub(crate) mod views;

use self::views as view_fns;
use super::{Env, Value, at};
use std::collections::HashMap;
use std::sync::LazyLock;
use tessera_ir::Int;
use tessera_ir::text::Expr;
use tessera_ir::{Error, Result};

/// What a built-in works on, for the help text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// The layout algebra of seed `004_*`.
    Algebra,
    /// Making layouts.
    Construction,
    /// Int tuples, shapes and their modes.
    Tuples,
    /// Views `OFF o L` (`ir::view`).
    Views,
    /// CuTe's MMA and copy atoms, tiled (`ir::atom`).
    Atoms,
}

impl Group {
    /// The heading of the group in the help.
    pub fn title(self) -> &'static str {
        match self {
            Group::Algebra => "Algebra",
            Group::Construction => "Construction",
            Group::Tuples => "Tuples and shapes",
            Group::Views => "Views (each prints as a view OFF o L)",
            Group::Atoms => "Atoms (CuTe's MMA and copy atoms, TiledMMA, TiledCopy)",
        }
    }
}

/// One built-in function.
#[derive(Clone, Copy, Debug)]
pub struct Builtin {
    /// Its name.
    pub name: &'static str,
    /// The fewest arguments it takes.
    pub min_args: usize,
    /// The most arguments it takes (`usize::MAX`: any number).
    pub max_args: usize,
    /// Its arguments, as the help writes them.
    pub args: &'static str,
    /// Its group.
    pub group: Group,
    /// What it computes, in one line.
    pub help: &'static str,
}

/// The evaluated call of a built-in, as its implementation sees it.
pub(crate) struct Call<'a, I> {
    /// The function's name.
    pub(crate) name: &'a str,
    /// The argument expressions (for the few functions that read them unevaluated).
    pub(crate) args: &'a [Expr],
    /// The evaluated arguments; `None` once taken.
    vals: Vec<Option<Result<Value<I>>>>,
    /// The names in scope.
    pub(crate) env: &'a Env<I>,
    /// The source line, for messages.
    pub(crate) src: &'a str,
    /// The call itself, for messages.
    pub(crate) e: &'a Expr,
}

impl<'a, I: Int> Call<'a, I> {
    /// How many arguments were given.
    pub(crate) fn len(&self) -> usize {
        self.args.len()
    }

    /// Argument `k`, evaluated.
    pub(crate) fn arg(&self, k: usize) -> Result<&Value<I>> {
        match &self.vals[k] {
            Some(v) => v.as_ref().map_err(Error::clone),
            None => Err(taken()),
        }
    }

    /// Argument `k`, evaluated and taken (a later [`Call::arg`] of `k` is an internal error).
    pub(crate) fn take(&mut self, k: usize) -> Result<Value<I>> {
        self.vals[k].take().unwrap_or_else(|| Err(taken()))
    }

    /// An error at the call.
    pub(crate) fn err(&self, msg: impl Into<String>) -> Error {
        at(self.src, self.e, msg)
    }
}

/// The error of an argument read after it was taken (a bug in a built-in).
fn taken() -> Error {
    Error::internal("an argument used twice")
}

/// The signature of an implementation.
type Impl<I> = fn(&mut Call<'_, I>) -> Result<Value<I>>;

/// Declares the registry and its dispatch from one list: `group { "name" (min, max) "args"
/// "help" => implementation, ... }`.
macro_rules! registry {
    ($( $group:ident { $( $name:literal ($lo:expr, $hi:expr) $args:literal $help:literal => $f:path ),* $(,)? } )*) => {
        /// Every built-in function, in the order of the help.
        pub static BUILTINS: &[Builtin] = &[
            $( $( Builtin { name: $name, min_args: $lo, max_args: $hi, args: $args, group: Group::$group, help: $help }, )* )*
        ];

        /// The implementations, in the order of [`BUILTINS`], one table per integer type.
        trait Implementations: Int {
            const IMPLS: &'static [Impl<Self>];
        }

        impl<I: Int> Implementations for I {
            const IMPLS: &'static [Impl<I>] = &[ $( $( $f as Impl<I>, )* )* ];
        }
    };
}

const ANY: usize = usize::MAX;

registry! {
    Algebra {
        "coalesce" (1, 2) "L [, profile]" "the simplest layout of the same function (by mode with a profile)" => algebra::coalesce,
        "coalesce_z" (1, 2) "L [, profile]" "coalesce, keeping a trailing size-1 mode (the same function on every integer)" => algebra::coalesce_z,
        "filter" (1, 2) "L [, profile]" "coalesce without stride-0 and size-1 modes (by mode with a profile)" => algebra::filter_any,
        "composition" (2, 2) "A, B" "A o B: R(i) == A(B(i)); B may be a tiler, A a swizzle" => algebra::composition_any,
        "complement" (1, 2) "A [, cotarget]" "the ordered layout filling A's holes, extended to cover the cotarget" => algebra::complement,
        "logical_divide" (2, 2) "A, tiler" "A o (B, complement(B, size(A))): (tile, rest)" => algebra::logical_divide,
        "zipped_divide" (2, 2) "A, tiler" "logical_divide with the tiles of every mode gathered: ((tile), (rest))" => algebra::zipped_divide,
        "tiled_divide" (2, 2) "A, tiler" "((tile), rest0, rest1, ...)" => algebra::tiled_divide,
        "flat_divide" (2, 2) "A, tiler" "(tile0, tile1, ..., rest0, rest1, ...)" => algebra::flat_divide,
        "logical_product" (2, 2) "A, tiler" "(A, complement(A) o B): a copy of A at every position of B" => algebra::logical_product,
        "zipped_product" (2, 2) "A, tiler" "logical_product gathered by mode: ((A modes), (grid modes))" => algebra::zipped_product,
        "tiled_product" (2, 2) "A, tiler" "((A), grid0, grid1, ...)" => algebra::tiled_product,
        "flat_product" (2, 2) "A, tiler" "(A0, A1, ..., grid0, grid1, ...)" => algebra::flat_product,
        "blocked_product" (2, 2) "A, B" "mode k is (A_k, grid_k); unequal ranks padded with 1:0" => algebra::blocked_product,
        "raked_product" (2, 2) "A, B" "mode k is (grid_k, A_k); unequal ranks padded with 1:0" => algebra::raked_product,
        "right_inverse" (1, 1) "L" "the largest R with L(R(k)) == k" => algebra::right_inverse,
        "left_inverse" (1, 1) "L" "R with R(L(i)) == i (L injective)" => algebra::left_inverse,
        "nullspace" (1, 1) "L" "the indices L sends to 0" => algebra::nullspace,
        "layout_add" (2, 2) "A, B" "the layout of A(i) + B(i)" => algebra::layout_add,
        "greatest_common_domain" (2, 2) "A, B" "the largest layout both shapes can index" => algebra::greatest_common_domain,
        "recast" (2, 2) "L, scale (an integer or p/q)" "L for elements scale times larger (or p/q)" => algebra::recast,
        "max_common_vector" (2, 2) "A, B" "how many leading indices A and B map alike and contiguously" => algebra::max_common_vector,
        "max_common_layout" (2, 2) "A, B" "the layout of B's leading offsets that A maps alike (1:0 if none)" => algebra::max_common_layout,
        "upcast" (2, 2) "L, n" "recast(L, n): elements n times larger" => algebra::upcast,
        "downcast" (2, 2) "L, n" "recast(L, 1/n): elements n times smaller (needs a unit stride)" => algebra::downcast,
        "filter_zeros" (1, 2) "L [, profile]" "stride-0 leaves (or those under 0 in the profile) get extent 1" => algebra::filter_zeros,
    }
    Construction {
        "make_layout" (1, ANY) "L0, L1, ... | shape [, stride]" "the layouts as modes; or shape:stride (compact column-major without a stride), as CuTe" => algebra::make_layout,
        "make_layout_like" (1, 1) "L" "a compact layout ordered like L" => algebra::make_layout_like,
        "make_ordered_layout" (2, 2) "shape, order" "a compact layout with modes ordered by 'order'" => algebra::make_ordered_layout,
        "make_identity_layout" (1, 1) "shape" "the layout of each coordinate to itself (coordinate strides)" => algebra::make_identity_layout,
        "make_basis_like" (1, 1) "shape" "the unit coordinate strides of a shape" => algebra::make_basis_like,
        "tiler_to_layout" (1, 1) "tiler" "one layout equal to a by-mode tiler" => algebra::tiler_to_layout,
        "tile_to_shape" (2, 3) "block, shape [, order]" "copies of block covering shape, in order (column-major)" => algebra::tile_to_shape,
        "make_fragment_like" (1, 1) "L" "a compact layout of L's shape: mode 0 column-major, the rest ordered like L" => algebra::make_fragment_like,
    }
    Tuples {
        "select" (2, 3) "x, (i, j, ...) | L, dim, i (a view)" "modes i, j, ... of x; with three arguments, the view at index i of dimension dim" => mode_select::select,
        "take" (3, 3) "x, begin, end" "modes begin..end of x" => mode_select::take,
        "get" (1, ANY) "x, i, j, ..." "the mode of x at the path i, j, ..." => mode_select::get,
        "flatten" (1, 1) "x" "the leaves of x as one flat tuple" => mode_select::flatten,
        "wrap" (1, 1) "x" "x as a one-mode tuple" => tuples::wrap,
        "unwrap" (1, 1) "x" "the single mode of a one-mode tuple" => tuples::unwrap,
        "size" (1, 1) "x" "the product of the extents" => tuples::size,
        "cosize" (1, 1) "L" "one past the largest offset" => tuples::cosize,
        "rank" (1, 1) "x" "the number of top-level modes" => tuples::rank,
        "depth" (1, 1) "x" "the nesting depth" => tuples::depth,
        "shape" (1, 1) "L" "the shape" => tuples::shape,
        "stride" (1, 1) "L" "the stride" => tuples::stride,
        "coshape" (1, 1) "L" "the shape of the codomain" => tuples::coshape,
        "coprofile" (1, 1) "L" "the codomain's profile (zeros)" => tuples::coprofile,
        "product" (1, 1) "t" "the product of the leaves" => tuples::product,
        "product_each" (1, 1) "t" "the product of each mode" => tuples::product_each,
        "prefix_product" (1, 2) "t [, init]" "exclusive prefix products" => tuples::prefix_product,
        "inner_product" (2, 2) "a, b" "the sum of the products of the leaves" => tuples::inner_product,
        "idx2crd" (2, 3) "idx, shape [, stride]" "the coordinate of an index (with a stride: (idx / stride) % shape)" => tuples::idx2crd,
        "crd2idx" (2, 3) "crd, shape [, stride]" "the index of a coordinate (with a stride: the layout shape:stride at crd)" => tuples::crd2idx,
        "congruent" (2, 2) "a, b" "the same tree" => tuples::congruent,
        "weakly_congruent" (2, 2) "a, b" "b refines a's tree" => tuples::weakly_congruent,
        "compatible" (2, 2) "a, b" "every coordinate of a is one of b" => tuples::compatible,
        "common_refinement" (2, 2) "a, b" "the coarsest shape refining both" => tuples::common_refinement,
        "common_coarsening" (2, 2) "a, b" "the finest shape coarsening both" => tuples::common_coarsening,
        "repeat_like" (2, 2) "x, profile" "x at every leaf of the profile" => tuples::repeat_like,
        "lift" (2, ANY) "x, i, j, ..." "x placed at the path i, j, ... (zeros around it)" => tuples::lift,
        "slice_" (2, 2) "crd, x" "the parts of x under '_' in crd" => tuples::slice_,
        "dice_" (2, 2) "crd, x" "the parts of x under integers in crd" => tuples::dice_,
        "unflatten" (2, 2) "flat, profile" "the leaves of flat in the tree of profile" => tuples::unflatten,
        "is_tuple" (1, 1) "x" "whether x is a tuple" => tuples::is_tuple,
        "fdiv" (2, 2) "a, b" "the floor quotient" => tuples::fdiv,
        "fmod" (2, 2) "a, b" "the floor remainder" => tuples::fmod,
        "shape_div" (2, 2) "a, b" "a divided by b mode by mode, under the divisibility condition" => tuples::shape_div,
        "ceil_div" (2, 2) "a, b" "a divided by b mode by mode, rounding up" => tuples::ceil_div,
        "elem_scale" (2, 2) "a, b" "a scaled mode by mode by the products of b" => tuples::elem_scale,
        "append" (1, 3) "x [, elem [, rank]]" "elem (a layout: 1:0) added after the last mode (until the rank)" => modes::append,
        "prepend" (1, 3) "x [, elem [, rank]]" "elem (a layout: 1:0) added before the first mode (until the rank)" => modes::prepend,
        "replace" (3, 3) "x, i, elem" "mode i of x replaced by elem" => modes::replace,
        "group_modes" (2, 3) "x, begin [, end]" "modes begin..end gathered into one mode" => modes::group_modes,
        "group" (2, 3) "x, begin [, end]" "CuTe's group<B,E>: group_modes" => modes::group_modes,
    }
    Views {
        "tile_view" (2, 3) "L, offset [, shape]" "the view at an offset (integers select, '_' keeps a dimension), of a shape" => view_fns::tile_view,
        "narrow" (4, 4) "L, dim, start, len" "indices start..start+len of a dimension" => view_fns::narrow,
        "permute" (2, 2) "L, (p0, p1, ...)" "the dimensions reordered" => view_fns::permute,
        "broadcast" (2, 2) "L, dims" "stride-0 dimensions to the target dimensions (NumPy's rule)" => view_fns::broadcast,
        "diagonal" (2, 2) "L, (a, b) | ((a, b), (c, d), ...)" "the diagonal of paired dimensions" => view_fns::diagonal,
        "local_tile" (3, 3) "L, tiler, coord" "the tile at coord of zipped_divide(L, tiler) ('_' keeps a grid mode)" => view_fns::local_tile,
        "local_partition" (3, 3) "L, threads (layout or shape), thread index or coordinate" "the elements one thread works on ('_' keeps a thread mode)" => view_fns::local_partition,
    }
    Atoms {
        "make_tiled_mma" (1, 3) "ATOM [, atom layout (M,N,K) or layout [, permutation (PM,PN,PK)]]" "CuTe's make_tiled_mma of an MMA atom named as in CuTe C++ (GMMA: _SS_TN...)" => atoms::make_tiled_mma,
        "tv_layout_A" (1, 1) "T" "get_layoutA_TV(): (thread, value) -> (m,k) of the tiled MMA's A tile" => atoms::tv_layout_a,
        "tv_layout_B" (1, 1) "T" "get_layoutB_TV(): (thread, value) -> (n,k)" => atoms::tv_layout_b,
        "tv_layout_C" (1, 1) "T" "get_layoutC_TV(): (thread, value) -> (m,n)" => atoms::tv_layout_c,
        "tile_size" (1, 1) "T | TC" "(tile_size<0>, tile_size<1>, tile_size<2>) of a tiled MMA, the tile of a tiled copy" => atoms::tile_size,
        "copy_atom" (2, 2) "OP, element bits" "Copy_Atom<OP, T> for a T of that many bits (UniversalCopy_128, SM75_U32x4_LDSM_N, ...)" => atoms::copy_atom,
        "make_tiled_copy" (2, 3) "CA, thread layout [, value layout]" "CuTe's make_tiled_copy: raked_product(thr, val) inverted" => atoms::make_tiled_copy,
        "make_tiled_copy_A" (2, 2) "CA, T" "the tiled copy of the tiled MMA's A operand" => atoms::make_tiled_copy_a,
        "make_tiled_copy_B" (2, 2) "CA, T" "the tiled copy of the B operand" => atoms::make_tiled_copy_b,
        "make_tiled_copy_C" (2, 2) "CA, T" "the tiled copy of the C operand" => atoms::make_tiled_copy_c,
        "tv_layout_S" (1, 1) "TC" "get_layoutS_TV(): (thread, value) -> source tile coordinate" => atoms::tv_layout_s,
        "tv_layout_D" (1, 1) "TC" "get_layoutD_TV(): (thread, value) -> destination tile coordinate" => atoms::tv_layout_d,
        "partition_A" (3, 3) "T, tensor, thread" "thr_mma.partition_A(tensor): the thread's (FrgV, RestM, RestK) view" => atoms::partition_a,
        "partition_B" (3, 3) "T, tensor, thread" "thr_mma.partition_B(tensor)" => atoms::partition_b,
        "partition_C" (3, 3) "T, tensor, thread" "thr_mma.partition_C(tensor)" => atoms::partition_c,
        "partition_S" (3, 3) "TC, tensor, thread" "thr_copy.partition_S(tensor): the thread's ((FrgV,FrgX), Rest...) view" => atoms::partition_s,
        "partition_D" (3, 3) "TC, tensor, thread" "thr_copy.partition_D(tensor)" => atoms::partition_d,
        "thrfrg_A" (2, 2) "T, tensor" "every thread's A values over a tensor: ((ThrV,(ThrM,ThrK)),(FrgV,(RestM,RestK)))" => atoms::thrfrg_a,
        "thrfrg_B" (2, 2) "T, tensor" "every thread's B values over a tensor" => atoms::thrfrg_b,
        "thrfrg_C" (2, 2) "T, tensor" "every thread's C values over a tensor" => atoms::thrfrg_c,
        "tidfrg_S" (2, 2) "TC, tensor" "every thread's source values over a tensor: (Thr,(FrgV,FrgX),(Rest...))" => atoms::tidfrg_s,
        "tidfrg_D" (2, 2) "TC, tensor" "every thread's destination values over a tensor" => atoms::tidfrg_d,
        "smem_atom" (2, 2) "NAME, element bits" "GMMA's Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T> over element offsets" => atoms::smem_atom,
        "tma_swizzle" (2, 2) "MODE, element bits" "TMA's swizzle mode (INTER, SW32, SW64, SW128) on element offsets: Sw<B, 7 - log2(bits), 3>" => atoms::tma_swizzle,
    }
}

/// FNV-1a: names are short and not adversarial for this table (its keys are fixed), so a
/// cheap hash beats the default one on every call.
#[derive(Default)]
struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

type Names = HashMap<&'static str, usize, std::hash::BuildHasherDefault<Fnv>>;

/// The index of each built-in in [`BUILTINS`], by name.
static INDEX: LazyLock<Names> =
    LazyLock::new(|| BUILTINS.iter().enumerate().map(|(k, b)| (b.name, k)).collect());

/// The built-in called `name`.
pub fn lookup(name: &str) -> Option<&'static Builtin> {
    INDEX.get(name).map(|&k| &BUILTINS[k])
}

/// `true` for names that cannot be parameters or bindings: built-in functions and keywords.
pub fn is_reserved(name: &str) -> bool {
    matches!(name, "o" | "where" | "Sw" | "F2" | "true" | "false") || INDEX.contains_key(name)
}

/// Calls the built-in `name` with evaluated arguments.
pub(super) fn call<I: Int>(
    name: &str,
    args: &[Expr],
    vals: Vec<Result<Value<I>>>,
    env: &Env<I>,
    src: &str,
    e: &Expr,
) -> Result<Value<I>> {
    let Some(&k) = INDEX.get(name) else {
        let hint = closest(name)
            .map(|c| format!("; did you mean '{c}'?"))
            .unwrap_or_default();
        return Err(at(
            src,
            e,
            format!("unknown function '{}'{hint}", super::shown(name)),
        ));
    };
    let b = &BUILTINS[k];
    if args.len() < b.min_args || args.len() > b.max_args {
        let want = if b.min_args == b.max_args {
            format!("{}", b.min_args)
        } else if b.max_args == ANY {
            format!("at least {}", b.min_args)
        } else {
            format!("{} to {}", b.min_args, b.max_args)
        };
        let one = b.min_args == 1 && (b.max_args == 1 || b.max_args == ANY);
        let plural = if one { "" } else { "s" };
        return Err(at(
            src,
            e,
            format!("{name} takes {want} argument{plural}, got {}", args.len()),
        ));
    }
    let mut c = Call {
        name,
        args,
        vals: vals.into_iter().map(Some).collect(),
        env,
        src,
        e,
    };
    <I as Implementations>::IMPLS[k](&mut c)
}

/// The built-in name nearest to a misspelling.
fn closest(name: &str) -> Option<&'static str> {
    // No built-in is within 3 edits of a long name; the distance costs its length.
    if name.len() > 40 {
        return None;
    }
    fn dist(a: &str, b: &str) -> usize {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for i in 1..=a.len() {
            let mut cur = vec![i; b.len() + 1];
            for j in 1..=b.len() {
                let c = if a[i - 1] == b[j - 1] { 0 } else { 1 };
                cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + c);
            }
            prev = cur;
        }
        prev[b.len()]
    }
    BUILTINS
        .iter()
        .map(|b| (dist(name, b.name), b.name))
        .filter(|(d, _)| *d <= 3)
        .min()
        .map(|(_, n)| n)
}

/// The groups in the order of the help.
const GROUPS: [Group; 5] = [
    Group::Algebra,
    Group::Construction,
    Group::Tuples,
    Group::Views,
    Group::Atoms,
];

/// The FUNCTIONS section of `tessera eval --help`: each group's names, wrapped.
pub fn help_text() -> String {
    let mut out = String::from("FUNCTIONS (tessera eval --functions lists each with its arguments)\n");
    for g in GROUPS {
        out.push_str(&format!("  {}:\n", g.title()));
        let mut line = String::from("   ");
        for b in BUILTINS.iter().filter(|b| b.group == g) {
            if line.len() + b.name.len() + 1 > 88 {
                out.push_str(&line);
                out.push('\n');
                line = String::from("   ");
            }
            line.push(' ');
            line.push_str(b.name);
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Every built-in with its arguments and what it computes, one per line, for
/// `tessera eval --help-functions`.
pub fn reference_text() -> String {
    let mut out = String::new();
    for g in GROUPS {
        out.push_str(&format!("{}\n", g.title()));
        for b in BUILTINS.iter().filter(|b| b.group == g) {
            out.push_str(&format!("  {}({})\n      {}\n", b.name, b.args, b.help));
        }
    }
    out
}

/// The book's list of built-ins (`docs/src/reference/generated/builtins.md`): a table per group.
pub fn markdown() -> String {
    let mut out = String::new();
    for g in GROUPS {
        out.push_str(&format!(
            "\n**{}**\n\n| function | arguments | computes |\n|---|---|---|\n",
            g.title()
        ));
        for b in BUILTINS.iter().filter(|b| b.group == g) {
            let args = b.args.replace('|', "\\|");
            out.push_str(&format!(
                "| `{}` | {} | {} |\n",
                b.name,
                args,
                b.help.replace('|', "\\|")
            ));
        }
    }
    out
}
