//! The engines a proof can use, for the callers that choose one or compare them.

/// The engine of a proof: of an equivalence ([`crate::prove_equivalent_by`]) or of a property
/// ([`crate::prove_by`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The choice of the engine (as a choice only): for an equivalence, enumeration when the
    /// domain has at most [`crate::MAX_ENUMERATION`] points, else z3; for a property, F2 where it
    /// decides it, else z3.
    Auto,
    /// Every point of the domain evaluated (a complete proof on a finite domain).
    Enumeration,
    /// z3.
    Z3,
    /// Linear algebra over GF(2) on the bits of the index ([`crate::F2Layout`]): layout
    /// properties only (see [`crate::prove_by`]); an equivalence of index expressions forced
    /// to it is `unknown`.
    F2,
}
