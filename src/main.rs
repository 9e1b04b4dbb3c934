//! The `tessera` command line.

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use tessera::batch::{self, answer};
use tessera::exit;
use tessera::lang::Session;

#[cfg(test)]
mod flag_conventions;

/// mimalloc: a line of `eval --batch` makes a handful of short-lived allocations, which it
/// serves in about half the instructions of the system allocator.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "tessera", version, about = "A compiler and prover for CuTe-style tensor layouts",
    after_help = tessera::language::expression_help())]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Prove the assertions of check files (*.tess; a directory stands for the *.tess files
    /// directly in it, not in its subdirectories).
    #[command(after_help = tessera::cli::check_help())]
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
        /// Also write a self-contained HTML report to FILE (verdicts by file, counterexamples,
        /// a filter for refuted and unknown assertions; nothing fetched from the network).
        #[arg(long, value_name = "FILE")]
        html: Option<String>,
        /// Time limit per assertion (500ms, 2s, 1m; a bare number is seconds); past it the
        /// assertion is unknown.
        #[arg(long, value_name = "DURATION", default_value = "60", value_parser = tessera::duration::parse_seconds)]
        timeout: f64,
        /// Worker threads, at least 1 (default: every core); --threads is the same flag.
        #[arg(long, short = 'j', visible_alias = "threads", value_name = "N", value_parser = parse_jobs)]
        jobs: Option<usize>,
        /// Provers of `equal` assertions: `auto` (egg rewriting, then normal forms, then z3)
        /// or `z3` (z3 alone, for comparisons).
        #[arg(long, value_name = "auto|z3", default_value = "auto", value_parser = parse_provers)]
        prover: tessera::check::Provers,
        /// The engine of every assertion: `auto` (the portfolio: F2, the structural engine,
        /// enumeration or z3, chosen by cost), or one forced: `enum`, `f2`, `z3`, `structural`.
        #[arg(long, value_name = "auto|enum|f2|z3|structural", default_value = "auto")]
        engine: tessera_verifier::Engine,
    },
    /// Run a kernel of a check file, compiled with Cranelift (or, with --target gpu, as PTX on
    /// a CUDA device), after proving its accesses in bounds and its output written once.
    #[command(after_help = tessera::run::RUN_HELP)]
    Run {
        /// The check file.
        file: String,
        /// The kernel to run.
        #[arg(long, value_name = "NAME")]
        kernel: String,
        /// Substitute a value for a parameter (M=4096, or several: M=4096,N=4096; once per
        /// parameter, checked against its facts).
        #[arg(long = "bind", value_name = "NAME=VALUE")]
        binds: Vec<String>,
        /// A tensor's array from a .npy file (NAME=FILE.npy): its shape and order must be the
        /// layout's (see the help below; --storage reads raw buffers).
        #[arg(long = "input", value_name = "NAME=FILE")]
        inputs: Vec<String>,
        /// Write a tensor's array (its layout's shape, C or Fortran order) to a .npy file
        /// after the run (NAME=FILE.npy; `--output` is a single file in draw and build).
        #[arg(long = "out", value_name = "NAME=FILE")]
        outputs: Vec<String>,
        /// Run even when the proof is unknown (a WARNING says so on stderr).
        #[arg(long)]
        unchecked: bool,
        /// Time limit of each proof obligation (500ms, 2s, 1m; a bare number is seconds).
        #[arg(long, value_name = "DURATION", default_value = "60", value_parser = tessera::duration::parse_seconds)]
        timeout: f64,
        /// Seed of the random values of tensors without --input.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Threads to split the tiles over, at least 1 (default: every core); --threads is the
        /// same flag.
        #[arg(long = "jobs", short = 'j', visible_alias = "threads", value_name = "N", value_parser = parse_jobs)]
        threads: Option<usize>,
        /// Also run the reference interpreter and compare the outputs.
        #[arg(long)]
        verify: bool,
        /// Time the kernel and same-run references; print key=value lines.
        #[arg(long)]
        bench: bool,
        /// Run the reference interpreter only (no compilation); with --target gpu, compare
        /// the GPU's result with the interpreter's instead of the JIT's.
        #[arg(long, conflicts_with_all = ["bench", "verify"])]
        interpret: bool,
        /// Where the kernel runs: cpu (compiled with Cranelift), gpu (its PTX on CUDA
        /// device 0, checked against the CPU; needs a build with `--features cuda`) or ptx-sim
        /// (its PTX in Tessera's PTX interpreter, with the wavefronts it measures).
        #[arg(long, value_name = "TARGET", default_value = "cpu", value_parser = ["cpu", "gpu", "ptx-sim"])]
        target: String,
        /// Read and write .npy files as the tensors' raw buffers (any shape, exactly the
        /// buffer's length, in storage order) instead of arrays by shape and strides.
        #[arg(long)]
        storage: bool,
        /// The most memory the run's buffers may take, in bytes (suffix K, M, G, T); default
        /// half the physical memory.
        #[arg(long = "max-memory", value_name = "BYTES", value_parser = tessera::run::parse_bytes)]
        max_memory: Option<u64>,
        /// Neither read nor write the preparation cache (proofs and validated index code kept
        /// on disk; TESSERA_NO_CACHE=1 does the same).
        #[arg(long = "no-cache")]
        no_cache: bool,
    },
    /// Prove every kernel of a check file, then write it as PTX (`--target ptx`).
    #[command(after_help = tessera::build::BUILD_HELP)]
    Build {
        /// The check file.
        file: String,
        /// Only this kernel.
        #[arg(long, value_name = "NAME")]
        kernel: Option<String>,
        /// The target: ptx.
        #[arg(long, default_value = "ptx")]
        target: String,
        /// The PTX target architecture: sm_70, sm_80 or sm_90.
        #[arg(long, default_value = "sm_80")]
        arch: String,
        /// Write the PTX to this file (default: stdout).
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<String>,
        /// Time limit of each proof obligation (500ms, 2s, 1m; a bare number is seconds).
        #[arg(long, value_name = "DURATION", default_value = "60", value_parser = tessera::duration::parse_seconds)]
        timeout: f64,
        /// Build kernels specialised at these parameter values, e.g. M=4096,N=4096 (checked
        /// against their facts; the proofs then hold for these values only).
        #[arg(long = "bind", value_name = "NAME=VALUE")]
        binds: Vec<String>,
    },
    /// Prove one property, e.g. `tessera prove injective '(4,8):(8,1)'` or
    /// `tessera prove bank_conflict_free 'Sw<3,3,3> o (8,64):(64,1)' '((8,4),8):((1,64),8)' elem=2 access=16`.
    Prove {
        /// The property (injective, bijective, equal, bank_conflict_free, conflict_degree, ...).
        property: String,
        /// Its arguments: expressions, and NAME=VALUE keywords (elem=2 access=16). Flags may
        /// follow them, so an argument that starts with '-' comes after '--'.
        #[arg(required = true)]
        args: Vec<String>,
        /// Declare symbolic parameters (as for eval).
        #[arg(long = "param", value_name = "DECL")]
        params: Vec<String>,
        /// Time limit (500ms, 2s, 1m; a bare number is seconds); past it the answer is unknown.
        #[arg(long, value_name = "DURATION", default_value = "60", value_parser = tessera::duration::parse_seconds)]
        timeout: f64,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
        /// The engine: `auto` (chosen by cost), or one forced: `enum`, `f2`, `z3`,
        /// `structural`.
        #[arg(long, value_name = "auto|enum|f2|z3|structural", default_value = "auto")]
        engine: tessera_verifier::Engine,
    },
    /// Draw a layout as CuTe's print_layout grid (or a thread-value layout over its tile, or a
    /// bank question), as SVG, TikZ (tex), PNG or HTML.
    #[command(after_help = tessera::draw_cmd::DRAW_HELP)]
    Draw(tessera::draw_cmd::DrawArgs),
    /// Suggest the swizzle (or row padding) of a plain shared-memory layout that makes the
    /// given accesses free of bank conflicts, proved, with the check-file lines asserting it.
    #[command(after_help = tessera::suggest_cmd::SUGGEST_HELP)]
    Suggest(tessera::suggest_cmd::SuggestArgs),
    /// Evaluate an expression of the layout algebra and print the result.
    #[command(after_help = tessera::language::expression_help())]
    Eval {
        /// The expression, e.g. 'logical_divide(24:1, 4:2)'; it may start with '-' ('-4:1').
        expr: Option<String>,
        /// Answer one line per input line of FILE ('-' for stdin): the result or 'error: ...'
        /// (also for a line that is not UTF-8 or is longer than 1 MiB). Exits 0 once every
        /// line is answered (errors are answers) or the reader of the output goes away, 3 when
        /// FILE cannot be read.
        #[arg(long, value_name = "FILE", conflicts_with = "expr")]
        batch: Option<String>,
        /// Print every built-in function with its arguments and what it computes.
        #[arg(long, conflicts_with_all = ["expr", "batch"])]
        functions: bool,
        /// Threads answering --batch lines, at least 1 (default: every core); answers keep
        /// the order of the input; --threads is the same flag.
        #[arg(long, short = 'j', visible_alias = "threads", value_name = "N", value_parser = parse_jobs)]
        jobs: Option<usize>,
        /// Declare symbolic parameters with facts, e.g. 'M where M % 128 == 0, M <= 65536'
        /// or 'M, N'. Extents are at least 1 unless stated otherwise.
        #[arg(long = "param", value_name = "DECL")]
        params: Vec<String>,
        /// Substitute a value for a declared parameter, e.g. M=256, or several, M=256,N=8
        /// (once per parameter, checked against its facts).
        #[arg(long = "bind", value_name = "NAME=VALUE")]
        binds: Vec<String>,
    },
    /// Simplify the index arithmetic of a layout (or of an index expression such as
    /// '(i % 4) * 8 + i / 4' with --range i=0..31) with egg, and prove the result equal to the
    /// input on the whole domain with z3 (else the input is kept). Prints both with their costs.
    Simplify {
        /// The expression: a layout, a swizzled layout, a symbolic integer, or an index
        /// expression over i, c0, c1, ... and declared parameters.
        expr: String,
        /// Lower as a function of the flat coordinates c0, c1, ... instead of the index i.
        #[arg(long)]
        coords: bool,
        /// Declare symbolic parameters (as for eval).
        #[arg(long = "param", value_name = "DECL")]
        params: Vec<String>,
        /// Substitute a value for a parameter (M=256, or several: M=256,N=8).
        #[arg(long = "bind", value_name = "NAME=VALUE")]
        binds: Vec<String>,
        /// The range of an index expression's input, e.g. i=0..511 (once per input).
        #[arg(long = "range", value_name = "NAME=LO..HI")]
        ranges: Vec<String>,
        /// Skip the validation: for benchmarks only, the result is then unproved.
        #[arg(long)]
        no_validate: bool,
        /// An outer safety limit on the validation (500ms, 2s, 1m; a bare number is seconds;
        /// default 60s): past it the command fails. What is validated is decided by counted
        /// limits (z3's resource limit, the enumeration's point count), the same on an idle and
        /// a loaded machine.
        #[arg(long, value_name = "DURATION", value_parser = tessera::duration::parse_millis)]
        timeout: Option<u64>,
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
        /// Substitute a value for a parameter (M=256, or several: M=256,N=8).
        #[arg(long = "bind", value_name = "NAME=VALUE")]
        binds: Vec<String>,
    },
    /// Emit the index function of a layout (or a swizzled layout, or a symbolic integer) as C,
    /// CUDA, Rust or PTX: a self-contained function of the index (or of the coordinates) and the
    /// parameters, with the facts it assumes stated in a comment and checked in debug builds.
    Emit {
        /// The expression, e.g. '(4,8):(8,1)' or 'Sw<3,3,3> o (8,64):(64,1)'.
        expr: String,
        /// The language: c, rust, cuda or ptx.
        #[arg(long, value_name = "LANG", value_parser = parse_lang)]
        lang: tessera::codegen::Lang,
        /// The function's name (an identifier; converted to snake case for Rust).
        #[arg(long, value_name = "NAME", default_value = tessera::emit::DEFAULT_NAME)]
        name: String,
        /// A function of the flat coordinates c0, c1, ... instead of the index i.
        #[arg(long)]
        coords: bool,
        /// Declare symbolic parameters (as for eval): they become arguments, their facts
        /// assumptions.
        #[arg(long = "param", value_name = "DECL")]
        params: Vec<String>,
        /// Substitute a value for a parameter (M=256, or several: M=256,N=8).
        #[arg(long = "bind", value_name = "NAME=VALUE")]
        binds: Vec<String>,
        /// The range of an index expression's input, e.g. i=0..511 (once per input).
        #[arg(long = "range", value_name = "NAME=LO..HI")]
        ranges: Vec<String>,
        /// Emit the lowering as it is, without the simplifier.
        #[arg(long)]
        no_simplify: bool,
        /// Skip the validation of the simplification: for benchmarks only.
        #[arg(long)]
        no_validate: bool,
        /// An outer safety limit on the validation (500ms, 2s, 1m; a bare number is seconds;
        /// default 60s): past it the command fails, never emits other code. What is emitted is
        /// decided by counted limits (egg's nodes and iterations, z3's resource limit), the same
        /// on any machine.
        #[arg(long, value_name = "DURATION", value_parser = tessera::duration::parse_millis)]
        timeout: Option<u64>,
    },
}

/// `--lang`: one of the code generators' languages.
fn parse_lang(s: &str) -> Result<tessera::codegen::Lang, String> {
    s.parse().map_err(|e: tessera::codegen::EmitError| e.to_string())
}

/// `--prover auto|z3`.
fn parse_provers(s: &str) -> Result<tessera::check::Provers, String> {
    match s {
        "auto" => Ok(tessera::check::Provers::All),
        "z3" => Ok(tessera::check::Provers::Z3),
        _ => Err(format!("'{s}' is not a prover choice (auto or z3)")),
    }
}

/// `--prover` and `--engine` together: `--prover z3` is `--engine z3`, and it cannot be
/// combined with another engine.
fn engines(
    prover: tessera::check::Provers,
    engine: tessera_verifier::Engine,
) -> Result<tessera::check::Provers, String> {
    match (prover, tessera::check::Provers::engine(engine)) {
        (tessera::check::Provers::All, p) => Ok(p),
        (p, tessera::check::Provers::All) => Ok(p),
        (p, q) if p == q => Ok(p),
        _ => Err(format!(
            "--prover z3 and --engine {engine} choose different engines"
        )),
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

/// The command line with an `eval`, `lower`, `simplify` or `emit` expression that starts with `-` (`-4:1`,
/// `-(2+3)`, `-M`) moved after a `--`, so that it is not taken for a flag while the short
/// flags (`-j2`, `-h`) keep their meaning. An argument counts as such an expression when it
/// starts with `-`, is not `--...`, `-h` or `-j...`, and is not the value of an option.
fn hyphen_expressions(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    const TAKES_VALUE: [&str; 11] = [
        "--batch",
        "--threads",
        "--param",
        "--bind",
        "-j",
        "--jobs",
        "--timeout",
        "--lang",
        "--name",
        "--range",
        "--prover",
    ];
    let Some(sub) = args
        .iter()
        .position(|a| a == "eval" || a == "lower" || a == "simplify" || a == "emit")
    else {
        return args;
    };
    if args.iter().any(|a| a == "--") {
        return args;
    }
    let found = (sub + 1..args.len()).find(|&k| {
        let a = args[k].to_string_lossy();
        let b = a.as_bytes();
        let after_option = TAKES_VALUE.contains(&args[k - 1].to_string_lossy().as_ref());
        let flag = b.starts_with(b"--") || b == b"-h" || b.starts_with(b"-j");
        !after_option && !flag && b.len() > 1 && b[0] == b'-'
    });
    if let Some(k) = found {
        let e = args.remove(k);
        args.push("--".into());
        args.push(e);
    }
    args
}

/// `--elem 2` or `--access=16` given to `prove` or `draw` (`--elem` to `suggest`), whose element and access
/// sizes are the property's keyword arguments: the message with the exact text to write
/// (`elem=2`), instead of clap's advice to pass `--elem` after `--`.
fn keyword_flag(args: &[std::ffi::OsString]) -> Option<String> {
    // The subcommand is the first argument (tessera has no global flags but --help and
    // --version).
    let sub = 1;
    let name = args.get(sub)?;
    if name != "prove" && name != "draw" && name != "suggest" {
        return None;
    }
    (sub + 1..args.len()).find_map(|k| {
        let a = args[k].to_string_lossy();
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) => (n.to_string(), Some(v.to_string())),
            None => (a.to_string(), None),
        };
        let key = name.strip_prefix("--")?;
        // `suggest --access TV` is an access pattern: there only `--elem` is a mistake.
        if key != "elem" && (key != "access" || args[sub] == "suggest") {
            return None;
        }
        let value = inline
            .or_else(|| args.get(k + 1).map(|v| v.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "N".into());
        Some(format!(
            "'{a}' is not a flag: the element and access sizes are keyword arguments of the \
             bank question, written without dashes: {key}={value}"
        ))
    })
}

fn main() -> ExitCode {
    let args = hyphen_expressions(std::env::args_os().collect());
    if let Some(msg) = keyword_flag(&args) {
        eprintln!("error: {msg}");
        return ExitCode::from(exit::BAD_INPUT as u8);
    }
    let cli = match Cli::try_parse_from(args) {
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
        Cmd::Eval { functions: true, .. } => {
            print!("{}", tessera::lang::builtins::reference_text());
            exit::OK
        }
        Cmd::Eval {
            expr,
            batch,
            jobs,
            params,
            binds,
            ..
        } => {
            let p: Vec<&str> = params.iter().map(String::as_str).collect();
            let b: Vec<&str> = binds.iter().map(String::as_str).collect();
            match Session::new(&p, &b) {
                Ok(session) => eval_cmd(&session, expr, batch, jobs),
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
            html,
            timeout,
            jobs,
            prover,
            engine,
        } => match engines(prover, engine) {
            Err(e) => {
                eprintln!("error: {e}");
                exit::BAD_INPUT
            }
            Ok(provers) => tessera::cli::check(
                &paths,
                tessera::cli::Reports {
                    json,
                    junit: junit.as_deref(),
                    html: html.as_deref(),
                },
                timeout,
                jobs,
                provers,
            ),
        },
        Cmd::Run {
            file,
            kernel,
            binds,
            inputs,
            outputs,
            unchecked,
            timeout,
            seed,
            threads,
            verify,
            bench,
            interpret,
            target,
            storage,
            max_memory,
            no_cache,
        } => tessera::run::run_kernel(&tessera::run::RunArgs {
            file: &file,
            kernel: &kernel,
            binds: &binds,
            inputs: &inputs,
            outputs: &outputs,
            unchecked,
            timeout,
            seed,
            threads,
            verify,
            bench,
            interpret,
            gpu: target == "gpu",
            ptx_sim: target == "ptx-sim",
            storage,
            max_memory,
            no_cache,
        }),
        Cmd::Build {
            file,
            kernel,
            target,
            arch,
            output,
            timeout,
            binds,
        } => tessera::build::build(&tessera::build::BuildArgs {
            file: &file,
            kernel: kernel.as_deref(),
            target: &target,
            arch: &arch,
            output: output.as_deref(),
            timeout,
            binds: &binds,
        }),
        Cmd::Prove {
            property,
            args,
            params,
            timeout,
            json,
            engine,
        } => match check_prove_args(&property, &args, &params) {
            Ok(()) => tessera::cli::prove(
                &property,
                &args,
                &params,
                timeout,
                json,
                tessera::check::Provers::engine(engine),
            ),
            Err(e) => {
                eprintln!("error: {e}");
                exit::BAD_INPUT
            }
        },
        Cmd::Draw(a) => tessera::draw_cmd::draw(&a),
        Cmd::Suggest(a) => tessera::suggest_cmd::suggest(&a),
        Cmd::Simplify {
            expr,
            coords,
            params,
            binds,
            ranges,
            no_validate,
            timeout,
        } => {
            let req = tessera::simplify::Request {
                coords,
                ranges,
                no_validate,
                timeout_ms: timeout,
            };
            print_from_session(
                &params,
                &binds,
                |s| tessera::simplify::simplify_text(s, &expr, &req),
                exit::of,
            )
        }
        Cmd::Lower {
            expr,
            coords,
            params,
            binds,
        } => print_from_session(
            &params,
            &binds,
            |s| tessera::lower::lower_text(s, &expr, coords),
            exit::of,
        ),
        Cmd::Emit {
            expr,
            lang,
            name,
            coords,
            params,
            binds,
            ranges,
            no_simplify,
            no_validate,
            timeout,
        } => {
            let opts = tessera::emit::Options {
                request: tessera::simplify::Request {
                    coords,
                    ranges,
                    no_validate,
                    timeout_ms: timeout,
                },
                no_simplify,
            };
            print_from_session(
                &params,
                &binds,
                |s| tessera::emit::emit_with(s, &expr, lang, &name, &opts),
                tessera::emit::EmitTextError::exit_code,
            )
        }
    }
}

/// A command that prints one text computed in a session of `--param` declarations and
/// `--bind` values (`lower`, `simplify`, `emit`): the text and exit code 0, or the error on
/// stderr and its exit code.
fn print_from_session<E: std::fmt::Display + From<tessera::ir::Error>>(
    params: &[String],
    binds: &[String],
    run: impl FnOnce(&Session) -> Result<String, E>,
    code: impl FnOnce(&E) -> i32,
) -> i32 {
    let p: Vec<&str> = params.iter().map(String::as_str).collect();
    let b: Vec<&str> = binds.iter().map(String::as_str).collect();
    match Session::new(&p, &b).map_err(E::from).and_then(|s| run(&s)) {
        Ok(text) => {
            exit::print(&text);
            exit::OK
        }
        Err(e) => {
            eprintln!("error: {e}");
            code(&e)
        }
    }
}

fn eval_cmd(session: &Session, expr: Option<String>, batch: Option<String>, jobs: Option<usize>) -> i32 {
    match (expr, batch) {
        (_, Some(path)) => {
            let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            batch::run(session, &path, jobs)
        }
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
