//! The expression language's messages for the views' errors (the errors themselves are the
//! views' own, tested in `ir/tests/views_errors.rs`).

use tessera::lang::eval_str;

#[test]
fn expression_language_errors() {
    let err = |s: &str| eval_str(s).unwrap_err().to_string();
    assert_eq!(
        err("permute((4,4):(4,1), (0,0))"),
        "permute: [0, 0] is not a permutation of 0..2"
    );
    assert_eq!(
        err("select((4,4):(4,1), 2, 0)"),
        "select: axis 2 is out of range for a view of 2 dimensions"
    );
    assert_eq!(
        err("select((4,4):(4,1), 0, 4)"),
        "select: index 4 is out of range for axis 0 of size 4"
    );
    assert_eq!(
        err("narrow((3,10), 1, 8, 3)"),
        "narrow: narrow of axis 1: start 8 + length 3 is past its size 10"
    );
    assert_eq!(
        err("broadcast((3,4), (3,5))"),
        "broadcast: cannot broadcast dimensions [3, 4] to [3, 5]: dimension 1 has size 4 and is not 1"
    );
    assert_eq!(
        err("diagonal((3,4), (0,1))"),
        "diagonal: diagonal pairs axis 0 (size 3) with axis 1 (size 4): sizes differ"
    );
    assert_eq!(
        err("tile_view((4,4):(4,1), (2,0), (3,4))"),
        "tile_view: offset 2 + shape 3 is past the size 4 of dimension 0"
    );
    assert_eq!(
        err("tile_view((4,4):(4,1), (2,_), (2,4))"),
        "tile_view: offset entry 1 is a slice, but slices are not allowed with an explicit shape"
    );
    assert_eq!(
        err("(4,4):(4,1)[::0]"),
        "slice: slice step of dimension 0 is zero"
    );
    assert_eq!(
        err("(4,4):(4,1)[2:2]"),
        "slice: dimension 0 of the view would be empty; empty views are not supported"
    );
    assert_eq!(
        err("(4,4):(4,1)[4]"),
        "slice: index 4 is out of range for axis 0 of size 4"
    );
    assert_eq!(
        err("(4,4):(4,1)[0,0,0]"),
        "slice: 3 indices for a view of 2 dimensions"
    );
    assert!(err("(4,4)[1]").contains("only layouts and views can be sliced"));
    assert!(err("(2,2):(1@0,1@1)[1]").contains("views need integer strides"));
    assert!(err("local_partition((6,8), (2,2):(1,2), 4)").contains("thread index 4 is not reached"));
    assert!(err("local_tile(((2,2),4):((1,4),16), (3,2), (0,0))").contains("shape divisibility"));
    assert!(err("select((4,4), 1, -1)").contains("non-negative index"));
    assert!(err("narrow((4,4), 1, 1)").contains("narrow takes 4 arguments"));
    assert!(err("(4,(2,2)):(1,(4,16))[:, 1:4]").contains("is not a layout"));
}
