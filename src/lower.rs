//! `tessera lower`: index arithmetic of a layout, printed one let-binding per line.

use crate::lang::{Session, Value};
use tessera_ir::index::{lower_composed, lower_coords, lower_index, lower_sym};
use tessera_ir::{Error, Result};

/// Lowers the value of `src` and renders it with a header naming what was lowered.
pub fn lower_text(session: &Session, src: &str, coords: bool) -> Result<String> {
    let v = session.value(src)?;
    let (what, e) = match &v {
        Value::Layout(l) if coords => (
            format!("{l} at flat coordinates c0..c{}", l.flat_shape().len() - 1),
            lower_coords(l)?,
        ),
        Value::Layout(l) => (format!("{l} at linear index i"), lower_index(l)?),
        Value::Composed(c) if !coords => (format!("{c} at linear index i"), lower_composed(c)?),
        Value::Int(s) => (format!("{s}"), lower_sym(s)?),
        v => return Err(Error::invalid(format!("cannot lower {} ({v})", v.kind()))),
    };
    let st = e.stats();
    Ok(format!(
        "# {what}: {} operations, {} div/mod\n{e}",
        st.ops, st.div_mod
    ))
}
