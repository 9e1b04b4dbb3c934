//! The corpus cases where PyCuTe's own answer fails its post-condition (`suspect`), and the
//! composition case the corpus README names. For each, Tessera returns a layout whose
//! post-condition holds pointwise, or a clear error; never PyCuTe's answer.

use std::collections::BTreeSet;
use tessera::ir::algebra::{
    Tiler, blocked_product, composition, logical_divide, raked_product, zipped_divide,
};
use tessera::ir::shape::compatible;
use tessera::ir::{Layout, parse_layout};
use tessera::lang::eval_str;

fn l(s: &str) -> Layout<i64> {
    parse_layout(s).unwrap()
}

fn image(x: &Layout<i64>) -> BTreeSet<i64> {
    (0..x.size().unwrap())
        .map(|i| *x.eval_index(&i).unwrap().as_int().unwrap())
        .collect()
}

fn tiler(s: &str) -> Tiler<i64> {
    let e = tessera::ir::text::parse_expr(s).unwrap();
    tessera::lang::eval_expr::<i64>(&e, &Default::default(), s)
        .unwrap()
        .to_tiler()
        .unwrap()
}

/// The divide post-conditions: rank 2, the tile is `A ∘ B` pointwise on a shape compatible
/// with `B`, and every offset of `A` is reached.
fn check_divide(a: &str, b: &str, zipped: bool, pycute: &str) {
    let (a, t) = (l(a), tiler(b));
    let r = if zipped {
        zipped_divide(&a, &t)
    } else {
        logical_divide(&a, &t)
    }
    .unwrap();
    assert_ne!(r.to_string(), pycute);
    assert_eq!(r.rank(), 2);
    assert!(image(&a).is_subset(&image(&r)), "{r} misses offsets of {a}");
    assert!(r.size().unwrap() >= a.size().unwrap());
    if let Tiler::Layout(bl) = &t {
        let tile = r.mode(0).unwrap();
        assert!(compatible(bl.shape(), tile.shape()).unwrap());
        let ab = composition(&a, bl).unwrap();
        for i in 0..bl.size().unwrap() {
            assert_eq!(tile.eval_index(&i).unwrap(), ab.eval_index(&i).unwrap());
        }
    }
}

#[test]
fn logical_divide_keeps_every_element_issue_example() {
    check_divide("(8,4,7):(1,8,32)", "28:1", false, "(28,7):(1,28)");
}

#[test]
fn logical_divide_suspect_1() {
    check_divide(
        "(2,8,2,((1,6,3),(1,3))):(1,2,16,((32,32,192),(576,576)))",
        "(12,9):(18,1)",
        false,
        "((12,9),(2,6)):((18,1),(9,216))",
    );
}

#[test]
fn logical_divide_suspect_2() {
    check_divide(
        "(((3,2),(4,6,8)),3):(((2,6),(12,48,288)),2304)",
        "(2,32,2):(2,4,1)",
        false,
        "((2,32,2),24):((4,8,2),256)",
    );
}

#[test]
fn logical_divide_suspect_3() {
    check_divide(
        "(9,(32,(6,2)),(1,(1,1))):(2,(18,(576,3456)),(6912,(6912,6912)))",
        "(18,3):(8,144)",
        false,
        "((18,3),(8,6)):((16,288),(2,864))",
    );
}

#[test]
fn logical_divide_suspect_4() {
    check_divide(
        "(32,(6,6,2)):(3,(96,576,3456))",
        "(16,8)",
        false,
        "((16,2),(8,6)):((3,48),(96,768))",
    );
}

#[test]
fn zipped_divide_suspect_1() {
    check_divide(
        "(10,12):(2,20)",
        "(6,2):(1,12)",
        true,
        "((6,2),(2,4)):((2,24),(12,48))",
    );
}

#[test]
fn zipped_divide_suspect_2() {
    check_divide(
        "(2,((2,16,9),2)):(1,((2,4,64),576))",
        "(2:1,(3,2):(1,24))",
        true,
        "((2,(3,2)),(1,(8,10))):((1,(2,48)),(2,(6,96)))",
    );
}

/// Rank-sensitive products: rank of A, size(A)*size(B), and blocked/raked reach the same
/// offsets as the logical product.
fn check_product(a: &str, b: &str, blocked: bool, pycute: &str) {
    let (a, b) = (l(a), l(b));
    let r = if blocked {
        blocked_product(&a, &b)
    } else {
        raked_product(&a, &b)
    }
    .unwrap();
    assert_ne!(r.to_string(), pycute);
    assert_eq!(r.rank(), a.rank());
    assert_eq!(r.size().unwrap(), a.size().unwrap() * b.size().unwrap());
    let lp = tessera::ir::algebra::logical_product(&a, &Tiler::Layout(b.clone())).unwrap();
    assert_eq!(image(&r), image(&lp));
}

#[test]
fn blocked_product_rank_one_issue_example() {
    check_product("16:2", "16:1", true, "((16,2)):((2,1))");
}

#[test]
fn blocked_product_suspect() {
    check_product("8:4", "12:1", true, "((8,4)):((4,1))");
}

#[test]
fn raked_product_suspect() {
    check_product("2:2", "4:1", false, "((2,2)):((1,2))");
}

#[test]
fn composition_that_is_not_a_layout_is_an_error() {
    // A(B(5)) = A(4) = 1, but PyCuTe answers (2,3):(0,0).
    let e = composition(&l("(4,3):(0,1)"), &l("(2,3):(2,1)"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("modes 0 and 1 of B overlap"), "{e}");
    assert!(eval_str("composition((4,3):(0,1),(2,3):(2,1))").is_err());
}
