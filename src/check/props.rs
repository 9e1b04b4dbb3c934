//! Assertions: property names and their arguments.

use crate::lang::{Env, Value, eval_expr};
use tessera_ir::atom::Side;
use tessera_ir::sym::SymInt;
use tessera_ir::text::{Expr, ExprKind, parse_expr};
use tessera_ir::{Error, Int};
use tessera_verifier::{Bank, Cmp};
use tessera_verifier::{Func, Property};

type E = (usize, String);

/// Splits `text` at a top-level comparison: `(call, op, rhs, rhs offset)`.
fn split_cmp(text: &str) -> Option<(&str, Cmp, &str, usize)> {
    let b = text.as_bytes();
    let mut depth = 0i32;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'=' | b'<' | b'>' if depth == 0 => {
                let two = b.get(i + 1) == Some(&b'=');
                let op = match (b[i], two) {
                    (b'=', true) => Cmp::Eq,
                    (b'<', true) => Cmp::Le,
                    (b'>', true) => Cmp::Ge,
                    (b'<', false) => Cmp::Lt,
                    (b'>', false) => Cmp::Gt,
                    _ => return None,
                };
                let end = i + if two { 2 } else { 1 };
                return Some((&text[..i], op, &text[end..], end));
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// One property of the check-file language: its name, arity, arguments as the help writes
/// them, and how its arguments build the verifier's [`Property`].
pub struct Spec {
    /// The name.
    pub name: &'static str,
    /// The fewest positional arguments.
    pub min_args: usize,
    /// The most positional arguments.
    pub max_args: usize,
    /// The arguments, as the help writes them.
    pub args: &'static str,
    build: fn(&Args<'_>) -> Result<Property, E>,
}

/// Every property, declared once.
pub static PROPERTIES: &[Spec] = &[
    Spec {
        name: "injective",
        min_args: 1,
        max_args: 1,
        args: "L",
        build: |a| Ok(Property::Injective(a.func(0)?)),
    },
    Spec {
        name: "surjective",
        min_args: 1,
        max_args: 2,
        args: "L [, n]",
        build: |a| Ok(Property::Surjective(a.func(0)?, a.opt_int(1)?)),
    },
    Spec {
        name: "bijective",
        min_args: 1,
        max_args: 1,
        args: "L",
        build: |a| Ok(Property::Bijective(a.func(0)?)),
    },
    Spec {
        name: "in_bounds",
        min_args: 2,
        max_args: 2,
        args: "L, n",
        build: |a| Ok(Property::InBounds(a.func(0)?, a.int(1)?)),
    },
    Spec {
        name: "equal",
        min_args: 2,
        max_args: 2,
        args: "A, B",
        build: |a| Ok(Property::Equal(a.func(0)?, a.func(1)?)),
    },
    Spec {
        name: "compatible",
        min_args: 2,
        max_args: 2,
        args: "A, B",
        build: |a| Ok(Property::Compatible(a.shape(0)?, a.shape(1)?)),
    },
    Spec {
        name: "left_inverse_valid",
        min_args: 2,
        max_args: 2,
        args: "L, R",
        build: |a| Ok(Property::LeftInverseValid(a.func(0)?, a.func(1)?)),
    },
    Spec {
        name: "right_inverse_valid",
        min_args: 2,
        max_args: 2,
        args: "L, R",
        build: |a| Ok(Property::RightInverseValid(a.func(0)?, a.func(1)?)),
    },
    Spec {
        name: "complement_valid",
        min_args: 2,
        max_args: 3,
        args: "A, C [, n]",
        build: |a| Ok(Property::ComplementValid(a.func(0)?, a.func(1)?, a.opt_int(2)?)),
    },
    Spec {
        name: "composition_valid",
        min_args: 3,
        max_args: 3,
        args: "A, B, R",
        build: |a| Ok(Property::CompositionValid(a.func(0)?, a.func(1)?, a.func(2)?)),
    },
    Spec {
        name: "contiguous",
        min_args: 1,
        max_args: 1,
        args: "L",
        build: |a| Ok(Property::Contiguous(a.func(0)?)),
    },
    Spec {
        name: "vectorizable",
        min_args: 2,
        max_args: 2,
        args: "L, v",
        build: |a| {
            let v = a.int(1)?.as_const().ok_or_else(|| {
                (
                    a.off + a.pos[1].col,
                    "the vector width must be a constant".to_string(),
                )
            })?;
            Ok(Property::Vectorizable(a.func(0)?, v))
        },
    },
    Spec {
        name: "bank_conflict_free",
        min_args: 2,
        max_args: 2,
        args: "Smem, TV, elem=BYTES, access=BYTES",
        build: |a| Ok(Property::BankConflictFree(a.bank()?)),
    },
    Spec {
        name: "conflict_degree",
        min_args: 2,
        max_args: 2,
        args: "Smem, TV, elem=BYTES, access=BYTES) == n  (or <=, <, >=, >",
        build: |a| match a.cmp {
            Some((op, n)) => Ok(Property::ConflictDegree(a.bank()?, op, n)),
            None => Err((a.off, "conflict_degree(...) needs a comparison, e.g. == 8".into())),
        },
    },
    Spec {
        name: "wavefronts",
        min_args: 2,
        max_args: 2,
        args: "Smem, TV, elem=BYTES, access=BYTES) <= n  (or ==, <, >=, >",
        build: |a| match a.cmp {
            Some((op, n)) => Ok(Property::Wavefronts(a.bank()?, op, n)),
            None => Err((a.off, "wavefronts(...) needs a comparison, e.g. <= 4".into())),
        },
    },
];

/// The arguments of one assertion, evaluated on demand.
pub struct Args<'a> {
    name: &'a str,
    pos: Vec<&'a Expr>,
    kw: Vec<(&'a str, &'a Expr)>,
    cmp: Option<(Cmp, i64)>,
    call: &'a str,
    off: usize,
    col: usize,
    env: &'a Env<SymInt>,
}

impl Args<'_> {
    fn ev(&self, x: &Expr) -> Result<Value<SymInt>, E> {
        eval_expr(x, self.env, self.call).map_err(|err| {
            let (col, msg) = locate(err, self.off);
            (col, super::names::explain(msg, self.call, self.env))
        })
    }

    /// Positional argument `k` as a function.
    fn func(&self, k: usize) -> Result<Func, E> {
        let x = self.pos[k];
        self.ev(x)?
            .to_func()
            .map_err(|err| (self.off + x.col, format!("{}: {err}", self.name)))
    }

    fn int_of(&self, x: &Expr) -> Result<SymInt, E> {
        match self.ev(x)? {
            Value::Int(v) => Ok(v),
            v => Err((
                self.off + x.col,
                format!("expected an integer, found {}", v.kind()),
            )),
        }
    }

    /// Positional argument `k` as an integer.
    fn int(&self, k: usize) -> Result<SymInt, E> {
        self.int_of(self.pos[k])
    }

    /// Positional argument `k`, an integer, when given.
    fn opt_int(&self, k: usize) -> Result<Option<SymInt>, E> {
        self.pos.get(k).map(|x| self.int_of(x)).transpose()
    }

    /// Positional argument `k` as a shape.
    fn shape(&self, k: usize) -> Result<tessera_ir::HTuple<SymInt>, E> {
        let x = self.pos[k];
        self.ev(x)?
            .to_shape()
            .map_err(|err| (self.off + x.col, err.to_string()))
    }

    /// The error for a bank question without `elem=` or `access=`: both change the answer (the
    /// same layouts are conflict-free with 2-byte elements and 16-byte accesses and conflicted
    /// with 4-byte ones), so neither has a default. The message shows the call with the
    /// missing keywords added.
    fn missing_bank_keywords(&self, elem: Option<i64>, access: Option<i64>) -> String {
        let (e, w) = match (elem, access) {
            (Some(e), _) => (e, e),
            (None, Some(w)) => (w.min(4), w),
            (None, None) => (4, 4),
        };
        let mut add = Vec::new();
        if elem.is_none() {
            add.push(format!("elem={e}"));
        }
        if access.is_none() {
            add.push(format!("access={w}"));
        }
        let call = self.call.trim();
        let fixed = match call.strip_suffix(')') {
            Some(head) => format!("{head}, {})", add.join(", ")),
            None => format!("{call}, {}", add.join(", ")),
        };
        format!(
            "{}: give {} (elem= the element size in bytes, access= the bytes each thread reads or \
             writes at once: 2 and 16 for fp16 ldmatrix or 128-bit copies, 4 and 4 for fp32), \
             e.g. {fixed}",
            self.name,
            add.iter()
                .map(|k| k.split('=').next().unwrap_or("").to_string() + "=")
                .collect::<Vec<_>>()
                .join(" and "),
        )
    }

    /// The bank question: shared-memory and thread-value layouts, `elem=` and `access=`; or
    /// shared memory and a tiled copy, whose atom gives the accesses.
    fn bank(&self) -> Result<Bank, E> {
        if let ExprKind::Call(f, args) = &self.pos[1].kind
            && let Some(side) = match f.as_str() {
                "partition_S" => Some(Side::Src),
                "partition_D" => Some(Side::Dst),
                _ => None,
            }
            && args.len() == 3
        {
            return self.bank_of_partition(side, args);
        }
        if let Value::Atom(a) = self.ev(self.pos[1])? {
            return self.bank_of_copy(&a);
        }
        let mut elem = None;
        let mut access = None;
        for (k, v) in &self.kw {
            let n = self
                .int_of(v)?
                .as_const()
                .ok_or_else(|| (self.off + v.col, format!("{k} must be a constant")))?;
            match *k {
                "elem" => elem = Some(n),
                "access" => access = Some(n),
                other => {
                    return Err((
                        self.off + v.col,
                        format!("unknown keyword '{other}=' (elem=, access=)"),
                    ));
                }
            }
        }
        let (Some(elem), Some(access)) = (elem, access) else {
            return Err((self.off + self.col, self.missing_bank_keywords(elem, access)));
        };
        if ![1, 2, 4, 8, 16].contains(&access) || elem < 1 || access % elem != 0 {
            return Err((
                self.off + self.col,
                format!(
                    "{}: access={access} must be 1, 2, 4, 8 or 16 bytes and a multiple of elem={elem}",
                    self.name
                ),
            ));
        }
        Ok(Bank {
            smem: self.func(0)?,
            tv: self.func(1)?,
            elem,
            access,
        })
    }
}

impl Args<'_> {
    /// The bank question of a tiled copy over the shared-memory layout (argument 0): its
    /// atom decides the side, the element size and the access width
    /// (`tessera_ir::atom::smem_access`).
    fn bank_of_copy(&self, a: &crate::lang::atom_value::AtomValue) -> Result<Bank, E> {
        use crate::lang::atom_value::AtomValue;
        let x = self.pos[1];
        let err = |m: String| (self.off + x.col, format!("{}: {m}", self.name));
        let AtomValue::Copy(tc) = a else {
            return Err(err(format!("expected a tiled copy, found {} ({a})", a.kind())));
        };
        if let Some((k, v)) = self.kw.first() {
            return Err((
                self.off + v.col,
                format!("{}: {k}= comes from the copy atom of {tc}; drop it", self.name),
            ));
        }
        let smem = self.func(0)?;
        let shape = match &smem {
            Func::Layout(l) => l.shape().clone(),
            Func::Composed(c) => c.inner.shape().clone(),
        };
        let shape = shape
            .try_map(|v| v.as_const().ok_or(()))
            .map_err(|()| err("the shared-memory tile of a tiled copy must be concrete".into()))?;
        let acc = tessera_ir::atom::smem_access(tc, &shape).map_err(|e| err(e.to_string()))?;
        let tv = acc.tv.lift().map_err(|e| err(e.to_string()))?;
        Ok(Bank {
            smem,
            tv: Func::Layout(tv),
            elem: acc.elem_bytes,
            access: acc.access_bytes,
        })
    }
}

impl Args<'_> {
    /// The bank question of `partition_S/D(TC, T, THREAD)` over the shared-memory layout
    /// (argument 0): the accesses every thread of the copy makes to its partition of `T`, the
    /// tensor CuTe partitions (`thr_copy.partition_S(sA)`: its offsets are shared-memory
    /// element offsets, so `T` is the shared-memory layout or a tile of it, swizzle and offset
    /// included). `THREAD` is checked as CuTe checks it; a bank question covers every thread
    /// of the instruction. The partition's side must be the atom's shared-memory side, and
    /// every offset of `T` one that the shared-memory layout reaches.
    fn bank_of_partition(&self, side: Side, args: &[Expr]) -> Result<Bank, E> {
        use crate::lang::atom_value::AtomValue;
        let x = self.pos[1];
        let err = |col: usize, m: String| (self.off + col, format!("{}: {m}", self.name));
        if let Some((k, v)) = self.kw.first() {
            return Err((
                self.off + v.col,
                format!(
                    "{}: {k}= comes from the copy atom of the partition; drop it",
                    self.name
                ),
            ));
        }
        let tc = match self.ev(&args[0])? {
            Value::Atom(a) => match a.as_ref() {
                AtomValue::Copy(tc) => tc.clone(),
                a => {
                    return Err(err(
                        args[0].col,
                        format!("expected a tiled copy, found {} ({a})", a.kind()),
                    ));
                }
            },
            v => {
                return Err(err(
                    args[0].col,
                    format!("expected a tiled copy, found {}", v.kind()),
                ));
            }
        };
        let tensor = self
            .ev(&args[1])?
            .to_func()
            .map_err(|e| err(args[1].col, e.to_string()))?;
        let concrete = |f: &Func, col: usize| match f.at(&Default::default()) {
            Ok(tessera_verifier::Concrete::Composed(c)) => Ok(c),
            Ok(tessera_verifier::Concrete::Layout(l)) => Ok(tessera_ir::ComposedLayout {
                swizzle: None,
                offset: 0,
                inner: l,
            }),
            Err(e) => Err(err(
                col,
                format!("the shared-memory tensor must be concrete ({e})"),
            )),
        };
        let t = concrete(&tensor, args[1].col)?;
        let thread = match self.ev(&args[2])? {
            Value::Int(v) => v.as_const(),
            _ => None,
        }
        .ok_or_else(|| err(args[2].col, "the thread must be an integer".into()))?;
        tc.partition(side, &t, thread)
            .map_err(|e| err(x.col, e.to_string()))?;
        let shape = t.inner.shape().clone();
        let acc = tessera_ir::atom::smem_access(&tc, &shape).map_err(|e| err(x.col, e.to_string()))?;
        if acc.side != side {
            let (name, other) = match side {
                Side::Src => ("partition_S", "partition_D"),
                Side::Dst => ("partition_D", "partition_S"),
            };
            return Err(err(
                x.col,
                format!(
                    "{name} of {tc} is its register or global side; its shared-memory accesses are \
                     {other}'s"
                ),
            ));
        }
        // The tensor views the shared-memory layout's buffer: each offset one it reaches.
        let smem = self.func(0)?;
        let s = concrete(&smem, self.pos[0].col)?;
        let cap = 1 << 22;
        if s.inner.size().unwrap_or(i64::MAX) > cap || t.inner.size().unwrap_or(i64::MAX) > cap {
            return Err(err(x.col, format!("the tiles have more than {cap} elements")));
        }
        let all = |c: &tessera_ir::ComposedLayout| {
            (0..c.inner.size().unwrap_or(0))
                .map(|i| c.eval_index(&i))
                .collect::<Result<Vec<i64>, _>>()
        };
        let reached: std::collections::HashSet<i64> = all(&s)
            .map_err(|e| err(self.pos[0].col, e.to_string()))?
            .into_iter()
            .collect();
        let offs = all(&t).map_err(|e| err(args[1].col, e.to_string()))?;
        if let Some((i, o)) = offs.iter().enumerate().find(|(_, o)| !reached.contains(o)) {
            return Err(err(
                args[1].col,
                format!(
                    "the partitioned tensor reaches the offset {o} (index {i}), which {smem} never \
                     reaches: partition a view of the shared-memory layout (it, a tile of it)"
                ),
            ));
        }
        let tv = acc.tv.lift().map_err(|e| err(x.col, e.to_string()))?;
        Ok(Bank {
            smem: tensor,
            tv: Func::Layout(tv),
            elem: acc.elem_bytes,
            access: acc.access_bytes,
        })
    }
}

/// Parses and evaluates the assertion `text` (starting at byte `off` of its line).
pub(crate) fn property(text: &str, off: usize, env: &Env<SymInt>) -> Result<Property, E> {
    let (call, cmp) = match split_cmp(text) {
        Some((call, op, rhs, roff)) => {
            let n = rhs.trim().parse::<i64>().map_err(|_| {
                (
                    off + roff,
                    format!("expected an integer after the comparison, found '{}'", rhs.trim()),
                )
            })?;
            (call, Some((op, n)))
        }
        None => (text, None),
    };
    let e = parse_expr(call).map_err(|p| (off + p.col, super::names::explain(p.msg, call, env)))?;
    let ExprKind::Call(name, args) = &e.kind else {
        return Err((off, "expected a property, e.g. injective(L)".into()));
    };
    let Some(spec) = PROPERTIES.iter().find(|s| s.name == name) else {
        let names: Vec<&str> = PROPERTIES.iter().map(|p| p.name).collect();
        return Err((
            off + e.col,
            format!("unknown property '{name}' (one of: {})", names.join(", ")),
        ));
    };
    let (mut pos, mut kw): (Vec<&Expr>, Vec<(&str, &Expr)>) = (Vec::new(), Vec::new());
    for a in args {
        match &a.kind {
            ExprKind::Keyword(k, v) => kw.push((k.as_str(), v)),
            _ => pos.push(a),
        }
    }
    let (lo, hi) = (spec.min_args, spec.max_args);
    if pos.len() < lo || pos.len() > hi {
        let want = if lo == hi {
            lo.to_string()
        } else {
            format!("{lo} to {hi}")
        };
        return Err((
            off + e.col,
            format!(
                "{name} takes {want} argument{}, got {}",
                if hi == 1 { "" } else { "s" },
                pos.len()
            ),
        ));
    }
    if cmp.is_some() && name != "conflict_degree" && name != "wavefronts" {
        return Err((
            off,
            format!("only conflict_degree(...) and wavefronts(...) are compared with a number, not {name}"),
        ));
    }
    let is_bank = matches!(
        name.as_str(),
        "bank_conflict_free" | "conflict_degree" | "wavefronts"
    );
    if !is_bank && let Some((k, v)) = kw.first() {
        return Err((off + v.col, format!("{name} takes no keyword argument '{k}='")));
    }
    (spec.build)(&Args {
        name,
        pos,
        kw,
        cmp,
        call,
        off,
        col: e.col,
        env,
    })
}

/// An evaluation error as (column, message).
pub(super) fn locate(e: Error, off: usize) -> (usize, String) {
    match e {
        Error::Parse(p) => (off + p.col, p.msg),
        e => (off, e.to_string()),
    }
}
