//! The e-graph analysis: the value of every e-class, computed by the interpreter.
//!
//! An exact class's value is the value of its terms; a function class's value is one layout
//! with the class's function (a representative). Laws read these values for their side
//! conditions (a size, a cosize, whether an argument is a layout), and a law fires only where
//! both of its sides evaluate, so no chain of equalities passes through a term without a value.

use super::lang::{Layouts, leaf_key, value_of};
use crate::lang::Value;
use egg::{Analysis, DidMerge, EGraph, Id, Symbol};
use std::collections::HashMap;
use tessera_ir::sym::SymInt;

/// The e-graph of layout terms with their values.
pub type Graph = EGraph<Layouts, Values>;

/// The analysis: the values of the leaves (by name), and the value of each class.
#[derive(Debug, Default)]
pub struct Values {
    /// The value of each leaf, by its name.
    pub(crate) leaves: HashMap<Symbol, Value<SymInt>>,
}

impl Analysis<Layouts> for Values {
    type Data = Option<Value<SymInt>>;

    fn make(egraph: &mut Graph, enode: &Layouts, _id: Id) -> Self::Data {
        if let Layouts::Leaf(s) = enode {
            return egraph.analysis.leaves.get(s).cloned();
        }
        use egg::Language;
        let args: Vec<Option<&Value<SymInt>>> = enode
            .children()
            .iter()
            .map(|c| egraph[*c].data.as_ref())
            .collect();
        value_of(enode, &args)
    }

    /// Integers are folded: a class whose value is an integer also holds the leaf of that
    /// integer, so `size(L)` meets the `6` a file writes (values are exact, so this is sound).
    fn modify(egraph: &mut Graph, id: Id) {
        if let Some(Value::Int(v)) = &egraph[id].data {
            let v = Value::Int(v.clone());
            let sym = Symbol::from(leaf_key(&v));
            egraph.analysis.leaves.entry(sym).or_insert(v);
            let leaf = egraph.add(Layouts::Leaf(sym));
            egraph.union(id, leaf);
        }
    }

    fn merge(&mut self, a: &mut Self::Data, b: Self::Data) -> DidMerge {
        // Every term of a class has the class's value (exact classes) or function (function
        // classes), so either value serves; keep the first known one.
        match (a.is_some(), b) {
            (false, Some(v)) => {
                *a = Some(v);
                DidMerge(true, false)
            }
            (true, Some(_)) => DidMerge(false, true),
            (true, None) => DidMerge(false, true),
            (false, None) => DidMerge(false, false),
        }
    }
}
