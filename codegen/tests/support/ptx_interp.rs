//! An interpreter of the PTX the index-function emitter writes (`.s64` registers, `.pred`
//! predicates, the arithmetic and parameter instructions it uses), so that the tests check
//! what the PTX computes, not only that `ptxas` accepts it. An instruction it does not know is
//! a panic: a failed test.

use std::collections::HashMap;

/// One `.func`: its parameters, return parameters and instructions.
pub struct Func {
    pub name: String,
    pub params: Vec<String>,
    pub rets: Vec<String>,
    body: Vec<(String, Vec<String>)>,
}

/// The names in a `(.param .s64 a, .param .s64 b)` list; a `.b8 ret[8n]` array stands for
/// its slots `ret+0`, `ret+8`, ...
fn param_names(list: &str) -> Vec<String> {
    if let Some(n) = list.strip_prefix(".param .align 8 .b8 ret[") {
        let bytes: usize = n.strip_suffix(']').unwrap().parse().unwrap();
        return (0..bytes / 8).map(|k| format!("ret+{}", 8 * k)).collect();
    }
    list.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| p.rsplit(' ').next().unwrap().to_string())
        .collect()
}

/// The functions of a module.
pub fn parse(module: &str) -> Vec<Func> {
    let mut out = Vec::new();
    let mut lines = module.lines();
    while let Some(l) = lines.next() {
        let Some(rest) = l.strip_prefix(".visible .func (") else {
            continue;
        };
        let (rets, rest) = rest.split_once(") ").unwrap();
        let (name, params) = rest.split_once('(').unwrap();
        let params = params.strip_suffix(')').unwrap();
        let mut f = Func {
            name: name.to_string(),
            params: param_names(params),
            rets: param_names(rets),
            body: Vec::new(),
        };
        for l in lines.by_ref() {
            let l = l.trim();
            if l == "}" {
                break;
            }
            if l == "{" || l.starts_with(".reg") {
                continue;
            }
            let l = l.strip_suffix(';').unwrap_or_else(|| panic!("no ';' in {l}"));
            let (op, args) = l.split_once(' ').unwrap_or((l, ""));
            let args = args
                .split(',')
                .map(|a| a.trim().to_string())
                .filter(|a| !a.is_empty())
                .collect();
            f.body.push((op.to_string(), args));
        }
        out.push(f);
    }
    out
}

impl Func {
    /// The return parameters' values for the parameters' values `args`.
    pub fn run(&self, args: &[i64]) -> Vec<i64> {
        let mut params: HashMap<&str, i64> = self
            .params
            .iter()
            .map(String::as_str)
            .zip(args.iter().copied())
            .collect();
        let mut regs: HashMap<&str, i64> = HashMap::new();
        let mut preds: HashMap<&str, bool> = HashMap::new();
        for (op, a) in &self.body {
            let v = |k: usize, regs: &HashMap<&str, i64>| -> i64 {
                let s = a[k].as_str();
                if s.starts_with('%') {
                    *regs
                        .get(s)
                        .unwrap_or_else(|| panic!("{}: {s} read before written", self.name))
                } else if let Some(h) = s.strip_prefix("0x") {
                    u64::from_str_radix(h, 16).unwrap() as i64
                } else {
                    // An immediate of a `.u64` operand may exceed i64.
                    s.parse::<i64>()
                        .or_else(|_| s.parse::<u64>().map(|u| u as i64))
                        .unwrap_or_else(|_| panic!("bad operand {s}"))
                }
            };
            let p = |k: usize| *preds.get(a[k].as_str()).expect("predicate written");
            let bracket = |s: &str| s.trim_start_matches('[').trim_end_matches(']').to_string();
            let d = a.first().map(String::as_str).unwrap_or("");
            let val = match op.as_str() {
                "ld.param.s64" => params[bracket(&a[1]).as_str()],
                "st.param.s64" => {
                    let x = v(1, &regs);
                    let mut name = bracket(&a[0]);
                    if name == "ret" {
                        name = "ret+0".into();
                    }
                    let key = self
                        .rets
                        .iter()
                        .find(|r| **r == name)
                        .expect("a return parameter");
                    params.insert(key.as_str(), x);
                    continue;
                }
                "ret" => break,
                "mov.s64" => v(1, &regs),
                "neg.s64" => v(1, &regs).wrapping_neg(),
                "add.s64" => v(1, &regs).wrapping_add(v(2, &regs)),
                "sub.s64" => v(1, &regs).wrapping_sub(v(2, &regs)),
                "mul.lo.s64" => v(1, &regs).wrapping_mul(v(2, &regs)),
                "mul.hi.u64" => {
                    ((u128::from(v(1, &regs) as u64) * u128::from(v(2, &regs) as u64)) >> 64) as i64
                }
                "shr.u64" => ((v(1, &regs) as u64) >> v(2, &regs)) as i64,
                "div.s64" => v(1, &regs).wrapping_div(v(2, &regs)),
                "rem.s64" => v(1, &regs).wrapping_rem(v(2, &regs)),
                "xor.b64" => v(1, &regs) ^ v(2, &regs),
                "and.b64" => v(1, &regs) & v(2, &regs),
                "shl.b64" => v(1, &regs).wrapping_shl(v(2, &regs) as u32),
                "shr.s64" => v(1, &regs) >> v(2, &regs),
                "min.s64" => v(1, &regs).min(v(2, &regs)),
                "max.s64" => v(1, &regs).max(v(2, &regs)),
                "selp.s64" => {
                    if p(3) {
                        v(1, &regs)
                    } else {
                        v(2, &regs)
                    }
                }
                "setp.ne.s64" | "setp.lt.s64" => {
                    let (x, y) = (v(1, &regs), v(2, &regs));
                    preds.insert(d, if op == "setp.ne.s64" { x != y } else { x < y });
                    continue;
                }
                "and.pred" => {
                    let b = p(1) && p(2);
                    preds.insert(d, b);
                    continue;
                }
                other => panic!("{}: the interpreter does not know {other}", self.name),
            };
            regs.insert(d, val);
        }
        self.rets
            .iter()
            .map(|r| {
                *params
                    .get(r.as_str())
                    .unwrap_or_else(|| panic!("{}: {r} never stored", self.name))
            })
            .collect()
    }
}
