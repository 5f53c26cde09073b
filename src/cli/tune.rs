//! `gpucc tune`: searches the variants of a kernel (or a recipe's parameters) for the
//! fastest at each size asked, records every evaluation in a database, and reports the
//! best per size; `gpucc tune merge` combines databases.

use super::compile::analyze_one;
use super::compile::device;
use super::tune_gpu::{self, Measured, Timing};
use super::{InputArgs, EXIT_CHECK_NOT_RUN, EXIT_OK, EXIT_USAGE, EXIT_USER_ERROR};
use crate::device::Device;
use crate::tune::db::{self, Database, Key, Record};
use crate::tune::search::{self, SearchOptions, Searched};
use crate::tune::{format_us, RankOptions};
use clap::{Args, Subcommand};
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub(super) struct TuneArgs {
    #[command(subcommand)]
    action: Option<TuneAction>,
    #[command(flatten)]
    input: Option<InputArgs>,
    /// Tune this recipe's parameters (`param(...)` candidates) instead of gpucc's own
    /// variants.
    #[arg(long, value_name = "R.lua")]
    recipe: Option<PathBuf>,
    /// A size to tune for, one per option: `--size N=4096` (a `#define`d size),
    /// `--size ni=512,nj=512,nk=256` (sizes known at run time), `--size ni,nj,nk=512`
    /// (several names, one value). Default: the sizes as written (1024 for run-time ones).
    #[arg(long = "size", value_name = "NAME=VALUE[,...]", value_parser = parse_size_point)]
    sizes: Vec<Vec<(String, i64)>>,
    /// What judges the variants: `emulator` (the performance emulator alone: every time
    /// it prints is a prediction) or `gpu` (the emulator's search, then its fastest
    /// variants checked and timed on this machine's GPU; exits 4 without one).
    #[arg(
        long = "device",
        value_name = "emulator|gpu",
        default_value = "emulator"
    )]
    judge: String,
    /// With `--device gpu`: how many variants to time per size, the emulator's fastest
    /// first (each is built by nvcc and checked against the C on the GPU before it is
    /// timed; default 5).
    #[arg(long, value_name = "N")]
    timed: Option<usize>,
    /// The device description the emulator predicts for (benchmarks/devices/).
    #[arg(long = "emulate-as", value_name = "NAME", default_value = "h100")]
    model: String,
    /// Stop after this many new evaluations per size (`40`) or this long in all (`90s`,
    /// `5m`, `1h`); the report says when the search was cut short.
    #[arg(long, value_name = "RUNS|DURATION", value_parser = parse_budget)]
    budget: Option<Budget>,
    /// The tuning database: read first (what it holds is not evaluated again), appended
    /// to as each evaluation ends.
    /// (Default: `gpucc-tune.jsonl` in the current directory.)
    #[arg(long, value_name = "FILE")]
    db: Option<PathBuf>,
    /// Evaluate every candidate, none skipped by the lower bound.
    #[arg(long)]
    exhaustive: bool,
    /// Search the i-th of n shares of the candidates (`--shard 2/8`), for a search spread
    /// over machines; each shard writes its own database (default
    /// `gpucc-tune.shard-2-of-8.jsonl`), and `gpucc tune merge` combines them.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    shard: Option<(usize, usize)>,
    /// Write a Slurm job-array script that runs this search as N shards, one GPU each,
    /// and the command that merges their databases, instead of searching here.
    #[arg(long, value_name = "N:SCRIPT", value_parser = parse_slurm)]
    emit_slurm: Option<(usize, PathBuf)>,
    /// Write the best recipe of each size into this directory.
    #[arg(short = 'o', value_name = "DIR")]
    output: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand, Debug)]
enum TuneAction {
    /// Combine tuning databases (shards, machines) into one; each evaluation once.
    Merge(MergeArgs),
}

#[derive(Args, Debug)]
struct MergeArgs {
    /// The databases to combine.
    #[arg(required = true, value_name = "DB.jsonl")]
    inputs: Vec<PathBuf>,
    /// Where to write the result (may be one of the inputs).
    #[arg(short = 'o', value_name = "OUT.jsonl")]
    output: PathBuf,
}

#[derive(Clone, Copy, Debug)]
enum Budget {
    Runs(usize),
    Time(Duration),
}

impl TuneArgs {
    pub(super) fn limits(&self) -> crate::limits::Limits {
        self.input
            .as_ref()
            .map_or_else(crate::limits::Limits::default, InputArgs::limits)
    }
}

/// `2/8` (1-based) to `(1, 8)`.
fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("`{text}` is not a shard (I/N with 1 <= I <= N, as `2/8`)");
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n) = (
        i.trim().parse::<usize>().map_err(|_| bad())?,
        n.trim().parse::<usize>().map_err(|_| bad())?,
    );
    if i == 0 || n == 0 || i > n {
        return Err(bad());
    }
    Ok((i - 1, n))
}

/// `8:tune.sbatch`.
fn parse_slurm(text: &str) -> Result<(usize, PathBuf), String> {
    let bad =
        || format!("`{text}` is not N:SCRIPT (shards and the script to write, as `8:tune.sbatch`)");
    let (n, path) = text.split_once(':').ok_or_else(bad)?;
    let n = n.trim().parse::<usize>().map_err(|_| bad())?;
    if n == 0 || path.trim().is_empty() {
        return Err(bad());
    }
    Ok((n, PathBuf::from(path.trim())))
}

fn parse_budget(text: &str) -> Result<Budget, String> {
    let t = text.trim();
    if let Ok(n) = t.parse::<usize>() {
        return if n > 0 {
            Ok(Budget::Runs(n))
        } else {
            Err("a budget of 0 runs evaluates nothing".into())
        };
    }
    let (number, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    let scale = match unit {
        "s" => 1,
        "m" | "min" => 60,
        "h" => 3600,
        _ => 0,
    };
    match number.parse::<u64>() {
        Ok(n) if scale > 0 && n > 0 => Ok(Budget::Time(Duration::from_secs(n * scale))),
        _ => Err(format!(
            "`{text}` is not a budget (a number of runs, `40`, or a duration, `90s`, `5m`, `1h`)"
        )),
    }
}

/// `ni=512,nj=256` or `ni,nj,nk=512`.
fn parse_size_point(text: &str) -> Result<Vec<(String, i64)>, String> {
    let mut out: Vec<(String, i64)> = Vec::new();
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let mut pending: Vec<&str> = Vec::new();
    for part in parts {
        match part.split_once('=') {
            None => pending.push(part),
            Some((name, value)) => {
                let (name, v) = super::options::parse_size(&format!("{name}={value}"))?;
                for p in pending.drain(..) {
                    out.push((super::options::parse_size(&format!("{p}={v}"))?.0, v));
                }
                out.push((name, v));
            }
        }
    }
    if !pending.is_empty() || out.is_empty() {
        return Err(format!(
            "`{text}` gives no value to {} (expected NAME=VALUE, `ni=512,nj=512` or `ni,nj=512`)",
            if pending.is_empty() {
                "any name".to_string()
            } else {
                pending.join(", ")
            }
        ));
    }
    Ok(out)
}

pub(super) fn tune_command(
    a: &TuneArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
    color: bool,
) -> i32 {
    if let Some(TuneAction::Merge(m)) = &a.action {
        return merge_command(m, out, err);
    }
    let Some(input) = &a.input else {
        let _ = writeln!(
            err,
            "error: gpucc tune needs a C file\n  = hint: gpucc tune FILE.c --size N=4096, or gpucc tune merge A.jsonl B.jsonl -o OUT.jsonl"
        );
        return EXIT_USAGE;
    };
    match a.judge.as_str() {
        "emulator" => {}
        "gpu" => {}
        other => {
            let _ = writeln!(
                err,
                "error: --device {other}: gpucc tune runs on `emulator` or `gpu`\n  = hint: the device the emulator predicts for is --emulate-as NAME (h100, h200, ...)"
            );
            return EXIT_USAGE;
        }
    }
    match (a.judge.as_str(), a.timed) {
        ("gpu", Some(0)) => {
            let _ = writeln!(
                err,
                "error: --timed 0 would time nothing\n  = hint: --timed N times the emulator's N fastest variants; --device emulator times none"
            );
            return EXIT_USAGE;
        }
        ("emulator", Some(_)) => {
            let _ = writeln!(
                err,
                "error: --timed counts the variants timed on a GPU\n  = hint: add `--device gpu`"
            );
            return EXIT_USAGE;
        }
        _ => {}
    }
    let timing = match a.judge.as_str() {
        "gpu" => match Timing::find(
            a.timed.unwrap_or(tune_gpu::TIMED_VARIANTS),
            tune_gpu::TIMED_LAUNCHES,
        ) {
            Ok(t) => Some(t),
            Err(why) => {
                let _ = writeln!(
                    err,
                    "error: {why}\n  = hint: --device emulator ranks by the emulator alone (predictions, not measurements)"
                );
                return EXIT_CHECK_NOT_RUN;
            }
        },
        _ => None,
    };
    let device = match device(&a.model, err) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let recipe = match &a.recipe {
        None => None,
        Some(path) => match std::fs::read_to_string(path) {
            Ok(text) => Some(text),
            Err(e) => {
                let _ = writeln!(
                    err,
                    "error: cannot read the recipe `{}`: {e}\n  = hint: check the path",
                    path.display()
                );
                return EXIT_USER_ERROR;
            }
        },
    };
    let db_path = a.db.clone().unwrap_or_else(|| match a.shard {
        Some((i, n)) => PathBuf::from(format!("gpucc-tune.shard-{}-of-{n}.jsonl", i + 1)),
        None => PathBuf::from("gpucc-tune.jsonl"),
    });
    if let Some((n, script)) = &a.emit_slurm {
        return emit_slurm(a, input, *n, script, out, err);
    }
    let mut database = match Database::open(&db_path) {
        Ok(d) => d,
        Err(e) => {
            let _ = writeln!(
                err,
                "error: {e}\n  = hint: name another database with --db FILE, or move this one aside"
            );
            return EXIT_USER_ERROR;
        }
    };
    let kernel = kernel_name(input, recipe.as_deref());
    let points = if a.sizes.is_empty() {
        vec![Vec::new()]
    } else {
        a.sizes.clone()
    };
    let deadline = match a.budget {
        Some(Budget::Time(d)) => Some(Instant::now() + d),
        _ => None,
    };
    let runs = match a.budget {
        Some(Budget::Runs(n)) => Some(n),
        _ => None,
    };
    let mut reports = Vec::new();
    for point in &points {
        let job = Job {
            input,
            device: &device,
            recipe: a.recipe.as_deref().zip(recipe.as_deref()),
            exhaustive: a.exhaustive,
            shard: a.shard,
            kernel: &kernel,
            runs,
            deadline,
            timing: timing.as_ref(),
        };
        let size = match tune_size(&job, point, &mut database, err, color) {
            Ok(s) => s,
            Err(code) => return code,
        };
        reports.push(size);
    }
    if let Some(dir) = &a.output {
        if let Err(e) = std::fs::create_dir_all(dir) {
            let _ = writeln!(err, "error: cannot create `{}`: {e}", dir.display());
            return EXIT_USER_ERROR;
        }
        let stem = input.file.file_stem().map_or_else(
            || "kernel".to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        for r in &mut reports {
            let name = if r.label.is_empty() {
                format!("{stem}.lua")
            } else {
                format!(
                    "{stem}-{}.lua",
                    r.label.replace(['=', ','], "").replace(' ', "-")
                )
            };
            let path = dir.join(name);
            // The fastest measured, where the GPU timed some.
            let (mut text, params) = match r.measured.as_ref().and_then(|m| m.best()) {
                Some(best) => (
                    best.recipe.clone(),
                    crate::tune::marked_params(&best.recipe),
                ),
                None => (r.searched.recipe.clone(), r.searched.params.clone()),
            };
            if !params.is_empty() {
                let values: Vec<String> =
                    params.iter().map(|(n, v)| format!("-P {n}={v}")).collect();
                text = format!("-- Tuned values (gpucc tune): {}\n{text}", values.join(" "));
            }
            if let Err(e) = std::fs::write(&path, text) {
                let _ = writeln!(err, "error: cannot write `{}`: {e}", path.display());
                return EXIT_USER_ERROR;
            }
            r.written = Some(path);
        }
    }
    let text = if a.json {
        json_report(input, &device, &db_path, &reports)
    } else {
        text_report(input, &device, &db_path, &reports)
    };
    let _ = write!(out, "{text}");
    EXIT_OK
}

/// What tuning at one size found.
pub(super) struct SizeReport {
    /// `ni=512, nj=512` (empty: the sizes as written).
    pub label: String,
    pub searched: Searched,
    /// With `--device gpu`: the variants timed.
    pub measured: Option<Measured>,
    written: Option<PathBuf>,
    /// With a user's recipe: the command line that compiles the best values.
    replay: Option<String>,
}

/// A kernel's name in the database: the file name and the hash of what makes its code
/// (its text, macros, function and recipe).
pub(super) fn kernel_name(input: &InputArgs, recipe: Option<&str>) -> String {
    let text = std::fs::read_to_string(&input.file).unwrap_or_default();
    let mut identity = text.clone();
    for (n, v) in &input.define {
        identity.push_str(&format!("\n-D {n}={v}"));
    }
    if let Some(f) = &input.function {
        identity.push_str(&format!("\n--function {f}"));
    }
    if let Some(r) = recipe {
        identity.push_str(&format!("\n--recipe\n{r}"));
    }
    let file_name = input.file.file_name().map_or_else(
        || input.file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    format!("{file_name}@{}", db::text_hash(&identity))
}

/// What tuning at each size shares.
pub(super) struct Job<'a> {
    pub input: &'a InputArgs,
    pub device: &'a Device,
    /// A user's recipe: its path and text.
    pub recipe: Option<(&'a std::path::Path, &'a str)>,
    pub exhaustive: bool,
    /// `(i, n)`: the i-th of n shares of the candidates (0-based).
    pub shard: Option<(usize, usize)>,
    /// The kernel's name in the database ([`Key::kernel`]).
    pub kernel: &'a str,
    pub runs: Option<usize>,
    pub deadline: Option<Instant>,
    /// With `--device gpu`: the GPU that times the emulator's fastest.
    pub timing: Option<&'a Timing>,
}

/// Tunes at one size point (the names the code keeps symbolic are sizes for the
/// emulator; any other is a macro); diagnostics are printed, an error gives the exit code.
pub(super) fn tune_size(
    job: &Job,
    point: &[(String, i64)],
    database: &mut Database,
    err: &mut dyn Write,
    color: bool,
) -> Result<SizeReport, i32> {
    let (input, device, kernel) = (job.input, job.device, job.kernel);
    // A name the code keeps symbolic is a size for the emulator; any other is a macro.
    let first = analyze_one(input, "gpucc tune tunes one", err, color)?;
    let params = first.programs[0].0.params.clone();
    let (symbolic, macros): (Vec<_>, Vec<_>) =
        point.iter().cloned().partition(|(n, _)| params.contains(n));
    let mut with = input.clone();
    with.define
        .extend(macros.iter().map(|(n, v)| (n.clone(), v.to_string())));
    let analysis = if macros.is_empty() {
        first
    } else {
        let unknown: Vec<&str> = macros
            .iter()
            .map(|(n, _)| n.as_str())
            .filter(|n| first.macros.get(n).is_none())
            .collect();
        if !unknown.is_empty() {
            let known = if params.is_empty() {
                "the code has no sizes known only at run time".to_string()
            } else {
                format!("its sizes known at run time are {}", params.join(", "))
            };
            let _ = writeln!(
                err,
                "error: --size names {}, neither a size of the code nor a macro of `{}`\n  = note: {known}\n  = hint: name a `#define`d size or an int parameter of the function",
                unknown.join(", "),
                input.file.display()
            );
            return Err(EXIT_USAGE);
        }
        analyze_one(&with, "gpucc tune tunes one", err, color)?
    };
    let (program, deps) = &analysis.programs[0];
    let label = point
        .iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect::<Vec<_>>()
        .join(",");
    let key = Key {
        device: device.name.clone(),
        driver: "emulator".to_string(),
        gpucc: env!("CARGO_PKG_VERSION").to_string(),
        kernel: kernel.to_string(),
        size: label.clone(),
    };
    let known = database.known(&key, "emulator");
    let bar = if color {
        indicatif::ProgressBar::new(0)
    } else {
        indicatif::ProgressBar::hidden()
    };
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "gpucc: tuning {prefix} {bar:30} {pos}/{len} eta {eta} {msg}",
    ) {
        bar.set_style(style);
    }
    bar.set_prefix(if label.is_empty() {
        "as written".to_string()
    } else {
        label.clone()
    });
    let best = std::cell::Cell::new(f64::INFINITY);
    let mut failed_write: Option<String> = None;
    let mut record = |text: &str, outcome: &Result<crate::emulator::Estimate, String>| {
        if let Ok(e) = outcome {
            if e.time_us < best.get() {
                best.set(e.time_us);
                bar.set_message(format!("best {} (emulated)", format_us(e.time_us)));
            }
        }
        let r = Record {
            key: key.clone(),
            source: "emulator".to_string(),
            recipe: text.to_string(),
            time_us: outcome.as_ref().ok().map(|e| e.time_us),
            below_floor_us: outcome.as_ref().ok().map(|e| e.emulated_us),
            error: outcome.as_ref().err().cloned(),
            date: db::now(),
        };
        if let Err(e) = database.append(&[r]) {
            failed_write.get_or_insert(e);
        }
    };
    let mut progress = |done: usize, total: usize| {
        bar.set_length(total.max(done) as u64);
        bar.set_position(done as u64);
    };
    let mut options = RankOptions {
        macros: &analysis.macros,
        device,
        sizes: &symbolic,
        progress: &mut progress,
        known: Some(&known),
        on_evaluated: Some(&mut record),
        prune: !job.exhaustive,
    };
    let s = SearchOptions {
        exhaustive: job.exhaustive,
        runs: job.runs,
        deadline: job.deadline,
        shard: job.shard,
    };
    let result = match job.recipe {
        Some((_, r)) => search::search_params(program, deps, &mut options, r, &s),
        None => search::search(program, deps, &mut options, &s),
    };
    bar.finish_and_clear();
    if let Some(e) = failed_write {
        let _ = writeln!(
            err,
            "error: {e}\n  = hint: name another database with --db FILE"
        );
        return Err(EXIT_USER_ERROR);
    }
    let measured = match (&result, job.timing) {
        (Ok(_), Some(timing)) => {
            tune_gpu::announce(timing, &label, err);
            let predictions = database.known(&key, "emulator");
            let gpu_key = timing.key(kernel, &label);
            let mut time = |rank: usize, recipe: &str| {
                let measured = tune_gpu::time_on_gpu(timing, &with, device, &symbolic, recipe);
                let _ = writeln!(
                    err,
                    "gpucc: the emulator's #{rank}: {}",
                    match &measured {
                        Ok(us) => format!("{} (measured)", format_us(*us)),
                        Err(why) => format!("not timed: {why}"),
                    }
                );
                measured
            };
            let runs = (timing.variants, tune_gpu::LOCAL_RUNS);
            match tune_gpu::measure(&predictions, runs, &gpu_key, database, &mut time) {
                Ok(timed) => Some(Measured {
                    gpu: timing.gpu.name.clone(),
                    timed,
                }),
                Err(e) => {
                    let _ = writeln!(
                        err,
                        "error: {e}\n  = hint: name another database with --db FILE"
                    );
                    return Err(EXIT_USER_ERROR);
                }
            }
        }
        _ => None,
    };
    match result {
        Ok(searched) => {
            let replay = job.recipe.map(|(r, _)| {
                let mut line = format!("gpucc {} --recipe {}", input.file.display(), r.display());
                for (n, v) in input
                    .define
                    .iter()
                    .cloned()
                    .chain(macros.iter().map(|(n, v)| (n.clone(), v.to_string())))
                {
                    line.push_str(&format!(" -D {n}={v}"));
                }
                for (n, v) in &searched.params {
                    line.push_str(&format!(" -P {n}={v}"));
                }
                line
            });
            Ok(SizeReport {
                label,
                searched,
                measured,
                written: None,
                replay,
            })
        }
        Err(why) => {
            let _ = writeln!(
                err,
                "error: gpucc tune found nothing to run for {} at {}: {why}\n  = hint: check the recipe, or compile with gpucc FILE.c to see the diagnostics",
                program.unit.describe(),
                if label.is_empty() { "the sizes as written" } else { &label }
            );
            Err(EXIT_USER_ERROR)
        }
    }
}

fn text_report(
    input: &InputArgs,
    device: &Device,
    db: &std::path::Path,
    reports: &[SizeReport],
) -> String {
    use std::fmt::Write as _;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "gpucc tune: {} for the {} (emulated, not measured{}); database {}",
        input.file.display(),
        device.name,
        match reports.iter().find_map(|r| r.measured.as_ref()) {
            Some(m) => format!("; then timed on the {}, measured", m.gpu),
            None => String::new(),
        },
        db.display()
    );
    for r in reports {
        let s = &r.searched;
        let _ = writeln!(
            t,
            "\nsize {}",
            if r.label.is_empty() {
                "as written"
            } else {
                &r.label
            }
        );
        let _ = writeln!(
            t,
            "  best          {:>10}  {}",
            format_us(s.estimate.time_us),
            s.description
        );
        match &s.first.1 {
            Ok(us) => {
                let _ = writeln!(
                    t,
                    "  without tune  {:>10}  {} ({})",
                    format_us(*us),
                    s.first.0,
                    if *us > s.estimate.time_us {
                        format!("the tuned best is {:.2}x faster", us / s.estimate.time_us)
                    } else {
                        "tuning found nothing faster".to_string()
                    }
                );
            }
            Err(why) => {
                let _ = writeln!(t, "  without tune  {:>10}  {} ({why})", "failed", s.first.0);
            }
        }
        let _ = writeln!(
            t,
            "  searched      {} {}, {} skipped by the lower bound; {} recipes compiled{}, {} outcomes read from the database{}",
            s.space,
            if s.params.is_empty() { "candidates (variants x tile sizes)" } else { "combinations of the recipe's parameters" },
            s.pruned,
            s.compiled,
            if s.emulated < s.compiled { format!(" ({} emulated, the others refused)", s.emulated) } else { String::new() },
            s.reused,
            if s.cut_short { "; cut short by the budget (the best found may not be the best)" } else { "" }
        );
        if !s.variants.is_empty() {
            let _ = writeln!(t, "  variants, by lower bound:");
            for v in &s.variants {
                let what = if v.skipped == v.combos {
                    "skipped".to_string()
                } else {
                    match v.best_us {
                        Some(b) => format!(
                            "best {} at {}, {}/{} tried{}",
                            format_us(b),
                            v.best_values.as_deref().unwrap_or("?"),
                            v.evaluated,
                            v.combos,
                            if v.skipped > 0 {
                                format!(", {} skipped", v.skipped)
                            } else {
                                String::new()
                            }
                        ),
                        None if v.evaluated == 0 => "not evaluated (budget)".to_string(),
                        None => format!("none compiles, {}/{} tried", v.evaluated, v.combos),
                    }
                };
                let _ = writeln!(
                    t,
                    "    bound {:>10}  {:<50}  {}",
                    format_us(v.bound.us),
                    what,
                    v.description
                );
            }
        }
        if let Some(m) = &r.measured {
            t.push_str(&m.lines());
        }
        if let Some(line) = &r.replay {
            let _ = writeln!(t, "  replay        {line}");
        }
        match &r.written {
            Some(p) => {
                let _ = writeln!(t, "  recipe        {}", p.display());
            }
            None if s.params.is_empty() => {
                let _ = writeln!(t, "  recipe:");
                for line in s.recipe.lines() {
                    let _ = writeln!(t, "    {line}");
                }
            }
            None => {}
        }
    }
    t
}

fn json_report(
    input: &InputArgs,
    device: &Device,
    db: &std::path::Path,
    reports: &[SizeReport],
) -> String {
    let sizes: Vec<serde_json::Value> = reports
        .iter()
        .map(|r| {
            let s = &r.searched;
            serde_json::json!({
                "size": r.label,
                "best_us": s.estimate.time_us,
                "best": s.description,
                "params": s.params.iter().map(|(n, v)| (n.clone(), serde_json::Value::String(v.clone()))).collect::<serde_json::Map<_, _>>(),
                "untuned_us": s.first.1.as_ref().ok(),
                "untuned": s.first.0,
                "candidates": s.space,
                "compiled": s.compiled,
                "emulated": s.emulated,
                "from_database": s.reused,
                "skipped_by_bound": s.pruned,
                "cut_short": s.cut_short,
                "variants": s.variants.iter().map(|v| serde_json::json!({
                    "nest": v.nest,
                    "variant": v.description,
                    "bound_us": v.bound.us,
                    "bound_why": v.bound.why,
                    "combinations": v.combos,
                    "evaluated": v.evaluated,
                    "skipped": v.skipped,
                    "best_us": v.best_us,
                    "best_values": v.best_values,
                    "below_bound": v.below_bound,
                })).collect::<Vec<_>>(),
                "recipe": s.recipe,
                "recipe_file": r.written.as_ref().map(|p| p.display().to_string()),
                "gpu": r.measured.as_ref().map(|m| serde_json::json!({
                    "device": m.gpu,
                    "timed": m.timed.iter().map(|t| serde_json::json!({
                        "emulator_rank": t.predicted_rank,
                        "predicted_us": t.predicted_us,
                        "measured_us": t.measured.as_ref().ok(),
                        "error": t.measured.as_ref().err(),
                        "from_database": t.reused,
                        "local_search": t.local,
                        "recipe": t.recipe,
                    })).collect::<Vec<_>>(),
                    "best_measured_us": m.best().and_then(|b| b.measured.as_ref().ok()),
                    "emulator_pick_vs_best": m.pick_ratio(),
                })),
                "replay": r.replay,
            })
        })
        .collect();
    let v = serde_json::json!({
        "file": input.file.display().to_string(),
        "device": device.name,
        "judge": if reports.iter().any(|r| r.measured.is_some()) { "gpu" } else { "emulator" },
        "database": db.display().to_string(),
        "sizes": sizes,
    });
    let mut text = serde_json::to_string_pretty(&v).unwrap_or_default();
    text.push('\n');
    text
}

/// Writes a Slurm job-array script running this search as `n` shards.
fn emit_slurm(
    a: &TuneArgs,
    input: &InputArgs,
    n: usize,
    script: &std::path::Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let quote = |t: &str| format!("'{}'", t.replace('\'', "'\\''"));
    let mut args: Vec<String> = vec![quote(&input.file.display().to_string())];
    for (flag, values) in [
        (
            "--function",
            input.function.iter().cloned().collect::<Vec<_>>(),
        ),
        (
            "-D",
            input
                .define
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect(),
        ),
        (
            "-I",
            input
                .include
                .iter()
                .map(|p| p.display().to_string())
                .collect(),
        ),
        (
            "--recipe",
            a.recipe.iter().map(|p| p.display().to_string()).collect(),
        ),
        (
            "--size",
            a.sizes
                .iter()
                .map(|p| {
                    p.iter()
                        .map(|(k, v)| format!("{k}={v}"))
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .collect(),
        ),
    ] {
        for v in values {
            args.push(format!("{flag} {}", quote(&v)));
        }
    }
    args.push(format!(
        "--device {} --emulate-as {}",
        a.judge,
        quote(&a.model)
    ));
    if a.exhaustive {
        args.push("--exhaustive".into());
    }
    let text = format!(
        "#!/bin/bash\n\
         # Written by gpucc tune --emit-slurm: the search of {file} as {n} shards, one task and\n\
         # one GPU each, every shard writing its own database. Submit it, then merge the\n\
         # databases when all shards have ended:\n\
         #   jid=$(sbatch --parsable {script})\n\
         #   sbatch --dependency=afterok:$jid --wrap 'gpucc tune merge gpucc-tune.shard-*-of-{n}.jsonl -o gpucc-tune.jsonl'\n\
         # A run of the same search on the merged database then reads every outcome.\n\
         #SBATCH --job-name=gpucc-tune\n\
         #SBATCH --array=1-{n}\n\
         #SBATCH --ntasks=1\n\
         #SBATCH --gres=gpu:1\n\
         #SBATCH --output=gpucc-tune-%a.log\n\
         set -euo pipefail\n\
         gpucc tune {args} \\\n  --shard \"$SLURM_ARRAY_TASK_ID/{n}\" --db \"gpucc-tune.shard-$SLURM_ARRAY_TASK_ID-of-{n}.jsonl\"\n",
        file = input.file.display(),
        script = script.display(),
        args = args.join(" "),
    );
    if let Err(e) = std::fs::write(script, text) {
        let _ = writeln!(err, "error: cannot write `{}`: {e}", script.display());
        return EXIT_USER_ERROR;
    }
    let _ = writeln!(
        out,
        "gpucc tune: wrote {} ({n} shards); submit it with sbatch, then merge (the script says how)",
        script.display()
    );
    EXIT_OK
}

fn merge_command(m: &MergeArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    match db::merge(&m.inputs, &m.output) {
        Ok(r) => {
            let _ = writeln!(
                out,
                "gpucc tune merge: {} records read from {} file{}, {} written to {} ({} duplicates dropped)",
                r.read,
                m.inputs.len(),
                if m.inputs.len() == 1 { "" } else { "s" },
                r.written,
                m.output.display(),
                r.read - r.written
            );
            EXIT_OK
        }
        Err(e) => {
            let _ = writeln!(err, "error: {e}\n  = hint: each line of a database is one JSON record, as gpucc tune writes them");
            EXIT_USER_ERROR
        }
    }
}
