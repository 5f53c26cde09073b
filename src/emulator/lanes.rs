//! What a warp's access costs from where its lanes' elements lie: the 32-byte sectors it
//! touches, its shared-memory passes (bank conflicts), and the share of a block's global
//! reads that L1 serves. The [`super::workload`] walk asks these of each access.

use super::workload::{Step, L1};

/// What a warp's access costs, from where its lanes' elements lie.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lanes {
    /// The 32-byte sectors it touches.
    pub sectors: f64,
    /// The shared-memory passes it needs: the most distinct 4-byte words that fall in
    /// one of the 32 banks.
    pub wavefronts: f64,
    /// The bytes the lanes ask for, in sectors (at most `sectors`).
    pub asked: f64,
}

/// The cost of a warp's access whose element moves by `stride` elements along threadIdx.x
/// and .y. Not affine: every lane its own sector and its own pass, all of it asked for.
pub fn lanes(stride: Option<(i64, i64)>, block: &[i64], elem: i64) -> Lanes {
    lanes_of(stride, block, elem, elem)
}

/// [`lanes`] of an access whose lanes each move `bytes` from their element on (a 64- or
/// 128-bit load of consecutive elements of size `elem`).
pub fn lanes_of(stride: Option<(i64, i64)>, block: &[i64], elem: i64, bytes: i64) -> Lanes {
    let Some((sx, sy)) = stride else {
        return Lanes {
            sectors: 32.0,
            wavefronts: 32.0,
            asked: 32.0,
        };
    };
    let bx = block.first().copied().unwrap_or(1).max(1);
    let by = block.get(1).copied().unwrap_or(1).max(1);
    let threads: i64 = block.iter().product::<i64>().max(1);
    let addrs: Vec<i64> = (0..threads.min(32))
        .map(|lane| {
            let (tx, ty) = (lane % bx, (lane / bx) % by);
            (sx * tx + sy * ty) * elem
        })
        .collect();
    lanes_at(addrs, bytes)
}

/// [`lanes_of`] of a warp whose lanes move `bytes` each from the byte addresses `addrs`.
pub fn lanes_at(mut addrs: Vec<i64>, bytes: i64) -> Lanes {
    let mut sectors: Vec<i64> = Vec::with_capacity(64);
    let mut words: Vec<i64> = Vec::with_capacity(64);
    for &addr in &addrs {
        let first = addr.div_euclid(32);
        let last = (addr + bytes - 1).div_euclid(32);
        sectors.extend(first..=last);
        words.extend(addr.div_euclid(4)..(addr + bytes).div_euclid(4).max(addr.div_euclid(4) + 1));
    }
    sectors.sort_unstable();
    sectors.dedup();
    words.sort_unstable();
    words.dedup();
    let mut per_bank = [0u32; 32];
    for w in &words {
        per_bank[w.rem_euclid(32) as usize] += 1;
    }
    let wavefronts = per_bank.iter().copied().max().unwrap_or(1).max(1);
    addrs.sort_unstable();
    addrs.dedup();
    let sectors = sectors.len().max(1) as f64;
    Lanes {
        sectors,
        wavefronts: wavefronts as f64,
        asked: ((addrs.len() as i64 * bytes) as f64 / 32.0).min(sectors),
    }
}

/// The L1 reuse of a global read whose element moves by `stride` elements along
/// threadIdx.x and .y and by `step` elements per iteration of the innermost loop around
/// it (`None`: no loop in the thread, or not affine), by the block's threads that run it
/// (`running`, in `threadIdx` order; empty: all): of the sectors the block's warps ask
/// for in one iteration, the share that another warp of the block asked for in the same
/// iteration or that the block touched in the iteration before; and the bytes the block
/// keeps in L1 for that (two iterations' sectors). Averaged over where the first element
/// falls in its sector. `None` stride: no reuse.
pub fn l1_reuse(stride: Step, step: Option<i64>, block: &[i64], running: &[bool], elem: i64) -> L1 {
    let Some((sx, sy)) = stride else {
        return L1::default();
    };
    let bx = block.first().copied().unwrap_or(1).max(1);
    let by = block.get(1).copied().unwrap_or(1).max(1);
    let threads = block.iter().product::<i64>().clamp(1, 1024);
    let runs = |t: i64| running.get(t as usize).copied().unwrap_or(true);
    let distinct = |mut v: Vec<i64>| {
        v.sort_unstable();
        v.dedup();
        v
    };
    // The running threads of each warp that has any.
    let warps: Vec<Vec<i64>> = (0..threads)
        .step_by(32)
        .map(|w| {
            (w..(w + 32).min(threads))
                .filter(|&t| runs(t))
                .collect::<Vec<i64>>()
        })
        .filter(|w| !w.is_empty())
        .collect();
    if warps.is_empty() {
        return L1::default();
    }
    let offsets: Vec<i64> = (0..32).step_by(elem.clamp(1, 32) as usize).collect();
    let (mut hits, mut bytes, mut lines) = (0.0, 0.0, 0.0);
    for &base in &offsets {
        let sector = |t: i64, shift: i64| {
            let (tx, ty) = (t % bx, (t / bx) % by);
            (base + (sx * tx + sy * ty + shift) * elem).div_euclid(32)
        };
        let per_warp = |w: &Vec<i64>| distinct(w.iter().map(|&t| sector(t, 0)).collect());
        let asked: usize = warps.iter().map(|w| per_warp(w).len()).sum();
        lines += warps
            .iter()
            .map(|w| distinct(per_warp(w).iter().map(|s| s.div_euclid(4)).collect()).len())
            .sum::<usize>() as f64
            / warps.len() as f64;
        let all = || warps.iter().flatten().copied();
        let now = distinct(all().map(|t| sector(t, 0)).collect());
        let (new, kept) = match step {
            Some(d) => {
                let next = distinct(all().map(|t| sector(t, d)).collect());
                let fresh = next
                    .iter()
                    .filter(|x| now.binary_search(x).is_err())
                    .count();
                (fresh, now.len() + fresh)
            }
            None => (now.len(), now.len()),
        };
        hits += 1.0 - new as f64 / asked.max(1) as f64;
        bytes += 32.0 * kept as f64;
    }
    let n = offsets.len() as f64;
    L1 {
        hits: (hits / n).clamp(0.0, 1.0),
        bytes: bytes / n,
        lines: lines / n,
    }
}

#[cfg(test)]
mod tests {
    use super::{l1_reuse, lanes, lanes_of, Lanes, L1};

    #[test]
    fn a_coalesced_float_warp_moves_four_sectors() {
        assert_eq!(
            lanes(Some((1, 0)), &[32, 8], 4),
            Lanes {
                sectors: 4.0,
                wavefronts: 1.0,
                asked: 4.0
            }
        );
        // Doubles: eight sectors, and two words per lane spread over the banks.
        assert_eq!(lanes(Some((1, 0)), &[32], 8).sectors, 8.0);
    }

    #[test]
    fn a_128_bit_shared_load_costs_the_passes_of_its_spans() {
        // An outer-product tile's B_shared[k][4 * tx + q], q = 0..3, as one LDS.128: 16
        // lanes read 256 consecutive bytes, two passes (not four times one load's two).
        assert_eq!(lanes(Some((4, 0)), &[16, 16], 4).wavefronts, 2.0);
        assert_eq!(lanes_of(Some((4, 0)), &[16, 16], 4, 16).wavefronts, 2.0);
        // Two rows of lanes reading one span each: one pass.
        assert_eq!(lanes_of(Some((0, 80)), &[16, 16], 4, 16).wavefronts, 1.0);
        // The block distribution's B_shared[k][8 * tx + q]: 16 spans 32 bytes apart fall
        // on every other group of 4 banks, 4 passes (2 with the spans adjacent).
        assert_eq!(lanes_of(Some((8, 0)), &[16, 16], 4, 16).wavefronts, 4.0);
    }

    #[test]
    fn a_broadcast_is_one_sector_and_one_pass() {
        assert_eq!(
            lanes(Some((0, 0)), &[32, 8], 4),
            Lanes {
                sectors: 1.0,
                wavefronts: 1.0,
                asked: 0.125
            }
        );
    }

    #[test]
    fn a_column_walk_touches_a_sector_per_lane_and_conflicts_on_banks() {
        // Stride 1024 floats along x: 32 sectors, of which the lanes ask for 4 sectors'
        // worth; in shared memory, 32 lanes on one bank.
        assert_eq!(
            lanes(Some((1024, 0)), &[32], 4),
            Lanes {
                sectors: 32.0,
                wavefronts: 32.0,
                asked: 4.0
            }
        );
        // Padded to 1025: no conflicts.
        assert_eq!(lanes(Some((1025, 0)), &[32], 4).wavefronts, 1.0);
    }

    #[test]
    fn a_narrow_block_spreads_a_warp_over_rows() {
        // 16 x 16 threads: a warp is two rows of 16; rows 1024 floats apart.
        assert_eq!(lanes(Some((1, 1024)), &[16, 16], 4).sectors, 4.0);
        assert_eq!(lanes(None, &[16, 16], 4).sectors, 32.0);
    }

    #[test]
    fn a_broadcast_is_fetched_by_one_warp_and_served_to_the_others() {
        // 8 warps ask for the same sector: one miss, seven hits.
        let r = l1_reuse(Some((0, 0)), None, &[32, 8], &[], 4);
        assert_eq!(
            r,
            L1 {
                hits: 0.875,
                bytes: 32.0,
                lines: 1.0
            }
        );
    }

    #[test]
    fn a_coalesced_stream_reuses_only_the_sector_it_straddles() {
        // Each warp reads its own 128 bytes: nothing to reuse in the same iteration.
        assert_eq!(l1_reuse(Some((1, 0)), None, &[32], &[], 4).hits, 0.0);
        // Moving on by 128 bytes per iteration: where the first element is not at a
        // sector's start (7 of 8 alignments), one of the five sectors was read before.
        let r = l1_reuse(Some((1, 0)), Some(32), &[32], &[], 4);
        assert!((r.hits - 7.0 / 8.0 * 0.2).abs() < 1e-12, "{r:?}");
    }

    #[test]
    fn a_thread_walking_along_its_own_row_hits_in_the_sector_it_read_before() {
        // Rows 1024 floats apart, one float further per iteration: a new sector in one
        // iteration of eight (when the first element is a sector's last).
        let r = l1_reuse(Some((1024, 0)), Some(1), &[32], &[], 4);
        assert_eq!(r.hits, 7.0 / 8.0);
        assert_eq!(r.lines, 32.0);
        // The block keeps its 32 sectors, and 32 more in the iteration that crosses.
        assert_eq!(r.bytes, (7.0 * 1024.0 + 2048.0) / 8.0);
    }

    #[test]
    fn only_the_threads_that_pass_a_guard_share_sectors_in_l1() {
        // A block of 64 threads of which the first 24 run (`tx < 24`), reading a row of
        // 24 floats that moves by 24 per iteration: the new row is in sectors no thread
        // read before. Counting the 40 idle threads, their reads would seem to bring in
        // most of the next row.
        let running: Vec<bool> = (0..64).map(|t| t < 24).collect();
        let idle_counted = l1_reuse(Some((1, 0)), Some(24), &[64], &[], 4);
        let running_only = l1_reuse(Some((1, 0)), Some(24), &[64], &running, 4);
        assert!(idle_counted.hits > 0.5, "{idle_counted:?}");
        assert!(running_only.hits < 0.25, "{running_only:?}");
        // No thread runs: nothing to reuse.
        assert_eq!(
            l1_reuse(Some((1, 0)), Some(24), &[64], &[false; 64], 4),
            L1::default()
        );
    }

    #[test]
    fn an_access_that_is_not_affine_in_the_threads_is_not_served_by_l1() {
        assert_eq!(l1_reuse(None, Some(1), &[32, 8], &[], 4), L1::default());
    }
}
