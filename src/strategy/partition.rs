//! Phase I, computation partitioning (seed 004, §5.3 and the algorithm
//! ComputationPartitioningCandidates): which loops of a nest become blocks and threads.
//!
//! Loops that carry no dependence are candidates for threads and blocks; `threadIdx.x`
//! goes to the candidate that walks the last dimension of the most arrays (coalescing,
//! §5.3.3 criterion 3, relaxed when none does); a second candidate makes the mapping 2-D
//! when the data is multi-dimensional (§5.3.1 step 3: "2D blocks for computations with
//! multi-dimensional data structures"). Loops that carry dependences either stay on the
//! host around the launches, when they lead the nest (time steps), or move inward into
//! each thread (step 1, "Preprocessing": the matrix product in `kij` order runs its `k`
//! inside the thread). A sum over a loop that carries nothing else can be split over
//! threads and combined with a parallel reduction. The candidates are proposals: the
//! recipe interpreter checks each against the dependences, and the illegal ones are
//! dropped.

use super::analysis::Nests;
use crate::poly::{ArrayId, LoopId, Program, StatementId};

/// How a nest's loops map to the GPU.
#[derive(Clone, Debug, PartialEq)]
pub struct Partition {
    /// Loops of the nest that stay on the host, around the launches.
    pub host: Vec<LoopId>,
    /// The loop on `threadIdx.x` (tiled: its control loop on `blockIdx.x`).
    pub x: LoopId,
    /// The loop on `threadIdx.y` (tiled: its control loop on `blockIdx.y`).
    pub y: Option<LoopId>,
    /// A loop mapped whole to `blockIdx.y` (the reduction mapping: one block row per
    /// value of it).
    pub block_y: Option<LoopId>,
    /// The other loops of the band, run inside each thread, in order.
    pub inner: Vec<LoopId>,
    /// Arrays (and scalars) whose sums are split over the threads.
    pub reduce: Vec<ArrayId>,
    /// For a sum in an imperfect nest: the statement before the summing loop (`y[i] = 0`)
    /// that is distributed into a loop nest and a kernel of its own, one thread per
    /// iteration of its innermost loop (the second of the pair).
    pub split: Option<(StatementId, LoopId)>,
    /// For sums per thread: the summed loop, tiled, its tiles on `blockIdx.y` (each
    /// thread sums one tile and adds it to its element atomically); `x` is then a parallel
    /// loop.
    pub blocks_sum: Option<LoopId>,
    /// The decisions, for the recipe's comments.
    pub reasons: Vec<String>,
}

impl Partition {
    /// The loops mapped to threads, x first.
    pub fn thread_loops(&self) -> Vec<LoopId> {
        std::iter::once(self.x).chain(self.y).collect()
    }

    /// The loop that `split`'s distribution splits: the outermost one around the split
    /// statement that does not stay on the host.
    pub fn distributed_in(&self, p: &Program) -> Option<LoopId> {
        let (s, _) = self.split?;
        p.statements[s]
            .loops
            .iter()
            .copied()
            .find(|l| !self.host.contains(l))
    }

    /// Every loop with a hardware index (threads and blocks).
    pub fn mapped(&self) -> Vec<LoopId> {
        let mut m = self.thread_loops();
        m.extend(self.block_y);
        m
    }

    /// A short description: `2-D (j, i)`, `1-D (i)`, `reduction over i`.
    pub fn describe(&self, p: &Program) -> String {
        let name = |l: LoopId| &p.loops[l].iterator;
        if let Some(sum) = self.blocks_sum {
            return format!(
                "1-D threads (`{}`), sum over `{}` split over blocks",
                name(self.x),
                name(sum)
            );
        }
        if !self.reduce.is_empty() {
            return format!("parallel sum over `{}`", name(self.x));
        }
        match self.y {
            Some(y) => format!("2-D threads (`{}`, `{}`)", name(self.x), name(y)),
            None => format!("1-D threads (`{}`)", name(self.x)),
        }
    }
}

/// The candidate partitions of the nest rooted at `root`, best guess first; empty when
/// no loop of its band can be mapped (the nest then runs in one thread).
pub fn candidates(n: &Nests, root: LoopId) -> Vec<Partition> {
    let band = n.band(root);
    let stmts = n.statements_in(root);
    let parallel: Vec<LoopId> = band.iter().copied().filter(|l| n.is_parallel(*l)).collect();
    let summed: Vec<(LoopId, Vec<ArrayId>)> = band
        .iter()
        .filter_map(|l| n.splittable_reduction(*l).map(|a| (*l, a)))
        .collect();
    if parallel.is_empty() && summed.is_empty() {
        return Vec::new();
    }
    // Loops before the first mappable one carry dependences: on the host, or inward.
    let first_mappable = band
        .iter()
        .position(|l| parallel.contains(l) || summed.iter().any(|(s, _)| s == l))
        .expect("some loop of the band is mappable");
    let leading: Vec<LoopId> = band[..first_mappable].to_vec();
    let mut host_options = vec![Vec::new()];
    if !leading.is_empty() {
        host_options.insert(0, leading.clone());
    }
    let mut out = Vec::new();
    for host in host_options {
        let moved_in: Vec<LoopId> = leading
            .iter()
            .copied()
            .filter(|l| !host.contains(l))
            .collect();
        let host_reason = describe_host(n, &host, &moved_in);
        let by_coalescing = ranked_for_x(n, &stmts, &parallel);
        if let Some(&x) = by_coalescing.first() {
            let multi_dim = n
                .arrays(&stmts)
                .iter()
                .any(|a| n.p.arrays[*a].extents.len() >= 2);
            if let (Some(&y), true) = (by_coalescing.get(1), multi_dim) {
                out.push(partition(
                    n,
                    &band,
                    &host,
                    x,
                    Some(y),
                    None,
                    &[],
                    &host_reason,
                    &stmts,
                ));
            }
            out.push(partition(
                n,
                &band,
                &host,
                x,
                None,
                None,
                &[],
                &host_reason,
                &stmts,
            ));
        }
        // A sum split over threads, in the order the sum runs (a reduction may not be
        // reordered): the innermost loop of a perfect nest (every statement in it) on the
        // threads along x, the loop around it (if any) on blocks, and tiled onto the
        // threads along y when it is a sum too. A loop that holds a statement before its
        // one inner loop (`y[i] = 0;` before `for (j ...)`) does not end the band here:
        // that statement may be split off.
        let mut band = band.clone();
        let last = *band.last().expect("a band has a root");
        if let [inner] = n.children(Some(last)).as_slice() {
            band.extend(n.band(*inner));
        }
        let summed: Vec<(LoopId, Vec<ArrayId>)> = band
            .iter()
            .filter_map(|l| n.splittable_reduction(*l).map(|a| (*l, a)))
            .collect();
        let innermost = *band.last().expect("a band has a root");
        let outside: Vec<StatementId> = stmts
            .iter()
            .copied()
            .filter(|&s| n.p.statements[s].loops.last() != Some(&innermost))
            .collect();
        // One statement before the sum, in a parallel loop of the band (`y[i] = 0` of a
        // matrix-vector product), is distributed into a kernel of its own: the sum's
        // nest is then perfect (the recipe interpreter checks that the distribution is
        // legal).
        let split = match outside.as_slice() {
            [s] if stmts.iter().all(|t| t >= s) => n.p.statements[*s]
                .loops
                .last()
                .filter(|l| band.contains(l) && n.is_parallel(**l) && !host.contains(l))
                .map(|l| (*s, *l)),
            _ => None,
        };
        let perfect = outside.is_empty() || split.is_some();
        let with_split = |mut part: Partition| -> Partition {
            if let Some((s, l)) = split {
                part.split = split;
                part.reasons.insert(
                    host_reason.len(),
                    format!(
                        "The statement at line {} runs before the sum: its loop `{}` is distributed, and it runs in a kernel of its own, one thread per `{}`.",
                        n.p.statements[s].line,
                        n.name(part.distributed_in(n.p).expect("the statement is in the band")),
                        n.name(l)
                    ),
                );
            }
            part
        };
        let sums_of = |l: LoopId| summed.iter().find(|(s, _)| *s == l).map(|(_, a)| a);
        let mut mappable: Vec<LoopId> =
            band.iter().copied().filter(|l| !host.contains(l)).collect();
        // Sums per thread, split over blocks (the transposed matrix-vector product): the
        // parallel loop around the sum on threads along x, so that a warp reads along the
        // arrays' last dimension; the summed loop tiled, its tiles on blocks along y, each
        // thread adding its tile's sum to its own element atomically.
        if let ([o, sum], true) = (mappable.as_slice(), perfect) {
            if let (true, Some(sums)) = (n.is_parallel(*o), sums_of(*sum)) {
                let mut part =
                    partition(n, &band, &host, *o, None, None, &[], &host_reason, &stmts);
                part.reduce = sums.clone();
                part.blocks_sum = Some(*sum);
                part.reasons.push(format!(
                    "`{}` only sums into {}: its tiles go to blocks along y, and each thread adds its tile's sum to its element atomically.",
                    n.name(*sum),
                    names_of(n, sums)
                ));
                out.push(with_split(part));
            }
        }
        if perfect && mappable.len() <= 2 {
            let x = mappable
                .pop()
                .expect("the innermost loop is not on the host");
            let outer = mappable.pop();
            if let Some(x_sums) = sums_of(x) {
                let mut reduce: Vec<ArrayId> = x_sums.clone();
                let (y, block_y) = match outer {
                    Some(o) => match sums_of(o) {
                        Some(o_sums) => {
                            for a in o_sums {
                                if !reduce.contains(a) {
                                    reduce.push(*a);
                                }
                            }
                            (Some(o), None)
                        }
                        None if n.is_parallel(o) => (None, Some(o)),
                        None => (None, None),
                    },
                    None => (None, None),
                };
                if outer.is_none() || y.is_some() || block_y.is_some() {
                    let part = partition(
                        n,
                        &band,
                        &host,
                        x,
                        y,
                        block_y,
                        &reduce,
                        &host_reason,
                        &stmts,
                    );
                    out.push(with_split(part));
                }
            }
        }
    }
    out
}

/// `` `y`, `z` ``: the arrays' names, for the reasons.
fn names_of(n: &Nests, arrays: &[ArrayId]) -> String {
    let names: Vec<String> = arrays
        .iter()
        .map(|a| format!("`{}`", n.p.arrays[*a].name))
        .collect();
    names.join(", ")
}

/// Candidates for `threadIdx.x`, best first: the loop that indexes the last dimension of
/// the most arrays with unit stride, the written array's first; ties go to the inner loop.
fn ranked_for_x(n: &Nests, stmts: &[StatementId], loops: &[LoopId]) -> Vec<LoopId> {
    let mut ranked: Vec<(usize, usize, LoopId)> = loops
        .iter()
        .map(|&l| {
            let written = stmts
                .iter()
                .filter(|&&s| n.indexes_written_last_dim(s, l))
                .count();
            let unit = n.unit_stride_accesses(stmts, l);
            (written * 2 + unit, n.p.loops[l].depth, l)
        })
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    ranked.into_iter().map(|(_, _, l)| l).collect()
}

fn describe_host(n: &Nests, host: &[LoopId], moved_in: &[LoopId]) -> Vec<String> {
    let names = |ls: &[LoopId]| -> String {
        ls.iter()
            .map(|l| format!("`{}`", n.name(*l)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut r = Vec::new();
    if !host.is_empty() {
        r.push(format!(
            "{} carr{} dependences and lead{} the nest: on the host, around the launches.",
            names(host),
            if host.len() == 1 { "ies" } else { "y" },
            if host.len() == 1 { "s" } else { "" }
        ));
    }
    if !moved_in.is_empty() {
        r.push(format!(
            "{} carr{} dependences: moved inside each thread (seed 004, §5.3 step 1).",
            names(moved_in),
            if moved_in.len() == 1 { "ies" } else { "y" }
        ));
    }
    r
}

#[allow(clippy::too_many_arguments)]
fn partition(
    n: &Nests,
    band: &[LoopId],
    host: &[LoopId],
    x: LoopId,
    y: Option<LoopId>,
    block_y: Option<LoopId>,
    reduce: &[ArrayId],
    host_reason: &[String],
    stmts: &[StatementId],
) -> Partition {
    let mapped: Vec<LoopId> = std::iter::once(x).chain(y).chain(block_y).collect();
    let inner: Vec<LoopId> = band
        .iter()
        .copied()
        .filter(|l| !mapped.contains(l) && !host.contains(l))
        .collect();
    let mut reasons = host_reason.to_vec();
    let coalesced = stmts.iter().any(|&s| n.indexes_written_last_dim(s, x))
        || n.unit_stride_accesses(stmts, x) > 0;
    if reduce.is_empty() {
        reasons.push(format!(
            "`{}` carries no dependence: threads along x, its tiles over blocks{}.",
            n.name(x),
            match y {
                Some(y) => format!("; `{}` too, along y (2-D, as the arrays are)", n.name(y)),
                None => String::new(),
            }
        ));
    } else {
        reasons.push(format!(
            "`{}` only sums into {}: threads along x each add up their share, then the block combines them and adds its total atomically.",
            n.name(x),
            names_of(n, reduce)
        ));
        if let Some(b) = block_y {
            reasons.push(format!(
                "`{}` carries no dependence: one block per value.",
                n.name(b)
            ));
        }
    }
    reasons.push(if coalesced {
        format!(
            "`{}` indexes the last dimension of the arrays: neighbours along x touch neighbours (coalesced).",
            n.name(x)
        )
    } else {
        "No mappable loop indexes an array's last dimension: global accesses along x are strided (shared memory may fix that, Phase II).".to_string()
    });
    if !inner.is_empty() {
        let names: Vec<String> = inner.iter().map(|l| format!("`{}`", n.name(*l))).collect();
        reasons.push(format!("{} run inside each thread.", names.join(", ")));
    }
    Partition {
        host: host.to_vec(),
        x,
        y,
        block_y,
        inner,
        reduce: reduce.to_vec(),
        split: None,
        blocks_sum: None,
        reasons,
    }
}
