//! The grid a shape is drawn on, as CuTe's `print_layout` lays out a rank-2 layout: mode 0
//! down the rows, mode 1 across the columns. A rank-1 layout is one column, as CuTe's
//! `print_latex` draws it (it appends a mode `1:0`, so `M` rows by 1 column,
//! [`Grid::of_layout`]); a rank-1 tile or shared-memory shape is one row ([`Grid::of`]); a shape
//! of rank 3 or more is folded as `(mode 0, (mode 1, mode 2, ...))`. Cell `(r, c)` is the linear
//! index `r + rows * c` (colexicographic, as the layout reads an index).

use super::DrawError;
use super::MAX_CELLS;
use super::picture::{Picture, Rule, rules};
use tessera_ir::HTuple;

/// The rows and columns of a shape, with the flattened extents of each.
#[derive(Clone, Debug)]
pub(crate) struct Grid {
    /// Number of rows: the size of mode 0 (for a rank-1 shape: its size in
    /// [`Grid::of_layout`], 1 in [`Grid::of`]).
    pub rows: usize,
    /// Number of columns: the size of the other modes.
    pub cols: usize,
    /// The extents of the leaves of the row mode.
    pub row_leaves: Vec<i64>,
    /// The extents of the leaves of the column modes.
    pub col_leaves: Vec<i64>,
}

/// The product of extents, or `None` when it overflows.
fn product(xs: &[i64]) -> Option<i64> {
    xs.iter().try_fold(1i64, |a, &x| a.checked_mul(x))
}

impl Grid {
    /// The grid of `shape` (constant extents), refused past [`MAX_CELLS`] cells; `what`
    /// names the drawn thing in the message. A rank-1 shape is one row.
    pub fn of(shape: &HTuple<i64>, what: &str) -> Result<Grid, DrawError> {
        Grid::folded(shape, what, false)
    }

    /// [`Grid::of`] for a layout's picture: a rank-1 shape is one column, as CuTe's
    /// `print_latex` draws a rank-1 layout (`M` rows, 1 column, rows labelled `0..M-1`).
    pub fn of_layout(shape: &HTuple<i64>, what: &str) -> Result<Grid, DrawError> {
        Grid::folded(shape, what, true)
    }

    /// The grid of `shape`; a rank-1 shape down one column when `rank1_down`, else across one row.
    fn folded(shape: &HTuple<i64>, what: &str, rank1_down: bool) -> Result<Grid, DrawError> {
        let (row_leaves, col_leaves): (Vec<i64>, Vec<i64>) = if shape.is_leaf() || shape.rank() == 1 {
            if rank1_down {
                (shape.leaves().to_vec(), vec![])
            } else {
                (vec![], shape.leaves().to_vec())
            }
        } else {
            let modes = shape.modes();
            let rows = modes[0].leaves().to_vec();
            let cols = modes[1..]
                .iter()
                .flat_map(|m| m.leaves().iter().copied())
                .collect();
            (rows, cols)
        };
        if let Some(x) = row_leaves.iter().chain(&col_leaves).find(|&&x| x < 0) {
            return Err(DrawError::invalid(format!("{what} has the negative extent {x}")));
        }
        let too_large = |count: String| DrawError::TooLarge {
            what: what.to_string(),
            count,
            unit: "cells",
            max: MAX_CELLS,
        };
        let all: Vec<i64> = row_leaves.iter().chain(&col_leaves).copied().collect();
        let total = product(&all).ok_or_else(|| too_large("more than 2^63".into()))?;
        if total > MAX_CELLS as i64 {
            return Err(too_large(total.to_string()));
        }
        // Each factor divides the checked total, so neither product overflows.
        let rows = product(&row_leaves).unwrap_or(0) as usize;
        let cols = product(&col_leaves).unwrap_or(0) as usize;
        Ok(Grid {
            rows,
            cols,
            row_leaves,
            col_leaves,
        })
    }

    /// The number of cells.
    pub fn cells(&self) -> usize {
        self.rows * self.cols
    }

    /// The linear index of cell `(r, c)`.
    pub fn index(&self, r: usize, c: usize) -> i64 {
        (r + self.rows * c) as i64
    }

    /// The row and column of the linear index `i` (below [`Grid::cells`]).
    pub fn cell_of(&self, i: usize) -> (usize, usize) {
        (i % self.rows.max(1), i / self.rows.max(1))
    }

    /// The rules between the sub-mode blocks of the rows and of the columns.
    pub fn rules(&self) -> (Vec<Rule>, Vec<Rule>) {
        (
            rules(&self.row_leaves, self.rows),
            rules(&self.col_leaves, self.cols),
        )
    }

    /// An empty picture of this grid: white cells without text, labelled rows and columns,
    /// the sub-mode rules, no legend.
    pub fn picture(&self, title: String) -> Picture {
        use super::color::Rgb;
        use super::picture::Cell;
        let (row_rules, col_rules) = self.rules();
        Picture {
            title,
            rows: self.rows,
            cols: self.cols,
            cells: vec![Cell::new(String::new(), Rgb::WHITE); self.cells()],
            row_labels: (0..self.rows).map(|r| r.to_string()).collect(),
            col_labels: (0..self.cols).map(|c| c.to_string()).collect(),
            row_rules,
            col_rules,
            legend: Vec::new(),
            phases: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(src: &str) -> HTuple<i64> {
        crate::lang::parse_int_tuple(src).unwrap()
    }

    #[test]
    fn folding() {
        let g = Grid::of(&t("(4,8)"), "L").unwrap();
        assert_eq!((g.rows, g.cols), (4, 8));
        let g = Grid::of(&t("8"), "L").unwrap();
        assert_eq!((g.rows, g.cols), (1, 8));
        // A layout's rank-1 shape is a column, as CuTe's print_latex draws it (M x 1).
        let g = Grid::of_layout(&t("8"), "L").unwrap();
        assert_eq!((g.rows, g.cols, g.index(5, 0)), (8, 1, 5));
        let g = Grid::of_layout(&t("((2,4))"), "L").unwrap();
        assert_eq!((g.rows, g.cols, g.row_leaves.as_slice()), (8, 1, &[2, 4][..]));
        let g = Grid::of_layout(&t("(4,8)"), "L").unwrap();
        assert_eq!((g.rows, g.cols), (4, 8));
        let g = Grid::of(&t("(2,3,4)"), "L").unwrap();
        assert_eq!((g.rows, g.cols), (2, 12));
        assert_eq!(g.col_leaves, [3, 4]);
        let g = Grid::of(&t("((2,2),(3,2))"), "L").unwrap();
        assert_eq!((g.rows, g.cols, g.index(1, 2)), (4, 6, 9));
        assert_eq!(g.cell_of(9), (1, 2));
    }

    #[test]
    fn limit() {
        assert!(Grid::of(&t("(256,256)"), "L").is_ok());
        let e = Grid::of(&t("(257,256)"), "L").unwrap_err();
        assert!(e.to_string().contains("65792 cells"), "{e}");
        let e = Grid::of(&t("(4294967296,4294967296)"), "L").unwrap_err();
        assert!(matches!(e, DrawError::TooLarge { .. }), "{e}");
        let e = Grid::of(&t("(65536,65536,65536,65536)"), "L").unwrap_err();
        assert!(e.to_string().contains("2^63"), "{e}");
    }
}
