//! The fast path of calls on literals (`tessera::lang::fast`) against the evaluation through
//! values (`Session::without_fast_path`): the same text or the same error for every corpus
//! expression, for the fast path's built-ins on the corpus's layouts with every kind of second
//! argument, and for random layouts and arguments (extents and strides up to `i64::MAX`,
//! negative and zero strides, coordinate and F2 strides, `_` and nested tilers, profiles,
//! cotargets), including the lines the fast path declines (errors, results nested too deep).

#[path = "support/layouts.rs"]
mod layouts;

use proptest::prelude::*;
use tessera::lang::Session;

/// The answer to `line` with and without the fast path, as comparable text.
fn both(line: &str) -> (String, String) {
    let s = Session::new(&[], &[]).unwrap();
    let show = |r: tessera::ir::Result<String>| match r {
        Ok(t) => format!("ok {t}"),
        Err(e) => format!("error {e}"),
    };
    let fast = show(s.eval(line));
    let slow = show(s.without_fast_path().eval(line));
    (fast, slow)
}

/// The fast path's answer to `line` (`tessera::lang::fast::answer`) and the text it wrote.
fn fast(line: &str) -> (Option<tessera::ir::Result<()>>, String) {
    let e = tessera::ir::text::parse_expr(line).unwrap();
    let mut out = String::new();
    let r = tessera::lang::fast::answer(&e, &mut out);
    (r, out)
}

/// The calls with a fast path, and the second arguments they take.
const CALLS: &[&str] = &[
    "composition",
    "logical_divide",
    "zipped_divide",
    "tiled_divide",
    "flat_divide",
    "logical_product",
    "zipped_product",
    "tiled_product",
    "flat_product",
    "complement",
    "coalesce",
];

#[test]
fn corpus_expressions_agree() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("tests/data/pycute_public.jsonl")).unwrap();
    let mut n = 0;
    for line in text.lines() {
        let j: serde_json::Value = serde_json::from_str(line).unwrap();
        let expr = j["expr"].as_str().unwrap();
        let (fast, slow) = both(expr);
        assert_eq!(fast, slow, "{expr}");
        n += 1;
    }
    assert!(n > 300, "{n} corpus lines");
}

#[test]
fn corpus_layouts_with_every_argument_kind_agree() {
    let layouts: Vec<String> = layouts::corpus_layouts().into_iter().take(60).collect();
    let seconds = [
        "2",
        "1",
        "0",
        "-3",
        "_",
        "(2,_)",
        "(2,3)",
        "((2,2),3)",
        "4:2",
        "(2:1,_)",
        "(2:1,2:2,1:1)",
        "(4,2):(1,8)",
        "8:0",
        "3:-1",
        "(1,1)",
        "((1,_),1)",
        "64",
        "9223372036854775807",
    ];
    let mut answered = 0;
    for a in &layouts {
        for name in CALLS {
            let one = format!("{name}({a})");
            let (fast, slow) = both(&one);
            assert_eq!(fast, slow, "{one}");
            for b in &seconds {
                let line = format!("{name}({a}, {b})");
                let (fast, slow) = both(&line);
                assert_eq!(fast, slow, "{line}");
                answered += fast.starts_with("ok") as usize;
            }
            for b in &layouts[..8] {
                let line = format!("{name}({a},{b})");
                let (fast, slow) = both(&line);
                assert_eq!(fast, slow, "{line}");
            }
        }
    }
    assert!(answered > 1000, "{answered} answered lines");
}

/// The fast path answers the common lines itself (the test above would pass if it answered
/// none): each of these computes without values, or fails in the algebra.
#[test]
fn fast_path_answers_the_common_lines() {
    for line in [
        "composition((6,2):(8,2),(4,3):(3,1))",
        "logical_divide(24:1,4:2)",
        "logical_divide((8,6):(1,8),(2,_))",
        "zipped_divide((8,6):(1,8),(2,3))",
        "complement(4:2,24)",
        "complement((2,2):(1,6))",
        "coalesce((2,(1,6)):(1,(6,2)),(1,1))",
        "tiled_divide((8,6):(1,8),(2:1,3:2))",
    ] {
        let (r, out) = fast(line);
        assert!(matches!(r, Some(Ok(()))), "{line}");
        assert_eq!(format!("ok {out}"), both(line).1, "{line}");
    }
    // A tiler built-in's error is answered without values too, in the general path's words.
    for line in [
        "composition((4,2):(12,12),2:5)",
        "composition((5,2):(3,0),8:1)",
        "logical_divide((4,3):(0,1),(2,3):(2,1))",
        "composition(12:1,(2,3))",
        "zipped_divide((4,2):(12,12),2:5)",
        "logical_product((4,2):(1,1),2:1)",
        "flat_product(4:2,(2,2):(1,1))",
    ] {
        let (Some(Err(err)), out) = fast(line) else {
            panic!("{line}: not answered with an error");
        };
        assert!(out.is_empty());
        assert_eq!(format!("error {err}"), both(line).1, "{line}");
    }
    // Declined: not a literal layout, another built-in, an error of complement, a name.
    for line in [
        "composition(8, 4:1)",
        "size(4:1)",
        "complement((4,2):(1,1))",
        "logical_divide(A, 2)",
    ] {
        let (r, out) = fast(line);
        assert!(r.is_none(), "{line}");
        assert!(out.is_empty());
    }
}

/// An extent or stride for random layouts: small, zero, negative, and at the edges of i64.
fn int() -> impl Strategy<Value = i64> {
    prop_oneof![
        6 => 1i64..9,
        1 => Just(0i64),
        1 => -5i64..0,
        1 => prop_oneof![
            Just(1i64 << 31),
            Just(1i64 << 32),
            Just(1i64 << 62),
            Just(i64::MAX),
            Just(i64::MIN),
            Just(-(1i64 << 62))
        ],
    ]
}

/// A stride leaf: mostly integers, some coordinate and F2 strides.
fn stride() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => int().prop_map(|v| v.to_string()),
        1 => (1i64..4, 0u32..2).prop_map(|(v, p)| format!("{v}@{p}")),
        1 => (0u64..64).prop_map(|v| format!("F2({v})")),
    ]
}

/// A layout literal with nested modes.
fn layout() -> impl Strategy<Value = String> {
    let leaf = (int(), stride()).prop_map(|(s, d)| (s.to_string(), d));
    let tree = leaf.prop_recursive(3, 8, 3, |inner| {
        prop::collection::vec(inner, 2..4).prop_map(|ms| {
            let s: Vec<_> = ms.iter().map(|m| m.0.clone()).collect();
            let d: Vec<_> = ms.iter().map(|m| m.1.clone()).collect();
            (format!("({})", s.join(",")), format!("({})", d.join(",")))
        })
    });
    tree.prop_map(|(s, d)| format!("{s}:{d}"))
}

/// A second argument: a layout, an integer, `_`, an int tuple, a tuple of these.
fn second() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        4 => layout(),
        3 => int().prop_map(|v| v.to_string()),
        1 => Just("_".to_string()),
    ];
    leaf.prop_recursive(2, 6, 3, |inner| {
        prop::collection::vec(inner, 1..4).prop_map(|xs| format!("({})", xs.join(",")))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 768, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_lines_agree(name in prop::sample::select(CALLS), a in layout(), b in second(), two in any::<bool>()) {
        let line = if two { format!("{name}({a},{b})") } else { format!("{name}({a})") };
        let (fast, slow) = both(&line);
        prop_assert_eq!(fast, slow, "{}", line);
    }
}
