//! `make_layout` read as CuTe reads it (issue 28): layouts are the modes, integer tuples a
//! shape (and a stride). The expected texts are CuTe's printed results (CuTe's
//! `media/docs/cute/01_layout.md`; static extents, as Tessera's literals are), the size-1
//! strides as `compact_major<LayoutLeft>` gives them (`_1` gets stride `_0`).

use tessera::lang::eval_str;

fn ev(s: &str) -> String {
    eval_str(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// The error and the column its caret points at (0-based, from the `^` line).
fn err(s: &str) -> (String, usize) {
    let e = eval_str(s).expect_err(s).to_string();
    let caret = e
        .lines()
        .find(|l| l.trim() == "^")
        .map(|l| l.find('^').unwrap())
        .unwrap_or_else(|| panic!("{s}: no caret in {e}"));
    let src_line = e.lines().find(|l| l.contains(s.trim())).unwrap_or_default();
    let indent = src_line.find(s.trim()).unwrap_or(0);
    (e, caret - indent)
}

#[test]
fn layouts_are_the_modes() {
    // make_layout(a, b) etc. with a = 3:1, b = 4:3.
    for (expr, cute) in [
        ("make_layout(3:1, 4:3)", "(3,4):(1,3)"),
        ("make_layout(4:3, 3:1)", "(4,3):(3,1)"),
        (
            "make_layout(make_layout(3:1, 4:3), make_layout(4:3, 3:1))",
            "((3,4),(4,3)):((1,3),(3,1))",
        ),
        ("make_layout(3:1)", "(3):(1)"),
        ("make_layout(make_layout(3:1))", "((3)):((1))"),
        ("make_layout(3:1, make_layout(3:1), 3:1)", "(3,(3),3):(1,(1),1)"),
        // A tuple of layouts is its items (PyCuTe's list form).
        ("make_layout((3:1, 4:3))", "(3,4):(1,3)"),
    ] {
        assert_eq!(ev(expr), cute, "{expr}");
    }
}

#[test]
fn a_shape_and_a_stride_are_the_layout() {
    for (expr, cute) in [
        // make_layout(make_shape(4,8), make_stride(1,4)) and the example.
        ("make_layout((4,8),(1,4))", "(4,8):(1,4)"),
        ("make_layout((2,4),(12,1))", "(2,4):(12,1)"),
        ("make_layout((2,(2,2)),(4,(2,1)))", "(2,(2,2)):(4,(2,1))"),
        ("make_layout(8, 2)", "8:2"),
        ("make_layout(_8, _2)", "8:2"),
        // Coordinate strides and a symbolic stride, as `S:D` takes them.
        ("make_layout((4,8),(1@0,1@1))", "(4,8):(1@0,1@1)"),
        // A stride of 0 and a negative one.
        ("make_layout((4,8),(0,-1))", "(4,8):(0,-1)"),
    ] {
        assert_eq!(ev(expr), cute, "{expr}");
        // The same as the `:` operator.
        let inner = &expr["make_layout(".len()..expr.len() - 1];
        let (s, d) = split_top(inner);
        assert_eq!(ev(&format!("{s}:{d}")), cute, "{expr}");
    }
}

/// `a, b` split at the top-level comma.
fn split_top(s: &str) -> (&str, &str) {
    let mut depth = 0;
    for (k, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => return (s[..k].trim(), s[k + 1..].trim()),
            _ => {}
        }
    }
    panic!("{s}")
}

#[test]
fn a_shape_alone_is_compact_column_major() {
    for (expr, cute) in [
        ("make_layout(8)", "8:1"),
        ("make_layout((2,4))", "(2,4):(1,2)"),
        ("make_layout((2,(2,2)))", "(2,(2,2)):(1,(2,4))"),
        // CuTe's compact_major: a static extent 1 gets stride 0, trailing ones too.
        ("make_layout((2,1,(4,1)))", "(2,1,(4,1)):(1,0,(2,0))"),
        ("make_layout((4,1))", "(4,1):(1,0)"),
        ("make_layout(1)", "1:0"),
        // The size may overflow i64; the strides do not.
        (
            "make_layout((4294967296,4294967296))",
            "(4294967296,4294967296):(1,4294967296)",
        ),
        (
            "make_layout((2,4611686018427387904))",
            "(2,4611686018427387904):(1,2)",
        ),
    ] {
        assert_eq!(ev(expr), cute, "{expr}");
    }
}

#[test]
fn symbolic_shapes_and_strides() {
    let s = tessera::lang::Session::new(&["M, N"], &[]).unwrap();
    let v = |e: &str| s.value(e).unwrap_or_else(|x| panic!("{e}: {x}")).to_string();
    assert_eq!(v("make_layout((M,N),(N,1))"), v("(M,N):(N,1)"));
    assert_eq!(v("make_layout((M,N))"), v("(M,N):(1,M)"));
}

#[test]
fn the_rule_breakers_are_errors_at_the_argument() {
    // Layouts mixed with integer tuples: the caret at the first argument that is no layout,
    // with the layout to write for it.
    let (e, col) = err("make_layout(3:1, (4,8))");
    assert!(
        e.contains("layouts (its modes) or a shape and a stride, not both"),
        "{e}"
    );
    assert!(e.contains("as a mode write the layout `(4,8):(1,4)`"), "{e}");
    assert_eq!(col, 17, "{e}");
    let (e, col) = err("make_layout(4, 8:1)");
    assert!(e.contains("this argument is an integer (4)"), "{e}");
    assert_eq!(col, 12, "{e}");
    // Three integer tuples.
    let (e, col) = err("make_layout(4, 2, 8)");
    assert!(
        e.contains("make_layout(shape, stride) takes two integer tuples"),
        "{e}"
    );
    assert_eq!(col, 18, "{e}");
    // A stride not congruent with the shape: at the stride.
    let (e, col) = err("make_layout((4,8),(1,4,2))");
    assert_eq!(col, 18, "{e}");
    // A swizzle is neither.
    let (e, col) = err("make_layout(Sw<3,3,3>)");
    assert!(e.contains("make_layout's shape"), "{e}");
    assert_eq!(col, 12, "{e}");
    // A stride past i64, and extents that are not positive.
    let (e, col) = err("make_layout((4294967296,4294967296,2))");
    assert!(e.contains("overflow"), "{e}");
    assert_eq!(col, 12, "{e}");
    for bad in [
        "make_layout((0,4))",
        "make_layout((-2,4))",
        "make_layout((4,8),(1,9223372036854775808))",
    ] {
        let (e, _) = err(bad);
        assert!(!e.is_empty());
    }
    // A tuple mixing layouts and integers is no list of modes.
    let (e, col) = err("make_layout((3:1, 4))");
    assert_eq!(col, 12, "{e}");
}

#[test]
fn the_cute_spelling_evaluates_or_gets_the_exact_text() {
    // `make_shape`/`make_stride` are CuTe's; the hint gives the Tessera text, which means the
    // same as make_layout of the tuples.
    let s = tessera::lang::Session::new(&[], &[]).unwrap();
    let e = s
        .value("make_layout(make_shape(4,8), make_stride(1,4))")
        .expect_err("make_shape is CuTe's")
        .to_string();
    assert!(e.contains("write `(4,8):(1,4)`"), "{e}");
    assert_eq!(ev("make_layout((4,8),(1,4))"), ev("(4,8):(1,4)"));
}

#[test]
fn equal_reads_make_layout_as_eval_does() {
    // The e-graph knows make_layout as an operation over modes; a shape-and-stride call is
    // never merged with the modes reading (size 4, not 8), and a mixed call is bad input.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("make_layout");
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("equal.tess");
    std::fs::write(
        &f,
        "let A = (8,16):(16,1)\n\
         assert equal(make_layout(4, 2), 4:2)\n\
         assert equal(size(make_layout(4, 2)), 4)\n\
         assert equal(make_layout((4,8)), (4,8):(1,4))\n\
         assert equal(logical_divide(A, 4:1), composition(A, make_layout(4:1, complement(4:1, size(A)))))\n\
         assert equal(make_layout(4, 2), make_layout(4:1, 2:4))\n",
    )
    .unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["check", "-j", "1", f.to_str().unwrap()])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("5 assertions: 4 proved, 1 refuted"), "{out}");
    assert!(out.contains(":6: refuted"), "{out}");
    std::fs::write(
        &f,
        "let A = (8,16):(16,1)\n\
         assert equal(logical_divide(A, 4), composition(A, make_layout(4, complement(4, size(A)))))\n",
    )
    .unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["check", f.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("equal.tess:2:63"), "{err}");
}
