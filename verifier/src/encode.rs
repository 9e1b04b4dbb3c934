//! The z3 encoding of index expressions.
//!
//! With bounded inputs every value fits a bit-vector whose width comes from the interval
//! analysis, so XOR, shifts and power-of-two division are native and no operation overflows.
//! Otherwise the encoding is over z3 integers (linear arithmetic when the divisors are
//! constants): each `a / b` and `a % b` becomes a quotient variable `q` and a remainder
//! variable `r` with the side condition `a == q*b + r`, `0 <= r < b` (or `b < r <= 0` for a
//! negative divisor); bitwise operations are refused. Inside a quantifier those variables are
//! bound by the quantifier and their conditions join its body ([`Sides`]).
//!
//! A division of operands already divided (`x / m` and `x % m`, or `x >> 5` and `x & 31`) reuses
//! that division's two variables instead of making two more: given `a` and `b != 0` the side
//! condition has exactly one solution, so the reuse only states what the conditions imply, and
//! it keeps such queries linear in the products `q*b` (the Euclidean identity
//! `x % m + m * (x / m) == x` is then one linear step, for every sign of `x` and `m`).

use crate::error::{PResult, ProveError};
use std::collections::{BTreeMap, HashMap};
use tessera_ir::index::{IndexExpr, Node, Op, Var};
use tessera_ir::sym::Interval;
use z3::ast::{BV, Bool, Int};

type Result<T> = PResult<T>;

/// The side conditions of an encoding: the definitions of its quotient and remainder
/// variables, and the variables themselves (which a quantifier must bind).
#[derive(Default)]
pub struct Sides {
    /// Conditions that define the local variables.
    pub conds: Vec<Bool>,
    /// The quotient and remainder variables.
    pub locals: Vec<Term>,
    /// The quotient and remainder variables of each integer division, by its operands (z3's
    /// terms are hash-consed: equal operands are one term).
    divisions: HashMap<(Int, Int), (Int, Int)>,
    /// When set, [`encode`] collects here the conditions under which every operation it encodes
    /// is defined in int64: each intermediate in `[-2^63, 2^63)`, no division by 0, shifts by
    /// `0..=62` (what [`tessera_ir::index::Op::eval`] checks, and what emitted code needs).
    pub defined: Option<Vec<Bool>>,
    /// Whether an integer division's defining condition is guarded by a non-zero divisor
    /// (`b != 0 -> a == q*b + r ...`) instead of asserting `b != 0`: a query that reasons about
    /// where an expression is defined must not exclude the points where a divisor is 0.
    pub guarded: bool,
}

impl Sides {
    /// Floor quotient and remainder of `a` by `b` (see [`Term::floor_divmod`]). Over integers
    /// the variables of an earlier division of the same operands in these sides, else fresh
    /// ones whose definition joins the conditions. Sound: for `b != 0` the definition has one
    /// solution, so both divisions' variables would be equal anyway; for `b == 0` it has none.
    pub fn divmod(&mut self, a: &Term, b: &Term, nonneg: bool) -> Result<(Term, Term)> {
        if let (Term::I(x), Term::I(y)) = (a, b)
            && let Some((q, r)) = self.divisions.get(&(x.clone(), y.clone()))
        {
            return Ok((Term::I(q.clone()), Term::I(r.clone())));
        }
        let (q, r, side) = a.floor_divmod(b, nonneg)?;
        if let Some(side) = side {
            let side = match b {
                Term::I(y) if self.guarded => y.eq(Int::from_i64(0)).not().implies(&side),
                _ => side,
            };
            self.conds.push(side);
            self.locals.extend([q.clone(), r.clone()]);
            if let (Term::I(x), Term::I(y), Term::I(qi), Term::I(ri)) = (a, b, &q, &r) {
                self.divisions
                    .insert((x.clone(), y.clone()), (qi.clone(), ri.clone()));
            }
        }
        Ok((q, r))
    }
}

/// The arithmetic of a query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Signed bit-vectors of this width.
    Bv(u32),
    /// Unbounded integers.
    Int,
}

/// A z3 term of the query's arithmetic.
#[derive(Clone, Debug)]
pub enum Term {
    /// A bit-vector.
    B(BV),
    /// An integer.
    I(Int),
}

impl Term {
    /// The constant `v`.
    pub fn konst(mode: Mode, v: i64) -> Term {
        match mode {
            Mode::Bv(w) => Term::B(BV::from_i64(v, w)),
            Mode::Int => Term::I(Int::from_i64(v)),
        }
    }

    /// A fresh variable.
    pub fn var(mode: Mode, name: &str) -> Term {
        match mode {
            Mode::Bv(w) => Term::B(BV::new_const(name, w)),
            Mode::Int => Term::I(Int::new_const(name)),
        }
    }

    fn pair<'a>(&'a self, o: &'a Term) -> Result<Pair<'a>> {
        match (self, o) {
            (Term::B(a), Term::B(b)) => Ok(Pair::B(a, b)),
            (Term::I(a), Term::I(b)) => Ok(Pair::I(a, b)),
            _ => Err(ProveError::internal("mixed encodings in one query")),
        }
    }

    /// `a + b`
    pub fn add(&self, o: &Term) -> Result<Term> {
        Ok(match self.pair(o)? {
            Pair::B(a, b) => Term::B(a.bvadd(b)),
            Pair::I(a, b) => Term::I(Int::add(&[a, b])),
        })
    }

    /// `a - b`
    pub fn sub(&self, o: &Term) -> Result<Term> {
        Ok(match self.pair(o)? {
            Pair::B(a, b) => Term::B(a.bvsub(b)),
            Pair::I(a, b) => Term::I(Int::sub(&[a, b])),
        })
    }

    /// `a * b`
    pub fn mul(&self, o: &Term) -> Result<Term> {
        Ok(match self.pair(o)? {
            Pair::B(a, b) => Term::B(a.bvmul(b)),
            Pair::I(a, b) => Term::I(Int::mul(&[a, b])),
        })
    }

    /// Floor division and remainder; `nonneg` when the dividend is known non-negative and the
    /// divisor positive, which allows the unsigned operations. Over integers the result is a
    /// pair of fresh variables and the side condition that defines them.
    pub fn floor_divmod(&self, o: &Term, nonneg: bool) -> Result<(Term, Term, Option<Bool>)> {
        // The integer case binds `q` and `r` by its side condition: `a == q*b + r`,
        // `b != 0`, and `0 <= r < b` or `b < r <= 0`.
        Ok(match self.pair(o)? {
            Pair::B(a, b) if nonneg => (Term::B(a.bvudiv(b)), Term::B(a.bvurem(b)), None),
            Pair::B(a, b) => {
                let w = a.get_size();
                let zero = BV::from_i64(0, w);
                let q = a.bvsdiv(b);
                let r = a.bvsrem(b);
                let adjust = Bool::and(&[r.eq(&zero).not(), r.bvslt(&zero).xor(b.bvslt(&zero))]);
                let one = BV::from_i64(1, w);
                (
                    Term::B(adjust.ite(&q.bvsub(&one), &q)),
                    Term::B(adjust.ite(&r.bvadd(b), &r)),
                    None,
                )
            }
            Pair::I(a, b) => {
                let q = Int::fresh_const("q");
                let r = Int::fresh_const("r");
                let zero = Int::from_i64(0);
                let def = Int::add(&[&Int::mul(&[&q, b]), &r]).eq(a);
                let pos = Bool::and(&[zero.le(&r), r.lt(b)]);
                let neg = Bool::and(&[b.lt(&r), r.le(&zero)]);
                let side = Bool::and(&[def, b.eq(&zero).not(), zero.lt(b).ite(&pos, &neg)]);
                (Term::I(q), Term::I(r), Some(side))
            }
        })
    }

    fn bits(&self, o: &Term, op: &str, why_int: &str, f: impl Fn(&BV, &BV) -> BV) -> Result<Term> {
        match self.pair(o)? {
            Pair::B(a, b) => Ok(Term::B(f(a, b))),
            Pair::I(..) => Err(ProveError::Unknown(format!(
                "'{op}' needs bit-vectors, and this query is over integers: {why_int}"
            ))),
        }
    }

    /// `a == b`
    pub fn eq(&self, o: &Term) -> Result<Bool> {
        Ok(match self.pair(o)? {
            Pair::B(a, b) => a.eq(b),
            Pair::I(a, b) => a.eq(b),
        })
    }

    /// `a < b` (signed)
    pub fn lt(&self, o: &Term) -> Result<Bool> {
        Ok(match self.pair(o)? {
            Pair::B(a, b) => a.bvslt(b),
            Pair::I(a, b) => a.lt(b),
        })
    }

    /// `a <= b` (signed)
    pub fn le(&self, o: &Term) -> Result<Bool> {
        Ok(match self.pair(o)? {
            Pair::B(a, b) => a.bvsle(b),
            Pair::I(a, b) => a.le(b),
        })
    }

    /// `c ? a : b`
    pub fn ite(c: &Bool, a: &Term, b: &Term) -> Result<Term> {
        Ok(match a.pair(b)? {
            Pair::B(x, y) => Term::B(c.ite(x, y)),
            Pair::I(x, y) => Term::I(c.ite(x, y)),
        })
    }

    /// The term as a z3 AST, to bind it in a quantifier.
    pub fn as_ast(&self) -> &dyn z3::ast::Ast {
        match self {
            Term::B(b) => b,
            Term::I(i) => i,
        }
    }

    /// The value of this term in a model (bit-vectors read as signed).
    pub fn value(&self, m: &z3::Model) -> Option<i64> {
        match self {
            Term::B(b) => m.eval(&b.to_int(true), true)?.as_i64(),
            Term::I(i) => m.eval(i, true)?.as_i64(),
        }
    }
}

/// Shifts and masks by constants over integers, as the arithmetic they are: `x << k` is
/// `x * 2^k`, `x >> k` is `floor(x / 2^k)`, `x & (2^k - 1)` is `x mod 2^k` and `x & -2^k` is
/// `x - x mod 2^k` (two's complement). Other bitwise operations need bit-vectors.
fn int_bits(
    op: Op,
    a: (Term, Option<i64>),
    b: (Term, Option<i64>),
    why_int: &str,
    sides: &mut Sides,
) -> Result<Term> {
    let refuse = || {
        ProveError::Unknown(format!(
            "'{}' needs bit-vectors, and this query is over integers: {why_int}",
            op.symbol()
        ))
    };
    let pow = |k: i64| (0..63).contains(&k).then(|| 1i64 << k);
    let mut divmod = |x: &Term, m: i64| sides.divmod(x, &Term::konst(Mode::Int, m), false);
    match op {
        Op::Shl => {
            let p = b.1.and_then(pow).ok_or_else(refuse)?;
            a.0.mul(&Term::konst(Mode::Int, p))
        }
        Op::Shr => {
            let p = b.1.and_then(pow).ok_or_else(refuse)?;
            Ok(divmod(&a.0, p)?.0)
        }
        Op::And => {
            let (x, m) = match (a.1, b.1) {
                (_, Some(m)) => (a.0, m),
                (Some(m), None) => (b.0, m),
                _ => return Err(refuse()),
            };
            if (0..i64::MAX).contains(&m) && pow2(m + 1) {
                Ok(divmod(&x, m + 1)?.1)
            } else if m < 0 && m != i64::MIN && pow2(-m) {
                let r = divmod(&x, -m)?.1;
                x.sub(&r)
            } else {
                Err(refuse())
            }
        }
        _ => Err(refuse()),
    }
}

/// `t` lies in `[-2^63, 2^63)`; `None` where the arithmetic cannot leave it (bit-vectors of at
/// most 64 bits, sized by the interval analysis to hold every value).
fn fits_i64(t: &Term, mode: Mode) -> Option<Bool> {
    match (t, mode) {
        (Term::B(b), Mode::Bv(w)) if w > 64 => Some(Bool::and(&[
            BV::from_i64(i64::MIN, w).bvsle(b),
            b.bvsle(BV::from_i64(i64::MAX, w)),
        ])),
        (Term::B(_), _) => None,
        (Term::I(i), _) => Some(Bool::and(&[
            Int::from_i64(i64::MIN).le(i),
            i.le(Int::from_i64(i64::MAX)),
        ])),
    }
}

/// The shift amount `id` (encoded as `t`) lies in `0..=62`, as [`tessera_ir::index::Op::eval`]
/// requires.
fn shift_in_range(
    e: &IndexExpr,
    id: tessera_ir::index::NodeId,
    t: &Option<Term>,
    mode: Mode,
) -> Result<Bool> {
    if let Some(c) = e.node(id).as_const() {
        return Ok(Bool::from_bool((0..=62).contains(&c)));
    }
    let t = t
        .as_ref()
        .ok_or_else(|| ProveError::internal("operand not encoded"))?;
    Ok(Bool::and(&[
        Term::konst(mode, 0).le(t)?,
        t.le(&Term::konst(mode, 62))?,
    ]))
}

fn pow2(v: i64) -> bool {
    v > 0 && v & (v - 1) == 0
}

enum Pair<'a> {
    B(&'a BV, &'a BV),
    I(&'a Int, &'a Int),
}

/// Encodes an index expression with its inputs bound to terms. `ranges` are the node
/// intervals of the same expression (see [`IndexExpr::intervals`]); `why_int` says why an
/// integer query is not over bit-vectors, for the message of a bitwise operation. Returns
/// the outputs.
pub fn encode(
    e: &IndexExpr,
    mode: Mode,
    why_int: &str,
    inputs: &HashMap<Var, Term>,
    ranges: &[Interval],
    sides: &mut Sides,
) -> Result<BTreeMap<String, Term>> {
    let live = e.live();
    let mut t: Vec<Option<Term>> = vec![None; e.nodes().len()];
    for (k, n) in e.nodes().iter().enumerate() {
        if !live[k] {
            continue;
        }
        let g = |id: &tessera_ir::index::NodeId| -> Result<Term> {
            t[id.index()]
                .clone()
                .ok_or_else(|| ProveError::internal("operand not encoded"))
        };
        let mut undefined_unless: Option<Bool> = None;
        let v = match n {
            Node::Const(c) => Term::konst(mode, *c),
            Node::Var(v) => inputs
                .get(v)
                .cloned()
                .ok_or_else(|| ProveError::internal(format!("no term for input {v}")))?,
            Node::Op(op, args) => {
                let x = |k: usize| g(&args[k]);
                match op {
                    Op::Add => x(0)?.add(&x(1)?)?,
                    Op::Sub => x(0)?.sub(&x(1)?)?,
                    Op::Mul => x(0)?.mul(&x(1)?)?,
                    Op::Div | Op::Mod => {
                        let nonneg =
                            ranges[args[0].index()].is_at_least(0) && ranges[args[1].index()].is_at_least(1);
                        let d = x(1)?;
                        if sides.defined.is_some() {
                            undefined_unless = Some(d.eq(&Term::konst(mode, 0))?.not());
                        }
                        let (q, r) = sides.divmod(&x(0)?, &d, nonneg)?;
                        if *op == Op::Div { q } else { r }
                    }
                    Op::And | Op::Shl | Op::Shr if mode == Mode::Int => {
                        let k = |j: usize| e.node(args[j]).as_const();
                        int_bits(*op, (x(0)?, k(0)), (x(1)?, k(1)), why_int, sides)?
                    }
                    Op::Xor => x(0)?.bits(&x(1)?, op.symbol(), why_int, |a, b| a.bvxor(b))?,
                    Op::And => x(0)?.bits(&x(1)?, op.symbol(), why_int, |a, b| a.bvand(b))?,
                    Op::Shl => x(0)?.bits(&x(1)?, op.symbol(), why_int, |a, b| a.bvshl(b))?,
                    Op::Shr => x(0)?.bits(&x(1)?, op.symbol(), why_int, |a, b| a.bvashr(b))?,
                    Op::Min => {
                        let (a, b) = (x(0)?, x(1)?);
                        Term::ite(&a.le(&b)?, &a, &b)?
                    }
                    Op::Max => {
                        let (a, b) = (x(0)?, x(1)?);
                        Term::ite(&a.le(&b)?, &b, &a)?
                    }
                    Op::Select => {
                        let zero = Term::konst(mode, 0);
                        Term::ite(&x(0)?.eq(&zero)?.not(), &x(1)?, &x(2)?)?
                    }
                }
            }
        };
        if let (Some(d), Node::Op(op, args)) = (sides.defined.as_mut(), n) {
            d.extend(undefined_unless);
            if matches!(op, Op::Shl | Op::Shr) {
                d.push(shift_in_range(e, args[1], &t[args[1].index()], mode)?);
            }
            if matches!(op, Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Shl) {
                d.extend(fits_i64(&v, mode));
            }
        }
        t[k] = Some(v);
    }
    let mut out = BTreeMap::new();
    for (name, id) in e.outputs() {
        out.insert(
            name.clone(),
            t[id.index()]
                .clone()
                .ok_or_else(|| ProveError::internal("output not encoded"))?,
        );
    }
    Ok(out)
}
