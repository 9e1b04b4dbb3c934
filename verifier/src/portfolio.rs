//! The portfolio: which engine answers a property under [`Engine::Auto`], chosen by a cost
//! estimate before anything runs.
//!
//! # The cost model
//!
//! The engines' costs, measured by `cargo bench -p tessera-verifier --bench portfolio` (release
//! build; the figures are in the book, docs/src/figures/prover.md):
//!
//! | engine | cost | decides |
//! |---|---|---|
//! | F2 | about a microsecond: ranks of at most 62x62 bit matrices | concrete layouts in its fragment ([`crate::f2`]) |
//! | structural | linear in the rank | bounds and contiguity of concrete integer-strided layouts, injectivity where sorted strides dominate ([`crate::structural`](crate::Engine::Structural)) |
//! | enumeration | [`ENUM_NS_PER_POINT`] per point it visits ([`work`]) | every concrete property, up to [`crate::DEFAULT_WORK`] points |
//! | z3 | at least [`Z3_FLOOR_NS`] (a context, a solver, bit-blasting), then anything up to the time limit | everything, symbolic parameters included |
//!
//! The structural engine and F2 cost nothing next to the others, so they are asked first
//! wherever they may decide the property (the structural engine first: it needs no bit
//! matrix, and it turns a swizzled layout away before instantiating anything): each either
//! answers exactly or says at once that it does not decide. The rest of the plan (its cost
//! estimate included) is worked out only when neither decided. After them, a concrete property is enumerated when its estimated time
//! `work(p) · ENUM_NS_PER_POINT` is below z3's floor, that is when it visits at most
//! [`ENUM_CUTOFF`] points; past that z3 comes first and enumeration (within its limit) is
//! the fallback should z3 give up. A bank question on concrete layouts never goes to z3: z3's
//! query checks every access for contiguity and alignment first, so enumeration is always
//! the cheaper complete method. A property with parameters goes to z3, whose answer covers
//! every value the facts admit; a bank question with parameters is answered by the symbolic
//! bank analysis, which enumerates few bounded valuations and asks z3 otherwise.
//!
//! Every engine's refutation is re-checked by direct evaluation, whichever answered.
//!
//! ```
//! use std::sync::Arc;
//! use tessera_verifier::{plan, Engine, Func, Property};
//! let facts = Arc::new(tessera_ir::sym::Facts::default());
//! let f = |src: &str| Func::parse(src, &facts).unwrap();
//! let p = Property::Injective(f("(48,40):(1,50)"));
//! assert_eq!(plan(&p), vec![Engine::Structural, Engine::F2, Engine::Enumeration, Engine::Z3]);
//! let p = Property::Equal(f("(2048,1024):(1,2048)"), f("2097152:1"));
//! assert_eq!(plan(&p), vec![Engine::F2, Engine::Z3, Engine::Enumeration]);
//! ```

use crate::brute::DEFAULT_WORK;
use crate::engine::Engine;
use crate::property::{Property, params};
use tessera_ir::Int;
use tessera_ir::sym::SymInt;

/// The measured time of one enumerated point on the odometer's path (release build), in
/// nanoseconds.
pub const ENUM_NS_PER_POINT: u64 = 5;

/// The least time z3 takes on a concrete layout property, in nanoseconds.
pub const Z3_FLOOR_NS: u64 = 2_500_000;

/// The most points the portfolio enumerates before it asks z3 first.
pub const ENUM_CUTOFF: u64 = Z3_FLOOR_NS / ENUM_NS_PER_POINT;

/// A point evaluated through the layout's own evaluation (a coordinate map per index) costs
/// this many odometer steps.
const EVAL_WEIGHT: u64 = 32;

/// The engines [`Engine::Auto`] tries for `p`, in order; each after the first runs only when
/// those before it did not decide the property.
pub fn plan(p: &Property) -> Vec<Engine> {
    let has_params = !params(p).is_empty();
    let mut out = cheap(p, has_params);
    out.extend(costly(p, has_params));
    out
}

/// The engines that cost next to nothing and may decide `p`: the structural engine (its
/// properties), then F2. Neither runs on a property with parameters.
pub(crate) fn cheap(p: &Property, has_params: bool) -> Vec<Engine> {
    let mut out = Vec::new();
    if has_params {
        return out;
    }
    if crate::structural::decides(p) {
        out.push(Engine::Structural);
    }
    if crate::f2::decides(p) {
        out.push(Engine::F2);
    }
    out
}

/// The complete engines for `p` after the cheap ones, by the cost estimate.
pub(crate) fn costly(p: &Property, has_params: bool) -> Vec<Engine> {
    // Wavefronts are counted by the exact analysis, at every admitted valuation.
    if let Property::Wavefronts(..) = p {
        return vec![Engine::Enumeration];
    }
    if has_params {
        return vec![Engine::Z3];
    }
    match p {
        Property::BankConflictFree(_) | Property::ConflictDegree(..) | Property::Wavefronts(..) => {
            vec![Engine::Enumeration]
        }
        Property::Compatible(..) => vec![Engine::Z3],
        _ => match work(p) {
            Some(w) if w <= ENUM_CUTOFF => vec![Engine::Enumeration, Engine::Z3],
            Some(w) if w <= DEFAULT_WORK => vec![Engine::Z3, Engine::Enumeration],
            _ => vec![Engine::Z3],
        },
    }
}

/// The points an enumeration of a concrete property visits, in odometer steps (a point
/// evaluated one at a time weighs 32 steps); `None` when a size is not concrete or
/// overflows.
pub fn work(p: &Property) -> Option<u64> {
    let n = |s: &SymInt| s.as_const().and_then(|v| u64::try_from(v).ok());
    let size = |f: &crate::func::Func| f.size().ok().as_ref().and_then(n);
    let weigh = |f: &crate::func::Func| {
        let s = size(f)?;
        match f.codomain() {
            Ok(tessera_ir::Codomain::Coord) => s.checked_mul(EVAL_WEIGHT),
            _ => Some(s),
        }
    };
    match p {
        Property::Injective(f)
        | Property::Bijective(f)
        | Property::Contiguous(f)
        | Property::Vectorizable(f, _) => weigh(f),
        Property::InBounds(f, _) => size(f),
        Property::Surjective(f, b) => size(f)?.checked_add(b.as_ref().map_or(Some(0), n)?),
        Property::Equal(a, b) => weigh(a)?.checked_add(weigh(b)?),
        Property::LeftInverseValid(l, r) | Property::RightInverseValid(l, r) => {
            size(l)?.checked_add(size(r)?)
        }
        Property::ComplementValid(a, c, b) => {
            let (x, y) = (size(a)?, size(c)?);
            x.checked_add(y)?
                .checked_add(x.checked_mul(y)?)?
                .checked_add(b.as_ref().map_or(Some(0), n)?)
        }
        Property::CompositionValid(_, b, _) => size(b)?.checked_mul(EVAL_WEIGHT),
        Property::BankConflictFree(b) | Property::ConflictDegree(b, ..) | Property::Wavefronts(b, ..) => {
            size(&b.tv)
        }
        Property::Compatible(..) => Some(0),
    }
}
