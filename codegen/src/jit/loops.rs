//! Loops in Cranelift IR: the structured forms the backends build their loop nests from.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Block, InstBuilder, Value, types};
use cranelift_frontend::FunctionBuilder;

/// A counted loop `for v in (lo..hi).step_by(step) { body }`, leaving the builder after it.
pub(crate) fn for_loop(
    b: &mut FunctionBuilder<'_>,
    (lo, hi, step): (Value, Value, i64),
    body: impl FnOnce(&mut FunctionBuilder<'_>, Value),
) {
    let head: Block = b.create_block();
    let inner = b.create_block();
    let exit = b.create_block();
    b.append_block_param(head, types::I64);
    b.ins().jump(head, &[lo.into()]);
    b.switch_to_block(head);
    let v = b.block_params(head)[0];
    let more = b.ins().icmp(IntCC::SignedLessThan, v, hi);
    b.ins().brif(more, inner, &[], exit, &[]);
    b.switch_to_block(inner);
    body(b, v);
    let next = b.ins().iadd_imm_s(v, step);
    b.ins().jump(head, &[next.into()]);
    b.switch_to_block(exit);
}
