//! Proving a property: the choice of query for each property, the time limit, and the
//! verdict.

use crate::bank;
use crate::checks::{composition_valid, contiguous, equal, in_bounds, injective, inverse, vectorizable};
use crate::context::{Ctx, refuted_without_witness};
use crate::coverage;
use crate::deadline::{Deadline, in_own_context};
use crate::error::PResult;
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

/// Proves or refutes a property with z3, within `opts.timeout_ms` for the whole assertion.
pub fn prove(p: &Property, opts: &Options) -> Verdict {
    in_own_context(|| {
        let ctx = Ctx {
            facts: facts(p),
            params: params(p),
            deadline: Deadline::after_ms(opts.timeout_ms),
        };
        match validate(p).and_then(|()| prove_checked(p, &ctx)) {
            Ok(v) => v,
            Err(e) => Verdict::from_error(e),
        }
    })
}

/// Proves or refutes a well-formed property. A refutation gives every parameter of the
/// property a value (an admitted one where the refutation holds for all of them).
fn prove_checked(p: &Property, ctx: &Ctx) -> PResult<Verdict> {
    let mut v = prove_any(p, ctx)?;
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
