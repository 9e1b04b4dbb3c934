//! 16-bit floats converted in tiles (`HalfPath`): every way the JIT converts `f16` and `bf16`
//! (tiles by the CPU's F16C instructions where this machine has them, the same tiles in
//! software, the inline Cranelift conversions) equals the reference interpreter bit for bit:
//! every f16 and bf16 bit pattern widened, sums and fused products that land on, just above
//! and just below every halfway point between neighbours (normal and subnormal, both signs,
//! overflow to infinity), NaNs; chunks cut at odd places, partial tiles, a target read in
//! place, an invariant 16-bit load, 1 and 2 threads.

#[path = "support/kernel_gen.rs"]
mod kernel_gen;
use kernel_gen::{bind, buffer, kernel, opts};
use std::collections::HashMap;
use tessera_codegen::kernel::{Buffer, ElemType, Proved, bf16_to_f32, f16_to_f32, run};
use tessera_codegen::{CompiledKernel, HalfPath, JitOptions, StmtPath};

const PATHS: [HalfPath; 3] = [HalfPath::Tiles, HalfPath::SoftwareTiles, HalfPath::Inline];

const SRC: &str = "\
param N where 1 <= N <= 1048576
tensor h : f16[N:1]
tensor g : f16[N:1]
tensor e : f16[N:1]
tensor yh : f16[N:1]
tensor y : f32[N:1]
kernel widen { y[i] = f32(h[i]) }
kernel add { yh[i] = h[i] + g[i] }
kernel fma3 { yh[i] = fma(h[i], g[i], e[i]) }
kernel relu { yh[i] = max(h[i] * g[i], 0) }
tensor hb : bf16[N:1]
tensor gb : bf16[N:1]
tensor eb : bf16[N:1]
tensor yb : bf16[N:1]
kernel widen_b { y[i] = f32(hb[i]) }
kernel add_b { yb[i] = hb[i] + gb[i] }
kernel fma3_b { yb[i] = fma(hb[i], gb[i], eb[i]) }
";

fn bits(b: &Buffer) -> Vec<u32> {
    match b {
        Buffer::F32(v) => v.iter().map(|x| x.to_bits()).collect(),
        Buffer::F16(v) => v.iter().map(|x| u32::from(x.to_bits())).collect(),
        Buffer::BF16(v) => v.iter().map(|x| u32::from(x.to_bits())).collect(),
        _ => unreachable!("16- and 32-bit floats only"),
    }
}

/// Runs kernel `name` of `src` at `b` from `inputs` on the interpreter and on the JIT with
/// every [`HalfPath`] at 1 and 2 threads, and asserts every result equals the interpreter's,
/// bit for bit; returns the interpreter's buffers and each path's `half_tiles`.
fn agree(src: &str, name: &str, b: &HashMap<String, i64>, inputs: &[Buffer]) -> (Vec<Buffer>, Vec<bool>) {
    let p = Proved::check_at(kernel(src, name), b, &opts(), false).unwrap();
    let mut want = inputs.to_vec();
    run(&p, b, &mut want).unwrap();
    let mut tiles = Vec::new();
    for half in PATHS {
        let o = JitOptions {
            half,
            ..JitOptions::default()
        };
        let jit = CompiledKernel::compile(&p, b, &o).unwrap();
        tiles.push(jit.half_tiles().iter().any(|t| *t));
        if half == HalfPath::Inline {
            assert!(jit.half_tiles().iter().all(|t| !t));
        }
        for threads in [1, 2] {
            let mut got = inputs.to_vec();
            jit.run(&mut got, threads).unwrap();
            for (t, (w, g)) in want.iter().zip(&got).enumerate() {
                let (w, g) = (bits(w), bits(g));
                if let Some(i) = (0..w.len()).find(|&i| w[i] != g[i]) {
                    panic!(
                        "{name} {half:?} {threads} thread(s), tensor {t} element {i}: interpreter {:#x}, JIT {:#x} (inputs {:?})",
                        w[i],
                        g[i],
                        inputs
                            .iter()
                            .map(|x| bits(x).get(i).copied().unwrap_or(0))
                            .collect::<Vec<_>>()
                    );
                }
            }
        }
    }
    (want, tiles)
}

/// The kernel's buffers at `n` elements, the named ones given, the rest zero.
fn inputs(p_src: &str, name: &str, n: usize, given: &[(&str, Buffer)]) -> Vec<Buffer> {
    let k = kernel(p_src, name);
    k.tensors
        .iter()
        .map(|t| {
            given
                .iter()
                .find(|(g, _)| *g == t.name)
                .map(|(_, b)| b.clone())
                .unwrap_or_else(|| Buffer::zeros(t.elem, n))
        })
        .collect()
}

fn f16s(v: &[u16]) -> Buffer {
    Buffer::F16(v.iter().map(|x| half::f16::from_bits(*x)).collect())
}

fn bf16s(v: &[u16]) -> Buffer {
    Buffer::BF16(v.iter().map(|x| half::bf16::from_bits(*x)).collect())
}

/// Every f16 and every bf16 bit pattern (NaNs, infinities, subnormals, both zeros) widens to
/// the interpreter's f32 on every path, and the tiled paths are taken.
#[test]
fn every_16_bit_pattern_widens_as_the_interpreter() {
    let all: Vec<u16> = (0..=u16::MAX).collect();
    let n = all.len();
    let b = bind(&[("N", n as i64)]);
    for (name, t, buf) in [("widen", "h", f16s(&all)), ("widen_b", "hb", bf16s(&all))] {
        let ins = inputs(SRC, name, n, &[(t, buf)]);
        let (want, tiles) = agree(SRC, name, &b, &ins);
        assert_eq!(tiles, [true, true, false], "{name}");
        // Not vacuous: the finite values are the exact widenings.
        let y = bits(&want[0]);
        let widen = if name == "widen" { f16_to_f32 } else { bf16_to_f32 };
        for (h, w) in all.iter().zip(&y) {
            if !widen(*h).is_nan() {
                assert_eq!(*w, widen(*h).to_bits());
            }
        }
    }
}

/// Whether `t` lies exactly halfway between two neighbouring finite f16 values.
fn f16_tie(t: f64) -> bool {
    let n = half::f16::from_f64(t).to_bits();
    let d = |c: u16| (f64::from(f16_to_f32(c)) - t).abs();
    [n.wrapping_sub(1), n.wrapping_add(1)]
        .iter()
        .any(|c| !f16_to_f32(*c).is_nan() && d(*c) == d(n) && d(n) > 0.0)
}

/// `fma(h, g, e)` at, just above and just below the halfway point between every finite f16
/// and its upper neighbour, both signs: `v + half_ulp` as `fma(2^a, 2^b, v)` with
/// `a + b = exp(v) - 26`, both powers f16 (exact in f32); so
/// narrowing meets every tie (some rounding down, some up: to the even neighbour), and the
/// largest finite value plus half an ulp overflows to infinity. `h + g` with the normal rows.
#[test]
fn narrowing_meets_every_f16_tie_as_the_interpreter() {
    let f = |x: f32| half::f16::from_f32(x).to_bits();
    let (mut h, mut g, mut e, mut tie_row) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut offset = Vec::new();
    for v in (0u16..0x7c00).flat_map(|x| [x, x | 0x8000]) {
        // Half an ulp of v is 2^(exp - 26) = 2^a * 2^b, both factors f16 (normal).
        let exp = i32::from((v >> 10) & 0x1f).max(1);
        let a = if exp >= 29 { -8 } else { -12 };
        let s = if v & 0x8000 == 0 { 1.0 } else { -1.0 };
        for (k, gg) in [1.0, 1.0 + 2f32.powi(-10), 1.0 - 2f32.powi(-11)]
            .into_iter()
            .enumerate()
        {
            h.push(f(s * gg * 2f32.powi(a)));
            g.push(f(2f32.powi(exp - 26 - a)));
            e.push(v);
            tie_row.push(k == 0);
            // For h + g: half an ulp where it is an f16.
            let half_ulp = s * gg * 2f32.powi(exp - 26);
            offset.push(if f16_to_f32(f(half_ulp)) == half_ulp {
                f(half_ulp)
            } else {
                0
            });
        }
    }
    let n = h.len();
    let value =
        |i: usize| f64::from(f16_to_f32(h[i])) * f64::from(f16_to_f32(g[i])) + f64::from(f16_to_f32(e[i]));
    // Not vacuous: every first row of a finite value below the largest is a tie.
    let ties: Vec<usize> = (0..n).filter(|&i| f16_tie(value(i))).collect();
    assert!(ties.len() > 61_000, "{} ties", ties.len());
    assert!(ties.iter().all(|&i| tie_row[i]));
    let b = bind(&[("N", n as i64)]);
    let fm = inputs(
        SRC,
        "fma3",
        n,
        &[("h", f16s(&h)), ("g", f16s(&g)), ("e", f16s(&e))],
    );
    let (want, tiles) = agree(SRC, "fma3", &b, &fm);
    assert_eq!(tiles, [true, true, false]);
    let y = bits(&want[0]);
    let down = ties.iter().filter(|&&i| y[i] == u32::from(e[i])).count();
    assert!(
        down > 20_000 && ties.len() - down > 20_000,
        "{down} of {} ties down",
        ties.len()
    );
    // h + g: v plus the offset where it is an f16 (ties again where the offset is half an ulp).
    let add = inputs(SRC, "add", n, &[("h", f16s(&e)), ("g", f16s(&offset))]);
    agree(SRC, "add", &b, &add);
    // Overflow: 65504 + 16 is a tie that rounds to infinity (65504 is odd).
    let add = inputs(
        SRC,
        "add",
        2,
        &[("h", f16s(&[0x7bff, 0xfbff])), ("g", f16s(&[f(16.0), f(-16.0)]))],
    );
    let (want, _) = agree(SRC, "add", &bind(&[("N", 2)]), &add);
    assert_eq!(bits(&want[0]), [0x7c00, 0xfc00]);
}

/// The bf16 ties: `h + g` with g half an ulp of h (and a little more and less), for every
/// finite bf16 h whose half ulp is a bf16 (both signs).
#[test]
fn narrowing_meets_every_bf16_tie_as_the_interpreter() {
    let (mut h, mut g) = (Vec::new(), Vec::new());
    let f = |x: f32| half::bf16::from_f32(x).to_bits();
    for v in (0u16..0x7f80).flat_map(|x| [x, x | 0x8000]) {
        let exp = ((v >> 7) & 0xff).max(1) as i32;
        let s = if v & 0x8000 == 0 { 1.0 } else { -1.0 };
        let half_ulp = 2f32.powi(exp - 127 - 8);
        if half_ulp < f32::MIN_POSITIVE {
            continue;
        }
        for gg in [1.0, 1.0 + 2f32.powi(-7), 1.0 - 2f32.powi(-7)] {
            h.push(v);
            g.push(f(s * half_ulp * gg));
        }
    }
    let n = h.len();
    assert!(n > 90_000);
    let add = inputs(SRC, "add_b", n, &[("hb", bf16s(&h)), ("gb", bf16s(&g))]);
    let (_, tiles) = agree(SRC, "add_b", &bind(&[("N", n as i64)]), &add);
    assert_eq!(tiles, [true, true, false]);
}

/// NaNs of every kind and infinities through computed stores on every path: a sum with a
/// NaN (or `inf - inf`) stores the canonical NaN, `max` ignores a NaN operand.
#[test]
fn nans_follow_the_one_nan_rule_on_every_path() {
    let specials: [u16; 12] = [
        0x7e00, 0xfe01, 0x7c01, 0xfc01, 0x7fff, 0x7c00, 0xfc00, 0x0000, 0x8000, 0x0001, 0x3c00, 0xbc00,
    ];
    let h: Vec<u16> = (0..144).map(|i| specials[i % 12]).collect();
    let g: Vec<u16> = (0..144).map(|i| specials[i / 12]).collect();
    let n = h.len();
    let b = bind(&[("N", n as i64)]);
    let ins = inputs(SRC, "add", n, &[("h", f16s(&h)), ("g", f16s(&g))]);
    let (want, _) = agree(SRC, "add", &b, &ins);
    let y = bits(&want[0]);
    assert!(y.contains(&0x7e00), "a NaN stored canonically");
    assert!(
        y.iter()
            .all(|x| *x & 0x7c00 != 0x7c00 || *x & 0x3ff == 0 || *x == 0x7e00)
    );
    let ins = inputs(SRC, "relu", n, &[("h", f16s(&h)), ("g", f16s(&g))]);
    let (want, _) = agree(SRC, "relu", &b, &ins);
    assert!(
        bits(&want[0])
            .iter()
            .all(|x| *x & 0x7c00 != 0x7c00 || *x == 0x7c00)
    );
    let ins = inputs(
        SRC,
        "fma3_b",
        n,
        &[("hb", bf16s(&[0x7fc1; 144])), ("gb", bf16s(&g))],
    );
    let (want, _) = agree(SRC, "fma3_b", &b, &ins);
    assert!(bits(&want[0]).iter().all(|x| *x == 0x7fc0));
}

/// Two-dimensional kernels: chunks and tiles cut at odd places (declared tiles, extents not
/// multiples of 4 or of the chunk), a target read in place, an invariant f16 load, a mixed
/// f32 target, a column-major target (not contiguous: no tiles), every path, 1 and 2 threads.
#[test]
fn tiles_of_every_shape_equal_the_interpreter() {
    let src = "\
param M, N where 1 <= M <= 4096, 1 <= N <= 4096
tensor x : f16[(M,N):(N,1)]
tensor z : bf16[(M,N):(N,1)]
tensor r : f16[M:1]
tensor c : f16[N:1]
tensor y : f16[(M,N):(N,1)]
tensor yc : f16[(M,N):(1,M)]
tensor w : f32[(M,N):(N,1)]
kernel bias { y[i,j] = max(x[i,j] + c[j], 0) }
kernel rowscale tile i:3, j:37 { y[i,j] = x[i,j] * r[i] - 1.5 }
kernel inplace { y[i,j] = y[i,j] * x[i,j] + c[j] }
kernel twice { y[i,j] = x[i,j] * x[i,j] - x[i,j] }
kernel mixed { w[i,j] = f32(x[i,j]) * 0.3 + f32(z[i,j]) }
kernel colmajor { yc[i,j] = x[i,j] + 1 }
kernel cast { y[i,j] = f16(w[i,j] * 3) }
";
    for (m, n) in [(5, 1031), (3, 4), (7, 513), (2, 3)] {
        let b = bind(&[("M", m), ("N", n)]);
        for name in [
            "bias", "rowscale", "inplace", "twice", "mixed", "colmajor", "cast",
        ] {
            let k = kernel(src, name);
            let ins: Vec<Buffer> = k
                .tensors
                .iter()
                .enumerate()
                .map(|(t, x)| buffer(x.elem, x.cosize.eval(&b).unwrap() as usize, 17 + t as u64))
                .collect();
            let p = Proved::check_at(k, &b, &opts(), false).unwrap();
            let jit = CompiledKernel::compile(&p, &b, &JitOptions::default()).unwrap();
            let (_, tiles) = agree(src, name, &b, &ins);
            let vector = matches!(jit.paths()[0], StmtPath::Loop { vector: true, .. });
            assert_eq!(
                tiles[0],
                vector && name != "colmajor",
                "{name} {m}x{n} {:?}",
                jit.paths()
            );
        }
    }
    // The elements are of type f16 everywhere f16 is declared.
    assert_eq!(ElemType::F16.bytes(), 2);
}

/// A load indexed by the innermost index alone (`c[j]`, `r[i]` column-major) is widened once
/// per tile and each chunk reads its part; the chunk's loop runs eight vectors per iteration.
/// Tiles whose range along the innermost index starts past 0 and spans several chunks
/// (`tile j:600` at N = 1031: chunks at 0, 512, 600, 1112), rows of every length modulo 32,
/// a row too long to hoist (16390 elements), the hoisted load used twice, bf16, a column-major
/// nest, and bias values with NaN payloads, infinities, subnormals and both zeros, every path,
/// 1 and 2 threads.
#[test]
fn hoisted_loads_and_unrolled_loops_equal_the_interpreter() {
    let src = "\
param M, N where 1 <= M <= 4096, 1 <= N <= 65536
tensor x : f16[(M,N):(N,1)]
tensor c : f16[N:1]
tensor y : f16[(M,N):(N,1)]
tensor xb : bf16[(M,N):(N,1)]
tensor cb : bf16[N:1]
tensor yb : bf16[(M,N):(N,1)]
tensor xc : f16[(M,N):(1,M)]
tensor r : f16[M:1]
tensor yc : f16[(M,N):(1,M)]
kernel bias { y[i,j] = max(x[i,j] + c[j], 0) }
kernel biastile tile i:2, j:600 { y[i,j] = max(x[i,j] + c[j], 0) }
kernel twice { y[i,j] = x[i,j] * c[j] - c[j] }
kernel bias_b { yb[i,j] = xb[i,j] + cb[j] }
kernel colbias { yc[i,j] = xc[i,j] + r[i] }
";
    let specials: [u16; 12] = [
        0x7e00, 0xfe01, 0x7c01, 0xfc01, 0x7fff, 0x7c00, 0xfc00, 0x0000, 0x8000, 0x0001, 0x83ff, 0x3c00,
    ];
    let sprinkle = |buf: Buffer| match buf {
        // Every fifth element special (bf16 reads the same bits: NaNs, infinities, zeros).
        Buffer::F16(mut v) => {
            for (k, e) in v.iter_mut().enumerate().filter(|(k, _)| k % 5 == 0) {
                *e = half::f16::from_bits(specials[(k / 5) % 12]);
            }
            Buffer::F16(v)
        }
        Buffer::BF16(mut v) => {
            for (k, e) in v.iter_mut().enumerate().filter(|(k, _)| k % 5 == 0) {
                *e = half::bf16::from_bits(specials[(k / 5) % 12] | 0x0040);
            }
            Buffer::BF16(v)
        }
        other => other,
    };
    let shapes = [(5, 1031), (3, 37), (4, 96), (6, 45), (2, 16390), (1031, 5)];
    for (m, n) in shapes {
        let b = bind(&[("M", m), ("N", n)]);
        for name in ["bias", "biastile", "twice", "bias_b", "colbias"] {
            let k = kernel(src, name);
            let ins: Vec<Buffer> = k
                .tensors
                .iter()
                .enumerate()
                .map(|(t, x)| {
                    let len = x.cosize.eval(&b).unwrap() as usize;
                    sprinkle(buffer(x.elem, len, 29 + t as u64))
                })
                .collect();
            let (_, tiles) = agree(src, name, &b, &ins);
            // Four lanes (and so tiles) need four elements along the innermost index.
            let inner = if name == "colbias" { m } else { n };
            assert_eq!(tiles[0], inner >= 4, "{name} {m}x{n}: tiles taken");
        }
    }
}
