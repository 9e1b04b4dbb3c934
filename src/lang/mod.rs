//! Evaluation of the expression language.
//!
//! `tessera eval` and check files evaluate expressions such as
//! `logical_divide((8,4,7):(1,8,32), 28:1)` or `(3,(2,4)):(2,(1,6))(17)` to a [`Value`].
//! Names resolve in an [`Env`]: `let` bindings and declared parameters.
//!
//! ```
//! use tessera::lang::eval_str;
//! assert_eq!(eval_str("(3,(2,4)):(2,(1,6))(17)").unwrap(), "17");
//! assert_eq!(eval_str("composition((6,2):(8,2), (4,3):(3,1))").unwrap(), "((2,2),3):((24,2),8)");
//! assert_eq!(eval_str("Sw<3,3,3> o (8,64):(64,1)").unwrap(), "Sw<3,3,3> o (8,64):(64,1)");
//! assert!(eval_str("composition((4,3):(0,1), (2,3):(2,1))").is_err());
//! ```

mod arith;
pub mod atom_value;
pub mod builtins;
pub mod cute;
pub mod fast;
mod value;

pub use value::Value;

use std::collections::HashMap;
use tessera_ir::HTuple;
use tessera_ir::Int;
use tessera_ir::Layout;
use tessera_ir::Stride;
use tessera_ir::text::Literal;
use tessera_ir::text::{BinOp, Expr, ExprKind, SuffixOp, parse_expr};
use tessera_ir::{ComposedLayout, Swizzle};
use tessera_ir::{Error, ParseError, Result};

pub use builtins::is_reserved;

/// Declares parameters with facts (`M, N where M % 128 == 0`) in `facts`, returning their
/// names; a built-in name cannot be a parameter.
pub fn declare(facts: &mut tessera_ir::sym::Facts, src: &str) -> Result<Vec<String>> {
    let d = tessera_ir::text::parse_declaration(src)?;
    if let Some(n) = d.names.iter().find(|n| is_reserved(&n.name)) {
        return Err(at_col(
            src,
            n.col,
            format!("'{}' is a built-in name and cannot be a parameter", n.name),
        ));
    }
    facts.declare_parsed(&d, src)
}

/// Names visible to an expression: `let` bindings and parameters.
#[derive(Clone, Debug)]
pub struct Env<I = i64> {
    vars: HashMap<String, Value<I>>,
}

impl<I: Int> Default for Env<I> {
    fn default() -> Self {
        Env { vars: HashMap::new() }
    }
}

impl<I: Int> Env<I> {
    /// An empty environment.
    pub fn new() -> Self {
        Env { vars: HashMap::new() }
    }

    /// The names bound, in no particular order.
    ///
    /// ```
    /// let mut env = tessera::lang::Env::<i64>::new();
    /// env.bind("A", tessera::lang::Value::Int(4));
    /// assert_eq!(env.names().collect::<Vec<_>>(), ["A"]);
    /// ```
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.vars.keys().map(String::as_str)
    }

    /// Binds `name` to `v`, replacing an earlier binding.
    pub fn bind(&mut self, name: impl Into<String>, v: Value<I>) {
        self.vars.insert(name.into(), v);
    }

    /// The value bound to `name`.
    pub fn get(&self, name: &str) -> Option<&Value<I>> {
        self.vars.get(name)
    }
}

/// Parses and evaluates one line with concrete integers, printing the result canonically.
pub fn eval_str(src: &str) -> Result<String> {
    let e = parse_expr(src)?;
    Ok(eval_expr::<i64>(&e, &Env::new(), src)?.check_depth()?.to_string())
}

/// Parameters and bindings for symbolic evaluation (`--param`, `--bind`).
///
/// ```
/// use tessera::lang::Session;
/// let s = Session::new(&["M where M % 128 == 0", "N where N % 64 == 0"], &[]).unwrap();
/// assert_eq!(
///     s.eval("logical_divide((M,N):(1,M), (128:1,64:1))").unwrap(),
///     "((128,M/128),(64,N/64)):((1,128),(M,64*M))"
/// );
/// assert_eq!(s.eval("coalesce((M,N):(1,M))").unwrap(), "M*N:1");
/// let b = Session::new(&["M where M % 128 == 0"], &["M=256"]).unwrap();
/// assert_eq!(b.eval("(16,M/16):(1,16)").unwrap(), "(16,16):(1,16)");
/// assert!(Session::new(&["M where M % 128 == 0"], &["M=100"]).is_err());
/// ```
#[derive(Clone, Debug, Default)]
pub struct Session {
    facts: std::sync::Arc<tessera_ir::sym::Facts>,
    env: Env<tessera_ir::sym::SymInt>,
    symbolic: bool,
    /// Whether every line is evaluated through values, without [`fast::answer`] (off by
    /// default).
    no_fast_path: bool,
}

impl Session {
    /// Declares parameters (`"M where M % 128 == 0"`) and binds values (`"M=256"`).
    ///
    /// A parameter is declared once; a bind names a declared parameter, once, with a value its
    /// facts admit. Anything else is an error.
    pub fn new(params: &[&str], binds: &[&str]) -> Result<Session> {
        use tessera_ir::sym::{Facts, SymInt};
        let mut facts = Facts::default();
        let mut names: Vec<String> = Vec::new();
        for p in params {
            for n in declare(&mut facts, p)? {
                if names.contains(&n) {
                    return Err(Error::invalid(format!("parameter '{n}' is declared twice")));
                }
                names.push(n);
            }
        }
        let mut values: HashMap<String, i64> = HashMap::new();
        // `--bind M=1,N=2` holds several bindings, read as every command reads them.
        for (n, v) in crate::bindings::parse(binds, is_reserved).map_err(Error::invalid)? {
            let n = n.as_str();
            if !names.iter().any(|x| x == n) {
                return Err(Error::invalid(format!(
                    "--bind {n}={v}: '{n}' is not a declared parameter (declare it with --param {n})"
                )));
            }
            if let Some(f) = facts.get(n)
                && !f.admits(v)
            {
                return Err(Error::invalid(format!(
                    "--bind {n}={v} violates {} (the facts on {n}: {})",
                    violated(n, f, v),
                    facts_text(n, f)
                )));
            }
            values.insert(n.to_string(), v);
        }
        let facts = std::sync::Arc::new(facts);
        let mut env = Env::new();
        let mut symbolic = false;
        for n in &names {
            let v = match values.get(n) {
                Some(v) => SymInt::lit(*v),
                None => {
                    symbolic = true;
                    SymInt::param(n, &facts)
                }
            };
            env.bind(n.clone(), Value::Int(v));
        }
        Ok(Session {
            facts,
            env,
            symbolic,
            no_fast_path: false,
        })
    }

    /// This session without the fast path of calls on literals ([`fast::answer`]): every line
    /// is evaluated through values, as the reference the fast path is tested against.
    ///
    /// @post `eval` answers every line with the same text or error as before.
    ///
    /// ```
    /// let s = tessera::lang::Session::new(&[], &[]).unwrap();
    /// let line = "logical_divide(24:1,4:2)";
    /// assert_eq!(s.eval(line).unwrap(), s.clone().without_fast_path().eval(line).unwrap());
    /// ```
    pub fn without_fast_path(mut self) -> Session {
        self.no_fast_path = true;
        self
    }

    /// `true` when some parameter is left symbolic.
    pub fn is_symbolic(&self) -> bool {
        self.symbolic
    }

    /// The facts of the declared parameters.
    pub fn facts(&self) -> &tessera_ir::sym::Facts {
        &self.facts
    }

    /// The environment of parameters, for callers that evaluate parsed expressions.
    pub fn env(&self) -> &Env<tessera_ir::sym::SymInt> {
        &self.env
    }

    /// Parses and evaluates one line to a value over symbolic integers (constants when no
    /// parameter is left symbolic).
    pub fn value(&self, src: &str) -> Result<Value<tessera_ir::sym::SymInt>> {
        let e = parse_expr(src).map_err(|e| cute::with_hint(e.into(), src))?;
        eval_expr(&e, &self.env, src).map_err(|e| cute::with_hint(e, src))
    }

    /// Parses and evaluates one line, printing the result canonically.
    pub fn eval(&self, src: &str) -> Result<String> {
        let mut out = String::new();
        self.eval_to(src, &mut out)?;
        Ok(out)
    }

    /// [`Session::eval`], appending the result to `out` (which is left as it was on an error).
    pub fn eval_to(&self, src: &str, out: &mut String) -> Result<()> {
        self.eval_plain(src, out).map_err(|e| cute::with_hint(e, src))
    }

    /// [`Session::eval_to`] without the hint for CuTe's spellings.
    fn eval_plain(&self, src: &str, out: &mut String) -> Result<()> {
        use std::fmt::Write;
        let e = if self.env.vars.is_empty() && !self.no_fast_path {
            match fast::answer_line(src, out) {
                fast::Line::Answered(r) => return r,
                fast::Line::Declined(e) => e,
                fast::Line::Other => {
                    let e = parse_expr(src)?;
                    if let Some(r) = fast::answer(&e, out) {
                        return r;
                    }
                    e
                }
            }
        } else {
            parse_expr(src)?
        };
        let before = out.len();
        let written = if self.env.vars.is_empty() {
            write!(out, "{}", eval_line::<i64>(e, &Env::new(), src)?.check_depth()?)
        } else {
            write!(out, "{}", eval_line(e, &self.env, src)?.check_depth()?)
        };
        written.map_err(|_| {
            out.truncate(before);
            Error::invalid("the result could not be printed")
        })
    }
}

/// The facts on parameter `n`, written in the declaration language: `1 <= M <= 4096, M % 128 == 0`.
pub fn facts_text(n: &str, f: &tessera_ir::sym::ParamFacts) -> String {
    let mut out = match f.hi {
        Some(h) if h == f.lo => format!("{n} == {h}"),
        Some(h) => format!("{} <= {n} <= {h}", f.lo),
        None => format!("{n} >= {}", f.lo),
    };
    if let Some(c) = f.congruence_text(n) {
        out.push_str(&format!(", {c}"));
    }
    out
}

/// The facts on `n` that the value `v` violates, in the declaration language.
///
/// ```
/// use tessera_ir::sym::Facts;
/// let mut facts = Facts::default();
/// facts.declare("M where M % 32 == 0, 32 <= M <= 64").unwrap();
/// assert_eq!(tessera::lang::violated("M", facts.get("M").unwrap(), 33), "M % 32 == 0");
/// ```
pub fn violated(n: &str, f: &tessera_ir::sym::ParamFacts, v: i64) -> String {
    let mut out = Vec::new();
    if v < f.lo {
        out.push(format!("{n} >= {}", f.lo));
    }
    if let Some(h) = f.hi
        && v > h
    {
        out.push(format!("{n} <= {h}"));
    }
    if !f.congruent(v)
        && let Some(c) = f.congruence_text(n)
    {
        out.push(c);
    }
    if out.is_empty() {
        // The bounds rounded to the congruence exclude it.
        out.push(facts_text(n, f));
    }
    out.join(" and ")
}

/// Calls the built-in `name` (any function of [`builtins::BUILTINS`]) with evaluated
/// arguments: the dispatch of `tessera eval`, for callers that hold values rather than text
/// (the Python bindings). Arity and argument errors are those of `tessera eval`; a message that
/// would point at a column of a source line carries only its text.
///
/// ```
/// use tessera::lang::{Value, call, parse_value};
/// let a = parse_value("(6,2):(8,2)").unwrap();
/// let b = parse_value("(4,3):(3,1)").unwrap();
/// assert_eq!(call("composition", vec![a, b]).unwrap().to_string(), "((2,2),3):((24,2),8)");
/// assert_eq!(call("size", vec![Value::Tuple(vec![Value::Int(2), Value::Int(3)])]).unwrap(), Value::Int(6));
/// assert_eq!(call("composition", vec![Value::Int(4)]).unwrap_err().to_string(), "composition takes 2 arguments, got 1");
/// assert!(call("no_such_function", vec![]).is_err());
/// ```
pub fn call(name: &str, args: Vec<Value<i64>>) -> Result<Value<i64>> {
    let exprs: Vec<Expr> = args
        .iter()
        .map(|_| Expr {
            kind: ExprKind::Int(0),
            col: 0,
        })
        .collect();
    let at_call = Expr {
        kind: ExprKind::Int(0),
        col: 0,
    };
    let vals = args.into_iter().map(Ok).collect();
    builtins::call(name, &exprs, vals, &Env::new(), "", &at_call)
        .and_then(Value::check_depth)
        .map_err(|e| match e {
            Error::Parse(p) if p.src.is_empty() => Error::Invalid(p.msg),
            e => e,
        })
}

/// Parses and evaluates one line of the expression language with concrete integers to a
/// [`Value`]: a layout, an int tuple, a swizzle, the result of a call.
pub fn parse_value(src: &str) -> Result<Value<i64>> {
    let e = parse_expr(src)?;
    eval_expr::<i64>(&e, &Env::new(), src)?.check_depth()
}

/// Parses a layout in the text format (a bare shape is the compact layout).
pub fn parse_layout(src: &str) -> Result<Layout<i64>> {
    let e = parse_expr(src)?;
    let v = eval_expr::<i64>(&e, &Env::new(), src)?;
    v.to_layout()
}

/// Parses an int tuple such as `((2,2),3)`.
pub fn parse_int_tuple(src: &str) -> Result<HTuple<i64>> {
    let e = parse_expr(src)?;
    eval_expr::<i64>(&e, &Env::new(), src)?.to_int_tuple()
}

/// A name as a message shows it: at most 40 characters, then `...`.
pub(crate) fn shown(name: &str) -> std::borrow::Cow<'_, str> {
    match name.char_indices().nth(40) {
        Some((k, _)) => format!("{}...", &name[..k]).into(),
        None => name.into(),
    }
}

/// An error pointing at an expression's column.
fn at(src: &str, e: &Expr, msg: impl Into<String>) -> Error {
    at_col(src, e.col, msg)
}

/// An error pointing at byte column `col` of `src`.
pub(crate) fn at_col(src: &str, col: usize, msg: impl Into<String>) -> Error {
    Error::Parse(ParseError::new(msg, src, col))
}

/// Evaluates the expression of a whole line, which is evaluated once: a call of a built-in
/// takes its layout literals (also those inside tuple arguments) out of the tree instead of
/// copying them; everything else is [`eval_expr`].
fn eval_line<I: Int>(mut e: Expr, env: &Env<I>, src: &str) -> Result<Value<I>> {
    let ExprKind::Call(name, args) = &mut e.kind else {
        return eval_expr(&e, env, src);
    };
    if env.get(name).is_some() {
        return eval_expr(&e, env, src);
    }
    let vals: Vec<Result<Value<I>>> = args.iter_mut().map(|a| eval_taking(a, env, src)).collect();
    let ExprKind::Call(name, args) = &e.kind else {
        unreachable!("matched a call above")
    };
    builtins::call(name, args, vals, env, src, &e)
}

/// [`eval_expr`] of an argument that is evaluated once: a layout literal is moved out,
/// leaving a placeholder that no built-in reads (they read argument expressions only for
/// integer scales), and so are those of a tuple.
fn eval_taking<I: Int>(a: &mut Expr, env: &Env<I>, src: &str) -> Result<Value<I>> {
    match &mut a.kind {
        ExprKind::Literal(l) if matches!(**l, Literal::Layout(_)) => {
            let kind = std::mem::replace(&mut a.kind, ExprKind::Underscore);
            let ExprKind::Literal(l) = kind else {
                unreachable!("matched a layout literal above")
            };
            match *l {
                Literal::Layout(l) => l.into_lift().map(Value::Layout),
                Literal::Tuple(_) => unreachable!("matched a layout literal above"),
            }
        }
        ExprKind::Tuple(items) => {
            let vs: Result<Vec<_>> = items.iter_mut().map(|x| eval_taking(x, env, src)).collect();
            Ok(Value::Tuple(vs?))
        }
        _ => eval_expr(a, env, src),
    }
}

/// Evaluates a parsed expression.
///
/// The recursion follows the nesting of the tree, which the parser bounds
/// ([`tessera_ir::text::MAX_DEPTH`]); chains (`+`, `o`, postfix) are evaluated by loops.
pub fn eval_expr<I: Int>(e: &Expr, env: &Env<I>, src: &str) -> Result<Value<I>> {
    match &e.kind {
        ExprKind::Int(v) => Ok(Value::Int(I::lit(*v))),
        ExprKind::Literal(l) => literal_value(l),
        ExprKind::Bool(b) => Ok(Value::Bool(*b)),
        ExprKind::Underscore => Ok(Value::Keep),
        ExprKind::Name(n) => env.get(n).cloned().ok_or_else(|| {
            at(
                src,
                e,
                format!(
                    "unknown name '{}' (declare a parameter with --param {})",
                    shown(n),
                    shown(n)
                ),
            )
        }),
        ExprKind::Tuple(items) => {
            let vs: Result<Vec<_>> = items.iter().map(|x| eval_expr(x, env, src)).collect();
            Ok(Value::Tuple(vs?))
        }
        ExprKind::Layout(s, d) => eval_layout(s, d, env, src),
        ExprKind::Swizzle(b, m, s) => {
            let get = |x: &Expr| -> Result<i64> {
                let v = eval_expr(x, env, src)?.to_int()?;
                v.as_const()
                    .ok_or_else(|| at(src, x, "swizzle parameters must be constants"))
            };
            let sw = Swizzle::new(get(b)?, get(m)?, get(s)?).map_err(|err| at(src, e, err.to_string()))?;
            Ok(Value::Swizzle(sw))
        }
        ExprKind::F2(v) => {
            let x = eval_expr(v, env, src)?.to_int()?;
            let c = x
                .as_const()
                .and_then(|c| u64::try_from(c).ok())
                .ok_or_else(|| at(src, v, "F2(...) takes a non-negative constant"))?;
            Ok(Value::Stride(Stride::F2(c)))
        }
        ExprKind::Basis(v, path) => {
            let x = eval_expr(v, env, src)?
                .to_int()
                .map_err(|err| at(src, v, err.to_string()))?;
            // Written innermost first: `1@1@0` is position 0, then 1 inside it.
            let p: Vec<u32> = path.iter().rev().copied().collect();
            Ok(Value::Stride(Stride::basis(x, &p)))
        }
        ExprKind::Neg(v) => arith::arith(BinOp::Sub, Value::Int(I::zero()), eval_expr(v, env, src)?).map_err(
            |err| match err {
                Error::Invalid(m) => at(src, e, m),
                other => other,
            },
        ),
        ExprKind::Arith(first, steps) => arith::chain(first, steps, env, src),
        ExprKind::Compose(items) => {
            // Operands evaluate left to right; `a o b o c` is `a o (b o c)`.
            let vals: Vec<Value<I>> = items
                .iter()
                .map(|x| eval_expr(x, env, src))
                .collect::<Result<_>>()?;
            let mut it = vals.into_iter().rev();
            let mut acc = it
                .next()
                .ok_or_else(|| at(src, e, "a composition needs two operands"))?;
            for x in it {
                acc = compose(x, acc)?;
            }
            Ok(acc)
        }
        ExprKind::Postfix(base, suffixes) => {
            let mut v = eval_expr(base, env, src)?;
            for s in suffixes {
                v = match &s.op {
                    SuffixOp::Apply(args) => apply(v, args, env, src, s.col)?,
                    SuffixOp::Slice(items) => builtins::views::slice(v, items, env, src, s.col)?,
                };
            }
            Ok(v)
        }
        ExprKind::Call(name, args) => {
            if let Some(v) = env.get(name) {
                return apply(v.clone(), args, env, src, e.col);
            }
            let vals: Vec<Result<Value<I>>> = args.iter().map(|a| eval_expr(a, env, src)).collect();
            builtins::call(name, args, vals, env, src, e)
        }
        ExprKind::Keyword(n, _) => Err(at(
            src,
            e,
            format!("keyword argument '{n}=' is only allowed in a property assertion"),
        )),
    }
}

/// The value of a literal, in the integers of the evaluation.
fn literal_value<I: Int>(l: &Literal) -> Result<Value<I>> {
    Ok(match l {
        Literal::Tuple(t) => Value::from_int_tuple(&t.map(|v| I::lit(*v))),
        Literal::Layout(l) => Value::Layout(l.lift()?),
    })
}

fn eval_layout<I: Int>(s: &Expr, d: &Expr, env: &Env<I>, src: &str) -> Result<Value<I>> {
    let shape = eval_expr(s, env, src)?
        .to_int_tuple()
        .map_err(|err| at(src, s, err.to_string()))?;
    let stride = eval_expr(d, env, src)?
        .to_stride_tuple()
        .map_err(|err| at(src, d, err.to_string()))?;
    Ok(Value::Layout(
        tessera_ir::text::make_layout(shape, stride).map_err(|err| at(src, d, err.to_string()))?,
    ))
}

/// `x o y`.
pub(crate) fn compose<I: Int>(x: Value<I>, y: Value<I>) -> Result<Value<I>> {
    use tessera_ir::algebra::composition_tiler;
    match (x, y) {
        (Value::Swizzle(sw), Value::Composed(c)) if c.swizzle.is_none() => {
            Ok(Value::Composed(ComposedLayout {
                swizzle: Some(sw),
                offset: c.offset,
                inner: c.inner,
            }))
        }
        (Value::Swizzle(sw), Value::Int(off)) => Err(Error::invalid(format!(
            "'{sw} o {off}' needs a layout after the offset: {sw} o {off} o L"
        ))),
        (Value::Swizzle(sw), y) => Ok(Value::Composed(ComposedLayout::new(
            sw,
            I::zero(),
            y.to_layout()?,
        ))),
        (Value::Int(off), Value::Composed(c)) if c.swizzle.is_none() => Ok(Value::Composed(ComposedLayout {
            swizzle: None,
            offset: c.offset.add(&off)?,
            inner: c.inner,
        })),
        (Value::Int(off), Value::Layout(l)) => Ok(Value::Composed(ComposedLayout {
            swizzle: None,
            offset: off,
            inner: l,
        })),
        (Value::Composed(c), y) => Ok(Value::Composed(
            c.with_inner(composition_tiler(&c.inner, &y.to_tiler()?)?),
        )),
        (x @ (Value::Layout(_) | Value::Tuple(_)), y) => {
            let a = x.to_layout()?;
            if let Value::Composed(_) | Value::Swizzle(_) = y {
                return Err(Error::invalid(
                    "a layout cannot be composed with a swizzled layout",
                ));
            }
            Ok(Value::Layout(composition_tiler(&a, &y.to_tiler()?)?))
        }
        (x, y) => Err(Error::invalid(format!(
            "cannot compose {} with {}",
            x.kind(),
            y.kind()
        ))),
    }
}

/// A coordinate value zero-filled to the shape of the layout's codomain.
fn dense_coord<I: Int>(l: &Layout<I>, v: &Stride<I>) -> Result<HTuple<I>> {
    let mut out = l.coshape()?.map(|_| I::zero());
    for (path, c) in v.terms() {
        let p: Vec<usize> = path.iter().map(|&x| x as usize).collect();
        let (prof, range) = out
            .profile()
            .path_range(&p)
            .ok_or_else(|| Error::invalid(format!("coordinate {v} outside the codomain of {l}")))?;
        if !prof.is_leaf() {
            return Err(Error::invalid(format!(
                "coordinate {v} outside the codomain of {l}"
            )));
        }
        out.leaves_mut()[range.start] = c;
    }
    Ok(out)
}

/// `f(args)`: evaluation of a layout, a composed layout or a swizzle.
fn apply<I: Int>(f: Value<I>, args: &[Expr], env: &Env<I>, src: &str, col: usize) -> Result<Value<I>> {
    let mut vals: Vec<Value<I>> = args
        .iter()
        .map(|x| eval_expr(x, env, src))
        .collect::<Result<_>>()?;
    let crd = if vals.len() == 1 {
        vals.pop().unwrap_or(Value::Keep)
    } else {
        Value::Tuple(vals)
    };
    eval_at(&f, &crd).map_err(|err| match err {
        Error::Invalid(m) => at_col(src, col, m),
        other => other,
    })
}

/// `f(crd)`: a layout (or bare shape), a composed layout or a swizzle at an index or
/// coordinate. A coordinate-strided layout answers with a coordinate.
///
/// * `@pre`: `crd` is an index or a coordinate of `f`'s shape; else an error.
/// * `@post`: a coordinate answer has one component per leaf of `coshape(f)`, trailing zeros
///   included (`(1,0)`, never `(1)`), as `tessera eval` prints it.
///
/// ```
/// use tessera::lang::{Value, eval_at, parse_value};
/// let l = parse_value("(4,3):(1@0,1@1)").unwrap();
/// assert_eq!(eval_at(&l, &Value::Int(1)).unwrap().to_string(), "(1,0)");
/// ```
pub fn eval_at<I: Int>(f: &Value<I>, crd: &Value<I>) -> Result<Value<I>> {
    match f {
        Value::Layout(l) => {
            let v = l.eval(&crd.to_coord()?)?;
            if l.codomain()? == tessera_ir::Codomain::Coord {
                return Ok(Value::from_int_tuple(&dense_coord(l, &v)?));
            }
            Ok(Value::from_codomain(v))
        }
        Value::Composed(c) => Ok(Value::Int(c.eval(&crd.to_coord()?)?)),
        Value::Swizzle(sw) => {
            let x = crd.to_int()?;
            let c = x
                .as_const()
                .ok_or_else(|| Error::NotConstant("swizzle of a symbolic value".into()))?;
            Ok(Value::Int(I::lit(sw.apply(c))))
        }
        Value::Int(_) | Value::Tuple(_) => {
            let l = f.to_layout()?;
            Ok(Value::from_codomain(l.eval(&crd.to_coord()?)?))
        }
        other => Err(Error::invalid(format!(
            "{} cannot be evaluated at a coordinate",
            other.kind()
        ))),
    }
}
