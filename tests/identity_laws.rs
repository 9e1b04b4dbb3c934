//! Every law of the e-graph (`tessera::identity::laws`), tested by itself on random concrete
//! layouts: the law's two sides are put in an e-graph with that law alone (and the law that
//! lets function laws see inside compositions), *without* the guard's check of concrete
//! values; whenever the e-graph closes the goal, both sides are evaluated by the interpreter
//! and compared pointwise by brute force. A case where a side does not evaluate is skipped;
//! each law must close a reasonable number of cases.
//!
//! Then the whole prover: random expressions over random layouts, every pair that egg closes
//! (all laws, unchecked) must be the same function.

use egg::{ENodeOrVar, Language, Pattern};
use std::collections::HashMap;
use tessera::identity::laws::{self, Law};
use tessera::identity::{Layouts, Limits, Term, by_rewriting_with};
use tessera::lang::{Session, Value};
use tessera_ir::sym::SymInt;

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

/// A random layout's text: rank 1 to 3, modes nested to depth 2, extents 1 to 4; strides
/// compact in a random order (so that compositions and divides often exist), sometimes
/// scaled, sometimes 0, sometimes arbitrary, sometimes negative.
fn layout(r: &mut Rng) -> String {
    let rank = 1 + r.below(3) as usize;
    let mut modes: Vec<Vec<i64>> = Vec::new();
    for _ in 0..rank {
        let leaves = if r.below(3) == 0 { 2 } else { 1 };
        modes.push((0..leaves).map(|_| r.pick(&[1, 2, 2, 3, 4, 4])).collect());
    }
    let n: usize = modes.iter().map(Vec::len).sum();
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, r.below(i as u64 + 1) as usize);
    }
    let flat: Vec<i64> = modes.iter().flatten().copied().collect();
    let mut strides = vec![0i64; n];
    let mut acc = r.pick(&[1, 1, 1, 2]);
    for &k in &order {
        strides[k] = acc;
        acc *= flat[k];
    }
    for s in strides.iter_mut() {
        match r.below(10) {
            0 => *s = 0,
            1 => *s = r.pick(&[1, 3, 5, 6, 8]),
            2 if r.below(2) == 0 => *s = -*s,
            _ => {}
        }
    }
    let mut it = 0;
    let mut sh = Vec::new();
    let mut st = Vec::new();
    for m in &modes {
        let (a, b): (Vec<String>, Vec<String>) = m
            .iter()
            .map(|x| {
                it += 1;
                (x.to_string(), strides[it - 1].to_string())
            })
            .unzip();
        if a.len() == 1 {
            sh.push(a[0].clone());
            st.push(b[0].clone());
        } else {
            sh.push(format!("({})", a.join(",")));
            st.push(format!("({})", b.join(",")));
        }
    }
    if sh.len() == 1 {
        format!("{}:{}", sh[0], st[0])
    } else {
        format!("({}):({})", sh.join(","), st.join(","))
    }
}

fn session() -> Session {
    Session::new(&[], &[]).unwrap()
}

/// The value of a term's text, evaluated by the interpreter.
fn value(s: &Session, t: &Term) -> Option<Value<SymInt>> {
    s.value(&t.to_string()).ok()
}

/// Same size and the same value at every index (brute force).
fn same_function(x: &Value<SymInt>, y: &Value<SymInt>) -> bool {
    let (Value::Layout(a), Value::Layout(b)) = (x, y) else {
        return x == y;
    };
    let none = HashMap::new();
    let (a, b) = (a.instantiate(&none).unwrap(), b.instantiate(&none).unwrap());
    let n = a.size().unwrap();
    if n != b.size().unwrap() {
        return false;
    }
    (0..n).all(|i| a.eval_index(&i).unwrap() == b.eval_index(&i).unwrap())
}

/// A law's pattern as a term over the given leaves (`fun` dropped, `fcompose` a composition).
fn term(p: &str, leaves: &HashMap<String, Term>) -> Term {
    let pat: Pattern<Layouts> = p.parse().unwrap();
    let nodes = pat.ast.as_ref();
    let mut out: Vec<Term> = Vec::new();
    for n in nodes {
        let t = match n {
            ENodeOrVar::Var(v) => leaves[&v.to_string()].clone(),
            ENodeOrVar::ENode(node) => {
                let kids: Vec<Term> = node
                    .children()
                    .iter()
                    .map(|c| out[usize::from(*c)].clone())
                    .collect();
                match node.to_string().as_str() {
                    "fun" => kids[0].clone(),
                    "fcompose" => Term::op("composition", kids),
                    name => Term::op(name, kids),
                }
            }
        };
        out.push(t);
    }
    out.pop().unwrap()
}

/// The pattern variables of a law.
fn vars(law: &Law) -> Vec<String> {
    let mut vs: Vec<String> = Vec::new();
    for p in [law.lhs, law.rhs] {
        let pat: Pattern<Layouts> = p.parse().unwrap();
        for v in pat.vars() {
            if !vs.contains(&v.to_string()) {
                vs.push(v.to_string());
            }
        }
    }
    vs
}

/// Tests one law on `cases` random instances; returns how many it closed.
fn check_law(law: Law, cases: usize, seed: u64) -> usize {
    let s = session();
    let mut r = Rng(seed);
    let (mut closed, mut skipped) = (0, 0);
    let names = vars(&law);
    for _ in 0..cases {
        let mut leaves: HashMap<String, Term> = names
            .iter()
            .map(|v| (v.clone(), Term::leaf(s.value(&layout(&mut r)).unwrap())))
            .collect();
        // Half the time the identity laws get an identity (of the right size for the right
        // identity): laws must fire, not only skip.
        if leaves.contains_key("?i") && r.below(2) == 0 {
            let n = match leaves.get("?a") {
                Some(a) => format!("size({a})"),
                None => (1 + r.below(16)).to_string(),
            };
            let id = s.value(&format!("{n}:1")).unwrap();
            leaves.insert("?i".into(), Term::leaf(id));
        }
        let (x, y) = (term(law.lhs, &leaves), term(law.rhs, &leaves));
        let (Some(vx), Some(vy)) = (value(&s, &x), value(&s, &y)) else {
            skipped += 1;
            continue;
        };
        let mut laws = vec![law_named(law.name)];
        if law.name != laws::composition_is_function().name {
            laws.push(laws::composition_is_function());
        }
        if by_rewriting_with(&x, &y, &Limits::default(), &laws, false).closed {
            closed += 1;
            assert!(
                same_function(&vx, &vy),
                "law {} is wrong at {x} = {y}: {vx} vs {vy}",
                law.name
            );
            // A law between exact terms must give the very same value, not only the same
            // function (the e-graph's exact classes rely on it).
            assert!(
                law.on_functions || vx == vy,
                "exact law {} gives different values at {x} = {y}: {vx} vs {vy}",
                law.name
            );
        }
    }
    eprintln!("{}: {closed} closed, {skipped} skipped of {cases}", law.name);
    closed
}

fn law_named(name: &str) -> Law {
    laws::all().into_iter().find(|l| l.name == name).unwrap()
}

#[test]
fn every_law_holds_pointwise_where_it_fires() {
    // How many instances each law must close, of 400 random ones (the side conditions and
    // the evaluation of both sides leave fewer for some laws).
    let mut report = Vec::new();
    for (k, law) in laws::all().into_iter().enumerate() {
        let name = law.name;
        let closed = check_law(law, 400, 1000 + k as u64);
        report.push((name, closed));
    }
    for (name, closed) in &report {
        assert!(*closed >= 10, "law {name} closed only {closed} random instances");
    }
}

/// Random expressions over a few random layouts.
fn expr(r: &mut Rng, leaves: &[Term], depth: u32) -> Term {
    if depth == 0 || r.below(4) == 0 {
        return leaves[r.below(leaves.len() as u64) as usize].clone();
    }
    let mut sub = || expr(r, leaves, depth - 1);
    let (a, b) = (sub(), sub());
    match r.below(9) {
        0 | 1 => Term::op("composition", vec![a, b]),
        2 => Term::op("coalesce", vec![a]),
        3 => Term::op("logical_divide", vec![a, b]),
        4 => Term::op("zipped_divide", vec![a, b]),
        5 => Term::op("logical_product", vec![a, b]),
        6 => Term::op("left_inverse", vec![a]),
        7 => Term::op("right_inverse", vec![a]),
        _ => Term::op("tiled_divide", vec![a, b]),
    }
}

#[test]
fn egg_closes_only_equal_functions() {
    let s = session();
    let mut r = Rng(7);
    let (mut closed, mut tried) = (0, 0);
    // 250 pairs: each rewriting runs to its node and iteration limits (no clock decides it),
    // several hundred milliseconds in a debug build when the pair does not close.
    for _ in 0..250 {
        let leaves: Vec<Term> = (0..3)
            .map(|_| Term::leaf(s.value(&layout(&mut r)).unwrap()))
            .collect();
        let x = expr(&mut r, &leaves, 3);
        // Half the pairs are a rewritten form of the first expression, half unrelated.
        let y = if r.below(2) == 0 {
            expr(&mut r, &leaves, 3)
        } else {
            match &x {
                Term::Op("composition", k) if matches!(&k[1], Term::Op("composition", _)) => {
                    let Term::Op(_, kk) = &k[1] else { unreachable!() };
                    Term::op(
                        "composition",
                        vec![
                            Term::op("composition", vec![k[0].clone(), kk[0].clone()]),
                            kk[1].clone(),
                        ],
                    )
                }
                other => Term::op("coalesce", vec![other.clone()]),
            }
        };
        let (Some(vx), Some(vy)) = (value(&s, &x), value(&s, &y)) else {
            continue;
        };
        tried += 1;
        if by_rewriting_with(&x, &y, &Limits::default(), &laws::all(), false).closed {
            closed += 1;
            assert!(same_function(&vx, &vy), "egg closed {x} = {y}: {vx} vs {vy}");
        }
    }
    eprintln!("{closed} closed of {tried} evaluated pairs");
    assert!(tried >= 50 && closed >= 15, "{closed} closed of {tried}");
}
