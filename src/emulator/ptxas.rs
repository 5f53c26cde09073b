//! Registers per thread from ptxas, when NVIDIA's compiler is installed: the `.cu` is
//! compiled for the device's architecture (`nvcc -cubin -Xptxas -v`, no GPU needed) and
//! ptxas's report read back. Without nvcc the emulator estimates registers, and says so.

use std::path::{Path, PathBuf};
use std::process::Command;

/// nvcc: `GPUCC_NVCC`, else the project's `.nvidia/` (scripts/install-cuda-toolchain),
/// else `nvcc` on the PATH.
pub fn nvcc() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("GPUCC_NVCC") {
        return Some(PathBuf::from(p));
    }
    let local = Path::new(env!("CARGO_MANIFEST_DIR")).join(".nvidia/nvidia/cu13/bin/nvcc");
    if local.is_file() {
        return Some(local);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("nvcc"))
        .find(|p| p.is_file())
}

/// What ptxas reports for one kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelRegisters {
    pub name: String,
    pub registers: i64,
    /// Bytes spilled to local memory (stores).
    pub spill_bytes: i64,
}

/// What NVIDIA's toolchain says about the kernels of a `.cu` file.
#[derive(Clone, Debug)]
pub struct Native {
    /// Each kernel's registers, as ptxas counted them.
    pub registers: Vec<KernelRegisters>,
    /// Each kernel's SASS with its `.cu` lines, or why there is none.
    pub sass: Result<Vec<super::sass::Kernel>, String>,
    /// Per kernel of the program (in [`crate::codegen::ir::Generated::kernels`]): the
    /// `.cu` line of each loop and statement of its IR, by node
    /// ([`crate::cuda::node_lines`], which the caller, holding the `.cu`, fills in).
    pub lines: Vec<Vec<(usize, u32)>>,
}

impl Default for Native {
    fn default() -> Native {
        Native {
            registers: Vec::new(),
            sass: Err("NVIDIA's toolchain was not used".to_string()),
            lines: Vec::new(),
        }
    }
}

/// Compiles `cu` (a whole `.cu` file) for `arch` with `nvcc` (`-lineinfo`, which leaves
/// the code as it is) and returns each kernel's registers and, when `sass` asks, its SASS
/// (`nvdisasm`, next to nvcc); `Err` says why not (nvcc's own message when it refuses the
/// file).
pub fn compile(nvcc: &Path, cu: &str, arch: &str, sass: bool) -> Result<Native, String> {
    // One directory per call: several compilations may run at once in one process.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("gpucc-ptxas-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let source = dir.join("kernels.cu");
    let cubin = dir.join("kernels.cubin");
    let result = std::fs::write(&source, cu)
        .map_err(|e| format!("cannot write {}: {e}", source.display()))
        .and_then(|()| {
            Command::new(nvcc)
                .arg(format!("-arch={arch}"))
                .args(["-cubin", "-lineinfo", "-Xptxas", "-v", "-o"])
                .arg(&cubin)
                .arg(&source)
                .output()
                .map_err(|e| format!("cannot run {}: {e}", nvcc.display()))
        })
        .and_then(|out| {
            let report = String::from_utf8_lossy(&out.stderr).to_string();
            if !out.status.success() {
                return Err(refusal(&report, arch));
            }
            Ok(Native {
                registers: parse(&report),
                sass: if sass {
                    disassemble(nvcc, &cubin)
                } else {
                    Err("not disassembled".to_string())
                },
                lines: Vec::new(),
            })
        });
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// Why nvcc refused to compile for `arch`, from its standard error: its first error (or
/// fatal) line, else its last line; an architecture this nvcc no longer supports (CUDA 13
/// dropped sm_70 and older: the V100) is said in words.
fn refusal(report: &str, arch: &str) -> String {
    if report.contains("Unsupported gpu architecture") {
        return format!(
            "this nvcc cannot compile for {arch} (CUDA 13 dropped sm_70 and older architectures)"
        );
    }
    let lines = || report.lines().map(str::trim).filter(|l| !l.is_empty());
    let why = lines()
        .find(|l| l.contains("error") || l.contains("fatal"))
        .or_else(|| lines().next_back())
        .unwrap_or("no message");
    format!("nvcc refused the generated code: {why}")
}

/// Each kernel's SASS in `cubin`, by `nvdisasm -c -gi` (with `.cu` lines).
fn disassemble(nvcc: &Path, cubin: &Path) -> Result<Vec<super::sass::Kernel>, String> {
    let nvdisasm = nvcc.with_file_name("nvdisasm");
    let out = Command::new(&nvdisasm)
        .args(["-c", "-gi"])
        .arg(cubin)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", nvdisasm.display()))?;
    if !out.status.success() {
        return Err(format!(
            "nvdisasm failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(super::sass::parse(&String::from_utf8_lossy(&out.stdout)))
}

/// Reads ptxas's `-v` report: an `entry function` line names a kernel (mangled), the
/// `spill stores` and `Used N registers` lines that follow describe it.
fn parse(report: &str) -> Vec<KernelRegisters> {
    let mut kernels: Vec<KernelRegisters> = Vec::new();
    for line in report.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let mangled = rest.split('\'').next().unwrap_or("");
            kernels.push(KernelRegisters {
                name: demangle(mangled),
                registers: 0,
                spill_bytes: 0,
            });
        } else if let Some(k) = kernels.last_mut() {
            if let Some(n) = number_before(line, " registers") {
                k.registers = n;
            }
            if let Some(n) = number_before(line, " bytes spill stores") {
                k.spill_bytes = n;
            }
        }
    }
    kernels
}

/// The function name in an Itanium-mangled `_Z<len><name>...`, or the text itself.
pub(super) fn demangle(mangled: &str) -> String {
    let Some(rest) = mangled.strip_prefix("_Z") else {
        return mangled.to_string();
    };
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    match digits.parse::<usize>() {
        Ok(n) if rest.len() >= digits.len() + n => rest[digits.len()..digits.len() + n].to_string(),
        _ => mangled.to_string(),
    }
}

/// The integer just before `what` in `line`.
fn number_before(line: &str, what: &str) -> Option<i64> {
    let head = &line[..line.find(what)?];
    head.rsplit(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_registers_and_spills_per_kernel() {
        let report = "\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z12sgemm_kernelPA1024_KfS1_PA1024_f' for 'sm_90'
ptxas info    : Function properties for _Z12sgemm_kernelPA1024_KfS1_PA1024_f
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 44 registers, used 1 barriers, 5440 bytes smem
ptxas info    : Compiling entry function '_Z4copyPf' for 'sm_90'
    8 bytes stack frame, 16 bytes spill stores, 16 bytes spill loads
ptxas info    : Used 255 registers
";
        assert_eq!(
            parse(report),
            vec![
                KernelRegisters {
                    name: "sgemm_kernel".into(),
                    registers: 44,
                    spill_bytes: 0
                },
                KernelRegisters {
                    name: "copy".into(),
                    registers: 255,
                    spill_bytes: 16
                },
            ]
        );
    }

    #[test]
    fn a_missing_nvcc_is_an_error_not_a_panic() {
        let e = compile(Path::new("/no/such/nvcc"), "", "sm_90", true).unwrap_err();
        assert!(e.starts_with("cannot run /no/such/nvcc"), "{e}");
    }

    #[test]
    fn a_refusal_always_says_why() {
        assert_eq!(
            refusal(
                "nvcc fatal   : Unsupported gpu architecture 'sm_70'\n",
                "sm_70"
            ),
            "this nvcc cannot compile for sm_70 (CUDA 13 dropped sm_70 and older architectures)"
        );
        assert_eq!(
            refusal(
                "k.cu(3): error: identifier \"s\" is undefined\n\n1 error\n",
                "sm_90"
            ),
            "nvcc refused the generated code: k.cu(3): error: identifier \"s\" is undefined"
        );
        assert_eq!(
            refusal("ptxas: killed\n\n", "sm_90"),
            "nvcc refused the generated code: ptxas: killed"
        );
        assert_eq!(
            refusal("", "sm_90"),
            "nvcc refused the generated code: no message"
        );
    }

    #[test]
    fn names_that_are_not_mangled_stay_as_they_are() {
        assert_eq!(demangle("kernel"), "kernel");
        assert_eq!(demangle("_Z99x"), "_Z99x");
    }
}
