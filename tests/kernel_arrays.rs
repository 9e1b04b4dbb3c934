//! `tessera run` at the edges of its arrays: `.npy` files read by shape, strides and
//! `fortran_order` (never by storage, unless `--storage`), corrupt headers, outputs written in
//! the layout's shape and order, the memory limit and fallible allocation, `--bind` messages,
//! `--unchecked` in the interpreter's order, and `--verify` writing its outputs.

use std::path::{Path, PathBuf};
use std::process::Command;
use tessera::codegen::kernel::Buffer;
use tessera::npy;

#[path = "support/cli.rs"]
mod cli;
use cli::run as tessera;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tessera-kernel-arrays-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn file(d: &Path, name: &str, text: &str) -> String {
    let p = d.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn save(d: &Path, name: &str, v: &[f32], shape: &[i64], fortran: bool) -> String {
    let p = d.join(name);
    std::fs::write(&p, npy::write(&Buffer::F32(v.to_vec()), shape, fortran).unwrap()).unwrap();
    p.display().to_string()
}

fn load(p: &Path) -> (Vec<i64>, bool, Vec<f32>) {
    let bytes = std::fs::read(p).unwrap();
    let n = npy::parse(&bytes).unwrap();
    let Buffer::F32(v) = Buffer::from_le_bytes(tessera::codegen::kernel::ElemType::F32, n.data) else {
        unreachable!()
    };
    (n.shape, n.fortran, v)
}

const COPY: &str = "tensor x : f32[16:1]\ntensor y : f32[16:1]\nkernel copy { y[i] = x[i] }\n\
    tensor a : f32[(4,4):(1,4)]\ntensor b : f32[(4,4):(4,1)]\nkernel t { b[i,j] = a[i,j] }\n";

#[test]
fn a_fortran_order_npy_is_read_by_its_shape_and_order() {
    let d = dir("fortran");
    let k = file(&d, "k.tess", COPY);
    // np.arange(16).reshape(4,4).T saved: a Fortran-order 4x4 file whose memory is 0..15.
    let square = save(
        &d,
        "sq.npy",
        &(0..16).map(|x| x as f32).collect::<Vec<_>>(),
        &[4, 4],
        true,
    );
    let out = d.join("y.npy");
    let o = format!("y={}", out.display());
    // A 4x4 array is not a 16-element vector: refused, with the shape it needs.
    let (code, _, err) = tessera(&[
        "run",
        &k,
        "--kernel",
        "copy",
        "--input",
        &format!("x={square}"),
        "--out",
        &o,
    ]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("tensor x needs shape (16,) with strides (1,)"),
        "{err}"
    );
    assert!(
        err.contains("got shape (4, 4)") && err.contains("Fortran-order"),
        "{err}"
    );
    // --storage reads the raw buffer in storage order.
    let (code, _, err) = tessera(&[
        "run",
        &k,
        "--kernel",
        "copy",
        "--storage",
        "--input",
        &format!("x={square}"),
        "--out",
        &o,
    ]);
    assert_eq!(code, 0, "{err}");
    let (shape, _, v) = load(&out);
    assert_eq!(
        (shape, v),
        (vec![16], (0..16).map(|x| x as f32).collect::<Vec<_>>())
    );
    // The column-major tensor a takes the Fortran-order file: a[i,j] = 4j + i; b, row-major,
    // is written as a C-order 4x4 array with the same elements.
    let ob = d.join("b.npy");
    let (code, _, err) = tessera(&[
        "run",
        &k,
        "--kernel",
        "t",
        "--input",
        &format!("a={square}"),
        "--out",
        &format!("b={}", ob.display()),
    ]);
    assert_eq!(code, 0, "{err}");
    let (shape, fortran, v) = load(&ob);
    assert_eq!((shape, fortran), (vec![4, 4], false));
    for i in 0..4 {
        for j in 0..4 {
            assert_eq!(v[i * 4 + j], (4 * j + i) as f32);
        }
    }
    // The same data in C order is refused for a, with the fix.
    let c = save(
        &d,
        "c.npy",
        &(0..16).map(|x| x as f32).collect::<Vec<_>>(),
        &[4, 4],
        false,
    );
    let (code, _, err) = tessera(&["run", &k, "--kernel", "t", "--input", &format!("a={c}")]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("fix: np.asfortranarray(a)") && err.contains("C-order"),
        "{err}"
    );
}

/// A `.npy` header with `header` as its dict and `data` after it.
fn raw(header: &str, data: &[u8]) -> Vec<u8> {
    let mut h = header.to_string();
    while !(10 + h.len() + 1).is_multiple_of(64) {
        h.push(' ');
    }
    h.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(h.len() as u16).to_le_bytes());
    out.extend_from_slice(h.as_bytes());
    out.extend_from_slice(data);
    out
}

#[test]
fn corrupt_headers_are_errors_never_wraps_or_panics() {
    let d = dir("corrupt");
    let k = file(&d, "k.tess", COPY);
    let data = [0u8; 64];
    let cases: [(&str, Vec<u8>, &str); 8] = [
        // (2^62 + 4) * 4 wraps past 2^64 to 16.
        (
            "wrap",
            raw(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387908, 4), }",
                &data,
            ),
            "overflows",
        ),
        (
            "huge",
            raw(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }",
                &data,
            ),
            "not an extent below 2^63",
        ),
        (
            "neg",
            raw(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (-16,), }",
                &data,
            ),
            "negative",
        ),
        (
            "short",
            raw(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (16,), }",
                &data[..60],
            ),
            "needs 64 bytes",
        ),
        (
            "order",
            raw(
                "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (16,), }",
                &data,
            ),
            "fortran_order",
        ),
        (
            "noshape",
            raw("{'descr': '<f4', 'fortran_order': False, }", &data),
            "no 'shape'",
        ),
        (
            "version",
            b"\x93NUMPY\x09\x00\x10\x00".to_vec(),
            "format version 9",
        ),
        (
            "truncated",
            b"\x93NUMPY\x01\x00\xff\x00{'descr'".to_vec(),
            "truncated",
        ),
    ];
    for (name, bytes, msg) in cases {
        let p = d.join(format!("{name}.npy"));
        std::fs::write(&p, bytes).unwrap();
        let (code, _, err) = tessera(&[
            "run",
            &k,
            "--kernel",
            "copy",
            "--input",
            &format!("x={}", p.display()),
        ]);
        assert_eq!(code, 3, "{name}: {err}");
        assert!(err.contains(msg), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
    }
}

const HUGE: &str = "param M, N where 1 <= M <= 1048576, 1 <= N <= 1048576\n\
    tensor x : f32[(M,N):(N,1)]\ntensor y : f32[(M,N):(N,1)]\nkernel k { y[i,j] = x[i,j] }\n";

#[test]
fn a_kernel_over_2_to_the_40_bytes_is_refused_before_allocating() {
    let d = dir("huge");
    let k = file(&d, "k.tess", HUGE);
    // Two tensors of 2^38 f32 each: 2^41 bytes, over any default limit; refused at once.
    let (code, _, err) = tessera(&["run", &k, "--kernel", "k", "--bind", "M=524288,N=524288"]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("its buffers need 2199023255552 bytes") && err.contains("--max-memory"),
        "{err}"
    );
    // A small explicit limit refuses a small kernel, naming the number.
    let (code, _, err) = tessera(&[
        "run",
        &k,
        "--kernel",
        "k",
        "--bind",
        "M=64,N=64",
        "--max-memory",
        "1K",
    ]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("need 32768 bytes") && err.contains("limit of 1024 bytes"),
        "{err}"
    );
    let (code, _, err) = tessera(&[
        "run",
        &k,
        "--kernel",
        "k",
        "--bind",
        "M=64,N=64",
        "--max-memory",
        "lots",
    ]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("'lots' is not a byte count"), "{err}");
    // The limit is checked before anything is allocated: under an address-space limit of 6 GB
    // the default limit still speaks (an allocation first would fail with "cannot allocate").
    let bin = env!("CARGO_BIN_EXE_tessera");
    let o = Command::new("sh")
        .env("TESSERA_CACHE_DIR", cli::cache_dir())
        .args([
            "-c",
            &format!("ulimit -v 6000000 && exec {bin} run {k} --kernel k --bind M=524288,N=524288"),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("its buffers need 2199023255552 bytes") && !err.contains("cannot allocate"),
        "{err}"
    );
    // Past the limit (raised), an allocation the system refuses is an error, never an abort.
    let o = Command::new("sh")
        .env("TESSERA_CACHE_DIR", cli::cache_dir())
        .args([
            "-c",
            &format!(
                "ulimit -v 6000000 && exec {bin} run {k} --kernel k --bind M=524288,N=524288 --max-memory 4T"
            ),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("cannot allocate"), "{err}");
}

#[test]
fn bind_messages_name_the_fact_and_refuse_unknown_names() {
    let d = dir("bind");
    let k = file(&d, "k.tess", HUGE);
    let (code, _, err) = tessera(&["run", &k, "--kernel", "k", "--bind", "M=0,N=4"]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("--bind M=0 violates M >= 1 (the facts on M: 1 <= M <= 1048576)"),
        "{err}"
    );
    let (code, _, err) = tessera(&["run", &k, "--kernel", "k", "--bind", "M=4,N=4,Q=3"]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("--bind Q: the file of kernel k declares no parameter Q (its parameters: M, N)"),
        "{err}"
    );
}

#[test]
fn unchecked_colliding_writes_keep_the_interpreters_order() {
    let d = dir("unchecked");
    // y's offsets i + (M-1) j collide at M-1; the 1 ms limit leaves the proof unknown. The
    // refutation enumerates M points before the first collision (about 8 ms at M = 10^6 on the
    // project's machine, debug build): M at its bound and a limit of 1 ms keep a margin of some
    // 16x on a faster machine (a 10 ms limit refuted there on an idle machine).
    let k = file(
        &d,
        "k.tess",
        "param M where 1 <= M <= 2000000\ntensor x : f32[(M,2):(1,M)]\ntensor y : f32[(M,2):(1,M-1)]\n\
         kernel k { y[i,j] = x[i,j] }\n",
    );
    let (code, out, err) = tessera(&[
        "run",
        &k,
        "--kernel",
        "k",
        "--bind",
        "M=2000000",
        "--timeout",
        "0.001",
        "--unchecked",
        "--verify",
        "--threads",
        "2",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("runs UNCHECKED"), "{err}");
    assert!(
        out.contains("verify=ok") && out.contains("the JIT on 1 thread(s)"),
        "{out}"
    );
}

#[test]
fn a_negative_stride_view_states_its_buffer() {
    let d = dir("view");
    // (4,4):(4,1)[2:4, ::-1] is 11 o (2,4):(4,-1): its offsets 8..15 lie in a buffer of 16,
    // which the declaration states; without it the cosize (13) is too short and refuted.
    let k = file(
        &d,
        "k.tess",
        "tensor V : f32[11 o (2,4):(4,-1)] of 16\ntensor W : f32[(2,4):(4,1)]\nkernel k { W[i,j] = V[i,j] }\n\
         tensor U : f32[11 o (2,4):(4,-1)]\nkernel u { W[i,j] = U[i,j] }\n",
    );
    let (code, out, err) = tessera(&["check", &k]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("proved   kernel k") && out.contains("refuted  kernel u"),
        "{out}"
    );
    // The raw buffer of 16 (base = 0..15): W = base[2:4, ::-1].
    let base = save(
        &d,
        "base.npy",
        &(0..16).map(|x| x as f32).collect::<Vec<_>>(),
        &[16],
        false,
    );
    let ow = d.join("w.npy");
    let (code, _, err) = tessera(&[
        "run",
        &k,
        "--kernel",
        "k",
        "--storage",
        "--input",
        &format!("V={base}"),
        "--out",
        &format!("W={}", ow.display()),
        "--verify",
    ]);
    assert_eq!(code, 0, "{err}");
    let (_, _, w) = load(&ow);
    assert_eq!(w, [11., 10., 9., 8., 15., 14., 13., 12.]);
    // As an array, no contiguous .npy has strides (4, -1): refused with the storage fix.
    let (code, _, err) = tessera(&["run", &k, "--kernel", "k", "--input", &format!("V={base}")]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("strides (4, -1)") && err.contains("--storage"),
        "{err}"
    );
    // A stated length below the layout's reach is refuted, and a non-positive one an error.
    let bad = file(
        &d,
        "b.tess",
        "tensor V : f32[11 o (2,4):(4,-1)] of 15\ntensor W : f32[(2,4):(4,1)]\nkernel k { W[i,j] = V[i,j] }\n",
    );
    let (code, out, _) = tessera(&["check", &bad]);
    assert_eq!(code, 1, "{out}");
    let zero = file(&d, "z.tess", "tensor V : f32[4:1] of 0\n");
    let (code, _, err) = tessera(&["check", &zero]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("the length must be positive"), "{err}");
}
