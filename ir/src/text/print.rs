//! Layouts written as text straight into a `String`: the canonical form `Display` writes
//! (`((2,2),3):((24,2),8)`), by the very writer `Display` uses (`Layout::write_plain`), here
//! without a formatter in between. The answers of `tessera eval --batch` are printed this way;
//! the tests compare the text with the shape and the stride printed leaf by leaf by their own
//! `Display`, on every kind of leaf.
//!
//! ```
//! use tessera_ir::{parse_layout, text::push_layout};
//! let l = parse_layout("((2,2),3):((24,2),8)").unwrap();
//! let mut out = String::from("= ");
//! push_layout(&mut out, &l);
//! assert_eq!(out, "= ((2,2),3):((24,2),8)");
//! ```

use crate::layout::Layout;

/// Appends `l`'s text to `out`, exactly as `l.to_string()` writes it.
///
/// @post `out` gained `l.to_string()` and nothing else.
///
/// ```
/// use tessera_ir::{parse_layout, text::push_layout};
/// let mut out = String::new();
/// push_layout(&mut out, &parse_layout("(4,(2,3)):(-1,(1@0,F2(6)))").unwrap());
/// assert_eq!(out, "(4,(2,3)):(-1,(1@0,F2(6)))");
/// ```
pub fn push_layout(out: &mut String, l: &Layout<i64>) {
    // `Display`'s writer, into the `String` itself: writing to a `String` cannot fail.
    let _ = l.write_plain(out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{HTuple, Stride, parse_layout};

    fn pushed(l: &Layout<i64>) -> String {
        let mut out = String::new();
        push_layout(&mut out, l);
        out
    }

    #[test]
    fn writes_what_display_writes() {
        for src in [
            "1:0",
            "8:1",
            "(3)",
            "(3):(2)",
            "((2,2),3):((24,2),8)",
            "(((3,16),9),4):(((2304,36),1),576)",
            "(4,5):(1@0,1@1)",
            "(4,5):(3@1@0+2@1,1@1)",
            "8:F2(5)",
            "(2,(3,(4,(5,6)))):(-1,(-10,(9223372036854775807,(-9223372036854775808,0))))",
            "(9,10,11,99,100,101):(-9,-10,-99,-100,1000000007,4294967296)",
        ] {
            let l = parse_layout(src).unwrap();
            // The parts through the formatter, a leaf at a time: another writer.
            let parts = format!("{}:{}", l.shape(), l.stride());
            assert_eq!(pushed(&l), parts, "{src}");
            assert_eq!(l.to_string(), parts, "{src}");
        }
        // Empty tuples, which no literal spells but the algebra can build.
        let l = Layout::new(
            HTuple::from_modes([HTuple::from_modes([]), HTuple::leaf(4)]),
            HTuple::from_modes([HTuple::from_modes([]), HTuple::leaf(Stride::Int(2))]),
        )
        .unwrap();
        assert_eq!(pushed(&l), l.to_string());
        assert_eq!(pushed(&l), "((),4):((),2)");
        // Flags reach every integer leaf, as they did before the text was gathered.
        let l = parse_layout("(2,(30,4)):(1,(-2,F2(6)))").unwrap();
        assert_eq!(format!("{l:>3}"), "(  2,( 30,  4)):(  1,( -2,F2(6)))");
        assert_eq!(format!("{l:+}"), "(+2,(+30,+4)):(+1,(-2,F2(6)))");
    }

    #[test]
    fn writes_every_integer_as_display() {
        let mut out = String::new();
        for v in (-1000..1000).chain([i64::MIN, i64::MIN + 1, i64::MAX, 1 << 31, 1 << 32, 1 << 62]) {
            out.clear();
            crate::int::write_plain(&mut out, &v).unwrap();
            assert_eq!(out, v.to_string());
        }
    }
}
