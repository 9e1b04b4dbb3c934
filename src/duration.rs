//! Durations on the command line: `--timeout` reads `500ms`, `2s`, `1.5s` or `1m` on every
//! command that has one. A bare number keeps the unit the command always had (seconds for
//! `check`, `prove`, `build`, `suggest`; milliseconds for `simplify` and `emit`), which each
//! command's `--help` states.

/// The longest duration accepted, in seconds (about 31 years: larger is a typo).
pub const MAX_SECONDS: f64 = 1e9;

/// The unit of a bare number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bare {
    /// A bare number is seconds.
    Seconds,
    /// A bare number is milliseconds.
    Millis,
}

/// Reads `s` as a positive duration in seconds: a number with an optional unit `ms`, `s`,
/// `m` (minutes) or `min`; a bare number is in `bare`.
///
/// @pre none (any text).
/// @post `Ok(x)` has `0 < x <= MAX_SECONDS`; otherwise an error naming the accepted forms.
///
/// ```
/// use tessera::duration::{seconds, Bare};
/// assert_eq!(seconds("500ms", Bare::Seconds), Ok(0.5));
/// assert_eq!(seconds("2", Bare::Seconds), Ok(2.0));
/// assert_eq!(seconds("250", Bare::Millis), Ok(0.25));
/// assert_eq!(seconds("1m", Bare::Millis), Ok(60.0));
/// assert!(seconds("0s", Bare::Seconds).is_err());
/// assert!(seconds("2h", Bare::Seconds).is_err());
/// ```
pub fn seconds(s: &str, bare: Bare) -> Result<f64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let scale = match (unit.trim(), bare) {
        ("", Bare::Seconds) | ("s", _) => 1.0,
        ("", Bare::Millis) | ("ms", _) => 1e-3,
        ("m" | "min", _) => 60.0,
        _ => return Err(bad(s, bare)),
    };
    let n: f64 = num.parse().map_err(|_| bad(s, bare))?;
    let x = n * scale;
    if !(x.is_finite() && x > 0.0 && x <= MAX_SECONDS) {
        return Err(format!(
            "'{s}' must be a positive duration of at most {MAX_SECONDS:e} seconds"
        ));
    }
    Ok(x)
}

/// The error of an unreadable duration.
fn bad(s: &str, bare: Bare) -> String {
    let unit = match bare {
        Bare::Seconds => "seconds",
        Bare::Millis => "milliseconds",
    };
    format!("'{s}' is not a duration: write 500ms, 2s or 1m (a bare number is {unit} here)")
}

/// Clap's value parser of a duration whose bare number is seconds; the value in seconds.
///
/// @post as [`seconds`] with [`Bare::Seconds`].
///
/// ```
/// assert_eq!(tessera::duration::parse_seconds("1m"), Ok(60.0));
/// ```
pub fn parse_seconds(s: &str) -> Result<f64, String> {
    seconds(s, Bare::Seconds)
}

/// Clap's value parser of a duration whose bare number is milliseconds; the value in whole
/// milliseconds (at least 1).
///
/// @post `Ok(ms)` has `ms >= 1`.
///
/// ```
/// assert_eq!(tessera::duration::parse_millis("2s"), Ok(2000));
/// assert_eq!(tessera::duration::parse_millis("750"), Ok(750));
/// ```
pub fn parse_millis(s: &str) -> Result<u64, String> {
    let x = seconds(s, Bare::Millis)?;
    // At most 1e12 ms: exact in f64 and in u64.
    Ok(((x * 1000.0).round() as u64).max(1))
}
