//! The analytical model of Hong and Kim (ISCA 2009), as GROPHECY uses it (seed 003, §7.4
//! and §9): a kernel alternates computation and global memory accesses; *MWP*, the
//! memory warp parallelism, is how many warps' memory requests overlap, given the memory
//! latency and the departure delay between requests (bandwidth); *CWP*, the computation
//! warp parallelism, is how many warps compute while one waits for memory. Their
//! comparison with the active warps `N` says whether the kernel is memory-, compute- or
//! parallelism-bound (seed 003, footnote 5), and gives its time.
//!
//! Inputs: the per-thread counts of [`super::workload`], the device's limits and
//! throughputs, and two latencies (DRAM and shared memory, [`crate::device::ModelParams`]).
//! One warp instruction costs `32 / lanes` cycles of its unit's issue bandwidth per SM
//! (0.25 cycles for an FP32 instruction on an SM with 128 FP32 lanes). The departure
//! delay of one 32-byte sector is what the SM's share of the DRAM bandwidth allows.
//! Caches are not modelled: every global access is a DRAM access, which favours data
//! staged in shared memory or registers, as the strategy generator's heuristics do.

use super::workload::KernelWork;
use crate::device::Device;

/// The model's verdict on one kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelEstimate {
    pub name: String,
    /// Microseconds for all its launches.
    pub time_us: f64,
    pub launches: f64,
    pub blocks: f64,
    pub threads_per_block: i64,
    /// Blocks resident per SM, and the active warps per SM they make.
    pub blocks_per_sm: i64,
    pub active_warps: f64,
    /// Waves of blocks per launch.
    pub waves: f64,
    /// `memory`, `compute` or `parallelism`.
    pub bound: &'static str,
    pub mwp: f64,
    pub cwp: f64,
}

/// Estimates one kernel; `None` when a block does not fit on an SM.
pub fn estimate(w: &KernelWork, d: &Device) -> Option<KernelEstimate> {
    let l = &d.limits;
    let th = &d.throughput;
    let warps_per_block = ((w.threads_per_block + l.warp_size - 1) / l.warp_size).max(1) as f64;
    let fit = d.blocks_per_sm(w.threads_per_block, w.registers, w.shared_bytes);
    if fit == 0 {
        return None;
    }
    let sms = l.sms as f64;
    let active_sms = sms.min(w.blocks.max(1.0));
    let per_sm = (w.blocks / active_sms).ceil().max(1.0);
    let resident = (fit as f64).min(per_sm);
    let n = (resident * warps_per_block).max(1.0);
    let waves = (w.blocks / (resident * active_sms)).ceil().max(1.0);
    let c = &w.per_thread;
    let lanes = |x: f64| l.warp_size as f64 / x.max(1.0);
    let comp_cycles = c.fp32 * lanes(th.fp32_lanes_per_sm)
        + c.fp64 * lanes(th.fp64_lanes_per_sm)
        + (c.int + c.branches) * lanes(th.fp32_lanes_per_sm / 2.0)
        + c.special * lanes(th.sfu_lanes_per_sm)
        + (c.shared_wavefronts + c.constant_insts + c.global_insts + c.atomics)
            * lanes(th.lsu_lanes_per_sm)
        + c.syncs * 2.0 * d.model.shared_latency_cycles
        + c.shared_insts * d.model.shared_latency_cycles / n;
    let comp_cycles = comp_cycles.max(1.0);
    let mem_insts = c.global_insts + c.atomics;
    let bytes_per_cycle = th.memory_bandwidth_gb_s * 1e9 / (sms * th.sm_clock_mhz * 1e6);
    let sector_delay = 32.0 / bytes_per_cycle.max(1e-9);
    let (cycles, bound, mwp, cwp) = if mem_insts <= 0.0 {
        (
            comp_cycles * n + d.model.shared_latency_cycles,
            "compute",
            n,
            n,
        )
    } else {
        let sectors = (c.global_sectors / mem_insts).max(1.0);
        let departure = sectors * sector_delay;
        let mem_latency = d.model.dram_latency_cycles + (sectors - 1.0) * sector_delay;
        let mwp = (mem_latency / departure).clamp(1.0, n);
        let mem_cycles = mem_latency * mem_insts;
        let cwp = ((mem_cycles + comp_cycles) / comp_cycles).min(n);
        let per_mem = comp_cycles / mem_insts;
        let cycles = if (mwp - n).abs() < 1e-9 && (cwp - n).abs() < 1e-9 {
            mem_cycles + comp_cycles + per_mem * (mwp - 1.0)
        } else if cwp >= mwp || comp_cycles > mem_cycles {
            mem_cycles * n / mwp + per_mem * (mwp - 1.0)
        } else {
            mem_latency + comp_cycles * n
        };
        let bound = if n <= mwp.min(cwp) {
            "parallelism"
        } else if mwp < cwp {
            "memory"
        } else {
            "compute"
        };
        (cycles, bound, mwp, cwp)
    };
    let per_launch_us = cycles * waves / th.sm_clock_mhz + d.model.launch_overhead_us;
    Some(KernelEstimate {
        name: w.name.clone(),
        time_us: per_launch_us * w.launches.max(1.0),
        launches: w.launches,
        blocks: w.blocks,
        threads_per_block: w.threads_per_block,
        blocks_per_sm: fit,
        active_warps: n,
        waves,
        bound,
        mwp,
        cwp,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emulator::workload::Counts;

    fn work(counts: Counts, blocks: f64) -> KernelWork {
        KernelWork {
            name: "k".into(),
            launches: 1.0,
            blocks,
            threads_per_block: 256,
            shared_bytes: 0,
            registers: 32,
            per_thread: counts,
        }
    }

    #[test]
    fn uncoalesced_accesses_cost_more_than_coalesced_ones() {
        let d = Device::default_device();
        let coalesced = Counts {
            fp32: 100.0,
            global_insts: 10.0,
            global_sectors: 40.0,
            ..Default::default()
        };
        let strided = Counts {
            global_sectors: 320.0,
            ..coalesced.clone()
        };
        let a = estimate(&work(coalesced, 4096.0), &d).unwrap();
        let b = estimate(&work(strided, 4096.0), &d).unwrap();
        assert!(b.time_us > a.time_us, "{a:?} {b:?}");
        assert_eq!(b.bound, "memory");
    }

    #[test]
    fn more_blocks_than_fit_at_once_take_more_waves() {
        let d = Device::default_device();
        let c = Counts {
            fp32: 1000.0,
            global_insts: 2.0,
            global_sectors: 8.0,
            ..Default::default()
        };
        let one = estimate(&work(c.clone(), 132.0 * 8.0), &d).unwrap();
        let two = estimate(&work(c, 132.0 * 16.0), &d).unwrap();
        assert_eq!(one.waves, 1.0);
        assert_eq!(two.waves, 2.0);
        assert!(two.time_us > one.time_us);
    }

    #[test]
    fn a_block_that_does_not_fit_has_no_estimate() {
        let d = Device::default_device();
        let mut w = work(Counts::default(), 1.0);
        w.shared_bytes = 1 << 30;
        assert!(estimate(&w, &d).is_none());
    }
}
