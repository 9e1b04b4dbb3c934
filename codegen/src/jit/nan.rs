//! The canonical NaN: the one NaN every backend stores for a computed value.
//!
//! IEEE 754 leaves a NaN result's sign and payload open (x86 gives `0xffc00000` for
//! `inf - inf`, an operand's payload for `NaN + x`; NVIDIA GPUs `0x7fffffff`). Tessera fixes
//! them: a statement that computes its value (any operation, a cast, a `+=`) stores a NaN as
//! the canonical quiet NaN, sign clear, quiet bit set, payload zero: `0x7fc00000` (f32),
//! `0x7ff8000000000000` (f64), `0x7e00` (f16), `0x7fc0` (bf16). A plain copy (`=` of one load
//! of the same type) moves bits, NaN payloads included. The reference interpreter does the
//! same (`crate::kernel::canonical`).

use crate::jit::convert::Width;
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{InstBuilder, Value, types};
use cranelift_frontend::FunctionBuilder;

/// `x` with a NaN (in any lane) replaced by the canonical quiet NaN of its type; an integer
/// value unchanged.
pub(crate) fn canonical(b: &mut FunctionBuilder<'_>, x: Value) -> Value {
    let ty = b.func.dfg.value_type(x);
    let lane = ty.lane_type();
    let nan = match lane {
        types::F32 => b.ins().f32const(f32::from_bits(0x7fc0_0000)),
        types::F64 => b.ins().f64const(f64::from_bits(0x7ff8_0000_0000_0000)),
        _ => return x,
    };
    let is_nan = b.ins().fcmp(FloatCC::Unordered, x, x);
    if ty.is_vector() {
        let nans = b.ins().splat(ty, nan);
        let mask = Width::Vector.bits(b, ty, is_nan);
        b.ins().bitselect(mask, nans, x)
    } else {
        b.ins().select(is_nan, nan, x)
    }
}
