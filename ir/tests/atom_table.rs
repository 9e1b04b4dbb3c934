//! The atom table: every MMA atom's layouts are bijections where CuTe says so (C always; A
//! and B unless read through a shared-memory descriptor, where the value mode alone is) and
//! its shape matches its name; every copy operation moves the same bits on both sides; every
//! shared-memory atom is a bijection onto its rows. Checked by enumeration.

use std::collections::HashSet;
use tessera_ir::Layout;
use tessera_ir::atom::{
    CopyAtom, copy_op, copy_op_names, mma_atom, mma_atom_names, smem_atom, smem_atom_names,
};

fn image(l: &Layout) -> Vec<i64> {
    let n = l.size().unwrap();
    (0..n)
        .map(|i| *l.eval_index(&i).unwrap().as_int().unwrap())
        .collect()
}

/// Whether `l` maps its domain one-to-one onto `0..n`.
fn bijective_onto(l: &Layout, n: i64) -> bool {
    let img = image(l);
    let set: HashSet<i64> = img.iter().copied().collect();
    img.len() as i64 == n && set.len() as i64 == n && img.iter().all(|v| (0..n).contains(v))
}

fn shape_from_name(name: &str) -> [i64; 3] {
    match name {
        "SM61_DP4A" => return [1, 1, 4],
        "SM61_DP2A" => return [1, 1, 2],
        n if n.starts_with("UniversalFMA") => return [1, 1, 1],
        _ => {}
    }
    let part = name.split('_').nth(1).unwrap();
    let v: Vec<i64> = part.split('x').map(|x| x.parse().unwrap()).collect();
    [v[0], v[1], v[2]]
}

#[test]
fn every_mma_atom_is_a_bijection_where_cute_says_so_and_has_its_named_shape() {
    let names = mma_atom_names();
    assert!(names.len() > 1000, "{} names", names.len());
    let mut seen = HashSet::new();
    let mut checked = HashSet::new();
    for name in &names {
        assert!(seen.insert(name.clone()), "{name} twice");
        let a = mma_atom(name).unwrap();
        // Names sharing every layout are checked once.
        let key = format!(
            "{:?} {} {} {} {} {}",
            a.shape_mnk, a.thr_id, a.a, a.b, a.c, a.a_broadcast
        );
        if !checked.insert(key) {
            continue;
        }
        assert_eq!(a.name, *name);
        let [m, n, k] = a.shape_mnk;
        assert_eq!(a.shape_mnk, shape_from_name(name), "{name}");
        let t = a.thr_id.size().unwrap();
        let thr_ids: HashSet<i64> = image(&a.thr_id).into_iter().collect();
        assert_eq!(thr_ids.len() as i64, t, "{name}: ThrID injective");
        for (l, what) in [(&a.a, "A"), (&a.b, "B"), (&a.c, "C")] {
            assert_eq!(l.rank(), 2, "{name} {what}");
            assert_eq!(l.mode(0).unwrap().size().unwrap(), t, "{name} {what}: threads");
        }
        assert!(bijective_onto(&a.c, m * n), "{name}: C is a bijection onto M*N");
        for (l, extent, broadcast, what) in [
            (&a.a, m * k, a.a_broadcast, "A"),
            (&a.b, n * k, a.b_broadcast, "B"),
        ] {
            if broadcast {
                let thr = l.mode(0).unwrap();
                assert!(
                    image(&thr).iter().all(|v| *v == 0),
                    "{name} {what}: broadcast threads"
                );
                assert!(
                    bijective_onto(&l.mode(1).unwrap(), extent),
                    "{name} {what}: values"
                );
            } else {
                assert!(
                    bijective_onto(l, extent),
                    "{name} {what} is a bijection onto its tile"
                );
            }
        }
        // GMMA: A is broadcast exactly for _SS, B always.
        if name.starts_with("SM90_64x") {
            assert_eq!(a.a_broadcast, name.contains("_SS"), "{name}");
            assert!(a.b_broadcast);
            assert_eq!(t, 128);
        }
    }
}

#[test]
fn gmma_names_follow_cute_and_refuse_what_cute_refuses() {
    let e = mma_atom("SM90_64x64x16_F16F16F16_RS_NT").unwrap_err().to_string();
    assert!(
        e.contains("Register source operand A must have K major layout."),
        "{e}"
    );
    let e = mma_atom("SM90_64x64x16_F16F16F16_SS").unwrap_err().to_string();
    assert!(e.contains("needs its majors"), "{e}");
    let e = mma_atom("SM90_64x40x32_S32S8S8_SS_TN").unwrap_err().to_string();
    assert!(e.contains("no 64x40x32"), "{e}");
    assert!(mma_atom("SM90_64x40x32_F32E4M3E4M3_SS_TN").is_ok());
    assert!(mma_atom("SM90_64x64x8_F32TF32TF32_SS_NT").is_err());
    assert!(mma_atom("SM90_64x256x32_S32U8S8_RS_TN_SATURATE").is_ok());
    for m in ["TN", "NT", "NN", "TT"] {
        assert!(mma_atom(&format!("SM90_64x8x16_F32BF16BF16_SS_{m}")).is_ok());
    }
    assert!(mma_atom("SM80_16x8x16_F32F16F16F32_NT").is_err());
}

#[test]
fn every_copy_op_moves_the_same_bits_on_both_sides() {
    let names = copy_op_names();
    for name in &names {
        let o = copy_op(name).unwrap();
        let t = o.thr_id.size().unwrap();
        for (l, what) in [(&o.src, "src"), (&o.dst, "dst"), (&o.ref_, "ref")] {
            assert_eq!(l.mode(0).unwrap().size().unwrap(), t, "{name} {what}");
        }
        let src: HashSet<i64> = image(&o.src).into_iter().collect();
        let dst: HashSet<i64> = image(&o.dst).into_iter().collect();
        assert_eq!(src, dst, "{name}: the same bits");
        let n = dst.len() as i64;
        // The register side is a bijection; the shared-memory side of ldmatrix.x1/.x2 (and
        // stmatrix) repeats the rows the first 8 or 16 threads address.
        let (reg, mem) = if name.contains("STSM") {
            (&o.src, &o.dst)
        } else {
            (&o.dst, &o.src)
        };
        assert!(bijective_onto(reg, n), "{name}: register side");
        assert_eq!(o.ref_, *reg, "{name}: RefLayout is the register side");
        if name.contains("U32x4") || name.contains("U16x8") || o.thr_id.size().unwrap() == 1 {
            assert!(bijective_onto(mem, n), "{name}");
        }
        if name.contains("LDSM") || name.contains("STSM") {
            assert_eq!(n, 1024 * name_count(name), "{name}: 8x8 16-bit matrices");
        }
        for bits in [8, 16, 32, 64, 128] {
            if let Ok(atom) = CopyAtom::new(o.clone(), bits) {
                assert_eq!(
                    atom.val_dst.size().unwrap() * bits,
                    o.dst.size().unwrap(),
                    "{name} {bits}"
                );
            }
        }
    }
    assert!(CopyAtom::new(copy_op("SM75_U32x4_LDSM_N").unwrap(), 16).is_ok());
    assert!(CopyAtom::new(copy_op("UniversalCopy_16").unwrap(), 32).is_err());
    // CuTe's upcast rounds up: a 16-bit element through an 8-bit copy is an error here.
    let e = CopyAtom::new(copy_op("UniversalCopy_8").unwrap(), 16).unwrap_err();
    assert!(
        e.to_string().contains("not a whole number of 16-bit elements"),
        "{e}"
    );
}

fn name_count(name: &str) -> i64 {
    let x = name.split('x').nth(1).unwrap();
    let v: i64 = x.split('_').next().unwrap().parse().unwrap();
    if name.contains("U16") { v / 2 } else { v }
}

#[test]
fn every_smem_atom_is_a_bijection_onto_its_rows() {
    for name in smem_atom_names() {
        for bits in [8, 16, 32, 64] {
            let c = smem_atom(&name, bits).unwrap();
            let n = c.inner.size().unwrap();
            let w = match &name {
                n if n.contains("INTER") => 16,
                n if n.contains("SW32") => 32,
                n if n.contains("SW64") => 64,
                _ => 128,
            };
            assert_eq!(n * bits, 8 * w * 8, "{name} {bits}");
            let img: HashSet<i64> = (0..n).map(|i| c.eval_index(&i).unwrap()).collect();
            assert_eq!(img, (0..n).collect::<HashSet<_>>(), "{name} {bits}");
            let (rows, cols) = (
                c.inner.mode(0).unwrap().size().unwrap(),
                c.inner.mode(1).unwrap().size().unwrap(),
            );
            if name.contains("_K_") {
                assert_eq!(rows, 8);
            } else {
                assert_eq!(cols, 8);
            }
        }
    }
    assert!(smem_atom("Layout_K_SW256_Atom", 16).is_err());
    assert!(smem_atom("Layout_K_SW128_Atom", 12).is_err());
}
