//! The arithmetic of the PTX instructions the backend writes: comparisons, conversions
//! (f16/bf16 by the rounding every engine shares), integer and float operations on registers
//! kept as bit patterns.

use super::{R, SimError};
use crate::kernel::{bf16_to_f32, f16_to_f32, f32_to_bf16, f32_to_f16};

pub(super) fn f32v(x: u64) -> f32 {
    f32::from_bits(x as u32)
}

pub(super) fn f64v(x: u64) -> f64 {
    f64::from_bits(x)
}

/// IEEE maximumNumber / minimumNumber (PTX `max`/`min` on floats: a NaN operand ignored).
fn fmax(a: f64, b: f64, max: bool) -> f64 {
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    if a == b {
        return if (a.is_sign_negative() && !b.is_sign_negative()) == max {
            b
        } else {
            a
        };
    }
    if (a > b) == max { a } else { b }
}

pub(super) fn cmp<T: PartialOrd>(c: &str, x: T, y: T) -> R<bool> {
    Ok(match c {
        "eq" => x == y,
        "ne" => x != y,
        "lt" => x < y,
        "le" => x <= y,
        "gt" => x > y,
        "ge" => x >= y,
        other => fail!("setp.{other}"),
    })
}

/// `cvt` with its modifiers (`rn`, `rzi`) and the destination and source types.
pub(super) fn convert(p: &[&str], x: u64) -> R<u64> {
    let [.., to, from] = p else {
        fail!("cvt without types")
    };
    let f = |v: f64| v;
    Ok(match (*to, *from) {
        ("u64", "u32") => x & 0xffff_ffff,
        ("u32", "u16") => x & 0xffff,
        ("f32", "f16") => u64::from(f16_to_f32(x as u16).to_bits()),
        ("f16", "f32") => u64::from(f32_to_f16(f32v(x))),
        ("bf16", "f32") => u64::from(f32_to_bf16(f32v(x))),
        ("f32", "bf16") => u64::from(bf16_to_f32(x as u16).to_bits()),
        ("s32", "f32") => (f32v(x) as i32) as u32 as u64,
        ("s64", "f32") => (f32v(x) as i64) as u64,
        ("s32", "f64") => (f64v(x) as i32) as u32 as u64,
        ("s64", "f64") => (f64v(x) as i64) as u64,
        ("f32", "s32") => u64::from((x as u32 as i32 as f32).to_bits()),
        ("f32", "s64") => u64::from((x as i64 as f32).to_bits()),
        ("f64", "s32") => f(f64::from(x as u32 as i32)).to_bits(),
        ("f64", "s64") => (x as i64 as f64).to_bits(),
        ("f32", "f64") => u64::from((f64v(x) as f32).to_bits()),
        ("f64", "f32") => f64::from(f32v(x)).to_bits(),
        ("s32", "s64") => x & 0xffff_ffff,
        ("s64", "s32") => x as u32 as i32 as i64 as u64,
        other => fail!("cvt {other:?}"),
    })
}

/// One float instruction on operands of type `$t` (read from bits by `$from`).
macro_rules! float_arith {
    ($t:ty, $from:expr, $op:expr, $a:expr, $name:expr, $ty:expr) => {{
        let x: Vec<$t> = $a.iter().map(|v| $from(*v)).collect();
        match $op {
            "add" => x[0] + x[1],
            "sub" => x[0] - x[1],
            "mul" => x[0] * x[1],
            "div" => x[0] / x[1],
            "fma" => x[0].mul_add(x[1], x[2]),
            "neg" => -x[0],
            "abs" => x[0].abs(),
            "max" | "min" => fmax(f64::from(x[0]), f64::from(x[1]), $op == "max") as $t,
            other => fail!("{}: {other}.{}", $name, $ty),
        }
    }};
}

/// Integer and float arithmetic.
pub(super) fn arith(p: &[&str], a: &[u64], name: &str) -> R<u64> {
    let ty = p.last().copied().unwrap_or("");
    let op = p[0];
    // Missing operands read as 0 (every instruction the backend writes has its own).
    let mut a = a.to_vec();
    a.resize(a.len().max(3), 0);
    let hi = p.get(1) == Some(&"hi");
    Ok(match ty {
        "f32" => u64::from(float_arith!(f32, f32v, op, a, name, ty).to_bits()),
        "f64" => float_arith!(f64, f64v, op, a, name, ty).to_bits(),
        "s32" | "b32" | "u32" => {
            let x: Vec<i32> = a.iter().map(|v| *v as u32 as i32).collect();
            let r = match op {
                "add" => x[0].wrapping_add(x[1]),
                "sub" => x[0].wrapping_sub(x[1]),
                "mul" => x[0].wrapping_mul(x[1]),
                "mad" => x[0].wrapping_mul(x[1]).wrapping_add(x[2]),
                "div" | "rem" if x[1] == 0 => fail!("{name}: {op}.{ty} by zero"),
                "div" => x[0].wrapping_div(x[1]),
                "rem" => x[0].wrapping_rem(x[1]),
                "neg" => x[0].wrapping_neg(),
                "abs" => x[0].wrapping_abs(),
                "max" => x[0].max(x[1]),
                "min" => x[0].min(x[1]),
                "shl" => x[0].wrapping_shl(x[1] as u32),
                other => fail!("{name}: {other}.{ty}"),
            };
            u64::from(r as u32)
        }
        _ => {
            let x: Vec<i64> = a.iter().map(|v| *v as i64).collect();
            let r = match op {
                "add" => x[0].wrapping_add(x[1]),
                "sub" => x[0].wrapping_sub(x[1]),
                "mul" if hi => ((u128::from(x[0] as u64) * u128::from(x[1] as u64)) >> 64) as i64,
                "mul" => x[0].wrapping_mul(x[1]),
                "mad" => x[0].wrapping_mul(x[1]).wrapping_add(x[2]),
                "div" | "rem" if x[1] == 0 => fail!("{name}: {op}.{ty} by zero"),
                "div" => x[0].wrapping_div(x[1]),
                "rem" => x[0].wrapping_rem(x[1]),
                "neg" => x[0].wrapping_neg(),
                "abs" => x[0].wrapping_abs(),
                "max" => x[0].max(x[1]),
                "min" => x[0].min(x[1]),
                "xor" => x[0] ^ x[1],
                "and" => x[0] & x[1],
                "or" => x[0] | x[1],
                "shl" => x[0].wrapping_shl(x[1] as u32),
                "shr" if ty == "u64" => (x[0] as u64).wrapping_shr(x[1] as u32) as i64,
                "shr" => x[0].wrapping_shr(x[1] as u32),
                other => fail!("{name}: {other}.{ty}"),
            };
            r as u64
        }
    })
}
