//! Loop distribution before Phase I. Seed 004 reshapes the loops before their mapping is
//! chosen (§5.3 step 1, "Preprocessing", which permutes them); distributing them first is
//! gpucc's addition in the same place. A parallel loop whose body holds several loop nests
//! stops the band there: PolyBench's GEMM,
//!
//! ```c
//! for (i = 0; i < NI; i++) {
//!   for (j = 0; j < NJ; j++) C[i][j] *= beta;
//!   for (k = 0; k < NK; k++)
//!     for (j = 0; j < NJ; j++) C[i][j] += alpha * A[i][k] * B[k][j];
//! }
//! ```
//!
//! maps only `i` to threads as written. Distributed at `i` (`distribute({0}, "i")`), each
//! statement is a nest of its own, and the product's `i`, `k`, `j` band maps like any
//! matrix product (two dimensions of threads, register tiles). [`distributed`] makes that
//! program and the recipe commands that turn the original into it; the tuner ranks the
//! plans of both and keeps the faster ([`crate::tune::rank`]). The recipe interpreter
//! judges the distribution's legality when the commands run.

use super::analysis::Nests;
use crate::deps::Dependences;
use crate::poly::program::ScheduleDim;
use crate::poly::{ArrayKind, LoopId, Program, StatementId};

/// A program with loops distributed, and how to get it from the original.
#[derive(Clone, Debug)]
pub struct Distributed {
    pub program: Program,
    pub deps: Dependences,
    /// Recipe lines (comments, then commands) that distribute the original program so.
    pub commands: Vec<String>,
}

/// The program with every loop distributed that [`splits`] names, if any is.
pub fn distributed(p: &Program, deps: &Dependences) -> Option<Distributed> {
    let n = Nests::new(p, deps, &[]);
    let splits = splits(&n);
    if splits.is_empty() {
        return None;
    }
    let mut q = p.clone();
    let mut commands = Vec::new();
    for (l, named) in &splits {
        let numbers: Vec<String> = named.iter().map(|s| s.to_string()).collect();
        commands.push(format!(
            "-- `{}` (line {}) holds several loop nests, so only the loops around them could map to threads: each nest gets a copy of it (before the loop order of seed 004, §5.3 step 1).",
            n.name(*l),
            p.loops[*l].line
        ));
        commands.push(format!(
            "distribute({{{}}}, \"{}\")",
            numbers.join(", "),
            n.name(*l)
        ));
        distribute(&mut q, *l, named);
    }
    let mut new_deps = crate::deps::analyze_as_written(&q).ok()?;
    new_deps.privatized = deps.privatized.clone();
    Some(Distributed {
        program: q,
        deps: new_deps,
        commands,
    })
}

/// The loops worth distributing, outermost first, each with the statements that move into
/// nests of their own (the others keep the loop): a parallel loop whose body is two or
/// more parts (loops, statements), where a loop inside some part is parallel too (so
/// distributing lets a second loop map to threads), and every part but the last is one
/// statement (`distribute` gives each statement it names a nest of its own). Loops of
/// private scalars are left alone (the scalar's copies are indexed by them).
fn splits(n: &Nests) -> Vec<(LoopId, Vec<StatementId>)> {
    let p = n.p;
    let mut out: Vec<(LoopId, Vec<StatementId>)> = Vec::new();
    for l in 0..p.loops.len() {
        if !n.is_parallel(l) || out.iter().any(|(o, _)| p.loop_within(l, *o)) {
            continue;
        }
        let private = p
            .arrays
            .iter()
            .any(|a| matches!(&a.kind, ArrayKind::Private { loops } if loops.contains(&l)));
        if private {
            continue;
        }
        let parts = parts(p, Some(l));
        let Some((_, init)) = parts.split_last() else {
            continue;
        };
        if init.is_empty() {
            continue;
        }
        let deeper = parts.iter().any(|(loop_, _)| {
            loop_.is_some_and(|c| n.subtree(c).iter().any(|x| n.is_parallel(*x)))
        });
        let single: Option<Vec<StatementId>> = init
            .iter()
            .map(|(_, stmts)| match stmts.as_slice() {
                [s] => Some(*s),
                _ => None,
            })
            .collect();
        if let (true, Some(named)) = (deeper, single) {
            out.push((l, named));
        }
    }
    out
}

/// The parts of `parent`'s body in order (the top level for `None`): each a loop with its
/// statements, or a statement of its own.
fn parts(p: &Program, parent: Option<LoopId>) -> Vec<(Option<LoopId>, Vec<StatementId>)> {
    (p.body(parent).into_iter())
        .map(|(_, entry)| match entry {
            Ok(l) => {
                let inside = (0..p.statements.len())
                    .filter(|&s| p.statements[s].loops.contains(&l))
                    .collect();
                (Some(l), inside)
            }
            Err(s) => (None, vec![s]),
        })
        .collect()
}

/// Gives each statement of `named` (one part of `l`'s body each) a copy of loop `l`,
/// placed before `l` in program order, as the recipe's `distribute` does.
fn distribute(q: &mut Program, l: LoopId, named: &[StatementId]) {
    let (parent, depth) = (q.loops[l].parent, q.loops[l].depth);
    let mut copies = Vec::new();
    for &s in named {
        q.loops.push(q.loops[l].clone());
        let copy = q.loops.len() - 1;
        copies.push(copy);
        let inner = q.statements[s].loops.get(depth).copied();
        let st = &mut q.statements[s];
        st.loops[depth - 1] = copy;
        if let ScheduleDim::Loop { id, .. } = &mut st.schedule[2 * depth - 1] {
            *id = copy;
        }
        st.schedule[2 * depth] = ScheduleDim::Position(0);
        if let Some(c) = inner {
            q.loops[c].parent = Some(copy);
            q.loops[c].position = 0;
        }
    }
    // The copies come just before `l`, in order (ties are `l`'s position, which its
    // copies share); then every position is renumbered.
    let mut order = q.body(parent);
    order.sort_by_key(|(pos, entry)| {
        let rank = match entry {
            Ok(x) => copies.iter().position(|c| c == x).unwrap_or(copies.len()),
            Err(_) => 0,
        };
        (*pos, rank)
    });
    let level = depth - 1;
    for (new, (_, entry)) in order.into_iter().enumerate() {
        match entry {
            Ok(x) => {
                q.loops[x].position = new;
                for s in 0..q.statements.len() {
                    if q.statements[s].loops.contains(&x) {
                        q.statements[s].schedule[2 * level] = ScheduleDim::Position(new);
                    }
                }
            }
            Err(s) => q.statements[s].schedule[2 * level] = ScheduleDim::Position(new),
        }
    }
    // What stays in `l` is renumbered from 0.
    let rest = parts(q, Some(l));
    for (new, (lp, stmts)) in rest.into_iter().enumerate() {
        if let Some(x) = lp {
            q.loops[x].position = new;
        }
        for s in stmts {
            q.statements[s].schedule[2 * depth] = ScheduleDim::Position(new);
        }
    }
}
