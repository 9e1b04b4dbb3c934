//! Each error case of the view API: tenferro's contracts (seed `003_*`), Warp's `tile_view`
//! rules (seed `000_*`), and the errors of slicing, local partitioning, buffers and printing.

use tessera_ir::algebra::Tiler;
use tessera_ir::view::{self, MemoryOrder, SliceArg, Tensor, Threads, ViewError, format_tensor};
use tessera_ir::{ComposedLayout, Error, HTuple, Swizzle, parse_int_tuple, parse_layout};

fn t34() -> Tensor<i32> {
    Tensor::from_shape_vec(&[3, 4], MemoryOrder::ColumnMajor, (0..12).collect()).unwrap()
}

#[test]
fn invalid_permutation() {
    let t = t34();
    for perm in [&[0][..], &[0, 0], &[0, 2], &[1, 0, 2]] {
        let e = t.view().permute(perm).unwrap_err();
        assert_eq!(
            e,
            ViewError::InvalidPermutation {
                perm: perm.to_vec(),
                ndim: 2
            }
        );
    }
    assert_eq!(
        t.view().permute(&[0, 0]).unwrap_err().to_string(),
        "[0, 0] is not a permutation of 0..2"
    );
}

#[test]
fn incompatible_broadcast() {
    let t = t34();
    for target in [&[3, 5][..], &[4][..], &[2, 3, 0]] {
        assert!(
            matches!(
                t.view().broadcast(target),
                Err(ViewError::IncompatibleBroadcast { .. })
            ),
            "{target:?}"
        );
    }
    let e = t.view().broadcast(&[3, 5]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot broadcast dimensions [3, 4] to [3, 5]: dimension 1 has size 4 and is not 1"
    );
    // A target size that does not fit i64 is an overflow, not a wrap.
    let row = t.view().narrow(1, 0, 1).unwrap();
    assert!(matches!(
        row.broadcast(&[3, usize::MAX]),
        Err(ViewError::Algebra(Error::Overflow(_)))
    ));
}

#[test]
fn axis_out_of_range() {
    let t = t34();
    let v = t.view();
    let oob = |r: Result<view::TensorView<'_, i32>, ViewError>, axis: usize| {
        assert_eq!(r.unwrap_err(), ViewError::AxisOutOfRange { axis, ndim: 2 });
    };
    oob(v.select(2, 0), 2);
    oob(v.narrow(7, 0, 1), 7);
    oob(v.diagonal(&[(0, 2)]), 2);
    oob(v.diagonal(&[(5, 1)]), 5);
}

#[test]
fn diagonal_sizes_and_duplicates() {
    let t = t34();
    assert_eq!(
        t.view().diagonal(&[(0, 1)]).unwrap_err(),
        ViewError::DiagonalSizeMismatch {
            a: 0,
            b: 1,
            size_a: 3,
            size_b: 4
        }
    );
    let cube = Tensor::<u8>::zeros(&[2, 2, 2, 2], MemoryOrder::RowMajor).unwrap();
    assert_eq!(
        cube.view().diagonal(&[(0, 1), (1, 2)]).unwrap_err(),
        ViewError::DuplicateAxis { axis: 1 }
    );
    assert_eq!(
        cube.view().diagonal(&[(3, 3)]).unwrap_err(),
        ViewError::DuplicateAxis { axis: 3 }
    );
}

#[test]
fn index_out_of_range() {
    let t = t34();
    let v = t.view();
    assert!(matches!(
        v.select(0, 3),
        Err(ViewError::IndexOutOfRange {
            index: 3,
            size: 3,
            ..
        })
    ));
    assert!(matches!(
        v.at(&[0, 4]),
        Err(ViewError::IndexOutOfRange {
            index: 4,
            size: 4,
            ..
        })
    ));
    assert!(matches!(
        v.get(12),
        Err(ViewError::IndexOutOfRange {
            index: 12,
            size: 12,
            ..
        })
    ));
    assert!(matches!(v.get(-1), Err(ViewError::IndexOutOfRange { .. })));
    assert!(matches!(
        v.get_crd(&parse_int_tuple("(0,4)").unwrap()),
        Err(ViewError::IndexOutOfRange { .. })
    ));
    assert!(matches!(
        v.at(&[0]),
        Err(ViewError::LengthMismatch { expected: 2, got: 1 })
    ));
    assert!(matches!(
        v.slice(&[SliceArg::Index(3)]),
        Err(ViewError::IndexOutOfRange { .. })
    ));
    assert!(matches!(
        v.slice(&[SliceArg::Index(-4)]),
        Err(ViewError::IndexOutOfRange { .. })
    ));
    assert_eq!(
        v.select(0, 3).unwrap_err().to_string(),
        "index 3 is out of range for axis 0 of size 3"
    );
}

#[test]
fn narrow_past_the_end() {
    let a = Tensor::<f64>::zeros(&[3, 10], MemoryOrder::ColumnMajor).unwrap();
    let v = a.view();
    assert_eq!(
        v.narrow(1, 8, 3).unwrap_err(),
        ViewError::NarrowOutOfRange {
            axis: 1,
            start: 8,
            len: 3,
            size: 10
        }
    );
    assert!(matches!(
        v.narrow(1, usize::MAX, 2),
        Err(ViewError::NarrowOutOfRange { .. })
    ));
    assert_eq!(v.narrow(1, 2, 0).unwrap_err(), ViewError::EmptyView { axis: 1 });
    assert_eq!(
        v.narrow(1, 8, 3).unwrap_err().to_string(),
        "narrow of axis 1: start 8 + length 3 is past its size 10"
    );
}

#[test]
fn tile_view_rules() {
    let t = Tensor::from_shape_vec(&[4, 4], MemoryOrder::RowMajor, (0..16).collect::<Vec<i32>>()).unwrap();
    let v = t.view();
    // offset + shape past the extent
    assert_eq!(
        v.tile_view(&[2.into(), 0.into()], Some(&[3, 4])).unwrap_err(),
        ViewError::TileOutOfExtent {
            axis: 0,
            offset: 2,
            extent: 3,
            size: 4
        }
    );
    // slices mixed with an explicit shape
    assert_eq!(
        v.tile_view(&[2.into(), (0..2).into()], Some(&[2, 2]))
            .unwrap_err(),
        ViewError::SliceWithShape { position: 1 }
    );
    assert_eq!(
        v.tile_view(&[SliceArg::full(), 1.into()], Some(&[2, 2]))
            .unwrap_err()
            .to_string(),
        "offset entry 0 is a slice, but slices are not allowed with an explicit shape"
    );
    // one entry per dimension
    assert!(matches!(
        v.tile_view(&[2.into()], Some(&[2, 4])),
        Err(ViewError::TileRankMismatch { what: "offset", .. })
    ));
    assert!(matches!(
        v.tile_view(&[2.into(), 0.into()], Some(&[2])),
        Err(ViewError::TileRankMismatch { what: "shape", .. })
    ));
    // negative offsets and empty extents
    assert!(matches!(
        v.tile_view(&[(-1).into(), 0.into()], Some(&[1, 4])),
        Err(ViewError::IndexOutOfRange { .. })
    ));
    assert_eq!(
        v.tile_view(&[0.into(), 0.into()], Some(&[0, 4])).unwrap_err(),
        ViewError::EmptyView { axis: 0 }
    );
    // the shapeless form: more entries than dimensions
    assert_eq!(
        v.tile_view(&[0.into(), 0.into(), 0.into()], None).unwrap_err(),
        ViewError::TooManyIndices { given: 3, ndim: 2 }
    );
}

#[test]
fn slicing_errors() {
    let t = t34();
    let v = t.view();
    assert_eq!(
        v.slice(&[SliceArg::range(None, None, Some(0))]).unwrap_err(),
        ViewError::ZeroStep { axis: 0 }
    );
    assert_eq!(
        v.slice(&[SliceArg::full(), (2..2).into()]).unwrap_err(),
        ViewError::EmptyView { axis: 1 }
    );
    assert_eq!(
        v.slice(&[
            SliceArg::full(),
            SliceArg::range(Some(0), None, Some(-1)),
            SliceArg::full()
        ])
        .unwrap_err(),
        ViewError::TooManyIndices { given: 3, ndim: 2 }
    );
}

#[test]
fn ranges_that_are_no_layout() {
    // Mode 1 is (2,2):(1,4), values 0 1 4 5: the range 1..4 (1 4 5) is no layout.
    let t = Tensor::new(
        (0..24).collect::<Vec<i32>>(),
        parse_layout("(3,(2,2)):(8,(1,4))").unwrap(),
    )
    .unwrap();
    let e = t.view().narrow(1, 1, 3).unwrap_err();
    assert!(matches!(e, ViewError::NotALayout(_)), "{e}");
    // 1..3 (1 4) is one.
    let ok = t.view().narrow(1, 1, 2).unwrap();
    assert_eq!(ok.layout().to_string(), "1 o (3,2):(8,3)");
    assert!(matches!(
        t.view()
            .slice(&[SliceArg::full(), SliceArg::range(Some(1), None, None)]),
        Err(ViewError::NotALayout(_))
    ));
}

#[test]
fn buffers_and_layouts() {
    assert!(matches!(
        Tensor::new(vec![0; 3], parse_layout("4:1").unwrap()),
        Err(ViewError::OutOfBuffer {
            min: 0,
            max: 3,
            len: 3,
            ..
        })
    ));
    assert!(matches!(
        Tensor::new(vec![0; 8], parse_layout("4:-1").unwrap()),
        Err(ViewError::OutOfBuffer { min: -3, .. })
    ));
    assert!(matches!(
        Tensor::new(vec![0; 4], parse_layout("(2,2):(1@0,1@1)").unwrap()),
        Err(ViewError::NonIntegerStride(_))
    ));
    // Sw<2,0,2> maps 0..=4 partly past a buffer of 5 elements.
    let sw = ComposedLayout::new(Swizzle::new(2, 0, 2).unwrap(), 0, parse_layout("5:1").unwrap());
    assert!(matches!(
        Tensor::with_layout(vec![0; 5], sw),
        Err(ViewError::OutOfBuffer { .. })
    ));
    assert_eq!(
        Tensor::from_shape_vec(&[2, 3], MemoryOrder::RowMajor, vec![0; 5]).unwrap_err(),
        ViewError::LengthMismatch { expected: 6, got: 5 }
    );
    assert_eq!(
        Tensor::<f32>::zeros(&[2, 0], MemoryOrder::RowMajor).unwrap_err(),
        ViewError::EmptyView { axis: 1 }
    );
    let mut a = t34();
    let b = Tensor::from_shape_vec(&[4, 3], MemoryOrder::ColumnMajor, (0..12).collect::<Vec<i32>>()).unwrap();
    assert!(matches!(
        a.view_mut().assign(&b.view()),
        Err(ViewError::DimsMismatch { .. })
    ));
}

#[test]
fn local_tile_and_partition_errors() {
    let a = Tensor::new((1..=48).collect::<Vec<i64>>(), parse_layout("(6,8)").unwrap()).unwrap();
    let v = a.view();
    let tiler = Tiler::from_shape(&parse_int_tuple("(2,2)").unwrap());
    // The grid of 2x2 tiles is 3x4.
    assert!(matches!(
        v.local_tile(&tiler, &parse_int_tuple("(3,0)").unwrap()),
        Err(ViewError::IndexOutOfRange { .. })
    ));
    assert!(matches!(
        v.local_tile(&tiler, &HTuple::leaf(12)),
        Err(ViewError::IndexOutOfRange {
            index: 12,
            size: 12,
            ..
        })
    ));
    assert!(matches!(
        v.local_tile(&tiler, &parse_int_tuple("(0,0,0)").unwrap()),
        Err(ViewError::TooManyIndices { given: 3, ndim: 2 })
    ));
    // A tile that is no layout of a hierarchical mode: the divide's own error.
    let h = Tensor::new(
        (0..64).collect::<Vec<i64>>(),
        parse_layout("((2,2),4):((1,4),16)").unwrap(),
    )
    .unwrap();
    let bad = Tiler::from_shape(&parse_int_tuple("(3,2)").unwrap());
    assert!(matches!(
        h.view().local_tile(&bad, &parse_int_tuple("(0,0)").unwrap()),
        Err(ViewError::Algebra(_))
    ));
    // As in CuTe, a tile that does not divide the dimension runs past it at the border (here
    // rows 4..8 of 6, wrapping into the next column); a border tile that would leave the
    // buffer is refused.
    let tall = Tiler::from_shape(&parse_int_tuple("(4,2)").unwrap());
    let border = v.local_tile(&tall, &parse_int_tuple("(1,0)").unwrap()).unwrap();
    assert_eq!(
        border.to_vec(MemoryOrder::ColumnMajor),
        vec![5, 6, 7, 8, 11, 12, 13, 14]
    );
    assert!(matches!(
        v.local_tile(&tall, &parse_int_tuple("(1,3)").unwrap()),
        Err(ViewError::OutOfBuffer { .. })
    ));
    // Thread indices the thread layout does not reach.
    let threads = parse_layout("(2,2):(1,2)").unwrap();
    let e = v.local_partition(threads.clone(), &HTuple::leaf(4)).unwrap_err();
    assert_eq!(
        e,
        ViewError::BadThread("thread index 4 is not reached by thread layout (2,2):(1,2)".into())
    );
    assert!(matches!(
        v.local_partition(threads.clone(), &HTuple::leaf(-1)),
        Err(ViewError::BadThread(_))
    ));
    assert!(matches!(
        v.local_partition(parse_layout("(2,2):(0,1)").unwrap(), &HTuple::leaf(1)),
        Err(ViewError::BadThread(_))
    ));
    assert!(matches!(
        v.local_partition(threads.clone(), &parse_int_tuple("(0,0,0)").unwrap()),
        Err(ViewError::BadThread(_))
    ));
    assert!(matches!(
        v.local_partition(
            Threads::Shape(parse_int_tuple("(2,2)").unwrap()),
            &parse_int_tuple("(2,0)").unwrap()
        ),
        Err(ViewError::IndexOutOfRange { .. })
    ));
}

#[test]
fn printing_ranks() {
    let t = Tensor::<i8>::zeros(&[1, 1, 1, 1, 1], MemoryOrder::RowMajor).unwrap();
    assert_eq!(
        format_tensor(&t, true).unwrap_err(),
        ViewError::UnsupportedRank {
            what: "print_tensor",
            supported: "0 to 4",
            rank: 5
        }
    );
}
