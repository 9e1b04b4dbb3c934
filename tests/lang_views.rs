//! The layout-level view forms of the expression language, through `eval_str`.
//!
//! A view prints as `OFF o LAYOUT` (always with its offset, `0 o ...` included), or
//! `Sw<b,m,s> o OFF o LAYOUT` under a swizzle (where the swizzle form omits a zero offset),
//! and the printed text parses back to the same view.

use tessera::lang::eval_str;

fn ev(s: &str) -> String {
    match eval_str(s) {
        Ok(v) => v,
        Err(e) => panic!("{s}: {e}"),
    }
}

/// Evaluates `s`, checks that the printed result parses back to itself, and returns it.
fn view(s: &str) -> String {
    let r = ev(s);
    assert_eq!(ev(&r), r, "{s} printed {r}, which does not parse back to itself");
    r
}

#[test]
fn the_examples_of_the_issue() {
    assert_eq!(view("tile_view((4,4):(4,1), (2,0), (2,4))"), "8 o (2,4):(4,1)");
    assert_eq!(view("(4,4):(4,1)[2:4, ::-1]"), "11 o (2,4):(4,-1)");
    assert_eq!(view("local_tile((6,8):(1,6), (2,2), (1,1))"), "14 o (2,2):(1,6)");
    assert_eq!(view("local_partition((6,8):(1,6), (2,2), 1)"), "1 o (3,4):(2,12)");
}

#[test]
fn seed_examples_as_layouts() {
    // tenferro
    assert_eq!(view("select((3,4,10), 2, 5)"), "60 o (3,4):(1,3)");
    assert_eq!(view("narrow((3,10), 1, 2, 3)"), "6 o (3,3):(1,3)");
    // MoYe, 0-based
    assert_eq!(view("local_tile((6,8), (2,2), (0,0))"), "0 o (2,2):(1,6)");
    assert_eq!(view("local_partition((6,8), (2,2), (0,0))"), "0 o (3,4):(2,12)");
    assert_eq!(view("local_partition((6,8), (2,2):(1,2), 1)"), "1 o (3,4):(2,12)");
    assert_eq!(view("local_partition((6,8), (2,2):(2,1), 1)"), "6 o (3,4):(2,12)");
    // Warp
    assert_eq!(view("tile_view((4,4):(4,1), (1))"), "4 o (4):(1)");
    assert_eq!(view("(4,4):(4,1)[-1, :]"), "12 o (4):(1)");
}

#[test]
fn each_view_form() {
    assert_eq!(view("select((4,4):(4,1), 0, 2)"), "8 o (4):(1)");
    assert_eq!(view("select((4,4):(4,1), 1, 2)"), "2 o (4):(4)");
    assert_eq!(view("narrow((4,(2,3)):(3,(1,2)), 1, 2, 3)"), "2 o (4,3):(3,1)");
    assert_eq!(
        view("narrow((4,(2,3)):(3,(1,8)), 1, 2, 4)"),
        "8 o (4,(2,2)):(3,(1,8))"
    );
    assert_eq!(view("permute((2,3,4), (2,0,1))"), "0 o (4,2,3):(6,1,2)");
    assert_eq!(view("permute((4,4):(4,1), (1,0))"), "0 o (4,4):(1,4)");
    assert_eq!(view("broadcast(4:1, (3,4))"), "0 o (3,4):(0,1)");
    assert_eq!(view("broadcast((1,4):(7,1), (5,4))"), "0 o (5,4):(0,1)");
    assert_eq!(view("diagonal((4,4), (0,1))"), "0 o (4):(5)");
    assert_eq!(view("diagonal((2,3,2,3), ((0,2),(1,3)))"), "0 o (2,3):(7,14)");
    assert_eq!(view("tile_view((4,4):(4,1), (_, 1))"), "1 o (4):(4)");
    assert_eq!(view("tile_view((8,8), (2,4), (4,2))"), "34 o (4,2):(1,8)");
    assert_eq!(view("(8,8):(1,8)[1:7:2, 6:0:-3]"), "49 o (3,2):(2,-24)");
    assert_eq!(view("(4,4):(4,1)[1,2]"), "6 o ():()");
    assert_eq!(ev("(4,4):(4,1)[1,2](0)"), "6");
    assert_eq!(view("8:1[::-1]"), "7 o 8:-1");
    assert_eq!(view("(8):(1)[2:4]"), "2 o (2):(1)");
}

#[test]
fn hierarchical_modes() {
    // The rows 2..6 of the column-major mode ((2,4)):((1,2)) coalesce to 4:1.
    assert_eq!(view("narrow(((2,4),3):((1,2),8), 0, 2, 4)"), "2 o (4,3):(1,8)");
    // A strided range of a hierarchical mode is composed exactly, or rejected.
    assert_eq!(view("(4,(2,4)):(1,(4,16))[:, ::2]"), "0 o (4,4):(1,16)");
    assert_eq!(view("(4,(2,4)):(1,(4,16))[:, 1::2]"), "4 o (4,4):(1,16)");
    assert_eq!(
        view("(4,(2,4)):(1,(4,16))[:, ::-1]"),
        "52 o (4,(2,4)):(1,(-4,-16))"
    );
    assert!(eval_str("(4,(2,4)):(1,(4,16))[:, 1:4]").is_err());
    // A hierarchical selection.
    assert_eq!(view("select((4,(2,4)):(1,(4,16)), 1, 5)"), "36 o (4):(1)");
}

#[test]
fn views_chain_and_keep_swizzles() {
    assert_eq!(view("select(narrow((6,8), 1, 2, 4), 0, 3)"), "15 o (4):(6)");
    assert_eq!(view("select(8 o (2,4):(4,1), 1, 3)"), "11 o (2):(4)");
    assert_eq!(view("(8 o (4,4):(4,1))[1:3, 2]"), "14 o (2):(4)");
    assert_eq!(
        view("(Sw<3,3,3> o (8,64):(64,1))[2:4, 8:16]"),
        "Sw<3,3,3> o 136 o (2,8):(64,1)"
    );
    assert_eq!(
        view("select(Sw<3,3,3> o (8,64):(64,1), 0, 0)"),
        "Sw<3,3,3> o (64):(1)"
    );
    // The view evaluates like the source at the shifted coordinate.
    for (i, j) in [(0, 0), (1, 3), (1, 7)] {
        let v = ev(&format!("(Sw<3,3,3> o (8,64):(64,1))[2:4, 8:16]({i},{j})"));
        let w = ev(&format!("Sw<3,3,3>({})", 64 * (i + 2) + j + 8));
        assert_eq!(v, w);
    }
}

#[test]
fn the_pycute_select_is_unchanged() {
    assert_eq!(ev("select((2,3,5,7):(1,2,6,30), (1,3))"), "(3,7):(2,30)");
    assert_eq!(ev("select((4,4):(4,1), (0,1))"), "(4,4):(4,1)");
    assert_eq!(ev("shape(tile_view((4,4):(4,1), (2,0), (2,4)))"), "(2,4)");
    assert_eq!(ev("size(local_partition((6,8), (2,2), 3))"), "12");
}
