//! Compiling and emulating candidates on every core, each recipe text once per ranking,
//! and, given their lower bounds ([`super::bound`]), least bound first: a worker takes the
//! next candidate only while its bound is not above the fastest time found so far, so that
//! no compile of a skipped candidate could have been faster (seed 001,
//! `001_9e65c7c4352e71cc.txt` §5, Algorithm 2's pruning), and the cores never wait for
//! one another.

use super::{compile_and_estimate, outcome_rank, Evaluated, RankOptions};
use crate::deps::Dependences;
use crate::emulator::Estimate;
use crate::poly::Program;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

/// The recipes one ranking has compiled and estimated, by their texts: Phase IV starts
/// from the values Phase III chose, and a text evaluated once is not compiled again.
#[derive(Default)]
pub(crate) struct Evaluations {
    pub(crate) memo: std::collections::HashMap<String, Result<Estimate, String>>,
    /// Recipes compiled.
    pub(crate) considered: usize,
    /// Of those, the ones the emulator predicted a time for.
    pub(crate) emulated: usize,
    /// Evaluations expected so far, for the progress callback.
    pub(crate) expected: usize,
    /// Outcomes taken from [`RankOptions::known`] instead of compiling.
    pub(crate) reused: usize,
}

/// What became of one candidate of [`Evaluations::run_bounded`].
#[derive(Clone, Debug)]
pub(crate) enum Outcome {
    Evaluated(Result<Estimate, String>),
    /// Its bound was above the fastest time found.
    Skipped,
    /// The budget or the deadline ran out first.
    NotRun,
}

/// How far [`Evaluations::run_bounded`] may go.
pub(crate) struct Limits {
    /// The time to beat at the start (`f64::INFINITY`: none yet).
    pub bar: f64,
    /// Skip by the bound (else evaluate every candidate).
    pub prune: bool,
    /// New compiles allowed (texts evaluated before cost nothing).
    pub new: usize,
    pub deadline: Option<Instant>,
}

impl Limits {
    /// Every candidate evaluated but those the bound skips (when `prune`).
    pub fn pruning(prune: bool) -> Limits {
        Limits {
            bar: f64::INFINITY,
            prune,
            new: usize::MAX,
            deadline: None,
        }
    }
}

impl Evaluations {
    /// Every text evaluated, with its outcome.
    pub(crate) fn evaluated(&self) -> Vec<Evaluated> {
        self.memo
            .iter()
            .map(|(t, r)| (t.clone(), outcome_rank(r)))
            .collect()
    }

    /// Compiles and estimates `texts`, on as many threads as the machine has cores; a
    /// text evaluated before is not compiled again, nor counted in `considered`.
    pub(crate) fn run(
        &mut self,
        program: &Program,
        deps: &Dependences,
        o: &mut RankOptions,
        texts: &[String],
    ) -> Vec<Result<Estimate, String>> {
        let bounds = vec![0.0; texts.len()];
        let (out, _) = self.run_bounded(program, deps, o, texts, &bounds, &Limits::pruning(false));
        out.into_iter()
            .map(|x| match x {
                Outcome::Evaluated(r) => r,
                _ => Err("not evaluated".to_string()),
            })
            .collect()
    }

    /// [`Self::run`] of `texts`, whose lower bounds are `bounds` (microseconds), least
    /// bound first, within `limits`; each one's outcome in the order given, and whether
    /// the budget or the deadline stopped the run.
    pub(crate) fn run_bounded(
        &mut self,
        program: &Program,
        deps: &Dependences,
        o: &mut RankOptions,
        texts: &[String],
        bounds: &[f64],
        limits: &Limits,
    ) -> (Vec<Outcome>, bool) {
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by(|a, b| bounds[*a].total_cmp(&bounds[*b]).then(a.cmp(b)));
        // Texts known already cost nothing, and their times lower the bar first.
        let mut bar = limits.bar;
        let mut todo: Vec<usize> = Vec::new();
        for &k in &order {
            let text = &texts[k];
            if !self.memo.contains_key(text) {
                if let Some(outcome) = o.known.and_then(|known| known.get(text)) {
                    let outcome = outcome.clone().map(Estimate::recorded);
                    self.memo.insert(text.clone(), outcome);
                    self.reused += 1;
                } else if !todo.iter().any(|&j| texts[j] == *text) {
                    todo.push(k);
                    continue;
                }
            }
            if let Some(Ok(est)) = self.memo.get(text) {
                bar = bar.min(est.time_us);
            }
        }
        // Texts known already are not expected any more (saturating: a text met again,
        // as Phase III meets the variants the tile-size retry ran, counts once).
        self.expected = self.expected.saturating_sub(texts.len() - todo.len());
        let workers = workers(todo.len());
        let next = AtomicUsize::new(0);
        let started = AtomicUsize::new(0);
        let bar = AtomicU64::new(bar.to_bits());
        let mut skipped: std::collections::HashSet<usize> = Default::default();
        let mut cut_short = false;
        let (macros, device, sizes) = (o.macros, o.device, o.sizes);
        let resources = crate::limits::current();
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::channel();
            for _ in 0..workers {
                let tx = tx.clone();
                let (next, started, bar, todo) = (&next, &started, &bar, &todo);
                scope.spawn(move || {
                    crate::limits::with(resources, || loop {
                        let j = next.fetch_add(1, Ordering::SeqCst);
                        let Some(&k) = todo.get(j) else {
                            break;
                        };
                        let fate = if limits.prune
                            && bounds[k] > f64::from_bits(bar.load(Ordering::SeqCst))
                        {
                            Err(Outcome::Skipped)
                        } else if limits.deadline.is_some_and(|d| Instant::now() >= d)
                            || started.fetch_add(1, Ordering::SeqCst) >= limits.new
                        {
                            Err(Outcome::NotRun)
                        } else {
                            Ok(compile_and_estimate(
                                program, deps, macros, device, sizes, &texts[k],
                            ))
                        };
                        if tx.send((k, fate)).is_err() {
                            break;
                        }
                    })
                });
            }
            drop(tx);
            for (k, fate) in rx {
                let r = match fate {
                    Ok(r) => r,
                    Err(Outcome::Skipped) => {
                        skipped.insert(k);
                        continue;
                    }
                    Err(_) => {
                        cut_short = true;
                        continue;
                    }
                };
                if let Ok(est) = &r {
                    let lower = f64::from_bits(bar.load(Ordering::SeqCst)).min(est.time_us);
                    bar.store(lower.to_bits(), Ordering::SeqCst);
                }
                if let Some(record) = o.on_evaluated.as_mut() {
                    record(&texts[k], &r);
                }
                self.emulated += usize::from(r.is_ok());
                self.memo.insert(texts[k].clone(), r);
                self.considered += 1;
                (o.progress)(self.considered, self.expected);
            }
        });
        let skipped: Vec<&String> = skipped.iter().map(|&k| &texts[k]).collect();
        let out = texts
            .iter()
            .map(|t| match self.memo.get(t) {
                Some(r) => Outcome::Evaluated(r.clone()),
                None if skipped.contains(&t) => Outcome::Skipped,
                None => Outcome::NotRun,
            })
            .collect();
        (out, cut_short)
    }
}

/// Threads for `jobs` jobs: one per core, at most 8, no more than the jobs.
fn workers(jobs: usize) -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8)
        .min(jobs.max(1))
}

/// `f` of each item, in their order, computed on every core (each thread with the
/// caller's [`crate::limits`]).
pub(crate) fn on_every_core<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let resources = crate::limits::current();
    let mut out: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel();
        for _ in 0..workers(items.len()) {
            let (tx, next, f) = (tx.clone(), &next, &f);
            scope.spawn(move || {
                crate::limits::with(resources, || loop {
                    let j = next.fetch_add(1, Ordering::SeqCst);
                    let Some(item) = items.get(j) else {
                        break;
                    };
                    if tx.send((j, f(item))).is_err() {
                        break;
                    }
                })
            });
        }
        drop(tx);
        for (j, r) in rx {
            out[j] = Some(r);
        }
    });
    out.into_iter()
        .map(|r| r.expect("every item computed"))
        .collect()
}
