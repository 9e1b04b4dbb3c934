//! Interval analysis: the bounds of every node of an index expression, from the bounds of its
//! inputs (the index range, the parameters' facts through [`crate::sym::ParamFacts::interval`]).
//!
//! The bounds are sound: for inputs inside their intervals, every value a node takes lies
//! inside its interval (an operation that fails, such as a division by zero, takes no value).
//! They are exact for `+`, `-`, `*`, `min`, `max` and shifts by a constant; for the rest they
//! follow the rules of [`Op::interval`]. The verifier sizes its bit-vectors from them and chooses
//! unsigned division where they show non-negative operands.
//!
//! ```
//! use std::collections::HashMap;
//! use tessera_ir::index::{Builder, Var};
//! use tessera_ir::sym::Interval;
//! let mut b = Builder::new();
//! let i = b.var(Var::Index);
//! let four = b.konst(4);
//! let r = b.rem(i, four);
//! let q = b.div(i, four);
//! let e = b.finish(vec![("r".into(), r), ("q".into(), q)]);
//! let at = e.intervals(&HashMap::from([(Var::Index, Interval::new(Some(0), Some(31)))]));
//! assert_eq!(at[r.index()], Interval::new(Some(0), Some(3)));
//! assert_eq!(at[q.index()], Interval::new(Some(0), Some(7)));
//! // Without bounds on `i`, the remainder is still bounded by the divisor.
//! let at = e.intervals(&HashMap::new());
//! assert_eq!(at[r.index()], Interval::new(Some(0), Some(3)));
//! assert_eq!(at[q.index()], Interval::UNBOUNDED);
//! ```

use super::{IndexExpr, Node, Op, Var};
use crate::sym::Interval;
use std::collections::HashMap;

impl IndexExpr {
    /// The interval of every node, indexed by [`super::NodeId::index`], given the intervals of
    /// the inputs; an input missing from `inputs` is unbounded.
    pub fn intervals(&self, inputs: &HashMap<Var, Interval>) -> Vec<Interval> {
        let mut out: Vec<Interval> = Vec::with_capacity(self.nodes.len());
        for n in &self.nodes {
            let v = match n {
                Node::Const(c) => Interval::point(i128::from(*c)),
                Node::Var(v) => inputs.get(v).copied().unwrap_or(Interval::UNBOUNDED),
                Node::Op(op, args) => {
                    let mut x = [Interval::UNBOUNDED; super::MAX_ARITY];
                    for (slot, id) in x.iter_mut().zip(args) {
                        *slot = out[id.index()];
                    }
                    op.interval(&x[..args.len()])
                }
            };
            out.push(v);
        }
        out
    }
}

impl IndexExpr {
    /// Checks that every live operation is defined on the whole domain given by `inputs`:
    /// no divisor whose interval holds 0, no shift by an amount outside `0..63`. An expression
    /// that fails is undefined somewhere (the analysis and the rewrites assume it is not).
    ///
    /// ```
    /// use std::collections::HashMap;
    /// use tessera_ir::index::{parse_index, Var};
    /// use tessera_ir::sym::Interval;
    /// let at = HashMap::from([(Var::Index, Interval::new(Some(0), Some(7)))]);
    /// assert!(parse_index("i % 4 + i / (i + 1)").unwrap().check_defined(&at).is_ok());
    /// let e = parse_index("i % (i - 3)").unwrap().check_defined(&at).unwrap_err().to_string();
    /// assert!(e.contains("may be 0"), "{e}");
    /// assert!(parse_index("i << 70").unwrap().check_defined(&at).is_err());
    /// ```
    pub fn check_defined(&self, inputs: &HashMap<Var, Interval>) -> crate::error::Result<()> {
        let live = self.live();
        let iv = self.intervals(inputs);
        for (k, n) in self.nodes.iter().enumerate() {
            let Node::Op(op, args) = n else { continue };
            if !live[k] {
                continue;
            }
            let d = iv[args[1].index()];
            let bad = match op {
                Op::Div | Op::Mod if d.contains(0) => "the divisor may be 0",
                Op::Shl | Op::Shr if !(d.is_at_least(0) && d.is_at_most(62)) => {
                    "the shift amount may leave 0..=62"
                }
                _ => continue,
            };
            let show = |b: Option<i128>| b.map_or("unbounded".to_string(), |v| v.to_string());
            return Err(crate::error::Error::invalid(format!(
                "t{k} ({}): {bad} on the domain (its values lie in [{}, {}])",
                op.name(),
                show(d.lo()),
                show(d.hi())
            )));
        }
        Ok(())
    }
}

impl Op {
    /// The interval of this operator's values on operands in the intervals `x` (`arity` of
    /// them): the transfer function of the analysis.
    ///
    /// Beyond the exact cases: a floor quotient of non-negative by positive operands lies between
    /// the quotients of the ends, any other is at most the dividend in magnitude; a remainder by a
    /// positive divisor lies in `[0, divisor)` (and below the dividend when that is non-negative),
    /// any other is less than the divisor in magnitude; `&` and `^` of non-negative operands are
    /// non-negative and below the next power of two (`&` below either operand), and with a
    /// negative operand they stay within the two's-complement width of the operands; a shift by a
    /// non-constant amount, and `&`/`^` with an unbounded negative operand, are unbounded.
    pub fn interval(self, x: &[Interval]) -> Interval {
        match self {
            Op::Add => x[0] + x[1],
            Op::Sub => x[0] - x[1],
            Op::Mul => x[0] * x[1],
            Op::Div => div(x[0], x[1]),
            Op::Mod => rem(x[0], x[1]),
            Op::Xor => bits(x[0], x[1], false),
            Op::And => bits(x[0], x[1], true),
            Op::Shl => shift(x[0], x[1], true),
            Op::Shr => shift(x[0], x[1], false),
            Op::Min => x[0].min(x[1]),
            Op::Max => x[0].max(x[1]),
            Op::Select => x[1].hull(x[2]),
        }
    }
}

/// `[-m, m]`, unbounded for an unbounded `m`.
fn symmetric(m: Option<i128>) -> Interval {
    Interval::new(m.map(|m| -m), m)
}

fn div(x: Interval, y: Interval) -> Interval {
    match (x.lo(), y.lo()) {
        (Some(xl), Some(yl)) if xl >= 0 && yl >= 1 => Interval::new(
            // An unbounded divisor makes the smallest quotient 0.
            Some(y.hi().map_or(0, |yh| xl / yh.max(1))),
            x.hi().map(|xh| xh / yl),
        ),
        _ => symmetric(x.magnitude()),
    }
}

fn rem(x: Interval, y: Interval) -> Interval {
    if !y.is_at_least(1) {
        return symmetric(y.magnitude());
    }
    let below_divisor = Interval::new(Some(0), y.hi().map(|h| h - 1));
    if x.is_at_least(0) {
        below_divisor.min(Interval::new(Some(0), x.hi()))
    } else {
        below_divisor
    }
}

/// `x & y` (`and`) or `x ^ y`.
fn bits(x: Interval, y: Interval, and: bool) -> Interval {
    if x.is_at_least(0) && y.is_at_least(0) {
        if and {
            return Interval::new(Some(0), x.min(y).hi());
        }
        // Below the next power of two of the larger operand.
        let top = x.max(y).hi().map(|m| {
            let m = m.max(0) as u128;
            if m == 0 {
                0
            } else {
                (u128::MAX >> m.leading_zeros()) as i128
            }
        });
        return Interval::new(Some(0), top);
    }
    // Two's complement: both operands fit in k bits, so does the result.
    match x.magnitude().zip(y.magnitude()) {
        Some((a, b)) => {
            let k = 128 - (a.max(b).max(1) as u128).leading_zeros();
            if k >= 127 {
                Interval::UNBOUNDED
            } else {
                Interval::new(Some(-(1i128 << k)), Some((1i128 << k) - 1))
            }
        }
        None => Interval::UNBOUNDED,
    }
}

/// `x << s` (`left`) or `x >> s` (arithmetic), for a constant `s` in `0..63`.
fn shift(x: Interval, s: Interval, left: bool) -> Interval {
    match s.as_point().filter(|s| (0..63).contains(s)) {
        Some(s) if left => x * Interval::point(1 << s),
        Some(s) => Interval::new(x.lo().map(|l| l >> s), x.hi().map(|h| h >> s)),
        None => Interval::UNBOUNDED,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Builder, NodeId};
    use super::*;
    use proptest::prelude::*;

    fn iv(lo: Option<i128>, hi: Option<i128>) -> Interval {
        Interval::new(lo, hi)
    }

    type Make = dyn FnOnce(&mut Builder, NodeId, NodeId, NodeId) -> Vec<NodeId>;

    /// Builds the nodes `f(builder, i, N, M)` names and returns their intervals, with `i` in
    /// [0, 15], `N` in [-4, 4] and `M` as given (or missing: unbounded).
    fn at(m: Option<Interval>, f: Box<Make>) -> Vec<Interval> {
        let mut b = Builder::new();
        let i = b.var(Var::Index);
        let n = b.var(Var::Param("N".into()));
        let mv = b.var(Var::Param("M".into()));
        let ids = f(&mut b, i, n, mv);
        let e = b.finish(vec![]);
        let mut inputs = HashMap::from([
            (Var::Index, iv(Some(0), Some(15))),
            (Var::Param("N".into()), iv(Some(-4), Some(4))),
        ]);
        if let Some(m) = m {
            inputs.insert(Var::Param("M".into()), m);
        }
        let r = e.intervals(&inputs);
        ids.iter().map(|id| r[id.index()]).collect()
    }

    #[test]
    fn division_and_remainder() {
        let m_pos = Some(iv(Some(1), None)); // M >= 1, no upper bound
        let r = at(
            m_pos,
            Box::new(|b, i, n, m| {
                let four = b.konst(4);
                vec![
                    b.div(i, four),
                    b.rem(i, four),
                    b.div(n, four),
                    b.rem(n, four),
                    b.div(i, m),
                    b.rem(i, m),
                    b.rem(n, m),
                ]
            }),
        );
        assert_eq!(r[0], iv(Some(0), Some(3)));
        assert_eq!(r[1], iv(Some(0), Some(3)));
        assert_eq!(
            r[2],
            iv(Some(-4), Some(4)),
            "a negative dividend: bounded by its magnitude"
        );
        assert_eq!(r[3], iv(Some(0), Some(3)), "a floor remainder by 4 is in [0, 4)");
        assert_eq!(
            r[4],
            iv(Some(0), Some(15)),
            "an unbounded divisor: quotients down to 0"
        );
        assert_eq!(r[5], iv(Some(0), Some(15)), "below the dividend");
        assert_eq!(r[6], iv(Some(0), None), "below an unbounded divisor");
        // A divisor that may be negative, or is unbounded.
        let r = at(
            None,
            Box::new(|b, i, n, m| vec![b.div(i, n), b.rem(i, n), b.div(i, m), b.rem(i, m)]),
        );
        assert_eq!(r[0], iv(Some(-15), Some(15)));
        assert_eq!(r[1], iv(Some(-4), Some(4)));
        assert_eq!(r[2], iv(Some(-15), Some(15)));
        assert_eq!(r[3], Interval::UNBOUNDED);
    }

    #[test]
    fn negative_and_unbounded_parameters() {
        let r = at(
            Some(iv(Some(1), None)),
            Box::new(|b, i, n, m| {
                let four = b.konst(4);
                vec![
                    b.mul(m, four),
                    b.sub(m, i),
                    b.sub(i, m),
                    b.mul(n, m),
                    b.add(n, i),
                    b.mul(n, n),
                ]
            }),
        );
        assert_eq!(r[0], iv(Some(4), None));
        assert_eq!(r[1], iv(Some(-14), None));
        assert_eq!(r[2], iv(None, Some(14)));
        assert_eq!(r[3], Interval::UNBOUNDED);
        assert_eq!(r[4], iv(Some(-4), Some(19)));
        assert_eq!(
            r[5],
            iv(Some(-16), Some(16)),
            "interval products do not see that both are N"
        );
        let r = at(
            Some(iv(Some(-8), Some(-2))),
            Box::new(|b, i, _, m| vec![b.mul(i, m), b.div(m, i), b.min(i, m), b.max(i, m)]),
        );
        assert_eq!(r[0], iv(Some(-120), Some(0)));
        assert_eq!(r[1], iv(Some(-8), Some(8)));
        assert_eq!(r[2], iv(Some(-8), Some(-2)));
        assert_eq!(r[3], iv(Some(0), Some(15)));
    }

    #[test]
    fn bitwise_and_shifts() {
        let r = at(
            None,
            Box::new(|b, i, n, m| {
                let (three, six, seven, two) = (b.konst(3), b.konst(6), b.konst(7), b.konst(2));
                vec![
                    b.xor(i, seven),
                    b.and(i, six),
                    b.xor(n, three),
                    b.and(n, three),
                    b.xor(i, m),
                    b.and(i, m),
                    b.shl(i, two),
                    b.shr(n, two),
                    b.shl(i, n),
                    b.shl(m, two),
                ]
            }),
        );
        assert_eq!(r[0], iv(Some(0), Some(15)), "below the next power of two");
        assert_eq!(r[1], iv(Some(0), Some(6)));
        assert_eq!(r[2], iv(Some(-8), Some(7)), "two's complement of 3-bit operands");
        assert_eq!(r[3], iv(Some(-8), Some(7)));
        assert_eq!(r[4], Interval::UNBOUNDED, "an unbounded operand of unknown sign");
        assert_eq!(r[5], Interval::UNBOUNDED);
        assert_eq!(r[6], iv(Some(0), Some(60)));
        assert_eq!(r[7], iv(Some(-1), Some(1)));
        assert_eq!(r[8], Interval::UNBOUNDED, "a shift by a non-constant amount");
        assert_eq!(r[9], Interval::UNBOUNDED);
        let r = at(
            Some(iv(Some(0), None)),
            Box::new(|b, i, _, m| vec![b.xor(i, m), b.and(i, m)]),
        );
        assert_eq!(r[0], iv(Some(0), None));
        assert_eq!(r[1], iv(Some(0), Some(15)), "below the bounded operand");
    }

    #[test]
    fn select_min_max_and_overflow() {
        let r = at(
            Some(Interval::point(1 << 100)),
            Box::new(|b, i, n, m| {
                let mm = b.mul(m, m);
                let neg = b.sub(n, mm);
                vec![b.select(n, i, m), b.min(i, n), b.max(i, n), mm, neg]
            }),
        );
        assert_eq!(r[0], iv(Some(0), Some(1 << 100)));
        assert_eq!(r[1], iv(Some(-4), Some(4)));
        assert_eq!(r[2], iv(Some(0), Some(15)));
        assert_eq!(
            r[3],
            iv(Some(i128::MAX), None),
            "2^200: unbounded above, saturated below"
        );
        assert_eq!(r[4], iv(None, Some(4 - i128::MAX)));
    }

    /// A random program over `i`, `N`, `M` and three constants: each step applies an operator
    /// to earlier nodes (picked modulo the nodes so far).
    fn program() -> impl Strategy<Value = Vec<(usize, [usize; 3])>> {
        prop::collection::vec((0..Op::ALL.len(), [0usize..64, 0usize..64, 0usize..64]), 1..10)
    }

    /// An input's interval, possibly unbounded at either end, and a value inside.
    fn input() -> impl Strategy<Value = (Option<i64>, Option<i64>, i64)> {
        (-40i64..40, 0i64..60, 0i64..60, any::<bool>(), any::<bool>()).prop_map(|(lo, w, k, no_lo, no_hi)| {
            ((!no_lo).then_some(lo), (!no_hi).then_some(lo + w), lo + k.min(w))
        })
    }

    proptest! {
        #[test]
        fn every_value_lies_in_its_interval(
            prog in program(),
            ins in [input(), input(), input()],
            consts in [-9i64..9, 1i64..5, 0i64..3],
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
            let outputs = ids.iter().enumerate().map(|(k, id)| (format!("o{k}"), *id)).collect();
            let e = b.finish(outputs);
            let bounds: HashMap<Var, Interval> = vars
                .iter()
                .zip(&ins)
                .map(|(v, (lo, hi, _))| (v.clone(), iv(lo.map(i128::from), hi.map(i128::from))))
                .collect();
            let values: HashMap<Var, i64> = vars.iter().zip(&ins).map(|(v, (_, _, x))| (v.clone(), *x)).collect();
            // An operation that fails (division by zero, a shift out of range) has no value.
            let Ok(got) = e.eval_vars(&values) else { return Ok(()) };
            let r = e.intervals(&bounds);
            for (k, id) in ids.iter().enumerate() {
                let v = i128::from(got[k]);
                let n = e.node(*id);
                prop_assert!(r[id.index()].contains(v), "{n:?} = {v} outside {:?}\n{e}", r[id.index()]);
            }
        }
    }
}
