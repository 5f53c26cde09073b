//! `gpucc tune`'s search: branch and bound over the strategy generator's variants and
//! their tile sizes, with the emulator as the judge (seed 001, `001_9e65c7c4352e71cc.txt`
//! §5, Algorithm 2).
//!
//! The search starts from the choice [`super::rank`] makes (what `gpucc FILE.c` writes):
//! its time is the first incumbent, so that the bound prunes from the start. Then, nest by
//! nest (the other nests at their best so far), every combination of every variant's tile
//! sizes gets its lower bound ([`super::bound`], plus the other nests' bounds); the
//! variants are taken in the order of their least bound, a variant whose every bound is
//! above the best time found is skipped whole, and the others have their combinations
//! compiled and emulated least bound first on every core, each skipped when its bound is
//! above the best time found by then ([`super::evaluate`]). Last, the unroll depth and
//! the copy forms are tried on the best, as [`super::rank`] does. With `exhaustive`,
//! nothing is skipped: the tests compare both.

use super::bound::{Bound, PlanBounds};
use super::evaluate::{Limits, Outcome};
use super::{
    describe, describe_form, describe_values, keep_best, refine, text_of, Best, Evaluations,
    RankOptions, PARAM_LINE,
};
use crate::deps::Dependences;
use crate::emulator::Estimate;
use crate::poly::Program;
use crate::strategy::analysis::Nests;
use crate::strategy::{Nest, Variant};
use std::time::Instant;

/// Limits and modes of a search.
#[derive(Clone, Debug, Default)]
pub struct SearchOptions {
    /// Evaluate every candidate (no pruning by the bound).
    pub exhaustive: bool,
    /// New evaluations (compiles) allowed, at most.
    pub runs: Option<usize>,
    /// No new batch of evaluations starts after this.
    pub deadline: Option<Instant>,
    /// `(i, n)`: evaluate only the candidates whose number is `i` modulo `n` (a shard of
    /// the search, for several machines; their databases merge).
    pub shard: Option<(usize, usize)>,
}

impl SearchOptions {
    /// Whether candidate number `k` is this search's.
    fn mine(&self, k: usize) -> bool {
        self.shard.is_none_or(|(i, n)| k % n == i)
    }
}

/// One variant of a nest as the search met it.
#[derive(Clone, Debug)]
pub struct VariantReport {
    pub nest: usize,
    /// `2-D threads (j, i); A in shared memory; ...` (tile sizes open).
    pub description: String,
    pub bound: Bound,
    /// Its tile-size combinations.
    pub combos: usize,
    /// Those compiled and emulated (or read from the database).
    pub evaluated: usize,
    /// Combinations skipped: their bound was above the best time found (all of them
    /// where the variant's least bound was).
    pub skipped: usize,
    /// The fastest predicted time among its evaluated combinations, and their tile sizes.
    pub best_us: Option<f64>,
    pub best_values: Option<String>,
    /// Evaluated combinations predicted faster than the bound (a defect of the bound:
    /// always 0, which the tests check).
    pub below_bound: usize,
}

/// The outcome of a search.
pub struct Searched {
    /// What gpucc writes without tuning (its own choice, or the recipe with its
    /// parameters' defaults): its description and predicted time, or why it failed.
    pub first: (String, Result<f64, String>),
    /// The best recipe found: gpucc's own with its notes, or the user's.
    pub recipe: String,
    /// With a user's recipe: the best parameter values.
    pub params: Vec<(String, String)>,
    pub description: String,
    pub estimate: Estimate,
    pub variants: Vec<VariantReport>,
    /// Candidates in the space (variants x tile sizes, over the nests).
    pub space: usize,
    /// Recipes compiled by this search, the pick's ranking included.
    pub compiled: usize,
    /// Of those, the ones the emulator predicted a time for (the others failed to
    /// compile: illegal, or too large for the device).
    pub emulated: usize,
    /// Outcomes read from the database instead.
    pub reused: usize,
    /// Candidates skipped by the bound.
    pub pruned: usize,
    /// Whether the budget ended the search before it was complete.
    pub cut_short: bool,
}

/// Searches the variants of `program` for the fastest, as the module says.
pub fn search(
    program: &Program,
    deps: &Dependences,
    o: &mut RankOptions,
    s: &SearchOptions,
) -> Result<Searched, String> {
    let pick = super::rank(program, deps, o)?;
    let mut evals = Evaluations::default();
    for (text, outcome) in &pick.evaluated {
        evals
            .memo
            .insert(text.clone(), outcome.clone().map(Estimate::recorded));
    }
    let plan = pick.plan.clone();
    let nests = Nests::new(&plan.program, &plan.deps, o.sizes);
    let pick_text = text_of(&plan, &pick.chosen, pick.unroll);
    let mut best: Best = Some((
        pick.estimate.rank(),
        pick.estimate.clone(),
        pick_text.clone(),
    ));
    let mut chosen = pick.chosen.clone();
    let mut reports = Vec::new();
    let (mut space, mut pruned, mut cut_short) = (0, 0, false);
    // Candidates are numbered in the order the search meets them, for shards.
    let mut number = 0;
    let budget_left = |evals: &Evaluations| {
        s.runs.map_or(usize::MAX, |n| {
            n.saturating_sub(evals.considered + evals.dropped)
        })
    };
    let all_nests: Vec<Nest> = plan.nests().into_iter().cloned().collect();
    let all_bounds = PlanBounds::new(&nests, &all_nests, o.device, true);
    for (k, nest) in all_nests.iter().enumerate() {
        let bounds = all_bounds.nest(k).expect("bounds of every nest");
        // The program's other nests, at their variants so far, take at least this long.
        let others = all_bounds.others(k, &chosen);
        // Each variant with its combinations' bounds, the variant's bound their least.
        let mut order: Vec<(Bound, usize, Vec<Bound>)> = nest
            .variants
            .iter()
            .enumerate()
            .map(|(j, v)| {
                let each: Vec<Bound> = combos(v)
                    .iter()
                    .map(|c| bounds.of(&v.with_values(c)).plus(others))
                    .collect();
                let least = each
                    .iter()
                    .min_by(|a, b| a.us.total_cmp(&b.us))
                    .cloned()
                    .unwrap_or_else(|| bounds.of(v).plus(others));
                (least, j, each)
            })
            .collect();
        order.sort_by(|a, b| a.0.us.total_cmp(&b.0.us).then(a.1.cmp(&b.1)));
        let mut nest_best: Option<Variant> = None;
        for (b, j, each) in order {
            let v = &nest.variants[j];
            let all = combos(v);
            let count = all.len();
            // This search's combinations.
            let mine: Vec<usize> = (0..count).filter(|c| s.mine(number + c)).collect();
            number += count;
            space += count;
            let mut report = VariantReport {
                nest: k,
                description: describe_form(&plan.program, v),
                bound: b.clone(),
                combos: count,
                evaluated: 0,
                skipped: 0,
                best_us: None,
                best_values: None,
                below_bound: 0,
            };
            let best_us = best.as_ref().map_or(f64::INFINITY, |(r, _, _)| r.0);
            if !s.exhaustive && b.us > best_us {
                report.skipped = count;
                pruned += count;
                reports.push(report);
                continue;
            }
            let trials: Vec<Variant> = mine.iter().map(|c| v.with_values(&all[*c])).collect();
            let texts: Vec<String> = trials
                .iter()
                .map(|t| {
                    let mut whole = chosen.clone();
                    whole[k] = t.clone();
                    text_of(&plan, &whole, 0)
                })
                .collect();
            let bounds: Vec<f64> = mine.iter().map(|c| each[*c].us).collect();
            let limits = Limits {
                bar: best_us,
                prune: !s.exhaustive,
                new: budget_left(&evals),
                deadline: s.deadline,
            };
            evals.expected += texts.len();
            let (outcomes, cut) = evals.run_bounded(program, deps, o, &texts, &bounds, &limits);
            cut_short |= cut;
            for (t, outcome) in outcomes.iter().enumerate() {
                let outcome = match outcome {
                    Outcome::Evaluated(outcome) => outcome,
                    Outcome::Skipped => {
                        report.skipped += 1;
                        pruned += 1;
                        evals.expected -= 1;
                        continue;
                    }
                    Outcome::NotRun => {
                        evals.expected -= 1;
                        continue;
                    }
                };
                report.evaluated += 1;
                if let Ok(est) = outcome {
                    if report.best_us.is_none_or(|b| est.time_us < b) {
                        report.best_us = Some(est.time_us);
                        report.best_values = Some(describe_values(&trials[t]));
                    }
                    if est.time_us < bounds[t] {
                        report.below_bound += 1;
                    }
                }
                if keep_best(&mut best, outcome, &texts[t]) {
                    nest_best = Some(trials[t].clone());
                }
            }
            reports.push(report);
        }
        if let Some(v) = nest_best {
            chosen[k] = v;
        }
    }
    let mut unroll = pick.unroll;
    if best.as_ref().is_some_and(|(_, _, t)| *t != pick_text) {
        let (refined, depth, _) = refine(&plan, program, deps, o, &mut evals, chosen, &mut best);
        chosen = refined;
        unroll = depth;
    } else {
        chosen = pick.chosen.clone();
    }
    let base = text_of(&plan, &chosen, unroll);
    let estimate = match evals.memo.get(&base) {
        Some(Ok(est)) => est.clone(),
        _ if base == pick_text => pick.estimate.clone(),
        _ => return Err("the best recipe was not evaluated (a defect of gpucc tune)".into()),
    };
    let description = chosen
        .iter()
        .map(|v| describe(&plan.program, v))
        .collect::<Vec<_>>()
        .join(" | ");
    let notes = vec![
        format!(
            "Tuned by gpucc tune among {space} candidates (variants x tile sizes; {pruned} skipped by the lower bound).",
        ),
        format!(
            "Predicted time on the device: {} (emulated, not measured).",
            super::format_us(estimate.time_us)
        ),
    ];
    let refs: Vec<&Variant> = chosen.iter().collect();
    let recipe = plan.recipe(&refs, unroll, &notes);
    let first = (
        pick.chosen
            .iter()
            .map(|v| describe(&plan.program, v))
            .collect::<Vec<_>>()
            .join(" | "),
        Ok(pick.estimate.time_us),
    );
    Ok(Searched {
        first,
        recipe,
        params: Vec::new(),
        description,
        estimate,
        variants: reports,
        space,
        compiled: evals.considered + pick.considered,
        emulated: evals.emulated + pick.emulated,
        reused: evals.reused + pick.reused,
        pruned,
        cut_short,
    })
}

/// A variant's tile-size combinations (its current values when it has none).
fn combos(v: &Variant) -> Vec<Vec<i64>> {
    if v.combos.is_empty() {
        vec![v.params.iter().map(|p| p.value).collect()]
    } else {
        v.combos.clone()
    }
}

/// Searches the values of a user's recipe's parameters (`param(NAME, {candidates},
/// default)`): every combination of the candidates, the defaults first, within the budget.
/// A recipe is one variant, so no bound applies.
pub fn search_params(
    program: &Program,
    deps: &Dependences,
    o: &mut RankOptions,
    recipe: &str,
    s: &SearchOptions,
) -> Result<Searched, String> {
    let declared = declared_params(program, deps, o, recipe)?;
    let mut combos: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for d in &declared {
        let mut values: Vec<String> = d
            .candidates
            .iter()
            .map(|v| crate::recipe::number_text(*v))
            .collect();
        let default = crate::recipe::number_text(d.default);
        values.retain(|v| *v != default);
        values.insert(0, default);
        combos = combos
            .into_iter()
            .flat_map(|c| {
                values.iter().map(move |v| {
                    let mut c = c.clone();
                    c.push((d.name.clone(), v.clone()));
                    c
                })
            })
            .collect();
    }
    let text_for = |c: &[(String, String)]| {
        let values: Vec<String> = c.iter().map(|(n, v)| format!("-P {n}={v}")).collect();
        if values.is_empty() {
            recipe.to_string()
        } else {
            format!("{}\n{PARAM_LINE} {}\n", recipe.trim_end(), values.join(" "))
        }
    };
    let space = combos.len();
    // A shard keeps its share; the defaults stay first (the reference for the report).
    let combos: Vec<Vec<(String, String)>> = combos
        .into_iter()
        .enumerate()
        .filter(|(k, _)| *k == 0 || s.mine(*k))
        .map(|(_, c)| c)
        .collect();
    let mut texts: Vec<String> = combos.iter().map(|c| text_for(c)).collect();
    let mut cut_short = false;
    if let Some(runs) = s.runs {
        let mut new = 0;
        let keep = texts
            .iter()
            .take_while(|t| {
                if o.known.is_some_and(|k| k.contains_key(*t)) {
                    return true;
                }
                new += 1;
                new <= runs
            })
            .count();
        cut_short = keep < texts.len();
        texts.truncate(keep);
    }
    let mut evals = Evaluations {
        expected: texts.len(),
        ..Default::default()
    };
    // In batches, so that a deadline stops the search between them.
    let mut outcomes = Vec::new();
    for batch in texts.chunks(8) {
        if s.deadline.is_some_and(|d| Instant::now() >= d) {
            cut_short = true;
            break;
        }
        outcomes.extend(evals.run(program, deps, o, batch));
    }
    let mut best: Best = None;
    let mut best_at = None;
    for (k, outcome) in outcomes.iter().enumerate() {
        if keep_best(&mut best, outcome, &texts[k]) {
            best_at = Some(k);
        }
    }
    let describe_values = |c: &[(String, String)]| {
        if c.is_empty() {
            "the recipe (no parameters)".to_string()
        } else {
            c.iter()
                .map(|(n, v)| format!("{n}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        }
    };
    let first = (
        describe_values(&combos[0]),
        outcomes
            .first()
            .cloned()
            .unwrap_or_else(|| Err("not evaluated".into()))
            .map(|e| e.time_us),
    );
    let Some(k) = best_at else {
        let why = outcomes
            .iter()
            .find_map(|o| o.clone().err())
            .unwrap_or_else(|| "nothing was evaluated".into());
        return Err(format!(
            "no combination of the recipe's parameters compiles ({why})"
        ));
    };
    let (_, estimate, _) = best.expect("a best outcome was kept");
    Ok(Searched {
        first,
        recipe: recipe.to_string(),
        params: combos[k].clone(),
        description: describe_values(&combos[k]),
        estimate,
        variants: Vec::new(),
        space,
        compiled: evals.considered,
        emulated: evals.emulated,
        reused: evals.reused,
        pruned: 0,
        cut_short,
    })
}

/// The parameters `recipe` declares with `param(...)`, from a run with their defaults.
fn declared_params(
    program: &Program,
    deps: &Dependences,
    o: &RankOptions,
    recipe: &str,
) -> Result<Vec<crate::recipe::ParamDecl>, String> {
    use crate::diag::{SourceFile, SourceMap};
    let mut sources = SourceMap::default();
    let id = sources.add(SourceFile::new("(recipe)", recipe));
    let parsed = crate::recipe::parse(sources.get(id), id).map_err(|d| super::first_message(&d))?;
    let t = crate::transform::Transformed::new(program.clone(), deps.clone());
    let options = crate::recipe::RunOptions {
        params: &[],
        macros: o.macros,
    };
    crate::recipe::run(&parsed, t, &options)
        .map(|r| r.declared)
        .map_err(|d| super::first_message(&d))
}
