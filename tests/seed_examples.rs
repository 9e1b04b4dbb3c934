//! Every example of the PyCuTe API reference (seed `004_*`) that concerns int tuples, shapes,
//! strides, layouts, the algebra and swizzles, checked as exact text through `eval_str` (or
//! through the Rust API where the expression language has no form for it). Examples the
//! reference gives without an output are checked against the value that satisfies the stated
//! post-condition, and the examples of `design.md` are included.
//!
//! Not covered: `is_tuple`, `front`/`back`/`replace_*`, `slice_`/`dice_`, `transform_*`,
//! `zip_leaves`/`fold_leaf`, the typing ABCs, accessors, tensors and drawing, which Tessera
//! does not expose.

use tessera::ir::algebra::{self as alg, Tiler};
use tessera::ir::{ComposedLayout, Error, HTuple, Layout, Stride, Swizzle, parse_int_tuple, parse_layout};
use tessera::lang::eval_str;

/// `src` evaluates to exactly `want`.
#[track_caller]
fn ev(src: &str, want: &str) {
    match eval_str(src) {
        Ok(got) => assert_eq!(got, want, "{src}"),
        Err(e) => panic!("{src}: expected {want}, got error {e}"),
    }
}

/// `src` is an error whose message contains `part`.
#[track_caller]
fn err(src: &str, part: &str) {
    match eval_str(src) {
        Ok(got) => panic!("{src}: expected an error, got {got}"),
        Err(e) => assert!(e.to_string().contains(part), "{src}: {e}"),
    }
}

// --- Module htuple -----------------------------------------------------------------------------

#[test]
fn wrap_unwrap() {
    ev("wrap(7)", "(7)");
    ev("wrap((7))", "(7)");
    ev("unwrap(((((42)))))", "42");
}

#[test]
fn get_and_lift() {
    // get(((0, 0, (0, 0, 0, 42)),), (0, 2, 3)) == 42
    ev("get(((0,0,(0,0,0,42))),0,2,3)", "42");
    // lift(42, (0, 2, 3)) == ((0, 0, (0, 0, 0, 42)),)
    ev("lift(42,0,2,3)", "((0,0,(0,0,0,42)))");
    // get inverts lift.
    ev("get(lift(42,0,2,3),0,2,3)", "42");
}

#[test]
fn repeat_like() {
    ev("repeat_like(0,((1,(2,3)),4))", "((0,(0,0)),0)");
}

#[test]
fn product_and_product_each() {
    ev("product(((2,3),4))", "24");
    ev("product_each(((2,3),4,(5,6)))", "(6,4,30)");
}

#[test]
fn select_and_take() {
    let a = "(2,3,5,7):(1,2,6,30)";
    // select[1, 3](A) == (Layout(3, 2), Layout(7, 30)); make_layout of them is (3,7):(2,30).
    ev(&format!("select({a},(1,3))"), "(3,7):(2,30)");
    // take[1, 4](A) == (Layout(3, 2), Layout(5, 6), Layout(7, 30))
    ev(&format!("take({a},1,4)"), "(3,5,7):(2,6,30)");
    // take[1, 3](A) == (A[1], A[2])
    ev(&format!("take({a},1,3)"), "(3,5):(2,6)");
    // The modes one by one, and make_layout putting them back together.
    ev(&format!("get({a},1)"), "3:2");
    ev(&format!("make_layout(get({a},1),get({a},3))"), "(3,7):(2,30)");
    // On int tuples.
    ev("select((2,3,5,7),(3,0))", "(7,2)");
    ev("take((2,3,5,7),0,2)", "(2,3)");
    err(&format!("select({a},(1,4))"), "out of range");
}

#[test]
fn congruence_and_compatibility() {
    ev("congruent((1,(2,3)),(4,(5,6)))", "true");
    ev("congruent((1,(2,3)),(4,5))", "false");
    ev("weakly_congruent((1,2),(3,(4,5)))", "true");
    ev("weakly_congruent((1,(2,3)),(4,5))", "false");
    // Whitepaper §2.2.1: compatible(a, b) iff a coarsens b and the sizes agree.
    ev("compatible(30,(2,15))", "true");
    ev("compatible((2,15),(2,(3,5)))", "true");
    ev("compatible(24,((2,2),(3,2)))", "true");
    ev("compatible(24,32)", "false");
    ev("compatible((2,15),30)", "false");
    ev("common_refinement(((2,3),20),(6,(4,5)))", "((2,3),(4,5))");
    ev("common_coarsening((4,(3,5)),((2,2),15))", "(4,15)");
}

// --- Module stride -----------------------------------------------------------------------------

#[test]
fn inner_product() {
    ev("inner_product(((2,3),4),((2,1),2))", "15");
}

#[test]
fn prefix_product() {
    ev("prefix_product((3,2,4))", "(1,3,6)");
    ev(
        "prefix_product(((2,3),(2,1,2),(5,2,1)))",
        "((1,2),(6,12,12),(24,120,240))",
    );
}

#[test]
fn coshape_and_coprofile() {
    ev("coshape((4,8):(1,4))", "32");
    ev("coshape((4,8):(1@0,1@1))", "(4,8)");
    ev("coprofile((4,8):(1@0,1@1))", "(0,0)");
}

#[test]
fn stride_of_a_layout() {
    ev("stride((3,(2,4)):(2,(1,6)))", "(2,(1,6))");
    ev("stride((4,8):(1@0,1@1))", "(1@0,1@1)");
}

// --- Module shape ------------------------------------------------------------------------------

#[test]
fn shape_size_rank_depth() {
    let a = "(3,(2,4)):(2,(1,6))";
    ev(&format!("shape({a})"), "(3,(2,4))");
    ev(&format!("size({a})"), "24");
    ev(&format!("rank({a})"), "2");
    ev(&format!("depth({a})"), "2");
    ev(&format!("cosize({a})"), "24");
    ev("size(((2,3),4))", "24");
    ev("rank(7)", "1");
    ev("depth(7)", "0");
}

#[test]
fn idx2crd_crd2idx() {
    ev("idx2crd(7,(3,(2,4)))", "(1,(0,1))");
    ev("crd2idx((1,(0,1)),(3,(2,4)))", "7");
    // Any form of coordinate: flat, partially flat, integral.
    ev("crd2idx((1,2),(3,(2,4)))", "7");
    ev("crd2idx(7,(3,(2,4)))", "7");
    // The last mode absorbs an index past the size.
    ev("idx2crd(42,(3,7,2))", "(0,0,2)");
    // coordinates(shape) enumerates colexicographically: idx2crd inverts crd2idx.
    let s = parse_int_tuple("(3,(2,4))").unwrap();
    for (i, c) in tessera::ir::shape::coordinates(&s).unwrap().enumerate() {
        assert_eq!(tessera::ir::shape::crd2idx(&c, &s).unwrap(), i as i64);
    }
}

// --- Module atuple -----------------------------------------------------------------------------

#[test]
fn scaled_basis_text() {
    // ScaledBasis(42, [0]) == 42@0; ScaledBasis(42, [1, 0]) == 42@0@1; E(0, 1) == 1@1@0.
    ev("42@0", "42@0");
    ev("42@0@1", "42@0@1");
    ev("1@1@0", "1@1@0");
    assert_eq!(Stride::<i64>::basis(42, &[1, 0]).to_string(), "42@0@1");
    assert_eq!(Stride::<i64>::basis(1, &[0, 1]).to_string(), "1@1@0");
    // ScaledBasis(42, []) == 42
    assert_eq!(Stride::<i64>::basis(42, &[]), Stride::Int(42));
}

#[test]
fn arith_tuple_arithmetic() {
    // ArithTuple(1, 2, 3) + (7, 8, 9) == (8, 10, 12); ArithTuple(1, 2, 3) * 4 == (4, 8, 12).
    // (Parentheses make a tuple in the expression language, so the sums are written flat.)
    ev("1@0+2@1+3@2+7@0+8@1+9@2", "8@0+10@1+12@2");
    ev("4*1@0+4*2@1+4*3@2", "4@0+8@1+12@2");
    let t: Stride<i64> = [(0u32, 1i64), (1, 2), (2, 3)]
        .iter()
        .fold(Stride::zero(), |acc, &(k, v)| {
            acc.add(&Stride::basis(v, &[k])).unwrap()
        });
    assert_eq!(t.scale(&4).unwrap().to_string(), "4@0+8@1+12@2");
    assert_eq!(t.coord_string(), "(1,2,3)");
    // E(0) == ArithTuple(1, 0): trailing zeros do not count.
    ev("1@0+0@1", "1@0");
    // 3*E(0) + 5*E(1) decomposes into (3, (0,)) and (5, (1,)): not a single basis vector.
    let e0: Stride<i64> = Stride::basis(1, &[0]);
    let e1: Stride<i64> = Stride::basis(1, &[1]);
    let sum = e0.scale(&3).unwrap().add(&e1.scale(&5).unwrap()).unwrap();
    let terms: Vec<(Vec<u32>, i64)> = sum.terms().into_iter().map(|(p, v)| (p.to_vec(), v)).collect();
    assert_eq!(terms, vec![(vec![0], 3), (vec![1], 5)]);
    assert!(sum.axis_value().is_none());
    // 5 * E(1, 2) is a single basis vector at path (1, 2).
    let b = Stride::<i64>::basis(1, &[1, 2]).scale(&5).unwrap();
    let (p, v) = b.axis_value().unwrap();
    assert_eq!((p.to_vec(), *v), (vec![1, 2], 5));
    assert_eq!(sum.coord_string(), "(3,5)");
}

#[test]
fn make_basis_like() {
    ev("make_basis_like((10,(20,30)))", "(1@0,(1@0@1,1@1@1))");
}

// --- Module layout -----------------------------------------------------------------------------

#[test]
fn layout_evaluation() {
    let a = "(3,(2,4)):(2,(1,6))";
    // A(17), A(2, 5), A(2, (1, 2)) == 17, 17, 17
    ev(&format!("{a}(17)"), "17");
    ev(&format!("{a}(2,5)"), "17");
    ev(&format!("{a}(2,(1,2))"), "17");
    // A[1][0] == Layout(2, 1)
    ev(&format!("get({a},1,0)"), "2:1");
    ev(&format!("get({a},1)"), "(2,4):(1,6)");
    // A bare shape is the compact column-major layout (CuTe's make_layout(shape)).
    ev("make_layout((4,8))", "(4,8):(1,4)");
    assert_eq!(parse_layout("(4,8)").unwrap().to_string(), "(4,8):(1,4)");
}

#[test]
fn make_layout_concatenates() {
    ev("make_layout(3:1,(5,1):(7,2),2:42)", "(3,(5,1),2):(1,(7,2),42)");
}

#[test]
fn make_layout_like_and_ordered() {
    ev("make_layout_like((4,8):(100,1))", "(4,8):(8,1)");
    ev("make_ordered_layout((2,3,4,2),(0,2,3,0))", "(2,3,4,2):(1,4,12,2)");
}

#[test]
fn tiler_to_layout() {
    ev("tiler_to_layout(3)", "3:1");
    ev("tiler_to_layout((4,5))", "(4,5):(1@0,1@1)");
    ev("tiler_to_layout((4:2,5:3))", "(4,5):(2@0,3@1)");
}

#[test]
fn recast() {
    ev("recast(24:1,8)", "3:1");
    ev("recast(24:1,1/2)", "48:1");
    ev("recast((4,4):(4,1),4)", "(4,1):(1,1)");
    ev("recast((4,4):(4,1),1/2)", "(4,8):(8,1)");
    // Unpacking the packed layout again gives 16 elements (one unit-stride leaf carries the
    // sub-elements), as many as the original.
    ev("size(recast(recast((4,4):(4,1),4),1/4))", "16");
}

// --- Module algebra ----------------------------------------------------------------------------

#[test]
fn coalesce() {
    ev("coalesce((2,(1,6)):(1,(6,2)))", "12:1");
    // By-mode: each mode coalesced independently.
    ev("coalesce((2,(1,6)):(1,(6,2)),(1,1))", "(2,6):(1,2)");
    ev("coalesce((2,4,6):(24,6,1))", "(2,4,6):(24,6,1)");
    ev("coalesce((2,1,6,1):(1,7,8,0))", "(2,6):(1,8)");
    ev(
        "coalesce(((4,2),4,(32,1)):((2,512),1024,(16,2)))",
        "(4,8,32):(2,512,16)",
    );
    // coalesce_z keeps the trailing size-1 mode.
    ev("coalesce_z((2,1,6,1):(1,7,8,0))", "(2,6,1):(1,8,0)");
    ev("filter((2,4,3):(0,1,4))", "12:1");
}

#[test]
fn composition() {
    ev("composition((6,2):(8,2),(4,3):(3,1))", "((2,2),3):((24,2),8)");
    ev("(6,2):(8,2) o (4,3):(3,1)", "((2,2),3):((24,2),8)");
    ev("composition(20:2,(5,4):(4,1))", "(5,4):(8,2)");
    // PyCuTe's (2,3):(0,0) is wrong at B(5): A(B(5)) == A(4) == 1.
    err("composition((4,3):(0,1),(2,3):(2,1))", "overlap");
}

#[test]
fn complement() {
    // Minimal: just plugs the size-1 gap.
    ev("complement(4:2)", "(2,1):(1,8)");
    ev("complement(4:2,20)", "(2,3):(1,8)");
    ev("complement((2,2):(1,6))", "(3,1):(2,12)");
    ev("complement(2:4,12)", "(4,2):(1,8)");
    // design.md: extended until (A, R) covers the cotarget.
    ev("complement(28:1,(8,4,7))", "8:28");
    // (A, R) cannot reach index 2 below the cotarget 12.
    err("complement((2,2):(1,3),12)", "index 2 is unreachable");
    err("complement((4,2):(1,1))", "overlap or interleave");
}

#[test]
fn logical_divide() {
    ev("logical_divide(24:1,4:2)", "(4,(2,3)):(2,(1,8))");
    // design.md: keeps every element of A where PyCuTe drops some.
    ev("logical_divide((8,4,7):(1,8,32),28:1)", "(28,8):(1,28)");
    // A tile whose complement leaves holes inside A is an error, not a layout that loses
    // elements.
    err("logical_divide(12:1,(2,2):(1,3))", "unreachable");
}

#[test]
fn zipped_tiled_flat_divide() {
    // design.md: an int tuple in a tiler position is the by-mode shape tiler.
    ev(
        "zipped_divide((4,7):(1,16),(2,7))",
        "((2,7),(2,1)):((1,16),(2,112))",
    );
    ev("zipped_divide((8,6):(1,8),(2,3))", "((2,3),(4,2)):((1,8),(2,24))");
    ev("tiled_divide((8,6):(1,8),(2,3))", "((2,3),4,2):((1,8),2,24)");
    ev("flat_divide((8,6):(1,8),(2,3))", "(2,3,4,2):(1,8,2,24)");
    // zipped_divide(A, B) == logical_divide(A, tiler_to_layout(B)) up to the order of the
    // rest: same tile, same offsets.
    ev(
        "zipped_divide(((4,6),8):((1,4),24),((2,3),4))",
        "(((2,3),4),((2,2),2)):(((1,4),24),((2,12),96))",
    );
}

#[test]
fn logical_product() {
    ev("logical_product((2,2):(4,1),6:1)", "((2,2),(2,3)):((4,1),(2,8))");
    ev("logical_product(3:1,4:1)", "(3,4):(1,3)");
}

#[test]
fn blocked_and_raked_product() {
    // 2x5 row-major tiles arranged in a 3x4 column-major grid.
    ev(
        "blocked_product((2,5):(5,1),(3,4))",
        "((2,3),(5,4)):((5,10),(1,30))",
    );
    ev(
        "blocked_product((2,5):(5,1),(3,4):(1,3))",
        "((2,3),(5,4)):((5,10),(1,30))",
    );
    // Grid first: a cyclic distribution of the same offsets.
    ev(
        "raked_product((2,5):(5,1),(3,4))",
        "((3,2),(4,5)):((10,5),(30,1))",
    );
    // Rank 1 keeps every mode (PyCuTe loses some).
    ev("size(blocked_product(16:2,16:1))", "256");
}

#[test]
fn right_inverse() {
    ev("right_inverse((4,8):(1,4))", "32:1");
    ev("right_inverse((4,8):(1,5))", "4:1");
    ev("right_inverse((4,8):(8,1))", "(8,4):(4,1)");
}

#[test]
fn left_inverse() {
    ev("left_inverse((4,8):(1,5))", "(5,8):(1,4)");
    ev("left_inverse((4,8):(1,4))", "32:1");
    // Injective but the strides do not chain: a ValueError in PyCuTe, an error here.
    err("left_inverse((2,2):(2,3))", "divisible chain");
}

#[test]
fn nullspace() {
    ev("nullspace((2,4,6):(1,2,0))", "6:8");
    ev("nullspace((2,4):(1,2))", "1:0");
}

#[test]
fn layout_add_and_greatest_common_domain() {
    ev("layout_add((4,3):(1,4),(4,3):(3,1))", "(4,3):(4,5)");
    ev("layout_add(12:1,12:1)", "12:2");
    ev("greatest_common_domain((5,3,4),(10,6))", "(5,2):(1,30)");
    ev("greatest_common_domain((5,3),(3,5))", "(1):(0)");
}

#[test]
fn max_common_vector() {
    ev("max_common_vector((4,8):(1,4),32:1)", "32");
    ev("max_common_vector((4,8):(8,1),32:1)", "1");
    // Both map coordinates (0, j) to j for j < 4: four contiguous common elements, even
    // though A(1) == 5 and B(1) == 4.
    ev("max_common_vector((2,4):(5,1),(2,4):(4,1))", "4");
}

#[test]
fn identity_layout() {
    // identity_tensor((3, 4))[1, 2] == (1, 2)
    ev("make_identity_layout((3,4))((1,2))", "(1,2)");
    ev("make_identity_layout((3,4))(5)", "(2,1)");
    ev("make_identity_layout((3,4))", "(3,4):(1@0,1@1)");
}

// --- Module swizzle ----------------------------------------------------------------------------

#[test]
fn f2_arithmetic() {
    // F2(0b1010) + F2(0b1100) == F6; 3 * F2(0b1010) == F30.
    ev("F2(10)+F2(12)", "F2(6)");
    ev("3*F2(10)", "F2(30)");
    // + is XOR: every F2 value is its own inverse.
    ev("F2(10)+F2(10)", "F2(0)");
}

#[test]
fn swizzles() {
    // offset -> offset ^ ((offset & YYY) >> shift), YYY = ((1 << bits) - 1) << (base + shift).
    ev("Sw<3,0,3>(8)", "9");
    ev("Sw<3,3,3>(448)", "504");
    ev("Sw<2,0,-2>(1)", "5");
    ev("Sw<3,3,3>", "Sw<3,3,3>");
    ev("Sw<3,3,3> o (8,64):(64,1)", "Sw<3,3,3> o (8,64):(64,1)");
    ev("Sw<3,4,3> o 32 o (8,64):(64,1)", "Sw<3,4,3> o 32 o (8,64):(64,1)");
    // The overlapping or oversized forms are rejected by the constructor.
    err("Sw<3,3,2>", "shift");
    err("Sw<30,30,30>", "62");
    // An involution.
    let sw = Swizzle::new(3, 3, 3).unwrap();
    for x in 0..4096 {
        assert_eq!(sw.apply(sw.apply(x)), x);
        assert_eq!(sw.apply(x), x ^ ((x & 0b111_000_000) >> 3));
    }
    // A swizzled layout evaluates Sw(off + L(c)).
    let c = ComposedLayout::new(sw, 0i64, parse_layout("(8,64):(64,1)").unwrap());
    for i in 0..512 {
        let l = parse_layout("(8,64):(64,1)").unwrap().eval_index(&i).unwrap();
        assert_eq!(
            Stride::Int(c.eval_index(&i).unwrap()),
            Stride::Int(sw.apply(*l.as_int().unwrap()))
        );
    }
}

#[test]
fn f2_strided_layout() {
    // A swizzle written as a layout with F2 strides: Sw<1,0,1> on [0, 4) is (2,2):(F2(1),F2(3)).
    let l = parse_layout("(2,2):(F2(1),F2(3))").unwrap();
    let sw = Swizzle::new(1, 0, 1).unwrap();
    for i in 0..4i64 {
        let v = match l.eval_index(&i).unwrap() {
            Stride::F2(v) => v as i64,
            Stride::Int(0) => 0,
            other => panic!("at {i}: {other}"),
        };
        assert_eq!(v, sw.apply(i), "at {i}");
    }
}

// --- The Rust API agrees with the expression language -----------------------------------------

#[test]
fn rust_api_examples() {
    let l = |s: &str| parse_layout(s).unwrap();
    let a = l("(6,2):(8,2)");
    assert_eq!(
        alg::composition(&a, &l("(4,3):(3,1)")).unwrap().to_string(),
        "((2,2),3):((24,2),8)"
    );
    let t = Tiler::from_shape(&parse_int_tuple("(2,7)").unwrap());
    assert_eq!(
        alg::zipped_divide(&l("(4,7):(1,16)"), &t).unwrap().to_string(),
        "((2,7),(2,1)):((1,16),(2,112))"
    );
    assert_eq!(
        alg::complement(&l("4:2"), Some(&HTuple::leaf(20)))
            .unwrap()
            .to_string(),
        "(2,3):(1,8)"
    );
    assert_eq!(
        alg::blocked_product(&l("(2,5):(5,1)"), &l("(3,4):(1,3)"))
            .unwrap()
            .to_string(),
        "((2,3),(5,4)):((5,10),(1,30))"
    );
    let r = alg::logical_divide(&l("24:1"), &Tiler::Layout(l("4:2"))).unwrap();
    assert_eq!(r.to_string(), "(4,(2,3)):(2,(1,8))");
    // R(i, 0) == A(B(i)).
    for i in 0..4 {
        assert_eq!(r.eval(&HTuple::flat([i, 0])).unwrap(), Stride::Int(2 * i));
    }
    assert_eq!(alg::recast(&l("24:1"), 1, 2).unwrap().to_string(), "48:1");
    assert!(matches!(
        alg::left_inverse(&l("(2,2):(2,3)")),
        Err(Error::Condition { .. })
    ));
    let c: Layout<i64> = Layout::compact(&parse_int_tuple("(4,8)").unwrap()).unwrap();
    assert_eq!(c.to_string(), "(4,8):(1,4)");
}

#[test]
fn slice_dice_unflatten() {
    assert_eq!(eval_str("slice_((_,1), ((2,3),(5,7,9)))").unwrap(), "((2,3))");
    assert_eq!(eval_str("dice_((_,1), ((2,3),(5,7,9)))").unwrap(), "((5,7,9))");
    assert_eq!(
        eval_str("unflatten((1,2,3,4), ((0,0),(0,0)))").unwrap(),
        "((1,2),(3,4))"
    );
    assert_eq!(eval_str("is_tuple((1,2))").unwrap(), "true");
    assert_eq!(eval_str("is_tuple(7)").unwrap(), "false");
    assert!(eval_str("slice_((_,1,2), ((2,3),(5,7,9)))").is_err());
}
