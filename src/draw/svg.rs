//! The SVG of a picture (self-contained: no scripts, styles or fonts from elsewhere), and the
//! HTML page around it.
//!
//! Cells are drawn in row-major order: their fills (`<rect>`), the grid and the sub-mode rules
//! (`<line>`, thicker for blocks of more sub-modes), the outlines, then one `<text
//! class="cell">` per cell with a text.

use super::color::Rgb;
use super::picture::{Outline, Picture};
use std::fmt::Write;

/// Width of a character of the 12px monospace font, in pixels (a little over DejaVu Sans
/// Mono's 0.602 em).
const CHAR_W: f64 = 7.3;
/// Height of a cell.
const CELL_H: usize = 22;
/// Height of a legend line.
const LINE_H: usize = 18;
/// The margin around everything.
const PAD: usize = 8;
/// Where the grid starts below the top: the title, then the column labels.
const GRID_TOP: usize = 48;
/// The colour of conflict outlines.
pub(crate) const CONFLICT: Rgb = Rgb(0xd7, 0x19, 0x1c);
/// The colour of highlight outlines.
pub(crate) const HIGHLIGHT: Rgb = Rgb(0, 0, 0);

/// Pixels for `n` characters.
fn chars_w(n: usize) -> usize {
    (n as f64 * CHAR_W).ceil() as usize
}

/// Text with the XML special characters escaped.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters are not allowed in XML 1.0.
            c if (c as u32) < 0x20 && c != '\t' && c != '\n' && c != '\r' => out.push('?'),
            c => out.push(c),
        }
    }
    out
}

/// The pixel geometry of a picture.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Geometry {
    /// Width of a cell.
    pub cell_w: usize,
    /// Left edge of the grid.
    pub left: usize,
    /// Top edge of the grid.
    pub top: usize,
    /// Top of the legend.
    pub legend_top: usize,
    /// Width of the whole picture.
    pub width: usize,
    /// Height of the whole picture.
    pub height: usize,
}

impl Geometry {
    /// The geometry of `p`.
    pub fn of(p: &Picture) -> Geometry {
        let cell_w = (chars_w(p.widest_text()) + 10).max(24);
        let label = p.row_labels.iter().map(|l| l.chars().count()).max().unwrap_or(1);
        let left = PAD + chars_w(label) + 8;
        let top = GRID_TOP;
        let grid_w = cell_w * p.cols;
        let legend_top = top + CELL_H * p.rows + 16;
        let legend_w = p
            .legend
            .iter()
            .map(|l| chars_w(l.text.chars().count()) + 24)
            .max()
            .unwrap_or(0);
        let title_w = chars_w(p.title.chars().count());
        let width = (left + grid_w).max(PAD + legend_w).max(PAD + title_w) + PAD;
        let height = legend_top + LINE_H * p.legend.len() + PAD;
        Geometry {
            cell_w,
            left,
            top,
            legend_top,
            width,
            height,
        }
    }

    /// Left edge of column `c`.
    pub fn x(&self, c: usize) -> usize {
        self.left + self.cell_w * c
    }

    /// Top edge of row `r`.
    pub fn y(&self, r: usize) -> usize {
        self.top + CELL_H * r
    }
}

/// Stroke width of a rule of `weight`.
fn rule_width(weight: u8) -> f64 {
    (0.5 + f64::from(weight)).min(4.0)
}

impl Picture {
    /// The picture as a self-contained SVG document.
    ///
    /// ```
    /// use tessera::draw::{layout, Color};
    /// use tessera::lang::Session;
    /// let l = Session::default().value("(2,3):(3,1)").unwrap();
    /// let svg = layout(&l, Color::Index).unwrap().svg();
    /// assert!(svg.starts_with("<?xml") && svg.contains(">5</text>"));
    /// ```
    pub fn svg(&self) -> String {
        let g = Geometry::of(self);
        let mut s = String::with_capacity(200 + self.cells.len() * 110);
        let _ = self.write_svg(&mut s, &g);
        s
    }

    fn write_svg(&self, s: &mut String, g: &Geometry) -> std::fmt::Result {
        let (w, h) = (g.width, g.height);
        writeln!(s, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
        writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans Mono, monospace" font-size="12">"#
        )?;
        let title = escape(&self.title);
        writeln!(s, "<title>{title}</title>")?;
        writeln!(s, r##"<rect width="{w}" height="{h}" fill="#ffffff"/>"##)?;
        writeln!(s, r#"<text class="title" x="{PAD}" y="18">{title}</text>"#)?;
        // Index labels.
        writeln!(s, r##"<g class="labels" fill="#505050" text-anchor="middle">"##)?;
        for (c, l) in self.col_labels.iter().enumerate() {
            let x = g.x(c) + g.cell_w / 2;
            writeln!(s, r#"<text x="{x}" y="{}">{}</text>"#, g.top - 6, escape(l))?;
        }
        writeln!(s, "</g>")?;
        writeln!(s, r##"<g class="labels" fill="#505050" text-anchor="end">"##)?;
        for (r, l) in self.row_labels.iter().enumerate() {
            let y = g.y(r) + CELL_H / 2 + 4;
            writeln!(s, r#"<text x="{}" y="{y}">{}</text>"#, g.left - 6, escape(l))?;
        }
        writeln!(s, "</g>")?;
        // Fills, with the thin grid as their strokes.
        writeln!(s, r##"<g class="fills" stroke="#404040" stroke-width="0.5">"##)?;
        for (k, cell) in self.cells.iter().enumerate().filter(|(_, c)| !c.blank) {
            let (r, c) = (k / self.cols.max(1), k % self.cols.max(1));
            writeln!(
                s,
                r#"<rect x="{}" y="{}" width="{}" height="{CELL_H}" fill="{}"/>"#,
                g.x(c),
                g.y(r),
                g.cell_w,
                cell.fill
            )?;
        }
        writeln!(s, "</g>")?;
        // Sub-mode rules and the border.
        let (x0, x1) = (g.x(0), g.x(self.cols));
        let (y0, y1) = (g.y(0), g.y(self.rows));
        writeln!(s, r##"<g class="rules" stroke="#000000">"##)?;
        for rule in &self.row_rules {
            let y = g.y(rule.at);
            let sw = rule_width(rule.weight);
            writeln!(
                s,
                r#"<line x1="{x0}" y1="{y}" x2="{x1}" y2="{y}" stroke-width="{sw}"/>"#
            )?;
        }
        for rule in &self.col_rules {
            let x = g.x(rule.at);
            let sw = rule_width(rule.weight);
            writeln!(
                s,
                r#"<line x1="{x}" y1="{y0}" x2="{x}" y2="{y1}" stroke-width="{sw}"/>"#
            )?;
        }
        // A picture of several grids (blank cells between them) has no outer border.
        if !self.has_blank() {
            writeln!(
                s,
                r#"<rect x="{x0}" y="{y0}" width="{}" height="{}" fill="none" stroke-width="1.5"/>"#,
                x1 - x0,
                y1 - y0
            )?;
        }
        writeln!(s, "</g>")?;
        // Outlines.
        writeln!(s, r#"<g class="outlines" fill="none">"#)?;
        for (k, cell) in self.cells.iter().enumerate() {
            let (r, c) = (k / self.cols.max(1), k % self.cols.max(1));
            if let Some(style) = outline_style(cell.outline) {
                writeln!(
                    s,
                    r#"<rect x="{}" y="{}" width="{}" height="{}" {style}/>"#,
                    g.x(c) + 2,
                    g.y(r) + 2,
                    g.cell_w - 4,
                    CELL_H - 4
                )?;
            }
        }
        writeln!(s, "</g>")?;
        // Cell texts.
        writeln!(s, r#"<g class="texts" text-anchor="middle">"#)?;
        for (k, cell) in self.cells.iter().enumerate() {
            if cell.text.is_empty() {
                continue;
            }
            let (r, c) = (k / self.cols.max(1), k % self.cols.max(1));
            writeln!(
                s,
                r#"<text class="cell" x="{}" y="{}">{}</text>"#,
                g.x(c) + g.cell_w / 2,
                g.y(r) + CELL_H / 2 + 4,
                escape(&cell.text)
            )?;
        }
        writeln!(s, "</g>")?;
        // Legend.
        writeln!(s, r#"<g class="legend">"#)?;
        for (k, l) in self.legend.iter().enumerate() {
            let y = g.legend_top + LINE_H * k;
            let mut x = PAD;
            if l.swatch.is_some() || l.outline != Outline::None {
                let fill = l.swatch.unwrap_or(Rgb::WHITE);
                let style = outline_style(l.outline).unwrap_or(r##"stroke="#404040" stroke-width="0.5""##);
                writeln!(
                    s,
                    r#"<rect x="{x}" y="{}" width="14" height="14" fill="{fill}" {style}/>"#,
                    y
                )?;
                x += 20;
            }
            writeln!(s, r#"<text x="{x}" y="{}">{}</text>"#, y + 11, escape(&l.text))?;
        }
        writeln!(s, "</g>")?;
        writeln!(s, "</svg>")
    }

    /// The SVG in a minimal self-contained HTML page.
    ///
    /// ```
    /// use tessera::draw::{layout, Color};
    /// use tessera::lang::Session;
    /// let l = Session::default().value("(2,2):(1,2)").unwrap();
    /// let page = layout(&l, Color::Index).unwrap().html();
    /// assert!(page.starts_with("<!DOCTYPE html>") && page.contains("<svg"));
    /// ```
    pub fn html(&self) -> String {
        let svg = self.svg();
        let body = svg.split_once("?>\n").map_or(svg.as_str(), |(_, rest)| rest);
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n</head>\n<body>\n{body}</body>\n</html>\n",
            escape(&self.title)
        )
    }
}

/// The stroke attributes of an outline.
fn outline_style(o: Outline) -> Option<&'static str> {
    match o {
        Outline::None => None,
        Outline::Conflict => Some(r##"stroke="#d7191c" stroke-width="2""##),
        Outline::Highlight => Some(r##"stroke="#000000" stroke-width="4""##),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(escape("a<b>&\"c'\u{1}"), "a&lt;b&gt;&amp;&quot;c&apos;?");
        assert_eq!(CONFLICT.to_string(), "#d7191c");
        assert_eq!(HIGHLIGHT.to_string(), "#000000");
    }
}
