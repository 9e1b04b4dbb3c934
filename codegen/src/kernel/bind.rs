//! Parameter values of a kernel: which parameters it has, and whether values are admitted.

use super::error::RunError;
use super::ir::Kernel;
use std::collections::HashMap;
use tessera_verifier::{Property, facts, params};

/// Every parameter the kernel's tensors mention.
pub fn params_of(k: &Kernel) -> std::collections::BTreeSet<String> {
    k.tensors
        .iter()
        .flat_map(|t| params(&Property::InBounds(t.layout.clone(), t.cosize.clone())))
        .collect()
}

/// Checks that every parameter of the kernel is bound to a value its facts admit.
pub fn check_bindings(k: &Kernel, bindings: &HashMap<String, i64>) -> Result<(), RunError> {
    for t in &k.tensors {
        let p = Property::InBounds(t.layout.clone(), t.cosize.clone());
        let f = facts(&p);
        for name in params(&p) {
            let value = *bindings
                .get(&name)
                .ok_or_else(|| RunError::Unbound(name.clone()))?;
            if f.get(&name).is_some_and(|pf| !pf.admits(value)) {
                return Err(RunError::NotAdmitted { name, value });
            }
        }
    }
    for x in &k.indices {
        x.extent
            .eval(bindings)
            .map_err(|_| RunError::Unbound(x.extent.to_string()))?;
    }
    Ok(())
}
