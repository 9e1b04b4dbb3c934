//! The picture of a bank question: the shared-memory tile (its layout's domain, laid out as
//! a layout picture) with each element coloured by the bank of its first 4-byte word and
//! labelled with the thread and value that read it. The phases and their degrees are the
//! verifier's ([`tessera_verifier::phases`]); within each phase, the words of a bank that
//! holds more than one distinct word are outlined (the conflicting words), and the threads the
//! caller names get a heavy outline.

use super::DrawError;
use super::color::{Color, Rgb};
use super::grid::Grid;
use super::layout::title;
use super::picture::{BankCell, Cell, Legend, Outline, Picture, Read};
use super::tv::MAX_ACCESSES;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use tessera_verifier::{Bank, PhaseCost};

/// The most phases the legend lists one by one (the conflicting ones first).
const LEGEND_PHASES: usize = 32;

/// The constant value of a symbolic size.
fn size_of(f: &tessera_verifier::Func, what: &str) -> Result<i64, DrawError> {
    tessera_ir::Int::as_const(&f.size()?).ok_or_else(|| {
        DrawError::invalid(format!(
            "the {what} layout {f} has a symbolic size: bind every parameter (--bind M=256)"
        ))
    })
}

/// The legend line of a phase.
fn phase_text(p: &PhaseCost) -> String {
    let way = if p.degree == 1 {
        "1 wavefront, conflict-free".to_string()
    } else {
        format!("{}-way conflict", p.degree)
    };
    format!("access {}, threads {} to {}: {way}", p.access, p.first, p.end - 1)
}

/// Draws a bank question; `highlight` names threads to emphasise (a refutation's two
/// conflicting threads): see the module docs.
///
/// ```
/// use std::sync::Arc;
/// use tessera::draw::{banks, Outline};
/// use tessera::verifier::{analyze, Bank, Func};
/// let facts = Arc::new(tessera::ir::sym::Facts::default());
/// let f = |src: &str| Func::parse(src, &facts).unwrap();
/// // 32 threads read a column of a 32 x 32 tile of words: a 32-way conflict.
/// let b = Bank { smem: f("(32,32):(32,1)"), tv: f("(32,32):(1,32)"), elem: 4, access: 4 };
/// let c = analyze(&b).unwrap().conflict.unwrap();
/// let p = banks(&b, &[c.a.0, c.b.0]).unwrap();
/// assert_eq!(p.phases.iter().map(|p| p.degree).max(), Some(32));
/// assert_eq!(p.cell(0, 0).unwrap().text, "T0V0");
/// assert_eq!(p.cell(0, 0).unwrap().outline, Outline::Highlight);
/// // Every word read conflicts: no cell is outlined, the legend says so.
/// assert_eq!(p.cell(5, 0).unwrap().outline, Outline::None);
/// assert!(p.legend[1].text.contains("every word read is in a bank"));
/// ```
pub fn banks(bank: &Bank, highlight: &[i64]) -> Result<Picture, DrawError> {
    let none = HashMap::new();
    let threads_values = size_of(&bank.tv, "thread-value")?;
    if threads_values > MAX_ACCESSES as i64 {
        return Err(DrawError::TooLarge {
            what: title(bank.tv.to_string()),
            count: threads_values.to_string(),
            unit: "(thread, value) accesses",
            max: MAX_ACCESSES,
        });
    }
    let smem_shape = bank.smem.shape().try_map(super::concrete::konst)?;
    let shown = title(format!(
        "banks of {} read by {} (elem={}, access={})",
        bank.smem, bank.tv, bank.elem, bank.access
    ));
    let grid = Grid::of(&smem_shape, &title(bank.smem.to_string()))?;
    // The verifier validates the question (contiguous, aligned accesses) and costs each phase.
    let phases = tessera_verifier::phases(bank)?;
    let fronts = tessera_verifier::wavefronts(bank)?;
    let smem = bank.smem.at(&none)?;
    let tv = bank.tv.at(&none)?;
    let tv_shape = bank.tv.shape();
    let threads = super::concrete::leaves(&tv_shape.mode(0).unwrap_or_else(|| tv_shape.clone()))?
        .iter()
        .try_fold(1i64, |a, &x| a.checked_mul(x))
        .ok_or_else(overflow)?;
    let vpa = bank.access / bank.elem;
    let mut pic = grid.picture(shown);
    // Every element: its offset, its words, its bank colour.
    let mut cells: Vec<BankCell> = Vec::with_capacity(grid.cells());
    for i in 0..grid.cells() as i64 {
        let offset = smem.offset(i)?;
        let first = offset.checked_mul(bank.elem).ok_or_else(overflow)?;
        let last = first.checked_add(bank.elem - 1).ok_or_else(overflow)?;
        cells.push(BankCell {
            offset,
            words: first.div_euclid(4)..last.div_euclid(4) + 1,
            reads: Vec::new(),
        });
    }
    // Every access of every phase, at the cell of the element it reads.
    let mut outside = 0usize;
    for (p, cost) in phases.iter().enumerate() {
        for t in cost.first..cost.end {
            for v in cost.access * vpa..(cost.access + 1) * vpa {
                let li = tv.offset(t + threads * v)?;
                match usize::try_from(li).ok().and_then(|k| cells.get_mut(k)) {
                    Some(c) => c.reads.push(Read {
                        phase: p,
                        thread: t,
                        value: v,
                    }),
                    None => outside += 1,
                }
            }
        }
    }
    // The conflicting words of each phase: those of banks holding more than one word.
    let mut words: BTreeMap<(usize, i64), BTreeSet<i64>> = BTreeMap::new();
    for c in &cells {
        for r in &c.reads {
            for w in c.words.clone() {
                words.entry((r.phase, w.rem_euclid(32))).or_default().insert(w);
            }
        }
    }
    let conflicting =
        |phase: usize, w: i64| words.get(&(phase, w.rem_euclid(32))).is_some_and(|s| s.len() > 1);
    for (i, c) in cells.into_iter().enumerate() {
        let (r, col) = grid.cell_of(i);
        let text = c
            .reads
            .first()
            .map(|x| format!("T{}V{}", x.thread, x.value))
            .unwrap_or_default();
        let mut cell = Cell::new(text, Color::Bank32.of_offset(c.words.start).unwrap_or(Rgb::WHITE));
        if c.reads.iter().any(|x| highlight.contains(&x.thread)) {
            cell.outline = Outline::Highlight;
        } else if c
            .reads
            .iter()
            .any(|x| c.words.clone().any(|w| conflicting(x.phase, w)))
        {
            cell.outline = Outline::Conflict;
        }
        cell.bank = Some(c);
        pic.cells[r * grid.cols + col] = cell;
    }
    // When every word read conflicts, outlining every cell says nothing: the legend says it.
    let read: Vec<&Cell> = pic
        .cells
        .iter()
        .filter(|c| c.bank.as_ref().is_some_and(|b| !b.reads.is_empty()))
        .collect();
    let all_conflict = read.len() > 1
        && read
            .iter()
            .all(|c| c.outline == Outline::Conflict || c.outline == Outline::Highlight)
        && read.iter().any(|c| c.outline == Outline::Conflict);
    if all_conflict {
        for c in &mut pic.cells {
            if c.outline == Outline::Conflict {
                c.outline = Outline::None;
            }
        }
    }
    pic.legend = legend(bank, &phases, highlight, outside);
    if all_conflict && let Some(l) = pic.legend.get_mut(1) {
        l.outline = Outline::None;
        l.text = l.text.replace(
            "outlined: words of a bank that holds several distinct words in one phase",
            "every word read is in a bank that holds several distinct words in its phase (no cell outlined)",
        );
    }
    // Beside the worst phase's degree: what the hardware counts per warp instruction.
    pic.legend.insert(2, Legend::text(wavefront_text(&fronts)));
    pic.phases = phases;
    Ok(pic)
}

/// The legend line of the wavefronts: the worst warp instruction's and the total, each with
/// its ideal.
fn wavefront_text(w: &tessera_verifier::Wavefronts) -> String {
    format!(
        "wavefronts: {} (ideal {}) in the worst warp instruction (access {}, threads from {}); {} in all {} instructions (ideal {}, bank conflicts {})",
        w.worst,
        w.worst_ideal,
        w.access,
        w.warp,
        w.total,
        w.instructions,
        w.ideal,
        w.total - w.ideal
    )
}

fn overflow() -> DrawError {
    DrawError::Eval(tessera_ir::Error::Overflow("a byte address".into()))
}

/// The legend: what the picture shows, the worst degree, each phase's degree (the conflicting
/// phases first, at most [`LEGEND_PHASES`] lines), the highlighted threads.
fn legend(bank: &Bank, phases: &[PhaseCost], highlight: &[i64], outside: usize) -> Vec<Legend> {
    let worst = phases.iter().map(|p| p.degree).max().unwrap_or(1);
    let mut out = vec![
        Legend::text(format!(
            "cell: the element, T/V the thread and value reading it; colour: the bank (word % 32) of its first 4-byte word; {} phases of {} threads, {}-byte accesses of {}-byte elements",
            phases.len(),
            phases.first().map_or(0, |p| p.end - p.first),
            bank.access,
            bank.elem
        )),
        Legend {
            swatch: None,
            outline: Outline::Conflict,
            text: format!(
                "worst phase: {worst} wavefront{}{}; outlined: words of a bank that holds several distinct words in one phase",
                if worst == 1 { "" } else { "s" },
                if worst == 1 { " (conflict-free)" } else { "" }
            ),
        },
    ];
    let mut order: Vec<&PhaseCost> = phases.iter().collect();
    order.sort_by_key(|p| std::cmp::Reverse(p.degree > 1));
    for p in order.iter().take(LEGEND_PHASES) {
        out.push(Legend::text(phase_text(p)));
    }
    if phases.len() > LEGEND_PHASES {
        out.push(Legend::text(format!(
            "... and {} more phases (all in Picture::phases)",
            phases.len() - LEGEND_PHASES
        )));
    }
    if !highlight.is_empty() {
        let names: Vec<String> = highlight.iter().map(|t| format!("T{t}")).collect();
        out.push(Legend {
            swatch: None,
            outline: Outline::Highlight,
            text: format!("heavy outline: the elements of {}", names.join(" and ")),
        });
    }
    if outside > 0 {
        out.push(Legend::text(format!(
            "{outside} accesses read elements outside the shared-memory layout's domain (not drawn)"
        )));
    }
    out
}
