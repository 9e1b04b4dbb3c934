//! `tessera lower`: index arithmetic of a layout, printed one let-binding per line; and the
//! lowering every index command shares (`lower`, `simplify`, `emit`): the expression, its
//! domain (the index range, the coordinate box, the parameters' facts) and a header naming it.

use crate::lang::{Session, Value};
use tessera_ir::index::{IndexExpr, Var, lower_composed, lower_coords, lower_index, lower_sym, parse_index};
use tessera_ir::simplify::Domain;
use tessera_ir::sym::{Facts, Interval, SymInt};
use tessera_ir::{Error, Int, Result};

/// A lowered expression with its domain.
#[derive(Clone, Debug)]
pub struct Lowered {
    /// What was lowered, at what input (`(4,8):(8,1) at linear index i`).
    pub what: String,
    /// The index expression.
    pub expr: IndexExpr,
    /// The ranges and divisors of its inputs.
    pub domain: Domain,
    /// What the domain leaves unsaid (`i < 4*M`, when a symbolic size is bounded by its
    /// largest value).
    pub notes: Vec<String>,
}

/// `0 <= v < extent`.
fn below(facts: &Facts, extent: &SymInt) -> Interval {
    Interval::new(Some(0), facts.range(extent).hi().map(|h| h - 1))
}

/// `NAME=LO..HI`: the range of an input of an index expression.
fn parse_range(s: &str) -> Result<(Var, Interval)> {
    let bad = || Error::invalid(format!("'{s}' is not a range NAME=LO..HI (e.g. i=0..511)"));
    let (name, r) = s.split_once('=').ok_or_else(bad)?;
    let (lo, hi) = r.split_once("..").ok_or_else(bad)?;
    let num = |x: &str| x.trim().parse::<i64>().map_err(|_| bad());
    let (lo, hi) = (num(lo)?, num(hi)?);
    if lo > hi {
        return Err(Error::invalid(format!("the range {s} is empty")));
    }
    let e = parse_index(name.trim())?;
    let v = e.inputs().into_iter().next().ok_or_else(bad)?;
    Ok((v, Interval::new(Some(lo.into()), Some(hi.into()))))
}

/// Lowers the value of `src` (a layout, a swizzled layout, a symbolic integer, or an index
/// expression over `i`, `c0`, ... and parameters, whose inputs `ranges` bound as `NAME=LO..HI`)
/// with the domain of its inputs.
///
/// ```
/// use tessera::lang::Session;
/// use tessera::lower::lower_value;
/// let s = Session::new(&[], &[]).unwrap();
/// let l = lower_value(&s, "(4,8):(8,1)", false, &[]).unwrap();
/// assert_eq!(l.what, "(4,8):(8,1) at linear index i, 0 <= i <= 31");
/// assert!(lower_value(&s, "i % 4 +", false, &[]).is_err());
/// ```
pub fn lower_value(session: &Session, src: &str, coords: bool, ranges: &[String]) -> Result<Lowered> {
    let facts = session.facts();
    let mut domain = Domain::default();
    let mut notes = Vec::new();
    let mut size_note = |size: &SymInt| {
        if size.as_const().is_none() {
            notes.push(format!(
                "i < {size} (the size; the bound above is its largest value)"
            ));
        }
    };
    let show = |r: Interval| match (r.lo(), r.hi()) {
        (Some(l), Some(h)) => format!("{l} <= {{}} <= {h}"),
        (Some(l), None) => format!("{l} <= {{}}"),
        _ => "{}".to_string(),
    };
    let (what, expr) = match session.value(src) {
        Ok(Value::Layout(l)) if coords => {
            let mut box_ = Vec::new();
            for (k, s) in l.flat_shape().iter().enumerate() {
                let r = below(facts, s);
                domain.interval(Var::Coord(k as u32), r);
                box_.push(show(r).replace("{}", &format!("c{k}")));
            }
            (
                format!("{l} at flat coordinates, {}", box_.join(", ")),
                lower_coords(&l)?,
            )
        }
        Ok(Value::Layout(l)) => {
            let size = l.size()?;
            size_note(&size);
            let r = below(facts, &size);
            domain.interval(Var::Index, r);
            let at = show(r).replace("{}", "i");
            (format!("{l} at linear index i, {at}"), lower_index(&l)?)
        }
        Ok(Value::Composed(c)) if !coords => {
            let size = c.inner.size()?;
            size_note(&size);
            let r = below(facts, &size);
            domain.interval(Var::Index, r);
            let at = show(r).replace("{}", "i");
            (format!("{c} at linear index i, {at}"), lower_composed(&c)?)
        }
        Ok(Value::Int(s)) => (format!("{s}"), lower_sym(&s)?),
        Ok(v) => return Err(Error::invalid(format!("cannot lower {} ({v})", v.kind()))),
        // Not a value of the language: an index expression, when it reads as one.
        Err(e) => {
            let expr = match parse_index(src) {
                Ok(x) => x,
                Err(_) if src.contains([':', '<', '@']) => return Err(e),
                Err(x) => return Err(x),
            };
            let inputs = expr.inputs();
            for r in ranges {
                let (v, i) = parse_range(r)?;
                if !inputs.contains(&v) {
                    return Err(Error::invalid(format!(
                        "--range {r}: the expression does not read {v}"
                    )));
                }
                domain.interval(v, i);
            }
            if let Some(v) = inputs
                .iter()
                .find(|v| !matches!(v, Var::Param(_)) && !domain.ranges().contains_key(v))
            {
                return Err(Error::invalid(format!(
                    "{v} has no range: give --range {v}=LO..HI"
                )));
            }
            (src.to_string(), expr)
        }
    };
    for v in expr.inputs() {
        let Var::Param(n) = &v else { continue };
        let f = facts.get(n).ok_or_else(|| {
            Error::invalid(format!(
                "{n} is not a declared parameter (declare it with --param)"
            ))
        })?;
        // The simplifier's domain knows divisibility only: the divisor the congruence
        // implies (`N % 4 == 2`: even; `N % 4 == 1`: nothing).
        let m = f.divisor();
        domain.interval(v.clone(), f.interval());
        if m > 1 {
            domain.modulus(v, m);
        }
    }
    Ok(Lowered {
        what,
        expr,
        domain,
        notes,
    })
}

/// Lowers the value of `src` and renders it with a header naming what was lowered.
pub fn lower_text(session: &Session, src: &str, coords: bool) -> Result<String> {
    let l = lower_value(session, src, coords, &[])?;
    let st = l.expr.stats();
    Ok(format!(
        "# {}: {} operations, {} div/mod\n{}",
        l.what, st.ops, st.div_mod, l.expr
    ))
}
