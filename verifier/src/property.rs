//! The properties Tessera proves: what each talks about, what makes one malformed, and the
//! entry point [`prove`].
//!
//! Each property is refuted by a witness: its query ([`crate::checks`]) asks z3 for one.
//! `unsat` means proved; `sat` gives parameter values and indices, which are re-checked
//! (the values against every fact, then the property by evaluating the layouts directly)
//! before the counterexample is reported; `unknown` carries z3's reason.

use crate::bank::{self, Bank, Cmp};
use crate::error::{PResult, ProveError};
use crate::func::{Func, params_of};
use crate::query::facts_of;
use std::collections::BTreeSet;
use std::sync::Arc;
use tessera_ir::sym::{Facts, SymInt};
use tessera_ir::{Codomain, HTuple};

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
    /// The most wavefronts one warp instruction takes (every phase's, summed:
    /// [`crate::wavefronts`]) compared with a number.
    Wavefronts(Bank, Cmp, i64),
}

impl Property {
    /// The property's name in check files.
    pub fn name(&self) -> &'static str {
        match self {
            Property::Injective(_) => "injective",
            Property::Surjective(..) => "surjective",
            Property::Bijective(_) => "bijective",
            Property::InBounds(..) => "in_bounds",
            Property::Equal(..) => "equal",
            Property::Compatible(..) => "compatible",
            Property::LeftInverseValid(..) => "left_inverse_valid",
            Property::RightInverseValid(..) => "right_inverse_valid",
            Property::ComplementValid(..) => "complement_valid",
            Property::CompositionValid(..) => "composition_valid",
            Property::Contiguous(_) => "contiguous",
            Property::Vectorizable(..) => "vectorizable",
            Property::BankConflictFree(_) => "bank_conflict_free",
            Property::ConflictDegree(..) => "conflict_degree",
            Property::Wavefronts(..) => "wavefronts",
        }
    }
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
        Property::BankConflictFree(b) | Property::ConflictDegree(b, ..) | Property::Wavefronts(b, ..) => {
            vec![&b.smem, &b.tv]
        }
        Property::Compatible(..) => vec![],
    }
}

/// Every symbolic integer of the property: each layout's extents, strides and offset, and
/// the property's own bounds.
pub fn syms(p: &Property) -> Vec<SymInt> {
    let mut out: Vec<SymInt> = funcs(p).into_iter().flat_map(Func::syms).collect();
    match p {
        Property::Surjective(_, Some(n))
        | Property::InBounds(_, n)
        | Property::ComplementValid(_, _, Some(n)) => out.push(n.clone()),
        Property::Compatible(a, b) => out.extend(a.leaves().iter().chain(b.leaves()).cloned()),
        _ => {}
    }
    out
}

/// The facts of the parameters the property mentions, wherever they occur.
pub fn facts(p: &Property) -> Arc<Facts> {
    facts_of(syms(p).iter())
}

/// Every parameter the property mentions.
pub fn params(p: &Property) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for s in syms(p) {
        params_of(&s, &mut out);
    }
    out
}

/// Checks that the question is well-formed: [`ProveError::Invalid`] (bad input) otherwise.
pub fn validate(p: &Property) -> PResult<()> {
    let name = p.name();
    for f in funcs(p) {
        f.codomain()
            .map_err(|e| ProveError::invalid(format!("{name}: {e}")))?;
        crate::offset_range::check(name, f)?;
    }
    let int = |f: &Func| -> PResult<()> {
        match f.codomain() {
            Ok(Codomain::Coord) => Err(ProveError::invalid(format!(
                "{name}: {f} is coordinate-valued; this property needs integer offsets"
            ))),
            _ => Ok(()),
        }
    };
    match p {
        Property::Vectorizable(_, v) if *v < 1 => Err(ProveError::invalid(format!(
            "vectorizable: the width {v} is not positive"
        ))),
        Property::Surjective(f, _)
        | Property::InBounds(f, _)
        | Property::Bijective(f)
        | Property::Contiguous(f)
        | Property::Vectorizable(f, _) => int(f),
        Property::LeftInverseValid(a, b)
        | Property::RightInverseValid(a, b)
        | Property::ComplementValid(a, b, _) => int(a).and(int(b)),
        Property::CompositionValid(_, b, _) => int(b),
        Property::BankConflictFree(b) | Property::ConflictDegree(b, ..) | Property::Wavefronts(b, ..) => {
            bank::validate(b)
        }
        Property::Injective(_) | Property::Equal(..) | Property::Compatible(..) => Ok(()),
    }
}
