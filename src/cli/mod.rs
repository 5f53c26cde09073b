//! The driver: parses the command line, runs the stages in order, prints results and
//! diagnostics, and maps outcomes to exit codes.
//!
//! Exit codes: 0 success; 1 the input was refused (diagnostics printed); 2 a usage error
//! (bad command line); 3 gpucc's own output is wrong (a bug in gpucc); 4 a check could not
//! run (a tool is missing, or the original C does not compile, link or run).

mod advise;
mod check;
mod compile;
mod emulate;
mod explain;
mod library;
mod library_files;
mod options;
mod project;
mod specialise;
mod tune;
mod tune_gpu;

use options::{parse_define, parse_param, parse_size};

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
/// A check of the output could not run at all, through no fault of gpucc's output: the C
/// compiler refused or failed to link the original, the original crashed, or a tool
/// is missing. The `.cu` is kept.
pub const EXIT_CHECK_NOT_RUN: i32 = 4;

/// gpucc: a polyhedral compiler from sequential C loop nests to CUDA.
///
/// `gpucc FILE.c --recipe R.lua -o OUT.cu` compiles (the `compile` command is the default).
#[derive(Parser, Debug)]
#[command(name = "gpucc", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Compile C to CUDA (the default command: `gpucc FILE.c [--recipe R.lua] -o OUT.cu`).
    Compile(CompileArgs),
    /// Show the loops (parallel, reduction or sequential), statements and dependences of
    /// the code gpucc would compile.
    Deps(DepsArgs),
    /// Check a `.cu` against its C: run both on the same pseudo-random inputs (the `.cu`
    /// on gpucc's CPU stand-in for CUDA) and compare every array the code writes.
    Verify(VerifyArgs),
    /// Write the strategy generator's variants as recipe files, ranked by predicted time.
    Strategies(StrategiesArgs),
    /// Predict the time of the kernels (abstract kernel emulation) and name each one's
    /// bottleneck (sensitivity analysis).
    Emulate(EmulateArgs),
    /// Search the variants (or a recipe's parameters) for the fastest at each size, with
    /// a lower bound that skips what cannot win; every evaluation goes into a database.
    Tune(tune::TuneArgs),
    /// Tune a function at each size of a list or range and write a library of its
    /// variants: a header, the kernels with a dispatcher by size, a Makefile, a manifest
    /// and a test program.
    Library(library::LibraryArgs),
    /// Project whether porting the C to a GPU pays: the best strategy for each device
    /// description, its predicted kernel time, the copies to and from the device, and
    /// the C's time measured on this machine (seed 003).
    Project(project::ProjectArgs),
    /// Say where each kernel loses its time and which optimizations would help, each
    /// applied as a recipe and emulated for its estimated speedup (seed 002).
    Advise(advise::AdviseArgs),
}

#[derive(Args, Debug)]
struct CompileArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The recipe: the loop transformations to apply (see recipes/README.md). Without
    /// one, gpucc generates variants, ranks them, and writes the best into the `.cu`.
    #[arg(long, value_name = "R.lua")]
    recipe: Option<PathBuf>,
    /// Give a recipe parameter a value (`-P TI=32`).
    #[arg(short = 'P', value_name = "NAME=VALUE", value_parser = parse_param)]
    param: Vec<(String, String)>,
    /// Where to write the CUDA file (default: the input with the extension `.cu`).
    #[arg(short = 'o', value_name = "OUT.cu")]
    output: Option<PathBuf>,
    /// Check the written file against the C (as `gpucc verify` does); exit 1 if it
    /// differs. On by default without --recipe.
    #[arg(long, conflicts_with = "no_verify")]
    verify: bool,
    /// Do not check the CUDA that gpucc's own recipe makes.
    #[arg(long)]
    no_verify: bool,
    /// The sizes the check runs at: `reduced` (the `#define`d sizes scaled down so that
    /// the check takes seconds, and the recipe compiled again at them), `full` (the
    /// written file itself), or a number: the largest size after reduction.
    #[arg(long, value_name = "reduced|full|N", default_value = "reduced", value_parser = check::parse_verify_size)]
    verify_size: check::VerifySize,
    /// Print the strategy generator's decisions and ranking (without --recipe).
    #[arg(long)]
    explain: bool,
    /// With --explain: print the decisions and the ranking as JSON.
    #[arg(long, requires = "explain")]
    json: bool,
    #[command(flatten)]
    target: TargetArgs,
    #[command(flatten)]
    check: CheckArgs,
}

/// The device a strategy is made for.
#[derive(Args, Debug)]
struct TargetArgs {
    /// The target GPU, a description in benchmarks/devices/ (h100, h200, a100, v100, ...).
    #[arg(long = "device", value_name = "NAME", default_value = "h100")]
    device: String,
}

#[derive(Args, Debug)]
struct EmulateArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The recipe to emulate (default: the one gpucc chooses).
    #[arg(long, value_name = "R.lua")]
    recipe: Option<PathBuf>,
    /// Give a recipe parameter a value (`-P TI=32`).
    #[arg(short = 'P', value_name = "NAME=VALUE", value_parser = parse_param, requires = "recipe")]
    param: Vec<(String, String)>,
    /// Print JSON (with `predicted_time_us` and `bottleneck`).
    #[arg(long)]
    json: bool,
    /// Estimate the registers, as the strategy generator ranks, even where ptxas could
    /// count them (the same prediction on every machine).
    #[arg(long)]
    estimate_registers: bool,
    /// Take the instruction streams from the kernel IR even where the SASS could be read
    /// (nvcc and nvdisasm installed).
    #[arg(long)]
    ir_streams: bool,
    /// The value of a size known only at run time (an `int n` parameter), as `--size
    /// n=4096`; a size not given is assumed to be 1024, and the report says so.
    #[arg(long = "size", value_name = "NAME=VALUE", value_parser = parse_size)]
    sizes: Vec<(String, i64)>,
    #[command(flatten)]
    target: TargetArgs,
}

#[derive(Args, Debug)]
struct StrategiesArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The directory to write the recipes into (created if missing).
    #[arg(short = 'o', value_name = "DIR")]
    output: PathBuf,
    #[command(flatten)]
    target: TargetArgs,
}

/// The inputs of a check.
#[derive(Args, Debug)]
struct CheckArgs {
    /// The value of an integer size parameter in a check (`--size n=100`; default 67).
    #[arg(long = "size", value_name = "NAME=VALUE", value_parser = parse_size)]
    sizes: Vec<(String, i64)>,
    /// Make the square matrices of a check diagonally dominant (for solvers, whose
    /// results on random matrices are not numerically meaningful).
    #[arg(long)]
    diagonally_dominant: bool,
    /// Another source or object file the program links with (`--link
    /// utilities/polybench.c`), built into both programs of the check; repeatable.
    #[arg(long = "link", value_name = "FILE")]
    links: Vec<PathBuf>,
}

#[derive(Args, Debug)]
struct VerifyArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The CUDA file to check; omit it and give --recipe to compile and check in one go.
    #[arg(value_name = "OUT.cu")]
    cu: Option<PathBuf>,
    /// Compile FILE.c with this recipe, then check the result.
    #[arg(long, value_name = "R.lua", conflicts_with = "cu")]
    recipe: Option<PathBuf>,
    /// Give a recipe parameter a value (`-P TI=32`).
    #[arg(short = 'P', value_name = "NAME=VALUE", value_parser = parse_param, requires = "recipe")]
    param: Vec<(String, String)>,
    #[command(flatten)]
    check: CheckArgs,
    /// Where the CUDA runs: `cpu` (gpucc's CPU runtime, which also finds races), `gpu`
    /// (compiled by nvcc, run on this machine's GPU), or `cpu,gpu` (both, in turn).
    #[arg(long = "device", value_name = "cpu|gpu|cpu,gpu", default_value = "cpu")]
    run_on: String,
    /// On the GPU, also time the kernels with CUDA events: a warm-up, then each launch
    /// run `--runs` times, the median kept.
    #[arg(long)]
    time: bool,
    /// How many timed runs of each launch with `--time`.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    runs: u32,
}

/// Which code to read and how.
#[derive(Args, Clone, Debug)]
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
    /// Raise (or lower) a resource limit, as `--limit recipe-steps=100000000`; the limits
    /// and their defaults are listed in the README ("Limits").
    #[arg(long = "limit", value_name = "NAME=VALUE", value_parser = crate::limits::parse_limit)]
    limit: Vec<(String, u64)>,
}

impl InputArgs {
    /// The check's options for this file, its macros and include directories, at `sizes`
    /// with the other sources `links` (no diagonally dominant inputs).
    fn check_options<'a>(
        &'a self,
        sizes: &'a [(String, i64)],
        links: &'a [PathBuf],
    ) -> crate::verify::CheckOptions<'a> {
        crate::verify::CheckOptions {
            c_file: &self.file,
            defines: &self.define,
            include_dirs: &self.include,
            sizes,
            diagonally_dominant: false,
            links,
        }
    }

    /// The default limits with this command line's `--limit`s applied.
    fn limits(&self) -> crate::limits::Limits {
        let mut limits = crate::limits::Limits::default();
        for (name, value) in &self.limit {
            // parse_limit accepted only known names.
            let _ = limits.set(name, *value);
        }
        limits
    }
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

/// Runs gpucc with the process's arguments and standard streams; returns the exit code.
pub fn main() -> i32 {
    let args: Vec<String> = std::env::args().collect();
    let color = std::io::stderr().is_terminal();
    // Standard error is locked per write, not for the whole command: a progress spinner
    // draws from a thread of its own, and would wait for the lock forever (on a terminal,
    // the check's spinner hung every compile at "checking on the CPU").
    let code = run(
        &args,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr(),
        color,
    );
    let _ = std::io::stdout().flush();
    code
}

/// Runs gpucc with `args` (the first is the program name), writing results to `out` and
/// diagnostics to `err`; returns the exit code.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write, color: bool) -> i32 {
    // `compile` is the default command: `gpucc FILE.c ...`.
    let mut args = args.to_vec();
    if let Some(first) = args.get(1) {
        let is_command = [
            "compile",
            "deps",
            "verify",
            "strategies",
            "emulate",
            "tune",
            "library",
            "project",
            "advise",
            "help",
        ]
        .contains(&first.as_str());
        if !is_command && !first.starts_with('-') {
            args.insert(1, "compile".to_string());
        }
    }
    let cli = match Cli::try_parse_from(&args) {
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
    let limits = match &cli.command {
        Command::Compile(a) => a.input.limits(),
        Command::Deps(a) => a.input.limits(),
        Command::Verify(a) => a.input.limits(),
        Command::Strategies(a) => a.input.limits(),
        Command::Emulate(a) => a.input.limits(),
        Command::Tune(a) => a.limits(),
        Command::Library(a) => a.limits(),
        Command::Project(a) => a.limits(),
        Command::Advise(a) => a.limits(),
    };
    crate::limits::with(limits, || match cli.command {
        Command::Compile(a) => compile::compile_command(&a, out, err, color),
        Command::Deps(a) => deps_command(&a, out, err, color),
        Command::Verify(a) => check::verify_command(&a, out, err, color),
        Command::Strategies(a) => compile::strategies_command(&a, out, err, color),
        Command::Emulate(a) => emulate::emulate_command(&a, out, err, color),
        Command::Tune(a) => tune::tune_command(&a, out, err, color),
        Command::Library(a) => library::library_command(&a, out, err, color),
        Command::Project(a) => project::project_command(&a, out, err, color),
        Command::Advise(a) => advise::advise_command(&a, out, err, color),
    })
}

fn frontend_options(input: &InputArgs) -> FrontendOptions {
    FrontendOptions {
        function: input.function.clone(),
        defines: input.define.clone(),
        include_dirs: input.include.clone(),
        system_preprocessor: true,
    }
}

/// The result of the front half of the pipeline on one file.
struct Analysis {
    sources: SourceMap,
    file_name: String,
    programs: Vec<(Program, Dependences)>,
    macros: crate::frontend::macros::MacroTable,
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
    let parsed = match frontend::parse(
        sources.get(id),
        id,
        Some(&input.file),
        &frontend_options(input),
    ) {
        Ok(p) => p,
        Err(d) => {
            // An error gpucc cannot place (no function found: a broken function header) is
            // often C that does not compile: the C compiler's first error says where.
            if d.iter().all(|x| x.primary_span().is_none()) {
                if let Some(c) = check::invalid_c(input) {
                    return Err((sources, vec![c]));
                }
            }
            return Err((sources, d));
        }
    };
    let mut programs = Vec::new();
    let mut diags = Vec::new();
    for unit in parsed.units {
        match poly::lower(unit, sources.get(id))
            .and_then(|mut p| deps::analyze(&mut p).map(|d| (p, d)))
        {
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
            macros: parsed.macros,
        })
    } else {
        Err((sources, diags))
    }
}

fn deps_command(a: &DepsArgs, out: &mut dyn Write, err: &mut dyn Write, color: bool) -> i32 {
    match analyze(&a.input) {
        Ok(mut analysis) => {
            // The report lists the input dependences (with `--input`, and always in
            // JSON), which compiling never needs.
            let mut diags = Vec::new();
            for (program, deps) in &mut analysis.programs {
                diags.extend(deps::add_input_dependences(program, deps));
            }
            if !diags.is_empty() {
                return report_failure(&analysis.sources, &diags, err, color);
            }
            let text = if a.json {
                deps::report::json(&analysis.file_name, &analysis.sources, &analysis.programs)
            } else {
                deps::report::text(&analysis.sources, &analysis.programs, a.show_input)
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
