//! Text rendering of tensors and layouts: `print_tensor` and `print_table` (PyCuTe's
//! `util.print_tensor` and `util.print_table`, drawn like CuTe's `print_tensor` and
//! `print_layout`).
//!
//! * [`format_tensor`] draws ranks 0 to 4: rank 1 as a column, rank 2 as rows (dimension 0)
//!   by columns (dimension 1), rank 3 as the rank-2 slices along dimension 2 separated by
//!   lines of `-`, rank 4 as the rank-3 blocks along dimension 3 separated by lines of `=`.
//!   Every cell is right-aligned to the widest cell, after one space. The header (with
//!   `print_type`) is the layout followed by `:`, as CuTe's `print_tensor` writes it.
//! * [`format_table`] draws a rank-2 view as one bordered grid with the row and column
//!   indices, as CuTe's `print_layout`; any other rank falls back to [`format_tensor`]. The
//!   header is the layout alone.
//!
//! A layout prints its values (offsets, or coordinates for coordinate strides); a tensor or a
//! view prints its elements.
//!
//! ```
//! use tessera_ir::{parse_layout, view::{format_table, format_tensor}};
//! let l = parse_layout("(2,3):(3,1)").unwrap();
//! assert_eq!(format_tensor(&l, true).unwrap(), "(2,3):(3,1):\n 0 1 2\n 3 4 5\n");
//! assert_eq!(format_table(&l, true).unwrap(), "\
//! (2,3):(3,1)
//!       0   1   2
//!     +---+---+---+
//!  0  | 0 | 1 | 2 |
//!     +---+---+---+
//!  1  | 3 | 4 | 5 |
//!     +---+---+---+
//! ");
//! ```

use super::borrowed::{TensorView, TensorViewMut};
use super::error::{ViewError, ViewResult, to_i64};
use super::leaves::{dims, modes_of};
use super::tensor::Tensor;
use crate::error::Error;
use crate::htuple::HTuple;
use crate::layout::Layout;
use crate::stride::Stride;
use crate::swizzle::ComposedLayout;
use std::fmt::{Display, Write as _};
use std::io::Write as _;

/// Something with dimensions and a printable value at each index tuple.
pub trait Printable {
    /// The type line: the (composed) layout.
    fn header(&self) -> String;
    /// The size of each dimension.
    fn print_dims(&self) -> ViewResult<Vec<usize>>;
    /// The text of the value at one index per dimension.
    fn cell(&self, idx: &[usize]) -> ViewResult<String>;
}

/// A value of a layout: an integer, or a coordinate zero-extended to the codomain `cs`.
fn stride_text(s: &Stride<i64>, cs: &HTuple<i64>) -> String {
    fn go(t: &HTuple<i64>, path: &mut Vec<u32>, s: &Stride<i64>) -> HTuple<i64> {
        if t.is_leaf() {
            let v = s
                .terms()
                .iter()
                .find(|(p, _)| p.as_slice() == path.as_slice())
                .map_or(0, |(_, v)| *v);
            return HTuple::leaf(v);
        }
        let modes = t.modes();
        HTuple::from_modes(modes.iter().enumerate().map(|(k, m)| {
            path.push(k as u32);
            let r = go(m, path, s);
            path.pop();
            r
        }))
    }
    match s {
        Stride::Basis(_) if cs.is_tuple() => go(cs, &mut Vec::new(), s).to_string(),
        Stride::Basis(_) => s.coord_string(),
        Stride::Int(v) if cs.is_tuple() && *v == 0 => cs.map(|_| 0).to_string(),
        s => s.to_string(),
    }
}

impl Printable for Layout<i64> {
    fn header(&self) -> String {
        self.to_string()
    }
    fn print_dims(&self) -> ViewResult<Vec<usize>> {
        dims(self)
    }
    fn cell(&self, idx: &[usize]) -> ViewResult<String> {
        let mut acc = Stride::zero();
        for (m, &i) in modes_of(self).iter().zip(idx) {
            acc = acc.add(&m.eval_index(&to_i64(i)?)?)?;
        }
        let cs = match self.codomain()? {
            crate::stride::Codomain::Coord => self.coshape()?,
            _ => HTuple::leaf(0),
        };
        Ok(stride_text(&acc, &cs))
    }
}

impl Printable for ComposedLayout<i64> {
    fn header(&self) -> String {
        self.to_string()
    }
    fn print_dims(&self) -> ViewResult<Vec<usize>> {
        dims(&self.inner)
    }
    fn cell(&self, idx: &[usize]) -> ViewResult<String> {
        let c: Vec<i64> = idx.iter().map(|&i| to_i64(i)).collect::<ViewResult<_>>()?;
        let crd = if self.inner.shape().is_leaf() {
            HTuple::leaf(c.first().copied().unwrap_or(0))
        } else {
            HTuple::flat(c)
        };
        Ok(self.eval(&crd)?.to_string())
    }
}

macro_rules! printable_tensor {
    ($ty:ty, [$($g:tt)*]) => {
        impl<$($g)*> Printable for $ty {
            fn header(&self) -> String {
                self.layout().to_string()
            }
            fn print_dims(&self) -> ViewResult<Vec<usize>> {
                Ok(self.dims().to_vec())
            }
            fn cell(&self, idx: &[usize]) -> ViewResult<String> {
                Ok(self.at(idx)?.to_string())
            }
        }
    };
}

printable_tensor!(Tensor<T>, [T: Display]);
printable_tensor!(TensorView<'a, T>, ['a, T: Display]);
printable_tensor!(TensorViewMut<'a, T>, ['a, T: Display]);

/// The cells of a rank ≤ 4 printable, with the width of the widest.
fn cells(x: &impl Printable, dims: &[usize]) -> ViewResult<(Vec<String>, usize)> {
    let total: usize = dims.iter().product();
    let mut out = Vec::with_capacity(total);
    let mut idx = vec![0usize; dims.len()];
    for k in 0..total {
        let mut rest = k;
        for (i, &d) in idx.iter_mut().zip(dims) {
            *i = rest % d;
            rest /= d;
        }
        out.push(x.cell(&idx)?);
    }
    let w = out.iter().map(|s| s.chars().count()).max().unwrap_or(0);
    Ok((out, w))
}

/// Draws a printable of rank 0 to 4 (see the module doc).
///
/// Errors: [`ViewError::UnsupportedRank`] for a rank above 4.
pub fn format_tensor(x: &impl Printable, print_type: bool) -> ViewResult<String> {
    let d = x.print_dims()?;
    if d.len() > 4 {
        return Err(ViewError::UnsupportedRank {
            what: "print_tensor",
            supported: "0 to 4",
            rank: d.len(),
        });
    }
    let mut out = String::new();
    if print_type {
        out.push_str(&x.header());
        out.push_str(":\n");
    }
    let (cells, w) = cells(x, &d)?;
    // Column-major cells: (m, n, k, p) is at m + M*(n + N*(k + K*p)).
    let get = |k: usize| d.get(k).copied().unwrap_or(1);
    let (m, n, kk, pp) = (get(0), get(1), get(2), get(3));
    for p in 0..pp {
        if p > 0 {
            out.push_str(&"=".repeat(n * (w + 1)));
            out.push('\n');
        }
        for k in 0..kk {
            if k > 0 {
                out.push_str(&"-".repeat(n * (w + 1)));
                out.push('\n');
            }
            for i in 0..m {
                for j in 0..n {
                    let c = &cells[i + m * (j + n * (k + kk * p))];
                    let _ = write!(out, " {c:>w$}");
                }
                out.push('\n');
            }
        }
    }
    Ok(out)
}

/// Draws a rank-2 printable as a bordered grid with row and column indices; other ranks as
/// [`format_tensor`].
pub fn format_table(x: &impl Printable, print_type: bool) -> ViewResult<String> {
    let d = x.print_dims()?;
    let [rows, cols] = d.as_slice() else {
        return format_tensor(x, print_type);
    };
    let (rows, cols) = (*rows, *cols);
    let (cells, w) = cells(x, &d)?;
    let digits = |v: usize| v.to_string().len();
    let w = w.max(digits(cols.saturating_sub(1)));
    let rw = digits(rows.saturating_sub(1)).max(2);
    let pad = " ".repeat(rw + 2);
    let mut out = String::new();
    if print_type {
        out.push_str(&x.header());
        out.push('\n');
    }
    let mut labels = pad.clone();
    for j in 0..cols {
        let _ = write!(labels, "  {j:>w$} ");
    }
    out.push_str(labels.trim_end());
    out.push('\n');
    let rule = format!("{pad}{}+\n", format!("+{}", "-".repeat(w + 2)).repeat(cols));
    for i in 0..rows {
        out.push_str(&rule);
        let _ = write!(out, "{i:>rw$}  ");
        for j in 0..cols {
            let _ = write!(out, "| {:>w$} ", cells[i + rows * j]);
        }
        out.push_str("|\n");
    }
    out.push_str(&rule);
    Ok(out)
}

fn emit(s: ViewResult<String>) -> ViewResult<()> {
    let s = s?;
    let mut out = std::io::stdout().lock();
    out.write_all(s.as_bytes())
        .and_then(|_| out.flush())
        .map_err(|e| ViewError::Algebra(Error::invalid(format!("writing to stdout: {e}"))))
}

/// Prints [`format_tensor`] to standard output.
pub fn print_tensor(x: &impl Printable, print_type: bool) -> ViewResult<()> {
    emit(format_tensor(x, print_type))
}

/// Prints [`format_table`] to standard output.
pub fn print_table(x: &impl Printable, print_type: bool) -> ViewResult<()> {
    emit(format_table(x, print_type))
}
