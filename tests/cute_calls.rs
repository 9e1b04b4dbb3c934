//! The expression language's forms of issue 25: `composition(Sw<..>, L)` as a call, `_` in
//! `local_tile`/`local_partition` coordinates, `recast` refusing a downcast without a unit
//! stride, product errors naming the user's operands, the new functions' errors naming their
//! condition.

use tessera::lang::eval_str;

fn ev(s: &str) -> String {
    eval_str(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn err(s: &str) -> String {
    eval_str(s).expect_err(s).to_string()
}

#[test]
fn composition_of_a_swizzle_is_the_operator() {
    assert_eq!(ev("composition(Sw<2,4,3>, 16:1)"), ev("Sw<2,4,3> o 16:1"));
    assert_eq!(
        ev("composition(Sw<3,3,3>, (8,64):(64,1))"),
        "Sw<3,3,3> o (8,64):(64,1)"
    );
    // A layout cannot be composed with a swizzle on its right.
    assert!(err("composition(16:1, Sw<2,4,3>)").contains("swizzle"));
}

#[test]
fn underscore_keeps_a_mode_in_local_tile_and_local_partition() {
    assert_eq!(ev("local_tile((6,16):(1,6),(2,2),(1,_))"), "2 o (2,2,8):(1,6,12)");
    assert_eq!(ev("local_tile((6,16):(1,6),(2,2),(_,3))"), "36 o (2,2,3):(1,6,2)");
    assert_eq!(
        ev("local_tile((6,16):(1,6),(2,2),(_,_))"),
        "0 o (2,2,3,8):(1,6,2,12)"
    );
    // Without `_`, the tile alone.
    assert_eq!(ev("local_tile((6,16):(1,6),(2,2),(1,3))"), "38 o (2,2):(1,6)");
    assert_eq!(
        ev("local_partition((6,8):(1,6),(2,2),(1,_))"),
        "1 o (2,3,4):(6,2,12)"
    );
    assert_eq!(
        ev("local_partition((6,8):(1,6),(2,2),(_,1))"),
        "6 o (2,3,4):(1,2,12)"
    );
    assert!(err("local_tile((6,16):(1,6),(2,2),(1,_,3))").contains("3 indices"));
    assert!(
        err("local_tile((6,16):(1,6),(2,2),(3,_))")
            .contains("index 3 is out of range for tile grid axis 0 of size 3")
    );
}

#[test]
fn downcast_needs_a_unit_stride() {
    assert!(err("recast(8:4,1/2)").contains("requires adjacent elements"));
    assert!(err("downcast(8:4,2)").contains("requires adjacent elements"));
    assert_eq!(ev("recast((8,2):(4,1),1/2)"), "(8,4):(8,1)");
    assert_eq!(ev("size(recast((1,8):(1,4),1/2))"), "16");
}

#[test]
fn product_errors_name_the_users_operands() {
    let e = err("logical_product(2:2, 3:1)");
    assert!(e.contains("A = 2:2, B = 3:1"), "{e}");
    assert!(e.contains("complement(A) o B = (2,1):(1,4) o 3:1"), "{e}");
    assert!(!e.contains("; A = "), "{e}");
}

#[test]
fn new_functions_name_their_conditions() {
    assert!(err("shape_div(6,4)").contains("divisibility condition"));
    assert!(err("ceil_div(4,0)").contains("not positive"));
    assert!(err("elem_scale((2,3),4)").contains("rank"));
    assert!(err("append((2,3),4,1)").contains("target rank 1"));
    assert!(err("replace((2,3),2,5)").contains("mode 2"));
    assert!(err("group_modes((2,3),2,1)").contains("modes 2..1"));
    assert!(err("tile_to_shape((2,4):(1,2),(4,6))").contains("does not divide"));
    assert!(err("tile_to_shape((2,2,2):(1,2,4),(4,4))").contains("rank 3"));
    assert!(err("append((2,3))").contains("needs the element"));
    assert!(err("right_inverse(Sw<3,3,3> o 8 o (8,64):(64,1))").contains("cannot hold"));
}

/// The inverses of a swizzled layout are CuTe C++'s `Sw' o inverse(L)`, each checked pointwise
/// against the definition here too; where CuTe's answer breaks it, an error says so.
#[test]
fn inverses_of_swizzled_layouts() {
    let f = "Sw<3,3,3> o (8,64):(64,1)";
    for op in ["right_inverse", "left_inverse"] {
        let g = ev(&format!("{op}({f})"));
        assert!(g.starts_with("Sw<"), "{op}: {g}");
        for k in 0..512 {
            let (inner, outer) = if op == "right_inverse" {
                (&g, f)
            } else {
                (&f.to_string(), g.as_str())
            };
            let x = ev(&format!("({inner})({k})"));
            assert_eq!(
                ev(&format!("({outer})({x})")),
                k.to_string(),
                "{op}({f}) = {g} at {k}"
            );
        }
    }
    assert_eq!(
        ev("right_inverse(Sw<3,0,3> o (8,8):(8,1))"),
        "Sw<3,0,-3> o (8,8):(8,1)"
    );
    // An identity swizzle is dropped, as CuTe drops it.
    assert_eq!(ev("right_inverse(Sw<0,4,3> o (4,8):(8,1))"), "(8,4):(4,1)");
    assert!(err("right_inverse(Sw<3,4,3> o (64,8):(8,1))").contains("breaks the definition"));
    assert!(err("right_inverse(Sw<3,0,3> o (8,4):(4,1))").contains("make_swizzle"));
}

/// `get`/`select`/`take`/`flatten` of a function `Sw o off o L` select from its domain and
/// keep the function (CuTe's `get<I>(ComposedLayout)`, PyCuTe's `ComposedLayout[i]`): mode
/// `i` at `j` is the function at the coordinate with `j` in mode `i`, 0 elsewhere.
#[test]
fn mode_selection_on_functions() {
    let f = "Sw<3,0,3> o 5 o ((8,2),8):((8,64),1)";
    assert_eq!(ev(&format!("get({f},0)")), "Sw<3,0,3> o 5 o (8,2):(8,64)");
    assert_eq!(ev(&format!("get({f},0,1)")), "Sw<3,0,3> o 5 o 2:64");
    assert_eq!(ev(&format!("flatten({f})")), "Sw<3,0,3> o 5 o (8,2,8):(8,64,1)");
    for j in 0..16 {
        assert_eq!(ev(&format!("get({f},0)({j})")), ev(&format!("({f})({j},0)")));
    }
    for j in 0..8 {
        assert_eq!(ev(&format!("get({f},1)({j})")), ev(&format!("({f})(0,{j})")));
    }
    let g = "Sw<2,1,3> o (4,2,8):(16,64,1)";
    assert_eq!(ev(&format!("select({g},(2,0))")), "Sw<2,1,3> o (8,4):(1,16)");
    assert_eq!(ev(&format!("take({g},1,3)")), "Sw<2,1,3> o (2,8):(64,1)");
    for (a, b) in [(0, 0), (3, 5), (1, 7), (2, 2)] {
        assert_eq!(
            ev(&format!("select({g},(2,0))({b},{a})")),
            ev(&format!("({g})({a},0,{b})"))
        );
    }
    // A leaf is its own mode 0, as CuTe's get<0>; plain layouts and tuples are as before.
    assert_eq!(ev("get(8:1,0)"), "8:1");
    assert_eq!(ev("get((2,(3,4)),1,0)"), "3");
    assert_eq!(ev("get(((2,4),3):((1,2),8),0,1)"), "4:2");
}

/// A mode that does not exist is an error with a caret at the argument naming it.
#[test]
fn bad_modes_point_at_their_argument() {
    let caret = |s: &str, col: usize| {
        let e = err(s);
        assert!(e.contains(&format!("column {}", col + 1)), "{s}: {e}");
        assert!(
            e.lines()
                .last()
                .is_some_and(|l| l.trim_end().ends_with('^') && l.find('^') == Some(col + 2)),
            "{s}: {e}"
        );
        e
    };
    let e = caret("get(Sw<3,0,3> o ((8,2),8):((8,64),1),2)", 37);
    assert!(
        e.contains("mode 2 out of range: ((8,2),8):((8,64),1) has 2 modes (0..2)"),
        "{e}"
    );
    let e = caret("get(((2,4),3):((1,2),8),0,2)", 26);
    assert!(e.contains("(2,4):(1,2) has 2 modes"), "{e}");
    caret("get((2,3),5)", 10);
    caret("select(Sw<3,0,3> o (2,3):(1,2),(0,5))", 31);
    let e = caret("take((2,3):(1,2),1,4)", 19);
    assert!(
        e.contains("[1, 4) is out of range: (2,3):(1,2) has 2 modes"),
        "{e}"
    );
    caret("take((2,3):(1,2),2,1)", 17);
    caret("get((2,3),-1)", 10);
}

/// A symbolic swizzled layout whose extents lie past the swizzle's bits: the inverses are
/// proved by structure, and the verifier (z3, over the admitted N) agrees they are inverses.
#[test]
fn symbolic_swizzled_inverses_are_proved_by_the_verifier() {
    let src = "param N where N % 2 == 0, N >= 2, N <= 64\n\
               let F = Sw<3,0,3> o (8,8,N):(8,1,64)\n\
               assert right_inverse_valid(F, right_inverse(F))\n\
               assert left_inverse_valid(F, left_inverse(F))\n";
    let cf = tessera::check::load("<test>", src).unwrap_or_else(|e| panic!("{}", e.msg));
    let opts = tessera_verifier::Options {
        timeout_ms: Some(60_000),
    };
    for o in tessera::check::run(&cf.assertions, &opts, 1) {
        assert!(
            matches!(o.verdict, tessera_verifier::Verdict::Proved),
            "{}: {:?}",
            o.text,
            o.verdict
        );
    }
}
