//! The 16-bit float conversions in Cranelift IR, the same branch-free steps as
//! [`crate::kernel::f16_to_f32`] and its siblings, so that compiled code and the reference
//! interpreter agree bit for bit. Each works on one lane ([`Width::Scalar`], `i32`/`f32`) or on
//! four ([`Width::Vector`], `i32x4`/`f32x4`); the 16-bit values travel zero-extended in `i32`
//! lanes.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Endianness, InstBuilder, MemFlagsData, Type, Value, types};
use cranelift_frontend::FunctionBuilder;

/// One lane or four.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Width {
    /// Scalars: `i32`, `f32`.
    Scalar,
    /// Vectors of four lanes: `i32x4`, `f32x4`.
    Vector,
}

impl Width {
    /// The integer type of a lane group.
    pub(crate) fn int(self) -> Type {
        match self {
            Width::Scalar => types::I32,
            Width::Vector => types::I32X4,
        }
    }

    /// The float type of a lane group.
    pub(crate) fn float(self) -> Type {
        match self {
            Width::Scalar => types::F32,
            Width::Vector => types::F32X4,
        }
    }

    /// The 32-bit constant `v` in every lane.
    pub(crate) fn k(self, b: &mut FunctionBuilder<'_>, v: u32) -> Value {
        let x = b.ins().iconst(types::I32, i64::from(v));
        match self {
            Width::Scalar => x,
            Width::Vector => b.ins().splat(types::I32X4, x),
        }
    }

    /// The float constant `v` in every lane.
    fn fk(self, b: &mut FunctionBuilder<'_>, v: f32) -> Value {
        let x = b.ins().f32const(v);
        match self {
            Width::Scalar => x,
            Width::Vector => b.ins().splat(types::F32X4, x),
        }
    }

    /// Lane-wise `c ? x : y` for a comparison result `c` of this width.
    pub(crate) fn select(self, b: &mut FunctionBuilder<'_>, c: Value, x: Value, y: Value) -> Value {
        match self {
            Width::Scalar => b.ins().select(c, x, y),
            Width::Vector => b.ins().bitselect(c, x, y),
        }
    }

    /// The bits of `v` reread as type `to` (same width).
    pub(crate) fn bits(self, b: &mut FunctionBuilder<'_>, to: Type, v: Value) -> Value {
        let flags = match self {
            Width::Scalar => MemFlagsData::new(),
            Width::Vector => MemFlagsData::new().with_endianness(Endianness::Little),
        };
        b.ins().bitcast(to, flags, v)
    }

    /// Lane-wise signed `x cc k` against a constant (the operands here are below 2^31).
    fn cmp(self, b: &mut FunctionBuilder<'_>, cc: IntCC, x: Value, k: u32) -> Value {
        let y = self.k(b, k);
        b.ins().icmp(cc, x, y)
    }

    /// Lane-wise `x & k`, `x | k`, `x + k`, `x >> s` (logical), `x << s`.
    fn and(self, b: &mut FunctionBuilder<'_>, x: Value, k: u32) -> Value {
        let y = self.k(b, k);
        b.ins().band(x, y)
    }

    fn or(self, b: &mut FunctionBuilder<'_>, x: Value, k: u32) -> Value {
        let y = self.k(b, k);
        b.ins().bor(x, y)
    }

    fn add(self, b: &mut FunctionBuilder<'_>, x: Value, k: u32) -> Value {
        let y = self.k(b, k);
        b.ins().iadd(x, y)
    }
}

/// `f32` lanes from `f16` bits (zero-extended `i32` lanes).
pub(crate) fn f16_to_f32(b: &mut FunctionBuilder<'_>, w: Width, h: Value) -> Value {
    let sign = w.and(b, h, 0x8000);
    let sign = b.ins().ishl_imm_u(sign, 16);
    let em = w.and(b, h, 0x7fff);
    let shifted = b.ins().ishl_imm_u(em, 13);
    let as_float = w.bits(b, w.float(), shifted);
    let scale = w.fk(b, f32::from_bits(0x7780_0000));
    let scaled = b.ins().fmul(as_float, scale);
    let finite = w.bits(b, w.int(), scaled);
    let is_nan = w.cmp(b, IntCC::SignedGreaterThan, em, 0x7c00);
    let quiet_bit = w.k(b, 0x0040_0000);
    let zero = w.k(b, 0);
    let quiet = w.select(b, is_nan, quiet_bit, zero);
    let special = w.or(b, shifted, 0x7f80_0000);
    let special = b.ins().bor(special, quiet);
    let is_special = w.cmp(b, IntCC::SignedGreaterThanOrEqual, em, 0x7c00);
    let r = w.select(b, is_special, special, finite);
    let r = b.ins().bor(r, sign);
    w.bits(b, w.float(), r)
}

/// `f16` bits (in zero-extended `i32` lanes) of `f32` lanes, rounded to nearest even.
pub(crate) fn f32_to_f16(b: &mut FunctionBuilder<'_>, w: Width, x: Value) -> Value {
    let bits = w.bits(b, w.int(), x);
    let sign = b.ins().ushr_imm_u(bits, 16);
    let sign = w.and(b, sign, 0x8000);
    let f = w.and(b, bits, 0x7fff_ffff);
    // NaN: quiet, the payload's top bits kept.
    let payload = b.ins().ushr_imm_u(f, 13);
    let payload = w.and(b, payload, 0x03ff);
    let nan = w.or(b, payload, 0x7e00);
    // Subnormal or zero: the float unit rounds `|x| + 0.5`.
    let ff = w.bits(b, w.float(), f);
    let half = w.fk(b, 0.5);
    let sum = b.ins().fadd(ff, half);
    let sum = w.bits(b, w.int(), sum);
    let magic = w.k(b, 0x3f00_0000);
    let sub = b.ins().isub(sum, magic);
    // Normal: rebias, round the dropped 13 bits to nearest even.
    let odd = b.ins().ushr_imm_u(f, 13);
    let odd = w.and(b, odd, 1);
    let norm = w.add(b, f, 0xc800_0fff);
    let norm = b.ins().iadd(norm, odd);
    let norm = b.ins().ushr_imm_u(norm, 13);
    let inf = w.k(b, 0x7c00);
    let small = w.cmp(b, IntCC::SignedLessThan, f, 0x3880_0000);
    let r = w.select(b, small, sub, norm);
    let big = w.cmp(b, IntCC::SignedGreaterThanOrEqual, f, 0x4780_0000);
    let r = w.select(b, big, inf, r);
    let is_nan = w.cmp(b, IntCC::SignedGreaterThan, f, 0x7f80_0000);
    let r = w.select(b, is_nan, nan, r);
    b.ins().bor(r, sign)
}

/// `f32` lanes from `bf16` bits (zero-extended `i32` lanes).
pub(crate) fn bf16_to_f32(b: &mut FunctionBuilder<'_>, w: Width, h: Value) -> Value {
    let mag = w.and(b, h, 0x7fff);
    let is_nan = w.cmp(b, IntCC::SignedGreaterThan, mag, 0x7f80);
    let quiet_bit = w.k(b, 0x40);
    let zero = w.k(b, 0);
    let quiet = w.select(b, is_nan, quiet_bit, zero);
    let h = b.ins().bor(h, quiet);
    let r = b.ins().ishl_imm_u(h, 16);
    w.bits(b, w.float(), r)
}

/// `bf16` bits (in zero-extended `i32` lanes) of `f32` lanes, rounded to nearest even.
pub(crate) fn f32_to_bf16(b: &mut FunctionBuilder<'_>, w: Width, x: Value) -> Value {
    let bits = w.bits(b, w.int(), x);
    let top = b.ins().ushr_imm_u(bits, 16);
    let nan = w.or(b, top, 0x40);
    let odd = w.and(b, top, 1);
    let r = w.add(b, bits, 0x7fff);
    let r = b.ins().iadd(r, odd);
    let r = b.ins().ushr_imm_u(r, 16);
    let f = w.and(b, bits, 0x7fff_ffff);
    let is_nan = w.cmp(b, IntCC::SignedGreaterThan, f, 0x7f80_0000);
    w.select(b, is_nan, nan, r)
}
