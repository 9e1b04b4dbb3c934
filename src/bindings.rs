//! `--bind NAME=VALUE`: the one reader of parameter bindings behind every command that takes
//! them (`eval`, `prove`, `simplify`, `lower`, `emit`, `draw`, `run`, `build`). Each argument
//! holds one binding or several separated by commas (`M=4096,N=4096`); spaces around the name
//! and the value are ignored. Which names may be bound, and to what, is the caller's question
//! (declared parameters and their facts, a kernel's parameters).

/// The bindings of `args`, in the order given; `reserved` names the words that cannot be a
/// parameter (the expression language's keywords and built-ins,
/// [`crate::lang::builtins::is_reserved`]).
///
/// @pre none (any text).
/// @post each name is an identifier that is not `reserved`, and appears once; each value is an
/// `i64`. Otherwise an error naming the argument and what is wrong with it.
///
/// ```
/// use tessera::lang::builtins::is_reserved;
/// let parse = |a: &[&str]| tessera::bindings::parse(a, is_reserved);
/// assert_eq!(
///     parse(&["M=4096,N= 8", "K=-2"]).unwrap(),
///     [("M".to_string(), 4096), ("N".to_string(), 8), ("K".to_string(), -2)]
/// );
/// assert!(parse(&["M=1,M=2"]).unwrap_err().contains("'M' is bound twice"));
/// assert!(parse(&["M"]).unwrap_err().contains("expects NAME=VALUE"));
/// assert!(parse(&["M=x"]).unwrap_err().contains("'x' is not an integer"));
/// assert!(parse(&["o=1"]).unwrap_err().contains("cannot be a parameter name"));
/// ```
pub fn parse<S: AsRef<str>>(
    args: &[S],
    reserved: impl Fn(&str) -> bool,
) -> Result<Vec<(String, i64)>, String> {
    let mut out: Vec<(String, i64)> = Vec::new();
    for b in args.iter().flat_map(|a| a.as_ref().split(',')) {
        let Some((n, v)) = b.split_once('=').map(|(n, v)| (n.trim(), v.trim())) else {
            return Err(format!("--bind expects NAME=VALUE, got '{b}'"));
        };
        let identifier = n
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !identifier || reserved(n) {
            return Err(format!("--bind: '{n}' cannot be a parameter name"));
        }
        let Ok(v) = v.parse::<i64>() else {
            return Err(format!("--bind {n}: '{v}' is not an integer"));
        };
        if out.iter().any(|(m, _)| m == n) {
            return Err(format!("--bind {n}: '{n}' is bound twice"));
        }
        out.push((n.to_string(), v));
    }
    Ok(out)
}
