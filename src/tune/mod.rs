//! Tune stage: ranks the strategy generator's variants with the performance model and
//! picks one (seed 004, §5.5 Phase III and §5.6 Phase IV, with the emulator standing in for
//! runs on a GPU).
//!
//! Entry point: [`rank`]. For each parallel nest, every variant's commands are run alone
//! through the recipe interpreter, which refuses the illegal ones (a nest with no legal
//! variant runs in one thread instead). Then, nest by nest, each legal variant is
//! compiled within the whole recipe (the other nests at their best so far) and its time
//! predicted; the best variant's parameter values are tuned next (Phase IV, [`values`]:
//! an even spread of them, then a local search from the fastest), and last the unroll
//! depth. Every evaluation is a full compile of the recipe it names, so what wins is
//! exactly what gets written.

use crate::deps::Dependences;
use crate::device::Device;
use crate::diag::{SourceFile, SourceMap};
use crate::emulator::{self, Estimate};
use crate::frontend::macros::MacroTable;
use crate::poly::Program;
use crate::strategy::analysis::Nests;
use crate::strategy::{self, Item, Plan, Variant};
use crate::transform::Transformed;

pub mod advice;
pub mod bound;
pub mod db;
mod evaluate;
use bound::PlanBounds;
pub(crate) use evaluate::Evaluations;
use evaluate::{Limits, Outcome};
mod rescheduled;
pub mod search;
mod text;
mod values;
pub use text::{describe, describe_form, describe_values, format_us, marked_params, PARAM_LINE};

/// Outcomes known before a ranking (read from `gpucc tune`'s database), by recipe text:
/// the rank ([`Estimate::rank`]) or why the recipe failed.
pub type Known = std::collections::HashMap<String, Result<(f64, f64), String>>;

/// One evaluated variant, for `--explain`.
#[derive(Clone, Debug)]
pub struct Row {
    /// The parallel nest it belongs to.
    pub nest: usize,
    /// `2-D threads (j, i); A, B in shared memory; TX=32 TY=8 TK=16`.
    pub description: String,
    /// Predicted microseconds of the whole program with it, or why it was dropped.
    pub outcome: Result<f64, String>,
    /// The whole recipe with this variant (the other nests at their best so far), for
    /// `gpucc strategies`.
    pub recipe: Option<String>,
    /// Where the variant was not compiled because its lower bound was above the fastest
    /// time found for its nest: the bound, in microseconds.
    pub bound_us: Option<f64>,
}

/// The outcome: the recipe to write and how it was chosen.
#[derive(Clone, Debug)]
pub struct Ranked {
    pub plan: Plan,
    /// The chosen variant of each parallel nest, with tuned parameter values.
    pub chosen: Vec<Variant>,
    pub unroll: usize,
    pub recipe: String,
    pub estimate: Estimate,
    /// Recipes compiled and estimated.
    pub considered: usize,
    /// Of those, the ones the emulator predicted a time for.
    pub emulated: usize,
    /// Candidates not compiled because their lower bound was above the fastest time
    /// found among those they competed with ([`RankOptions::prune`]).
    pub skipped: usize,
    pub rows: Vec<Row>,
    /// The refinements tried on the chosen variants (wide copies, double buffering): what
    /// each is, the predicted time with it (or why it failed) against the time without,
    /// and whether it was kept.
    pub refinements: Vec<Refinement>,
    /// Every recipe text compiled and estimated, with its rank ([`Estimate::rank`]) or
    /// why it failed: what `gpucc tune` records in its database.
    pub evaluated: Vec<Evaluated>,
    /// Outcomes taken from [`RankOptions::known`] instead of compiling.
    pub reused: usize,
    /// Legal variants and parallel nests, for the recipe's notes.
    variants: usize,
    nests: usize,
    /// Whether candidates were skipped by their lower bound ([`RankOptions::prune`]).
    pruned: bool,
}

/// A recipe text and its outcome: the predicted time and the emulated time below the
/// floor ([`Estimate::rank`]), or why it failed.
pub type Evaluated = (String, Result<(f64, f64), String>);

/// A refinement tried on the chosen variants ([`Ranked::refinements`]).
#[derive(Clone, Debug)]
pub struct Refinement {
    pub what: &'static str,
    pub before_us: f64,
    pub outcome: Result<f64, String>,
    pub kept: bool,
}

/// Called with a recipe text and its outcome ([`RankOptions::on_evaluated`]).
pub type OnEvaluated<'a> = dyn FnMut(&str, &Result<Estimate, String>) + 'a;

/// What ranking needs besides the program.
pub struct RankOptions<'a> {
    pub macros: &'a MacroTable,
    pub device: &'a Device,
    /// Values for symbolic sizes in estimates.
    pub sizes: &'a [(String, i64)],
    /// Called with (evaluations done, evaluations expected so far).
    pub progress: &'a mut dyn FnMut(usize, usize),
    /// Outcomes to take instead of compiling their recipes again.
    pub known: Option<&'a Known>,
    /// Called with each recipe compiled and its outcome, as soon as it has one.
    pub on_evaluated: Option<&'a mut OnEvaluated<'a>>,
    /// Skip the variants and tile sizes whose lower bound ([`bound`]) is above the
    /// fastest time found among those they compete with: the choice is the same, with
    /// fewer compiles. Off where every variant's time is wanted (`gpucc strategies`).
    pub prune: bool,
}

/// Ranks the variants of `program` and returns the best recipe: the program as written,
/// and where loops hold several nests, the program with them distributed
/// ([`strategy::distribution`]), the faster kept.
pub fn rank(program: &Program, deps: &Dependences, o: &mut RankOptions) -> Result<Ranked, String> {
    let as_written = rank_form(program, deps, None, o)?;
    let Some(d) = strategy::distribution::distributed(program, deps) else {
        return Ok(as_written);
    };
    // The recipe interpreter judges the distribution before any variant is compiled.
    if interpret(program, deps, o.macros, &d.commands.join("\n")).is_err() {
        return Ok(as_written);
    }
    match rank_form(program, deps, Some(&d), o) {
        Ok(distributed) => Ok(keep_faster(
            distributed,
            as_written,
            "loops that hold several nests distributed, each nest mapped to the GPU on its own",
        )),
        Err(_) => Ok(as_written),
    }
}

/// Ranks the plans of `program` (or of its distributed form `d`): with the loops that
/// carry dependences around parallel nests kept on the host where there are such, and
/// with those nests whole in one thread, the faster kept.
fn rank_form(
    program: &Program,
    deps: &Dependences,
    d: Option<&strategy::distribution::Distributed>,
    o: &mut RankOptions,
) -> Result<Ranked, String> {
    let (device, sizes) = (o.device, o.sizes);
    let plan_of = |split: bool| match d {
        Some(d) => strategy::plan_distributed(d, device, sizes, split),
        None => strategy::plan(program, deps, device, sizes, split),
    };
    let split = plan_of(true);
    if !split.splits_loops() {
        return rank_plan(split, program, deps, o);
    }
    // Loops of launches with serial parts, or those nests whole in one thread: the
    // launches cost more than they save on short loops.
    let whole = plan_of(false);
    let with = rank_plan(split, program, deps, o)?;
    let with = demote_costly_nests(with, program, deps, o);
    let without = rank_plan(whole, program, deps, o)?;
    Ok(keep_faster(
        with,
        without,
        "loops that carry dependences kept on the host, launching their parallel nests at each iteration and the rest in one thread",
    ))
}

/// `with` (a ranking of the program changed as `what` says) if it is faster than
/// `without`, else `without`; the counts and evaluations of both, and the comparison
/// among the refinements.
fn keep_faster(mut with: Ranked, without: Ranked, what: &'static str) -> Ranked {
    let kept = with.estimate.faster_than(without.estimate.rank());
    let refinement = Refinement {
        what,
        before_us: without.estimate.time_us,
        outcome: Ok(with.estimate.time_us),
        kept,
    };
    let considered = with.considered + without.considered;
    let emulated = with.emulated + without.emulated;
    let skipped = with.skipped + without.skipped;
    let reused = with.reused + without.reused;
    let mut evaluated = std::mem::take(&mut with.evaluated);
    evaluated.extend(without.evaluated.iter().cloned());
    if !kept {
        with = without;
    }
    with.considered = considered;
    with.emulated = emulated;
    with.skipped = skipped;
    with.evaluated = evaluated;
    with.reused = reused;
    with.refinements.insert(0, refinement);
    with.write_recipe();
    with
}

fn rank_plan(
    mut plan: Plan,
    program: &Program,
    deps: &Dependences,
    o: &mut RankOptions,
) -> Result<Ranked, String> {
    loop {
        match attempt(&plan, program, deps, o)? {
            Ok(ranked) => return Ok(ranked),
            // A nest with no legal variant runs in one thread; rank the rest again.
            Err((k, why)) => plan.demote(k, why),
        }
    }
}

/// A nest none of whose variants compiles: its number and why.
type Demotion = (usize, String);

/// Makes `outcome` the best if it is faster; whether it was.
fn keep_best(best: &mut Best, outcome: &Result<Estimate, String>, text: &str) -> bool {
    if let Ok(est) = outcome {
        if best.as_ref().is_none_or(|(b, _, _)| est.faster_than(*b)) {
            *best = Some((est.rank(), est.clone(), text.to_string()));
            return true;
        }
    }
    false
}

fn attempt(
    plan: &Plan,
    program: &Program,
    deps: &Dependences,
    o: &mut RankOptions,
) -> Result<Result<Ranked, Demotion>, String> {
    let mut plan = plan.clone();
    let mut rows = Vec::new();
    // Legality, nest by nest (with one nest, its evaluations check it).
    let nests: Vec<strategy::Nest> = plan.nests().into_iter().cloned().collect();
    let mut legal: Vec<Vec<Variant>> = Vec::new();
    if nests.len() == 1 {
        legal.push(nests[0].variants.clone());
    } else {
        // Every nest's variants at once, on every core.
        let alone: Vec<(usize, &Variant)> = nests
            .iter()
            .enumerate()
            .flat_map(|(k, nest)| nest.variants.iter().map(move |v| (k, v)))
            .collect();
        let mut verdicts = evaluate::on_every_core(&alone, |&(k, v)| {
            interpret(program, deps, o.macros, &plan.nest_recipe(k, v)).map(|_| ())
        })
        .into_iter();
        for (k, nest) in nests.iter().enumerate() {
            let mut ok = Vec::new();
            let mut first_error = None;
            for v in &nest.variants {
                match verdicts.next().expect("a verdict per variant") {
                    Ok(()) => ok.push(v.clone()),
                    Err(e) => {
                        rows.push(Row {
                            nest: k,
                            description: describe(&plan.program, v),
                            outcome: Err(e.clone()),
                            recipe: None,
                            bound_us: None,
                        });
                        first_error.get_or_insert(e);
                    }
                }
            }
            if ok.is_empty() {
                return Ok(Err((k, no_mapping(&plan.program, nest, first_error))));
            }
            legal.push(ok);
        }
    }
    let mut evals = Evaluations {
        expected: legal.iter().map(|v| v.len()).sum::<usize>() + 2,
        ..Default::default()
    };
    let mut chosen: Vec<Variant> = legal.iter().map(|v| v[0].clone()).collect();
    let mut best: Best = None;
    let analysis = Nests::new(&plan.program, &plan.deps, o.sizes);
    let bounds = PlanBounds::new(&analysis, &nests, o.device, o.prune);
    let mut skipped = 0;
    // Phase III: each nest's variants with the others fixed.
    let mut phase3 = vec![0; legal.len()];
    for k in 0..legal.len() {
        let text_with = |v: &Variant| {
            let mut trial = chosen.clone();
            trial[k] = v.clone();
            text_of(&plan, &trial, 0)
        };
        let mut texts: Vec<String> = legal[k].iter().map(text_with).collect();
        // A variant's bound: the least of its default tile sizes' and of the smaller
        // ones tried where those overflow shared memory.
        let others = bounds.others(k, &chosen);
        let lower: Vec<f64> = legal[k]
            .iter()
            .map(|v| {
                std::iter::once(v.clone())
                    .chain(smaller_tiles(v))
                    .map(|x| bounds.of(k, &x))
                    .fold(f64::INFINITY, f64::min)
                    + others
            })
            .collect();
        let (mut outcomes, _) =
            evals.run_bounded(program, deps, o, &texts, &lower, &Limits::pruning(o.prune));
        // A variant whose default tile sizes need more shared memory than a block has
        // takes the first of its smaller combinations that compiles, instead of being
        // lost: a triangular SYRK's shared-memory variants overflowed at their defaults,
        // and the variant kept was 16.9x slower than one of them at `TK=8` (as `gpucc
        // tune` found).
        for j in 0..outcomes.len() {
            if !matches!(&outcomes[j], Outcome::Evaluated(Err(e)) if e.contains("shared memory would be"))
            {
                continue;
            }
            let tries = smaller_tiles(&legal[k][j]);
            let tried: Vec<String> = tries.iter().map(text_with).collect();
            evals.expected += tried.len();
            let results = evals.run(program, deps, o, &tried);
            if let Some(t) = results.iter().position(|r| r.is_ok()) {
                legal[k][j] = tries[t].clone();
                texts[j] = tried[t].clone();
                outcomes[j] = Outcome::Evaluated(results[t].clone());
            }
        }
        let trials: Vec<Vec<Variant>> = legal[k]
            .iter()
            .map(|v| {
                let mut trial = chosen.clone();
                trial[k] = v.clone();
                trial
            })
            .collect();
        let mut nest_best: Option<((f64, f64), usize)> = None;
        for (j, outcome) in outcomes.iter().enumerate() {
            let v = &legal[k][j];
            let outcome = match outcome {
                Outcome::Evaluated(outcome) => outcome,
                _ => {
                    evals.expected = evals.expected.saturating_sub(1);
                    skipped += 1;
                    rows.push(Row {
                        nest: k,
                        description: describe(&plan.program, v),
                        outcome: Err(format!(
                            "skipped: its lower bound, {}, is above the fastest time found",
                            format_us(lower[j])
                        )),
                        recipe: None,
                        bound_us: Some(lower[j]),
                    });
                    continue;
                }
            };
            keep_best(&mut best, outcome, &texts[j]);
            let recipe = outcome.as_ref().ok().map(|est| {
                let refs: Vec<&Variant> = trials[j].iter().collect();
                let notes = vec![
                    format!(
                        "Variant {} of nest {}: {}.",
                        j + 1,
                        k + 1,
                        describe(&plan.program, v)
                    ),
                    format!(
                        "Predicted time on the device: {} (emulated, not measured).",
                        format_us(est.time_us)
                    ),
                ];
                plan.recipe(&refs, 0, &notes)
            });
            rows.push(Row {
                nest: k,
                description: describe(&plan.program, v),
                outcome: outcome.as_ref().map(|e| e.time_us).map_err(|e| e.clone()),
                recipe,
                bound_us: None,
            });
            if let Ok(est) = outcome {
                if nest_best.is_none_or(|(b, _)| est.faster_than(b)) {
                    nest_best = Some((est.rank(), j));
                }
            }
        }
        match nest_best {
            Some((_, j)) => {
                chosen[k] = legal[k][j].clone();
                phase3[k] = j;
            }
            None => {
                let first = rows
                    .iter()
                    .rev()
                    .find_map(|r: &Row| r.outcome.clone().err());
                return Ok(Err((k, no_mapping(&plan.program, &nests[k], first))));
            }
        }
    }
    // Phase IV: the chosen variants' parameter values, nest by nest; a nest that is an
    // earlier one on other arrays takes its values ([`values::twin`]), one that is an
    // earlier one at other sizes searches from its values ([`values::near_twin`]).
    let before = chosen.clone();
    let signatures: Vec<String> = nests.iter().map(|n| n.signature(&plan.program)).collect();
    let shapes: Vec<String> = nests.iter().map(|n| n.shape(&plan.program)).collect();
    for k in 0..chosen.len() {
        let found = |v: &Variant| -> Vec<i64> { v.params.iter().map(|p| p.value).collect() };
        if let Some(j) = values::twin(&signatures, &legal, &phase3, &before, k) {
            chosen[k] = chosen[k].with_values(&found(&chosen[j]));
            continue;
        }
        let seed =
            values::near_twin(&shapes, &legal, &phase3, &before, k).map(|j| found(&chosen[j]));
        let searched = values::search(
            &plan,
            program,
            deps,
            o,
            &mut evals,
            &chosen,
            k,
            &bounds,
            &mut best,
            seed.as_deref(),
        );
        skipped += searched.skipped;
        chosen[k] = chosen[k].with_values(&searched.values);
    }
    let (chosen, unroll, mut tried) =
        refine(&plan, program, deps, o, &mut evals, chosen, &mut best);
    tried.extend(rescheduled::choose(
        &mut plan, program, deps, o, &mut evals, &chosen, unroll, &mut best,
    ));
    // The final recipe, with its notes (also when every nest runs serially).
    let refs: Vec<&Variant> = chosen.iter().collect();
    let base = plan.recipe(&refs, unroll, &[]);
    let estimate = match best {
        Some((_, est, ref text)) if *text == base => est,
        _ => match evals.memo.get(&base) {
            Some(outcome) => outcome.clone()?,
            None => {
                evals.considered += 1;
                let outcome =
                    compile_and_estimate(program, deps, o.macros, o.device, o.sizes, &base);
                evals.emulated += usize::from(outcome.is_ok());
                if let Some(record) = o.on_evaluated.as_mut() {
                    record(&base, &outcome);
                }
                evals.memo.insert(base.clone(), outcome.clone());
                outcome?
            }
        },
    };
    let mut ranked = Ranked {
        plan,
        chosen,
        unroll,
        recipe: String::new(),
        estimate,
        considered: evals.considered,
        emulated: evals.emulated,
        skipped,
        rows,
        refinements: tried,
        evaluated: evals.evaluated(),
        reused: evals.reused,
        variants: legal.iter().map(|v| v.len()).sum(),
        pruned: o.prune,
        nests: legal.len(),
    };
    ranked.write_recipe();
    Ok(Ok(ranked))
}

/// Tile sizes tried, at most, for a variant whose default ones overflow shared memory.
const SMALLER_TILES: usize = 3;

/// The combinations of `v` tried where its default tile sizes need more shared memory
/// than a block has: the fewest elements per tile first, at most [`SMALLER_TILES`].
fn smaller_tiles(v: &Variant) -> Vec<Variant> {
    let current: Vec<i64> = v.params.iter().map(|p| p.value).collect();
    let mut smaller: Vec<&Vec<i64>> = v.combos.iter().filter(|c| **c != current).collect();
    smaller.sort_by_key(|c| c.iter().product::<i64>());
    smaller
        .into_iter()
        .take(SMALLER_TILES)
        .map(|c| v.with_values(c))
        .collect()
}

/// The best guess so far: its rank, estimate and recipe text.
type Best = Option<((f64, f64), Estimate, String)>;

/// The last steps of a ranking, on the chosen variants: the unroll depth, then wide and
/// double-buffered copies into shared memory. Returns the variants, the unroll depth and
/// the refinements tried.
pub(crate) fn refine(
    plan: &Plan,
    program: &Program,
    deps: &Dependences,
    o: &mut RankOptions,
    evals: &mut Evaluations,
    mut chosen: Vec<Variant>,
    best: &mut Best,
) -> (Vec<Variant>, usize, Vec<Refinement>) {
    // The unroll depth, where unrolling applies cleanly (no loop left out).
    let mut unroll = 0;
    if !chosen.is_empty() {
        let mut texts: Vec<String> = [1, 2].iter().map(|d| text_of(plan, &chosen, *d)).collect();
        // The chosen values themselves where they were never compiled together (twin
        // nests, `values::twin`), in the same batch: what the refinements must beat.
        let base = text_of(plan, &chosen, 0);
        let unseen = !evals.memo.contains_key(&base);
        if unseen {
            evals.expected += 1;
            texts.push(base);
        }
        let outcomes = evals.run(program, deps, o, &texts);
        if unseen {
            keep_best(best, &outcomes[2], &texts[2]);
        }
        let base_time = best
            .as_ref()
            .map(|(t, _, _)| *t)
            .unwrap_or((f64::INFINITY, f64::INFINITY));
        let mut best_time = base_time;
        for (j, outcome) in outcomes.iter().take(2).enumerate() {
            keep_best(best, outcome, &texts[j]);
            if let Ok(est) = outcome {
                if est.faster_than(best_time) {
                    best_time = est.rank();
                    unroll = j + 1;
                }
            }
        }
    }
    // Wide copies into shared memory (one 128-bit load and store per thread for four
    // floats), alone and with double-buffered tiles filled by asynchronous copies, where
    // the chosen form allows them: compiled side by side (one batch, in parallel), the
    // fastest kept where the emulator ranks it faster than the chosen variants.
    let refinements = [
        ("wide copies into shared memory", true, false),
        (
            "wide copies into double-buffered shared tiles, asynchronous",
            true,
            true,
        ),
    ];
    let mut trials: Vec<(&'static str, Vec<Variant>)> = Vec::new();
    for (what, wide, double) in refinements {
        let refined: Vec<Variant> = chosen
            .iter()
            .map(|v| v.with_copies(wide, double).unwrap_or_else(|| v.clone()))
            .collect();
        if refined
            .iter()
            .zip(&chosen)
            .any(|(r, v)| r.wide != v.wide || r.double != v.double)
        {
            trials.push((what, refined));
        }
    }
    let mut tried = Vec::new();
    if !trials.is_empty() {
        evals.expected += trials.len();
        let base_time = best
            .as_ref()
            .map(|(t, _, _)| *t)
            .unwrap_or((f64::INFINITY, f64::INFINITY));
        let texts: Vec<String> = trials
            .iter()
            .map(|(_, refined)| text_of(plan, refined, unroll))
            .collect();
        let outcomes = evals.run(program, deps, o, &texts);
        let mut fastest: Option<((f64, f64), usize)> = None;
        for (j, outcome) in outcomes.iter().enumerate() {
            keep_best(best, outcome, &texts[j]);
            if let Ok(est) = outcome {
                if est.faster_than(base_time) && fastest.is_none_or(|(b, _)| est.faster_than(b)) {
                    fastest = Some((est.rank(), j));
                }
            }
        }
        for (j, outcome) in outcomes.iter().enumerate() {
            tried.push(Refinement {
                what: trials[j].0,
                before_us: base_time.0,
                outcome: outcome.as_ref().map(|e| e.time_us).map_err(|e| e.clone()),
                kept: fastest.is_some_and(|(_, k)| k == j),
            });
        }
        if let Some((_, j)) = fastest {
            chosen = trials.swap_remove(j).1;
        }
    }
    (chosen, unroll, tried)
}

impl Ranked {
    /// The recipe of the chosen variants, with its notes.
    fn write_recipe(&mut self) {
        let (variants, nests) = (self.variants, self.nests);
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        // The serial nests whose order isl's scheduler changes, with their block shapes.
        let rescheduled: usize = (self.plan.items.iter())
            .map(|i| match i {
                Item::Serial(run) => run.rescheduled.len(),
                Item::Parallel(_) => 0,
            })
            .sum();
        let rescheduled = match rescheduled {
            0 => String::new(),
            n => format!(", isl's order for {n} serial nest{}", plural(n)),
        };
        // The counts of compiles depend on which of them ends first (a time found skips
        // the candidates bounded above it), so the recipe names the space, not them:
        // the same program gets the same recipe.
        let notes = [
            format!(
                "Chosen among {variants} legal variant{} of {nests} nest{}, their tile sizes and unrolling{rescheduled}{}.",
                plural(variants),
                plural(nests),
                if variants == 0 {
                    ""
                } else if self.pruned {
                    "; those whose lower bound (seed 001) was above the fastest time found were not compiled"
                } else {
                    ", every one compiled"
                }
            ),
            format!(
                "Predicted time on the device: {} (emulated, not measured).",
                format_us(self.estimate.time_us)
            ),
        ];
        let refs: Vec<&Variant> = self.chosen.iter().collect();
        self.recipe = self.plan.recipe(&refs, self.unroll, &notes);
    }
}

/// Each parallel nest inside loops of launches run in one thread instead, where the
/// emulator predicts that faster (its launches cost more than its threads save).
fn demote_costly_nests(
    mut r: Ranked,
    program: &Program,
    deps: &Dependences,
    o: &mut RankOptions,
) -> Ranked {
    let mut k = 0;
    while k < r.chosen.len() {
        let nest = r.plan.nests()[k].clone();
        if nest.host.is_empty() {
            k += 1;
            continue;
        }
        let line = r.plan.program.loops[nest.root].line;
        let mut plan = r.plan.clone();
        plan.demote(
            k,
            format!(
                "the nest at line {line} runs faster in one thread than launched at each iteration"
            ),
        );
        let mut chosen = r.chosen.clone();
        chosen.remove(k);
        let refs: Vec<&Variant> = chosen.iter().collect();
        let text = plan.recipe(&refs, r.unroll, &[]);
        let outcome = match o.known.and_then(|known| known.get(&text)) {
            Some(outcome) => {
                r.reused += 1;
                outcome.clone().map(Estimate::recorded)
            }
            None => {
                r.considered += 1;
                let outcome =
                    compile_and_estimate(program, deps, o.macros, o.device, o.sizes, &text);
                r.emulated += usize::from(outcome.is_ok());
                if let Some(record) = o.on_evaluated.as_mut() {
                    record(&text, &outcome);
                }
                outcome
            }
        };
        r.evaluated.push((text.clone(), outcome_rank(&outcome)));
        let kept = matches!(&outcome, Ok(est) if est.faster_than(r.estimate.rank()));
        r.refinements.push(Refinement {
            what: "a nest inside loops of launches run in one thread instead",
            before_us: r.estimate.time_us,
            outcome: outcome.as_ref().map(|e| e.time_us).map_err(|e| e.clone()),
            kept,
        });
        match outcome {
            Ok(est) if kept => {
                r.plan = plan;
                r.chosen = chosen;
                r.estimate = est;
            }
            _ => k += 1,
        }
    }
    r.write_recipe();
    r
}

fn no_mapping(program: &Program, nest: &strategy::Nest, error: Option<String>) -> String {
    format!(
        "no mapping of the nest at line {} compiles ({})",
        program.loops[nest.root].line,
        error.unwrap_or_else(|| "no variant".to_string())
    )
}

fn text_of(plan: &Plan, chosen: &[Variant], unroll: usize) -> String {
    let refs: Vec<&Variant> = chosen.iter().collect();
    plan.recipe(&refs, unroll, &[])
}

/// Runs one of gpucc's own recipes (or a user's, with [`PARAM_LINE`]) on the program.
pub(crate) fn interpret(
    program: &Program,
    deps: &Dependences,
    macros: &MacroTable,
    text: &str,
) -> Result<Transformed, String> {
    let mut sources = SourceMap::default();
    let id = sources.add(SourceFile::new("(variant)", text));
    let recipe = crate::recipe::parse(sources.get(id), id).map_err(|d| first_message(&d))?;
    let t = Transformed::new(program.clone(), deps.clone());
    let params = marked_params(text);
    let options = crate::recipe::RunOptions {
        params: &params,
        macros,
    };
    let own = crate::limits::current().for_own_recipes();
    let result = crate::limits::with(own, || crate::recipe::run(&recipe, t, &options))
        .map_err(|d| first_message(&d))?;
    if let Some(w) = result.warnings.first() {
        return Err(w.message.clone());
    }
    Ok(result.transformed)
}

/// Compiles a recipe and predicts its time.
pub(crate) fn compile_and_estimate(
    program: &Program,
    deps: &Dependences,
    macros: &MacroTable,
    device: &Device,
    sizes: &[(String, i64)],
    text: &str,
) -> Result<Estimate, String> {
    let t = interpret(program, deps, macros, text)?;
    let g = crate::codegen::generate(&t).map_err(|d| first_message(&d))?;
    if let Some(w) = g.warnings.first() {
        return Err(w.clone());
    }
    emulator::estimate(
        &t,
        &g,
        device,
        sizes,
        emulator::Detail::Time,
        &Default::default(),
    )
}

/// An outcome's rank, or why it failed.
pub(crate) fn outcome_rank(r: &Result<Estimate, String>) -> Result<(f64, f64), String> {
    r.as_ref().map(|e| e.rank()).map_err(|e| e.clone())
}

pub(crate) fn first_message(d: &[crate::diag::Diagnostic]) -> String {
    d.first()
        .map(|d| d.message.clone())
        .unwrap_or_else(|| "refused".to_string())
}

/// Whether every item of the plan runs in one thread.
pub fn all_serial(plan: &Plan) -> bool {
    plan.items.iter().all(|i| matches!(i, Item::Serial(_)))
}
