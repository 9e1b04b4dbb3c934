//! The e-class analysis: what is known of every value of a class.
//!
//! For each e-class: its constant value when it has one, an interval holding every value it
//! takes on the domain (from the inputs' ranges through [`Op::interval`]), and a known divisor
//! (every value is a multiple of it; 0 means the class is the constant 0). Merging two classes
//! keeps both facts (the meet of the intervals, the least common multiple of the divisors), since
//! both hold of the one value. A class with a constant value gets the constant's node, so
//! patterns with literals match it.
//!
//! Soundness: every fact holds for the values the class takes when its inputs lie in their
//! ranges; the rewrites rely on nothing else, and the result is validated anyway.

use super::lang::Term;
use crate::index::{MAX_ARITY, Op};
use crate::sym::Interval;
use egg::{Analysis, DidMerge, EGraph, Id, Symbol};
use std::collections::HashMap;

/// The facts of an e-class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Facts {
    /// The value, when the class is a constant.
    pub konst: Option<i64>,
    /// Every value lies inside.
    pub range: Interval,
    /// Every value is a multiple of this (non-negative; 0: the class is 0).
    pub divisor: i64,
}

impl Facts {
    /// Whether every value is a multiple of `d` (`d != 0`).
    pub fn multiple_of(&self, d: i64) -> bool {
        d != 0 && (self.divisor == 0 || self.divisor % d == 0)
    }

    /// Whether every value is at least `v`.
    pub fn at_least(&self, v: i128) -> bool {
        self.range.is_at_least(v)
    }
}

/// The analysis: the ranges and divisors of the inputs, by name.
#[derive(Default)]
pub struct Analyzer {
    /// The range of each input (absent: unbounded).
    pub ranges: HashMap<Symbol, Interval>,
    /// A known divisor of each input (absent: 1).
    pub moduli: HashMap<Symbol, i64>,
}

/// The e-graph of the simplifier.
pub type Graph = EGraph<Term, Analyzer>;

/// `|v|`, a divisor of `v` (`2^62` for `i64::MIN`, whose magnitude does not fit).
fn magnitude(v: i64) -> i64 {
    v.checked_abs().unwrap_or(1 << 62)
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    i64::try_from(a).unwrap_or(1)
}

/// The least common multiple, or the larger when it does not fit (a multiple of it is still a
/// multiple of the larger).
fn lcm(a: i64, b: i64) -> i64 {
    if a == 0 || b == 0 {
        return 0;
    }
    (a / gcd(a, b)).checked_mul(b).unwrap_or(a.max(b)).abs()
}

/// The power-of-two part of a divisor (64 for 0, the class of 0).
fn twos(d: i64) -> u32 {
    if d == 0 { 64 } else { d.trailing_zeros() }
}

fn pow2_divisor(t: u32) -> i64 {
    if t >= 63 { 0 } else { 1i64 << t }
}

/// The known divisor of `op` applied to classes with divisors `d` and constants `k`.
fn divisor(op: Op, d: &[i64], k: &[Option<i64>]) -> i64 {
    match op {
        Op::Add | Op::Sub | Op::Min | Op::Max => gcd(d[0], d[1]),
        Op::Select => gcd(d[1], d[2]),
        Op::Mul => {
            if d[0] == 0 || d[1] == 0 {
                0
            } else {
                d[0].checked_mul(d[1]).unwrap_or(d[0]).abs()
            }
        }
        Op::Div => match k[1] {
            _ if d[0] == 0 => 0,
            Some(c) if c != 0 && d[0].checked_rem(c) == Some(0) => magnitude(d[0] / c),
            _ => 1,
        },
        // x mod y = x - y*floor(x/y): a multiple of whatever divides both.
        Op::Mod => gcd(d[0], k[1].unwrap_or(d[1])),
        Op::Shl => match k[1] {
            Some(s) if (0..63).contains(&s) => d[0].checked_mul(1 << s).unwrap_or(d[0]).abs(),
            _ => 1,
        },
        Op::Shr => match k[1] {
            _ if d[0] == 0 => 0,
            Some(s) if (0..63).contains(&s) && d[0] % (1 << s) == 0 => d[0] >> s,
            _ => 1,
        },
        Op::And => pow2_divisor(twos(d[0]).max(twos(d[1]))),
        Op::Xor => pow2_divisor(twos(d[0]).min(twos(d[1]))),
    }
}

impl Analyzer {
    fn input(&self, s: Symbol) -> Facts {
        let range = self.ranges.get(&s).copied().unwrap_or(Interval::UNBOUNDED);
        let konst = range.as_point().and_then(|v| i64::try_from(v).ok());
        let divisor = match konst {
            Some(v) => magnitude(v),
            None => magnitude(self.moduli.get(&s).copied().unwrap_or(1)).max(1),
        };
        Facts {
            konst,
            range,
            divisor,
        }
    }
}

impl Analysis<Term> for Analyzer {
    type Data = Facts;

    fn make(egraph: &mut Graph, enode: &Term, _id: Id) -> Facts {
        match enode {
            Term::Num(v) => Facts {
                konst: Some(*v),
                range: Interval::point(i128::from(*v)),
                divisor: magnitude(*v),
            },
            Term::Input(s) => egraph.analysis.input(*s),
            Term::Op(op, args) => {
                let n = op.arity();
                let mut r = [Interval::UNBOUNDED; MAX_ARITY];
                let mut d = [1i64; MAX_ARITY];
                let mut k = [None; MAX_ARITY];
                for j in 0..n {
                    let f = &egraph[args[j]].data;
                    (r[j], d[j], k[j]) = (f.range, f.divisor, f.konst);
                }
                let folded = if k[..n].iter().all(Option::is_some) {
                    let v: Vec<i64> = k[..n].iter().map(|x| x.unwrap_or(0)).collect();
                    op.eval(&v).ok()
                } else {
                    None
                };
                let range = op.interval(&r[..n]);
                let range = match folded {
                    Some(v) => Interval::point(i128::from(v)),
                    None => range,
                };
                let konst = folded.or_else(|| range.as_point().and_then(|v| i64::try_from(v).ok()));
                let divisor = match konst {
                    Some(v) => magnitude(v),
                    None => divisor(*op, &d[..n.max(2)], &k[..n.max(2)]),
                };
                Facts {
                    konst,
                    range,
                    divisor,
                }
            }
        }
    }

    fn merge(&mut self, to: &mut Facts, from: Facts) -> DidMerge {
        let old = to.clone();
        if to.konst.is_none() {
            to.konst = from.konst;
        }
        // Both intervals hold every value; an empty meet would mean an unsound fact upstream,
        // and keeping one side stays sound for the side that was right.
        if let Some(r) = to.range.meet(from.range) {
            to.range = r;
        }
        if let Some(v) = to.konst {
            to.range = Interval::point(i128::from(v));
            to.divisor = magnitude(v);
        } else {
            to.divisor = lcm(to.divisor, from.divisor);
        }
        DidMerge(*to != old, *to != from)
    }

    fn modify(egraph: &mut Graph, id: Id) {
        if let Some(v) = egraph[id].data.konst {
            let c = egraph.add(Term::Num(v));
            egraph.union(id, c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divisors_of_every_operator_hold_at_sample_points() {
        // For multiples a*d0, b*d1 of the divisors, the result is a multiple of the computed
        // divisor whenever the operation is defined.
        let ds = [0i64, 1, 2, 4, 6, 12, 32];
        for &op in Op::ALL {
            for &d0 in &ds {
                for &d1 in &ds {
                    for (a, b) in [(1i64, 1i64), (3, 2), (-5, 7), (2, -3)] {
                        let x = [a * d0, b * d1, 5 * d1];
                        let konst = [None, Some(x[1]), None];
                        let dd = [d0, d1, d1];
                        let Ok(v) = op.eval(&x[..op.arity()]) else {
                            continue;
                        };
                        let k = divisor(op, &dd, &konst);
                        assert!(
                            k == 0 && v == 0 || k != 0 && v % k == 0,
                            "{op:?} {x:?} {dd:?} -> {v} /{k}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn lcm_and_gcd() {
        assert_eq!(gcd(12, 18), 6);
        assert_eq!(gcd(0, 5), 5);
        assert_eq!(lcm(4, 6), 12);
        assert_eq!(lcm(0, 6), 0);
        assert_eq!(lcm(i64::MAX, i64::MAX - 1), i64::MAX);
    }
}
