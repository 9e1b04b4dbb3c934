//! Simplification that is trusted only when proved: the e-graph simplifier of
//! [`tessera_ir::simplify`], then [`prove_equivalent`] on the domain. A failed or unknown
//! validation falls back to the input expression, and says so.
//!
//! ```
//! use std::sync::Arc;
//! use tessera_ir::index::{parse_index, Var};
//! use tessera_ir::simplify::{Domain, Limits};
//! use tessera_verifier::{simplify_validated, Options, Verdict};
//! let e = parse_index("(i % 4) * 8 + i / 4").unwrap();
//! let mut d = Domain::default();
//! d.range(Var::Index, 0, 31);
//! let facts = Arc::new(tessera_ir::sym::Facts::default());
//! let v = simplify_validated(&e, &d, &facts, &Limits::default(), &Options::default(), true).unwrap();
//! assert_eq!(v.validation, Some(Verdict::Proved));
//! assert!(!v.fell_back);
//! assert_eq!(v.expr.cost().div_mod, 0);
//! ```

use crate::engine::Engine;
use crate::equivalence::prove_equivalent_by;
use crate::prove::Options;
use crate::verdict::Verdict;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tessera_ir::index::{Cost, IndexExpr};
use tessera_ir::simplify::{Domain, Limits, Simplified, Stop, simplify};
use tessera_ir::sym::Facts;

/// The time limit of a validation when the options set none. It is an outer safety limit:
/// z3's deterministic resource limit ([`crate::VALIDATION_RLIMIT`]) and the enumeration's
/// point count decide between the simplified and the input expression; past this time
/// [`simplify_validated`] fails instead, so the clock never changes what is emitted.
pub const VALIDATION_TIMEOUT_MS: u64 = 60_000;

/// A simplification and its validation.
#[derive(Clone, Debug)]
pub struct Validated {
    /// The expression to use: the simplified one when validated (or validation was skipped),
    /// else the input.
    pub expr: IndexExpr,
    /// The simplifier's own result, before validation decided.
    pub candidate: IndexExpr,
    /// The input's cost.
    pub before: Cost,
    /// The cost of [`Validated::expr`].
    pub after: Cost,
    /// Why the rewriting stopped.
    pub stop: Stop,
    /// The validation's verdict; `None` when skipped (`--no-validate`, for benchmarks only) or
    /// when the simplifier changed nothing.
    pub validation: Option<Verdict>,
    /// The engine that validated (enumeration of a small domain, else z3).
    pub engine: Option<Engine>,
    /// Whether the validation failed or was unknown, so the input is used.
    pub fell_back: bool,
    /// Time spent simplifying.
    pub simplify_time: Duration,
    /// Time spent validating.
    pub validate_time: Duration,
}

/// Simplifies `e` on `domain` and, when `validate`, proves the result equal to `e` there
/// (parameters ranging over `facts`), within `opts.timeout_ms` (else
/// [`VALIDATION_TIMEOUT_MS`]).
///
/// @post `fell_back` is false only if the validation proved the result (or was skipped);
/// `expr` is then the simplified expression, else `e` itself. The outcome does not depend on
/// the machine's load: a validation stopped by the clock is an error.
pub fn simplify_validated(
    e: &IndexExpr,
    domain: &Domain,
    facts: &Arc<Facts>,
    limits: &Limits,
    opts: &Options,
    validate: bool,
) -> tessera_ir::Result<Validated> {
    let Simplified {
        expr,
        before,
        after,
        stop,
        time,
        ..
    } = simplify(e, domain, limits)?;
    let start = Instant::now();
    let unchanged = expr == *e;
    let opts = Options {
        timeout_ms: opts.timeout_ms.or(Some(VALIDATION_TIMEOUT_MS)),
    };
    let proof = (validate && !unchanged)
        .then(|| prove_equivalent_by(e, &expr, domain.ranges(), facts, &opts, Engine::Auto));
    let (validation, engine) = match proof {
        Some((v, g)) => (Some(v), Some(g)),
        None => (None, None),
    };
    let validate_time = start.elapsed();
    if validation.as_ref().is_some_and(Verdict::is_timeout) {
        return Err(tessera_ir::Error::invalid(format!(
            "the validation ran past its safety time limit of {} ms (z3's resource limit and the \
             enumeration's point count decide its outcome; the clock only stops a run that would not end)",
            opts.timeout_ms.unwrap_or(VALIDATION_TIMEOUT_MS)
        )));
    }
    let fell_back = validation.as_ref().is_some_and(|v| *v != Verdict::Proved);
    let (used, cost) = if fell_back {
        (e.clone(), before)
    } else {
        (expr.clone(), after)
    };
    Ok(Validated {
        expr: used,
        candidate: expr,
        before,
        after: cost,
        stop,
        validation,
        engine,
        fell_back,
        simplify_time: time,
        validate_time,
    })
}
