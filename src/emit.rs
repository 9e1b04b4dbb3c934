//! `tessera emit`: the index function of a layout as C, CUDA, Rust or PTX text.
//!
//! [`lowered`] evaluates the expression, lowers it exactly as `tessera lower` does, and gives the
//! domain the function is emitted for: the index `i` in `[0, size - 1]` (for a symbolic size,
//! up to the largest size its parameters' facts admit), each coordinate `c_k` in
//! `[0, shape_k - 1]`, each parameter within its facts (bounds and modulus). [`emit_text`]
//! turns that into a [`Signature`] and emits it; a simplification of the expression belongs
//! between the two, on [`Lowered::expr`], with its validation recorded in [`Lowered::notes`].

use crate::lang::{Session, Value};
use std::collections::HashMap;
use tessera_codegen::{EmitError, Lang, Signature, emit};
use tessera_ir::index::{IndexExpr, Var, lower_composed, lower_coords, lower_index, lower_sym};
use tessera_ir::sym::{Interval, SymInt};

/// Why `tessera emit` failed.
#[derive(Debug, thiserror::Error)]
pub enum EmitTextError {
    /// Evaluating or lowering the expression failed.
    #[error("{0}")]
    Lower(#[from] tessera_ir::Error),
    /// The code generator refused the function.
    #[error("{0}")]
    Emit(#[from] EmitError),
}

impl EmitTextError {
    /// The exit code (see [`crate::exit`]): an internal error of the lowering is
    /// [`crate::exit::INTERNAL`], anything else bad input.
    ///
    /// ```
    /// use tessera::lang::Session;
    /// use tessera_codegen::Lang;
    /// let s = Session::new(&[], &[]).unwrap();
    /// let e = tessera::emit::emit_text(&s, "4:1", Lang::C, "int", false).unwrap_err();
    /// assert_eq!(e.exit_code(), tessera::exit::BAD_INPUT);
    /// ```
    pub fn exit_code(&self) -> i32 {
        match self {
            EmitTextError::Lower(e) => crate::exit::of(e),
            EmitTextError::Emit(_) => crate::exit::BAD_INPUT,
        }
    }
}

/// A lowered expression and the domain to emit it for.
#[derive(Clone, Debug)]
pub struct Lowered {
    /// What was lowered, e.g. `(4,8):(8,1) at linear index i`.
    pub what: String,
    /// The index expression.
    pub expr: IndexExpr,
    /// The bounds of the inputs.
    pub ranges: HashMap<Var, Interval>,
    /// The moduli of the parameters (absent: 1).
    pub moduli: HashMap<Var, i64>,
    /// Comment lines for the emitted function.
    pub notes: Vec<String>,
}

/// `[0, n - 1]` for an extent `n` (symbolic: up to its largest admitted value).
fn below(session: &Session, n: &SymInt) -> Interval {
    let hi = session.facts().interval(n.poly()).hi();
    Interval::new(Some(0), hi.map(|h| h - 1))
}

/// Evaluates `src` in `session` and lowers it (a layout or swizzled layout at the index `i`, a
/// layout at its flat coordinates with `coords`, a symbolic integer), with the domain of its
/// inputs.
///
/// ```
/// use tessera::lang::Session;
/// use tessera::ir::index::Var;
/// use tessera::ir::sym::Interval;
/// let s = Session::new(&["M where M % 32 == 0, M <= 256"], &[]).unwrap();
/// let l = tessera::emit::lowered(&s, "(M,4):(1,M)", false).unwrap();
/// assert_eq!(l.ranges[&Var::Index], Interval::new(Some(0), Some(1023)));
/// assert_eq!(l.ranges[&Var::Param("M".into())], Interval::new(Some(32), Some(256)));
/// assert_eq!(l.moduli[&Var::Param("M".into())], 32);
/// ```
pub fn lowered(session: &Session, src: &str, coords: bool) -> Result<Lowered, tessera_ir::Error> {
    let v = session.value(src)?;
    let mut ranges = HashMap::new();
    let mut notes = Vec::new();
    let mut index_below = |size: SymInt, ranges: &mut HashMap<Var, Interval>| {
        if size.poly().as_const().is_none() {
            notes.push(format!(
                "i < {size} (the size; the bound above is its largest value)"
            ));
        }
        ranges.insert(Var::Index, below(session, &size));
    };
    let (what, expr) = match &v {
        Value::Layout(l) if coords => {
            for (k, s) in l.flat_shape().iter().enumerate() {
                ranges.insert(Var::Coord(k as u32), below(session, s));
            }
            (
                format!("{l} at flat coordinates c0..c{}", l.flat_shape().len() - 1),
                lower_coords(l)?,
            )
        }
        Value::Layout(l) => {
            index_below(l.size()?, &mut ranges);
            (format!("{l} at linear index i"), lower_index(l)?)
        }
        Value::Composed(c) if !coords => {
            index_below(c.inner.size()?, &mut ranges);
            (format!("{c} at linear index i"), lower_composed(c)?)
        }
        Value::Int(s) => (format!("{s}"), lower_sym(s)?),
        v => {
            return Err(tessera_ir::Error::invalid(format!(
                "cannot emit {} ({v}){}",
                v.kind(),
                if coords { " at coordinates" } else { "" }
            )));
        }
    };
    let mut moduli = HashMap::new();
    for var in expr.inputs() {
        if let Var::Param(n) = &var
            && let Some(f) = session.facts().get(n)
        {
            ranges.insert(var.clone(), f.interval());
            moduli.insert(var, f.modulus);
        }
    }
    notes.insert(0, format!("Lowered from {what}."));
    Ok(Lowered {
        what,
        expr,
        ranges,
        moduli,
        notes,
    })
}

/// The index function of `src` in `lang`, named `name`: [`lowered`], then
/// [`tessera_codegen::emit`] with the domain as its assumptions.
///
/// ```
/// use tessera::lang::Session;
/// use tessera_codegen::Lang;
/// let s = Session::new(&[], &[]).unwrap();
/// let c = tessera::emit::emit_text(&s, "(4,8):(8,1)", Lang::C, "offset_of", false).unwrap();
/// assert!(c.contains("static inline int64_t offset_of(int64_t i) {"));
/// assert!(c.contains("assert(0 <= i && i <= 31);"));
/// ```
pub fn emit_text(
    session: &Session,
    src: &str,
    lang: Lang,
    name: &str,
    coords: bool,
) -> Result<String, EmitTextError> {
    let l = lowered(session, src, coords)?;
    let mut sig = Signature::for_expr(&l.expr, name, &l.ranges, &l.moduli)?;
    sig.notes = l.notes;
    Ok(emit(&l.expr, lang, &sig)?)
}
