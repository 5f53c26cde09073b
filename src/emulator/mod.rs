//! Emulator stage: predicts how long a program's kernels take on a device (DESIGN §8).
//!
//! Entry point: [`estimate`], the abstract kernel emulation of seed 000 ([`kernel`]): the
//! warps of one of an SM's processing blocks run instruction streams ([`streams`], taken
//! from the kernel IR walked by [`workload`], or from the SASS by [`sass`]) on
//! latency/gap resources ([`saake`]), scaled by waves and launches; with the sensitivity
//! analysis that names each kernel's bottleneck when asked.
//! The strategy generator ranks its variants with it (without the sensitivity analysis).

pub mod kernel;
pub mod lanes;
pub mod ops;
pub mod ptxas;
pub mod runs;
pub mod saake;
pub mod sass;
pub mod streams;
mod threads;
mod walker;
pub mod workload;

use crate::codegen::ir::Generated;
use crate::device::Device;
use crate::transform::Transformed;
pub use kernel::KernelEmulation;

/// How much the emulation says beyond the time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Detail {
    /// The time only (what ranking needs).
    Time,
    /// And the sensitivities with the bottleneck.
    Bottleneck,
    /// And the sensitivities region by region.
    Regions,
}

/// The predicted time of a whole program (its kernels, all launches).
#[derive(Clone, Debug)]
pub struct Estimate {
    pub time_us: f64,
    /// The kernels' emulated times below their floors, summed ([`Self::rank`]).
    pub emulated_us: f64,
    /// Empty for an estimate read back from `gpucc tune`'s database ([`Self::recorded`]).
    pub kernels: Vec<KernelEmulation>,
}

impl Estimate {
    /// The estimate of a program whose kernels' emulations are `kernels`.
    fn of(kernels: Vec<KernelEmulation>) -> Estimate {
        Estimate {
            time_us: kernels.iter().map(|k| k.time_us).sum(),
            emulated_us: kernels.iter().map(|k| k.emulated_us).sum(),
            kernels,
        }
    }

    /// What ranks variants: the predicted time, then, between variants the floor makes
    /// equal (memory-bound ones at the device's bandwidth), the emulated time below it.
    pub fn rank(&self) -> (f64, f64) {
        (self.time_us, self.emulated_us)
    }

    /// An estimate known by its rank alone (recorded earlier), without kernel details.
    pub fn recorded(rank: (f64, f64)) -> Estimate {
        Estimate {
            time_us: rank.0,
            emulated_us: rank.1,
            kernels: Vec::new(),
        }
    }

    /// Whether this estimate ranks before `other` ([`Self::rank`]).
    pub fn faster_than(&self, other: (f64, f64)) -> bool {
        self.rank().partial_cmp(&other) == Some(std::cmp::Ordering::Less)
    }

    /// The kernel that takes the most time.
    pub fn slowest(&self) -> Option<&KernelEmulation> {
        self.slowest_index().map(|k| &self.kernels[k])
    }

    /// The place of [`Self::slowest`] in the list (the last of equals).
    fn slowest_index(&self) -> Option<usize> {
        (0..self.kernels.len()).max_by(|a, b| {
            self.kernels[*a]
                .time_us
                .total_cmp(&self.kernels[*b].time_us)
        })
    }
}

/// Predicts the time of `t` as generated in `g` on `device`, with symbolic sizes at
/// `sizes`, with each kernel's sensitivities as `detail` asks;
/// `native` gives kernels' registers per thread as ptxas counted them (the others are
/// estimated) and their SASS (else streams come from the kernel IR). `Err` names a kernel
/// whose blocks do not fit on an SM.
pub fn estimate(
    t: &Transformed,
    g: &Generated,
    device: &Device,
    sizes: &[(String, i64)],
    detail: Detail,
    native: &ptxas::Native,
) -> Result<Estimate, String> {
    let kernels = runs::keeping(|| kernel::emulate(t, g, device, sizes, &|_| detail, native))?;
    Ok(Estimate::of(kernels))
}

/// [`estimate`] with the sensitivity analysis of the slowest kernel only (the verdict a
/// `.cu`'s header gives): the others' times are those ranking found already, and their
/// analyses took 14 to 29 ms of a compile (PolyBench covariance, correlation, 3mm).
pub fn estimate_slowest(
    t: &Transformed,
    g: &Generated,
    device: &Device,
    sizes: &[(String, i64)],
    native: &ptxas::Native,
) -> Result<Estimate, String> {
    let times = estimate(t, g, device, sizes, Detail::Time, native)?;
    let Some(slowest) = times.slowest_index() else {
        return Ok(times);
    };
    let detail = |k: usize| match k == slowest {
        true => Detail::Bottleneck,
        false => Detail::Time,
    };
    let kernels = runs::keeping(|| kernel::emulate(t, g, device, sizes, &detail, native))?;
    Ok(Estimate::of(kernels))
}
