//! The parser of `tensor` lines and `kernel` blocks, over the tokens of the shared lexer
//! ([`tessera_ir::text::lex_with`], which also accepts `{ } ; .` here).
//!
//! ```text
//! tensor  := "tensor" NAME ":" TYPE "[" LAYOUT "]"
//! kernel  := "kernel" NAME [ "tile" NAME ":" INT { "," NAME ":" INT } ]
//!            [ "threads" NAME ":" INT { "," NAME ":" INT } ] [ "vector" INT ]
//!            "{" { stage SEP } { stmt SEP } "}"
//! stage   := "stage" NAME "in" NAME
//! stmt    := access ( "=" | "+=" ) expr
//! SEP     := ";" | a line break | before "}"
//! access  := NAME "[" NAME { "," NAME } "]"
//! expr    := term { ( "+" | "-" ) term }
//! term    := unary { ( "*" | "/" ) unary }
//! unary   := "-" unary | primary
//! primary := INT | INT "." [INT] | access | FUNC "(" expr { "," expr } ")" | "(" expr ")" | NAME
//! FUNC    := max | min | abs | neg | fma | f32 | f64 | i32 | i64 | f16 | bf16
//! ```
//!
//! A line break ends a statement when the statement is complete there; an operator at the start
//! of the next line continues it. Nesting is bounded by [`MAX_DEPTH`] (64); every error is a
//! [`KernelError`] at the offending token.

use super::ast::{
    AccessDecl, AssignOp, Call, ExprDecl, ExprKind, IndexUse, KernelDecl, Pos, StageDecl, StmtDecl,
    TensorDecl, TileDecl,
};
use super::error::{ErrorKind, KernelError};
use tessera_codegen::kernel::{BinOp, ElemType};
use tessera_ir::text::{Tok, Token, lex_with};

/// The deepest nesting of a kernel expression (brackets, unary minus, and the length of an
/// operator chain, which nests the tree as deep): the checks and the interpreter recurse that
/// deep.
pub const MAX_DEPTH: usize = 64;

/// The punctuation the kernel language adds to the expression language's.
const EXTRA: [char; 4] = ['{', '}', ';', '.'];

/// Tokens of a (possibly multi-line) source and the positions they map to.
struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    k: usize,
    /// The byte offset where each line of `src` starts.
    starts: Vec<usize>,
    first_line: usize,
}

type R<T> = Result<T, KernelError>;

impl<'a> Parser<'a> {
    fn new(src: &'a str, first_line: usize) -> R<Parser<'a>> {
        let mut starts = vec![0];
        starts.extend(src.match_indices('\n').map(|(k, _)| k + 1));
        let mut p = Parser {
            src,
            toks: Vec::new(),
            k: 0,
            starts,
            first_line,
        };
        p.toks = lex_with(src, &EXTRA).map_err(|e| p.err_at(e.col, ErrorKind::Syntax(e.msg)))?;
        Ok(p)
    }

    /// The position of byte `b` of the source.
    fn pos_of(&self, b: usize) -> Pos {
        let l = self.starts.partition_point(|&s| s <= b).saturating_sub(1);
        Pos {
            line: self.first_line + l,
            byte: b - self.starts[l],
        }
    }

    fn err_at(&self, b: usize, kind: ErrorKind) -> KernelError {
        KernelError::new(self.pos_of(b), kind)
    }

    fn tok(&self) -> &Tok {
        &self.toks[self.k].tok
    }

    fn col(&self) -> usize {
        self.toks[self.k].col
    }

    fn pos(&self) -> Pos {
        self.pos_of(self.col())
    }

    fn bump(&mut self) {
        if self.k + 1 < self.toks.len() {
            self.k += 1;
        }
    }

    /// A syntax error at the current token.
    fn expected(&self, what: &str) -> KernelError {
        let found = match self.tok() {
            Tok::End => "the end".to_string(),
            Tok::Int(v) => format!("'{v}'"),
            Tok::Name(n) => format!("'{n}'"),
            Tok::Compose => "'o'".to_string(),
            Tok::Underscore => "'_'".to_string(),
            Tok::Punct(c) => format!("'{c}'"),
            Tok::MinMagnitude => "an integer past i64".to_string(),
        };
        self.err_at(
            self.col(),
            ErrorKind::Syntax(format!("expected {what}, found {found}")),
        )
    }

    fn is_punct(&self, c: char) -> bool {
        *self.tok() == Tok::Punct(c)
    }

    fn punct(&mut self, c: char) -> R<()> {
        if self.is_punct(c) {
            self.bump();
            Ok(())
        } else {
            Err(self.expected(&format!("'{c}'")))
        }
    }

    /// A name (the composition operator `o` is a name here).
    fn name(&mut self, what: &str) -> R<(String, Pos)> {
        let pos = self.pos();
        let n = match self.tok() {
            Tok::Name(n) => n.clone(),
            Tok::Compose => "o".to_string(),
            _ => return Err(self.expected(what)),
        };
        self.bump();
        Ok((n, pos))
    }

    fn keyword(&mut self, word: &str) -> R<()> {
        match self.tok() {
            Tok::Name(n) if n == word => {
                self.bump();
                Ok(())
            }
            _ => Err(self.expected(&format!("'{word}'"))),
        }
    }

    /// The line of the previous token's end.
    fn prev_line(&self) -> usize {
        self.pos_of(self.toks[self.k.saturating_sub(1)].col).line
    }

    fn access(&mut self, tensor: String, pos: Pos) -> R<AccessDecl> {
        self.punct('[')?;
        let mut indices = Vec::new();
        loop {
            let (name, at) = self.name("an index name")?;
            indices.push(IndexUse { name, pos: at });
            if self.is_punct(',') {
                self.bump();
                continue;
            }
            self.punct(']')?;
            return Ok(AccessDecl { tensor, pos, indices });
        }
    }

    fn expr(&mut self, depth: usize) -> R<ExprDecl> {
        self.chain(depth, &[('+', BinOp::Add), ('-', BinOp::Sub)], Self::term)
    }

    fn term(&mut self, depth: usize) -> R<ExprDecl> {
        self.chain(depth, &[('*', BinOp::Mul), ('/', BinOp::Div)], Self::unary)
    }

    /// A left-associative chain of `next` joined by the operators `ops`; the chain's length
    /// counts towards the depth (the tree is nested that deep).
    fn chain(
        &mut self,
        depth: usize,
        ops: &[(char, BinOp)],
        next: fn(&mut Self, usize) -> R<ExprDecl>,
    ) -> R<ExprDecl> {
        let mut lhs = next(self, depth)?;
        let mut d = depth;
        while let Some(&(_, op)) = ops.iter().find(|(c, _)| self.is_punct(*c)) {
            // `+=` is not an operator of expressions.
            if op == BinOp::Add
                && self
                    .toks
                    .get(self.k + 1)
                    .is_some_and(|t| t.tok == Tok::Punct('='))
            {
                return Err(self.expected("an operator or the end of the statement"));
            }
            d += 1;
            if d > MAX_DEPTH {
                return Err(self.err_at(
                    self.col(),
                    ErrorKind::Syntax(format!("expression nested deeper than {MAX_DEPTH}")),
                ));
            }
            let op_pos = self.pos();
            self.bump();
            let rhs = next(self, d)?;
            let pos = lhs.pos;
            lhs = ExprDecl {
                kind: ExprKind::Binary(op, op_pos, Box::new(lhs), Box::new(rhs)),
                pos,
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self, depth: usize) -> R<ExprDecl> {
        if depth > MAX_DEPTH {
            return Err(self.err_at(
                self.col(),
                ErrorKind::Syntax(format!("expression nested deeper than {MAX_DEPTH}")),
            ));
        }
        if self.is_punct('-') {
            let pos = self.pos();
            self.bump();
            let x = self.unary(depth + 1)?;
            return Ok(ExprDecl {
                kind: ExprKind::Neg(Box::new(x)),
                pos,
            });
        }
        self.primary(depth)
    }

    fn primary(&mut self, depth: usize) -> R<ExprDecl> {
        let pos = self.pos();
        let start = self.col();
        match self.tok().clone() {
            Tok::Int(v) => {
                self.bump();
                // `1.5`: the integer, a '.' right after it, and digits right after that.
                let end = start + self.src[start..].bytes().take_while(u8::is_ascii_digit).count();
                if self.is_punct('.') && self.col() == end {
                    self.bump();
                    let mut stop = end + 1;
                    if matches!(self.tok(), Tok::Int(_)) && self.col() == end + 1 {
                        stop += self.src[stop..].bytes().take_while(u8::is_ascii_digit).count();
                        self.bump();
                    }
                    let f: f64 = self.src[start..stop]
                        .parse()
                        .map_err(|_| self.err_at(start, ErrorKind::Syntax("bad decimal literal".into())))?;
                    return Ok(ExprDecl {
                        kind: ExprKind::Float(f),
                        pos,
                    });
                }
                Ok(ExprDecl {
                    kind: ExprKind::Int(v),
                    pos,
                })
            }
            Tok::Punct('(') => {
                self.bump();
                let e = self.expr(depth + 1)?;
                self.punct(')')?;
                Ok(e)
            }
            Tok::Name(_) | Tok::Compose => {
                let (name, pos) = self.name("a name")?;
                if self.is_punct('[') {
                    let a = self.access(name, pos)?;
                    return Ok(ExprDecl {
                        kind: ExprKind::Read(a),
                        pos,
                    });
                }
                if self.is_punct('(') {
                    let Some(f) = Call::from_name(&name) else {
                        return Err(KernelError::new(
                            pos,
                            ErrorKind::BadCall(format!(
                                "unknown function '{name}' (expected max, min, abs, neg, fma or a type: f32, f64, i32, i64, f16, bf16)"
                            )),
                        ));
                    };
                    self.bump();
                    let mut args = vec![self.expr(depth + 1)?];
                    while self.is_punct(',') {
                        self.bump();
                        args.push(self.expr(depth + 1)?);
                    }
                    self.punct(')')?;
                    if args.len() != f.arity() {
                        return Err(KernelError::new(
                            pos,
                            ErrorKind::BadCall(format!(
                                "{name} takes {} argument(s), got {}",
                                f.arity(),
                                args.len()
                            )),
                        ));
                    }
                    return Ok(ExprDecl {
                        kind: ExprKind::Call(f, args),
                        pos,
                    });
                }
                Ok(ExprDecl {
                    kind: ExprKind::Name(name),
                    pos,
                })
            }
            _ => Err(self.expected("a value (a tensor read, a number, a call or '(')")),
        }
    }

    /// An optional clause `KEYWORD name:INT, ...` (`tile`, `threads`).
    fn sizes(&mut self, keyword: &str, what: &str, size: &str) -> R<Vec<TileDecl>> {
        let mut out = Vec::new();
        if !matches!(self.tok(), Tok::Name(n) if n == keyword) {
            return Ok(out);
        }
        self.bump();
        loop {
            let (name, pos) = self.name(what)?;
            self.punct(':')?;
            let size_pos = self.pos();
            let v = match self.tok() {
                Tok::Int(v) => *v,
                _ => return Err(self.expected(size)),
            };
            self.bump();
            out.push(TileDecl {
                name,
                size: v,
                pos,
                size_pos,
            });
            if !self.is_punct(',') {
                return Ok(out);
            }
            self.bump();
        }
    }

    fn stmt(&mut self) -> R<StmtDecl> {
        let (tensor, pos) = self.name("a statement 'T[i,...] = ...'")?;
        let target = self.access(tensor, pos)?;
        let op_pos = self.pos();
        let op = if self.is_punct('=') {
            self.bump();
            AssignOp::Assign
        } else if self.is_punct('+')
            && self
                .toks
                .get(self.k + 1)
                .is_some_and(|t| t.tok == Tok::Punct('=') && t.col == self.col() + 1)
        {
            self.bump();
            self.bump();
            AssignOp::Accumulate
        } else {
            return Err(self.expected("'=' or '+='"));
        };
        let value = self.expr(0)?;
        Ok(StmtDecl {
            target,
            op,
            op_pos,
            value,
        })
    }
}

/// Parses a `tensor` line (comments removed); `line` is its 1-based number.
///
/// ```
/// use tessera::kernel::parse_tensor;
/// let t = parse_tensor("tensor src : f32[(M,N):(1,M)]", 3).unwrap();
/// assert_eq!((t.name.as_str(), t.elem.name(), t.layout.as_str()), ("src", "f32", "(M,N):(1,M)"));
/// assert_eq!(t.layout_pos.byte, 17);
/// ```
pub fn parse_tensor(code: &str, line: usize) -> Result<TensorDecl, KernelError> {
    let mut p = Parser::new(code, line)?;
    p.keyword("tensor")?;
    let (name, pos) = p.name("a tensor name")?;
    p.punct(':')?;
    let (ty, ty_pos) = p.name("an element type")?;
    let elem =
        ElemType::from_name(&ty).ok_or_else(|| KernelError::new(ty_pos, ErrorKind::UnknownType(ty)))?;
    if !p.is_punct('[') {
        return Err(p.expected("'[' and the layout"));
    }
    let open = p.col();
    // The layout runs to the last token, which must be the closing ']', or to the ']' before
    // a trailing `of N` (the buffer's length).
    let n = p.toks.len();
    let stated = n >= 4
        && matches!(&p.toks[n - 3].tok, Tok::Name(w) if w == "of")
        && matches!(p.toks[n - 2].tok, Tok::Int(_))
        && p.toks[n - 4].tok == Tok::Punct(']');
    let buffer = if stated {
        let Tok::Int(v) = p.toks[n - 2].tok else {
            unreachable!("matched above")
        };
        let at = p.toks[n - 2].col;
        if v < 1 {
            return Err(p.err_at(
                at,
                ErrorKind::Syntax(format!("a buffer of {v} elements: the length must be positive")),
            ));
        }
        Some((v, p.pos_of(at)))
    } else {
        None
    };
    let last = n.saturating_sub(if stated { 4 } else { 2 });
    if last <= p.k || p.toks[last].tok != Tok::Punct(']') {
        p.k = p.toks.len() - 1;
        return Err(p.expected("']' closing the layout at the end of the line"));
    }
    let close = p.toks[last].col;
    let layout = code[open + 1..close].to_string();
    if layout.trim().is_empty() {
        return Err(p.err_at(close, ErrorKind::Syntax("expected a layout".into())));
    }
    Ok(TensorDecl {
        name,
        pos,
        elem,
        layout,
        layout_pos: p.pos_of(open + 1),
        buffer,
    })
}

/// Parses a `kernel` block: `src` holds its lines (comments removed, joined by `\n`), the first
/// being line `first_line` of the file. The block must end with its `}`.
///
/// ```
/// use tessera::kernel::parse_kernel;
/// let k = parse_kernel("kernel gemm tile i:64, j:64 {\n  C[i,j] += A[i,k] * B[j,k]\n}", 7).unwrap();
/// assert_eq!((k.name.as_str(), k.tiles.len(), k.body.len()), ("gemm", 2, 1));
/// assert_eq!((k.body[0].target.pos.line, k.body[0].target.pos.byte), (8, 2));
/// ```
pub fn parse_kernel(src: &str, first_line: usize) -> Result<KernelDecl, KernelError> {
    let mut p = Parser::new(src, first_line)?;
    p.keyword("kernel")?;
    let (name, pos) = p.name("a kernel name")?;
    let tiles = p.sizes("tile", "an index name to tile", "a tile size")?;
    let threads = p.sizes("threads", "an index name", "a thread count")?;
    let vector = if matches!(p.tok(), Tok::Name(n) if n == "vector") {
        p.bump();
        let pos = p.pos();
        let w = match p.tok() {
            Tok::Int(v) => *v,
            _ => return Err(p.expected("a vector width (2 or 4)")),
        };
        p.bump();
        Some((w, pos))
    } else {
        None
    };
    p.punct('{')?;
    let mut body = Vec::new();
    let mut stages = Vec::new();
    loop {
        while p.is_punct(';') {
            p.bump();
        }
        if p.is_punct('}') {
            p.bump();
            break;
        }
        if *p.tok() == Tok::End {
            return Err(p.expected("'}' closing the kernel"));
        }
        // `stage X in L` (a tensor named `stage` is read `stage[..]`).
        let next_is_name = matches!(p.toks.get(p.k + 1).map(|t| &t.tok), Some(Tok::Name(_)));
        if matches!(p.tok(), Tok::Name(n) if n == "stage") && next_is_name {
            if !body.is_empty() {
                return Err(p.expected("a statement ('stage' lines come first)"));
            }
            p.bump();
            let (tensor, pos) = p.name("the tensor to stage")?;
            p.keyword("in")?;
            let (layout, layout_pos) = p.name("a shared-memory layout's name (bound by let)")?;
            stages.push(StageDecl {
                tensor,
                pos,
                layout,
                layout_pos,
            });
            let ends = p.is_punct(';') || p.is_punct('}') || p.pos().line > p.prev_line();
            if !ends {
                return Err(p.expected("';', a line break or '}' after the stage"));
            }
            continue;
        }
        body.push(p.stmt()?);
        let ends = p.is_punct(';') || p.is_punct('}') || p.pos().line > p.prev_line();
        if !ends {
            return Err(p.expected("';', a line break or '}' after the statement"));
        }
    }
    if *p.tok() != Tok::End {
        return Err(p.expected("nothing after the kernel's '}'"));
    }
    Ok(KernelDecl {
        name,
        pos,
        tiles,
        threads,
        vector,
        stages,
        body,
    })
}
