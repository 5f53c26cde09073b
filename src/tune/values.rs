//! Phase IV (seed 004, §5.6): the chosen variant's parameter values (tile sizes, register
//! tiles), by an even spread over the allowed combinations and then local search.
//!
//! The seed evaluates every combination; gpucc first evaluates [`SPREAD`] of them, evenly
//! spread (the current values among them), then the neighbours of the fastest: a
//! combination's neighbours move one parameter to the value next to it among its
//! candidates. The search moves to a faster neighbour and tries its neighbours in turn,
//! and stops where none is faster or after [`LOCAL`] more combinations. The spread alone
//! left out the neighbours of its best: a 1024³ SGEMM (`gemm_nn.c`) got `TK=8 RX=4
//! RY=4` where `TK=16 RX=4 RY=4`, one step away, is faster (emulated 88.2 against
//! 77.6 us before the refinements; measured on an H200, 109.6 against 95.3 us,
//! `benchmarks/results/calibration-outer-nvidia-h200-2026-11-26-9770dd9.json`). Local
//! search alone, from the current values, got lost on `gemm_rect_wide.c`, whose best lies
//! across combinations the thread-count rule leaves out: the spread sees the whole space.
//! A nest of the same shape as an earlier one (the same computation at other sizes,
//! [`near_twin`]) starts from that one's values instead of a spread: PolyBench 3mm at
//! LARGE compiles 57 candidates instead of 69, with the same predictions on the 77
//! programs of `benchmarks/predicted.py`.

use super::evaluate::{Evaluations, Limits, Outcome};
use super::{bound::PlanBounds, keep_best, text_of, Best, RankOptions};
use crate::deps::Dependences;
use crate::poly::Program;
use crate::strategy::{Param, Plan, Variant};

/// Parameter combinations of the first step of Phase IV, evenly spread over the space
/// (the current one added where the spread leaves it out).
const SPREAD: usize = 12;

/// Combinations the local search may add after the spread, at most.
const LOCAL: usize = 6;

/// What Phase IV found for one nest.
pub(super) struct Searched {
    /// The fastest combination of the parameters' values.
    pub values: Vec<i64>,
    /// Combinations not compiled because their lower bound was above the fastest time.
    pub skipped: usize,
}

/// The earlier nest whose Phase IV values nest `k` takes instead of searching its own:
/// one with the same signature (`signatures`, one per nest) ([`crate::strategy::Nest::signature`]: the same
/// computation on other arrays, as heat-3d's two sweeps) whose Phase III chose the
/// variant in the same place among the same number, with the same parameter values and
/// combinations. The emulated time of a program is the sum of its kernels', and the
/// twins' kernels' times are the same functions of the values, so the search would find
/// the same values again (`predicted.py`: the same predictions on 77 programs).
pub(super) fn twin(
    signatures: &[String],
    legal: &[Vec<Variant>],
    phase3: &[usize],
    chosen: &[Variant],
    k: usize,
) -> Option<usize> {
    let same_values = |j: usize| {
        (chosen[j].params.iter())
            .zip(&chosen[k].params)
            .all(|(x, y)| x.value == y.value)
    };
    earlier_alike(signatures, legal, phase3, chosen, k).find(|&j| same_values(j))
}

/// The earlier nest whose Phase IV values nest `k`'s search starts from instead of a
/// spread: one of the same shape (`shapes`, [`crate::strategy::Nest::shape`]: the same
/// computation at other sizes, as 3mm's three products) whose Phase III chose the variant
/// in the same place among the same number, with the same parameters and combinations.
/// The best tile sizes of one computation move little with its sizes, and the local
/// search from the earlier nest's finds where they moved.
pub(super) fn near_twin(
    shapes: &[String],
    legal: &[Vec<Variant>],
    phase3: &[usize],
    chosen: &[Variant],
    k: usize,
) -> Option<usize> {
    earlier_alike(shapes, legal, phase3, chosen, k).next()
}

/// The nests before `k` with its description (`described`: signatures or shapes, one per
/// nest) whose Phase III chose the variant in the same place among the same number, with
/// the same parameters, combinations and copies as `k`'s (none where `k`'s variant has no
/// parameters).
fn earlier_alike<'a>(
    described: &'a [String],
    legal: &'a [Vec<Variant>],
    phase3: &'a [usize],
    chosen: &'a [Variant],
    k: usize,
) -> impl Iterator<Item = usize> + 'a {
    let same_space = move |j: usize| {
        let (a, b) = (&chosen[j], &chosen[k]);
        phase3[j] == phase3[k]
            && legal[j].len() == legal[k].len()
            && a.combos == b.combos
            && a.params.len() == b.params.len()
            && a.params
                .iter()
                .zip(&b.params)
                .all(|(x, y)| x.role == y.role)
            && (a.wide, a.double, a.interleaved) == (b.wide, b.double, b.interleaved)
            && described[j] == described[k]
    };
    let any = described.len() == chosen.len() && !chosen[k].params.is_empty();
    (0..k).filter(move |&j| any && same_space(j))
}

/// At most `n` of `combos`, evenly spread (the first always among them).
fn spread(combos: &[Vec<i64>], n: usize) -> Vec<Vec<i64>> {
    if combos.len() <= n {
        return combos.to_vec();
    }
    (0..n)
        .map(|k| combos[k * combos.len() / n].clone())
        .collect()
}

/// The combinations next to `at` among `combos` (of `params`' values): one parameter
/// moved to a neighbouring candidate value, in the order of the parameters, the smaller
/// value first.
fn neighbours(params: &[Param], combos: &[Vec<i64>], at: &[i64]) -> Vec<Vec<i64>> {
    let mut out = Vec::new();
    for (p, param) in params.iter().enumerate() {
        let Some(i) = param.candidates.iter().position(|x| *x == at[p]) else {
            continue;
        };
        let below = i.checked_sub(1).map(|j| param.candidates[j]);
        let above = param.candidates.get(i + 1).copied();
        for value in below.into_iter().chain(above) {
            let mut c = at.to_vec();
            c[p] = value;
            if combos.contains(&c) && !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

/// Nest `k`'s parameter values: the fastest of a spread of combinations, or of `seed`
/// (a nest of the same shape's values, [`near_twin`]), and of the local search from it.
/// The values `chosen[k]` has are always among those tried, so that the result is never
/// slower than them.
#[allow(clippy::too_many_arguments)]
pub(super) fn search(
    plan: &Plan,
    program: &Program,
    deps: &Dependences,
    o: &mut RankOptions,
    evals: &mut Evaluations,
    chosen: &[Variant],
    k: usize,
    bounds: &PlanBounds,
    best: &mut Best,
    seed: Option<&[i64]>,
) -> Searched {
    let variant = &chosen[k];
    let current: Vec<i64> = variant.params.iter().map(|p| p.value).collect();
    let text = |values: &[i64]| {
        let mut trial = chosen.to_vec();
        trial[k] = variant.with_values(values);
        text_of(plan, &trial, 0)
    };
    let others = bounds.others(k, chosen);
    // First the current values and an even spread of the others (the whole space's
    // shape), or the seed; then the neighbours of the fastest, as long as they lead
    // somewhere faster.
    // A seed comes with its neighbours, in one batch for every core.
    let mut batch = match seed {
        Some(values) if variant.combos.iter().any(|c| c == values) => {
            let around = neighbours(&variant.params, &variant.combos, values);
            std::iter::once(values.to_vec()).chain(around).collect()
        }
        _ => spread(&variant.combos, SPREAD),
    };
    batch.retain(|c| *c != current);
    batch.insert(0, current.clone());
    let mut tried: Vec<Vec<i64>> = batch.clone();
    let mut at: Option<((f64, f64), Vec<i64>)> = None;
    let mut skipped = 0;
    loop {
        evals.expected += batch.len();
        let texts: Vec<String> = batch.iter().map(|c| text(c)).collect();
        // The current values first: their time is the one to beat.
        let lower: Vec<f64> = batch
            .iter()
            .map(|c| {
                if *c == current {
                    f64::NEG_INFINITY
                } else {
                    bounds.of(k, &variant.with_values(c)) + others
                }
            })
            .collect();
        let limits = Limits {
            bar: at.as_ref().map_or(f64::INFINITY, |(rank, _)| rank.0),
            ..Limits::pruning(o.prune)
        };
        let (outcomes, _) = evals.run_bounded(program, deps, o, &texts, &lower, &limits);
        let before = at.as_ref().map(|(_, values)| values.clone());
        for (j, outcome) in outcomes.iter().enumerate() {
            let Outcome::Evaluated(outcome) = outcome else {
                evals.expected = evals.expected.saturating_sub(1);
                skipped += 1;
                continue;
            };
            keep_best(best, outcome, &texts[j]);
            if let Ok(est) = outcome {
                if at.as_ref().is_none_or(|(rank, _)| est.faster_than(*rank)) {
                    at = Some((est.rank(), batch[j].clone()));
                }
            }
        }
        // Moved to a faster combination: its neighbours next.
        let Some((_, from)) = at.as_ref().filter(|(_, v)| before.as_ref() != Some(v)) else {
            break;
        };
        batch = neighbours(&variant.params, &variant.combos, from)
            .into_iter()
            .filter(|c| !tried.contains(c))
            .take((SPREAD + LOCAL).saturating_sub(tried.len()))
            .collect();
        if batch.is_empty() {
            break;
        }
        tried.extend(batch.iter().cloned());
    }
    Searched {
        values: at.map_or(current, |(_, values)| values),
        skipped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The register-tiled GEMM's space: TX, TY, TK, RX, RY with 64 to 256 threads.
    fn gemm_space() -> (Vec<Param>, Vec<Vec<i64>>) {
        let mut combos = Vec::new();
        for tx in [64, 128] {
            for ty in [64, 128] {
                for tk in [8, 16] {
                    for rx in [4, 8] {
                        for ry in [4, 8] {
                            if (64..=256).contains(&((tx / rx) * (ty / ry))) {
                                combos.push(vec![tx, ty, tk, rx, ry]);
                            }
                        }
                    }
                }
            }
        }
        let params = ["TX", "TY", "TK", "RX", "RY"]
            .iter()
            .zip([
                vec![64, 128],
                vec![64, 128],
                vec![8, 16],
                vec![4, 8],
                vec![4, 8],
            ])
            .map(|(role, candidates)| Param {
                role,
                candidates,
                value: 0,
            })
            .collect();
        (params, combos)
    }

    #[test]
    fn neighbours_move_one_parameter_one_step_within_the_allowed_combinations() {
        let (params, combos) = gemm_space();
        // The default of gemm_nn.c: each of the five parameters moved once.
        assert_eq!(
            neighbours(&params, &combos, &[64, 64, 16, 8, 8]),
            vec![
                vec![128, 64, 16, 8, 8],
                vec![64, 128, 16, 8, 8],
                vec![64, 64, 8, 8, 8],
                vec![64, 64, 16, 4, 8],
                vec![64, 64, 16, 8, 4],
            ]
        );
        // 128 x 64 tiles of 4 x 4 would be 512 threads: not a neighbour.
        assert_eq!(
            neighbours(&params, &combos, &[64, 64, 16, 4, 4]),
            vec![
                vec![64, 64, 8, 4, 4],
                vec![64, 64, 16, 8, 4],
                vec![64, 64, 16, 4, 8]
            ]
        );
        // Several candidates: the values on both sides, the smaller first.
        let params = vec![Param {
            role: "TX",
            candidates: vec![16, 32, 64, 128],
            value: 32,
        }];
        let combos: Vec<Vec<i64>> = [16, 32, 64, 128].iter().map(|x| vec![*x]).collect();
        assert_eq!(
            neighbours(&params, &combos, &[32]),
            vec![vec![16], vec![64]]
        );
        assert_eq!(neighbours(&params, &combos, &[128]), vec![vec![64]]);
        // A value that is not a candidate has no neighbours along that parameter.
        assert!(neighbours(&params, &combos, &[48]).is_empty());
    }
}
