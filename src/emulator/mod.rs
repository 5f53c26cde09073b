//! Emulator stage: predicts how long a program's kernels take on a device (DESIGN §8).
//!
//! Entry point: [`estimate`]. Today the prediction is the analytical MWP-CWP model
//! ([`mwp_cwp`], seed 003's choice for a cheap first ranking) over per-thread counts taken
//! from the generated code ([`workload`]); the strategy generator's variants are ranked
//! with it.

pub mod mwp_cwp;
pub mod saake;
pub mod workload;

use crate::codegen::ir::Generated;
use crate::device::Device;
use crate::transform::Transformed;
pub use mwp_cwp::KernelEstimate;

/// The predicted time of a whole program (its kernels, all launches).
#[derive(Clone, Debug)]
pub struct Estimate {
    pub time_us: f64,
    pub kernels: Vec<KernelEstimate>,
}

impl Estimate {
    /// The kernel that takes the most time.
    pub fn slowest(&self) -> Option<&KernelEstimate> {
        self.kernels
            .iter()
            .max_by(|a, b| a.time_us.total_cmp(&b.time_us))
    }
}

/// Predicts the time of `t` as generated in `g` on `device`, with symbolic sizes at
/// `sizes`; `Err` names a kernel whose blocks do not fit on an SM.
pub fn estimate(
    t: &Transformed,
    g: &Generated,
    device: &Device,
    sizes: &[(String, i64)],
) -> Result<Estimate, String> {
    let mut kernels = Vec::new();
    for w in workload::workload(t, g, sizes) {
        match mwp_cwp::estimate(&w, device) {
            Some(e) => kernels.push(e),
            None => {
                return Err(format!(
                    "a block of kernel `{}` ({} threads, {} bytes of shared memory, about {} registers per thread) does not fit on an SM of the {}",
                    w.name, w.threads_per_block, w.shared_bytes, w.registers, device.name
                ))
            }
        }
    }
    Ok(Estimate {
        time_us: kernels.iter().map(|k| k.time_us).sum(),
        kernels,
    })
}
