//! Durations on the command line: `--timeout` reads `500ms`, `2s`, `1.5s` or `1m` on every
//! command that has one, and a bare number is seconds on every one of them (one unit
//! everywhere; `simplify` and `emit` once read milliseconds).

/// The longest duration accepted, in seconds (about 31 years: larger is a typo).
pub const MAX_SECONDS: f64 = 1e9;

/// Reads `s` as a positive duration in seconds: a number with an optional unit `ms`, `s`,
/// `m` (minutes) or `min`; a bare number is seconds.
///
/// @pre none (any text).
/// @post `Ok(x)` has `0 < x <= MAX_SECONDS`; otherwise an error naming the accepted forms.
///
/// ```
/// use tessera::duration::seconds;
/// assert_eq!(seconds("500ms"), Ok(0.5));
/// assert_eq!(seconds("2"), Ok(2.0));
/// assert_eq!(seconds("1m"), Ok(60.0));
/// assert!(seconds("0s").is_err());
/// assert!(seconds("2h").is_err());
/// ```
pub fn seconds(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let scale = match unit.trim() {
        "" | "s" => 1.0,
        "ms" => 1e-3,
        "m" | "min" => 60.0,
        _ => return Err(bad(s)),
    };
    let n: f64 = num.parse().map_err(|_| bad(s))?;
    let x = n * scale;
    if !(x.is_finite() && x > 0.0 && x <= MAX_SECONDS) {
        return Err(format!(
            "'{s}' must be a positive duration of at most {MAX_SECONDS:e} seconds"
        ));
    }
    Ok(x)
}

/// The error of an unreadable duration.
fn bad(s: &str) -> String {
    format!("'{s}' is not a duration: write 500ms, 2s or 1m (a bare number is seconds)")
}

/// Clap's value parser of a duration; the value in seconds.
///
/// @post as [`seconds`].
///
/// ```
/// assert_eq!(tessera::duration::parse_seconds("1m"), Ok(60.0));
/// ```
pub fn parse_seconds(s: &str) -> Result<f64, String> {
    seconds(s)
}

/// Clap's value parser of a duration (a bare number is seconds, as everywhere); the value in
/// whole milliseconds (at least 1).
///
/// @post `Ok(ms)` has `ms >= 1` and `ms` is [`seconds`]' value in milliseconds, rounded.
///
/// ```
/// assert_eq!(tessera::duration::parse_millis("2s"), Ok(2000));
/// assert_eq!(tessera::duration::parse_millis("750ms"), Ok(750));
/// assert_eq!(tessera::duration::parse_millis("3"), Ok(3000));
/// ```
pub fn parse_millis(s: &str) -> Result<u64, String> {
    let x = seconds(s)?;
    // At most 1e12 ms: exact in f64 and in u64.
    Ok(((x * 1000.0).round() as u64).max(1))
}
