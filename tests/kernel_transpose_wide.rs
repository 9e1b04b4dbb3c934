//! Transposes in kernels through the AVX2 band helper (`TransposePath`) against the reference
//! interpreter, bit for bit: `f32` and `i32`, odd extents and extents no multiple of the
//! helper's blocks, padded targets (rows 64-byte aligned or not), indices in either order, 1, 2 and 3 threads, every path;
//! and the path each takes.

#[path = "support/kernel_gen.rs"]
mod kernel_gen;
use kernel_gen::{bind, buffer, examples, kernel, opts};
use std::collections::HashMap;
use tessera_codegen::kernel::{Buffer, Proved, run};
use tessera_codegen::{CompiledKernel, CopyMode, JitOptions, StmtPath, TransposePath};

const PATHS: [TransposePath; 4] = TransposePath::ALL;

/// Whether this CPU runs the helper (asked of the CPU here, not of the library, whose choice
/// the tests check).
fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

const KERNELS: &str = "
param M, N, P where 1 <= M <= 4096, 1 <= N <= 4096, 4096 <= P <= 8192
tensor a : f32[(M,N):(1,M)]
tensor b : f32[(M,N):(P,1)]
kernel ij { b[i,j] = a[i,j] }
kernel ji { b[j,i] = a[j,i] }
tensor c : f32[(M,N):(N,1)]
kernel dense { c[i,j] = a[i,j] }
tensor x : i32[(M,N):(1,M)]
tensor y : i32[(M,N):(N,1)]
kernel int { y[i,j] = x[i,j] }
";

/// Runs `p` at `b` with the interpreter and the JIT on every path and thread count, from the
/// same inputs, and asserts the same bits; returns each path's statement path.
fn same(p: &Proved, b: &HashMap<String, i64>) -> Vec<StmtPath> {
    let start: Vec<Buffer> = p
        .kernel()
        .tensors
        .iter()
        .enumerate()
        .map(|(i, t)| buffer(t.elem, t.cosize.eval(b).unwrap() as usize, 11 + i as u64))
        .collect();
    let mut want = start.clone();
    run(p, b, &mut want).unwrap();
    let mut paths = Vec::new();
    for transpose in PATHS {
        let o = JitOptions {
            transpose,
            ..JitOptions::default()
        };
        let jit = CompiledKernel::compile(p, b, &o).unwrap();
        for threads in [1, 2, 3] {
            let mut got = start.clone();
            jit.run(&mut got, threads).unwrap();
            assert!(
                got == want,
                "{} at {b:?}: {transpose:?} ({:?}), {threads} threads",
                p.kernel().name,
                jit.paths()
            );
        }
        paths.push(jit.paths()[0].clone());
    }
    paths
}

#[test]
fn kernel_transposes_equal_the_interpreter_on_every_path() {
    let wide = avx2();
    // The padded target's row pitch P: 4096 elements (rows 64-byte aligned) or 4100.
    for (m, n, p) in [
        (2, 2, 4096),
        (7, 9, 4100),
        (33, 17, 4100),
        (130, 40, 4096),
        (64, 48, 4096),
        (200, 129, 4100),
        (1, 5, 4096),
        (5, 1, 4100),
    ] {
        let b = bind(&[("M", m), ("N", n), ("P", p)]);
        for name in ["ij", "ji", "dense", "int"] {
            let p = Proved::check(kernel(KERNELS, name), &opts(), false).unwrap();
            let paths = same(&p, &b);
            if m >= 2 && n >= 2 {
                for (t, path) in PATHS.iter().zip(&paths) {
                    // The default takes the helper from 4 MiB only.
                    let helper = wide && matches!(t, TransposePath::Stream | TransposePath::Cached);
                    assert_eq!(
                        *path == StmtPath::Copy(CopyMode::TransposeWide),
                        helper,
                        "{name} {m}x{n}: {t:?} {path:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_example_transpose_takes_the_helper_from_four_mebibytes() {
    let p = Proved::check(kernel(&examples(), "transpose"), &opts(), false).unwrap();
    let paths = same(&p, &bind(&[("M", 96), ("N", 160)]));
    assert_eq!(paths[0], StmtPath::Copy(CopyMode::Transpose4));
    let want = if avx2() {
        CopyMode::TransposeWide
    } else {
        CopyMode::Transpose4
    };
    assert_eq!(paths[1], StmtPath::Copy(want));
    assert_eq!(paths[3], StmtPath::Copy(CopyMode::Transpose4));
    // 1024 x 1024 f32, 4 MiB: the default takes the helper (compiled, not run: the other
    // paths are the same code at other sizes).
    let b = bind(&[("M", 1024), ("N", 1024)]);
    let jit = CompiledKernel::compile(&p, &b, &JitOptions::default()).unwrap();
    assert_eq!(jit.paths()[0], StmtPath::Copy(want));
}
