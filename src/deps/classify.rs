//! Loop classification from the dependences: a loop is *parallel* when it carries no flow,
//! anti or output dependence; a *reduction* when everything it carries is the associative
//! update `x op= e` (op in `+ * min max`) of one statement, on the location that statement
//! updates, and that location is the same for all iterations of the loop and the loops
//! inside it (one location per iteration of the outer loops); otherwise *sequential*.

use super::{DepKind, Dependence};
use crate::poly::affine::Var;
use crate::poly::{ArrayId, LoopId, Program, ReductionOp};

#[derive(Clone, Debug, PartialEq)]
pub enum LoopKind {
    Parallel,
    /// The reductions it carries: operator and array, one per updating statement.
    Reduction(Vec<(ReductionOp, ArrayId)>),
    /// The dependences (indices into the dependence list) that make it sequential.
    Sequential(Vec<usize>),
}

impl LoopKind {
    pub fn name(&self) -> &'static str {
        match self {
            LoopKind::Parallel => "parallel",
            LoopKind::Reduction(_) => "reduction",
            LoopKind::Sequential(_) => "sequential",
        }
    }
}

/// The kind of every loop of `program` (indexed by loop id).
pub fn classify_loops(program: &Program, dependences: &[Dependence]) -> Vec<LoopKind> {
    (0..program.loops.len())
        .map(|l| classify(program, dependences, l))
        .collect()
}

fn classify(program: &Program, dependences: &[Dependence], l: LoopId) -> LoopKind {
    let carried: Vec<usize> = dependences
        .iter()
        .enumerate()
        .filter(|(_, d)| d.carried_by == Some(l) && d.kind != DepKind::Input)
        .map(|(k, _)| k)
        .collect();
    if carried.is_empty() {
        return LoopKind::Parallel;
    }
    let mut reductions: Vec<(ReductionOp, ArrayId)> = Vec::new();
    let mut blocking = Vec::new();
    for k in carried {
        match reduction_of(program, &dependences[k], l) {
            Some(r) => {
                if !reductions.contains(&r) {
                    reductions.push(r)
                }
            }
            None => blocking.push(k),
        }
    }
    if blocking.is_empty() {
        LoopKind::Reduction(reductions)
    } else {
        LoopKind::Sequential(blocking)
    }
}

/// The reduction a dependence carried by loop `l` belongs to, if it is part of one.
fn reduction_of(program: &Program, d: &Dependence, l: LoopId) -> Option<(ReductionOp, ArrayId)> {
    if d.source != d.sink {
        return None;
    }
    let st = &program.statements[d.source];
    let update = st.update?;
    let own = [update.read, st.write];
    if !own.contains(&d.source_access) || !own.contains(&d.sink_access) {
        return None;
    }
    // The updated location must not move with `l` or the loops inside it.
    let mut vars = Vec::new();
    for s in &program.accesses[st.write].subscripts {
        s.vars(&mut vars);
    }
    let depth = program.loops[l].depth;
    let moves = vars.iter().any(|v| match v {
        Var::Index(name) => st
            .loops
            .iter()
            .any(|x| program.loops[*x].iterator == *name && program.loops[*x].depth >= depth),
        Var::Param(_) => false,
    });
    (!moves).then_some((update.op, d.array))
}
