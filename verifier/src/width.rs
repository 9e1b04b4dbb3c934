//! Interval bounds of every node of an index expression, to size the bit-vectors.
//!
//! Bounds are sound: every value the node takes, for inputs in their ranges, lies inside.
//! They are `i128` with saturation; anything near `i128::MAX` means "unbounded".

use std::collections::HashMap;
use tessera_ir::index::{IndexExpr, Node, Op, Var};

/// A closed interval of values.
pub type Range = (i128, i128);

/// An effectively unbounded range.
pub const UNBOUNDED: Range = (-(1 << 100), 1 << 100);

/// The widest bit-vector a query uses; wider values are encoded as integers. Wide enough for
/// any `i64` layout (offsets near 2^63, and the sums and products a property forms of them).
pub const MAX_BV_BITS: u32 = 128;

/// The interval of every node, given the intervals of the inputs (missing inputs unbounded).
pub fn ranges(e: &IndexExpr, inputs: &HashMap<Var, Range>) -> Vec<Range> {
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
                            let m = x.0.abs().max(x.1.abs());
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
                            let m = y.0.abs().max(y.1.abs());
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
                            let m = x.0.abs().max(x.1.abs()).max(y.0.abs()).max(y.1.abs()).max(1) as u128;
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
pub fn magnitude(rs: &[Range]) -> i128 {
    rs.iter()
        .map(|r| r.0.saturating_abs().max(r.1.saturating_abs()))
        .max()
        .unwrap_or(0)
}

/// Bits of a signed two's-complement vector holding every value up to `m` in magnitude, with
/// one bit of headroom for the comparisons and sums the properties add.
pub fn bits_for(m: i128) -> u32 {
    let m = m.max(1) as u128;
    (128 - m.leading_zeros()) + 2
}
