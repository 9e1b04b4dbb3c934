//! Proving a property: the choice of query for each property, the time limit, and the
//! verdict.

use crate::bank;
use crate::bank_symbolic;
use crate::brute::{DEFAULT_WORK, brute};
use crate::checks::{composition_valid, contiguous, equal, in_bounds, injective, inverse, vectorizable};
use crate::context::{Ctx, refuted_without_witness};
use crate::coverage;
use crate::deadline::{Deadline, in_own_context};
use crate::engine::Engine;
use crate::error::PResult;
use crate::f2;
use crate::property::{Property, facts, params, validate};
use crate::query::admitted;
use crate::verdict::Verdict;
use tessera_ir::shape;

/// Options of a proof.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The time limit of the whole assertion (every z3 query, enumeration and re-check), in
    /// milliseconds; past it the verdict is `unknown: timeout`. `None`: no limit.
    pub timeout_ms: Option<u64>,
}

/// Proves or refutes a property, within `opts.timeout_ms` for the whole assertion: with the
/// F2 engine where it decides the property ([`crate::f2`]), else with z3.
pub fn prove(p: &Property, opts: &Options) -> Verdict {
    prove_by(p, opts, Engine::Auto).0
}

/// Like [`prove`], with the engine chosen, to compare them; returns the verdict and the
/// engine that gave it.
///
/// * `Auto`: F2 for `injective`, `bijective`, `bank_conflict_free` and `conflict_degree` on
///   concrete layouts in its fragment, else z3 (`conflict_degree`: the exact enumeration).
/// * `F2`: the F2 engine alone; `unknown` (naming the reason) outside its fragment.
/// * `Z3`: z3 and the analyses it used before F2 existed.
/// * `Enumeration`: brute force ([`crate::brute`], up to [`crate::DEFAULT_WORK`] points).
///
/// ```
/// use std::sync::Arc;
/// use tessera_verifier::{prove_by, Engine, Func, Options, Property, Verdict};
/// let facts = Arc::new(tessera_ir::sym::Facts::default());
/// let f = |src: &str| Func::parse(src, &facts).unwrap();
/// let p = Property::Injective(f("Sw<3,4,3> o (1024,1024):(1024,1)"));
/// assert_eq!(prove_by(&p, &Options::default(), Engine::Auto), (Verdict::Proved, Engine::F2));
/// // Outside the fragment: (2,2):(1,1) carries, so z3 answers.
/// let p = Property::Injective(f("(2,2):(1,1)"));
/// let (v, e) = prove_by(&p, &Options::default(), Engine::Auto);
/// assert!(matches!(v, Verdict::Refuted(_)) && e == Engine::Z3);
/// ```
pub fn prove_by(p: &Property, opts: &Options, engine: Engine) -> (Verdict, Engine) {
    if engine == Engine::Enumeration {
        return (brute(p, DEFAULT_WORK), Engine::Enumeration);
    }
    in_own_context(|| {
        let ctx = Ctx {
            facts: facts(p),
            params: params(p),
            deadline: Deadline::after_ms(opts.timeout_ms),
        };
        let mut used = engine;
        match validate(p).and_then(|()| prove_checked(p, &ctx, &mut used)) {
            Ok(v) => (v, used),
            Err(e) => (Verdict::from_error(e), used),
        }
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
        Engine::Z3 => prove_any(p, ctx)?,
        _ => match f2::answer(p, ctx)? {
            Ok(v) => {
                *engine = Engine::F2;
                v
            }
            Err(why) if *engine == Engine::F2 => Verdict::Unknown(why.to_string()),
            Err(_) => {
                *engine = match p {
                    Property::ConflictDegree(..) => Engine::Enumeration,
                    _ => Engine::Z3,
                };
                prove_any(p, ctx)?
            }
        },
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
    }
}
