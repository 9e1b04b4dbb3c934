//! Bank questions over parameters: `bank_conflict_free` and `conflict_degree OP n` with
//! symbolic extents, strides, padding (`(32,N):(N+1,1)`) and value counts.
//!
//! The verdict holds for every parameter value the facts admit: `conflict_degree(...) OP n`
//! means `OP(degree(v), n)` at every admitted valuation `v`, and `bank_conflict_free` is
//! `conflict_degree <= 1`. The number of threads (the size of the thread-value layout's mode
//! 0) must be concrete, the threads of a warp instruction: a symbolic one is bad input. The
//! number of values per thread may be symbolic (a symbolic tile count).
//!
//! Two complete methods, and the choice between them:
//!
//! * **Enumeration** ([`crate::Engine::Enumeration`]): when every parameter is bounded, the
//!   admitted valuations number at most [`ENUM_VALUATIONS`] and their accesses together
//!   (valuations times accesses) at most [`ENUM_WORK`], the exact analysis
//!   ([`crate::analyze`]) runs at each valuation; it is faster than z3 on such domains. When
//!   they are bounded but more (at most [`EVERY_VALUATIONS`] valuations, [`FALLBACK_WORK`]
//!   accesses), z3 gets a share of the work counted from the enumeration's size
//!   ([`Z3_SHARE_MS`], as z3's deterministic resource count) and, should it give up,
//!   enumeration follows.
//! * **z3** ([`crate::Engine::Z3`]), otherwise: the parameters are variables of the query
//!   (bit-vectors when all are bounded, integers otherwise: [`crate::query`]). First the
//!   accesses are checked well-formed for every valuation (the values count a multiple of the
//!   values per access; each access contiguous and aligned): a `sat` names parameter values
//!   and an access, re-checked by direct evaluation, and the question is bad input there.
//!   Then `degree <= n` is the `unsat` of `n+1` threads `t0 < ... < tn` of one phase, one
//!   access `c` below the values count, and words `j_i` of their accesses, pairwise distinct
//!   and all in one bank. A `sat` is a refutation; its parameter values are checked against
//!   every fact and the phase is re-evaluated directly at them ([`crate::context::confirm`]).
//!
//! `>=`, `>` (and the lower half of `==`) need the degree reached at every admitted value, a
//! question with a universal quantifier over the threads: it is decided by enumeration when
//! the valuations are bounded and at most [`EVERY_VALUATIONS`] (whatever engine was asked);
//! otherwise a few sample valuations may refute it, and else the verdict is `unknown` with
//! the reason. Every query and enumeration obeys the deadline: a timeout is `unknown`.

use crate::bank::{
    self, Analysis, Bank, Cmp, Geometry, analyze_at, byte_in_word, conflict_witnesses, describe, is_symbolic,
    mode_size, params, phase_cost, shape_at, threads_of, wavefront,
};
use crate::context::{Ctx, Vals, confirm, valuations};
use crate::deadline::Deadline;
use crate::encode::Term;
use crate::engine::Engine;
use crate::error::{PResult, ProveError};
use crate::query::{Outcome, Query, Scope, admitted, output_range};
use crate::verdict::{Counterexample, Verdict};
use std::collections::BTreeSet;
use tessera_ir::index::IndexExpr;
use tessera_ir::sym::{Facts, Interval, SymInt};

/// The most valuations the automatic choice enumerates.
pub const ENUM_VALUATIONS: u64 = 256;
/// The most accesses (threads times values, summed over the valuations) the automatic choice
/// enumerates before it asks z3.
pub const ENUM_WORK: i128 = 1 << 14;
/// The most accesses of a fallback enumeration after z3 gave up (brute force's limit).
pub const FALLBACK_WORK: i128 = crate::DEFAULT_WORK as i128;
/// z3's work before the fallback enumeration, in milliseconds of z3's time counted as its
/// resource units ([`RLIMIT_PER_MS`]): this many, plus [`Z3_US_PER_ACCESS`] microseconds per
/// access the enumeration would visit (about fifty times the exact analysis's cost per access
/// in a release build).
pub const Z3_SHARE_MS: u64 = 100;
/// See [`Z3_SHARE_MS`].
pub const Z3_US_PER_ACCESS: u64 = 1;
/// z3's resource units per millisecond of its time on these bank queries, to turn
/// [`Z3_SHARE_MS`] into a counted limit (`rlimit`). Measured on the bank queries themselves
/// (issue 26's `(32,N):(N,1)` question, 20 valuations, 618,880 accesses): a share of 28.7M
/// units took about 7 s of CPU, about 4,100 units per millisecond (a validation query runs
/// near 40,000, which made the share ten times the intended time).
pub const RLIMIT_PER_MS: u64 = 4_000;
/// The most valuations enumerated to decide `>=`, `>` and `==`.
pub const EVERY_VALUATIONS: u64 = 1 << 12;
/// The most accesses enumerated to decide `>=`, `>` and `==`.
pub const EVERY_WORK: i128 = 1 << 25;

/// `Some` bank question of `p` when it has parameters: this module answers it.
pub(crate) fn question(p: &crate::Property) -> Option<(&Bank, Option<(Cmp, i64)>)> {
    let (b, cmp) = match p {
        crate::Property::BankConflictFree(b) => (b, None),
        crate::Property::ConflictDegree(b, c, n) => (b, Some((*c, *n))),
        _ => return None,
    };
    is_symbolic(b).then_some((b, cmp))
}

/// Answers a bank question with parameters with `engine` (`Auto`: enumeration when cheap,
/// else z3; `Enumeration` forced: every admitted valuation, as brute force visits them),
/// returning the engine that answered.
pub(crate) fn answer(
    b: &Bank,
    cmp: Option<(Cmp, i64)>,
    ctx: &Ctx,
    engine: Engine,
) -> PResult<(Verdict, Engine)> {
    match engine {
        Engine::F2 | Engine::Structural => {
            let why = format!(
                "the {engine} engine decides concrete layouts only: the bank question has parameters"
            );
            Ok((Verdict::Unknown(why), engine))
        }
        Engine::Enumeration => {
            let v = brute(b, cmp, &ctx.facts, crate::DEFAULT_WORK, &ctx.deadline)?;
            Ok((v, Engine::Enumeration))
        }
        Engine::Z3 => by_z3(b, cmp, ctx),
        Engine::Auto => {
            if let Some(vals) = enumerable(b, &ctx.facts, &ctx.params, ENUM_VALUATIONS, ENUM_WORK)? {
                return Ok((by_valuations(b, cmp, &vals, &ctx.deadline)?, Engine::Enumeration));
            }
            let Some(vals) = enumerable(b, &ctx.facts, &ctx.params, EVERY_VALUATIONS, FALLBACK_WORK)? else {
                return by_z3(b, cmp, ctx);
            };
            // Bounded: z3 gets a share of the work (its resource count, not the clock) by the
            // enumeration's size, and enumeration follows if it gives up: the same engine
            // answers on an idle and on a loaded machine.
            let accesses = u64::try_from(accesses(b, &vals)?).unwrap_or(u64::MAX);
            let ms = Z3_SHARE_MS.saturating_add(accesses.saturating_mul(Z3_US_PER_ACCESS) / 1000);
            let units = ms.saturating_mul(RLIMIT_PER_MS).min(u64::from(u32::MAX));
            let part = Ctx {
                rlimit: Some(u32::try_from(units).unwrap_or(u32::MAX)),
                ..ctx.clone()
            };
            match by_z3(b, cmp, &part) {
                Ok((v @ (Verdict::Proved | Verdict::Refuted(_)), e)) => Ok((v, e)),
                Ok((Verdict::Unknown(_), _)) if !ctx.deadline.expired() => {
                    Ok((by_valuations(b, cmp, &vals, &ctx.deadline)?, Engine::Enumeration))
                }
                other => other,
            }
        }
    }
}

/// The admitted valuations of `names` when there are at most `limit` and their accesses
/// number at most `work`; `None` otherwise (an unbounded parameter included).
fn enumerable(
    b: &Bank,
    facts: &Facts,
    names: &BTreeSet<String>,
    limit: u64,
    work: i128,
) -> PResult<Option<Vec<Vals>>> {
    let Ok(vals) = valuations(facts, names, limit) else {
        return Ok(None);
    };
    let (threads, values) = (threads_of(b)?, mode_size(b, 1)?);
    let mut total: i128 = 0;
    for v in &vals {
        let n = values.eval(v).map(i128::from).unwrap_or(i128::MAX);
        total = total.saturating_add(n.saturating_mul(i128::from(threads)));
        if total > work {
            return Ok(None);
        }
    }
    Ok(Some(vals))
}

/// The accesses of the question at every valuation of `vals`, together.
fn accesses(b: &Bank, vals: &[Vals]) -> PResult<i128> {
    let (threads, values) = (threads_of(b)?, mode_size(b, 1)?);
    Ok(vals.iter().fold(0i128, |total, v| {
        let n = values.eval(v).map(i128::from).unwrap_or(i128::MAX);
        total.saturating_add(n.saturating_mul(i128::from(threads)))
    }))
}

/// `name = value, ...` of a valuation, sorted.
fn show(vals: &Vals) -> String {
    let mut ps: Vec<(&String, &i64)> = vals.iter().collect();
    ps.sort();
    ps.iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Bad input at a valuation names it.
fn at_values(e: ProveError, vals: &Vals) -> ProveError {
    match e {
        ProveError::Invalid(m) if !vals.is_empty() => ProveError::Invalid(format!("at {}: {m}", show(vals))),
        e => e,
    }
}

/// Whether the degree satisfies the question (`None`: conflict-free).
fn satisfied(cmp: Option<(Cmp, i64)>, degree: i64) -> bool {
    match cmp {
        None => degree == 1,
        Some((c, n)) => c.holds(degree, n),
    }
}

/// The refutation of the question at `vals`, from the exact analysis there.
fn refutation(cmp: Option<(Cmp, i64)>, vals: &Vals, a: &Analysis) -> Verdict {
    let mut v = match cmp {
        Some((c, n)) => bank::degree_outcome(a, c, n),
        None => Verdict::Refuted(Counterexample {
            params: vec![],
            witnesses: a.conflict.as_ref().map(conflict_witnesses).unwrap_or_default(),
            summary: match &a.conflict {
                Some(c) => describe(c, Some(a.degree)),
                None => format!("{}-way conflict", a.degree),
            },
        }),
    };
    if let Verdict::Refuted(c) = &mut v {
        let mut ps: Vec<(String, i64)> = vals.iter().map(|(k, v)| (k.clone(), *v)).collect();
        ps.sort();
        c.params = ps;
    }
    v
}

/// The question decided by the exact analysis at every valuation of `vals`: bad input at
/// any valuation is bad input (naming it), else the first valuation that fails refutes.
pub(crate) fn by_valuations(
    b: &Bank,
    cmp: Option<(Cmp, i64)>,
    vals: &[Vals],
    deadline: &Deadline,
) -> PResult<Verdict> {
    let mut first: Option<(&Vals, Analysis)> = None;
    for v in vals {
        let a = analyze_at(b, v, deadline).map_err(|e| at_values(e, v))?;
        if first.is_none() && !satisfied(cmp, a.degree) {
            first = Some((v, a));
        }
    }
    Ok(match first {
        None => Verdict::Proved,
        Some((v, a)) => refutation(cmp, v, &a),
    })
}

/// Brute force's answer: every admitted valuation of the question's parameters (at most
/// `work` of them, and, with parameters, at most `work` accesses in all).
pub(crate) fn brute(
    b: &Bank,
    cmp: Option<(Cmp, i64)>,
    facts: &Facts,
    work: u64,
    deadline: &Deadline,
) -> PResult<Verdict> {
    let names = params(b);
    let vals = valuations(facts, &names, work)?;
    if !names.is_empty() && enumerable(b, facts, &names, work, i128::from(work))?.is_none() {
        return Err(ProveError::Unknown("domain too large for brute force".into()));
    }
    by_valuations(b, cmp, &vals, deadline)
}

/// `wavefronts(...) OP n` at every admitted valuation of the question's parameters, by the
/// exact count ([`crate::wavefronts`]) at each: at most [`EVERY_VALUATIONS`] valuations (and
/// `work`) and, with parameters, at most `work` accesses in all (`unknown` past them). The first valuation
/// (in order) whose worst instruction fails refutes, naming that instruction.
pub(crate) fn wavefronts(
    b: &Bank,
    (cmp, n): (Cmp, i64),
    facts: &Facts,
    work: u64,
    deadline: &Deadline,
) -> PResult<Verdict> {
    let names = params(b);
    let limit = work.min(EVERY_VALUATIONS);
    if !names.is_empty() && enumerable(b, facts, &names, limit, i128::from(work))?.is_none() {
        return Ok(Verdict::Unknown(format!(
            "wavefronts over parameters are counted at every admitted valuation: bound the \
             parameters (at most {limit} valuations, {work} accesses in all)"
        )));
    }
    let vals = valuations(facts, &names, limit)?;
    for v in &vals {
        let w = wavefront::wavefronts_at(b, v, deadline).map_err(|e| at_values(e, v))?;
        if !cmp.holds(w.worst, n) {
            let mut ps: Vec<(String, i64)> = v.iter().map(|(k, x)| (k.clone(), *x)).collect();
            ps.sort();
            return Ok(Verdict::Refuted(Counterexample {
                params: ps,
                witnesses: vec![],
                summary: format!(
                    "the most wavefronts of one warp instruction is {} (ideal {}), not {} {n}: \
                     access {} of threads {} to {}",
                    w.worst,
                    w.worst_ideal,
                    cmp.text(),
                    w.access,
                    w.warp,
                    (w.warp + wavefront::WARP).min(threads_of(b)?) - 1
                ),
            }));
        }
    }
    Ok(Verdict::Proved)
}

/// The z3 method (the `>=` half by enumeration or samples).
fn by_z3(b: &Bank, cmp: Option<(Cmp, i64)>, ctx: &Ctx) -> PResult<(Verdict, Engine)> {
    let z3 = |v: Verdict| Ok((v, Engine::Z3));
    if let Some(v) = check_accesses(b, ctx)? {
        return z3(v);
    }
    let (c, n) = cmp.unwrap_or((Cmp::Le, 1));
    let upper = match c {
        Cmp::Le | Cmp::Eq => Some(n),
        Cmp::Lt => Some(n.saturating_sub(1)),
        Cmp::Ge | Cmp::Gt => None,
    };
    if let Some(m) = upper {
        let v = at_most(b, cmp, m, ctx)?;
        if v != Verdict::Proved || c != Cmp::Eq {
            return z3(v);
        }
    }
    let least = match c {
        Cmp::Gt => n.saturating_add(1),
        _ => n,
    };
    at_least(b, (c, n), least, ctx)
}

/// What every query of one question shares: the lowered layouts, their ranges, the query.
struct Enc {
    q: Query,
    et: IndexExpr,
    es: IndexExpr,
    tv_range: Interval,
    sr: Interval,
    threads: i64,
    vpa: i64,
    values: SymInt,
    vmax: Option<i128>,
}

fn encoder(b: &Bank, ctx: &Ctx) -> PResult<Enc> {
    let threads = threads_of(b)?;
    let values = mode_size(b, 1)?;
    let (es, et) = (b.smem.lower()?, b.tv.lower()?);
    let vmax = ctx.facts.range(&values).hi();
    let tv_hi = vmax.map(|h| h.saturating_mul(i128::from(threads)).saturating_sub(1).max(0));
    let tv_range = Interval::new(Some(0), tv_hi);
    let sr = output_range(&ctx.facts, &et, tv_range)?;
    let er = output_range(&ctx.facts, &es, sr)?;
    let top = er
        .magnitude()
        .unwrap_or(i128::MAX)
        .saturating_mul(i128::from(b.elem) + 1);
    let scope = Scope {
        apps: vec![(&et, tv_range), (&es, sr)],
        syms: vec![&values],
        extra: vec![tv_hi.unwrap_or(i128::MAX).saturating_add(1), top, 4096],
        quantified: false,
        prefer_int: false,
        exprs: Vec::new(),
    };
    let q = Query::new(ctx.facts.clone(), &scope, ctx.deadline)?;
    if let Some(r) = ctx.rlimit {
        q.set_rlimit(r);
    }
    Ok(Enc {
        q,
        et,
        es,
        tv_range,
        sr,
        threads,
        vpa: b.access / b.elem,
        values,
        vmax,
    })
}

impl Enc {
    /// The element offset of thread `t`'s value `v`.
    fn offset(&mut self, t: &Term, v: &Term) -> PResult<Term> {
        let idx = t.add(&self.q.konst(self.threads).mul(v)?)?;
        let li = self.q.apply_offset(&self.et, &idx, self.tv_range)?;
        self.q.apply_offset(&self.es, &li, self.sr)
    }

    /// An access number `c` with `(c+1)*vpa <= values`.
    fn access(&mut self) -> PResult<Term> {
        let c = self.q.input("access", Interval::new(Some(0), self.vmax))?;
        let v = self.q.sym(&self.values.clone())?;
        let vpa = self.q.konst(self.vpa);
        let end = c.add(&self.q.konst(1))?.mul(&vpa)?;
        self.q.assert(&end.le(&v)?);
        Ok(c)
    }

    /// The parameter values of a model, every parameter of the question given one.
    fn params(&self, m: &z3::Model, ctx: &Ctx) -> PResult<Vals> {
        let mut ps = self.q.model_params(m)?;
        for n in &ctx.params {
            if !ps.contains_key(n) {
                ps.insert(n.clone(), admitted(&ctx.facts, n)?);
            }
        }
        Ok(ps)
    }
}

/// Checks the accesses well-formed at every admitted valuation: `Some(unknown)` when z3
/// cannot tell, bad input naming the valuation when one is malformed (re-checked by direct
/// evaluation), `None` when all are well-formed.
fn check_accesses(b: &Bank, ctx: &Ctx) -> PResult<Option<Verdict>> {
    let vpa = b.access / b.elem;
    if vpa == 1 {
        // One element per access, aligned to its own size: always well-formed.
        return Ok(None);
    }
    let unknown = |r: String| {
        Ok(Some(Verdict::Unknown(format!(
            "z3 on the accesses' alignment: {r}"
        ))))
    };
    // The values count is a multiple of the values per access.
    let mut e = encoder(b, ctx)?;
    let v = e.q.sym(&e.values.clone())?;
    let (_, r) = e.q.divmod(&v, &e.q.konst(vpa), true)?;
    e.q.assert(&r.eq(&e.q.konst(0))?.not());
    match e.q.solve()? {
        Outcome::Unsat => {}
        Outcome::Unknown(r) => return unknown(r),
        Outcome::Sat(m) => {
            let ps = e.params(&m, ctx)?;
            return match shape_at(b, &ps) {
                Err(err @ ProveError::Invalid(_)) => Err(at_values(err, &ps)),
                Err(err) => Err(err),
                Ok(_) => Err(ProveError::internal(format!(
                    "z3's values count not a multiple of {vpa} does not reproduce at {}",
                    show(&ps)
                ))),
            };
        }
    }
    // Each access contiguous and aligned.
    let mut e = encoder(b, ctx)?;
    let t = e.q.index("t", &e.q.konst(0), &e.q.konst(e.threads))?;
    let c = e.access()?;
    let v0 = c.mul(&e.q.konst(vpa))?;
    let e0 = e.offset(&t, &v0)?;
    let mut bad = Vec::new();
    for k in 1..vpa {
        let ek = e.offset(&t, &v0.add(&e.q.konst(k))?)?;
        bad.push(ek.eq(&e0.add(&e.q.konst(k))?)?.not());
    }
    let addr = e0.mul(&e.q.konst(b.elem))?;
    let (_, r) = e.q.divmod(&addr, &e.q.konst(b.access), false)?;
    bad.push(r.eq(&e.q.konst(0))?.not());
    e.q.assert(&z3::ast::Bool::or(&bad));
    match e.q.solve()? {
        Outcome::Unsat => Ok(None),
        Outcome::Unknown(r) => unknown(r),
        Outcome::Sat(m) => {
            let ps = e.params(&m, ctx)?;
            let idx: Vals = e.q.model_indices(&m).into_iter().collect();
            let (t, c) = (get(&idx, "t")?, get(&idx, "access")?);
            let g = shape_at(b, &ps).map_err(|err| at_values(err, &ps))?;
            match g.address(b, t, c) {
                Err(err @ ProveError::Invalid(_)) => Err(at_values(err, &ps)),
                Err(err) => Err(err),
                Ok(_) => Err(ProveError::internal(format!(
                    "z3's malformed access (thread {t}, access {c}) does not reproduce at {}",
                    show(&ps)
                ))),
            }
        }
    }
}

fn get(idx: &Vals, k: &str) -> PResult<i64> {
    crate::context::get(idx, k)
}

/// `degree <= m` at every admitted valuation (`cmp` the question, for its messages).
fn at_most(b: &Bank, cmp: Option<(Cmp, i64)>, m: i64, ctx: &Ctx) -> PResult<Verdict> {
    let threads = threads_of(b)?;
    let phase = match b.access {
        8 => 16,
        16 => 8,
        _ => 32,
    };
    if m < 1 {
        // Every phase takes at least one wavefront: refuted at any admitted valuation.
        let mut ps = Vals::new();
        for n in &ctx.params {
            ps.insert(n.clone(), admitted(&ctx.facts, n)?);
        }
        let a = analyze_at(b, &ps, &ctx.deadline).map_err(|e| at_values(e, &ps))?;
        return Ok(refutation(cmp, &ps, &a));
    }
    // One thread reaches at most one word of a bank (an access covers at most 4 words), so
    // a phase of `p` threads takes at most `p` wavefronts.
    if m >= phase.min(threads) {
        return Ok(Verdict::Proved);
    }
    let mut e = encoder(b, ctx)?;
    let words = (b.access / 4).max(1);
    let k = |e: &Enc, v: i64| e.q.konst(v);
    let c = e.access()?;
    let v0 = c.mul(&k(&e, e.vpa))?;
    let n = m as usize + 1;
    let mut ts: Vec<Term> = Vec::with_capacity(n);
    let mut ws: Vec<Term> = Vec::with_capacity(n);
    for i in 0..n {
        let t = e.q.index(&format!("t{i}"), &k(&e, 0), &k(&e, threads))?;
        let j = e.q.index(&format!("j{i}"), &k(&e, 0), &k(&e, words))?;
        let off = e.offset(&t, &v0)?;
        let addr = off.mul(&k(&e, b.elem))?;
        let w = e.q.divmod(&addr, &k(&e, 4), false)?.0.add(&j)?;
        if let Some(prev) = ts.last() {
            e.q.assert(&prev.lt(&t)?);
            let p0 = e.q.divmod(&ts[0], &k(&e, phase), true)?.0;
            let pi = e.q.divmod(&t, &k(&e, phase), true)?.0;
            e.q.assert(&p0.eq(&pi)?);
            let b0 = e.q.divmod(&ws[0], &k(&e, 32), false)?.1;
            let bi = e.q.divmod(&w, &k(&e, 32), false)?.1;
            e.q.assert(&b0.eq(&bi)?);
        }
        for x in &ws {
            e.q.assert(&x.eq(&w)?.not());
        }
        ts.push(t);
        ws.push(w);
    }
    let model = match e.q.solve()? {
        Outcome::Unsat => return Ok(Verdict::Proved),
        Outcome::Unknown(r) => return Ok(Verdict::Unknown(format!("z3: {r}"))),
        Outcome::Sat(model) => model,
    };
    let ps = e.q.model_params(&model)?;
    let idx: Vals = e.q.model_indices(&model).into_iter().collect();
    let deadline = ctx.deadline;
    confirm(ctx, ps, idx, |ps, idx| {
        recheck(b, cmp, m, ps, idx, phase, &deadline)
    })
}

/// Re-checks z3's `m+1` threads by direct evaluation at the model's parameter values: the
/// threads lie in one phase, their words are distinct and in one bank, and the phase's cost
/// exceeds `m`. `None` when it does not reproduce.
fn recheck(
    b: &Bank,
    cmp: Option<(Cmp, i64)>,
    m: i64,
    ps: &Vals,
    idx: &Vals,
    phase: i64,
    deadline: &Deadline,
) -> PResult<Option<Counterexample>> {
    let g: Geometry = shape_at(b, ps)?;
    let c = get(idx, "access")?;
    if !(0..g.chunks).contains(&c) {
        return Ok(None);
    }
    let mut words = Vec::new();
    let mut threads = Vec::new();
    for i in 0..=m {
        let (t, j) = (get(idx, &format!("t{i}"))?, get(idx, &format!("j{i}"))?);
        if !(0..g.threads).contains(&t) || !(0..g.words).contains(&j) {
            return Ok(None);
        }
        let a = g.address(b, t, c)?;
        words.push(a.div_euclid(4) + j);
        threads.push(t);
    }
    let start = threads[0] / phase * phase;
    let same_phase = threads.iter().all(|t| t / phase * phase == start);
    let one_bank = words.iter().all(|w| w.rem_euclid(32) == words[0].rem_euclid(32));
    let distinct = words.iter().collect::<BTreeSet<_>>().len() == words.len();
    if !(same_phase && one_bank && distinct) {
        return Ok(None);
    }
    let end = (start + phase).min(g.threads);
    let cost = phase_cost(b, &g, c, (start, end), deadline, &mut 0)?;
    if cost.degree <= m {
        return Ok(None);
    }
    let Some(conflict) = cost.conflict else {
        return Ok(None);
    };
    let what = match cmp {
        Some((op, n)) => format!("the degree is at least {}, not {} {n}: ", cost.degree, op.text()),
        None => String::new(),
    };
    let mut found = Vec::with_capacity(threads.len());
    for (t, w) in threads.iter().zip(&words) {
        found.push(format!(
            "thread {t} byte {}",
            byte_in_word(g.address(b, *t, c)?, *w)
        ));
    }
    let summary = format!(
        "{what}{} in the phase of threads {start} to {} (z3 found {} in bank {})",
        describe(&conflict, Some(cost.degree)),
        end - 1,
        found.join(", "),
        words[0].rem_euclid(32)
    );
    Ok(Some(Counterexample {
        params: vec![],
        witnesses: conflict_witnesses(&conflict),
        summary,
    }))
}

/// `degree >= least` at every admitted valuation (`cmp` the question): by enumeration when
/// the valuations are few, else refuted by a sample valuation or `unknown`.
fn at_least(b: &Bank, cmp: (Cmp, i64), least: i64, ctx: &Ctx) -> PResult<(Verdict, Engine)> {
    if least <= 1 {
        return Ok((Verdict::Proved, Engine::Z3));
    }
    if let Some(vals) = enumerable(b, &ctx.facts, &ctx.params, EVERY_VALUATIONS, EVERY_WORK)? {
        let v = by_valuations(b, Some(cmp), &vals, &ctx.deadline)?;
        return Ok((v, Engine::Enumeration));
    }
    for ps in samples(&ctx.facts, &ctx.params)? {
        let a = match analyze_at(b, &ps, &ctx.deadline) {
            Ok(a) => a,
            Err(ProveError::Unknown(_)) => continue,
            Err(e) => return Err(at_values(e, &ps)),
        };
        if a.degree < least {
            return Ok((refutation(Some(cmp), &ps, &a), Engine::Enumeration));
        }
    }
    let names: Vec<&str> = ctx.params.iter().map(String::as_str).collect();
    Ok((
        Verdict::Unknown(format!(
            "conflict_degree {} {} must hold at every admitted value of {}, and sampled values \
             do not refute it: bound the parameters (at most {EVERY_VALUATIONS} valuations) to \
             decide it by enumeration",
            cmp.0.text(),
            cmp.1,
            names.join(", ")
        )),
        Engine::Z3,
    ))
}

/// A few admitted valuations: each parameter's four smallest values and its largest.
fn samples(facts: &Facts, names: &BTreeSet<String>) -> PResult<Vec<Vals>> {
    let mut out = vec![Vals::new()];
    for n in names {
        let f = facts
            .get(n)
            .ok_or_else(|| ProveError::internal(format!("parameter {n} has no declared facts")))?;
        let (lo, hi) = f.bounds();
        let k = i128::from(f.modulus.max(1));
        let mut vs: Vec<i128> = (0..4)
            .map(|i| lo + i * k)
            .filter(|v| hi.is_none_or(|h| *v <= h))
            .collect();
        vs.extend(hi);
        vs.sort();
        vs.dedup();
        let mut next = Vec::new();
        for base in &out {
            for v in &vs {
                if let Ok(v) = i64::try_from(*v) {
                    let mut m = base.clone();
                    m.insert(n.clone(), v);
                    next.push(m);
                }
            }
        }
        next.truncate(64);
        out = next;
    }
    Ok(out)
}
