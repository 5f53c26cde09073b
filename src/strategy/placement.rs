//! Phase II, data placement (seed 004, §4.2.2 and §5.4, the algorithm
//! DataPlacementCandidates): for one partition, which arrays may go to registers, shared
//! memory, constant memory or the read-only data cache, each with the extra tiling it
//! needs.
//!
//! - Registers (§5.4 step 2): an array element a thread uses again and again inside a
//!   loop that runs in the thread (the sum of a matrix product), copied once per thread.
//! - Shared memory (§5.4 step 1): read-only data the threads of a block share (an element
//!   every thread along x reads; a stencil's neighbours; a convolution's window), or read
//!   in an order that does not coalesce when another order would. When the data is read
//!   inside a long loop of the thread, that loop is tiled and its tile loop moved outside
//!   the threads, so that one tile at a time is staged ("this order captures the right
//!   footprint for the copy across threads").
//! - Constant memory (§5.3.1 step 2, §4.2.2): read-only data of at most 8 KB (the constant
//!   cache's working set) every thread of a warp
//!   reads at the same address.
//! - The read-only data cache (today's form of §4.2.2's texture memory): read-only data
//!   left in global memory.

/// The constant cache's working set per SM (PG Table 27: 8 KB on every compute
/// capability).
const CONSTANT_CACHE_BYTES: i64 = 8 * 1024;
use super::analysis::Nests;
use super::partition::Partition;
use crate::poly::{AccessId, ArrayId, LoopId, Program, StatementId};

/// Loops longer than this are tiled before their data is staged in shared memory.
const LONG_LOOP: i64 = 64;

/// Where each array may go, for one partition.
#[derive(Clone, Debug, Default)]
pub struct Candidates {
    /// Arrays for shared memory, each with the loop of the thread to tile (if any).
    pub shared: Vec<(ArrayId, Option<LoopId>, String)>,
    pub registers: Vec<(ArrayId, String)>,
    pub constant: Vec<(ArrayId, String)>,
    /// Read-only arrays (for the read-only data cache when they stay in global memory).
    pub read_only: Vec<ArrayId>,
}

/// The placement of one variant.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Placement {
    /// The loop of the thread tiled so that shared-memory copies stage a tile at a time.
    pub tiled: Option<LoopId>,
    pub shared: Vec<ArrayId>,
    pub registers: Vec<ArrayId>,
    pub constant: Vec<ArrayId>,
    pub read_only_cache: Vec<ArrayId>,
}

impl Placement {
    /// `A, B in shared memory; C in registers` (or `all in global memory`).
    pub fn describe(&self, p: &Program) -> String {
        let names = |v: &[ArrayId]| -> String {
            v.iter()
                .map(|a| p.arrays[*a].name.clone())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut parts = Vec::new();
        if !self.shared.is_empty() {
            parts.push(format!("{} in shared memory", names(&self.shared)));
        }
        if !self.registers.is_empty() {
            parts.push(format!("{} in registers", names(&self.registers)));
        }
        if !self.constant.is_empty() {
            parts.push(format!("{} in constant memory", names(&self.constant)));
        }
        if !self.read_only_cache.is_empty() {
            parts.push(format!(
                "{} through the read-only cache",
                names(&self.read_only_cache)
            ));
        }
        if parts.is_empty() {
            "global memory only".to_string()
        } else {
            parts.join("; ")
        }
    }
}

/// The placement candidates of the nest rooted at `root` (statements `stmts`) under
/// `part`.
pub fn candidates(n: &Nests, root: LoopId, stmts: &[StatementId], part: &Partition) -> Candidates {
    let threads = part.thread_loops();
    let mapped = part.mapped();
    // Loops of the nest that run inside each thread.
    let in_thread = |s: StatementId| -> Vec<LoopId> {
        n.p.statements[s]
            .loops
            .iter()
            .copied()
            .filter(|l| {
                !mapped.contains(l)
                    && !part.host.contains(l)
                    && stmts.iter().any(|&t| n.p.statements[t].loops.contains(l))
                    && n.p.loop_within(*l, root)
            })
            .collect()
    };
    let mut c = Candidates::default();
    for array in n.arrays(stmts) {
        let name = n.p.arrays[array].name.clone();
        let accesses: Vec<AccessId> = n
            .array_accesses(stmts)
            .into_iter()
            .filter(|a| n.p.accesses[*a].array == array)
            .collect();
        // Written by this nest, and anywhere: an array another nest writes is read-only
        // in this nest's kernel (shared memory and registers, which the kernel fills
        // itself, may hold it), but not for the read-only cache and constant memory,
        // which are placements of the whole program (3mm's `G = E * F` reads the products
        // the two kernels before it wrote).
        let written = n.is_written_by(stmts, array);
        let read_only = !n.is_written(array);
        if part.reduce.contains(&array) {
            continue;
        }
        if !part.reduce.is_empty() {
            // A parallel sum: each thread touches each element once; nothing to stage.
            if read_only {
                c.read_only.push(array);
                if accesses.iter().all(|&a| !uses_any(n, a, &threads))
                    && n.constant_size(array)
                    && n.bytes(array).is_some_and(|b| b <= 64 * 1024)
                {
                    c.constant.push((array, format!("`{name}` is read-only and read at the same address by all threads: constant memory broadcasts it.")));
                }
            }
            continue;
        }
        let uses = |a: AccessId| n.loops_in_access(a);
        let thread_free = |a: AccessId| !uses(a).iter().any(|l| threads.contains(l));
        // Loops of the thread around the access that it does not move with: reuse.
        let reused_in_thread = |a: AccessId| {
            let s = n.p.accesses[a].statement;
            in_thread(s).iter().any(|l| !uses(a).contains(l))
        };
        let invariant_in_thread = |a: AccessId| {
            let s = n.p.accesses[a].statement;
            !in_thread(s).iter().any(|l| uses(a).contains(l))
        };
        // Registers: each thread's element(s), reused by a loop of the thread.
        let owned = |a: AccessId| threads.iter().all(|t| uses(a).contains(t));
        if accesses.iter().all(|&a| invariant_in_thread(a))
            && accesses.iter().any(|&a| reused_in_thread(a))
            && (!written || accesses.iter().all(|&a| owned(a)))
        {
            c.registers.push((
                array,
                format!(
                    "each thread {} the same element{} of `{name}` on every iteration of its inner loops: kept in registers (§5.4 step 2).",
                    if written { "updates" } else { "reads" },
                    if accesses.len() > 1 { "s" } else { "" }
                ),
            ));
        }
        if written {
            continue;
        }
        if read_only {
            c.read_only.push(array);
        }
        // Constant memory: every thread of a warp reads the same address, and the array
        // fits in the constant cache's working set (8 KB per SM, PG Table 27): a larger
        // one streams through it from L2 (on an H100, gemv_t with its 24 KB vector in
        // constant memory ran at 247 us, staged in shared memory at 180-200 us, and nvcc
        // took minutes on its 4096-trip loop).
        let bytes = n.bytes(array);
        if read_only
            && accesses.iter().all(|&a| thread_free(a))
            && n.constant_size(array)
            && bytes.is_some_and(|b| b <= CONSTANT_CACHE_BYTES)
        {
            c.constant.push((
                array,
                format!(
                    "`{name}` ({} bytes) is read-only and read at the same address by all threads: constant memory broadcasts it.",
                    bytes.unwrap_or(0)
                ),
            ));
        }
        // Shared memory: data the block's threads share inside a loop of the thread, a
        // window that neighbouring threads overlap, or reads along x that do not coalesce.
        let in_a_loop = |a: AccessId| !in_thread(n.p.accesses[a].statement).is_empty();
        let shared_by_threads = accesses
            .iter()
            .any(|&a| threads.iter().any(|t| !uses(a).contains(t)) && in_a_loop(a));
        // Two reads at different places (a stencil's neighbours), not one read twice.
        let mut distinct: Vec<&str> = accesses
            .iter()
            .map(|&a| n.p.accesses[a].text.as_str())
            .collect();
        distinct.sort_unstable();
        distinct.dedup();
        let window = distinct.len() >= 2 && accesses.iter().all(|&a| !thread_free(a))
            || accesses.iter().any(|&a| {
                let rank = n.p.accesses[a].subscripts.len();
                (0..rank).any(|d| {
                    let ls = n.loops_in_subscript(a, d);
                    let s = n.p.accesses[a].statement;
                    ls.iter().any(|l| threads.contains(l))
                        && ls.iter().any(|l| in_thread(s).contains(l))
                })
            });
        let strided = accesses.iter().any(|&a| {
            let rank = n.p.accesses[a].subscripts.len();
            rank >= 2
                && uses(a).contains(&part.x)
                && !matches!(n.coefficient(a, rank - 1, part.x), Some(1 | -1))
        });
        if !(shared_by_threads || window || strided) {
            continue;
        }
        // The long loops of the thread the accesses walk: tile one of them.
        let mut long: Vec<LoopId> = Vec::new();
        for &a in &accesses {
            let s = n.p.accesses[a].statement;
            for l in in_thread(s) {
                if uses(a).contains(&l)
                    && n.extent(l).is_none_or(|e| e > LONG_LOOP)
                    && !long.contains(&l)
                {
                    long.push(l);
                }
            }
        }
        if long.len() > 1 {
            continue;
        }
        let why = if window {
            format!("neighbouring threads read overlapping parts of `{name}`: staged once per block in shared memory (§4.2.2).")
        } else if shared_by_threads {
            format!("`{name}` is read-only and the threads of a block read the same elements: staged once per block in shared memory (§5.4 step 1).")
        } else {
            format!("`{name}` is read with a stride along x: copied to shared memory in coalesced order, then read from there (§4.2.1).")
        };
        c.shared.push((array, long.first().copied(), why));
    }
    c
}

/// Whether access `a` uses one of `loops`.
fn uses_any(n: &Nests, a: AccessId, loops: &[LoopId]) -> bool {
    n.loops_in_access(a).iter().any(|l| loops.contains(l))
}
