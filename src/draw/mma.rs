//! The picture of a tiled MMA as CuTe's `print_latex(tiled_mma)` draws it: C's `M x N` tile in
//! the middle, A's `M x K` tile on its left, B on top (`K` rows by `N` columns: CuTe's
//! `(n, k)` drawn at row `k`, column `n`), each cell `T{t}V{v}` of the first `(thread, value)`
//! that reaches it, threads in the outer loop and values in the inner one, as CuTe's loops
//! visit them. The index labels sit where CuTe puts them: A's rows on its left and its `k`
//! above it, B's columns above it and its `k` on its left; C takes A's rows and B's columns.
//!
//! With `M`, `N`, `K` the tile sizes, the picture has `K + 2 + M` rows and `K + 2 + N`
//! columns: CuTe's coordinates shifted by `K + 2` (C at `(m, n)`, A at `(m, k - K - 1)`, B at
//! `(k - K - 1, n)`, the labels one further out).

use super::DrawError;
use super::color::{Color, Rgb};
use super::picture::{Cell, Legend, Picture};
use tessera_ir::atom::{Operand, TiledMma};

/// The most cells of an MMA picture: [`super::MAX_CELLS`].
fn too_large(t: &TiledMma, cells: i64) -> DrawError {
    DrawError::TooLarge {
        what: t.to_string(),
        count: cells.to_string(),
        unit: "cells",
        max: super::MAX_CELLS,
    }
}

/// Draws the tiled MMA `t`'s A, B and C thread-value layouts in one picture (see the module
/// docs); `color` reads the thread ([`Color::Thread`], CuTe's default), the value, the warp
/// or the cell's column-major offset in its tile.
///
/// @pre none. @post every cell of the C, A and B regions shows the first `(t, v)` of
/// `tv_layout_C/A/B(t)` (threads outer) that reaches it; at most [`super::MAX_CELLS`] cells.
///
/// ```
/// use tessera::draw::{mma, Color};
/// use tessera_ir::atom::{mma_atom, TiledMma};
/// let t = TiledMma::new(mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap(), &[1, 1, 1]).unwrap();
/// let p = mma(&t, Color::Thread).unwrap();
/// // K = 16: C's (0,0) at row and column 18, A's (0,0) at row 18, column 1.
/// assert_eq!((p.rows, p.cols), (16 + 18, 8 + 18));
/// assert_eq!(p.cell(18, 18).unwrap().text, "T0V0");
/// assert_eq!(p.cell(18, 1).unwrap().text, "T0V0");
/// assert_eq!(p.cell(18, 0).unwrap().text, "0");
/// ```
pub fn mma(t: &TiledMma, color: Color) -> Result<Picture, DrawError> {
    let [m, n, k] = t.tile_size().map_err(|e| DrawError::invalid(e.to_string()))?;
    let rows = k.checked_add(2).and_then(|x| x.checked_add(m));
    let cols = k.checked_add(2).and_then(|x| x.checked_add(n));
    let cells = rows
        .zip(cols)
        .and_then(|(r, c)| r.checked_mul(c))
        .unwrap_or(i64::MAX);
    if cells > super::MAX_CELLS as i64 {
        return Err(too_large(t, cells));
    }
    let (rows, cols) = (rows.unwrap_or(0) as usize, cols.unwrap_or(0) as usize);
    let blank = || Cell {
        blank: true,
        ..Cell::new(String::new(), Rgb::WHITE)
    };
    let mut pic = Picture {
        title: format!("{t}: A (M x K) left, B (K x N) top, C (M x N)"),
        rows,
        cols,
        cells: vec![blank(); rows * cols],
        row_labels: vec![String::new(); rows],
        col_labels: vec![String::new(); cols],
        row_rules: Vec::new(),
        col_rules: Vec::new(),
        legend: Vec::new(),
        phases: Vec::new(),
    };
    let off = k + 2;
    // Where an operand's tile cell (i, j) lies in the picture.
    let at = |op: Operand, i: i64, j: i64| match op {
        Operand::C => (i + off, j + off),
        Operand::A => (i + off, j + 1),
        Operand::B => (j + 1, i + off),
    };
    for (op, first) in [(Operand::C, &m), (Operand::A, &m), (Operand::B, &n)] {
        let tv = t.tv_layout(op).map_err(|e| DrawError::invalid(e.to_string()))?;
        let (threads, values) = match (tv.mode(0), tv.mode(1)) {
            (Some(a), Some(b)) => (a.size()?, b.size()?),
            _ => {
                return Err(DrawError::invalid(format!(
                    "{tv} is not a (thread, value) layout"
                )));
            }
        };
        let second = match op {
            Operand::C => n,
            _ => k,
        };
        // Every cell of the operand's grid exists, reached or not (white, no text).
        for i in 0..*first {
            for j in 0..second {
                let (r, c) = at(op, i, j);
                pic.cells[r as usize * cols + c as usize] = Cell::new(String::new(), Rgb::WHITE);
            }
        }
        let mut taken = vec![false; (*first * second) as usize];
        for th in 0..threads {
            for v in 0..values {
                let x = tv.eval_index(&(th + threads * v))?;
                let idx = *x
                    .as_int()
                    .ok_or_else(|| DrawError::invalid(format!("{tv} gives {x}, not an index")))?;
                if !(0..*first * second).contains(&idx) {
                    return Err(DrawError::invalid(format!(
                        "T{th}V{v} of {op:?} reaches {idx}, outside its {first} x {second} tile"
                    )));
                }
                if std::mem::replace(&mut taken[idx as usize], true) {
                    continue;
                }
                let (r, c) = at(op, idx % first, idx / first);
                pic.cells[r as usize * cols + c as usize] =
                    Cell::new(format!("T{th}V{v}"), color.of_thread_value(th, v, idx));
            }
        }
    }
    let mut label = |r: i64, c: i64, x: i64| pic.cells[r as usize * cols + c as usize].text = x.to_string();
    for i in 0..m {
        label(i + off, 0, i); // A's (and C's) rows
    }
    for j in 0..k {
        label(off - 1, j + 1, j); // A's k, above it
        label(j + 1, off - 1, j); // B's k, on its left
    }
    for j in 0..n {
        label(0, j + off, j); // B's (and C's) columns
    }
    pic.legend.push(Legend::text(format!(
        "tile {m} x {n} x {k}, {} threads; each cell shows the first thread T and value V that reach it",
        t.num_threads().map_err(|e| DrawError::invalid(e.to_string()))?
    )));
    Ok(pic)
}
