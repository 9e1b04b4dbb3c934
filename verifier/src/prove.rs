//! Proving a property: the choice of query for each property, the time limit, and the
//! verdict.

use crate::bank;
use crate::bank_symbolic;
use crate::brute::{DEFAULT_WORK, brute_by};
use crate::checks::{composition_valid, contiguous, equal, in_bounds, injective, inverse, vectorizable};
use crate::context::{Ctx, refuted_without_witness};
use crate::coverage;
use crate::deadline::{Deadline, in_own_context};
use crate::engine::Engine;
use crate::error::PResult;
use crate::error::ProveError;
use crate::f2;
use crate::int64_domain::{self, Int64Domain};
use crate::portfolio;
use crate::property::{Property, facts, params, validate};
use crate::query::admitted;
use crate::structural;
use crate::verdict::Verdict;
use tessera_ir::shape;

/// Options of a proof.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The time limit of the whole assertion (every z3 query, enumeration and re-check), in
    /// milliseconds; past it the verdict is `unknown: timeout`. `None`: no limit.
    pub timeout_ms: Option<u64>,
}

/// Proves or refutes a property, within `opts.timeout_ms` for the whole assertion, with the
/// engines the portfolio chooses ([`crate::plan`]).
pub fn prove(p: &Property, opts: &Options) -> Verdict {
    prove_by(p, opts, Engine::Auto).0
}

/// Like [`prove`], with the engine chosen, to compare them; returns the verdict and the
/// engine that gave it.
///
/// * `Auto`: the engines of [`crate::plan`] in turn, until one decides.
/// * `F2`: the F2 engine alone ([`crate::f2`]); `unknown` (naming the reason) outside its
///   fragment.
/// * `Structural`: reasoning on the leaves alone ([`Engine::Structural`]); `unknown` where it
///   is not decisive.
/// * `Z3`: z3 and the analyses it used before the other engines existed.
/// * `Enumeration`: every parameter value and every index ([`crate::brute`], up to
///   [`crate::DEFAULT_WORK`] points).
///
/// Every refutation is re-checked by direct evaluation and gives every parameter a value.
///
/// ```
/// use std::sync::Arc;
/// use tessera_verifier::{prove_by, Engine, Func, Options, Property, Verdict};
/// let facts = Arc::new(tessera_ir::sym::Facts::default());
/// let f = |src: &str| Func::parse(src, &facts).unwrap();
/// let p = Property::Injective(f("Sw<3,4,3> o (1024,1024):(1024,1)"));
/// assert_eq!(prove_by(&p, &Options::default(), Engine::Auto), (Verdict::Proved, Engine::F2));
/// // Outside the fragment, (2,2):(1,1) carries; the structural engine finds its collision.
/// let p = Property::Injective(f("(2,2):(1,1)"));
/// let (v, e) = prove_by(&p, &Options::default(), Engine::Auto);
/// assert!(matches!(v, Verdict::Refuted(_)) && e == Engine::Structural);
/// // (2,3):(3,2) is injective without dominating strides: enumerated.
/// let p = Property::Injective(f("(2,3):(3,2)"));
/// assert_eq!(prove_by(&p, &Options::default(), Engine::Auto), (Verdict::Proved, Engine::Enumeration));
/// ```
pub fn prove_by(p: &Property, opts: &Options, engine: Engine) -> (Verdict, Engine) {
    let (v, e, _) = prove_in_int64(p, opts, engine);
    (v, e)
}

/// Like [`prove_by`], with what the machine's `i64` offsets admit of a proof over parameters
/// ([`Int64Domain`]): a `Proved` whose layouts leave `i64` at some admitted valuation of an
/// unbounded parameter holds where they fit, and comes with that assumption and its witness
/// (reports print it); where bounded parameters admit a valuation past `i64`, the verdict (a
/// proof or a refutation) is bad input naming it, as enumeration, which checks every valuation
/// before it evaluates the property.
///
/// @pre none. @post a `Proved` with `Int64Domain::Fits` holds at every admitted valuation, in
/// `i64`; the domain is `Fits` for every other verdict.
///
/// ```
/// use std::sync::Arc;
/// use tessera_ir::sym::Facts;
/// use tessera_verifier::{prove_in_int64, Engine, Func, Int64Domain, Options, Property, Verdict};
/// let mut facts = Facts::default();
/// facts.declare("N where N >= 1").unwrap();
/// let f = Func::parse("(4,N):(N,1)", &Arc::new(facts)).unwrap();
/// let (v, _, d) = prove_in_int64(&Property::Injective(f), &Options::default(), Engine::Auto);
/// assert_eq!(v, Verdict::Proved);
/// assert!(matches!(d, Int64Domain::Assumed(a) if a.starts_with("offsets fit in int64")));
/// ```
pub fn prove_in_int64(p: &Property, opts: &Options, engine: Engine) -> (Verdict, Engine, Int64Domain) {
    in_own_context(|| {
        let ctx = Ctx {
            facts: facts(p),
            params: params(p),
            deadline: Deadline::after_ms(opts.timeout_ms),
            engine,
            rlimit: None,
        };
        let mut used = engine;
        let v = validate(p).and_then(|()| prove_checked(p, &ctx, &mut used));
        let v = match v {
            Ok(Verdict::Proved) if !ctx.params.is_empty() => {
                int64_domain::domain(p, &ctx).map(|d| (Verdict::Proved, d))
            }
            // Bounds that admit a valuation past i64 make the question bad input whatever its
            // answer (as enumeration, which checks every valuation first); a refutation holds
            // where it was re-checked, in i64, whatever an unbounded parameter admits.
            Ok(r @ Verdict::Refuted(_)) if !ctx.params.is_empty() => {
                int64_domain::domain(p, &ctx).map(|_| (r, Int64Domain::Fits))
            }
            v => v.map(|v| (v, Int64Domain::Fits)),
        };
        match v {
            Ok((v, d)) => (v, used, d),
            Err(e) => (Verdict::from_error(e), used, Int64Domain::Fits),
        }
    })
}

/// What the machine's `i64` offsets admit of `p` proved by another prover (egg's rewriting of
/// an `equal`): [`Int64Domain`], or the bad-input verdict where bounded parameters admit a
/// valuation past `i64` (see [`prove_in_int64`]).
///
/// @pre `p` was proved. @post `Ok(Fits)` only if every parameterised layout of `p` stays in
/// `i64` at every admitted valuation.
///
/// ```
/// use std::sync::Arc;
/// use tessera_ir::sym::Facts;
/// use tessera_verifier::{domain_in_int64, Func, Int64Domain, Options, Property};
/// let mut facts = Facts::default();
/// facts.declare("N where 1 <= N <= 1024").unwrap();
/// let f = Func::parse("(4,N):(N,1)", &Arc::new(facts)).unwrap();
/// assert_eq!(domain_in_int64(&Property::Injective(f), &Options::default()), Ok(Int64Domain::Fits));
/// ```
pub fn domain_in_int64(p: &Property, opts: &Options) -> Result<Int64Domain, Verdict> {
    in_own_context(|| {
        let ctx = Ctx {
            facts: facts(p),
            params: params(p),
            deadline: Deadline::after_ms(opts.timeout_ms),
            engine: Engine::Z3,
            rlimit: None,
        };
        if ctx.params.is_empty() {
            return Ok(Int64Domain::Fits);
        }
        int64_domain::domain(p, &ctx).map_err(Verdict::from_error)
    })
}

/// Proves or refutes a well-formed property with `engine`, which becomes the engine that
/// answered. A refutation gives every parameter of the property a value (an admitted one
/// where the refutation holds for all of them).
fn prove_checked(p: &Property, ctx: &Ctx, engine: &mut Engine) -> PResult<Verdict> {
    let mut v = match *engine {
        // Bank questions with parameters: their own module picks enumeration or z3.
        _ if let Some((b, cmp)) = bank_symbolic::question(p) => {
            let (v, e) = bank_symbolic::answer(b, cmp, ctx, *engine)?;
            *engine = e;
            v
        }
        Engine::Auto => {
            let has_params = !ctx.params.is_empty();
            let mut last = Verdict::Unknown("no engine decides this property".into());
            // The costly engines' plan is worked out only when the cheap ones did not decide.
            if !first_decision(p, ctx, portfolio::cheap(p, has_params), engine, &mut last)? {
                first_decision(p, ctx, portfolio::costly(p, has_params), engine, &mut last)?;
            }
            last
        }
        e => by(p, ctx, e)?.unwrap_or_else(Verdict::Unknown),
    };
    if let Verdict::Refuted(c) = &mut v {
        for n in &ctx.params {
            if !c.params.iter().any(|(k, _)| k == n) {
                c.params.push((n.clone(), admitted(&ctx.facts, n)?));
            }
        }
        c.params.sort();
    }
    Ok(v)
}

/// Asks `engines` in turn until one proves or refutes `p` (its answer in `last`, the engine
/// in `engine`); `last` keeps the latest reason otherwise. Returns whether to stop: a
/// decision, or the deadline passed.
fn first_decision(
    p: &Property,
    ctx: &Ctx,
    engines: Vec<Engine>,
    engine: &mut Engine,
    last: &mut Verdict,
) -> PResult<bool> {
    for e in engines {
        *engine = e;
        *last = match by(p, ctx, e)? {
            Ok(v) => v,
            Err(why) => Verdict::Unknown(why),
        };
        if matches!(last, Verdict::Proved | Verdict::Refuted(_)) || ctx.deadline.expired() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// One engine's answer; `Err` with the reason where it does not decide the property.
fn by(p: &Property, ctx: &Ctx, e: Engine) -> PResult<Result<Verdict, String>> {
    let ctx = &Ctx {
        engine: e,
        ..ctx.clone()
    };
    Ok(match e {
        Engine::F2 => f2::answer(p, ctx)?.map_err(|why| why.to_string()),
        Engine::Structural => structural::answer(p, ctx)?,
        Engine::Enumeration => match brute_by(p, DEFAULT_WORK, &ctx.deadline) {
            Verdict::Invalid(m) => return Err(ProveError::Invalid(m)),
            Verdict::Internal(m) => return Err(ProveError::Internal(m)),
            v => Ok(v),
        },
        Engine::Z3 | Engine::Auto => Ok(prove_any(p, ctx)?),
    })
}

fn prove_any(p: &Property, ctx: &Ctx) -> PResult<Verdict> {
    match p {
        Property::Injective(f) => injective(ctx, f),
        Property::InBounds(f, n) => in_bounds(ctx, f, n),
        Property::Bijective(f) => {
            let v = injective(ctx, f)?;
            if v != Verdict::Proved {
                return Ok(v);
            }
            // Injective into [0, size) with size elements: onto, by pigeonhole.
            in_bounds(ctx, f, &f.size()?)
        }
        Property::Surjective(f, n) => coverage::surjective(ctx, f, n.as_ref()),
        Property::Equal(a, b) => equal(ctx, a, b),
        Property::Compatible(a, b) => Ok(match shape::compatible(a, b)? {
            true => Verdict::Proved,
            false => refuted_without_witness(format!("{a} does not coarsen {b}")),
        }),
        Property::LeftInverseValid(l, r) => inverse(ctx, l, r, "R(L(x))"),
        Property::RightInverseValid(l, r) => inverse(ctx, r, l, "L(R(x))"),
        Property::ComplementValid(a, c, n) => coverage::complement_valid(ctx, a, c, n.as_ref()),
        Property::CompositionValid(a, b, r) => composition_valid(ctx, a, b, r),
        Property::Contiguous(f) => contiguous(ctx, f),
        Property::Vectorizable(f, v) => vectorizable(ctx, f, *v),
        Property::BankConflictFree(b) => bank::prove_conflict_free(b, &ctx.deadline),
        Property::ConflictDegree(b, cmp, n) => bank::degree_verdict(b, *cmp, *n, &ctx.deadline),
        Property::Wavefronts(b, cmp, n) => {
            bank_symbolic::wavefronts(b, (*cmp, *n), &ctx.facts, DEFAULT_WORK, &ctx.deadline)
        }
    }
}
