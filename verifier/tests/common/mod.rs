//! Shared by the prover's tests: a property at fixed parameter values, so that brute force
//! can re-check a counterexample at exactly its parameters; a reproducible random source.

use std::collections::HashMap;
use std::sync::Arc;
use tessera_ir::algebra::{Tiler, coalesce, complement, composition_tiler, left_inverse, right_inverse};
use tessera_ir::sym::{Facts, SymInt};
use tessera_ir::text::{Read, read};
use tessera_ir::{ComposedLayout, HTuple, Int, Layout};
use tessera_verifier::Bank;
use tessera_verifier::{Func, Property};

/// Every engine `prove_by` takes, `auto` first.
#[allow(dead_code)]
pub const ENGINES: [tessera_verifier::Engine; 5] = [
    tessera_verifier::Engine::Auto,
    tessera_verifier::Engine::Enumeration,
    tessera_verifier::Engine::F2,
    tessera_verifier::Engine::Structural,
    tessera_verifier::Engine::Z3,
];

/// The text format over declared parameters: the verifier's tests build their functions from
/// text and the algebra, without the expression language (which sits above the verifier).
#[allow(dead_code)]
pub struct Text {
    facts: Arc<Facts>,
}

#[allow(dead_code)]
impl Text {
    /// Parameters declared as `tessera --param` declares them (`"M where M % 8 == 0"`).
    pub fn new(decls: &[&str]) -> Text {
        let mut facts = Facts::default();
        for d in decls {
            facts.declare(d).unwrap_or_else(|e| panic!("{d}: {e}"));
        }
        Text {
            facts: Arc::new(facts),
        }
    }

    /// A layout, bare shape or swizzled layout.
    pub fn func(&self, src: &str) -> Option<Func> {
        Func::parse(src, &self.facts).ok()
    }

    /// An integer (a polynomial in the parameters).
    pub fn int(&self, src: &str) -> SymInt {
        let facts = &self.facts;
        let param = |n: &str| facts.get(n).map(|_| SymInt::param(n, facts));
        match read(src, &param).unwrap_or_else(|e| panic!("{src}: {e}")) {
            Read::Tuple(t) if t.is_leaf() => t.leaves()[0].clone(),
            other => panic!("{src}: {other:?}"),
        }
    }

    /// `op(a [, b])` of the algebra, as the expression language applies it: a swizzled layout's
    /// inner layout is coalesced or composed, the other operations take plain layouts.
    pub fn apply(&self, op: &str, a: &Func, b: Option<&Func>) -> Option<Func> {
        let plain = |f: &Func| match f {
            Func::Layout(l) => Some(l.clone()),
            Func::Composed(_) => None,
        };
        let around = |f: &Func, g: &dyn Fn(&Layout<SymInt>) -> Option<Layout<SymInt>>| match f {
            Func::Layout(l) => g(l).map(Func::Layout),
            Func::Composed(c) => g(&c.inner).map(|i| Func::Composed(c.with_inner(i))),
        };
        match op {
            "coalesce" => around(a, &|l| coalesce(l).ok()),
            "left_inverse" => left_inverse(&plain(a)?).ok().map(Func::Layout),
            "right_inverse" => right_inverse(&plain(a)?).ok().map(Func::Layout),
            "composition" => {
                let t = Tiler::Layout(plain(b?)?);
                around(a, &|l| composition_tiler(l, &t).ok())
            }
            _ => panic!("unknown operation {op}"),
        }
    }
}

impl Text {
    /// `complement(a, n)`.
    #[allow(dead_code)]
    pub fn complement(&self, a: &Func, n: i64) -> Option<Func> {
        let Func::Layout(l) = a else { return None };
        complement(l, Some(&HTuple::leaf(SymInt::lit(n))))
            .ok()
            .map(Func::Layout)
    }
}

/// A function with every parameter replaced by its value.
#[allow(dead_code)]
pub fn fix_func(g: &Func, at: &HashMap<String, i64>) -> Func {
    let lift = |l: &Layout<i64>| l.lift::<SymInt>().unwrap();
    match g {
        Func::Layout(l) => Func::Layout(lift(&l.instantiate(at).unwrap())),
        Func::Composed(c) => Func::Composed(ComposedLayout {
            swizzle: c.swizzle,
            offset: SymInt::lit(c.offset.eval(at).unwrap()),
            inner: lift(&c.inner.instantiate(at).unwrap()),
        }),
    }
}

/// A property with every parameter replaced by its value.
#[allow(dead_code)]
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
        Property::Wavefronts(x, c, k) => Property::Wavefronts(b(x), *c, *k),
    }
}

/// xorshift64*: reproducible random numbers without a dependency.
#[allow(dead_code)]
pub struct Rng(pub u64);

#[allow(dead_code)]
impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// One of `xs`.
    pub fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }
}

/// SplitMix64: another small deterministic generator (some tests' seeds were chosen with it).
#[allow(dead_code)]
pub struct SplitMix(pub u64);

#[allow(dead_code)]
impl SplitMix {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// One of `xs`.
    pub fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
    /// True once in `k` times.
    pub fn chance(&mut self, k: usize) -> bool {
        self.below(k) == 0
    }
}
