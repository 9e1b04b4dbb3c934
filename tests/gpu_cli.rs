//! `tessera run --target gpu` where there is no GPU: without the `cuda` feature, a clear
//! refusal (exit 3); with it, a clean one-line error (exit 3, no panic) when the machine has no
//! driver, and, through a stand-in driver (`tests/support/fake_libcuda.c`, built with `cc`),
//! each refusal of a GPU run before it launches: no device, a device older than sm_80 (exit 3),
//! a PTX module the driver's JIT rejects (exit 4, with the JIT's log). Running the examples on a
//! real GPU is `scripts/gpu_check.sh`.

use std::process::Command;

fn kernels() -> String {
    format!("{}/examples/kernels.tess", env!("CARGO_MANIFEST_DIR"))
}

/// Runs `tessera` with `args` and extra environment variables: exit code, stdout, stderr.
fn tessera(args: &[&str], env: &[(&str, String)]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `tessera run examples/kernels.tess --kernel transpose --bind M=64,N=64 --target gpu`.
fn transpose_on_gpu(env: &[(&str, String)]) -> (i32, String, String) {
    let file = kernels();
    tessera(
        &[
            "run",
            &file,
            "--kernel",
            "transpose",
            "--bind",
            "M=64,N=64",
            "--target",
            "gpu",
        ],
        env,
    )
}

#[test]
fn the_target_is_cpu_or_gpu() {
    let file = kernels();
    let args = [
        "run",
        &file,
        "--kernel",
        "transpose",
        "--bind",
        "M=64,N=64",
        "--target",
    ];
    let (code, _, err) = tessera(&[&args[..], &["tpu"]].concat(), &[]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("possible values: cpu, gpu"), "{err}");
    // cpu is the default, and may be named.
    let (code, out, err) = tessera(&[&args[..], &["cpu"]].concat(), &[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("with the JIT"), "{out}");
}

#[test]
fn the_help_documents_the_gpu_target() {
    let (code, out, _) = tessera(&["run", "--help"], &[]);
    assert_eq!(code, 0);
    for needle in [
        "--target",
        "--features cuda",
        "sm_90",
        "gpu_time_us",
        "gpu_gbps",
        "memcpy_d2d_gbps",
        "gpu_gflops",
    ] {
        assert!(out.contains(needle), "{needle}: {out}");
    }
}

#[cfg(not(feature = "cuda"))]
#[test]
fn without_the_cuda_feature_the_gpu_target_is_refused() {
    let (code, out, err) = transpose_on_gpu(&[]);
    assert_eq!(code, 3, "{err}");
    assert_eq!(
        err,
        "error: --target gpu: this tessera was built without the `cuda` feature; rebuild with `cargo build --features cuda`\n"
    );
    assert_eq!(out, "");
}

/// On this machine: no driver, one clean line and exit 3. (Where a GPU and its driver are
/// present, the run succeeds and is checked against the CPU.)
#[cfg(feature = "cuda")]
#[test]
fn without_a_driver_the_gpu_target_is_a_clean_error() {
    let (code, out, err) = transpose_on_gpu(&[]);
    match code {
        0 => assert!(out.contains("verify=ok") && out.contains("on the GPU"), "{out}"),
        3 => {
            assert!(err.starts_with("error: --target gpu: no CUDA "), "{err}");
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(!err.contains("panicked"), "{err}");
        }
        _ => panic!("exit {code}: {out}{err}"),
    }
}

/// The stand-in driver, built into a fresh folder: the folder, for `LD_LIBRARY_PATH`.
#[cfg(feature = "cuda")]
fn fake_driver() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-fake-cuda-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = format!("{}/tests/support/fake_libcuda.c", env!("CARGO_MANIFEST_DIR"));
    let out = dir.join("libcuda.so");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let o = Command::new(&cc)
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(&out)
        .arg(&src)
        .output()
        .unwrap_or_else(|e| panic!("{cc} (a C compiler, for the stand-in driver): {e}"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    dir
}

#[cfg(feature = "cuda")]
#[test]
fn a_stand_in_driver_reaches_each_refusal() {
    let dir = fake_driver();
    let path = match std::env::var("LD_LIBRARY_PATH") {
        Ok(p) if !p.is_empty() => format!("{}:{p}", dir.display()),
        _ => dir.display().to_string(),
    };
    for (device, code, want) in [
        (
            "none",
            3,
            "error: --target gpu: no CUDA device: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)",
        ),
        (
            "sm75",
            3,
            "error: --target gpu: Fake GPU has compute capability 7.5; the PTX needs sm_80 (8.0) or newer",
        ),
        (
            "sm90",
            4,
            "error: kernel transpose: --target gpu: CUDA: loading the PTX module: CUDA_ERROR_INVALID_PTX \
             (a PTX JIT compilation failed): ptxas fatal   : the fake driver assembles nothing",
        ),
    ] {
        let (got, out, err) =
            transpose_on_gpu(&[("LD_LIBRARY_PATH", path.clone()), ("FAKE_CUDA", device.into())]);
        assert_eq!((got, err.trim_end()), (code, want), "{device}: {out}{err}");
        assert_eq!(out, "", "{device}");
    }
    let _ = std::fs::remove_dir_all(dir);
}
