//! The last step of a ranking: each nest that runs in one thread as written, but that isl's
//! scheduler orders with a parallel loop ([`crate::strategy::rescheduled`]), compiled in
//! that order in each block shape and kept where the emulator ranks it faster than the
//! serial run (LU's rows in parallel under its pivot loop, Gauss–Seidel's wavefronts).

use super::{keep_best, text_of, Best, Evaluations, RankOptions, Refinement};
use crate::deps::Dependences;
use crate::poly::Program;
use crate::strategy::{Item, Plan, Variant};

/// What the refinement is called in reports.
const WHAT: &str = "a nest that one thread would run, in the order isl's scheduler finds (`reschedule`), its parallel loops on threads";

/// Chooses, on `plan`, the shape of each rescheduled nest that the emulator ranks faster
/// than the nest in one thread (with `chosen` and `unroll` for the rest); returns what was
/// tried.
#[allow(clippy::too_many_arguments)]
pub(super) fn choose(
    plan: &mut Plan,
    program: &Program,
    deps: &Dependences,
    o: &mut RankOptions,
    evals: &mut Evaluations,
    chosen: &[Variant],
    unroll: usize,
    best: &mut Best,
) -> Vec<Refinement> {
    let mut tried = Vec::new();
    for item in 0..plan.items.len() {
        let nests = match &plan.items[item] {
            Item::Serial(run) => run.rescheduled.len(),
            Item::Parallel(_) => 0,
        };
        for nest in 0..nests {
            let shape = |plan: &mut Plan, k: Option<usize>| {
                if let Item::Serial(run) = &mut plan.items[item] {
                    run.rescheduled[nest].chosen = k;
                }
            };
            let shapes = match &plan.items[item] {
                Item::Serial(run) => run.rescheduled[nest].shapes(),
                Item::Parallel(_) => 0,
            };
            // The serial run first (evaluated already: the memo answers), then each shape.
            let mut texts = vec![text_of(plan, chosen, unroll)];
            for k in 0..shapes {
                let mut trial = plan.clone();
                shape(&mut trial, Some(k));
                texts.push(text_of(&trial, chosen, unroll));
            }
            evals.expected += shapes;
            let outcomes = evals.run(program, deps, o, &texts);
            let mut fastest: Option<((f64, f64), usize)> = None;
            for (j, outcome) in outcomes.iter().enumerate() {
                keep_best(best, outcome, &texts[j]);
                if let Ok(est) = outcome {
                    if fastest.is_none_or(|(b, _)| est.faster_than(b)) {
                        fastest = Some((est.rank(), j));
                    }
                }
            }
            let before = outcomes[0].as_ref().map(|e| e.time_us);
            let fastest_shape = outcomes[1..]
                .iter()
                .filter_map(|r| r.as_ref().ok())
                .map(|e| e.time_us)
                .reduce(f64::min);
            let kept = fastest.is_some_and(|(_, j)| j > 0);
            if let Some((_, j)) = fastest.filter(|_| kept) {
                shape(plan, Some(j - 1));
            }
            tried.push(Refinement {
                what: WHAT,
                before_us: before.unwrap_or(f64::INFINITY),
                outcome: fastest_shape.ok_or_else(|| {
                    outcomes[1..]
                        .iter()
                        .find_map(|r| r.clone().err())
                        .unwrap_or_else(|| "no shape to try".to_string())
                }),
                kept,
            });
        }
    }
    tried
}
