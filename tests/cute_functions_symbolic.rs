//! The CuTe functions of issue 25 on symbolic extents: each answer, bound to values the facts
//! admit, is the concrete answer at those values (same text, or the same function).

use tessera::ir::parse_layout;
use tessera::lang::{Session, eval_str};

const DECL: &str = "M where M % 8 == 0, M >= 8, M <= 4096";

/// The expression with `M` replaced by `m`.
fn with(expr: &str, m: i64) -> String {
    expr.replace('M', &m.to_string())
}

/// `expr` evaluated symbolically, then bound to `M = m`, against `expr` at `M = m`.
fn agrees(expr: &str) {
    let s = Session::new(&[DECL], &[]).unwrap();
    let sym = s.eval(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
    for m in [8, 16, 24, 64, 4096] {
        let bind = format!("M={m}");
        let bound = Session::new(&[DECL], &[&bind]).unwrap().eval(&sym).unwrap();
        let want = eval_str(&with(expr, m)).unwrap();
        if bound == want {
            continue;
        }
        // An equivalent layout: the same function.
        let (a, b) = (parse_layout(&bound).unwrap(), parse_layout(&want).unwrap());
        let n = a.size().unwrap();
        assert_eq!(n, b.size().unwrap(), "{expr} at M={m}: {bound} vs {want}");
        for i in 0..n {
            assert_eq!(
                a.eval_index(&i).unwrap(),
                b.eval_index(&i).unwrap(),
                "{expr} at M={m}: {bound} vs {want}"
            );
        }
    }
}

#[test]
fn symbolic_answers_are_the_concrete_ones() {
    for e in [
        "shape_div((M,4),4)",
        "ceil_div((M,4),8)",
        "elem_scale((M,4),(2,3))",
        "append((M,4):(1,M),2:0)",
        "prepend((M,4):(1,M),2:0)",
        "replace((M,4):(1,M),1,8:M)",
        "group_modes((M,4,2):(1,M,4*M),0,2)",
        "filter_zeros((M,4):(0,M))",
        "filter((M,4,2):(1,0,M),(1,_,1))",
        "max_common_layout((M,4):(1,M),(M,4):(1,M))",
        "tile_to_shape((2,2):(1,2),(M,4))",
        "upcast((M,4):(1,M),4)",
        "downcast((M,4):(1,M),2)",
        "make_fragment_like((M,4):(4,1))",
    ] {
        agrees(e);
    }
}

#[test]
fn symbolic_conditions_are_decided_or_named() {
    let s = Session::new(&["N where N >= 1"], &[]).unwrap();
    // Whether 3 divides N is not decided by the facts: an error naming the condition.
    let e = s.eval("shape_div(N,3)").unwrap_err().to_string();
    assert!(e.contains("N") && e.contains('3'), "{e}");
}
