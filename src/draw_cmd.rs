//! `tessera draw`: a layout, a thread-value layout over its tile, or a bank question, drawn
//! by [`crate::draw`] and written as SVG, TikZ, PNG or HTML.
//!
//! ```text
//! tessera draw 'Sw<3,3,3> o (8,64):(64,1)' -o smem.svg
//! tessera draw --tv '((8,4),8):((1,64),8)' --tile '(8,64)' --color thread -o tv.png
//! tessera draw --banks '(8,64):(64,1)' --tv '((8,4),8):((1,64),8)' elem=2 access=16 -o banks.svg
//! ```

use crate::check::props::property;
use crate::draw::{self, Color, DrawError, Picture};
use crate::exit;
use crate::lang::atom_value::AtomValue;
use crate::lang::{Session, Value};
use tessera_verifier::Property;

/// Help of `tessera draw` after its options.
pub const DRAW_HELP: &str = "\
EXAMPLES
  tessera draw '((2,2),(2,4)):((1,8),(2,16))'                 # SVG on stdout
  tessera draw 'Sw<3,3,3> o (8,64):(64,1)' --color bank -o smem.png
  tessera draw '(M,N):(1,M)' --param 'M, N' --bind M=16 --bind N=8 --format tex -o l.tex
  tessera draw --tv '((8,4),8):((1,64),8)' --tile '(8,64)' -o tv.svg
  tessera draw --tv 'make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN, (2,2,1))' -o mma.png
  tessera draw --banks '(8,64):(64,1)' --tv '((8,4),8):((1,64),8)' elem=2 access=16 -o b.svg

  A layout is drawn as CuTe's print_layout: mode 0 down the rows, mode 1 across the columns
  (rank 1: one column, as CuTe's print_latex; higher ranks fold into the columns); each cell
  shows what `tessera eval 'L(i)'` prints for its index i = row + rows * column. Thicker rules separate
  the blocks of hierarchical sub-modes. --tv draws a thread-value layout over its tile (cells
  T{t}V{v}); a tiled MMA given to --tv is drawn as CuTe's print_latex(tiled_mma): A on the
  left, B on top, C in the middle, with CuTe's index labels (no --tile); with --banks, the shared-memory tile coloured by bank, each phase's conflicting
  words outlined and the degree of each phase (the verifier's) in the legend.
  At most 65536 cells: draw a slice (L[0:64, :]) or a tile of a larger layout.
  The format is --format, else the extension of -o (.svg, .tex, .png, .html; any other
  extension is refused), else svg. Exit code 3 on bad input.
";

/// The output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// SVG.
    Svg,
    /// A standalone TikZ document.
    Tex,
    /// PNG.
    Png,
    /// The SVG in an HTML page.
    Html,
}

impl Format {
    /// `svg`, `tex`, `png`, `html` (also `latex`, `htm`).
    pub fn parse(s: &str) -> Option<Format> {
        Some(match s.to_ascii_lowercase().as_str() {
            "svg" => Format::Svg,
            "tex" | "latex" => Format::Tex,
            "png" => Format::Png,
            "html" | "htm" => Format::Html,
            _ => return None,
        })
    }

    /// The picture in this format.
    pub fn render(self, p: &Picture) -> Result<Vec<u8>, DrawError> {
        Ok(match self {
            Format::Svg => p.svg().into_bytes(),
            Format::Tex => p.tex().into_bytes(),
            Format::Png => p.png()?,
            Format::Html => p.html().into_bytes(),
        })
    }
}

/// The arguments of `tessera draw` (its command line).
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct DrawArgs {
    /// The layout, e.g. 'Sw<3,3,3> o (8,64):(64,1)'; with --banks, the keywords elem=BYTES
    /// access=BYTES (as for `prove bank_conflict_free`).
    pub args: Vec<String>,
    /// Write the picture to FILE (default: stdout).
    #[cfg_attr(feature = "cli", arg(short = 'o', long = "output", value_name = "FILE"))]
    pub output: Option<String>,
    /// svg, tex, png or html (default: the extension of -o, else svg).
    #[cfg_attr(feature = "cli", arg(long, value_name = "FORMAT"))]
    pub format: Option<String>,
    /// The colouring: index (grey by offset % 8, the default), bank (bank32), bank8,
    /// bank16, thread (tid % 8, the default with --tv), value, warp, white.
    #[cfg_attr(feature = "cli", arg(long, value_name = "COLORING"))]
    pub color: Option<String>,
    /// A thread-value layout (threads, values) to draw over its tile, or the accesses of
    /// a bank question.
    #[cfg_attr(feature = "cli", arg(long, value_name = "TV"))]
    pub tv: Option<String>,
    /// The (M,N) tile the thread-value layout's offsets fold into (column-major).
    #[cfg_attr(feature = "cli", arg(long, value_name = "(M,N)"))]
    pub tile: Option<String>,
    /// The shared-memory layout of a bank question (with --tv and elem=, access=).
    #[cfg_attr(feature = "cli", arg(long, value_name = "SMEM"))]
    pub banks: Option<String>,
    /// Threads whose elements a bank picture outlines heavily, e.g. 0,8.
    #[cfg_attr(feature = "cli", arg(long, value_name = "T,..", value_delimiter = ','))]
    pub highlight: Vec<i64>,
    /// Declare symbolic parameters (as for eval).
    #[cfg_attr(feature = "cli", arg(long = "param", value_name = "DECL"))]
    pub params: Vec<String>,
    /// Substitute a value for a parameter (every parameter must be bound to draw).
    #[cfg_attr(feature = "cli", arg(long = "bind", value_name = "NAME=VALUE"))]
    pub binds: Vec<String>,
}

/// Whether an argument is a `NAME=VALUE` keyword.
fn keyword(a: &str) -> bool {
    a.split_once('=')
        .is_some_and(|(k, _)| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// An error with its exit code.
type Fail = (i32, String);

/// Bad input with this message.
fn bad(msg: impl Into<String>) -> Fail {
    (exit::BAD_INPUT, msg.into())
}

/// A drawing error with its exit code.
fn failed(e: DrawError) -> Fail {
    (e.exit_code(), e.to_string())
}

/// The picture the arguments ask for.
fn picture(a: &DrawArgs, session: &Session) -> Result<Picture, Fail> {
    let (kws, exprs): (Vec<&String>, Vec<&String>) = a.args.iter().partition(|x| keyword(x));
    let color = a
        .color
        .as_deref()
        .map(str::parse::<Color>)
        .transpose()
        .map_err(bad)?;
    let value = |src: &str| session.value(src).map_err(|e| (exit::of(&e), e.to_string()));
    let drawn = |r: Result<Picture, DrawError>| r.map_err(failed);
    if let Some(smem) = &a.banks {
        let Some(tv) = &a.tv else {
            return Err(bad("--banks needs the thread-value layout: --tv TV"));
        };
        if let Some(e) = exprs.first() {
            return Err(bad(format!(
                "--banks takes its layouts from --banks and --tv, and NAME=VALUE keywords (elem=2 access=16), not '{e}'"
            )));
        }
        if a.tile.is_some() || a.color.is_some() {
            return Err(bad(
                "a bank picture is coloured by bank over the shared-memory tile: no --tile or --color",
            ));
        }
        let mut call = format!("bank_conflict_free({smem}, {tv}");
        for k in &kws {
            call.push_str(", ");
            call.push_str(k);
        }
        call.push(')');
        return match property(&call, 0, session.env()) {
            Ok(Property::BankConflictFree(b)) => drawn(draw::banks(&b, &a.highlight)),
            Ok(_) => Err((exit::INTERNAL, "internal error: not a bank question".into())),
            Err((col, msg)) => Err(bad(format!(
                "{msg}\n  {call}\n  {}^",
                " ".repeat(call.get(..col).map_or(0, |x| x.chars().count()))
            ))),
        };
    }
    if !a.highlight.is_empty() {
        return Err(bad("--highlight names threads of a bank picture (--banks)"));
    }
    // `elem=E` with a bank colouring of a layout: the bank of each element's first word.
    let banked = matches!(color, Some(Color::Bank8 | Color::Bank16 | Color::Bank32));
    let mut elem = 4;
    for k in &kws {
        match k.strip_prefix("elem=").map(str::parse::<i64>) {
            Some(Ok(e)) if banked && a.tv.is_none() => elem = e,
            _ => {
                return Err(bad(format!(
                    "'{k}': NAME=VALUE keywords are for bank pictures (--banks), and elem=E for a \
                     layout coloured by bank (--color bank)"
                )));
            }
        }
    }
    if let Some(tv) = &a.tv {
        if let Some(e) = exprs.first() {
            return Err(bad(format!("--tv draws one layout: '{e}' is one too many")));
        }
        let v = value(tv)?;
        // A tiled MMA: A, B and C together, as CuTe's print_latex(tiled_mma).
        if let Value::Atom(at) = &v
            && let AtomValue::Mma(t) = at.as_ref()
        {
            if a.tile.is_some() {
                return Err(bad(
                    "a tiled MMA's picture takes its tile from tile_size: no --tile",
                ));
            }
            return drawn(draw::mma(t, color.unwrap_or(Color::Thread)));
        }
        let tile = a.tile.as_deref().map(value).transpose()?;
        return drawn(draw::tv(&v, tile.as_ref(), color.unwrap_or(Color::Thread)));
    }
    if a.tile.is_some() {
        return Err(bad(
            "--tile is the tile of a thread-value layout: give it with --tv",
        ));
    }
    match exprs.as_slice() {
        [e] => drawn(draw::layout_of_elements(
            &value(e)?,
            color.unwrap_or(Color::Index),
            elem,
        )),
        [] => Err(bad("give a layout to draw, or --tv TV, or --banks SMEM --tv TV")),
        [_, extra, ..] => Err(bad(format!("one layout at a time: '{extra}' is one too many"))),
    }
}

/// The format: `--format`, else the output's extension, else SVG. An extension that names no
/// format this command writes (`-o out.pdf`, `.jpg`) is refused rather than filled with SVG.
fn format(a: &DrawArgs) -> Result<Format, String> {
    if let Some(f) = &a.format {
        return Format::parse(f).ok_or_else(|| format!("'{f}' is not a format (svg, tex, png, html)"));
    }
    let ext = a
        .output
        .as_deref()
        .and_then(|o| std::path::Path::new(o).extension())
        .and_then(|e| e.to_str());
    match ext {
        None => Ok(Format::Svg),
        Some(e) => Format::parse(&e.to_ascii_lowercase()).ok_or_else(|| {
            format!(
                "-o {}: tessera draw writes svg, tex, png and html, not '.{e}' (name the file \
                 .svg, .tex, .png or .html, or give --format)",
                a.output.as_deref().unwrap_or_default()
            )
        }),
    }
}

/// `tessera draw`: writes the picture and returns the exit code (0, or 3 for bad input, 4
/// for a bug).
pub fn draw(a: &DrawArgs) -> i32 {
    let p: Vec<&str> = a.params.iter().map(String::as_str).collect();
    let b: Vec<&str> = a.binds.iter().map(String::as_str).collect();
    let session = match Session::new(&p, &b) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::of(&e);
        }
    };
    let fmt = match format(a) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::BAD_INPUT;
        }
    };
    let bytes = match picture(a, &session).and_then(|pic| fmt.render(&pic).map_err(failed)) {
        Ok(b) => b,
        Err((code, e)) => {
            eprintln!("error: {e}");
            return code;
        }
    };
    match &a.output {
        Some(path) => match std::fs::write(path, &bytes) {
            Ok(()) => exit::OK,
            Err(e) => {
                eprintln!("error: writing {path}: {e}");
                exit::BAD_INPUT
            }
        },
        None => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            match out.write_all(&bytes).and_then(|()| out.flush()) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    eprintln!("error: writing the output: {e}");
                    exit::BAD_INPUT
                }
                _ => exit::OK,
            }
        }
    }
}
