//! The index code of each tensor at the launch's parameter values: its layout lowered to the
//! index IR over its dimensions' coordinates `c0, c1, ..`, simplified with egg and validated
//! (the simplified form is used only when proved equal on the domain), the signature the
//! compiled code assumes, the buffer length, and the interval analysis's verdict on whether
//! every offset lies inside the buffer. Also the contiguity proofs that decide vectorisation.

use crate::kernel::{ElemType, Tensor};
use crate::memo::{Memo, proved_memo};
use crate::signature::Signature;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tessera_ir::index::{IndexExpr, Var, lower_composed_modes, lower_modes};
use tessera_ir::simplify::{Domain, Limits};
use tessera_ir::sym::{Facts, Interval};
use tessera_verifier::{Concrete, Options, Verdict, prove_equivalent, simplify_validated};

/// One tensor's index code and buffer.
#[derive(Clone, Debug)]
pub(crate) struct TensorCode {
    /// The element type.
    pub elem: ElemType,
    /// Offsets over `c0, c1, ..` (one per dimension), simplified and validated.
    pub expr: IndexExpr,
    /// The arguments `c0, ..` and their ranges `[0, extent)`.
    pub sig: Signature,
    /// The extent of each dimension.
    pub dims: Vec<i64>,
    /// The buffer's length: the cosize at the launch's values.
    pub len: usize,
    /// Whether the interval analysis proves every offset inside `[0, len)`.
    pub in_bounds: bool,
}

/// Time spent preparing index code.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PrepTime {
    /// Lowering and egg.
    pub simplify: Duration,
    /// Validating the simplified forms (enumeration or z3).
    pub validate: Duration,
}

/// The index code of `t` at `bindings`; the simplified and validated expression is recalled
/// from `memo` when it holds it, and recorded there otherwise.
pub(crate) fn tensor_code(
    t: &Tensor,
    bindings: &HashMap<String, i64>,
    validate: bool,
    time: &mut PrepTime,
    memo: &dyn Memo,
) -> Result<TensorCode, String> {
    let start = Instant::now();
    let err = |e: tessera_ir::Error| format!("tensor {}: {e}", t.name);
    let dims: Vec<i64> = t
        .dims
        .iter()
        .map(|d| d.eval(bindings))
        .collect::<Result<_, _>>()
        .map_err(err)?;
    let cosize = t.cosize.eval(bindings).map_err(err)?;
    let len =
        usize::try_from(cosize).map_err(|_| format!("tensor {}: cosize {cosize} is negative", t.name))?;
    let expr = match t.layout.at(bindings).map_err(err)? {
        Concrete::Layout(l) => lower_modes(&l),
        Concrete::Composed(c) => lower_composed_modes(&c),
    }
    .map_err(err)?;
    if expr.outputs().len() != 1 {
        return Err(format!(
            "tensor {}: its layout has {} outputs, not one offset",
            t.name,
            expr.outputs().len()
        ));
    }
    let args: Vec<Var> = (0..dims.len()).map(|d| Var::Coord(d as u32)).collect();
    let empty = dims.iter().any(|&n| n <= 0);
    let sig = crate::jit::coords_signature(&dims);
    if empty {
        time.simplify += start.elapsed();
        return Ok(TensorCode {
            elem: t.elem,
            expr,
            sig,
            dims,
            len,
            in_bounds: true,
        });
    }
    let mut domain = Domain::default();
    for (v, &n) in args.iter().zip(&dims) {
        domain.range(v.clone(), 0, n - 1);
    }
    // The question holds all the answer depends on: the lowered expression at the launch's
    // values, its domain (each coordinate below its extent, no parameter), the limits and
    // whether to validate. Validation is bounded by z3's resource limit (a wall-clock limit
    // ends in an error, never in an answer), so the answer is deterministic.
    let limits = Limits::default();
    let question = format!(
        "validate={validate}\nlimits={limits:?}\ndims={dims:?}\nexpr:\n{}",
        expr.record()
    );
    let recalled = memo
        .recall("index", &question)
        .and_then(|r| IndexExpr::from_record(&r))
        .filter(|e| e.outputs().len() == 1);
    let expr = match recalled {
        Some(e) => {
            time.simplify += start.elapsed();
            e
        }
        None => {
            let facts = Arc::new(Facts::default());
            let opts = Options { timeout_ms: None };
            let v = simplify_validated(&expr, &domain, &facts, &limits, &opts, validate).map_err(err)?;
            time.simplify +=
                v.simplify_time + (start.elapsed().saturating_sub(v.simplify_time + v.validate_time));
            time.validate += v.validate_time;
            memo.record("index", &question, &v.expr.record());
            v.expr
        }
    };
    let r = expr.intervals(domain.ranges())[expr.outputs()[0].1.index()];
    let in_bounds = matches!((r.lo(), r.hi()), (Some(lo), Some(hi)) if lo >= 0 && hi < len as i128);
    Ok(TensorCode {
        elem: t.elem,
        expr,
        sig,
        dims,
        len,
        in_bounds,
    })
}

/// Whether `e(c_d + 1) == e(c_d) + step` for every point with `c_d` below its last value,
/// proved by the verifier (enumeration or z3, within `timeout_ms`): `step` 1 is contiguity,
/// 0 invariance. A proof or a refutation is recalled from `memo`, or recorded there.
pub(crate) fn proves_step(code: &TensorCode, d: usize, step: i64, timeout_ms: u64, memo: &dyn Memo) -> bool {
    let n = code.dims[d];
    if n < 2 {
        // One value along `d`: nothing moves.
        return true;
    }
    // A proof or a refutation (a counterexample, re-checked) is recorded; an unknown is not:
    // it may be the wall-clock limit's.
    let question = format!(
        "d={d} step={step} timeout_ms={timeout_ms}\ndims={:?}\nassumptions={:?}\nexpr:\n{}",
        code.dims,
        code.sig.assumptions,
        code.expr.record()
    );
    proved_memo(memo, "step", &question, || {
        Some(step_verdict(code, d, step, timeout_ms))
    })
}

/// The verifier's verdict on [`proves_step`]'s question (`n >= 2` values along `d`).
fn step_verdict(code: &TensorCode, d: usize, step: i64, timeout_ms: u64) -> Verdict {
    let n = code.dims[d];
    let mut ranges: HashMap<Var, Interval> = code
        .sig
        .assumptions
        .iter()
        .map(|a| {
            (
                a.var.clone(),
                Interval::new(a.lo.map(i128::from), a.hi.map(i128::from)),
            )
        })
        .collect();
    let v = Var::Coord(d as u32);
    ranges.insert(v.clone(), Interval::new(Some(0), Some(i128::from(n) - 2)));
    let next = code.expr.shifted(&v, 1, -step);
    let facts = Arc::new(Facts::default());
    let opts = Options {
        timeout_ms: Some(timeout_ms),
    };
    prove_equivalent(&next, &code.expr, &ranges, &facts, &opts)
}

/// The apparent step of `e` along `c_d` at the origin and at the far corner (a cheap guess to
/// pick which proofs to attempt; never a proof).
pub(crate) fn apparent_step(code: &TensorCode, d: usize) -> Option<i64> {
    if code.dims[d] < 2 {
        return Some(0);
    }
    let at = |pt: &[i64]| -> Option<i64> {
        let inputs: HashMap<Var, i64> = pt
            .iter()
            .enumerate()
            .map(|(k, &c)| (Var::Coord(k as u32), c))
            .collect();
        code.expr.eval_vars(&inputs).ok()?.first().copied()
    };
    let mut lo = vec![0i64; code.dims.len()];
    let mut hi: Vec<i64> = code.dims.iter().map(|&n| (n - 1).max(0)).collect();
    let s0 = {
        let a = at(&lo)?;
        lo[d] = 1;
        at(&lo)? - a
    };
    let s1 = {
        let a = at(&hi)?;
        hi[d] -= 1;
        a - at(&hi)?
    };
    (s0 == s1).then_some(s0)
}
