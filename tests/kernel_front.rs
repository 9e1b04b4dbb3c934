//! The kernel language's front end: every construct of the grammar, every syntax error and
//! every semantic error, each at its line and column (1-based, as `tessera check` prints).

use tessera::check::{self, CheckError};
use tessera::kernel::{ErrorKind, KernelError, parse_kernel};
use tessera_codegen::kernel::{BinOp, ElemType, Op, StoreKind, UnOp};

const HEAD: &str = "param M, N where M % 32 == 0, N % 32 == 0, 32 <= M <= 65536, 32 <= N <= 65536
tensor src : f32[(M,N):(1,M)]
tensor dst : f32[(M,N):(N,1)]
tensor h : f16[(M,N):(N,1)]
tensor v : i32[N:1]
tensor sq : f32[(M,M):(M,1)]
";

fn load(body: &str) -> Result<check::CheckFile, CheckError> {
    check::load("k.tess", &format!("{HEAD}{body}"))
}

/// The error of `body`, as (line, column, message); lines count from the first of `body`.
fn error(body: &str) -> (usize, usize, String) {
    let e = load(body).expect_err("an error");
    (e.line - HEAD.lines().count(), e.col, e.msg)
}

fn syntax(src: &str) -> KernelError {
    parse_kernel(src, 1).expect_err("a syntax error")
}

#[test]
fn every_construct_parses_and_lowers() {
    let cf = load(
        "kernel all tile i:32, j:8 {
  dst[i,j] = src[i,j] * 2 + neg(src[i,j]) - abs(src[i,j]) / 0.5; dst[i,j] = max(min(src[i,j], 1.5), -src[i,j])
  dst[i,j] = fma(src[i,j], f32(h[i,j]), f32(v[j]))
  h[i,j] = f16(dst[i,j])
}
",
    )
    .unwrap();
    let k = &cf.kernels[0];
    assert_eq!(k.name, "all");
    assert_eq!(k.stmts.len(), 4);
    assert_eq!(k.tiles.iter().map(|t| t.size).collect::<Vec<_>>(), [32, 8]);
    let ops = |s: usize| k.stmts[s].nodes.iter().map(|n| n.op.clone()).collect::<Vec<_>>();
    // The load of src[i,j] is shared (a DAG).
    assert_eq!(ops(0).iter().filter(|o| matches!(o, Op::Load(_))).count(), 1);
    assert!(ops(0).contains(&Op::Float(0.5)));
    assert!(ops(0).contains(&Op::Int(2)));
    assert!(ops(0).iter().any(|o| matches!(o, Op::Unary(UnOp::Abs, _))));
    assert!(ops(0).iter().any(|o| matches!(o, Op::Binary(BinOp::Div, ..))));
    assert!(ops(1).iter().any(|o| matches!(o, Op::Binary(BinOp::Max, ..))));
    assert!(ops(1).contains(&Op::Float(1.5)));
    assert!(ops(2).iter().any(|o| matches!(o, Op::Fma(..))));
    assert_eq!(ops(2).iter().filter(|o| matches!(o, Op::Cast(_))).count(), 2);
    assert_eq!(k.stmts[3].nodes.last().unwrap().ty, ElemType::F16);
    // The kernel is an assertion of the file.
    assert_eq!(
        cf.assertions[0].text,
        "kernel all: accesses in bounds, outputs injective"
    );
    assert_eq!(cf.tensors.len(), 5);
}

#[test]
fn einsum_contraction_and_one_line_kernels() {
    let cf = load(
        "param K where K % 16 == 0, 16 <= K <= 4096
tensor A : f32[(M,K):(K,1)]
tensor B : f32[(N,K):(K,1)]
tensor C : f32[(M,N):(1,M)]
kernel gemm tile i:64, j:64, k:16 { C[i,j] += A[i,k] * B[j,k] }
kernel two { dst[i,j] = src[i,j]; C[i,j] = src[i,j] }
",
    )
    .unwrap();
    let g = &cf.kernels[0];
    let s = &g.stmts[0];
    assert_eq!(s.kind, StoreKind::Accumulate);
    let names = |ids: &[tessera_codegen::kernel::IndexId]| {
        ids.iter()
            .map(|x| g.indices[x.index()].name.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&s.outer), ["i", "j"]);
    assert_eq!(names(&s.contraction), ["k"]);
    assert_eq!(g.indices[2].extent.to_string(), "K");
    assert_eq!(cf.kernels[1].stmts.len(), 2);
}

#[test]
fn names_o_and_comments_and_extra_lines() {
    let cf = load(
        "tensor o : f32[(M,N):(N,1)]   # a tensor named o
kernel k {   # comment
  # a comment line
  o[i,j] = src[i,j]  # trailing

}
",
    )
    .unwrap();
    assert_eq!(cf.kernels[0].stmts.len(), 1);
}

#[test]
fn syntax_errors_have_their_columns() {
    let cases: &[(&str, usize, &str)] = &[
        ("kernel { }", 7, "expected a kernel name, found '{'"),
        ("kernel k dst[i] = 1 }", 9, "expected '{', found 'dst'"),
        ("kernel k { dst[i,j] == 1 }", 21, "expected a value"),
        ("kernel k { dst[i,j] - 1 }", 20, "expected '=' or '+='"),
        ("kernel k { dst[i,j] + = 1 }", 20, "expected '=' or '+='"),
        (
            "kernel k { dst[i,] = 1 }",
            17,
            "expected an index name, found ']'",
        ),
        (
            "kernel k { dst[i,j] = src[i,j] src[i,j] }",
            31,
            "expected ';', a line break or '}'",
        ),
        ("kernel k { dst[i,j] = foo(1) }", 22, "unknown function 'foo'"),
        (
            "kernel k { dst[i,j] = max(1) }",
            22,
            "max takes 2 argument(s), got 1",
        ),
        ("kernel k { dst[i,j] = (1 }", 25, "expected ')', found '}'"),
        ("kernel k tile i 32 { }", 16, "expected ':', found '32'"),
        ("kernel k tile i:x { }", 16, "expected a tile size, found 'x'"),
        (
            "kernel k { dst[i,j] = 1 } x",
            26,
            "expected nothing after the kernel's '}'",
        ),
        ("kernel k { dst[i,j] = 1 $ }", 24, "unexpected character '$'"),
        (
            "kernel k { dst[i,j] = 1",
            23,
            "expected ';', a line break or '}' after the statement, found the end",
        ),
        (
            "kernel k { dst[i,j] = 1;",
            24,
            "expected '}' closing the kernel, found the end",
        ),
    ];
    let mut bad = Vec::new();
    for (src, byte, msg) in cases {
        let e = syntax(src);
        if (e.pos.line, e.pos.byte) != (1, *byte) || !e.to_string().starts_with(msg) {
            bad.push(format!("{src}: {} {e}", e.pos.byte));
        }
        assert!(
            matches!(*e.kind, ErrorKind::Syntax(_) | ErrorKind::BadCall(_)),
            "{src}"
        );
    }
    assert!(bad.is_empty(), "{bad:#?}");
    // Too deep.
    let deep = format!(
        "kernel k {{ dst[i,j] = {}1{} }}",
        "(".repeat(200),
        ")".repeat(200)
    );
    assert!(syntax(&deep).to_string().contains("nested deeper"));
    let long = format!("kernel k {{ dst[i,j] = 1{} }}", " + 1".repeat(300));
    assert!(syntax(&long).to_string().contains("nested deeper"));
}

#[test]
fn errors_in_check_files_carry_line_and_column() {
    // A statement on the second line of a block: line 2, column of the bad token.
    assert_eq!(
        error("kernel k {\n  dst[i,j] = src[i,j] +\n}\n"),
        (
            3,
            1,
            "expected a value (a tensor read, a number, a call or '('), found '}'".into()
        )
    );
    assert_eq!(
        error("kernel k {\n  dst[i,j] = src[i,j]\n"),
        (1, 1, "kernel: no '}' closes its body".into())
    );
    assert_eq!(
        error("tensor t : f33[(M,N):(N,1)]\n"),
        (
            1,
            12,
            "unknown element type 'f33' (expected f32, f64, i32, i64, f16 or bf16)".into()
        )
    );
    assert_eq!(
        error("tensor t : f32 (M,N)\n"),
        (1, 16, "expected '[' and the layout, found '('".into())
    );
    assert_eq!(
        error("tensor t : f32[(M,N):(N,1)\n"),
        (
            1,
            27,
            "expected ']' closing the layout at the end of the line, found the end".into()
        )
    );
    assert_eq!(error("tensor t : f32[(M,N):(Q,1)]\n").1, 23);
    assert_eq!(
        error("tensor src : f32[4:1]\n"),
        (1, 8, "tensor 'src' is declared twice".into())
    );
    assert!(
        error("tensor c : f32[(4,4):(1@0,1@1)]\n")
            .2
            .contains("coordinate-valued")
    );
    assert_eq!(
        error("kernel k { dst[i,j] = src[i,j] }\nkernel k { dst[i,j] = src[i,j] }\n"),
        (2, 8, "kernel 'k' is declared twice".into())
    );
}

#[test]
fn semantic_errors() {
    let cases: &[(&str, usize, &str)] = &[
        ("kernel k { dst[i,j] = nope[i,j] }", 23, "unknown tensor 'nope'"),
        ("kernel k { nope[i,j] = src[i,j] }", 12, "unknown tensor 'nope'"),
        ("kernel k { dst[i,j] = src[i,j] + q }", 34, "unknown name 'q'"),
        (
            "kernel k { dst[i,j] = src[i,j] + i }",
            34,
            "index 'i' is not a value",
        ),
        (
            "kernel k { dst[i,j,l] = src[i,j] }",
            20,
            "tensor dst has 2 dimension(s) (top-level modes), got 3",
        ),
        (
            "kernel k { dst[i] = src[i,j] }",
            12,
            "tensor dst has 2 dimension(s) (top-level modes), got 1",
        ),
        (
            "kernel k { dst[i,j] = f32(v[i]) }",
            29,
            "index i: cannot decide that extent N of v equals extent M of dst",
        ),
        (
            "kernel k { dst[i,j] = src[i,j] + h[i,j] }",
            32,
            "type mismatch: expected f32, found f16 (convert with f32(...))",
        ),
        (
            "kernel k { dst[i,j] = f32(v[j]) + v[j] }",
            33,
            "type mismatch: expected f32, found i32",
        ),
        (
            "kernel k { v[j] = v[j] + 0.5 }",
            24,
            "type mismatch: expected i32, found a decimal literal",
        ),
        (
            "kernel k { v[j] = f32(v[j]) }",
            19,
            "type mismatch: expected i32, found f32",
        ),
        (
            "kernel k { v[j] = v[j] + i32(h[i,j]) }",
            32,
            "index 'i' appears only on the right of '='",
        ),
        (
            "kernel k tile q:32 { dst[i,j] = src[i,j] }",
            15,
            "tile 'q' is not an index of the kernel",
        ),
        (
            "kernel k tile i:0 { dst[i,j] = src[i,j] }",
            17,
            "tile size must be positive, got 0",
        ),
        (
            "kernel k tile i:8, i:8 { dst[i,j] = src[i,j] }",
            20,
            "index 'i' is tiled twice",
        ),
        (
            "kernel k { sq[i,j] = sq[j,i] }",
            22,
            "race: sq is written at [i,j] and read at [j,i]",
        ),
    ];
    let mut bad = Vec::new();
    for (src, col, msg) in cases {
        let (line, c, m) = error(&format!("{src}\n"));
        if (line, c) != (1, *col) || !m.starts_with(msg) {
            bad.push(format!("{src}: {line}:{c} {m}"));
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
    // A decided mismatch of extents names both tensors and both extents.
    let (_, _, m) = error("tensor w : f32[(M,8):(8,1)]\nkernel k { dst[i,j] = w[i,j] }\n");
    assert_eq!(
        m,
        "index j: extent 8 (dimension 1 of w) differs from extent N (dimension 1 of dst)"
    );
    // The undecided equality names the fact it needs.
    let (_, _, m) = error("kernel k { dst[i,j] = f32(v[i]) }\n");
    assert!(m.contains("M") && m.contains("N"), "{m}");
    // Reading the output at the indices it writes is no race.
    load("kernel k { dst[i,j] = dst[i,j] * 2 }\n").unwrap();
}

#[test]
fn threads_and_stage_clauses() {
    let ok = "let S = Sw<5,0,5> o (32,32):(32,1)\n\
              kernel k tile i:32, j:32 threads j:32, i:8 {\n  stage src in S\n  dst[i,j] = src[i,j]\n}\n";
    let cf = load(ok).unwrap();
    let k = &cf.kernels[0];
    let names: Vec<(&str, i64)> = k
        .threads
        .iter()
        .map(|t| (k.indices[t.index.index()].name.as_str(), t.size))
        .collect();
    assert_eq!(names, [("j", 32), ("i", 8)]);
    assert_eq!(k.stages.len(), 1);
    assert_eq!(k.tensors[k.stages[0].tensor.index()].name, "src");
    // A tensor named `stage` is still a tensor.
    assert!(parse_kernel("kernel k { stage[i] = x[i] }", 1).is_ok());
    let cases: &[(&str, &str)] = &[
        (
            "kernel k tile i:32 threads j:4 { dst[i,j] = src[i,j] }",
            "threads: 'j' is not tiled",
        ),
        (
            "kernel k tile i:32 threads i:5 { dst[i,j] = src[i,j] }",
            "threads: 5 threads do not divide the tile i:32",
        ),
        (
            "kernel k tile i:32 threads q:4 { dst[i,j] = src[i,j] }",
            "threads: 'q' is not an index",
        ),
        (
            "kernel k tile i:32, j:32 threads i:32, j:32, i:1 { dst[i,j] = src[i,j] }",
            "threads: 'i' is listed twice",
        ),
        (
            "kernel k tile i:64, j:64 threads i:64, j:32 { dst[i,j] = src[i,j] }",
            "threads: more than 1024",
        ),
        (
            "let S = (32,32):(32,1)\nkernel k tile i:32, j:32 { stage dst in S\n dst[i,j] = src[i,j] }",
            "stage dst: the kernel does not read it",
        ),
        (
            "let S = (32,16):(16,1)\nkernel k tile i:32, j:32 { stage src in S\n dst[i,j] = src[i,j] }",
            "stage src: S = (32,16):(16,1) has size 512, the tile has 1024 elements",
        ),
        (
            "let S = (32,32):(32,1)\nkernel k tile i:32 { stage src in S\n dst[i,j] = src[i,j] }",
            "stage src: its index 'j' is not tiled",
        ),
        (
            "let S = (32,32):(32,1)\nkernel k tile i:32, j:32 { stage v in S\n dst[i,j] = src[i,j] }",
            "stage v: the kernel does not read it",
        ),
        (
            "kernel k tile i:32, j:32 { stage src in Nope\n dst[i,j] = src[i,j] }",
            "unknown name",
        ),
        (
            "kernel k { dst[i,j] = src[i,j]\n stage src in S }",
            "expected a statement ('stage' lines come first)",
        ),
        (
            "kernel k vector 3 { dst[i,j] = src[i,j] }",
            "vector: the width must be 2 or 4, not 3",
        ),
        (
            "kernel k vector { dst[i,j] = src[i,j] }",
            "expected a vector width (2 or 4)",
        ),
    ];
    let mut bad = Vec::new();
    for (src, msg) in cases {
        match load(&format!("{src}\n")) {
            Ok(_) => bad.push(format!("{src}: accepted")),
            Err(e) if !e.msg.contains(msg) => bad.push(format!("{src}: {}", e.msg)),
            Err(_) => {}
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
    // `assert bank_conflict_free(kernel K)`: one assertion per phase of each stage.
    let cf = load(&format!("{ok}assert bank_conflict_free(kernel k)\n")).unwrap();
    let texts: Vec<&str> = cf.assertions.iter().map(|a| a.text.as_str()).collect();
    assert_eq!(
        texts[1..],
        [
            "bank_conflict_free(kernel k): stage src: staging stores",
            "bank_conflict_free(kernel k): stage src: compute loads"
        ]
    );
    let (_, col, m) = error("assert bank_conflict_free(kernel nope)\n");
    assert_eq!((col, m.as_str()), (27, "no kernel 'nope' declared above"));
    let (_, _, m) = error("kernel k { dst[i,j] = src[i,j] }\nassert bank_conflict_free(kernel k)\n");
    assert!(m.starts_with("kernel k stages nothing"), "{m}");
}

#[test]
fn nesting_up_to_the_limit_is_checked_and_run_without_overflow() {
    let deep = format!(
        "kernel k {{ dst[i,j] = {}src[i,j]{} }}\n",
        "abs(".repeat(60),
        ")".repeat(60)
    );
    let cf = load(&deep).unwrap();
    assert_eq!(cf.kernels[0].stmts[0].nodes.len(), 61);
    let chain = format!("kernel k {{ dst[i,j] = src[i,j]{} }}\n", " - src[i,j]".repeat(60));
    load(&chain).unwrap();
    let over = format!(
        "kernel k {{ dst[i,j] = {}src[i,j]{} }}\n",
        "neg(".repeat(70),
        ")".repeat(70)
    );
    assert!(load(&over).unwrap_err().msg.contains("nested deeper than 64"));
}
