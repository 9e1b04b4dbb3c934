//! Random kernels for the backends' tests: random hierarchical, swizzled, broadcast and padded
//! layouts, every element type, random expressions; seeded buffers of every type; and the
//! kernel tests' small helpers.

#![allow(dead_code)]

use proptest::prelude::*;
use tessera_codegen::kernel::{Buffer, ElemType};

/// Proof options of the kernel tests: a minute per obligation.
pub fn opts() -> tessera_verifier::Options {
    tessera_verifier::Options {
        timeout_ms: Some(60_000),
    }
}

/// Kernel `name` of the check-file text `src`.
pub fn kernel(src: &str, name: &str) -> tessera_codegen::kernel::Kernel {
    let cf = tessera::check::load("k.tess", src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    cf.kernels
        .into_iter()
        .find(|k| k.name == name)
        .expect("the kernel")
}

/// The text of `examples/kernels.tess`.
pub fn examples() -> String {
    std::fs::read_to_string(format!("{}/examples/kernels.tess", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// Parameter values from `(name, value)` pairs.
pub fn bind(pairs: &[(&str, i64)]) -> std::collections::HashMap<String, i64> {
    pairs.iter().map(|(n, v)| (n.to_string(), *v)).collect()
}

/// Seeded values of every type: floats in [-4, 4) (some exact halves, so that ties occur
/// when narrowing), integers in [-50, 50).
pub fn buffer(elem: ElemType, len: usize, seed: u64) -> Buffer {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut unit = || ((next() >> 40) as f64 / (1u64 << 24) as f64) * 8.0 - 4.0;
    match elem {
        ElemType::F32 => Buffer::F32((0..len).map(|_| unit() as f32).collect()),
        ElemType::F64 => Buffer::F64((0..len).map(|_| unit()).collect()),
        ElemType::I32 => Buffer::I32((0..len).map(|_| (unit() * 12.5) as i32).collect()),
        ElemType::I64 => Buffer::I64((0..len).map(|_| (unit() * 12.5) as i64).collect()),
        ElemType::F16 => Buffer::F16((0..len).map(|_| half::f16::from_f64(unit())).collect()),
        ElemType::BF16 => Buffer::BF16((0..len).map(|_| half::bf16::from_f64(unit())).collect()),
    }
}

/// One dimension of a random layout: a leaf or two leaves.
#[derive(Clone, Debug)]
pub struct Dim(Vec<i64>);

/// A layout over `ds` with flat strides `st` (`None` for compact in a random order).
pub fn layout(ds: &[Dim], st: &[i64]) -> String {
    let mut k = 0;
    let (mut shape, mut stride) = (Vec::new(), Vec::new());
    for Dim(l) in ds {
        let s: Vec<String> = l.iter().map(i64::to_string).collect();
        let t: Vec<String> = st[k..k + l.len()].iter().map(i64::to_string).collect();
        k += l.len();
        if l.len() == 1 {
            shape.push(s[0].clone());
            stride.push(t[0].clone());
        } else {
            shape.push(format!("({})", s.join(",")));
            stride.push(format!("({})", t.join(",")));
        }
    }
    format!("({}):({})", shape.join(","), stride.join(","))
}

/// Compact strides for the leaves of `ds` in the order `perm`, with a gap of `pad`.
pub fn compact(ds: &[Dim], perm: &[usize], pad: i64) -> Vec<i64> {
    let flat: Vec<i64> = ds.iter().flat_map(|d| d.0.clone()).collect();
    let mut st = vec![0i64; flat.len()];
    let mut m = 1;
    for &k in perm.iter().filter(|&&k| k < flat.len()) {
        st[k] = m;
        m *= flat[k] + pad;
    }
    st
}

pub fn dim() -> impl Strategy<Value = Dim> {
    prop_oneof![
        (1i64..10).prop_map(|s| Dim(vec![s])),
        (1i64..4, 1i64..4).prop_map(|(a, b)| Dim(vec![a, b]))
    ]
}

/// An element type (the 32-bit lane types more often, since they vectorise).
pub fn elem() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        3 => Just("f32"),
        1 => Just("f64"),
        2 => Just("i32"),
        1 => Just("i64"),
        3 => Just("f16"),
        2 => Just("bf16")
    ]
}

/// A random expression over the reads `leaves` (already typed `ty`), depth `d`.
pub fn expr(leaves: Vec<String>, ty: &'static str, d: u32) -> BoxedStrategy<String> {
    let float = !ty.starts_with('i');
    let leaf = prop_oneof![
        proptest::sample::select(leaves.clone()),
        (0i64..5).prop_map(|c| c.to_string()),
        proptest::sample::select(leaves.clone()).prop_map(move |x| format!("{ty}({x})")),
    ];
    if d == 0 {
        return leaf.boxed();
    }
    let sub = expr(leaves.clone(), ty, d - 1);
    let ops: Vec<&'static str> = if float {
        vec!["+", "-", "*", "/", "max", "min", "fma", "abs", "neg", "cast"]
    } else {
        vec!["+", "-", "*", "max", "min", "abs", "neg", "fma"]
    };
    (
        proptest::sample::select(ops),
        sub.clone(),
        sub.clone(),
        sub,
        elem(),
    )
        .prop_map(move |(op, a, b, c, via)| match op {
            "max" | "min" => format!("{op}({a}, {b})"),
            "fma" => format!("fma({a}, {b}, {c})"),
            "abs" | "neg" => format!("{op}({a})"),
            "cast" => format!("{ty}({via}({a}))"),
            o => format!("({a} {o} {b})"),
        })
        .boxed()
}

/// A random kernel: an output `y[i,j]` (injective, maybe padded, maybe swizzled), inputs
/// `x[i,j]` (any strides, broadcast included), `b[j]`, `w[j,k]` for a `+=`, every tensor of a
/// random type, the value cast to the output's type.
pub fn kernels() -> impl Strategy<Value = String> {
    let perm = Just(()).prop_perturb(|_, mut rng| {
        let mut v = vec![0usize, 1, 2, 3];
        for k in (1..4).rev() {
            v.swap(k, (rng.next_u32() as usize) % (k + 1));
        }
        v
    });
    (
        (dim(), dim(), 1i64..6),
        (perm, 0i64..2, prop_oneof![Just(None), (1i64..3, 0i64..2).prop_map(|(b, m)| Some((b, m, b + m + 1)))]),
        proptest::collection::vec(0i64..7, 4),
        (elem(), elem(), elem()),
        (any::<bool>(), proptest::option::of((1i64..6, 1i64..6)), any::<bool>()),
    )
        .prop_flat_map(|((di, dj, nk), (perm, pad, sw), xs, (ty, tx, tb), (acc, tile, dense))| {
            let ds = vec![di.clone(), dj.clone()];
            // Dense kernels: no padding and no declared tiles, the common case of real code.
            let (pad, tile) = if dense { (0, None) } else { (pad, tile) };
            let ny: i64 = dj.0.iter().product();
            let yl = layout(&ds, &compact(&ds, &perm, pad));
            let yl = match sw {
                // A swizzle over a compact layout whose cosize is a multiple of its span
                // keeps the offsets in the buffer only sometimes: the proof decides.
                Some((b, m, s)) => format!("Sw<{b},{m},{s}> o {yl}"),
                None => yl,
            };
            let nx = ds.iter().map(|d| d.0.len()).sum::<usize>();
            // Half the inputs are compact like the output (so that four-lane code is tried).
            let xl = if dense { layout(&ds, &compact(&ds, &perm, 0)) } else { layout(&ds, &xs[..nx]) };
            let decls = format!(
                "tensor y : {ty}[{yl}]\ntensor x : {tx}[{xl}]\ntensor b : {tb}[{ny}:1]\ntensor w : {tx}[({ny},{nk}):({nk},1)]\n"
            );
            let leaves = vec![format!("{ty}(x[i,j])"), format!("{ty}(b[j])")];
            let kl = vec![format!("{ty}(w[j,k])"), format!("{ty}(x[i,j])")];
            let tiles = match tile {
                Some((a, c)) => format!(" tile i:{a}, j:{c}"),
                None => String::new(),
            };
            let body = if acc { expr(kl, ty, 2) } else { expr(leaves, ty, 3) };
            body.prop_map(move |e| {
                let op = if acc { "+=" } else { "=" };
                format!("{decls}kernel k{tiles} {{ y[i,j] {op} {e} }}\n")
            })
        })
}

/// A shared-memory layout of an `a x c` tile: column-major, row-major, padded or swizzled
/// (a swizzle is a bijection on offsets, so any is a valid stage).
pub fn smem(a: i64, c: i64) -> impl Strategy<Value = String> {
    prop_oneof![
        Just(format!("({a},{c}):(1,{a})")),
        Just(format!("({a},{c}):({c},1)")),
        Just(format!("({a},{c}):(1,{})", a + 1)),
        proptest::sample::select(vec!["Sw<1,0,2>", "Sw<2,0,3>", "Sw<1,1,2>", "Sw<2,1,3>"])
            .prop_map(move |s| format!("{s} o ({a},{c}):({c},1)")),
    ]
}

/// A random staged kernel for the PTX backend: `y[i,j] = f(x[i,j], b[j]) + x[i,j]`, or the
/// sum `y[i,j] += w[j,k] (*|+) f(w[j,k], x[i,j])` over `k`; tiles of powers of two, a random
/// `threads` clause dividing them (none, sometimes, for `=`), and `x` and/or `w` staged
/// through random shared layouts of their tiles (`w` along the contraction index `k`: the
/// staged contraction); some `=` kernels ask for `vector 2|4`.
pub fn staged_kernels() -> impl Strategy<Value = String> {
    (
        (0u32..6, 0u32..6, 0u32..4),
        (0u32..4, 0u32..4, any::<bool>(), any::<bool>()),
        (elem(), elem(), elem()),
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
        (1i64..3, 1i64..3, 1i64..3, proptest::option::of((0i64..4, 0i64..4, 0i64..4)), any::<bool>()),
        proptest::option::of(prop_oneof![Just(2i64), Just(4i64)]),
    )
        .prop_flat_map(
            |((ea, ec, ek), (ti, tj, j_first, no_threads), (ty, tx, tb), (acc, stage_x, stage_w, product), (mi, mj, mk, rest, split), vector)| {
                // `vector W` (on `=` with threads) most often granted: a tile along j of at
                // least W per thread, an extent a multiple of W.
                let vector = vector.filter(|_| !acc && !no_threads);
                let ec = if vector.is_some() { ec.max(2) } else { ec };
                let (a, c, tk) = (1i64 << ea, 1i64 << ec, 1i64 << ek);
                // Threads dividing the tiles, at most 8 values per index (64 sums a thread).
                let (ti, tj) = (1i64 << (ea.saturating_sub(3) + ti).min(ea), 1i64 << (ec.saturating_sub(3) + tj).min(ec));
                let tj = vector.map_or(tj, |w| tj.min(c / w));
                // Extents: whole tiles, or (with `rest`) a partial one more.
                let (ri, rj, rk) = rest.unwrap_or((0, 0, 0));
                let rj = if vector.is_some() { 0 } else { rj };
                let (ni, nj, nk) = (a * mi + ri % a, c * mj + rj % c, tk * mk + rk % tk);
                let leaf = |n: i64| if split && n % 2 == 0 { Dim(vec![2, n / 2]) } else { Dim(vec![n]) };
                let ds = vec![leaf(ni), leaf(nj)];
                let ny = nj;
                // A staged contraction needs `threads`; a stage needs a read tensor.
                let no_threads = no_threads && !acc;
                let (stage_x, stage_w) = (stage_x || !(acc && stage_w), acc && stage_w);
                // `vector W` (on `=` with threads; granted or refused by the backend): `y` then
                // row-major, so that it can be.
                let (li, lj) = (ds[0].0.len(), ds[1].0.len());
                let row_major: Vec<usize> = (li..li + lj).chain(0..li).collect();
                let yl = if vector.is_some() {
                    layout(&ds, &compact(&ds, &row_major, 0))
                } else {
                    layout(&ds, &compact(&ds, &[0, 1, 2, 3], 0))
                };
                let xl = layout(&ds, &compact(&ds, &[3, 2, 1, 0], 0));
                let decls = format!(
                    "tensor y : {ty}[{yl}]\ntensor x : {tx}[{xl}]\ntensor b : {tb}[{ny}:1]\ntensor w : {tx}[({ny},{nk}):({nk},1)]\n"
                );
                let tiles = if acc {
                    format!(" tile i:{a}, j:{c}, k:{tk}")
                } else {
                    format!(" tile i:{a}, j:{c}")
                };
                let threads = match (no_threads, j_first) {
                    (true, _) => String::new(),
                    (false, true) => format!(" threads j:{tj}, i:{ti}"),
                    (false, false) => format!(" threads i:{ti}, j:{tj}"),
                };
                let threads = match vector {
                    Some(w) => format!("{threads} vector {w}"),
                    None => threads,
                };
                let body = if acc {
                    expr(vec![format!("{ty}(w[j,k])"), format!("{ty}(x[i,j])")], ty, 1)
                } else {
                    expr(vec![format!("{ty}(x[i,j])"), format!("{ty}(b[j])")], ty, 2)
                };
                (body, smem(a, c), smem(c, tk)).prop_map(move |(e, sx, sw)| {
                    let mut lets = String::new();
                    let mut stages = String::new();
                    if stage_x {
                        lets += &format!("let SX = {sx}\n");
                        stages += "  stage x in SX\n";
                    }
                    if stage_w {
                        lets += &format!("let SW = {sw}\n");
                        stages += "  stage w in SW\n";
                    }
                    let stmt = if acc {
                        let op = if product { "*" } else { "+" };
                        format!("y[i,j] += {ty}(w[j,k]) {op} (({e}) + {ty}(x[i,j]))")
                    } else {
                        format!("y[i,j] = ({e}) + {ty}(x[i,j])")
                    };
                    format!("{decls}{lets}kernel k{tiles}{threads} {{\n{stages}  {stmt}\n}}\n")
                })
            },
        )
}
