//! Phase III, variants (seed 004, §5.5, the algorithm AutotuneVariants): every subset of
//! the placement candidates of Phase II, for every partition of Phase I, each with its
//! parameters (the tile sizes) and their candidate values: multiples of the warp size for
//! `threadIdx.x`, bounded by the device's limits and filtered by the occupancy rule of
//! §5.7 ([`super::occupancy`]). Unlike §5.5 step 5, the read-only data cache is not a
//! variant of its own: read-only data left in global memory always uses it, since on the
//! GPUs gpucc targets (sm_70 and later) it is never slower.

use super::analysis::Nests;
use super::occupancy;
use super::partition::Partition;
use super::placement::{Candidates, Placement};
use crate::device::Device;
use crate::poly::{ArrayId, LoopId, StatementId};

/// At most this many placements per partition (the largest subsets first).
const MAX_PLACEMENTS: usize = 48;

/// At most this many placements per partition get a cyclic-rows sibling.
const MAX_CYCLIC: usize = 2;

/// A tile size the recipe declares with `param(...)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// `TX`, `TY` or `TK` (a nest other than the first adds its number: `TX1`).
    pub role: &'static str,
    pub candidates: Vec<i64>,
    pub value: i64,
}

/// One complete strategy for a nest: how it is partitioned, where its data goes, and its
/// tile sizes.
#[derive(Clone, Debug)]
pub struct Variant {
    pub partition: Partition,
    pub placement: Placement,
    pub params: Vec<Param>,
    /// Allowed combinations of the parameters' values (in `params` order), after the
    /// device limits and the occupancy rule; the tuner picks among them.
    pub combos: Vec<Vec<i64>>,
    /// Why each array is where it is.
    pub reasons: Vec<String>,
    /// Its shared-memory copies move a vector per thread and instruction
    /// (`{width=4}` for floats): tried by the tuner on the variant it chose.
    pub wide: bool,
    /// Its shared tiles are double-buffered and filled by asynchronous copies
    /// (`double_buffer(..., {async=true})`): tried by the tuner on the variant it chose.
    pub double: bool,
    /// The outer-product form with each thread's RY x RX outputs TY / RY rows and TX / RX
    /// columns apart (a cyclic distribution) instead of next to each other: made where an
    /// operand is read down the columns of its shared copy ([`read_across`]).
    pub interleaved: bool,
}

impl Variant {
    /// Whether each thread computes a tile of outputs (the outer-product form: roles
    /// `RX` and `RY`), rather than one output.
    pub fn register_tiled(&self) -> bool {
        self.params.iter().any(|p| p.role == "RX")
    }

    /// The same variant with its shared-memory copies `wide` (`{width=4}` for floats) and
    /// `double`-buffered (`double_buffer(..., {async=true})`), where its form allows them:
    /// the outer-product form, whose shared rows are padded by 16 bytes and whose copies
    /// run at the top of the staged loop's tiles. `None` for other forms.
    pub fn with_copies(&self, wide: bool, double: bool) -> Option<Variant> {
        (self.register_tiled() && !self.placement.shared.is_empty()).then(|| Variant {
            wide,
            double,
            ..self.clone()
        })
    }

    pub fn value(&self, role: &str) -> Option<i64> {
        self.params.iter().find(|p| p.role == role).map(|p| p.value)
    }

    /// The same variant with parameter values `values` (in `params` order).
    pub fn with_values(&self, values: &[i64]) -> Variant {
        let mut v = self.clone();
        for (p, x) in v.params.iter_mut().zip(values) {
            p.value = *x;
        }
        v
    }
}

/// The variants of one partition.
pub fn variants(n: &Nests, part: &Partition, c: &Candidates, device: &Device) -> Vec<Variant> {
    let mut out = Vec::new();
    // Cyclic-rows siblings of the first placements only (the largest subsets): each one
    // is another compile when ranking.
    let mut cyclic_left = MAX_CYCLIC;
    for placement in placements(n, c) {
        let Some((params, combos)) = parameters(n, part, &placement, device) else {
            continue;
        };
        let mut reasons = Vec::new();
        for (a, _, why) in &c.shared {
            if placement.shared.contains(a) {
                reasons.push(why.clone());
            }
        }
        for (a, why) in &c.registers {
            if placement.registers.contains(a) {
                reasons.push(why.clone());
            }
        }
        for (a, why) in &c.constant {
            if placement.constant.contains(a) {
                reasons.push(why.clone());
            }
        }
        if !placement.read_only_cache.is_empty() {
            let names: Vec<String> = placement
                .read_only_cache
                .iter()
                .map(|a| format!("`{}`", n.p.arrays[*a].name))
                .collect();
            reasons.push(format!(
                "{} only read: through the read-only data cache (`__ldg`, §5.4 step 3).",
                names.join(", ")
            ));
        }
        // A sibling of this placement's variant: other parameters, one more reason.
        let sibling = |(params, combos): (Vec<Param>, Vec<Vec<i64>>), why: String| {
            let mut reasons = reasons.clone();
            reasons.push(why);
            Variant {
                partition: part.clone(),
                placement: placement.clone(),
                params,
                combos,
                reasons,
                wide: false,
                double: false,
                interleaved: false,
            }
        };
        let outer = outer_parameters(n, part, &placement, device).map(|p| {
            let why = format!(
                "each thread computes an RY x RX tile of {} in registers, and per step of `{}` reads RY values and RX values from shared memory for RY x RX multiply-adds (the outer-product form, seed 004 Fig. 4.1(d)); shared rows padded to 16 bytes, so that they are read 128 bits at a time.",
                placement
                    .registers
                    .iter()
                    .map(|a| format!("`{}`", n.p.arrays[*a].name))
                    .collect::<Vec<_>>()
                    .join(", "),
                n.p.loops[placement.tiled.expect("a tiled loop")].iterator
            );
            sibling(p, why)
        });
        // Where the threads along x read an operand down the columns of its shared copy
        // (`B[j][k]`), the threads' register tiles interleaved too: neighbouring threads
        // then read neighbouring rows, in different banks. Measured elsewhere (gemm_nn,
        // H100, 4096^3): the interleaved tiles 3.94 ms against 4.03 ms for blocks of
        // them; on gemm_nt emulated at 57.7 against 85.2 us (SASS streams).
        let stmts = n.statements_in(part.x);
        let across: Vec<ArrayId> = (placement.shared.iter().copied())
            .filter(|a| read_across(n, &stmts, *a, part.x))
            .collect();
        let interleaved = match (&outer, across.is_empty()) {
            (Some(v), false) => {
                let mut v = v.clone();
                v.interleaved = true;
                v.reasons.push(format!(
                    "the threads' register tiles interleaved (each thread's outputs TY / RY rows and TX / RX columns apart, a cyclic distribution, seed 004 Fig. 4.1(e)): {} is read down the columns of its shared copy, and neighbouring threads then read neighbouring rows, in different banks.",
                    across
                        .iter()
                        .map(|a| format!("`{}`", n.p.arrays[*a].name))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
                Some(v)
            }
            _ => None,
        };
        let cyclic = if cyclic_left > 0 {
            cyclic_parameters(n, part, &placement, device)
        } else {
            None
        };
        cyclic_left -= usize::from(cyclic.is_some());
        let cyclic = cyclic.map(|p| {
            let why = format!(
                "each thread computes RT rows of the block's TY x TX tile, TY / RT rows apart (a cyclic distribution, seed 004 Fig. 4.1(e)): RT loads and stores of `{}` in flight per thread instead of one, and TY / RT threads along y cover a taller tile.",
                n.p.loops[part.y.expect("a 2-D mapping")].iterator
            );
            sibling(p, why)
        });
        out.push(Variant {
            partition: part.clone(),
            placement,
            params,
            combos,
            reasons,
            wide: false,
            double: false,
            interleaved: false,
        });
        out.extend(outer);
        out.extend(interleaved);
        out.extend(cyclic);
    }
    out
}

/// The parameters of the outer-product form of a 2-D mapping whose staged loop runs
/// inside the threads and whose output stays in registers (the matrix product): a TY x TX
/// tile of the output per block, an RY x RX tile of it per thread, TK iterations of the
/// staged loop per shared-memory tile. `None` where the form does not apply. The register
/// tile is bounded by the register budget (at most 64 registers of accumulators, so that
/// a 256-thread block keeps two blocks resident on 64K registers), the unrolled body by
/// the 1024 copies `unroll` allows, and the shared tiles by the device.
fn outer_parameters(
    n: &Nests,
    part: &Partition,
    placement: &Placement,
    device: &Device,
) -> Option<(Vec<Param>, Vec<Vec<i64>>)> {
    let (y, k) = (part.y?, placement.tiled?);
    if !part.reduce.is_empty()
        || part.block_y.is_some()
        || placement.registers.is_empty()
        || placement.shared.is_empty()
        || part.inner.iter().any(|l| *l != k)
    {
        return None;
    }
    let elem = placement
        .shared
        .iter()
        .chain(&placement.registers)
        .map(|a| n.p.arrays[*a].elem.size_bytes() as i64)
        .max()?;
    let words = (elem / 4).max(1);
    let pad = outer_pad(elem);
    let fits = |size: i64, extent: Option<i64>| {
        extent.is_none_or(|e| size as u64 <= (e.max(1) as u64).next_power_of_two())
    };
    let (ex, ey, ek) = (n.extent(part.x), n.extent(y), n.extent(k));
    let mut combos = Vec::new();
    for tx in [64, 128] {
        for ty in [64, 128] {
            for tk in [8, 16] {
                for rx in [4, 8] {
                    for ry in [4, 8] {
                        let threads = (tx / rx) * (ty / ry);
                        let shared = (ty * (tk + pad) + tk * (tx + pad)) * elem;
                        if !(64..=256).contains(&threads)
                            || threads > device.limits.max_threads_per_block
                            || rx * ry * words > 64
                            || rx * ry * tk > 1024
                            || shared > device.limits.static_shared_memory_per_block
                            || !fits(tx, ex)
                            || !fits(ty, ey)
                            || !fits(tk, ek)
                        {
                            continue;
                        }
                        combos.push(vec![tx, ty, tk, rx, ry]);
                    }
                }
            }
        }
    }
    // The default, which Phase III ranks against the other variants' defaults: a block on
    // every SM where some tile size gives one, then the largest register tile (of two as
    // large, the one narrower along x: a warp's reads of a shared row are RX elements
    // apart), the largest block tile, TK 16. Where the largest tiles leave SMs idle
    // (PolyBench 2mm's 800 x 900 doubles: 104 blocks of 128 x 64 on 132 SMs) the variant
    // would be ranked at a size it is not tuned to, and lose Phase III to one that fills
    // the device.
    let sms = device.limits.sms;
    let fills = |c: &Vec<i64>| tiled_blocks(ex, ey, c[0], c[1]).is_none_or(|b| b >= sms);
    let default = combos
        .iter()
        .max_by_key(|c| {
            (
                fills(c),
                c[3] * c[4],
                -c[3],
                c[0] * c[1],
                c[0],
                -(c[2] - 16).abs(),
            )
        })
        .cloned()?;
    Some((
        params_of(&["TX", "TY", "TK", "RX", "RY"], &combos, &default),
        combos,
    ))
}

/// The parameters of a 2-D mapping whose threads each compute `RT` rows of a TY x TX
/// tile, TY / RT rows apart: the block is TX x TY / RT threads. Memory-bound kernels
/// (copies, transposes, stencils) need bytes in flight to reach DRAM bandwidth (Little's
/// law: bandwidth x latency), which one element per thread cannot give even at full
/// occupancy; a thread's RT rows are independent loads. `None` where the form does not
/// apply: sums, a staged loop (the outer-product form covers those), loops inside the
/// threads (a matrix product's `k`: there the rows a thread computes reuse nothing, and
/// at its default sizes this form beat the outer-product form's defaults in Phase III,
/// which once tuned was twice as fast: `gemm_rect_wide.c`), or a y loop shorter than
/// two rows per thread.
fn cyclic_parameters(
    n: &Nests,
    part: &Partition,
    placement: &Placement,
    device: &Device,
) -> Option<(Vec<Param>, Vec<Vec<i64>>)> {
    let y = part.y?;
    // A loop inside the threads' loops.
    let inner_loop = n.statements_in(part.x).iter().any(|s| {
        let loops = &n.p.statements[*s].loops;
        let below = loops.iter().position(|l| *l == part.x).map_or(0, |k| k + 1);
        loops[below..].iter().any(|l| *l != y)
    });
    if !part.reduce.is_empty()
        || part.block_y.is_some()
        || placement.tiled.is_some()
        || !placement.registers.is_empty()
        || !part.inner.is_empty()
        || inner_loop
    {
        return None;
    }
    let fits = |size: i64, extent: Option<i64>| {
        extent.is_none_or(|e| size as u64 <= (e.max(1) as u64).next_power_of_two())
    };
    let (ex, ey) = (n.extent(part.x), n.extent(y));
    let (mut options, mut rated) = (Vec::new(), Vec::new());
    for tx in [32, 64, 128] {
        for ty in [16, 32, 64] {
            for rt in [2, 4, 8] {
                let threads = tx * ty / rt;
                if !(128..=512).contains(&threads)
                    || threads > device.limits.max_threads_per_block
                    || ty / rt < 2
                    || !fits(tx, ex)
                    || !fits(ty, ey)
                {
                    continue;
                }
                options.push(vec![tx, ty, rt]);
                let resident = device.blocks_per_sm(threads, 32, 0).max(1);
                if let Some(blocks) = tiled_blocks(ex, ey, tx, ty) {
                    rated.push((vec![tx, ty, rt], blocks, device.limits.sms * resident));
                }
            }
        }
    }
    // The occupancy rule where the sizes are known.
    let combos = if rated.len() == options.len() && !rated.is_empty() {
        occupancy::filter(&rated)
    } else {
        options
    };
    // The default: square 32 x 32 tiles (a transpose's shared tile), 4 rows a thread.
    let default = combos
        .iter()
        .min_by_key(|c| ((c[0] - 32).abs() + (c[1] - 32).abs(), (c[2] - 4).abs()))
        .cloned()?;
    Some((params_of(&["TX", "TY", "RT"], &combos, &default), combos))
}

/// The blocks of `tx` x `ty` tiles of two loops of `ex` and `ey` iterations, where both
/// are known.
fn tiled_blocks(ex: Option<i64>, ey: Option<i64>, tx: i64, ty: i64) -> Option<i64> {
    Some(((ex? + tx - 1) / tx) * ((ey? + ty - 1) / ty))
}

/// The pad of a shared row in the outer-product form: 16 bytes, so that rows stay aligned
/// for 128-bit reads.
pub fn outer_pad(elem_bytes: i64) -> i64 {
    (16 / elem_bytes.max(1)).max(1)
}

/// Whether statements `stmts` read `array` across its rows along loop `x` (the threads'
/// x loop): `x` in a subscript before the last (`B[j][k]` of a product with B transposed).
/// In the outer-product form with blocks of RX outputs per thread, the threads along x
/// then read a column of the shared copy RX rows apart, in a few banks (gemm_nt:
/// shared-bound).
fn read_across(n: &Nests, stmts: &[StatementId], array: ArrayId, x: LoopId) -> bool {
    n.array_accesses(stmts).into_iter().any(|a| {
        let rank = n.p.accesses[a].subscripts.len();
        n.p.accesses[a].array == array
            && (0..rank.saturating_sub(1)).any(|d| n.loops_in_subscript(a, d).contains(&x))
    })
}

/// Every consistent subset of the candidates, the largest first; beyond
/// [`MAX_PLACEMENTS`], taken in turn from each choice of shared-memory arrays, so that a
/// choice the dependences forbid (its tiling reorders the nest) cannot crowd out the rest.
fn placements(n: &Nests, c: &Candidates) -> Vec<Placement> {
    let mut groups: Vec<Vec<Placement>> = Vec::new();
    let shared_sets = subsets(c.shared.len());
    for s in &shared_sets {
        let mut out = Vec::new();
        let chosen: Vec<&(ArrayId, Option<LoopId>, String)> =
            s.iter().map(|k| &c.shared[*k]).collect();
        let mut tiled: Option<LoopId> = None;
        let consistent = chosen.iter().all(|(_, t, _)| match (t, tiled) {
            (Some(l), Some(x)) => *l == x,
            (Some(l), None) => {
                tiled = Some(*l);
                true
            }
            (None, _) => true,
        });
        if !consistent {
            continue;
        }
        let shared: Vec<ArrayId> = chosen.iter().map(|(a, _, _)| *a).collect();
        let constant_options: Vec<(ArrayId, String)> = c
            .constant
            .iter()
            .filter(|(a, _)| !shared.contains(a))
            .cloned()
            .collect();
        for r in subsets(c.registers.len()) {
            let registers: Vec<ArrayId> = r.iter().map(|k| c.registers[*k].0).collect();
            for k in subsets(constant_options.len()) {
                let constant: Vec<ArrayId> = k.iter().map(|k| constant_options[*k].0).collect();
                let bytes: i64 = constant.iter().filter_map(|a| n.bytes(*a)).sum();
                if bytes > 64 * 1024 {
                    continue;
                }
                let rest: Vec<ArrayId> = c
                    .read_only
                    .iter()
                    .copied()
                    .filter(|a| {
                        !shared.contains(a)
                            && !constant.contains(a)
                            && !registers.contains(a)
                            && !n.p.arrays[*a].is_table()
                    })
                    .collect();
                // Read-only data left in global memory always goes through the read-only
                // cache: on sm_35 and later it costs nothing, so it is not a variant.
                out.push(Placement {
                    tiled,
                    shared: shared.clone(),
                    registers: registers.clone(),
                    constant: constant.clone(),
                    read_only_cache: rest,
                });
            }
        }
        groups.push(out);
    }
    let mut out = Vec::new();
    for k in 0.. {
        let before = out.len();
        for g in &groups {
            if let Some(p) = g.get(k) {
                if out.len() < MAX_PLACEMENTS {
                    out.push(p.clone());
                }
            }
        }
        if out.len() == before || out.len() >= MAX_PLACEMENTS {
            break;
        }
    }
    out
}

/// The subsets of `0..n`, largest first (at most 2^6 of them).
fn subsets(n: usize) -> Vec<Vec<usize>> {
    let n = n.min(6);
    let mut all: Vec<Vec<usize>> = (0..(1u32 << n))
        .map(|mask| (0..n).filter(|k| mask & (1 << k) != 0).collect())
        .collect();
    all.sort_by_key(|s: &Vec<usize>| std::cmp::Reverse(s.len()));
    all
}

/// The parameters of a variant and their allowed combinations; `None` when no
/// combination fits the device.
fn parameters(
    n: &Nests,
    part: &Partition,
    placement: &Placement,
    device: &Device,
) -> Option<(Vec<Param>, Vec<Vec<i64>>)> {
    if !part.reduce.is_empty() {
        return sum_parameters(n, part, device);
    }
    let warp = device.limits.warp_size;
    let max_threads = device.limits.max_threads_per_block;
    let fits = |size: i64, extent: Option<i64>| match extent {
        // No tile much larger than the loop: the next power of two at most.
        Some(e) => size <= (e.max(1) as u64).next_power_of_two().max(warp as u64) as i64,
        None => true,
    };
    let ex = n.extent(part.x);
    let (tx_options, ty_options): (Vec<i64>, Vec<i64>) = match part.y {
        Some(_) => (vec![32, 64], vec![4, 8, 16]),
        None if part.reduce.is_empty() => (vec![64, 128, 256, 512], vec![]),
        None => (vec![128, 256, 512], vec![]),
    };
    let ey = part.y.and_then(|y| n.extent(y));
    let mut shapes: Vec<(i64, Option<i64>)> = Vec::new();
    for &tx in &tx_options {
        if !fits(tx, ex) && tx != tx_options[0] {
            continue;
        }
        if ty_options.is_empty() {
            shapes.push((tx, None));
        }
        for &ty in &ty_options {
            if tx * ty > max_threads || (!fits(ty, ey) && ty != ty_options[0]) {
                continue;
            }
            shapes.push((tx, Some(ty)));
        }
    }
    // The occupancy rule on the number of blocks each shape makes.
    let blocks_of = |tx: i64, ty: Option<i64>| -> Option<i64> {
        let bx = (ex? + tx - 1) / tx;
        let by = match (part.y, ty) {
            (Some(_), Some(ty)) => (ey? + ty - 1) / ty,
            _ => part.block_y.map_or(Some(1), |b| n.extent(b))?,
        };
        Some(bx * by)
    };
    let options: Vec<((i64, Option<i64>), i64, i64)> = shapes
        .iter()
        .filter_map(|&(tx, ty)| {
            let threads = tx * ty.unwrap_or(1);
            // Residency from the threads alone: registers and shared memory are not known
            // before code generation.
            let resident = device.blocks_per_sm(threads, 32, 0).max(1);
            let wave = device.limits.sms * resident;
            blocks_of(tx, ty).map(|b| ((tx, ty), b, wave))
        })
        .collect();
    let shapes = if options.len() == shapes.len() && !options.is_empty() {
        occupancy::filter(&options)
    } else {
        shapes
    };
    if shapes.is_empty() {
        return None;
    }
    let tk_options: Vec<i64> = match placement.tiled {
        Some(k) => {
            let e = n.extent(k);
            let v: Vec<i64> = [8, 16, 32, 64]
                .into_iter()
                .filter(|s| e.is_none_or(|e| *s as u64 <= (e.max(1) as u64).next_power_of_two()))
                .collect();
            if v.is_empty() {
                vec![8]
            } else {
                v
            }
        }
        None => Vec::new(),
    };
    let mut combos = Vec::new();
    for (tx, ty) in &shapes {
        let base: Vec<i64> = std::iter::once(*tx).chain(*ty).collect();
        if tk_options.is_empty() {
            combos.push(base);
        } else {
            for tk in &tk_options {
                let mut c = base.clone();
                c.push(*tk);
                combos.push(c);
            }
        }
    }
    let mut roles: Vec<&'static str> = vec!["TX"];
    if part.y.is_some() {
        roles.push("TY");
    }
    if placement.tiled.is_some() {
        roles.push("TK");
    }
    // The default: 256 threads in a block where possible, tiles of 16 along the staged loop.
    let default = combos
        .iter()
        .min_by_key(|c| {
            let threads = c[0] * if part.y.is_some() { c[1] } else { 1 };
            let tk = if placement.tiled.is_some() {
                (c[c.len() - 1] - 16).abs()
            } else {
                0
            };
            ((threads - 256).abs(), tk, -c[0])
        })
        .cloned()
        .expect("at least one combination");
    Some((params_of(&roles, &combos, &default), combos))
}

/// The parameters of a parallel sum: threads along x (`TX`), and rows of threads along y
/// (`TY`, a sum over two loops) or elements each thread adds up per block (`TR`, a sum
/// over one loop); a loop on blocks has none.
fn sum_parameters(
    n: &Nests,
    part: &Partition,
    device: &Device,
) -> Option<(Vec<Param>, Vec<Vec<i64>>)> {
    let ex = n.extent(part.x);
    let (roles, options): (Vec<&'static str>, Vec<Vec<i64>>) = if part.blocks_sum.is_some() {
        let mut o = Vec::new();
        for tx in [64, 128, 256] {
            for tr in [64, 128, 256, 512] {
                o.push(vec![tx, tr]);
            }
        }
        (vec!["TX", "TR"], o)
    } else if part.y.is_some() {
        let mut o = Vec::new();
        for tx in [64, 128, 256] {
            for ty in [2, 4, 8] {
                o.push(vec![tx, ty]);
            }
        }
        (vec!["TX", "TY"], o)
    } else if part.block_y.is_some() {
        (
            vec!["TX"],
            [64, 128, 256, 512].iter().map(|t| vec![*t]).collect(),
        )
    } else {
        let mut o = Vec::new();
        for tx in [128, 256, 512] {
            for tr in [4, 16, 64] {
                o.push(vec![tx, tr]);
            }
        }
        (vec!["TX", "TR"], o)
    };
    let threads = |c: &[i64]| c[0] * if part.y.is_some() { c[1] } else { 1 };
    let blocks = |c: &[i64]| -> Option<i64> {
        if let Some(sum) = part.blocks_sum {
            tiled_blocks(ex, n.extent(sum), c[0], c[1])
        } else if let Some(y) = part.y {
            Some((n.extent(y)? + c[1] - 1) / c[1])
        } else if let Some(b) = part.block_y {
            n.extent(b)
        } else {
            Some((ex? + c[0] * c[1] - 1) / (c[0] * c[1]))
        }
    };
    let rated: Vec<(Vec<i64>, i64, i64)> = options
        .iter()
        .filter(|c| threads(c) <= device.limits.max_threads_per_block)
        .filter_map(|c| {
            let resident = device.blocks_per_sm(threads(c), 32, 0).max(1);
            Some((c.clone(), blocks(c)?, device.limits.sms * resident))
        })
        .collect();
    let combos = if rated.is_empty() {
        options
    } else {
        occupancy::filter(&rated)
    };
    let default = combos
        .iter()
        .min_by_key(|c| {
            (
                (threads(c) - 256).abs(),
                c.get(1).map_or(0, |x| (x - 16).abs()),
            )
        })
        .cloned()?;
    Some((params_of(&roles, &combos, &default), combos))
}

/// The parameters `roles`, each with the values it takes in `combos` and its value in
/// `default`.
fn params_of(roles: &[&'static str], combos: &[Vec<i64>], default: &[i64]) -> Vec<Param> {
    roles
        .iter()
        .enumerate()
        .map(|(k, role)| {
            let mut candidates: Vec<i64> = combos.iter().map(|c| c[k]).collect();
            candidates.sort_unstable();
            candidates.dedup();
            Param {
                role,
                candidates,
                value: default[k],
            }
        })
        .collect()
}
