//! Kernel-level abstract emulation (seed 000 §4.3, last paragraph): of the blocks that fit
//! on one SM at a time, the warps one of its processing blocks runs ([`Partition`]) are
//! emulated warp by warp ([`super::saake`]) on the instruction streams of
//! [`super::streams`] or [`super::sass`], and the time is scaled by the number of waves of
//! blocks the grid needs; then by the launches around the kernel.

use super::ptxas::Native;
use super::saake::{self, Bottleneck, RegionSensitivity, Resource, Sensitivity, Workload};
use super::sass;
use super::streams::{self, DramShares, InstructionCount, StreamBuilder};
use super::workload::{self, KernelWork};
use super::Detail;
use crate::codegen::ir::Generated;
use crate::device::Device;
use crate::poly::memo::Memo;
use crate::transform::Transformed;

/// What the emulation says about one kernel.
#[derive(Clone, Debug)]
pub struct KernelEmulation {
    pub work: KernelWork,
    /// Blocks resident on one SM at a time, and the warps they make.
    pub resident_blocks: i64,
    pub active_warps: i64,
    /// Active warps over the SM's maximum.
    pub occupancy: f64,
    pub waves: f64,
    /// Emulated cycles of one wave on one SM.
    pub cycles_per_wave: f64,
    /// Microseconds for all launches.
    pub time_us: f64,
    /// The least one launch can take ([`floor_us`]); `time_us` is never below it.
    pub floor_us: f64,
    /// Microseconds for all launches as emulated, before the floor: what tells apart
    /// variants that the floor makes equal.
    pub emulated_us: f64,
    pub sensitivities: Vec<Sensitivity>,
    /// For each resource with a sensitivity of [`REGION_THRESHOLD`] or more, its
    /// sensitivity within each code region (those of 0.01 or more).
    pub region_sensitivities: Vec<RegionSensitivity>,
    pub bottleneck: Option<Bottleneck>,
    /// Floating-point operations and global-memory bytes of all launches.
    pub flops: f64,
    pub bytes: f64,
    /// The share of global sectors DRAM serves (the rest hit in L2).
    pub dram_share: f64,
    /// Whether the registers per thread are ptxas's count (else gpucc's estimate).
    pub registers_from_ptxas: bool,
    /// gpucc's own estimate of the registers per thread, whatever was used.
    pub registers_estimate: i64,
    /// Where the instruction streams come from: `Ok` the SASS, `Err` why the kernel IR.
    pub streams: Result<(), String>,
}

impl KernelEmulation {
    /// `shared, throughput-bound`, or what is known without the sensitivity analysis.
    pub fn verdict(&self) -> String {
        match &self.bottleneck {
            Some(b) => format!("{}, {}-bound", b.resource, b.mode),
            None => "bottleneck not analysed".to_string(),
        }
    }
}

/// The SM's pipes of `device`, as the emulator models them.
pub fn resources(device: &Device) -> Vec<Resource> {
    device
        .pipes()
        .into_iter()
        .map(|(name, latency, gap)| Resource::new(name, latency, gap))
        .collect()
}

/// Emulates every kernel of `g` on `device` (symbolic sizes at `sizes`), with the
/// sensitivity analysis as `detail` asks of each (by its place in the list); `native`
/// (from NVIDIA's toolchain) overrides the estimated registers of the kernels it names
/// and gives their SASS streams.
pub fn emulate(
    t: &Transformed,
    g: &Generated,
    device: &Device,
    sizes: &[(String, i64)],
    detail: &dyn Fn(usize) -> Detail,
    native: &Native,
) -> Result<Vec<KernelEmulation>, String> {
    let resources = resources(device);
    // Ranking emulates the same kernels again and again (those of the nests a variant
    // leaves alone): without ptxas's counts or SASS, a kernel's emulation depends on the
    // kernel, its launches and the device only.
    let reusable = native.registers.is_empty() && !matches!(&native.sass, Ok(k) if !k.is_empty());
    workload::sites(t, g, sizes, device.limits.sms)
        .into_iter()
        .enumerate()
        .map(|(k, site)| {
            let detail = detail(k);
            if !reusable {
                return emulate_site(t, g, &site, device, detail, native, &resources);
            }
            let key = format!(
                "{}\n{site:?}\n{sizes:?}\n{detail:?}\n{device:?}",
                g.kernels[site.kernel].source
            );
            EMULATED.get_or(key, || {
                emulate_site(t, g, &site, device, detail, native, &resources)
            })
        })
        .collect()
}

/// The emulations of this process, by kernel ([`crate::codegen::reuse`]), launches and
/// device.
static EMULATED: Memo<KernelEmulation> = Memo::new(1024);

/// The emulation of one kernel at `site`.
fn emulate_site(
    t: &Transformed,
    g: &Generated,
    site: &workload::Site,
    device: &Device,
    detail: Detail,
    native: &Native,
    resources: &[Resource],
) -> Result<KernelEmulation, String> {
    let l = &device.limits;
    let mut instructions = InstructionCount::default();
    let mut work = site.work_with(t, g, Some(&mut instructions));
    // `__launch_bounds__(threads, n)`: ptxas keeps n blocks' registers on an SM.
    let bound = t
        .kernels
        .iter()
        .find(|k| k.name == work.name)
        .and_then(|k| k.min_blocks)
        .map(|n| {
            let per_thread = l.registers_per_sm / (work.threads_per_block.max(1) * n);
            (per_thread / 8 * 8).clamp(16, l.max_registers_per_thread)
        });
    if let Some(cap) = bound {
        work.registers = work.registers.min(cap);
    }
    let registers_estimate = work.registers;
    let counted = native.registers.iter().find(|r| r.name == work.name);
    if let Some(r) = counted {
        work.registers = r.registers;
    }
    let fit = device.blocks_per_sm(work.threads_per_block, work.registers, work.shared_bytes);
    if fit == 0 {
        return Err(format!(
            "a block of kernel `{}` ({} threads, {} bytes of shared memory, about {} registers per thread) does not fit on an SM of the {}",
            work.name, work.threads_per_block, work.shared_bytes, work.registers, device.name
        ));
    }
    let active_sms = (l.sms as f64).min(work.blocks.max(1.0));
    // DRAM and L2 bandwidth are shared by the busy SMs, each taking at most what its
    // link to L2 carries.
    let mut resources = resources.to_vec();
    let floor = 32.0 / device.model.sm_l2_bytes_per_cycle;
    for r in [streams::DRAM, streams::L2] {
        resources[r].gap = (resources[r].gap * active_sms / l.sms as f64).max(floor);
    }
    let per_sm = (work.blocks / active_sms).ceil().max(1.0) as i64;
    let resident = fit.min(per_sm);
    let warps_per_block = ((work.threads_per_block + l.warp_size - 1) / l.warp_size).max(1);
    let dram = dram_shares(&work, warps_per_block, device);
    let dram_share = dram.overall;
    // What shared memory leaves of L1, per resident block.
    let l1_bytes =
        (l.l1_shared_bytes_per_sm - resident * work.shared_bytes).max(0) as f64 / resident as f64;
    let mut builder = StreamBuilder::new(dram.clone(), l1_bytes);
    let from_sass = sass_stream(t, g, site, native, &work.name, &mut builder);
    let total = match &from_sass {
        Ok(total) => *total,
        Err(_) => {
            builder = StreamBuilder::new(dram, l1_bytes);
            site.walk(t, g, &mut builder);
            builder.hoist_loads(LOAD_WINDOW);
            instructions.0
        }
    };
    let part = Partition::of(warps_per_block, resident);
    for r in &mut resources {
        r.gap *= part.slower;
    }
    let w = Workload {
        stream: &builder.stream,
        warps_per_block: part.warps_per_block,
        blocks: part.blocks,
        issue_per_cycle: 1,
        unwaited: &[streams::DRAM, streams::L2],
    };
    // The issue order is kept only for the sensitivity analysis, which replays it.
    let run = (detail >= Detail::Bottleneck).then(|| saake::emulate(&resources, &w));
    let cycles = match &run {
        Some(run) => run.cycles,
        None => saake::cycles(&resources, &w),
    };
    let cycles = extrapolate(cycles, total, &resources, &w);
    let waves = (work.blocks / (resident as f64 * active_sms))
        .ceil()
        .max(1.0);
    let launches = work.launches.max(1.0);
    let emulated_us = cycles * waves / device.throughput.sm_clock_mhz;
    let floor_us = floor_us(&work, device);
    let time_us = (emulated_us.max(floor_us) + device.model.launch_overhead_us) * launches;
    let unfloored_us = (emulated_us + device.model.launch_overhead_us) * launches;
    let (sensitivities, bottleneck) = match &run {
        Some(run) => {
            let (s, b) = saake::sensitivity(&resources, &w, run);
            (s, Some(b))
        }
        None => (Vec::new(), None),
    };
    // Region by region, for the resources the kernel is sensitive to.
    let mut by_region = Vec::new();
    for (k, s) in sensitivities.iter().enumerate() {
        if let Some(run) = run
            .as_ref()
            .filter(|_| detail == Detail::Regions && s.latency.max(s.gap) >= REGION_THRESHOLD)
        {
            by_region.extend(
                saake::region_sensitivities(
                    &resources,
                    &w,
                    run,
                    &builder.regions,
                    &builder.region_names,
                    k,
                )
                .into_iter()
                .filter(|x| x.latency.max(x.gap) >= 0.01),
            );
        }
    }
    let threads = work.blocks * work.threads_per_block as f64 * launches;
    let c = &work.per_thread;
    let flops = (c.fp32 + c.fp64 + c.special) * threads;
    let bytes = c.global_bytes * threads / l.warp_size as f64;
    let active_warps = resident * warps_per_block;
    Ok(KernelEmulation {
        resident_blocks: resident,
        active_warps,
        occupancy: active_warps as f64 / (l.max_threads_per_sm / l.warp_size) as f64,
        waves,
        cycles_per_wave: cycles,
        time_us,
        floor_us,
        emulated_us: unfloored_us,
        sensitivities,
        region_sensitivities: by_region,
        bottleneck,
        flops,
        bytes,
        dram_share,
        registers_from_ptxas: counted.is_some(),
        registers_estimate,
        work,
        streams: from_sass.map(|_| ()),
    })
}

/// The least time one launch of `work` can take on `device` (issue 19): the bytes it must
/// bring from DRAM at the device's bandwidth ([`Device::dram_bandwidth_gb_s`]: the measured
/// streaming rate where there is one), and its floating-point operations at the
/// FP32 and FP64 pipes' peak, whichever is longer. A launch must read from DRAM each byte
/// of its arrays it touches (no more than the whole arrays, no more than it asks for),
/// unless the launch repeats on arrays that L2 holds whole. The emulation never predicts
/// less: it once gave an 8192² SGEMV 3.45 TB/s of a 3.08 TB/s device.
pub fn floor_us(work: &KernelWork, device: &Device) -> f64 {
    let t = &device.throughput;
    let l = &device.limits;
    let threads = work.blocks * work.threads_per_block as f64;
    let c = &work.per_thread;
    let touched = work
        .footprint_bytes
        .min(c.global_bytes * threads / l.warp_size as f64);
    let from_dram = if work.launches > 1.0 && work.footprint_bytes <= l.l2_bytes as f64 {
        0.0
    } else {
        touched
    };
    let dram_us = from_dram / (device.dram_bandwidth_gb_s() * 1e3);
    // Per SM and cycle, a lane does one FMA: two operations.
    let per_us = |lanes: f64| 2.0 * lanes * l.sms as f64 * t.sm_clock_mhz;
    let fp32_us = c.fp32 * threads / per_us(t.fp32_lanes_per_sm);
    let fp64_us = c.fp64 * threads / per_us(t.fp64_lanes_per_sm);
    dram_us.max(fp32_us).max(fp64_us)
}

/// The cycles of a whole stream of `total` instructions, from those of its emulated
/// first part `w.stream` (`cycles`). The emulated part holds what runs once (a register
/// tile's loads before the main loop, the stores after it) beside the first iterations;
/// scaling all of it by `total / emulated` would repeat the once-only part with every
/// iteration (a 64-element register tile's loads made an SGEMM 6x slower than its
/// loop). The rest is instead charged at the rate of the stream's second half emulated
/// on its own (its dependences on the first half taken as met): the cycles the loop's
/// iterations take once the once-only part and the backlog it leaves in the memory
/// queues are behind (the cycles the second half added to the first half counted that
/// backlog: an 8 x 8 tile's 64 loads of C made the marginal rate of an SGEMM's main loop
/// twice its own).
fn extrapolate(cycles: f64, total: f64, resources: &[Resource], w: &Workload) -> f64 {
    let emulated = w.stream.len();
    if streams::scale(total, emulated) <= 1.0 || emulated < 2 {
        return cycles;
    }
    let half = emulated / 2;
    let second = saake::cycles(
        resources,
        &Workload {
            stream: &saake::tail(w.stream, half),
            ..*w
        },
    );
    let marginal = second / (emulated - half) as f64;
    cycles + (total - emulated as f64) * marginal
}

/// Builds kernel `name`'s stream from its SASS into `b`; the whole stream's length, or why
/// there is no SASS stream.
fn sass_stream(
    t: &Transformed,
    g: &Generated,
    site: &workload::Site,
    native: &Native,
    name: &str,
    b: &mut StreamBuilder,
) -> Result<f64, String> {
    let kernels = native.sass.as_ref().map_err(Clone::clone)?;
    let k = kernels
        .iter()
        .find(|k| k.name == name)
        .ok_or_else(|| format!("no SASS for kernel `{name}`"))?;
    let nodes = native.lines.get(site.kernel).cloned().unwrap_or_default();
    if nodes.is_empty() {
        return Err("the kernel's lines were not found in the .cu".to_string());
    }
    let mut lines = sass::Lines::new(nodes);
    site.walk(t, g, &mut lines);
    sass::stream(k, &lines, b)
}

/// Where a launch's global sectors come from: per array, the share DRAM serves (L2
/// serves the rest), and that share over all of them. The prediction is for the steady
/// state (a kernel launched again, in a time-step loop or as it is timed: CUDA events
/// around repeated launches): arrays that fit in L2 together are found there, so DRAM
/// serves nothing. When they do not, each array comes from DRAM once per launch
/// (compulsory traffic), and an element read again is found in L2 when what the kernel
/// touches between two reads of it fits there. With the accesses spread evenly over the
/// launch, an array read `r` times is read again after `1/r` of it, in which an array
/// read `r'` times touches `min(1, r'/r)` of its bytes: GEMV^T's x, read by every block,
/// stays in L2 while A streams through it once. The sectors a warp moves beyond the
/// bytes its lanes ask for are not reads again: the rest of each sector is asked for by
/// the warps beside it (the next rows of a tile, the next block along), which run at the
/// same time and find it in L2. Reads L1 serves are set apart later, by the stream
/// builder.
fn dram_shares(work: &KernelWork, warps_per_block: i64, device: &Device) -> DramShares {
    let warps = warps_per_block as f64 * work.blocks;
    let l2 = device.limits.l2_bytes as f64;
    let arrays = &work.per_thread.global_arrays;
    let fits = work.footprint_bytes <= l2;
    // Per array: sectors moved, sectors asked for, compulsory sectors, reads per element.
    let traffic: Vec<(f64, f64, f64, f64)> = arrays
        .iter()
        .zip(&work.array_bytes)
        .map(|(a, &bytes)| {
            let total = a.sectors * warps;
            let asked = (a.asked * warps).min(total);
            let compulsory = (bytes / 32.0).min(total);
            (
                total,
                asked,
                compulsory,
                (asked * 32.0 / bytes.max(1.0)).max(1.0),
            )
        })
        .collect();
    let mut dram = 0.0;
    let mut total = 0.0;
    let mut shares = Vec::with_capacity(arrays.len());
    for (a, &(moved, asked, compulsory, reads)) in arrays.iter().zip(&traffic) {
        let between: f64 = traffic
            .iter()
            .zip(&work.array_bytes)
            .map(|(&(.., r), &bytes)| bytes * (r / reads).min(1.0))
            .sum();
        let kept = (l2 / between.max(1.0)).min(1.0);
        let from_dram = if fits {
            0.0
        } else {
            compulsory + (asked - compulsory).max(0.0) * (1.0 - kept)
        };
        shares.push((a.array, if moved > 0.0 { from_dram / moved } else { 0.0 }));
        dram += from_dram;
        total += moved;
    }
    let overall = if total > 0.0 {
        (dram / total).clamp(0.0, 1.0)
    } else if fits && work.per_thread.global_sectors > 0.0 {
        0.0
    } else {
        1.0
    };
    DramShares {
        arrays: shares,
        overall,
    }
}

/// What one of the SM's processing blocks runs (seed 000 emulates an SM's warps on one
/// scheduler; an SM from Volta to Hopper has [`SCHEDULERS_PER_SM`], each issuing one
/// instruction per cycle from its own warps): its share of the resident warps, as blocks
/// whose barriers it emulates, on pipes `slower` times slower than the SM's (the device
/// descriptions' gaps are per SM: the processing block has its quarter of the arithmetic
/// units and of the SM's memory bandwidth). A warp so issues at most one instruction per
/// cycle, and the emulation is a quarter as long.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Partition {
    warps_per_block: usize,
    blocks: usize,
    slower: f64,
}

impl Partition {
    /// The share of `resident` blocks of `warps_per_block` warps each (the SM hands a
    /// block's warps to its schedulers in turn): a quarter of each block's warps, or
    /// whole blocks when they have fewer warps than the SM has schedulers, rounded up;
    /// the pipes are as much slower as the SM's warps outnumber the emulated ones.
    fn of(warps_per_block: i64, resident: i64) -> Partition {
        let s = SCHEDULERS_PER_SM as i64;
        let all = (warps_per_block * resident).max(1);
        let per_block = ((warps_per_block + s - 1) / s).max(1);
        let blocks = ((all + s - 1) / s + per_block - 1) / per_block;
        Partition {
            warps_per_block: per_block as usize,
            blocks: blocks as usize,
            slower: all as f64 / (per_block * blocks) as f64,
        }
    }
}

/// The overall sensitivity from which a resource is analysed region by region.
pub const REGION_THRESHOLD: f64 = 0.05;

/// Warp schedulers per SM, each issuing one instruction per cycle from its own warps
/// (four on every GPU gpucc targets, Volta to Hopper: the SM's processing blocks).
const SCHEDULERS_PER_SM: usize = 4;

/// How far ahead of its use (in abstract instructions) a load is issued: see
/// [`StreamBuilder::hoist_loads`].
const LOAD_WINDOW: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emulator::workload::{ArrayTraffic, Counts};

    /// A launch of 1000 blocks of 8 warps whose warps each move `sectors` sectors of
    /// array `k` and ask for `asked` sectors' worth, the array being `bytes` long.
    fn work(arrays: &[(f64, f64, f64)]) -> KernelWork {
        let traffic: Vec<ArrayTraffic> = arrays
            .iter()
            .enumerate()
            .map(|(k, &(_, sectors, asked))| ArrayTraffic {
                array: k,
                sectors,
                asked,
            })
            .collect();
        KernelWork {
            working_share: 1.0,
            name: "k".into(),
            launches: 1.0,
            blocks: 1000.0,
            threads_per_block: 256,
            shared_bytes: 0,
            registers: 32,
            register_copy_words: 0,
            per_thread: Counts {
                global_insts: 1.0,
                global_sectors: traffic.iter().map(|a| a.sectors).sum(),
                global_bytes: 32.0 * traffic.iter().map(|a| a.asked).sum::<f64>(),
                global_arrays: traffic,
                ..Counts::default()
            },
            footprint_bytes: arrays.iter().map(|a| a.0).sum(),
            array_bytes: arrays.iter().map(|a| a.0).collect(),
        }
    }

    /// The share of DRAM over all arrays.
    fn dram(arrays: &[(f64, f64, f64)]) -> f64 {
        dram_shares(&work(arrays), 8, &Device::default_device()).overall
    }

    #[test]
    fn data_that_fits_in_l2_is_found_there_and_larger_data_comes_from_dram_once() {
        let d = Device::default_device();
        // Steady state: arrays that fit in L2 are there from the launch before.
        assert_eq!(dram(&[(1.6e6, 100.0, 100.0)]), 0.0);
        assert_eq!(dram(&[(25.6e6, 100.0, 100.0)]), 0.0);
        // 8000 warps x 100 000 sectors; 104.8 MB of arrays = 3 276 800 sectors come from
        // DRAM once, and half of the rest misses (L2 holds half the footprint).
        let l2 = d.limits.l2_bytes as f64;
        let f = dram(&[(2.0 * l2, 1e5, 1e5)]);
        let (total, compulsory) = (8e8, 2.0 * l2 / 32.0);
        let want = (compulsory + (total - compulsory) * 0.5) / total;
        assert!((f - want).abs() < 1e-12, "{f} {want}");
    }

    #[test]
    fn sectors_moved_beyond_what_the_lanes_ask_for_are_found_in_l2() {
        // A transpose's copy tile of 64 rows of 16 bytes: each warp moves 8 sectors for
        // 4 sectors' worth of bytes; the block beside it asks for the other halves, at
        // the same time. The array, twice L2, comes from DRAM once: half the sectors.
        let l2 = Device::default_device().limits.l2_bytes as f64;
        let once = 2.0 * l2 / 32.0 / 8000.0;
        assert!((dram(&[(2.0 * l2, 2.0 * once, once)]) - 0.5).abs() < 1e-12);
        // Had the lanes asked for every byte, the second pass would miss as half of it.
        assert!((dram(&[(2.0 * l2, 2.0 * once, 2.0 * once)]) - 0.75).abs() < 1e-12);
    }

    #[test]
    fn a_small_array_read_by_every_block_stays_in_l2_while_a_large_one_streams() {
        // GEMV^T: A (twice L2) read once, x (16 KB) read by each of the 8000 warps.
        let d = Device::default_device();
        let l2 = d.limits.l2_bytes as f64;
        let a = (2.0 * l2, 2.0 * l2 / 32.0 / 8000.0, 2.0 * l2 / 32.0 / 8000.0);
        let x = (16384.0, 512.0, 512.0);
        let shares = dram_shares(&work(&[a, x]), 8, &d);
        assert_eq!(shares.arrays[0], (0, 1.0));
        // x: its 512 sectors once from DRAM of the 8000 x 512 read; between two reads of
        // it A moves 1/8000 of its bytes, far less than L2 holds.
        assert!(
            (shares.arrays[1].1 - 1.0 / 8000.0).abs() < 1e-12,
            "{:?}",
            shares
        );
        // One share for both would send 2/3 of x's reads to DRAM.
        assert!(dram(&[(2.0 * l2 + 16384.0, a.1 + x.1, a.1 + x.1)]) > 0.6);
    }

    #[test]
    fn a_processing_block_runs_a_quarter_of_the_warps_on_a_quarter_of_the_pipes() {
        let part = |w, b| {
            let p = Partition::of(w, b);
            (p.warps_per_block, p.blocks, p.slower)
        };
        // 8 blocks of 8 warps: 2 warps of each block.
        assert_eq!(part(8, 8), (2, 8, 4.0));
        // Blocks of one warp: whole blocks, a quarter of them.
        assert_eq!(part(1, 8), (1, 2, 4.0));
        // Fewer warps than schedulers: one warp, with its share of the pipes.
        assert_eq!(part(1, 1), (1, 1, 1.0));
        assert_eq!(part(2, 1), (1, 1, 2.0));
        // 12 warps do not split evenly: 4 emulated (two blocks of 2), each a third of
        // the SM's pipes.
        assert_eq!(part(6, 2), (2, 2, 3.0));
    }

    #[test]
    fn data_larger_than_l2_misses_in_proportion() {
        let l2 = Device::default_device().limits.l2_bytes as f64;
        let fits = dram(&[(l2 / 2.0, 1e6, 1e6)]);
        let twice = dram(&[(l2 * 2.0, 1e6, 1e6)]);
        let four = dram(&[(l2 * 4.0, 1e6, 1e6)]);
        assert!(fits < twice && twice < four, "{fits} {twice} {four}");
        assert!(twice > 0.5 && four > 0.75, "{twice} {four}");
    }
}
