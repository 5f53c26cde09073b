//! Instruction streams for the abstract emulation (seed 000 §4), taken from the kernel IR
//! when no SASS is at hand: the representative thread's walk ([`super::workload`]) with
//! its loops expanded, each event turned into abstract instructions on the SM's pipes.
//!
//! - A load: an address computation and issue on the load/store unit, then the memory
//!   pipe (global memory: DRAM or L2, `count` = the sectors the warp moves; shared memory,
//!   `count` = its bank-conflict passes); the arithmetic that follows waits for it. Of the
//!   global accesses, a read's L1 hit share goes to the L1/shared-memory pipe (`count` =
//!   the 128-byte lines the warp touches) when L1 can keep what the statement's reads
//!   need; of the rest, the share [`StreamBuilder::new`] is given for its array goes to
//!   DRAM and the rest hits in L2, each spread evenly over the stream (error diffusion:
//!   deterministic).
//! - The arithmetic of a statement: a dependent chain on FP32, FP64, INT or the special
//!   function unit; the last operation of an update kept in a register (`sum += ...`)
//!   also waits for its previous instance (the loop-carried chain).
//! - A store: the load/store unit after the arithmetic, then the memory pipe.
//! - A loop iteration: an increment (waiting for the previous one) and a branch.
//! - `__syncthreads()`: a barrier.
//!
//! Streams stop at [`MAX_INSTRUCTIONS`] (a loop iteration larger than the room left is
//! sampled: the walk expands a share of the iterations of the loops in it); [`scale`] is
//! the factor from the emulated part to the whole stream, counted with the same rules
//! without expanding loops.

use super::saake::Instr;
use super::workload::{Arith, Mem, Sink};

/// The pipes, in the order of [`crate::device::Device::pipes`].
pub const DRAM: usize = 0;
pub const L2: usize = 1;
pub const SHARED: usize = 2;
pub const FP32: usize = 3;
pub const FP64: usize = 4;
pub const INT: usize = 5;
pub const SFU: usize = 6;
pub const LSU: usize = 7;
pub const BRANCH: usize = 8;

/// Instructions emulated per warp at most; the rest of a long stream repeats them.
pub const MAX_INSTRUCTIONS: usize = 2000;

/// The share of global sectors DRAM serves (L2 serves the rest): per array, and over
/// all of them (for accesses of no listed array).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DramShares {
    pub arrays: Vec<(usize, f64)>,
    pub overall: f64,
}

impl From<f64> for DramShares {
    /// The same share for every array.
    fn from(overall: f64) -> DramShares {
        DramShares {
            arrays: Vec::new(),
            overall,
        }
    }
}

/// Builds a warp's instruction stream.
pub struct StreamBuilder {
    pub stream: Vec<Instr>,
    /// Per instruction: its code region, an index into `region_names`.
    pub regions: Vec<usize>,
    /// Per instruction: whether it is the issue of a load ptxas moves across barriers
    /// (from an array the kernel does not write).
    across_barriers: Vec<bool>,
    pub region_names: Vec<String>,
    region: usize,
    /// The share of global accesses served by DRAM, and per array (the last entry: the
    /// others) the share owed so far.
    dram: DramShares,
    owed: Vec<f64>,
    /// The bytes of L1 one block may keep, and the L1 hits owed so far.
    l1_bytes: f64,
    l1_owed: f64,
    /// Memory results the current statement's arithmetic waits for.
    pending: Vec<usize>,
    /// Asynchronous copies issued and not waited for.
    in_flight: Vec<usize>,
    /// The last arithmetic instruction of the current statement.
    last: Option<usize>,
    /// Per updating statement: its last instance's final instruction.
    chains: Vec<(u64, usize)>,
    /// The previous loop increment.
    counter: Option<usize>,
}

impl StreamBuilder {
    /// A builder whose global accesses go to DRAM for the share `dram` gives their array
    /// (0 to 1), to L2 for the rest, once the reads L1 serves are set apart (those whose
    /// block keeps at most `l1_bytes` there).
    pub fn new(dram: impl Into<DramShares>, l1_bytes: f64) -> StreamBuilder {
        let dram = dram.into();
        StreamBuilder {
            stream: Vec::new(),
            regions: Vec::new(),
            across_barriers: Vec::new(),
            region_names: vec!["kernel".to_string()],
            region: 0,
            owed: vec![0.0; dram.arrays.len() + 1],
            dram,
            l1_bytes,
            l1_owed: 0.0,
            pending: Vec::new(),
            in_flight: Vec::new(),
            last: None,
            chains: Vec::new(),
            counter: None,
        }
    }

    pub(super) fn push(&mut self, resource: usize, deps: Vec<usize>, count: u32) -> usize {
        self.stream.push(Instr::Op {
            resource,
            deps,
            count: count.max(1),
        });
        self.regions.push(self.region);
        self.across_barriers.push(false);
        self.stream.len() - 1
    }

    /// Issues loads earlier, as nvcc's scheduling does: a load (its issue and memory
    /// access, which wait for nothing: addresses are affine) moves up to `window`
    /// instructions ahead of where the source puts it, so that a loop's next loads are in
    /// flight while this iteration's arithmetic waits (the unrolled, software-pipelined
    /// loop of the SASS). Without it a warp would have one load in flight at a time. Only
    /// loads from arrays the kernel does not write cross a barrier (ptxas moves such
    /// `LDG.E.CONSTANT` loads above `BAR.SYNC`: GEMV^T's tile of A is requested before
    /// the barrier that publishes the staged x).
    pub fn hoist_loads(&mut self, window: usize) {
        let n = self.stream.len();
        let is_load = |i: usize| -> bool {
            matches!(&self.stream[i], Instr::Op { resource: LSU, deps, .. } if deps.is_empty())
                && i + 1 < n
                && matches!(&self.stream[i + 1], Instr::Op { resource, deps, .. }
                    if matches!(*resource, DRAM | L2 | SHARED) && deps.as_slice() == [i])
        };
        // The first barrier at or after each position.
        let mut barrier_from = vec![n; n + 1];
        for i in (0..n).rev() {
            barrier_from[i] = if matches!(self.stream[i], Instr::Barrier) {
                i
            } else {
                barrier_from[i + 1]
            };
        }
        let mut order = Vec::with_capacity(n);
        let mut placed = vec![false; n];
        for p in 0..n {
            if placed[p] {
                continue;
            }
            // Loads up to `window` ahead go first, unless a barrier (or `p` itself is one)
            // stands between and the load is not one ptxas moves across barriers.
            let horizon = (p + window).min(n);
            let mut q = p + 1;
            while q < horizon {
                let movable = q < barrier_from[p] || self.across_barriers[q];
                if !placed[q] && movable && is_load(q) {
                    placed[q] = true;
                    placed[q + 1] = true;
                    order.extend([q, q + 1]);
                    q += 2;
                } else {
                    q += 1;
                }
            }
            placed[p] = true;
            order.push(p);
        }
        let mut position = vec![0; n];
        for (new, &old) in order.iter().enumerate() {
            position[old] = new;
        }
        let stream: Vec<Instr> = order
            .iter()
            .map(|&old| match &self.stream[old] {
                Instr::Op {
                    resource,
                    deps,
                    count,
                } => Instr::Op {
                    resource: *resource,
                    deps: deps.iter().map(|&d| position[d]).collect(),
                    count: *count,
                },
                Instr::Barrier => Instr::Barrier,
            })
            .collect();
        self.regions = order.iter().map(|&old| self.regions[old]).collect();
        self.across_barriers = order.iter().map(|&old| self.across_barriers[old]).collect();
        self.stream = stream;
    }

    /// An asynchronous copy issued at stream position `d`, waited for by the next
    /// [`Sink::wait_copies`].
    pub(super) fn copy_issued(&mut self, d: usize) {
        self.in_flight.push(d);
    }

    pub(super) fn memory(&mut self, m: Mem, after: Vec<usize>) -> usize {
        match m {
            Mem::Global {
                sectors,
                array,
                l1,
                read_only,
                ..
            } => {
                let load = after.is_empty();
                let issue = self.push(LSU, after, 1);
                self.across_barriers[issue] = read_only && load;
                // An L1 hit: the unified L1/shared memory pipe, a 128-byte line per pass.
                if l1.bytes <= self.l1_bytes {
                    self.l1_owed += l1.hits;
                    if self.l1_owed >= 0.5 {
                        self.l1_owed -= 1.0;
                        return self.push(SHARED, vec![issue], l1.lines.round().max(1.0) as u32);
                    }
                }
                let listed = self.dram.arrays.iter().position(|(a, _)| Some(*a) == array);
                let (k, share) = match listed {
                    Some(k) => (k, self.dram.arrays[k].1),
                    None => (self.dram.arrays.len(), self.dram.overall),
                };
                self.owed[k] += share.clamp(0.0, 1.0);
                let pipe = if self.owed[k] >= 0.5 {
                    self.owed[k] -= 1.0;
                    DRAM
                } else {
                    L2
                };
                self.push(pipe, vec![issue], sectors.round().max(1.0) as u32)
            }
            Mem::Shared { wavefronts, .. } => self.push(SHARED, after, wavefronts.round() as u32),
            // A constant-cache hit: about the latency of a shared-memory access.
            Mem::Constant => self.push(SHARED, after, 1),
        }
    }
}

impl Sink for StreamBuilder {
    fn expands(&self) -> bool {
        true
    }
    fn full(&self) -> bool {
        self.stream.len() >= MAX_INSTRUCTIONS
    }
    fn room(&self) -> Option<f64> {
        Some(MAX_INSTRUCTIONS.saturating_sub(self.stream.len()) as f64)
    }
    fn size(&self, walk: &dyn Fn(&mut dyn Sink)) -> f64 {
        let mut count = InstructionCount::default();
        walk(&mut count);
        count.0
    }
    fn loop_iteration(&mut self, _mult: f64) {
        let deps = self.counter.into_iter().collect();
        let inc = self.push(INT, deps, 1);
        self.push(BRANCH, vec![inc], 1);
        self.counter = Some(inc);
    }
    fn branch(&mut self, _mult: f64) {
        let cmp = self.push(INT, Vec::new(), 1);
        self.push(BRANCH, vec![cmp], 1);
    }
    fn load(&mut self, m: Mem, _mult: f64) {
        let r = self.memory(m, Vec::new());
        self.pending.push(r);
    }
    fn store(&mut self, m: Mem, _mult: f64) {
        let mut after: Vec<usize> = self.last.into_iter().chain(self.pending.clone()).collect();
        after.sort_unstable();
        after.dedup();
        self.memory(m, after);
    }
    fn compute(&mut self, a: Arith, _mult: f64) {
        let mut deps = std::mem::take(&mut self.pending);
        // Only the last operation (the accumulation) waits for the previous instance.
        let previous = a
            .update
            .and_then(|s| self.chains.iter().find(|(x, _)| *x == s))
            .map(|(_, prev)| *prev);
        let kinds = [
            (INT, a.int),
            (SFU, a.special),
            (FP64, a.fp64),
            (FP32, a.fp32),
        ];
        let mut left = a.int + a.special + a.fp64 + a.fp32;
        for (resource, n) in kinds {
            for _ in 0..n {
                left -= 1;
                if left == 0 {
                    deps.extend(previous);
                }
                let i = self.push(resource, std::mem::take(&mut deps), 1);
                deps = vec![i];
                self.last = Some(i);
            }
        }
        if let (Some(s), Some(last)) = (a.update, self.last) {
            match self.chains.iter_mut().find(|(x, _)| *x == s) {
                Some(entry) => entry.1 = last,
                None => self.chains.push((s, last)),
            }
        }
        self.pending = deps;
    }
    fn barrier(&mut self, _mult: f64) {
        self.stream.push(Instr::Barrier);
        self.regions.push(self.region);
        self.across_barriers.push(false);
    }
    fn region(&mut self, name: &dyn Fn() -> String) {
        let name = name();
        self.region = match self.region_names.iter().position(|n| *n == name) {
            Some(k) => k,
            None => {
                self.region_names.push(name);
                self.region_names.len() - 1
            }
        };
    }
    fn copy_async(&mut self, global: Mem, shared: Mem, _mult: f64) {
        // The load goes out with nothing waiting on it (a warp issues in order: an
        // instruction that waited for the load would hold up the ones after it); the
        // passes of shared memory it fills are counted at issue, off the thread's path.
        let r = self.memory(global, Vec::new());
        self.in_flight.push(r);
        if let Mem::Shared { wavefronts, .. } = shared {
            self.push(SHARED, Vec::new(), wavefronts.round().max(1.0) as u32);
        }
    }
    fn wait_copies(&mut self) {
        let copies = std::mem::take(&mut self.in_flight);
        if !copies.is_empty() {
            self.push(INT, copies, 1);
        }
    }
    fn atomic(&mut self, _mult: f64) {
        // Atomics are performed in L2.
        let after = self.last.into_iter().collect();
        let issue = self.push(LSU, after, 1);
        self.push(L2, vec![issue], 1);
    }
    fn end_instance(&mut self) {
        self.pending.clear();
        self.last = None;
    }
}

/// Counts the instructions [`StreamBuilder`] would make, loops walked once with their
/// trip counts.
#[derive(Default)]
pub struct InstructionCount(pub f64);

impl Sink for InstructionCount {
    fn loop_iteration(&mut self, mult: f64) {
        self.0 += 2.0 * mult;
    }
    fn branch(&mut self, mult: f64) {
        self.0 += 2.0 * mult;
    }
    fn load(&mut self, m: Mem, mult: f64) {
        self.0 += memory_instructions(m) * mult;
    }
    fn store(&mut self, m: Mem, mult: f64) {
        self.0 += memory_instructions(m) * mult;
    }
    fn compute(&mut self, a: Arith, mult: f64) {
        self.0 += (a.int + a.special + a.fp64 + a.fp32) as f64 * mult;
    }
    fn barrier(&mut self, mult: f64) {
        self.0 += mult;
    }
    fn atomic(&mut self, mult: f64) {
        self.0 += 2.0 * mult;
    }
}

fn memory_instructions(m: Mem) -> f64 {
    match m {
        Mem::Global { .. } => 2.0,
        Mem::Shared { .. } | Mem::Constant => 1.0,
    }
}

/// The factor from an emulated stream of `emulated` instructions to the whole stream of
/// `total` (at least 1).
pub fn scale(total: f64, emulated: usize) -> f64 {
    if emulated == 0 {
        1.0
    } else {
        (total / emulated as f64).max(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emulator::workload::L1;

    /// Each instruction's resource (`usize::MAX` for a barrier).
    fn resources(stream: &[Instr]) -> Vec<usize> {
        stream
            .iter()
            .map(|i| match i {
                Instr::Op { resource, .. } => *resource,
                Instr::Barrier => usize::MAX,
            })
            .collect()
    }

    #[test]
    fn a_load_feeds_the_arithmetic_and_the_store_waits_for_it() {
        let mut b = StreamBuilder::new(1.0, 0.0);
        b.load(
            Mem::Global {
                sectors: 4.0,
                asked: 4.0,
                array: None,
                l1: L1::default(),
                read_only: false,
            },
            1.0,
        );
        b.compute(
            Arith {
                fp32: 2,
                ..Arith::default()
            },
            1.0,
        );
        b.store(Mem::shared(1.0), 1.0);
        b.end_instance();
        let op = |resource, deps: Vec<usize>, count| Instr::Op {
            resource,
            deps,
            count,
        };
        assert_eq!(
            b.stream,
            vec![
                op(LSU, vec![], 1),
                op(DRAM, vec![0], 4),
                op(FP32, vec![1], 1),
                op(FP32, vec![2], 1),
                op(SHARED, vec![3], 1),
            ]
        );
    }

    #[test]
    fn l1_serves_its_share_of_reads_when_it_can_keep_them() {
        let read = |bytes| Mem::Global {
            sectors: 32.0,
            asked: 32.0,
            array: None,
            l1: L1 {
                hits: 0.5,
                bytes,
                lines: 8.0,
            },
            read_only: false,
        };
        let pipes = |b: &StreamBuilder| -> Vec<(usize, u32)> {
            b.stream
                .iter()
                .filter_map(|i| match i {
                    Instr::Op {
                        resource, count, ..
                    } if *resource != LSU => Some((*resource, *count)),
                    _ => None,
                })
                .collect()
        };
        // Half the reads hit in L1, a pass per line; the others go on to L2.
        let mut b = StreamBuilder::new(0.0, 4096.0);
        for _ in 0..4 {
            b.load(read(2048.0), 1.0);
        }
        assert_eq!(
            pipes(&b),
            vec![(SHARED, 8), (L2, 32), (SHARED, 8), (L2, 32)]
        );
        // More than L1 keeps for the block: no hits.
        let mut b = StreamBuilder::new(0.0, 1024.0);
        for _ in 0..2 {
            b.load(read(2048.0), 1.0);
        }
        assert_eq!(pipes(&b), vec![(L2, 32), (L2, 32)]);
    }

    #[test]
    fn an_update_in_a_register_chains_its_instances() {
        let mut b = StreamBuilder::new(1.0, 0.0);
        let fma = Arith {
            fp32: 1,
            update: Some(7),
            ..Arith::default()
        };
        b.compute(fma, 1.0);
        b.end_instance();
        b.compute(fma, 1.0);
        b.end_instance();
        assert_eq!(
            b.stream[1],
            Instr::Op {
                resource: FP32,
                deps: vec![0],
                count: 1
            }
        );
    }

    #[test]
    fn updates_of_different_elements_are_independent_chains() {
        // An unrolled register tile: C_reg[0][0] += ..., C_reg[0][1] += ..., then
        // C_reg[0][0] again; only the third waits, for the first.
        let mut b = StreamBuilder::new(1.0, 0.0);
        for key in [1, 2, 1] {
            b.compute(
                Arith {
                    fp32: 1,
                    update: Some(key),
                    ..Arith::default()
                },
                1.0,
            );
            b.end_instance();
        }
        let deps: Vec<Vec<usize>> = b
            .stream
            .iter()
            .map(|i| match i {
                Instr::Op { deps, .. } => deps.clone(),
                _ => Vec::new(),
            })
            .collect();
        assert_eq!(deps, vec![vec![], vec![], vec![0]]);
    }

    #[test]
    fn loads_of_arrays_the_kernel_does_not_write_go_ahead_of_a_barrier() {
        // As ptxas moves GEMV^T's LDG.E.CONSTANT loads of A above the barrier that
        // publishes the staged x.
        let global = |read_only| Mem::Global {
            sectors: 4.0,
            asked: 4.0,
            array: None,
            l1: L1::default(),
            read_only,
        };
        let mut b = StreamBuilder::new(0.0, 0.0);
        b.store(Mem::shared(1.0), 1.0); // 0
        b.end_instance();
        b.barrier(1.0); // 1
        b.load(global(false), 1.0); // 2, 3: from an array the kernel writes
        b.end_instance();
        b.load(global(true), 1.0); // 4, 5
        b.hoist_loads(64);
        let resources = resources(&b.stream);
        assert_eq!(resources, vec![LSU, L2, SHARED, usize::MAX, LSU, L2]);
        assert_eq!(
            b.stream[5],
            Instr::Op {
                resource: L2,
                deps: vec![4],
                count: 4
            }
        );
    }

    #[test]
    fn loads_are_issued_ahead_but_not_across_a_barrier() {
        let mut b = StreamBuilder::new(0.0, 0.0);
        let global = Mem::Global {
            sectors: 4.0,
            asked: 4.0,
            array: None,
            l1: L1::default(),
            read_only: false,
        };
        b.compute(
            Arith {
                fp32: 3,
                ..Arith::default()
            },
            1.0,
        );
        b.end_instance();
        b.load(global, 1.0); // 3, 4
        b.barrier(1.0); // 5
        b.load(global, 1.0); // 6, 7
        b.hoist_loads(64);
        let resources = resources(&b.stream);
        assert_eq!(
            resources,
            vec![LSU, L2, FP32, FP32, FP32, usize::MAX, LSU, L2]
        );
        // The dependences follow the instructions to their new places.
        assert_eq!(
            b.stream[1],
            Instr::Op {
                resource: L2,
                deps: vec![0],
                count: 4
            }
        );
        assert_eq!(
            b.stream[3],
            Instr::Op {
                resource: FP32,
                deps: vec![2],
                count: 1
            }
        );
    }

    #[test]
    fn counting_agrees_with_building() {
        let mut b = StreamBuilder::new(1.0, 0.0);
        let mut c = InstructionCount::default();
        for sink in [&mut b as &mut dyn Sink, &mut c] {
            sink.loop_iteration(1.0);
            sink.load(
                Mem::Global {
                    sectors: 8.0,
                    asked: 8.0,
                    array: None,
                    l1: L1::default(),
                    read_only: false,
                },
                1.0,
            );
            sink.load(Mem::Constant, 1.0);
            sink.compute(
                Arith {
                    fp32: 3,
                    special: 1,
                    int: 1,
                    ..Arith::default()
                },
                1.0,
            );
            sink.store(
                Mem::Global {
                    sectors: 4.0,
                    asked: 4.0,
                    array: None,
                    l1: L1::default(),
                    read_only: false,
                },
                1.0,
            );
            sink.barrier(1.0);
            sink.branch(1.0);
            sink.atomic(1.0);
        }
        assert_eq!(b.stream.len() as f64, c.0);
    }
}
