//! `tessera emit`: the index function of a layout as C, CUDA, Rust or PTX text.
//!
//! [`lowered`] evaluates the expression, lowers it exactly as `tessera lower` does, and gives the
//! domain the function is emitted for: the index `i` in `[0, size - 1]` (for a symbolic size,
//! up to the largest size its parameters' facts admit), each coordinate `c_k` in
//! `[0, shape_k - 1]`, each parameter within its facts (bounds, and the divisor its congruence implies). [`emit_text`]
//! simplifies the expression with egg, validates it (enumeration or z3; a failed or unknown
//! validation keeps the lowering), turns the domain into a [`Signature`] and emits it, the
//! costs and the validation in the function's comment.

use crate::lang::Session;
use crate::lower::lower_value;
use crate::simplify::{Request, simplify_value, validation_line};
use std::collections::HashMap;
use tessera_codegen::{EmitError, Lang, Signature, emit, fit_int64};
use tessera_ir::index::{IndexExpr, Var};
use tessera_ir::simplify::Domain;
use tessera_ir::sym::Interval;

/// The name of the emitted function when none is given: `tessera emit`'s `--name` default and
/// Python's `emit(name=...)` default (python/tests/test_api.py pins that one to this text).
///
/// ```
/// assert_eq!(tessera::emit::DEFAULT_NAME, "index_fn");
/// ```
pub const DEFAULT_NAME: &str = "index_fn";

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

/// Evaluates `src` in `session` and lowers it (a layout or swizzled layout at the index `i`, a
/// layout at its flat coordinates with `coords`, a symbolic integer), with the domain of its
/// inputs: [`crate::lower::lower_value`], in the form the code generator takes.
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
    let l = lower_value(session, src, coords, &[])?;
    Ok(from_lowering(l.what, l.expr, &l.domain, l.notes))
}

fn from_lowering(what: String, expr: IndexExpr, d: &Domain, mut notes: Vec<String>) -> Lowered {
    notes.insert(0, format!("Lowered from {what}."));
    Lowered {
        what,
        expr,
        ranges: d.ranges().clone(),
        moduli: d.moduli().clone(),
        notes,
    }
}

/// How `tessera emit` treats the lowered expression.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The simplifier's request (coordinates, ranges of an index expression, validation).
    pub request: Request,
    /// Emit the lowering as it is, without the simplifier (to compare).
    pub no_simplify: bool,
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
    let opts = Options {
        request: Request {
            coords,
            ..Request::default()
        },
        no_simplify: false,
    };
    emit_with(session, src, lang, name, &opts)
}

/// [`emit_text`] with all its options: the expression is simplified and validated (the
/// validation's outcome in the function's comment; a failed or unknown one keeps the
/// lowering), unless `no_simplify`.
pub fn emit_with(
    session: &Session,
    src: &str,
    lang: Lang,
    name: &str,
    opts: &Options,
) -> Result<String, EmitTextError> {
    let l = if opts.no_simplify {
        let l = lower_value(session, src, opts.request.coords, &opts.request.ranges)?;
        let mut low = from_lowering(l.what, l.expr, &l.domain, l.notes);
        let c = low.expr.cost();
        low.notes.push(format!(
            "Not simplified: {} operations, {} div/mod, weighted cost {}.",
            c.ops, c.div_mod, c.weighted
        ));
        low
    } else {
        let (l, v) = simplify_value(session, src, &opts.request)?;
        let mut low = from_lowering(l.what, v.expr.clone(), &l.domain, l.notes);
        let (b, a) = (v.before, v.after);
        low.notes.push(format!(
            "Simplified by egg: {} -> {} operations, {} -> {} div/mod, weighted cost {} -> {}.",
            b.ops, a.ops, b.div_mod, a.div_mod, b.weighted, a.weighted
        ));
        low.notes.push(capitalized(&validation_line(&v, false)));
        low
    };
    // Code that divides by 0 or shifts out of range somewhere is not emitted.
    l.expr.check_defined(&l.ranges)?;
    let mut sig = Signature::for_expr(&l.expr, name, &l.ranges, &l.moduli)?;
    // Every intermediate fits in int64 for every value the assumptions admit: bounds the facts
    // do not imply are added as assumptions, and said.
    let added = fit_int64(&l.expr, &mut sig)?;
    sig.notes = l.notes;
    sig.notes.extend(added);
    Ok(emit(&l.expr, lang, &sig)?)
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}
