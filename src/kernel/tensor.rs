//! A declared tensor's IR: its dimensions and cosize from its layout.

use super::ast::TensorDecl;
use super::error::{ErrorKind, KernelError};
use tessera_codegen::kernel::Tensor;
use tessera_ir::sym::SymInt;
use tessera_ir::{Codomain, Int};
use tessera_verifier::Func;

/// The tensor a declaration makes with its evaluated layout: the dimensions are the
/// layout's top-level modes (their sizes), the buffer's length is the stated one (`f32[VIEW]
/// of 16`: a view with negative strides or an offset inside a larger buffer), else its cosize
/// (for a swizzled or offset layout, the inner layout's cosize plus the offset); the proof
/// checks every offset against it. A coordinate-valued layout is refused.
///
/// ```
/// use std::sync::Arc;
/// use tessera::kernel::{parse_tensor, tensor};
/// use tessera_verifier::Func;
/// let d = parse_tensor("tensor A : f16[((2,4),8):((1,16),2)]", 1).unwrap();
/// let f = Func::parse(&d.layout, &Arc::new(Default::default())).unwrap();
/// let t = tensor(&d, f).unwrap();
/// assert_eq!(t.dims.iter().map(|d| d.to_string()).collect::<Vec<_>>(), ["8", "8"]);
/// assert_eq!(t.cosize.to_string(), "64");
/// // (4,4):(4,1)[2:4, ::-1], a view of 16 elements with a negative stride.
/// let d = parse_tensor("tensor V : f32[11 o (2,4):(4,-1)] of 16", 1).unwrap();
/// let t = tensor(&d, Func::parse(&d.layout, &Arc::new(Default::default())).unwrap()).unwrap();
/// assert_eq!(t.cosize.to_string(), "16");
/// ```
pub fn tensor(decl: &TensorDecl, layout: Func) -> Result<Tensor, KernelError> {
    let bad = |msg: String| {
        KernelError::new(
            decl.layout_pos,
            ErrorKind::BadLayout {
                tensor: decl.name.clone(),
                msg,
            },
        )
    };
    match layout.codomain() {
        Ok(Codomain::Coord) => {
            return Err(bad(format!(
                "{layout} is coordinate-valued; a tensor needs offsets"
            )));
        }
        Err(e) => return Err(bad(e.to_string())),
        Ok(_) => {}
    }
    let dims = layout
        .shape()
        .modes()
        .iter()
        .map(|m| SymInt::product(m.leaves()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(e.to_string()))?;
    let cosize = match (&layout, decl.buffer) {
        (_, Some((n, _))) => Ok(SymInt::lit(n)),
        (Func::Layout(l), None) => l.cosize(),
        (Func::Composed(c), None) => c.inner.cosize().and_then(|s| s.add(&c.offset)),
    }
    .map_err(|e| bad(e.to_string()))?;
    Ok(Tensor {
        name: decl.name.clone(),
        elem: decl.elem,
        layout,
        dims,
        cosize,
    })
}
