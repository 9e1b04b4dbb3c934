//! `tessera lower`: index arithmetic of a layout, printed one let-binding per line; and the
//! lowering every index command shares (`lower`, `simplify`, `emit`): the expression, its
//! domain (the index range, the coordinate box, the parameters' facts) and a header naming it.

use crate::lang::{Session, Value};
use std::collections::HashMap;
use tessera_ir::index::{
    IndexExpr, Node, NodeId, Var, lower_composed, lower_composed_coords, lower_coords, lower_index,
    lower_sym, parse_index, parse_index_with_columns,
};
use tessera_ir::simplify::Domain;
use tessera_ir::sym::{Facts, Interval, SymInt};
use tessera_ir::{Error, Int, ParseError, Result};

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

/// `0 <= v < extent`; an error when the extent can pass int64 (the index code and its
/// arguments are int64s), naming the extent and its largest value.
fn below(facts: &Facts, extent: &SymInt, what: &str) -> Result<Interval> {
    let hi = facts.range(extent).hi();
    if let Some(h) = hi
        && h - 1 > i128::from(i64::MAX)
    {
        return Err(Error::invalid(format!(
            "the {what} {extent} reaches {h} under the parameters' facts, past int64 (at most {}): bound the parameters so that it fits",
            i64::MAX
        )));
    }
    Ok(Interval::new(Some(0), hi.map(|h| h - 1)))
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
    // The operators' columns, for an index expression given as text.
    let mut columns: Option<HashMap<NodeId, usize>> = None;
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
                let r = below(facts, s, &format!("extent of mode {k}"))?;
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
            let r = below(facts, &size, "size")?;
            domain.interval(Var::Index, r);
            let at = show(r).replace("{}", "i");
            (format!("{l} at linear index i, {at}"), lower_index(&l)?)
        }
        Ok(Value::Composed(c)) if coords => {
            let mut box_ = Vec::new();
            for (k, s) in c.inner.flat_shape().iter().enumerate() {
                let r = below(facts, s, &format!("extent of mode {k}"))?;
                domain.interval(Var::Coord(k as u32), r);
                box_.push(show(r).replace("{}", &format!("c{k}")));
            }
            (
                format!("{c} at flat coordinates, {}", box_.join(", ")),
                lower_composed_coords(&c)?,
            )
        }
        Ok(Value::Composed(c)) => {
            let size = c.inner.size()?;
            size_note(&size);
            let r = below(facts, &size, "size")?;
            domain.interval(Var::Index, r);
            let at = show(r).replace("{}", "i");
            (format!("{c} at linear index i, {at}"), lower_composed(&c)?)
        }
        Ok(Value::Int(s)) => (format!("{s}"), lower_sym(&s)?),
        Ok(v) => return Err(Error::invalid(format!("cannot lower {} ({v})", v.kind()))),
        // Not a value of the language: an index expression, when it reads as one.
        Err(e) => {
            let expr = match parse_index_with_columns(src) {
                Ok((x, at)) => {
                    columns = Some(at);
                    x
                }
                Err(_) if src.contains([':', '<', '@']) => return Err(e),
                Err(x) => return Err(x),
            };
            let inputs = expr.inputs();
            // A range of an input the expression does not read is allowed (and unused).
            for r in ranges {
                let (v, i) = parse_range(r)?;
                if inputs.contains(&v) {
                    domain.interval(v, i);
                }
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
    if let Some(at) = &columns {
        overflow_everywhere(&expr, &domain, src, at)?;
    }
    Ok(Lowered {
        what,
        expr,
        domain,
        notes,
    })
}

/// An error, pointing at the operator, for an operation of an index expression that leaves
/// int64 at every point of the domain (`7 << 61`): no emitted code could compute it.
fn overflow_everywhere(e: &IndexExpr, domain: &Domain, src: &str, at: &HashMap<NodeId, usize>) -> Result<()> {
    let live = e.live();
    let iv = e.intervals(domain.ranges());
    let (min, max) = (i128::from(i64::MIN), i128::from(i64::MAX));
    for (k, n) in e.nodes().iter().enumerate() {
        let Node::Op(op, _) = n else { continue };
        let outside = iv[k].lo().is_some_and(|l| l > max) || iv[k].hi().is_some_and(|h| h < min);
        if !live[k] || !outside {
            continue;
        }
        let col = at.iter().find(|(n, _)| n.index() == k).map_or(0, |(_, c)| *c);
        let value = match (iv[k].lo(), iv[k].hi()) {
            (Some(l), Some(h)) if l == h => format!("its value is {l}"),
            (l, h) => format!(
                "its values lie in [{}, {}]",
                l.map_or("-inf".into(), |v| v.to_string()),
                h.map_or("inf".into(), |v| v.to_string())
            ),
        };
        return Err(Error::Parse(ParseError::new(
            format!(
                "integer overflow: this '{}' leaves int64 at every point of the domain ({value})",
                op.symbol()
            ),
            src,
            col,
        )));
    }
    Ok(())
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
