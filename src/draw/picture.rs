//! The picture: a grid of cells with their texts, colours and outlines, the index labels of its
//! rows and columns, the rules between sub-mode blocks, and a legend. The writers
//! ([`Picture::svg`], [`Picture::tex`], [`Picture::png`], [`Picture::html`]) only lay it out.

use super::color::Rgb;
use std::ops::Range;
use tessera_verifier::PhaseCost;

/// How a cell is outlined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Outline {
    /// The plain grid line.
    #[default]
    None,
    /// A word of a bank that holds several distinct words in one phase (a bank conflict).
    Conflict,
    /// A cell of a thread the caller asked to emphasise (a refutation's conflicting threads).
    Highlight,
}

/// An access of a bank picture's cell: thread `thread` reads its value `value` in the phase
/// [`Picture::phases`]`[phase]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Read {
    /// Index into [`Picture::phases`].
    pub phase: usize,
    /// The thread.
    pub thread: i64,
    /// The thread's value index.
    pub value: i64,
}

/// What a bank picture knows of a cell: the element's offset, the 4-byte words it spans and
/// the accesses that read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BankCell {
    /// The element offset (the shared-memory layout's value at the cell).
    pub offset: i64,
    /// The 4-byte words the element's bytes fall in (bank: `word % 32`).
    pub words: Range<i64>,
    /// The accesses that read the element, by phase.
    pub reads: Vec<Read>,
}

/// One cell of the grid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    /// The text in the cell (an offset, a coordinate, `T3V1`), possibly empty.
    pub text: String,
    /// The fill colour.
    pub fill: Rgb,
    /// The outline.
    pub outline: Outline,
    /// The bank data of a bank picture's cell.
    pub bank: Option<BankCell>,
    /// Outside every grid of the picture (the labels and gaps between the A, B and C grids of
    /// an MMA picture): no fill and no grid line, only its text.
    pub blank: bool,
}

impl Cell {
    /// A cell with a text and a fill, no outline and no bank data.
    pub fn new(text: String, fill: Rgb) -> Cell {
        Cell {
            text,
            fill,
            outline: Outline::None,
            bank: None,
            blank: false,
        }
    }
}

/// A rule across the grid before row (or column) `at`, thicker than the grid lines: the
/// boundary of a block of sub-modes; `weight` 1 is the innermost sub-mode's block, larger
/// weights enclose more sub-modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The row (or column) the rule comes before.
    pub at: usize,
    /// How many sub-modes the blocks it separates span (1 or more).
    pub weight: u8,
}

/// A line of the legend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Legend {
    /// A colour sample before the text.
    pub swatch: Option<Rgb>,
    /// The outline of the sample (what an outline means).
    pub outline: Outline,
    /// The text.
    pub text: String,
}

impl Legend {
    /// A legend line of text alone.
    pub fn text(text: impl Into<String>) -> Legend {
        Legend {
            swatch: None,
            outline: Outline::None,
            text: text.into(),
        }
    }
}

/// A drawn layout: a `rows` by `cols` grid of [`Cell`]s in row-major order, as CuTe's
/// `print_layout` lays it out (mode 0 down the rows, mode 1 across the columns).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picture {
    /// The title (what was drawn).
    pub title: String,
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// The cells, row by row: cell `(r, c)` is `cells[r * cols + c]`.
    pub cells: Vec<Cell>,
    /// The label of each row (its index).
    pub row_labels: Vec<String>,
    /// The label of each column (its index).
    pub col_labels: Vec<String>,
    /// Rules between blocks of rows (sub-modes of mode 0).
    pub row_rules: Vec<Rule>,
    /// Rules between blocks of columns (sub-modes of mode 1, or of the folded modes).
    pub col_rules: Vec<Rule>,
    /// The legend, one line each.
    pub legend: Vec<Legend>,
    /// A bank picture's phases as the verifier computed them (empty otherwise).
    pub phases: Vec<PhaseCost>,
}

impl Picture {
    /// The cell at row `r`, column `c`.
    pub fn cell(&self, r: usize, c: usize) -> Option<&Cell> {
        if r < self.rows && c < self.cols {
            self.cells.get(r * self.cols + c)
        } else {
            None
        }
    }

    /// Whether some cell lies outside every grid ([`Cell::blank`]).
    pub(crate) fn has_blank(&self) -> bool {
        self.cells.iter().any(|c| c.blank)
    }

    /// The longest cell text, in characters (at least 1).
    pub(crate) fn widest_text(&self) -> usize {
        self.cells
            .iter()
            .map(|c| c.text.chars().count())
            .max()
            .unwrap_or(1)
            .max(1)
    }
}

/// The rules of a mode of shape `leaves` (its flattened extents): one before each block of
/// the first `k` sub-modes, weight `k`, for every `k` from 1 to all but the last; the heavier
/// weight wins where two blocks end together.
pub(crate) fn rules(leaves: &[i64], extent: usize) -> Vec<Rule> {
    let mut weight = vec![0u8; extent];
    let mut block: i64 = 1;
    for (k, &s) in leaves.iter().enumerate().take(leaves.len().saturating_sub(1)) {
        block = match block.checked_mul(s) {
            Some(b) => b,
            None => break,
        };
        let Ok(step) = usize::try_from(block) else { break };
        if step <= 1 || step >= extent {
            continue;
        }
        let w = u8::try_from(k + 1).unwrap_or(u8::MAX);
        for at in (step..extent).step_by(step) {
            weight[at] = weight[at].max(w);
        }
    }
    weight
        .iter()
        .enumerate()
        .filter(|(_, w)| **w > 0)
        .map(|(at, &weight)| Rule { at, weight })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_mark_sub_mode_blocks() {
        // ((2,2),3): blocks of 2 (weight 1) and 4 (weight 2) in 12.
        let r = rules(&[2, 2, 3], 12);
        let at: Vec<(usize, u8)> = r.iter().map(|r| (r.at, r.weight)).collect();
        assert_eq!(at, [(2, 1), (4, 2), (6, 1), (8, 2), (10, 1)]);
        assert!(rules(&[8], 8).is_empty(), "a leaf mode has no inner rules");
        assert!(
            rules(&[1, 8], 8).is_empty(),
            "an extent-1 sub-mode makes no blocks"
        );
        assert_eq!(rules(&[4, 1, 2], 8).len(), 1);
    }
}
