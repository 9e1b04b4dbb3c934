//! Reading check files: `param`, `let`, `assert` and `tensor` lines, `kernel` blocks (which
//! may span lines), `#` comments.

use super::props::{locate, property};
use super::{Assertion, Identity};
use crate::identity::Term;
use crate::kernel;
use crate::lang::{Env, Session, eval_expr};
use std::fmt;
use std::sync::Arc;
use tessera_codegen::kernel::{Kernel, Tensor, obligation_property, obligations};
use tessera_ir::Error;
use tessera_ir::sym::SymInt;
use tessera_ir::text::ExprKind;
use tessera_ir::text::parse_expr;

/// A bad check file: where, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckError {
    /// The file.
    pub file: String,
    /// Line, 1-based.
    pub line: usize,
    /// Column, 1-based (in characters).
    pub col: usize,
    /// The message.
    pub msg: String,
    /// The text of the line, for the caret.
    pub text: String,
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}\n  {}\n  {}^",
            self.file,
            self.line,
            self.col,
            self.msg,
            self.text,
            " ".repeat(self.col.saturating_sub(1))
        )
    }
}

impl std::error::Error for CheckError {}

/// A loaded check file.
#[derive(Clone, Debug)]
pub struct CheckFile {
    /// Its path.
    pub path: String,
    /// Its assertions, in order (a kernel's proof is one of them).
    pub assertions: Vec<Assertion>,
    /// Its tensors, in order.
    pub tensors: Vec<Tensor>,
    /// Its kernels, checked, in order.
    pub kernels: Vec<Kernel>,
}

/// Strips a `#` comment.
fn code(line: &str) -> &str {
    line.split('#').next().unwrap_or("")
}

/// The byte offsets of `word` as a whole word in `text`.
fn words_at<'a>(text: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word)
        .map(|(k, _)| k)
        .filter(move |&k| !text[..k].ends_with(ident) && !text[k + word.len()..].starts_with(ident))
}

/// The text after the keyword `word` and the whitespace (spaces or tabs) that follows it, when
/// `t` starts with that keyword.
fn keyword<'a>(t: &'a str, word: &str) -> Option<&'a str> {
    let rest = t.strip_prefix(word)?;
    rest.starts_with([' ', '\t']).then_some(rest)
}

/// Parses a check file's text.
pub fn load(path: &str, src: &str) -> Result<CheckFile, CheckError> {
    let err = |line: usize, byte: usize, msg: String, text: &str| CheckError {
        file: path.to_string(),
        line,
        col: text[..byte.min(text.len())].chars().count() + 1,
        msg,
        text: text.to_string(),
    };
    // A UTF-8 byte-order mark (as some editors write) is not part of the first line.
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    // Parameters are global: declare them all first, each once.
    let mut decls: Vec<String> = Vec::new();
    let mut declared: Vec<String> = Vec::new();
    for (k, raw) in src.lines().enumerate() {
        let c = code(raw);
        let t = c.trim_start();
        if let Some(rest) = keyword(t, "param") {
            let off = c.len() - rest.len();
            let mut probe = tessera_ir::sym::Facts::default();
            for d in &decls {
                let _ = crate::lang::declare(&mut probe, d);
            }
            let names = crate::lang::declare(&mut probe, rest).map_err(|e| {
                let col = match &e {
                    Error::Parse(p) => off + p.col,
                    _ => off,
                };
                err(
                    k + 1,
                    col,
                    e.to_string().lines().next().unwrap_or_default().to_string(),
                    raw,
                )
            })?;
            // The names come before `where`; a name repeated on this line is pointed at where
            // it repeats.
            let listed = &rest[..words_at(rest, "where").next().unwrap_or(rest.len())];
            for (i, n) in names.iter().enumerate() {
                if declared.contains(n) {
                    let seen = names[..i].iter().filter(|x| *x == n).count();
                    let col = off + words_at(listed, n).nth(seen).unwrap_or(0);
                    return Err(err(k + 1, col, format!("parameter '{n}' is declared twice"), raw));
                }
                declared.push(n.clone());
            }
            decls.push(rest.to_string());
        }
    }
    let d: Vec<&str> = decls.iter().map(String::as_str).collect();
    let session = Session::new(&d, &[]).map_err(|e| err(1, 0, e.to_string(), ""))?;
    let mut env: Env<SymInt> = session.env().clone();
    let mut assertions = Vec::new();
    // Each `let` name's defining term, for the provers that rewrite expressions.
    let mut defs: Vec<(String, Term)> = Vec::new();
    let lines: Vec<&str> = src.lines().collect();
    let mut tensors: Vec<Tensor> = Vec::new();
    let mut kernels: Vec<Kernel> = Vec::new();
    let mut k = 0;
    while k < lines.len() {
        let raw = lines[k];
        let line = k + 1;
        k += 1;
        let c = code(raw);
        let t = c.trim_start();
        let indent = c.len() - t.len();
        if t.trim().is_empty() || keyword(t, "param").is_some() {
            continue;
        }
        let kerr = |e: kernel::KernelError| {
            let text = lines.get(e.pos.line.wrapping_sub(1)).copied().unwrap_or(raw);
            err(e.pos.line, e.pos.byte, e.to_string(), text)
        };
        if keyword(t, "tensor").is_some() {
            let d = kernel::parse_tensor(c, line).map_err(kerr)?;
            if tensors.iter().any(|x| x.name == d.name) {
                return Err(err(
                    line,
                    d.pos.byte,
                    format!("tensor '{}' is declared twice", d.name),
                    raw,
                ));
            }
            let v =
                eval_at(&d.layout, d.layout_pos.byte, &env).map_err(|(col, msg)| err(line, col, msg, raw))?;
            let f = v
                .to_func()
                .map_err(|e| err(line, d.layout_pos.byte, format!("tensor {}: {e}", d.name), raw))?;
            tensors.push(kernel::tensor(&d, f).map_err(kerr)?);
            continue;
        }
        if keyword(t, "kernel").is_some() {
            // The block runs to the first line with a '}' (after comments are removed).
            let mut end = k - 1;
            while end < lines.len() && !code(lines[end]).contains('}') {
                end += 1;
            }
            if end == lines.len() {
                return Err(err(line, indent, "kernel: no '}' closes its body".into(), raw));
            }
            let block: Vec<&str> = lines[k - 1..=end].iter().map(|l| code(l)).collect();
            k = end + 1;
            let decl = kernel::parse_kernel(&block.join("\n"), line).map_err(kerr)?;
            if kernels.iter().any(|x| x.name == decl.name) {
                return Err(err(
                    line,
                    decl.pos.byte,
                    format!("kernel '{}' is declared twice", decl.name),
                    raw,
                ));
            }
            let mut stage_layouts = Vec::with_capacity(decl.stages.len());
            for st in &decl.stages {
                let sline = st.layout_pos.line;
                let stext = lines.get(sline.wrapping_sub(1)).copied().unwrap_or(raw);
                let v = eval_at(&st.layout, st.layout_pos.byte, &env)
                    .map_err(|(col, msg)| err(sline, col, msg, stext))?;
                let f = v.to_func().map_err(|e| {
                    err(
                        sline,
                        st.layout_pos.byte,
                        format!("stage {}: {e}", st.tensor),
                        stext,
                    )
                })?;
                stage_layouts.push(f);
            }
            let kn = kernel::check(&decl, &tensors, &stage_layouts).map_err(kerr)?;
            assertions.push(kernel_assertion(path, line, &kn));
            kernels.push(kn);
            continue;
        }
        if let Some(rest) = keyword(t, "let") {
            let Some((name, expr)) = rest.split_once('=') else {
                return Err(err(line, indent + 4, "expected 'let NAME = EXPR'".into(), raw));
            };
            let name = name.trim();
            if name.is_empty()
                || !name.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
                || name.starts_with(|ch: char| ch.is_ascii_digit())
            {
                return Err(err(
                    line,
                    indent + 4,
                    format!("'{name}' is not a valid name"),
                    raw,
                ));
            }
            if crate::lang::is_reserved(name) {
                return Err(err(line, indent + 4, format!("'{name}' is a built-in name"), raw));
            }
            let off = indent + "let".len() + rest.find('=').unwrap_or(0) + 1;
            let v = eval_at(expr, off, &env)
                .and_then(|v| {
                    let start = off + expr.len() - expr.trim_start().len();
                    v.check_depth().map_err(|e| (start, e.to_string()))
                })
                .map_err(|(col, msg)| err(line, col, msg, raw))?;
            let term = parse_expr(expr)
                .ok()
                .and_then(|e| Term::from_expr(&e, &defs, &env, expr).ok())
                .unwrap_or_else(|| Term::leaf(v.clone()));
            defs.push((name.to_string(), term));
            env.bind(name, v);
            continue;
        }
        if let Some(rest) = keyword(t, "assert") {
            let off = indent + "assert".len();
            // `assert bank_conflict_free(kernel NAME)`: every staged access of the kernel.
            let compact: String = rest.chars().filter(|c| !c.is_whitespace()).collect();
            if let Some(name) = compact
                .strip_prefix("bank_conflict_free(kernel")
                .and_then(|r| r.strip_suffix(')'))
            {
                let col = off + rest.find("kernel").unwrap_or(0);
                let Some(k) = kernels.iter().find(|k| k.name == name) else {
                    return Err(err(line, col, format!("no kernel '{name}' declared above"), raw));
                };
                let banks =
                    tessera_codegen::stage_banks(k).map_err(|e| err(line, col, e.to_string(), raw))?;
                if banks.is_empty() {
                    return Err(err(
                        line,
                        col,
                        format!(
                            "kernel {name} stages nothing (no 'stage' line): no shared-memory access to check"
                        ),
                        raw,
                    ));
                }
                for (what, bank) in banks {
                    assertions.push(Assertion {
                        file: path.to_string(),
                        line,
                        text: format!("bank_conflict_free(kernel {name}): {what}"),
                        identity: None,
                        property: tessera_verifier::Property::BankConflictFree(bank),
                        kernel: None,
                    });
                }
                continue;
            }
            let p = property(rest, off, &env).map_err(|(col, msg)| err(line, col, msg, raw))?;
            assertions.push(Assertion {
                file: path.to_string(),
                line,
                text: rest.trim().to_string(),
                identity: identity(rest, &defs, &env),
                property: p,
                kernel: None,
            });
            continue;
        }
        return Err(err(
            line,
            indent,
            "expected 'param', 'let', 'assert', 'tensor' or 'kernel'".into(),
            raw,
        ));
    }
    Ok(CheckFile {
        path: path.to_string(),
        assertions,
        tensors,
        kernels,
    })
}

/// The assertion-like line of a kernel: its proof obligations (the property is the first
/// one; [`super::decide`] proves them all).
fn kernel_assertion(path: &str, line: usize, k: &Kernel) -> Assertion {
    let outputs = k
        .stmts
        .iter()
        .map(|s| s.target.tensor)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let what = if outputs == 1 {
        "output injective"
    } else {
        "outputs injective"
    };
    let (t, kind) = obligations(k)[0];
    Assertion {
        file: path.to_string(),
        line,
        text: format!("kernel {}: accesses in bounds, {what}", k.name),
        property: obligation_property(k, t, kind),
        identity: None,
        kernel: Some(Arc::new(k.clone())),
    }
}

/// The two sides of `equal(X, Y)`, as terms and values; `None` for any other assertion.
fn identity(text: &str, defs: &[(String, Term)], env: &Env<SymInt>) -> Option<Identity> {
    let e = parse_expr(text).ok()?;
    let ExprKind::Call(name, args) = &e.kind else {
        return None;
    };
    if name != "equal" || args.len() != 2 {
        return None;
    }
    Some(Identity {
        lhs: Term::from_expr(&args[0], defs, env, text).ok()?,
        rhs: Term::from_expr(&args[1], defs, env, text).ok()?,
        lhs_value: eval_expr(&args[0], env, text).ok()?,
        rhs_value: eval_expr(&args[1], env, text).ok()?,
    })
}

/// Evaluates `text`, which starts at byte `off` of its line; errors carry a line column.
pub(super) fn eval_at(
    text: &str,
    off: usize,
    env: &Env<SymInt>,
) -> Result<crate::lang::Value<SymInt>, (usize, String)> {
    let e = parse_expr(text).map_err(|p| (off + p.col, super::names::explain(p.msg, text, env)))?;
    eval_expr(&e, env, text).map_err(|x| {
        let (col, msg) = locate(x, off);
        (col, super::names::explain(msg, text, env))
    })
}
