//! Type inference of kernel expressions: no implicit conversion between types.

use super::ast::{AccessDecl, Call, ExprDecl, ExprKind, Pos};
use super::error::{ErrorKind, KernelError};
use tessera_codegen::kernel::ElemType;

/// The type of an expression while it is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// A known element type.
    Known(ElemType),
    /// An integer literal (or an expression of them only): any type.
    AnyInt,
    /// A decimal literal (or an expression of them only): any float type.
    AnyFloat,
}

fn show(t: Ty) -> String {
    match t {
        Ty::Known(e) => e.name().to_string(),
        Ty::AnyInt => "an integer literal".to_string(),
        Ty::AnyFloat => "a decimal literal".to_string(),
    }
}

/// The type of two operands that must agree; an error at `pos` otherwise.
pub fn unify(a: Ty, b: Ty, pos: Pos) -> Result<Ty, KernelError> {
    let mismatch = |expected: Ty, found: Ty| {
        let hint = match (expected, found) {
            (Ty::Known(e), Ty::Known(_)) => format!(" (convert with {}(...))", e.name()),
            _ => String::new(),
        };
        Err(KernelError::new(
            pos,
            ErrorKind::TypeMismatch {
                expected: show(expected),
                found: show(found),
                hint,
            },
        ))
    };
    match (a, b) {
        (Ty::Known(x), Ty::Known(y)) if x == y => Ok(a),
        (Ty::Known(_), Ty::Known(_)) => mismatch(a, b),
        (Ty::Known(x), Ty::AnyFloat) | (Ty::AnyFloat, Ty::Known(x)) if !x.is_float() => {
            mismatch(Ty::Known(x), Ty::AnyFloat)
        }
        (Ty::Known(x), _) | (_, Ty::Known(x)) => Ok(Ty::Known(x)),
        (Ty::AnyFloat, _) | (_, Ty::AnyFloat) => Ok(Ty::AnyFloat),
        (Ty::AnyInt, Ty::AnyInt) => Ok(Ty::AnyInt),
    }
}

/// The type of `e`: `elem` gives a read tensor's element type, `is_index` says whether a bare
/// name is an index (an error either way: an index is not a value).
pub fn infer(
    e: &ExprDecl,
    elem: &dyn Fn(&AccessDecl) -> Option<ElemType>,
    is_index: &dyn Fn(&str) -> bool,
) -> Result<Ty, KernelError> {
    Ok(match &e.kind {
        ExprKind::Int(_) => Ty::AnyInt,
        ExprKind::Float(_) => Ty::AnyFloat,
        ExprKind::Name(n) if is_index(n) => {
            return Err(KernelError::new(e.pos, ErrorKind::IndexAsValue(n.clone())));
        }
        ExprKind::Name(n) => return Err(KernelError::new(e.pos, ErrorKind::UnknownName(n.clone()))),
        ExprKind::Read(a) => Ty::Known(
            elem(a).ok_or_else(|| KernelError::new(a.pos, ErrorKind::UnknownTensor(a.tensor.clone())))?,
        ),
        ExprKind::Neg(x) => infer(x, elem, is_index)?,
        ExprKind::Binary(_, op_pos, a, b) => {
            unify(infer(a, elem, is_index)?, infer(b, elem, is_index)?, *op_pos)?
        }
        ExprKind::Call(Call::Cast(t), args) => {
            for x in args {
                infer(x, elem, is_index)?;
            }
            Ty::Known(*t)
        }
        ExprKind::Call(_, args) => {
            let mut t = Ty::AnyInt;
            for x in args {
                t = unify(t, infer(x, elem, is_index)?, x.pos)?;
            }
            t
        }
    })
}
