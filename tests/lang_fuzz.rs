//! Fuzzing of the text format and the expression language through `eval_str`: random token
//! soups, random character strings, mutations of valid expressions (characters inserted,
//! deleted or replaced, huge numbers spliced in, deep nesting), ill-typed calls, and long
//! chains of every kind (thousands of terms of each operator, postfix evaluations and slices,
//! coordinate-stride sums, compositions, runs of `Sw<` and of minus signs). Whatever the input,
//! the answer is `Ok` or a typed error, never a panic or a stack overflow; syntax errors carry
//! their column; values that leave `i64` are overflow errors; and every result prints in a form
//! that evaluates to the same text.
//!
//! The CI runs take seconds; `cargo test -p tessera-ir --test fuzz_parser -- --ignored` is the
//! longer soak run, and `TESSERA_PROPTEST_SCALE=N` multiplies every case count.

use proptest::prelude::*;
use tessera::ir::Error;
use tessera::lang::eval_str;
use tessera::lang::{Env, eval_expr};

/// `cases` cases, scaled by `$TESSERA_PROPTEST_SCALE`.
fn cfg(cases: u32) -> ProptestConfig {
    let scale = std::env::var("TESSERA_PROPTEST_SCALE")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .unwrap_or(1);
    ProptestConfig {
        cases: cases.saturating_mul(scale.max(1)),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Valid expressions in the style of the corpus, the seeds of the mutations.
const CORPUS: &[&str] = &[
    "logical_divide((8,4,7):(1,8,32),28:1)",
    "composition((6,2):(8,2),(4,3):(3,1))",
    "composition((4,3):(0,1),(2,3):(2,1))",
    "(3,(2,4)):(2,(1,6))(17)",
    "(3,(2,4)):(2,(1,6))(2,(1,2))",
    "coalesce((2,(1,6)):(1,(6,2)),(1,1))",
    "coalesce_z((2,1,6,1):(1,7,8,0))",
    "complement(4:2,20)",
    "complement((2,2):(1,6))",
    "zipped_divide((4,7):(1,16),(2,7))",
    "tiled_divide((8,6):(1,8),(2,_))",
    "flat_divide(((4,6),8):((1,4),24),((2,3),4))",
    "logical_product((2,2):(4,1),6:1)",
    "blocked_product((2,5):(5,1),(3,4))",
    "raked_product((2,5):(5,1),(3,4):(1,3))",
    "right_inverse((4,8):(1,5))",
    "left_inverse((10,(2,2)):(4,(2,1)))",
    "nullspace((2,4,6):(1,2,0))",
    "layout_add((4,3):(1,4),(4,3):(3,1))",
    "greatest_common_domain((5,3,4),(10,6))",
    "recast((4,4):(4,1),1/2)",
    "make_layout(3:1,(5,1):(7,2),2:42)",
    "select((2,3,5,7):(1,2,6,30),(1,3))",
    "take((2,3,5,7):(1,2,6,30),1,4)",
    "idx2crd(7,(3,(2,4)))",
    "crd2idx((1,(0,1)),(3,(2,4)))",
    "prefix_product(((2,3),(2,1,2),(5,2,1)))",
    "inner_product(((2,3),4),((2,1),2))",
    "tiler_to_layout((4:2,5:3))",
    "make_basis_like((10,(20,30)))",
    "(4,8):(1@0,1@1)",
    "3@0+5@1",
    "Sw<3,3,3> o (8,64):(64,1)",
    "Sw<3,4,3> o 32 o (8,64):(64,1)",
    "Sw<3,0,3>(8)",
    "F2(10)+F2(12)",
    "(6,2):(8,2) o (4,3):(3,1)",
    "max_common_vector((4,8):(1,4),32:1)",
    "make_ordered_layout((2,3,4,2),(0,2,3,0))",
    "size(((2,3),4))",
    "cosize((3,(2,4)):(2,(1,6)))",
    "coshape((4,8):(1@0,1@1))",
    "get(((0,0,(0,0,0,42))),0,2,3)",
    "(8,-4):(-1,_2)",
    "_4:_1",
];

/// Pieces that splice interesting integers into an expression.
const HUGE: &[&str] = &[
    "9223372036854775807",
    "9223372036854775808",
    "99999999999999999999999",
    "00000000000000000000009223372036854775807",
    "-000000000000000000009223372036854775808",
    "0000000000000000000018446744073709551616",
    "4611686018427387904",
    "-9223372036854775807",
    "(0-9223372036854775807-1)",
    "product(-9223372036854775807-1)",
    "0",
    "-1",
    "1@4294967295",
    "1@4294967296",
];

/// Tokens of the language, for token soups that get past the lexer.
const TOKENS: &[&str] = &[
    "(",
    ")",
    ",",
    ":",
    "@",
    "_",
    "+",
    "-",
    "*",
    "/",
    "%",
    "<",
    ">",
    " o ",
    " ",
    "0",
    "1",
    "2",
    "4",
    "7",
    "16",
    "-3",
    "Sw",
    "F2",
    "composition",
    "complement",
    "logical_divide",
    "zipped_divide",
    "logical_product",
    "blocked_product",
    "coalesce",
    "size",
    "select",
    "take",
    "get",
    "recast",
    "right_inverse",
    "left_inverse",
    "make_layout",
    "idx2crd",
    "crd2idx",
    "tiler_to_layout",
    "lift",
    "M",
    "[",
    "]",
    "=",
    "!",
];

/// Stack for the evaluations: `eval_str` recurses once per nesting level (chains cost none),
/// and a debug build needs a few MiB at the 128 levels the parser admits.
const STACK: usize = 64 << 20;

/// `eval_str(src)`, and `eval_str` of its printed result, on a thread with a large stack;
/// `Err` with the message of a panic.
fn eval_twice(
    src: &str,
) -> Result<(tessera::ir::Result<String>, Option<tessera::ir::Result<String>>), String> {
    let s = src.to_string();
    let h = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || {
            let r = eval_str(&s);
            // Literals read straight into values mean what the general productions read.
            let general = tessera::ir::text::parse_expr_without_literals(&s)
                .map_err(Error::Parse)
                .and_then(|e| eval_expr::<i64>(&e, &Env::new(), &s))
                .and_then(|v| v.check_depth())
                .map(|v| v.to_string());
            assert_eq!(
                r.as_ref().map_err(ToString::to_string),
                general.as_ref().map_err(ToString::to_string),
                "{s:?}: the literal reading and the general one differ"
            );
            // A result prints in the canonical form, which is an expression again.
            let again = r.as_ref().ok().map(|out| eval_str(out));
            (r, again)
        })
        .expect("spawn an evaluation thread");
    h.join().map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|m| m.to_string()))
            .unwrap_or_default()
    })
}

/// The check every input goes through: no panic; an error has a message, and a syntax error
/// its column; a result prints in a form that evaluates to itself.
fn check(src: &str) -> Result<(), TestCaseError> {
    let (r, again) = match eval_twice(src) {
        Ok(x) => x,
        Err(panic) => return Err(TestCaseError::fail(format!("{src:?}: panicked: {panic}"))),
    };
    if let (Ok(once), Some(twice)) = (&r, &again) {
        prop_assert!(
            twice.as_ref() == Ok(once),
            "{:?} printed {:?}, which evaluates to {:?}",
            src,
            once,
            twice
        );
    }
    for (what, r) in [(src.to_string(), Some(r)), ("its result".to_string(), again)] {
        if let Some(Err(e)) = r {
            let msg = e.to_string();
            prop_assert!(!msg.is_empty(), "{:?} ({}): empty error message", src, what);
            if let Error::Parse(p) = &e {
                prop_assert!(
                    msg.contains("column"),
                    "{:?} ({}): parse error without a column: {}",
                    src,
                    what,
                    msg
                );
                prop_assert!(
                    p.col <= p.src.len(),
                    "{:?} ({}): column {} past the end",
                    src,
                    what,
                    p.col
                );
            }
        }
    }
    Ok(())
}

/// One edit of a string at a position (taken modulo its length, on a character boundary).
#[derive(Clone, Debug)]
enum Edit {
    Insert(usize, char),
    Delete(usize),
    Replace(usize, char),
    Splice(usize, &'static str),
    Truncate(usize),
}

fn apply(src: &str, edit: &Edit) -> String {
    let chars: Vec<char> = src.chars().collect();
    let at = |p: usize| {
        if chars.is_empty() {
            0
        } else {
            p % (chars.len() + 1)
        }
    };
    let mut out: Vec<char> = chars.clone();
    match edit {
        Edit::Insert(p, c) => out.insert(at(*p), *c),
        Edit::Delete(p) => {
            if !out.is_empty() {
                out.remove(at(*p).min(out.len() - 1));
            }
        }
        Edit::Replace(p, c) => {
            if !out.is_empty() {
                let k = at(*p).min(out.len() - 1);
                out[k] = *c;
            }
        }
        Edit::Splice(p, s) => {
            let k = at(*p);
            out.splice(k..k, s.chars());
        }
        Edit::Truncate(p) => out.truncate(at(*p)),
    }
    out.into_iter().collect()
}

fn fuzz_char() -> impl Strategy<Value = char> {
    prop_oneof![
        8 => prop::sample::select("0123456789(),:@_+-*/%<>o ".chars().collect::<Vec<_>>()),
        3 => prop::char::range('a', 'z'),
        1 => prop::sample::select(vec!['[', ']', '=', '!', '&', '|', 'S', 'F', 'é', '∘', '\t', '\u{0}']),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (any::<usize>(), fuzz_char()).prop_map(|(p, c)| Edit::Insert(p, c)),
        3 => any::<usize>().prop_map(Edit::Delete),
        3 => (any::<usize>(), fuzz_char()).prop_map(|(p, c)| Edit::Replace(p, c)),
        2 => (any::<usize>(), prop::sample::select(HUGE)).prop_map(|(p, s)| Edit::Splice(p, s)),
        1 => any::<usize>().prop_map(Edit::Truncate),
    ]
}

proptest! {
    #![proptest_config(cfg(3000))]

    #[test]
    fn random_strings(s in prop::collection::vec(fuzz_char(), 0..60).prop_map(|v| v.into_iter().collect::<String>())) {
        check(&s)?;
    }

    #[test]
    fn token_soup(toks in prop::collection::vec(prop::sample::select(TOKENS), 0..40)) {
        check(&toks.concat())?;
    }

    #[test]
    fn mutated_corpus(seed in prop::sample::select(CORPUS), edits in prop::collection::vec(edit(), 1..5)) {
        let mut s = seed.to_string();
        for e in &edits {
            s = apply(&s, e);
        }
        check(&s)?;
    }

    #[test]
    fn spliced_corpus(a in prop::sample::select(CORPUS), b in prop::sample::select(CORPUS), p in any::<usize>(), q in any::<usize>()) {
        // The front of one expression and the back of another.
        let (ca, cb): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let s: String = ca[..p % (ca.len() + 1)].iter().chain(&cb[q % (cb.len() + 1)..]).collect();
        check(&s)?;
    }
}

/// Built-in names (and a few unknown ones) for well-formed calls with ill-typed arguments.
const NAMES: &[&str] = &[
    "coalesce",
    "coalesce_z",
    "filter",
    "composition",
    "complement",
    "logical_divide",
    "zipped_divide",
    "tiled_divide",
    "flat_divide",
    "logical_product",
    "zipped_product",
    "tiled_product",
    "flat_product",
    "blocked_product",
    "raked_product",
    "right_inverse",
    "left_inverse",
    "nullspace",
    "layout_add",
    "greatest_common_domain",
    "recast",
    "make_layout",
    "make_layout_like",
    "make_ordered_layout",
    "make_identity_layout",
    "make_basis_like",
    "tiler_to_layout",
    "max_common_vector",
    "select",
    "take",
    "get",
    "flatten",
    "wrap",
    "unwrap",
    "size",
    "cosize",
    "rank",
    "depth",
    "shape",
    "stride",
    "coshape",
    "coprofile",
    "product",
    "product_each",
    "prefix_product",
    "inner_product",
    "idx2crd",
    "crd2idx",
    "congruent",
    "weakly_congruent",
    "compatible",
    "common_refinement",
    "common_coarsening",
    "repeat_like",
    "lift",
    "local_tile",
    "local_partition",
    "nosuchfunction",
];

/// A random value expression: integers (small, zero, negative, huge), tuples (nested, empty),
/// layouts (zero, negative and coordinate strides), `_`, swizzles, and calls of built-ins.
fn value_expr() -> impl Strategy<Value = String> {
    let int = prop_oneof![
        4 => (0i64..10).prop_map(|v| v.to_string()),
        1 => (-5i64..0).prop_map(|v| v.to_string()),
        1 => prop::sample::select(HUGE).prop_map(str::to_string),
    ];
    let leaf = prop_oneof![
        6 => int.clone(),
        1 => Just("_".to_string()),
        1 => Just("()".to_string()),
        1 => (0u32..3, 0u32..3).prop_map(|(v, k)| format!("{v}@{k}")),
        1 => (0i64..4, 0i64..5, -4i64..5).prop_map(|(b, m, s)| format!("Sw<{b},{m},{s}>")),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            3 => prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("({})", v.join(","))),
            3 => (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a}:{b}")),
            3 => (prop::sample::select(NAMES), prop::collection::vec(inner.clone(), 0..4))
                .prop_map(|(f, v)| format!("{f}({})", v.join(","))),
            1 => (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} o {b}")),
            1 => (inner.clone(), inner.clone(), prop::sample::select(vec!["+", "-", "*", "/", "%"]))
                .prop_map(|(a, b, op)| format!("{a}{op}{b}")),
            1 => (inner.clone(), prop::collection::vec(inner, 1..3)).prop_map(|(f, v)| format!("{f}({})", v.join(","))),
        ]
    })
}

proptest! {
    #![proptest_config(cfg(3000))]

    #[test]
    fn ill_typed_calls(e in value_expr()) {
        check(&e)?;
    }
}

proptest! {
    #![proptest_config(cfg(300))]

    #[test]
    fn deep_nesting(depth in 1usize..400, seed in prop::sample::select(CORPUS), kind in 0u8..5) {
        let s = match kind {
            0 => format!("{}{}{}", "(".repeat(depth), seed, ")".repeat(depth)),
            1 => format!("{}{}", "(".repeat(depth), seed),
            2 => format!("{}1{}", "size(".repeat(depth), ")".repeat(depth)),
            3 => format!("{}1", "-".repeat(depth)),
            _ => format!("{}{}{}", "composition(".repeat(depth), seed, ",1)".repeat(depth)),
        };
        check(&s)?;
    }
}

#[test]
fn nesting_at_the_limit_evaluates() {
    // The parser accepts 128 levels; deeper input is a parse error, never a crash.
    for depth in [50, 63, 64, 100, 127, 128, 129, 200, 5000] {
        for s in [
            format!("{}7{}", "(".repeat(depth), ")".repeat(depth)),
            format!("{}7:1{}", "(".repeat(depth), ")".repeat(depth)),
            format!("{}1{}", "size(".repeat(depth), ")".repeat(depth)),
            format!("{}4:1{}", "composition(".repeat(depth), ",1)".repeat(depth)),
            format!("{}1", "-".repeat(depth)),
            format!("1{}", "@0".repeat(depth)),
        ] {
            let r = eval_twice(&s);
            assert!(r.is_ok(), "{}...: panicked: {:?}", &s[..40.min(s.len())], r.err());
        }
    }
}

/// Nested calls evaluate their arguments before the built-in runs, so the recursion does not
/// carry the built-ins' large frames: `size(size(...(1)...))` nested as deep as the parser
/// admits (two levels per call) fits a 2 MiB stack even in a debug build.
#[test]
fn deep_calls_on_a_default_test_thread() {
    let s = format!("{}1{}", "size(".repeat(60), ")".repeat(60));
    let h = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || eval_str(&s).is_ok())
        .unwrap();
    assert!(h.join().unwrap());
}

/// `src` fails with an overflow error.
fn overflows(src: &str) {
    match eval_str(src) {
        Ok(v) => panic!("{src}: expected an overflow error, got {v}"),
        Err(e) => {
            let msg = e.to_string();
            assert!(
                matches!(e, Error::Overflow(_)) && msg.contains("overflow"),
                "{src}: expected an overflow error, got {e:?}"
            );
        }
    }
}

#[test]
fn i64_overflow_is_an_error() {
    overflows("size((4611686018427387904,4))");
    overflows("product((4611686018427387904,4))");
    overflows("cosize(4611686018427387904:4)");
    overflows("9223372036854775807+1");
    overflows("4611686018427387904*2");
    overflows("-9223372036854775807-2");
    overflows("(4,8):(1,5)(9223372036854775807)");
    // The same index in a compact layout is in range: L(i) = i.
    assert_eq!(
        eval_str("(4,8):(1,4)(9223372036854775807)").unwrap(),
        "9223372036854775807"
    );
    overflows("composition(4:4611686018427387904,2:2)");
    overflows("complement(4611686018427387904:4)");
    overflows("logical_product(4611686018427387904:2,4:1)");
    overflows("inner_product((4611686018427387904,1),(2,0))");
    overflows("crd2idx((0,4611686018427387904),(2,3))");
    overflows("recast(4611686018427387904:1,1/2)");
    // A correct result that fits is not an overflow: A(B(i)) = A(4i) = 16i for i < 2.
    assert_eq!(
        eval_str("composition(4611686018427387904:4,2:4)").unwrap(),
        "2:16"
    );
}

#[test]
fn literals_past_i64_are_parse_errors_with_a_column() {
    for src in [
        "9223372036854775808",
        "(4,99999999999999999999):(1,4)",
        "size(_9223372036854775808)",
    ] {
        match eval_str(src) {
            Err(Error::Parse(p)) => {
                let msg = p.to_string();
                assert!(
                    msg.contains("column") && msg.contains("does not fit in i64"),
                    "{src}: {msg}"
                );
            }
            other => panic!("{src}: expected a parse error, got {other:?}"),
        }
    }
}

#[test]
fn hostile_swizzles_are_errors() {
    for src in [
        "Sw<0,0,product(-9223372036854775807-1)>",
        "Sw<9223372036854775807,1,9223372036854775807>",
        "Sw<1,9223372036854775807,1>",
        "Sw<3,3,-9223372036854775807>(5)",
        "Sw<-1,0,0>",
        "Sw<3,3,2>",
        "Sw<20,20,30>",
    ] {
        assert!(eval_str(src).is_err(), "{src}: {:?}", eval_str(src));
    }
}

#[test]
fn empty_layouts_do_not_panic() {
    // Rank-0 layouts `():()` (size 1, the constant 0) through every operation.
    for src in [
        "() o 0",
        "() o 4:1",
        "composition(():(),(4,2):(1,3))",
        "composition((4,2):(1,3),():())",
        "coalesce(():())",
        "complement(():(),8)",
        "logical_divide(():(),4:1)",
        "logical_divide((4,6):(1,4),((),2))",
        "zipped_divide((4,6):(1,4),((),2))",
        "logical_product(():(),4:1)",
        "zipped_product((4,6):(1,4),((),2))",
        "blocked_product(():(),())",
        "raked_product(((),4):((),1),(2,2))",
        "right_inverse(():())",
        "left_inverse(():())",
        "nullspace(():())",
        "layout_add(():(),1:0)",
        "greatest_common_domain((),())",
        "recast(():(),1/2)",
        "make_layout_like(():())",
        "max_common_vector(():(),():())",
        "tiler_to_layout(())",
        "idx2crd(3,())",
        "crd2idx((),())",
    ] {
        let r = eval_twice(src);
        assert!(r.is_ok(), "{src}: panicked: {:?}", r.err());
        let (r, _) = r.unwrap();
        assert!(
            r.is_ok() || !r.as_ref().unwrap_err().to_string().is_empty(),
            "{src}"
        );
    }
    assert_eq!(eval_str("() o 4:1").unwrap(), "4:0");
}

/// Operands of the long chains: numbers, strides, groups, tuples, layouts, names.
const OPERANDS: &[&str] = &[
    "1",
    "2",
    "7",
    "0",
    "-1",
    "-9223372036854775808",
    "9223372036854775807",
    "(1+1)",
    "((3))",
    "(2*(3-1))",
    "1@0",
    "2@1",
    "1@1@0",
    "F2(3)",
    "(2,3)",
    "4:1",
    "(4,8):(1,4)",
    "_",
    "Sw<3,3,3>",
    "true",
    "M",
    "size((4,8))",
];
const OPS: &[&str] = &["+", "-", "*", "/", "%"];
/// Values that suffixes apply to, and the suffixes.
const BASES: &[&str] = &[
    "7",
    "4:1",
    "(8,8):(1,8)",
    "8:1",
    "Sw<3,3,3>",
    "(Sw<3,3,3> o (16,64):(64,1))",
    "(8 o (2,4):(4,1))",
    "((4,4):(1,4) o (2,2):(1,2))",
    "(2+3)",
];
const SUFFIXES: &[&str] = &[
    "(3)", "(0)", "(1,1)", "((1,1))", "[:]", "[:,:]", "[1:]", "[0]", "[::-1]", "()", "[]",
];
/// Operands of long compositions.
const COMPOSED: &[&str] = &[
    "4:1",
    "2:2",
    "(4,4):(1,4)",
    "Sw<1,1,1>",
    "8",
    "(2,2)",
    "_",
    "(4:1,2:1)",
    "0",
];
/// What follows a run of `Sw<`.
const SWIZZLE_TAILS: &[&str] = &["3,3,3>", "3,3,3>,3,3>", "", "(", "1,2", "-3,3,3>"];

/// Long chains of every kind: one operator over thousands of terms, mixed operators and
/// operands, postfix evaluations and slices, coordinate-stride sums, compositions, and runs of
/// `Sw<` and of minus signs.
fn long_chain() -> impl Strategy<Value = String> {
    use prop::sample::select;
    prop_oneof![
        (select(OPS), select(OPERANDS), 1usize..4000).prop_map(|(op, x, n)| vec![x; n].join(op)),
        prop::collection::vec((select(OPS), select(OPERANDS)), 1..2000).prop_map(|v| {
            let mut s = String::from("1");
            for (op, x) in v {
                s.push_str(op);
                s.push_str(x);
            }
            s
        }),
        (select(BASES), prop::collection::vec(select(SUFFIXES), 1..2000))
            .prop_map(|(b, v)| format!("{b}{}", v.concat())),
        (
            select(vec!["", "4:", "(4,8):(", "8:1@0+"]),
            prop::collection::vec(
                (
                    select(vec!["+", "-"]),
                    -3i64..5,
                    prop::collection::vec(0u32..4, 1..4)
                ),
                1..3000
            )
        )
            .prop_map(|(head, v)| {
                let terms: Vec<String> = v
                    .iter()
                    .enumerate()
                    .map(|(k, (op, c, path))| {
                        let p: String = path.iter().map(|i| format!("@{i}")).collect();
                        let op = if k == 0 { "" } else { op };
                        format!("{op}{c}{p}")
                    })
                    .collect();
                let close = if head.ends_with('(') { ",1@2)" } else { "" };
                format!("{head}{}{close}", terms.concat())
            }),
        prop::collection::vec(select(COMPOSED), 1..2000).prop_map(|v| v.join(" o ")),
        (1usize..10_000, select(SWIZZLE_TAILS)).prop_map(|(n, t)| format!("{}{t}", "Sw<".repeat(n))),
        (1usize..400, select(OPERANDS)).prop_map(|(n, x)| format!("{}{x}", "-".repeat(n))),
        (1usize..300, select(OPERANDS)).prop_map(|(n, x)| format!("{}{x}{}", "(".repeat(n), ")".repeat(n))),
    ]
}

proptest! {
    #![proptest_config(cfg(48))]

    /// Chains of any length are answered (a value or an error) without exhausting the stack,
    /// and every value prints in a form that evaluates to itself.
    #[test]
    fn long_chains(s in long_chain()) {
        check(&s)?;
    }
}

proptest! {
    #![proptest_config(cfg(20_000))]

    /// The soak run of the long chains: `cargo test -p tessera-ir --test fuzz_parser -- --ignored`.
    #[test]
    #[ignore]
    fn long_chains_soak(s in long_chain()) {
        check(&s)?;
    }

    /// The soak run of the corpus mutations and ill-typed calls, with round trips.
    #[test]
    #[ignore]
    fn ill_typed_calls_soak(e in value_expr()) {
        check(&e)?;
    }

    #[test]
    #[ignore]
    fn mutated_corpus_soak(seed in prop::sample::select(CORPUS), edits in prop::collection::vec(edit(), 1..8)) {
        let mut s = seed.to_string();
        for e in &edits {
            s = apply(&s, e);
        }
        check(&s)?;
    }
}
