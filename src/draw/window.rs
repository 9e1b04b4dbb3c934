//! A window of a picture: the rows and columns of a range, with their labels (the indices of
//! the whole picture, so a cell keeps its coordinates), the rules inside the range, and a
//! legend line saying which part of the whole it shows. The report draws a window around a
//! counterexample instead of a picture wider than a screen.

use super::{Legend, Picture, Rule};
use std::ops::Range;

/// The range of `len` positions, `width` long at most, that holds the positions `marks` (or,
/// when they are further apart than `width`, the first of them), centred on them.
///
/// @pre `width >= 1`.
/// @post `end - start == min(width, len)` and `end <= len`.
///
/// ```
/// use tessera::draw::span;
/// assert_eq!(span(10, 32, &[3]), 0..10);
/// assert_eq!(span(100, 32, &[50, 52]), 36..68);
/// assert_eq!(span(100, 32, &[0, 99]), 0..32);
/// assert_eq!(span(100, 32, &[98]), 68..100);
/// ```
pub fn span(len: usize, width: usize, marks: &[usize]) -> Range<usize> {
    let width = width.max(1).min(len);
    let (lo, hi) = match (marks.iter().min(), marks.iter().max()) {
        (Some(&lo), Some(&hi)) if hi - lo < width => (lo, hi),
        (Some(_), _) => (marks[0], marks[0]),
        _ => (0, 0),
    };
    let slack = width - (hi - lo + 1).min(width);
    let start = lo.saturating_sub(slack / 2).min(len - width);
    start..start + width
}

impl Picture {
    /// The window of rows `rows` and columns `cols` of this picture (each clamped to the
    /// picture), with a legend line naming the window when it is not the whole picture.
    ///
    /// @post the window's cell `(r, c)` is this picture's `(rows.start + r, cols.start + c)`.
    ///
    /// ```
    /// use tessera::draw::{layout, Color};
    /// let v = tessera::lang::parse_value("(64,64):(64,1)").unwrap();
    /// let p = layout(&v, Color::Index).unwrap();
    /// let w = p.window(10..20, 30..62);
    /// assert_eq!((w.rows, w.cols), (10, 32));
    /// assert_eq!(w.cell(0, 0), p.cell(10, 30));
    /// assert_eq!(w.col_labels[0], p.col_labels[30]);
    /// assert!(w.legend.last().unwrap().text.contains("rows 10 to 19 and columns 30 to 61 of 64 x 64"));
    /// ```
    pub fn window(&self, rows: Range<usize>, cols: Range<usize>) -> Picture {
        let rows = rows.start.min(self.rows)..rows.end.min(self.rows);
        let cols = cols.start.min(self.cols)..cols.end.min(self.cols);
        let rows = rows.start..rows.end.max(rows.start);
        let cols = cols.start..cols.end.max(cols.start);
        let mut cells = Vec::with_capacity(rows.len() * cols.len());
        for r in rows.clone() {
            cells.extend_from_slice(&self.cells[r * self.cols + cols.start..r * self.cols + cols.end]);
        }
        let inside = |rules: &[Rule], range: &Range<usize>| -> Vec<Rule> {
            rules
                .iter()
                .filter(|r| r.at > range.start && r.at < range.end)
                .map(|r| Rule {
                    at: r.at - range.start,
                    weight: r.weight,
                })
                .collect()
        };
        let labels = |l: &[String], range: &Range<usize>| l.get(range.clone()).unwrap_or_default().to_vec();
        let mut legend = self.legend.clone();
        if rows.len() < self.rows || cols.len() < self.cols {
            legend.push(Legend::text(format!(
                "window: rows {} to {} and columns {} to {} of {} x {}",
                rows.start,
                rows.end.saturating_sub(1),
                cols.start,
                cols.end.saturating_sub(1),
                self.rows,
                self.cols
            )));
        }
        Picture {
            title: self.title.clone(),
            rows: rows.len(),
            cols: cols.len(),
            cells,
            row_labels: labels(&self.row_labels, &rows),
            col_labels: labels(&self.col_labels, &cols),
            row_rules: inside(&self.row_rules, &rows),
            col_rules: inside(&self.col_rules, &cols),
            legend,
            phases: self.phases.clone(),
        }
    }
}
