//! Compiling and emulating candidates on every core, each recipe text once per ranking,
//! and, given their lower bounds ([`super::bound`]), least bound first: a candidate is
//! skipped when its bound is above the fastest time of the candidates before it, so that
//! no compile of a skipped candidate could have been faster (seed 001,
//! `001_9e65c7c4352e71cc.txt` §5, Algorithm 2's pruning). The cores never wait for one
//! another, and what is skipped is what taking the candidates one at a time would skip,
//! whatever the cores' timing: the same listing on every run.

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
    /// Recipes a spare core compiled ahead whose bound then proved above the fastest
    /// time before them: skipped as taking them in order would, their results dropped.
    pub(crate) dropped: usize,
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
        // The outcome is that of taking the candidates one after the other in this order,
        // each skipped when its bound is above the fastest time of those before it, on
        // however many cores and in whatever order they finish: a worker skips a candidate
        // only when one finished before it in the order is already faster than its bound
        // (then so is the fastest of all those before it), else compiles it; a candidate
        // compiled ahead whose bound turns out above the fastest before it is dropped as
        // skipped. Only the bound decides what is skipped, never the timing of the threads.
        let workers = workers(todo.len());
        let next = AtomicUsize::new(0);
        let started = AtomicUsize::new(0);
        // Per position in `todo`, the time of its outcome once known (infinite for a
        // failure).
        let finished: Vec<AtomicU64> = todo
            .iter()
            .map(|_| AtomicU64::new(f64::NAN.to_bits()))
            .collect();
        let mut fates: Vec<Option<Result<Result<Estimate, String>, Outcome>>> =
            (0..todo.len()).map(|_| None).collect();
        let (macros, device, sizes) = (o.macros, o.device, o.sizes);
        let resources = crate::limits::current();
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::channel();
            for _ in 0..workers {
                let tx = tx.clone();
                let (next, started, finished, todo) = (&next, &started, &finished, &todo);
                scope.spawn(move || {
                    crate::limits::with(resources, || loop {
                        let j = next.fetch_add(1, Ordering::SeqCst);
                        let Some(&k) = todo.get(j) else {
                            break;
                        };
                        let before = finished[..j]
                            .iter()
                            .map(|t| f64::from_bits(t.load(Ordering::SeqCst)))
                            .filter(|t| !t.is_nan())
                            .fold(bar, f64::min);
                        let fate = if limits.prune && bounds[k] > before {
                            Err(Outcome::Skipped)
                        } else if limits.deadline.is_some_and(|d| Instant::now() >= d)
                            || started.fetch_add(1, Ordering::SeqCst) >= limits.new
                        {
                            Err(Outcome::NotRun)
                        } else {
                            let r = compile_and_estimate(
                                program, deps, macros, device, sizes, &texts[k],
                            );
                            let time = r.as_ref().map_or(f64::INFINITY, |e| e.time_us);
                            finished[j].store(time.to_bits(), Ordering::SeqCst);
                            Ok(r)
                        };
                        if tx.send((j, fate)).is_err() {
                            break;
                        }
                    })
                });
            }
            drop(tx);
            // Each result recorded as it comes (an interrupted `gpucc tune` loses
            // nothing), also one dropped below: its time is as true as any.
            let mut compiled = self.considered;
            for (j, fate) in rx {
                if let Ok(r) = &fate {
                    if let Some(record) = o.on_evaluated.as_mut() {
                        record(&texts[todo[j]], r);
                    }
                    compiled += 1;
                    (o.progress)(compiled, self.expected);
                }
                fates[j] = Some(fate);
            }
        });
        // The candidates in order, as one after the other would have taken them.
        let mut skipped: std::collections::HashSet<usize> = Default::default();
        let mut cut_short = false;
        for (j, &k) in todo.iter().enumerate() {
            let skip = limits.prune && bounds[k] > bar;
            let r = match fates[j].take().expect("every candidate has a fate") {
                fate if skip => {
                    self.dropped += usize::from(fate.is_ok());
                    skipped.insert(k);
                    continue;
                }
                Ok(r) => r,
                Err(Outcome::NotRun) => {
                    cut_short = true;
                    continue;
                }
                // Skipped by a worker on the time of a candidate dropped since, which a
                // bound above its own candidate's time alone allows: compiled now, as
                // taking them in order would.
                Err(_) => {
                    let r = compile_and_estimate(program, deps, macros, device, sizes, &texts[k]);
                    if let Some(record) = o.on_evaluated.as_mut() {
                        record(&texts[k], &r);
                    }
                    r
                }
            };
            if let Ok(est) = &r {
                bar = bar.min(est.time_us);
            }
            self.emulated += usize::from(r.is_ok());
            self.memo.insert(texts[k].clone(), r);
            self.considered += 1;
        }
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
