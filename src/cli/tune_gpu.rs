//! `gpucc tune --device gpu`: after the emulator's search, the recipes it predicts fastest
//! are timed on this machine's GPU, each first checked against the C on that GPU. Seed
//! 004 (§5.6) tunes on the device itself; seed 000 (§5) lets the emulator choose what is
//! worth a run. Each variant is built by nvcc and run as `gpucc verify --device gpu
//! --time` runs it (`verify::check`: one process per variant, each launch warmed up, then
//! the median of its timed launches with CUDA events). A local search follows, among the
//! predicted variants one parameter away from the fastest measured ([`measure`]). The
//! measurements join the database beside the predictions (`source: gpu`, keyed by the
//! GPU's name and its driver), so a variant is never timed twice.

use super::compile::{compile_quietly, RecipeSource};
use super::InputArgs;
use crate::tune::db::{self, Database, Key, Record};
use crate::tune::{format_us, Known};
use std::io::Write;
use std::path::PathBuf;

/// Variants timed on the GPU per size, unless `gpucc tune --timed` says otherwise.
pub(super) const TIMED_VARIANTS: usize = 5;

/// Runs of the local search after them, at most ([`measure`]).
pub(super) const LOCAL_RUNS: usize = 5;

/// Timed launches of each kernel of a variant (the median is kept).
pub(super) const TIMED_LAUNCHES: u32 = 10;

/// What times the variants: a GPU and the compiler for it.
pub(super) struct Timing {
    pub gpu: crate::gpu::Gpu,
    pub nvcc: PathBuf,
    /// Variants timed per size, the emulator's fastest first.
    pub variants: usize,
    /// Timed launches of each kernel (the median is kept).
    pub runs: u32,
}

impl Timing {
    /// The GPU to time on, or why there is none (the message for `error:`).
    pub fn find(variants: usize, runs: u32) -> Result<Timing, String> {
        let gpu = crate::gpu::probe().map_err(|why| format!("no GPU to time on: {why}"))?;
        let nvcc = crate::emulator::ptxas::nvcc().ok_or_else(|| {
            "timing on the GPU needs NVIDIA's compiler, nvcc, and none was found".to_string()
        })?;
        Ok(Timing {
            gpu,
            nvcc,
            variants,
            runs,
        })
    }

    /// The database key of this GPU's measurements of `kernel` at `size`.
    pub fn key(&self, kernel: &str, size: &str) -> Key {
        Key {
            device: self.gpu.name.clone(),
            driver: format!("CUDA {}", self.gpu.driver_cuda),
            gpucc: env!("CARGO_PKG_VERSION").to_string(),
            kernel: kernel.to_string(),
            size: size.to_string(),
        }
    }
}

/// One variant timed (or read back from the database).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Timed {
    pub recipe: String,
    /// Its place in the emulator's order (1: the emulator's pick).
    pub predicted_rank: usize,
    pub predicted_us: f64,
    /// The kernels' median times summed, or why it has none.
    pub measured: Result<f64, String>,
    /// Read from the database, not timed by this run.
    pub reused: bool,
    /// Timed by the local search: one parameter away from the best measured before it.
    pub local: bool,
}

/// What the GPU said at one size.
#[derive(Clone, Debug)]
pub(super) struct Measured {
    pub gpu: String,
    pub timed: Vec<Timed>,
}

impl Measured {
    /// The fastest variant measured.
    pub fn best(&self) -> Option<&Timed> {
        fastest(&self.timed)
    }

    /// How much slower the emulator's pick ran than the best measured (1.0: it was the
    /// best), when both were measured.
    pub fn pick_ratio(&self) -> Option<f64> {
        let pick = self.timed.iter().find(|t| t.predicted_rank == 1)?;
        Some(pick.measured.as_ref().ok()? / self.best()?.measured.as_ref().ok()?)
    }

    /// The text report's lines.
    pub fn lines(&self) -> String {
        let mut text = format!(
            "  timed on the GPU ({}; measured, each checked against the C first):\n",
            self.gpu
        );
        for t in &self.timed {
            let measured = match &t.measured {
                Ok(us) => format!(
                    "{} measured ({:.2}x the prediction)",
                    format_us(*us),
                    us / t.predicted_us
                ),
                Err(why) => format!("not timed: {why}"),
            };
            text.push_str(&format!(
                "    #{:<3} predicted {:>10} (emulated)   {measured}{}{}\n",
                t.predicted_rank,
                format_us(t.predicted_us),
                if t.local { " (local search)" } else { "" },
                if t.reused { " (from the database)" } else { "" }
            ));
        }
        match (self.best(), self.pick_ratio()) {
            (Some(best), Some(ratio)) => text.push_str(&format!(
                "  best measured: the emulator's #{} ({}); its own pick ran {ratio:.2}x that\n",
                best.predicted_rank,
                format_us(*best.measured.as_ref().unwrap())
            )),
            (Some(best), None) => text.push_str(&format!(
                "  best measured: the emulator's #{} ({}); its own pick was not measured\n",
                best.predicted_rank,
                format_us(*best.measured.as_ref().unwrap())
            )),
            (None, _) => text.push_str("  no variant could be timed\n"),
        }
        text
    }
}

/// The fastest of `timed` that was measured (the emulator's earlier pick between equals).
fn fastest(timed: &[Timed]) -> Option<&Timed> {
    timed.iter().filter(|t| t.measured.is_ok()).min_by(|a, b| {
        let (x, y) = (a.measured.as_ref().unwrap(), b.measured.as_ref().unwrap());
        x.total_cmp(y).then(a.predicted_rank.cmp(&b.predicted_rank))
    })
}

/// Times the `n` variants the emulator predicts fastest among `predictions` (by rank,
/// then recipe text), then searches around the best measured with at most `local` more
/// runs: of the predicted variants one parameter away from it ([`one_apart`]), the one
/// the emulator predicts fastest is timed next, and the search goes on from whichever is
/// then the best measured, until none is left. `time` is given the variant's place in the
/// emulator's order and its recipe; the database's measurements under `key` are taken
/// instead of timing again, and each new one is appended to it as it ends.
pub(super) fn measure(
    predictions: &Known,
    (n, local): (usize, usize),
    key: &Key,
    database: &mut Database,
    time: &mut dyn FnMut(usize, &str) -> Result<f64, String>,
) -> Result<Vec<Timed>, String> {
    let mut ranked: Vec<(&String, (f64, f64))> = predictions
        .iter()
        .filter_map(|(text, outcome)| Some((text, *outcome.as_ref().ok()?)))
        .collect();
    ranked.sort_by(|a, b| {
        a.1.partial_cmp(&b.1)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.0.cmp(b.0))
    });
    let known = database.known(key, "gpu");
    let mut timed: Vec<Timed> = Vec::new();
    let mut one = |k: usize, local: bool, timed: &mut Vec<Timed>| -> Result<(), String> {
        let (text, (predicted_us, _)) = ranked[k];
        let (measured, reused) = match known.get(text) {
            Some(outcome) => (outcome.clone().map(|(us, _)| us), true),
            None => {
                let measured = time(k + 1, text);
                database.append(&[Record {
                    key: key.clone(),
                    source: "gpu".to_string(),
                    recipe: text.clone(),
                    time_us: measured.as_ref().ok().copied(),
                    below_floor_us: None,
                    error: measured.as_ref().err().cloned(),
                    date: db::now(),
                }])?;
                (measured, false)
            }
        };
        timed.push(Timed {
            recipe: text.clone(),
            predicted_rank: k + 1,
            predicted_us,
            measured,
            reused,
            local,
        });
        Ok(())
    };
    for k in 0..n.min(ranked.len()) {
        one(k, false, &mut timed)?;
    }
    for _ in 0..local {
        let Some(best) = fastest(&timed) else {
            break;
        };
        let next = (0..ranked.len()).find(|&k| {
            !timed.iter().any(|t| t.recipe == *ranked[k].0) && one_apart(&best.recipe, ranked[k].0)
        });
        match next {
            Some(k) => one(k, true, &mut timed)?,
            None => break,
        }
    }
    Ok(timed)
}

/// A recipe's parameters and the rest of its text: each `param("NAME", {...}, DEFAULT)`
/// with its default taken out, then the values of a last `-- gpucc tune: -P NAME=V` line
/// (which `gpucc tune --recipe` writes) over those defaults.
fn parameters(recipe: &str) -> (String, Vec<(String, String)>) {
    let mut rest = String::new();
    let mut values: Vec<(String, String)> = Vec::new();
    for line in recipe.lines() {
        if line.starts_with(crate::tune::PARAM_LINE) {
            continue;
        }
        let declared = line.find("param(\"").and_then(|at| {
            let call = &line[at..];
            let name = call["param(\"".len()..].split('"').next()?.to_string();
            let close = call.rfind(')')?;
            let comma = call[..close].rfind(',')?;
            Some((
                at + comma,
                at + close,
                name,
                call[comma + 1..close].trim().to_string(),
            ))
        });
        match declared {
            Some((comma, close, name, default)) => {
                rest.push_str(&line[..comma]);
                rest.push_str(&line[close..]);
                values.push((name, default));
            }
            None => rest.push_str(line),
        }
        rest.push('\n');
    }
    for (name, value) in crate::tune::marked_params(recipe) {
        match values.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => values.push((name, value)),
        }
    }
    (rest, values)
}

/// Whether recipes `a` and `b` are the same but for the value of one parameter.
fn one_apart(a: &str, b: &str) -> bool {
    let ((rest_a, values_a), (rest_b, values_b)) = (parameters(a), parameters(b));
    rest_a == rest_b
        && values_a.len() == values_b.len()
        && values_a
            .iter()
            .zip(&values_b)
            .filter(|(x, y)| x != y)
            .count()
            == 1
}

/// Compiles `recipe` for `input` (its macros given) and checks and times it on the GPU at
/// the run-time sizes `sizes`: the kernels' median times summed, or why there are none.
pub(super) fn time_on_gpu(
    timing: &Timing,
    input: &InputArgs,
    device: &crate::device::Device,
    sizes: &[(String, i64)],
    recipe: &str,
) -> Result<f64, String> {
    let params = crate::tune::marked_params(recipe);
    let mut messages = Vec::new();
    let compiled = compile_quietly(
        input,
        device,
        RecipeSource::Text(recipe.to_string()),
        &params,
        sizes,
        &mut messages,
        false,
    )
    .map_err(|_| {
        let text = String::from_utf8_lossy(&messages);
        format!(
            "it does not compile: {}",
            text.lines().next().unwrap_or("").trim()
        )
    })?;
    let options = input.check_options(sizes, &[]);
    let on = crate::verify::On::Gpu {
        nvcc: &timing.nvcc,
        arch: &timing.gpu.arch,
        time_runs: timing.runs,
    };
    let checked = crate::verify::check(compiled.program(), &compiled.text, &options, &on)
        .map_err(|e| format!("the check could not run: {e}"))?;
    if !checked.outcome.passed() {
        return Err("it computes something else than the C on the GPU".to_string());
    }
    if checked.times.is_empty() {
        return Err("no kernel was timed".to_string());
    }
    Ok(checked.times.iter().map(|k| k.total_us).sum())
}

/// Prints what is about to be timed (a run takes seconds: nvcc, the C, the launches).
pub(super) fn announce(timing: &Timing, label: &str, err: &mut dyn Write) {
    let _ = writeln!(
        err,
        "gpucc: timing the emulator's {} fastest at {} on the GPU ({}), each checked against the C first",
        timing.variants,
        if label.is_empty() { "the sizes as written" } else { label },
        timing.gpu.name
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without a GPU the whole path runs but the launch: the recipe is compiled, the `.cu`
    /// and its check are built by nvcc, and the run fails at its first CUDA call; with
    /// one, the variant is checked and timed. A recipe that does not compile says so.
    #[test]
    fn a_variant_is_compiled_and_built_by_nvcc_as_the_check_builds_it() {
        let Some(nvcc) = crate::emulator::ptxas::nvcc() else {
            assert!(
                std::env::var_os("GPUCC_SKIP_NVCC").is_some(),
                "nvcc not found: run scripts/install-cuda-toolchain"
            );
            return;
        };
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let input = InputArgs {
            file: root.join("examples/sgemm.c"),
            function: None,
            define: vec![("N".to_string(), "64".to_string())],
            include: Vec::new(),
            limit: Vec::new(),
        };
        let device = super::super::compile::device("h100", &mut Vec::new()).unwrap();
        let probed = crate::gpu::probe();
        let timing = Timing {
            gpu: probed.clone().unwrap_or(crate::gpu::Gpu {
                name: "none".to_string(),
                arch: "sm_90".to_string(),
                driver_cuda: "13.0".to_string(),
            }),
            nvcc,
            variants: 1,
            runs: 3,
        };
        let recipe = std::fs::read_to_string(root.join("recipes/sgemm.lua")).unwrap();
        match (time_on_gpu(&timing, &input, &device, &[], &recipe), probed) {
            (Ok(us), Ok(_)) => assert!(us > 0.0),
            (Err(why), Err(_)) => assert!(
                why.starts_with("the check could not run: the generated program"),
                "{why}"
            ),
            (result, gpu) => panic!("{result:?} with {gpu:?}"),
        }
        let broken = time_on_gpu(&timing, &input, &device, &[], "tile_by_index(")
            .expect_err("a broken recipe is not timed");
        assert!(broken.starts_with("it does not compile: error"), "{broken}");
    }

    /// A folder of this test process named after `name`, with an empty database,
    /// `db.jsonl`, in it.
    fn empty_database(name: &str) -> (std::path::PathBuf, Database) {
        let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
        let path = dir.join("db.jsonl");
        let _ = std::fs::remove_file(&path);
        (dir, Database::open(&path).unwrap())
    }

    fn key() -> Key {
        Key {
            device: "GPU".into(),
            driver: "CUDA 13.0".into(),
            gpucc: "0".into(),
            kernel: "k.c@0".into(),
            size: "N=64".into(),
        }
    }

    /// Predictions of four recipes, `a` fastest; `d` failed to compile.
    fn predictions() -> Known {
        [
            ("b", Ok((20.0, 20.0))),
            ("a", Ok((10.0, 10.0))),
            ("c", Ok((30.0, 30.0))),
            ("d", Err("no".to_string())),
        ]
        .into_iter()
        .map(|(t, o)| (t.to_string(), o))
        .collect()
    }

    #[test]
    fn the_fastest_predictions_are_timed_once_and_the_misranking_is_said() {
        let (dir, mut database) = empty_database("gpucc-tune-gpu");
        let path = dir.join("db.jsonl");
        let mut asked = Vec::new();
        // The GPU ranks `b` first and cannot run `c`.
        let mut time = |_: usize, text: &str| {
            asked.push(text.to_string());
            match text {
                "a" => Ok(15.0),
                "b" => Ok(12.0),
                _ => Err("it computes something else than the C on the GPU".to_string()),
            }
        };
        let timed = measure(&predictions(), (3, 0), &key(), &mut database, &mut time).unwrap();
        let order: Vec<&str> = timed.iter().map(|t| t.recipe.as_str()).collect();
        assert_eq!(order, ["a", "b", "c"]);
        assert_eq!(asked, ["a", "b", "c"]);
        let m = Measured {
            gpu: "GPU".into(),
            timed,
        };
        assert_eq!(m.best().map(|t| t.recipe.as_str()), Some("b"));
        assert_eq!(m.pick_ratio(), Some(15.0 / 12.0));
        assert!(
            m.lines().contains("its own pick ran 1.25x that"),
            "{}",
            m.lines()
        );

        // A second run reads every measurement back (failures too) and times nothing.
        let mut database = Database::open(&path).unwrap();
        let mut nothing =
            |_: usize, text: &str| -> Result<f64, String> { panic!("timed {text} again") };
        let again = measure(&predictions(), (3, 0), &key(), &mut database, &mut nothing).unwrap();
        assert!(again.iter().all(|t| t.reused));
        assert_eq!(
            again.iter().map(|t| t.measured.clone()).collect::<Vec<_>>(),
            m.timed
                .iter()
                .map(|t| t.measured.clone())
                .collect::<Vec<_>>()
        );
        // Another GPU's key times them anew.
        let mut other = key();
        other.device = "another GPU".into();
        let mut count = 0;
        let mut time = |_: usize, _: &str| {
            count += 1;
            Ok(1.0)
        };
        measure(&predictions(), (2, 0), &other, &mut database, &mut time).unwrap();
        assert_eq!(count, 2);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A strategy recipe with tile sizes `tx` and `ty`.
    fn tiled(tx: i64, ty: i64) -> String {
        format!(
            "TX = param(\"TX\", {{32, 64, 128}}, {tx})\nTY = param(\"TY\", {{4, 8, 16}}, {ty})\ntile(1, TX, TY)\n"
        )
    }

    #[test]
    fn recipes_one_parameter_apart_are_neighbours() {
        assert!(one_apart(&tiled(32, 4), &tiled(64, 4)));
        assert!(one_apart(&tiled(32, 4), &tiled(32, 16)));
        assert!(!one_apart(&tiled(32, 4), &tiled(64, 8)));
        assert!(!one_apart(&tiled(32, 4), &tiled(32, 4)));
        let other = tiled(32, 4).replace("tile(1", "tile(2");
        assert!(!one_apart(&tiled(64, 4), &other));
        // A user's recipe tuned with `-P` values.
        let user = |tx: i64| {
            format!("TX = param(\"TX\", {{32, 64}}, 32)\ntile(1, TX)\n-- gpucc tune: -P TX={tx}\n")
        };
        assert!(one_apart(&user(32), &user(64)));
        assert!(!one_apart(&user(64), &user(64)));
    }

    /// The local search times, within its runs, the neighbours of the best measured in
    /// the emulator's order, moves to a faster one, and never times a recipe twice.
    #[test]
    fn the_local_search_moves_to_a_faster_neighbour_of_the_best_measured() {
        let (dir, mut database) = empty_database("gpucc-tune-local");
        // The emulator predicts (32, 4) fastest, then (64, 4), ... and (128, 16) slowest.
        let mut predictions = Known::new();
        for (k, (tx, ty)) in [
            (32, 4),
            (64, 4),
            (32, 8),
            (64, 8),
            (128, 4),
            (128, 8),
            (128, 16),
        ]
        .into_iter()
        .enumerate()
        {
            predictions.insert(tiled(tx, ty), Ok((10.0 + k as f64, 10.0 + k as f64)));
        }
        // On the GPU the larger tiles win: (128, 8) is the fastest.
        let measured = |text: &str| -> f64 {
            let (_, values) = parameters(text);
            let v = |n: &str| {
                values
                    .iter()
                    .find(|(x, _)| x == n)
                    .unwrap()
                    .1
                    .parse::<f64>()
                    .unwrap()
            };
            1000.0 / v("TX") + 100.0 / v("TY") + if v("TY") == 16.0 { 50.0 } else { 0.0 }
        };
        let mut asked: Vec<String> = Vec::new();
        let mut time = |_: usize, text: &str| {
            asked.push(text.to_string());
            Ok(measured(text))
        };
        let timed = measure(&predictions, (2, 3), &key(), &mut database, &mut time).unwrap();
        let runs: Vec<(String, bool)> = timed.iter().map(|t| (t.recipe.clone(), t.local)).collect();
        assert_eq!(
            runs,
            [
                (tiled(32, 4), false),
                (tiled(64, 4), false),
                // The best measured, (64, 4): of its neighbours not timed, the emulator
                // ranks (64, 8) first; it runs faster.
                (tiled(64, 8), true),
                // From (64, 8): (32, 8) first in the emulator's order, slower; then
                // (128, 8), the fastest.
                (tiled(32, 8), true),
                (tiled(128, 8), true),
            ]
        );
        assert_eq!(asked.len(), 5, "each recipe timed once");
        let best = Measured {
            gpu: "GPU".into(),
            timed,
        };
        assert_eq!(best.best().map(|t| t.recipe.clone()), Some(tiled(128, 8)));
        assert!(best.lines().contains("(local search)"), "{}", best.lines());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
