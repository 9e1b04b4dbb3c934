//! The picture of a thread-value layout over its tile, as CuTe's TV pictures (PyCuTe's
//! `draw_svg_tv`): the layout maps `(thread, value)` (mode 0: threads, mode 1: values; index
//! `t + T*v`) into an `M x N` tile, and the tile's cell `(m, n)` shows `T{t}V{v}`.
//!
//! A coordinate-valued layout (`1@0`, `1@1` strides) gives `(m, n)` itself. An offset is
//! folded into the tile through its column-major layout, as `composition(tile, TV)` reads it:
//! offset `o` is the cell `(o % M, o / M)`.

use super::DrawError;
use super::color::Color;
use super::concrete;
use super::grid::Grid;
use super::layout::title;
use super::picture::{Cell, Legend, Picture};
use crate::lang::{Value, eval_at};
use tessera_ir::{HTuple, Int, Stride};

/// The most `(thread, value)` pairs a thread-value picture evaluates.
pub const MAX_ACCESSES: usize = 1 << 20;

/// The tile cell of a value of the thread-value layout, in an `m x n` tile.
fn cell_of(v: &Value<i64>, m: i64, n: i64) -> Result<(i64, i64), String> {
    let fold = |o: i64| {
        if o >= 0 && m > 0 {
            Ok((o % m, o / m))
        } else {
            Err(format!("the offset {o} is outside the {m} x {n} tile"))
        }
    };
    let (r, c) = match v {
        Value::Int(o) => fold(*o)?,
        Value::Stride(Stride::F2(o)) => fold(i64::try_from(*o).map_err(|_| format!("{v} is too large"))?)?,
        Value::Tuple(xs) if xs.len() == 2 => match (&xs[0], &xs[1]) {
            (Value::Int(a), Value::Int(b)) => (*a, *b),
            _ => return Err(format!("the coordinate {v} is not a flat (m,n) pair")),
        },
        other => {
            return Err(format!(
                "the value {other} is not an offset or an (m,n) coordinate"
            ));
        }
    };
    if (0..m).contains(&r) && (0..n).contains(&c) {
        Ok((r, c))
    } else {
        Err(format!("{v} is outside the {m} x {n} tile"))
    }
}

/// The tile's shape: the given one, or, for a coordinate-valued layout without one, the
/// bounding box of its coordinates.
fn tile_shape(tile: Option<&HTuple<i64>>, values: &[Value<i64>]) -> Result<HTuple<i64>, DrawError> {
    if let Some(t) = tile {
        if t.is_leaf() || t.rank() != 2 {
            return Err(DrawError::invalid(format!(
                "the tile {t} must have rank 2, (M,N)"
            )));
        }
        return Ok(t.clone());
    }
    let (mut m, mut n) = (0i64, 0i64);
    for v in values {
        match v {
            Value::Tuple(xs) if xs.len() == 2 => {
                if let (Value::Int(a), Value::Int(b)) = (&xs[0], &xs[1]) {
                    m = m.max(a.saturating_add(1));
                    n = n.max(b.saturating_add(1));
                }
            }
            _ => {
                return Err(DrawError::invalid(
                    "the thread-value layout gives offsets: give the tile they fold into (--tile (M,N))",
                ));
            }
        }
    }
    Ok(HTuple::flat([m, n]))
}

/// Draws the thread-value layout `tv` over the tile `tile` (`(M,N)`, or `None` when `tv`'s
/// values are `(m,n)` coordinates): see the module docs. `color` reads the thread
/// ([`Color::Thread`], the default of CuTe's pictures), the value, the warp, or the cell's
/// column-major offset in the tile.
///
/// ```
/// use tessera::draw::{tv, Color};
/// use tessera::lang::Session;
/// let s = Session::default();
/// // 4 threads with 2 values each over a 4 x 2 tile: thread t holds row t.
/// let p = tv(&s.value("(4,2):(1,4)").unwrap(), Some(&s.value("(4,2)").unwrap()), Color::Thread).unwrap();
/// assert_eq!(p.cell(3, 1).unwrap().text, "T3V1");
/// ```
pub fn tv<I: Int>(tv: &Value<I>, tile: Option<&Value<I>>, color: Color) -> Result<Picture, DrawError> {
    let f = concrete::value(tv)?;
    let shape = concrete::shape(&f)?;
    if shape.is_leaf() || shape.rank() != 2 {
        return Err(DrawError::invalid(format!(
            "a thread-value layout has rank 2, (threads, values); {f} has the shape {shape}"
        )));
    }
    let modes = shape.modes();
    let sizes: Vec<i64> = modes
        .iter()
        .map(|m| concrete::leaves(m).map(|l| l.iter().try_fold(1i64, |a, &x| a.checked_mul(x))))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .map(|s| s.unwrap_or(i64::MAX))
        .collect();
    let (threads, values) = (sizes[0], sizes[1]);
    let shown = title(f.to_string());
    let count = threads.checked_mul(values);
    if count.is_none_or(|c| c > MAX_ACCESSES as i64) {
        return Err(DrawError::TooLarge {
            what: shown,
            count: count.map_or("more than 2^63".into(), |c| c.to_string()),
            unit: "(thread, value) accesses",
            max: MAX_ACCESSES,
        });
    }
    let count = count.unwrap_or(0);
    let vals: Vec<Value<i64>> = (0..count)
        .map(|i| eval_at(&f, &Value::Int(i)))
        .collect::<Result<_, _>>()?;
    let tile = match tile {
        Some(Value::Layout(_) | Value::Composed(_)) => {
            return Err(DrawError::invalid(
                "the tile is a shape (M,N), which the offsets fold into column-major; not a layout",
            ));
        }
        Some(t) => Some(concrete::value(t).and_then(|v| concrete::shape(&v))?),
        None => None,
    };
    let tile = tile_shape(tile.as_ref(), &vals)?;
    let grid = Grid::of(&tile, &format!("the tile {tile}"))?;
    let (m, n) = (grid.rows as i64, grid.cols as i64);
    let mut pic = grid.picture(title(format!("{shown} over the {m} x {n} tile")));
    let mut taken = vec![false; grid.cells()];
    let mut repeated = 0usize;
    for (i, v) in vals.iter().enumerate() {
        let i = i as i64;
        let (t, val) = (i % threads, i / threads);
        let (r, c) = cell_of(v, m, n).map_err(|why| DrawError::invalid(format!("T{t}V{val}: {why}")))?;
        let k = r as usize * grid.cols + c as usize;
        // As CuTe's pictures, one (thread, value) per cell: the first stays, repeats are
        // counted in the legend.
        if taken[k] {
            repeated += 1;
            continue;
        }
        taken[k] = true;
        pic.cells[k] = Cell::new(format!("T{t}V{val}"), color.of_thread_value(t, val, r + m * c));
    }
    let empty = taken.iter().filter(|x| !**x).count();
    pic.legend.push(Legend::text(format!(
        "{threads} threads x {values} values; cell (m,n) shows the thread T and value V that reach it"
    )));
    if empty > 0 {
        pic.legend.push(Legend::text(format!(
            "{empty} cells reached by no (thread, value): white, no text"
        )));
    }
    if repeated > 0 {
        pic.legend.push(Legend::text(format!(
            "{repeated} (thread, value) pairs reach a cell an earlier pair reached: each cell shows the first"
        )));
    }
    Ok(pic)
}
