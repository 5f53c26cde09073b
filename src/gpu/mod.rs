//! GPU stage: finds the CUDA driver and the device behind it (DESIGN §3: cudarc with
//! dynamic loading, probed first because cudarc panics where libcuda is absent).
//!
//! The check and the timings themselves run the emitted `.cu` as nvcc builds it (see
//! `verify::check` with `On::Gpu`): the host code gpucc writes is a CUDA program, and
//! running it as written is the faithful test of it.

/// The GPU a check runs on.
#[derive(Clone, Debug)]
pub struct Gpu {
    /// As the driver names it: `NVIDIA H100 80GB HBM3`.
    pub name: String,
    /// `sm_90`: what nvcc compiles for.
    pub arch: String,
    /// The driver's CUDA version, `13.0`.
    pub driver_cuda: String,
}

/// The first GPU, or why there is none (a normal condition, not an error of gpucc's).
pub fn probe() -> Result<Gpu, String> {
    // SAFETY: only loads libcuda (dlopen) and reports whether it could.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err("no CUDA driver (libcuda.so) was found on this machine".to_string());
    }
    // A driver that loads but misses a symbol makes cudarc panic: keep that a "no GPU".
    let found = std::panic::catch_unwind(|| -> Result<Gpu, String> {
        let count = cudarc::driver::CudaContext::device_count()
            .map_err(|e| format!("the CUDA driver found no usable GPU ({e})"))?;
        if count == 0 {
            return Err("the CUDA driver reports no GPU".to_string());
        }
        let ctx = cudarc::driver::CudaContext::new(0)
            .map_err(|e| format!("the CUDA driver could not open GPU 0 ({e})"))?;
        let name = ctx.name().map_err(|e| e.to_string())?;
        let (major, minor) = ctx.compute_capability().map_err(|e| e.to_string())?;
        let mut version = 0i32;
        // SAFETY: writes one int.
        unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut version) };
        Ok(Gpu {
            name,
            arch: format!("sm_{major}{minor}"),
            driver_cuda: format!("{}.{}", version / 1000, version % 1000 / 10),
        })
    });
    found.unwrap_or_else(|_| Err("the CUDA driver could not be used".to_string()))
}
