//! The cases of the round trips: layouts (random, nested, F2, coordinate strides, swizzled,
//! symbolic) lowered at the index or at coordinates, and random hand-built expressions over
//! every operator with negative values in their domain. Each comes with its signature and its
//! domain, every point of which the emitted code is run on.

use std::collections::HashMap;
use std::sync::Arc;
use tessera_codegen::Signature;
use tessera_ir::index::{Builder, IndexExpr, NodeId, Op, Var, lower_composed, lower_coords, lower_index};
use tessera_ir::simplify::{Domain, Limits, simplify};
use tessera_ir::sym::{Facts, Interval, SymInt};
use tessera_ir::text::{Read, read};
use tessera_ir::{Layout, parse_layout};

/// A small deterministic generator (splitmix64).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.next() as usize % xs.len()]
    }
}

/// One function to emit and run on every point of its domain.
pub struct Case {
    pub what: String,
    pub expr: IndexExpr,
    pub sig: Signature,
}

impl Case {
    /// The values of each argument, in order: `lo..=hi` by the modulus.
    pub fn axes(&self) -> Vec<(i64, i64, i64)> {
        self.sig
            .args
            .iter()
            .map(|v| {
                let a = self
                    .sig
                    .assumptions
                    .iter()
                    .find(|a| &a.var == v)
                    .expect("a bounded argument");
                let iv = a.interval().unwrap();
                (iv.lo().unwrap() as i64, iv.hi().unwrap() as i64, a.modulus)
            })
            .collect()
    }

    /// Every point of the domain, the first argument outermost.
    pub fn points(&self) -> Vec<Vec<i64>> {
        let mut pts = vec![vec![]];
        for (lo, hi, step) in self.axes() {
            let mut next = Vec::new();
            for p in &pts {
                let mut v = lo;
                while v <= hi {
                    let mut q = p.clone();
                    q.push(v);
                    next.push(q);
                    v += step;
                }
            }
            pts = next;
        }
        pts
    }

    /// The outputs at every point, by the IR's evaluator: one line each, space-separated.
    pub fn expected(&self) -> Option<Vec<String>> {
        self.points()
            .iter()
            .map(|p| {
                let m: HashMap<Var, i64> = self.sig.args.iter().cloned().zip(p.iter().copied()).collect();
                let v = self.expr.eval_vars(&m).ok()?;
                Some(v.iter().map(i64::to_string).collect::<Vec<_>>().join(" "))
            })
            .collect()
    }
}

fn case(
    what: String,
    expr: IndexExpr,
    ranges: HashMap<Var, Interval>,
    moduli: HashMap<Var, i64>,
    k: usize,
) -> Case {
    let sig = Signature::for_expr(&expr, &format!("f{k}"), &ranges, &moduli).unwrap();
    Case { what, expr, sig }
}

fn index_range(size: i64) -> HashMap<Var, Interval> {
    HashMap::from([(Var::Index, Interval::new(Some(0), Some(i128::from(size) - 1)))])
}

fn coord_ranges(l: &Layout<i64>) -> HashMap<Var, Interval> {
    l.flat_shape()
        .iter()
        .enumerate()
        .map(|(k, s)| {
            (
                Var::Coord(k as u32),
                Interval::new(Some(0), Some(i128::from(*s) - 1)),
            )
        })
        .collect()
}

/// A random nested shape and a stride of the same profile, each leaf stride from `leaf`.
fn random_layout_text(r: &mut Rng, leaf: &mut dyn FnMut(&mut Rng) -> String) -> String {
    let modes = r.range(1, 3);
    let (mut shape, mut stride) = (Vec::new(), Vec::new());
    for _ in 0..modes {
        if r.range(0, 3) == 0 {
            let n = r.range(2, 3);
            let s: Vec<String> = (0..n).map(|_| r.range(1, 4).to_string()).collect();
            let d: Vec<String> = (0..n).map(|_| leaf(r)).collect();
            shape.push(format!("({})", s.join(",")));
            stride.push(format!("({})", d.join(",")));
        } else {
            shape.push(r.range(1, 6).to_string());
            stride.push(leaf(r));
        }
    }
    format!("({}):({})", shape.join(","), stride.join(","))
}

/// A random expression over `i`, `P`, `Q` with every operator; divisors are `select(x, x, 3)`
/// (never 0, negative when `x` is) and shifts by constants; values stay small.
fn random_expr(r: &mut Rng) -> IndexExpr {
    let mut b = Builder::new();
    let mut ids: Vec<NodeId> = vec![
        b.var(Var::Index),
        b.var(Var::Param("P".into())),
        b.var(Var::Param("Q".into())),
    ];
    let consts = [r.range(-9, 9), r.range(2, 7), -r.range(2, 7)];
    ids.extend(consts.iter().map(|c| b.konst(*c)));
    let steps = r.range(4, 9);
    for _ in 0..steps {
        // Division, remainder and shifts twice as often as the rest.
        let op = *r.pick(&[Op::ALL, &[Op::Div, Op::Mod, Op::Shl, Op::Shr]].concat());
        let x = *r.pick(&ids);
        let y = *r.pick(&ids);
        let z = *r.pick(&ids);
        let id = match op {
            Op::Div | Op::Mod => {
                let three = b.konst(3);
                let d = b.select(y, y, three);
                b.op(op, &[x, d])
            }
            Op::Shl | Op::Shr => {
                let s = b.konst(r.range(0, 4));
                b.op(op, &[x, s])
            }
            // Keep products small: multiply by a small constant only.
            Op::Mul => {
                let c = b.konst(r.range(-3, 3));
                b.mul(x, c)
            }
            _ => b.op(op, &[x, y, z]),
        };
        ids.push(id);
    }
    let n = ids.len();
    let outs = if r.range(0, 2) == 0 {
        vec![
            ("value".to_string(), ids[n - 1]),
            ("coord[1]".to_string(), ids[n - 2]),
        ]
    } else {
        vec![("offset".to_string(), ids[n - 1])]
    };
    b.finish(outs)
}

/// Symbolic layouts, read over parameters with facts: `(text, declaration)`.
const SYMBOLIC: &[(&str, &str)] = &[
    ("(M,4):(1,M)", "M where M % 4 == 0, 4 <= M <= 16"),
    (
        "(M,(2,N)):(1,(M,2*M))",
        "M, N where M % 2 == 0, 2 <= M <= 8, 1 <= N <= 3",
    ),
    ("(4,M):(M,1)", "M where 1 <= M <= 9"),
];

/// The cases, deterministic for a seed.
pub fn cases(seed: u64) -> Vec<Case> {
    let mut r = Rng::new(seed);
    let mut out = Vec::new();
    let push = |c: Case, out: &mut Vec<Case>| {
        if c.expected().is_some() && c.points().len() <= 4096 {
            out.push(c);
        }
    };
    // Fixed layouts, and the README's example.
    for text in [
        "(4,8):(8,1)",
        "((2,2),3):((24,2),8)",
        "(2,4):(F2(5),F2(10))",
        "(4,8):(1@0,1@1)",
        "(8,8):(-8,1)",
    ] {
        let l = parse_layout(text).unwrap();
        let k = out.len();
        push(
            case(
                format!("{text} at i"),
                lower_index(&l).unwrap(),
                index_range(l.size().unwrap()),
                HashMap::new(),
                k,
            ),
            &mut out,
        );
        let k = out.len();
        push(
            case(
                format!("{text} at c"),
                lower_coords(&l).unwrap(),
                coord_ranges(&l),
                HashMap::new(),
                k,
            ),
            &mut out,
        );
    }
    for text in [
        "Sw<3,3,3> o (8,64):(64,1)",
        "Sw<2,0,-2> o 5 o (4,8):(8,1)",
        "Sw<1,1,2> o (2,(2,8)):(16,(1,2))",
    ] {
        let Read::Composed(c) = read::<i64>(text, &|_| None).unwrap() else {
            panic!("{text}")
        };
        let k = out.len();
        let size = c.inner.size().unwrap();
        push(
            case(
                text.to_string(),
                lower_composed(&c).unwrap(),
                index_range(size),
                HashMap::new(),
                k,
            ),
            &mut out,
        );
    }
    // Random layouts: integer strides (negative and zero too), F2 strides, coordinate strides.
    for n in 0..90 {
        let text = match n % 3 {
            0 => random_layout_text(&mut r, &mut |r| r.range(-8, 16).to_string()),
            1 => random_layout_text(&mut r, &mut |r| format!("F2({})", r.range(0, 63))),
            _ => random_layout_text(&mut r, &mut |r| format!("{}@{}", r.range(-3, 5), r.range(0, 1))),
        };
        let Ok(l) = parse_layout(&text) else { continue };
        let k = out.len();
        if let Ok(e) = lower_index(&l) {
            push(
                case(
                    format!("{text} at i"),
                    e,
                    index_range(l.size().unwrap()),
                    HashMap::new(),
                    k,
                ),
                &mut out,
            );
        }
        let k = out.len();
        if let Ok(e) = lower_coords(&l) {
            push(
                case(format!("{text} at c"), e, coord_ranges(&l), HashMap::new(), k),
                &mut out,
            );
        }
    }
    // Random swizzled layouts.
    for _ in 0..25 {
        let bits = r.range(1, 3);
        let base = r.range(0, 3);
        let shift = r.range(bits, bits + 2) * if r.range(0, 1) == 0 { 1 } else { -1 };
        let off = r.range(0, 9);
        let inner = random_layout_text(&mut r, &mut |r| r.range(0, 16).to_string());
        let text = format!("Sw<{bits},{base},{shift}> o {off} o {inner}");
        let Ok(Read::Composed(c)) = read::<i64>(&text, &|_| None) else {
            continue;
        };
        let (Ok(e), Ok(size)) = (lower_composed(&c), c.inner.size()) else {
            continue;
        };
        let k = out.len();
        push(case(text, e, index_range(size), HashMap::new(), k), &mut out);
    }
    // Symbolic layouts: the index over the largest size, the parameters over their facts.
    for (text, decl) in SYMBOLIC {
        let mut f = Facts::default();
        let names = f.declare(decl).unwrap();
        let facts = Arc::new(f);
        let l = read::<SymInt>(text, &|n| Some(SymInt::param(n, &facts)))
            .unwrap()
            .into_layout()
            .unwrap();
        let size = facts.interval(l.size().unwrap().poly()).hi().unwrap();
        let mut ranges = index_range(size as i64);
        let mut moduli = HashMap::new();
        for n in names {
            let pf = facts.get(&n).unwrap();
            ranges.insert(Var::Param(n.clone()), pf.interval());
            moduli.insert(Var::Param(n), pf.divisor());
        }
        let k = out.len();
        push(
            case(
                format!("{text} where {decl}"),
                lower_index(&l).unwrap(),
                ranges,
                moduli,
                k,
            ),
            &mut out,
        );
    }
    // Every operator on operands of both signs: `op(i, d)` with `i` in [-8, 8] and `d` in
    // [-6, 6] (a divisor `select(P, P, 3)` is never 0; shifts by 0..=3).
    for &op in Op::ALL {
        for s in 0..4 {
            let mut b = Builder::new();
            let i = b.var(Var::Index);
            let p = b.var(Var::Param("P".into()));
            let three = b.konst(3);
            let id = match op {
                // A constant power of two (floor forms without a helper) or any divisor.
                Op::Div | Op::Mod if s >= 2 => {
                    let d = b.konst(1 << s);
                    b.op(op, &[i, d])
                }
                Op::Div | Op::Mod => {
                    let d = b.select(p, p, three);
                    b.op(op, &[i, d])
                }
                Op::Shl | Op::Shr => {
                    let k = b.konst(s);
                    b.op(op, &[i, k])
                }
                _ => b.op(op, &[i, p, three]),
            };
            let e = b.finish(vec![("offset".into(), id)]);
            let ranges = HashMap::from([
                (Var::Index, Interval::new(Some(-8), Some(8))),
                (Var::Param("P".into()), Interval::new(Some(-6), Some(6))),
            ]);
            let k = out.len();
            push(
                case(format!("{op:?} on both signs"), e, ranges, HashMap::new(), k),
                &mut out,
            );
        }
    }
    // Constants beyond 32 bits, and the extremes of i64 (also as facts that state nothing).
    {
        let mut b = Builder::new();
        let i = b.var(Var::Index);
        let big = b.konst(3_000_000_000);
        let huge = b.konst(-4_000_000_000_000_000_000);
        let (min, max) = (b.konst(i64::MIN), b.konst(i64::MAX));
        let t = b.mul(i, big);
        let o0 = b.add(t, huge);
        let o1 = b.select(i, i, min);
        let o2 = b.xor(i, max);
        let o3 = b.max(i, min);
        let e = b.finish(vec![
            ("a".into(), o0),
            ("b".into(), o1),
            ("c".into(), o2),
            ("d".into(), o3),
        ]);
        let ranges = HashMap::from([(Var::Index, Interval::new(Some(-3), Some(3)))]);
        let k = out.len();
        push(
            case("large constants".into(), e, ranges, HashMap::new(), k),
            &mut out,
        );
    }
    // Hand-built expressions over negative values.
    let mut made = 0;
    while made < 80 {
        let e = random_expr(&mut r);
        let ranges = HashMap::from([
            (Var::Index, Interval::new(Some(-8), Some(8))),
            (Var::Param("P".into()), Interval::new(Some(-6), Some(6))),
            (Var::Param("Q".into()), Interval::new(Some(-9), Some(9))),
        ]);
        let moduli = HashMap::from([(Var::Param("Q".into()), 3)]);
        let k = out.len();
        let before = out.len();
        push(
            case(format!("random expression\n{e}"), e, ranges, moduli, k),
            &mut out,
        );
        made += usize::from(out.len() > before);
    }
    // Every case again as the e-graph simplifier leaves it (shifts, masks, shared quotients):
    // the simplified expression equals the original at every point of the domain (checked
    // here), and the emitted code of it is compared with the IR like any case.
    let originals = out.len();
    for k in 0..originals {
        let c = &out[k];
        let mut d = Domain::default();
        for a in &c.sig.assumptions {
            if let Ok(iv) = a.interval() {
                d.interval(a.var.clone(), iv);
            }
            if a.modulus > 1 {
                d.modulus(a.var.clone(), a.modulus);
            }
        }
        // An expression the interval analysis cannot show defined everywhere (a divisor whose
        // interval holds 0) is refused by the simplifier; it keeps its one case.
        let Ok(s) = simplify(&c.expr, &d, &Limits::default()) else {
            assert!(c.expr.check_defined(d.ranges()).is_err(), "{}", c.what);
            continue;
        };
        if s.expr == c.expr {
            continue;
        }
        for p in c.points() {
            let m: HashMap<Var, i64> = c.sig.args.iter().cloned().zip(p.iter().copied()).collect();
            if let Ok(want) = c.expr.eval_vars(&m) {
                assert_eq!(
                    s.expr.eval_vars(&m).ok(),
                    Some(want),
                    "{}\n{}\nat {m:?}",
                    c.what,
                    s.expr
                );
            }
        }
        let what = format!("{} (simplified)", c.what);
        let ranges = d.ranges().clone();
        let moduli = d.moduli().clone();
        let k = out.len();
        push(case(what, s.expr, ranges, moduli, k), &mut out);
    }
    out
}
