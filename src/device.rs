//! Target devices: the limits and throughputs of a GPU, read from the data files of
//! `benchmarks/devices/*.toml` (embedded in gpucc when it is built). The strategy
//! generator bounds its parameters by the limits; the performance model reads the rest,
//! and the SAAKE emulator (seed 000 §3-§4) reads the latency and gap of each pipe
//! ([`Resources`], listed in a fixed order by [`Device::pipes`]).
//!
//! Entry point: [`Device::named`] (`--device h100`); [`Device::default_device`] is the
//! H100, gpucc's default target.

use serde::Deserialize;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/devices.rs"));
}

/// A GPU as the strategy generator and the performance model see it.
#[derive(Clone, Debug, Deserialize)]
pub struct Device {
    /// The product, for people: `NVIDIA H100 SXM5 80GB`.
    pub name: String,
    /// Names `--device` accepts besides the file's stem.
    #[serde(default)]
    pub aliases: Vec<String>,
    /// The `nvcc -arch` value: `sm_90`.
    pub arch: String,
    pub limits: Limits,
    pub throughput: Throughput,
    /// The analytical model's latencies (estimates until measured on the device).
    #[serde(default)]
    pub model: ModelParams,
    /// Latency and gap of each hardware resource, for the SAAKE emulator. Every
    /// description must have the table.
    pub resources: Resources,
    /// The link to the host, for the copies in and out (`gpucc project`).
    pub host: HostLink,
    /// Where each group of numbers comes from.
    #[serde(default)]
    pub sources: std::collections::BTreeMap<String, String>,
    /// The file's stem (`h100`), set when it is loaded.
    #[serde(skip)]
    pub id: String,
}

/// Resource limits (CUDA C Programming Guide, "Compute Capabilities").
#[derive(Clone, Debug, Deserialize)]
pub struct Limits {
    pub sms: i64,
    pub warp_size: i64,
    pub max_threads_per_block: i64,
    pub max_threads_per_sm: i64,
    pub max_blocks_per_sm: i64,
    pub registers_per_sm: i64,
    pub max_registers_per_thread: i64,
    /// Registers are allocated per warp in units of this many.
    pub register_allocation_unit: i64,
    /// Bytes of shared memory the blocks of one SM may use together.
    pub shared_memory_per_sm: i64,
    /// Bytes one block may use with the opt-in attribute.
    pub max_shared_memory_per_block: i64,
    /// Bytes one block may declare statically (`__shared__` arrays of constant size).
    pub static_shared_memory_per_block: i64,
    pub shared_memory_allocation_unit: i64,
    /// Bytes the system reserves per resident block.
    #[serde(default)]
    pub shared_memory_per_block_reserved: i64,
    pub l2_bytes: i64,
    /// Bytes of the SM's unified L1 data cache and shared memory together: what shared
    /// memory leaves of it caches global reads.
    pub l1_shared_bytes_per_sm: i64,
    pub constant_memory_bytes: i64,
}

/// Clocks and widths of the execution units.
#[derive(Clone, Debug, Deserialize)]
pub struct Throughput {
    pub sm_clock_mhz: f64,
    pub memory_bandwidth_gb_s: f64,
    pub fp32_lanes_per_sm: f64,
    pub fp64_lanes_per_sm: f64,
    pub sfu_lanes_per_sm: f64,
    pub lsu_lanes_per_sm: f64,
    pub shared_memory_banks: i64,
}

/// What the emulator needs beyond the specifications and the pipes.
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct ModelParams {
    /// Microseconds a kernel launch costs the host, back to back.
    pub launch_overhead_us: f64,
    /// The most bytes one SM moves to and from L2 per cycle: the DRAM and L2 gaps are
    /// the device's bandwidth shared by every SM, so with fewer SMs busy each gets more,
    /// up to this.
    pub sm_l2_bytes_per_cycle: f64,
    /// Where the numbers come from.
    pub source: String,
}

impl Default for ModelParams {
    /// Round figures in the range public microbenchmarks of recent NVIDIA GPUs report; not
    /// measured by gpucc (calibration on a GPU replaces them).
    fn default() -> ModelParams {
        ModelParams {
            launch_overhead_us: 3.0,
            sm_l2_bytes_per_cycle: 64.0,
            source: "default estimate, not measured".to_string(),
        }
    }
}

/// The link between the host and the device, as `gpucc project` times the drop-in's
/// copies: each `cudaMemcpy` takes `copy_latency_us` plus its bytes at `gb_s`.
#[derive(Clone, Debug, Deserialize)]
pub struct HostLink {
    /// `PCIe Gen5 x16`, for people.
    pub link: String,
    /// GB/s (10^9 bytes per second) in one direction.
    pub gb_s: f64,
    /// Microseconds one copy costs besides its bytes.
    pub copy_latency_us: f64,
    /// Where the numbers come from.
    pub source: String,
}

/// One pipelined hardware resource (seed 000 §3.1): an operation that depends on the one
/// before it waits `latency` cycles; the pipe admits a new warp instruction every `gap`
/// cycles (the inverse of its throughput). Both in SM clock cycles, per SM.
#[derive(Clone, Debug, Deserialize)]
pub struct Pipe {
    pub latency: f64,
    pub gap: f64,
    /// Where the two numbers come from (measured, derived or estimated, and how).
    pub source: String,
}

/// The pipes of one SM, as `[resources]` of a device description gives them. Memory
/// pipes are per 32-byte sector (DRAM, L2) or per conflict-free warp access (shared).
#[derive(Clone, Debug, Deserialize)]
pub struct Resources {
    /// Global memory that misses L2; gap per 32-byte sector.
    pub dram: Pipe,
    /// Global memory that hits L2; gap per 32-byte sector.
    pub l2: Pipe,
    /// Shared memory; gap per conflict-free warp access (one wavefront).
    pub shared: Pipe,
    pub fp32: Pipe,
    pub fp64: Pipe,
    pub int: Pipe,
    /// Special functions (MUFU: sin, cos, exp, rsqrt).
    pub sfu: Pipe,
    /// Issuing a load or store (address generation).
    pub lsu: Pipe,
    pub branch: Pipe,
    /// `__syncthreads()` once all warps have arrived.
    pub barrier: Pipe,
}

impl Resources {
    /// (name, pipe) in the order dram, l2, shared, fp32, fp64, int, sfu, lsu, branch,
    /// barrier.
    pub fn named(&self) -> [(&'static str, &Pipe); 10] {
        [
            ("dram", &self.dram),
            ("l2", &self.l2),
            ("shared", &self.shared),
            ("fp32", &self.fp32),
            ("fp64", &self.fp64),
            ("int", &self.int),
            ("sfu", &self.sfu),
            ("lsu", &self.lsu),
            ("branch", &self.branch),
            ("barrier", &self.barrier),
        ]
    }
}

impl Device {
    /// The DRAM bandwidth the emulator's DRAM pipe gives the whole device (a 32-byte
    /// sector per `dram.gap` cycles on every SM), and never above the description's
    /// figure: where gpucc measured the gap (a streaming read, 4480 GB/s on the H200),
    /// that is below the vendor's peak (4.8 TB/s), and no kernel can stream faster.
    pub fn dram_bandwidth_gb_s(&self) -> f64 {
        let t = &self.throughput;
        let pipe =
            32.0 * self.limits.sms as f64 * t.sm_clock_mhz * 1e6 / self.resources.dram.gap / 1e9;
        t.memory_bandwidth_gb_s.min(pipe)
    }

    /// (name, latency, gap) of every pipe, in the order dram, l2, shared, fp32, fp64,
    /// int, sfu, lsu, branch, barrier.
    pub fn pipes(&self) -> Vec<(&'static str, f64, f64)> {
        self.resources
            .named()
            .iter()
            .map(|(name, p)| (*name, p.latency, p.gap))
            .collect()
    }

    /// Every embedded description, sorted by file name.
    pub fn all() -> Vec<Device> {
        embedded::EMBEDDED
            .iter()
            .map(|(stem, text)| {
                let mut d: Device = toml::from_str(text).unwrap_or_else(|e| {
                    panic!("benchmarks/devices/{stem}.toml is not a valid device description (checked by the testsuite): {e}")
                });
                d.id = stem.to_string();
                d
            })
            .collect()
    }

    /// The device `--device NAME` names (the file stem or an alias, any case).
    pub fn named(name: &str) -> Result<Device, String> {
        let wanted = name.to_ascii_lowercase();
        let all = Device::all();
        let known: Vec<String> = all.iter().map(|d| d.id.clone()).collect();
        all.into_iter()
            .find(|d| d.id == wanted || d.aliases.iter().any(|a| a.to_ascii_lowercase() == wanted))
            .ok_or_else(|| {
                format!(
                    "there is no device named `{name}`; the devices are: {}",
                    known.join(", ")
                )
            })
    }

    /// gpucc's default target, the H100.
    pub fn default_device() -> Device {
        Device::named("h100").expect("benchmarks/devices/h100.toml is embedded")
    }

    /// Blocks of `threads` threads, each using `registers` registers per thread and
    /// `shared_bytes` of shared memory, that fit on one SM at a time (0 when one does not).
    pub fn blocks_per_sm(&self, threads: i64, registers: i64, shared_bytes: i64) -> i64 {
        let l = &self.limits;
        if threads <= 0 || threads > l.max_threads_per_block {
            return 0;
        }
        let warps = (threads + l.warp_size - 1) / l.warp_size;
        let by_threads = l.max_threads_per_sm / (warps * l.warp_size);
        let unit = l.register_allocation_unit.max(1);
        let per_warp = (registers.max(1) * l.warp_size + unit - 1) / unit * unit;
        let by_registers = if registers > l.max_registers_per_thread {
            0
        } else {
            l.registers_per_sm / (per_warp * warps)
        };
        let by_shared = if shared_bytes == 0 {
            l.max_blocks_per_sm
        } else {
            let smem_unit = l.shared_memory_allocation_unit.max(1);
            let per_block = (shared_bytes + l.shared_memory_per_block_reserved + smem_unit - 1)
                / smem_unit
                * smem_unit;
            if shared_bytes > l.max_shared_memory_per_block {
                0
            } else {
                l.shared_memory_per_sm / per_block
            }
        };
        by_threads
            .min(by_registers)
            .min(by_shared)
            .min(l.max_blocks_per_sm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_description_loads_and_is_sane() {
        let all = Device::all();
        assert!(!all.is_empty());
        for d in &all {
            let l = &d.limits;
            assert!(l.sms > 0 && l.warp_size == 32, "{}", d.id);
            assert!(l.max_threads_per_block <= l.max_threads_per_sm, "{}", d.id);
            assert!(
                l.max_shared_memory_per_block <= l.shared_memory_per_sm,
                "{}",
                d.id
            );
            assert!(d.arch.starts_with("sm_"), "{}", d.id);

            let pipes = d.pipes();
            let names: Vec<&str> = pipes.iter().map(|p| p.0).collect();
            assert_eq!(
                names,
                [
                    "dram", "l2", "shared", "fp32", "fp64", "int", "sfu", "lsu", "branch",
                    "barrier"
                ]
            );
            for (name, pipe) in d.resources.named() {
                assert!(
                    pipe.gap > 0.0 && pipe.latency >= pipe.gap,
                    "{}: {name} needs latency >= gap > 0, has {} and {}",
                    d.id,
                    pipe.latency,
                    pipe.gap
                );
                assert!(
                    !pipe.source.trim().is_empty(),
                    "{}: {name} cites nothing",
                    d.id
                );
            }
            let r = &d.resources;
            assert!(
                r.dram.latency > r.l2.latency && r.l2.latency > r.shared.latency,
                "{}: DRAM, L2 and shared memory latencies out of order",
                d.id
            );

            // The derived gaps agree with [throughput]: a 32-byte sector at the DRAM
            // bandwidth one SM gets, and a warp instruction over the lanes of its unit;
            // gaps gpucc measured are within 10% of that.
            let t = &d.throughput;
            let measured = d.resources.dram.source.contains("MEASURED by gpucc");
            let tolerance = if measured { 0.1 } else { 0.001 };
            let close = |a: f64, b: f64| (a - b).abs() <= tolerance * b.abs().max(1.0);
            let bytes_per_sm_cycle =
                t.memory_bandwidth_gb_s * 1e9 / l.sms as f64 / (t.sm_clock_mhz * 1e6);
            assert!(
                close(r.dram.gap, 32.0 / bytes_per_sm_cycle),
                "{}: dram gap",
                d.id
            );
            let warp = l.warp_size as f64;
            assert!(
                close(r.fp32.gap, warp / t.fp32_lanes_per_sm),
                "{}: fp32",
                d.id
            );
            assert!(
                close(r.fp64.gap, warp / t.fp64_lanes_per_sm),
                "{}: fp64",
                d.id
            );
            assert!(close(r.sfu.gap, warp / t.sfu_lanes_per_sm), "{}: sfu", d.id);
            assert!(close(r.lsu.gap, warp / t.lsu_lanes_per_sm), "{}: lsu", d.id);
            assert!(
                close(r.shared.gap, warp / t.shared_memory_banks as f64),
                "{}: shared",
                d.id
            );
        }
        assert_eq!(Device::default_device().arch, "sm_90");
    }

    #[test]
    fn unknown_devices_are_named_in_the_error() {
        let e = Device::named("gtx280").unwrap_err();
        assert!(e.contains("h100"), "{e}");
        assert_eq!(Device::named("H100").unwrap().id, "h100");
    }

    #[test]
    fn occupancy_follows_the_tightest_limit() {
        let d = Device::default_device();
        // 256 threads, few registers, no shared memory: the thread limit, 2048 / 256.
        assert_eq!(d.blocks_per_sm(256, 32, 0), 8);
        // 255 registers per thread: 65536 / (255 rounded to 256 x 256) = 1.
        assert_eq!(d.blocks_per_sm(256, 255, 0), 1);
        assert_eq!(d.blocks_per_sm(2048, 32, 0), 0);
    }
}
