//! The commands that compile: `gpucc FILE.c` (with a recipe, or with the recipe the
//! strategy generator ranks best), `gpucc verify`, and `gpucc strategies`.

use super::{
    analyze, report_failure, Analysis, CheckArgs, CompileArgs, InputArgs, StrategiesArgs,
    VerifyArgs, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, EXIT_USER_ERROR,
};
use crate::device::Device;
use crate::diag::{self, Diagnostic, SourceFile, SourceMap};
use crate::emulator::Detail;
use crate::frontend::macros::MacroTable;
use crate::poly::Program;
use crate::tune::{self, Ranked};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The name a recipe that gpucc wrote goes by in diagnostics and the `.cu` header.
pub const GENERATED_RECIPE: &str = "(written by gpucc)";

/// Where the recipe of a compile comes from.
pub(super) enum RecipeSource<'a> {
    File(&'a Path),
    /// A recipe already in hand (gpucc's own, replayed at other sizes).
    Text(String),
    /// Generate variants for the device and take the best.
    Generate,
}

impl<'a> RecipeSource<'a> {
    /// The recipe file the user gave, else gpucc's own choice.
    pub fn given(path: Option<&'a Path>) -> RecipeSource<'a> {
        path.map_or(RecipeSource::Generate, RecipeSource::File)
    }
}

/// A compiled file, before it is written.
pub(super) struct Compiled {
    sources: SourceMap,
    pub text: String,
    /// The unit as transformed and generated (its program is what the check compares).
    pub unit: (crate::transform::Transformed, crate::codegen::ir::Generated),
    kernels: Vec<String>,
    macros: MacroTable,
    pub recipe_text: String,
    /// How gpucc chose its recipe, when it made one.
    pub ranked: Option<Ranked>,
}

impl Compiled {
    pub fn program(&self) -> &Program {
        &self.unit.0.program
    }
}

pub(super) fn device(name: &str, err: &mut dyn Write) -> Result<Device, i32> {
    Device::named(name).map_err(|e| {
        let _ = writeln!(
            err,
            "error: {e}\n  = hint: add a description to benchmarks/devices/ or pick one of those"
        );
        EXIT_USAGE
    })
}

pub(super) fn compile_command(
    a: &CompileArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
    color: bool,
) -> i32 {
    let device = match device(&a.target.device, err) {
        Ok(d) => d,
        Err(code) => return code,
    };
    if a.recipe.is_some() && a.explain {
        let _ = writeln!(
            err,
            "error: --explain shows how gpucc chooses a recipe, and --recipe gives one\n  = hint: drop --recipe to see gpucc's choice"
        );
        return EXIT_USAGE;
    }
    let source = RecipeSource::given(a.recipe.as_deref());
    let compiled = match compile(&a.input, &device, source, &a.param, out, err, color) {
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
    if let Some(ranked) = &compiled.ranked {
        super::explain::summary(compiled.program(), ranked, &device, err);
        if a.explain {
            let text = if a.json {
                super::explain::json(compiled.program(), ranked, &device)
            } else {
                super::explain::text(compiled.program(), ranked, &device)
            };
            let _ = write!(out, "{text}");
        }
    }
    let verify = if a.recipe.is_some() {
        a.verify
    } else {
        !a.no_verify
    };
    if !verify {
        return EXIT_OK;
    }
    let code = if compiled.ranked.is_some() {
        check_generated(a, &compiled, &output, out, err, color)
    } else {
        let what = output.display().to_string();
        check(
            &a.input,
            compiled.program(),
            &compiled.text,
            &what,
            &a.check,
            None,
            out,
            err,
        )
    };
    if code != EXIT_OK && compiled.ranked.is_some() {
        // gpucc's own recipe made CUDA that computes something else: a bug; keep the
        // evidence aside rather than leave a wrong file where the build expects it.
        let rejected = PathBuf::from(format!("{}.rejected", output.display()));
        let _ = std::fs::rename(&output, &rejected);
        let _ = writeln!(
            err,
            "error: the CUDA gpucc generated does not compute what the C computes; it was moved to {}\n  = note: this is a bug in gpucc; please report it with the C file\n  = hint: --recipe with a recipe of your own, or --no-verify to keep the file anyway",
            rejected.display()
        );
        return EXIT_INTERNAL;
    }
    code
}

/// Statement instances a check at reduced sizes aims at (the deepest nest's loops at the
/// reduced size multiply to about this many).
const CHECK_INSTANCES: f64 = 3e5;
/// The largest size after reduction, and the least a size is reduced to.
const CHECK_SIZE: (f64, f64) = (67.0, 9.0);

/// `-D` overrides that make the program small enough to check quickly on the CPU: the
/// `#define`d integer constants of loop bounds and array dimensions above a limit `L` are
/// scaled so that the largest becomes `L` (ratios kept), with `L` chosen so that the
/// deepest nest runs about [`CHECK_INSTANCES`] instances: 67 for three loops, 23 for
/// four, 9 for six.
fn reduced_sizes(
    program: &Program,
    macros: &MacroTable,
    given: &[(String, String)],
) -> Vec<(String, String)> {
    let depth = program.max_depth().max(1) as f64;
    let limit = CHECK_INSTANCES
        .powf(1.0 / depth)
        .round()
        .clamp(CHECK_SIZE.1, CHECK_SIZE.0);
    let mut texts: Vec<&str> = program.loops.iter().map(|l| l.bounds.as_str()).collect();
    for a in &program.arrays {
        texts.extend(a.dim_texts.iter().map(|d| d.as_str()));
    }
    let mut sizes: Vec<(String, f64)> = Vec::new();
    for text in texts {
        for word in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if word.is_empty() || given.iter().any(|(n, _)| n == word) {
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
/// another macro's name, that one's (followed to the end of the chain).
fn defining_macro(macros: &MacroTable, name: &str) -> String {
    let mut name = name.to_string();
    for _ in 0..16 {
        let next = match macros.get(&name) {
            Some(m) if m.params.is_none() && m.body.len() == 1 => match &m.body[0].tok {
                crate::frontend::lexer::Tok::Ident(x) if macros.get(x).is_some() => x.clone(),
                _ => break,
            },
            _ => break,
        };
        name = next;
    }
    name
}

/// Checks gpucc's own recipe: on the `.cu` itself when the sizes are small, else on the
/// same recipe compiled at reduced sizes.
fn check_generated(
    a: &CompileArgs,
    compiled: &Compiled,
    output: &Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
    color: bool,
) -> i32 {
    let reduced = reduced_sizes(compiled.program(), &compiled.macros, &a.input.define);
    if reduced.is_empty() {
        let what = output.display().to_string();
        return check(
            &a.input,
            compiled.program(),
            &compiled.text,
            &what,
            &a.check,
            None,
            out,
            err,
        );
    }
    let mut input = a.input.clone();
    input.define.extend(reduced.iter().cloned());
    let text = RecipeSource::Text(compiled.recipe_text.clone());
    let device = Device::named(&a.target.device).unwrap_or_else(|_| Device::default_device());
    let small = match compile(&input, &device, text, &[], &mut std::io::sink(), err, color) {
        Ok(c) => c,
        Err(_) => {
            let _ = writeln!(
                err,
                "gpucc: the recipe does not compile at the reduced sizes; checking {} at full size",
                output.display()
            );
            let what = output.display().to_string();
            return check(
                &a.input,
                compiled.program(),
                &compiled.text,
                &what,
                &a.check,
                None,
                out,
                err,
            );
        }
    };
    let sizes: Vec<String> = reduced.iter().map(|(n, v)| format!("{n}={v}")).collect();
    let what = format!("the same recipe at {}", sizes.join(", "));
    check(
        &input,
        small.program(),
        &small.text,
        &what,
        &a.check,
        None,
        out,
        err,
    )
}

/// Analyses `input`, which must have one unit (`why` says what needs one: "a recipe
/// describes one"); diagnostics are printed, and an error gives the exit code.
fn analyze_one(
    input: &InputArgs,
    why: &str,
    err: &mut dyn Write,
    color: bool,
) -> Result<Analysis, i32> {
    let analysis =
        analyze(input).map_err(|(sources, diags)| report_failure(&sources, &diags, err, color))?;
    if analysis.programs.len() > 1 {
        let d = Diagnostic::error_nowhere(format!(
            "`{}` has {} `#pragma scop` regions, and {why}",
            input.file.display(),
            analysis.programs.len()
        ))
        .with_hint("compile one function with --function NAME, or keep one region per file");
        return Err(report_failure(&analysis.sources, &[d], err, color));
    }
    Ok(analysis)
}

/// Runs the whole pipeline on `input` with a recipe; diagnostics are printed, and an
/// error gives the exit code.
pub(super) fn compile(
    input: &InputArgs,
    device: &Device,
    source: RecipeSource,
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
    } = analyze_one(input, "a recipe describes one", err, color)?;
    let file_id = crate::diag::SourceId(0);
    let mut ranked = None;
    let (recipe_name, recipe_text) = match source {
        RecipeSource::File(path) => match std::fs::read(path) {
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
        RecipeSource::Text(text) => (GENERATED_RECIPE.to_string(), text),
        RecipeSource::Generate => {
            let (program, deps) = &programs[0];
            let r = rank_with_progress(program, deps, &macros, device, color).map_err(|why| {
                let d = Diagnostic::error_nowhere(format!(
                    "gpucc found no recipe for {}: {why}",
                    program.unit.describe()
                ))
                .with_hint("write a recipe (recipes/README.md) and pass it with --recipe R.lua");
                report_failure(&sources, &[d], err, color)
            })?;
            let text = r.recipe.clone();
            ranked = Some(r);
            (GENERATED_RECIPE.to_string(), text)
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
    // With the sensitivity analysis, for the header and for --explain.
    let estimate = units.first().map(|(t, g)| {
        crate::emulator::estimate(t, g, device, &[], Detail::Bottleneck, &Default::default())
    });
    let prediction = estimate.as_ref().map(|e| match e {
        Ok(e) => {
            let slowest = e
                .slowest()
                .map(|k| format!("; slowest kernel {}, {}", k.work.name, k.verdict()))
                .unwrap_or_default();
            format!(
                "{} on the {} (emulated, not measured){slowest}",
                tune::format_us(e.time_us),
                device.name
            )
        }
        Err(why) => format!("none ({why})"),
    });
    if let (Some(r), Some(Ok(e))) = (ranked.as_mut(), estimate) {
        r.estimate = e;
    }
    let options = crate::cuda::EmitOptions {
        recipe: Some(crate::cuda::RecipeInfo {
            path: &recipe_name,
            text: &recipe_text,
            params: &used_params,
        }),
        target: &device.arch,
        defines: &input.define,
        prediction: prediction.as_deref(),
    };
    let text = crate::cuda::emit(sources.get(file_id), &units, &options)
        .map_err(|d| report_failure(&sources, &d, err, color))?;
    let kernels = units
        .iter()
        .flat_map(|(t, _)| t.kernels.iter().map(|k| k.name.clone()))
        .collect();
    let unit = units
        .into_iter()
        .next()
        .expect("a file has at least one unit");
    Ok(Compiled {
        sources,
        text,
        unit,
        kernels,
        macros,
        recipe_text,
        ranked,
    })
}

/// Ranks the variants of a program, with a progress bar on a terminal.
fn rank_with_progress(
    program: &Program,
    deps: &crate::deps::Dependences,
    macros: &MacroTable,
    device: &Device,
    color: bool,
) -> Result<Ranked, String> {
    let bar = if color {
        indicatif::ProgressBar::new(0)
    } else {
        indicatif::ProgressBar::hidden()
    };
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("gpucc: ranking variants {bar:30} {pos}/{len}")
    {
        bar.set_style(style);
    }
    let mut progress = |done: usize, total: usize| {
        bar.set_length(total.max(done) as u64);
        bar.set_position(done as u64);
    };
    let mut options = tune::RankOptions {
        macros,
        device,
        sizes: &[],
        progress: &mut progress,
    };
    let r = tune::rank(program, deps, &mut options);
    bar.finish_and_clear();
    r
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
    // Each place in turn; the first that fails decides.
    let check_all = |input: &InputArgs,
                     program: &Program,
                     cu: &str,
                     what: &str,
                     out: &mut dyn Write,
                     err: &mut dyn Write| {
        let mut code = EXIT_OK;
        for place in &places {
            let c = check(input, program, cu, what, &a.check, place.as_ref(), out, err);
            if c != EXIT_OK {
                code = c;
                break;
            }
        }
        code
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
    match crate::verify::check(program, cu, &options, &on) {
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

/// `gpucc strategies FILE.c -o DIR`: every legal variant as a recipe file, best first.
pub(super) fn strategies_command(
    a: &StrategiesArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
    color: bool,
) -> i32 {
    let device = match device(&a.target.device, err) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let Analysis {
        sources,
        programs,
        macros,
        ..
    } = match analyze_one(&a.input, "a recipe describes one", err, color) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let (program, deps) = &programs[0];
    let ranked = match rank_with_progress(program, deps, &macros, &device, color) {
        Ok(r) => r,
        Err(why) => {
            let d = Diagnostic::error_nowhere(format!(
                "gpucc found no recipe for {}: {why}",
                program.unit.describe()
            ));
            return report_failure(&sources, &[d], err, color);
        }
    };
    if let Err(e) = std::fs::create_dir_all(&a.output) {
        let _ = writeln!(
            err,
            "error: cannot create `{}`: {e}\n  = hint: check the path and its permissions",
            a.output.display()
        );
        return EXIT_USER_ERROR;
    }
    let mut files: Vec<(String, String, String)> = vec![(
        "chosen.lua".to_string(),
        ranked.recipe.clone(),
        format!(
            "{}  the recipe gpucc compiles with (tuned tile sizes)",
            tune::format_us(ranked.estimate.time_us)
        ),
    )];
    let mut rows: Vec<&tune::Row> = ranked.rows.iter().filter(|r| r.recipe.is_some()).collect();
    rows.sort_by(|x, y| {
        let t = |r: &tune::Row| *r.outcome.as_ref().unwrap_or(&f64::INFINITY);
        t(x).total_cmp(&t(y))
    });
    for (k, row) in rows.iter().enumerate() {
        let name = format!("variant{:02}_nest{}.lua", k + 1, row.nest + 1);
        let time = row
            .outcome
            .as_ref()
            .map(|t| tune::format_us(*t))
            .unwrap_or_default();
        files.push((
            name,
            row.recipe.clone().unwrap_or_default(),
            format!("{time}  {}", row.description),
        ));
    }
    let mut index = format!(
        "Recipes gpucc generated for {} ({}), ranked by predicted time on the {} (emulated, not measured).\nReplay one with: gpucc {} --recipe FILE.lua -o OUT.cu\n\n",
        program.unit.describe(),
        a.input.file.display(),
        device.name,
        a.input.file.display()
    );
    for (name, text, line) in &files {
        if let Err(e) = std::fs::write(a.output.join(name), text) {
            let _ = writeln!(
                err,
                "error: cannot write `{}`: {e}",
                a.output.join(name).display()
            );
            return EXIT_USER_ERROR;
        }
        index.push_str(&format!("{name:<22} {line}\n"));
    }
    let dropped: Vec<&tune::Row> = ranked.rows.iter().filter(|r| r.recipe.is_none()).collect();
    if !dropped.is_empty() {
        index.push_str("\nNot legal or not compiled:\n");
        for r in dropped {
            let why = r.outcome.as_ref().err().cloned().unwrap_or_default();
            index.push_str(&format!(
                "  nest {}: {}: {why}\n",
                r.nest + 1,
                r.description
            ));
        }
    }
    if let Err(e) = std::fs::write(a.output.join("ranking.txt"), &index) {
        let _ = writeln!(err, "error: cannot write the ranking: {e}");
        return EXIT_USER_ERROR;
    }
    let _ = writeln!(
        out,
        "gpucc: wrote {} recipes to {} (ranking in {})",
        files.len(),
        a.output.display(),
        a.output.join("ranking.txt").display()
    );
    EXIT_OK
}
