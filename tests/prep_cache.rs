//! The preparation cache of `tessera run` (`src/prep_cache.rs`): a second run reads it, the
//! output is the same byte for byte with it, without it and warm; a damaged entry is ignored
//! and rewritten; other bindings, layouts, options and builds miss; `--no-cache` and
//! `TESSERA_NO_CACHE` write nothing; runs at the same time leave whole entries. Every run
//! here names its own cache folder (`TESSERA_CACHE_DIR`): the user's is never touched.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh folder for one test.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tessera-prep-cache-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn examples() -> String {
    format!("{}/examples/kernels.tess", env!("CARGO_MANIFEST_DIR"))
}

/// `exe ARGS` with the cache in `cache` (and `TESSERA_NO_CACHE` unset unless in `env`).
fn command(exe: &Path, cache: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut c = Command::new(exe);
    c.args(args)
        .env("TESSERA_CACHE_DIR", cache)
        .env_remove("TESSERA_NO_CACHE")
        .envs(env.iter().copied());
    c
}

/// Runs `tessera ARGS` with the cache in `cache`; it must succeed.
fn run_in(cache: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let o = command(Path::new(env!("CARGO_BIN_EXE_tessera")), cache, args, env)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// The `--bench` lines `cache_*=N` of a run's output.
fn counters(o: &Output) -> HashMap<String, usize> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("cache_")?.split_once('='))
        .map(|(k, v)| (k.to_string(), v.parse().unwrap()))
        .collect()
}

/// The entries in the cache folder (temporary files included, which must not remain).
fn entries(cache: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(cache.join("prep-v1"))
        .map(|r| r.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

const TRANSPOSE: [&str; 8] = [
    "--kernel",
    "transpose",
    "--bind",
    "M=64,N=96",
    "-j",
    "1",
    "--seed",
    "3",
];

/// `run examples/kernels.tess` with `extra` arguments.
fn transpose_args<'a>(file: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["run", file];
    v.extend(TRANSPOSE);
    v.extend(extra);
    v
}

#[test]
fn a_second_run_reads_every_answer_from_the_cache() {
    let cache = dir("second");
    let ex = examples();
    let args = transpose_args(&ex, &["--bench"]);
    let first = counters(&run_in(&cache, &args, &[]));
    assert_eq!(first["hits"], 0, "{first:?}");
    assert!(
        first["writes"] >= 3,
        "proof and two tensors' index code: {first:?}"
    );
    assert_eq!(first["writes"], entries(&cache).len());
    let second = counters(&run_in(&cache, &args, &[]));
    assert_eq!(second["hits"], first["writes"], "{second:?}");
    assert_eq!((second["misses"], second["writes"]), (0, 0), "{second:?}");
}

#[test]
fn output_is_the_same_without_the_cache_cold_and_warm() {
    let cache = dir("same");
    let ex = examples();
    let mut outs = Vec::new();
    for (i, extra) in [&["--no-cache"][..], &[], &[]].iter().enumerate() {
        let out = cache.join(format!("dst{i}.npy"));
        let o = format!("dst={}", out.display());
        let mut args = transpose_args(&ex, &["--verify", "--out", &o]);
        args.extend(extra.iter());
        let r = run_in(&cache, &args, &[]);
        outs.push((r.stdout, r.stderr, std::fs::read(&out).unwrap()));
    }
    assert!(!entries(&cache).is_empty());
    assert_eq!(outs[0], outs[1], "cold cache");
    assert_eq!(outs[0], outs[2], "warm cache");
    // A loop nest (four lanes where the recalled contiguity proofs say so) and the GEMM.
    for (kernel, bind) in [("bias_relu", "M=64,N=64"), ("gemm", "M=64,N=64,K=32")] {
        let args = [
            "run", &ex, "--kernel", kernel, "--bind", bind, "-j", "1", "--verify",
        ];
        let runs: Vec<Output> = [&["--no-cache"][..], &[], &[]]
            .iter()
            .map(|extra| {
                let a: Vec<&str> = args.iter().copied().chain(extra.iter().copied()).collect();
                run_in(&cache, &a, &[])
            })
            .collect();
        let out = String::from_utf8_lossy(&runs[2].stdout);
        assert!(out.contains("verify=ok"), "{out}");
        for r in &runs[1..] {
            assert_eq!(
                (&r.stdout, &r.stderr),
                (&runs[0].stdout, &runs[0].stderr),
                "{kernel}"
            );
        }
    }
    // A kernel proved only at the bound values: the note is printed from the cache too.
    let file = cache.join("bound.tess");
    std::fs::write(
        &file,
        "param M, N where M % 32 == 0, N % 32 == 0, 32 <= M <= 65536, 32 <= N <= 65536\n\
         tensor s : f32[(M,N):(1,M)]\ntensor d : f32[Sw<2,0,3> o (M,N):(N,1)]\nkernel k { d[i,j] = s[i,j] }\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let args = [
        "run",
        f,
        "--kernel",
        "k",
        "--bind",
        "M=32,N=32",
        "--timeout",
        "0.2",
    ];
    let cold = run_in(&cache, &args, &[]);
    let warm = run_in(&cache, &args, &[]);
    let err = String::from_utf8_lossy(&warm.stderr);
    assert!(
        err.contains("note: kernel k is proved at M=32, N=32 only"),
        "{err}"
    );
    assert_eq!((cold.stdout, cold.stderr), (warm.stdout, warm.stderr));
    let bench: Vec<&str> = args.iter().copied().chain(["--bench"]).collect();
    let c = counters(&run_in(&cache, &bench, &[]));
    assert_eq!(c["misses"], 0, "{c:?}");
}

#[test]
fn a_damaged_entry_is_ignored_and_rewritten() {
    let cache = dir("damaged");
    let ex = examples();
    let args = transpose_args(&ex, &["--bench"]);
    let plain = transpose_args(&ex, &[]);
    let want = run_in(&cache, &plain, &[]);
    let files = entries(&cache);
    assert!(files.len() >= 3, "{files:?}");
    // Truncated, a byte of the answer changed, emptied.
    let text = std::fs::read(&files[0]).unwrap();
    std::fs::write(&files[0], &text[..text.len() / 2]).unwrap();
    let mut text = std::fs::read(&files[1]).unwrap();
    let last = text.len() - 2;
    text[last] ^= 1;
    std::fs::write(&files[1], &text).unwrap();
    std::fs::write(&files[2], b"").unwrap();
    let c = counters(&run_in(&cache, &args, &[]));
    assert_eq!((c["rejected"], c["writes"]), (3, 3), "{c:?}");
    let c = counters(&run_in(&cache, &args, &[]));
    assert_eq!(
        (c["rejected"], c["misses"], c["writes"]),
        (0, 0, 0),
        "rewritten: {c:?}"
    );
    // Every entry moved to another's name: each holds another question, so none is used.
    let files = entries(&cache);
    let texts: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    for (k, f) in files.iter().enumerate() {
        std::fs::write(f, &texts[(k + 1) % texts.len()]).unwrap();
    }
    let c = counters(&run_in(&cache, &args, &[]));
    assert_eq!((c["hits"], c["rejected"]), (0, files.len()), "{c:?}");
    // And the output never changed.
    let again = run_in(&cache, &plain, &[]);
    assert_eq!((want.stdout, want.stderr), (again.stdout, again.stderr));
}

#[test]
fn other_bindings_layouts_options_and_builds_miss() {
    let cache = dir("miss");
    let ex = examples();
    let args = transpose_args(&ex, &["--bench"]);
    let first = counters(&run_in(&cache, &args, &[]));
    // Other values of the parameters: every question differs.
    let mut other = args.clone();
    other[5] = "M=96,N=64";
    let c = counters(&run_in(&cache, &other, &[]));
    assert_eq!(c["hits"], 0, "{c:?}");
    // Another proof time limit: the proof's question differs.
    let limit: Vec<&str> = args.iter().copied().chain(["--timeout", "30s"]).collect();
    let c = counters(&run_in(&cache, &limit, &[]));
    assert!(c["misses"] >= 1 && c["writes"] >= 1, "{c:?}");
    // Another layout in the source: the proof misses (the new layout of dst is src's, so its
    // index code and contiguity proofs are the answers to questions asked before: they hit).
    let src = std::fs::read_to_string(&ex).unwrap();
    let changed = src.replace("tensor dst : f32[(M,N):(N,1)]", "tensor dst : f32[(M,N):(1,M)]");
    assert_ne!(src, changed);
    let file = cache.join("changed.tess");
    std::fs::write(&file, changed).unwrap();
    let f = file.to_str().unwrap();
    let c = counters(&run_in(&cache, &transpose_args(f, &["--bench"]), &[]));
    assert!(c["misses"] >= 1 && c["writes"] >= 1, "{c:?}");
    // A comment changes no question: every answer hits.
    std::fs::write(&file, format!("# a comment\n{src}")).unwrap();
    let c = counters(&run_in(&cache, &transpose_args(f, &["--bench"]), &[]));
    assert_eq!((c["hits"], c["misses"]), (first["writes"], 0), "{c:?}");
    // Another build (the same bytes elsewhere: another executable) reads none of it.
    let exe = cache.join("tessera-copy");
    std::fs::copy(env!("CARGO_BIN_EXE_tessera"), &exe).unwrap();
    let o = command(&exe, &cache, &args, &[]).output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let c = counters(&o);
    assert_eq!(c["hits"], 0, "{c:?}");
}

#[test]
fn no_cache_and_the_variable_write_nothing() {
    let cache = dir("off");
    let ex = examples();
    let o = run_in(&cache, &transpose_args(&ex, &["--bench", "--no-cache"]), &[]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("\ncache=off\n"));
    assert!(counters(&o).is_empty());
    for v in ["1", "yes"] {
        let o = run_in(
            &cache,
            &transpose_args(&ex, &["--bench"]),
            &[("TESSERA_NO_CACHE", v)],
        );
        assert!(String::from_utf8_lossy(&o.stdout).contains("\ncache=off\n"));
    }
    assert!(entries(&cache).is_empty(), "{:?}", entries(&cache));
    // `TESSERA_NO_CACHE=0` (or empty) leaves it on.
    let o = run_in(
        &cache,
        &transpose_args(&ex, &["--bench"]),
        &[("TESSERA_NO_CACHE", "0")],
    );
    assert!(counters(&o)["writes"] > 0);
}

#[test]
fn runs_at_the_same_time_leave_whole_entries() {
    let cache = dir("concurrent");
    let ex = examples();
    let args = transpose_args(&ex, &[]);
    for round in 0..2 {
        let children: Vec<_> = (0..4)
            .map(|_| {
                command(Path::new(env!("CARGO_BIN_EXE_tessera")), &cache, &args, &[])
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let outs: Vec<Output> = children
            .into_iter()
            .map(|c| c.wait_with_output().unwrap())
            .collect();
        for o in &outs {
            assert_eq!(o.status.code(), Some(0), "round {round}");
            assert_eq!((&o.stdout, &o.stderr), (&outs[0].stdout, &outs[0].stderr));
        }
    }
    let files = entries(&cache);
    assert!(
        files
            .iter()
            .all(|f| !f.file_name().unwrap().to_string_lossy().starts_with(".tmp")),
        "{files:?}"
    );
    let c = counters(&run_in(&cache, &transpose_args(&ex, &["--bench"]), &[]));
    assert_eq!(
        (c["hits"], c["rejected"], c["misses"]),
        (files.len(), 0, 0),
        "{c:?}"
    );
}
