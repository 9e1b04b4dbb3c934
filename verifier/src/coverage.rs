//! The properties that say every value is reached: `surjective` and `complement_valid`
//! (ordered, disjoint, and its coverage of `[0, n)`).
//!
//! Coverage is a universal statement (no index reaches `k`: for all `x`, `L(x) != k`). Onto its
//! own size it is a bijection (pigeonhole), two quantifier-free queries; otherwise the
//! quantifier is expanded into a conjunction on small domains, decided by enumerating the
//! lowered expressions on bounded ones ([`crate::enumerate`]), and left to z3 on the rest.

use crate::checks::{in_bounds, injective};
use crate::context::{Ctx, RECHECK_LIMIT, Vals, below, confirm, finish, get, past_end};
use crate::encode::{Sides, Term};
use crate::enumerate;
use crate::error::{PResult, ProveError};
use crate::func::Func;
use crate::query::{Query, Scope, offset_term};
use crate::verdict::{Counterexample, Verdict};
use tessera_ir::index::IndexExpr;
use tessera_ir::sym::{Interval, SymInt};
use z3::ast::Bool;

/// `forall vars. body`, binding the quotient and remainder variables of `sides` too, whose
/// conditions join the antecedent.
fn forall(vars: &[&Term], inside: Bool, sides: Sides, conclusion: Bool) -> Bool {
    let mut bound: Vec<&dyn z3::ast::Ast> = vars.iter().map(|t| t.as_ast()).collect();
    bound.extend(sides.locals.iter().map(Term::as_ast));
    let mut pre = vec![inside];
    pre.extend(sides.conds);
    z3::ast::forall_const(&bound, &[], &Bool::and(&pre).implies(conclusion))
}

/// A universal quantifier over fewer indices than this (or index pairs, times 4) is expanded
/// into a conjunction: a quantifier-free query, which z3 decides far more readily.
const EXPAND: i128 = 1 << 12;

/// `(x, e(x))` for every index `x` of `range` (a small one), as constant terms.
fn applied(ctx: &Ctx, q: &mut Query, e: &IndexExpr, range: Interval) -> PResult<Vec<(Term, Term)>> {
    let (Some(lo), Some(hi)) = (range.lo(), range.hi()) else {
        return Err(ProveError::internal("an unbounded index range to expand"));
    };
    let mut out = Vec::new();
    for x in lo..=hi {
        ctx.deadline.poll(x as u64)?;
        let x = i64::try_from(x).map_err(|_| ProveError::internal("index range"))?;
        let xt = q.konst(x);
        let fx = q.apply_offset(e, &xt, Interval::point(x.into()))?;
        out.push((xt, fx));
    }
    Ok(out)
}

/// Onto `[0, size)` from `size` indices is, by pigeonhole, exactly a bijection of
/// `[0, size)`: two quantifier-free queries decide it. A refutation names a value that no
/// index reaches, found by enumerating the layout at the counterexample's parameters.
fn onto_own_size(ctx: &Ctx, f: &Func, size: &SymInt) -> PResult<Verdict> {
    let mut v = injective(ctx, f)?;
    if v == Verdict::Proved {
        v = in_bounds(ctx, f, size)?;
    }
    let Verdict::Refuted(c) = v else { return Ok(v) };
    let ps: Vals = c.params.iter().cloned().collect();
    let cf = f.at(&ps)?;
    let n = cf.size()?;
    if n > RECHECK_LIMIT {
        return Ok(Verdict::Unknown(format!(
            "not surjective ({c}), but {n} indices are too many to name a value none reaches"
        )));
    }
    let mut hit = vec![false; n as usize];
    for x in 0..n {
        ctx.deadline.poll(x as u64)?;
        let v = cf.offset(x)?;
        if (0..n).contains(&v) {
            hit[v as usize] = true;
        }
    }
    match hit.iter().position(|h| !h) {
        Some(k) => Ok(Verdict::Refuted(Counterexample {
            summary: format!("no index reaches {k} ({})", c.summary),
            ..c
        })),
        None => Err(ProveError::internal(format!(
            "not a bijection ({c}) yet every value below {n} is reached"
        ))),
    }
}

pub(crate) fn surjective(ctx: &Ctx, f: &Func, n: Option<&SymInt>) -> PResult<Verdict> {
    let size = f.size()?;
    if n.is_none_or(|n| *n == size) {
        return onto_own_size(ctx, f, &size);
    }
    let e = f.lower()?;
    let target = n.cloned().unwrap_or_else(|| size.clone());
    let r = below(&ctx.facts, &size);
    let expand = r.is_at_most(EXPAND - 1);
    let scope = Scope {
        apps: vec![(&e, r)],
        syms: vec![&size, &target],
        extra: vec![past_end(r)],
        quantified: !expand,
        prefer_int: false,
        exprs: Vec::new(),
    };
    let recheck = |ps: &Vals, idx: &Vals| {
        let c = f.at(ps)?;
        let k = get(idx, "k")?;
        let n = c.size()?;
        if n > RECHECK_LIMIT {
            return Err(ProveError::Unknown(format!(
                "{n} indices are too many to re-check"
            )));
        }
        for x in 0..n {
            ctx.deadline.poll(x as u64)?;
            if c.offset(x)? == k {
                return Ok(None);
            }
        }
        Ok(Some(Counterexample {
            params: vec![],
            witnesses: vec![],
            summary: format!("no index reaches {k}"),
        }))
    };
    if !expand && let Some(found) = enumerate::uncovered(ctx, &[(&e, &size)], &target)? {
        return match found {
            None => Ok(Verdict::Proved),
            Some((ps, k)) => confirm(ctx, ps, Vals::from([("k".to_string(), k)]), recheck),
        };
    }
    let mut q = Query::new(ctx.facts.clone(), &scope, ctx.deadline)?;
    let sz = q.sym(&size)?;
    let hi = q.sym(&target)?;
    let zero = q.konst(0);
    let k = q.index("k", &zero, &hi)?;
    // No index reaches k: for all x in [0, size), L(x) != k.
    if expand {
        let mut conj = Vec::new();
        for (x, fx) in applied(ctx, &mut q, &e, r)? {
            conj.push(x.lt(&sz)?.implies(fx.eq(&k)?.not()));
        }
        q.assert(&Bool::and(&conj));
    } else {
        let x = Term::var(q.mode(), "x!forall");
        let mut sides = Sides::default();
        let fx = q.apply_in(&e, &x, r, &mut sides)?;
        let fx = offset_term(&q, &fx)?;
        let inside = Bool::and(&[zero.le(&x)?, x.lt(&sz)?]);
        q.assert(&forall(&[&x], inside, sides, fx.eq(&k)?.not()));
    }
    finish(ctx, &q, recheck)
}

pub(crate) fn complement_valid(ctx: &Ctx, a: &Func, c: &Func, n: Option<&SymInt>) -> PResult<Verdict> {
    let (ea, ec) = (a.lower()?, c.lower()?);
    let (sa, sc) = (a.size()?, c.size()?);
    let (ra, rc) = (below(&ctx.facts, &sa), below(&ctx.facts, &sc));
    // Ordered: C(i-1) < C(i).
    {
        let scope = Scope {
            apps: vec![(&ec, rc)],
            syms: vec![&sc],
            extra: vec![past_end(rc)],
            quantified: false,
            prefer_int: false,
            exprs: Vec::new(),
        };
        let mut q = Query::new(ctx.facts.clone(), &scope, ctx.deadline)?;
        let n = q.sym(&sc)?;
        let one = q.konst(1);
        let i = q.index("i", &one, &n)?;
        let prev = q.apply_offset(&ec, &i.sub(&one)?, rc)?;
        let cur = q.apply_offset(&ec, &i, rc)?;
        q.assert(&cur.le(&prev)?);
        let v = finish(ctx, &q, |ps, idx| {
            let cc = c.at(ps)?;
            let i = get(idx, "i")?;
            let (p, x) = (cc.offset(i - 1)?, cc.offset(i)?);
            Ok((i >= 1 && i < cc.size()? && x <= p).then(|| Counterexample {
                params: vec![],
                witnesses: vec![],
                summary: format!("C({}) = {p} >= C({i}) = {x}: not ordered", i - 1),
            }))
        })?;
        if v != Verdict::Proved {
            return Ok(v);
        }
    }
    // Disjoint: C(i) != A(j) for i >= 1.
    {
        let scope = Scope {
            apps: vec![(&ec, rc), (&ea, ra)],
            syms: vec![&sc, &sa],
            extra: vec![past_end(rc), past_end(ra)],
            quantified: false,
            prefer_int: false,
            exprs: Vec::new(),
        };
        let mut q = Query::new(ctx.facts.clone(), &scope, ctx.deadline)?;
        let (nc, na) = (q.sym(&sc)?, q.sym(&sa)?);
        let (zero, one) = (q.konst(0), q.konst(1));
        let i = q.index("i", &one, &nc)?;
        let j = q.index("j", &zero, &na)?;
        let ci = q.apply_offset(&ec, &i, rc)?;
        let aj = q.apply_offset(&ea, &j, ra)?;
        q.assert(&ci.eq(&aj)?);
        let v = finish(ctx, &q, |ps, idx| {
            let (ca, cc) = (a.at(ps)?, c.at(ps)?);
            let (i, j) = (get(idx, "i")?, get(idx, "j")?);
            if i < 1 || i >= cc.size()? || j >= ca.size()? {
                return Ok(None);
            }
            let (x, y) = (cc.offset(i)?, ca.offset(j)?);
            Ok((x == y).then(|| Counterexample {
                params: vec![],
                witnesses: vec![],
                summary: format!("C({i}) = A({j}) = {x}: not disjoint"),
            }))
        })?;
        if v != Verdict::Proved {
            return Ok(v);
        }
    }
    // Coverage: every k < n is A(j) + C(i) for some i, j.
    let Some(n) = n else { return Ok(Verdict::Proved) };
    let expand = past_end(rc).saturating_mul(past_end(ra)) < 4 * EXPAND;
    let scope = Scope {
        apps: vec![(&ec, rc), (&ea, ra)],
        syms: vec![&sc, &sa, n],
        extra: vec![past_end(rc), past_end(ra)],
        quantified: !expand,
        prefer_int: false,
        exprs: Vec::new(),
    };
    let recheck = |ps: &Vals, idx: &Vals| {
        let (ca, cc) = (a.at(ps)?, c.at(ps)?);
        let k = get(idx, "k")?;
        let (na, nc) = (ca.size()?, cc.size()?);
        if na.saturating_mul(nc) > RECHECK_LIMIT {
            return Err(ProveError::Unknown(format!(
                "{na} x {nc} index pairs are too many to re-check"
            )));
        }
        let cs: Vec<i64> = (0..nc).map(|i| cc.offset(i)).collect::<tessera_ir::Result<_>>()?;
        for j in 0..na {
            ctx.deadline.poll(j as u64)?;
            let aj = ca.offset(j)?;
            if cs.iter().any(|&x| aj.checked_add(x) == Some(k)) {
                return Ok(None);
            }
        }
        Ok(Some(Counterexample {
            params: vec![],
            witnesses: vec![],
            summary: format!("(A, C) never reaches {k}"),
        }))
    };
    if !expand && let Some(found) = enumerate::uncovered(ctx, &[(&ec, &sc), (&ea, &sa)], n)? {
        return match found {
            None => Ok(Verdict::Proved),
            Some((ps, k)) => confirm(ctx, ps, Vals::from([("k".to_string(), k)]), recheck),
        };
    }
    let mut q = Query::new(ctx.facts.clone(), &scope, ctx.deadline)?;
    let (nc, na, hi) = (q.sym(&sc)?, q.sym(&sa)?, q.sym(n)?);
    let zero = q.konst(0);
    let k = q.index("k", &zero, &hi)?;
    if expand {
        let cs = applied(ctx, &mut q, &ec, rc)?;
        let as_ = applied(ctx, &mut q, &ea, ra)?;
        let mut conj = Vec::new();
        for (i, ci) in &cs {
            ctx.deadline.check()?;
            for (j, aj) in &as_ {
                let inside = Bool::and(&[i.lt(&nc)?, j.lt(&na)?]);
                conj.push(inside.implies(ci.add(aj)?.eq(&k)?.not()));
            }
        }
        q.assert(&Bool::and(&conj));
    } else {
        let (i, j) = (Term::var(q.mode(), "i!forall"), Term::var(q.mode(), "j!forall"));
        let mut sides = Sides::default();
        let ci = q.apply_in(&ec, &i, rc, &mut sides)?;
        let aj = q.apply_in(&ea, &j, ra, &mut sides)?;
        let (ci, aj) = (offset_term(&q, &ci)?, offset_term(&q, &aj)?);
        let inside = Bool::and(&[zero.le(&i)?, i.lt(&nc)?, zero.le(&j)?, j.lt(&na)?]);
        q.assert(&forall(&[&i, &j], inside, sides, ci.add(&aj)?.eq(&k)?.not()));
    }
    finish(ctx, &q, recheck)
}
