//! Programs that call every emitted function at every point of its domain and print the
//! outputs, in C, CUDA-as-C++ and Rust.

use super::cases::Case;
use std::fmt::Write;
use tessera_codegen::{Lang, emit};

/// A C or C++ (CUDA) translation unit: the emitted functions, then `main`.
pub fn c_like(cases: &[Case], lang: Lang) -> String {
    let mut s = match lang {
        Lang::Cuda => {
            "#ifndef __CUDACC__\n#define __device__\n#define __forceinline__\n#endif\n#include <cstdio>\n"
        }
        _ => "#include <stdio.h>\n",
    }
    .to_string();
    for c in cases {
        s.push_str(&emit(&c.expr, lang, &c.sig).unwrap());
        s.push('\n');
    }
    s.push_str("int main(void) {\n");
    for c in cases {
        let _ = writeln!(s, "    printf(\"# {}\\n\");", c.sig.name);
        let mut close = String::new();
        let mut vs = Vec::new();
        for (k, (lo, hi, step)) in c.axes().into_iter().enumerate() {
            let _ = writeln!(s, "    for (int64_t v{k} = {lo}; v{k} <= {hi}; v{k} += {step})");
            vs.push(format!("v{k}"));
        }
        s.push_str("    {\n");
        let n = c.expr.outputs().len();
        let os: Vec<String> = (0..n).map(|k| format!("o{k}")).collect();
        if n == 1 {
            let _ = writeln!(s, "        int64_t o0 = {}({});", c.sig.name, vs.join(", "));
        } else {
            let _ = writeln!(s, "        int64_t {};", os.join(", "));
            let mut a = vs.clone();
            a.extend(os.iter().map(|o| format!("&{o}")));
            let _ = writeln!(s, "        {}({});", c.sig.name, a.join(", "));
        }
        let fmt = vec!["%lld"; n].join(" ");
        let casts: Vec<String> = os.iter().map(|o| format!("(long long){o}")).collect();
        let _ = writeln!(s, "        printf(\"{fmt}\\n\", {});", casts.join(", "));
        close.push_str("    }\n");
        s.push_str(&close);
    }
    s.push_str("    return 0;\n}\n");
    s
}

/// A Rust program: the emitted functions, then `main`.
pub fn rust(cases: &[Case]) -> String {
    let mut s = String::from("use std::io::Write;\n\n");
    for c in cases {
        s.push_str(&emit(&c.expr, Lang::Rust, &c.sig).unwrap());
        s.push('\n');
    }
    s.push_str("fn main() {\n    let stdout = std::io::stdout();\n    let mut out = std::io::BufWriter::new(stdout.lock());\n");
    for c in cases {
        let _ = writeln!(s, "    writeln!(out, \"# {}\").unwrap();", c.sig.name);
        let mut vs = Vec::new();
        let axes = c.axes();
        for (k, (lo, hi, step)) in axes.iter().enumerate() {
            let _ = writeln!(s, "    for v{k} in ({lo}_i64..={hi}).step_by({step}) {{");
            vs.push(format!("v{k}"));
        }
        let n = c.expr.outputs().len();
        let call = format!("{}({})", c.sig.name, vs.join(", "));
        if n == 1 {
            let _ = writeln!(s, "    writeln!(out, \"{{}}\", {call}).unwrap();");
        } else {
            let os: Vec<String> = (0..n).map(|k| format!("o{k}")).collect();
            let _ = writeln!(s, "    let ({}) = {call};", os.join(", "));
            let _ = writeln!(
                s,
                "    writeln!(out, \"{}\", {}).unwrap();",
                vec!["{}"; n].join(" "),
                os.join(", ")
            );
        }
        for _ in &axes {
            s.push_str("    }\n");
        }
    }
    s.push_str("}\n");
    s
}
