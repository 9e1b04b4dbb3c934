//! `composition` and `logical_divide` of the corpus layouts do not touch the heap when the
//! operands and the result have at most 8 leaves (issue 8: the compute path is
//! allocation-free for small layouts). A counting global allocator sees every allocation of
//! this test binary, which holds this one test only.

#![allow(unsafe_code)] // a counting global allocator needs the allocator trait

use serde_json::Value as Json;
use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use tessera::ir::Layout;
use tessera::ir::algebra::{Tiler, composition_tiler, logical_divide};
use tessera::ir::text::{ExprKind, parse_expr};
use tessera::lang::{Env, Value, eval_expr};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: AllocLayout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: AllocLayout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: AllocLayout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn corpus() -> String {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shared = root.join("../shared/corpus/pycute_public.jsonl");
    let path = if shared.exists() {
        shared
    } else {
        root.join("tests/data/pycute_public.jsonl")
    };
    std::fs::read_to_string(path).expect("corpus")
}

/// The `(A, tiler)` arguments of every corpus call to `op`.
fn pairs(text: &str, op: &str) -> Vec<(Layout<i64>, Tiler<i64>)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let j: Json = serde_json::from_str(line).expect("json");
        if j["op"] != op {
            continue;
        }
        let src = j["expr"].as_str().unwrap_or_default();
        let e = parse_expr(src).expect("corpus expression parses");
        let ExprKind::Call(_, args) = &e.kind else {
            continue;
        };
        let env = Env::new();
        let vals: Result<Vec<Value<i64>>, _> = args.iter().map(|a| eval_expr(a, &env, src)).collect();
        let Ok(vals) = vals else { continue };
        if let (Some(Ok(a)), Some(Ok(t))) = (
            vals.first().map(Value::to_layout),
            vals.get(1).map(Value::to_tiler),
        ) {
            out.push((a, t));
        }
    }
    out
}

fn leaves(t: &Tiler<i64>) -> usize {
    match t {
        Tiler::Keep => 0,
        Tiler::Layout(l) => l.flat_shape().len(),
        Tiler::Tuple(ts) => ts.iter().map(leaves).sum(),
    }
}

#[test]
fn small_layouts_compose_and_divide_without_allocating() {
    let text = corpus();
    let mut checked = 0;
    let mut allocating = Vec::new();
    type Op = fn(&Layout<i64>, &Tiler<i64>) -> tessera::ir::Result<Layout<i64>>;
    let ops: [(&str, Op); 2] = [
        ("composition", composition_tiler),
        ("logical_divide", logical_divide),
    ];
    for (name, op) in ops {
        for (a, t) in pairs(&text, name) {
            if a.flat_shape().len() > 8 || leaves(&t) > 8 {
                continue;
            }
            // Errors build a message; only answers are required to be allocation-free.
            let Ok(r) = op(&a, &t) else { continue };
            if r.flat_shape().len() > 8 {
                continue;
            }
            let before = ALLOCATIONS.load(Ordering::Relaxed);
            let r2 = op(&a, &t);
            let n = ALLOCATIONS.load(Ordering::Relaxed) - before;
            drop(r2);
            checked += 1;
            if n > 0 {
                allocating.push(format!("{name}({a}, {t}): {n} allocations"));
            }
        }
    }
    assert!(checked >= 150, "only {checked} cases checked");
    assert!(
        allocating.is_empty(),
        "{} of {checked} allocate: {allocating:#?}",
        allocating.len()
    );
}
