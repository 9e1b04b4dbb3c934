//! The record of an index expression (`IndexExpr::record`, read back by `from_record`): every
//! operator, every kind of input, constants at the edges of `i64`, lowered layouts with
//! swizzles and parameters come back as the very same expression; every one-bit change of a
//! record reads as nothing or as another expression, never as the original.

use tessera_ir::index::{
    Builder, IndexExpr, Op, Var, lower_composed_modes, lower_index, lower_modes, parse_index,
};
use tessera_ir::parse_layout;
use tessera_ir::text::{Read, read};

fn samples() -> Vec<IndexExpr> {
    let mut v: Vec<IndexExpr> = [
        "(i % 4) * 8 + i / 4",
        "c0 * M + c1 - N",
        "x ^ ((x & 448) >> 3)",
        "min(c0, 7) + max(c1, -3) + (c2 << 4)",
        "c0 ? c1 : c2",
        "9223372036854775807 - c0; -9223372036854775807 - 1 + c1",
        "c4294967295 + 4611686018427387904",
    ]
    .iter()
    .map(|s| parse_index(s).unwrap())
    .collect();
    for l in ["((2,2),3):((24,2),8)", "(4096,4096):(1,4096)", "(2,3,5):(1,-2,5)"] {
        let l = parse_layout(l).unwrap();
        v.push(lower_index(&l).unwrap());
        v.push(lower_modes(&l).unwrap());
    }
    let Ok(Read::Composed(c)) = read::<i64>("Sw<3,4,3> o 32 o (64,8):(1,64)", &|_| None) else {
        panic!("a composed layout")
    };
    v.push(lower_composed_modes(&c).unwrap());
    // Every operator, built directly (no folding of the leaves).
    let mut b = Builder::new();
    let (x, y, z) = (
        b.var(Var::Coord(0)),
        b.var(Var::Param("M".into())),
        b.var(Var::Index),
    );
    let mut outs = Vec::new();
    for op in Op::ALL {
        let args = [x, y, z];
        let n = b.op(*op, &args[..op.arity()]);
        outs.push((format!("out {}", op.name()), n));
    }
    v.push(b.finish(outs));
    v
}

#[test]
fn every_record_reads_back_as_its_expression() {
    for e in samples() {
        let r = e.record();
        assert_eq!(IndexExpr::from_record(&r).as_ref(), Some(&e), "{r}");
    }
}

#[test]
fn no_one_bit_change_reads_as_the_original() {
    for e in samples() {
        let r = e.record().into_bytes();
        for k in 0..r.len() {
            for bit in 0..7 {
                let mut d = r.clone();
                d[k] ^= 1 << bit;
                let Ok(text) = String::from_utf8(d) else { continue };
                assert_ne!(IndexExpr::from_record(&text).as_ref(), Some(&e), "{text}");
            }
        }
        // Cut short anywhere (the outputs come last, so a cut either drops one or fails).
        let text = e.record();
        for k in 0..text.len() {
            if text.is_char_boundary(k) {
                assert_ne!(IndexExpr::from_record(&text[..k]).as_ref(), Some(&e), "{k}");
            }
        }
    }
}

#[test]
fn malformed_records_are_nothing() {
    for r in [
        "",
        "k 1\n",
        "o add 0 1\nout 0 v\n",
        "v c 0\no add 0\nout 1 v\n",
        "v c 0\no add 0 0 0\nout 1 v\n",
        "v c 0\no plus 0 0\nout 1 v\n",
        "v c x\nout 0 v\n",
        "v q 0\nout 0 v\n",
        "k 99999999999999999999\nout 0 v\n",
        "v c 0\nout 0 v\nk 1\n",
        "v c 0\nout 0\n",
        "v c 0 \nout 0 v\n",
    ] {
        assert_eq!(IndexExpr::from_record(r), None, "{r:?}");
    }
}
