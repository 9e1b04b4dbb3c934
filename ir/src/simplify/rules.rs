//! The rewrites, each sound under the guard its documentation states.
//!
//! Division and remainder are floor division and floor remainder (the IR's semantics). A guard
//! reads only the analysis facts of the matched classes ([`super::analysis::Facts`]): constants,
//! intervals over the domain, known divisors. Rules that produce a computed constant (`m / a`,
//! `2^k - 1`) are [`Computed`] appliers; the others are patterns with a condition.

use super::analysis::{Facts, Graph};
use super::lang::Term;
use crate::index::Op;
use egg::{Applier, ConditionalApplier, Id, Pattern, PatternAst, Rewrite, Subst, Symbol, Var};
use std::sync::Arc;

/// A rewrite of the simplifier.
pub type Rule = Rewrite<Term, super::analysis::Analyzer>;

fn var(s: &str) -> Var {
    s.parse().expect("a pattern variable")
}

fn pat(s: &str) -> Pattern<Term> {
    s.parse().expect("a pattern of the index language")
}

fn facts<'a>(g: &'a Graph, s: &Subst, v: &str) -> &'a Facts {
    &g[s[var(v)]].data
}

fn konst(g: &Graph, s: &Subst, v: &str) -> Option<i64> {
    facts(g, s, v).konst
}

/// The exponent of a power of two, when `c` is one.
fn log2(c: i64) -> Option<u32> {
    (c > 0 && c & (c - 1) == 0).then(|| c.trailing_zeros())
}

type Guard = fn(&Graph, &Subst) -> bool;

/// `lhs -> rhs` where `guard` holds.
fn guarded(name: &str, lhs: &str, rhs: &str, guard: Guard) -> Rule {
    let condition = move |g: &mut Graph, _: Id, s: &Subst| guard(g, s);
    Rewrite::new(
        name,
        pat(lhs),
        ConditionalApplier {
            condition,
            applier: pat(rhs),
        },
    )
    .expect("a well-formed rewrite")
}

/// `lhs -> rhs`, always.
fn plain(name: &str, lhs: &str, rhs: &str) -> Rule {
    Rewrite::new(name, pat(lhs), pat(rhs)).expect("a well-formed rewrite")
}

/// An applier that builds its right-hand side from the matched classes, or declines.
#[derive(Clone)]
pub struct Computed(Arc<Build>);

/// Builds a right-hand side from the matched classes, or declines.
type Build = dyn Fn(&mut Graph, &Subst) -> Option<Id> + Send + Sync;

impl Applier<Term, super::analysis::Analyzer> for Computed {
    fn apply_one(
        &self,
        g: &mut Graph,
        eclass: Id,
        s: &Subst,
        _: Option<&PatternAst<Term>>,
        _: Symbol,
    ) -> Vec<Id> {
        match (self.0)(g, s) {
            Some(id) if g.union(eclass, id) => vec![id],
            _ => vec![],
        }
    }
}

fn computed(
    name: &str,
    lhs: &str,
    f: impl Fn(&mut Graph, &Subst) -> Option<Id> + Send + Sync + 'static,
) -> Rule {
    Rewrite::new(name, pat(lhs), Computed(Arc::new(f))).expect("a well-formed rewrite")
}

fn num(g: &mut Graph, v: i64) -> Id {
    g.add(Term::Num(v))
}

fn node(g: &mut Graph, op: Op, args: &[Id]) -> Id {
    g.add(Term::op(op, args))
}

/// Never 0 on the domain.
fn nonzero(f: &Facts) -> bool {
    f.range.is_at_least(1) || f.range.is_at_most(-1)
}

/// `0 <= x < c` on the domain, for a divisor `c` that is at least 1.
fn below(x: &Facts, c: &Facts) -> bool {
    match (x.range.hi(), c.range.lo()) {
        (Some(h), Some(l)) => x.at_least(0) && l >= 1 && h < l,
        _ => false,
    }
}

/// The bits a non-negative class may have set, as a mask (from its known divisor's power of two
/// up to its upper bound), when it is known.
fn possible_bits(x: &Facts) -> Option<i64> {
    if !x.at_least(0) {
        return None;
    }
    let hi = i64::try_from(x.range.hi()?).ok()?;
    let top = 64 - hi.leading_zeros();
    let low = if x.divisor == 0 {
        top
    } else {
        x.divisor.trailing_zeros().min(top)
    };
    let mask = |n: u32| (1i128 << n) - 1;
    i64::try_from(mask(top) & !mask(low)).ok()
}

/// Commutativity and associativity of `+` and `*`, distribution over a constant, factoring.
fn ring() -> Vec<Rule> {
    vec![
        // `a + b = b + a`, always.
        plain("add-comm", "(+ ?a ?b)", "(+ ?b ?a)"),
        // `(a + b) + c = a + (b + c)`, always.
        plain("add-assoc", "(+ (+ ?a ?b) ?c)", "(+ ?a (+ ?b ?c))"),
        // `a * b = b * a`, always.
        plain("mul-comm", "(* ?a ?b)", "(* ?b ?a)"),
        // `(a * b) * c = a * (b * c)`, always.
        plain("mul-assoc", "(* (* ?a ?b) ?c)", "(* ?a (* ?b ?c))"),
        // `(a + b) * c = a*c + b*c`; guard: `c` is a constant (keeps the graph small).
        guarded(
            "distribute",
            "(* (+ ?a ?b) ?c)",
            "(+ (* ?a ?c) (* ?b ?c))",
            |g, s| konst(g, s, "?c").is_some(),
        ),
        // `a*c + b*c = (a + b) * c`; guard: the new sum `a + b` and product `(a + b) * c`
        // fit in int64 on the domain (the emitted code computes them in int64).
        guarded("factor", "(+ (* ?a ?c) (* ?b ?c))", "(* (+ ?a ?b) ?c)", |g, s| {
            let r = |v: &str| facts(g, s, v).range;
            let (a, b, c) = (r("?a"), r("?b"), r("?c"));
            let sum = match (a.lo(), a.hi(), b.lo(), b.hi()) {
                (Some(w), Some(x), Some(y), Some(z)) => w.checked_add(y).zip(x.checked_add(z)),
                _ => None,
            };
            match (sum, c.lo(), c.hi()) {
                (Some((lo, hi)), Some(cl), Some(ch)) => {
                    let ends = [
                        lo.checked_mul(cl),
                        lo.checked_mul(ch),
                        hi.checked_mul(cl),
                        hi.checked_mul(ch),
                    ];
                    let fit = |v: i128| (i128::from(i64::MIN)..=i128::from(i64::MAX)).contains(&v);
                    fit(lo) && fit(hi) && ends.iter().all(|e| e.is_some_and(fit))
                }
                _ => false,
            }
        }),
        // `(a + b) - b = a`, always.
        plain("sub-of-add", "(- (+ ?a ?b) ?b)", "?a"),
        // `(a - b) + b = a`, always.
        plain("add-of-sub", "(+ (- ?a ?b) ?b)", "?a"),
        // `a - a = 0`, always.
        plain("sub-self", "(- ?a ?a)", "0"),
    ]
}

/// The identities of the neutral and absorbing elements.
fn identities() -> Vec<Rule> {
    vec![
        plain("add-0", "(+ ?a 0)", "?a"),
        plain("sub-0", "(- ?a 0)", "?a"),
        plain("mul-1", "(* ?a 1)", "?a"),
        plain("mul-0", "(* ?a 0)", "0"),
        plain("xor-0", "(^ ?a 0)", "?a"),
        plain("xor-self", "(^ ?a ?a)", "0"),
        plain("and-0", "(& ?a 0)", "0"),
        plain("and-self", "(& ?a ?a)", "?a"),
        plain("shl-0", "(<< ?a 0)", "?a"),
        plain("shr-0", "(>> ?a 0)", "?a"),
        plain("min-self", "(min ?a ?a)", "?a"),
        plain("max-self", "(max ?a ?a)", "?a"),
    ]
}

/// Floor division and remainder by the structure of the dividend.
fn div_mod() -> Vec<Rule> {
    vec![
        // `(x * c) / c -> x`; guard: `c` is never 0.
        guarded("div-of-product", "(/ (* ?x ?c) ?c)", "?x", |g, s| {
            nonzero(facts(g, s, "?c"))
        }),
        // `(x + y*c) / c -> x/c + y`; guard: `c` is never 0 (floor((x + y c)/c) = floor(x/c) + y).
        guarded(
            "div-of-sum-product",
            "(/ (+ ?x (* ?y ?c)) ?c)",
            "(+ (/ ?x ?c) ?y)",
            |g, s| nonzero(facts(g, s, "?c")),
        ),
        // `(x + y) / c -> x/c + y/c`; guard: `c` a non-zero constant and `y` a multiple of it.
        guarded(
            "div-of-sum-multiple",
            "(/ (+ ?x ?y) ?c)",
            "(+ (/ ?x ?c) (/ ?y ?c))",
            |g, s| konst(g, s, "?c").is_some_and(|c| facts(g, s, "?y").multiple_of(c)),
        ),
        // `(x + y*c) % c -> x % c`; guard: `c` is never 0.
        guarded(
            "mod-of-sum-product",
            "(% (+ ?x (* ?y ?c)) ?c)",
            "(% ?x ?c)",
            |g, s| nonzero(facts(g, s, "?c")),
        ),
        // `(x + y) % c -> x % c`; guard: `c` a non-zero constant and `y` a multiple of it.
        guarded("mod-of-sum-multiple", "(% (+ ?x ?y) ?c)", "(% ?x ?c)", |g, s| {
            konst(g, s, "?c").is_some_and(|c| facts(g, s, "?y").multiple_of(c))
        }),
        // `y % c -> 0`; guard: `c` a non-zero constant and `y` a multiple of it.
        guarded("mod-of-multiple", "(% ?y ?c)", "0", |g, s| {
            konst(g, s, "?c").is_some_and(|c| facts(g, s, "?y").multiple_of(c))
        }),
        // `(y * c) % c -> 0`; guard: `c` is never 0.
        guarded("mod-of-product", "(% (* ?y ?c) ?c)", "0", |g, s| {
            nonzero(facts(g, s, "?c"))
        }),
        // `x % c -> x`; guard: `0 <= x < c` on the domain.
        guarded("mod-below", "(% ?x ?c)", "?x", |g, s| {
            below(facts(g, s, "?x"), facts(g, s, "?c"))
        }),
        // `x / c -> 0`; guard: `0 <= x < c` on the domain.
        guarded("div-below", "(/ ?x ?c)", "0", |g, s| {
            below(facts(g, s, "?x"), facts(g, s, "?c"))
        }),
        // `(x / a) / b -> x / (a*b)`; guard: `a >= 1` and `b >= 1` on the domain, and the new
        // product `a*b` fits in int64 there (the emitted code computes it in int64; the
        // validation would refuse it otherwise).
        guarded("div-of-div", "(/ (/ ?x ?a) ?b)", "(/ ?x (* ?a ?b))", |g, s| {
            let (a, b) = (facts(g, s, "?a"), facts(g, s, "?b"));
            let fits = match (a.range.hi(), b.range.hi()) {
                (Some(x), Some(y)) => x.checked_mul(y).is_some_and(|p| p <= i128::from(i64::MAX)),
                _ => false,
            };
            a.at_least(1) && b.at_least(1) && fits
        }),
        // `(x % m) % d -> x % d`; guard: `m` and `d` positive constants, `d` divides `m`.
        guarded(
            "mod-of-mod",
            "(% (% ?x ?m) ?d)",
            "(% ?x ?d)",
            |g, s| matches!((konst(g, s, "?m"), konst(g, s, "?d")), (Some(m), Some(d)) if m > 0 && d > 0 && m % d == 0),
        ),
        // `(x / a) * a + x % a -> x`; guard: `a` is never 0.
        guarded(
            "div-mod-recombine",
            "(+ (* (/ ?x ?a) ?a) (% ?x ?a))",
            "?x",
            |g, s| nonzero(facts(g, s, "?a")),
        ),
        // `x - (x / a) * a -> x % a`; guard: `a` is never 0.
        guarded(
            "mod-as-difference",
            "(- ?x (* (/ ?x ?a) ?a))",
            "(% ?x ?a)",
            |g, s| nonzero(facts(g, s, "?a")),
        ),
        // `(x % (a*b)) / a -> (x / a) % b`; guard: `a` and `m = a*b` positive constants, `a`
        // divides `m`.
        computed("div-of-mod", "(/ (% ?x ?m) ?a)", |g, s| {
            let (m, a) = (konst(g, s, "?m")?, konst(g, s, "?a")?);
            if !(a > 0 && m > 0 && m % a == 0) {
                return None;
            }
            let (x, a_id) = (s[var("?x")], s[var("?a")]);
            let q = node(g, Op::Div, &[x, a_id]);
            let b = num(g, m / a);
            Some(node(g, Op::Mod, &[q, b]))
        }),
        // `(x * a) / c -> x * (a / c)`; guard: `a` and `c` constants, `c != 0` divides `a`.
        computed("div-of-scaled", "(/ (* ?x ?a) ?c)", |g, s| {
            let (a, c) = (konst(g, s, "?a")?, konst(g, s, "?c")?);
            if c == 0 || a.checked_rem(c) != Some(0) {
                return None;
            }
            let k = num(g, a.checked_div(c)?);
            Some(node(g, Op::Mul, &[s[var("?x")], k]))
        }),
        // `(x * a) / c -> x / (c / a)`; guard: `a` and `c` positive constants, `a` divides `c`.
        computed("div-of-scaled-down", "(/ (* ?x ?a) ?c)", |g, s| {
            let (a, c) = (konst(g, s, "?a")?, konst(g, s, "?c")?);
            if !(a > 0 && c > 0 && c % a == 0) {
                return None;
            }
            let k = num(g, c / a);
            Some(node(g, Op::Div, &[s[var("?x")], k]))
        }),
        // `(x * a) % c -> (x % (c / a)) * a`; guard: `a` and `c` positive constants, `a` divides
        // `c`.
        computed("mod-of-scaled", "(% (* ?x ?a) ?c)", |g, s| {
            let (a, c) = (konst(g, s, "?a")?, konst(g, s, "?c")?);
            if !(a > 0 && c > 0 && c % a == 0) {
                return None;
            }
            let k = num(g, c / a);
            let r = node(g, Op::Mod, &[s[var("?x")], k]);
            Some(node(g, Op::Mul, &[r, s[var("?a")]]))
        }),
    ]
}

/// Powers of two to shifts and masks, and the bit identities swizzles leave behind.
fn bits() -> Vec<Rule> {
    vec![
        // `x / 2^k -> x >> k`; guard: the divisor is a constant power of two, `k >= 1`
        // (an arithmetic shift is floor division, for negative `x` too).
        computed("div-pow2", "(/ ?x ?c)", |g, s| {
            let k = log2(konst(g, s, "?c")?).filter(|k| *k >= 1)?;
            let k = num(g, i64::from(k));
            Some(node(g, Op::Shr, &[s[var("?x")], k]))
        }),
        // `x % 2^k -> x & (2^k - 1)`; guard: the divisor is a constant power of two (two's
        // complement makes this the floor remainder for negative `x` too).
        computed("mod-pow2", "(% ?x ?c)", |g, s| {
            let c = konst(g, s, "?c")?;
            log2(c)?;
            let m = num(g, c - 1);
            Some(node(g, Op::And, &[s[var("?x")], m]))
        }),
        // `x * 2^k -> x << k`; guard: the factor is a constant power of two, `k >= 1`.
        computed("mul-pow2", "(* ?x ?c)", |g, s| {
            let k = log2(konst(g, s, "?c")?).filter(|k| *k >= 1)?;
            let k = num(g, i64::from(k));
            Some(node(g, Op::Shl, &[s[var("?x")], k]))
        }),
        // `x * (2^a + 2^b) -> (x << a) + (x << b)`; guard: the factor is a positive constant
        // with exactly two bits set, `b < a < 62` (the shifts cannot overflow where the product
        // does not: each is at most the product in magnitude).
        computed("mul-two-bits", "(* ?x ?c)", |g, s| {
            let c = konst(g, s, "?c")?;
            if c <= 0 || c.count_ones() != 2 {
                return None;
            }
            let (b, a) = (c.trailing_zeros(), 63 - c.leading_zeros());
            if a >= 62 {
                return None;
            }
            let x = s[var("?x")];
            let (ka, kb) = (num(g, i64::from(a)), num(g, i64::from(b)));
            let (xa, xb) = (node(g, Op::Shl, &[x, ka]), node(g, Op::Shl, &[x, kb]));
            Some(node(g, Op::Add, &[xa, xb]))
        }),
        // `(x / 2^k) * 2^k -> x & -2^k`; guard: a constant power of two.
        computed("round-down-pow2", "(* (/ ?x ?c) ?c)", |g, s| {
            let c = konst(g, s, "?c")?;
            log2(c)?;
            let m = num(g, -c);
            Some(node(g, Op::And, &[s[var("?x")], m]))
        }),
        // `x & m -> x`; guard: `m` a constant that has every bit `x` may have set (from `x`'s
        // range and known divisor).
        guarded("and-keeps", "(& ?x ?m)", "?x", |g, s| {
            match (possible_bits(facts(g, s, "?x")), konst(g, s, "?m")) {
                (Some(b), Some(m)) => m & b == b,
                _ => false,
            }
        }),
        // `x & m -> 0`; guard: `m` a constant that has none of the bits `x` may have set.
        guarded("and-clears", "(& ?x ?m)", "0", |g, s| {
            match (possible_bits(facts(g, s, "?x")), konst(g, s, "?m")) {
                (Some(b), Some(m)) => m & b == 0,
                _ => false,
            }
        }),
        // `(x << k) >> k -> x`; guard: `k` a constant in `0..63` (the IR's shift left fails on
        // overflow, so the bits shifted out were copies of the sign).
        guarded("shr-of-shl", "(>> (<< ?x ?k) ?k)", "?x", |g, s| {
            konst(g, s, "?k").is_some_and(|k| (0..63).contains(&k))
        }),
        // `(x << a) >> b -> x << (a - b)`; guard: `a >= b >= 0` constants below 63 (the IR's
        // shift left fails on overflow, so no bit is lost).
        computed("shr-of-shl-left", "(>> (<< ?x ?a) ?b)", |g, s| {
            let (a, b) = (konst(g, s, "?a")?, konst(g, s, "?b")?);
            if !(0 <= b && b <= a && a < 63) {
                return None;
            }
            let k = num(g, a - b);
            Some(node(g, Op::Shl, &[s[var("?x")], k]))
        }),
        // `(x << a) >> b -> x >> (b - a)`; guard: `0 <= a < b < 63` constants (as above,
        // `floor(x * 2^a / 2^b) = floor(x / 2^(b-a))`).
        computed("shr-of-shl-right", "(>> (<< ?x ?a) ?b)", |g, s| {
            let (a, b) = (konst(g, s, "?a")?, konst(g, s, "?b")?);
            if !(0 <= a && a < b && b < 63) {
                return None;
            }
            let k = num(g, b - a);
            Some(node(g, Op::Shr, &[s[var("?x")], k]))
        }),
        // `(x + y) & m -> (x & m) + (y & m)`; guard: `x` and `y` non-negative with no bit in
        // common (the sum carries nothing, so it is `x | y`, and `&` distributes over `|`).
        guarded(
            "and-of-disjoint-sum",
            "(& (+ ?x ?y) ?m)",
            "(+ (& ?x ?m) (& ?y ?m))",
            |g, s| match (possible_bits(facts(g, s, "?x")), possible_bits(facts(g, s, "?y"))) {
                (Some(a), Some(b)) => a & b == 0,
                _ => false,
            },
        ),
        // `x ^ y -> x + y`; guard: `x` and `y` non-negative with no bit in common (from their
        // ranges and known divisors).
        guarded("xor-disjoint", "(^ ?x ?y)", "(+ ?x ?y)", |g, s| {
            match (possible_bits(facts(g, s, "?x")), possible_bits(facts(g, s, "?y"))) {
                (Some(a), Some(b)) => a & b == 0,
                _ => false,
            }
        }),
    ]
}

/// Every rewrite of the simplifier.
pub fn rules() -> Vec<Rule> {
    let mut v = ring();
    v.extend(identities());
    v.extend(div_mod());
    v.extend(bits());
    v
}

/// An unguarded rewrite from pattern text: for the tests that inject a wrong rule and watch the
/// validation reject its result.
pub fn unguarded(name: &str, lhs: &str, rhs: &str) -> Result<Rule, String> {
    let l: Pattern<Term> = lhs.parse().map_err(|e| format!("{lhs}: {e}"))?;
    let r: Pattern<Term> = rhs.parse().map_err(|e| format!("{rhs}: {e}"))?;
    Rewrite::new(name, l, r)
}
