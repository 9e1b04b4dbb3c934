//! `tessera run`: .npy files written by the test, the compiled kernel's result read back (and
//! the reference interpreter's), `--verify`, `--bench`, `--threads`, and every refusal and bad
//! input with its exit code.

#[path = "support/cli.rs"]
mod cli;
use cli::run as tessera;

fn dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("tessera-kernel-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn examples() -> String {
    format!("{}/examples/kernels.tess", env!("CARGO_MANIFEST_DIR"))
}

fn write_f32(path: &std::path::Path, v: &[f32]) {
    write_shaped(path, v, &[v.len() as i64], false);
}

/// An `.npy` file of `shape` whose data, in the file's order, is `v`.
fn write_shaped(path: &std::path::Path, v: &[f32], shape: &[i64], fortran: bool) {
    let bytes =
        tessera::npy::write(&tessera::codegen::kernel::Buffer::F32(v.to_vec()), shape, fortran).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn read_f32(path: &std::path::Path) -> Vec<f32> {
    let bytes = std::fs::read(path).unwrap();
    npyz::NpyFile::new(&bytes[..]).unwrap().into_vec().unwrap()
}

#[test]
fn transpose_through_npy_files() {
    let d = dir("transpose");
    let (m, n) = (64usize, 32usize);
    let src: Vec<f32> = (0..m * n).map(|x| x as f32).collect();
    // src is (M,N):(1,M): a Fortran-order 64x32 array.
    write_shaped(&d.join("src.npy"), &src, &[64, 32], true);
    let (code, out, err) = tessera(&[
        "run",
        &examples(),
        "--kernel",
        "transpose",
        "--bind",
        "M=64,N=32",
        "--input",
        &format!("src={}", d.join("src.npy").display()),
        "--out",
        &format!("dst={}", d.join("dst.npy").display()),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("ran kernel transpose with the JIT on ")
            && out.ends_with("(dst:f32[2048], src:f32[2048])\n"),
        "{out}"
    );
    assert!(out.contains("copy kernel (Transpose4)"), "{out}");
    let dst = read_f32(&d.join("dst.npy"));
    for i in 0..m {
        for j in 0..n {
            assert_eq!(dst[i * n + j], src[i + m * j]);
        }
    }
    // The reference interpreter alone writes the same file.
    let (code, out, err) = tessera(&[
        "run",
        &examples(),
        "--kernel",
        "transpose",
        "--bind",
        "M=64,N=32",
        "--interpret",
        "--input",
        &format!("src={}", d.join("src.npy").display()),
        "--out",
        &format!("dst={}", d.join("ref.npy").display()),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "ran kernel transpose with the reference interpreter (dst:f32[2048], src:f32[2048])\n"
    );
    assert_eq!(read_f32(&d.join("ref.npy")), dst);
}

#[test]
fn missing_inputs_are_seeded_random_values() {
    let d = dir("seeded");
    let run = |seed: &str, out: &str| {
        let (code, _, err) = tessera(&[
            "run",
            &examples(),
            "--kernel",
            "gemm",
            "--bind",
            "M=32",
            "--bind",
            "N=32,K=16",
            "--seed",
            seed,
            "--out",
            &format!("C={}", d.join(out).display()),
        ]);
        assert_eq!(code, 0, "{err}");
        read_f32(&d.join(out))
    };
    let (a, b, c) = (run("7", "a.npy"), run("7", "b.npy"), run("8", "c.npy"));
    assert_eq!(a.len(), 32 * 32);
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn bad_inputs_are_errors_with_exit_code_3() {
    let d = dir("bad");
    write_f32(&d.join("short.npy"), &[1.0; 10]);
    let f64_path = d.join("f64.npy");
    {
        use npyz::WriterBuilder;
        let mut out = Vec::new();
        let mut w = npyz::WriteOptions::new()
            .default_dtype()
            .shape(&[64, 32])
            .order(npyz::Order::Fortran)
            .writer(&mut out)
            .begin_nd()
            .unwrap();
        w.extend(std::iter::repeat_n(&1.0f64, 2048)).unwrap();
        w.finish().unwrap();
        std::fs::write(&f64_path, out).unwrap();
    }
    std::fs::write(d.join("junk.npy"), b"not numpy").unwrap();
    let ex = examples();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "--bind".into(),
                "M=64,N=32".into(),
                "--input".into(),
                format!("src={}", d.join("short.npy").display()),
            ],
            "tensor src needs shape (64, 32) with strides (1, 64) (in elements, Fortran order); got shape (10,)",
        ),
        (
            vec![
                "--bind".into(),
                "M=64,N=32".into(),
                "--input".into(),
                format!("src={}", f64_path.display()),
            ],
            "dtype '<f8' where the tensor's element type f32 needs '<f4'",
        ),
        (
            vec![
                "--bind".into(),
                "M=64,N=32".into(),
                "--input".into(),
                format!("src={}", d.join("junk.npy").display()),
            ],
            "not a .npy file",
        ),
        (
            vec![
                "--bind".into(),
                "M=64,N=32".into(),
                "--input".into(),
                "nope=x.npy".into(),
            ],
            "--input nope: kernel transpose has no tensor nope",
        ),
        (
            vec!["--bind".into(), "M=64".into()],
            "kernel transpose: bind N (--bind N=..)",
        ),
        (
            vec!["--bind".into(), "M=33,N=32".into()],
            "--bind M=33 violates M % 32 == 0",
        ),
        (
            vec!["--bind".into(), "M=x".into()],
            "--bind M: 'x' is not an integer",
        ),
    ];
    for (extra, msg) in cases {
        let mut args = vec![
            "run".to_string(),
            ex.clone(),
            "--kernel".into(),
            "transpose".into(),
        ];
        args.extend(extra);
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, _, err) = tessera(&a);
        assert_eq!(code, 3, "{a:?}: {err}");
        assert!(err.contains(msg), "{a:?}: {err}");
    }
    let (code, _, err) = tessera(&["run", &ex, "--kernel", "nope"]);
    assert_eq!(code, 3);
    assert!(
        err.contains("no kernel 'nope' (kernels: transpose, gemm, bias_relu)"),
        "{err}"
    );
}

#[test]
fn refusals_and_unchecked() {
    let d = dir("refusals");
    let refuted = d.join("refuted.tess");
    std::fs::write(
        &refuted,
        "tensor s : f32[(4,4):(-1,4)]\ntensor t : f32[(4,4):(4,1)]\nkernel k { t[i,j] = s[i,j] }\n",
    )
    .unwrap();
    let (code, _, err) = tessera(&["run", refuted.to_str().unwrap(), "--kernel", "k"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("kernel k refused: refuted: s in bounds of its cosize 10"),
        "{err}"
    );
    let unknown = d.join("unknown.tess");
    std::fs::write(
        &unknown,
        "param M, N where M % 32 == 0, N % 32 == 0, 32 <= M <= 65536, 32 <= N <= 65536\n\
         tensor s : f32[(M,N):(1,M)]\ntensor d : f32[Sw<2,0,3> o (M,N):(N,1)]\nkernel k { d[i,j] = s[i,j] }\n",
    )
    .unwrap();
    let u = unknown.to_str().unwrap();
    // Unknown for every admitted value, and nothing bound: refused.
    let (code, _, err) = tessera(&["run", u, "--kernel", "k", "--timeout", "0.2"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown") && err.contains("--unchecked"), "{err}");
    // Proved at the bound values instead: it runs, and a note says for which values.
    let (code, out, err) = tessera(&[
        "run",
        u,
        "--kernel",
        "k",
        "--bind",
        "M=32,N=32",
        "--timeout",
        "0.2",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("note: kernel k is proved at M=32, N=32 only"),
        "{err}"
    );
    assert!(out.starts_with("ran kernel k"));
    // Without --timeout (60 s a proof), a bound launch gives the proof for every value at most
    // QUICK_MS (1 s) before proving its own values: it runs long before the full limit (the
    // bound here is the limit's half, generous on a loaded machine; the outcome is the same).
    let t0 = std::time::Instant::now();
    let (code, _, err) = tessera(&["run", u, "--kernel", "k", "--bind", "M=32,N=32"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("proved at M=32, N=32 only"), "{err}");
    assert!(
        t0.elapsed().as_secs() < 30,
        "{:?}: waited for the full timeout",
        t0.elapsed()
    );
    // Unknown even concretely (a 1 ms limit): refused, or run with a loud warning. 192 rows,
    // not a power of two: the F2 engine, which answers in microseconds, leaves it to z3.
    let concrete = d.join("concrete.tess");
    std::fs::write(
        &concrete,
        "tensor s : f32[(192,256):(1,192)]\ntensor d : f32[Sw<3,4,3> o (192,256):(256,1)]\nkernel k { d[i,j] = s[i,j] }\n",
    )
    .unwrap();
    let c = concrete.to_str().unwrap();
    let (code, _, err) = tessera(&["run", c, "--kernel", "k", "--timeout", "0.001"]);
    assert_eq!(code, 2, "{err}");
    let (code, out, err) = tessera(&["run", c, "--kernel", "k", "--timeout", "0.001", "--unchecked"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("WARNING: kernel k runs UNCHECKED"), "{err}");
    assert!(out.starts_with("ran kernel k"));
}

#[test]
fn the_help_documents_the_jit_and_its_flags() {
    let (code, out, _) = tessera(&["run", "--help"]);
    assert_eq!(code, 0);
    for needle in [
        "--threads",
        "--verify",
        "--bench",
        "--interpret",
        "bit-identical",
        "memcpy_gbps",
    ] {
        assert!(out.contains(needle), "{needle}: {out}");
    }
}

#[test]
fn verify_compares_bit_for_bit_on_every_thread_count() {
    for (kernel, threads) in [
        ("bias_relu", "1"),
        ("bias_relu", "3"),
        ("gemm", "2"),
        ("transpose", "2"),
    ] {
        let (code, out, err) = tessera(&[
            "run",
            &examples(),
            "--kernel",
            kernel,
            "--bind",
            "M=64,N=96,K=32",
            "--threads",
            threads,
            "--verify",
            "--seed",
            "9",
        ]);
        assert_eq!(code, 0, "{kernel}: {err}");
        assert!(out.contains("verify=ok ("), "{kernel}: {out}");
        assert!(
            out.contains(&format!("with the JIT on {threads} thread(s)")),
            "{out}"
        );
    }
}

/// `TESSERA_GEMM_MICRO` picks the GEMM's micro-kernel: every choice writes the same bits,
/// `--bench` names the one that ran, and any other value is bad input.
#[test]
fn the_gemm_micro_kernel_is_chosen_by_the_environment() {
    let d = dir("gemm-micro");
    let run = |micro: &str, extra: &[&str]| {
        let out = d.join(format!("{micro}.npy"));
        let mut args = vec![
            "run".to_string(),
            examples(),
            "--kernel".into(),
            "gemm".into(),
            "--bind".into(),
            "M=96,N=64,K=544".into(),
            "--seed".into(),
            "3".into(),
            "--threads".into(),
            "2".into(),
            "--out".into(),
            format!("C={}", out.display()),
        ];
        args.extend(extra.iter().map(|x| x.to_string()));
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
            .args(&args)
            .env("TESSERA_CACHE_DIR", cli::cache_dir())
            .env("TESSERA_GEMM_MICRO", micro)
            .output()
            .unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (o.status.code(), text(&o.stdout), text(&o.stderr), out)
    };
    let mut files = Vec::new();
    for micro in ["cranelift", "avx2", "avx512", "auto", ""] {
        let (code, out, err, file) = run(micro, &["--bench"]);
        assert_eq!(code, Some(0), "{micro}: {err}");
        let ran = out
            .lines()
            .find_map(|l| l.strip_prefix("gemm_micro="))
            .unwrap_or_else(|| panic!("{out}"));
        assert!(["cranelift", "avx2", "avx512"].contains(&ran), "{out}");
        if micro == "cranelift" {
            assert_eq!(ran, "cranelift");
        }
        files.push(std::fs::read(file).unwrap());
    }
    assert!(
        files.iter().all(|f| *f == files[0]),
        "the micro-kernels' results differ"
    );
    let (code, _, err, _) = run("avx1024", &[]);
    assert_eq!(code, Some(3), "{err}");
    assert!(
        err.contains("TESSERA_GEMM_MICRO") && err.contains("cranelift"),
        "{err}"
    );
}

#[test]
fn bench_prints_key_value_figures() {
    let (code, out, err) = tessera(&[
        "run",
        &examples(),
        "--kernel",
        "gemm",
        "--bind",
        "M=64,N=64,K=64",
        "--bench",
        "--threads",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    let keys: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, _)| k))
        .collect();
    for k in [
        "kernel",
        "threads",
        "proof_ms",
        "simplify_ms",
        "validate_ms",
        "compile_ms",
        "time_ms",
        "bytes",
        "gbps",
        "memcpy_gbps",
        "ratio_memcpy",
        "gflops",
    ] {
        assert!(keys.contains(&k), "{k} missing: {out}");
    }
    let value = |k: &str| -> f64 {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("{k}=")))
            .unwrap()
            .parse()
            .unwrap()
    };
    // Every buffer read and written once: A and B read, C read and written (64*64 f32 each).
    assert_eq!(value("bytes"), (4 * 64 * 64 * 4) as f64);
    assert!(value("time_ms") > 0.0 && value("gflops") > 0.0);
    let (code, _, err) = tessera(&["run", &examples(), "--kernel", "gemm", "--threads", "0"]);
    assert_eq!(code, 3, "{err}");
}

/// A round trip through NumPy, where `scripts/setup.sh` installed it (into `.deps/numpy`):
/// NumPy writes the input, Tessera transposes it, NumPy reads the output and checks it.
/// Skipped (with a note) when `import numpy` fails.
#[test]
fn a_round_trip_through_numpy() {
    if !cli::has_numpy() {
        return;
    }
    let py = |code: &str| cli::python(&["-c", code]);
    let d = dir("numpy");
    let (src, dst) = (d.join("src.npy"), d.join("dst.npy"));
    let write = format!(
        "import numpy as np; np.save({:?}, np.asfortranarray((np.arange(64*32, dtype=np.float32) * 0.25).reshape(64, 32)))",
        src.display().to_string()
    );
    let o = py(&write).unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (code, _, err) = tessera(&[
        "run",
        &examples(),
        "--kernel",
        "transpose",
        "--bind",
        "M=64,N=32",
        "--input",
        &format!("src={}", src.display()),
        "--out",
        &format!("dst={}", dst.display()),
    ]);
    assert_eq!(code, 0, "{err}");
    // src is column-major (M,N):(1,M), dst row-major (M,N):(N,1): both files hold the same
    // 64x32 array, src in Fortran order, dst in C order.
    let check = format!(
        "import numpy as np; s = np.load({:?}); t = np.load({:?}); assert t.dtype == np.float32 and t.shape == (64, 32); \
         assert t.flags['C_CONTIGUOUS'] and s.flags['F_CONTIGUOUS'] and (t == s).all()",
        src.display().to_string(),
        dst.display().to_string()
    );
    let o = py(&check).unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
