//! `tessera run --target gpu` where there is no GPU: without the `cuda` feature, a clear
//! refusal (exit 3); with it, a clean one-line error (exit 3, no panic) when the machine has no
//! driver, and, through a stand-in driver (`tests/support/fake_libcuda.c`, built with `cc`),
//! each refusal of a GPU run before it launches: no device, a device older than sm_80 (exit 3),
//! a PTX module the driver's JIT rejects (exit 4, with the JIT's log); and on a stand-in device
//! that computes nothing, the launches (grid, block), the comparison with the CPU and the
//! `--bench` figures. Running the examples on a real GPU is `scripts/gpu_check.sh`.

use std::process::Command;

fn kernels() -> String {
    format!("{}/examples/kernels.tess", env!("CARGO_MANIFEST_DIR"))
}

/// Runs `tessera` with `args` and extra environment variables: exit code, stdout, stderr.
fn tessera(args: &[&str], env: &[(&str, String)]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .env(
            "TESSERA_CACHE_DIR",
            std::env::temp_dir().join("tessera-test-cache"),
        )
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

/// The stand-in driver, built into a fresh folder (one per test): the folder, for
/// `LD_LIBRARY_PATH`.
#[cfg(feature = "cuda")]
fn fake_driver(test: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-fake-cuda-{test}-{}", std::process::id()));
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

/// The environment that makes `tessera` load the stand-in driver as device `device`.
#[cfg(feature = "cuda")]
fn stand_in(dir: &std::path::Path, device: &str) -> Vec<(&'static str, String)> {
    let path = match std::env::var("LD_LIBRARY_PATH") {
        Ok(p) if !p.is_empty() => format!("{}:{p}", dir.display()),
        _ => dir.display().to_string(),
    };
    vec![
        ("LD_LIBRARY_PATH", path),
        ("FAKE_CUDA", device.into()),
        ("FAKE_CUDA_LOG", dir.join("launches.log").display().to_string()),
    ]
}

#[cfg(feature = "cuda")]
#[test]
fn a_stand_in_driver_reaches_each_refusal() {
    let dir = fake_driver("refusals");
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
        let (got, out, err) = transpose_on_gpu(&stand_in(&dir, device));
        assert_eq!((got, err.trim_end()), (code, want), "{device}: {out}{err}");
        assert_eq!(out, "", "{device}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A stand-in device that computes nothing: each entry is launched over its grid (one CTA per
/// tile, partial tiles included), the untouched output differs from the CPU's (exit 4); a
/// kernel that leaves its buffers as they were matches, and `--bench` reports its figures
/// from the events' times (1 ms each).
#[cfg(feature = "cuda")]
#[test]
fn a_stand_in_device_launches_compares_and_times() {
    let dir = fake_driver("runs");
    let env = stand_in(&dir, "run");
    let log = dir.join("launches.log");
    let (code, out, err) = tessera(
        &[
            "run",
            &kernels(),
            "--kernel",
            "transpose",
            "--bind",
            "M=64,N=96",
            "--target",
            "gpu",
        ],
        &env,
    );
    assert_eq!(code, 4, "{out}{err}");
    assert!(
        err.starts_with(
            "error: kernel transpose: --target gpu: the GPU's result differs from the CPU's: tensor dst element 0: the JIT gives "
        ),
        "{err}"
    );
    // 64 x 96 in 32 x 32 tiles: 2 x 3 CTAs of 256 threads.
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "transpose grid=6,1,1 block=256,1,1 shared=0\n"
    );
    let file = dir.join("keep.tess");
    std::fs::write(
        &file,
        "tensor y : f32[262144:1]\nkernel keep { y[i] = y[i] }\n\
         tensor x : f32[(64,64):(64,1)]\ntensor z : f32[64:1]\nkernel acc { z[i] += x[i,k] * 0 }\n",
    )
    .unwrap();
    let file = file.display().to_string();
    let value = |out: &str, k: &str| -> String {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("{k}=")))
            .unwrap_or_else(|| panic!("{k} missing: {out}"))
            .to_string()
    };
    let (code, out, err) = tessera(
        &["run", &file, "--kernel", "keep", "--target", "gpu", "--bench"],
        &env,
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.starts_with("verify=ok (262144 elements bit-identical to the JIT)\n"),
        "{out}"
    );
    assert_eq!(value(&out, "device"), "Fake GPU (compute capability 9.0, sm_90)");
    assert_eq!(value(&out, "gpu_time_us"), "1000.000");
    // y read and written: 2 x 1 MiB, in 1 ms; the copy of 1 MiB counts the same bytes.
    assert_eq!(value(&out, "bytes"), "2097152");
    assert_eq!(value(&out, "gpu_gbps"), "2.10");
    assert_eq!(value(&out, "memcpy_d2d_gbps"), "2.10");
    assert_eq!(value(&out, "ratio_memcpy"), "1.000");
    assert!(!out.contains("gpu_gflops"), "{out}");
    assert!(out.ends_with("ran kernel keep with its PTX on the GPU, Fake GPU (compute capability 9.0, sm_90) (y:f32[262144])\n"), "{out}");
    // A float += with a contraction: its sums compare within the tolerance; 64 x 64 points,
    // a product and a sum each.
    let (code, out, err) = tessera(
        &["run", &file, "--kernel", "acc", "--target", "gpu", "--bench"],
        &env,
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("the sums of `+=` within 1e-4"), "{out}");
    assert_eq!(value(&out, "gpu_gflops"), "0.008");
    let _ = std::fs::remove_dir_all(dir);
}
