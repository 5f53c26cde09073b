//! The optimistic lower bound on the time of a partly decided candidate (seed 001,
//! `001_9e65c7c4352e71cc.txt` §5–6, Telamon): a nest's partition and data placement
//! chosen, its tile sizes, unrolling and copy forms still open. No completion of the
//! candidate is predicted faster than its bound, so the branch-and-bound search of
//! [`super::search`] may skip every completion of a candidate whose bound is above the
//! best time found, and never loses the best.
//!
//! As in §6.2, the bound looks at one thread, with the parallelism of the partition at its
//! greatest (every mapped loop's iteration its own thread, as if all tiles were 1) and
//! every other decision at its most favourable:
//!
//! - **issue** (equation 3): a thread issues at most one instruction per cycle, and each
//!   instance of a statement it runs takes at least one;
//! - **dependence chain** (equation 4): an update (`c += a * b`) whose element stays the
//!   same across the loops a thread runs waits for the previous update's result, the
//!   arithmetic pipes' shortest latency each time (unless the partition splits the sum
//!   over threads);
//! - each launch costs the device's launch overhead, and a nest inside loops kept on the
//!   host launches once per iteration of them.
//!
//! Only statements whose iteration domain is a box at the sizes are counted (their
//! instances are the product of the loops' ranges); the others add nothing, which keeps
//! the bound a bound. The bound is checked against the emulator on every variant of the
//! testsuite's kernels (`testsuite/tune_cases.rs`).

use crate::device::Device;
use crate::poly::LoopId;
use crate::strategy::analysis::Nests;
use crate::strategy::{Nest, Variant};

/// The bound on one candidate and what sets it.
#[derive(Clone, Debug, PartialEq)]
pub struct Bound {
    pub us: f64,
    /// `issue: 1048576 instances of S0 per thread`, for reports.
    pub why: String,
}

/// The least time the program can take with `variant` for `nest` (the other parts of the
/// program taking no time at all).
pub fn variant_bound(n: &Nests, nest: &Nest, variant: &Variant, device: &Device) -> Bound {
    let part = &variant.partition;
    let host: Vec<LoopId> = nest.host.iter().chain(&part.host).copied().collect();
    let mut mapped: Vec<LoopId> = [Some(part.x), part.y, part.block_y, part.blocks_sum]
        .into_iter()
        .flatten()
        .collect();
    if let Some((_, l)) = part.split {
        mapped.push(l);
    }
    let sums_split = !part.reduce.is_empty() || part.blocks_sum.is_some();
    let r = &device.resources;
    let latency = r
        .fp32
        .latency
        .min(r.fp64.latency)
        .min(r.int.latency)
        .max(0.0);
    let clock = device.throughput.sm_clock_mhz;
    let mut best = Bound {
        us: 0.0,
        why: "no statement with a box-shaped domain to count".to_string(),
    };
    for &s in &nest.statements {
        let st = &n.p.statements[s];
        let Some(ranges) = n.p.box_ranges(s, &n.sizes) else {
            continue;
        };
        let written = n.loops_in_access(st.write);
        let (mut launches, mut per_thread, mut chain) = (1.0f64, 1.0f64, 1.0f64);
        for (l, range) in st.loops.iter().zip(&ranges) {
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
        let us = launches * (device.model.launch_overhead_us + cycles / clock);
        if us > best.us {
            let launches_text = if launches > 1.0 {
                format!(", {launches} launches")
            } else {
                String::new()
            };
            best = Bound {
                us,
                why: format!("{what}{launches_text}"),
            };
        }
    }
    best
}
