//! Figure: PTX instructions of the index code of every layout of the GPU examples, for
//! Tessera's simplified `.func` (`tessera emit --lang ptx`), the naive lowering (`--no-simplify`)
//! and `nvcc -O3` compiling the naive index function in CUDA C (`--lang cuda --no-simplify`).
//! Run with `--nocapture` for the table (the book, figures/index-code.md).
//!
//! The CUDA C function is made `extern "C" __device__ __noinline__` and compiled on its own
//! with `nvcc -O3 -DNDEBUG -rdc=true -ptx -arch=sm_80`: `-rdc=true` keeps the uncalled
//! `.visible .func`, `-DNDEBUG` drops the `assert`s of the assumptions (they would add calls to
//! `__assertfail`), so the function body is the index code alone. nvcc so compiled does not know
//! the facts Tessera uses (`0 <= i`, the parameters' bounds and moduli); a second column
//! gives it them, each `assert(...)` replaced by `__builtin_assume(...)` ("nvcc+assume").
//!
//! Counted: the instructions between the function's braces, less `ld.param`, `st.param` and
//! `ret` (the calling convention), declarations, labels and comments; div/rem: `div.*` and
//! `rem.*`. These are static PTX counts: ptxas expands a 64-bit `div`/`rem` into a few dozen
//! SASS instructions, and nvcc's 64-bit division by a variable tests whether 32 bits suffice.
//!
//! The goals, asserted against both nvcc columns: Tessera has no more instructions, and no
//! div/rem where nvcc has none. The layouts that miss one are listed in [`EXCEPTIONS`] with
//! their numbers; the test fails when the misses differ from that list, either way.
//!
//! nvcc is `$TESSERA_NVCC`, else the one `scripts/setup.sh` installs (`.deps/nvcc13`,
//! nvcc 13.5.37); without it the test fails, unless `TESSERA_SKIP_NVCC=1`.

use std::path::PathBuf;
use std::process::Command;
use tessera::emit::{Options, emit_with};
use tessera::lang::Session;
use tessera_codegen::Lang;

const MN: &str = "M, N where M % 32 == 0, N % 32 == 0, 32 <= M <= 65536, 32 <= N <= 65536";
const K: &str = "K where K % 16 == 0, 16 <= K <= 65536";

/// One layout: the example files and the names it has there, its parameter declarations (those
/// of its file), and the expression.
struct Case {
    files: &'static [&'static str],
    names: &'static str,
    params: &'static [&'static str],
    expr: &'static str,
}

const fn case(
    files: &'static [&'static str],
    names: &'static str,
    params: &'static [&'static str],
    expr: &'static str,
) -> Case {
    Case {
        files,
        names,
        params,
        expr,
    }
}

/// Every tensor and `let` layout of the four GPU examples (checked below), and the layouts their
/// assertions spell inline.
const CASES: &[Case] = &[
    case(&["kernels", "staged"], "src, C", &[MN], "(M,N):(1,M)"),
    case(&["kernels", "staged"], "dst, x, y", &[MN], "(M,N):(N,1)"),
    case(&["kernels"], "A", &[MN, K], "(M,K):(K,1)"),
    case(&["kernels"], "B", &[MN, K], "(N,K):(K,1)"),
    case(&["kernels"], "b", &[MN, K], "N:1"),
    case(&["staged"], "Smem", &[MN], "Sw<5,0,5> o (32,32):(32,1)"),
    case(&["staged"], "Plain", &[MN], "(32,32):(32,1)"),
    case(
        &["sm80_gemm_smem"],
        "SmemA, SmemB",
        &[],
        "Sw<3,3,3> o ((8,16),64):((64,512),1)",
    ),
    case(&["sm80_gemm_smem"], "PlainA", &[], "((8,16),64):((64,512),1)"),
    case(
        &["sm80_gemm_smem"],
        "CopyA",
        &[],
        "((8,16),(8,8)):((1024,1),(128,16))",
    ),
    case(
        &["sm80_gemm_smem"],
        "LdsmA",
        &[],
        "((16,2),(8,4)):((1,1024),(128,2048))",
    ),
    case(
        &["sm80_gemm_smem"],
        "(vectorizable)",
        &[],
        "(64,(8,16)):(1,(64,512))",
    ),
    case(&["sm90_swizzle128"], "Atom", &[], "Sw<3,4,3> o (8,128):(128,1)"),
    case(&["sm90_swizzle128"], "Plain", &[], "(8,128):(128,1)"),
    case(&["sm90_swizzle128"], "Rows", &[], "((8,4),16):((1,128),8)"),
    case(&["sm90_swizzle128"], "Atom16", &[], "Sw<3,3,3> o (8,64):(64,1)"),
    case(
        &["sm90_swizzle128"],
        "(Atom16 reads)",
        &[],
        "((8,4),8):((1,64),8)",
    ),
    case(&["sm90_swizzle128"], "Atom32", &[], "Sw<3,2,3> o (8,32):(32,1)"),
    case(
        &["sm90_swizzle128"],
        "(Atom32 reads)",
        &[],
        "((8,4),4):((1,32),8)",
    ),
];

/// The layouts that miss a goal: (layout, baseline, [Tessera's instructions, Tessera's div/rem,
/// the baseline's instructions, its div/rem]), as measured with nvcc 13.5.37.
///
/// - Six constant layouts against nvcc given the facts: nvcc turns `((i >> a) & m) << b` into
///   `(i << (b - a)) & (m << b)` (one instruction fewer per mode), shares one shift between two
///   masks, and merges a shift with an add into `bfi`; Tessera's rules have none of these yet.
const EXCEPTIONS: &[(&str, &str, [usize; 4])] = &[
    (
        "Sw<3,3,3> o ((8,16),64):((64,512),1)",
        "nvcc+assume",
        [10, 0, 9, 0],
    ),
    ("((8,16),64):((64,512),1)", "nvcc+assume", [8, 0, 6, 0]),
    (
        "((8,16),(8,8)):((1024,1),(128,16))",
        "nvcc+assume",
        [12, 0, 10, 0],
    ),
    (
        "((16,2),(8,4)):((1,1024),(128,2048))",
        "nvcc+assume",
        [12, 0, 9, 0],
    ),
    ("((8,4),16):((1,128),8)", "nvcc+assume", [8, 0, 6, 0]),
    ("((8,4),8):((1,64),8)", "nvcc+assume", [8, 0, 6, 0]),
    ("((8,4),4):((1,32),8)", "nvcc+assume", [8, 0, 6, 0]),
];

/// Instructions and div/rem instructions of a function body.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Count {
    instrs: usize,
    div_rem: usize,
}

/// The body of the `.func` named `name` in `ptx`: the lines between its braces.
fn body<'a>(ptx: &'a str, name: &str) -> Vec<&'a str> {
    let lines: Vec<&str> = ptx.lines().collect();
    let head = lines
        .iter()
        .position(|l| l.contains(".func") && l.contains(&format!(" {name}(")))
        .unwrap_or_else(|| panic!("no .func {name} in\n{ptx}"));
    let open = head + lines[head..].iter().position(|l| l.trim() == "{").unwrap();
    let close = open + lines[open..].iter().position(|l| l.trim() == "}").unwrap();
    lines[open + 1..close].to_vec()
}

/// Counts the instructions of the `.func` `name`: not the parameter moves, `ret`,
/// declarations, labels or comments.
fn count(ptx: &str, name: &str) -> Count {
    let mut c = Count {
        instrs: 0,
        div_rem: 0,
    };
    for line in body(ptx, name) {
        let l = line.trim();
        if l.is_empty() || l.starts_with("//") || l.starts_with('.') || l.ends_with(':') {
            continue;
        }
        // A predicate guard, `@%p1 bra ...`, comes before the opcode.
        let op = l.split_whitespace().find(|w| !w.starts_with('@')).unwrap();
        if op.starts_with("ld.param") || op.starts_with("st.param") || op.starts_with("ret") {
            continue;
        }
        c.instrs += 1;
        c.div_rem += usize::from(op.starts_with("div.") || op.starts_with("rem."));
    }
    c
}

/// nvcc: `$TESSERA_NVCC`, else the one `scripts/setup.sh` installs.
fn nvcc() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("TESSERA_NVCC") {
        return Some(PathBuf::from(p));
    }
    let local = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".deps/nvcc13/nvidia/cu13/bin/nvcc");
    local.exists().then_some(local)
}

/// Compiles `cuda` with `nvcc -O3 -DNDEBUG -rdc=true -ptx -arch=sm_80`; the PTX.
fn compile(nvcc: &PathBuf, cuda: &str) -> String {
    let dir = std::env::temp_dir().join(format!("tessera-ptx-figures-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, out) = (dir.join("naive.cu"), dir.join("naive.ptx"));
    std::fs::write(&src, cuda).unwrap();
    let o = Command::new(nvcc)
        .args(["-O3", "-DNDEBUG", "-rdc=true", "-ptx", "-arch=sm_80", "-o"])
        .arg(&out)
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "nvcc failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let ptx = std::fs::read_to_string(&out).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    ptx
}

/// The release line of `nvcc --version`.
fn version(nvcc: &PathBuf) -> String {
    let o = Command::new(nvcc).arg("--version").output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    text.lines()
        .find(|l| l.contains("release"))
        .unwrap_or(&text)
        .to_string()
}

/// Each tensor and `let` of the examples is one of [`CASES`].
#[test]
fn the_cases_cover_every_layout_of_the_gpu_examples() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples");
    let squeeze = |s: &str| s.split_whitespace().collect::<String>();
    let listed: Vec<String> = CASES.iter().map(|c| squeeze(c.expr)).collect();
    for file in ["kernels", "staged", "sm80_gemm_smem", "sm90_swizzle128"] {
        let text = std::fs::read_to_string(root.join(format!("{file}.tess"))).unwrap();
        let mut seen = 0;
        for line in text.lines().map(|l| l.split('#').next().unwrap()) {
            let layout = if let Some(t) = line.strip_prefix("tensor ") {
                t.split_once('[').map(|x| x.1.trim().trim_end_matches(']'))
            } else {
                line.strip_prefix("let ")
                    .and_then(|l| l.split_once('='))
                    .map(|x| x.1)
            };
            if let Some(l) = layout {
                assert!(listed.contains(&squeeze(l)), "{file}.tess: {l} is not a case");
                seen += 1;
            }
        }
        assert!(seen > 0, "{file}.tess has no layouts");
    }
    for c in CASES {
        for f in c.files {
            let text = std::fs::read_to_string(root.join(format!("{f}.tess"))).unwrap();
            assert!(
                squeeze(&text).contains(&squeeze(c.expr)),
                "{} not in {f}.tess",
                c.expr
            );
        }
    }
}

/// The table of `cases` (lowered at the linear index, or with `coords` at the coordinates as
/// the kernels' offset functions are), printed; the goals' misses.
fn figure(nvcc: &PathBuf, cases: &[&Case], coords: bool) -> Vec<(&'static str, &'static str, [usize; 4])> {
    // Tessera's two functions, and every case's naive CUDA C twice (as emitted; with its
    // assertions as assumptions) in one translation unit: one nvcc run.
    let opts = |no_simplify: bool| Options {
        request: tessera::simplify::Request {
            coords,
            ..Default::default()
        },
        no_simplify,
    };
    let emit = |s: &Session, expr: &str, lang: Lang, name: &str, no_simplify: bool| {
        emit_with(s, expr, lang, name, &opts(no_simplify)).unwrap_or_else(|e| panic!("{expr}: {e}"))
    };
    let (mut cuda, mut ours) = (String::new(), Vec::new());
    for (k, c) in cases.iter().enumerate() {
        let s = Session::new(c.params, &[]).unwrap();
        let simplified = count(&emit(&s, c.expr, Lang::Ptx, "index_fn", false), "index_fn");
        let naive = count(&emit(&s, c.expr, Lang::Ptx, "index_fn", true), "index_fn");
        ours.push((simplified, naive));
        for (name, assume) in [(format!("f{k}"), false), (format!("f{k}_assume"), true)] {
            let text = emit(&s, c.expr, Lang::Cuda, &name, true);
            let from = "__device__ __forceinline__";
            assert!(text.contains(from), "{text}");
            let mut text = text.replace(from, "extern \"C\" __device__ __noinline__");
            if assume {
                text = text.replace("assert(", "__builtin_assume(");
            }
            cuda.push_str(&text);
        }
    }
    let ptx = compile(nvcc, &cuda);
    println!(
        "{}\n| layout | example: names | Tessera | naive | nvcc -O3 | nvcc -O3 + assume |\n|---|---|---|---|---|---|",
        if coords {
            "At the coordinates (the kernels' offset functions):"
        } else {
            "At the linear index:"
        }
    );
    let cell = |c: Count| format!("{} ({})", c.instrs, c.div_rem);
    let mut misses = Vec::new();
    let (mut sum_t, mut sum_n, mut sum_c, mut sum_a) = (0, 0, 0, 0);
    for (k, c) in cases.iter().enumerate() {
        let (t, n) = ours[k];
        let plain = count(&ptx, &format!("f{k}"));
        let assumed = count(&ptx, &format!("f{k}_assume"));
        println!(
            "| `{}` | {}: {} | {} | {} | {} | {} |",
            c.expr,
            c.files.join(", "),
            c.names,
            cell(t),
            cell(n),
            cell(plain),
            cell(assumed)
        );
        (sum_t, sum_n, sum_c, sum_a) = (
            sum_t + t.instrs,
            sum_n + n.instrs,
            sum_c + plain.instrs,
            sum_a + assumed.instrs,
        );
        assert!(t.instrs <= n.instrs, "{}: {t:?} vs the naive {n:?}", c.expr);
        for (baseline, b) in [("nvcc", plain), ("nvcc+assume", assumed)] {
            if t.instrs > b.instrs || (b.div_rem == 0 && t.div_rem > 0) {
                misses.push((c.expr, baseline, [t.instrs, t.div_rem, b.instrs, b.div_rem]));
            }
        }
    }
    println!("| total | | {sum_t} | {sum_n} | {sum_c} | {sum_a} |");
    println!("(instructions per index computation, div/rem in parentheses)");
    for m in &misses {
        println!("goal missed: {m:?}");
    }
    misses
}

#[test]
fn ptx_index_instructions_tessera_naive_and_nvcc() {
    let Some(nvcc) = nvcc() else {
        if std::env::var("TESSERA_SKIP_NVCC").is_ok_and(|v| v == "1") {
            eprintln!("skipped (TESSERA_SKIP_NVCC=1): nvcc not found");
            return;
        }
        panic!("nvcc not found: run scripts/setup.sh (or set TESSERA_NVCC; TESSERA_SKIP_NVCC=1 skips)");
    };
    println!("nvcc: {}", version(&nvcc));
    let all: Vec<&Case> = CASES.iter().collect();
    assert_eq!(
        figure(&nvcc, &all, false),
        EXCEPTIONS,
        "the layouts that miss a goal changed: update EXCEPTIONS (and its comment) or fix the regression"
    );
    // The kernels' tensors (rank 2 and rank 1, one coordinate per dimension): what the PTX
    // kernels' offset functions compute per element. No misses.
    let tensors: Vec<&Case> = CASES
        .iter()
        .filter(|c| c.files.contains(&"kernels") && !c.expr.contains("Sw"))
        .collect();
    assert!(tensors.len() >= 4);
    assert_eq!(figure(&nvcc, &tensors, true), vec![], "at the coordinates");
}
