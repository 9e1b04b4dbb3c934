//! Generated tiled MMAs and tiled copies over the whole atom table (a seeded sample: every
//! atom family, every third table atom and a GMMA sample, atom layouts of 1 to 3 atoms per mode in column- or row-major order,
//! permutations of 1 or 2 times the natural tile) meet the definitions, checked by
//! enumeration:
//! * `get_layoutC_TV` is a bijection onto the `(M,N)` tile (each element once per atom along
//!   K); A and B reach their whole tiles;
//! * each thread's `partition_C` of the tile is the set `get_layoutC_TV` gives it (two code
//!   paths of CuTe: `get_slice`'s flat coordinate against `right_inverse` of the thread layout);
//! * over a tensor of several tiles, the threads' C partitions cover it exactly once (per
//!   atom along K);
//! * a `make_tiled_copy`'s `get_layoutS_TV` is a bijection onto its tile, and each thread's
//!   `partition_S` of the tile is what it gives the thread.

use std::collections::{BTreeSet, HashSet};
use tessera_ir::atom::{
    CopyAtom, Operand, Permutation, Side, TiledCopy, TiledMma, copy_op, cute, mma_atom, mma_atom_names,
};
use tessera_ir::{ComposedLayout, HTuple, Layout};

struct Rng(u64);
impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

fn values(l: &Layout) -> Vec<i64> {
    let n = l.size().unwrap();
    (0..n)
        .map(|i| *l.eval_index(&i).unwrap().as_int().unwrap())
        .collect()
}

fn plain(l: Layout) -> ComposedLayout {
    ComposedLayout {
        swizzle: None,
        offset: 0,
        inner: l,
    }
}

/// The atom layout: extents and column- or row-major order.
fn atom_layout(r: &mut Rng) -> Layout {
    let e: Vec<i64> = (0..3)
        .map(|k| {
            if k == 2 {
                1 + r.next(2) as i64
            } else {
                1 + r.next(3) as i64
            }
        })
        .collect();
    if r.next(2) == 0 {
        cute::compact(&HTuple::flat(e)).unwrap()
    } else {
        // Row-major over (M,N), K outermost.
        let (m, n, k) = (e[0], e[1], e[2]);
        let d = |s: i64, v: i64| if s == 1 { 0 } else { v };
        Layout::new(
            HTuple::flat([m, n, k]),
            HTuple::flat([d(m, n), d(n, 1), d(k, m * n)].map(tessera_ir::Stride::Int)),
        )
        .unwrap()
    }
}

#[test]
fn generated_tiled_mmas_meet_the_definitions() {
    let names = mma_atom_names();
    let mut r = Rng(27);
    let mut done = 0;
    let mut families = BTreeSet::new();
    for (k, name) in names.iter().enumerate() {
        // Every third table atom; every 61st GMMA name.
        if (name.starts_with("SM90_64x") && k % 61 != 0) || (!name.starts_with("SM90_64x") && k % 3 != 0) {
            continue;
        }
        let atom = mma_atom(name).unwrap();
        let al = atom_layout(&mut r);
        let base = match TiledMma::with(atom.clone(), &al, vec![]) {
            Ok(b) => b,
            // Three quad-pairs cannot tile the gaps of SM70's ThrID (CuTe fails too).
            Err(e) => {
                assert!(name.starts_with("SM70"), "{}: {e}", name);
                continue;
            }
        };
        let ts = base.tile_size().unwrap();
        let perms: Vec<Permutation> = (0..3)
            .map(|i| {
                let f = 1 + r.next(2) as i64;
                if f == 1 && r.next(2) == 0 {
                    Permutation::Keep
                } else {
                    Permutation::Layout(Layout::leaf(ts[i] * f, 1))
                }
            })
            .collect();
        let t = TiledMma::with(atom, &al, perms).unwrap();
        let [tm, tn, tk] = t.tile_size().unwrap();
        if tm * tn > 1 << 15 || tm * tk > 1 << 15 || tn * tk > 1 << 15 {
            continue;
        }
        // SM70's quad-pair ThrID (4,2):(1,16) leaves thread ids 4..15 to other atoms: with
        // fewer atoms the thread layout has holes and CuTe's layouts repeat threads (as the
        // oracle's sm70_tn_1 prints). The definitions below are for gap-free thread layouts.
        let ids: HashSet<i64> = values(&t.thr_layout_vmnk).into_iter().collect();
        if ids != (0..t.num_threads().unwrap()).collect() {
            continue;
        }
        families.insert(name.split('_').take(2).collect::<Vec<_>>().join("_"));
        let ctx = format!("{t}");
        // Atoms along K (a split-K tiled MMA) each hold the whole C tile.
        let ks = t.atom_layout.mode(2).unwrap().size().unwrap();
        let c = t.tv_layout(Operand::C).unwrap();
        let cv = values(&c);
        let mut count = vec![0i64; (tm * tn) as usize];
        for v in &cv {
            assert!((0..tm * tn).contains(v), "{ctx}");
            count[*v as usize] += 1;
        }
        assert!(count.iter().all(|n| *n == ks), "{ctx}: C reached {ks} times each");
        for (op, extent) in [(Operand::A, tm * tk), (Operand::B, tn * tk)] {
            let s: HashSet<i64> = values(&t.tv_layout(op).unwrap()).into_iter().collect();
            assert_eq!(s, (0..extent).collect(), "{ctx}: {op:?} reaches its tile");
        }
        // partition_C of the tile == the C layout's thread row, for every thread.
        let threads = t.num_threads().unwrap();
        let c_thr = c.mode(0).unwrap().size().unwrap();
        assert_eq!(c_thr, threads, "{ctx}");
        let tile = plain(cute::compact(&HTuple::flat([tm, tn])).unwrap());
        let vals = c.mode(1).unwrap().size().unwrap();
        let sample = [0, 1, threads / 3, threads / 2 + 1, threads - 1];
        for th in sample.into_iter().filter(|th| *th < threads) {
            let f = t.partition(Operand::C, &tile, th).unwrap().view;
            let got: BTreeSet<i64> = (0..f.inner.size().unwrap())
                .map(|i| f.eval_index(&i).unwrap())
                .collect();
            let want: BTreeSet<i64> = (0..vals)
                .map(|v| *c.eval_index(&(th + threads * v)).unwrap().as_int().unwrap())
                .collect();
            assert_eq!(got, want, "{ctx}: thread {th}");
        }
        // Two tiles down M and three across N: covered exactly once (every thread: up to 64).
        if threads > 64 {
            done += 1;
            continue;
        }
        let big = plain(cute::compact(&HTuple::flat([2 * tm, 3 * tn])).unwrap());
        let mut seen = vec![0u8; (6 * tm * tn) as usize];
        for th in 0..threads {
            let f = t.partition(Operand::C, &big, th).unwrap().view;
            for i in 0..f.inner.size().unwrap() {
                seen[f.eval_index(&i).unwrap() as usize] += 1;
            }
        }
        assert!(
            seen.iter().all(|n| *n as i64 == ks),
            "{ctx}: C partitions cover the tensor {ks} times"
        );
        done += 1;
    }
    assert!(done > 30, "{done} configurations");
    for fam in [
        "SM61_DP4A",
        "SM70_8x8x4",
        "SM75_8x8x16",
        "SM80_16x8x16",
        "SM89_16x8x32",
        "SM90_16x8x16",
        "UniversalFMA_F32",
    ] {
        assert!(
            families.iter().any(|f| f.starts_with(fam)),
            "{fam} in {families:?}"
        );
    }
    assert!(families.iter().any(|f| f.starts_with("SM90_64x")), "GMMA sampled");
}

#[test]
fn generated_tiled_copies_meet_the_definitions() {
    let mut r = Rng(2027);
    let mut done = 0;
    for _ in 0..60 {
        let bits = [8i64, 16, 32][r.next(3) as usize];
        let op_bits = [bits, 2 * bits, 4 * bits, 128][r.next(4) as usize].min(128);
        let op = copy_op(&format!("UniversalCopy_{op_bits}")).unwrap();
        let atom = CopyAtom::new(op, bits).unwrap();
        let per = op_bits / bits;
        let (tm, tn) = (1 << r.next(4), 1 << r.next(4));
        let thr = if r.next(2) == 0 {
            cute::compact(&HTuple::flat([tm, tn])).unwrap()
        } else {
            Layout::new(
                HTuple::flat([tm, tn]),
                HTuple::flat([tn, 1].map(tessera_ir::Stride::Int)),
            )
            .unwrap()
        };
        // The values: `per` (a whole atom) times 1 or 2, along M or N.
        let f = 1 + r.next(2) as i64;
        let val = if r.next(2) == 0 {
            cute::compact(&HTuple::flat([per * f, 1])).unwrap()
        } else {
            cute::compact(&HTuple::flat([1, per * f])).unwrap()
        };
        let tc = TiledCopy::make(atom, &thr, &val).unwrap();
        let ctx = tc.to_string();
        let [a, b] = [tc.tile_size()[0], tc.tile_size()[1]];
        for side in [Side::Src, Side::Dst] {
            let l = tc.tv_layout(side).unwrap();
            let v = values(&l);
            let s: HashSet<i64> = v.iter().copied().collect();
            assert_eq!(
                (v.len() as i64, s.len() as i64),
                (a * b, a * b),
                "{ctx}: bijective"
            );
            assert!(v.iter().all(|x| (0..a * b).contains(x)), "{ctx}");
            let threads = tc.num_threads().unwrap();
            let nv = l.mode(1).unwrap().size().unwrap();
            let tile = plain(cute::compact(&HTuple::flat([a, b])).unwrap());
            for th in 0..threads {
                let f = tc.partition(side, &tile, th).unwrap().view;
                let got: BTreeSet<i64> = (0..f.inner.size().unwrap())
                    .map(|i| f.eval_index(&i).unwrap())
                    .collect();
                let want: BTreeSet<i64> = (0..nv)
                    .map(|x| *l.eval_index(&(th + threads * x)).unwrap().as_int().unwrap())
                    .collect();
                assert_eq!(got, want, "{ctx}: thread {th}");
            }
        }
        done += 1;
    }
    assert_eq!(done, 60);
}
