//! The laws of the layout algebra as guarded rewrites.
//!
//! Each law is a function returning its [`Law`]; its documentation gives the law, its source
//! and its side condition. Every law also carries the guard every rewrite here has: both sides
//! evaluate (on the values of the classes the match binds), and where the values are concrete
//! they agree (the same value for an exact law, the same coalesced layout for a law on
//! functions). `tests/identity_laws.rs` checks each law pointwise on random layouts.

use super::analysis::{Graph, Values};
use super::lang::{Layouts, call, is_concrete, value_of};
use crate::lang::Value;
use egg::{ConditionalApplier, ENodeOrVar, Id, Pattern, Rewrite, Subst, Var};
use tessera_ir::Int;
use tessera_ir::sym::SymInt;

/// A side condition on the values the match binds.
type Side = fn(&Graph, &Subst) -> bool;

/// One law: `lhs = rhs` under `side`, between exact terms (equal values) or function terms
/// (equal functions).
pub struct Law {
    /// The name of the law.
    pub name: &'static str,
    /// The left side, in egg's pattern syntax.
    pub lhs: &'static str,
    /// The right side.
    pub rhs: &'static str,
    /// Whether the law is applied right to left too.
    pub both_ways: bool,
    /// Whether the sides are function terms (`fun`, `fcompose`) rather than exact ones.
    pub on_functions: bool,
    side: Side,
}

fn var(s: &str) -> Var {
    s.parse()
        .unwrap_or_else(|_| panic!("'{s}' is not a pattern variable"))
}

/// The value of the class bound to `v`.
fn val<'a>(g: &'a Graph, s: &Subst, v: &str) -> Option<&'a Value<SymInt>> {
    s.get(var(v)).and_then(|id| g[*id].data.as_ref())
}

/// Whether every named variable is bound to a layout (not a tiler, integer or swizzle).
fn layouts(g: &Graph, s: &Subst, vs: &[&str]) -> bool {
    vs.iter().all(|v| matches!(val(g, s, v), Some(Value::Layout(_))))
}

/// Whether the layout bound to `v` has only integer strides, all non-negative (so its values
/// are non-negative).
fn non_negative(g: &Graph, s: &Subst, v: &str) -> bool {
    match val(g, s, v) {
        Some(Value::Layout(l)) => l.stride().leaves().iter().all(|d| {
            d.as_int()
                .is_some_and(|x| SymInt::zero().less_eq(x).unwrap_or(false))
        }),
        _ => false,
    }
}

/// Whether the layout bound to `v` is injective by a sufficient test: its coalesced modes,
/// sorted by stride, have positive integer strides, each at least the previous mode's extent
/// times stride (then every offset has one digit expansion). Undecided comparisons fail it.
fn injective(g: &Graph, s: &Subst, v: &str) -> bool {
    let Some(Value::Layout(l)) = val(g, s, v).and_then(|l| call("coalesce", &[l])) else {
        return false;
    };
    let mut modes: Vec<(SymInt, SymInt)> = Vec::new();
    for (n, d) in l.shape().leaves().iter().zip(l.stride().leaves()) {
        if n.is(1) {
            continue;
        }
        match d.as_int() {
            Some(d) if SymInt::zero().less(d).unwrap_or(false) => modes.push((n.clone(), d.clone())),
            _ => return false,
        }
    }
    // Insertion sort by stride; an undecided comparison fails the test.
    for i in 1..modes.len() {
        let mut j = i;
        while j > 0 {
            match modes[j].1.less(&modes[j - 1].1) {
                Ok(true) => modes.swap(j, j - 1),
                Ok(false) => break,
                Err(_) => return false,
            }
            j -= 1;
        }
    }
    modes.windows(2).all(|w| {
        w[0].0
            .mul(&w[0].1)
            .and_then(|span| span.less_eq(&w[1].1))
            .unwrap_or(false)
    })
}

fn int_of(v: Option<Value<SymInt>>) -> Option<SymInt> {
    match v {
        Some(Value::Int(i)) => Some(i),
        _ => None,
    }
}

/// The value of the pattern `p` under the match, without adding anything to the e-graph.
fn eval_pattern(p: &Pattern<Layouts>, g: &Graph, s: &Subst) -> Option<Value<SymInt>> {
    let nodes = p.ast.as_ref();
    let mut vals: Vec<Option<Value<SymInt>>> = Vec::with_capacity(nodes.len());
    for n in nodes {
        let v = match n {
            ENodeOrVar::Var(x) => s.get(*x).and_then(|id| g[*id].data.clone()),
            ENodeOrVar::ENode(node) => {
                use egg::Language;
                let args: Vec<Option<&Value<SymInt>>> = node
                    .children()
                    .iter()
                    .map(|c: &Id| vals[usize::from(*c)].as_ref())
                    .collect();
                value_of(node, &args)
            }
        };
        vals.push(v);
    }
    vals.pop().flatten()
}

/// The guard of every rewrite: the law's side condition, both sides evaluate, and concrete
/// values agree.
struct Guard {
    rhs: Pattern<Layouts>,
    on_functions: bool,
    side: Side,
    check_concrete: bool,
}

impl egg::Condition<Layouts, Values> for Guard {
    fn check(&self, g: &mut Graph, eclass: Id, s: &Subst) -> bool {
        let Some(l) = g[eclass].data.clone() else {
            return false;
        };
        if !(self.side)(g, s) {
            return false;
        }
        let Some(r) = eval_pattern(&self.rhs, g, s) else {
            return false;
        };
        if self.check_concrete && is_concrete(&l) && is_concrete(&r) {
            if self.on_functions {
                let (cl, cr) = (call("coalesce", &[&l]), call("coalesce", &[&r]));
                cl.is_some() && cl == cr
            } else {
                l == r
            }
        } else {
            true
        }
    }
}

impl Law {
    /// The rewrites of the law (one, or two when it is applied both ways).
    ///
    /// # Panics
    /// When a pattern does not parse (a programming error, caught by the tests).
    pub fn rewrites(&self) -> Vec<Rewrite<Layouts, Values>> {
        self.rewrites_checked(true)
    }

    /// The rewrites, without the check of concrete values when `check_concrete` is false:
    /// the law alone decides (the tests use this to test the laws themselves).
    pub fn rewrites_checked(&self, check_concrete: bool) -> Vec<Rewrite<Layouts, Values>> {
        let parse = |p: &str| -> Pattern<Layouts> {
            p.parse()
                .unwrap_or_else(|e| panic!("law {}: bad pattern {p}: {e}", self.name))
        };
        let one = |name: String, lhs: &str, rhs: &str| {
            let applier = ConditionalApplier {
                condition: Guard {
                    rhs: parse(rhs),
                    on_functions: self.on_functions,
                    side: self.side,
                    check_concrete,
                },
                applier: parse(rhs),
            };
            Rewrite::new(name, parse(lhs), applier).unwrap_or_else(|e| panic!("law {}: {e}", self.name))
        };
        let mut out = vec![one(self.name.to_string(), self.lhs, self.rhs)];
        if self.both_ways {
            out.push(one(format!("{}-rev", self.name), self.rhs, self.lhs));
        }
        out
    }
}

/// `logical_divide(A, B) = composition(A, make_layout(B, complement(B, size(A))))`.
///
/// Source: seed 004 (`logical_divide`: "A o (B, B*)", with `B*` the complement of `B` in
/// `size(A)`) and design.md ("the divides are their definitions"). Side condition: `A` and `B`
/// are layouts (a tuple of layouts is a by-mode tiler, a different operation). Exact: Tessera
/// computes the divide as exactly this composition.
pub fn divide_definition() -> Law {
    Law {
        name: "logical_divide-definition",
        lhs: "(logical_divide ?a ?b)",
        rhs: "(composition ?a (make_layout ?b (complement ?b (size ?a))))",
        both_ways: true,
        on_functions: false,
        side: |g, s| layouts(g, s, &["?a", "?b"]),
    }
}

/// `zipped_divide(A, B) = logical_divide(A, B)` when `B` is a layout.
///
/// Source: seed 004 (`zipped_divide` gathers the tile modes and the rest modes of a by-mode
/// divide; with a single layout as tiler there is one tile mode and one rest mode, so the
/// result is the logical divide itself). Side condition: `A` and `B` layouts. Exact.
pub fn zipped_is_logical() -> Law {
    Law {
        name: "zipped_divide-is-logical_divide",
        lhs: "(zipped_divide ?a ?b)",
        rhs: "(logical_divide ?a ?b)",
        both_ways: true,
        on_functions: false,
        side: |g, s| layouts(g, s, &["?a", "?b"]),
    }
}

/// `tiled_divide(A, B)` and `logical_divide(A, B)` are the same function when `B` is a layout.
///
/// Source: seed 004 (`tiled_divide` is the zipped divide with the rest mode flattened;
/// flattening a mode keeps the layout's function). Side condition: `A`, `B` layouts.
pub fn tiled_is_logical() -> Law {
    Law {
        name: "tiled_divide-is-logical_divide",
        lhs: "(fun (tiled_divide ?a ?b))",
        rhs: "(fun (logical_divide ?a ?b))",
        both_ways: true,
        on_functions: true,
        side: |g, s| layouts(g, s, &["?a", "?b"]),
    }
}

/// `logical_product(A, B) = make_layout(A, composition(complement(A, size(A)*cosize(B)), B))`.
///
/// Source: seed 004 (`logical_product`: "(A, A* o B)" with `A*` the complement of `A` in
/// `size(A)*cosize(B)`) and design.md. Side condition: `A`, `B` layouts. A law on
/// functions, not values: where `B` has a mode of extent 1, the product's stride there can
/// differ from the definition's (`logical_product((2,3,2):(0,2,6), 1:2)` is
/// `((2,3,2),1):((0,2,6),12)`, the definition `((2,3,2),1):((0,2,6),2)`; the differential
/// test found it), which changes no value.
pub fn product_definition() -> Law {
    Law {
        name: "logical_product-definition",
        lhs: "(fun (logical_product ?a ?b))",
        rhs: "(fun (make_layout ?a (composition (complement ?a (* (size ?a) (cosize ?b))) ?b)))",
        both_ways: true,
        on_functions: true,
        side: |g, s| layouts(g, s, &["?a", "?b"]),
    }
}

/// `coalesce(coalesce(A)) = coalesce(A)`.
///
/// Source: seed 004 (`coalesce` returns a layout that cannot be coalesced further). Side
/// condition: `A` a layout. Exact.
pub fn coalesce_idempotent() -> Law {
    Law {
        name: "coalesce-idempotent",
        lhs: "(coalesce (coalesce ?a))",
        rhs: "(coalesce ?a)",
        both_ways: false,
        on_functions: false,
        side: |g, s| layouts(g, s, &["?a"]),
    }
}

/// `coalesce(A)` is `A` as a function.
///
/// Source: seed 004 post-condition of `coalesce`: same size, and `coalesce(A)(i) == A(i)` for
/// every `i < size(A)`. Side condition: `A` a layout.
pub fn coalesce_keeps_function() -> Law {
    Law {
        name: "coalesce-keeps-the-function",
        lhs: "(fun (coalesce ?a))",
        rhs: "(fun ?a)",
        both_ways: false,
        on_functions: true,
        side: |g, s| layouts(g, s, &["?a"]),
    }
}

/// `size(coalesce(A)) = size(A)` and `cosize(coalesce(A)) = cosize(A)`.
///
/// Source: seed 004 post-condition of `coalesce` (the same function, so the same size and the
/// same largest value). Side condition: `A` a layout. Exact (integers).
pub fn coalesce_keeps_size() -> Law {
    Law {
        name: "size-of-coalesce",
        lhs: "(size (coalesce ?a))",
        rhs: "(size ?a)",
        both_ways: false,
        on_functions: false,
        side: |g, s| layouts(g, s, &["?a"]),
    }
}

/// `composition(A, B)` is the function `i -> A(B(i))` on `[0, size(B))`.
///
/// Source: seed 004 post-condition of `composition`: `size(R) == size(B)` and
/// `R(i) == A(B(i))`. Side condition: `A` and `B` layouts (not a by-mode tiler), `B`'s
/// strides non-negative (so `A` is only read at non-negative indices, where its extension
/// along its last mode is defined; every `fcompose` in the e-graph has such a right operand).
/// This is what lets the laws on functions see inside compositions.
pub fn composition_is_function() -> Law {
    Law {
        name: "composition-is-A-after-B",
        lhs: "(fun (composition ?a ?b))",
        rhs: "(fcompose ?a (fun ?b))",
        both_ways: true,
        on_functions: true,
        side: |g, s| layouts(g, s, &["?a", "?b"]) && non_negative(g, s, "?b"),
    }
}

/// Associativity: `A o (B o C) = (A o B) o C` as functions.
///
/// Source: seed 004 (composition is functional composition, and the design notes'
/// regression example). Side condition: `C`'s values lie in `[0, size(B))` (non-negative
/// strides and `cosize(C) <= size(B)`): `(A o B)(j) == A(B(j))` is only promised for
/// `j < size(B)`; past it `A o B` extends along its own last mode, not along `A`'s.
pub fn composition_associative() -> Law {
    Law {
        name: "composition-associative",
        lhs: "(fcompose ?a (fcompose ?b ?c))",
        rhs: "(fcompose (composition ?a ?b) ?c)",
        both_ways: true,
        on_functions: true,
        side: |g, s| {
            if !layouts(g, s, &["?a", "?b", "?c"]) || !non_negative(g, s, "?c") {
                return false;
            }
            let cos = int_of(val(g, s, "?c").and_then(|c| call("cosize", &[c])));
            let size = int_of(val(g, s, "?b").and_then(|b| call("size", &[b])));
            match (cos, size) {
                (Some(c), Some(n)) => c.less_eq(&n).unwrap_or(false),
                _ => false,
            }
        },
    }
}

/// Right identity: `A o I = A` as functions, where `I` is the identity `size(A):1` (any
/// layout that coalesces to it).
///
/// Source: seed 004 post-condition of `composition` (`R(i) == A(I(i)) == A(i)`, and
/// `size(R) == size(I) == size(A)`). Side condition: `coalesce(I) == coalesce(size(A):1)`.
pub fn right_identity() -> Law {
    Law {
        name: "composition-right-identity",
        lhs: "(fcompose ?a ?i)",
        rhs: "(fun ?a)",
        both_ways: false,
        on_functions: true,
        side: |g, s| {
            let (Some(a), Some(i)) = (val(g, s, "?a"), val(g, s, "?i")) else {
                return false;
            };
            if !layouts(g, s, &["?a", "?i"]) {
                return false;
            }
            let n = call("size", &[a]);
            let id = n.and_then(|n| value_of(&Layouts::Identity([Id::from(0)]), &[Some(&n)]));
            let want = id.and_then(|id| call("coalesce", &[&id]));
            want.is_some() && want == call("coalesce", &[i])
        },
    }
}

/// Left identity: `n:1 o F = F` as functions, for a rank-1 `n:1` and `F` with non-negative
/// values.
///
/// Source: seed 004 (a layout extends along its last mode past its size, so the rank-1
/// `n:1` is the identity on every non-negative index). Side condition: the left operand is
/// exactly a rank-1 layout with stride 1, and `F`'s strides are non-negative.
pub fn left_identity() -> Law {
    Law {
        name: "composition-left-identity",
        lhs: "(fcompose ?i ?f)",
        rhs: "?f",
        both_ways: false,
        on_functions: true,
        side: |g, s| {
            let Some(Value::Layout(i)) = val(g, s, "?i") else {
                return false;
            };
            let rank1 = i.shape().leaves().len() == 1 && i.rank() == 1;
            let unit = i
                .stride()
                .leaves()
                .iter()
                .all(|d| d.as_int().is_some_and(|x| x.is(1)));
            rank1 && unit && non_negative(g, s, "?f")
        },
    }
}

/// `left_inverse(L) o L` is the identity `size(L):1` as a function.
///
/// Source: seed 004 post-condition of `left_inverse`: `R(L(i)) == i` for every
/// `i < size(L)`, which needs `L` injective. Side condition: `L` is injective by a
/// sufficient test (positive strides, sorted modes that do not overlap): Tessera also answers
/// `left_inverse` of some layouts that are not injective (`left_inverse(4:0)` is `1:0`), and
/// there the law is false (the differential test found it).
pub fn left_inverse_law() -> Law {
    Law {
        name: "left_inverse-after-L",
        lhs: "(fcompose (left_inverse ?l) (fun ?l))",
        rhs: "(fun (identity (size ?l)))",
        both_ways: false,
        on_functions: true,
        side: |g, s| layouts(g, s, &["?l"]) && injective(g, s, "?l"),
    }
}

/// `L o right_inverse(L)` is the identity `size(right_inverse(L)):1` as a function.
///
/// Source: seed 004 post-condition of `right_inverse`: `L(R(i)) == i` for every
/// `i < size(R)`. Side condition: `L` a layout.
pub fn right_inverse_law() -> Law {
    Law {
        name: "L-after-right_inverse",
        lhs: "(fcompose ?l (fun (right_inverse ?l)))",
        rhs: "(fun (identity (size (right_inverse ?l))))",
        both_ways: false,
        on_functions: true,
        side: |g, s| layouts(g, s, &["?l"]),
    }
}

/// Every law, in the order the tests and the book (tutorials/identities.md) list them.
pub fn all() -> Vec<Law> {
    vec![
        divide_definition(),
        zipped_is_logical(),
        tiled_is_logical(),
        product_definition(),
        coalesce_idempotent(),
        coalesce_keeps_function(),
        coalesce_keeps_size(),
        composition_is_function(),
        composition_associative(),
        right_identity(),
        left_identity(),
        left_inverse_law(),
        right_inverse_law(),
    ]
}
