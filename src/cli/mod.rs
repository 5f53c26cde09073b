//! The driver: parses the command line, runs the stages in order, prints results and
//! diagnostics, and maps outcomes to exit codes.
//!
//! Exit codes: 0 success; 1 the input was refused (diagnostics printed); 2 a usage error
//! (bad command line); 3 an internal error (a bug in gpucc).

mod report;

use crate::deps::{self, Dependences};
use crate::diag::{self, Diagnostic, Diagnostics, Severity, SourceFile, SourceMap};
use crate::frontend::{self, FrontendOptions};
use crate::poly::{self, Program};
use clap::{Args, Parser, Subcommand};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

pub const EXIT_OK: i32 = 0;
pub const EXIT_USER_ERROR: i32 = 1;
pub const EXIT_USAGE: i32 = 2;
pub const EXIT_INTERNAL: i32 = 3;

/// gpucc: a polyhedral compiler from sequential C loop nests to CUDA.
#[derive(Parser, Debug)]
#[command(name = "gpucc", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Show the loops (parallel, reduction or sequential), statements and dependences of
    /// the code gpucc would compile.
    Deps(DepsArgs),
}

/// Which code to read and how.
#[derive(Args, Debug)]
struct InputArgs {
    /// The C file.
    file: PathBuf,
    /// Compile this function (default: every `#pragma scop` region, else the file's only
    /// function).
    #[arg(long, value_name = "NAME")]
    function: Option<String>,
    /// Define a macro, overriding the file's `#define` of the same name (`-D N=64`).
    #[arg(short = 'D', value_name = "NAME=VALUE", value_parser = parse_define)]
    define: Vec<(String, String)>,
    /// Add a directory to the include path, for macros defined in headers.
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
}

#[derive(Args, Debug)]
struct DepsArgs {
    #[command(flatten)]
    input: InputArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Also list input (read-after-read) dependences in the text report; JSON always
    /// has them.
    #[arg(long = "input")]
    show_input: bool,
}

fn parse_define(text: &str) -> Result<(String, String), String> {
    let (name, value) = text.split_once('=').unwrap_or((text, "1"));
    let valid = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if valid {
        Ok((name.to_string(), value.to_string()))
    } else {
        Err(format!(
            "`{name}` is not a macro name (expected NAME=VALUE)"
        ))
    }
}

/// Runs gpucc with the process's arguments and standard streams; returns the exit code.
pub fn main() -> i32 {
    let args: Vec<String> = std::env::args().collect();
    let color = std::io::stderr().is_terminal();
    let code = run(
        &args,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
        color,
    );
    let _ = std::io::stdout().flush();
    code
}

/// Runs gpucc with `args` (the first is the program name), writing results to `out` and
/// diagnostics to `err`; returns the exit code.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write, color: bool) -> i32 {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { EXIT_OK };
            let text = if color {
                e.render().ansi().to_string()
            } else {
                e.render().to_string()
            };
            let target: &mut dyn Write = if e.use_stderr() { err } else { out };
            let _ = write!(target, "{text}");
            return code;
        }
    };
    match cli.command {
        Command::Deps(a) => deps_command(&a, out, err, color),
    }
}

/// The result of the front half of the pipeline on one file.
struct Analysis {
    sources: SourceMap,
    file_name: String,
    programs: Vec<(Program, Dependences)>,
}

/// Reads the file and runs frontend → poly → deps on every unit.
fn analyze(input: &InputArgs) -> Result<Analysis, (SourceMap, Diagnostics)> {
    let mut sources = SourceMap::default();
    let file_name = input.file.display().to_string();
    let bytes = match std::fs::read(&input.file) {
        Ok(b) => b,
        Err(e) => {
            return Err((
                sources,
                vec![
                    Diagnostic::error_nowhere(format!("cannot read `{file_name}`: {e}"))
                        .with_hint("check the path"),
                ],
            ))
        }
    };
    let file = SourceFile::new(
        file_name.clone(),
        String::from_utf8_lossy(&bytes).into_owned(),
    );
    let id = sources.add(file);
    let options = FrontendOptions {
        function: input.function.clone(),
        defines: input.define.clone(),
        include_dirs: input.include.clone(),
        system_preprocessor: true,
    };
    let parsed = match frontend::parse(sources.get(id), id, Some(&input.file), &options) {
        Ok(p) => p,
        Err(d) => return Err((sources, d)),
    };
    let mut programs = Vec::new();
    let mut diags = Vec::new();
    for unit in parsed.units {
        match poly::lower(unit, sources.get(id)).and_then(|p| deps::analyze(&p).map(|d| (p, d))) {
            Ok(pd) => programs.push(pd),
            Err(d) => diags.extend(d),
        }
    }
    if let Some(note) = parsed.macro_source.note() {
        diags.iter_mut().for_each(|d| d.notes.push(note.clone()));
    }
    if diags.is_empty() {
        Ok(Analysis {
            sources,
            file_name,
            programs,
        })
    } else {
        Err((sources, diags))
    }
}

fn deps_command(a: &DepsArgs, out: &mut dyn Write, err: &mut dyn Write, color: bool) -> i32 {
    match analyze(&a.input) {
        Ok(analysis) => {
            let text = if a.json {
                report::json(&analysis.file_name, &analysis.sources, &analysis.programs)
            } else {
                report::text(&analysis.sources, &analysis.programs, a.show_input)
            };
            match write!(out, "{text}") {
                Ok(()) => EXIT_OK,
                Err(_) => EXIT_USER_ERROR,
            }
        }
        Err((sources, diags)) => report_failure(&sources, &diags, err, color),
    }
}

fn report_failure(
    sources: &SourceMap,
    diags: &[Diagnostic],
    err: &mut dyn Write,
    color: bool,
) -> i32 {
    let _ = write!(err, "{}", diag::render(sources, diags, color));
    if diags.iter().any(|d| d.severity == Severity::Bug) {
        EXIT_INTERNAL
    } else {
        EXIT_USER_ERROR
    }
}
