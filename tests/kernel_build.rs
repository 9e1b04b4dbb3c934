//! `tessera build` at the edges: `vector 4` granted from the facts' divisors before any solver
//! and within `--timeout`, refusals that name the right fact, an unknown obligation named with
//! the `--bind` that builds a specialised kernel, and the help.

#[path = "support/cli.rs"]
mod cli;
use cli::run as tessera;

fn file(name: &str, text: &str) -> String {
    let d = std::env::temp_dir().join(format!("tessera-kernel-build-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn vector_4_is_granted_from_divisibility_facts_within_the_timeout() {
    for fact in ["N % 4 == 0, 4 <= N <= 65536", "N % 32 == 0, 32 <= N <= 65536"] {
        let f = file(
            "v.tess",
            &format!(
                "param M, N where 1 <= M <= 65536, {fact}\ntensor x : f32[(M,N):(N,1)]\n\
                 tensor y : f32[(M,N):(N,1)]\nkernel v tile i:4, j:64 vector 4 {{ y[i,j] = x[i,j] * 2 }}\n"
            ),
        );
        let start = std::time::Instant::now();
        let (code, out, err) = tessera(&["build", &f, "--timeout", "1"]);
        // Decided by structure: far below the 10 s the solver took.
        assert!(start.elapsed().as_secs_f64() < 5.0, "{:?}", start.elapsed());
        assert_eq!(code, 0, "{fact}: {err}");
        assert!(
            out.contains("ld.global.v4.f32") && out.contains("st.global.v4.f32"),
            "{out}"
        );
    }
}

#[test]
fn a_literal_extent_is_not_told_to_add_a_fact() {
    let f = file(
        "l.tess",
        "tensor u : f32[(8,17):(17,1)]\ntensor w : f32[(8,17):(17,1)]\n\
         kernel lit tile i:4, j:16 vector 4 { w[i,j] = u[i,j] }\n",
    );
    let (code, _, err) = tessera(&["build", &f]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("the extent 17 of j is not a multiple of 4"), "{err}");
    assert!(!err.contains("17 % 4 == 0"), "{err}");
}

#[test]
fn an_unknown_obligation_is_named_and_bind_builds_a_specialised_kernel() {
    let f = file(
        "u.tess",
        "param M where 1 <= M <= 2000000\ntensor x : f32[(M,2):(1,M)]\ntensor y : f32[(M,2):(1,M-1)]\n\
         kernel k { y[i,j] = x[i,j] }\n",
    );
    let (code, _, err) = tessera(&["build", &f, "--timeout", "0.01"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("output y written once (injective): timeout"),
        "{err}"
    );
    assert!(
        err.contains("--bind M=.. builds a kernel specialised at those values"),
        "{err}"
    );
    // At M=3 the collision is found: y's offsets i + 2j meet at 2.
    let (code, _, err) = tessera(&["build", &f, "--bind", "M=3"]);
    assert_eq!(code, 1, "{err}");
    // A kernel without the collision, specialised: proved, built, no parameter M left.
    let g = file(
        "g.tess",
        "param M where 1 <= M <= 65536\ntensor x : f32[(M,M):(M,1)]\ntensor y : f32[1 o (M,M):(1,M)]\n\
         kernel k { y[i,j] = x[i,j] }\n",
    );
    let (code, out, err) = tessera(&["build", &g, "--bind", "M=24"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("kernel k (specialised at M=24: proved for these values only):"),
        "{out}"
    );
    assert!(
        !out.contains(".param .u64 k_param_M") && !out.contains("_M,"),
        "{out}"
    );
    let (code, _, err) = tessera(&["build", &g, "--bind", "Q=24"]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("--bind Q: no kernel built here has a parameter Q"),
        "{err}"
    );
    let (code, _, err) = tessera(&["build", &g, "--bind", "M=0"]);
    assert_eq!(code, 3, "{err}");
}

#[test]
fn the_help_says_what_is_built_and_what_a_bound_build_proves() {
    let (code, out, _) = tessera(&["build", "--help"]);
    assert_eq!(code, 0);
    assert!(!out.contains("Not built yet: the shared-memory GEMM"), "{out}");
    assert!(
        out.contains("shared-memory GEMM") && out.contains("--bind"),
        "{out}"
    );
    let (_, run, _) = tessera(&["run", "--help"]);
    assert!(run.contains("proved for exactly those values"), "{run}");
}

#[test]
fn ptx_sim_runs_the_built_ptx_on_the_same_inputs_and_reports_wavefronts() {
    let ex = format!("{}/examples/staged.tess", env!("CARGO_MANIFEST_DIR"));
    let d = std::env::temp_dir().join(format!("tessera-kernel-build-sim-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let (m, n) = (64usize, 96usize);
    // src is (M,N):(1,M): a Fortran-order array; a[i,j] = i + 1000 j.
    let src: Vec<f32> = (0..m * n).map(|p| ((p % m) + 1000 * (p / m)) as f32).collect();
    let inp = d.join("src.npy");
    std::fs::write(
        &inp,
        tessera::npy::write(
            &tessera::codegen::kernel::Buffer::F32(src),
            &[m as i64, n as i64],
            true,
        )
        .unwrap(),
    )
    .unwrap();
    let mut outs = Vec::new();
    for (target, name) in [("ptx-sim", "sim.npy"), ("cpu", "cpu.npy")] {
        let out = d.join(name);
        let (code, stdout, err) = tessera(&[
            "run",
            &ex,
            "--kernel",
            "transpose_conflicted",
            "--bind",
            "M=64,N=96",
            "--target",
            target,
            "--verify",
            "--input",
            &format!("src={}", inp.display()),
            "--out",
            &format!("dst={}", out.display()),
        ]);
        assert_eq!(code, 0, "{target}: {err}");
        assert!(stdout.contains("verify=ok"), "{stdout}");
        if target == "ptx-sim" {
            assert!(
                stdout.contains(
                    "shared-memory wavefronts per warp instruction measured: stores 32, loads 1; proved: src: stores 32, loads 1"
                ),
                "{stdout}"
            );
            assert!(
                stdout.contains("with its PTX (sm_80) in the PTX interpreter"),
                "{stdout}"
            );
        }
        outs.push(std::fs::read(&out).unwrap());
    }
    // The same array from the PTX interpreter and the JIT: dst[i,j] = i + 1000 j, C order.
    assert_eq!(outs[0], outs[1]);
    let npy = tessera::npy::parse(&outs[0]).unwrap();
    assert_eq!((npy.shape.as_slice(), npy.fortran), (&[64i64, 96][..], false));
    let v = f32::from_le_bytes(
        npy.data[4 * (3 * 96 + 5)..4 * (3 * 96 + 5) + 4]
            .try_into()
            .unwrap(),
    );
    assert_eq!(v, 5003.0);
}

/// A kernel against NumPy: its file, name and bindings, its inputs as NumPy expressions, the
/// output, its NumPy reference (empty: the two engines against each other) and the tolerance.
type Case<'a> = (
    String,
    &'a str,
    &'a str,
    &'a [(&'a str, &'a str)],
    &'a str,
    &'a str,
    f64,
);

/// Kernels through the JIT and through their PTX in the PTX interpreter (`--target ptx-sim`),
/// both against NumPy on the same `.npy` inputs, where `scripts/setup.sh` installed NumPy
/// (skipped with a note otherwise): a transpose, a staged transpose, f16 bias+ReLU, an
/// elementwise kernel over row- and column-major arrays, a GEMM (the register-blocked JIT and the PTX loop)
/// and the staged shared-memory GEMM.
#[test]
fn the_jit_and_the_ptx_against_numpy() {
    if !cli::has_numpy() {
        return;
    }
    let py = |code: &str| cli::python(&["-c", code]);
    let d = std::env::temp_dir().join(format!("tessera-kernel-numpy-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let ew = file(
        "ew.tess",
        "param M, N where 1 <= M <= 256, 1 <= N <= 256\n\
         tensor a : f32[(M,N):(N,1)]\ntensor r : f32[(M,N):(1,M)]\ntensor y : f32[(M,N):(1,M)]\n\
         kernel ew { y[i,j] = max(a[i,j] * r[i,j] - 1, a[i,j]) }\n",
    );
    let root = env!("CARGO_MANIFEST_DIR");
    let ex = |f: &str| format!("{root}/examples/{f}");
    // (file, kernel, bindings, the inputs as NumPy expressions, the output, its NumPy reference)
    let cases: [Case<'_>; 6] = [
        (
            ex("kernels.tess"),
            "transpose",
            "M=64,N=96",
            &[(
                "src",
                "np.asfortranarray(g.standard_normal((64, 96)).astype('f4'))",
            )],
            "dst",
            "src",
            0.0,
        ),
        (
            ex("staged.tess"),
            "transpose_staged",
            "M=64,N=96",
            &[(
                "src",
                "np.asfortranarray(g.standard_normal((64, 96)).astype('f4'))",
            )],
            "dst",
            "src",
            0.0,
        ),
        (
            ex("kernels.tess"),
            "bias_relu",
            "M=64,N=32",
            &[
                ("x", "g.standard_normal((64, 32)).astype('f2')"),
                ("b", "g.standard_normal(32).astype('f2')"),
            ],
            "y",
            "np.maximum((x.astype('f4') + b.astype('f4')).astype('f2'), np.float16(0))",
            0.0,
        ),
        (
            ew.clone(),
            "ew",
            "M=24,N=40",
            &[
                ("a", "g.standard_normal((24, 40)).astype('f4')"),
                ("r", "np.asfortranarray(g.standard_normal((24, 40)).astype('f4'))"),
            ],
            "y",
            "np.fmax(a * r - np.float32(1), a)",
            0.0,
        ),
        (
            ex("kernels.tess"),
            "gemm",
            "M=64,N=32,K=48",
            &[
                ("A", "g.standard_normal((64, 48)).astype('f4')"),
                ("B", "g.standard_normal((32, 48)).astype('f4')"),
                ("C", "np.asfortranarray(g.standard_normal((64, 32)).astype('f4'))"),
            ],
            "C",
            "C + A.astype('f8') @ B.astype('f8').T",
            1e-4,
        ),
        (
            ex("sgemm.tess"),
            "sgemm_nt",
            "M=128,N=128,K=16",
            &[],
            "C",
            "",
            1e-4,
        ),
    ];
    for (f, kernel, bind, inputs, out, reference, tol) in cases {
        if reference.is_empty() {
            // The staged GEMM: its inputs are seeded by Tessera; compare the two engines only.
            for t in ["ptx-sim", "cpu"] {
                {
                    let p = d.join(format!("{kernel}-{t}.npy"));
                    let (code, _, err) = tessera(&[
                        "run",
                        &f,
                        "--kernel",
                        kernel,
                        "--bind",
                        bind,
                        "--target",
                        t,
                        "--verify",
                        "--out",
                        &format!("{out}={}", p.display()),
                    ]);
                    assert_eq!(code, 0, "{kernel} {t}: {err}");
                }
            }
            let check = format!(
                "import numpy as np; a = np.load({:?}); b = np.load({:?}); assert np.allclose(a, b, rtol=1e-4, atol=1e-4)",
                d.join(format!("{kernel}-ptx-sim.npy")).display().to_string(),
                d.join(format!("{kernel}-cpu.npy")).display().to_string()
            );
            let o = py(&check).unwrap();
            assert!(
                o.status.success(),
                "{kernel}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            continue;
        }
        let mut save = String::from("import numpy as np; g = np.random.default_rng(5)\n");
        let mut args: Vec<String> = Vec::new();
        for (name, expr) in inputs {
            let p = d.join(format!("{kernel}-{name}.npy")).display().to_string();
            save.push_str(&format!("{name} = {expr}\nnp.save({p:?}, {name})\n"));
            args.push("--input".into());
            args.push(format!("{name}={p}"));
        }
        let o = py(&save).unwrap();
        assert!(
            o.status.success(),
            "{kernel}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        for target in ["cpu", "ptx-sim"] {
            let res = d
                .join(format!("{kernel}-{target}-{out}.npy"))
                .display()
                .to_string();
            let mut a: Vec<String> = [
                "run",
                f.as_str(),
                "--kernel",
                kernel,
                "--bind",
                bind,
                "--target",
                target,
            ]
            .iter()
            .map(|s| s.to_string())
            .collect();
            a.extend(args.iter().cloned());
            a.extend(["--out".to_string(), format!("{out}={res}")]);
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            let (code, _, err) = tessera(&a);
            assert_eq!(code, 0, "{kernel} {target}: {err}");
            let mut check = String::from("import numpy as np\n");
            for (name, _) in inputs {
                let p = d.join(format!("{kernel}-{name}.npy")).display().to_string();
                check.push_str(&format!("{name} = np.load({p:?})\n"));
            }
            check.push_str(&format!(
                "got = np.load({res:?})\nwant = np.asarray({reference})\nassert got.shape == want.shape, (got.shape, want.shape)\n\
                 assert np.allclose(got.astype('f8'), want.astype('f8'), rtol={tol}, atol={tol}, equal_nan=True), abs(got - want).max()\n"
            ));
            let o = py(&check).unwrap();
            assert!(
                o.status.success(),
                "{kernel} {target}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
}
