//! The fast reading of literal calls against the parser: the same expression for every line
//! it takes.

use super::ast::{Expr, ExprKind};
use super::limits::{MAX_DEPTH, MAX_TUPLE};
use super::literal::Literal;
use super::literal_call::{read, read_literal_call};
use super::parser::parse_general;

/// Lines of every kind: the fast path reads them as the parser does, or leaves them to it.
#[test]
fn reads_what_the_parser_reads() {
    let taken = [
        "composition((6,2):(8,2),(4,3):(3,1))",
        "  logical_divide ( (8,3):(1,8) , 3:1 )  ",
        "complement(4:2, 24)",
        "complement(4:2, (3,8))",
        "f(-3)",
        "f(_4, 8:F2(5))",
        "crd2idx((1,2), (3,4), (1,3))",
        "g((4,5):(1@0,1@1))",
        "x1_(2:1)",
        "Sw(2:1)",
        "logical_divide((8,8):(8,1), (2:1, 4:2))",
        "f((4:1))",
        "f( ( 4:1 , 2 ) , 3)",
        "f((8:1,(2,2):(1,2),(3,4)))",
    ];
    for src in taken {
        let fast = read(src).unwrap_or_else(|| panic!("{src}: not taken"));
        assert_eq!(Some(fast), parse_general(src).ok(), "{src}");
    }
    let Some(Expr {
        kind: ExprKind::Call(_, args),
        ..
    }) = read("f(4:1, 4)")
    else {
        panic!("f(4:1, 4): not taken")
    };
    assert!(matches!(&args[0].kind, ExprKind::Literal(l) if matches!(**l, Literal::Layout(_))));
    assert!(matches!(&args[1].kind, ExprKind::Literal(l) if matches!(**l, Literal::Tuple(_))));
    let left = [
        "composition(A, 4:1)",
        "f()",
        "f(4:1,)",
        "f(4:1) + 1",
        "f(4:1)(3)",
        "f(4:1)[0]",
        "o(4:1)",
        "_(4:1)",
        "_4(4:1)",
        "F2(5)",
        "f(x=4:1)",
        "f(4:1",
        "f(4:1) g",
        "f(((4:1,2:1)))",
        "f((4:1,x))",
        "f((4:1,2:1)+1)",
        "f((_,2:1))",
        "f(1+1)",
        "f(4:1)\u{1}",
        "f(99999999999999999999)",
        "get99999999999999999999999(4:1)",
        "4:1",
    ];
    for src in left {
        assert_eq!(read(src), None, "{src}");
    }
}

#[test]
fn limits_are_left_to_the_parser() {
    let deep = format!("f({}1{})", "(1,".repeat(200), ")".repeat(200));
    assert_eq!(read(&deep), None);
    // The literal scanner reads 16 levels (a call's tuple of literals one more); deeper
    // literals are the parser's.
    let fits = format!("f({}1{})", "(1,".repeat(16), ")".repeat(16));
    assert!(read(&fits).is_some());
    assert_eq!(read(&fits), parse_general(&fits).ok());
    let deeper = format!("f({}1{})", "(1,".repeat(18), ")".repeat(18));
    assert_eq!(read(&deeper), None);
    assert!(parse_general(&deeper).is_ok());
    let fits = format!("f({}1{})", "(1,".repeat(5), ")".repeat(5));
    assert!(read(&fits).is_some());
    assert_eq!(read(&fits), parse_general(&fits).ok());
    let parser_only = format!("f({}1{})", "(1,".repeat(MAX_DEPTH - 1), ")".repeat(MAX_DEPTH - 1));
    assert_eq!(read(&parser_only), None);
    assert!(parse_general(&parser_only).is_ok());
    let wide = format!("f({})", vec!["1"; MAX_TUPLE + 1].join(","));
    assert_eq!(read(&wide), None);
    assert!(parse_general(&wide).is_err());
}

/// A small xorshift generator: the test needs no seed file and always makes the same lines.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }

    /// The skeleton of a tuple of up to `depth` levels: the number of modes of each tuple,
    /// in preorder (0 for a leaf); mostly two or three modes, sometimes one.
    fn skeleton(&mut self, depth: usize, out: &mut Vec<usize>) {
        if depth == 0 || self.below(3) == 0 {
            out.push(0);
            return;
        }
        let n = [1, 2, 2, 2, 3, 3, 2, 3][self.below(8)];
        out.push(n);
        for _ in 0..n {
            self.skeleton(depth - 1, out);
        }
    }

    /// The text of a skeleton with leaves picked from `leaves`.
    fn render(&mut self, sk: &[usize], at: &mut usize, leaves: &[&str]) -> String {
        let n = sk[*at];
        *at += 1;
        if n == 0 {
            return self.pick(leaves).to_string();
        }
        let modes: Vec<String> = (0..n).map(|_| self.render(sk, at, leaves)).collect();
        format!("({})", modes.join(self.pick(&[",", ", ", " ,"])))
    }

    /// An argument: an int tuple, a layout of congruent parts, or something else.
    fn arg(&mut self) -> String {
        let mut sk = Vec::new();
        self.skeleton(3, &mut sk);
        let shape = self.render(
            &sk,
            &mut 0,
            &[
                "1", "2", "4", "6", "_8", "2", "3", "4", "8", "16", "32", "2", "4", "5", "0", "-3",
            ],
        );
        match self.below(8) {
            0 => shape,
            1 => self
                .pick(&[
                    "x",
                    "1+1",
                    "_",
                    "(4:1,2:1)",
                    "8:F2(5)",
                    "(4,5):(1@0,1@1)",
                    "2:1@1@0",
                    "(4,8):2",
                ])
                .to_string(),
            _ => {
                let strides = [
                    "1",
                    "2",
                    "0",
                    "-4",
                    "1@0",
                    "F2(3)",
                    "9223372036854775807",
                    "_2",
                    "8",
                    "64",
                ];
                let stride = self.render(&sk, &mut 0, &strides);
                format!("{shape}{}{stride}", self.pick(&[":", " : "]))
            }
        }
    }
}

/// Twenty thousand lines of calls, some mutated: every line the fast path takes, the parser
/// reads as the same expression.
#[test]
fn generated_calls_read_alike() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut taken, total) = (0, 20_000);
    let mut reused = Expr {
        kind: ExprKind::Underscore,
        col: 0,
    };
    for _ in 0..total {
        let name = rng.pick(&["f", "composition", "_x", "o", "F2", "Sw", "x1"]);
        let n = 1 + rng.below(2);
        let args: Vec<String> = (0..n).map(|_| rng.arg()).collect();
        let mut src = format!(
            "{}{name}({}){}",
            rng.pick(&["", " "]),
            args.join(","),
            rng.pick(&["", " ", "\t"])
        );
        if rng.below(4) == 0 {
            let at = rng.below(src.len() + 1);
            let piece = rng.pick(&["(", ")", ",", ":", "-", " ", "+", "=", "[0]", "o", "\u{1}"]);
            if src.is_char_boundary(at) {
                src.insert_str(at, piece);
            }
        }
        let fresh = read(&src);
        // One expression reused for every line (its argument list, boxes and name left from
        // the lines before, of other lengths and kinds) reads each line as a fresh one does.
        assert_eq!(read_literal_call(&src, &mut reused), fresh.is_some(), "{src}");
        if let Some(e) = fresh {
            taken += 1;
            assert_eq!(reused, e, "{src}");
            assert_eq!(Some(e), parse_general(&src).ok(), "{src}");
        }
    }
    // About a fifth: the rest hold a one-element tuple, a shape of 0 or less, a name or
    // arithmetic, a mutation, or are `F2(...)` (left to the parser, which reads them alike).
    assert!(taken > total / 8, "only {taken} of {total} lines taken");
}
