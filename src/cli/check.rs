//! The checks: `gpucc verify`, and the check after a compile (at reduced sizes unless
//! `--verify-size` says otherwise). Each ends in a [`Verdict`], which the command maps to
//! an exit code by whose fault it is.

use super::compile::{analyze_one, compile, Compiled, RecipeSource};
use super::{
    Analysis, CheckArgs, CompileArgs, InputArgs, VerifyArgs, EXIT_CHECK_NOT_RUN, EXIT_INTERNAL,
    EXIT_OK, EXIT_USAGE, EXIT_USER_ERROR,
};
use crate::device::Device;
use crate::diag::Diagnostic;
use crate::frontend::macros::MacroTable;
use crate::poly::Program;
use crate::verify::CheckError;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Statement instances a check at reduced sizes aims at (the deepest nest's loops at the
/// reduced size multiply to about this many).
const CHECK_INSTANCES: f64 = 3e5;
/// The largest size after reduction, and the least a size is reduced to.
const CHECK_SIZE: (f64, f64) = (67.0, 9.0);

/// `-D` overrides that make the program small enough to check quickly on the CPU: the
/// `#define`d integer constants of loop bounds and array dimensions above a limit `L` are
/// scaled so that the largest becomes `L` (ratios kept), with `L` chosen so that the
/// deepest nest runs about [`CHECK_INSTANCES`] instances: 67 for three loops, 23 for
/// four, 9 for six; or `L` as given (`--verify-size L`).
fn reduced_sizes(
    program: &Program,
    macros: &MacroTable,
    limit: Option<i64>,
) -> Vec<(String, String)> {
    let depth = program.max_depth().max(1) as f64;
    let limit = limit.map(|l| l as f64).unwrap_or_else(|| {
        CHECK_INSTANCES
            .powf(1.0 / depth)
            .round()
            .clamp(CHECK_SIZE.1, CHECK_SIZE.0)
    });
    let mut texts: Vec<&str> = program.loops.iter().map(|l| l.bounds.as_str()).collect();
    for a in &program.arrays {
        texts.extend(a.dim_texts.iter().map(|d| d.as_str()));
    }
    let mut sizes: Vec<(String, f64)> = Vec::new();
    for text in texts {
        for word in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if word.is_empty() {
                continue;
            }
            // `_PB_N` defined as `N`: the size to override is `N`, so that the arrays
            // shrink with the loops.
            let word = defining_macro(macros, word);
            if let Some(v) = macros.constant(&word) {
                if v.fract() == 0.0 && v > limit && !sizes.iter().any(|(n, _)| *n == word) {
                    sizes.push((word, v));
                }
            }
        }
    }
    let largest = sizes.iter().map(|(_, v)| *v).fold(0.0, f64::max);
    sizes
        .into_iter()
        .map(|(n, v)| {
            let r = (limit * v / largest).round().max(CHECK_SIZE.1.min(v));
            (n, (r as i64).to_string())
        })
        .collect()
}

/// The macro that gives `name` its value: `name` itself, or, for a macro defined as
/// another macro's name, that one's (followed to the end of the chain). A definition
/// through function-like macros counts as the name they give: PolyBench's `_PB_N` is
/// `POLYBENCH_LOOP_BOUND(N, n)`, which is `N` with `-DPOLYBENCH_USE_SCALAR_LB`.
fn defining_macro(macros: &MacroTable, name: &str) -> String {
    use crate::frontend::lexer::Tok;
    let mut functions: Option<MacroTable> = None;
    let mut name = name.to_string();
    for _ in 0..16 {
        let Some(m) = macros.get(&name).filter(|m| m.params.is_none()) else {
            break;
        };
        let body = if m.body.len() == 1 {
            m.body.clone()
        } else {
            // Only the function-like macros expand: the names they leave are the chain's.
            let table = functions.get_or_insert_with(|| macros.function_like());
            match crate::frontend::macros::expand(&m.body, table) {
                Ok(tokens) => tokens,
                Err(_) => break,
            }
        };
        // `(N)` is `N`.
        let inner = match body.as_slice() {
            [open, x, close] if open.tok == Tok::Punct("(") && close.tok == Tok::Punct(")") => {
                std::slice::from_ref(x)
            }
            b => b,
        };
        match inner {
            [t] => match &t.tok {
                Tok::Ident(x) if macros.get(x).is_some() => name = x.clone(),
                _ => break,
            },
            _ => break,
        }
    }
    name
}

/// The sizes a check after a compile runs at (`--verify-size`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum VerifySize {
    /// The `#define`d sizes scaled down (to at most this largest size, or gpucc's choice).
    Reduced(Option<i64>),
    /// The written `.cu` itself.
    Full,
}

/// `--verify-size reduced|full|N`.
pub(super) fn parse_verify_size(text: &str) -> Result<VerifySize, String> {
    match text.trim() {
        "reduced" => Ok(VerifySize::Reduced(None)),
        "full" => Ok(VerifySize::Full),
        n => match super::options::c_number(n) {
            Some(v) if v.fract() == 0.0 && v >= 1.0 && v <= i64::MAX as f64 => {
                Ok(VerifySize::Reduced(Some(v as i64)))
            }
            _ => Err(format!(
                "`{text}`: expected `reduced`, `full`, or the largest size to check at (a positive integer)"
            )),
        },
    }
}

/// What a check found.
pub(super) enum Verdict {
    /// The CUDA computes what the C computes (the comparison was printed).
    Same,
    /// It computes something else, or two threads race (the report was printed).
    Different,
    /// The check could not run.
    NotRun(CheckError),
    /// The check was refused before it ran (the message was printed; the exit code).
    Refused(i32),
}

/// Checks a compile's output: at reduced sizes (the recipe compiled again with the
/// `#define`d sizes scaled down, `--verify-size`), else the written `.cu` itself.
pub(super) fn check_compiled(
    a: &CompileArgs,
    compiled: &Compiled,
    output: &Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
    color: bool,
) -> Verdict {
    let full = |err: &mut dyn Write, out: &mut dyn Write| {
        let what = output.display().to_string();
        let cu = &compiled.text;
        check(
            &a.input,
            compiled.program(),
            cu,
            &what,
            &a.check,
            None,
            color,
            out,
            err,
        )
    };
    let limit = match a.verify_size {
        VerifySize::Full => return full(err, out),
        VerifySize::Reduced(limit) => limit,
    };
    let reduced = reduced_sizes(compiled.program(), &compiled.macros, limit);
    if reduced.is_empty() {
        return full(err, out);
    }
    let source = match &a.recipe {
        Some(path) => RecipeSource::File(path),
        None => RecipeSource::Text(compiled.recipe_text.clone()),
    };
    let device = Device::named(&a.target.device).unwrap_or_else(|_| Device::default_device());
    // The recipe at the reduced sizes; else at those sizes rounded up to a multiple of 4,
    // which wide copies need (`float4` loads of rows of 67 floats are not aligned).
    let aligned: Vec<(String, String)> = reduced
        .iter()
        .map(|(n, v)| {
            let v: i64 = v.parse().expect("a reduced size is an integer");
            (n.clone(), (v + (4 - v % 4) % 4).to_string())
        })
        .collect();
    let mut first_error = String::new();
    let mut sizes_tried = String::new();
    for sizes in [&reduced, &aligned] {
        if sizes_tried == sizes_text(sizes) {
            continue;
        }
        sizes_tried = sizes_text(sizes);
        let mut input = a.input.clone();
        // A size given with -D is a size like a `#define`d one: the reduced value replaces it.
        input
            .define
            .retain(|(n, _)| !sizes.iter().any(|(r, _)| r == n));
        input.define.extend(sizes.iter().cloned());
        let mut why = Vec::new();
        let small = compile(
            &input,
            &device,
            source.clone(),
            &a.param,
            &mut std::io::sink(),
            &mut why,
            false,
        );
        match small {
            Ok(small) => {
                let what = format!("the same recipe at {sizes_tried}");
                return check(
                    &input,
                    small.program(),
                    &small.text,
                    &what,
                    &a.check,
                    None,
                    color,
                    out,
                    err,
                );
            }
            Err(_) if first_error.is_empty() => {
                let why = String::from_utf8_lossy(&why);
                first_error = why
                    .lines()
                    .next()
                    .unwrap_or("")
                    .trim_start_matches("error: ")
                    .to_string();
            }
            Err(_) => {}
        }
    }
    let _ = writeln!(
        err,
        "gpucc: the recipe does not compile at the reduced sizes ({}: {first_error}); checking {} at full size",
        sizes_text(&reduced),
        output.display()
    );
    full(err, out)
}

/// `N=67, M=33`
fn sizes_text(sizes: &[(String, String)]) -> String {
    let texts: Vec<String> = sizes.iter().map(|(n, v)| format!("{n}={v}")).collect();
    texts.join(", ")
}

/// The exit code of a compile whose check found `verdict`; a `.cu` that computes
/// something else is moved aside, so that no build picks it up.
pub(super) fn conclude_compile(verdict: Verdict, output: &Path, err: &mut dyn Write) -> i32 {
    match verdict {
        Verdict::Same => EXIT_OK,
        Verdict::Refused(code) => code,
        Verdict::Different => {
            let rejected = PathBuf::from(format!("{}.rejected", output.display()));
            let _ = std::fs::rename(output, &rejected);
            let _ = writeln!(
                err,
                "error: the CUDA gpucc generated does not compute what the C computes; it was moved to {}\n  = note: this is a bug in gpucc; please report it with the C file (and the recipe)\n  = hint: --no-verify keeps the file anyway",
                rejected.display()
            );
            EXIT_INTERNAL
        }
        Verdict::NotRun(e) => not_run(&e, true, Some(output), err),
    }
}

/// Says why a check could not run and gives the exit code: the user's C, toolchain or
/// machine (exit 4, the `.cu` kept), a limit (exit 1), or, when gpucc wrote the CUDA
/// (`generated`) and it is the CUDA that fails, gpucc's own output (exit 3).
fn not_run(e: &CheckError, generated: bool, output: Option<&Path>, err: &mut dyn Write) -> i32 {
    use crate::verify::CheckFailure::*;
    let hint = |default: &str| {
        format!(
            "\n  = hint: {}",
            e.hint.clone().unwrap_or_else(|| default.to_string())
        )
    };
    let code = match e.kind {
        TimeLimit => {
            let _ = writeln!(err, "error: {}{}", e.message, hint("raise the limit"));
            return EXIT_USER_ERROR;
        }
        OriginalDoesNotCompile | OriginalFailed | CannotDrive | Environment => EXIT_CHECK_NOT_RUN,
        GeneratedDoesNotCompile | GeneratedFailed if !generated => {
            // The user's own `.cu`.
            let _ = writeln!(
                err,
                "error: the check could not run: {}{}",
                e.message,
                hint("a .cu that the C++ compiler refuses or that crashes is not a gpucc output, or was edited")
            );
            return EXIT_USER_ERROR;
        }
        GeneratedDoesNotCompile | GeneratedFailed | Internal => {
            let rejected = output.map(|o| {
                let rejected = PathBuf::from(format!("{}.rejected", o.display()));
                let _ = std::fs::rename(o, &rejected);
                format!("; it was moved to {}", rejected.display())
            });
            let _ = writeln!(
                err,
                "error: the check could not run: {}\n  = note: the CUDA gpucc generated is wrong{}; this is a bug in gpucc, please report it with the C file (and the recipe)",
                e.message,
                rejected.unwrap_or_default()
            );
            return EXIT_INTERNAL;
        }
    };
    let kept = output
        .map(|o| format!("\n  = note: {} is kept; it was not checked", o.display()))
        .unwrap_or_default();
    let _ = writeln!(
        err,
        "error: the check could not run: {}{kept}{}",
        e.message,
        hint("fix what stopped the check and run `gpucc verify` again, or pass --no-verify")
    );
    code
}

/// Refuses `--size` naming something that is not a size known only at run time of
/// `program` (a usage error: exit 2); `None` when every name is one.
pub(super) fn refuse_unknown_sizes(
    program: &Program,
    sizes: &[(String, i64)],
    err: &mut dyn Write,
) -> Option<i32> {
    // An integer parameter of the function is a size even where the compiled code does not
    // read it (it sizes an array the loops leave alone): the check's call passes it.
    let integer_parameter = |n: &str| {
        program.unit.params.iter().any(|p| {
            p.declarator.name == n
                && p.declarator.dims.is_empty()
                && p.spec.ty.is_some_and(|t| t.is_integer())
        })
    };
    let unknown: Vec<&str> = (sizes.iter().map(|(n, _)| n.as_str()))
        .filter(|n| !program.params.iter().any(|p| p == n) && !integer_parameter(n))
        .collect();
    if unknown.is_empty() {
        return None;
    }
    let known = if program.params.is_empty() {
        "the code has no sizes known only at run time".to_string()
    } else {
        format!(
            "its sizes known only at run time are: {}",
            program.params.join(", ")
        )
    };
    let _ = writeln!(
        err,
        "error: --size names {}, which is not a size parameter of the code\n  = note: {known}\n  = hint: a `#define`d size is changed with -D NAME=VALUE",
        unknown.join(", ")
    );
    Some(EXIT_USAGE)
}

/// Refuses a file that is not valid C, [`invalid_c`]'s error (exit 1): gpucc copies the
/// text around the compiled unit into the `.cu` as written.
pub(super) fn refuse_invalid_c(d: Diagnostic, err: &mut dyn Write) -> i32 {
    let _ = writeln!(err, "error: {}", d.message);
    for note in &d.notes {
        let _ = writeln!(err, "  = note: {note}");
    }
    if let Some(hint) = &d.hint {
        let _ = writeln!(err, "  = hint: {hint}");
    }
    EXIT_USER_ERROR
}

/// The C compiler's first error on the file, as gpucc's error; `None` when it compiles (or
/// the compiler cannot run).
pub(super) fn invalid_c(input: &InputArgs) -> Option<Diagnostic> {
    let options = input.check_options(&[], &[]);
    match crate::verify::original_compiles(&options) {
        Err(e) if e.kind == crate::verify::CheckFailure::OriginalDoesNotCompile => Some(
            Diagnostic::error_nowhere(e.message)
                .with_note("gpucc copies the code around what it compiles into the .cu as it is, so the file must be C that compiles")
                .with_hint("fix the file (give -I DIR for the headers it includes, -D for the macros it needs)"),
        ),
        _ => None,
    }
}

pub(super) fn verify_command(
    a: &VerifyArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
    color: bool,
) -> i32 {
    let places = match places(a, err) {
        Ok(p) => p,
        Err(code) => return code,
    };
    // Each place in turn; the first that fails decides. `generated`: gpucc made the CUDA
    // (from a recipe), so CUDA that computes something else is gpucc's fault.
    let check_all = |input: &InputArgs,
                     program: &Program,
                     cu: &str,
                     what: &str,
                     generated: bool,
                     out: &mut dyn Write,
                     err: &mut dyn Write| {
        for place in &places {
            let verdict = check(
                input,
                program,
                cu,
                what,
                &a.check,
                place.as_ref(),
                color,
                out,
                err,
            );
            match verdict {
                Verdict::Same => {}
                Verdict::Refused(code) => return code,
                Verdict::Different if generated => {
                    let _ = writeln!(
                        err,
                        "error: the CUDA gpucc made does not compute what the C computes\n  = note: this is a bug in gpucc; please report it with the C file and the recipe"
                    );
                    return EXIT_INTERNAL;
                }
                Verdict::Different => return EXIT_USER_ERROR,
                Verdict::NotRun(e) => return not_run(&e, generated, None, err),
            }
        }
        EXIT_OK
    };
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
            let Analysis { programs, .. } =
                match analyze_one(&a.input, "a check compares one", err, color) {
                    Ok(x) => x,
                    Err(code) => return code,
                };
            let program = &programs[0].0;
            check_all(
                &a.input,
                program,
                &cu,
                &cu_path.display().to_string(),
                false,
                out,
                err,
            )
        }
        (None, Some(recipe)) => {
            let source = RecipeSource::File(recipe);
            let device = Device::default_device();
            let compiled = match compile(&a.input, &device, source, &a.param, out, err, color) {
                Ok(c) => c,
                Err(code) => return code,
            };
            let what = format!("the CUDA that {} makes", recipe.display());
            check_all(
                &a.input,
                compiled.program(),
                &compiled.text,
                &what,
                true,
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

/// A GPU to check on, with the compiler for it.
struct GpuCheck {
    gpu: crate::gpu::Gpu,
    nvcc: PathBuf,
    /// Timed runs of each launch; 0: no timing.
    time_runs: u32,
}

/// Where `gpucc verify --device ...` runs the CUDA, in order (`None`: the CPU).
fn places(a: &VerifyArgs, err: &mut dyn Write) -> Result<Vec<Option<GpuCheck>>, i32> {
    let mut places = Vec::new();
    for name in a.run_on.split(',').map(str::trim) {
        match name {
            "cpu" => places.push(None),
            "gpu" => {
                let gpu = match crate::gpu::probe() {
                    Ok(g) => g,
                    Err(why) => {
                        let _ = writeln!(
                            err,
                            "error: --device gpu: {why}\n  = hint: check on the CPU (the default, `--device cpu`), or run this on a machine with an NVIDIA GPU and its driver"
                        );
                        return Err(EXIT_USER_ERROR);
                    }
                };
                let Some(nvcc) = crate::emulator::ptxas::nvcc() else {
                    let _ = writeln!(
                        err,
                        "error: --device gpu needs NVIDIA's compiler, nvcc, and none was found\n  = hint: run scripts/install-cuda-toolchain, put nvcc on PATH, or set GPUCC_NVCC"
                    );
                    return Err(EXIT_USER_ERROR);
                };
                let time_runs = if a.time { a.runs } else { 0 };
                places.push(Some(GpuCheck {
                    gpu,
                    nvcc,
                    time_runs,
                }));
            }
            other => {
                let _ = writeln!(
                    err,
                    "error: `--device {other}`: a check runs on `cpu`, `gpu` or `cpu,gpu`\n  = hint: the GPU that compile and emulate target is chosen by their own --device (h100, h200, a100, v100)"
                );
                return Err(EXIT_USAGE);
            }
        }
    }
    if a.time && !places.iter().any(Option::is_some) {
        let _ = writeln!(
            err,
            "error: --time measures the kernels on a GPU\n  = hint: add `--device gpu`"
        );
        return Err(EXIT_USAGE);
    }
    Ok(places)
}

/// Checks `cu` against the C of `input` on the CPU (or on `gpu`) and prints the
/// comparison, and the kernels' times when they were timed.
#[allow(clippy::too_many_arguments)]
fn check(
    input: &InputArgs,
    program: &Program,
    cu: &str,
    what: &str,
    inputs: &CheckArgs,
    gpu: Option<&GpuCheck>,
    color: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Verdict {
    let sizes = &inputs.sizes;
    if let Some(code) = refuse_unknown_sizes(program, sizes, err) {
        return Verdict::Refused(code);
    }
    let options = crate::verify::CheckOptions {
        diagonally_dominant: inputs.diagonally_dominant,
        ..input.check_options(sizes, &inputs.links)
    };
    let (on, place) = match gpu {
        None => (crate::verify::On::Cpu, "the CPU".to_string()),
        Some(g) => (
            crate::verify::On::Gpu {
                nvcc: &g.nvcc,
                arch: &g.gpu.arch,
                time_runs: g.time_runs,
            },
            format!(
                "the GPU, {} ({}, driver for CUDA {})",
                g.gpu.name, g.gpu.arch, g.gpu.driver_cuda
            ),
        ),
    };
    let _ = writeln!(
        err,
        "gpucc: checking {what} against {} ({}) on {place}",
        input.file.display(),
        program.unit.describe()
    );
    let spinner = spinner(color, &format!("checking on {place}"));
    let checked = crate::verify::check(program, cu, &options, &on);
    spinner.finish_and_clear();
    match checked {
        Ok(crate::verify::Checked { outcome, times }) => {
            let _ = write!(out, "{}", crate::verify::report(&outcome));
            if let Some(g) = gpu.filter(|g| g.time_runs > 0) {
                if times.is_empty() {
                    let _ = writeln!(out, "no kernel was timed: only code that verifies is");
                } else {
                    let _ = write!(out, "{}", times_report(&times, g));
                }
            }
            if outcome.passed() {
                Verdict::Same
            } else {
                Verdict::Different
            }
        }
        Err(e) => Verdict::NotRun(e),
    }
}

/// A spinner with the time so far, on a terminal (a check runs for seconds, minutes at
/// large sizes); hidden elsewhere.
fn spinner(color: bool, message: &str) -> indicatif::ProgressBar {
    if !color {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new_spinner();
    if let Ok(style) = indicatif::ProgressStyle::with_template("gpucc: {spinner} {msg} ({elapsed})")
    {
        bar.set_style(style);
    }
    bar.set_message(message.to_string());
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

/// The kernels' times on the GPU, for a human (and `benchmarks/calibrate.py`, which reads
/// the `kernel time:` line).
fn times_report(times: &[crate::verify::KernelTime], g: &GpuCheck) -> String {
    let total: f64 = times.iter().map(|t| t.total_us).sum();
    let mut r = format!(
        "kernel time: {total:.2} us on {} (each launch: a warm-up, then the median of {} runs timed with CUDA events)\n",
        g.gpu.name, g.time_runs
    );
    let width = times.iter().map(|t| t.kernel.len()).max().unwrap_or(0);
    for t in times {
        let s = if t.launches == 1 { "" } else { "es" };
        r.push_str(&format!(
            "  {:width$}  {} launch{s}  {:.2} us\n",
            t.kernel, t.launches, t.total_us
        ));
    }
    r
}
