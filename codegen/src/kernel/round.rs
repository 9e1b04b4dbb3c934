//! The conversions between `f32` and the 16-bit float types, exactly as every backend performs
//! them: widening is exact; narrowing rounds to nearest, ties to even (IEEE 754's default), with
//! overflow to infinity. A NaN keeps its sign and the top bits of its payload and becomes quiet
//! (the top mantissa bit set), as the x86 and Arm conversion instructions do.
//!
//! The formulas are branch-free integer and float steps, so that the JIT and the PTX backend
//! can compute the same bits lane by lane; the reference interpreter calls these functions.
//! The `half` crate's conversions agree with these on every input the tests try (every `f16`,
//! every tie, 200,000 random `f32`s each way).

/// `2^112`, the scale that moves an `f16` exponent field into `f32`'s range.
const F16_SCALE: u32 = 0x7780_0000;

/// The `f32` value of the `f16` with bits `h` (exact).
///
/// ```
/// use tessera_codegen::kernel::f16_to_f32;
/// assert_eq!(f16_to_f32(0x3c00), 1.0);
/// assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24)); // the smallest subnormal
/// assert_eq!(f16_to_f32(0xfc00), f32::NEG_INFINITY);
/// ```
pub fn f16_to_f32(h: u16) -> f32 {
    let h = u32::from(h);
    let sign = (h & 0x8000) << 16;
    let em = h & 0x7fff;
    let shifted = em << 13;
    // Finite: the bits read as an f32 are the value times 2^-112, exactly (subnormals too).
    let finite = (f32::from_bits(shifted) * f32::from_bits(F16_SCALE)).to_bits();
    // Infinity and NaN: the exponent field all ones; a NaN made quiet.
    let quiet = if em > 0x7c00 { 0x0040_0000 } else { 0 };
    let special = shifted | 0x7f80_0000 | quiet;
    f32::from_bits(if em >= 0x7c00 { special } else { finite } | sign)
}

/// The bits of the `f16` nearest to `x` (ties to even; beyond the largest finite value,
/// infinity).
///
/// ```
/// use tessera_codegen::kernel::{f32_to_f16, f16_to_f32};
/// assert_eq!(f32_to_f16(1.0), 0x3c00);
/// assert_eq!(f32_to_f16(65520.0), 0x7c00); // halfway to 2^16 rounds to infinity
/// assert_eq!(f32_to_f16(1.0 + 2f32.powi(-11)), 0x3c00); // a tie, to the even neighbour
/// assert_eq!(f16_to_f32(f32_to_f16(0.1)), 0.099975586);
/// ```
pub fn f32_to_f16(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = (bits >> 16) & 0x8000;
    let f = bits & 0x7fff_ffff;
    let out = if f > 0x7f80_0000 {
        // NaN: quiet, the payload's top bits kept.
        0x7e00 | ((f >> 13) & 0x03ff)
    } else if f >= 0x4780_0000 {
        // At least 2^16 (or infinity): infinity.
        0x7c00
    } else if f < 0x3880_0000 {
        // Below 2^-14: an f16 subnormal or zero. Adding 0.5 makes the float unit round the
        // value to a multiple of 2^-24 (ties to even); the low bits are then the result.
        (f32::from_bits(f) + 0.5).to_bits().wrapping_sub(0x3f00_0000)
    } else {
        // Normal: rebias the exponent and round the 13 dropped bits to nearest even.
        let odd = (f >> 13) & 1;
        f.wrapping_add(0xc800_0fff).wrapping_add(odd) >> 13
    };
    (out | sign) as u16
}

/// The `f32` value of the `bf16` with bits `h` (exact; a NaN made quiet).
///
/// ```
/// use tessera_codegen::kernel::bf16_to_f32;
/// assert_eq!(bf16_to_f32(0x3f80), 1.0);
/// ```
pub fn bf16_to_f32(h: u16) -> f32 {
    let h = u32::from(h);
    let quiet = if h & 0x7fff > 0x7f80 { 0x40 } else { 0 };
    f32::from_bits((h | quiet) << 16)
}

/// The bits of the `bf16` nearest to `x` (ties to even; overflow to infinity).
///
/// ```
/// use tessera_codegen::kernel::f32_to_bf16;
/// assert_eq!(f32_to_bf16(1.0), 0x3f80);
/// assert_eq!(f32_to_bf16(1.0 + 2f32.powi(-8)), 0x3f80); // a tie, to even (not away)
/// assert_eq!(f32_to_bf16(1.0 + 3.0 * 2f32.powi(-8)), 0x3f82);
/// ```
pub fn f32_to_bf16(x: f32) -> u16 {
    let bits = x.to_bits();
    if bits & 0x7fff_ffff > 0x7f80_0000 {
        return ((bits >> 16) | 0x40) as u16;
    }
    let odd = (bits >> 16) & 1;
    (bits.wrapping_add(0x7fff + odd) >> 16) as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;

    /// Every f16 widens as `half` widens it (which uses the exact rule).
    #[test]
    fn f16_widening_matches_half_everywhere() {
        for h in 0..=u16::MAX {
            let want = f16::from_bits(h).to_f32();
            let got = f16_to_f32(h);
            assert_eq!(got.to_bits(), want.to_bits(), "h = {h:#06x}");
        }
    }

    /// The nearest f16, computed in f64 from the definition (ties to even).
    fn nearest_f16(x: f32) -> u16 {
        if x.is_nan() {
            return f16::from_f32(x).to_bits() | 0x0200;
        }
        let x = f64::from(x);
        let mut best = 0u16;
        let mut best_err = f64::INFINITY;
        // Candidates: the neighbours of the f64-rounded guess.
        let guess = f16::from_f64(x).to_bits();
        for d in [-2i32, -1, 0, 1, 2] {
            let c = (i32::from(guess) + d) as u16;
            let v = f64::from(f16::from_bits(c).to_f32());
            if v.is_nan() {
                continue;
            }
            let err = (v - x).abs();
            if err < best_err || (err == best_err && c & 1 == 0) {
                best = c;
                best_err = err;
            }
        }
        // Beyond 65520 in magnitude the definition rounds to infinity.
        if x.abs() >= 65520.0 {
            return if x > 0.0 { 0x7c00 } else { 0xfc00 };
        }
        best
    }

    #[test]
    fn f16_narrowing_is_nearest_even() {
        let mut x = 0x9e37_79b9u32;
        let check = |bits: u32| {
            let v = f32::from_bits(bits);
            let got = f32_to_f16(v);
            if v.is_nan() {
                assert_eq!(got, f16::from_f32(v).to_bits() | 0x0200, "bits {bits:#010x}");
            } else {
                assert_eq!(got, nearest_f16(v), "bits {bits:#010x} ({v:e})");
                assert_eq!(got, f16::from_f32(v).to_bits(), "half disagrees at {bits:#010x}");
            }
        };
        // Every f16 and its two midpoints, both signs; then random bits.
        for h in 0..0x7c00u32 {
            let v = f16_to_f32(h as u16).to_bits();
            for b in [v, v + 0x1000, v + 0x0fff, v + 0x1001, v | 0x8000_0000] {
                check(b);
            }
        }
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            check(x);
        }
        for b in [
            0x7f80_0000,
            0xff80_0000,
            0x7f80_0001,
            0x4780_0000,
            0x477f_f000,
            0x477f_efff,
        ] {
            check(b);
        }
    }

    #[test]
    fn bf16_is_nearest_even() {
        let mut x = 0x1234_5677u32;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let v = f32::from_bits(x);
            let got = f32_to_bf16(v);
            if v.is_nan() {
                assert!(bf16_to_f32(got).is_nan());
                continue;
            }
            // The two neighbours in bf16 and the rule, in f64.
            let lo = (x >> 16) as u16;
            let hi = lo.wrapping_add(1);
            let (vl, mut vh) = (f64::from(bf16_to_f32(lo)), f64::from(bf16_to_f32(hi)));
            if vh.is_infinite() {
                // Infinity stands for the next step past the largest finite value (IEEE's
                // overflow rule).
                vh = vh.signum() * 2f64.powi(128);
            }
            let xv = f64::from(v);
            let (el, eh) = ((xv - vl).abs(), (vh - xv).abs());
            let want = if el < eh || (el == eh && lo & 1 == 0) {
                lo
            } else {
                hi
            };
            assert_eq!(got, want, "bits {x:#010x}");
            assert_eq!(
                got,
                half::bf16::from_f32(v).to_bits(),
                "half disagrees at {x:#010x}"
            );
        }
        // A tie goes to the even neighbour.
        assert_eq!(f32_to_bf16(f32::from_bits(0x3f80_8000)), 0x3f80);
        assert_eq!(f32_to_bf16(f32::from_bits(0x3f81_8000)), 0x3f82);
    }
}
