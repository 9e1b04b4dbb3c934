//! The `tessera` command line.

use clap::{Parser, Subcommand};
use std::io::{BufRead, ErrorKind, Write};
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
        /// z3's time limit per query, in seconds; a timeout makes the assertion unknown.
        #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
        timeout: f64,
        /// Worker threads, at least 1 (default: every core).
        #[arg(long, short = 'j', value_name = "N", value_parser = parse_jobs)]
        jobs: Option<usize>,
    },
    /// Prove one property, e.g. `tessera prove injective '(4,8):(8,1)'` or
    /// `tessera prove bank_conflict_free 'Sw<3,3,3> o (8,64):(64,1)' '((8,4),8):((1,64),8)' elem=2 access=16`.
    Prove {
        /// The property (injective, bijective, equal, bank_conflict_free, conflict_degree, ...).
        property: String,
        /// Its arguments: expressions, and NAME=VALUE keywords (elem=2 access=16).
        #[arg(required = true, allow_hyphen_values = true)]
        args: Vec<String>,
        /// Declare symbolic parameters (as for eval).
        #[arg(long = "param", value_name = "DECL")]
        params: Vec<String>,
        /// z3's time limit, in seconds.
        #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
        timeout: f64,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Evaluate an expression of the layout algebra and print the result.
    #[command(after_help = tessera::language::EXPRESSION_HELP)]
    Eval {
        /// The expression, e.g. 'logical_divide(24:1, 4:2)'; it may start with '-' ('-4:1').
        #[arg(allow_hyphen_values = true)]
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
        #[arg(allow_hyphen_values = true)]
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

/// Longest line `--batch` reads (the longest expression the parser accepts). A longer line is
/// answered with an error and skipped up to its newline without being stored.
const MAX_LINE: usize = tessera::ir::text::MAX_SOURCE_LEN;

/// One line of a `--batch` input.
enum Line {
    /// The line's bytes, without its newline.
    Text,
    /// A line longer than [`MAX_LINE`]; its bytes were skipped.
    Overlong,
}

/// Reads `--batch` input line by line as bytes, in bounded memory.
struct BatchReader {
    inner: Box<dyn BufRead>,
    /// The reader's buffer is empty: the next read may block, so answers are flushed first.
    drained: bool,
}

impl BatchReader {
    /// The next line into `buf`, or `None` at the end of the input.
    fn next_line(&mut self, buf: &mut Vec<u8>) -> std::io::Result<Option<Line>> {
        buf.clear();
        let mut overlong = false;
        let mut any = false;
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                self.drained = true;
                return Ok(any.then_some(if overlong { Line::Overlong } else { Line::Text }));
            }
            any = true;
            let newline = chunk.iter().position(|&b| b == b'\n');
            let part = &chunk[..newline.unwrap_or(chunk.len())];
            if !overlong && buf.len() + part.len() > MAX_LINE {
                overlong = true;
                buf.clear();
                buf.shrink_to(MAX_LINE);
            }
            if !overlong {
                buf.extend_from_slice(part);
            }
            let used = newline.map_or(chunk.len(), |k| k + 1);
            self.drained = used == chunk.len();
            self.inner.consume(used);
            if newline.is_some() {
                return Ok(Some(if overlong { Line::Overlong } else { Line::Text }));
            }
        }
    }
}

/// The answer to one `--batch` line.
fn batch_reply(session: &Session, line: Line, bytes: &[u8], code: &mut i32) -> String {
    let raw = match (line, std::str::from_utf8(bytes)) {
        (Line::Overlong, _) => {
            return format!("error: line longer than {MAX_LINE} bytes (1 MiB); skipped");
        }
        (Line::Text, Err(e)) => {
            return format!(
                "error: line is not valid UTF-8 (invalid byte at column {})",
                e.valid_up_to() + 1
            );
        }
        (Line::Text, Ok(t)) => t,
    };
    let text = raw.trim();
    if text.is_empty() || text.starts_with('#') {
        return String::new();
    }
    match answer(session, text) {
        Ok(v) => v,
        Err((c, msg)) => {
            if c == exit::INTERNAL {
                *code = exit::INTERNAL;
            }
            // One line per input line: fold a multi-line message.
            format!("error: {}", msg.replace('\n', " | "))
        }
    }
}

/// `tessera eval --batch PATH`: one answer line per input line. The end of the input, or a
/// reader of the output that went away (a closed pipe), ends the run normally.
fn run_batch(session: &Session, path: &str) -> i32 {
    let inner: Box<dyn BufRead> = if path == "-" {
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
    let mut reader = BatchReader { inner, drained: true };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut code = exit::OK;
    let mut buf = Vec::new();
    let written = loop {
        // Answers reach a reader that waits for them before it sends the next line.
        if reader.drained
            && let Err(e) = out.flush()
        {
            break Err(e);
        }
        let line = match reader.next_line(&mut buf) {
            Ok(Some(l)) => l,
            Ok(None) => break out.flush(),
            Err(e) => {
                let _ = out.flush();
                eprintln!("error: reading {path}: {e}");
                return exit::BAD_INPUT;
            }
        };
        let reply = batch_reply(session, line, &buf, &mut code);
        if let Err(e) = writeln!(out, "{reply}") {
            break Err(e);
        }
    };
    match written {
        Ok(()) => code,
        // The reader of the output has gone (`... | head -1`): a normal end.
        Err(e) if e.kind() == ErrorKind::BrokenPipe => code,
        Err(e) => {
            eprintln!("error: writing the answers: {e}");
            exit::INTERNAL
        }
    }
}

/// `-j N`: a positive number of worker threads.
fn parse_jobs(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1 (leave -j out to use every core)".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("'{s}' is not a number of threads")),
    }
}

/// The arguments of `tessera prove` become one assertion; a line break in one would make more.
fn check_prove_args(property: &str, args: &[String], params: &[String]) -> Result<(), String> {
    if property.is_empty() || !property.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!(
            "'{property}' is not a property name (injective, bank_conflict_free, ...)"
        ));
    }
    for a in args.iter().chain(params) {
        if a.contains(['\n', '\r']) {
            return Err(format!(
                "an argument contains a line break: {a:?}; give each expression on one line"
            ));
        }
    }
    Ok(())
}

/// Stack of the thread that runs a command. The parser bounds nesting (128 levels) and the
/// evaluator recurses only along it, which a debug build fits in a few MiB; the margin keeps a
/// deep expression an error message, never an abort. Untouched stack costs no memory.
const STACK: usize = 256 << 20;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // Usage errors (unknown flag, bad value, missing argument) are bad input, exit 3;
            // clap's own code 2 means "unknown" here.
            let code = match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => exit::OK,
                _ => exit::BAD_INPUT,
            };
            let _ = e.print();
            return ExitCode::from(code as u8);
        }
    };
    let worker = std::thread::Builder::new()
        .name("tessera".into())
        .stack_size(STACK)
        .spawn(move || run(cli));
    let code = match worker {
        Ok(h) => h.join().unwrap_or(exit::INTERNAL),
        Err(_) => {
            eprintln!("error: cannot start the worker thread");
            exit::INTERNAL
        }
    };
    ExitCode::from(code as u8)
}

fn run(cli: Cli) -> i32 {
    match cli.cmd {
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
        } => match check_prove_args(&property, &args, &params) {
            Ok(()) => tessera::cli::prove(&property, &args, &params, timeout, json),
            Err(e) => {
                eprintln!("error: {e}");
                exit::BAD_INPUT
            }
        },
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
                    exit::print(&text);
                    exit::OK
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    exit::BAD_INPUT
                }
            }
        }
    }
}

fn eval_cmd(session: &Session, expr: Option<String>, batch: Option<String>) -> i32 {
    match (expr, batch) {
        (_, Some(path)) => run_batch(session, &path),
        (Some(e), None) => match answer(session, &e) {
            Ok(v) => {
                exit::print(&format!("{v}\n"));
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
