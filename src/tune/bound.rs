//! The optimistic lower bound on the time of a candidate before it is compiled (seed 001,
//! `001_9e65c7c4352e71cc.txt` §5–6, Telamon): a nest's partition, data placement and tile
//! sizes chosen, its code not yet generated. No compile of the candidate is predicted
//! faster than its bound, so the ranking ([`super::rank`]) and `gpucc tune`'s branch and
//! bound ([`super::search`]) may skip a candidate whose bound is above the best time
//! found, and a variant whose every tile size is, and never lose the best.
//!
//! The largest of:
//!
//! - **one thread** (§6.2, equations 3 and 4): a thread issues at most one instruction per
//!   cycle, each instance of a statement it runs taking at least one; and an update
//!   (`c += a * b`) whose element stays the same across the loops a thread runs waits for
//!   the previous update's result, the arithmetic pipes' shortest latency each time
//!   (unless the partition splits the sum over threads).
//! - **the busiest SM** (§6.2, equation 8: the instructions each level of memory must
//!   serve), from the tile sizes: the blocks a launch surely has and the busiest SM's
//!   share of them, each of whose warps issues per thread at least one arithmetic
//!   instruction per instance of an update (a double's on the FP64 pipe) and one load per
//!   distinct element the thread reads (16 bytes of consecutive elements at most per
//!   load): from shared or constant memory, a pass of the shared-memory pipe; from global
//!   memory, an issue of the load/store unit and then a memory pipe; and one store per
//!   distinct element it writes to global memory. Where the variant unrolls nothing (not
//!   the outer-product or cyclic forms), no straight-line run of statements shares loads:
//!   what moves along the innermost loop a thread runs is loaded at every instance, as is
//!   every global and constant read but an update's own element, and a statement alone
//!   in that loop issues its address and arithmetic work at every instance too
//!   ([`crate::emulator::ops::instance_operations`]). As the emulator's processing
//!   blocks do (`src/emulator/kernel.rs`), each of the SM's four schedulers runs a quarter
//!   of the resident warps, rounded up by whole warps, one instruction per cycle (the
//!   least over the residencies the SM may have), and each pipe admits the SM's warps'
//!   instructions at its gap. Copies into shared memory or registers, loop overhead and
//!   latencies add to that and are not counted.
//! - **the DRAM floor** the emulator puts under every launch: the bytes of the global
//!   arrays the nest touches at the device's bandwidth (for a nest launched once).
//!
//! Each launch adds the device's launch overhead, and a nest inside loops kept on the host
//! launches once per iteration of them; the search adds the other nests' bounds (the
//! program's time is the sum of its kernels'). Only statements whose iteration domain is a
//! box at the sizes are counted (their instances are the product of the loops' ranges),
//! and the SM bound only for a partition that does not split sums over threads; the
//! others add nothing, which keeps the bound a bound. It is checked against the emulator
//! on every candidate of the testsuite's kernels (`testsuite/tune_cases.rs`,
//! `benchmarks/tune_bound.py`).

use crate::device::Device;
use crate::frontend::ast::ScalarType;
use crate::poly::{AccessId, ArrayId, ArrayKind, LoopId, ReductionOp, StatementId};
use crate::strategy::analysis::Nests;
use crate::strategy::{Nest, Variant};

/// The bound on one candidate and what sets it.
#[derive(Clone, Debug, PartialEq)]
pub struct Bound {
    pub us: f64,
    /// `issue: 1048576 instances of S0 per thread`, for reports.
    pub why: String,
}

impl Bound {
    /// The bound of the whole program when its other nests take at least `others`
    /// microseconds (the program's time is the sum of its kernels').
    pub fn plus(self, others: f64) -> Bound {
        if others <= 0.0 {
            return self;
        }
        Bound {
            us: self.us + others,
            why: format!(
                "{}; the other nests at least {}",
                self.why,
                super::format_us(others)
            ),
        }
    }
}

/// The bounds of one nest's candidates: what does not depend on the candidate (the
/// statements' ranges) found once.
pub struct NestBounds<'a> {
    n: &'a Nests<'a>,
    nest: &'a Nest,
    device: &'a Device,
    /// The statements with box-shaped domains, and their loops' ranges.
    boxes: Vec<(StatementId, Vec<i64>)>,
    /// Per global array those statements access: the bytes of it they touch at least,
    /// no more than the array's.
    touched: Vec<(ArrayId, f64)>,
    /// The global arrays they access whose size is not known.
    unknown: Vec<ArrayId>,
}

impl<'a> NestBounds<'a> {
    pub fn new(n: &'a Nests<'a>, nest: &'a Nest, device: &'a Device) -> NestBounds<'a> {
        let boxes: Vec<(StatementId, Vec<i64>)> = nest
            .statements
            .iter()
            .filter_map(|&s| n.p.box_ranges(s, &n.sizes).map(|r| (s, r)))
            .collect();
        let p = n.p;
        let (mut touched, mut unknown) = (Vec::new(), Vec::new());
        for (s, ranges) in &boxes {
            let st = &p.statements[*s];
            let whole: Vec<(LoopId, i64)> = st
                .loops
                .iter()
                .copied()
                .zip(ranges.iter().copied())
                .collect();
            for &a in std::iter::once(&st.write).chain(&st.reads) {
                let array = p.accesses[a].array;
                let arr = &p.arrays[array];
                if arr.kind != ArrayKind::Outside || arr.is_scalar() {
                    continue;
                }
                // An array's size is known for every access of it, or for none.
                let Some(size) = n.bytes(array) else {
                    unknown.push(array);
                    continue;
                };
                let bytes = distinct(n, a, &whole).0 * arr.elem.size_bytes() as f64;
                merge(&mut touched, array, bytes.min(size as f64), f64::max);
            }
        }
        NestBounds {
            n,
            nest,
            device,
            boxes,
            touched,
            unknown,
        }
    }

    /// The least time the program can take with `variant` (at its parameters' current
    /// values) for this nest, the other parts of the program taking no time at all.
    pub fn of(&self, variant: &Variant) -> Bound {
        [self.one_sm(variant), self.dram_floor(variant)]
            .into_iter()
            .flatten()
            .fold(
                self.one_thread(variant),
                |a, b| if b.us > a.us { b } else { a },
            )
    }

    fn launch_us(&self, launches: f64, cycles: f64) -> f64 {
        launches
            * (self.device.model.launch_overhead_us + cycles / self.device.throughput.sm_clock_mhz)
    }

    /// Host loops around the nest and those of the partition.
    fn host(&self, v: &Variant) -> Vec<LoopId> {
        self.nest
            .host
            .iter()
            .chain(&v.partition.host)
            .copied()
            .collect()
    }

    /// The first bound of the module: one thread, the partition's parallelism at its
    /// greatest (every mapped loop's iteration its own thread).
    fn one_thread(&self, variant: &Variant) -> Bound {
        let part = &variant.partition;
        let host = self.host(variant);
        let mut mapped: Vec<LoopId> = [Some(part.x), part.y, part.block_y, part.blocks_sum]
            .into_iter()
            .flatten()
            .collect();
        if let Some((_, l)) = part.split {
            mapped.push(l);
        }
        let sums_split = !part.reduce.is_empty() || part.blocks_sum.is_some();
        let r = &self.device.resources;
        let latency = r
            .fp32
            .latency
            .min(r.fp64.latency)
            .min(r.int.latency)
            .max(0.0);
        let mut best = Bound {
            us: 0.0,
            why: "no statement with a box-shaped domain to count".to_string(),
        };
        for (s, ranges) in &self.boxes {
            let st = &self.n.p.statements[*s];
            let written = self.n.loops_in_access(st.write);
            let (mut launches, mut per_thread, mut chain) = (1.0f64, 1.0f64, 1.0f64);
            for (l, range) in st.loops.iter().zip(ranges) {
                let range = *range as f64;
                if host.contains(l) {
                    launches *= range;
                } else if !mapped.contains(l) {
                    per_thread *= range;
                    if !written.contains(l) {
                        chain *= range;
                    }
                }
            }
            let chain_cycles = if st.update.is_some() && !sums_split {
                chain * latency
            } else {
                0.0
            };
            let (cycles, what) = if chain_cycles > per_thread {
                (
                    chain_cycles,
                    format!(
                        "dependence chain: {} updates of {} in a row per thread, {latency} cycles each",
                        chain, st.name
                    ),
                )
            } else {
                (
                    per_thread,
                    format!("issue: {per_thread} instances of {} per thread", st.name),
                )
            };
            let us = self.launch_us(launches, cycles);
            if us > best.us {
                best = Bound {
                    us,
                    why: format!("{what}{}", launches_text(launches)),
                };
            }
        }
        best
    }

    /// The second bound of the module: the busiest SM's instructions. `None` where the
    /// partition's blocks or threads are not known from its tile sizes.
    fn one_sm(&self, v: &Variant) -> Option<Bound> {
        let shape = Shape::of(self.n, v).filter(|s| s.blocks >= 1.0)?;
        let host = self.host(v);
        let p = self.n.p;
        let mut work = Work::default();
        let mut launches = f64::INFINITY;
        // Per array read (`false`) or written (`true`): the most loads or stores one thread
        // needs for it in any statement.
        let mut most: Vec<((bool, ArrayId), f64)> = Vec::new();
        for (s, ranges) in &self.boxes {
            let st = &p.statements[*s];
            // A statement outside a loop mapped to threads: who runs it is not known here.
            if shape.thread.iter().any(|(l, _)| !st.loops.contains(l)) {
                continue;
            }
            let mut per_thread: Vec<(LoopId, i64)> = Vec::new();
            let mut s_launches = 1.0f64;
            for (l, range) in st.loops.iter().zip(ranges) {
                if host.contains(l) {
                    s_launches *= *range as f64;
                    per_thread.push((*l, 1));
                } else {
                    let t = shape
                        .thread
                        .iter()
                        .find(|(m, _)| m == l)
                        .map_or(*range, |(_, t)| (*t).min(*range));
                    per_thread.push((*l, t));
                }
            }
            launches = launches.min(s_launches);
            let instances: f64 = per_thread.iter().map(|(_, r)| *r as f64).product();
            let innermost = per_thread
                .iter()
                .rev()
                .find(|(_, r)| *r > 1)
                .map(|(l, _)| *l);
            // Alone in the innermost loop it runs, and nothing unrolled: no straight-line
            // run shares its address or arithmetic work with a neighbour.
            let alone = !unrolled(v)
                && innermost.is_some_and(|l| self.n.statements_in(l).as_slice() == [*s]);
            if alone {
                work.issue += instances * crate::emulator::ops::instance_operations(p, *s) as f64;
            } else if st.update.is_some() {
                work.issue += instances;
            }
            if let Some(u) = &st.update {
                // A double's sum or product runs on the FP64 pipe (a float's FP32 pipe
                // admits four warp instructions per cycle, no fewer than issue does).
                if matches!(u.op, ReductionOp::Add | ReductionOp::Mul)
                    && p.arrays[p.accesses[st.write].array].elem == ScalarType::Double
                {
                    work.fp64 += instances;
                }
            }
            // Within the statement, per-instance loads of distinct accesses add up.
            let mut here: Vec<((bool, ArrayId), f64)> = Vec::new();
            let mut seen: Vec<(bool, &str)> = Vec::new();
            for (k, &a) in std::iter::once(&st.write).chain(&st.reads).enumerate() {
                let access = &p.accesses[a];
                let array = &p.arrays[access.array];
                if array.kind != ArrayKind::Outside || array.is_scalar() {
                    continue;
                }
                let target = k == 0 || (k == 1 && st.update.is_some());
                let moves = innermost.is_some_and(|l| self.n.loops_in_access(a).contains(&l));
                let per_instance = match place(&v.placement, access.array) {
                    Place::Registers => false,
                    Place::Shared => !unrolled(v),
                    Place::Constant => true,
                    Place::Global => !target || moves,
                };
                let key = (access.is_write, access.array);
                if per_instance {
                    if seen.contains(&(access.is_write, access.text.as_str())) {
                        continue;
                    }
                    seen.push((access.is_write, access.text.as_str()));
                    merge(&mut here, key, instances, |m, n| m + n);
                } else {
                    let n = loads(self.n, a, &per_thread, array.elem.size_bytes() as i64);
                    merge(&mut here, key, n, f64::max);
                }
            }
            for (key, n) in here {
                merge(&mut most, key, n, f64::max);
            }
        }
        if launches.is_infinite() {
            return None;
        }
        for ((is_write, a), n) in most {
            match (place(&v.placement, a), is_write) {
                (Place::Shared, true) => {}
                (Place::Shared | Place::Constant, false) => {
                    work.shared += n;
                    work.issue += n;
                }
                // The load/store unit's issue, then a memory pipe; registers are filled
                // from global memory and written back to it.
                _ => {
                    work.lsu += n;
                    work.issue += 2.0 * n;
                }
            }
        }
        let r = &self.device.resources;
        let l = &self.device.limits;
        let sms = l.sms as f64;
        let per_sm = (shape.blocks / shape.blocks.min(sms)).ceil() as i64;
        let warps = (shape.threads + l.warp_size - 1) / l.warp_size;
        // Issue: a processing block runs a quarter of the resident warps, rounded up by
        // whole warps (a block of two warps leaves two of the four idle), one instruction
        // a cycle; over the residencies the SM may have, the least.
        let most = per_sm
            .min(l.max_blocks_per_sm)
            .min(l.max_threads_per_sm / shape.threads.max(1))
            .max(1);
        let issue = (1..=most)
            .map(|resident| {
                let waves = (per_sm + resident - 1) / resident;
                (processing_block_warps(warps, resident) * waves) as f64 * work.issue
            })
            .fold(f64::INFINITY, f64::min);
        // The pipes: the processing block's quarter of the pipe is as much slower as it
        // has fewer warps than the SM: the SM's warps times the SM's gap.
        let per_sm_warps = (per_sm * warps) as f64;
        let pipes = [
            (issue, "instructions issued"),
            (
                per_sm_warps * work.shared * r.shared.gap,
                "shared-memory loads",
            ),
            (
                per_sm_warps * work.lsu * r.lsu.gap,
                "global loads and stores",
            ),
            (per_sm_warps * work.fp64 * r.fp64.gap, "FP64 updates"),
        ];
        let (cycles, what) = pipes.into_iter().max_by(|a, b| a.0.total_cmp(&b.0))?;
        if cycles <= 0.0 {
            return None;
        }
        Some(Bound {
            us: self.launch_us(launches, cycles),
            why: format!(
                "SM: {per_sm} blocks of {warps} warps on the busiest SM, {what}: {cycles:.0} cycles{}",
                launches_text(launches)
            ),
        })
    }

    /// The floor the emulator puts under a launch (`floor_us` in `src/emulator/kernel.rs`):
    /// the bytes of its global arrays it touches read from DRAM at the device's bandwidth.
    /// Counted for a nest launched once (a repeated launch finds arrays that fit in L2
    /// there), as the elements its statements touch at least.
    fn dram_floor(&self, v: &Variant) -> Option<Bound> {
        if !self.host(v).is_empty() {
            return None;
        }
        let global = |a: &ArrayId| place(&v.placement, *a) != Place::Constant;
        if self.unknown.iter().any(global) {
            return None;
        }
        let bytes: f64 = self
            .touched
            .iter()
            .filter(|(a, _)| global(a))
            .map(|(_, b)| b)
            .sum();
        let floor = bytes / (self.device.dram_bandwidth_gb_s() * 1e3);
        (floor > 0.0).then(|| Bound {
            us: self.device.model.launch_overhead_us + floor,
            why: format!("DRAM: {bytes:.0} bytes touched at the device's bandwidth"),
        })
    }
}

/// The warps one of an SM's processing blocks runs when `resident` blocks of `warps`
/// warps share the SM (the emulator's `Partition`: a quarter of each block's warps, or
/// whole blocks when they have fewer warps than the SM has schedulers).
fn processing_block_warps(warps: i64, resident: i64) -> i64 {
    let s = SCHEDULERS as i64;
    let all = (warps * resident).max(1);
    let per_block = ((warps + s - 1) / s).max(1);
    let blocks = ((all + s - 1) / s + per_block - 1) / per_block;
    per_block * blocks
}

/// Where a variant keeps an array.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Place {
    Registers,
    Shared,
    Constant,
    Global,
}

fn place(p: &crate::strategy::placement::Placement, a: ArrayId) -> Place {
    if p.registers.contains(&a) {
        Place::Registers
    } else if p.shared.contains(&a) {
        Place::Shared
    } else if p.constant.contains(&a) {
        Place::Constant
    } else {
        Place::Global
    }
}

/// Whether the variant's recipe unrolls the loops inside its threads (the outer-product
/// and cyclic forms), making straight-line runs of statements in which nvcc loads each
/// shared element once ([`crate::emulator`]'s runs). Elsewhere every instance of a
/// statement loads what it reads from shared, constant and global memory (but the
/// element an update accumulates into, which stays in a register along a loop it does
/// not move with), and stores what it writes to global memory.
fn unrolled(v: &Variant) -> bool {
    v.register_tiled() || v.value("RT").is_some()
}

/// The bounds of every nest of a plan, for ranking.
pub struct PlanBounds<'a> {
    /// Empty when pruning is off.
    nests: Vec<NestBounds<'a>>,
}

impl<'a> PlanBounds<'a> {
    /// The bounds of `nests` (none at all unless `on`: a bound of 0 skips nothing).
    pub fn new(n: &'a Nests<'a>, nests: &'a [Nest], device: &'a Device, on: bool) -> Self {
        let nests = if on {
            nests
                .iter()
                .map(|x| NestBounds::new(n, x, device))
                .collect()
        } else {
            Vec::new()
        };
        PlanBounds { nests }
    }

    /// Nest `k`'s bounds (none when pruning is off).
    pub fn nest(&self, k: usize) -> Option<&NestBounds<'a>> {
        self.nests.get(k)
    }

    /// Nest `k`'s bound with `v`, in microseconds.
    pub fn of(&self, k: usize, v: &Variant) -> f64 {
        self.nests.get(k).map_or(0.0, |b| b.of(v).us)
    }

    /// The least time of the nests other than `k` with their variants `chosen`.
    pub fn others(&self, k: usize, chosen: &[Variant]) -> f64 {
        (0..self.nests.len().min(chosen.len()))
            .filter(|j| *j != k)
            .map(|j| self.of(j, &chosen[j]))
            .sum()
    }
}

/// Folds `n` into `list`'s entry for `key` with `f` (or starts the entry).
fn merge<K: PartialEq>(list: &mut Vec<(K, f64)>, key: K, n: f64, f: impl Fn(f64, f64) -> f64) {
    match list.iter_mut().find(|(k, _)| *k == key) {
        Some((_, m)) => *m = f(*m, n),
        None => list.push((key, n)),
    }
}

/// The emulator's processing blocks per SM, each issuing one warp instruction per cycle.
const SCHEDULERS: f64 = 4.0;

/// Per thread: instructions issued, and those on each counted pipe.
#[derive(Default)]
struct Work {
    issue: f64,
    shared: f64,
    lsu: f64,
    fp64: f64,
}

/// How a variant's tile sizes divide a launch: its threads per block, the blocks it
/// surely has (whole ones: a partial block's share of busy threads is sampled by the
/// emulator, so a partial tile counts at most 0.8 of its dimension's blocks), and the
/// iterations of each loop mapped to threads that one thread runs.
struct Shape {
    threads: i64,
    blocks: f64,
    thread: Vec<(LoopId, i64)>,
}

impl Shape {
    fn of(n: &Nests, v: &Variant) -> Option<Shape> {
        let part = &v.partition;
        if !part.reduce.is_empty() || part.blocks_sum.is_some() || part.split.is_some() {
            return None;
        }
        let tx = v.value("TX")?;
        let rx = v.value("RX").unwrap_or(1);
        let mut threads = tx / rx.max(1);
        let mut thread = vec![(part.x, rx)];
        let whole = |l: LoopId, t: i64| -> Option<f64> {
            let e = n.extent(l)?;
            Some(if e % t == 0 {
                (e / t) as f64
            } else {
                (e / t) as f64 * 0.8
            })
        };
        let mut blocks = whole(part.x, tx)?;
        if let Some(y) = part.y {
            let ty = v.value("TY")?;
            let ry = v.value("RY").or(v.value("RT")).unwrap_or(1);
            threads *= ty / ry.max(1);
            thread.push((y, ry));
            blocks *= whole(y, ty)?;
        }
        if let Some(b) = part.block_y {
            blocks *= n.extent(b)? as f64;
            thread.push((b, 1));
        }
        (threads > 0).then_some(Shape {
            threads,
            blocks,
            thread,
        })
    }
}

/// The fewest loads (or stores) one thread needs for the distinct elements access `a`
/// touches, the thread running `per_thread` iterations of each loop: each subscript of a
/// single loop takes that loop's range of values (the product over the subscripts, where
/// no loop appears in two), consecutive elements along the last dimension merge into
/// 16-byte vectors.
fn loads(n: &Nests, a: AccessId, per_thread: &[(LoopId, i64)], elem_bytes: i64) -> f64 {
    let rank = n.p.accesses[a].subscripts.len();
    let (distinct, separable, last) = distinct(n, a, per_thread);
    let vector = (16 / elem_bytes.max(1)).max(1);
    if rank == 0 || last <= 1 {
        return distinct;
    }
    let unit = n
        .loops_in_subscript(a, rank - 1)
        .iter()
        .any(|l| matches!(n.coefficient(a, rank - 1, *l), Some(1 | -1)));
    if separable && unit {
        distinct / last as f64 * ((last + vector - 1) / vector) as f64
    } else {
        // Strided or mixed subscripts: another access may read the elements between.
        (distinct / vector as f64).ceil()
    }
}

/// The fewest distinct elements access `a` touches when each loop runs `ranges`
/// iterations (1 for a loop not listed): each subscript of a single loop takes that
/// loop's range of values, the product over the subscripts where no loop appears in two
/// (`separable`), else the most of one subscript. With whether it is separable and the
/// values of the last subscript.
fn distinct(n: &Nests, a: AccessId, ranges: &[(LoopId, i64)]) -> (f64, bool, i64) {
    let rank = n.p.accesses[a].subscripts.len();
    let per_thread = ranges;
    let range = |l: LoopId| per_thread.iter().find(|(m, _)| *m == l).map_or(1, |x| x.1);
    let mut used: Vec<LoopId> = Vec::new();
    let mut separable = true;
    let mut dims: Vec<i64> = Vec::new();
    for d in 0..rank {
        let loops = n.loops_in_subscript(a, d);
        let known: Vec<LoopId> = loops
            .iter()
            .copied()
            .filter(|l| n.coefficient(a, d, *l).is_some_and(|c| c != 0))
            .collect();
        if loops.len() > 1 || loops.iter().any(|l| used.contains(l)) {
            separable = false;
        }
        used.extend(&loops);
        dims.push(known.iter().map(|l| range(*l)).max().unwrap_or(1));
    }
    let distinct: f64 = if separable {
        dims.iter().map(|x| *x as f64).product()
    } else {
        dims.iter().copied().max().unwrap_or(1) as f64
    };
    (distinct, separable, dims.last().copied().unwrap_or(1))
}

fn launches_text(launches: f64) -> String {
    if launches > 1.0 {
        format!(", {launches} launches")
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_processing_block_runs_a_quarter_of_the_warps_by_whole_warps() {
        // Eight warps, two blocks: four per scheduler.
        assert_eq!(processing_block_warps(8, 2), 4);
        // Two warps: one scheduler runs one of them, two idle.
        assert_eq!(processing_block_warps(2, 1), 1);
        // Two blocks of two warps: four warps, one per scheduler.
        assert_eq!(processing_block_warps(2, 2), 1);
        // Three blocks of one warp: three warps, one per scheduler, one idle.
        assert_eq!(processing_block_warps(1, 3), 1);
        // Five blocks of one warp: two for one scheduler.
        assert_eq!(processing_block_warps(1, 5), 2);
        // Six warps: two per scheduler (a quarter, rounded up by whole warps).
        assert_eq!(processing_block_warps(6, 1), 2);
        assert_eq!(processing_block_warps(1, 1), 1);
    }

    #[test]
    fn a_bound_names_the_other_nests_it_adds() {
        let b = Bound {
            us: 10.0,
            why: "issue".to_string(),
        };
        assert_eq!(b.clone().plus(0.0), b);
        let more = b.plus(5.0);
        assert_eq!(more.us, 15.0);
        assert!(
            more.why.contains("the other nests at least"),
            "{}",
            more.why
        );
    }
}
