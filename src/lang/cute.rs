//! CuTe's own spellings, read back as Tessera text for a hint: the C++ types and functions
//! (`Int<4>{}`, `_4`, `Swizzle<3,3,3>{}`, `Layout<Shape<_4,_8>, Stride<_1,_4>>{}`,
//! `make_layout(make_shape(4,8), make_stride(1,4))`) and PyCuTe / the CuTe DSL's
//! (`Layout((4,8),(1,4))`, `Swizzle(3,3,3)`). An expression that fails to parse or evaluate
//! and reads as one of these gets the exact Tessera text to write, e.g. `(4,8):(1,4)`. The
//! translation is only a hint: nothing is evaluated from it.

/// The deepest nesting translated (a hint, not a parser: deeper text gets none).
const MAX_DEPTH: usize = 64;

/// A piece of the text: kept as written, a template `Name<args>{}`, a call `name(args)`, or
/// parentheses.
enum Node {
    Text(String),
    Template(String, Vec<Vec<Node>>),
    Call(String, Vec<Vec<Node>>),
    Paren(Vec<Vec<Node>>),
}

/// The templates CuTe's C++ spells with angle brackets.
const TEMPLATES: [&str; 10] = [
    "Int", "C", "Shape", "Stride", "Coord", "Tile", "Step", "tuple", "Layout", "Swizzle",
];

/// The Tessera text of `src` read as CuTe C++ or PyCuTe, when that differs from `src`.
///
/// @pre none (any text).
/// @post `Some(t)` has `t != src`; `None` when nothing in `src` is CuTe's spelling.
///
/// ```
/// use tessera::lang::cute::translate;
/// assert_eq!(translate("Int<4>{}").as_deref(), Some("4"));
/// assert_eq!(translate("Swizzle<3,3,3>{}").as_deref(), Some("Sw<3,3,3>"));
/// assert_eq!(
///     translate("Layout<Shape<_4,_8>, Stride<_1,_4>>{}").as_deref(),
///     Some("(4,8):(1,4)")
/// );
/// assert_eq!(
///     translate("make_layout(make_shape(4,8), make_stride(1,4))").as_deref(),
///     Some("(4,8):(1,4)")
/// );
/// assert_eq!(translate("Layout((4,8),(1,4))").as_deref(), Some("(4,8):(1,4)"));
/// assert_eq!(translate("(4,8):(8,1)"), None);
/// ```
pub fn translate(src: &str) -> Option<String> {
    let chars: Vec<char> = src.chars().collect();
    let mut p = Reader { s: &chars, k: 0 };
    let nodes = p.seq(0, &[])?;
    if p.k != chars.len() {
        return None;
    }
    let out = render(&nodes);
    let squash = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    (squash(&out) != squash(src)).then_some(out)
}

/// The hint appended to an error on `src`: `; this is CuTe's spelling: in Tessera write `T``.
///
/// @post `None` exactly when [`translate`] is `None`.
///
/// ```
/// let h = tessera::lang::cute::hint("Int<4>{}").unwrap();
/// assert!(h.contains("write `4`"));
/// ```
pub fn hint(src: &str) -> Option<String> {
    translate(src.trim()).map(|t| format!("; this reads as CuTe's spelling: in Tessera write `{t}`"))
}

struct Reader<'a> {
    s: &'a [char],
    k: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<char> {
        self.s.get(self.k).copied()
    }

    /// Nodes up to (not including) one of `stop` at this level.
    fn seq(&mut self, depth: usize, stop: &[char]) -> Option<Vec<Node>> {
        if depth > MAX_DEPTH {
            return None;
        }
        let mut out = Vec::new();
        while let Some(c) = self.peek() {
            if stop.contains(&c) {
                break;
            }
            if c.is_ascii_alphabetic() || c == '_' {
                let start = self.k;
                while let Some(c) = self.peek() {
                    if c.is_ascii_alphanumeric()
                        || c == '_'
                        || c == ':' && self.s.get(self.k + 1) == Some(&':')
                    {
                        self.k += if c == ':' { 2 } else { 1 };
                    } else {
                        break;
                    }
                }
                let name: String = self.s[start..self.k].iter().collect();
                let name = name.strip_prefix("cute::").unwrap_or(&name).to_string();
                if self.peek() == Some('<') && TEMPLATES.contains(&name.as_str()) {
                    self.k += 1;
                    let args = self.args(depth, '>')?;
                    if self.peek() == Some('{') && self.s.get(self.k + 1) == Some(&'}') {
                        self.k += 2;
                    }
                    out.push(Node::Template(name, args));
                } else if self.peek() == Some('(') {
                    self.k += 1;
                    out.push(Node::Call(name, self.args(depth, ')')?));
                } else {
                    out.push(Node::Text(name));
                }
            } else if c == '(' {
                self.k += 1;
                out.push(Node::Paren(self.args(depth, ')')?));
            } else if c == ')' || c == '>' && stop.contains(&'>') {
                return None;
            } else {
                self.k += 1;
                out.push(Node::Text(c.to_string()));
            }
        }
        Some(out)
    }

    /// Comma-separated arguments up to the closing `close`, consumed.
    fn args(&mut self, depth: usize, close: char) -> Option<Vec<Vec<Node>>> {
        let mut args = Vec::new();
        loop {
            args.push(self.seq(depth + 1, &[',', close])?);
            match self.peek()? {
                ',' => self.k += 1,
                _ => {
                    self.k += 1;
                    return Some(args);
                }
            }
        }
    }
}

/// Whether an argument is CuTe's stride (`make_stride(..)`, `Stride<..>`), so that
/// `make_layout(shape, stride)` is read as CuTe means it.
fn is_stride(arg: &[Node]) -> bool {
    let first = arg
        .iter()
        .find(|n| !matches!(n, Node::Text(t) if t.trim().is_empty()));
    matches!(first, Some(Node::Call(n, _) | Node::Template(n, _)) if n == "make_stride" || n == "Stride")
}

/// The Tessera text of a sequence.
fn render(nodes: &[Node]) -> String {
    nodes.iter().map(node).collect()
}

/// `(a,b,...)`.
fn tuple(args: &[Vec<Node>]) -> String {
    let items: Vec<String> = args.iter().map(|a| render(a).trim().to_string()).collect();
    format!("({})", items.join(","))
}

/// A shape and a stride as `S:D`.
fn layout(args: &[Vec<Node>]) -> Option<String> {
    match args {
        [s] => Some(render(s).trim().to_string()),
        [s, d] => Some(format!("{}:{}", render(s).trim(), render(d).trim())),
        _ => None,
    }
}

fn node(n: &Node) -> String {
    match n {
        Node::Text(t) => match t.strip_prefix('_') {
            Some(d) if !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()) => d.to_string(),
            _ => t.clone(),
        },
        Node::Paren(args) => tuple(args),
        Node::Template(name, args) => match name.as_str() {
            "Int" | "C" if args.len() == 1 => render(&args[0]).trim().to_string(),
            "Swizzle" => format!("Sw<{}>", tuple(args).trim_matches(['(', ')'])),
            "Layout" => layout(args).unwrap_or_else(|| format!("Layout<{}>", tuple(args))),
            _ => tuple(args),
        },
        Node::Call(name, args) => match name.as_str() {
            "make_shape" | "make_stride" | "make_coord" | "make_tuple" | "make_step" | "Shape" | "Stride"
            | "Coord" => tuple(args),
            "Swizzle" => format!("Sw<{}>", tuple(args).trim_matches(['(', ')'])),
            "Layout" => layout(args).unwrap_or_else(|| format!("{name}{}", tuple(args))),
            "make_layout" if args.len() == 2 && is_stride(&args[1]) => {
                layout(args).unwrap_or_else(|| format!("{name}{}", tuple(args)))
            }
            // A swizzle composed with a layout is written with `o`.
            "composition" if args.len() == 2 && render(&args[0]).trim().starts_with("Sw<") => {
                format!("{} o {}", render(&args[0]).trim(), render(&args[1]).trim())
            }
            _ => format!("{name}{}", tuple(args)),
        },
    }
}

/// `e`, an error on the text `src`, with [`hint`]'s translation appended when `src` reads as
/// CuTe's spelling; otherwise `e` unchanged.
///
/// @post the kind of a parse error is kept (its column too).
///
/// ```
/// use tessera::lang::{cute::with_hint, Session};
/// let s = Session::new(&[], &[]).unwrap();
/// let e = s.value("Swizzle<3,3,3>{}").unwrap_err();
/// assert!(e.to_string().contains("write `Sw<3,3,3>`"));
/// ```
pub fn with_hint(e: tessera_ir::Error, src: &str) -> tessera_ir::Error {
    use tessera_ir::Error;
    // Only a parse error or an invalid input takes a hint: answer the others (a failed
    // condition of the algebra, an overflow) without reading the text again.
    if !matches!(e, Error::Parse(_) | Error::Invalid(_)) {
        return e;
    }
    let Some(h) = hint(src) else {
        return e;
    };
    match e {
        Error::Parse(mut p) => {
            p.msg.push_str(&h);
            Error::Parse(p)
        }
        Error::Invalid(m) => Error::Invalid(m + &h),
        other => other,
    }
}
