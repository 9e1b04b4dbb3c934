//! The e-graph language: layout expressions as terms, and the value of each operator.
//!
//! Two sorts of terms live in one e-graph and never mix:
//!
//! * **exact** terms are the built-ins of the expression language (`composition`,
//!   `logical_divide`, `size`, ...) over opaque leaves; an e-class of exact terms holds terms
//!   that evaluate to the *same value* (the same printed layout or integer);
//! * **function** terms, `fun(e)` (the function of the layout `e` on `[0, size(e))`) and
//!   `fcompose(a, f)` (`i -> a(f(i))` for `i < size(f)`, `a` exact, `f` a function); an
//!   e-class of function terms holds terms that are *equal as functions* (same size, same
//!   value at every index), which is what `equal(X, Y)` asks.
//!
//! Every operator respects the equality of its argument classes (congruence is sound):
//! exact operators take exact arguments only, and `fcompose` depends on its second argument
//! only through its function. A law that equates functions therefore never reaches a position
//! where the layout's structure (its modes, or its values past its size) matters.
//!
//! ```
//! use tessera::identity::Term;
//! let t = Term::op("composition", vec![Term::leaf_text("A"), Term::leaf_text("B")]);
//! assert_eq!(t.to_string(), "composition(A, B)");
//! ```

use crate::lang::{Env, Value, eval_expr};
use egg::Id;
use std::fmt;
use tessera_ir::sym::SymInt;
use tessera_ir::text::{Expr, ExprKind};
use tessera_ir::{Int, Result};

mod ops {
    #![allow(missing_docs)]
    use egg::{Id, Symbol, define_language};

    define_language! {
        /// The operators of the e-graph (see the module documentation for the two sorts):
        /// the built-ins of the same names (exact terms; `*` multiplies integers and
        /// `identity(n)` is `n:1`), `fun(e)` the function of the layout `e` on
        /// `[0, size(e))`, `fcompose(a, f)` the function `i -> a(f(i))` for `i < size(f)`
        /// (an exact `a` after a function `f`), and leaves: opaque values named by their
        /// kind and printed value.
        pub enum Layouts {
        "composition" = Composition([Id; 2]),
        "coalesce" = Coalesce([Id; 1]),
        "logical_divide" = LogicalDivide([Id; 2]),
        "zipped_divide" = ZippedDivide([Id; 2]),
        "tiled_divide" = TiledDivide([Id; 2]),
        "complement" = Complement([Id; 2]),
        "size" = Size([Id; 1]),
        "cosize" = Cosize([Id; 1]),
        "left_inverse" = LeftInverse([Id; 1]),
        "right_inverse" = RightInverse([Id; 1]),
        "logical_product" = LogicalProduct([Id; 2]),
        "blocked_product" = BlockedProduct([Id; 2]),
        "make_layout" = MakeLayout(Box<[Id]>),
        "*" = Mul([Id; 2]),
        "identity" = Identity([Id; 1]),
        "fun" = Fun([Id; 1]),
        "fcompose" = FCompose([Id; 2]),
        Leaf(Symbol),
    }
    }
}
pub use ops::Layouts;

/// The built-ins the e-graph knows, with their arities (`None`: any number).
const BUILTINS: &[(&str, Option<usize>)] = &[
    ("composition", Some(2)),
    ("coalesce", Some(1)),
    ("logical_divide", Some(2)),
    ("zipped_divide", Some(2)),
    ("tiled_divide", Some(2)),
    ("complement", Some(2)),
    ("size", Some(1)),
    ("cosize", Some(1)),
    ("left_inverse", Some(1)),
    ("right_inverse", Some(1)),
    ("logical_product", Some(2)),
    ("blocked_product", Some(2)),
    ("make_layout", None),
];

/// A layout expression with `let` names resolved: built-in calls over opaque leaves.
#[derive(Clone, Debug, PartialEq)]
pub enum Term {
    /// A built-in the e-graph knows, applied to terms.
    Op(&'static str, Vec<Term>),
    /// An opaque value (a literal, a parameter, a call the e-graph does not know); two leaves
    /// are the same leaf exactly when their values print the same.
    Leaf(Box<Value<SymInt>>),
    /// A leaf known only by its text (for examples and tests that never evaluate).
    Text(String),
}

impl Term {
    /// The call `name(args)`.
    ///
    /// # Panics
    /// When `name` is not a built-in the e-graph knows (a programming error).
    pub fn op(name: &str, args: Vec<Term>) -> Term {
        let known = BUILTINS
            .iter()
            .chain(&[("identity", Some(1)), ("*", Some(2))])
            .find(|(n, _)| *n == name)
            .map(|(n, _)| *n)
            .unwrap_or_else(|| panic!("'{name}' is not a built-in of the e-graph"));
        Term::Op(known, args)
    }

    /// A leaf with a value; a rank-1 layout `n:1` is the term `identity(n)`, so that the
    /// laws that end in an identity meet the identities a file writes.
    pub fn leaf(v: Value<SymInt>) -> Term {
        if let Value::Layout(l) = &v
            && l.rank() == 1
            && l.shape().leaves().len() == 1
            && l.stride()
                .leaves()
                .iter()
                .all(|d| d.as_int().is_some_and(|x| x.is(1)))
        {
            // Only the very value `n:1` (not `(n):(1)`, a different value of the same function).
            let n = Value::Int(l.shape().leaves()[0].clone());
            if value_of(&Layouts::Identity([Id::from(0)]), &[Some(&n)]).as_ref() == Some(&v) {
                return Term::Op("identity", vec![Term::Leaf(Box::new(n))]);
            }
        }
        Term::Leaf(Box::new(v))
    }

    /// A leaf known by its text only (it has no value, so no law guarded by values applies).
    pub fn leaf_text(s: &str) -> Term {
        Term::Text(s.to_string())
    }

    /// Reads an expression of the language: calls of the known built-ins (and `a o b`)
    /// become operators, names bound in `defs` their defining terms, anything else a leaf
    /// with the value it has in `env`.
    pub fn from_expr(e: &Expr, defs: &[(String, Term)], env: &Env<SymInt>, src: &str) -> Result<Term> {
        match &e.kind {
            ExprKind::Name(n) => match defs.iter().rev().find(|(k, _)| k == n) {
                Some((_, t)) => Ok(t.clone()),
                None => Ok(Term::leaf(eval_expr(e, env, src)?)),
            },
            ExprKind::Call(name, args) if env.get(name).is_none() => {
                let known = BUILTINS
                    .iter()
                    .find(|(n, k)| n == name && k.is_none_or(|k| k == args.len()));
                match known {
                    Some((n, _)) if !args.is_empty() => {
                        let ts: Result<Vec<Term>> =
                            args.iter().map(|a| Term::from_expr(a, defs, env, src)).collect();
                        Ok(Term::Op(n, ts?))
                    }
                    _ => Ok(Term::leaf(eval_expr(e, env, src)?)),
                }
            }
            // `n:1` with a computed extent (`size(L):1`) is the identity of that size.
            ExprKind::Layout(n, d) if matches!(d.kind, ExprKind::Int(1)) => match eval_expr(n, env, src)? {
                Value::Int(_) => Ok(Term::Op("identity", vec![Term::from_expr(n, defs, env, src)?])),
                _ => Ok(Term::leaf(eval_expr(e, env, src)?)),
            },
            ExprKind::Compose(items) if items.len() >= 2 => {
                let mut ts: Vec<Term> = items
                    .iter()
                    .map(|a| Term::from_expr(a, defs, env, src))
                    .collect::<Result<_>>()?;
                let mut acc = ts.pop().unwrap_or(Term::Text(String::new()));
                while let Some(t) = ts.pop() {
                    acc = Term::Op("composition", vec![t, acc]);
                }
                Ok(acc)
            }
            _ => Ok(Term::leaf(eval_expr(e, env, src)?)),
        }
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Op("identity", args) if args.len() == 1 => write!(f, "{}:1", args[0]),
            Term::Op("*", args) if args.len() == 2 => write!(f, "({})*({})", args[0], args[1]),
            Term::Op(n, args) => {
                write!(f, "{n}(")?;
                for (k, a) in args.iter().enumerate() {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{a}")?;
                }
                f.write_str(")")
            }
            Term::Leaf(v) => write!(f, "{v}"),
            Term::Text(s) => f.write_str(s),
        }
    }
}

/// The name of a leaf in the e-graph: its kind and printed value, so that equal values are
/// one leaf and an integer never meets a layout of the same text.
pub(crate) fn leaf_key(v: &Value<SymInt>) -> String {
    format!("{}#{v}", v.kind())
}

/// Calls the built-in `name` on values, through the interpreter (so the e-graph computes
/// exactly what the language computes).
pub(crate) fn call(name: &str, vals: &[&Value<SymInt>]) -> Option<Value<SymInt>> {
    let mut env = Env::new();
    let mut args = Vec::with_capacity(vals.len());
    for (k, v) in vals.iter().enumerate() {
        let n = format!("arg{k}");
        env.bind(n.clone(), (*v).clone());
        args.push(Expr {
            kind: ExprKind::Name(n),
            col: 0,
        });
    }
    let e = Expr {
        kind: ExprKind::Call(name.to_string(), args),
        col: 0,
    };
    eval_expr(&e, &env, name).ok()
}

/// The value of the operator `node` on its arguments' values: the value of an exact term,
/// a representative layout of a function term; `None` where it does not evaluate.
pub(crate) fn value_of(node: &Layouts, args: &[Option<&Value<SymInt>>]) -> Option<Value<SymInt>> {
    let vals: Option<Vec<&Value<SymInt>>> = args.iter().copied().collect();
    let vals = vals?;
    match node {
        Layouts::Leaf(_) => None,
        Layouts::Mul(_) => match (vals[0], vals[1]) {
            (Value::Int(a), Value::Int(b)) => a.mul(b).ok().map(Value::Int),
            _ => None,
        },
        Layouts::Identity(_) => match vals[0] {
            Value::Int(n) => {
                let n = Value::Int(n.clone());
                let one = Value::Int(SymInt::one());
                let mut env = Env::new();
                env.bind("n", n);
                env.bind("one", one);
                let name = |s: &str| Expr {
                    kind: ExprKind::Name(s.into()),
                    col: 0,
                };
                let e = Expr {
                    kind: ExprKind::Layout(Box::new(name("n")), Box::new(name("one"))),
                    col: 0,
                };
                eval_expr(&e, &env, "n:1").ok()
            }
            _ => None,
        },
        Layouts::Fun(_) => match vals[0] {
            v @ Value::Layout(_) => Some(v.clone()),
            _ => None,
        },
        Layouts::FCompose(_) => match (vals[0], vals[1]) {
            (Value::Layout(_), Value::Layout(_)) => call("composition", &vals),
            _ => None,
        },
        other => call(&other.to_string(), &vals),
    }
}

/// Whether a value is concrete (no parameter in it): its laws can then be checked on it.
pub(crate) fn is_concrete(v: &Value<SymInt>) -> bool {
    match v {
        Value::Int(i) => i.as_const().is_some(),
        Value::Layout(l) => {
            l.shape().leaves().iter().all(|x| x.as_const().is_some())
                && l.stride()
                    .leaves()
                    .iter()
                    .all(|s| s.as_int().is_some_and(|x| x.as_const().is_some()))
        }
        Value::Tuple(vs) => vs.iter().all(is_concrete),
        _ => false,
    }
}
