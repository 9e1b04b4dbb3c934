//! The bank-conflict figures of design.md, by exact analysis and by z3.

mod common;

use common::Text;
use tessera_verifier::{Bank, analyze};
use tessera_verifier::{Options, Property, Verdict, prove};

fn bank(smem: &str, tv: &str, elem: i64, access: i64) -> Bank {
    let s = Text::new(&[]);
    Bank {
        smem: s.func(smem).unwrap(),
        tv: s.func(tv).unwrap(),
        elem,
        access,
    }
}

fn degree(b: &Bank) -> i64 {
    analyze(b).unwrap().degree
}

fn z3_free(b: &Bank) -> Verdict {
    prove(&Property::BankConflictFree(b.clone()), &Options::default())
}

#[test]
fn column_read_of_a_32x32_word_tile() {
    // Row-major 32x32 4-byte tile; thread t reads row t of one column per access.
    let plain = bank("(32,32):(32,1)", "(32,32):(1,32)", 4, 4);
    assert_eq!(degree(&plain), 32);
    let v = z3_free(&plain);
    let Verdict::Refuted(c) = &v else { panic!("{v}") };
    assert!(c.summary.starts_with("32-way conflict: threads"), "{}", c.summary);

    let sw5 = bank("Sw<5,0,5> o (32,32):(32,1)", "(32,32):(1,32)", 4, 4);
    assert_eq!(degree(&sw5), 1);
    assert_eq!(z3_free(&sw5), Verdict::Proved);

    let sw3 = bank("Sw<3,0,5> o (32,32):(32,1)", "(32,32):(1,32)", 4, 4);
    assert_eq!(degree(&sw3), 4);
    assert!(matches!(z3_free(&sw3), Verdict::Refuted(_)));
}

#[test]
fn sm80_fp16_ldmatrix_tile() {
    // (8,64):(64,1) fp16, read ldmatrix-style: thread t reads 16 bytes of row t%8 in column
    // block t/8, i.e. TV ((8,4),8):((1,64),8) into the tile's column-major index.
    let plain = bank("(8,64):(64,1)", "((8,4),8):((1,64),8)", 2, 16);
    assert_eq!(degree(&plain), 8);
    assert!(matches!(z3_free(&plain), Verdict::Refuted(_)));
    let swz = bank("Sw<3,3,3> o (8,64):(64,1)", "((8,4),8):((1,64),8)", 2, 16);
    assert_eq!(degree(&swz), 1);
    assert_eq!(z3_free(&swz), Verdict::Proved);
}

#[test]
fn broadcast_is_free_and_bad_vectors_are_errors() {
    // Every thread reads the same word: one wavefront.
    assert_eq!(degree(&bank("32:1", "(32,1):(0,1)", 4, 4)), 1);
    // 16-byte accesses whose values are not contiguous.
    assert!(analyze(&bank("(8,64):(1,8)", "((8,4),8):((1,64),8)", 2, 16)).is_err());
    // Access width 3 is not a shared-memory access.
    assert!(analyze(&bank("32:1", "(32,1):(1,1)", 1, 3)).is_err());
}
