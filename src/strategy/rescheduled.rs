//! A nest that would run in one thread as written (every loop carries a dependence: LU and
//! Cholesky in PolyBench's i-j-k order, Gauss–Seidel sweeps) in the order isl's scheduler
//! finds instead ([`crate::transform::schedule::reschedule`], as PPCG does). The new loops
//! outside the first parallel one stay on the host, one launch per iteration (a
//! wavefront's diagonals, LU's pivots), and that loop (with the next one where it is
//! parallel too) maps to blocks and threads. Where no loop around all the statements is
//! parallel, the sequential ones stay on the host and each part of isl's sequence inside
//! them is a kernel of its own (Cholesky: the pivot's square root in one thread, its column
//! and the trailing triangle in parallel). The tuner ranks the result against the serial
//! run ([`crate::tune`]).

use crate::deps::Dependences;
use crate::poly::{LoopId, Program, StatementId};
use crate::transform::{schedule, Transformed};
use std::fmt::Write as _;
use std::time::Duration;

/// A serial nest's rescheduled form.
#[derive(Clone, Debug, PartialEq)]
pub struct Rescheduled {
    /// The nest's outermost loop, which `reschedule` names.
    pub root: LoopId,
    /// Its statements, in order.
    pub statements: Vec<StatementId>,
    /// The loops around it that stay on the host.
    pub outer: Vec<LoopId>,
    /// The new loops around every statement that stay on the host, outermost first.
    pub host: Vec<String>,
    /// What runs inside them, in order: a kernel each.
    pub parts: Vec<Part>,
    /// The shape the tuner chose (an index into [`SHAPES_1D`] and [`SHAPES_2D`], for the
    /// parts with one and two parallel loops); none while the nest runs in one thread.
    pub chosen: Option<usize>,
}

/// Statements of a rescheduled nest that one kernel runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub statements: Vec<StatementId>,
    /// The parallel loops on threads, x first (one or two); none: one thread runs them.
    pub threads: Vec<String>,
}

/// Blocks tried for one parallel loop, and for two (x, y), side by side: the tuner tries
/// the k-th of each at once.
pub const SHAPES_1D: [[i64; 1]; 3] = [[64], [128], [256]];
pub const SHAPES_2D: [[i64; 2]; 3] = [[32, 4], [32, 8], [16, 16]];

/// The deepest nest the strategy generator hands to isl's scheduler. isl's Pluto-style
/// search grows fast with the loops and statements, and its time is not bounded by isl's
/// operation budget: a random four-deep nest of four statements (the nest fuzzer's seed
/// 7950823667166161158, program 76) took 10 s in it, and the compile 36 s. Every nest of
/// PolyBench/C 4.2.1 that would run in one thread is at most three deep.
pub const MAX_DEPTH: usize = 3;

/// The rescheduled form of the nest rooted at `root` (holding `statements`, inside the
/// host loops `outer`), if isl's scheduler finds a parallel loop in it (around all its
/// statements, or around some of them inside sequential loops around all); else why not.
pub fn rescheduled(
    p: &Program,
    deps: &Dependences,
    root: LoopId,
    statements: &[StatementId],
    outer: &[LoopId],
) -> Result<Rescheduled, String> {
    let depth = (statements.iter())
        .map(|s| p.statements[*s].loops.len() - outer.len())
        .max()
        .unwrap_or(0);
    if depth > MAX_DEPTH {
        return Err(format!(
            "gpucc does not try isl's scheduler on a nest {depth} loops deep (at most {MAX_DEPTH}, to keep the compile short; a recipe's `reschedule` can)"
        ));
    }
    let mut t = Transformed::new(p.clone(), deps.clone());
    // A fresh program's transformed statements are its statements, in order.
    // The search's processor time is bounded (`--limit scheduler-milliseconds`); where it
    // runs out the nest keeps its other strategies.
    let cpu = Duration::from_millis(crate::limits::current().scheduler_milliseconds);
    let found = schedule::reschedule(&mut t, Some(root), Some(cpu)).map_err(|e| {
        let why = e.notes.last().unwrap_or(&e.message);
        format!("isl's scheduler gave no order ({why})")
    })?;
    let loops = &found.loops;
    let all = |l: &schedule::NewLoop| l.statements.len() == statements.len();
    let around = loops.iter().take_while(|l| all(l)).count();
    let no_parallel =
        || "isl's scheduler finds no order with a parallel loop in it either".to_string();
    let (host, parts) = match loops[..around].iter().position(|l| l.parallel) {
        Some(first) => (
            loops[..first].iter().map(|l| l.name.clone()).collect(),
            vec![Part {
                statements: statements.to_vec(),
                threads: threads(&loops[first..around]),
            }],
        ),
        None => (
            loops[..around].iter().map(|l| l.name.clone()).collect(),
            parts_inside(&loops[around..], &found.order),
        ),
    };
    if parts.iter().all(|part| part.threads.is_empty()) {
        return Err(no_parallel());
    }
    Ok(Rescheduled {
        root,
        statements: statements.to_vec(),
        outer: outer.to_vec(),
        host,
        parts,
        chosen: None,
    })
}

/// The loops on threads, x first, from `loops` (each around the same statements, the
/// first parallel): the first, and the second where it is parallel too (on x: the inner
/// loop, whose neighbouring iterations touch neighbouring elements more often).
fn threads(loops: &[schedule::NewLoop]) -> Vec<String> {
    let mut threads = vec![loops[0].name.clone()];
    if let Some(next) = loops.get(1).filter(|l| l.parallel) {
        threads.insert(0, next.name.clone());
    }
    threads
}

/// The parts of a nest inside the loops around all of its statements: `loops` are the
/// other new loops (a walk of the tree), `order` the statements in the order they run.
/// Statements under the same outermost loop form a part, mapped to threads where that
/// loop is parallel; the others run in one thread, consecutive ones together.
fn parts_inside(loops: &[schedule::NewLoop], order: &[usize]) -> Vec<Part> {
    let mut parts: Vec<Part> = Vec::new();
    let mut key_of_last: Option<Option<usize>> = None;
    for &s in order {
        let key = loops.iter().position(|l| l.statements.contains(&s));
        let threads = match key {
            Some(k) if loops[k].parallel => {
                let same = loops[k..]
                    .iter()
                    .take_while(|l| l.statements == loops[k].statements)
                    .count();
                threads(&loops[k..k + same])
            }
            _ => Vec::new(),
        };
        let joins = match parts.last() {
            // The same loop, or one thread after one thread.
            Some(last) => {
                (key.is_some() && key_of_last == Some(key))
                    || (threads.is_empty() && last.threads.is_empty())
            }
            None => false,
        };
        match parts.last_mut() {
            Some(last) if joins => last.statements.push(s),
            _ => parts.push(Part {
                statements: vec![s],
                threads,
            }),
        }
        key_of_last = Some(key);
    }
    parts
}

impl Rescheduled {
    /// The number of shapes the tuner tries.
    pub fn shapes(&self) -> usize {
        SHAPES_1D.len()
    }

    /// `` `t0` sequential on the host (a launch each), `i`, `t` parallel on threads `` for
    /// comments and notes.
    pub fn describe(&self, p: &Program) -> String {
        let quoted = |v: &[String]| -> String {
            v.iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let parts: Vec<String> = (self.parts.iter())
            .map(|part| match part.threads.is_empty() {
                true => format!("{} in one thread", super::lines(p, &part.statements)),
                false => format!("{} parallel on threads", quoted(&part.threads)),
            })
            .collect();
        let parts = parts.join(", then ");
        match self.host.is_empty() {
            true => parts,
            false => format!(
                "{} sequential on the host (a launch each), {parts}",
                quoted(&self.host)
            ),
        }
    }

    /// What the tuner chose, for people: `` the nest of `i` (line 8) in isl's order
    /// (`reschedule`): `t0` ..., blocks of 64 threads `` (`None` while the nest runs in one
    /// thread).
    pub fn describe_chosen(&self, p: &Program) -> Option<String> {
        let k = self.chosen?;
        let root = &p.loops[self.root];
        let mut shapes: Vec<String> = Vec::new();
        for part in &self.parts {
            let shape = match part.threads.len() {
                0 => continue,
                1 => SHAPES_1D[k].to_vec(),
                _ => SHAPES_2D[k].to_vec(),
            };
            let shape: Vec<String> = shape.iter().map(|s| s.to_string()).collect();
            let shape = shape.join(" x ");
            if !shapes.contains(&shape) {
                shapes.push(shape);
            }
        }
        Some(format!(
            "the nest of `{}` (line {}) in isl's order (`reschedule`): {}, blocks of {} threads",
            root.iterator,
            root.line,
            self.describe(p),
            shapes.join(" and ")
        ))
    }

    /// The commands of the chosen shape, its kernels named `kernel` (`kernel_0`, ... for
    /// several parts); with `several` (nests in the recipe), each command names a
    /// statement. `fresh` makes the name of a block loop (of a loop and a suffix that tells
    /// the parts apart).
    pub(super) fn write(
        &self,
        r: &mut String,
        p: &Program,
        several: bool,
        kernel: &str,
        fresh: &dyn Fn(&str, &str) -> String,
    ) {
        let Some(k) = self.chosen else {
            return;
        };
        let quoted = |v: &[String]| -> String {
            v.iter()
                .map(|s| format!("\"{s}\""))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let one = self.parts.len() == 1;
        let stmt_arg = |s: StatementId| match several || !one {
            true => format!("{s}, "),
            false => String::new(),
        };
        let _ = writeln!(
            r,
            "reschedule({}\"{}\")",
            stmt_arg(self.statements[0]),
            p.loops[self.root].iterator
        );
        let name = |j: usize| match one {
            true => kernel.to_string(),
            false => format!("{kernel}_{j}"),
        };
        // The parallel parts first: a serial kernel inside host loops needs a kernel that
        // keeps them there.
        for (j, part) in self.parts.iter().enumerate() {
            if part.threads.is_empty() {
                continue;
            }
            let stmt = stmt_arg(part.statements[0]);
            let shape = match part.threads.len() {
                1 => SHAPES_1D[k].to_vec(),
                _ => SHAPES_2D[k].to_vec(),
            };
            let sfx = if one { String::new() } else { format!("_{j}") };
            let blocks: Vec<String> = part.threads.iter().map(|l| fresh(l, &sfx)).collect();
            let controls: Vec<String> = blocks
                .iter()
                .enumerate()
                .map(|(j, c)| format!("l{}_control=\"{c}\"", j + 1))
                .collect();
            let sizes: Vec<String> = shape.iter().map(|s| s.to_string()).collect();
            // The order: host loops, blocks (y outside x), threads (y outside x).
            let mut order: Vec<String> = (self.outer.iter())
                .map(|l| p.loops[*l].iterator.clone())
                .collect();
            order.extend(self.host.iter().cloned());
            order.extend(blocks.iter().rev().cloned());
            order.extend(part.threads.iter().rev().cloned());
            let _ = writeln!(
                r,
                "tile_by_index({stmt}{{{}}}, {{{}}}, {{{}}}, {{{}}})",
                quoted(&part.threads),
                sizes.join(", "),
                controls.join(", "),
                quoted(&order)
            );
            let _ = writeln!(
                r,
                "cudaize({stmt}\"{}\", {{}}, {{block={{{}}}, thread={{{}}}}})",
                name(j),
                quoted(&blocks),
                quoted(&part.threads)
            );
        }
        for (j, part) in self.parts.iter().enumerate() {
            if part.threads.is_empty() {
                let _ = writeln!(
                    r,
                    "cudaize({}\"{}\", {{}}, {{}})",
                    stmt_arg(part.statements[0]),
                    name(j)
                );
            }
        }
    }
}
