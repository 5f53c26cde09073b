//! A nest that would run in one thread as written (every loop carries a dependence: LU and
//! Cholesky in PolyBench's i-j-k order, Gauss–Seidel sweeps) in the order isl's scheduler
//! finds instead ([`crate::transform::schedule::reschedule`], as PPCG does): the new
//! loops outside the first parallel one stay on the host, one launch per iteration (a
//! wavefront's diagonals, LU's pivots), and that loop (with the next one where it is
//! parallel too) maps to blocks and threads. The tuner ranks it against the serial run.

use crate::deps::Dependences;
use crate::poly::{LoopId, Program, StatementId};
use crate::transform::{schedule, Transformed};
use std::fmt::Write as _;

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
    /// The parallel loops on threads, x first (one or two).
    pub threads: Vec<String>,
    /// The tile sizes the tuner tries for `threads` (x first): the threads of a block.
    pub shapes: Vec<Vec<i64>>,
    /// The shape the tuner chose; none while the nest runs in one thread.
    pub chosen: Option<usize>,
}

/// Blocks tried for one parallel loop, and for two (x, y).
const SHAPES_1D: [[i64; 1]; 3] = [[64], [128], [256]];
const SHAPES_2D: [[i64; 2]; 3] = [[32, 4], [32, 8], [16, 16]];

/// The rescheduled form of the nest rooted at `root` (holding `statements`, inside the
/// host loops `outer`), if isl's scheduler finds a parallel loop around all of them; else
/// why not.
pub fn rescheduled(
    p: &Program,
    deps: &Dependences,
    root: LoopId,
    statements: &[StatementId],
    outer: &[LoopId],
) -> Result<Rescheduled, String> {
    let mut t = Transformed::new(p.clone(), deps.clone());
    let loops = schedule::reschedule(&mut t, Some(root)).map_err(|e| e.message)?;
    let around: Vec<&schedule::NewLoop> = loops
        .iter()
        .take_while(|l| l.encloses == statements.len())
        .collect();
    let Some(first) = around.iter().position(|l| l.parallel) else {
        return Err("isl's scheduler finds no order with a parallel loop around all of its statements either".into());
    };
    let host: Vec<String> = around[..first].iter().map(|l| l.name.clone()).collect();
    let mut threads = vec![around[first].name.clone()];
    if let Some(next) = around.get(first + 1).filter(|l| l.parallel) {
        // The inner loop on x: consecutive threads, neighbouring elements more often.
        threads.insert(0, next.name.clone());
    }
    let shapes = match threads.len() {
        1 => SHAPES_1D.iter().map(|s| s.to_vec()).collect(),
        _ => SHAPES_2D.iter().map(|s| s.to_vec()).collect(),
    };
    Ok(Rescheduled {
        root,
        statements: statements.to_vec(),
        outer: outer.to_vec(),
        host,
        threads,
        shapes,
        chosen: None,
    })
}

impl Rescheduled {
    /// `` `t0` on the host, `t`, `i` on threads `` for comments and notes.
    pub fn describe(&self) -> String {
        let quoted = |v: &[String]| -> String {
            v.iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let threads = quoted(&self.threads);
        match self.host.is_empty() {
            true => format!("{threads} on threads"),
            false => format!(
                "{} sequential on the host (a launch each), {threads} parallel on threads",
                quoted(&self.host)
            ),
        }
    }

    /// What the tuner chose, for people: `` `i` (line 8) in isl's order: `t0` ..., blocks
    /// of 64 threads `` (`None` while the nest runs in one thread).
    pub fn describe_chosen(&self, p: &Program) -> Option<String> {
        let shape = &self.shapes[self.chosen?];
        let root = &p.loops[self.root];
        let threads: Vec<String> = shape.iter().map(|s| s.to_string()).collect();
        Some(format!(
            "the nest of `{}` (line {}) in isl's order (`reschedule`): {}, blocks of {} threads",
            root.iterator,
            root.line,
            self.describe(),
            threads.join(" x ")
        ))
    }

    /// The commands of the chosen shape (`stmt_arg` names the nest's statement, `"3, "`
    /// where the recipe has several nests); `fresh` makes a block loop's name.
    pub(super) fn write(
        &self,
        r: &mut String,
        p: &Program,
        stmt_arg: &str,
        kernel: &str,
        fresh: &dyn Fn(&str) -> String,
    ) {
        let Some(shape) = self.chosen.map(|k| &self.shapes[k]) else {
            return;
        };
        let quoted = |v: &[String]| -> String {
            v.iter()
                .map(|s| format!("\"{s}\""))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            r,
            "reschedule({stmt_arg}\"{}\")",
            p.loops[self.root].iterator
        );
        let blocks: Vec<String> = self.threads.iter().map(|l| fresh(l)).collect();
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
        order.extend(self.threads.iter().rev().cloned());
        let _ = writeln!(
            r,
            "tile_by_index({stmt_arg}{{{}}}, {{{}}}, {{{}}}, {{{}}})",
            quoted(&self.threads),
            sizes.join(", "),
            controls.join(", "),
            quoted(&order)
        );
        let _ = writeln!(
            r,
            "cudaize({stmt_arg}\"{kernel}\", {{}}, {{block={{{}}}, thread={{{}}}}})",
            quoted(&blocks),
            quoted(&self.threads)
        );
    }
}
