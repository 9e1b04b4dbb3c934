//! The examples of the seeds, reproduced exactly: Warp's `tile_view` (`000_*`), MoYe.jl's
//! `@tile` and `@parallelize` (`001_*`, with 0-based indices for MoYe's 1-based ones and the
//! same element values), tenferro's `select` and `narrow` (`003_*`), and PyCuTe's tensors
//! (`004_*`).

use tessera_ir::algebra::Tiler;
use tessera_ir::view::{
    MemoryOrder, SliceArg, Tensor, TensorView, Threads, format_table, format_tensor, identity_tensor,
    make_tensor,
};
use tessera_ir::{HTuple, parse_int_tuple, parse_layout};

/// NumPy's `print(a)` for a 2-D array of integral floats: `[[  0.   1.] ...]`.
fn numpy_2d(t: &TensorView<'_, f32>) -> String {
    let (m, n) = (t.dims()[0], t.dims()[1]);
    let text = |i: usize, j: usize| format!("{}.", *t.at(&[i, j]).unwrap() as i64);
    let w = (0..m)
        .flat_map(|i| (0..n).map(move |j| (i, j)))
        .map(|(i, j)| text(i, j).len())
        .max()
        .unwrap();
    let rows: Vec<String> = (0..m)
        .map(|i| {
            let cells: Vec<String> = (0..n).map(|j| format!("{:>w$}", text(i, j))).collect();
            format!("[{}]", cells.join(" "))
        })
        .collect();
    format!("[{}]", rows.join("\n "))
}

/// Julia's display of a matrix body: every column right-aligned to its widest entry, two
/// spaces between columns, one before the first.
fn julia_matrix(t: &TensorView<'_, i64>) -> String {
    let (m, n) = (t.dims()[0], t.dims()[1]);
    let widths: Vec<usize> = (0..n)
        .map(|j| {
            (0..m)
                .map(|i| t.at(&[i, j]).unwrap().to_string().len())
                .max()
                .unwrap()
        })
        .collect();
    (0..m)
        .map(|i| {
            let cells: Vec<String> = (0..n)
                .map(|j| format!("{:>w$}", t.at(&[i, j]).unwrap(), w = widths[j]))
                .collect();
            format!(" {}", cells.join("  "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn warp_replace_rows() {
    // a = np.arange(16, dtype=np.float32).reshape(4, 4); t = tile_load(a, (4, 4))
    let mut t = Tensor::from_shape_vec(
        &[4, 4],
        MemoryOrder::RowMajor,
        (0..16).map(|x| x as f32).collect(),
    )
    .unwrap();
    // rows = wp.tile_view(t, offset=(2, 0), shape=(2, 4))
    let mut v = t.view_mut();
    let mut rows = v
        .reborrow()
        .tile_view(&[SliceArg::Index(2), SliceArg::Index(0)], Some(&[2, 4]))
        .unwrap();
    assert_eq!(rows.dims(), &[2, 4]);
    assert_eq!(rows.layout().to_string(), "8 o (2,4):(4,1)");
    // values = wp.tile_arange(100.0, 108.0, 1.0); tile_assign(rows, tile_reshape(values, (2, 4)))
    let values = Tensor::from_shape_vec(
        &[2, 4],
        MemoryOrder::RowMajor,
        (100..108).map(|x| x as f32).collect(),
    )
    .unwrap();
    rows.assign(&values.view()).unwrap();
    // wp.tile_store(out, t); print(out.numpy())
    let out = t.view().contiguous(MemoryOrder::RowMajor);
    assert_eq!(
        numpy_2d(&out.view()),
        "[[  0.   1.   2.   3.]\n [  4.   5.   6.   7.]\n [100. 101. 102. 103.]\n [104. 105. 106. 107.]]"
    );
}

#[test]
fn warp_shapeless_forms() {
    let t = Tensor::from_shape_vec(&[4, 4], MemoryOrder::RowMajor, (0..16).collect::<Vec<i64>>()).unwrap();
    // tile_view(t, offset=(i,)) on an (M, N) tile is row i with shape (N,).
    let row = t.view().tile_view(&[SliceArg::Index(1)], None).unwrap();
    assert_eq!(row.dims(), &[4]);
    assert_eq!(row.to_vec(MemoryOrder::RowMajor), vec![4, 5, 6, 7]);
    // t[2:4, ::-1]
    let s = t
        .view()
        .slice(&[(2..4).into(), SliceArg::range(None, None, Some(-1))])
        .unwrap();
    assert_eq!(s.dims(), &[2, 4]);
    assert_eq!(
        s.to_vec(MemoryOrder::RowMajor),
        vec![11, 10, 9, 8, 15, 14, 13, 12]
    );
    // t[-1, :]
    let last = t.view().slice(&[SliceArg::Index(-1), SliceArg::full()]).unwrap();
    assert_eq!(last.to_vec(MemoryOrder::RowMajor), vec![12, 13, 14, 15]);
}

/// `a = MoYeArray(pointer([i for i in 1:48]), @Layout((6,8)))`.
fn moye_a() -> Tensor<i64> {
    Tensor::new((1..=48).collect(), parse_layout("(6,8)").unwrap()).unwrap()
}

#[test]
fn moye_array() {
    let a = moye_a();
    assert_eq!(a.dims(), &[6, 8]);
    assert_eq!(
        julia_matrix(&a.view()),
        " 1   7  13  19  25  31  37  43
 2   8  14  20  26  32  38  44
 3   9  15  21  27  33  39  45
 4  10  16  22  28  34  40  46
 5  11  17  23  29  35  41  47
 6  12  18  24  30  36  42  48"
    );
}

#[test]
fn moye_tile() {
    // @tile a (_2, _2) (1, 1)
    let a = moye_a();
    let tiler = Tiler::from_shape(&parse_int_tuple("(2,2)").unwrap());
    let t = a
        .view()
        .local_tile(&tiler, &parse_int_tuple("(0,0)").unwrap())
        .unwrap();
    // 2×2 ... Layout{2, Tuple{StaticInt{2}, StaticInt{2}}, Tuple{StaticInt{1}, StaticInt{6}}}
    assert_eq!(t.dims(), &[2, 2]);
    assert_eq!(t.layout().inner.to_string(), "(2,2):(1,6)");
    assert_eq!(julia_matrix(&t), " 1  7\n 2  8");
}

#[test]
fn moye_parallelize_shape() {
    // @parallelize a (_2, _2) (1, 1)
    let a = moye_a();
    let threads = Threads::Shape(parse_int_tuple("(2,2)").unwrap());
    let p = a
        .view()
        .local_partition(threads, &parse_int_tuple("(0,0)").unwrap())
        .unwrap();
    // 3×4 ... Layout{2, Tuple{StaticInt{3}, StaticInt{4}}, Tuple{StaticInt{2}, StaticInt{12}}}
    assert_eq!(p.dims(), &[3, 4]);
    assert_eq!(p.layout().inner.to_string(), "(3,4):(2,12)");
    assert_eq!(julia_matrix(&p), " 1  13  25  37\n 3  15  27  39\n 5  17  29  41");
    // The first thread is also thread index 0 of the compact thread layout.
    let q = a
        .view()
        .local_partition(parse_int_tuple("(2,2)").unwrap(), &HTuple::leaf(0))
        .unwrap();
    assert_eq!(
        q.to_vec(MemoryOrder::ColumnMajor),
        p.to_vec(MemoryOrder::ColumnMajor)
    );
}

#[test]
fn moye_parallelize_layout_column_major() {
    // @parallelize a @Layout((2,2), (1, 2)) 2
    let a = moye_a();
    let p = a
        .view()
        .local_partition(parse_layout("(2,2):(1,2)").unwrap(), &HTuple::leaf(1))
        .unwrap();
    assert_eq!(p.dims(), &[3, 4]);
    assert_eq!(p.layout().inner.to_string(), "(3,4):(2,12)");
    assert_eq!(julia_matrix(&p), " 2  14  26  38\n 4  16  28  40\n 6  18  30  42");
}

#[test]
fn moye_parallelize_layout_row_major() {
    // @parallelize a @Layout((2,2), (2, 1)) 2
    let a = moye_a();
    let p = a
        .view()
        .local_partition(parse_layout("(2,2):(2,1)").unwrap(), &HTuple::leaf(1))
        .unwrap();
    assert_eq!(p.dims(), &[3, 4]);
    assert_eq!(p.layout().inner.to_string(), "(3,4):(2,12)");
    assert_eq!(
        julia_matrix(&p),
        "  7  19  31  43\n  9  21  33  45\n 11  23  35  47"
    );
}

#[test]
fn tenferro_select() {
    // Tensor::<f64>::zeros(&[3, 4, 10], MainMemory, ColumnMajor); tv.select(2, 5)
    let a = Tensor::<f64>::zeros(&[3, 4, 10], MemoryOrder::ColumnMajor).unwrap();
    let tv = a.view();
    let mat = tv.select(2, 5).unwrap();
    assert_eq!(mat.dims(), &[3, 4]);
    assert_eq!(mat.ndim(), 2);
    assert_eq!(mat.offset(), 60);
    assert_eq!(mat.strides(), Some(vec![1, 3]));
}

#[test]
fn tenferro_narrow() {
    // Tensor::<f64>::zeros(&[3, 10], MainMemory, ColumnMajor); tv.narrow(1, 2, 3)
    let a = Tensor::<f64>::zeros(&[3, 10], MemoryOrder::ColumnMajor).unwrap();
    let tv = a.view();
    let sub = tv.narrow(1, 2, 3).unwrap();
    assert_eq!(sub.dims(), &[3, 3]);
    assert_eq!(sub.offset(), 6);
    assert_eq!(sub.strides(), Some(vec![1, 3]));
}

#[test]
fn tenferro_permute_broadcast_diagonal_conj() {
    use num_complex::Complex;
    let a = Tensor::from_shape_vec(&[2, 3], MemoryOrder::ColumnMajor, (0..6).collect::<Vec<i32>>()).unwrap();
    let p = a.view().permute(&[1, 0]).unwrap();
    assert_eq!(p.dims(), &[3, 2]);
    assert_eq!(p.strides(), Some(vec![2, 1]));
    let row = a.view().narrow(0, 1, 1).unwrap();
    let b = row.broadcast(&[4, 3]).unwrap();
    assert_eq!(b.strides(), Some(vec![0, 2]));
    assert_eq!(
        b.to_vec(MemoryOrder::RowMajor),
        vec![1, 3, 5, 1, 3, 5, 1, 3, 5, 1, 3, 5]
    );
    let sq = Tensor::from_shape_vec(&[3, 3], MemoryOrder::RowMajor, (0..9).collect::<Vec<i32>>()).unwrap();
    let d = sq.view().diagonal(&[(0, 1)]).unwrap();
    assert_eq!(d.to_vec(MemoryOrder::RowMajor), vec![0, 4, 8]);
    let z = Tensor::from_shape_vec(
        &[2],
        MemoryOrder::ColumnMajor,
        vec![Complex::new(1.0, 2.0), Complex::new(-3.0, -4.0)],
    )
    .unwrap();
    assert_eq!(
        z.view().conj().data(),
        &[Complex::new(1.0, -2.0), Complex::new(-3.0, 4.0)]
    );
    assert_eq!(
        sq.view().conj().data(),
        sq.view().contiguous(MemoryOrder::ColumnMajor).data()
    );
}

#[test]
fn pycute_tensor_and_identity() {
    // T = make_tensor(Layout((4, 4), (4, 1))); T[1, 2] = 42.0; T[1, 2]
    let mut t: Tensor<f64> = make_tensor(&parse_layout("(4,4):(4,1)").unwrap()).unwrap();
    *t.at_mut(&[1, 2]).unwrap() = 42.0;
    assert_eq!(*t.at(&[1, 2]).unwrap(), 42.0);
    assert_eq!(*t.get_crd(&parse_int_tuple("(1,2)").unwrap()).unwrap(), 42.0);
    assert_eq!(*t.get(9).unwrap(), 42.0); // colexicographic index 1 + 4*2
    // identity_tensor((3, 4))[1, 2] == (1, 2)
    let id = identity_tensor(&parse_int_tuple("(3,4)").unwrap()).unwrap();
    assert_eq!(id.at(&[1, 2]).unwrap().to_string(), "(1,2)");
    // Predication: the coordinates of a tile of the identity tensor.
    let tile = id
        .view()
        .local_tile(
            &Tiler::from_shape(&parse_int_tuple("(3,2)").unwrap()),
            &parse_int_tuple("(0,1)").unwrap(),
        )
        .unwrap();
    let coords: Vec<String> = tile
        .to_vec(MemoryOrder::RowMajor)
        .iter()
        .map(|c| c.to_string())
        .collect();
    assert_eq!(coords, ["(0,2)", "(0,3)", "(1,2)", "(1,3)", "(2,2)", "(2,3)"]);
    let hid = identity_tensor(&parse_int_tuple("((2,2),3)").unwrap()).unwrap();
    assert_eq!(hid.get(7).unwrap().to_string(), "((1,1),1)");
}

#[test]
fn print_tensor_and_table() {
    let a = moye_a();
    let t = a
        .view()
        .local_tile(
            &Tiler::from_shape(&parse_int_tuple("(2,4)").unwrap()),
            &parse_int_tuple("(1,1)").unwrap(),
        )
        .unwrap();
    assert_eq!(
        format_tensor(&t, true).unwrap(),
        "26 o (2,4):(1,6):\n 27 33 39 45\n 28 34 40 46\n"
    );
    assert_eq!(
        format_table(&t, false).unwrap(),
        "       0    1    2    3\n    +----+----+----+----+\n 0  | 27 | 33 | 39 | 45 |\n    +----+----+----+----+\n 1  | 28 | 34 | 40 | 46 |\n    +----+----+----+----+\n"
    );
    let cube =
        Tensor::from_shape_vec(&[2, 2, 2], MemoryOrder::ColumnMajor, (0..8).collect::<Vec<i32>>()).unwrap();
    assert_eq!(
        format_tensor(&cube, false).unwrap(),
        " 0 2\n 1 3\n----\n 4 6\n 5 7\n"
    );
    let id = identity_tensor(&parse_int_tuple("(2,2)").unwrap()).unwrap();
    assert_eq!(format_tensor(&id, false).unwrap(), " (0,0) (0,1)\n (1,0) (1,1)\n");
    assert_eq!(
        format_tensor(&parse_layout("(2,2):(1@0,1@1)").unwrap(), true).unwrap(),
        "(2,2):(1@0,1@1):\n (0,0) (0,1)\n (1,0) (1,1)\n"
    );
}
