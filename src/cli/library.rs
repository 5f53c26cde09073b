//! `gpucc library`: tunes a function at each size asked (or reads the tuning database),
//! and writes a library of its variants with a dispatcher by size class, a fallback, a
//! Makefile, a manifest and a test program; every variant is checked against the C on the
//! CPU runtime before anything is written.

use super::compile::{compile, device, RecipeSource};
use super::library_files::{rename_identifier, render, test_inputs, TEST_SIZE};
use super::specialise::{specialise, Specialised};
use super::tune::{kernel_name, tune_size, Job};
use super::tune_gpu::{self, Timing};
use super::{InputArgs, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, EXIT_USER_ERROR};
use crate::frontend::UnitKind;
use crate::poly::Program;
use crate::tune::db::Database;
use crate::tune::format_us;
use crate::tune::search::Searched;
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub(super) struct LibraryArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The sizes to tune for: `N=256..8192*2` (a geometric range: 256, 512, ..., 8192),
    /// `N=256,1024,4096` (a list), `ni,nj,nk=256..2048*2` (several sizes, one value);
    /// repeated, the combinations of all.
    #[arg(long = "sizes", value_name = "NAMES=VALUES", required = true, value_parser = parse_sizes)]
    sizes: Vec<(Vec<String>, Vec<i64>)>,
    /// The directory to write the library into (created if missing).
    #[arg(short = 'o', value_name = "DIR")]
    output: PathBuf,
    /// The library's name and entry point (default: the function's name).
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// What judges the variants: `emulator` (predictions) or `gpu` (the emulator's five
    /// fastest of each size class checked and timed on this machine's GPU; exits 4 without
    /// one).
    #[arg(
        long = "device",
        value_name = "emulator|gpu",
        default_value = "emulator"
    )]
    judge: String,
    /// The device description the emulator predicts for (benchmarks/devices/).
    #[arg(long = "emulate-as", value_name = "NAME", default_value = "h100")]
    model: String,
    /// New evaluations allowed per size, at most.
    #[arg(long, value_name = "RUNS")]
    budget: Option<usize>,
    /// The tuning database (as `gpucc tune`'s).
    #[arg(long, value_name = "FILE", default_value = "gpucc-tune.jsonl")]
    db: PathBuf,
}

/// `N=256..8192*2`, `N=256,512`, `ni,nj=64..256*2`.
fn parse_sizes(text: &str) -> Result<(Vec<String>, Vec<i64>), String> {
    let (names, values) = text.split_once('=').ok_or_else(|| {
        format!("`{text}` has no `=` (expected NAMES=VALUES, as `N=256..8192*2`)")
    })?;
    let names: Vec<String> = names.split(',').map(|n| n.trim().to_string()).collect();
    for n in &names {
        let valid = n
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(format!("`{n}` is not a size name"));
        }
    }
    let number = |t: &str| {
        t.trim()
            .parse::<i64>()
            .ok()
            .filter(|v| *v > 0)
            .ok_or_else(|| format!("`{t}` in `{text}` is not a positive integer"))
    };
    let values = if let Some((range, factor)) = values.split_once('*') {
        let (low, high) = range
            .split_once("..")
            .ok_or_else(|| format!("`{values}`: a range is LOW..HIGH*FACTOR, as 256..8192*2"))?;
        let (low, high, factor) = (number(low)?, number(high)?, number(factor)?);
        if factor < 2 || high < low {
            return Err(format!(
                "`{values}`: a range needs LOW <= HIGH and a FACTOR of 2 or more"
            ));
        }
        let mut out = vec![low];
        while let Some(next) = out.last().and_then(|v| v.checked_mul(factor)) {
            if next > high || out.len() >= 64 {
                break;
            }
            out.push(next);
        }
        out
    } else {
        values
            .split(',')
            .map(number)
            .collect::<Result<Vec<_>, _>>()?
    };
    Ok((names, values))
}

/// One variant of the library.
struct Variant {
    recipe: String,
    description: String,
    kernels: String,
    host: String,
    /// The macros that fix its sizes (`#define GPUCC_C0_m 4096`).
    defines: String,
    /// The arguments the dispatcher passes it (with the casts to its fixed-size arrays);
    /// `None`: the entry point's own (the fallback, for any size).
    call: Option<String>,
}

/// A size class: its sizes, the search, and the measured time of its variant (GPU only).
type Class = (Vec<(String, i64)>, Searched, Option<f64>);

pub(super) fn library_command(
    a: &LibraryArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
    color: bool,
) -> i32 {
    let timing = match a.judge.as_str() {
        "emulator" => None,
        "gpu" => match Timing::find(tune_gpu::TIMED_VARIANTS, tune_gpu::TIMED_LAUNCHES) {
            Ok(t) => Some(t),
            Err(why) => {
                let _ = writeln!(
                    err,
                    "error: {why}\n  = hint: --device emulator tunes by the emulator alone"
                );
                return super::EXIT_CHECK_NOT_RUN;
            }
        },
        other => {
            let _ = writeln!(
                err,
                "error: --device {other}: gpucc library runs on `emulator` or `gpu`"
            );
            return EXIT_USAGE;
        }
    };
    let device = match device(&a.model, err) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let analysis = match super::compile::analyze_one(&a.input, "a library holds one", err, color) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let program = analysis.programs[0].0.clone();
    if let Err(why) = suits_a_library(&program, &a.sizes) {
        let _ = writeln!(err, "error: {why}");
        return EXIT_USAGE;
    }
    let name = a
        .name
        .clone()
        .unwrap_or_else(|| program.unit.function.clone());
    if !is_identifier(&name) {
        let _ = writeln!(
            err,
            "error: --name {name}: a library name is a C identifier"
        );
        return EXIT_USAGE;
    }
    let size_names: Vec<String> = program.params.clone();
    let points = points(&a.sizes, &size_names);
    let mut database = match Database::open(&a.db) {
        Ok(d) => d,
        Err(e) => {
            let _ = writeln!(
                err,
                "error: {e}\n  = hint: name another database with --db FILE"
            );
            return EXIT_USER_ERROR;
        }
    };
    let original = std::fs::read_to_string(&a.input.file).unwrap_or_default();
    let scratch = std::env::temp_dir().join(format!("gpucc-library-{}", std::process::id()));
    let file_name = a
        .input
        .file
        .file_name()
        .map_or_else(|| "kernel.c".into(), |n| n.to_os_string());
    // Each size class: the function specialised to its sizes, tuned, checked, compiled.
    let mut variants: Vec<Variant> = Vec::new();
    let mut classes: Vec<Class> = Vec::new();
    let mut helpers = (false, false, false);
    for (k, point) in points.iter().enumerate() {
        let label = label(point);
        let _ = writeln!(
            err,
            "gpucc: library {name}: tuning size class {} of {} ({label})",
            k + 1,
            points.len()
        );
        let Some(spec) = specialise(&original, &program.unit.function, point, k) else {
            let _ = writeln!(
                err,
                "error: `{}` is not in `{}`",
                program.unit.function,
                a.input.file.display()
            );
            return EXIT_USER_ERROR;
        };
        let dir = scratch.join(format!("class{k}"));
        let path = dir.join(&file_name);
        if let Err(e) =
            std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&path, &spec.text))
        {
            let _ = writeln!(err, "error: cannot write `{}`: {e}", path.display());
            return EXIT_USER_ERROR;
        }
        let mut input = a.input.clone();
        input.file = path.clone();
        // The file's own headers, from where it was.
        if let Some(parent) = a.input.file.parent().filter(|p| !p.as_os_str().is_empty()) {
            input.include.insert(0, parent.to_path_buf());
        } else {
            input.include.insert(0, PathBuf::from("."));
        }
        let kernel = kernel_name(&input, None);
        let job = Job {
            input: &input,
            device: &device,
            recipe: None,
            exhaustive: false,
            shard: None,
            kernel: &kernel,
            runs: a.budget,
            deadline: None,
            timing: timing.as_ref(),
        };
        let report = match tune_size(&job, &[], &mut database, err, color) {
            Ok(r) => r,
            Err(code) => {
                let _ = writeln!(
                    err,
                    "  = note: size class {k} ({label}), {} specialised to these sizes",
                    program.unit.function
                );
                return code;
            }
        };
        // The fastest measured where the GPU timed some, else the emulator's pick.
        let measured = report.measured.as_ref().and_then(|m| m.best()).cloned();
        let recipe = match &measured {
            Some(best) => best.recipe.clone(),
            None => report.searched.recipe.clone(),
        };
        // The check gpucc FILE.c --recipe R.lua --verify makes (at reduced sizes).
        let _ = writeln!(
            err,
            "gpucc: library {name}: checking size class {k} against the C on the CPU"
        );
        if let Err(code) = check_specialised(&input, &recipe, &dir, &a.model, err) {
            return code;
        }
        let (built, uses) =
            match build_variant(&input, &device, &recipe, &name, variants.len(), err, color) {
                Ok(b) => b,
                Err(code) => return code,
            };
        helpers = (helpers.0 | uses.0, helpers.1 | uses.1, helpers.2 | uses.2);
        let call = specialised_call(&program, &built.program, &spec);
        variants.push(Variant {
            recipe,
            description: match &measured {
                Some(best) if best.predicted_rank > 1 => format!(
                    "the emulator's #{} variant, measured fastest",
                    best.predicted_rank
                ),
                _ => report.searched.description.clone(),
            },
            kernels: built.kernels,
            host: built.host,
            defines: spec.defines,
            call: Some(call),
        });
        let measured_us = measured.and_then(|b| b.measured.ok());
        classes.push((point.clone(), report.searched, measured_us));
    }
    let _ = std::fs::remove_dir_all(&scratch);
    // The fallback: gpucc's own choice at the sizes it assumes (1024), for sizes known at
    // run time.
    let fallback = match compile(
        &a.input,
        &device,
        RecipeSource::Generate(&[]),
        &[],
        &mut Vec::new(),
        err,
        color,
    ) {
        Ok(c) => c.recipe_text,
        Err(code) => return code,
    };
    let (built, uses) = match build_variant(
        &a.input,
        &device,
        &fallback,
        &name,
        variants.len(),
        err,
        color,
    ) {
        Ok(b) => b,
        Err(code) => return code,
    };
    helpers = (helpers.0 | uses.0, helpers.1 | uses.1, helpers.2 | uses.2);
    let header = built.header.clone();
    variants.push(Variant {
        recipe: fallback,
        description: "gpucc's own choice at the sizes it assumes, for sizes known at run time"
            .to_string(),
        kernels: built.kernels,
        host: built.host,
        defines: String::new(),
        call: None,
    });
    let variant_of: Vec<usize> = (0..variants.len()).collect();
    let inputs = match test_inputs(&program) {
        Ok(i) => i,
        Err(why) => {
            let _ = writeln!(err, "error: {why}");
            return EXIT_USAGE;
        }
    };
    // The header may start with a comment on its pointers: the parameters follow the name.
    let call = format!("{}(", program.unit.function);
    let params = header
        .rfind(&call)
        .map(|l| l + call.len())
        .zip(header.rfind(')'))
        .filter(|(l, r)| l <= r)
        .map(|(l, r)| header[l..r].trim().to_string())
        .unwrap_or_default();
    let args: Vec<String> = program
        .unit
        .params
        .iter()
        .map(|p| p.declarator.name.clone())
        .collect();
    let fallback_variant = *variant_of.last().expect("the fallback has a variant");
    let class_context: Vec<serde_json::Value> = classes
        .iter()
        .enumerate()
        .map(|(k, (point, s, measured_us))| {
            serde_json::json!({
                "index": k,
                "label": label(point),
                "values": point.iter().map(|(_, v)| v.to_string()).collect::<Vec<_>>(),
                "sizes": point.iter().map(|(n, v)| (n.clone(), serde_json::json!(v))).collect::<serde_json::Map<_, _>>(),
                "variant": variant_of[k],
                "call": variants[k].call,
                "condition": point.iter().map(|(n, v)| format!("{n} == {v}")).collect::<Vec<_>>().join(" && "),
                "predicted": format!("{} (emulated)", format_us(s.estimate.time_us)),
                "predicted_us": s.estimate.time_us,
                "measured_us": measured_us,
            })
        })
        .collect();
    let mut context = tera::Context::new();
    context.insert("name", &name);
    context.insert("function", &program.unit.function);
    context.insert("file", &a.input.file.display().to_string());
    context.insert("version", env!("CARGO_PKG_VERSION"));
    context.insert("device", &device.name);
    context.insert("arch", &device.arch);
    let judge_note = match &timing {
        Some(t) => format!(
            "tuned on the {}: the emulator's fastest variants measured",
            t.gpu.name
        ),
        None => "tuned by the emulator: predicted times, not measured".to_string(),
    };
    context.insert("judge_note", &judge_note);
    context.insert("guard", &format!("{}_H", name.to_uppercase()));
    context.insert("params", &params);
    context.insert("args", &args.join(", "));
    context.insert(
        "reference_args",
        &args
            .iter()
            .map(|n| {
                if inputs.iter().any(|i| i.name == *n && i.kind == "array") {
                    format!("reference_{n}")
                } else {
                    n.clone()
                }
            })
            .collect::<Vec<_>>()
            .join(", "),
    );
    context.insert(
        "size_params",
        &size_names
            .iter()
            .map(|n| format!("int {n}"))
            .collect::<Vec<_>>()
            .join(", "),
    );
    context.insert("sizes", &size_names);
    context.insert(
        "sizes_as_double",
        &size_names
            .iter()
            .map(|n| format!("(double){n}"))
            .collect::<Vec<_>>(),
    );
    context.insert("classes", &class_context);
    // Sixteen times the largest tuned value of each size (capped: an int).
    context.insert(
        "far_sizes",
        &(0..size_names.len())
            .map(|s| {
                let high = classes.iter().map(|(p, _, _)| p[s].1).max().unwrap_or(1);
                high.saturating_mul(16).min(i32::MAX as i64).to_string()
            })
            .collect::<Vec<_>>(),
    );
    context.insert("last_class", &(classes.len() - 1));
    context.insert("fallback", &fallback_variant);
    context.insert("inputs", &inputs);
    context.insert("test_size", &TEST_SIZE);
    context.insert("test_sizes", &vec![TEST_SIZE.to_string(); size_names.len()]);
    // The first class's sizes, the last one plus 1: tuned for none.
    context.insert(
        "near_sizes",
        &classes[0]
            .0
            .iter()
            .enumerate()
            .map(|(k, (_, v))| if k + 1 == size_names.len() { v + 1 } else { *v }.to_string())
            .collect::<Vec<_>>(),
    );
    context.insert(
        "prelude",
        &crate::cuda::prelude_with_helpers(helpers.0, helpers.1, helpers.2),
    );
    context.insert(
        "variants",
        &variants
            .iter()
            .enumerate()
            .map(|(k, v)| {
                serde_json::json!({
                    "index": k,
                    "description": v.description,
                    "defines": v.defines.trim_end(),
                    "kernels": v.kernels.trim_end(),
                    "host": v.host.trim_end(),
                })
            })
            .collect::<Vec<_>>(),
    );
    // The fallback, checked on the CPU runtime through the dispatcher, before writing (the
    // size classes were checked at reduced sizes above).
    for (k, v) in variants
        .iter()
        .enumerate()
        .filter(|(_, v)| v.call.is_none())
    {
        let class = -1;
        let _ = writeln!(
            err,
            "gpucc: library {name}: checking the fallback against the C on the CPU, through the dispatcher"
        );
        context.insert("entry", &false);
        let probe = match render("library.cu", &context) {
            Ok(t) => format!(
                "{t}\n/* The check calls the C function's name. */\nvoid {}({params})\n{{\n  {name}_with_class({class}, {});\n}}\n",
                program.unit.function,
                args.join(", ")
            ),
            Err(e) => {
                let _ = writeln!(err, "error: {e}");
                return EXIT_INTERNAL;
            }
        };
        let options = a.input.check_options(&[], &[]);
        match crate::verify::check_on_cpu(&program, &probe, &options) {
            Ok(outcome) if outcome.passed() => {}
            Ok(outcome) => {
                let _ = writeln!(
                    err,
                    "error: variant {k} of the library computes something else than the C ({}); nothing was written; this is a bug in gpucc\n{}",
                    v.description,
                    crate::verify::report(&outcome)
                );
                return EXIT_INTERNAL;
            }
            Err(e) => {
                let _ = writeln!(err, "error: the check of variant {k} could not run: {e}");
                return super::EXIT_CHECK_NOT_RUN;
            }
        }
    }
    context.insert("entry", &true);
    let dir = &a.output;
    if let Err(e) = std::fs::create_dir_all(dir) {
        let _ = writeln!(err, "error: cannot create `{}`: {e}", dir.display());
        return EXIT_USER_ERROR;
    }
    let manifest = serde_json::json!({
        "name": name,
        "function": program.unit.function,
        "file": a.input.file.display().to_string(),
        "gpucc": env!("CARGO_PKG_VERSION"),
        "device": device.name,
        "times": match &timing {
            Some(t) => format!("predicted by the emulator, and measured on the {} where measured_us is given", t.gpu.name),
            None => "predicted by the emulator (emulated, not measured)".to_string(),
        },
        "date": crate::tune::db::now(),
        "sizes": size_names,
        "classes": class_context,
        "fallback": { "variant": fallback_variant },
        "variants": variants.iter().enumerate().map(|(k, v)| serde_json::json!({
            "index": k, "description": v.description, "recipe": v.recipe,
        })).collect::<Vec<_>>(),
    });
    let mut files: Vec<(String, String)> = Vec::new();
    for (template, file_name) in [
        ("header.h", format!("{name}.h")),
        ("library.cu", format!("{name}.cu")),
        ("test.cu", format!("{name}_test.cu")),
        ("Makefile", "Makefile".to_string()),
    ] {
        match render(template, &context) {
            Ok(text) => files.push((file_name, text)),
            Err(e) => {
                let _ = writeln!(err, "error: {e}");
                return EXIT_INTERNAL;
            }
        }
    }
    files.push((format!("{name}_reference.c"), original.clone()));
    files.push((
        "manifest.json".to_string(),
        serde_json::to_string_pretty(&manifest).unwrap_or_default() + "\n",
    ));
    for (file_name, text) in &files {
        let path = dir.join(file_name);
        if let Err(e) = std::fs::write(&path, text) {
            let _ = writeln!(err, "error: cannot write `{}`: {e}", path.display());
            return EXIT_USER_ERROR;
        }
    }
    let _ = writeln!(
        out,
        "gpucc library: {name} ({} size class{}, {} variant{}, checked against the C on the CPU) in {}",
        classes.len(),
        if classes.len() == 1 { "" } else { "es" },
        variants.len(),
        if variants.len() == 1 { "" } else { "s" },
        dir.display()
    );
    for (k, (point, s, measured_us)) in classes.iter().enumerate() {
        let time = match measured_us {
            Some(us) => format!("{:>10} (measured)", format_us(*us)),
            None => format!("{:>10} (emulated)", format_us(s.estimate.time_us)),
        };
        let _ = writeln!(
            out,
            "  class {k}  {:<24} variant {}  {time}  {}",
            label(point),
            variant_of[k],
            variants[variant_of[k]].description
        );
    }
    let _ = writeln!(
        out,
        "  fallback  {:<24} variant {fallback_variant}  (gpucc's own choice at the sizes it assumes)",
        "other sizes"
    );
    let _ = writeln!(
        out,
        "  files: {}",
        files
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        out,
        "  build: make -C {} (nvcc); test on a GPU: make -C {} test",
        dir.display(),
        dir.display()
    );
    EXIT_OK
}

/// A variant compiled for the library: its kernels (renamed `NAME_vK_...`, unique in the
/// file) and host function, the header of that function, and its program.
struct Built {
    kernels: String,
    host: String,
    header: String,
    program: Program,
}

/// Compiles `recipe` on `input` as variant `index` of library `name`; with the helpers
/// its code uses (floord, vector copies, asynchronous copies).
fn build_variant(
    input: &InputArgs,
    device: &crate::device::Device,
    recipe: &str,
    name: &str,
    index: usize,
    err: &mut dyn Write,
    color: bool,
) -> Result<(Built, (bool, bool, bool)), i32> {
    let source = RecipeSource::Text(recipe.to_string());
    let compiled = compile(input, device, source, &[], &mut Vec::new(), err, color)?;
    let file = crate::diag::SourceFile::new(
        input.file.display().to_string(),
        std::fs::read_to_string(&input.file).unwrap_or_default(),
    );
    let parts =
        crate::cuda::unit_parts(&file, &compiled.unit.0, &compiled.unit.1).map_err(|d| {
            let why = d.first().map_or("refused", |d| d.message.as_str());
            let _ = writeln!(
                err,
                "error: a variant of the library cannot be written: {why}"
            );
            EXIT_INTERNAL
        })?;
    // Kernel names unique in the file (the CPU runtime finds kernels by name).
    let mut kernels = parts.kernels;
    let mut host = parts.host;
    for k in &compiled.unit.0.kernels {
        let renamed = format!("{name}_v{index}_{}", k.name);
        kernels = rename_identifier(&kernels, &k.name, &renamed);
        host = rename_identifier(&host, &k.name, &renamed);
    }
    let uses = (parts.uses_floord, parts.uses_vectors, parts.uses_async);
    Ok((
        Built {
            kernels,
            host,
            header: parts.header,
            program: compiled.unit.0.program.clone(),
        },
        uses,
    ))
}

/// `gpucc FILE.c --recipe R.lua --verify -o ...` on a specialised file: the recipe compiled
/// again at reduced sizes and checked against the C on the CPU. On failure, what it printed
/// and its exit code.
fn check_specialised(
    input: &InputArgs,
    recipe: &str,
    dir: &std::path::Path,
    model: &str,
    err: &mut dyn Write,
) -> Result<(), i32> {
    let recipe_path = dir.join("tuned.lua");
    if let Err(e) = std::fs::write(&recipe_path, recipe) {
        let _ = writeln!(err, "error: cannot write `{}`: {e}", recipe_path.display());
        return Err(EXIT_USER_ERROR);
    }
    let args = super::CompileArgs {
        input: input.clone(),
        recipe: Some(recipe_path),
        param: Vec::new(),
        output: Some(dir.join("tuned.cu")),
        verify: true,
        no_verify: false,
        verify_size: super::check::VerifySize::Reduced(None),
        explain: false,
        json: false,
        target: super::TargetArgs {
            device: model.to_string(),
        },
        check: super::CheckArgs {
            sizes: Vec::new(),
            diagonally_dominant: false,
            links: Vec::new(),
        },
    };
    let (mut out, mut said) = (Vec::new(), Vec::new());
    let code = super::compile::compile_command(&args, &mut out, &mut said, false);
    if code != EXIT_OK {
        let _ = err.write_all(&said);
        let _ = writeln!(err, "  = note: while checking a size class of the library (its function specialised to the sizes)");
        return Err(code);
    }
    Ok(())
}

/// The arguments the dispatcher passes a specialised variant: the entry point's, with
/// the arrays cast to the variant's fixed-size array types.
fn specialised_call(entry: &Program, variant: &Program, spec: &Specialised) -> String {
    entry
        .unit
        .params
        .iter()
        .map(|param| {
            let name = &param.declarator.name;
            let Some(a) = variant.arrays.iter().find(|a| a.name == *name) else {
                return name.clone();
            };
            if a.dim_texts.len() < 2 {
                return name.clone();
            }
            let mut inner = String::new();
            for d in &a.dim_texts[1..] {
                inner.push_str(&format!("[{d}]"));
            }
            let _ = &spec.macros;
            let konst = if param.spec.is_const { "const " } else { "" };
            format!("({konst}{} (*){inner}){name}", a.elem.c_name())
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why `program` cannot be a library at these sizes, if it cannot.
fn suits_a_library(program: &Program, sizes: &[(Vec<String>, Vec<i64>)]) -> Result<(), String> {
    if !matches!(program.unit.kind, UnitKind::Function) {
        return Err(format!(
            "gpucc library makes a library of a function; {} is a `#pragma scop` region\n  = hint: name the function with --function NAME (its sizes as int parameters)",
            program.unit.describe()
        ));
    }
    if program.params.is_empty() {
        return Err(format!(
            "`{}` has no size known at run time: a library's entry point takes its sizes as int parameters\n  = hint: write the function as `void {}(int n, float A[n][n], ...)` (as examples/sgemm_sizes.c does)",
            program.unit.function, program.unit.function
        ));
    }
    for (names, _) in sizes {
        for n in names {
            if !program.params.contains(n) {
                return Err(format!(
                    "--sizes names `{n}`, which is not a size of `{}` (its sizes: {})",
                    program.unit.function,
                    program.params.join(", ")
                ));
            }
        }
    }
    let given: Vec<&String> = sizes.iter().flat_map(|(n, _)| n).collect();
    let missing: Vec<&str> = program
        .params
        .iter()
        .filter(|p| !given.contains(p))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "--sizes gives no value to {} (every size of `{}` needs one)\n  = hint: `--sizes {}=256..4096*2` gives them all the same values",
            missing.join(", "),
            program.unit.function,
            program.params.join(",")
        ));
    }
    Ok(())
}

/// The size points: every combination of the specs' values, names in the code's order.
fn points(specs: &[(Vec<String>, Vec<i64>)], order: &[String]) -> Vec<Vec<(String, i64)>> {
    let mut points: Vec<Vec<(String, i64)>> = vec![Vec::new()];
    for (names, values) in specs {
        points = points
            .into_iter()
            .flat_map(|p| {
                values.iter().map(move |v| {
                    let mut p = p.clone();
                    p.extend(names.iter().map(|n| (n.clone(), *v)));
                    p
                })
            })
            .collect();
    }
    for p in &mut points {
        p.sort_by_key(|(n, _)| order.iter().position(|o| o == n));
    }
    points
}

fn label(point: &[(String, i64)]) -> String {
    point
        .iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn is_identifier(n: &str) -> bool {
    n.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl LibraryArgs {
    pub(super) fn limits(&self) -> crate::limits::Limits {
        self.input.limits()
    }
}
