//! Assertions: property names and their arguments.

use super::parse::locate;
use crate::lang::{Env, Value, eval_expr};
use tessera_ir::Int;
use tessera_ir::sym::SymInt;
use tessera_ir::text::{Expr, ExprKind, parse_expr};
use tessera_verifier::bank::{Bank, Cmp};
use tessera_verifier::{Func, Property};

/// The property names, with their arguments.
pub const PROPERTIES: &[(&str, &str)] = &[
    ("injective", "L"),
    ("surjective", "L [, n]"),
    ("bijective", "L"),
    ("in_bounds", "L, n"),
    ("equal", "A, B"),
    ("compatible", "A, B"),
    ("left_inverse_valid", "L, R"),
    ("right_inverse_valid", "L, R"),
    ("complement_valid", "A, C [, n]"),
    ("composition_valid", "A, B, R"),
    ("contiguous", "L"),
    ("vectorizable", "L, v"),
    ("bank_conflict_free", "Smem, TV, elem=BYTES, access=BYTES"),
    (
        "conflict_degree",
        "Smem, TV, elem=BYTES, access=BYTES) == n  (or <=, <, >=, >",
    ),
];

type E = (usize, String);

/// Splits `text` at a top-level comparison: `(call, op, rhs, rhs offset)`.
fn split_cmp(text: &str) -> Option<(&str, Cmp, &str, usize)> {
    let b = text.as_bytes();
    let mut depth = 0i32;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'=' | b'<' | b'>' if depth == 0 => {
                let two = b.get(i + 1) == Some(&b'=');
                let op = match (b[i], two) {
                    (b'=', true) => Cmp::Eq,
                    (b'<', true) => Cmp::Le,
                    (b'>', true) => Cmp::Ge,
                    (b'<', false) => Cmp::Lt,
                    (b'>', false) => Cmp::Gt,
                    _ => return None,
                };
                let end = i + if two { 2 } else { 1 };
                return Some((&text[..i], op, &text[end..], end));
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Parses and evaluates the assertion `text` (starting at byte `off` of its line).
pub(super) fn property(text: &str, off: usize, env: &Env<SymInt>) -> Result<Property, E> {
    let (call, cmp) = match split_cmp(text) {
        Some((call, op, rhs, roff)) => {
            let n = rhs.trim().parse::<i64>().map_err(|_| {
                (
                    off + roff,
                    format!("expected an integer after the comparison, found '{}'", rhs.trim()),
                )
            })?;
            (call, Some((op, n)))
        }
        None => (text, None),
    };
    let e = parse_expr(call).map_err(|p| (off + p.col, p.msg))?;
    let ExprKind::Call(name, args) = &e.kind else {
        return Err((off, "expected a property, e.g. injective(L)".into()));
    };
    let (mut pos, mut kw): (Vec<&Expr>, Vec<(&str, &Expr)>) = (Vec::new(), Vec::new());
    for a in args {
        match &a.kind {
            ExprKind::Keyword(k, v) => kw.push((k.as_str(), v)),
            _ => pos.push(a),
        }
    }
    let ev = |x: &Expr| eval_expr(x, env, call).map_err(|err| locate(err, off));
    let func = |x: &Expr| -> Result<Func, E> {
        let v = ev(x)?;
        v.to_func()
            .map_err(|err| (off + x.col, format!("{}: {err}", name)))
    };
    let int = |x: &Expr| -> Result<SymInt, E> {
        match ev(x)? {
            Value::Int(v) => Ok(v),
            v => Err((off + x.col, format!("expected an integer, found {}", v.kind()))),
        }
    };
    let arity = |lo: usize, hi: usize| -> Result<(), E> {
        if pos.len() < lo || pos.len() > hi {
            let want = if lo == hi {
                lo.to_string()
            } else {
                format!("{lo} to {hi}")
            };
            return Err((
                off + e.col,
                format!(
                    "{name} takes {want} argument{}, got {}",
                    if hi == 1 { "" } else { "s" },
                    pos.len()
                ),
            ));
        }
        Ok(())
    };
    if cmp.is_some() && name != "conflict_degree" {
        return Err((
            off,
            format!("only conflict_degree(...) is compared with a number, not {name}"),
        ));
    }
    let is_bank = name == "bank_conflict_free" || name == "conflict_degree";
    if !is_bank && let Some((k, v)) = kw.first() {
        return Err((off + v.col, format!("{name} takes no keyword argument '{k}='")));
    }
    let p = match name.as_str() {
        "injective" => {
            arity(1, 1)?;
            Property::Injective(func(pos[0])?)
        }
        "surjective" => {
            arity(1, 2)?;
            Property::Surjective(func(pos[0])?, pos.get(1).map(|x| int(x)).transpose()?)
        }
        "bijective" => {
            arity(1, 1)?;
            Property::Bijective(func(pos[0])?)
        }
        "in_bounds" => {
            arity(2, 2)?;
            Property::InBounds(func(pos[0])?, int(pos[1])?)
        }
        "equal" => {
            arity(2, 2)?;
            Property::Equal(func(pos[0])?, func(pos[1])?)
        }
        "compatible" => {
            arity(2, 2)?;
            let shape = |x: &Expr| ev(x)?.to_shape().map_err(|err| (off + x.col, err.to_string()));
            Property::Compatible(shape(pos[0])?, shape(pos[1])?)
        }
        "left_inverse_valid" => {
            arity(2, 2)?;
            Property::LeftInverseValid(func(pos[0])?, func(pos[1])?)
        }
        "right_inverse_valid" => {
            arity(2, 2)?;
            Property::RightInverseValid(func(pos[0])?, func(pos[1])?)
        }
        "complement_valid" => {
            arity(2, 3)?;
            Property::ComplementValid(
                func(pos[0])?,
                func(pos[1])?,
                pos.get(2).map(|x| int(x)).transpose()?,
            )
        }
        "composition_valid" => {
            arity(3, 3)?;
            Property::CompositionValid(func(pos[0])?, func(pos[1])?, func(pos[2])?)
        }
        "contiguous" => {
            arity(1, 1)?;
            Property::Contiguous(func(pos[0])?)
        }
        "vectorizable" => {
            arity(2, 2)?;
            let v = int(pos[1])?.as_const().ok_or_else(|| {
                (
                    off + pos[1].col,
                    "the vector width must be a constant".to_string(),
                )
            })?;
            Property::Vectorizable(func(pos[0])?, v)
        }
        "bank_conflict_free" | "conflict_degree" => {
            arity(2, 2)?;
            let mut elem = 4;
            let mut access = None;
            for (k, v) in &kw {
                let n = int(v)?
                    .as_const()
                    .ok_or_else(|| (off + v.col, format!("{k} must be a constant")))?;
                match *k {
                    "elem" => elem = n,
                    "access" => access = Some(n),
                    other => {
                        return Err((
                            off + v.col,
                            format!("unknown keyword '{other}=' (elem=, access=)"),
                        ));
                    }
                }
            }
            let access = access.unwrap_or(elem);
            if ![1, 2, 4, 8, 16].contains(&access) || elem < 1 || access % elem != 0 {
                return Err((
                    off + e.col,
                    format!(
                        "{name}: access={access} must be 1, 2, 4, 8 or 16 bytes and a multiple of elem={elem}"
                    ),
                ));
            }
            let b = Bank {
                smem: func(pos[0])?,
                tv: func(pos[1])?,
                elem,
                access,
            };
            match (name.as_str(), cmp) {
                ("bank_conflict_free", _) => Property::BankConflictFree(b),
                (_, Some((op, n))) => Property::ConflictDegree(b, op, n),
                _ => return Err((off, "conflict_degree(...) needs a comparison, e.g. == 8".into())),
            }
        }
        other => {
            let names: Vec<&str> = PROPERTIES.iter().map(|p| p.0).collect();
            return Err((
                off + e.col,
                format!("unknown property '{other}' (one of: {})", names.join(", ")),
            ));
        }
    };
    Ok(p)
}
