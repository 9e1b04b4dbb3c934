//! The `tessera` command line.

use clap::{Parser, Subcommand};
use std::io::{BufRead, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;
use tessera::exit;
use tessera::ir::eval::Session;

#[derive(Parser)]
#[command(name = "tessera", version, about = "A compiler and prover for CuTe-style tensor layouts",
    after_help = tessera::language::EXPRESSION_HELP)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Prove the assertions of check files (*.tess; directories are searched for them).
    #[command(after_help = tessera::cli::CHECK_HELP)]
    Check {
        /// Check files or directories.
        #[arg(required = true)]
        paths: Vec<String>,
        /// Print the results as JSON on stdout.
        #[arg(long)]
        json: bool,
        /// Also write a JUnit XML report to FILE.
        #[arg(long, value_name = "FILE")]
        junit: Option<String>,
        /// Time limit per assertion, in seconds (positive); past it the assertion is unknown.
        #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
        timeout: f64,
        /// Worker threads (default: every core).
        #[arg(long, short = 'j')]
        jobs: Option<usize>,
    },
    /// Prove one property, e.g. `tessera prove injective '(4,8):(8,1)'` or
    /// `tessera prove bank_conflict_free 'Sw<3,3,3> o (8,64):(64,1)' '((8,4),8):((1,64),8)' elem=2 access=16`.
    Prove {
        /// The property (injective, bijective, equal, bank_conflict_free, conflict_degree, ...).
        property: String,
        /// Its arguments: expressions, and NAME=VALUE keywords (elem=2 access=16).
        #[arg(required = true)]
        args: Vec<String>,
        /// Declare symbolic parameters (as for eval).
        #[arg(long = "param", value_name = "DECL")]
        params: Vec<String>,
        /// Time limit, in seconds (positive); past it the answer is unknown.
        #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
        timeout: f64,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Evaluate an expression of the layout algebra and print the result.
    #[command(after_help = tessera::language::EXPRESSION_HELP)]
    Eval {
        /// The expression, e.g. 'logical_divide(24:1, 4:2)'.
        expr: Option<String>,
        /// Answer one line per input line of FILE ('-' for stdin): the result or 'error: ...'.
        /// Exits 0 once every line is answered (errors are answers), 3 when FILE cannot be read.
        #[arg(long, value_name = "FILE", conflicts_with = "expr")]
        batch: Option<String>,
        /// Declare symbolic parameters with facts, e.g. 'M where M % 128 == 0, M <= 65536'
        /// or 'M, N'. Extents are at least 1 unless stated otherwise.
        #[arg(long = "param", value_name = "DECL")]
        params: Vec<String>,
        /// Substitute a value for a parameter, e.g. M=256 (checked against its facts).
        #[arg(long = "bind", value_name = "NAME=VALUE")]
        binds: Vec<String>,
    },
    /// Lower a layout (or a swizzled layout, or a symbolic integer) to index arithmetic,
    /// printed one let-binding per line.
    Lower {
        /// The expression, e.g. '(4,8):(8,1)' or 'Sw<3,3,3> o (8,64):(64,1)'.
        expr: String,
        /// Lower as a function of the flat coordinates c0, c1, ... instead of the index i.
        #[arg(long)]
        coords: bool,
        /// Declare symbolic parameters (as for eval).
        #[arg(long = "param", value_name = "DECL")]
        params: Vec<String>,
        /// Substitute a value for a parameter.
        #[arg(long = "bind", value_name = "NAME=VALUE")]
        binds: Vec<String>,
    },
}

/// Evaluates one line, turning a panic (a bug) into an internal error.
fn answer(session: &Session, line: &str) -> Result<String, (i32, String)> {
    match catch_unwind(AssertUnwindSafe(|| session.eval(line))) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err((exit::BAD_INPUT, e.to_string())),
        Err(_) => Err((
            exit::INTERNAL,
            format!("internal error while evaluating '{line}'"),
        )),
    }
}

fn run_batch(session: &Session, path: &str) -> i32 {
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
            match answer(session, text) {
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
        Cmd::Eval {
            expr,
            batch,
            params,
            binds,
        } => {
            let p: Vec<&str> = params.iter().map(String::as_str).collect();
            let b: Vec<&str> = binds.iter().map(String::as_str).collect();
            match Session::new(&p, &b) {
                Ok(session) => eval_cmd(&session, expr, batch),
                Err(e) => {
                    eprintln!("error: {e}");
                    exit::BAD_INPUT
                }
            }
        }
        Cmd::Check {
            paths,
            json,
            junit,
            timeout,
            jobs,
        } => tessera::cli::check(&paths, json, junit.as_deref(), timeout, jobs),
        Cmd::Prove {
            property,
            args,
            params,
            timeout,
            json,
        } => tessera::cli::prove(&property, &args, &params, timeout, json),
        Cmd::Lower {
            expr,
            coords,
            params,
            binds,
        } => {
            let p: Vec<&str> = params.iter().map(String::as_str).collect();
            let b: Vec<&str> = binds.iter().map(String::as_str).collect();
            match Session::new(&p, &b).and_then(|s| tessera::lower::lower_text(&s, &expr, coords)) {
                Ok(text) => {
                    print!("{text}");
                    exit::OK
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    exit::BAD_INPUT
                }
            }
        }
    };
    ExitCode::from(code as u8)
}

fn eval_cmd(session: &Session, expr: Option<String>, batch: Option<String>) -> i32 {
    match (expr, batch) {
        (_, Some(path)) => run_batch(session, &path),
        (Some(e), None) => match answer(session, &e) {
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
    }
}
