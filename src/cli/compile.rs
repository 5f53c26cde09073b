//! The commands that compile: `gpucc FILE.c` (with a recipe, or with the recipe the
//! strategy generator ranks best), `gpucc verify`, and `gpucc strategies`.

use super::{
    analyze, report_failure, Analysis, CompileArgs, InputArgs, StrategiesArgs, EXIT_OK, EXIT_USAGE,
    EXIT_USER_ERROR,
};
use crate::device::Device;
use crate::diag::{self, Diagnostic, SourceFile, SourceMap};
use crate::emulator::Detail;
use crate::frontend::macros::MacroTable;
use crate::poly::Program;
use crate::tune::{self, Ranked};
use std::io::Write;
use std::path::Path;

/// The name a recipe that gpucc wrote goes by in diagnostics and the `.cu` header.
pub const GENERATED_RECIPE: &str = "(written by gpucc)";

/// Where the recipe of a compile comes from.
#[derive(Clone)]
pub(super) enum RecipeSource<'a> {
    File(&'a Path),
    /// A recipe already in hand (gpucc's own, replayed at other sizes).
    Text(String),
    /// Generate variants for the device and take the best, ranked with the symbolic sizes
    /// at these values (others at [`crate::strategy::analysis::ASSUMED_SIZE`]).
    Generate(&'a [(String, i64)]),
    /// [`Self::Generate`], every candidate compiled (none skipped by its lower bound): for
    /// `gpucc advise`, which compares the variants.
    GenerateAll(&'a [(String, i64)]),
}

impl<'a> RecipeSource<'a> {
    /// The recipe file the user gave, else gpucc's own choice.
    pub fn given(path: Option<&'a Path>) -> RecipeSource<'a> {
        path.map_or(RecipeSource::Generate(&[]), RecipeSource::File)
    }
}

/// A compiled file, before it is written.
pub(super) struct Compiled {
    sources: SourceMap,
    pub text: String,
    /// The unit as transformed and generated (its program is what the check compares).
    pub unit: (crate::transform::Transformed, crate::codegen::ir::Generated),
    kernels: Vec<String>,
    pub macros: MacroTable,
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

/// Whether `a` and `b` name one file (an output that does not exist yet is no input).
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
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
    let output = a
        .output
        .clone()
        .unwrap_or_else(|| a.input.file.with_extension("cu"));
    let inputs: Vec<&Path> = std::iter::once(a.input.file.as_path())
        .chain(a.recipe.as_deref())
        .collect();
    if let Some(input) = inputs.iter().find(|i| same_file(i, &output)) {
        let _ = writeln!(
            err,
            "error: the output `{}` is the input `{}`; gpucc would overwrite it\n  = hint: name another file with -o OUT.cu",
            output.display(),
            input.display()
        );
        return EXIT_USAGE;
    }
    let source = RecipeSource::given(a.recipe.as_deref());
    // The C compiler reads the file on a core of its own while gpucc compiles it (the
    // single-threaded analysis leaves one idle).
    let (compiled, invalid) = std::thread::scope(|s| {
        let invalid = s.spawn(|| super::check::invalid_c(&a.input));
        let compiled = compile(&a.input, &device, source, &a.param, out, err, color);
        (compiled, invalid.join())
    });
    let mut compiled = match compiled {
        Ok(c) => c,
        Err(code) => return code,
    };
    let invalid = invalid.unwrap_or_else(|_| super::check::invalid_c(&a.input));
    if let Some(d) = invalid {
        return super::check::refuse_invalid_c(d, err);
    }
    let sizes = &a.check.sizes;
    if let Some(code) = super::check::refuse_unknown_sizes(compiled.program(), sizes, err) {
        return code;
    }
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
    if a.explain {
        explain_estimate(&mut compiled, &device);
    }
    if let Some(ranked) = &compiled.ranked {
        super::explain::summary(ranked, &device, err);
        if a.explain {
            let text = if a.json {
                super::explain::json(ranked, &device)
            } else {
                super::explain::text(ranked, &device)
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
    let verdict = super::check::check_compiled(a, &compiled, &output, out, err, color);
    super::check::conclude_compile(verdict, &output, err)
}

/// Gives the ranking's estimate every kernel's sensitivity analysis, for `--explain`.
fn explain_estimate(compiled: &mut Compiled, device: &Device) {
    let (t, g) = &compiled.unit;
    if let Some(r) = compiled.ranked.as_mut() {
        if let Ok(e) =
            crate::emulator::estimate(t, g, device, &[], Detail::Bottleneck, &Default::default())
        {
            r.estimate = e;
        }
    }
}

/// Analyses `input`, which must have one unit (`why` says what needs one: "a recipe
/// describes one"); diagnostics are printed, and an error gives the exit code.
pub(super) fn analyze_one(
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

/// [`compile`] for a command that reports on the code rather than writing it (`emulate`,
/// `project`, `advise`): nothing printed but errors, and `--size` names that are not sizes
/// of the code refused.
pub(super) fn compile_quietly(
    input: &InputArgs,
    device: &Device,
    source: RecipeSource,
    params: &[(String, String)],
    sizes: &[(String, i64)],
    err: &mut dyn Write,
    color: bool,
) -> Result<Compiled, i32> {
    let compiled = compile(
        input,
        device,
        source,
        params,
        &mut std::io::sink(),
        err,
        color,
    )?;
    match super::check::refuse_unknown_sizes(compiled.program(), sizes, err) {
        Some(code) => Err(code),
        None => Ok(compiled),
    }
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
    let prune = !matches!(source, RecipeSource::GenerateAll(_));
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
        RecipeSource::Generate(sizes) | RecipeSource::GenerateAll(sizes) => {
            let (program, deps) = &programs[0];
            let r = rank_with_progress(program, deps, &macros, device, sizes, color, prune)
                .map_err(|why| {
                    let d = Diagnostic::error_nowhere(format!(
                        "gpucc found no recipe for {}: {why}",
                        program.unit.describe()
                    ))
                    .with_hint(
                        "write a recipe (recipes/README.md) and pass it with --recipe R.lua",
                    );
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
        let limits = if recipe_name == GENERATED_RECIPE {
            crate::limits::current().for_own_recipes()
        } else {
            crate::limits::current()
        };
        let result = crate::limits::with(limits, || crate::recipe::run(&recipe, t, &options))
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
    // With the sensitivity analysis of the slowest kernel, for the header (`--explain`
    // asks for every kernel's: [`explain_estimate`]).
    let estimate = units
        .first()
        .map(|(t, g)| crate::emulator::estimate_slowest(t, g, device, &[], &Default::default()));
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
    sizes: &[(String, i64)],
    color: bool,
    prune: bool,
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
        sizes,
        progress: &mut progress,
        known: None,
        on_evaluated: None,
        prune,
    };
    let r = tune::rank(program, deps, &mut options);
    bar.finish_and_clear();
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
    let ranked = match rank_with_progress(program, deps, &macros, &device, &[], color, false) {
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
