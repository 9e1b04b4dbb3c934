//! The properties Tessera proves, and their z3 queries.
//!
//! Each property is refuted by a witness: the query asks z3 for one. `unsat` means proved;
//! `sat` gives parameter values and indices, which are re-checked by evaluating the layouts
//! directly before the counterexample is reported; `unknown` carries z3's reason.

use crate::bank::{self, Bank, Cmp};
use crate::func::{Concrete, Func, same_point, show_point};
use crate::query::{Outcome, Query, facts_of, output_range, points_equal, sym_range};
use crate::verdict::{Counterexample, Verdict, Witness};
use std::collections::HashMap;
use std::sync::Arc;
use tessera_ir::sym::{Facts, SymInt};
use tessera_ir::{Error, HTuple, Int, Result, shape};
use z3::ast::Bool;

/// A property of layouts.
///
/// One value per assertion, never stored in bulk, so the size of the largest variant (three
/// layouts) does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Property {
    /// Distinct indices reach distinct values.
    Injective(Func),
    /// Every value in `[0, n)` is reached (`n` defaults to the size).
    Surjective(Func, Option<SymInt>),
    /// A bijection of `[0, size)` onto itself.
    Bijective(Func),
    /// Every value lies in `[0, n)`.
    InBounds(Func, SymInt),
    /// Equal as functions: same size, same value at every index.
    Equal(Func, Func),
    /// `compatible(shape(A), shape(B))`.
    Compatible(HTuple<SymInt>, HTuple<SymInt>),
    /// `R(L(i)) == i` for every `i < size(L)`.
    LeftInverseValid(Func, Func),
    /// `L(R(k)) == k` for every `k < size(R)`.
    RightInverseValid(Func, Func),
    /// `C` is ordered, disjoint from `A` past `C(0)`, and `(A, C)` reaches all of `[0, n)`.
    ComplementValid(Func, Func, Option<SymInt>),
    /// `compatible(B, R)` and `R(i) == A(B(i))` for every `i < size(B)`.
    CompositionValid(Func, Func, Func),
    /// `L(i) == L(0) + i` for every `i`.
    Contiguous(Func),
    /// Every aligned run of `v` indices reaches `v` consecutive offsets starting at a
    /// multiple of `v`.
    Vectorizable(Func, i64),
    /// One wavefront per phase for every warp instruction.
    BankConflictFree(Bank),
    /// The worst phase's wavefront count compared with a number.
    ConflictDegree(Bank, Cmp, i64),
}

/// Options of a proof.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// z3's time limit per query, in milliseconds.
    pub timeout_ms: Option<u64>,
}

/// The layouts a property talks about.
pub(crate) fn funcs(p: &Property) -> Vec<&Func> {
    match p {
        Property::Injective(f)
        | Property::Surjective(f, _)
        | Property::Bijective(f)
        | Property::InBounds(f, _)
        | Property::Contiguous(f)
        | Property::Vectorizable(f, _) => vec![f],
        Property::Equal(a, b) | Property::LeftInverseValid(a, b) | Property::RightInverseValid(a, b) => {
            vec![a, b]
        }
        Property::ComplementValid(a, c, _) => vec![a, c],
        Property::CompositionValid(a, b, r) => vec![a, b, r],
        Property::Compatible(..) | Property::BankConflictFree(_) | Property::ConflictDegree(..) => vec![],
    }
}

/// The facts of the parameters the property's layouts mention.
pub fn facts(p: &Property) -> Arc<Facts> {
    let mut syms: Vec<SymInt> = Vec::new();
    for f in funcs(p) {
        syms.extend(f.shape().leaves().iter().cloned());
        if let Ok(s) = f.size() {
            syms.push(s);
        }
        if let Func::Layout(l) = f {
            syms.extend(l.flat_stride().iter().filter_map(|d| d.as_int().cloned()));
        }
    }
    match p {
        Property::Surjective(_, Some(n))
        | Property::InBounds(_, n)
        | Property::ComplementValid(_, _, Some(n)) => syms.push(n.clone()),
        Property::Compatible(a, b) => syms.extend(a.leaves().iter().chain(b.leaves()).cloned()),
        _ => {}
    }
    facts_of(syms.iter())
}

/// Proves or refutes a property with z3.
pub fn prove(p: &Property, opts: &Options) -> Verdict {
    match prove_inner(p, opts) {
        Ok(v) => v,
        Err(Error::Undecided { op, cond }) => Verdict::Unknown(format!("{op} needs {cond}")),
        Err(e @ Error::Invalid(_)) if e.to_string().starts_with("internal") => {
            Verdict::Internal(e.to_string())
        }
        Err(e) => Verdict::Unknown(e.to_string()),
    }
}

/// The value range of an index below `size`.
fn below(facts: &Facts, size: &SymInt) -> (i128, i128) {
    (0, (sym_range(facts, size).1 - 1).max(0))
}

/// Runs a query; on `sat`, builds and re-checks the counterexample.
fn finish(
    q: &Query,
    recheck: impl FnOnce(&HashMap<String, i64>, &HashMap<String, i64>) -> Result<Option<Counterexample>>,
) -> Result<Verdict> {
    match q.solve() {
        Outcome::Unsat => Ok(Verdict::Proved),
        Outcome::Unknown(r) => Ok(Verdict::Unknown(format!("z3: {r}"))),
        Outcome::Sat(m) => {
            let params = q.model_params(&m);
            let idx: HashMap<String, i64> = q.model_indices(&m).into_iter().collect();
            match recheck(&params, &idx)? {
                Some(mut c) => {
                    let mut ps: Vec<(String, i64)> = params.into_iter().collect();
                    ps.sort();
                    c.params = ps;
                    Ok(Verdict::Refuted(c))
                }
                None => Ok(Verdict::Internal(format!(
                    "z3's counterexample does not reproduce (params {params:?}, indices {idx:?})"
                ))),
            }
        }
    }
}

fn get(idx: &HashMap<String, i64>, k: &str) -> Result<i64> {
    idx.get(k)
        .copied()
        .ok_or_else(|| Error::invalid(format!("internal: no value for {k}")))
}

/// A witness at index `i` of a concrete function.
pub fn witness(name: &str, f: &Concrete, i: i64) -> Result<Witness> {
    Ok(Witness {
        name: name.into(),
        index: i,
        coord: f.coord(i),
        value: show_point(&f.eval(i)?),
    })
}

fn prove_inner(p: &Property, opts: &Options) -> Result<Verdict> {
    let facts = facts(p);
    let t = opts.timeout_ms;
    match p {
        Property::Injective(f) => {
            let e = f.lower()?;
            let size = f.size()?;
            let r = below(&facts, &size);
            let mut q = Query::new(facts.clone(), &[(&e, r)], &[r.1 + 1], t)?;
            let n = q.sym(&size)?;
            let zero = q.konst(0);
            let x = q.index("x", &zero, &n)?;
            let y = q.index("y", &zero, &n)?;
            q.assert(&x.lt(&y)?);
            let fx = q.apply(&e, &x, r)?;
            let fy = q.apply(&e, &y, r)?;
            q.assert(&points_equal(&q, &fx, &fy)?);
            finish(&q, |ps, idx| {
                let c = f.at(ps)?;
                let (x, y) = (get(idx, "x")?, get(idx, "y")?);
                let n = c.size()?;
                let (vx, vy) = (c.eval(x)?, c.eval(y)?);
                if x == y || x >= n || y >= n || !same_point(&vx, &vy) {
                    return Ok(None);
                }
                Ok(Some(Counterexample {
                    params: vec![],
                    witnesses: vec![witness("x", &c, x)?, witness("y", &c, y)?],
                    summary: format!("L({x}) == L({y}) == {}", show_point(&vx)),
                }))
            })
        }
        Property::InBounds(f, n) => in_bounds(&facts, f, n, t),
        Property::Bijective(f) => {
            let v = prove_inner(&Property::Injective(f.clone()), opts)?;
            if v != Verdict::Proved {
                return Ok(v);
            }
            // Injective into [0, size) with size elements: onto, by pigeonhole.
            in_bounds(&facts, f, &f.size()?, t)
        }
        Property::Surjective(f, n) => surjective(&facts, f, n.as_ref(), t),
        Property::Equal(a, b) => equal(&facts, a, b, t),
        Property::Compatible(a, b) => Ok(match shape::compatible(a, b)? {
            true => Verdict::Proved,
            false => Verdict::Refuted(Counterexample {
                params: vec![],
                witnesses: vec![],
                summary: format!("{a} does not coarsen {b}"),
            }),
        }),
        Property::LeftInverseValid(l, r) => inverse(&facts, l, r, t, "R(L(x))"),
        Property::RightInverseValid(l, r) => inverse(&facts, r, l, t, "L(R(x))"),
        Property::ComplementValid(a, c, n) => complement_valid(&facts, a, c, n.as_ref(), t),
        Property::CompositionValid(a, b, r) => {
            if !shape::compatible(b.shape(), r.shape())? {
                return Ok(Verdict::Refuted(Counterexample {
                    params: vec![],
                    witnesses: vec![],
                    summary: format!(
                        "shape {} of B does not coarsen shape {} of R",
                        b.shape(),
                        r.shape()
                    ),
                }));
            }
            let (eb, ea, er) = (b.lower()?, a.lower()?, r.lower()?);
            let size = b.size()?;
            let rr = below(&facts, &size);
            let br = output_range(&facts, &eb, rr);
            let mut q = Query::new(facts.clone(), &[(&eb, rr), (&er, rr), (&ea, br)], &[rr.1 + 1], t)?;
            let n = q.sym(&size)?;
            let zero = q.konst(0);
            let i = q.index("i", &zero, &n)?;
            let bi = q.apply_offset(&eb, &i, rr)?;
            let abi = q.apply(&ea, &bi, br)?;
            let ri = q.apply(&er, &i, rr)?;
            q.assert(&points_equal(&q, &abi, &ri)?.not());
            finish(&q, |ps, idx| {
                let (ca, cb, cr) = (a.at(ps)?, b.at(ps)?, r.at(ps)?);
                let i = get(idx, "i")?;
                let bi = cb.offset(i)?;
                let (want, got) = (ca.eval(bi)?, cr.eval(i)?);
                if i >= cb.size()? || same_point(&want, &got) {
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
            })
        }
        Property::Contiguous(f) => {
            let e = f.lower()?;
            let size = f.size()?;
            let r = below(&facts, &size);
            let mut q = Query::new(facts.clone(), &[(&e, r)], &[r.1 + 1], t)?;
            let n = q.sym(&size)?;
            let one = q.konst(1);
            let zero = q.konst(0);
            let i = q.index("i", &one, &n)?;
            let f0 = q.apply_offset(&e, &zero, r)?;
            let fi = q.apply_offset(&e, &i, r)?;
            q.assert(&fi.eq(&f0.add(&i)?)?.not());
            finish(&q, |ps, idx| {
                let c = f.at(ps)?;
                let i = get(idx, "i")?;
                let (a, b) = (c.offset(0)?, c.offset(i)?);
                if i < 1 || i >= c.size()? || b == a + i {
                    return Ok(None);
                }
                Ok(Some(Counterexample {
                    params: vec![],
                    witnesses: vec![witness("0", &c, 0)?, witness("i", &c, i)?],
                    summary: format!("L({i}) = {b}, not L(0) + {i} = {}", a + i),
                }))
            })
        }
        Property::Vectorizable(f, v) => vectorizable(&facts, f, *v, t),
        Property::BankConflictFree(b) => bank::prove_conflict_free(b, t),
        Property::ConflictDegree(b, cmp, n) => bank::degree_verdict(b, *cmp, *n),
    }
}

fn in_bounds(facts: &Arc<Facts>, f: &Func, bound: &SymInt, t: Option<u64>) -> Result<Verdict> {
    let e = f.lower()?;
    let size = f.size()?;
    let r = below(facts, &size);
    let nb = sym_range(facts, bound).1;
    let mut q = Query::new(facts.clone(), &[(&e, r)], &[r.1 + 1, nb], t)?;
    let n = q.sym(&size)?;
    let hi = q.sym(bound)?;
    let zero = q.konst(0);
    let x = q.index("x", &zero, &n)?;
    let fx = q.apply_offset(&e, &x, r)?;
    q.assert(&Bool::or(&[fx.lt(&zero)?, hi.le(&fx)?]));
    finish(&q, |ps, idx| {
        let c = f.at(ps)?;
        let x = get(idx, "x")?;
        let v = c.offset(x)?;
        let hi = bound.eval(ps)?;
        if x >= c.size()? || (0..hi).contains(&v) {
            return Ok(None);
        }
        Ok(Some(Counterexample {
            params: vec![],
            witnesses: vec![witness("x", &c, x)?],
            summary: format!("L({x}) = {v} is outside [0, {hi})"),
        }))
    })
}

fn surjective(facts: &Arc<Facts>, f: &Func, n: Option<&SymInt>, t: Option<u64>) -> Result<Verdict> {
    let e = f.lower()?;
    let size = f.size()?;
    let target = n.cloned().unwrap_or_else(|| size.clone());
    let r = below(facts, &size);
    let nt = sym_range(facts, &target).1;
    let mut q = Query::new_quantified(facts.clone(), &[(&e, r)], &[r.1 + 1, nt], t)?;
    let sz = q.sym(&size)?;
    let hi = q.sym(&target)?;
    let zero = q.konst(0);
    let k = q.index("k", &zero, &hi)?;
    // No index reaches k: for all x in [0, size), L(x) != k.
    let x = crate::encode::Term::var(q.mode(), "x!forall");
    let fx = q.apply_offset(&e, &x, r)?;
    let body = Bool::and(&[zero.le(&x)?, x.lt(&sz)?]).implies(fx.eq(&k)?.not());
    let bound = x.as_ast();
    q.assert(&z3::ast::forall_const(&[bound], &[], &body));
    finish(&q, |ps, idx| {
        let c = f.at(ps)?;
        let k = get(idx, "k")?;
        let n = c.size()?;
        if n > 1 << 26 {
            return Err(Error::invalid("counterexample too large to re-check"));
        }
        for x in 0..n {
            if c.offset(x)? == k {
                return Ok(None);
            }
        }
        Ok(Some(Counterexample {
            params: vec![],
            witnesses: vec![],
            summary: format!("no index reaches {k}"),
        }))
    })
}

fn equal(facts: &Arc<Facts>, a: &Func, b: &Func, t: Option<u64>) -> Result<Verdict> {
    let (sa, sb) = (a.size()?, b.size()?);
    if sa != sb {
        // Sizes as functions of the parameters: find parameters where they differ.
        let mut q = Query::new(
            facts.clone(),
            &[],
            &[sym_range(facts, &sa).1, sym_range(facts, &sb).1],
            t,
        )?;
        let (x, y) = (q.sym(&sa)?, q.sym(&sb)?);
        q.assert(&x.eq(&y)?.not());
        let v = finish(&q, |ps, _| {
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
    let r = below(facts, &sa);
    let mut q = Query::new(facts.clone(), &[(&ea, r), (&eb, r)], &[r.1 + 1], t)?;
    let n = q.sym(&sa)?;
    let zero = q.konst(0);
    let x = q.index("x", &zero, &n)?;
    let fa = q.apply(&ea, &x, r)?;
    let fb = q.apply(&eb, &x, r)?;
    q.assert(&points_equal(&q, &fa, &fb)?.not());
    finish(&q, |ps, idx| {
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
    })
}

/// `outer(inner(x)) == x` for `x < size(inner)`.
fn inverse(facts: &Arc<Facts>, inner: &Func, outer: &Func, t: Option<u64>, what: &str) -> Result<Verdict> {
    let (ei, eo) = (inner.lower()?, outer.lower()?);
    let size = inner.size()?;
    let r = below(facts, &size);
    let ir = output_range(facts, &ei, r);
    let mut q = Query::new(facts.clone(), &[(&ei, r), (&eo, ir)], &[r.1 + 1], t)?;
    let n = q.sym(&size)?;
    let zero = q.konst(0);
    let x = q.index("x", &zero, &n)?;
    let fx = q.apply_offset(&ei, &x, r)?;
    let gfx = q.apply_offset(&eo, &fx, ir)?;
    q.assert(&gfx.eq(&x)?.not());
    finish(&q, |ps, idx| {
        let (ci, co) = (inner.at(ps)?, outer.at(ps)?);
        let x = get(idx, "x")?;
        let fx = ci.offset(x)?;
        let back = co.offset(fx)?;
        if x >= ci.size()? || back == x {
            return Ok(None);
        }
        Ok(Some(Counterexample {
            params: vec![],
            witnesses: vec![witness("x", &ci, x)?],
            summary: format!("{what} = {back} for x = {x} (the inner value is {fx})"),
        }))
    })
}

fn complement_valid(
    facts: &Arc<Facts>,
    a: &Func,
    c: &Func,
    n: Option<&SymInt>,
    t: Option<u64>,
) -> Result<Verdict> {
    let (ea, ec) = (a.lower()?, c.lower()?);
    let (sa, sc) = (a.size()?, c.size()?);
    let (ra, rc) = (below(facts, &sa), below(facts, &sc));
    // Ordered: C(i-1) < C(i).
    {
        let mut q = Query::new(facts.clone(), &[(&ec, rc)], &[rc.1 + 1], t)?;
        let n = q.sym(&sc)?;
        let one = q.konst(1);
        let i = q.index("i", &one, &n)?;
        let prev = q.apply_offset(&ec, &i.sub(&one)?, rc)?;
        let cur = q.apply_offset(&ec, &i, rc)?;
        q.assert(&cur.le(&prev)?);
        let v = finish(&q, |ps, idx| {
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
        let mut q = Query::new(facts.clone(), &[(&ec, rc), (&ea, ra)], &[rc.1 + 1, ra.1 + 1], t)?;
        let (nc, na) = (q.sym(&sc)?, q.sym(&sa)?);
        let (zero, one) = (q.konst(0), q.konst(1));
        let i = q.index("i", &one, &nc)?;
        let j = q.index("j", &zero, &na)?;
        let ci = q.apply_offset(&ec, &i, rc)?;
        let aj = q.apply_offset(&ea, &j, ra)?;
        q.assert(&ci.eq(&aj)?);
        let v = finish(&q, |ps, idx| {
            let (ca, cc) = (a.at(ps)?, c.at(ps)?);
            let (i, j) = (get(idx, "i")?, get(idx, "j")?);
            let (x, y) = (cc.offset(i)?, ca.offset(j)?);
            Ok((i >= 1 && x == y).then(|| Counterexample {
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
    let nt = sym_range(facts, n).1;
    let mut q = Query::new_quantified(
        facts.clone(),
        &[(&ec, rc), (&ea, ra)],
        &[rc.1 + 1, ra.1 + 1, nt],
        t,
    )?;
    let (nc, na, hi) = (q.sym(&sc)?, q.sym(&sa)?, q.sym(n)?);
    let zero = q.konst(0);
    let k = q.index("k", &zero, &hi)?;
    let (i, j) = (
        crate::encode::Term::var(q.mode(), "i!forall"),
        crate::encode::Term::var(q.mode(), "j!forall"),
    );
    let ci = q.apply_offset(&ec, &i, rc)?;
    let aj = q.apply_offset(&ea, &j, ra)?;
    let inside = Bool::and(&[zero.le(&i)?, i.lt(&nc)?, zero.le(&j)?, j.lt(&na)?]);
    let body = inside.implies(ci.add(&aj)?.eq(&k)?.not());
    let bi = i.as_ast();
    let bj = j.as_ast();
    q.assert(&z3::ast::forall_const(&[bi, bj], &[], &body));
    finish(&q, |ps, idx| {
        let (ca, cc) = (a.at(ps)?, c.at(ps)?);
        let k = get(idx, "k")?;
        let (na, nc) = (ca.size()?, cc.size()?);
        if na.saturating_mul(nc) > 1 << 26 {
            return Err(Error::invalid("counterexample too large to re-check"));
        }
        for j in 0..na {
            let aj = ca.offset(j)?;
            for i in 0..nc {
                if aj + cc.offset(i)? == k {
                    return Ok(None);
                }
            }
        }
        Ok(Some(Counterexample {
            params: vec![],
            witnesses: vec![],
            summary: format!("(A, C) never reaches {k}"),
        }))
    })
}

fn vectorizable(facts: &Arc<Facts>, f: &Func, v: i64, t: Option<u64>) -> Result<Verdict> {
    if v < 1 {
        return Err(Error::invalid(format!("vectorizable: width {v} is not positive")));
    }
    let size = f.size()?;
    if !SymInt::lit(v).divides(&size)? {
        return Ok(Verdict::Refuted(Counterexample {
            params: vec![],
            witnesses: vec![],
            summary: format!("size {size} is not a multiple of {v}"),
        }));
    }
    let e = f.lower()?;
    let r = below(facts, &size);
    let mut q = Query::new(facts.clone(), &[(&e, r)], &[r.1 + 1, v as i128], t)?;
    let n = q.sym(&size)?;
    let (zero, vv) = (q.konst(0), q.konst(v));
    let runs = q.divmod(&n, &vv, true)?.0;
    let b = q.index("run", &zero, &runs)?;
    let j = q.index("j", &zero, &vv)?;
    let base = b.mul(&vv)?;
    let fb = q.apply_offset(&e, &base, r)?;
    let fi = q.apply_offset(&e, &base.add(&j)?, r)?;
    let (_, rem) = q.divmod(&fb, &vv, false)?;
    q.assert(&Bool::or(&[rem.eq(&zero)?.not(), fi.eq(&fb.add(&j)?)?.not()]));
    finish(&q, |ps, idx| {
        let c = f.at(ps)?;
        let (b, j) = (get(idx, "run")?, get(idx, "j")?);
        let base = b * v;
        let (x, y) = (c.offset(base)?, c.offset(base + j)?);
        if base + j >= c.size()? || (x.rem_euclid(v) == 0 && y == x + j) {
            return Ok(None);
        }
        let why = if x.rem_euclid(v) != 0 {
            format!("L({base}) = {x} is not a multiple of {v}")
        } else {
            format!("L({}) = {y}, not L({base}) + {j} = {}", base + j, x + j)
        };
        Ok(Some(Counterexample {
            params: vec![],
            witnesses: vec![witness("run start", &c, base)?],
            summary: why,
        }))
    })
}
