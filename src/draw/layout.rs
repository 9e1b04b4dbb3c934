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
    layout_of_elements(f, color, 4)
}

/// [`layout`] with `elem`-byte elements: a bank colouring colours each cell by the bank of its
/// element's first 4-byte word, `(offset * elem / 4) % N`, and the legend says so (with 4,
/// the bank is `offset % N`, PyCuTe's `bank_color`).
///
/// @pre `elem` is 1, 2, 4, 8 or 16 (else bad input).
/// @post the same cells, texts and legend as [`layout`] but for the fills and the colour line.
///
/// ```
/// use tessera::draw::{layout_of_elements, Color};
/// let l = tessera::lang::parse_value("(2,4):(4,1)").unwrap();
/// let p = layout_of_elements(&l, Color::Bank32, 2).unwrap();
/// // Offsets 0 and 1 are the two halves of word 0: one bank, one colour.
/// assert_eq!(p.cell(0, 0).unwrap().fill, p.cell(0, 1).unwrap().fill);
/// assert!(p.legend.iter().any(|l| l.text.contains("elem=2")));
/// ```
pub fn layout_of_elements<I: Int>(f: &Value<I>, color: Color, elem: i64) -> Result<Picture, DrawError> {
    if ![1, 2, 4, 8, 16].contains(&elem) {
        return Err(DrawError::invalid(format!(
            "elem={elem}: the element size is 1, 2, 4, 8 or 16 bytes"
        )));
    }
    let banked = matches!(color, Color::Bank8 | Color::Bank16 | Color::Bank32);
    let word = |offset: i64| -> i64 {
        let bytes = i128::from(offset) * i128::from(elem);
        i64::try_from(bytes.div_euclid(4)).unwrap_or(0)
    };
    if color.is_thread_value() {
        return Err(DrawError::invalid(format!(
            "the colouring {color:?} reads threads and values: draw a thread-value layout (--tv) with it, or colour a layout by index or bank"
        )));
    }
    let v = concrete::value(f)?;
    let shown = title(v.to_string());
    let grid = Grid::of_layout(&concrete::shape(&v)?, &shown)?;
    let mut pic = grid.picture(shown);
    for i in 0..grid.cells() {
        let (r, c) = grid.cell_of(i);
        let index = grid.index(r, c);
        let value = eval_at(&v, &Value::Int(index))?;
        let k = key(&value, index);
        let fill = color
            .of_offset(if banked { word(k) } else { k })
            .unwrap_or(super::color::Rgb::WHITE);
        pic.cells[r * grid.cols + c] = Cell::new(value.to_string(), fill);
    }
    let rank = concrete::shape(&v)?.rank();
    let across = match rank {
        1 => "mode 0 down one column (as CuTe's print_latex)".to_string(),
        2 => "mode 0 down, mode 1 across".to_string(),
        r => format!("mode 0 down, modes 1 to {} folded across", r - 1),
    };
    pic.legend.push(Legend::text(format!(
        "{} x {}: {across}; each cell the value at index row + {} * column",
        grid.rows, grid.cols, grid.rows
    )));
    if banked {
        let n = match color {
            Color::Bank8 => 8,
            Color::Bank16 => 16,
            _ => 32,
        };
        pic.legend.push(Legend::text(format!(
            "colour: the bank of each element's first 4-byte word, (offset * {elem} / 4) % {n}, at elem={elem} bytes"
        )));
    }
    Ok(pic)
}
