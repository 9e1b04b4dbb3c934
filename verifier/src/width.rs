//! The width of a query's bit-vectors, from the interval bounds of what it evaluates
//! ([`tessera_ir::index::IndexExpr::intervals`], [`tessera_ir::sym::Facts::interval`]).

use tessera_ir::sym::Interval;

/// The widest bit-vector a query uses; wider values are encoded as integers. Wide enough for
/// any `i64` layout (offsets near 2^63, and the sums and products a property forms of them).
pub const MAX_BV_BITS: u32 = 128;

/// The largest magnitude of the values in some intervals; `None` when one is unbounded.
pub fn magnitude(rs: &[Interval]) -> Option<i128> {
    rs.iter().try_fold(0, |m, r| Some(m.max(r.magnitude()?)))
}

/// Bits of a signed two's-complement vector holding every value up to `m` in magnitude, with
/// one bit of headroom for the comparisons and sums the properties add. Unbounded values
/// (`None`) need more than any vector holds: `MAX_BV_BITS + 1`, as every magnitude from 2^126.
pub fn bits_for(m: Option<i128>) -> u32 {
    match m {
        Some(m) => (128 - (m.max(1) as u128).leading_zeros()) + 2,
        None => MAX_BV_BITS + 1,
    }
}

#[cfg(test)]
mod tests {
    //! The widths and the unsigned-division choices are those of the interval rule the
    //! verifier had before the analysis moved into `tessera_ir::index` (kept here as `old`,
    //! verbatim but for the node syntax and `saturating_abs` for its `abs`, which overflowed on
    //! a bound it had saturated to `i128::MIN`): over the corpus layouts, swizzled and offset, over
    //! symbolic layouts under facts, and over random programs with finite inputs. Every
    //! bounded node gets the old interval. A node the new analysis leaves unbounded had, under
    //! the old rule, a saturated bound (integers then, too) or its stand-in 2^100 for
    //! "unbounded": a parameter without an upper bound (integers then, too), or a shift by a
    //! non-constant amount, which lowering never produces. The one bounded difference: `&`
    //! and `^` of a negative operand 2^100 or more in magnitude, which the old rule bounded
    //! by its stand-in, too tightly (one bit more now, for values far beyond `i64`).

    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;
    use std::sync::Arc;
    use tessera_ir::index::{Builder, IndexExpr, NodeId, Op, Var, lower_composed, lower_index, lower_sym};
    use tessera_ir::sym::{Facts, SymInt};
    use tessera_ir::{ComposedLayout, HTuple, Int, Layout, Stride, Swizzle, parse_layout};

    #[allow(clippy::all)]
    mod old {
        use std::collections::HashMap;
        use tessera_ir::index::{IndexExpr, Node, Op, Var};

        /// A closed interval of values.
        pub(super) type Range = (i128, i128);

        /// An effectively unbounded range.
        pub(super) const UNBOUNDED: Range = (-(1 << 100), 1 << 100);

        /// The interval of every node, given the intervals of the inputs (missing inputs unbounded).
        pub(super) fn ranges(e: &IndexExpr, inputs: &HashMap<Var, Range>) -> Vec<Range> {
            let mut r: Vec<Range> = Vec::with_capacity(e.nodes().len());
            for n in e.nodes() {
                let v = match n {
                    Node::Const(c) => (*c as i128, *c as i128),
                    Node::Var(v) => inputs.get(v).copied().unwrap_or(UNBOUNDED),
                    Node::Op(op, args) => {
                        let g = |k: usize| r[args[k].index()];
                        match op {
                            Op::Add => {
                                let (x, y) = (g(0), g(1));
                                (x.0.saturating_add(y.0), x.1.saturating_add(y.1))
                            }
                            Op::Sub => {
                                let (x, y) = (g(0), g(1));
                                (x.0.saturating_sub(y.1), x.1.saturating_sub(y.0))
                            }
                            Op::Mul => {
                                let (x, y) = (g(0), g(1));
                                let c = [
                                    x.0.saturating_mul(y.0),
                                    x.0.saturating_mul(y.1),
                                    x.1.saturating_mul(y.0),
                                    x.1.saturating_mul(y.1),
                                ];
                                (
                                    *c.iter().min().unwrap_or(&UNBOUNDED.0),
                                    *c.iter().max().unwrap_or(&UNBOUNDED.1),
                                )
                            }
                            Op::Div => {
                                let (x, y) = (g(0), g(1));
                                if x.0 >= 0 && y.0 >= 1 {
                                    (x.0 / y.1.max(1), x.1 / y.0)
                                } else {
                                    let m = x.0.saturating_abs().max(x.1.saturating_abs());
                                    (-m, m)
                                }
                            }
                            Op::Mod => {
                                let (x, y) = (g(0), g(1));
                                if y.0 >= 1 {
                                    if x.0 >= 0 {
                                        (0, x.1.min(y.1 - 1))
                                    } else {
                                        (0, y.1 - 1)
                                    }
                                } else {
                                    let m = y.0.saturating_abs().max(y.1.saturating_abs());
                                    (-m, m)
                                }
                            }
                            Op::Xor | Op::And => {
                                let (x, y) = (g(0), g(1));
                                if x.0 >= 0 && y.0 >= 0 {
                                    let m = x.1.max(y.1).max(0) as u128;
                                    let top = if m == 0 {
                                        0
                                    } else {
                                        (u128::MAX >> m.leading_zeros()) as i128
                                    };
                                    if *op == Op::And {
                                        (0, x.1.min(y.1))
                                    } else {
                                        (0, top)
                                    }
                                } else {
                                    // Two's complement: both operands fit in k bits, so does the result.
                                    let m =
                                        x.0.saturating_abs()
                                            .max(x.1.saturating_abs())
                                            .max(y.0.saturating_abs())
                                            .max(y.1.saturating_abs())
                                            .max(1) as u128;
                                    if m >= 1 << 100 {
                                        UNBOUNDED
                                    } else {
                                        let k = 128 - m.leading_zeros();
                                        (-(1i128 << k), (1i128 << k) - 1)
                                    }
                                }
                            }
                            Op::Shl | Op::Shr => {
                                let (x, s) = (g(0), g(1));
                                if s.0 == s.1 && (0..63).contains(&s.0) {
                                    if *op == Op::Shl {
                                        (x.0.saturating_mul(1 << s.0), x.1.saturating_mul(1 << s.0))
                                    } else {
                                        (x.0 >> s.0, x.1 >> s.0)
                                    }
                                } else {
                                    UNBOUNDED
                                }
                            }
                            Op::Min => (g(0).0.min(g(1).0), g(0).1.min(g(1).1)),
                            Op::Max => (g(0).0.max(g(1).0), g(0).1.max(g(1).1)),
                            Op::Select => (g(1).0.min(g(2).0), g(1).1.max(g(2).1)),
                        }
                    }
                };
                r.push(v);
            }
            r
        }

        /// The largest magnitude in a list of ranges.
        pub(super) fn magnitude(rs: &[Range]) -> i128 {
            rs.iter()
                .map(|r| r.0.saturating_abs().max(r.1.saturating_abs()))
                .max()
                .unwrap_or(0)
        }

        /// Bits of a signed two's-complement vector holding every value up to `m` in magnitude, with
        /// one bit of headroom for the comparisons and sums the properties add.
        pub(super) fn bits_for(m: i128) -> u32 {
            let m = m.max(1) as u128;
            (128 - m.leading_zeros()) + 2
        }
    }

    /// The old rule's view of an input interval: unbounded ends as its stand-in 2^100.
    fn old_range(r: Interval) -> old::Range {
        (
            r.lo().unwrap_or(old::UNBOUNDED.0),
            r.hi().unwrap_or(old::UNBOUNDED.1),
        )
    }

    /// Compares the new analysis with the old rule on every node of `e`.
    fn compare(e: &IndexExpr, inputs: &HashMap<Var, Interval>) {
        let new = e.intervals(inputs);
        let old_in: HashMap<Var, old::Range> =
            inputs.iter().map(|(v, r)| (v.clone(), old_range(*r))).collect();
        let old = old::ranges(e, &old_in);
        // The old rule bounded `&`/`^` with a negative operand of magnitude 2^100 or more by
        // its stand-in, +-2^100, below the true +-2^k; the new one keeps +-2^k. Such a node,
        // and the nodes that use it, get intervals that hold the old ones.
        let mut beyond = vec![false; e.nodes().len()];
        for (k, n) in e.nodes().iter().enumerate() {
            let big = |c: &NodeId| {
                old[c.index()]
                    .0
                    .saturating_abs()
                    .max(old[c.index()].1.saturating_abs())
                    >= 1 << 100
            };
            beyond[k] = n.children().iter().any(|c| beyond[c.index()])
                || (matches!(n.op(), Some(Op::And | Op::Xor)) && n.children().iter().any(big));
            if let (Some(lo), Some(hi)) = (new[k].lo(), new[k].hi()) {
                if beyond[k] {
                    assert!(lo <= old[k].0 && old[k].1 <= hi, "node t{k} = {n:?}\n{e}");
                } else {
                    assert_eq!((lo, hi), old[k], "node t{k} = {n:?}\n{e}");
                }
            }
            if let (Some(Op::Div | Op::Mod), [a, b]) = (n.op(), n.children())
                && !beyond[k]
            {
                let (a, b) = (a.index(), b.index());
                let nonneg = new[a].is_at_least(0) && new[b].is_at_least(1);
                assert_eq!(nonneg, old[a].0 >= 0 && old[b].0 >= 1, "node t{k} = {n:?}\n{e}");
            }
        }
        let mut all: Vec<Interval> = new.clone();
        all.extend(inputs.values().copied());
        let mut all_old = old.clone();
        all_old.extend(old_in.values().copied());
        let (m, m_old) = (magnitude(&all), old::magnitude(&all_old));
        match m {
            Some(_) if beyond.contains(&true) => assert!(bits_for(m) >= old::bits_for(m_old), "\n{e}"),
            Some(_) => assert_eq!(bits_for(m), old::bits_for(m_old), "\n{e}"),
            // An unbounded value needs integers; the old rule saw it as 2^100 or more.
            None => assert!(m_old >= 1 << 100, "\n{e}"),
        }
    }

    fn below(n: i64) -> HashMap<Var, Interval> {
        HashMap::from([(Var::Index, Interval::new(Some(0), Some(i128::from(n) - 1)))])
    }

    /// The layouts of the corpus: each case's result and its layout arguments.
    fn corpus_layouts() -> Vec<Layout<i64>> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/pycute_public.jsonl");
        let text = std::fs::read_to_string(path).expect("the corpus");
        let field = |line: &str, name: &str| -> Option<String> {
            let start = line.find(&format!("\"{name}\":\""))? + name.len() + 4;
            Some(line[start..].split('"').next()?.to_string())
        };
        let mut texts = Vec::new();
        for line in text.lines() {
            texts.extend(field(line, "expect"));
            if let Some(expr) = field(line, "expr")
                && let Some((_, args)) = expr.split_once('(')
            {
                // The top-level arguments of the call.
                let (mut depth, mut cur) = (0, String::new());
                for ch in args.trim_end_matches(')').chars() {
                    match ch {
                        '(' => depth += 1,
                        ')' => depth -= 1,
                        ',' if depth == 0 => {
                            texts.push(std::mem::take(&mut cur));
                            continue;
                        }
                        _ => {}
                    }
                    cur.push(ch);
                }
                texts.push(cur);
            }
        }
        texts.sort();
        texts.dedup();
        texts
            .iter()
            .filter(|t| t.contains(':'))
            .filter_map(|t| parse_layout(t).ok())
            .collect()
    }

    #[test]
    fn corpus_layouts_get_the_old_widths() {
        let layouts = corpus_layouts();
        assert!(layouts.len() > 300, "{} layouts", layouts.len());
        let mut swizzled = 0;
        for l in &layouts {
            let Ok(n) = l.size() else { continue };
            compare(&lower_index(l).unwrap(), &below(n));
            compare(&lower_index(l).unwrap(), &below(2 * n + 3));
            if l.codomain().is_ok_and(|c| c == tessera_ir::Codomain::Int) {
                for (sw, off) in [((3, 3, 3), 0), ((2, 0, 4), 5), ((3, 4, -3), -37), ((1, 1, 1), -1)] {
                    let c = ComposedLayout::new(Swizzle::new(sw.0, sw.1, sw.2).unwrap(), off, l.clone());
                    compare(&lower_composed(&c).unwrap(), &below(n));
                    swizzled += 1;
                }
            }
        }
        assert!(swizzled > 300, "{swizzled}");
    }

    #[test]
    fn symbolic_layouts_get_the_old_widths() {
        let mut facts = Facts::default();
        facts
            .declare("M, N, K, S, U where M % 32 == 0, 32 <= M <= 4096, 1 <= N <= 64, K % 16 == 0, 16 <= K <= 1099511627776, -8 <= S <= 8, U % 4 == 0")
            .unwrap();
        let facts = Arc::new(facts);
        let p = |n: &str| SymInt::param(n, &facts);
        let k = SymInt::lit;
        let params: HashMap<Var, Interval> = facts
            .names()
            .map(|n| (Var::Param(n.to_string()), facts.get(n).unwrap().interval()))
            .collect();
        let (m, n, kk, s, u) = (p("M"), p("N"), p("K"), p("S"), p("U"));
        let layouts: Vec<(Vec<SymInt>, Vec<SymInt>)> = vec![
            (vec![m.clone(), n.clone()], vec![k(1), m.clone()]),
            (vec![k(16), m.floor_div(&k(16)).unwrap()], vec![k(1), k(16)]),
            (vec![m.clone(), kk.clone()], vec![kk.clone(), k(1)]),
            (vec![k(8), n.clone(), k(4)], vec![s.clone(), k(3), m.clone()]),
            (vec![u.clone(), k(4)], vec![k(1), u.clone()]),
            (vec![kk.floor_div(&k(16)).unwrap(), k(16)], vec![k(16), k(1)]),
        ];
        for (shape, stride) in layouts {
            let size = shape.iter().try_fold(k(1), |a, b| a.mul(b)).unwrap();
            let stride: Vec<Stride<SymInt>> = stride.into_iter().map(Stride::Int).collect();
            let l = Layout::new(HTuple::flat(shape), HTuple::flat(stride)).unwrap();
            let e = lower_index(&l).unwrap();
            let mut inputs = params.clone();
            inputs.insert(
                Var::Index,
                Interval::new(Some(0), facts.interval(size.poly()).hi().map(|h| h - 1)),
            );
            compare(&e, &inputs);
            compare(&lower_sym(&size).unwrap(), &params);
            let c = ComposedLayout::new(Swizzle::new(3, 3, 3).unwrap(), s.clone(), l);
            if let Ok(e) = lower_composed(&c) {
                compare(&e, &inputs);
            }
        }
    }

    /// A random program: each step applies an operator to earlier nodes (picked modulo the
    /// nodes so far) over `i`, `N`, `M` and three constants.
    fn program() -> impl Strategy<Value = Vec<(usize, [usize; 3])>> {
        prop::collection::vec((0..Op::ALL.len(), [0usize..64, 0usize..64, 0usize..64]), 1..12)
    }

    /// A finite input interval, of any sign and up to 2^40 in magnitude.
    fn input() -> impl Strategy<Value = (i64, i64)> {
        (-(1i64 << 40)..(1 << 40), 0i64..(1 << 20), 0u32..20).prop_map(|(lo, w, shift)| (lo >> shift, w))
    }

    proptest! {
        #[test]
        fn random_programs_get_the_old_intervals(
            prog in program(),
            ins in [input(), input(), input()],
            consts in [-9i64..9, 1i64..70, 0i64..63],
        ) {
            let vars = [Var::Index, Var::Param("N".into()), Var::Param("M".into())];
            let mut b = Builder::new();
            let mut ids: Vec<NodeId> = vars.iter().map(|v| b.var(v.clone())).collect();
            ids.extend(consts.iter().map(|c| b.konst(*c)));
            for (op, args) in &prog {
                let op = Op::ALL[*op];
                let args: Vec<NodeId> = args[..op.arity()].iter().map(|a| ids[a % ids.len()]).collect();
                let id = b.op(op, &args);
                ids.push(id);
            }
            let e = b.finish(vec![("out".into(), *ids.last().unwrap())]);
            let inputs = vars
                .iter()
                .zip(ins)
                .map(|(v, (lo, w))| (v.clone(), Interval::new(Some(lo.into()), Some(i128::from(lo) + i128::from(w)))))
                .collect();
            compare(&e, &inputs);
        }
    }
}
