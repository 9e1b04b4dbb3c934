//! The body of one `.entry`: the tile of the CTA, the points of the tile per thread, the
//! predicate of partial tiles, the accesses through the offset functions, and the statement's
//! values (see the module documentation for the mapping and the semantics).

use super::OffsetFunc;
use super::stage::StageCode;
use super::vector::VectorPlan;
use crate::EmitError;
use crate::kernel::{Access, BinOp, ElemType, IndexId, Kernel, Op, Scalar, Stmt, StoreKind, UnOp, constant};
use std::collections::HashMap;
use std::fmt::Write;
use tessera_ir::index::Var;

/// A register class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Class {
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
    fn prefix(self) -> &'static str {
        match self {
            Class::R => "r",
            Class::Rd => "rd",
            Class::F => "f",
            Class::Fd => "fd",
            Class::H => "h",
            Class::P => "p",
        }
    }

    fn decl(self) -> &'static str {
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
fn class(t: ElemType) -> Class {
    match t {
        ElemType::F32 | ElemType::F16 | ElemType::BF16 => Class::F,
        ElemType::F64 => Class::Fd,
        ElemType::I32 => Class::R,
        ElemType::I64 => Class::Rd,
    }
}

/// The PTX type suffix of `t`'s compute type.
fn suffix(t: ElemType) -> &'static str {
    match t {
        ElemType::F32 | ElemType::F16 | ElemType::BF16 => "f32",
        ElemType::F64 => "f64",
        ElemType::I32 => "s32",
        ElemType::I64 => "s64",
    }
}

/// An entry under construction.
struct Builder<'a> {
    k: &'a Kernel,
    funcs: &'a [OffsetFunc],
    out: String,
    counts: HashMap<Class, usize>,
    labels: usize,
    calls: usize,
    /// Each tensor's global base address.
    bases: Vec<String>,
    /// Each parameter's register.
    params: HashMap<String, String>,
    /// Each index's extent register.
    extents: Vec<String>,
    /// The staged tensors' code.
    stages: &'a [StageCode],
    /// Loads whose lane value is already in a register (vector code).
    overrides: HashMap<usize, String>,
    /// The registers of each tile's first point, by index.
    starts: HashMap<IndexId, String>,
}

impl Builder<'_> {
    fn reg(&mut self, c: Class) -> String {
        let n = self.counts.entry(c).or_insert(0);
        *n += 1;
        format!("%{}{}", c.prefix(), *n - 1)
    }

    fn ins(&mut self, s: impl AsRef<str>) {
        let _ = writeln!(self.out, "\t{};", s.as_ref());
    }

    fn label(&mut self, what: &str) -> String {
        self.labels += 1;
        format!("$L_{what}_{}", self.labels)
    }

    fn put_label(&mut self, l: &str) {
        let _ = writeln!(self.out, "{l}:");
    }

    fn comment(&mut self, s: &str) {
        let _ = writeln!(self.out, "\t// {s}");
    }

    /// The element offset of `a` at `point`, through the tensor's offset function.
    fn offset(&mut self, a: &Access, point: &HashMap<IndexId, String>) -> String {
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
    fn address(&mut self, a: &Access, point: &HashMap<IndexId, String>) -> String {
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
    fn shared_address(&mut self, sc: usize, a: &Access, point: &HashMap<IndexId, String>) -> String {
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

    /// `v = ` the f32 value of the 16-bit float bits `h` of type `elem`.
    fn widen(&mut self, elem: ElemType, h: &str, v: &str) {
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
    fn load(&mut self, a: &Access, point: &HashMap<IndexId, String>) -> String {
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

    /// Stores `v` (the target's compute type) into `a` at `point`.
    fn store(&mut self, a: &Access, point: &HashMap<IndexId, String>, v: &str) {
        let addr = self.address(a, point);
        let elem = self.k.tensors[a.tensor.index()].elem;
        match elem {
            ElemType::F16 | ElemType::BF16 => {
                let h = self.reg(Class::H);
                let to = if elem == ElemType::F16 { "f16" } else { "bf16" };
                self.ins(format!("cvt.rn.{to}.f32 {h}, {v}"));
                self.ins(format!("st.global.b16 [{addr}], {h}"));
            }
            t => self.ins(format!("st.global.{} [{addr}], {v}", suffix(t))),
        }
    }

    /// A constant in its compute type.
    fn konst(&mut self, c: Scalar) -> String {
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
    fn cast(&mut self, from: ElemType, to: ElemType, x: &str) -> String {
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

    fn binary(&mut self, op: BinOp, ty: ElemType, x: &str, y: &str) -> String {
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
    fn eval(&mut self, s: &Stmt, point: &HashMap<IndexId, String>) -> String {
        let mut vals: Vec<String> = Vec::with_capacity(s.nodes.len());
        for node in &s.nodes {
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
        vals[s.value.index()].clone()
    }

    /// Loops over the contraction indices (first outermost, each over its whole extent), then
    /// `f` at each point.
    fn contraction(
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

/// The `.entry` of statement `s` named `name`.
pub(super) fn entry(
    k: &Kernel,
    s: &Stmt,
    name: &str,
    params: &[(String, String)],
    funcs: &[OffsetFunc],
    tiles: &[(IndexId, i64)],
    (stages, vector): (&[StageCode], Option<&VectorPlan>),
) -> Result<String, EmitError> {
    let mut b = Builder {
        k,
        funcs,
        out: String::new(),
        counts: HashMap::new(),
        labels: 0,
        calls: 0,
        bases: Vec::new(),
        params: HashMap::new(),
        extents: Vec::new(),
        stages,
        overrides: HashMap::new(),
        starts: HashMap::new(),
    };
    let decl: Vec<String> = params
        .iter()
        .map(|(kind, n)| {
            let ty = if kind == "t" { ".u64" } else { ".s64" };
            format!(".param {ty} {kind}_{}", crate::sanitize(n))
        })
        .collect();
    for (kind, n) in params {
        let p = format!("{kind}_{}", crate::sanitize(n));
        let r = b.reg(Class::Rd);
        match kind.as_str() {
            "t" => {
                b.ins(format!("ld.param.u64 {r}, [{p}]"));
                b.ins(format!("cvta.to.global.u64 {r}, {r}"));
                b.bases.push(r);
            }
            "p" => {
                b.ins(format!("ld.param.s64 {r}, [{p}]"));
                b.params.insert(n.clone(), r);
            }
            _ => {
                b.ins(format!("ld.param.s64 {r}, [{p}]"));
                b.extents.push(r);
            }
        }
    }
    let sreg = |b: &mut Builder<'_>, special: &str| {
        let r32 = b.reg(Class::R);
        b.ins(format!("mov.u32 {r32}, %{special}"));
        let r = b.reg(Class::Rd);
        b.ins(format!("cvt.u64.u32 {r}, {r32}"));
        r
    };
    let (cta, tid, ntid) = (
        sreg(&mut b, "ctaid.x"),
        sreg(&mut b, "tid.x"),
        sreg(&mut b, "ntid.x"),
    );
    // The CTA's tile: its coordinates, row-major over the outer indices, and its first point.
    b.comment("the CTA's tile (row-major over the outer indices)");
    let mut start: HashMap<IndexId, String> = HashMap::new();
    let rem = b.reg(Class::Rd);
    b.ins(format!("mov.s64 {rem}, {cta}"));
    for (x, t) in tiles.iter().rev() {
        let n = b.extents[x.index()].clone();
        let count = b.reg(Class::Rd);
        b.ins(format!("add.s64 {count}, {n}, {}", t - 1));
        b.ins(format!("div.s64 {count}, {count}, {t}"));
        let c = b.reg(Class::Rd);
        b.ins(format!("rem.s64 {c}, {rem}, {count}"));
        b.ins(format!("div.s64 {rem}, {rem}, {count}"));
        b.ins(format!("mul.lo.s64 {c}, {c}, {t}"));
        start.insert(*x, c);
    }
    b.starts = start.clone();
    for (n, sc) in stages.iter().enumerate() {
        stage_copy(&mut b, n, sc, &start, &tid, &ntid);
    }
    if !stages.is_empty() {
        b.comment("every thread has stored its part of the staged tiles");
        b.ins("bar.sync 0");
    }
    // The thread's points: with a `threads` clause, CuTe's local_partition (thread coordinate
    // `t_x` in the listed order, the first fastest; points `t_x + T_x * v`); otherwise points
    // `tid, tid + ntid, ...` of the tile in row-major order.
    let counts: HashMap<IndexId, i64> = k.threads.iter().map(|t| (t.index, t.size)).collect();
    let mut tcoord: HashMap<IndexId, String> = HashMap::new();
    if !k.threads.is_empty() {
        let r = b.reg(Class::Rd);
        b.ins(format!("mov.s64 {r}, {tid}"));
        for t in &k.threads {
            let c = b.reg(Class::Rd);
            b.ins(format!("rem.s64 {c}, {r}, {}", t.size));
            b.ins(format!("div.s64 {r}, {r}, {}", t.size));
            tcoord.insert(t.index, c);
        }
    }
    let count = |x: &IndexId| counts.get(x).copied().unwrap_or(1);
    let mapped = !k.threads.is_empty();
    let values: Vec<(IndexId, i64)> = tiles
        .iter()
        .map(|(x, t)| (*x, if mapped { t / count(x) } else { *t }))
        .collect();
    let points: i64 = values.iter().map(|(_, v)| *v).product();
    // With `vector W`, thread tid takes groups of W consecutive points (along the innermost
    // index, a multiple of W in every tile): p counts groups.
    let w = vector.map_or(1, |v| v.width);
    let points = points / w;
    let p = b.reg(Class::Rd);
    let (head, next, done) = (b.label("point"), b.label("next"), b.label("done"));
    if mapped {
        b.comment(&format!(
            "local_partition: each thread takes {points} points of the tile"
        ));
        b.ins(format!("mov.s64 {p}, 0"));
    } else {
        b.comment(&format!(
            "thread tid takes points tid, tid + ntid, ... of the tile's {points}"
        ));
        b.ins(format!("mov.s64 {p}, {tid}"));
    }
    b.put_label(&head);
    let stop = b.reg(Class::P);
    b.ins(format!("setp.ge.s64 {stop}, {p}, {points}"));
    b.ins(format!("@{stop} bra {done}"));
    let mut point: HashMap<IndexId, String> = HashMap::new();
    let r2 = b.reg(Class::Rd);
    b.ins(format!("mul.lo.s64 {r2}, {p}, {w}"));
    let inside = b.reg(Class::P);
    b.ins(format!("setp.ge.s64 {inside}, {p}, 0"));
    // Threads along an index the statement does not iterate repeat nothing: only the first
    // does the work.
    for t in &k.threads {
        if !tiles.iter().any(|(x, _)| *x == t.index) {
            let q = b.reg(Class::P);
            b.ins(format!("setp.eq.s64 {q}, {}, 0", tcoord[&t.index]));
            b.ins(format!("and.pred {inside}, {inside}, {q}"));
        }
    }
    for (x, t) in values.iter().rev() {
        let c = b.reg(Class::Rd);
        b.ins(format!("rem.s64 {c}, {r2}, {t}"));
        b.ins(format!("div.s64 {r2}, {r2}, {t}"));
        if let Some(tc) = tcoord.get(x) {
            // local = t_x + T_x * v
            b.ins(format!("mad.lo.s64 {c}, {c}, {}, {tc}", count(x)));
        }
        b.ins(format!("add.s64 {c}, {c}, {}", start[x]));
        let q = b.reg(Class::P);
        let n = b.extents[x.index()].clone();
        b.ins(format!("setp.lt.s64 {q}, {c}, {n}"));
        b.ins(format!("and.pred {inside}, {inside}, {q}"));
        point.insert(*x, c);
    }
    b.comment("partial tiles: points outside the extents do nothing");
    b.ins(format!("@!{inside} bra {next}"));
    let target = &s.target;
    let copy = match (&s.nodes[s.value.index()].op, s.kind) {
        (Op::Load(a), StoreKind::Assign)
            if k.tensors[a.tensor.index()].elem == k.tensors[target.tensor.index()].elem =>
        {
            Some(a)
        }
        _ => None,
    };
    match (s.kind, copy, vector) {
        (_, _, Some(v)) => vector_body(&mut b, s, copy, v, &point),
        (StoreKind::Assign, Some(src), None) => {
            // A copy moves bits.
            let elem = k.tensors[target.tensor.index()].elem;
            let (bits, c) = match elem.bytes() {
                2 => ("b16", Class::H),
                4 => ("b32", Class::R),
                _ => ("b64", Class::Rd),
            };
            let v = b.reg(c);
            match stages.iter().position(|sc| sc.tensor == src.tensor.index()) {
                // A staged source is read from its shared copy.
                Some(n) => {
                    let from = b.shared_address(n, src, &point);
                    b.ins(format!("ld.shared.{bits} {v}, [{from}]"));
                }
                None => {
                    let from = b.address(src, &point);
                    b.ins(format!("ld.global.{bits} {v}, [{from}]"));
                }
            }
            let to = b.address(target, &point);
            b.ins(format!("st.global.{bits} [{to}], {v}"));
        }
        (StoreKind::Assign, None, None) => {
            let v = b.eval(s, &point);
            b.store(target, &point, &v);
        }
        (StoreKind::Accumulate, _, None) => {
            let elem = k.tensors[target.tensor.index()].elem;
            let acc = b.load(target, &point);
            let mut pt = point.clone();
            let t = suffix(elem);
            let float = elem.is_float();
            b.contraction(&s.contraction, &mut pt, &mut |b, p| {
                let v = b.eval(s, p);
                if float {
                    b.ins(format!("add.rn.{t} {acc}, {acc}, {v}"));
                } else {
                    b.ins(format!("add.{t} {acc}, {acc}, {v}"));
                }
            });
            b.store(target, &point, &acc);
        }
    }
    b.put_label(&next);
    if mapped {
        b.ins(format!("add.s64 {p}, {p}, 1"));
    } else {
        b.ins(format!("add.s64 {p}, {p}, {ntid}"));
    }
    b.ins(format!("bra {head}"));
    b.put_label(&done);
    b.ins("ret");
    let mut text = String::new();
    let _ = writeln!(text, "// Statement: {} (tiles: {})", describe(k, s), {
        let v: Vec<String> = tiles
            .iter()
            .map(|(x, t)| format!("{}:{t}", k.indices[x.index()].name))
            .collect();
        v.join(", ")
    });
    let _ = writeln!(text, ".visible .entry {name}(\n\t{}\n)\n{{", decl.join(",\n\t"));
    for sc in stages {
        let bytes = sc.elems * k.tensors[sc.tensor].elem.bytes() as i64;
        let _ = writeln!(text, "\t.shared .align 16 .b8 {}[{bytes}];", sc.buffer);
    }
    let mut classes = [Class::R, Class::Rd, Class::F, Class::Fd, Class::H, Class::P];
    classes.sort_by_key(|c| c.prefix());
    for c in classes {
        if let Some(n) = b.counts.get(&c) {
            let _ = writeln!(text, "\t.reg {} %{}<{n}>;", c.decl(), c.prefix());
        }
    }
    text.push_str(&b.out);
    text.push_str("}\n");
    Ok(text)
}

/// A statement as text, for the comment above its entry.
fn describe(k: &Kernel, s: &Stmt) -> String {
    let access = |a: &Access| {
        let idx: Vec<&str> = a
            .indices
            .iter()
            .map(|x| k.indices[x.index()].name.as_str())
            .collect();
        format!("{}[{}]", k.tensors[a.tensor.index()].name, idx.join(","))
    };
    let reads: Vec<String> = s
        .nodes
        .iter()
        .filter_map(|n| match &n.op {
            Op::Load(a) => Some(access(a)),
            _ => None,
        })
        .collect();
    let op = if s.kind == StoreKind::Assign { "=" } else { "+=" };
    format!("{} {op} f({})", access(&s.target), reads.join(", "))
}

/// The staging copy of stage `n`: the tile's points in colexicographic order over the tensor's
/// dimensions, thread `tid` taking `tid, tid + ntid, ...`, each loaded from global memory
/// (bits) and stored at the layout's offset in the shared buffer; points past the extents are
/// skipped.
fn stage_copy(
    b: &mut Builder<'_>,
    n: usize,
    sc: &StageCode,
    start: &HashMap<IndexId, String>,
    tid: &str,
    ntid: &str,
) {
    let k = b.k;
    let t = sc.tensor;
    let elem = k.tensors[t].elem;
    let points: i64 = sc.tile.iter().product();
    b.comment(&format!(
        "stage {}: {points} elements into {} (thread tid takes tid, tid + ntid, ...)",
        k.tensors[t].name, sc.buffer
    ));
    let p = b.reg(Class::Rd);
    let (head, next, done) = (b.label("stage"), b.label("snext"), b.label("sdone"));
    b.ins(format!("mov.s64 {p}, {tid}"));
    b.put_label(&head);
    let stop = b.reg(Class::P);
    b.ins(format!("setp.ge.s64 {stop}, {p}, {points}"));
    b.ins(format!("@{stop} bra {done}"));
    let r = b.reg(Class::Rd);
    b.ins(format!("mov.s64 {r}, {p}"));
    let inside = b.reg(Class::P);
    b.ins(format!("setp.ge.s64 {inside}, {p}, 0"));
    let mut point: HashMap<IndexId, String> = HashMap::new();
    let ids: Vec<IndexId> = sc.dims.iter().map(|d| IndexId::new(*d)).collect();
    for (d, x) in ids.iter().enumerate() {
        let c = b.reg(Class::Rd);
        b.ins(format!("rem.s64 {c}, {r}, {}", sc.tile[d]));
        b.ins(format!("div.s64 {r}, {r}, {}", sc.tile[d]));
        b.ins(format!("add.s64 {c}, {c}, {}", start[x]));
        let q = b.reg(Class::P);
        let e = b.extents[x.index()].clone();
        b.ins(format!("setp.lt.s64 {q}, {c}, {e}"));
        b.ins(format!("and.pred {inside}, {inside}, {q}"));
        point.insert(*x, c);
    }
    b.ins(format!("@!{inside} bra {next}"));
    let access = Access {
        tensor: crate::kernel::TensorId::new(t),
        indices: ids,
    };
    let (bits, c) = match elem.bytes() {
        2 => ("b16", Class::H),
        4 => ("b32", Class::R),
        _ => ("b64", Class::Rd),
    };
    let from = b.address(&access, &point);
    let v = b.reg(c);
    b.ins(format!("ld.global.{bits} {v}, [{from}]"));
    let to = b.shared_address(n, &access, &point);
    b.ins(format!("st.shared.{bits} [{to}], {v}"));
    b.put_label(&next);
    b.ins(format!("add.s64 {p}, {p}, {ntid}"));
    b.ins(format!("bra {head}"));
    b.put_label(&done);
}

/// The PTX type of `n`-byte bits.
fn bits(n: usize) -> (&'static str, Class) {
    match n {
        2 => ("b16", Class::H),
        4 => ("b32", Class::R),
        _ => ("b64", Class::Rd),
    }
}

/// One group of `W` consecutive points along the vectorised index: every access along it one
/// `.vW` load or store (proved contiguous and aligned by the plan), the others per lane.
fn vector_body(
    b: &mut Builder<'_>,
    s: &Stmt,
    copy: Option<&Access>,
    v: &VectorPlan,
    point: &HashMap<IndexId, String>,
) {
    let k = b.k;
    let w = v.width;
    let lanes: Vec<HashMap<IndexId, String>> = (0..w)
        .map(|l| {
            let mut p = point.clone();
            let x = b.reg(Class::Rd);
            b.ins(format!("add.s64 {x}, {}, {l}", point[&v.x]));
            p.insert(v.x, x);
            p
        })
        .collect();
    let along = |a: &Access| a.indices.contains(&v.x);
    let list = |r: &[String]| format!("{{{}}}", r.join(", "));
    let target = &s.target;
    let telem = k.tensors[target.tensor.index()].elem;
    if let Some(src) = copy.filter(|a| along(a)) {
        // A copy moves bits, W elements at a time.
        let (ty, c) = bits(telem.bytes());
        let regs: Vec<String> = (0..w).map(|_| b.reg(c)).collect();
        let from = b.address(src, point);
        b.ins(format!("ld.global.v{w}.{ty} {}, [{from}]", list(&regs)));
        let to = b.address(target, point);
        b.ins(format!("st.global.v{w}.{ty} [{to}], {}", list(&regs)));
        return;
    }
    // Vector loads, widened lane by lane.
    b.overrides.clear();
    let mut lane_values: Vec<HashMap<usize, String>> = vec![HashMap::new(); w as usize];
    for (n, node) in s.nodes.iter().enumerate() {
        let Op::Load(a) = &node.op else { continue };
        if !along(a) {
            continue;
        }
        let elem = k.tensors[a.tensor.index()].elem;
        let addr = b.address(a, point);
        match elem {
            ElemType::F16 | ElemType::BF16 => {
                let hs: Vec<String> = (0..w).map(|_| b.reg(Class::H)).collect();
                b.ins(format!("ld.global.v{w}.b16 {}, [{addr}]", list(&hs)));
                for (l, h) in hs.iter().enumerate() {
                    let f = b.reg(Class::F);
                    b.widen(elem, h, &f);
                    lane_values[l].insert(n, f);
                }
            }
            t => {
                let rs: Vec<String> = (0..w).map(|_| b.reg(class(t))).collect();
                b.ins(format!("ld.global.v{w}.{} {}, [{addr}]", suffix(t), list(&rs)));
                for (l, r) in rs.into_iter().enumerate() {
                    lane_values[l].insert(n, r);
                }
            }
        }
    }
    let mut outs = Vec::with_capacity(w as usize);
    for (l, p) in lanes.iter().enumerate() {
        b.overrides = lane_values[l].clone();
        let v = b.eval(s, p);
        outs.push(v);
    }
    b.overrides.clear();
    let to = b.address(target, point);
    match telem {
        ElemType::F16 | ElemType::BF16 => {
            let to_ty = if telem == ElemType::F16 { "f16" } else { "bf16" };
            let hs: Vec<String> = outs
                .iter()
                .map(|v| {
                    let h = b.reg(Class::H);
                    b.ins(format!("cvt.rn.{to_ty}.f32 {h}, {v}"));
                    h
                })
                .collect();
            b.ins(format!("st.global.v{w}.b16 [{to}], {}", list(&hs)));
        }
        t => b.ins(format!("st.global.v{w}.{} [{to}], {}", suffix(t), list(&outs))),
    }
}
