//! The syntax tree of the expression language.

/// A binary arithmetic operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`: exact division.
    Div,
    /// `%`: floor remainder.
    Mod,
}

/// One entry of a slice `L[2:4, ::-1, 3]`.
#[derive(Clone, Debug, PartialEq)]
pub enum SliceItem {
    /// An integer entry: selects one index and removes the dimension.
    Index(Expr),
    /// A range `start:stop:step`; missing parts are `None`.
    Range(Option<Expr>, Option<Expr>, Option<Expr>),
}

/// An expression with the byte column where it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Byte offset in the source line.
    pub col: usize,
}

/// The expression forms.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer literal.
    Int(i64),
    /// A name: a bound variable or a parameter.
    Name(String),
    /// `_`.
    Underscore,
    /// `(a, b, ...)`; a one-element tuple is written `(a)`.
    Tuple(Vec<Expr>),
    /// `shape:stride`.
    Layout(Box<Expr>, Box<Expr>),
    /// `name(args)`: a built-in function, or the evaluation of a bound layout.
    Call(String, Vec<Expr>),
    /// `expr(args)`: evaluation at an index or coordinate.
    Apply(Box<Expr>, Vec<Expr>),
    /// `expr[items]`: a slice view.
    Slice(Box<Expr>, Vec<SliceItem>),
    /// `a o b`.
    Compose(Box<Expr>, Box<Expr>),
    /// `Sw<b,m,s>`.
    Swizzle(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `F2(v)`: an `F2` stride.
    F2(Box<Expr>),
    /// `v@i@j...`: a scaled basis stride; the path is listed as written (innermost first).
    Basis(Box<Expr>, Vec<u32>),
    /// `-a`.
    Neg(Box<Expr>),
    /// `a op b`.
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// `name=value`: a keyword argument of a property (`elem=2`).
    Keyword(String, Box<Expr>),
}
