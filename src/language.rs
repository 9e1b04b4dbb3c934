//! The help text of the expression language, shown by `tessera --help` and `tessera eval
//! --help`; its list of functions comes from the registry of built-ins.

/// The syntax of the expression language.
const SYNTAX: &str = "\
EXPRESSION LANGUAGE
  Int tuples     12   (2,3)   ((2,2),3)   (6) is a one-element tuple; _4 reads as 4
  Layouts        shape:stride   ((2,2),3):((24,2),8)   a bare shape (4,8) is column-major
                 (4,8):2 is the compact layout starting at stride 2
  Strides        negative (-1), zero (0), coordinate 1@0 2@1 1@1@0 (value@mode, innermost
                 mode first), sums 3@0+5@1, F2(6) for an XOR-field stride
  Swizzles       Sw<3,3,3>   Sw<3,3,3> o (8,64):(64,1)   Sw<3,4,3> o 32 o (8,64):(64,1)
  Tilers         (4:1,8:2) by mode; _ keeps a mode; an int tuple (2,7) means (2:1,7:1)
  Composition    composition(A,B)  or  A o B
  Slicing        L[2:4, ::-1]: a view, as select(L, dim, i) and the other view functions
  Evaluation     A(17)   A((1,2))   A(1,2)   (Sw<3,3,3> o (16,64):(64,1))(17)
  Arithmetic     + - * / (exact; fdiv floors) % on integers; -9223372036854775808
  Booleans       true false
  Parentheses    around one expression: a one-element tuple where a value is expected
                 ((6), (6):(1), size((6)) is 6); grouping as an operand of + - * / % or
                 unary -, before @, as a Sw< parameter or slice entry, or before (...) or
                 [...]: (2+3)*4 is 20, ((M+127)/128, 4):(1, 2) is a layout
  Limits         1 MiB per expression; 128 levels of nesting (each bracket and @ index, and
                 each - or Sw< applied to more than a number); 4096 elements per tuple.
                 Chains (1+1+..., L(0)(0)..., A o B o ...) may be as long as you like.
";

/// Examples and exit codes.
const EXAMPLES: &str = "\
EXAMPLES
  tessera eval 'composition((6,2):(8,2), (4,3):(3,1))'     ((2,2),3):((24,2),8)
  tessera eval 'logical_divide(24:1, 4:2)'                  (4,(2,3)):(2,(1,8))
  tessera eval 'zipped_divide((4,7):(1,16), (2,7))'          ((2,7),(2,1)):((1,16),(2,112))
  tessera eval 'complement(4:2, 20)'                        (2,3):(1,8)
  tessera eval '(2+3)*4'                                    20
  tessera eval 'crd2idx((1,2),(4,8),(8,1))'                 10
  tessera eval 'right_inverse((4,8):(8,1))'                 (8,4):(4,1)
  tessera eval '(3,(2,4)):(2,(1,6))(17)'                     17
  tessera eval 'recast((4,4):(4,1), 1/2)'                   (4,8):(8,1)
  tessera eval 'Sw<3,0,3>(9)'                                8
  tessera eval 'tile_view((4,4):(4,1), (2,0), (2,4))'        8 o (2,4):(4,1)
  tessera eval 'local_partition((6,8), (2,2), 1)'           1 o (3,4):(2,12)
  echo 'coalesce((2,4):(1,2))' | tessera eval --batch -

EXIT CODES (every subcommand)
  0 success   1 refuted   2 unknown   4 internal error
  3 bad input: a parse or algebra error, an unreadable file, or a usage error (an unknown
    flag, a bad option value, a missing argument)
";

/// A summary of the expression language: its syntax, its functions (from
/// [`crate::lang::builtins::BUILTINS`]), examples and exit codes.
pub fn expression_help() -> String {
    format!("{SYNTAX}\n{}\n{EXAMPLES}", crate::lang::builtins::help_text())
}
