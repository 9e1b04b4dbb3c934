//! The syntax tree of the expression language.
//!
//! Chains of one construct (`1+2+...`, `a o b o ...`, `L(0)(1)[..]...`) are flat lists, not
//! nested nodes, so the depth of a tree is bounded by the nesting the parser admits
//! ([`crate::text::MAX_DEPTH`] levels of brackets, unary minus and `Sw<`), whatever the length
//! of the input. Evaluating, cloning, comparing and dropping a tree therefore recurse at most
//! that deep.

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

impl BinOp {
    /// The operator as written.
    pub fn symbol(self) -> char {
        match self {
            BinOp::Add => '+',
            BinOp::Sub => '-',
            BinOp::Mul => '*',
            BinOp::Div => '/',
            BinOp::Mod => '%',
        }
    }
}

/// One entry of a slice `L[2:4, ::-1, 3]`.
#[derive(Clone, Debug, PartialEq)]
pub enum SliceItem {
    /// An integer entry: selects one index and removes the dimension.
    Index(Expr),
    /// A range `start:stop:step`; missing parts are `None`.
    Range(Option<Expr>, Option<Expr>, Option<Expr>),
}

/// One operator and its right operand in an arithmetic chain.
#[derive(Clone, Debug, PartialEq)]
pub struct ArithStep {
    /// The operator.
    pub op: BinOp,
    /// Byte column of the operator.
    pub col: usize,
    /// The right operand.
    pub rhs: Expr,
}

/// One suffix of a postfix chain: an evaluation `(...)` or a slice `[...]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Suffix {
    /// Byte column of the opening bracket.
    pub col: usize,
    /// What it does.
    pub op: SuffixOp,
}

/// The two suffixes.
#[derive(Clone, Debug, PartialEq)]
pub enum SuffixOp {
    /// `(args)`: evaluation at an index or coordinate.
    Apply(Vec<Expr>),
    /// `[items]`: a slice view.
    Slice(Vec<SliceItem>),
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
    /// An int tuple or layout literal, read straight into its value ([`super::scan`]).
    Literal(Box<super::literal::Literal>),
    /// `true` or `false`.
    Bool(bool),
    /// A name: a bound variable or a parameter.
    Name(String),
    /// `_`.
    Underscore,
    /// `(a, b, ...)`; a one-element tuple is written `(a)`. Where a parenthesised single
    /// expression is an operand of arithmetic or of `@`, a swizzle parameter, a slice entry, or
    /// is followed by `(...)` or `[...]`, the parser reads the parentheses as grouping and no
    /// tuple is built.
    Tuple(Vec<Expr>),
    /// `shape:stride`.
    Layout(Box<Expr>, Box<Expr>),
    /// `name(args)`: a built-in function, or the evaluation of a bound layout.
    Call(String, Vec<Expr>),
    /// `expr(args)[items]...`: evaluations and slices applied left to right.
    Postfix(Box<Expr>, Vec<Suffix>),
    /// `a o b o c ...`: composition, right-associative (`a o (b o c)`); at least two operands.
    Compose(Vec<Expr>),
    /// `Sw<b,m,s>`.
    Swizzle(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `F2(v)`: an `F2` stride.
    F2(Box<Expr>),
    /// `v@i@j...`: a scaled basis stride; the path is listed as written (innermost first).
    Basis(Box<Expr>, Vec<u32>),
    /// `-a`.
    Neg(Box<Expr>),
    /// `a op b op c ...` at one precedence level, left-associative.
    Arith(Box<Expr>, Vec<ArithStep>),
    /// `name=value`: a keyword argument of a property (`elem=2`).
    Keyword(String, Box<Expr>),
}
