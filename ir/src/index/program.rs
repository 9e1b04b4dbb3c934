//! A compiled form of an index expression for evaluating it at many points: the live
//! operations in order over value slots, the inputs first. No hashing per point.

use super::{IndexExpr, MAX_ARITY, Node, Op, Var};
use crate::error::Result;

/// An index expression compiled for repeated evaluation.
///
/// ```
/// use tessera_ir::index::{parse_index, Program, Var};
/// let e = parse_index("(i % 4) * 8 + i / 4").unwrap();
/// let p = Program::new(&e, &[Var::Index]);
/// let mut out = vec![0; 1];
/// p.run(&[9], &mut out).unwrap();
/// assert_eq!(out, vec![9 % 4 * 8 + 9 / 4]);
/// ```
#[derive(Clone, Debug)]
pub struct Program {
    inputs: usize,
    consts: Vec<(u32, i64)>,
    steps: Vec<(Op, [u32; MAX_ARITY], u32)>,
    outputs: Vec<u32>,
    slots: usize,
}

impl Program {
    /// Compiles `e` with its inputs given in the order `inputs` (an input of `e` missing from it
    /// evaluates as 0).
    pub fn new(e: &IndexExpr, inputs: &[Var]) -> Program {
        let live = e.live();
        let mut slot = vec![u32::MAX; e.nodes().len()];
        let mut next = inputs.len() as u32;
        let mut consts = Vec::new();
        let mut steps = Vec::new();
        let zero = next;
        consts.push((zero, 0));
        next += 1;
        for (k, n) in e.nodes().iter().enumerate() {
            if !live[k] {
                continue;
            }
            slot[k] = match n {
                Node::Var(v) => inputs.iter().position(|x| x == v).map_or(zero, |p| p as u32),
                Node::Const(c) => {
                    consts.push((next, *c));
                    next += 1;
                    next - 1
                }
                Node::Op(op, args) => {
                    let mut a = [0u32; MAX_ARITY];
                    for (s, c) in a.iter_mut().zip(args) {
                        *s = slot[c.index()];
                    }
                    steps.push((*op, a, next));
                    next += 1;
                    next - 1
                }
            };
        }
        let outputs = e.outputs().iter().map(|(_, o)| slot[o.index()]).collect();
        Program {
            inputs: inputs.len(),
            consts,
            steps,
            outputs,
            slots: next as usize,
        }
    }

    /// Evaluates at `inputs` (in the compiled order) into `out` (one value per output): the
    /// IR's checked semantics, so overflow and division by zero are errors.
    pub fn run(&self, inputs: &[i64], out: &mut [i64]) -> Result<()> {
        let mut v = vec![0i64; self.slots];
        v[..self.inputs].copy_from_slice(&inputs[..self.inputs]);
        for (s, c) in &self.consts {
            v[*s as usize] = *c;
        }
        for (op, a, dst) in &self.steps {
            let mut x = [0i64; MAX_ARITY];
            for j in 0..op.arity() {
                x[j] = v[a[j] as usize];
            }
            v[*dst as usize] = op.eval(&x[..op.arity()])?;
        }
        for (o, s) in out.iter_mut().zip(&self.outputs) {
            *o = v[*s as usize];
        }
        Ok(())
    }
}
