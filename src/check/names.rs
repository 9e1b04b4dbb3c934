//! Undefined names in a check file: the message says how a check file defines a name (`let`
//! or `param` above the use, not the command line's `--param`) and the nearest defined name
//! by edit distance.

use crate::lang::Env;
use tessera_ir::sym::SymInt;

/// The number of single-character insertions, deletions and substitutions from `a` to `b`.
///
/// @post symmetric; 0 exactly when `a == b`.
///
/// ```
/// use tessera::check::names::edit_distance;
/// assert_eq!(edit_distance("Smem", "Smen"), 1);
/// assert_eq!(edit_distance("TV", "Tv2"), 2);
/// ```
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (diag + usize::from(ca != cb)).min(row[j] + 1).min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// The defined name nearest `name` (at most a third of its length away, at least 2 edits, 1
/// for names of one or two characters; ties by name), if any.
///
/// @post the result is one of `defined`.
///
/// ```
/// use tessera::check::names::nearest;
/// assert_eq!(nearest("Smme", ["Smem", "TV"].into_iter()), Some("Smem".to_string()));
/// assert_eq!(nearest("X", ["Smem"].into_iter()), None);
/// ```
pub fn nearest<'a>(name: &str, defined: impl Iterator<Item = &'a str>) -> Option<String> {
    let n = name.chars().count();
    let limit = if n <= 2 { 1 } else { (n / 3).max(2) };
    defined
        .map(|d| (edit_distance(name, d), d))
        .filter(|&(k, d)| k <= limit || d.eq_ignore_ascii_case(name))
        .min()
        .map(|(_, d)| d.to_string())
}

/// A check file's message for an evaluation error `msg` on `text`: an unknown name gets the
/// check file's ways to define it and the nearest defined name; text in CuTe's spelling gets
/// its Tessera translation ([`crate::lang::cute::hint`]).
///
/// @post other messages are returned unchanged.
///
/// ```
/// use tessera::check::names::explain;
/// use tessera::lang::{Env, Value};
/// use tessera_ir::{Int, sym::SymInt};
/// let mut env = Env::new();
/// env.bind("Smem", Value::Int(SymInt::lit(4)));
/// let m = explain("unknown name 'Smme' (declare a parameter with --param Smme)".into(), "Smme", &env);
/// assert!(m.contains("let Smme = ...") && m.contains("did you mean 'Smem'"), "{m}");
/// ```
pub fn explain(msg: String, text: &str, env: &Env<SymInt>) -> String {
    let mut msg = match msg
        .strip_prefix("unknown name '")
        .and_then(|r| r.split_once('\''))
    {
        Some((name, _)) => {
            let near = nearest(name, env.names())
                .map(|d| format!("; did you mean '{d}'?"))
                .unwrap_or_default();
            format!("unknown name '{name}': define it above with `let {name} = ...` or `param {name}`{near}")
        }
        None => msg,
    };
    if let Some(h) = crate::lang::cute::hint(text) {
        msg.push_str(&h);
    }
    msg
}
