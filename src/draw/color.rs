//! Colours of the cells: the colour functors of PyCuTe's `draw_colors` (which key each picks
//! and how many colours it cycles through), with palettes of our own defined by formula.
//!
//! * [`Color::Index`] (PyCuTe's `index_grey_8x`, the default of layout pictures): eight greys
//!   by `offset % 8`, from light to mid grey in bit-reversed order (neighbours contrast).
//! * [`Color::Bank8`], [`Color::Bank16`], [`Color::Bank32`] (`bank_color_8x/16x/32x`): the
//!   bank `offset % N`, from a spectrum of 32 light colours (evenly spaced hues, consecutive
//!   banks 146 degrees apart); the 8- and
//!   16-colour palettes take every fourth and every second colour of it.
//! * [`Color::Thread`] (`thread_color_8x`, the default of thread-value pictures): `tid % 8`;
//!   [`Color::Value`] (`value_color_8x`): `vid % 8`; [`Color::Warp`] (`warp_color_8x`):
//!   `(tid / 32) % 8`; all from eight light colours of evenly spaced hues.
//! * [`Color::White`]: every cell white.

use std::fmt;

/// A colour, 8 bits per channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// White.
    pub const WHITE: Rgb = Rgb(255, 255, 255);

    /// The colour of hue `h` (degrees), saturation `s` and lightness `l` (both in `[0, 1]`).
    pub fn hsl(h: f64, s: f64, l: f64) -> Rgb {
        let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
        let hp = h.rem_euclid(360.0) / 60.0;
        let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
        let (r, g, b) = match hp as u32 {
            0 => (c, x, 0.0),
            1 => (x, c, 0.0),
            2 => (0.0, c, x),
            3 => (0.0, x, c),
            4 => (x, 0.0, c),
            _ => (c, 0.0, x),
        };
        let m = l - c / 2.0;
        let ch = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
        Rgb(ch(r), ch(g), ch(b))
    }

    /// `#rrggbb`.
    pub fn hex(self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Rgb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

/// How cells are coloured (PyCuTe's colour functors).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Color {
    /// Grey by `offset % 8` (`index_grey_8x`).
    #[default]
    Index,
    /// Bank `offset % 8` (`bank_color_8x`).
    Bank8,
    /// Bank `offset % 16` (`bank_color_16x`).
    Bank16,
    /// Bank `offset % 32` (`bank_color_32x`).
    Bank32,
    /// Thread `tid % 8` (`thread_color_8x`); thread-value pictures only.
    Thread,
    /// Value `vid % 8` (`value_color_8x`); thread-value pictures only.
    Value,
    /// Warp `(tid / 32) % 8` (`warp_color_8x`); thread-value pictures only.
    Warp,
    /// White.
    White,
}

impl std::str::FromStr for Color {
    type Err = String;

    /// `index`, `bank` (32 banks), `bank8`, `bank16`, `bank32`, `thread`, `value`, `warp`,
    /// `white`.
    fn from_str(s: &str) -> Result<Color, String> {
        Ok(match s {
            "index" | "grey" | "gray" => Color::Index,
            "bank" | "bank32" => Color::Bank32,
            "bank8" => Color::Bank8,
            "bank16" => Color::Bank16,
            "thread" => Color::Thread,
            "value" => Color::Value,
            "warp" => Color::Warp,
            "white" => Color::White,
            _ => {
                return Err(format!(
                    "'{s}' is not a colouring (index, bank, bank8, bank16, bank32, thread, value, warp, white)"
                ));
            }
        })
    }
}

/// Grey `k` of eight: the shade `bitrev3(k % 8)` of eight from near white to mid grey, so
/// neighbouring offsets are at least two shades apart (as CuTe orders its greys, by bit
/// reversal), and offsets 7 and 0 of the next cycle the furthest.
///
/// ```
/// use tessera::draw::grey8;
/// let v = |k| i32::from(grey8(k).0);
/// for k in 0..64 {
///     assert!((v(k) - v(k + 1)).abs() >= 38, "offsets {k} and {}", k + 1);
/// }
/// ```
pub fn grey8(k: i64) -> Rgb {
    let k = k.rem_euclid(8) as u8;
    let shade = ((k & 1) << 2) | (k & 2) | ((k & 4) >> 2);
    let v = 245 - 19 * shade;
    Rgb(v, v, v)
}

/// Colour `k` of the 32-colour light spectrum: 32 evenly spaced hues, hue step `13 * k`
/// (of 32 around the circle), so consecutive colours (and 31 and 0) are 146 degrees apart;
/// odd steps a little darker.
///
/// ```
/// use tessera::draw::spectrum32;
/// let banks: std::collections::BTreeSet<_> = (0..32).map(spectrum32).collect();
/// assert_eq!(banks.len(), 32);
/// assert_ne!(spectrum32(31), spectrum32(0));
/// ```
pub fn spectrum32(k: i64) -> Rgb {
    let k = k.rem_euclid(32);
    let step = (k * 13).rem_euclid(32);
    let light = if k % 2 == 0 { 0.82 } else { 0.72 };
    Rgb::hsl(step as f64 * 360.0 / 32.0, 0.75, light)
}

/// Colour `k` of eight light colours of evenly spaced hues.
pub fn light8(k: i64) -> Rgb {
    Rgb::hsl(k.rem_euclid(8) as f64 * 45.0 + 15.0, 0.70, 0.78)
}

impl Color {
    /// Whether this colouring reads threads and values (not offsets).
    pub fn is_thread_value(self) -> bool {
        matches!(self, Color::Thread | Color::Value | Color::Warp)
    }

    /// The colour of a cell of offset `idx`; `None` for the thread-value colourings.
    pub fn of_offset(self, idx: i64) -> Option<Rgb> {
        Some(match self {
            Color::Index => grey8(idx),
            Color::Bank8 => spectrum32(idx.rem_euclid(8) * 4),
            Color::Bank16 => spectrum32(idx.rem_euclid(16) * 2),
            Color::Bank32 => spectrum32(idx),
            Color::White => Rgb::WHITE,
            Color::Thread | Color::Value | Color::Warp => return None,
        })
    }

    /// The colour of thread `tid`'s value `vid` at offset `idx` of a tile: the thread-value
    /// colourings read `tid` and `vid`, the others `idx`.
    pub fn of_thread_value(self, tid: i64, vid: i64, idx: i64) -> Rgb {
        match self {
            Color::Thread => light8(tid),
            Color::Value => light8(vid),
            Color::Warp => light8(tid.div_euclid(32)),
            other => other.of_offset(idx).unwrap_or(Rgb::WHITE),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hsl_primaries() {
        assert_eq!(Rgb::hsl(0.0, 1.0, 0.5), Rgb(255, 0, 0));
        assert_eq!(Rgb::hsl(120.0, 1.0, 0.5), Rgb(0, 255, 0));
        assert_eq!(Rgb::hsl(240.0, 1.0, 0.5), Rgb(0, 0, 255));
        assert_eq!(Rgb::hsl(0.0, 0.0, 1.0), Rgb::WHITE);
        assert_eq!(Rgb(1, 171, 255).to_string(), "#01abff");
    }

    #[test]
    fn functors_cycle_as_pycute_does() {
        for i in 0..64 {
            assert_eq!(Color::Index.of_offset(i), Color::Index.of_offset(i + 8));
            assert_eq!(Color::Bank8.of_offset(i), Color::Bank8.of_offset(i + 8));
            assert_eq!(Color::Bank16.of_offset(i), Color::Bank16.of_offset(i + 16));
            assert_eq!(Color::Bank32.of_offset(i), Color::Bank32.of_offset(i + 32));
            // The 8- and 16-colour palettes are subsamples of the 32-colour spectrum.
            assert_eq!(Color::Bank8.of_offset(i), Color::Bank32.of_offset((i % 8) * 4));
            assert_eq!(Color::Bank16.of_offset(i), Color::Bank32.of_offset((i % 16) * 2));
            assert_eq!(Color::Thread.of_thread_value(i, 0, 0), light8(i % 8));
            assert_eq!(Color::Value.of_thread_value(0, i, 0), light8(i % 8));
            assert_eq!(Color::Warp.of_thread_value(i * 32 + 5, 3, 0), light8(i % 8));
        }
        let greys: std::collections::BTreeSet<Rgb> = (0..8).map(grey8).collect();
        let banks: std::collections::BTreeSet<Rgb> = (0..32).map(spectrum32).collect();
        assert_eq!((greys.len(), banks.len()), (8, 32), "distinct colours");
        assert_eq!("bank".parse::<Color>(), Ok(Color::Bank32));
        assert!("red".parse::<Color>().is_err());
    }
}
