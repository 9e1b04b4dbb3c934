//! Properties that compare two affine maps over GF(2) on all of `[0, 2^n)`: two maps agree on
//! every index exactly when their constants and their columns agree, so each question is
//! decided by comparing `n + 1` words, and a disagreement names its index (`0`, or the power
//! of two of the first differing column).
//!
//! * `equal(A, B)`: the maps themselves (sizes first).
//! * `contiguous(L)`: `L(i) = L(0) + i`; when the constant has no bit below `n`, `c + i` is
//!   `c ⊕ i`, so the columns must be the unit vectors. (A constant with low bits is left to
//!   the other engines: the sum carries.)
//! * `left_inverse_valid(L, R)`: `R ∘ L` is the identity of `L`'s index bits (its matrix is
//!   the product, [`F2Layout::compose`]); `right_inverse_valid` the other way round.
//! * `composition_valid(A, B, R)`: `A ∘ B` equals `R`.
//!
//! A composition reads the outer map at the inner map's values, so it is exact only when
//! those lie below the outer map's size (where its F2 form holds); otherwise the question is
//! left to the other engines.

use super::F2Layout;
use crate::checks::{recheck_composition, recheck_contiguous, recheck_equal, recheck_inverse};
use crate::context::{Ctx, Vals, confirm, refuted_without_witness};
use crate::error::PResult;
use crate::func::Func;
use crate::verdict::Verdict;
use tessera_ir::shape;

/// The first index where two maps of `n` index bits differ: `0`, or a power of two.
fn difference(a: &F2Layout, b: &F2Layout) -> Option<u64> {
    if a.constant != b.constant || a.inputs() != b.inputs() {
        return Some(0);
    }
    let j = a
        .matrix
        .cols()
        .iter()
        .zip(b.matrix.cols())
        .position(|(x, y)| x != y)?;
    Some(1u64 << j)
}

/// The identity of `n` index bits.
fn identity(n: u32) -> F2Layout {
    let cols: Vec<u64> = (0..n).map(|j| 1u64 << j).collect();
    F2Layout {
        matrix: super::BitMatrix::from_cols(&cols),
        constant: 0,
    }
}

/// `Proved` when `got` and `want` agree on every index, else the re-checked refutation at
/// their first difference (`name`: the index variable the re-check reads).
fn agree(
    ctx: &Ctx,
    got: &F2Layout,
    want: &F2Layout,
    name: &str,
    recheck: impl FnOnce(&Vals, &Vals) -> PResult<Option<crate::verdict::Counterexample>>,
) -> PResult<Result<Verdict, String>> {
    let Some(x) = difference(got, want) else {
        return Ok(Ok(Verdict::Proved));
    };
    let idx = Vals::from([(name.to_string(), x as i64)]);
    Ok(Ok(confirm(ctx, Vals::new(), idx, recheck)?))
}

pub(crate) fn equal(
    ctx: &Ctx,
    a: &Func,
    b: &Func,
    la: &F2Layout,
    lb: &F2Layout,
) -> PResult<Result<Verdict, String>> {
    if la.inputs() != lb.inputs() {
        return Ok(Ok(refuted_without_witness(format!(
            "size(A) = {} but size(B) = {}",
            a.size()?,
            b.size()?
        ))));
    }
    agree(ctx, lb, la, "x", |ps, idx| recheck_equal(a, b, ps, idx))
}

pub(crate) fn contiguous(ctx: &Ctx, f: &Func, l: &F2Layout) -> PResult<Result<Verdict, String>> {
    let n = l.inputs();
    let low = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    if l.constant & low != 0 {
        return Ok(Err(format!(
            "the offset {} has bits below 2^{n}: L(0) + i carries",
            l.constant
        )));
    }
    let want = F2Layout {
        constant: l.constant,
        ..identity(n)
    };
    agree(ctx, l, &want, "i", |ps, idx| recheck_contiguous(f, ps, idx))
}

/// `outer(inner(x)) == x` for every index `x` of `inner`.
pub(crate) fn inverse(
    ctx: &Ctx,
    (inner, li): (&Func, &F2Layout),
    (outer, lo): (&Func, &F2Layout),
    what: &str,
) -> PResult<Result<Verdict, String>> {
    let Some(round) = lo.compose(li) else {
        return Ok(Err(format!(
            "{inner} reaches past the size of {outer}, where its F2 form does not hold"
        )));
    };
    agree(ctx, &round, &identity(li.inputs()), "x", |ps, idx| {
        recheck_inverse(inner, outer, what, ps, idx)
    })
}

/// `R(i) == A(B(i))` for every index `i` of `B`, and `R`'s shape compatible with `B`'s.
pub(crate) fn composition(
    ctx: &Ctx,
    (a, la): (&Func, &F2Layout),
    (b, lb): (&Func, &F2Layout),
    (r, lr): (&Func, &F2Layout),
) -> PResult<Result<Verdict, String>> {
    if !shape::compatible(b.shape(), r.shape())? {
        return Ok(Ok(refuted_without_witness(format!(
            "shape {} of B does not coarsen shape {} of R",
            b.shape(),
            r.shape()
        ))));
    }
    let Some(ab) = la.compose(lb) else {
        return Ok(Err(format!(
            "{b} reaches past the size of {a}, where its F2 form does not hold"
        )));
    };
    agree(ctx, lr, &ab, "i", |ps, idx| recheck_composition(a, b, r, ps, idx))
}
