//! Shared by the prover's tests: a property at fixed parameter values, so that brute force
//! can re-check a counterexample at exactly its parameters.

use std::collections::HashMap;
use tessera_ir::eval::Session;
use tessera_ir::sym::{SymInt, instantiate};
use tessera_ir::{ComposedLayout, Int, Layout, Value};
use tessera_verifier::bank::Bank;
use tessera_verifier::{Func, Property};

/// A concrete layout as a symbolic one with constant leaves (through its printed form, which
/// reads back as input).
fn lift(l: &Layout<i64>) -> Layout<SymInt> {
    match Session::new(&[], &[]).unwrap().value(&l.to_string()).unwrap() {
        Value::Layout(x) => x,
        v => panic!("{v}"),
    }
}

/// A function with every parameter replaced by its value.
pub fn fix_func(g: &Func, at: &HashMap<String, i64>) -> Func {
    match g {
        Func::Layout(l) => Func::Layout(lift(&instantiate(l, at).unwrap())),
        Func::Composed(c) => Func::Composed(ComposedLayout {
            swizzle: c.swizzle,
            offset: SymInt::lit(c.offset.eval(at).unwrap()),
            inner: lift(&instantiate(&c.inner, at).unwrap()),
        }),
    }
}

/// A property with every parameter replaced by its value.
pub fn fix(p: &Property, at: &HashMap<String, i64>) -> Property {
    let f = |g: &Func| fix_func(g, at);
    let n = |x: &SymInt| SymInt::lit(x.eval(at).unwrap());
    let b = |x: &Bank| Bank {
        smem: f(&x.smem),
        tv: f(&x.tv),
        ..x.clone()
    };
    match p {
        Property::Injective(a) => Property::Injective(f(a)),
        Property::Surjective(a, k) => Property::Surjective(f(a), k.as_ref().map(n)),
        Property::Bijective(a) => Property::Bijective(f(a)),
        Property::InBounds(a, k) => Property::InBounds(f(a), n(k)),
        Property::Equal(a, c) => Property::Equal(f(a), f(c)),
        Property::Compatible(a, c) => Property::Compatible(a.map(n), c.map(n)),
        Property::LeftInverseValid(a, c) => Property::LeftInverseValid(f(a), f(c)),
        Property::RightInverseValid(a, c) => Property::RightInverseValid(f(a), f(c)),
        Property::ComplementValid(a, c, k) => Property::ComplementValid(f(a), f(c), k.as_ref().map(n)),
        Property::CompositionValid(a, c, r) => Property::CompositionValid(f(a), f(c), f(r)),
        Property::Contiguous(a) => Property::Contiguous(f(a)),
        Property::Vectorizable(a, v) => Property::Vectorizable(f(a), *v),
        Property::BankConflictFree(x) => Property::BankConflictFree(b(x)),
        Property::ConflictDegree(x, c, k) => Property::ConflictDegree(b(x), *c, *k),
    }
}
