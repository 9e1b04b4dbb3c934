//! The PTX instruction builder of an entry: typed virtual registers, labels, calls of the
//! offset functions, global and shared addresses, loads and stores with the 16-bit float
//! conversions, and a statement's values (see the module documentation for the semantics).

use super::OffsetFunc;
use super::stage::StageCode;
use crate::kernel::{Access, BinOp, ElemType, IndexId, Kernel, Op, Scalar, Stmt, UnOp, constant};
use std::collections::HashMap;
use std::fmt::Write;
use tessera_ir::index::Var;

/// A register class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Class {
    /// `.s32` (`%r`).
    R,
    /// `.s64` (`%rd`).
    Rd,
    /// `.f32` (`%f`).
    F,
    /// `.f64` (`%fd`).
    Fd,
    /// `.b16` (`%h`).
    H,
    /// `.pred` (`%p`).
    P,
}

impl Class {
    pub(super) fn prefix(self) -> &'static str {
        match self {
            Class::R => "r",
            Class::Rd => "rd",
            Class::F => "f",
            Class::Fd => "fd",
            Class::H => "h",
            Class::P => "p",
        }
    }

    pub(super) fn decl(self) -> &'static str {
        match self {
            Class::R => ".s32",
            Class::Rd => ".s64",
            Class::F => ".f32",
            Class::Fd => ".f64",
            Class::H => ".b16",
            Class::P => ".pred",
        }
    }
}

/// The register class of `t`'s compute type.
pub(super) fn class(t: ElemType) -> Class {
    match t {
        ElemType::F32 | ElemType::F16 | ElemType::BF16 => Class::F,
        ElemType::F64 => Class::Fd,
        ElemType::I32 => Class::R,
        ElemType::I64 => Class::Rd,
    }
}

/// The PTX type suffix of `t`'s compute type.
pub(super) fn suffix(t: ElemType) -> &'static str {
    match t {
        ElemType::F32 | ElemType::F16 | ElemType::BF16 => "f32",
        ElemType::F64 => "f64",
        ElemType::I32 => "s32",
        ElemType::I64 => "s64",
    }
}

/// An entry under construction.
pub(super) struct Builder<'a> {
    pub(super) k: &'a Kernel,
    pub(super) funcs: &'a [OffsetFunc],
    pub(super) out: String,
    pub(super) counts: HashMap<Class, usize>,
    pub(super) labels: usize,
    pub(super) calls: usize,
    /// Each tensor's global base address.
    pub(super) bases: Vec<String>,
    /// Each parameter's register.
    pub(super) params: HashMap<String, String>,
    /// Each index's extent register.
    pub(super) extents: Vec<String>,
    /// The staged tensors' code.
    pub(super) stages: &'a [StageCode],
    /// Loads whose lane value is already in a register (vector code).
    pub(super) overrides: HashMap<usize, String>,
    /// The registers of each tile's first point, by index.
    pub(super) starts: HashMap<IndexId, String>,
}

impl Builder<'_> {
    pub(super) fn reg(&mut self, c: Class) -> String {
        let n = self.counts.entry(c).or_insert(0);
        *n += 1;
        format!("%{}{}", c.prefix(), *n - 1)
    }

    pub(super) fn ins(&mut self, s: impl AsRef<str>) {
        let _ = writeln!(self.out, "\t{};", s.as_ref());
    }

    pub(super) fn label(&mut self, what: &str) -> String {
        self.labels += 1;
        format!("$L_{what}_{}", self.labels)
    }

    pub(super) fn put_label(&mut self, l: &str) {
        let _ = writeln!(self.out, "{l}:");
    }

    pub(super) fn comment(&mut self, s: &str) {
        let _ = writeln!(self.out, "\t// {s}");
    }

    /// The element offset of `a` at `point`, through the tensor's offset function.
    pub(super) fn offset(&mut self, a: &Access, point: &HashMap<IndexId, String>) -> String {
        let f = &self.funcs[a.tensor.index()];
        let args: Vec<String> = f
            .args
            .iter()
            .map(|v| match v {
                Var::Coord(d) => point[&a.indices[*d as usize]].clone(),
                Var::Param(n) => self.params[n].clone(),
                other => unreachable!("offset functions read coordinates and parameters, not {other}"),
            })
            .collect();
        let name = f.name.clone();
        let r = self.reg(Class::Rd);
        self.calls += 1;
        let c = self.calls;
        let _ = writeln!(self.out, "\t{{");
        let _ = writeln!(self.out, "\t.param .s64 ret{c};");
        for (j, x) in args.iter().enumerate() {
            let _ = writeln!(self.out, "\t.param .s64 arg{c}_{j};");
            self.ins(format!("st.param.s64 [arg{c}_{j}], {x}"));
        }
        let list: Vec<String> = (0..args.len()).map(|j| format!("arg{c}_{j}")).collect();
        self.ins(format!("call.uni (ret{c}), {name}, ({})", list.join(", ")));
        self.ins(format!("ld.param.s64 {r}, [ret{c}]"));
        let _ = writeln!(self.out, "\t}}");
        r
    }

    /// The global address of `a` at `point`.
    pub(super) fn address(&mut self, a: &Access, point: &HashMap<IndexId, String>) -> String {
        let off = self.offset(a, point);
        let t = a.tensor.index();
        let bytes = self.k.tensors[t].elem.bytes();
        let addr = self.reg(Class::Rd);
        let base = self.bases[t].clone();
        self.ins(format!("mad.lo.s64 {addr}, {off}, {bytes}, {base}"));
        addr
    }

    /// The shared-memory address of staged access `a` at `point`: the layout at the tile's
    /// colexicographic index of the point's local coordinates.
    pub(super) fn shared_address(
        &mut self,
        sc: usize,
        a: &Access,
        point: &HashMap<IndexId, String>,
    ) -> String {
        let code = &self.stages[sc];
        let (buffer, func, tile) = (code.buffer.clone(), code.func.clone(), code.tile.clone());
        let bytes = self.k.tensors[a.tensor.index()].elem.bytes();
        let idx = self.reg(Class::Rd);
        self.ins(format!("mov.s64 {idx}, 0"));
        let mut mult = 1i64;
        for (d, x) in a.indices.iter().enumerate() {
            let local = self.reg(Class::Rd);
            let start = self.starts[x].clone();
            self.ins(format!("sub.s64 {local}, {}, {start}", point[x]));
            self.ins(format!("mad.lo.s64 {idx}, {local}, {mult}, {idx}"));
            mult *= tile[d];
        }
        self.calls += 1;
        let c = self.calls;
        let off = self.reg(Class::Rd);
        let _ = writeln!(self.out, "\t{{");
        let _ = writeln!(self.out, "\t.param .s64 ret{c};");
        let _ = writeln!(self.out, "\t.param .s64 arg{c}_0;");
        self.ins(format!("st.param.s64 [arg{c}_0], {idx}"));
        self.ins(format!("call.uni (ret{c}), {func}, (arg{c}_0)"));
        self.ins(format!("ld.param.s64 {off}, [ret{c}]"));
        let _ = writeln!(self.out, "\t}}");
        let base = self.reg(Class::Rd);
        self.ins(format!("mov.u64 {base}, {buffer}"));
        let addr = self.reg(Class::Rd);
        self.ins(format!("mad.lo.s64 {addr}, {off}, {bytes}, {base}"));
        addr
    }

    /// Ands into predicate `p` that this thread is the first along every `threads` index the
    /// statement does not iterate (not among `tiles`): threads along such an index repeat
    /// nothing, so only the first computes. `tcoord` holds each thread index's coordinate.
    pub(super) fn only_first_along_unused(
        &mut self,
        p: &str,
        tiles: &[(IndexId, i64)],
        tcoord: &HashMap<IndexId, String>,
    ) {
        for t in &self.k.threads {
            if !tiles.iter().any(|(x, _)| *x == t.index) {
                let q = self.reg(Class::P);
                self.ins(format!("setp.eq.s64 {q}, {}, 0", tcoord[&t.index]));
                self.ins(format!("and.pred {p}, {p}, {q}"));
            }
        }
    }

    /// `v = ` the f32 value of the 16-bit float bits `h` of type `elem`.
    pub(super) fn widen(&mut self, elem: ElemType, h: &str, v: &str) {
        if elem == ElemType::F16 {
            self.ins(format!("cvt.f32.f16 {v}, {h}"));
        } else {
            let r = self.reg(Class::R);
            self.ins(format!("cvt.u32.u16 {r}, {h}"));
            self.ins(format!("shl.b32 {r}, {r}, 16"));
            self.ins(format!("mov.b32 {v}, {r}"));
        }
    }

    /// The value of `a` at `point` in its compute type.
    pub(super) fn load(&mut self, a: &Access, point: &HashMap<IndexId, String>) -> String {
        let elem = self.k.tensors[a.tensor.index()].elem;
        if let Some(sc) = self.stages.iter().position(|s| s.tensor == a.tensor.index()) {
            // Staged: the shared copy (the bits the staging copy moved).
            let addr = self.shared_address(sc, a, point);
            let v = self.reg(class(elem));
            match elem {
                ElemType::F16 | ElemType::BF16 => {
                    let h = self.reg(Class::H);
                    self.ins(format!("ld.shared.b16 {h}, [{addr}]"));
                    self.widen(elem, &h, &v);
                }
                t => self.ins(format!("ld.shared.{} {v}, [{addr}]", suffix(t))),
            }
            return v;
        }
        let addr = self.address(a, point);
        let v = self.reg(class(elem));
        match elem {
            ElemType::F16 | ElemType::BF16 => {
                let h = self.reg(Class::H);
                self.ins(format!("ld.global.b16 {h}, [{addr}]"));
                self.widen(elem, &h, &v);
            }
            t => self.ins(format!("ld.global.{} {v}, [{addr}]", suffix(t))),
        }
        v
    }

    /// Stores the computed value `v` (the target's compute type) into `a` at `point`, a NaN as
    /// the canonical NaN.
    pub(super) fn store(&mut self, a: &Access, point: &HashMap<IndexId, String>, v: &str) {
        let addr = self.address(a, point);
        let elem = self.k.tensors[a.tensor.index()].elem;
        let v = self.canonical(elem, v);
        self.ins(format!("st.global.{} [{addr}], {v}", store_suffix(elem)));
    }

    /// The computed value `v` (compute type of `elem`) as stored: a NaN replaced by the
    /// canonical quiet NaN of the element type (`0x7fc00000`, `0x7ff8000000000000`, `0x7e00`,
    /// `0x7fc0`: the rule of every backend, `crate::kernel::canonical`), f16 and bf16 rounded
    /// to their bits (whose NaN is set after the rounding, whatever `cvt` makes of a NaN).
    pub(super) fn canonical(&mut self, elem: ElemType, v: &str) -> String {
        let (test, nan) = match elem {
            ElemType::F64 => ("f64", "0d7FF8000000000000"),
            ElemType::F32 | ElemType::F16 | ElemType::BF16 => ("f32", "0f7FC00000"),
            _ => return v.to_string(),
        };
        let p = self.reg(Class::P);
        self.ins(format!("setp.nan.{test} {p}, {v}, {v}"));
        match elem {
            ElemType::F16 | ElemType::BF16 => {
                let h = self.reg(Class::H);
                let (to, bits) = if elem == ElemType::F16 {
                    ("f16", "0x7E00")
                } else {
                    ("bf16", "0x7FC0")
                };
                self.ins(format!("cvt.rn.{to}.f32 {h}, {v}"));
                self.ins(format!("selp.b16 {h}, {bits}, {h}, {p}"));
                h
            }
            _ => {
                let r = self.reg(if elem == ElemType::F64 {
                    Class::Fd
                } else {
                    Class::F
                });
                self.ins(format!("selp.{test} {r}, {nan}, {v}, {p}"));
                r
            }
        }
    }

    /// A constant in its compute type.
    pub(super) fn konst(&mut self, c: Scalar) -> String {
        match c {
            Scalar::F32(x) => {
                let r = self.reg(Class::F);
                self.ins(format!("mov.f32 {r}, 0f{:08X}", x.to_bits()));
                r
            }
            Scalar::F64(x) => {
                let r = self.reg(Class::Fd);
                self.ins(format!("mov.f64 {r}, 0d{:016X}", x.to_bits()));
                r
            }
            Scalar::I32(x) => {
                let r = self.reg(Class::R);
                self.ins(format!("mov.s32 {r}, {x}"));
                r
            }
            Scalar::I64(x) => {
                let r = self.reg(Class::Rd);
                self.ins(format!("mov.s64 {r}, {x}"));
                r
            }
        }
    }

    /// `x` of compute type `from` converted to the compute type of `to` (the interpreter's
    /// cast: f16/bf16 rounded to the type and widened back).
    pub(super) fn cast(&mut self, from: ElemType, to: ElemType, x: &str) -> String {
        use ElemType::*;
        let (cf, ct) = (class(from), class(to));
        let r = self.reg(ct);
        match (cf, ct) {
            (a, b) if a == b => self.ins(format!("mov.{} {r}, {x}", suffix(to))),
            (Class::F | Class::Fd, Class::R | Class::Rd) => {
                self.ins(format!("cvt.rzi.{}.{} {r}, {x}", suffix(to), suffix(from)))
            }
            (Class::R | Class::Rd, Class::F | Class::Fd) => {
                self.ins(format!("cvt.rn.{}.{} {r}, {x}", suffix(to), suffix(from)))
            }
            (Class::Fd, Class::F) => self.ins(format!("cvt.rn.f32.f64 {r}, {x}")),
            (Class::F, Class::Fd) => self.ins(format!("cvt.f64.f32 {r}, {x}")),
            (Class::Rd, Class::R) => self.ins(format!("cvt.s32.s64 {r}, {x}")),
            (Class::R, Class::Rd) => self.ins(format!("cvt.s64.s32 {r}, {x}")),
            _ => unreachable!("value classes"),
        }
        if matches!(to, F16 | BF16) {
            let h = self.reg(Class::H);
            if to == F16 {
                self.ins(format!("cvt.rn.f16.f32 {h}, {r}"));
                self.ins(format!("cvt.f32.f16 {r}, {h}"));
            } else {
                let w = self.reg(Class::R);
                self.ins(format!("cvt.rn.bf16.f32 {h}, {r}"));
                self.ins(format!("cvt.u32.u16 {w}, {h}"));
                self.ins(format!("shl.b32 {w}, {w}, 16"));
                self.ins(format!("mov.b32 {r}, {w}"));
            }
        }
        r
    }

    pub(super) fn binary(&mut self, op: BinOp, ty: ElemType, x: &str, y: &str) -> String {
        let c = class(ty);
        let r = self.reg(c);
        let t = suffix(ty);
        let float = ty.is_float();
        match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul if float => {
                // Explicit rounding: never contracted into an fma.
                let o = ["add", "sub", "mul"][[BinOp::Add, BinOp::Sub, BinOp::Mul]
                    .iter()
                    .position(|p| *p == op)
                    .unwrap_or(0)];
                self.ins(format!("{o}.rn.{t} {r}, {x}, {y}"));
            }
            BinOp::Div if float => self.ins(format!("div.rn.{t} {r}, {x}, {y}")),
            BinOp::Add => self.ins(format!("add.{t} {r}, {x}, {y}")),
            BinOp::Sub => self.ins(format!("sub.{t} {r}, {x}, {y}")),
            BinOp::Mul => self.ins(format!("mul.lo.{t} {r}, {x}, {y}")),
            BinOp::Max => self.ins(format!("max.{t} {r}, {x}, {y}")),
            BinOp::Min => self.ins(format!("min.{t} {r}, {x}, {y}")),
            BinOp::Div => {
                // A zero divisor traps; MIN / -1 wraps to MIN (its negation), as on the CPU.
                let z = self.reg(Class::P);
                self.ins(format!("setp.eq.{t} {z}, {y}, 0"));
                self.ins(format!("@{z} trap"));
                let m = self.reg(Class::P);
                self.ins(format!("setp.eq.{t} {m}, {y}, -1"));
                let one = self.reg(c);
                self.ins(format!("selp.{t} {one}, 1, {y}, {m}"));
                let q = self.reg(c);
                self.ins(format!("div.{t} {q}, {x}, {one}"));
                let n = self.reg(c);
                self.ins(format!("neg.{t} {n}, {x}"));
                self.ins(format!("selp.{t} {r}, {n}, {q}, {m}"));
            }
        }
        r
    }

    /// The statement's value at `point`.
    pub(super) fn eval(&mut self, s: &Stmt, point: &HashMap<IndexId, String>) -> String {
        let vals = self.values(s, point, s.nodes.len());
        vals[s.value.index()].clone()
    }

    /// The registers of the statement's first `upto` nodes at `point` (loads in
    /// [`Builder::overrides`] taken from there).
    pub(super) fn values(&mut self, s: &Stmt, point: &HashMap<IndexId, String>, upto: usize) -> Vec<String> {
        let mut vals: Vec<String> = Vec::with_capacity(upto);
        for node in &s.nodes[..upto] {
            let ty = node.ty;
            let v = match &node.op {
                Op::Load(a) => match self.overrides.get(&vals.len()) {
                    Some(r) => r.clone(),
                    None => self.load(a, point),
                },
                Op::Int(_) | Op::Float(_) => {
                    let c = constant(&node.op, ty).expect("a constant node");
                    self.konst(c)
                }
                Op::Unary(op, a) => {
                    let r = self.reg(class(ty));
                    let o = if *op == UnOp::Neg { "neg" } else { "abs" };
                    self.ins(format!("{o}.{} {r}, {}", suffix(ty), vals[a.index()]));
                    r
                }
                Op::Binary(op, a, b) => {
                    let (x, y) = (vals[a.index()].clone(), vals[b.index()].clone());
                    self.binary(*op, ty, &x, &y)
                }
                Op::Fma(a, b, c) => {
                    let r = self.reg(class(ty));
                    let (x, y, z) = (&vals[a.index()], &vals[b.index()], &vals[c.index()]);
                    if ty.is_float() {
                        self.ins(format!("fma.rn.{} {r}, {x}, {y}, {z}", suffix(ty)));
                    } else {
                        self.ins(format!("mad.lo.{} {r}, {x}, {y}, {z}", suffix(ty)));
                    }
                    r
                }
                Op::Cast(a) => {
                    let x = vals[a.index()].clone();
                    self.cast(s.nodes[a.index()].ty, ty, &x)
                }
            };
            vals.push(v);
        }
        vals
    }

    /// Loops over the contraction indices (first outermost, each over its whole extent), then
    /// `f` at each point.
    pub(super) fn contraction(
        &mut self,
        idx: &[IndexId],
        point: &mut HashMap<IndexId, String>,
        f: &mut dyn FnMut(&mut Self, &HashMap<IndexId, String>),
    ) {
        let Some((x, rest)) = idx.split_first() else {
            f(self, point);
            return;
        };
        let c = self.reg(Class::Rd);
        let (head, done) = (self.label("k"), self.label("kdone"));
        let n = self.extents[x.index()].clone();
        self.ins(format!("mov.s64 {c}, 0"));
        self.put_label(&head);
        let p = self.reg(Class::P);
        self.ins(format!("setp.ge.s64 {p}, {c}, {n}"));
        self.ins(format!("@{p} bra {done}"));
        point.insert(*x, c.clone());
        self.contraction(rest, point, f);
        self.ins(format!("add.s64 {c}, {c}, 1"));
        self.ins(format!("bra {head}"));
        self.put_label(&done);
    }
}

/// The type suffix of a store of a stored value of `elem` (f16 and bf16 as their bits).
pub(super) fn store_suffix(elem: ElemType) -> &'static str {
    match elem {
        ElemType::F16 | ElemType::BF16 => "b16",
        t => suffix(t),
    }
}
