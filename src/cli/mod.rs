//! The driver: parses the command line, runs the stages in order, prints results and
//! diagnostics, and maps outcomes to exit codes.
//!
//! Exit codes: 0 success; 1 the input was refused (diagnostics printed); 2 a usage error
//! (bad command line); 3 an internal error (a bug in gpucc).

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
}

#[derive(Args, Debug)]
struct CompileArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The recipe: the loop transformations to apply (see recipes/README.md). Without
    /// one, gpucc writes one (Phase I: blocks and threads only) into the `.cu` header.
    #[arg(long, value_name = "R.lua")]
    recipe: Option<PathBuf>,
    /// Give a recipe parameter a value (`-P TI=32`).
    #[arg(short = 'P', value_name = "NAME=VALUE", value_parser = parse_param)]
    param: Vec<(String, String)>,
    /// Where to write the CUDA file (default: the input with the extension `.cu`).
    #[arg(short = 'o', value_name = "OUT.cu")]
    output: Option<PathBuf>,
    /// Check the written file against the C (as `gpucc verify` does); exit 1 if it differs.
    #[arg(long)]
    verify: bool,
    #[command(flatten)]
    check: CheckArgs,
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

/// `-P NAME=VALUE`: unlike a macro, a parameter needs its value.
fn parse_param(text: &str) -> Result<(String, String), String> {
    if !text.contains('=') {
        return Err(format!(
            "`{text}` has no value (expected NAME=VALUE, as `-P TI=32`)"
        ));
    }
    let (name, value) = parse_define(text).map_err(|_| {
        format!("`{text}` does not start with a parameter name (expected NAME=VALUE)")
    })?;
    if value.trim().is_empty() {
        return Err(format!(
            "`{text}` has an empty value (expected NAME=VALUE, as `-P TI=32`)"
        ));
    }
    Ok((name, value))
}

/// `--size n=100`: a positive integer.
fn parse_size(text: &str) -> Result<(String, i64), String> {
    let (name, value) = parse_param(text)?;
    match value.trim().parse::<i64>() {
        Ok(v) if v > 0 => Ok((name, v)),
        _ => Err(format!("`{text}`: a size must be a positive integer")),
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
    // `compile` is the default command: `gpucc FILE.c ...`.
    let mut args = args.to_vec();
    if let Some(first) = args.get(1) {
        let is_command = ["compile", "deps", "verify", "help"].contains(&first.as_str());
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
    match cli.command {
        Command::Compile(a) => compile_command(&a, out, err, color),
        Command::Deps(a) => deps_command(&a, out, err, color),
        Command::Verify(a) => verify_command(&a, out, err, color),
    }
}

fn compile_command(a: &CompileArgs, out: &mut dyn Write, err: &mut dyn Write, color: bool) -> i32 {
    let compiled = match compile(&a.input, a.recipe.as_deref(), &a.param, out, err, color) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let output = a
        .output
        .clone()
        .unwrap_or_else(|| a.input.file.with_extension("cu"));
    if let Err(e) = std::fs::write(&output, &compiled.text) {
        let d = Diagnostic::error_nowhere(format!("cannot write `{}`: {e}", output.display()))
            .with_hint("check that the directory exists and is writable");
        return report_failure(&compiled.sources, &[d], err, color);
    }
    let _ = writeln!(
        err,
        "gpucc: wrote {} ({} {}: {})",
        output.display(),
        compiled.kernels.len(),
        if compiled.kernels.len() == 1 {
            "kernel"
        } else {
            "kernels"
        },
        compiled.kernels.join(", ")
    );
    if a.verify {
        let what = output.display().to_string();
        return check(
            &a.input,
            &compiled.program,
            &compiled.text,
            &what,
            &a.check,
            out,
            err,
        );
    }
    EXIT_OK
}

/// A compiled file, before it is written.
struct Compiled {
    sources: SourceMap,
    text: String,
    /// The program the `.cu` was made from (for the check).
    program: Program,
    kernels: Vec<String>,
}

/// The name a recipe that gpucc wrote goes by in diagnostics and the `.cu` header.
const GENERATED_RECIPE: &str = "(written by gpucc)";

/// Runs the whole pipeline on `input` with the recipe (without one, with the recipe the
/// strategy stage writes); diagnostics are printed, and an error gives the exit code.
fn compile(
    input: &InputArgs,
    recipe_path: Option<&std::path::Path>,
    params: &[(String, String)],
    out: &mut dyn Write,
    err: &mut dyn Write,
    color: bool,
) -> Result<Compiled, i32> {
    let Analysis {
        mut sources,
        programs,
        macros,
        ..
    } = analyze(input).map_err(|(sources, diags)| report_failure(&sources, &diags, err, color))?;
    let file_id = crate::diag::SourceId(0);
    if programs.len() > 1 {
        let d = Diagnostic::error_nowhere(format!(
            "`{}` has {} `#pragma scop` regions, and a recipe describes one",
            input.file.display(),
            programs.len()
        ))
        .with_hint("compile one function with --function NAME, or keep one region per file");
        return Err(report_failure(&sources, &[d], err, color));
    }
    let (recipe_name, recipe_text) = match recipe_path {
        Some(path) => match std::fs::read(path) {
            Ok(b) => (
                path.display().to_string(),
                String::from_utf8_lossy(&b).into_owned(),
            ),
            Err(e) => {
                let d = Diagnostic::error_nowhere(format!(
                    "cannot read the recipe `{}`: {e}",
                    path.display()
                ))
                .with_hint("check the path");
                return Err(report_failure(&sources, &[d], err, color));
            }
        },
        None => {
            let (program, deps) = &programs[0];
            match crate::strategy::partition(program, deps) {
                Ok(s) => (GENERATED_RECIPE.to_string(), s.recipe),
                Err(why) => {
                    let d = Diagnostic::error_nowhere(format!(
                        "gpucc found no way to run {} on the GPU: {why}",
                        program.unit.describe()
                    ))
                    .with_hint(
                        "write a recipe (recipes/README.md) and pass it with --recipe R.lua",
                    );
                    return Err(report_failure(&sources, &[d], err, color));
                }
            }
        }
    };
    let recipe_id = sources.add(SourceFile::new(recipe_name.clone(), recipe_text.clone()));
    let recipe = crate::recipe::parse(sources.get(recipe_id), recipe_id)
        .map_err(|d| report_failure(&sources, &d, err, color))?;
    let mut units = Vec::new();
    let mut used_params = Vec::new();
    for (program, deps) in programs {
        let t = crate::transform::Transformed::new(program, deps);
        let options = crate::recipe::RunOptions {
            params,
            macros: &macros,
        };
        let result = crate::recipe::run(&recipe, t, &options)
            .map_err(|d| report_failure(&sources, &d, err, color))?;
        if !result.warnings.is_empty() {
            let _ = write!(err, "{}", diag::render(&sources, &result.warnings, color));
        }
        let _ = write!(out, "{}", result.output);
        used_params = result.params;
        let generated = crate::codegen::generate(&result.transformed)
            .map_err(|d| report_failure(&sources, &d, err, color))?;
        for w in &generated.warnings {
            let _ = writeln!(err, "warning: {w}");
        }
        units.push((result.transformed, generated));
    }
    let options = crate::cuda::EmitOptions {
        recipe: Some(crate::cuda::RecipeInfo {
            path: &recipe_name,
            text: &recipe_text,
            params: &used_params,
        }),
        target: "sm_90",
        defines: &input.define,
    };
    let text = crate::cuda::emit(sources.get(file_id), &units, &options)
        .map_err(|d| report_failure(&sources, &d, err, color))?;
    let kernels = units
        .iter()
        .flat_map(|(t, _)| t.kernels.iter().map(|k| k.name.clone()))
        .collect();
    let program = units
        .into_iter()
        .next()
        .map(|(t, _)| t.program)
        .expect("a file has at least one unit");
    Ok(Compiled {
        sources,
        text,
        program,
        kernels,
    })
}

fn verify_command(a: &VerifyArgs, out: &mut dyn Write, err: &mut dyn Write, color: bool) -> i32 {
    match (&a.cu, &a.recipe) {
        (Some(cu_path), None) => {
            let cu = match std::fs::read(cu_path) {
                Ok(b) => String::from_utf8_lossy(&b).into_owned(),
                Err(e) => {
                    let _ = writeln!(
                        err,
                        "error: cannot read `{}`: {e}\n  = hint: check the path",
                        cu_path.display()
                    );
                    return EXIT_USER_ERROR;
                }
            };
            let Analysis {
                sources, programs, ..
            } = match analyze(&a.input) {
                Ok(x) => x,
                Err((sources, diags)) => return report_failure(&sources, &diags, err, color),
            };
            if programs.len() != 1 {
                let d = Diagnostic::error_nowhere(format!(
                    "`{}` has {} `#pragma scop` regions; a check compares one",
                    a.input.file.display(),
                    programs.len()
                ))
                .with_hint("name the function with --function NAME");
                return report_failure(&sources, &[d], err, color);
            }
            let program = &programs[0].0;
            check(
                &a.input,
                program,
                &cu,
                &cu_path.display().to_string(),
                &a.check,
                out,
                err,
            )
        }
        (None, Some(recipe)) => {
            let compiled = match compile(&a.input, Some(recipe), &a.param, out, err, color) {
                Ok(c) => c,
                Err(code) => return code,
            };
            let what = format!("the CUDA that {} makes", recipe.display());
            check(
                &a.input,
                &compiled.program,
                &compiled.text,
                &what,
                &a.check,
                out,
                err,
            )
        }
        _ => {
            let _ = writeln!(
                err,
                "error: give the CUDA file to check (`gpucc verify FILE.c OUT.cu`) or a recipe to compile with (`gpucc verify FILE.c --recipe R.lua`)"
            );
            EXIT_USAGE
        }
    }
}

/// Checks `cu` against the C of `input` on the CPU and prints the comparison.
fn check(
    input: &InputArgs,
    program: &Program,
    cu: &str,
    what: &str,
    inputs: &CheckArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let sizes = &inputs.sizes;
    let unknown: Vec<&str> = sizes
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| !program.params.iter().any(|p| p == n))
        .collect();
    if !unknown.is_empty() {
        let known = if program.params.is_empty() {
            "the code has no size parameters".to_string()
        } else {
            format!("its size parameters are: {}", program.params.join(", "))
        };
        let _ = writeln!(
            err,
            "error: --size names {}, which is not a size parameter of the code\n  = note: {known}",
            unknown.join(", ")
        );
        return EXIT_USER_ERROR;
    }
    let options = crate::verify::CheckOptions {
        c_file: &input.file,
        defines: &input.define,
        include_dirs: &input.include,
        sizes,
        diagonally_dominant: inputs.diagonally_dominant,
    };
    let _ = writeln!(
        err,
        "gpucc: checking {what} against {} ({}) on the CPU",
        input.file.display(),
        program.unit.describe()
    );
    match crate::verify::check_on_cpu(program, cu, &options) {
        Ok(outcome) => {
            let _ = write!(out, "{}", crate::verify::report(&outcome));
            if outcome.passed() {
                EXIT_OK
            } else {
                EXIT_USER_ERROR
            }
        }
        Err(e) => {
            let _ = writeln!(
                err,
                "error: the check could not run: {e}\n  = hint: a .cu that the C++ compiler refuses is not a gpucc output, or was edited"
            );
            EXIT_USER_ERROR
        }
    }
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
            macros: parsed.macros,
        })
    } else {
        Err((sources, diags))
    }
}

fn deps_command(a: &DepsArgs, out: &mut dyn Write, err: &mut dyn Write, color: bool) -> i32 {
    match analyze(&a.input) {
        Ok(analysis) => {
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
