//! One NaN rule on both engines: every statement kind (elementwise operations, casts, `fma`,
//! `max`/`min`, `+=` reductions, the register-blocked GEMM, copies) over inputs full of NaNs
//! with payloads and both signs, signed zeros, infinities and subnormals, in every float type,
//! on one lane and four, one thread and two. A computed value stores a NaN as the canonical
//! quiet NaN; a copy moves bits; the JIT equals the interpreter bit for bit (the GEMM, whose
//! sums are reordered, on its NaN positions and bits).

use std::collections::HashMap;
use tessera::check;
use tessera_codegen::kernel::{Buffer, ElemType, Kernel, Proved, run};
use tessera_codegen::{CompiledKernel, HalfPath, JitOptions, StmtPath};
use tessera_verifier::Options;

/// Special f32 values: NaNs (quiet, signalling, negative, with payloads), signed zeros,
/// infinities, subnormals, extremes, and ordinary numbers.
const SPECIAL: [u32; 16] = [
    0x7fc0_0000, // canonical quiet NaN
    0xffc0_0001, // negative quiet NaN with a payload
    0x7f80_0001, // signalling NaN
    0xff80_1234, // negative signalling NaN
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x0000_0001, // smallest subnormal
    0x807f_ffff, // largest negative subnormal
    0x7f7f_ffff, // largest finite
    0x3f80_0000, // 1
    0xbf80_0000, // -1
    0x4049_0fdb, // pi
    0x0080_0000, // smallest normal
    0x7fff_ffff, // NaN with every payload bit
];

/// A buffer of `len` elements of type `t` cycling through the special values from `shift`.
fn special(t: ElemType, len: usize, shift: usize) -> Buffer {
    let f = |i: usize| f32::from_bits(SPECIAL[(i * 7 + shift) % SPECIAL.len()]);
    match t {
        ElemType::F32 => Buffer::F32((0..len).map(f).collect()),
        ElemType::F64 => Buffer::F64(
            (0..len)
                .map(|i| match i % 4 {
                    // f64 NaNs with payloads of their own, and f64 subnormals.
                    0 => f64::from_bits(0xfff0_0000_0000_0001 + i as u64),
                    1 => f64::from_bits(1 + i as u64),
                    _ => f64::from(f(i)),
                })
                .collect(),
        ),
        ElemType::F16 => Buffer::F16(
            (0..len)
                .map(|i| {
                    half::f16::from_bits(
                        [0x7e00, 0xfe01, 0x7c01, 0x8000, 0x0001, 0x7c00, 0xfc00, 0x3c00][i % 8],
                    )
                })
                .collect(),
        ),
        ElemType::BF16 => Buffer::BF16(
            (0..len)
                .map(|i| {
                    half::bf16::from_bits(
                        [0x7fc0, 0xffc1, 0x7f81, 0x8000, 0x0001, 0x7f80, 0xff80, 0x3f80][i % 8],
                    )
                })
                .collect(),
        ),
        ElemType::I32 => Buffer::I32((0..len).map(|i| [i32::MIN, -1, 0, 1, i32::MAX][i % 5]).collect()),
        ElemType::I64 => Buffer::I64((0..len).map(|i| [i64::MIN, -1, 0, 1, i64::MAX][i % 5]).collect()),
    }
}

fn bits(b: &Buffer) -> Vec<u64> {
    match b {
        Buffer::F32(v) => v.iter().map(|x| u64::from(x.to_bits())).collect(),
        Buffer::F64(v) => v.iter().map(|x| x.to_bits()).collect(),
        Buffer::I32(v) => v.iter().map(|x| *x as u32 as u64).collect(),
        Buffer::I64(v) => v.iter().map(|x| *x as u64).collect(),
        Buffer::F16(v) => v.iter().map(|x| u64::from(x.to_bits())).collect(),
        Buffer::BF16(v) => v.iter().map(|x| u64::from(x.to_bits())).collect(),
    }
}

/// Whether bits `x` of an element of type `t` are a NaN, and the canonical NaN's bits.
fn nan(t: ElemType, x: u64) -> (bool, u64) {
    match t {
        ElemType::F32 => (f32::from_bits(x as u32).is_nan(), 0x7fc0_0000),
        ElemType::F64 => (f64::from_bits(x).is_nan(), 0x7ff8_0000_0000_0000),
        ElemType::F16 => (half::f16::from_bits(x as u16).is_nan(), 0x7e00),
        ElemType::BF16 => (half::bf16::from_bits(x as u16).is_nan(), 0x7fc0),
        _ => (false, 0),
    }
}

const SRC: &str = "\
param N where 1 <= N <= 4096
tensor a : f32[N:1]
tensor b : f32[N:1]
tensor c : f32[N:1]
tensor d : f64[N:1]
tensor h : f16[N:1]
tensor g : bf16[N:1]
tensor y : f32[N:1]
tensor z : f64[N:1]
tensor yh : f16[N:1]
tensor yg : bf16[N:1]
tensor s : f32[1:1]
tensor A : f32[(N,N):(N,1)]
tensor B : f32[(N,N):(1,N)]
tensor C : f32[(N,N):(N,1)]
kernel add { y[i] = a[i] + b[i] }
kernel sub { y[i] = a[i] - b[i] }
kernel mul { y[i] = a[i] * b[i] }
kernel div { y[i] = a[i] / b[i] }
kernel mx { y[i] = max(a[i], b[i]) }
kernel mn { y[i] = min(a[i], b[i]) }
kernel neg { y[i] = -a[i] }
kernel ab { y[i] = abs(a[i]) }
kernel fm { y[i] = fma(a[i], b[i], c[i]) }
kernel up { z[i] = f64(a[i]) * 2 }
kernel down { y[i] = f32(d[i]) }
kernel dd { z[i] = d[i] + d[i] }
kernel f16op { yh[i] = h[i] * 2 }
kernel f16cast { yh[i] = f16(a[i]) }
kernel bf16op { yg[i] = g[i] - g[i] }
kernel bf16cast { yg[i] = bf16(d[i]) }
kernel acc { y[i] += a[i] }
kernel red { s[j] += a[i] }
kernel rows { y[i] += A[i,k] }
kernel gemm { C[i,j] += A[i,k] * B[k,j] }
kernel copy { y[i] = a[i] }
kernel copyh { yh[i] = h[i] }
kernel mx0 { y[i] = max(a[i], 0) }
kernel mx0r { y[i] = max(0.0, a[i] + b[i]) }
kernel mn0 { y[i] = min(a[i], 0) }
kernel mxc { y[i] = max(a[i], 2.5) }
kernel mnc { y[i] = min(1.5, a[i]) }
kernel mxneg { y[i] = max(a[i], -0.0) }
kernel mxd { z[i] = max(d[i], 0) }
kernel mnd { z[i] = min(3, d[i]) }
kernel mxh { yh[i] = max(h[i] + h[i], 0) }
kernel mng { yg[i] = min(g[i], 1) }
kernel mxcast { y[i] = f32(max(d[i], 0)) }
kernel mxmx { y[i] = max(max(a[i], 0), b[i]) }
";

/// Runs kernel `name` at `n` on the interpreter and the JIT (1 and 2 threads); the inputs,
/// the interpreter's result and the JIT's, and whether the JIT reordered sums.
fn both(name: &str, n: i64) -> (Vec<Buffer>, Vec<Buffer>, Vec<Buffer>, bool) {
    let file = check::load("nan.tess", SRC).unwrap();
    let k = file.kernels.iter().find(|k| k.name == name).unwrap().clone();
    both_of(k, name, n)
}

/// [`both`] of the kernel `k` (named `name` in messages).
fn both_of(k: Kernel, name: &str, n: i64) -> (Vec<Buffer>, Vec<Buffer>, Vec<Buffer>, bool) {
    let bind = HashMap::from([("N".to_string(), n)]);
    let p = Proved::check_at(k, &bind, &Options::default(), false).unwrap();
    let input: Vec<Buffer> = p
        .kernel()
        .tensors
        .iter()
        .enumerate()
        .map(|(i, t)| special(t.elem, t.cosize.eval(&bind).unwrap() as usize, 3 * i + 1))
        .collect();
    let mut want = input.clone();
    run(&p, &bind, &mut want).unwrap();
    let mut got = Vec::new();
    let mut gemm = false;
    // Every way of converting 16-bit floats (tiles by the CPU's instructions, tiles in
    // software, inline), 1 and 2 threads: all the same bits.
    for half in [HalfPath::Tiles, HalfPath::SoftwareTiles, HalfPath::Inline] {
        let o = JitOptions {
            half,
            ..JitOptions::default()
        };
        let jit = CompiledKernel::compile(&p, &bind, &o).unwrap();
        gemm |= jit.paths().contains(&StmtPath::Gemm);
        for threads in [1, 2] {
            let mut g = input.clone();
            jit.run(&mut g, threads).unwrap();
            got.push(g);
        }
    }
    for g in &got[1..] {
        assert_eq!(
            bits_all(&got[0]),
            bits_all(g),
            "{name}: the paths or thread counts differ"
        );
    }
    (input, want, got.swap_remove(0), gemm)
}

fn bits_all(b: &[Buffer]) -> Vec<Vec<u64>> {
    b.iter().map(bits).collect()
}

#[test]
fn every_statement_kind_stores_the_canonical_nan_on_both_engines() {
    let computed = [
        "add", "sub", "mul", "div", "mx", "mn", "neg", "ab", "fm", "up", "down", "dd", "f16op", "f16cast",
        "bf16op", "bf16cast", "acc", "red", "rows", "gemm",
    ];
    for name in computed {
        // 16 and 19 elements: the four-lane loops and their one-lane tails.
        for n in [16, 19] {
            let (input, want, got, gemm) = both(name, n);
            let file = check::load("nan.tess", SRC).unwrap();
            let k = file.kernels.iter().find(|k| k.name == name).unwrap();
            let target = k.stmts[0].target.tensor.index();
            let elem = k.tensors[target].elem;
            let (w, g, before) = (bits(&want[target]), bits(&got[target]), bits(&input[target]));
            let mut nans = 0;
            for i in 0..w.len() {
                let (wn, canon) = nan(elem, w[i]);
                let (gn, _) = nan(elem, g[i]);
                assert_eq!(
                    wn, gn,
                    "{name} N={n} element {i}: NaN on one engine only ({:#x}, {:#x})",
                    w[i], g[i]
                );
                if gemm && !wn {
                    // Reordered sums: within the tolerance, not bit for bit.
                    let (x, y) = (f32::from_bits(w[i] as u32), f32::from_bits(g[i] as u32));
                    assert!(
                        x == y || (x - y).abs() <= 1e-4 * (x.abs() + 1.0),
                        "{name}: {x} {y}"
                    );
                    continue;
                }
                assert_eq!(
                    w[i], g[i],
                    "{name} N={n} element {i}: interpreter {:#x}, JIT {:#x}",
                    w[i], g[i]
                );
                if wn && w[i] != before[i] {
                    nans += 1;
                    assert_eq!(
                        w[i], canon,
                        "{name} N={n} element {i}: a computed NaN {:#x} is not canonical",
                        w[i]
                    );
                }
            }
            assert!(nans > 0, "{name} N={n}: the inputs made no NaN");
        }
    }
}

#[test]
fn a_copy_moves_nan_payloads_unchanged() {
    for name in ["copy", "copyh"] {
        let (input, want, got, _) = both(name, 19);
        let file = check::load("nan.tess", SRC).unwrap();
        let k = file.kernels.iter().find(|k| k.name == name).unwrap();
        let dst = k.stmts[0].target.tensor.index();
        let src = 1 - dst;
        let (x, w, g) = (bits(&input[src]), bits(&want[dst]), bits(&got[dst]));
        assert_eq!(w, g, "{name}");
        // The target's every element is the source's, payloads and signs included.
        assert_eq!(w, x, "{name}");
    }
}

#[test]
fn the_issue_reduction_over_inf_minus_inf_nan() {
    // `+=` over [inf, -inf, NaN]: 0x7fc00000 from both engines (the JIT gave 0xffc00000).
    let file = check::load(
        "r.tess",
        "tensor x : f32[3:1]\ntensor s : f32[1:1]\nkernel r { s[j] += x[i] }\n",
    )
    .unwrap();
    let p = Proved::check(file.kernels[0].clone(), &Options::default(), false).unwrap();
    // The tensors in order of first use: s, then x.
    let input = vec![
        Buffer::F32(vec![0.0]),
        Buffer::F32(vec![
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::from_bits(0xffc0_0001),
        ]),
    ];
    let mut want = input.clone();
    run(&p, &HashMap::new(), &mut want).unwrap();
    let jit = CompiledKernel::compile(&p, &HashMap::new(), &JitOptions::default()).unwrap();
    let mut got = input;
    jit.run(&mut got, 1).unwrap();
    assert_eq!(bits(&want[0]), [0x7fc0_0000]);
    assert_eq!(bits(&got[0]), [0x7fc0_0000]);
}

/// `max`/`min` against a constant (the JIT's `v > c ? v : c` form for a constant other than
/// the zero that loses the tie, and its store without the canonical-NaN step where the value
/// cannot be a NaN), over NaNs, signed zeros, infinities and subnormals in every float type,
/// bit for bit against the interpreter; also with the constant -0 (which the front end never
/// makes: `-0.0` is a negation) put into the kernel directly, where `max` must keep the
/// general form.
#[test]
fn max_and_min_against_constants_equal_the_interpreter() {
    let names = [
        "mx0", "mx0r", "mn0", "mxc", "mnc", "mxneg", "mxd", "mnd", "mxh", "mng", "mxcast", "mxmx",
    ];
    for name in names {
        for n in [16, 19] {
            let (_, want, got, _) = both(name, n);
            assert_eq!(bits_all(&want), bits_all(&got), "{name} N={n}");
        }
    }
    // The constants -0 and +0 as nodes of `max` and `min`, both operand orders.
    let file = check::load("nan.tess", SRC).unwrap();
    for (name, zero) in [
        ("mx0", -0.0),
        ("mx0", 0.0),
        ("mn0", -0.0),
        ("mn0", 0.0),
        ("mx0r", -0.0),
    ] {
        let mut k = file.kernels.iter().find(|k| k.name == name).unwrap().clone();
        let mut found = 0;
        for node in &mut k.stmts[0].nodes {
            if matches!(
                node.op,
                tessera_codegen::kernel::Op::Int(0) | tessera_codegen::kernel::Op::Float(_)
            ) {
                node.op = tessera_codegen::kernel::Op::Float(zero);
                found += 1;
            }
        }
        assert_eq!(found, 1, "{name}");
        for n in [16, 19] {
            let (_, want, got, _) = both_of(k.clone(), name, n);
            assert_eq!(bits_all(&want), bits_all(&got), "{name} with {zero:?}, N={n}");
        }
    }
}
