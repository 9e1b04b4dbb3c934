//! Identifiers of the generated code: argument names per language, output names sanitized,
//! and the names the generated code reserves for itself.

use crate::error::EmitError;
use crate::lang::Lang;
use tessera_ir::index::Var;

/// Keywords of C11 and C++17 (CUDA is C++), and names the C headers we include define.
const C_KEYWORDS: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "const",
    "const_cast",
    "constexpr",
    "continue",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "int64_t",
    "uint64_t",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "xor_eq",
    "assert",
    "NDEBUG",
    "INT64_C",
    "INT64_MIN",
    "INT64_MAX",
];

/// Keywords of Rust 2024, and the names the generated Rust uses.
const RUST_KEYWORDS: &[&str] = &[
    "as",
    "async",
    "await",
    "break",
    "const",
    "continue",
    "crate",
    "dyn",
    "else",
    "enum",
    "extern",
    "false",
    "fn",
    "for",
    "gen",
    "if",
    "impl",
    "in",
    "let",
    "loop",
    "match",
    "mod",
    "move",
    "mut",
    "pub",
    "ref",
    "return",
    "self",
    "static",
    "struct",
    "super",
    "trait",
    "true",
    "type",
    "unsafe",
    "use",
    "where",
    "while",
    "abstract",
    "become",
    "box",
    "do",
    "final",
    "macro",
    "override",
    "priv",
    "try",
    "typeof",
    "unsized",
    "virtual",
    "yield",
    "i64",
    "floor_div",
    "floor_mod",
];

/// Whether `s` is an ASCII identifier: a letter or `_`, then letters, digits and `_`.
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `FooBar` -> `foo_bar`, `M` -> `m`, `BM` -> `bm`, `tile_M` -> `tile_m`.
pub(crate) fn snake_case(s: &str) -> String {
    let cs: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len() + 2);
    for (k, &c) in cs.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev = k.checked_sub(1).map(|j| cs[j]);
            let next = cs.get(k + 1).copied();
            let boundary = prev.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit())
                || (prev.is_some_and(|p| p.is_ascii_uppercase())
                    && next.is_some_and(|n| n.is_ascii_lowercase()));
            if boundary {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// An output name as an identifier: `coord[0]` -> `coord_0`, `coord[1][0]` -> `coord_1_0`.
/// Every run of characters that cannot be in an identifier becomes one `_`; trailing ones
/// are dropped; a leading digit gets a `_` before it.
///
/// ```
/// assert_eq!(tessera_codegen::sanitize("coord[1][0]"), "coord_1_0");
/// assert_eq!(tessera_codegen::sanitize("offset"), "offset");
/// assert_eq!(tessera_codegen::sanitize("0 x"), "_0_x");
/// ```
pub fn sanitize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    while out.len() > 1 && out.ends_with('_') {
        out.pop();
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// Names the generated code uses for itself: `t<k>` locals.
fn is_local(s: &str) -> bool {
    s.len() > 1 && s.starts_with('t') && s[1..].chars().all(|c| c.is_ascii_digit())
}

/// Checks a name the user chose (the function's, a parameter's) in `lang`, as written there.
pub(crate) fn check(name: &str, written: &str, lang: Lang) -> Result<(), EmitError> {
    let bad = |why: &str| {
        Err(EmitError::InvalidName {
            name: name.to_string(),
            why: why.to_string(),
        })
    };
    if !is_identifier(written) {
        return bad("not an identifier (letters, digits and _, not starting with a digit)");
    }
    let keywords = match lang {
        Lang::Rust => RUST_KEYWORDS,
        _ => C_KEYWORDS,
    };
    if keywords.contains(&written) {
        return bad(&format!("a reserved word in {lang}"));
    }
    if is_local(written)
        || written.starts_with("tessera_")
        || written.starts_with("out_")
        || written.starts_with("__")
    {
        return bad("the generated code uses names of this form (t<k>, out_*, tessera_*, __*)");
    }
    if lang == Lang::Rust && written.starts_with('_') {
        return bad("a leading _ marks an unused binding in Rust");
    }
    Ok(())
}

/// How an input is named in `lang`: as it prints (`i`, `c0`, `M`), in snake case for Rust
/// (`M` -> `m`), with `arg_` before it in PTX parameter names.
pub(crate) fn arg_name(v: &Var, lang: Lang) -> String {
    let s = v.to_string();
    match lang {
        Lang::Rust => snake_case(&s),
        Lang::Ptx => format!("arg_{s}"),
        Lang::C | Lang::Cuda => s,
    }
}

/// The function's name in `lang` (snake case for Rust).
pub(crate) fn function_name(name: &str, lang: Lang) -> String {
    match lang {
        Lang::Rust => snake_case(name),
        _ => name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_of_parameter_names() {
        assert_eq!(snake_case("M"), "m");
        assert_eq!(snake_case("BlockM"), "block_m");
        assert_eq!(snake_case("BM"), "bm");
        assert_eq!(snake_case("HTTPServer"), "http_server");
        assert_eq!(snake_case("tile_M2"), "tile_m2");
        assert_eq!(snake_case("M2N"), "m2_n");
    }

    #[test]
    fn identifiers_and_reserved_names() {
        assert!(is_identifier("a_1") && is_identifier("_x") && !is_identifier("1a") && !is_identifier(""));
        assert!(check("M", "M", Lang::C).is_ok());
        assert!(check("int", "int", Lang::C).is_err());
        assert!(check("t3", "t3", Lang::Rust).is_err());
        assert!(check("tx", "tx", Lang::Rust).is_ok());
        assert!(check("fn", "fn", Lang::Rust).is_err());
        assert!(check("fn", "fn", Lang::C).is_ok());
    }
}
