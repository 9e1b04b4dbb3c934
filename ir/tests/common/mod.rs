//! Shared helpers of the property tests: random layout and tiler strategies, and an evaluator
//! written independently of `Layout::eval_index`, so that the algebra is checked against a
//! plain reading of `L(i) = sum_k idx2crd(i)_k * d_k`.

#![allow(dead_code)]

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use tessera_ir::Error;
use tessera_ir::algebra::Tiler;
use tessera_ir::shape::compatible;
use tessera_ir::{HTuple, Layout, Stride};

/// `cases` proptest cases, times `$TESSERA_PROPTEST_SCALE` when set (for longer soak runs),
/// without failure persistence.
pub fn scaled(cases: u32) -> ProptestConfig {
    let scale = std::env::var("TESSERA_PROPTEST_SCALE")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .unwrap_or(1);
    ProptestConfig {
        cases: cases.saturating_mul(scale.max(1)),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Largest layout size the strategies produce, so that pointwise checks stay fast.
pub const MAX_SIZE: i64 = 4096;

/// Parses a layout, panicking on bad test input.
pub fn lay(s: &str) -> Layout<i64> {
    tessera_ir::parse_layout(s).unwrap_or_else(|e| panic!("bad test layout {s}: {e}"))
}

/// The integer value of an integer stride; a test failure for any other stride.
pub fn int_stride(d: &Stride<i64>) -> i64 {
    match d.as_int() {
        Some(v) => *v,
        None => panic!("expected an integer stride, found {d}"),
    }
}

/// `L(i)` for an integer-strided layout: colexicographic digits, the last leaf absorbing the
/// quotient (so `i` past the size, and negative `i`, are evaluated as CuTe does).
pub fn ev(l: &Layout<i64>, i: i64) -> i64 {
    let sh = l.flat_shape();
    let st = l.flat_stride();
    let n = sh.len();
    let mut rest = i;
    let mut acc = 0i64;
    for k in 0..n {
        let c = if k + 1 == n {
            rest
        } else {
            let c = rest.rem_euclid(sh[k]);
            rest = rest.div_euclid(sh[k]);
            c
        };
        acc += c * int_stride(&st[k]);
    }
    acc
}

/// The product of the extents.
pub fn size(l: &Layout<i64>) -> i64 {
    l.flat_shape().iter().product()
}

/// `size` of an int tuple.
pub fn tsize(t: &HTuple<i64>) -> i64 {
    t.leaves().iter().product()
}

/// All values `L(0), ..., L(size-1)`.
pub fn values(l: &Layout<i64>) -> Vec<i64> {
    (0..size(l)).map(|i| ev(l, i)).collect()
}

/// The sorted multiset of values.
pub fn sorted_values(l: &Layout<i64>) -> Vec<i64> {
    let mut v = values(l);
    v.sort_unstable();
    v
}

/// The set of values.
pub fn image(l: &Layout<i64>) -> std::collections::BTreeSet<i64> {
    values(l).into_iter().collect()
}

/// `true` when `L` maps its domain one-to-one.
pub fn is_injective(l: &Layout<i64>) -> bool {
    let v = sorted_values(l);
    v.windows(2).all(|w| w[0] != w[1])
}

/// The flat natural coordinate of index `i` (in range) in the flat shape `sh`.
pub fn flat_crd(mut i: i64, sh: &[i64]) -> Vec<i64> {
    let n = sh.len();
    let mut out = Vec::with_capacity(n);
    for (k, s) in sh.iter().enumerate() {
        if k + 1 == n {
            out.push(i);
        } else {
            out.push(i.rem_euclid(*s));
            i = i.div_euclid(*s);
        }
    }
    out
}

/// The index of a flat natural coordinate in the flat shape `sh`.
pub fn flat_idx(c: &[i64], sh: &[i64]) -> i64 {
    let mut acc = 0;
    let mut w = 1;
    for (x, s) in c.iter().zip(sh) {
        acc += x * w;
        w *= s;
    }
    acc
}

/// Divisors of `n` (positive), ascending.
pub fn divisors(n: i64) -> Vec<i64> {
    (1..=n).filter(|d| n % d == 0).collect()
}

/// A tree of leaf positions: the nesting structure of a shape.
#[derive(Clone, Debug)]
pub enum Tree {
    Leaf(usize),
    Node(Vec<Tree>),
}

/// Groups the leaves `lo..hi` into a tree of depth at most `3 - d`, driven by `bytes`.
fn group(lo: usize, hi: usize, d: usize, bytes: &mut impl Iterator<Item = u8>) -> Tree {
    let n = hi - lo;
    let b = bytes.next().unwrap_or(1);
    if n == 1 {
        // Mostly a bare leaf; sometimes a one-element tuple `(s):(d)`.
        if d < 3 && b.is_multiple_of(7) {
            return Tree::Node(vec![group(lo, hi, d + 1, bytes)]);
        }
        return Tree::Leaf(lo);
    }
    if d + 1 >= 3 {
        return Tree::Node((lo..hi).map(Tree::Leaf).collect());
    }
    // Split into contiguous parts: cut after position k when the next byte says so.
    let mut parts = Vec::new();
    let mut start = lo;
    for k in lo + 1..hi {
        if bytes.next().unwrap_or(0).is_multiple_of(3) {
            parts.push((start, k));
            start = k;
        }
    }
    parts.push((start, hi));
    if parts.len() == 1 && b.is_multiple_of(5) {
        // One part: nest it (a tuple of one tuple), or keep it flat.
        return Tree::Node(vec![group(lo, hi, d + 1, bytes)]);
    }
    if parts.len() == 1 {
        return Tree::Node((lo..hi).map(Tree::Leaf).collect());
    }
    Tree::Node(
        parts
            .into_iter()
            .map(|(a, z)| group(a, z, d + 1, bytes))
            .collect(),
    )
}

/// The tree over `n` leaves that the bytes describe (depth at most 3).
pub fn tree(n: usize, bytes: &[u8]) -> Tree {
    group(0, n, 0, &mut bytes.iter().copied())
}

/// The hierarchical tuple with the tree's structure and the given leaves.
pub fn htuple<T: Clone>(t: &Tree, leaves: &[T]) -> HTuple<T> {
    match t {
        Tree::Leaf(i) => HTuple::leaf(leaves[*i].clone()),
        Tree::Node(ms) => HTuple::from_modes(ms.iter().map(|m| htuple(m, leaves))),
    }
}

/// Builds a layout from flat extents and strides with the tree's nesting.
pub fn build(t: &Tree, ext: &[i64], st: &[i64]) -> Layout<i64> {
    let s = htuple(t, ext);
    let d = htuple(t, &st.iter().map(|&x| Stride::Int(x)).collect::<Vec<_>>());
    Layout::new(s, d).expect("strategy builds congruent layouts")
}

/// What kinds of strides a strategy draws.
#[derive(Clone, Copy, Debug)]
pub struct Gen {
    /// Most leaves.
    pub max_leaves: usize,
    /// Largest size.
    pub max_size: i64,
    /// Whether strides may be negative.
    pub neg: bool,
    /// Whether strides may be 0.
    pub zero: bool,
    /// Only permuted compact layouts with gaps (injective by construction).
    pub injective: bool,
}

impl Gen {
    /// Any layout: zeros, gaps, permutations, and negative strides.
    pub const ANY: Gen = Gen {
        max_leaves: 6,
        max_size: MAX_SIZE,
        neg: true,
        zero: true,
        injective: false,
    };
    /// Any layout with non-negative strides.
    pub const NONNEG: Gen = Gen {
        neg: false,
        ..Gen::ANY
    };
    /// Permuted compact layouts with gaps: injective, strides form a divisible chain.
    pub const INJECTIVE: Gen = Gen {
        neg: false,
        zero: false,
        injective: true,
        ..Gen::ANY
    };

    /// The same generator with a smaller size bound.
    pub const fn max_size(self, max_size: i64) -> Gen {
        Gen { max_size, ..self }
    }

    /// The same generator with fewer leaves.
    pub const fn max_leaves(self, max_leaves: usize) -> Gen {
        Gen { max_leaves, ..self }
    }
}

/// An extent: mostly small, sometimes 1, up to 8.
fn extent() -> impl Strategy<Value = i64> {
    prop_oneof![
        1 => Just(1i64),
        4 => Just(2i64),
        3 => 3i64..=4,
        2 => 5i64..=8,
    ]
}

/// A free stride for the random kind.
fn free_stride(g: Gen) -> BoxedStrategy<i64> {
    let zero_w = if g.zero { 3 } else { 0 };
    let neg_w = if g.neg { 1 } else { 0 };
    prop_oneof![
        zero_w => Just(0i64),
        12 => 1i64..=16,
        2 => 17i64..=64,
        neg_w => -8i64..=-1,
    ]
    .boxed()
}

/// Halves the largest extents until the size fits.
fn fit(ext: &mut [i64], max: i64) {
    while ext.iter().product::<i64>() > max {
        let (k, _) = ext
            .iter()
            .enumerate()
            .max_by_key(|(_, e)| **e)
            .expect("non-empty");
        ext[k] = (ext[k] / 2).max(1);
    }
}

/// Strides of the permuted compact layout with gaps: the mode `perm[0]` gets stride
/// `gap[0]`, the next `stride*extent*gap`, and so on.
fn perm_compact(ext: &[i64], perm: &[usize], gaps: &[i64]) -> Vec<i64> {
    let mut st = vec![0; ext.len()];
    let mut acc = 1i64;
    for (k, &p) in perm.iter().enumerate() {
        acc *= gaps[k];
        st[p] = acc;
        acc *= ext[p];
    }
    st
}

/// Random layouts of the kind `g` describes.
pub fn layout(g: Gen) -> BoxedStrategy<Layout<i64>> {
    let m = g.max_leaves;
    (
        1..=m,
        prop::collection::vec(extent(), m),
        prop::collection::vec(any::<u8>(), 3 * m),
        0u8..8,
        Just((0..m).collect::<Vec<usize>>()).prop_shuffle(),
        prop::collection::vec(prop_oneof![6 => Just(1i64), 2 => Just(2i64), 1 => Just(3i64)], m),
        prop::collection::vec(free_stride(g), m),
        prop::collection::vec(any::<u8>(), m),
    )
        .prop_map(move |(n, ext, bytes, kind, perm, gaps, free, flips)| {
            let mut ext = ext[..n].to_vec();
            fit(&mut ext, g.max_size);
            let perm: Vec<usize> = perm.into_iter().filter(|&p| p < n).collect();
            let t = tree(n, &bytes);
            let kind = if g.injective { kind % 3 } else { kind };
            let st: Vec<i64> = match kind {
                // Column-major compact.
                0 => perm_compact(&ext, &(0..n).collect::<Vec<_>>(), &[1; 8]),
                // Permuted compact, no gaps (a bijection onto [0, size)).
                1 => perm_compact(&ext, &perm, &[1; 8]),
                // Permuted compact with gaps.
                2 => perm_compact(&ext, &perm, &gaps),
                // Permuted compact with gaps, some modes broadcast or reversed.
                3 | 4 => {
                    let mut st = perm_compact(&ext, &perm, &gaps);
                    for (k, f) in flips.iter().take(n).enumerate() {
                        if g.zero && f % 5 == 0 {
                            st[k] = 0;
                        } else if g.neg && f % 11 == 1 {
                            st[k] = -st[k];
                        }
                    }
                    st
                }
                // Free strides.
                _ => free[..n].to_vec(),
            };
            build(&t, &ext, &st)
        })
        .boxed()
}

/// Random int tuples (shapes) with the same nesting as the layouts.
pub fn shape(max_leaves: usize, max_size: i64) -> BoxedStrategy<HTuple<i64>> {
    (
        1..=max_leaves,
        prop::collection::vec(extent(), max_leaves),
        prop::collection::vec(any::<u8>(), 3 * max_leaves),
    )
        .prop_map(move |(n, ext, bytes)| {
            let mut ext = ext[..n].to_vec();
            fit(&mut ext, max_size);
            htuple(&tree(n, &bytes), &ext)
        })
        .boxed()
}

/// The largest `|L(i)| + 1`: how far a layout reaches.
pub fn span(l: &Layout<i64>) -> i64 {
    values(l).into_iter().map(|v| v.abs()).max().unwrap_or(0) + 1
}

/// A layout tiler `B` for a layout of size `n`: a divisor with a small stride, a divisor split
/// in two modes, an injective layout, or any small layout. Its size and span stay within
/// `2*max(n, 4)`, so that the divided layouts (about `size(B) * span(B) / ...`) stay small
/// even when every mode of a by-mode tiler is divided.
pub fn layout_tiler(n: i64) -> BoxedStrategy<Layout<i64>> {
    let divs = divisors(n);
    let divs2 = divs.clone();
    let budget = 2 * n.max(4);
    let small = move |l: &Layout<i64>| size(l) <= budget && span(l) <= budget;
    prop_oneof![
        4 => (prop::sample::select(divs), prop::sample::select(vec![1i64, 1, 2, 3, 4]))
            .prop_map(|(d, s)| Layout::leaf(d, s)),
        2 => (prop::sample::select(divs2), 0usize..4).prop_map(move |(d, k)| {
            // A divisor of n split into two modes, column- or row-major.
            let a = divisors(d)[k % divisors(d).len()];
            let b = d / a;
            if k % 2 == 0 {
                lay(&format!("({a},{b}):(1,{a})"))
            } else {
                lay(&format!("({a},{b}):({b},1)"))
            }
        }),
        3 => layout(Gen::INJECTIVE.max_size(64.min(budget)).max_leaves(3)).prop_filter("span", small),
        2 => layout(Gen::ANY.max_size(64.min(budget)).max_leaves(3)).prop_filter("span", small),
    ]
    .boxed()
}

/// A by-mode tiler for `a`: a layout, or a tuple with one entry per (leading) mode, each `_`,
/// a layout tiler of that mode, or a nested tuple.
pub fn tiler(a: &Layout<i64>) -> BoxedStrategy<Tiler<i64>> {
    let n = size(a);
    let modes: Vec<Layout<i64>> = if a.shape().is_leaf() {
        vec![a.clone()]
    } else {
        a.modes().into_vec()
    };
    let per_mode: Vec<BoxedStrategy<Tiler<i64>>> = modes
        .iter()
        .map(|m| {
            let sub = if m.shape().is_tuple() {
                let inner: Vec<BoxedStrategy<Tiler<i64>>> = m
                    .modes()
                    .iter()
                    .map(|mm| layout_tiler(size(mm)).prop_map(Tiler::Layout).boxed())
                    .collect();
                inner.prop_map(Tiler::Tuple).boxed()
            } else {
                layout_tiler(size(m)).prop_map(Tiler::Layout).boxed()
            };
            prop_oneof![
                1 => Just(Tiler::Keep),
                6 => layout_tiler(size(m)).prop_map(Tiler::Layout),
                2 => sub,
            ]
            .boxed()
        })
        .collect();
    let rank = modes.len();
    prop_oneof![
        3 => layout_tiler(n).prop_map(Tiler::Layout),
        4 => (per_mode, 0..=rank).prop_map(|(ts, k)| {
            // Sometimes fewer entries than modes: the rest are kept.
            let keep = if k == 0 { ts.len() } else { k.max(1) };
            Tiler::Tuple(ts.into_iter().take(keep).collect())
        }),
    ]
    .boxed()
}

// ---------------------------------------------------------------------------------------------
// Shared by the algebra property tests

/// `cases` cases (scaled by `$TESSERA_PROPTEST_SCALE`); some properties only apply to part of
/// what the strategies draw (`prop_assume!`), so rejections are not limited.
pub fn cfg(cases: u32) -> ProptestConfig {
    ProptestConfig {
        max_global_rejects: u32::MAX,
        ..scaled(cases)
    }
}

/// The result of an operation that must succeed.
pub fn must<T>(r: tessera_ir::Result<T>, what: impl FnOnce() -> String) -> Result<T, TestCaseError> {
    r.map_err(|e| TestCaseError::fail(format!("{} failed: {e}", what())))
}

/// An error must be a proper, printable error.
pub fn proper(e: &Error) -> Result<(), TestCaseError> {
    prop_assert!(!e.to_string().is_empty(), "empty error message: {:?}", e);
    Ok(())
}

/// The top-level modes, a leaf-shaped layout being its own single mode.
pub fn top_modes(l: &Layout<i64>) -> Vec<Layout<i64>> {
    if l.shape().is_leaf() {
        vec![l.clone()]
    } else {
        l.modes().into_vec()
    }
}

/// `r(i) == f(i)` for every `i < n`.
pub fn agree(r: &Layout<i64>, n: i64, f: impl Fn(i64) -> i64, what: &str) -> Result<(), TestCaseError> {
    for i in 0..n {
        let (x, y) = (ev(r, i), f(i));
        prop_assert_eq!(x, y, "{}: R = {}, at i = {}", what, r, i);
    }
    Ok(())
}

/// Same function on `[0, size)` (and the same size).
pub fn same_fn(x: &Layout<i64>, y: &Layout<i64>, what: &str) -> Result<(), TestCaseError> {
    prop_assert_eq!(size(x), size(y), "{}: sizes of {} and {}", what, x, y);
    for i in 0..size(x) {
        prop_assert_eq!(ev(x, i), ev(y, i), "{}: {} vs {} at i = {}", what, x, y, i);
    }
    Ok(())
}

/// Injective, with non-negative strides.
pub fn injective_nonneg(l: &Layout<i64>) -> bool {
    l.flat_stride().iter().all(|d| int_stride(d) >= 0) && is_injective(l)
}

/// The nonzero strides, sorted, form a chain where each divides the next and clears the span
/// of the ones before (the pre-condition of `left_inverse`, and what makes a complement
/// fill every hole).
pub fn divisible_chain(a: &Layout<i64>) -> bool {
    let mut v: Vec<(i64, i64)> = a
        .flat_shape()
        .iter()
        .zip(a.flat_stride())
        .map(|(s, d)| (int_stride(d), *s))
        .filter(|(d, s)| *d != 0 && *s != 1)
        .collect();
    v.sort();
    let mut span = 1;
    for (d, s) in v {
        if d < 0 || d % span != 0 || d < span {
            return false;
        }
        span = d * s;
    }
    true
}

/// `composition(A, B) = R`: `compatible(B, R)` and `R(i) == A(B(i))`.
pub fn check_composition(a: &Layout<i64>, b: &Layout<i64>, r: &Layout<i64>) -> Result<(), TestCaseError> {
    prop_assert!(
        compatible(b.shape(), r.shape()).unwrap(),
        "composition({}, {}) = {}: shapes not compatible",
        a,
        b,
        r
    );
    agree(r, size(b), |i| ev(a, ev(b, i)), &format!("composition({a}, {b})"))
}
