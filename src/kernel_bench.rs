//! `tessera run --verify` and `--bench`: comparing the compiled kernel's outputs with the
//! reference interpreter's, and timing the kernel against references measured in the same run
//! (`memcpy` of the same bytes; for a contraction, the naive loop over the same layouts).

use std::collections::HashMap;
use std::time::{Duration, Instant};
use tessera_codegen::CompiledKernel;
use tessera_codegen::kernel::huge_pages::try_filled;
use tessera_codegen::kernel::{Access, BinOp, Buffer, ElemType, Kernel, Op, Stmt, StoreKind};

/// The relative tolerance of outputs whose sums are reordered (see
/// [`CompiledKernel::bit_exact`]): `|got - want| <= TOLERANCE * (m + 1)`, where `m` is the
/// magnitude the element was summed from (`|initial| + |term_1| + ... + |term_n|`, from
/// [`run_with_magnitudes`](tessera_codegen::kernel::run_with_magnitudes)) where the reference
/// interpreter gave it, else `|want|`. Relative to the magnitude, not to the sum: a sum that
/// cancels to nearly zero differs between two summation orders by rounding errors of the
/// size of its terms.
pub const TOLERANCE: f64 = 1e-4;

/// Every element of a buffer, as f64 (for tolerances) and as bits (for exact comparison).
fn elements(b: &Buffer) -> (Vec<f64>, Vec<u64>) {
    match b {
        Buffer::F32(v) => (
            v.iter().map(|x| f64::from(*x)).collect(),
            v.iter().map(|x| u64::from(x.to_bits())).collect(),
        ),
        Buffer::F64(v) => (v.clone(), v.iter().map(|x| x.to_bits()).collect()),
        Buffer::I32(v) => (
            v.iter().map(|x| f64::from(*x)).collect(),
            v.iter().map(|x| *x as u32 as u64).collect(),
        ),
        Buffer::I64(v) => (
            v.iter().map(|x| *x as f64).collect(),
            v.iter().map(|x| *x as u64).collect(),
        ),
        Buffer::F16(v) => (
            v.iter().map(|x| x.to_f64()).collect(),
            v.iter().map(|x| u64::from(x.to_bits())).collect(),
        ),
        Buffer::BF16(v) => (
            v.iter().map(|x| x.to_f64()).collect(),
            v.iter().map(|x| u64::from(x.to_bits())).collect(),
        ),
    }
}

/// Compares the buffers after the interpreter (`want`, with the `magnitudes` of its elements
/// where known) and the JIT (`got`): bit for bit when `exact`, else within [`TOLERANCE`]. The
/// first difference is the error.
pub fn compare(
    k: &Kernel,
    want: &[Buffer],
    magnitudes: Option<&[Vec<f64>]>,
    got: &[Buffer],
    exact: bool,
) -> Result<String, String> {
    let loose = vec![!exact; k.tensors.len()];
    compare_runs(
        k,
        want,
        magnitudes,
        got,
        &loose,
        ["the reference interpreter", "the JIT"],
    )
}

/// The tensors whose results depend on the order of a sum: the targets of the `+=` statements
/// of floats with a contraction (a backend may reorder or fuse their sums).
pub fn reordered_sums(k: &Kernel) -> Vec<bool> {
    let mut loose = vec![false; k.tensors.len()];
    for s in &k.stmts {
        let t = s.target.tensor.index();
        if s.kind == StoreKind::Accumulate && !s.contraction.is_empty() && k.tensors[t].elem.is_float() {
            loose[t] = true;
        }
    }
    loose
}

/// Compares the buffers of two runs, `want` (by `who[0]`) and `got` (by `who[1]`): tensor `t`
/// within [`TOLERANCE`] where `loose[t]` (relative to the reference's `magnitudes` where
/// given), else bit for bit. The first difference is the error; the summary names `who[0]`, the
/// reference.
pub fn compare_runs(
    k: &Kernel,
    want: &[Buffer],
    magnitudes: Option<&[Vec<f64>]>,
    got: &[Buffer],
    loose: &[bool],
    who: [&str; 2],
) -> Result<String, String> {
    let mut n = 0usize;
    let mut worst = 0f64;
    for (t, (w, g)) in want.iter().zip(got).enumerate() {
        let ((wv, wb), (gv, gb)) = (elements(w), elements(g));
        if wb.len() != gb.len() {
            return Err(format!(
                "tensor {}: {} gives {} elements, {} {}",
                k.tensors[t].name,
                who[0],
                wb.len(),
                who[1],
                gb.len()
            ));
        }
        let exact = !loose.get(t).copied().unwrap_or(false);
        for i in 0..wb.len() {
            n += 1;
            if wb[i] == gb[i] {
                continue;
            }
            // Under tolerance a NaN equals a NaN (both engines store the canonical NaN for a
            // computed value, but a reordered sum may make it elsewhere), and an infinity
            // only itself.
            if !exact && wv[i].is_nan() && gv[i].is_nan() {
                continue;
            }
            let scale = magnitudes
                .and_then(|m| m.get(t)?.get(i).copied())
                .filter(|m| m.is_finite())
                .map_or(wv[i].abs(), |m| m.max(wv[i].abs()));
            let err = (gv[i] - wv[i]).abs() / (scale + 1.0);
            if exact || err.is_nan() || err > TOLERANCE {
                return Err(format!(
                    "tensor {} element {i}: {} gives {} (bits {:#x}), {} {} (bits {:#x})",
                    k.tensors[t].name, who[0], wv[i], wb[i], who[1], gv[i], gb[i]
                ));
            }
            worst = worst.max(err);
        }
    }
    let reference = who[0];
    Ok(if !loose.iter().any(|l| *l) {
        format!("{n} elements bit-identical to {reference}")
    } else if loose.iter().all(|l| *l) {
        format!("{n} elements within {TOLERANCE:e} of {reference} (worst {worst:.1e})")
    } else {
        format!(
            "{n} elements equal to {reference}: bit for bit, the sums of `+=` within {TOLERANCE:e} (worst {worst:.1e})"
        )
    })
}

/// The median of `runs` timings of `f` after one warm-up run (at least 3, at most 50, about
/// half a second).
fn median(mut f: impl FnMut()) -> Duration {
    f();
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < 3 || (times.len() < 50 && start.elapsed() < Duration::from_millis(500)) {
        let t = Instant::now();
        f();
        times.push(t.elapsed());
    }
    times.sort();
    times[times.len() / 2]
}

/// Bytes of every buffer read plus every buffer written (once each), and floating-point or
/// integer operations of the contractions (one per arithmetic node and one per sum, at every
/// point); `extents` holds each index's extent at the run's values.
pub fn traffic(k: &Kernel, bufs: &[Buffer], extents: &[i64]) -> (f64, f64) {
    let bytes = |t: usize| (bufs[t].len() * k.tensors[t].elem.bytes()) as f64;
    let mut read = vec![false; k.tensors.len()];
    let mut written = vec![false; k.tensors.len()];
    let mut ops = 0f64;
    for s in &k.stmts {
        written[s.target.tensor.index()] = true;
        if s.kind == StoreKind::Accumulate {
            read[s.target.tensor.index()] = true;
        }
        let mut arith = 0f64;
        for n in &s.nodes {
            match &n.op {
                Op::Load(a) => read[a.tensor.index()] = true,
                Op::Int(_) | Op::Float(_) | Op::Cast(_) => {}
                _ => arith += 1.0,
            }
        }
        if !s.contraction.is_empty() {
            let points: f64 = s
                .outer
                .iter()
                .chain(&s.contraction)
                .map(|x| extents[x.index()] as f64)
                .product();
            ops += points * (arith + 1.0);
        }
    }
    let total = (0..k.tensors.len())
        .map(|t| bytes(t) * (f64::from(u8::from(read[t])) + f64::from(u8::from(written[t]))))
        .sum();
    (total, ops)
}

/// Prints the `--bench` figures, one `key=value` per line.
pub fn report(
    k: &Kernel,
    jit: &CompiledKernel,
    bufs: &mut [Buffer],
    threads: usize,
    bindings: &HashMap<String, i64>,
    proof: Duration,
) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let extents: Vec<i64> = k
        .indices
        .iter()
        .map(|x| x.extent.eval(bindings).unwrap_or(0))
        .collect();
    let t = jit.times();
    println!("kernel={}", k.name);
    println!("threads={threads}");
    println!("proof_ms={:.3}", ms(proof));
    println!("simplify_ms={:.3}", ms(t.simplify));
    println!("validate_ms={:.3}", ms(t.validate));
    println!("contiguity_proofs_ms={:.3}", ms(t.proofs));
    println!("compile_ms={:.3}", ms(t.compile));
    let time = median(|| {
        // Timing only: the first run's results were kept (and verified) before this.
        let _ = jit.run(bufs, threads);
    });
    let (bytes, ops) = traffic(k, bufs, &extents);
    println!("time_ms={:.3}", ms(time));
    println!("bytes={bytes}");
    let gbps = bytes / time.as_secs_f64() / 1e9;
    println!("gbps={gbps:.2}");
    let half = (bytes / 2.0) as usize;
    // Backed like the kernel's buffers (huge pages where the system gives them).
    match (try_filled(half, 1u8), try_filled(half, 0u8)) {
        (Ok(src), Ok(mut dst)) => {
            let mc = median(|| {
                dst.copy_from_slice(std::hint::black_box(&src));
                std::hint::black_box(&mut dst);
            });
            let mgbps = bytes / mc.as_secs_f64() / 1e9;
            println!("memcpy_gbps={mgbps:.2}");
            println!("ratio_memcpy={:.3}", gbps / mgbps);
        }
        _ => println!("memcpy_gbps=unavailable (cannot allocate 2 x {half} bytes)"),
    }
    if ops > 0.0 {
        let gf = ops / time.as_secs_f64() / 1e9;
        println!("gflops={gf:.3}");
        if let Some(m) = jit.gemm_micros().first() {
            println!("gemm_micro={}", format!("{m:?}").to_lowercase());
        }
        if let Some(t) = naive(k, bufs, &extents, bindings) {
            let ngf = ops / t.as_secs_f64() / 1e9;
            println!("naive_gflops={ngf:.3}");
            println!("ratio_naive={:.2}", gf / ngf);
        }
    }
}

/// The offsets of a tensor at every point of its dimensions (the first fastest).
fn table(k: &Kernel, t: usize, bindings: &HashMap<String, i64>) -> Option<Vec<usize>> {
    let c = k.tensors[t].layout.at(bindings).ok()?;
    let n = c.size().ok()?;
    (0..n)
        .map(|i| c.offset(i).ok().and_then(|o| usize::try_from(o).ok()))
        .collect()
}

/// The time of the naive triple loop (`i`, `j` outer, the contraction inner) of the kernel's
/// first `f32` matrix-product statement (`C[x,y] += A[..] * B[..]`, one contraction index),
/// over tables of the layouts' offsets; `None` without one.
fn naive(k: &Kernel, bufs: &[Buffer], extents: &[i64], bindings: &HashMap<String, i64>) -> Option<Duration> {
    let product = |s: &Stmt| -> Option<(Access, Access)> {
        if s.kind != StoreKind::Accumulate
            || s.contraction.len() != 1
            || s.outer.len() != 2
            || s.nodes.len() != 3
        {
            return None;
        }
        let Op::Binary(BinOp::Mul, l, r) = s.nodes[s.value.index()].op else {
            return None;
        };
        let load = |v: usize| match &s.nodes[v].op {
            Op::Load(a) if a.indices.len() == 2 => Some(a.clone()),
            _ => None,
        };
        Some((load(l.index())?, load(r.index())?))
    };
    let (s, (a, b)) = k.stmts.iter().find_map(|s| Some((s, product(s)?)))?;
    let ts = [s.target.tensor.index(), a.tensor.index(), b.tensor.index()];
    if ts.iter().any(|&t| k.tensors[t].elem != ElemType::F32) || ts[0] == ts[1] || ts[0] == ts[2] {
        return None;
    }
    let tabs: Vec<Vec<usize>> = ts.iter().map(|&t| table(k, t, bindings)).collect::<Option<_>>()?;
    let (x, y, z) = (s.outer[0].index(), s.outer[1].index(), s.contraction[0].index());
    let (nx, ny, nz) = (extents[x] as usize, extents[y] as usize, extents[z] as usize);
    // Each access's linear index as `u * v0 + w * v1` over the values (i, j, k): the
    // multipliers of its two indices.
    let coef = |acc: &Access| -> [usize; 3] {
        let d0 = k.tensors[acc.tensor.index()].dims[0].eval(bindings).unwrap_or(0) as usize;
        let mut m = [0usize; 3];
        for (pos, id) in acc.indices.iter().enumerate() {
            let slot = if id.index() == x {
                0
            } else if id.index() == y {
                1
            } else {
                2
            };
            m[slot] += if pos == 0 { 1 } else { d0 };
        }
        m
    };
    let (mc, ma, mb) = (coef(&s.target), coef(&a), coef(&b));
    let lin = |m: &[usize; 3], v: [usize; 3]| m[0] * v[0] + m[1] * v[1] + m[2] * v[2];
    let (Buffer::F32(av), Buffer::F32(bv)) = (&bufs[ts[1]], &bufs[ts[2]]) else {
        return None;
    };
    let mut c = match &bufs[ts[0]] {
        Buffer::F32(v) => v.clone(),
        _ => return None,
    };
    Some(median(|| {
        for i in 0..nx {
            for j in 0..ny {
                let co = tabs[0][lin(&mc, [i, j, 0])];
                let mut acc = c[co];
                for kk in 0..nz {
                    acc += av[tabs[1][lin(&ma, [i, j, kk])]] * bv[tabs[2][lin(&mb, [i, j, kk])]];
                }
                c[co] = acc;
            }
        }
        std::hint::black_box(&mut c);
    }))
}
