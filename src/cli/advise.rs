//! `gpucc advise`: where a kernel loses its time and what to change, each change with its
//! estimated speedup (GPA, seed 002, `002_7273ee2baaa1853a.txt` §3.2-3.4). GPA attributes a GPU's PC samples
//! to stall reasons; here the emulator's sensitivity analysis (seed 000 §3.3, §5) says how
//! much each resource's latency or throughput lengthens each kernel, and in which code
//! region (source line). The catalogue of optimizations ([`crate::tune::advice`]) is
//! applied as recipes: the strategy generator's variants for the same code, each compiled
//! and emulated, so an estimated speedup is the emulator's prediction of the changed
//! recipe (where GPA's §3.4 estimates from the matched stall samples, equations 3-8), and
//! `--apply K` writes that recipe.

use super::compile::{compile_quietly, RecipeSource};
use super::emulate::size_values;
use super::{InputArgs, TargetArgs, EXIT_OK, EXIT_USAGE, EXIT_USER_ERROR};
use crate::emulator::{self, Detail, Estimate, KernelEmulation};
use crate::tune::advice::{self, Candidate, Kind};
use crate::tune::format_us;
use clap::Args;
use serde_json::json;
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub(super) struct AdviseArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The recipe to advise on (default: the one gpucc chooses).
    #[arg(long, value_name = "R.lua")]
    recipe: Option<PathBuf>,
    /// Give a recipe parameter a value (`-P TI=32`).
    #[arg(short = 'P', value_name = "NAME=VALUE", value_parser = super::options::parse_param, requires = "recipe")]
    param: Vec<(String, String)>,
    /// The value of a size known only at run time (`--size n=4096`); a size not given is
    /// assumed to be 1024.
    #[arg(long = "size", value_name = "NAME=VALUE", value_parser = super::options::parse_size)]
    sizes: Vec<(String, i64)>,
    /// Write the recipe of the K-th piece of advice (to -o, else to standard output).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    apply: Option<u32>,
    /// Where --apply writes the recipe.
    #[arg(short = 'o', value_name = "R.lua", requires = "apply")]
    output: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    target: TargetArgs,
}

impl AdviseArgs {
    pub fn limits(&self) -> crate::limits::Limits {
        self.input.limits()
    }
}

/// A cause of lost time: a resource's latency or throughput, in GPA's words.
fn cause(resource: &str, latency: bool) -> String {
    let pipe = |what: &str| format!("{what} ({resource})");
    match (resource, latency) {
        ("dram", true) => "global-memory latency (DRAM)".into(),
        ("dram", false) => "DRAM bandwidth".into(),
        ("l2", true) => "global-memory latency (L2 hits)".into(),
        ("l2", false) => "L2 bandwidth".into(),
        ("shared", true) => "shared-memory and L1 latency".into(),
        ("shared", false) => "shared-memory and L1 throughput (wavefronts, bank conflicts)".into(),
        ("lsu", true) => "address generation".into(),
        ("lsu", false) => "load/store issue".into(),
        ("branch", _) => "control flow".into(),
        ("barrier", true) => "barriers (waiting for the block)".into(),
        ("barrier", false) => "barriers (throughput)".into(),
        (_, true) => pipe("dependences between instructions"),
        (_, false) => pipe("a saturated pipe"),
    }
}

/// Sensitivities below this are not reported.
const SHOWN: f64 = 0.05;

/// A cause with its sensitivity and the regions it is concentrated in.
struct Cause {
    resource: String,
    latency: bool,
    sensitivity: f64,
    regions: Vec<(String, f64)>,
}

fn causes(k: &KernelEmulation) -> Vec<Cause> {
    let mut out = Vec::new();
    for s in &k.sensitivities {
        for (latency, value) in [(true, s.latency), (false, s.gap)] {
            if value < SHOWN {
                continue;
            }
            let mut regions: Vec<(String, f64)> = (k.region_sensitivities.iter())
                .filter(|r| r.resource == s.resource)
                .map(|r| (r.region.clone(), if latency { r.latency } else { r.gap }))
                .filter(|(_, v)| *v >= SHOWN / 2.0)
                .collect();
            regions.sort_by(|a, b| b.1.total_cmp(&a.1));
            regions.truncate(3);
            out.push(Cause {
                resource: s.resource.clone(),
                latency,
                sensitivity: value,
                regions,
            });
        }
    }
    out.sort_by(|a, b| b.sensitivity.total_cmp(&a.sensitivity));
    out
}

/// Fewer active warps than this share of the SM's maximum cannot hide latency.
const FEW_WARPS: f64 = 0.25;

pub(super) fn advise_command(
    a: &AdviseArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
    color: bool,
) -> i32 {
    let device = match super::compile::device(&a.target.device, err) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let source = match &a.recipe {
        Some(path) => RecipeSource::File(path),
        None => RecipeSource::GenerateAll(&a.sizes),
    };
    let current = match compile_quietly(&a.input, &device, source, &a.param, &a.sizes, err, color) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let sizes = size_values(&current.program().params, &a.sizes);
    // As the ranking emulates: streams from the kernel IR, registers estimated.
    let native = crate::emulator::ptxas::Native {
        sass: Err("as ranked".to_string()),
        ..Default::default()
    };
    let (t, g) = &current.unit;
    let estimate = match emulator::estimate(t, g, &device, &sizes, Detail::Regions, &native) {
        Ok(e) => e,
        Err(why) => {
            let _ = writeln!(
                err,
                "error: {why}\n  = hint: use smaller tiles or less shared memory"
            );
            return EXIT_USER_ERROR;
        }
    };
    // The strategy generator's variants for the same code, compiled and emulated.
    let ranked = match &current.ranked {
        Some(_) => None,
        None => match compile_quietly(
            &a.input,
            &device,
            RecipeSource::GenerateAll(&a.sizes),
            &[],
            &a.sizes,
            err,
            color,
        ) {
            Ok(c) => Some(c),
            Err(code) => return code,
        },
    };
    let generated = ranked.as_ref().unwrap_or(&current);
    let Some(ranking) = generated.ranked.as_ref() else {
        let _ = writeln!(err, "error: gpucc made no variants to compare with");
        return EXIT_USAGE;
    };
    let now = advice::features(t);
    let gt = &generated.unit.0;
    // In a fixed order (the ranking's is a hash map's), the fastest and shortest first:
    // of two variants predicted equal, the shorter recipe is suggested.
    let mut evaluated: Vec<(&String, f64)> = (ranking.evaluated.iter())
        .filter_map(|(text, outcome)| outcome.as_ref().ok().map(|(us, _)| (text, *us)))
        .collect();
    evaluated.sort_by(|a, b| {
        (a.1.total_cmp(&b.1))
            .then(a.0.len().cmp(&b.0.len()))
            .then(a.0.cmp(b.0))
    });
    let mut candidates: Vec<Candidate> = Vec::new();
    for (text, time_us) in evaluated {
        if candidates.iter().any(|c| c.recipe == *text) {
            continue;
        }
        let Ok(variant) = crate::tune::interpret(&gt.program, &gt.deps, &generated.macros, text)
        else {
            continue;
        };
        candidates.push(Candidate {
            recipe: text.clone(),
            time_us,
            changes: advice::changes(&now, &advice::features(&variant)),
        });
    }
    let chosen = advice::advice(&candidates, estimate.time_us);
    if let Some(k) = a.apply {
        let Some((kinds, c)) = chosen.get(k as usize - 1) else {
            let _ = writeln!(
                err,
                "error: there is no advice {k}: gpucc has {} piece{} of advice for this code",
                chosen.len(),
                if chosen.len() == 1 { "" } else { "s" }
            );
            return EXIT_USAGE;
        };
        let recipe = &candidates[*c].recipe;
        return match &a.output {
            None => {
                let _ = write!(out, "{recipe}");
                EXIT_OK
            }
            Some(path) => match std::fs::write(path, recipe) {
                Ok(()) => {
                    let _ = writeln!(
                        err,
                        "gpucc: wrote {} (advice {k}, {}: predicted {})",
                        path.display(),
                        names(kinds),
                        format_us(candidates[*c].time_us)
                    );
                    EXIT_OK
                }
                Err(e) => {
                    let _ = writeln!(err, "error: cannot write {}: {e}", path.display());
                    EXIT_USAGE
                }
            },
        };
    }
    let recipe_name = match &a.recipe {
        Some(p) => p.display().to_string(),
        None => "the recipe gpucc chooses".to_string(),
    };
    let what = format!(
        "{} with {recipe_name}, on the {}",
        current.program().unit.describe(),
        device.name
    );
    let text = if a.json {
        json_report(&what, &estimate, &candidates, &chosen, &current.recipe_text)
    } else {
        text_report(&what, &estimate, &candidates, &chosen, &current.recipe_text)
    };
    let _ = write!(out, "{text}");
    EXIT_OK
}

/// `register tiles + unroll`.
fn names(kinds: &[Kind]) -> String {
    let v: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
    v.join(" + ")
}

/// The strongest of the current kernels' sensitivities to the resources `kind` addresses.
fn evidence(e: &Estimate, kind: Kind) -> Option<(String, f64)> {
    let mut best: Option<(String, f64)> = None;
    for k in &e.kernels {
        let share = k.time_us / e.time_us.max(f64::MIN_POSITIVE);
        for s in k
            .sensitivities
            .iter()
            .filter(|s| kind.addresses().contains(&s.resource.as_str()))
        {
            for (latency, v) in [(true, s.latency), (false, s.gap)] {
                let v = v * share;
                if v >= SHOWN && best.as_ref().is_none_or(|(_, b)| v > *b) {
                    best = Some((cause(&s.resource, latency), v));
                }
            }
        }
        if kind == Kind::Shape && k.occupancy < FEW_WARPS {
            return Some((
                format!("too few warps ({} per SM)", k.active_warps),
                1.0 - k.occupancy,
            ));
        }
    }
    best
}

fn text_report(
    what: &str,
    e: &Estimate,
    candidates: &[Candidate],
    chosen: &[(Vec<Kind>, usize)],
    recipe: &str,
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Advice for {what} (seed 002): times predicted by the emulator, not measured"
    );
    let _ = writeln!(s, "\npredicted now: {}", format_us(e.time_us));
    let _ = writeln!(
        s,
        "\nWhere the time goes (the emulator's sensitivity of each kernel's time to each cause: 1.00 = 10% more of it, 10% more time):"
    );
    for k in &e.kernels {
        let _ = writeln!(
            s,
            "  kernel {}: {} ({:.0}% of the total), {} warp{} per SM ({:.0}% occupancy){}",
            k.work.name,
            format_us(k.time_us),
            100.0 * k.time_us / e.time_us.max(f64::MIN_POSITIVE),
            k.active_warps,
            if k.active_warps == 1 { "" } else { "s" },
            100.0 * k.occupancy,
            if k.occupancy < FEW_WARPS {
                ": too few warps to hide latency"
            } else {
                ""
            }
        );
        let list = causes(k);
        if list.is_empty() {
            let _ = writeln!(s, "    no cause above {SHOWN:.2}");
        }
        for c in list {
            let regions: Vec<String> = (c.regions.iter())
                .map(|(r, v)| format!("{r} {v:.2}"))
                .collect();
            let _ = writeln!(
                s,
                "    {:<62} {:.2}{}",
                cause(&c.resource, c.latency),
                c.sensitivity,
                if regions.is_empty() {
                    String::new()
                } else {
                    format!("   ({})", regions.join(", "))
                }
            );
        }
    }
    if chosen.is_empty() {
        let _ = writeln!(
            s,
            "\nNo advice: none of the {} variants gpucc compiled for this code is predicted faster.",
            candidates.len()
        );
        return s;
    }
    let _ = writeln!(
        s,
        "\nAdvice, fastest first ({} variants compiled and emulated; `--apply K -o R.lua` writes advice K's recipe):",
        candidates.len()
    );
    for (n, (kinds, c)) in chosen.iter().enumerate() {
        let cand = &candidates[*c];
        let _ = writeln!(
            s,
            "\n  {}. {}: {:.2}x, {} instead of {}",
            n + 1,
            names(kinds),
            e.time_us / cand.time_us,
            format_us(cand.time_us),
            format_us(e.time_us)
        );
        // The part of the gain that is the advice's own, where the variant also makes
        // other changes (a shape alone is a parameter: not compared apart).
        let others =
            (cand.changes.iter()).any(|x| !kinds.contains(&x.kind) && x.kind != Kind::Shape);
        if others {
            match advice::without(candidates, *c, kinds, e.time_us) {
                Some(base) => {
                    let _ = writeln!(
                        s,
                        "     of which {}: {:.2}x (the other changes alone: {})",
                        names(kinds),
                        base / cand.time_us,
                        format_us(base)
                    );
                }
                None => {
                    let _ = writeln!(
                        s,
                        "     (gpucc's variants make it only with the other changes below)"
                    );
                }
            }
        }
        for change in &cand.changes {
            let _ = writeln!(s, "     - {}", change.what);
        }
        for kind in kinds {
            if let Some((cause, v)) = evidence(e, *kind) {
                let _ = writeln!(s, "     {} addresses: {cause} ({v:.2})", kind.name());
            }
        }
        let _ = writeln!(s, "     recipe edit:");
        for line in diff(recipe, &cand.recipe) {
            let _ = writeln!(s, "       {line}");
        }
    }
    s
}

fn json_report(
    what: &str,
    e: &Estimate,
    candidates: &[Candidate],
    chosen: &[(Vec<Kind>, usize)],
    recipe: &str,
) -> String {
    let kernels: Vec<serde_json::Value> = (e.kernels.iter())
        .map(|k| {
            json!({
                "name": k.work.name,
                "time_us": k.time_us,
                "active_warps": k.active_warps,
                "occupancy": k.occupancy,
                "causes": causes(k).iter().map(|c| json!({
                    "cause": cause(&c.resource, c.latency),
                    "resource": c.resource,
                    "mode": if c.latency { "latency" } else { "throughput" },
                    "sensitivity": c.sensitivity,
                    "regions": c.regions.iter().map(|(r, v)| json!({"region": r, "sensitivity": v})).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let advice: Vec<serde_json::Value> = (chosen.iter().enumerate())
        .map(|(n, (kinds, c))| {
            let cand = &candidates[*c];
            json!({
                "rank": n + 1,
                "optimizations": kinds.iter().map(|k| k.name()).collect::<Vec<_>>(),
                "changes": cand.changes.iter().map(|x| x.what.clone()).collect::<Vec<_>>(),
                "predicted_us": cand.time_us,
                "speedup": e.time_us / cand.time_us,
                "own_speedup": advice::without(candidates, *c, kinds, e.time_us).map(|b| b / cand.time_us),
                "addresses": kinds.iter().filter_map(|k| evidence(e, *k)).map(|(c, v)| json!({"cause": c, "sensitivity": v})).collect::<Vec<_>>(),
                "recipe": cand.recipe,
                "edit": diff(recipe, &cand.recipe),
            })
        })
        .collect();
    let doc = json!({
        "advice_for": what,
        "times": "predicted by the emulator, not measured",
        "predicted_us": e.time_us,
        "kernels": kernels,
        "variants_compared": candidates.len(),
        "advice": advice,
    });
    format!(
        "{}\n",
        serde_json::to_string_pretty(&doc).unwrap_or_default()
    )
}

/// The lines of `to` against those of `from`: `- ` removed, `+ ` added (a longest common
/// subsequence of the lines is kept; comments and blank lines are left out).
fn diff(from: &str, to: &str) -> Vec<String> {
    let keep = |l: &&str| {
        let t = l.trim();
        !t.is_empty() && !t.starts_with("--")
    };
    let a: Vec<&str> = from.lines().filter(keep).collect();
    let b: Vec<&str> = to.lines().filter(keep).collect();
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i].trim() == b[j].trim() {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i].trim() == b[j].trim() {
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push(format!("+ {}", b[j]));
            j += 1;
        } else {
            out.push(format!("- {}", a[i]));
            i += 1;
        }
    }
    out
}
