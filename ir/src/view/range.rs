//! Strided ranges of one mode: the layout of `i ↦ M(start + i*step)` for `i < len`.
//!
//! This is the core of `narrow`, of slicing (`L[2:8:2, ::-1]`) and of `tile_view`. For a leaf
//! mode `s:d` the answer is always `len:(step*d)` at offset `start*d`. For a hierarchical mode
//! the range may or may not be a layout: the first two rows of the 2x2 blocks of
//! `(2,2):(1,4)` (values `0 1 4 5`) are `(2,2):(1,4)` itself, the range `1..3` (values `1 4`) is
//! `2:3` at offset 1, but the range `1..4` (values `1 4 5`) is no layout at all. The result
//! is computed exactly, in this order:
//!
//! 1. the mode is coalesced to mixed-radix digits `(s_0, s_1, ...):(d_0, d_1, ...)`;
//! 2. a negative step walks the reversed range: the range from the last element with
//!    `-step`, then every stride negated (a layout read backwards is a layout);
//! 3. for `step == 1`, when `start` and `len` are multiples of `P = s_0*...*s_{q-1}` and the
//!    range does not carry out of digit `q`, the result is
//!    `(s_0, ..., s_{q-1}, len/P):(d_0, ..., d_{q-1}, d_q)` (no element is enumerated);
//! 4. for `step > 1`, the contiguous range `start..=last` composed with `len:step` (the
//!    composition checks its divisibility conditions and fails rather than approximate);
//! 5. otherwise the differences between consecutive elements are fitted to a layout: a layout
//!    is exactly a sequence whose difference at `i` depends only on the largest `N_t` with
//!    `N_t | i+1` along a chain `1 = N_0 | N_1 | ... | len`, and the greedy search over that
//!    chain is complete. Ranges of more than [`FIT_LIMIT`] elements are not fitted.
//!
//! When none of these applies the range is not a layout, and the answer is
//! [`ViewError::NotALayout`]: never an approximate layout.

use super::error::{ViewError, ViewResult};
use super::leaves::with_single_leaf;
use crate::algebra::composition;
use crate::layout::Layout;
use crate::stride::Stride;

/// The largest range of a hierarchical mode that is fitted element by element.
pub const FIT_LIMIT: i64 = 1 << 20;

fn ovf(what: String) -> ViewError {
    ViewError::overflow(what)
}

fn mul(a: i64, b: i64) -> ViewResult<i64> {
    a.checked_mul(b).ok_or_else(|| ovf(format!("{a} * {b}")))
}

fn add(a: i64, b: i64) -> ViewResult<i64> {
    a.checked_add(b).ok_or_else(|| ovf(format!("{a} + {b}")))
}

/// Merges the flat `(extent, stride)` pairs into mixed-radix digits: size-1 leaves go, and
/// `(s0, d0), (s1, s0*d0)` become `(s0*s1, d0)`. The function on `[0, size)` is unchanged.
pub(crate) fn coalesce_flat(leaves: &[(i64, i64)]) -> Vec<(i64, i64)> {
    let mut out: Vec<(i64, i64)> = Vec::with_capacity(leaves.len());
    for &(s, d) in leaves {
        if s == 1 {
            continue;
        }
        if let Some(last) = out.last_mut()
            && last.0.checked_mul(last.1) == Some(d)
            && let Some(n) = last.0.checked_mul(s)
        {
            last.0 = n;
            continue;
        }
        out.push((s, d));
    }
    out
}

/// The value of mixed-radix digits at index `j` (the last digit absorbs the quotient).
fn eval_digits(digits: &[(i64, i64)], mut j: i64) -> ViewResult<i64> {
    let mut acc = 0i64;
    for (k, &(s, d)) in digits.iter().enumerate() {
        let c = if k + 1 == digits.len() {
            j
        } else {
            let c = j.rem_euclid(s);
            j = j.div_euclid(s);
            c
        };
        acc = add(acc, mul(c, d)?)?;
    }
    Ok(acc)
}

/// A layout of flat digits: a leaf for one digit, `1:0` for none.
fn digits_layout(digits: &[(i64, i64)]) -> Layout<i64> {
    match digits {
        [] => Layout::leaf(1, 0),
        [(s, d)] => Layout::leaf(*s, *d),
        _ => Layout::concat(digits.iter().map(|&(s, d)| Layout::leaf(s, d))),
    }
}

/// The offset and the layout `M'` with `off + M'(i) == M(start + i*step)` for `i < len`.
///
/// The caller guarantees `len >= 1` and that `start` and `start + (len-1)*step` lie in
/// `[0, size(M))`; both are checked again here.
pub(crate) fn range_mode(m: &Layout<i64>, start: i64, len: i64, step: i64) -> ViewResult<(i64, Layout<i64>)> {
    let leaves = super::leaves::int_leaves(m)?;
    let size = m.size()?;
    let last = add(start, mul(len - 1, step)?)?;
    if len < 1 || step == 0 || start < 0 || start >= size || last < 0 || last >= size {
        return Err(ViewError::NotALayout(format!(
            "range start {start}, length {len}, step {step} does not fit mode {m}"
        )));
    }
    if let [(_, d)] = leaves.as_slice() {
        return Ok((mul(start, *d)?, with_single_leaf(m, len, mul(step, *d)?)?));
    }
    if step == 1 && start == 0 && len == size {
        return Ok((0, m.clone()));
    }
    let digits = coalesce_flat(&leaves);
    if len == 1 {
        return Ok((eval_digits(&digits, start)?, Layout::leaf(1, 0)));
    }
    if let [(_, d)] = digits.as_slice() {
        return Ok((mul(start, *d)?, Layout::leaf(len, mul(step, *d)?)));
    }
    let (off, lay) = range_digits(&digits, start, len, step).map_err(|e| match e {
        ViewError::NotALayout(msg) => ViewError::NotALayout(format!(
            "the range start {start}, length {len}, step {step} of mode {m} is not a layout: {msg}"
        )),
        e => e,
    })?;
    Ok((off, lay))
}

/// [`range_mode`] on coalesced digits (at least two of them).
fn range_digits(digits: &[(i64, i64)], start: i64, len: i64, step: i64) -> ViewResult<(i64, Layout<i64>)> {
    if step < 0 {
        let lo = add(start, mul(len - 1, step)?)?;
        let (off, fwd) = range_digits(
            digits,
            lo,
            len,
            step.checked_neg().ok_or_else(|| ovf(format!("-{step}")))?,
        )?;
        return reverse(off, &fwd);
    }
    if step == 1 {
        if let Some(r) = aligned(digits, start, len)? {
            return Ok(r);
        }
    } else {
        let span = add(mul(len - 1, step)?, 1)?;
        if let Some((off, whole)) = aligned(digits, start, span)?
            && let Ok(r) = composition(&whole, &Layout::leaf(len, step))
        {
            return Ok((off, r));
        }
    }
    fit(digits, start, len, step)
}

/// `R(i) == F(len-1-i)`: the same shape with every stride negated, at `off + F(len-1)`.
fn reverse(off: i64, fwd: &Layout<i64>) -> ViewResult<(i64, Layout<i64>)> {
    let leaves = super::leaves::int_leaves(fwd)?;
    let mut end = off;
    for &(s, d) in &leaves {
        end = add(end, mul(s - 1, d)?)?;
    }
    let stride = fwd.stride().try_map(|d| match d {
        Stride::Int(v) => v
            .checked_neg()
            .map(Stride::Int)
            .ok_or_else(|| ovf(format!("-({v})"))),
        _ => Err(ViewError::NonIntegerStride(fwd.to_string())),
    })?;
    Ok((end, Layout::new(fwd.shape().clone(), stride)?))
}

/// Step 3 of the module doc: a range aligned on a digit boundary that does not carry out of
/// the digit above. `None` when no digit fits.
fn aligned(digits: &[(i64, i64)], start: i64, len: i64) -> ViewResult<Option<(i64, Layout<i64>)>> {
    let k = digits.len();
    let mut prefix = Vec::with_capacity(k);
    let mut p = 1i64;
    for &(s, _) in digits {
        prefix.push(p);
        p = mul(p, s)?;
    }
    for q in (0..k).rev() {
        let pq = prefix[q];
        if start % pq != 0 || len % pq != 0 {
            continue;
        }
        let r = len / pq;
        let (sq, dq) = digits[q];
        let cq = if q + 1 == k { start / pq } else { (start / pq) % sq };
        if cq + r > sq {
            continue;
        }
        let mut out: Vec<(i64, i64)> = digits[..q].to_vec();
        if r > 1 || out.is_empty() {
            out.push((r, dq));
        }
        return Ok(Some((eval_digits(digits, start)?, digits_layout(&out))));
    }
    Ok(None)
}

/// Step 5 of the module doc: the exact layout of the elements, from their differences.
fn fit(digits: &[(i64, i64)], start: i64, len: i64, step: i64) -> ViewResult<(i64, Layout<i64>)> {
    if len > FIT_LIMIT {
        return Err(ViewError::NotALayout(format!(
            "not aligned, and longer than the {FIT_LIMIT} elements that are fitted one by one"
        )));
    }
    let n = len as usize;
    let first = eval_digits(digits, start)?;
    let mut vals = Vec::with_capacity(n);
    for i in 0..len {
        vals.push(eval_digits(digits, add(start, mul(i, step)?)?)?);
    }
    // delta[i] = vals[i+1] - vals[i]: the step taken at position i+1.
    let delta: Vec<i64> = vals
        .windows(2)
        .map(|w| {
            w[1].checked_sub(w[0])
                .ok_or_else(|| ovf(format!("{} - {}", w[1], w[0])))
        })
        .collect::<ViewResult<_>>()?;
    let at = |p: usize| delta[p - 1];
    let mut shape: Vec<i64> = Vec::new();
    let mut jumps: Vec<i64> = Vec::new();
    let mut block = 1usize;
    while block < n {
        let m = n / block;
        let e = at(block);
        let mut extent = m;
        for j in 2..m {
            if at(block * j) != e {
                extent = j;
                break;
            }
        }
        if !m.is_multiple_of(extent) {
            return Err(ViewError::NotALayout(format!(
                "the differences repeat every {extent} blocks of {block}, which does not divide {m}"
            )));
        }
        for j in 1..m {
            if !j.is_multiple_of(extent) && at(block * j) != e {
                return Err(ViewError::NotALayout(format!(
                    "the difference at element {} breaks the pattern of period {}",
                    block * j,
                    block * extent
                )));
            }
        }
        shape.push(extent as i64);
        jumps.push(e);
        block *= extent;
    }
    // e_t = E_t + sum_{u<t} (n_u - 1) e_u.
    let mut out: Vec<(i64, i64)> = Vec::with_capacity(shape.len());
    let mut back = 0i64;
    for (&s, &e) in shape.iter().zip(&jumps) {
        let d = add(e, back)?;
        back = add(back, mul(s - 1, d)?)?;
        out.push((s, d));
    }
    let lay = digits_layout(&out);
    // The construction is exact; check it anyway, it is cheap next to the enumeration.
    for (i, v) in vals.iter().enumerate() {
        if add(first, eval_digits(&out, i as i64)?)? != *v {
            return Err(ViewError::NotALayout(format!("no layout matches element {i}")));
        }
    }
    Ok((first, lay))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_layout;

    /// Every ordered factorization of `n` into factors of at least 2.
    fn factorizations(n: i64) -> Vec<Vec<i64>> {
        if n == 1 {
            return vec![vec![]];
        }
        let mut out = Vec::new();
        for f in 2..=n {
            if n % f == 0 {
                for mut rest in factorizations(n / f) {
                    rest.insert(0, f);
                    out.push(rest);
                }
            }
        }
        out
    }

    /// Whether some flat layout reproduces the values (its strides are forced by them).
    fn some_layout_fits(vals: &[i64]) -> bool {
        let n = vals.len() as i64;
        factorizations(n).into_iter().any(|shape| {
            let mut digits = Vec::new();
            let mut block = 1i64;
            for &s in &shape {
                digits.push((s, vals[block as usize] - vals[0]));
                block *= s;
            }
            (0..n).all(|i| vals[0] + eval_digits(&digits, i).unwrap() == vals[i as usize])
        })
    }

    fn brute(m: &Layout<i64>, start: i64, len: i64, step: i64) {
        let (off, r) = match range_mode(m, start, len, step) {
            Ok(x) => x,
            Err(ViewError::NotALayout(msg)) => {
                let vals: Vec<i64> = (0..len)
                    .map(|i| *m.eval_index(&(start + i * step)).unwrap().as_int().unwrap())
                    .collect();
                assert!(
                    !some_layout_fits(&vals),
                    "{m} [{start}, {len}, {step}]: {msg}, but {vals:?} is a layout"
                );
                return;
            }
            Err(e) => panic!("{e}"),
        };
        assert_eq!(r.size().unwrap(), len, "{m} {start} {len} {step} -> {r}");
        for i in 0..len {
            let want = m.eval_index(&(start + i * step)).unwrap();
            let got = off + r.eval_index(&i).unwrap().as_int().copied().unwrap();
            assert_eq!(
                Stride::Int(got),
                want,
                "{m} [{start}, {len}, {step}] -> {off} o {r} at {i}"
            );
        }
    }

    #[test]
    fn examples_of_the_module_doc() {
        let m = parse_layout("(2,2):(1,4)").unwrap();
        assert_eq!(range_mode(&m, 1, 2, 1).unwrap().1.to_string(), "2:3");
        assert!(matches!(range_mode(&m, 1, 3, 1), Err(ViewError::NotALayout(_))));
        let (off, r) = range_mode(&m, 3, 4, -1).unwrap();
        assert_eq!((off, r.to_string()), (5, "(2,2):(-1,-4)".to_string()));
        let m = parse_layout("(4,(2,3)):(1,(8,4))").unwrap();
        let (off, r) = range_mode(&m, 0, 12, 2).unwrap();
        assert_eq!(off, 0);
        assert_eq!(r.size().unwrap(), 12);
    }

    #[test]
    fn every_range_of_small_modes() {
        for src in [
            "(2,2):(1,4)",
            "(2,3):(3,1)",
            "(3,2,2):(2,0,7)",
            "(2,(2,3)):(5,(1,-2))",
            "(4,3):(1,4)",
        ] {
            let m = parse_layout(src).unwrap();
            let n = m.size().unwrap();
            for start in 0..n {
                for step in [-3, -2, -1, 1, 2, 3] {
                    for len in 1..=n {
                        let last = start + (len - 1) * step;
                        if (0..n).contains(&last) {
                            brute(&m, start, len, step);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn aligned_ranges_are_found_without_fitting() {
        let m = parse_layout("(1024,1024):(1,4096)").unwrap();
        let (off, r) = range_mode(&m, 2048, 4096, 1).unwrap();
        assert_eq!((off, r.to_string()), (8192, "(1024,4):(1,4096)".to_string()));
    }
}
