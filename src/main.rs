//! The `tessera` command line.

use clap::{Parser, Subcommand};
use std::io::{BufRead, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;
use tessera::exit;
use tessera::ir::eval_str;

#[derive(Parser)]
#[command(name = "tessera", version, about = "A compiler and prover for CuTe-style tensor layouts",
    after_help = tessera::language::EXPRESSION_HELP)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Evaluate an expression of the layout algebra and print the result.
    #[command(after_help = tessera::language::EXPRESSION_HELP)]
    Eval {
        /// The expression, e.g. 'logical_divide(24:1, 4:2)'.
        expr: Option<String>,
        /// Answer one line per input line of FILE ('-' for stdin): the result or 'error: ...'.
        /// Exits 0 once every line is answered (errors are answers), 3 when FILE cannot be read.
        #[arg(long, value_name = "FILE", conflicts_with = "expr")]
        batch: Option<String>,
    },
}

/// Evaluates one line, turning a panic (a bug) into an internal error.
fn answer(line: &str) -> Result<String, (i32, String)> {
    match catch_unwind(AssertUnwindSafe(|| eval_str(line))) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err((exit::BAD_INPUT, e.to_string())),
        Err(_) => Err((
            exit::INTERNAL,
            format!("internal error while evaluating '{line}'"),
        )),
    }
}

fn run_batch(path: &str) -> i32 {
    let reader: Box<dyn BufRead> = if path == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        match std::fs::File::open(path) {
            Ok(f) => Box::new(std::io::BufReader::new(f)),
            Err(e) => {
                eprintln!("error: cannot read {path}: {e}");
                return exit::BAD_INPUT;
            }
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut code = exit::OK;
    for line in reader.lines() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("error: reading {path}: {e}");
                return exit::BAD_INPUT;
            }
        };
        let text = line.trim();
        let reply = if text.is_empty() || text.starts_with('#') {
            String::new()
        } else {
            match answer(text) {
                Ok(v) => v,
                Err((c, msg)) => {
                    if c == exit::INTERNAL {
                        code = exit::INTERNAL;
                    }
                    // One line per input line: fold a multi-line message.
                    format!("error: {}", msg.replace('\n', " | "))
                }
            }
        };
        if writeln!(out, "{reply}").is_err() {
            return exit::INTERNAL;
        }
    }
    if out.flush().is_err() {
        return exit::INTERNAL;
    }
    code
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.cmd {
        Cmd::Eval { expr, batch } => match (expr, batch) {
            (_, Some(path)) => run_batch(&path),
            (Some(e), None) => match answer(&e) {
                Ok(v) => {
                    println!("{v}");
                    exit::OK
                }
                Err((c, msg)) => {
                    eprintln!("error: {msg}");
                    c
                }
            },
            (None, None) => {
                eprintln!("error: give an expression or --batch FILE");
                exit::BAD_INPUT
            }
        },
    };
    ExitCode::from(code as u8)
}
