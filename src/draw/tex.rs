//! The picture as a standalone LaTeX document drawing with TikZ (as CuTe's `print_latex` and
//! PyCuTe's `draw_latex` do): `pdflatex` makes a cropped PDF of it.

use super::color::Rgb;
use super::picture::{Outline, Picture};
use super::svg::{CONFLICT, HIGHLIGHT};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Text with TeX's special characters escaped; characters outside ASCII become `?` (the
/// ellipsis of a cut title `\dots`), so that plain `pdflatex` reads it.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\textbackslash{}"),
            '{' | '}' | '#' | '$' | '%' | '&' | '_' => {
                out.push('\\');
                out.push(ch);
            }
            '^' => out.push_str("\\textasciicircum{}"),
            '~' => out.push_str("\\textasciitilde{}"),
            '<' => out.push_str("\\textless{}"),
            '>' => out.push_str("\\textgreater{}"),
            '…' => out.push_str("\\dots{}"),
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            _ => out.push('?'),
        }
    }
    out
}

impl Picture {
    /// The picture as a standalone TikZ document (compile it with `pdflatex`).
    ///
    /// ```
    /// use tessera::draw::{layout, Color};
    /// use tessera::lang::Session;
    /// let l = Session::default().value("(2,3):(3,1)").unwrap();
    /// let tex = layout(&l, Color::Index).unwrap().tex();
    /// assert!(tex.starts_with("\\documentclass") && tex.contains("{5};"));
    /// ```
    pub fn tex(&self) -> String {
        let mut s = String::with_capacity(300 + self.cells.len() * 90);
        let _ = self.write_tex(&mut s);
        s
    }

    fn write_tex(&self, s: &mut String) -> std::fmt::Result {
        // One unit across is a cell's width (its widest text), one unit down a cell's height.
        let w = (0.17 * self.widest_text() as f64 + 0.25).max(0.6);
        let mut names: BTreeMap<Rgb, usize> = BTreeMap::new();
        for c in &self.cells {
            let n = names.len();
            names.entry(c.fill).or_insert(n);
        }
        writeln!(s, "\\documentclass[border=4pt]{{standalone}}")?;
        writeln!(s, "\\usepackage{{tikz}}")?;
        writeln!(s, "\\begin{{document}}")?;
        writeln!(
            s,
            "\\begin{{tikzpicture}}[x={w:.2}cm, y=-0.5cm, every node/.style={{font=\\ttfamily\\scriptsize, inner sep=1pt}}]"
        )?;
        for (rgb, n) in &names {
            writeln!(s, "\\definecolor{{c{n}}}{{RGB}}{{{},{},{}}}", rgb.0, rgb.1, rgb.2)?;
        }
        for (name, rgb) in [("conflict", CONFLICT), ("highlight", HIGHLIGHT)] {
            writeln!(
                s,
                "\\definecolor{{{name}}}{{RGB}}{{{},{},{}}}",
                rgb.0, rgb.1, rgb.2
            )?;
        }
        writeln!(
            s,
            "\\node[anchor=south west, font=\\ttfamily\\small] at (0,-1.6) {{{}}};",
            escape(&self.title)
        )?;
        let blank = self.has_blank();
        for (k, cell) in self.cells.iter().enumerate().filter(|(_, c)| !c.blank) {
            let (r, c) = (k / self.cols.max(1), k % self.cols.max(1));
            let n = names.get(&cell.fill).copied().unwrap_or(0);
            writeln!(s, "\\fill[c{n}] ({c},{r}) rectangle ({},{});", c + 1, r + 1)?;
            if blank {
                // Several grids: each cell draws its own border.
                writeln!(
                    s,
                    "\\draw[black!70, line width=0.2pt] ({c},{r}) rectangle ({},{});",
                    c + 1,
                    r + 1
                )?;
            }
        }
        let (rows, cols) = (self.rows, self.cols);
        for r in (0..=rows).filter(|_| !blank) {
            writeln!(s, "\\draw[black!70, line width=0.2pt] (0,{r}) -- ({cols},{r});")?;
        }
        for c in (0..=cols).filter(|_| !blank) {
            writeln!(s, "\\draw[black!70, line width=0.2pt] ({c},0) -- ({c},{rows});")?;
        }
        for rule in &self.row_rules {
            let lw = 0.4 + 0.6 * f64::from(rule.weight);
            writeln!(
                s,
                "\\draw[line width={lw:.1}pt] (0,{0}) -- ({cols},{0});",
                rule.at
            )?;
        }
        for rule in &self.col_rules {
            let lw = 0.4 + 0.6 * f64::from(rule.weight);
            writeln!(
                s,
                "\\draw[line width={lw:.1}pt] ({0},0) -- ({0},{rows});",
                rule.at
            )?;
        }
        if !blank {
            writeln!(s, "\\draw[line width=0.8pt] (0,0) rectangle ({cols},{rows});")?;
        }
        for (k, cell) in self.cells.iter().enumerate() {
            let (r, c) = (k / self.cols.max(1), k % self.cols.max(1));
            let style = match cell.outline {
                Outline::None => None,
                Outline::Conflict => Some("conflict, line width=1pt"),
                Outline::Highlight => Some("highlight, line width=2pt"),
            };
            if let Some(style) = style {
                writeln!(
                    s,
                    "\\draw[{style}] ({:.2},{:.2}) rectangle ({:.2},{:.2});",
                    c as f64 + 0.08,
                    r as f64 + 0.12,
                    c as f64 + 0.92,
                    r as f64 + 0.88
                )?;
            }
            if !cell.text.is_empty() {
                writeln!(s, "\\node at ({c}.5,{r}.5) {{{}}};", escape(&cell.text))?;
            }
        }
        for (c, l) in self.col_labels.iter().enumerate() {
            writeln!(s, "\\node[gray] at ({c}.5,-0.5) {{{}}};", escape(l))?;
        }
        for (r, l) in self.row_labels.iter().enumerate() {
            writeln!(s, "\\node[gray, anchor=east] at (-0.1,{r}.5) {{{}}};", escape(l))?;
        }
        for (k, l) in self.legend.iter().enumerate() {
            writeln!(
                s,
                "\\node[anchor=west] at (0,{}) {{{}}};",
                rows + 1 + k,
                escape(&l.text)
            )?;
        }
        writeln!(s, "\\end{{tikzpicture}}")?;
        writeln!(s, "\\end{{document}}")
    }
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes() {
        assert_eq!(
            escape(r"a_b{c}#$%&^~\<>…é"),
            r"a\_b\{c\}\#\$\%\&\textasciicircum{}\textasciitilde{}\textbackslash{}\textless{}\textgreater{}\dots{}?"
        );
    }
}
