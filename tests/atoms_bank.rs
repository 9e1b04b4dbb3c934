//! Bank verdicts from copy atoms (`bank_conflict_free(SMEM, TILED_COPY)`,
//! `conflict_degree(SMEM, TILED_COPY)`) against an independent simulation: each thread's
//! fragment from CuTe's `partition_S`/`partition_D` (checked against CuTe C++ in
//! `ir/tests/atom_oracle.rs`), one instruction per atom-sized group of its values, phases of
//! 8, 16 or 32 threads by access width, and per phase the most distinct 4-byte words in one
//! bank.

use std::collections::{HashMap, HashSet};
use tessera_ir::atom::{CopyAtom, Operand, Side, TiledCopy, TiledMma, copy_op, mma_atom};
use tessera_ir::{ComposedLayout, Swizzle, parse_layout};

#[path = "support/cli.rs"]
mod cli;
use cli::tessera;

struct Case {
    smem: &'static str,
    copy: &'static str,
}

fn smem(text: &str) -> ComposedLayout {
    match text.split_once(" o ") {
        Some((sw, l)) => {
            let p: Vec<i64> = sw
                .trim_start_matches("Sw<")
                .trim_end_matches('>')
                .split(',')
                .map(|x| x.parse().unwrap())
                .collect();
            ComposedLayout::new(
                Swizzle::new(p[0], p[1], p[2]).unwrap(),
                0,
                parse_layout(l).unwrap(),
            )
        }
        None => ComposedLayout {
            swizzle: None,
            offset: 0,
            inner: parse_layout(text).unwrap(),
        },
    }
}

/// The tiled copies of the cases, built through the library (the check file builds the same
/// from its expression).
fn tiled_copy(name: &str) -> (TiledCopy, String) {
    let mma = |p: bool| {
        let a = mma_atom("SM80_16x8x16_F32F16F16F32_TN").unwrap();
        if p {
            let perm = ["32:1", "32:1", "16:1"]
                .iter()
                .map(|s| tessera_ir::atom::Permutation::Layout(parse_layout(s).unwrap()))
                .collect();
            TiledMma::with(a, &parse_layout("(2,2,1):(1,2,0)").unwrap(), perm).unwrap()
        } else {
            TiledMma::new(a, &[2, 2, 1]).unwrap()
        }
    };
    let atom = |op: &str| CopyAtom::new(copy_op(op).unwrap(), 16).unwrap();
    let t = match name {
        "ldsm_a" => TiledCopy::for_mma(atom("SM75_U32x4_LDSM_N"), &mma(false), Operand::A),
        "ldsm_b" => TiledCopy::for_mma(atom("SM75_U32x4_LDSM_N"), &mma(true), Operand::B),
        "ldsm_t_b" => TiledCopy::for_mma(atom("SM75_U16x8_LDSM_T"), &mma(true), Operand::B),
        "ldsm_x2_b" => TiledCopy::for_mma(atom("SM75_U32x2_LDSM_N"), &mma(false), Operand::B),
        "stsm_c" => TiledCopy::for_mma(atom("SM90_U32x4_STSM_N"), &mma(true), Operand::C),
        "cp_k" => TiledCopy::make(
            atom("SM80_CP_ASYNC_CACHEALWAYS_128"),
            &parse_layout("(16,8):(8,1)").unwrap(),
            &parse_layout("(1,8):(0,1)").unwrap(),
        ),
        "cp_m" => TiledCopy::make(
            atom("SM80_CP_ASYNC_CACHEALWAYS_128"),
            &parse_layout("(16,8):(1,16)").unwrap(),
            &parse_layout("(8,1):(1,0)").unwrap(),
        ),
        n => panic!("{n}"),
    }
    .unwrap();
    let text = t.to_string();
    (t, text)
}

/// The worst phase's wavefronts of the copy's shared-memory accesses over `smem`.
#[allow(clippy::needless_range_loop)] // j indexes every thread's list, not one slice
fn simulate(smem: &ComposedLayout, tc: &TiledCopy) -> i64 {
    let op = &tc.atom.op;
    let side = if op.name.contains("LDSM") {
        Side::Src
    } else {
        Side::Dst
    };
    let per_thread = if side == Side::Src { &op.src } else { &op.dst };
    let access = per_thread.mode(1).unwrap().size().unwrap() / 8;
    let elem = tc.atom.elem_bits / 8;
    let vals = access / elem;
    let phase = match access {
        16 => 8,
        8 => 16,
        _ => 32,
    };
    let threads = tc.num_threads().unwrap();
    // thread -> its accesses' byte addresses, instruction by instruction.
    let mut addrs: Vec<Vec<i64>> = Vec::new();
    for t in 0..threads {
        let f = tc.partition(side, smem, t).unwrap().view;
        let n = f.inner.size().unwrap();
        assert_eq!(n % vals, 0);
        let at = |i: i64| f.eval_index(&i).unwrap();
        let mut a = Vec::new();
        for j in 0..n / vals {
            let first = at(j * vals);
            for q in 1..vals {
                assert_eq!(at(j * vals + q), first + q, "a vector access is contiguous");
            }
            a.push(first * elem);
        }
        addrs.push(a);
    }
    let mut worst = 0;
    for j in 0..addrs[0].len() {
        for p0 in (0..threads).step_by(phase as usize) {
            let mut banks: HashMap<i64, HashSet<i64>> = HashMap::new();
            for t in p0..p0 + phase {
                let a = addrs[t as usize][j];
                for w in 0..(access / 4).max(1) {
                    let word = a / 4 + w;
                    banks.entry(word % 32).or_default().insert(word);
                }
            }
            worst = worst.max(banks.values().map(|s| s.len() as i64).max().unwrap());
        }
    }
    worst
}

#[test]
fn bank_verdicts_from_atoms_match_a_simulation_of_the_accesses() {
    let sw_k = "Sw<3,3,3> o ((8,16),64):((64,512),1)"; // 128 x 64 fp16, K-major, 128-byte rows swizzled
    let k = "((8,16),64):((64,512),1)";
    let sw_m = "Sw<3,3,3> o (64,(8,8)):(1,(64,512))"; // 64 x 64, M-major
    let m = "(64,(8,8)):(1,(64,512))";
    let sw_c = "Sw<3,3,3> o (32,(8,8)):(64,(1,8))"; // 32 x 64 fp16 C, row-major
    let c = "(32,64):(64,1)";
    let cases = [
        Case {
            smem: sw_k,
            copy: "ldsm_a",
        },
        Case {
            smem: k,
            copy: "ldsm_a",
        },
        Case {
            smem: sw_k,
            copy: "ldsm_b",
        },
        Case {
            smem: k,
            copy: "ldsm_b",
        },
        Case {
            smem: sw_k,
            copy: "ldsm_x2_b",
        },
        Case {
            smem: sw_m,
            copy: "ldsm_t_b",
        },
        Case {
            smem: m,
            copy: "ldsm_t_b",
        },
        Case {
            smem: sw_k,
            copy: "cp_k",
        },
        Case {
            smem: k,
            copy: "cp_k",
        },
        Case {
            smem: sw_m,
            copy: "cp_m",
        },
        Case {
            smem: sw_c,
            copy: "stsm_c",
        },
        Case {
            smem: c,
            copy: "stsm_c",
        },
    ];
    let mut file = String::from("let T = make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (2,2,1))\n");
    let mut degrees = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let (tc, text) = tiled_copy(case.copy);
        let d = simulate(&smem(case.smem), &tc);
        degrees.push(d);
        file.push_str(&format!("let S{i} = {}\nlet C{i} = {text}\n", case.smem));
        file.push_str(&format!("assert conflict_degree(S{i}, C{i}) == {d}\n"));
        let free = if d == 1 { "" } else { "# refuted: " };
        file.push_str(&format!("{free}assert bank_conflict_free(S{i}, C{i})\n"));
    }
    eprintln!("degrees {degrees:?}");
    // Both kinds of answer occur: the swizzles remove conflicts the plain layouts have.
    assert_eq!(degrees[0], 1);
    assert!(degrees[1] > 1 && degrees[3] > 1 && degrees[6] > 1, "{degrees:?}");
    let dir = std::env::temp_dir().join(format!("tessera-atoms-bank-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("banks.tess");
    std::fs::write(&p, &file).unwrap();
    let out = tessera(&["check", p.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    let n = cases.len() + degrees.iter().filter(|d| **d == 1).count();
    assert!(
        text.contains(&format!("{n} assertions: {n} proved")),
        "{file}\n{text}"
    );
}

#[test]
fn suggest_finds_the_swizzle_for_a_kernel_s_copies_at_once() {
    let out = tessera(&[
        "suggest",
        "(128,32):(32,1)",
        "--copy",
        "make_tiled_copy(copy_atom(SM80_CP_ASYNC_CACHEALWAYS_128, 16), (32,4):(4,1), (1,8))",
        "--copy",
        "make_tiled_copy_A(copy_atom(SM75_U32x4_LDSM_N, 16), make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (2,2,1)))",
        "--top",
        "2",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    // cp.async writes the 64-byte rows conflict-free; ldmatrix conflicts 4-way
    // on the plain layout; the best swizzle serves both (elem and access from the atoms).
    assert!(text.contains("(elem=2)"), "{text}");
    assert!(text.contains("plain: degrees 1, 4"), "{text}");
    assert!(
        text.contains("#1  Sw<") && text.contains("degrees 1, 1"),
        "{text}"
    );
}

/// `Sw<B,M,S> o OFF o L` (either part optional) as a composed layout.
fn view(text: &str) -> ComposedLayout {
    let (sw, rest) = match text.split_once(" o ") {
        Some((sw, rest)) if sw.starts_with("Sw<") => (Some(sw), rest),
        _ => (None, text),
    };
    let (off, l) = match rest.split_once(" o ") {
        Some((off, l)) => (off.parse().unwrap(), l),
        None => (0, rest),
    };
    let mut v = match sw {
        Some(sw) => smem(&format!("{sw} o {l}")),
        None => smem(l),
    };
    v.offset = off;
    v
}

/// A bank question whose copy is `partition_S/D(TC, T, THREAD)`: the accesses every thread of
/// the copy makes to its partition of `T` (the shared-memory layout, or a k-block of it with
/// its offset), against the simulation of those partitions; the whole tile's answer equals
/// the tiled copy's. The other side, or a tensor outside the shared-memory layout, is bad
/// input.
#[test]
fn partitions_of_a_tiled_copy_are_bank_questions_too() {
    let sw_k = "Sw<3,3,3> o ((8,16),64):((64,512),1)";
    let k = "((8,16),64):((64,512),1)";
    let cases = [
        // (smem, partitioned tensor, copy, partition, thread)
        (sw_k, sw_k, "ldsm_a", "partition_S", 0),
        (k, k, "ldsm_a", "partition_S", 3),
        // The second 32-column k-block of the tile: its offset 32, the swizzle over it.
        (
            sw_k,
            "Sw<3,3,3> o 32 o ((8,16),32):((64,512),1)",
            "ldsm_a",
            "partition_S",
            0,
        ),
        (k, "16 o ((8,16),16):((64,512),1)", "ldsm_b", "partition_S", 7),
        (
            sw_k,
            "Sw<3,3,3> o 16 o ((8,16),16):((64,512),1)",
            "ldsm_x2_b",
            "partition_S",
            1,
        ),
        (sw_k, sw_k, "cp_k", "partition_D", 100),
        (k, "8 o ((8,16),8):((64,512),1)", "cp_k", "partition_D", 0),
        (
            "Sw<3,3,3> o (32,(8,8)):(64,(1,8))",
            "Sw<3,3,3> o (32,(8,8)):(64,(1,8))",
            "stsm_c",
            "partition_D",
            2,
        ),
    ];
    let mut file = String::new();
    let mut degrees = Vec::new();
    for (i, (s, t, copy, part, thr)) in cases.iter().enumerate() {
        let (tc, text) = tiled_copy(copy);
        let d = simulate(&view(t), &tc);
        degrees.push(d);
        file.push_str(&format!("let S{i} = {s}\nlet C{i} = {text}\n"));
        let call = format!("{part}(C{i}, {t}, {thr})");
        file.push_str(&format!("assert conflict_degree(S{i}, {call}) == {d}\n"));
        file.push_str(&format!("assert conflict_degree(S{i}, {call}) <= {}\n", d - 1));
        if s == t {
            file.push_str(&format!("assert conflict_degree(S{i}, C{i}) == {d}\n"));
        }
    }
    assert!(
        degrees.contains(&1) && degrees.iter().any(|d| *d > 1),
        "{degrees:?}"
    );
    let dir = std::env::temp_dir().join(format!("tessera-atoms-part-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("parts.tess");
    std::fs::write(&p, &file).unwrap();
    let out = tessera(&["check", p.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    let same = cases.iter().filter(|c| c.0 == c.1).count();
    let n = 2 * cases.len() + same;
    assert!(
        text.contains(&format!(
            "{n} assertions: {} proved, {} refuted",
            cases.len() + same,
            cases.len()
        )),
        "{file}\n{text}"
    );
    // The register side of ldmatrix, and a tensor past the shared-memory layout.
    let (_, ldsm) = tiled_copy("ldsm_a");
    for (t, part, says) in [
        (k, "partition_D", "its shared-memory accesses are partition_S's"),
        ("8192 o ((8,16),64):((64,512),1)", "partition_S", "never reaches"),
    ] {
        let f = dir.join("bad.tess");
        std::fs::write(
            &f,
            format!("assert bank_conflict_free({k}, {part}({ldsm}, {t}, 0))\n"),
        )
        .unwrap();
        let out = tessera(&["check", f.to_str().unwrap()]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("bad input") && text.contains(says), "{text}");
    }
}
