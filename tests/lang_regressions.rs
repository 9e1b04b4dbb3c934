//! Regression tests of the text front end (issue 8): chains of any length cost no stack, every
//! limit is enforced with a message that states it, parentheses group arithmetic, and every
//! printed value parses back to itself.
//!
//! The chain tests run on a thread with a 1 MiB stack: before the fix, a chain of 3,000 terms
//! overflowed the 8 MiB main thread of a release build.

use tessera::ir::Error;
use tessera::ir::text::{MAX_DEPTH, MAX_SOURCE_LEN, parse_expr};
use tessera::lang::Session;
use tessera::lang::eval_str;

/// `eval_str(src)` on a thread with a small stack (1 MiB).
fn eval_small_stack(src: String) -> tessera::ir::Result<String> {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || eval_str(&src))
        .expect("spawn")
        .join()
        .expect("no stack overflow, no panic")
}

/// `eval_str(src)` on a thread with a large stack, for inputs nested to the limit (a debug
/// build needs a few MiB at 128 levels).
fn eval_deep(src: String) -> tessera::ir::Result<String> {
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || eval_str(&src))
        .expect("spawn")
        .join()
        .expect("no stack overflow, no panic")
}

fn joined(term: &str, op: &str, n: usize) -> String {
    vec![term; n].join(op)
}

#[test]
fn long_operator_chains_evaluate_without_recursion() {
    for n in [3_000, 100_000] {
        assert_eq!(eval_small_stack(joined("1", "+", n)).unwrap(), n.to_string());
        assert_eq!(eval_small_stack(joined("1", "*", n)).unwrap(), "1");
        assert_eq!(
            eval_small_stack(joined("1", "-", n)).unwrap(),
            (2 - n as i64).to_string()
        );
        // 7/7 = 1, then 1/7 is not exact.
        let e = eval_small_stack(joined("7", "/", n)).unwrap_err().to_string();
        assert!(e.contains("7 does not divide 1"), "{e}");
        assert_eq!(eval_small_stack(format!("7{}", "%5".repeat(n))).unwrap(), "2");
        assert_eq!(eval_small_stack(format!("1{}", "*2/2".repeat(n))).unwrap(), "1");
    }
}

#[test]
fn long_postfix_chains_evaluate_without_recursion() {
    let n = 50_000;
    // 7:1 at 3 is 3, and 3:1 at 3 is 3 (the last mode absorbs).
    assert_eq!(eval_small_stack(format!("7{}", "(3)".repeat(n))).unwrap(), "3");
    // 4:1 at 0 is 0, and 0 is no shape.
    assert!(
        eval_small_stack(format!("4:1{}", "(0)".repeat(n)))
            .unwrap_err()
            .to_string()
            .contains("extent 0")
    );
    assert_eq!(
        eval_small_stack(format!("8:1{}", "[:]".repeat(n))).unwrap(),
        "0 o 8:1"
    );
    assert_eq!(
        eval_small_stack(format!("(4,4):(1,4){}", "[:,:]".repeat(n))).unwrap(),
        "0 o (4,4):(1,4)"
    );
    assert_eq!(eval_str("(4,4):(1,4)[1:3,:][1:,:]").unwrap(), "2 o (1,4):(1,4)");
    let e = eval_small_stack(format!("(4,4):(1,4)[1:3,:]{}", "[1:,:]".repeat(n)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("would be empty"), "{e}");
}

#[test]
fn long_stride_sums_and_compositions_evaluate_without_recursion() {
    let n = 100_000;
    assert_eq!(
        eval_small_stack(format!("4:1@0{}", "+1@0".repeat(n))).unwrap(),
        format!("4:{}@0", n + 1)
    );
    // Distinct terms: the sum is accumulated in order, not merged term by term.
    let terms: Vec<String> = (0..4000).map(|k| format!("1@{k}")).collect();
    let s = terms.join("+");
    assert_eq!(eval_small_stack(s.clone()).unwrap(), s);
    let nested: Vec<String> = (0..200)
        .flat_map(|i| (0..200).map(move |j| format!("1@{j}@{i}")))
        .collect();
    assert_eq!(eval_small_stack(nested.join("+")).unwrap(), nested.join("+"));
    // The same errors as term by term: overlapping coordinates, overflowing coefficients.
    let e = eval_small_stack("1@0+1@1+1@1@1".into()).unwrap_err().to_string();
    assert!(e.contains("paths [1] and [1, 1] overlap"), "{e}");
    assert!(eval_small_stack("9223372036854775807@0+1@1+1@0".into()).is_err());
    assert_eq!(eval_small_stack("1@0+1@1-1@0-1@1+4".into()).unwrap(), "4");
    assert_eq!(eval_small_stack(joined("4:1", " o ", 20_000)).unwrap(), "4:1");
    assert_eq!(
        eval_small_stack(format!("Sw<3,3,3> o 0{}", " o 0".repeat(1000)) + " o (8,64):(64,1)").unwrap(),
        "Sw<3,3,3> o (8,64):(64,1)"
    );
}

#[test]
fn dropping_a_long_chain_needs_no_stack() {
    let src = joined("(1,2)", "+", 150_000);
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            let e = parse_expr(&src).unwrap();
            drop(e);
        })
        .unwrap()
        .join()
        .unwrap();
}

/// The nesting of each kind, at and past the limit: at the limit it evaluates (or gives an
/// ordinary error), one past it is the depth error, whose message states the limit.
#[test]
fn the_nesting_limit_is_the_one_the_message_states() {
    let d = MAX_DEPTH;
    type Make = Box<dyn Fn(usize) -> String>;
    let kinds: Vec<(&str, Make)> = vec![
        (
            "parentheses",
            Box::new(|k| format!("{}7{}", "(".repeat(k), ")".repeat(k))),
        ),
        (
            "calls",
            Box::new(|k| format!("{}1{}", "size(".repeat(k), ")".repeat(k))),
        ),
        // A minus sign before a number is part of it; before anything else it is a level.
        ("minus", Box::new(|k| format!("{}(1)", "-".repeat(k - 1)))),
        (
            "swizzles",
            Box::new(|k| format!("{}3,3,3>{}", "Sw<".repeat(k + 1), ",3,3>".repeat(k))),
        ),
        (
            "slices",
            Box::new(|k| format!("8:1[{}1{}]", "(".repeat(k - 1), ")".repeat(k - 1))),
        ),
        ("coordinate strides", Box::new(|k| format!("1{}", "@0".repeat(k)))),
        (
            "mixed",
            Box::new(|k| {
                let m = k / 2;
                format!("{}-1{}{}", "(".repeat(m), "@0".repeat(k - m), ")".repeat(m))
            }),
        ),
    ];
    for (name, make) in &kinds {
        let at = eval_deep(make(d));
        if let Err(e) = &at {
            assert!(
                !e.to_string().contains("nested deeper"),
                "{name} at the limit: {e}"
            );
        }
        let past = eval_deep(make(d + 1))
            .map(|v| format!("{name} past the limit evaluates to {v}"))
            .unwrap_or_else(|e| e.to_string());
        assert!(
            past.contains(&format!("nested deeper than {d} levels")),
            "{name} past the limit: {past}"
        );
    }
    assert_eq!(
        eval_deep(kinds[0].1(d)).unwrap(),
        format!("{}7{}", "(".repeat(d), ")".repeat(d))
    );
    assert_eq!(eval_deep(kinds[1].1(d)).unwrap(), "1");
    // 127 minus signs, and the parentheses group.
    assert_eq!(eval_deep(kinds[2].1(d)).unwrap(), "-1");
    assert_eq!(eval_deep(kinds[5].1(d)).unwrap(), format!("1{}", "@0".repeat(d)));
    // 8,900 repetitions of `Sw<` used to overflow the stack.
    let e = eval_small_stack("Sw<".repeat(9_000)).unwrap_err().to_string();
    assert!(e.contains("nested deeper than 128 levels"), "{e}");
}

/// A printed value needs as many levels as its tuples and coordinate strides: a negative
/// number or a swizzle adds none, and a result deeper than the parser admits is an error.
#[test]
fn values_at_the_depth_limit_print_in_a_form_that_parses_back() {
    let d = MAX_DEPTH;
    let wrap = |x: &str, k: usize| format!("{}{x}{}", "(".repeat(k), ")".repeat(k));
    for inner in [
        "0-1",
        "-1",
        "Sw<3,3,-3>",
        "-9223372036854775807-1",
        "4:-1",
        "1@0",
        "(-4,2):(-1,-4)",
    ] {
        for k in [d - 2, d - 1, d] {
            let src = wrap(inner, k);
            if let Ok(once) = eval_deep(src.clone()) {
                assert_eq!(eval_deep(once.clone()), Ok(once), "{inner} in {k} brackets");
            }
        }
    }
    assert_eq!(eval_deep(wrap("0-1", d)).unwrap(), wrap("-1", d));
    // lift nests one level per index: past the limit it is an error, not an unparsable text.
    let zeros = |n: usize| vec!["0"; n].join(",");
    assert_eq!(eval_str(&format!("lift(1,{})", zeros(d))).unwrap(), wrap("1", d));
    let e = eval_str(&format!("lift(1,{})", zeros(d + 1)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("nested deeper than 128 levels"), "{e}");
    // A coordinate as deep as its stride's path, inside the tuple of the codomain.
    let at = |n: usize| eval_deep(format!("(4,8):(1{},1@1)(3)", "@0".repeat(n)));
    let once = at(d - 2).unwrap();
    assert_eq!(eval_deep(once.clone()), Ok(once));
    let e = at(d).unwrap_err().to_string();
    assert!(e.contains("nested deeper than 128 levels"), "{e}");
}

#[test]
fn the_source_length_limit_is_an_error_with_a_short_excerpt() {
    let long = format!("1{}", "+1".repeat(MAX_SOURCE_LEN / 2));
    assert!(long.len() > MAX_SOURCE_LEN);
    let e = eval_small_stack(long).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, Error::Parse(_)), "{msg}");
    assert!(msg.contains("longer than 1048576 bytes"), "{msg}");
    // The excerpt of a long line is a window around the column, not the whole line.
    assert!(msg.len() < 400, "{} bytes", msg.len());
    let at_limit = format!("1{}", "+1".repeat((MAX_SOURCE_LEN - 1) / 2));
    assert!(at_limit.len() <= MAX_SOURCE_LEN);
    assert_eq!(
        eval_small_stack(at_limit).unwrap(),
        (MAX_SOURCE_LEN / 2).to_string()
    );
}

#[test]
fn long_lines_show_a_window_around_the_error() {
    let src = format!("{}(1,2)*x", "1+".repeat(500));
    let msg = eval_str(&src).unwrap_err().to_string();
    let lines: Vec<&str> = msg.lines().collect();
    assert_eq!(lines.len(), 3, "{msg}");
    assert!(
        lines[1].starts_with("  ...") && lines[1].ends_with("(1,2)*x"),
        "{msg}"
    );
    // The caret is under the 'x'.
    let caret = lines[2].find('^').unwrap();
    assert_eq!(&lines[1][caret..caret + 1], "x", "{msg}");
}

#[test]
fn parentheses_group_arithmetic() {
    assert_eq!(eval_str("(2+3)*4").unwrap(), "20");
    assert_eq!(eval_str("4*(2+3)").unwrap(), "20");
    assert_eq!(eval_str("((2+3))*((4))").unwrap(), "20");
    assert_eq!(eval_str("(6)*2").unwrap(), "12");
    assert_eq!(eval_str("-(2+3)").unwrap(), "-5");
    assert_eq!(eval_str("(2+3)@1").unwrap(), "5@1");
    assert_eq!(eval_str("((2+3)*4, 6):(1, (1+1)*10)").unwrap(), "(20,6):(1,20)");
    assert_eq!(eval_str("(1+1)*(3-1)+(8/(2*2))").unwrap(), "6");
    assert_eq!(eval_str("Sw<(1+2),3,3>").unwrap(), "Sw<3,3,3>");
    assert_eq!(eval_str("(8,8):(1,8)[(1+1), :]").unwrap(), "2 o (8):(8)");
    // Where a tuple is expected, (6) is still the one-element tuple.
    assert_eq!(eval_str("(6)").unwrap(), "(6)");
    assert_eq!(eval_str("(6):(1)").unwrap(), "(6):(1)");
    assert_eq!(eval_str("((6))").unwrap(), "((6))");
    assert_eq!(eval_str("(2+3)").unwrap(), "(5)");
    assert_eq!(eval_str("size((6))").unwrap(), "6");
    assert_eq!(eval_str("rank(((2,3)))").unwrap(), "1");
    assert_eq!(eval_str("(4,8):(1,4)(17)").unwrap(), "17");
    // A tuple of several elements is not a number.
    assert!(
        eval_str("(1,2)*3")
            .unwrap_err()
            .to_string()
            .contains("found a tuple")
    );
    // The CuTe idiom with a bound parameter, and its floor form with a free one.
    let s = Session::new(&["M"], &["M=129"]).unwrap();
    assert_eq!(s.eval("((M+127)/128, 4):(1, 2)").unwrap(), "(2,4):(1,2)");
    let s = Session::new(&["M"], &["M=100"]).unwrap();
    let e = s.eval("(M+127)/128").unwrap_err().to_string();
    assert!(e.contains("128 does not divide 227") && e.contains("fdiv"), "{e}");
    let s = Session::new(&["M"], &[]).unwrap();
    assert_eq!(s.eval("fdiv(M+127,128)").unwrap(), "fdiv(M+127,128)");
    assert_eq!(
        s.eval("(M+127)/128").unwrap_err().to_string(),
        "exact division needs (M+127) % 128 == 0"
    );
}

#[test]
fn swizzled_and_composed_layouts_evaluate_in_parentheses() {
    // L(17) = 65; Sw<3,3,3>(65) = 65 ^ ((65 & 0b111000000) >> 3) = 73.
    assert_eq!(eval_str("(Sw<3,3,3> o (16,64):(64,1))(17)").unwrap(), "73");
    assert_eq!(eval_str("(Sw<3,3,3> o (16,64):(64,1))(1,1)").unwrap(), "73");
    assert_eq!(eval_str("(8 o (2,4):(4,1))(1)").unwrap(), "12");
    assert_eq!(eval_str("(Sw<3,3,3> o 8 o (2,4):(4,1))(0)").unwrap(), "8");
    // B(5) = 5, A(5) = 320.
    assert_eq!(eval_str("((16,64):(64,1) o (4,4):(1,4))(5)").unwrap(), "320");
    assert_eq!(eval_str("(4:2)(3)").unwrap(), "6");
    assert_eq!(eval_str("((4,4):(4,1))[1,:]").unwrap(), "4 o (4):(1)");
}

#[test]
fn every_printed_literal_parses_back() {
    for src in [
        "true",
        "false",
        "-9223372036854775808",
        "(2):(-9223372036854775808)",
        "-9223372036854775808@1",
        "(-9223372036854775808,3)",
        "congruent((2,3),(4,5))",
        "compatible(6,(2,4))",
    ] {
        let once = eval_str(src).unwrap_or_else(|e| panic!("{src}: {e}"));
        assert_eq!(eval_str(&once).unwrap(), once, "{src} printed {once}");
    }
    assert_eq!(eval_str("true").unwrap(), "true");
    assert_eq!(eval_str("congruent((2,3),(4,5))").unwrap(), "true");
    assert_eq!(eval_str("-9223372036854775808").unwrap(), "-9223372036854775808");
    assert_eq!(
        eval_str("-9223372036854775807-1").unwrap(),
        "-9223372036854775808"
    );
    // 2^63 is an integer only after a unary minus.
    for src in [
        "9223372036854775808",
        "5-9223372036854775808",
        "(9223372036854775808)",
    ] {
        let e = eval_str(src).unwrap_err().to_string();
        assert!(e.contains("does not fit in i64"), "{src}: {e}");
    }
    assert!(eval_str("--9223372036854775808").is_err());
    // true and false are reserved.
    assert!(Session::new(&["true"], &[]).is_err());
}

#[test]
fn a_keyword_argument_is_given_once() {
    let e = parse_expr("bank_conflict_free(A, B, elem=2, elem=16)").unwrap_err();
    assert!(e.msg.contains("keyword argument 'elem=' is given twice"), "{e}");
    assert_eq!(e.col, "bank_conflict_free(A, B, elem=2, ".len());
    assert!(parse_expr("f(elem=2, access=16)").is_ok());
}

#[test]
fn parameters_and_binds_are_each_given_once() {
    let e = |p: &[&str], b: &[&str]| Session::new(p, b).unwrap_err().to_string();
    assert!(e(&["M", "M"], &[]).contains("parameter 'M' is declared twice"));
    assert!(e(&["M, N, M"], &[]).contains("parameter 'M' is declared twice"));
    assert!(e(&["M"], &["M=3", "M=4"]).contains("'M' is bound twice"));
    let undeclared = e(&["M"], &["N=3"]);
    assert!(
        undeclared.contains("'N' is not a declared parameter") && undeclared.contains("--param N"),
        "{undeclared}"
    );
    // The facts print in the declaration language, not as a Rust structure.
    let v = e(&["M where M % 128 == 0"], &["M=100"]);
    assert_eq!(
        v,
        "--bind M=100 violates M % 128 == 0 (the facts on M: M >= 1, M % 128 == 0)"
    );
    let v = e(&["M where 16 <= M <= 64, M % 16 == 0"], &["M=80"]);
    assert_eq!(
        v,
        "--bind M=80 violates M <= 64 (the facts on M: 16 <= M <= 64, M % 16 == 0)"
    );
    assert!(!v.contains("ParamFacts"));
    assert!(Session::new(&["M", "N"], &["M=4", "N=2"]).is_ok());
}

#[test]
fn crd2idx_and_idx2crd_take_a_stride() {
    // PyCuTe's three-argument forms (seed 004's example, with the compact strides).
    assert_eq!(eval_str("crd2idx((1,(0,1)),(3,(2,4)),(1,(3,6)))").unwrap(), "7");
    assert_eq!(eval_str("idx2crd(7,(3,(2,4)),(1,(3,6)))").unwrap(), "(1,(0,1))");
    // Row-major strides, an integer coordinate split colexicographically, coordinate strides.
    assert_eq!(eval_str("crd2idx((1,2),(4,8),(8,1))").unwrap(), "10");
    assert_eq!(eval_str("crd2idx(17,(3,(2,4)),(2,(1,6)))").unwrap(), "17");
    assert_eq!(eval_str("crd2idx(5,(4,8),(1@0,1@1))").unwrap(), "(1,1)");
    assert_eq!(eval_str("idx2crd(5,(2,4),(4,1))").unwrap(), "(1,1)");
    assert_eq!(eval_str("idx2crd((5,2),(2,4),(1,1))").unwrap(), "(1,2)");
    // With a stride every leaf is taken modulo its extent, as PyCuTe does.
    assert_eq!(eval_str("idx2crd(30,(3,(2,4)),(1,(3,6)))").unwrap(), "(0,(0,1))");
    assert_eq!(eval_str("idx2crd(30,(3,(2,4)))").unwrap(), "(0,(0,5))");
    for (src, msg) in [
        ("crd2idx(5,(4,8),(1,2,3))", "not congruent"),
        ("idx2crd(5,(2,4),2)", "not congruent"),
        ("idx2crd(5,(2,4),(0,1))", "stride 0"),
        ("idx2crd((1,2,3),(2,4),(1,2))", "rank"),
        ("crd2idx(1,2,3,4)", "takes 2 to 3 arguments"),
    ] {
        let e = eval_str(src).unwrap_err().to_string();
        assert!(e.contains(msg), "{src}: {e}");
    }
    // Round trip over every coordinate, column- and row-major: idx2crd inverts crd2idx, and
    // crd2idx is the layout shape:stride at the coordinate.
    for (shape, strides) in [
        ("(3,(2,4))", ["(1,(3,6))", "(8,(4,1))"]),
        ("(2,3,4)", ["(1,2,6)", "(12,4,1)"]),
        ("((2,2),(3,2))", ["((1,2),(4,12))", "((12,6),(2,1))"]),
    ] {
        let n: i64 = eval_str(&format!("size({shape})")).unwrap().parse().unwrap();
        for d in strides {
            for i in 0..n {
                let c = eval_str(&format!("idx2crd({i},{shape},{d})")).unwrap();
                assert_eq!(
                    eval_str(&format!("crd2idx({c},{shape},{d})")).unwrap(),
                    i.to_string()
                );
                assert_eq!(
                    eval_str(&format!("crd2idx({c},{shape},{d})")).unwrap(),
                    eval_str(&format!("{shape}:{d}({c})")).unwrap()
                );
            }
        }
    }
}

/// A line's layout literals are moved into the call (not copied); messages still show the
/// argument as written, also inside a tuple, and `recast` reads `p/q` unevaluated.
#[test]
fn moved_arguments_show_in_messages() {
    let err = |src: &str| eval_str(src).unwrap_err().to_string();
    assert!(
        err("recast(8:1, 4:1)").contains("found a layout (4:1)"),
        "{}",
        err("recast(8:1, 4:1)")
    );
    assert!(
        err("recast(8:1, (4:1,2))").contains("((4:1,2))"),
        "{}",
        err("recast(8:1, (4:1,2))")
    );
    assert_eq!(eval_str("recast((4,8):(1,4), 1/2)").unwrap(), "(8,8):(1,8)");
    assert_eq!(eval_str("recast(8:1, 2)").unwrap(), "4:1");
    // A tiler of literals is taken whole: mode 0 is 8:8 / 2:1, mode 1 is 8:1 / 4:2.
    let s = Session::new(&[], &[]).unwrap();
    assert_eq!(
        s.eval("logical_divide((8,8):(8,1), (2:1, 4:2))").unwrap(),
        "((2,4),(4,2)):((8,16),(2,1))"
    );
}
