//! The z3 query of each property whose answer is one query (injectivity, bounds, equality,
//! the inverses, composition, contiguity, vectors), with the re-check of its counterexamples
//! ([`crate::context`]).

use crate::context::{Ctx, Vals, below, finish, get, past_end, refuted_without_witness, witness};
use crate::encode::Term;
use crate::error::{PResult, ProveError};
use crate::func::{Func, same_point, show_point};
use crate::query::{Query, Scope, output_range, points_equal};
use crate::verdict::{Counterexample, Verdict};
use tessera_ir::index::IndexExpr;
use tessera_ir::sym::{Interval, SymInt};
use tessera_ir::{Int, shape};
use z3::ast::Bool;

/// A query over one lowered function `e` on `[0, size)`: the range of its indices, the query,
/// and the size as a term. `more` are the other symbolic values the query forms, `extra` the
/// other constants (both size the bit-vectors).
fn over_domain(
    ctx: &Ctx,
    e: &IndexExpr,
    size: &SymInt,
    more: &[&SymInt],
    extra: &[i128],
) -> PResult<(Interval, Query, Term)> {
    let r = below(&ctx.facts, size);
    let mut syms = vec![size];
    syms.extend_from_slice(more);
    let mut ex = vec![past_end(r)];
    ex.extend_from_slice(extra);
    let scope = Scope {
        apps: vec![(e, r)],
        syms,
        extra: ex,
        quantified: false,
        prefer_int: false,
        exprs: Vec::new(),
    };
    let mut q = Query::new(ctx.facts.clone(), &scope, ctx.deadline)?;
    let n = q.sym(size)?;
    Ok((r, q, n))
}

pub(crate) fn injective(ctx: &Ctx, f: &Func) -> PResult<Verdict> {
    let e = f.lower()?;
    let size = f.size()?;
    let (r, mut q, n) = over_domain(ctx, &e, &size, &[], &[])?;
    let zero = q.konst(0);
    let x = q.index("x", &zero, &n)?;
    let y = q.index("y", &zero, &n)?;
    q.assert(&x.lt(&y)?);
    let fx = q.apply(&e, &x, r)?;
    let fy = q.apply(&e, &y, r)?;
    q.assert(&points_equal(&q, &fx, &fy)?);
    finish(ctx, &q, |ps, idx| recheck_injective(f, ps, idx))
}

/// Re-checks a collision `x`, `y` (in `idx`) of `f` at the parameters `ps` by evaluation.
pub(crate) fn recheck_injective(f: &Func, ps: &Vals, idx: &Vals) -> PResult<Option<Counterexample>> {
    let c = f.at(ps)?;
    let (x, y) = (get(idx, "x")?, get(idx, "y")?);
    let n = c.size()?;
    if x == y || x < 0 || y < 0 || x >= n || y >= n {
        return Ok(None);
    }
    let (vx, vy) = (c.eval(x)?, c.eval(y)?);
    if !same_point(&vx, &vy) {
        return Ok(None);
    }
    Ok(Some(Counterexample {
        params: vec![],
        witnesses: vec![witness("x", &c, x)?, witness("y", &c, y)?],
        summary: format!("L({x}) == L({y}) == {}", show_point(&vx)),
    }))
}

pub(crate) fn in_bounds(ctx: &Ctx, f: &Func, bound: &SymInt) -> PResult<Verdict> {
    let e = f.lower()?;
    let size = f.size()?;
    let (r, mut q, n) = over_domain(ctx, &e, &size, &[bound], &[])?;
    let hi = q.sym(bound)?;
    let zero = q.konst(0);
    let x = q.index("x", &zero, &n)?;
    let fx = q.apply_offset(&e, &x, r)?;
    q.assert(&Bool::or(&[fx.lt(&zero)?, hi.le(&fx)?]));
    finish(ctx, &q, |ps, idx| recheck_in_bounds(f, bound, ps, idx))
}

/// Re-checks an index `x` (in `idx`) of `f` whose value leaves `[0, bound)`, by evaluation.
pub(crate) fn recheck_in_bounds(
    f: &Func,
    bound: &SymInt,
    ps: &Vals,
    idx: &Vals,
) -> PResult<Option<Counterexample>> {
    let c = f.at(ps)?;
    let x = get(idx, "x")?;
    if x < 0 || x >= c.size()? {
        return Ok(None);
    }
    let v = c.offset(x)?;
    let hi = bound.eval(ps)?;
    if (0..hi).contains(&v) {
        return Ok(None);
    }
    Ok(Some(Counterexample {
        params: vec![],
        witnesses: vec![witness("x", &c, x)?],
        summary: format!("L({x}) = {v} is outside [0, {hi})"),
    }))
}

pub(crate) fn equal(ctx: &Ctx, a: &Func, b: &Func) -> PResult<Verdict> {
    let (sa, sb) = (a.size()?, b.size()?);
    if sa != sb {
        // Sizes as functions of the parameters: find parameters where they differ.
        let scope = Scope {
            syms: vec![&sa, &sb],
            ..Scope::default()
        };
        let mut q = Query::new(ctx.facts.clone(), &scope, ctx.deadline)?;
        let (x, y) = (q.sym(&sa)?, q.sym(&sb)?);
        q.assert(&x.eq(&y)?.not());
        let v = finish(ctx, &q, |ps, _| {
            let (x, y) = (sa.eval(ps)?, sb.eval(ps)?);
            Ok((x != y).then(|| Counterexample {
                params: vec![],
                witnesses: vec![],
                summary: format!("size(A) = {x} but size(B) = {y}"),
            }))
        })?;
        if v != Verdict::Proved {
            return Ok(v);
        }
    }
    let (ea, eb) = (a.lower()?, b.lower()?);
    let r = below(&ctx.facts, &sa);
    let scope = Scope {
        apps: vec![(&ea, r), (&eb, r)],
        syms: vec![&sa],
        extra: vec![past_end(r)],
        quantified: false,
        prefer_int: false,
        exprs: Vec::new(),
    };
    let mut q = Query::new(ctx.facts.clone(), &scope, ctx.deadline)?;
    let n = q.sym(&sa)?;
    let zero = q.konst(0);
    let x = q.index("x", &zero, &n)?;
    let fa = q.apply(&ea, &x, r)?;
    let fb = q.apply(&eb, &x, r)?;
    q.assert(&points_equal(&q, &fa, &fb)?.not());
    finish(ctx, &q, |ps, idx| recheck_equal(a, b, ps, idx))
}

/// Re-checks an index `x` (in `idx`) where `a` and `b` differ, by evaluation.
pub(crate) fn recheck_equal(a: &Func, b: &Func, ps: &Vals, idx: &Vals) -> PResult<Option<Counterexample>> {
    let (ca, cb) = (a.at(ps)?, b.at(ps)?);
    let x = get(idx, "x")?;
    let (va, vb) = (ca.eval(x)?, cb.eval(x)?);
    if x >= ca.size()? || same_point(&va, &vb) {
        return Ok(None);
    }
    Ok(Some(Counterexample {
        params: vec![],
        witnesses: vec![witness("A at x", &ca, x)?, witness("B at x", &cb, x)?],
        summary: format!("A({x}) = {} but B({x}) = {}", show_point(&va), show_point(&vb)),
    }))
}

/// `outer(inner(x)) == x` for `x < size(inner)`.
pub(crate) fn inverse(ctx: &Ctx, inner: &Func, outer: &Func, what: &str) -> PResult<Verdict> {
    let (ei, eo) = (inner.lower()?, outer.lower()?);
    let size = inner.size()?;
    let r = below(&ctx.facts, &size);
    let ir = output_range(&ctx.facts, &ei, r)?;
    let scope = Scope {
        apps: vec![(&ei, r), (&eo, ir)],
        syms: vec![&size],
        extra: vec![past_end(r)],
        quantified: false,
        prefer_int: false,
        exprs: Vec::new(),
    };
    let mut q = Query::new(ctx.facts.clone(), &scope, ctx.deadline)?;
    let n = q.sym(&size)?;
    let zero = q.konst(0);
    let x = q.index("x", &zero, &n)?;
    let fx = q.apply_offset(&ei, &x, r)?;
    let gfx = q.apply_offset(&eo, &fx, ir)?;
    let mut fails = vec![gfx.eq(&x)?.not()];
    if outer.partial() {
        // No value there: the inverse does not hold.
        fails.push(fx.lt(&zero)?);
    }
    q.assert(&Bool::or(&fails));
    finish(ctx, &q, |ps, idx| recheck_inverse(inner, outer, what, ps, idx))
}

/// Re-checks an index `x` (in `idx`) where `outer(inner(x)) != x`, by evaluation.
pub(crate) fn recheck_inverse(
    inner: &Func,
    outer: &Func,
    what: &str,
    ps: &Vals,
    idx: &Vals,
) -> PResult<Option<Counterexample>> {
    let (ci, co) = (inner.at(ps)?, outer.at(ps)?);
    let x = get(idx, "x")?;
    if x < 0 || x >= ci.size()? {
        return Ok(None);
    }
    let fx = ci.offset(x)?;
    if !co.has_index(fx) {
        return Ok(Some(Counterexample {
            params: vec![],
            witnesses: vec![witness("x", &ci, x)?],
            summary: format!(
                "{what} is undefined for x = {x}: the inner value {fx} is no index of an F2 layout"
            ),
        }));
    }
    let back = co.offset(fx)?;
    if back == x {
        return Ok(None);
    }
    Ok(Some(Counterexample {
        params: vec![],
        witnesses: vec![witness("x", &ci, x)?],
        summary: format!("{what} = {back} for x = {x} (the inner value is {fx})"),
    }))
}

pub(crate) fn composition_valid(ctx: &Ctx, a: &Func, b: &Func, r: &Func) -> PResult<Verdict> {
    if !shape::compatible(b.shape(), r.shape())? {
        return Ok(refuted_without_witness(format!(
            "shape {} of B does not coarsen shape {} of R",
            b.shape(),
            r.shape()
        )));
    }
    let (eb, ea, er) = (b.lower()?, a.lower()?, r.lower()?);
    let size = b.size()?;
    let rr = below(&ctx.facts, &size);
    let br = output_range(&ctx.facts, &eb, rr)?;
    let scope = Scope {
        apps: vec![(&eb, rr), (&er, rr), (&ea, br)],
        syms: vec![&size],
        extra: vec![past_end(rr)],
        quantified: false,
        prefer_int: false,
        exprs: Vec::new(),
    };
    let mut q = Query::new(ctx.facts.clone(), &scope, ctx.deadline)?;
    let n = q.sym(&size)?;
    let zero = q.konst(0);
    let i = q.index("i", &zero, &n)?;
    let bi = q.apply_offset(&eb, &i, rr)?;
    let abi = q.apply(&ea, &bi, br)?;
    let ri = q.apply(&er, &i, rr)?;
    let mut fails = vec![points_equal(&q, &abi, &ri)?.not()];
    if a.partial() {
        // No value there: the composition does not hold.
        fails.push(bi.lt(&zero)?);
    }
    q.assert(&Bool::or(&fails));
    finish(ctx, &q, |ps, idx| recheck_composition(a, b, r, ps, idx))
}

/// Re-checks an index `i` (in `idx`) where `R(i) != A(B(i))`, by evaluation.
pub(crate) fn recheck_composition(
    a: &Func,
    b: &Func,
    r: &Func,
    ps: &Vals,
    idx: &Vals,
) -> PResult<Option<Counterexample>> {
    let (ca, cb, cr) = (a.at(ps)?, b.at(ps)?, r.at(ps)?);
    let i = get(idx, "i")?;
    if i < 0 || i >= cb.size()? {
        return Ok(None);
    }
    let bi = cb.offset(i)?;
    if !ca.has_index(bi) {
        return Ok(Some(Counterexample {
            params: vec![],
            witnesses: vec![witness("i", &cr, i)?],
            summary: format!("A(B({i})) is undefined: B({i}) = {bi} is no index of an F2 layout"),
        }));
    }
    let (want, got) = (ca.eval(bi)?, cr.eval(i)?);
    if same_point(&want, &got) {
        return Ok(None);
    }
    Ok(Some(Counterexample {
        params: vec![],
        witnesses: vec![witness("i", &cr, i)?],
        summary: format!(
            "R({i}) = {} but A(B({i})) = A({bi}) = {}",
            show_point(&got),
            show_point(&want)
        ),
    }))
}

pub(crate) fn contiguous(ctx: &Ctx, f: &Func) -> PResult<Verdict> {
    let e = f.lower()?;
    let size = f.size()?;
    let (r, mut q, n) = over_domain(ctx, &e, &size, &[], &[])?;
    let one = q.konst(1);
    let zero = q.konst(0);
    let i = q.index("i", &one, &n)?;
    let f0 = q.apply_offset(&e, &zero, r)?;
    let fi = q.apply_offset(&e, &i, r)?;
    q.assert(&fi.eq(&f0.add(&i)?)?.not());
    finish(ctx, &q, |ps, idx| recheck_contiguous(f, ps, idx))
}

/// Re-checks an index `i` (in `idx`) where `L(i) != L(0) + i`, by evaluation.
pub(crate) fn recheck_contiguous(f: &Func, ps: &Vals, idx: &Vals) -> PResult<Option<Counterexample>> {
    let c = f.at(ps)?;
    let i = get(idx, "i")?;
    if i < 1 || i >= c.size()? {
        return Ok(None);
    }
    let (a, b) = (c.offset(0)?, c.offset(i)?);
    if a.checked_add(i) == Some(b) {
        return Ok(None);
    }
    Ok(Some(Counterexample {
        params: vec![],
        witnesses: vec![witness("0", &c, 0)?, witness("i", &c, i)?],
        summary: format!("L({i}) = {b}, not L(0) + {i} = {}", i128::from(a) + i128::from(i)),
    }))
}

pub(crate) fn vectorizable(ctx: &Ctx, f: &Func, v: i64) -> PResult<Verdict> {
    let size = f.size()?;
    match SymInt::lit(v).divides(&size) {
        Ok(true) => {}
        Ok(false) => {
            return Ok(refuted_without_witness(format!(
                "size {size} is not a multiple of {v}"
            )));
        }
        // The facts do not decide it: ask for parameters where it fails.
        Err(_) => {
            let scope = Scope {
                syms: vec![&size],
                extra: vec![v as i128],
                ..Scope::default()
            };
            let mut q = Query::new(ctx.facts.clone(), &scope, ctx.deadline)?;
            let n = q.sym(&size)?;
            let (_, rem) = q.divmod(&n, &q.konst(v), true)?;
            q.assert(&rem.eq(&q.konst(0))?.not());
            let verdict = finish(ctx, &q, |ps, _| {
                let n = size.eval(ps)?;
                Ok((n % v != 0).then(|| Counterexample {
                    params: vec![],
                    witnesses: vec![],
                    summary: format!("size {n} is not a multiple of {v}"),
                }))
            })?;
            if verdict != Verdict::Proved {
                return Ok(verdict);
            }
        }
    }
    let e = f.lower()?;
    let (r, mut q, n) = over_domain(ctx, &e, &size, &[], &[v as i128])?;
    let (zero, vv) = (q.konst(0), q.konst(v));
    let runs = q.divmod(&n, &vv, true)?.0;
    let b = q.index("run", &zero, &runs)?;
    let j = q.index("j", &zero, &vv)?;
    let base = b.mul(&vv)?;
    let fb = q.apply_offset(&e, &base, r)?;
    let fi = q.apply_offset(&e, &base.add(&j)?, r)?;
    let (_, rem) = q.divmod(&fb, &vv, false)?;
    q.assert(&Bool::or(&[rem.eq(&zero)?.not(), fi.eq(&fb.add(&j)?)?.not()]));
    finish(ctx, &q, |ps, idx| {
        let c = f.at(ps)?;
        let (b, j) = (get(idx, "run")?, get(idx, "j")?);
        let base = b
            .checked_mul(v)
            .ok_or_else(|| ProveError::internal("run start"))?;
        if j < 0 || j >= v || base < 0 || base + j >= c.size()? {
            return Ok(None);
        }
        let (x, y) = (c.offset(base)?, c.offset(base + j)?);
        if x.rem_euclid(v) == 0 && x.checked_add(j) == Some(y) {
            return Ok(None);
        }
        let why = if x.rem_euclid(v) != 0 {
            format!("L({base}) = {x} is not a multiple of {v}")
        } else {
            format!(
                "L({}) = {y}, not L({base}) + {j} = {}",
                base + j,
                i128::from(x) + i128::from(j)
            )
        };
        Ok(Some(Counterexample {
            params: vec![],
            witnesses: vec![witness("run start", &c, base)?],
            summary: why,
        }))
    })
}
