//! `tessera-verifier`: proves layout properties with z3, or refutes them with a concrete
//! counterexample that is re-checked by direct evaluation.
//!
//! Layouts are lowered to the index IR of `tessera-ir` and encoded as bit-vectors whose width
//! comes from interval bounds (so XOR, shifts and power-of-two division are native), or as
//! integers when a parameter is unbounded. [`brute`] answers the same questions by
//! enumeration on small domains and is the oracle the tests compare z3 against.
//!
//! Layouts of powers of two with power-of-two strides that never carry, and swizzles, are
//! affine maps over GF(2) on the bits of the index: the F2 engine ([`f2`]) answers most
//! properties and the bank questions on them by ranks of bit matrices, whatever their size.
//! The portfolio ([`plan`]) chooses by cost among F2, the structural engine (a concrete
//! layout's leaves), enumeration and z3; [`prove_by`] names the engine that answered.
//!
//! [`suggest`] synthesises the swizzle (or row padding) of a plain shared-memory layout that
//! serves a set of access patterns with the fewest bank conflicts.
//!
//! ```
//! use std::sync::Arc;
//! use tessera_verifier::{prove, Func, Options, Property, Verdict};
//! let facts = Arc::new(tessera_ir::sym::Facts::default());
//! let f = |src: &str| Func::parse(src, &facts).unwrap();
//! assert_eq!(prove(&Property::Injective(f("(4,8):(8,1)")), &Options::default()), Verdict::Proved);
//! let v = prove(&Property::Injective(f("(4,8):(2,1)")), &Options::default());
//! assert!(matches!(v, Verdict::Refuted(_)), "{v}");
//! ```

mod bank;
mod bank_symbolic;
mod brute;
mod checks;
mod context;
mod coverage;
mod deadline;
mod encode;
mod engine;
mod enumerate;
mod equivalence;
mod error;
pub mod f2;
mod func;
mod int64_domain;
mod offset_range;
mod portfolio;
mod property;
mod prove;
mod query;
mod structural;
mod suggest;
mod validated;
mod verdict;
mod width;

pub use bank::wavefront::{
    InstructionCost, WARP, Wavefronts, instruction_cost, phase_threads, wavefronts, wavefronts_by,
};
pub use bank::{Analysis, Bank, Cmp, Conflict, PhaseCost, analyze, analyze_by, phases, phases_by};
pub use brute::{DEFAULT_WORK, brute, brute_by};
pub use deadline::Deadline;
pub use engine::Engine;
pub use equivalence::{MAX_ENUMERATION, VALIDATION_RLIMIT, prove_equivalent, prove_equivalent_by};
pub use error::ProveError;
pub use f2::{BitMatrix, F2Bank, F2Layout, Fragment, MAX_BITS, NotInFragment, bank_degree};
pub use func::{Concrete, Func, Point};
pub use int64_domain::{INT64_RLIMIT, Int64Domain};
pub use portfolio::{ENUM_CUTOFF, ENUM_NS_PER_POINT, Z3_FLOOR_NS, plan, work};
pub use property::{Property, facts, params, validate};
pub use prove::{Options, domain_in_int64, prove, prove_by, prove_in_int64};
pub use suggest::{
    Candidate, Change, MAX_COSIZE, MAX_PAD, MAX_PATTERNS, MAX_WORK, Pattern, Suggestions, suggest,
};
pub use validated::{VALIDATION_TIMEOUT_MS, Validated, simplify_validated};
pub use verdict::{Counterexample, Verdict, Witness};

/// The version of the z3 library the verifier runs (e.g. `Z3 4.13.0.0`): part of what a cached
/// answer depends on.
///
/// ```
/// assert!(!tessera_verifier::solver_version().is_empty());
/// ```
pub fn solver_version() -> &'static str {
    z3::full_version()
}
