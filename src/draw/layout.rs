//! The picture of a layout: each cell the evaluator's value at its index (an offset, a
//! coordinate for coordinate strides, an `F2` value), coloured by a colour functor of the
//! offset.

use super::DrawError;
use super::color::Color;
use super::concrete;
use super::grid::Grid;
use super::picture::{Cell, Legend, Picture};
use crate::lang::{Value, eval_at};
use tessera_ir::{Int, Stride};

/// The most characters of a title.
const TITLE_CHARS: usize = 160;

/// `text`, cut to [`TITLE_CHARS`] characters with an ellipsis.
pub(crate) fn title(text: String) -> String {
    if text.chars().count() <= TITLE_CHARS {
        return text;
    }
    let mut t: String = text.chars().take(TITLE_CHARS - 1).collect();
    t.push('…');
    t
}

/// The colour key of a value: the offset itself, the value of an `F2` offset, or, for a
/// coordinate, the cell's index.
fn key(v: &Value<i64>, index: i64) -> i64 {
    match v {
        Value::Int(x) => *x,
        Value::Stride(Stride::F2(x)) => i64::try_from(*x).unwrap_or(index),
        _ => index,
    }
}

/// Draws a layout (or a composed layout, a view, or a bare shape) as CuTe's `print_layout`
/// grid: see [`crate::draw`]. A symbolic value needs every parameter bound; `color` is one of
/// the offset colourings ([`Color::Index`], the banks, [`Color::White`]).
///
/// ```
/// use tessera::draw::{layout, Color};
/// use tessera::lang::Session;
/// // Coordinate strides: each cell shows the coordinate the layout maps it to.
/// let l = Session::default().value("(2,3):(1@1,1@0)").unwrap();
/// let p = layout(&l, Color::Index).unwrap();
/// assert_eq!((p.rows, p.cols), (2, 3));
/// assert_eq!(p.cell(1, 2).unwrap().text, "(2,1)");
/// // Symbolic layouts draw once their parameters are bound.
/// let s = Session::new(&["M where M % 4 == 0"], &["M=8"]).unwrap();
/// let p = layout(&s.value("(4,M/4):(M/4,1)").unwrap(), Color::Bank32).unwrap();
/// assert_eq!(p.cell(3, 1).unwrap().text, "7");
/// ```
pub fn layout<I: Int>(f: &Value<I>, color: Color) -> Result<Picture, DrawError> {
    if color.is_thread_value() {
        return Err(DrawError::invalid(format!(
            "the colouring {color:?} reads threads and values: draw a thread-value layout (--tv) with it, or colour a layout by index or bank"
        )));
    }
    let v = concrete::value(f)?;
    let shown = title(v.to_string());
    let grid = Grid::of(&concrete::shape(&v)?, &shown)?;
    let mut pic = grid.picture(shown);
    for i in 0..grid.cells() {
        let (r, c) = grid.cell_of(i);
        let index = grid.index(r, c);
        let value = eval_at(&v, &Value::Int(index))?;
        let fill = color
            .of_offset(key(&value, index))
            .unwrap_or(super::color::Rgb::WHITE);
        pic.cells[r * grid.cols + c] = Cell::new(value.to_string(), fill);
    }
    let rank = concrete::shape(&v)?.rank();
    let across = match rank {
        1 => "mode 0 across one row".to_string(),
        2 => "mode 0 down, mode 1 across".to_string(),
        r => format!("mode 0 down, modes 1..{} folded across", r - 1),
    };
    pic.legend.push(Legend::text(format!(
        "{} x {}: {across}; each cell the value at index row + {} * column",
        grid.rows, grid.cols, grid.rows
    )));
    Ok(pic)
}
