//! Verify stage: runs a generated `.cu` on the CPU and the original C on the same inputs,
//! and compares what they compute (DESIGN §7).
//!
//! Entry point: [`check`] ([`check_on_cpu`] for the usual case). On the CPU the `.cu` is compiled by the system C++ compiler against
//! gpucc's CPU runtime ([`CPU_RUNTIME`]: blocks in turn, a block's threads as fibers that
//! meet at `__syncthreads()`), after [`rewrite_launches`] and [`instrument`] (which makes
//! the runtime log the kernels' memory accesses, to report races); the original is
//! compiled by the system C compiler.
//! For a compiled function, a generated driver fills every array with the same
//! pseudo-random values, calls both versions and compares every array the function
//! writes; for a `#pragma scop` region in a whole program, both programs run and their
//! outputs are compared.
//!
//! On a GPU ([`On::Gpu`]), nvcc compiles the `.cu` with only its launches rewritten, to
//! [`GPU_RUNTIME`]'s wrapper, which can also time every launch with CUDA events.

use crate::frontend::macros::apply_defines;
use crate::frontend::UnitKind;
use crate::poly::affine::Var;
use crate::poly::{ArrayKind, Program};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The CPU stand-in for the CUDA runtime (written out as `cuda_runtime.h`).
pub const CPU_RUNTIME: &str = include_str!("cuda_runtime.h");

/// The launch wrapper for checks and timings on a GPU (written out as
/// `gpucc_gpu_runtime.h` and included before the `.cu`, which nvcc compiles).
pub const GPU_RUNTIME: &str = include_str!("gpu_runtime.h");

/// The value given to integer parameters (sizes) in a check: not a multiple of the usual
/// tile sizes, so remainders are exercised.
pub const DEFAULT_SIZE: i64 = 67;

/// What to check with.
pub struct CheckOptions<'a> {
    /// The original C file.
    pub c_file: &'a Path,
    /// `-D NAME=VALUE`, applied to both versions as gpucc applied them.
    pub defines: &'a [(String, String)],
    pub include_dirs: &'a [PathBuf],
    /// Values of integer parameters (others get [`DEFAULT_SIZE`]).
    pub sizes: &'a [(String, i64)],
    /// Add each square matrix's order to its diagonal, for solvers.
    pub diagonally_dominant: bool,
}

/// How one written array compares.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub array: String,
    pub elements: usize,
    /// The largest difference relative to the magnitude of the reference values.
    pub max_relative_error: f64,
    /// The first element that differs beyond the tolerance, as `C[17][3]`.
    pub first_mismatch: Option<String>,
}

/// The outcome of a check.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// A compiled function: every array it writes, compared.
    Arrays(Vec<Comparison>),
    /// A whole program: whether both printed the same (and what the original printed).
    Output {
        same: bool,
        reference: String,
        generated: String,
    },
    /// The CPU runtime saw two threads (or blocks) touch one address without ordering,
    /// one of them writing: the report names the kernel, array, element and threads.
    Race(String),
}

impl Outcome {
    pub fn passed(&self) -> bool {
        match self {
            Outcome::Arrays(c) => c.iter().all(|x| x.first_mismatch.is_none()),
            Outcome::Output { same, .. } => *same,
            Outcome::Race(_) => false,
        }
    }
}

/// The outcome for a human: one line per compared array, then the verdict.
pub fn report(outcome: &Outcome) -> String {
    let mut r = String::new();
    match outcome {
        Outcome::Arrays(comparisons) => {
            let width = comparisons.iter().map(|c| c.array.len()).max().unwrap_or(0);
            for c in comparisons {
                let verdict = match &c.first_mismatch {
                    None => "same".to_string(),
                    Some(at) => format!("DIFFERENT, first at {at}"),
                };
                let _ = writeln!(
                    r,
                    "  {:width$}  {} elements  max relative error {:.2e}  {verdict}",
                    c.array, c.elements, c.max_relative_error
                );
            }
            if outcome.passed() {
                let _ = writeln!(r, "verified: every array the code writes is the same");
            } else {
                let _ = writeln!(r, "NOT verified: the CUDA computes something else");
            }
        }
        Outcome::Output {
            same,
            reference,
            generated,
        } => {
            if *same {
                let lines = reference.lines().count();
                let _ = writeln!(
                    r,
                    "verified: both programs print the same ({lines} {})",
                    if lines == 1 { "line" } else { "lines" }
                );
            } else {
                let (k, (a, b)) = reference
                    .lines()
                    .chain(std::iter::repeat(""))
                    .zip(generated.lines().chain(std::iter::repeat("")))
                    .enumerate()
                    .find(|(_, (a, b))| a != b)
                    .unwrap_or((0, ("", "")));
                let _ = writeln!(
                    r,
                    "NOT verified: the programs print different output; first at line {}:",
                    k + 1
                );
                let _ = writeln!(r, "  C:    {a}");
                let _ = writeln!(r, "  CUDA: {b}");
            }
        }
        Outcome::Race(report) => {
            let _ = writeln!(r, "NOT verified: {report}");
        }
    }
    r
}

/// A check that could not run (a compiler failed, a program crashed).
#[derive(Clone, Debug, PartialEq)]
pub struct CheckError(pub String);

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Relative tolerance by element type: a reordered floating-point reduction is not an
/// error, a wrong element is. An element's error is relative to the larger of its own
/// magnitude and 1% of the array's largest ([`RELATIVE_FLOOR`]): a sum whose partial sums
/// are larger than its result loses digits to cancellation, more so on a GPU, where nvcc
/// contracts `a * b + c` into fused multiply-adds (seen: SGEMM at N = 512 on an H100).
const RELATIVE_FLOOR: f64 = 1e-2;

fn tolerance(ty: crate::frontend::ast::ScalarType) -> f64 {
    use crate::frontend::ast::ScalarType::*;
    match ty {
        Float => 1e-4,
        Double => 1e-9,
        _ => 0.0,
    }
}

/// `kernel<<<grid, block>>>(args);` →
/// `gpucc_launch<BARRIERS>("kernel", kernel, grid, block, args);`, where `BARRIERS` says
/// whether the kernel's definition in `cu` calls `__syncthreads()`.
pub fn rewrite_launches(cu: &str) -> String {
    let mut out = String::with_capacity(cu.len());
    let mut rest = cu;
    while let Some(at) = rest.find("<<<") {
        let before = &rest[..at];
        let name_start = before
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map(|k| k + 1)
            .unwrap_or(0);
        let Some(close) = rest[at..].find(">>>(") else {
            break;
        };
        let config = &rest[at + 3..at + close];
        let kernel = &before[name_start..];
        out.push_str(&before[..name_start]);
        out.push_str(&format!(
            "gpucc_launch<{}>(\"{kernel}\", {kernel}, {config}, ",
            kernel_has_barriers(cu, kernel)
        ));
        rest = &rest[at + close + 4..];
    }
    out.push_str(rest);
    out.replace(", );", ");")
}

/// Rewrites the kernels of `cu` so that the CPU runtime logs their memory accesses (for
/// race detection): array parameters become `gpucc_array<T>`, `__shared__` arrays
/// `gpucc_shared<T>`; the kernel bodies are unchanged.
pub fn instrument(cu: &str) -> String {
    let mut out = String::with_capacity(cu.len() + 1024);
    let mut rest = cu;
    while let Some(at) = rest.find("__global__ void ") {
        let Some(open) = rest[at..].find('(').map(|k| at + k) else {
            break;
        };
        let Some(close) = matching(rest, open, '(', ')') else {
            break;
        };
        let Some(brace) = rest[close..].find('{').map(|k| close + k) else {
            break;
        };
        let Some(end) = matching(rest, brace, '{', '}') else {
            break;
        };
        out.push_str(&rest[..open + 1]);
        let mut names = Vec::new();
        let params: Vec<String> = split_params(&rest[open + 1..close])
            .into_iter()
            .map(|p| match array_param(&p) {
                Some((ty, name)) => {
                    let text = format!("gpucc_array<{ty}> {name}");
                    names.push(name);
                    text
                }
                None => p,
            })
            .collect();
        out.push_str(&params.join(", "));
        out.push_str(&rest[close..brace + 1]);
        for n in &names {
            out.push_str(&format!("\n  {n}.gpucc_name = \"{n}\";"));
        }
        out.push_str(&shared_declarations(&rest[brace + 1..end + 1]));
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

/// The index of the bracket that closes the one at `open`.
fn matching(text: &str, open: usize, left: char, right: char) -> Option<usize> {
    let mut depth = 0usize;
    for (k, c) in text[open..].char_indices() {
        if c == left {
            depth += 1;
        } else if c == right {
            depth -= 1;
            if depth == 0 {
                return Some(open + k);
            }
        }
    }
    None
}

/// A parameter list split at its top-level commas.
fn split_params(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (k, c) in text.char_indices() {
        match c {
            '(' | '[' | '<' => depth += 1,
            ')' | ']' | '>' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..k].trim().to_string());
                start = k + 1;
            }
            _ => {}
        }
    }
    if !text[start..].trim().is_empty() {
        parts.push(text[start..].trim().to_string());
    }
    parts
}

/// `const float (*__restrict__ A)[N]` → (`const float[N]`, `A`); `float *y` → (`float`, `y`).
fn array_param(p: &str) -> Option<(String, String)> {
    let p = p.replace("__restrict__", " ");
    if let Some(star) = p.find("(*") {
        let close = star + p[star..].find(')')?;
        let name = p[star + 2..close].trim().to_string();
        let ty = p[..star].trim();
        let dims = p[close + 1..].trim();
        return Some((format!("{ty}{dims}"), name));
    }
    let star = p.rfind('*')?;
    let name = p[star + 1..].trim().to_string();
    let ok = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    ok.then(|| (p[..star].trim().to_string(), name))
}

/// `__shared__ float A_shared[64][17];` → `__shared__ gpucc_shared<float[64][17]> A_shared("A_shared");`
fn shared_declarations(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(at) = rest.find("__shared__ ") {
        let decl_start = at + "__shared__ ".len();
        let Some(semi) = rest[decl_start..].find(';').map(|k| decl_start + k) else {
            break;
        };
        let decl = &rest[decl_start..semi];
        out.push_str(&rest[..decl_start]);
        match decl.find('[') {
            Some(bracket) => {
                let head = decl[..bracket].trim_end();
                let name_start = head
                    .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .map(|k| k + 1)
                    .unwrap_or(0);
                let (ty, name) = (head[..name_start].trim(), &head[name_start..]);
                out.push_str(&format!(
                    "gpucc_shared<{ty}{}> {name}(\"{name}\")",
                    &decl[bracket..]
                ));
            }
            None => out.push_str(decl),
        }
        rest = &rest[semi..];
    }
    out.push_str(rest);
    out
}

/// Whether the body of `__global__ void kernel(...) { ... }` in `cu` holds
/// `__syncthreads` or a warp shuffle (threads that meet need fibers).
fn kernel_has_barriers(cu: &str, kernel: &str) -> bool {
    let Some(at) = cu.find(&format!("__global__ void {kernel}(")) else {
        return true;
    };
    let Some(open) = cu[at..].find('{') else {
        return true;
    };
    let body = &cu[at + open..];
    let mut depth = 0usize;
    for (k, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return body[..k].contains("__syncthreads") || body[..k].contains("__shfl");
                }
            }
            _ => {}
        }
    }
    true
}

/// A scratch directory removed on drop (kept when `GPUCC_KEEP_CHECK` is set).
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch, CheckError> {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "gpucc-check-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir)
            .map_err(|e| CheckError(format!("cannot create {}: {e}", dir.display())))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::env::var_os("GPUCC_KEEP_CHECK").is_none() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn run(cmd: &mut Command, what: &str) -> Result<String, CheckError> {
    let out = cmd
        .output()
        .map_err(|e| CheckError(format!("cannot run {what}: {e}")))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = stderr.lines().take(20).collect();
        return Err(CheckError(format!(
            "{what} failed ({}):\n{}",
            out.status,
            tail.join("\n")
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The exit code of the CPU runtime when it finds a race.
const RACE_EXIT: i32 = 42;

/// Runs generated code: its output, or `Err(report)` when the runtime found a race.
fn run_generated(cmd: &mut Command, what: &str) -> Result<Result<String, String>, CheckError> {
    let out = cmd
        .output()
        .map_err(|e| CheckError(format!("cannot run {what}: {e}")))?;
    if out.status.code() == Some(RACE_EXIT) {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let report = stderr
            .lines()
            .find_map(|l| l.strip_prefix("gpucc CPU runtime: "))
            .unwrap_or("a data race")
            .to_string();
        return Ok(Err(report));
    }
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = stderr.lines().take(20).collect();
        return Err(CheckError(format!(
            "{what} failed ({}):\n{}",
            out.status,
            tail.join("\n")
        )));
    }
    Ok(Ok(String::from_utf8_lossy(&out.stdout).into_owned()))
}

/// The directory that holds `file`: `.` for a bare file name (whose `parent()` is the
/// empty path, which `-I` would take as a missing argument).
fn directory_of(file: &Path) -> PathBuf {
    match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn compiler(var: &str, default: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| default.to_string())
}

/// Where the generated code runs.
pub enum On<'a> {
    /// Against gpucc's CPU runtime, with race detection.
    Cpu,
    /// Compiled by nvcc for `arch` and run on the GPU; with `time_runs` > 0 the kernels
    /// are then timed (a warm-up, then that many runs of each launch, the median kept).
    Gpu {
        nvcc: &'a Path,
        arch: &'a str,
        time_runs: u32,
    },
}

/// One kernel's time on the GPU: the medians of its launches, summed.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelTime {
    pub kernel: String,
    pub launches: u64,
    pub total_us: f64,
}

/// What a check found: the comparison, and the kernels' times when they were timed.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    pub outcome: Outcome,
    pub times: Vec<KernelTime>,
}

/// Checks the `.cu` text `cu` made from `program` against the original C file on the CPU.
pub fn check_on_cpu(program: &Program, cu: &str, o: &CheckOptions) -> Result<Outcome, CheckError> {
    check(program, cu, o, &On::Cpu).map(|c| c.outcome)
}

/// Checks the `.cu` text `cu` made from `program` against the original C file, running
/// the generated code where `on` says.
pub fn check(
    program: &Program,
    cu: &str,
    o: &CheckOptions,
    on: &On,
) -> Result<Checked, CheckError> {
    let dir = Scratch::new()?;
    let write = |name: &str, text: &str| -> Result<PathBuf, CheckError> {
        let path = dir.0.join(name);
        std::fs::write(&path, text)
            .map_err(|e| CheckError(format!("cannot write {}: {e}", path.display())))?;
        Ok(path)
    };
    let (header, generated_name) = match on {
        On::Cpu => (write("cuda_runtime.h", CPU_RUNTIME)?, "generated.cpp"),
        On::Gpu { .. } => (write("gpucc_gpu_runtime.h", GPU_RUNTIME)?, "generated.cu"),
    };
    // The CPU runtime logs memory accesses to find races; on a GPU the code runs as written.
    let prepare = |cu: &str| match on {
        On::Cpu => instrument(&rewrite_launches(cu)),
        On::Gpu { .. } => rewrite_launches(cu),
    };
    let original = std::fs::read_to_string(o.c_file)
        .map_err(|e| CheckError(format!("cannot read {}: {e}", o.c_file.display())))?;
    let reference = write("reference.c", &apply_defines(&original, o.defines))?;
    let includes: Vec<String> = std::iter::once(directory_of(o.c_file))
        .chain(o.include_dirs.iter().cloned())
        .map(|d| format!("-I{}", d.display()))
        .collect();
    let cc = compiler("CC", "cc");
    let cxx = compiler("CXX", "c++");
    // The generated code's compiler, with the runtime's header included first (nvcc
    // includes cuda_runtime.h implicitly; the check does the same with gpucc's own).
    let generated_compiler = |extra: &[&str]| -> Command {
        let mut c = match on {
            On::Cpu => {
                let mut c = Command::new(&cxx);
                c.args(["-std=c++20", "-O1", "-w", "-pthread"]);
                c
            }
            On::Gpu { nvcc, arch, .. } => {
                let mut c = Command::new(nvcc);
                c.args(["-std=c++17", "-O3", "-w", "-DGPUCC_GPU"])
                    .arg(format!("-arch={arch}"));
                // The PyPI toolchain keeps the runtime's libraries in lib/, not lib64/.
                if let Some(lib) = nvcc.parent().and_then(Path::parent).map(|d| d.join("lib")) {
                    if lib.join("libcudart_static.a").exists() {
                        c.arg(format!("-L{}", lib.display()));
                    }
                }
                c
            }
        };
        c.arg(format!("-I{}", dir.0.display()))
            .arg("-include")
            .arg(&header)
            .args(&includes)
            .args(extra);
        c
    };
    let what_compiles = match on {
        On::Cpu => "the C++ compiler on the generated code",
        On::Gpu { .. } => "nvcc on the generated code",
    };
    let mut times = Vec::new();
    let outcome = match program.unit.kind {
        UnitKind::Function => {
            let f = &program.unit.function;
            let object = dir.0.join("reference.o");
            run(
                Command::new(&cc)
                    .args(["-O1", "-w", "-c", "-x", "c"])
                    .arg(&reference)
                    .arg("-o")
                    .arg(&object)
                    .arg(format!("-D{f}=gpucc_reference_{f}"))
                    .arg("-Dmain=gpucc_reference_main")
                    .args(&includes),
                "the C compiler on the original",
            )?;
            let driver = driver(program, o)?;
            let generated = write(generated_name, &format!("{}\n{}", prepare(cu), driver.text))?;
            let exe = dir.0.join("check");
            run(
                generated_compiler(&["-Dmain=gpucc_generated_main"])
                    .arg(&generated)
                    .arg(&object)
                    .arg("-o")
                    .arg(&exe)
                    .arg("-lm"),
                what_compiles,
            )?;
            let mut command = Command::new(&exe);
            if let On::Gpu { time_runs, .. } = on {
                if *time_runs > 0 {
                    command.env("GPUCC_TIME_RUNS", time_runs.to_string());
                }
            }
            match run_generated(&mut command, "the check")? {
                Ok(output) => {
                    times = parse_times(&output)?;
                    parse_report(&output, &driver.arrays)?
                }
                Err(race) => Outcome::Race(race),
            }
        }
        UnitKind::Scop(_) => {
            let ref_exe = dir.0.join("reference");
            run(
                Command::new(&cc)
                    .args(["-O1", "-w", "-x", "c"])
                    .arg(&reference)
                    .arg("-o")
                    .arg(&ref_exe)
                    .args(&includes)
                    .arg("-lm"),
                "the C compiler on the original",
            )?;
            let generated = write(generated_name, &prepare(cu))?;
            let gen_exe = dir.0.join("generated");
            run(
                generated_compiler(&[])
                    .arg(&generated)
                    .arg("-o")
                    .arg(&gen_exe)
                    .arg("-lm"),
                what_compiles,
            )?;
            let reference = run(&mut Command::new(&ref_exe), "the original program")?;
            match run_generated(&mut Command::new(&gen_exe), "the generated program")? {
                Ok(generated) => {
                    let same = match on {
                        On::Cpu => reference == generated,
                        On::Gpu { .. } => same_numbers(&reference, &generated),
                    };
                    if let On::Gpu { time_runs, .. } = on {
                        if *time_runs > 0 && same {
                            // Timed in a second run: the repeated launches change its output.
                            let timed = run(
                                Command::new(&gen_exe)
                                    .env("GPUCC_TIME_PROGRAM", time_runs.to_string()),
                                "the timed run of the generated program",
                            )?;
                            times = parse_times(&timed)?;
                        }
                    }
                    Outcome::Output {
                        same,
                        reference,
                        generated,
                    }
                }
                Err(race) => Outcome::Race(race),
            }
        }
    };
    Ok(Checked { outcome, times })
}

/// Whether two programs' outputs are the same but for the last digits of their numbers
/// (relative [`PRINTED_TOLERANCE`]): on a GPU nvcc contracts `a * b + c` into fused
/// multiply-adds, and a printed checksum changes in its last digits (seen: 2.8e-8 for
/// gemver on an H100). Every other word must be equal.
fn same_numbers(reference: &str, generated: &str) -> bool {
    let (a, b): (Vec<&str>, Vec<&str>) = (
        reference.split_whitespace().collect(),
        generated.split_whitespace().collect(),
    );
    a.len() == b.len()
        && reference.lines().count() == generated.lines().count()
        && a.iter().zip(&b).all(|(x, y)| {
            x == y
                || match (x.parse::<f64>(), y.parse::<f64>()) {
                    (Ok(u), Ok(v)) => (u - v).abs() <= PRINTED_TOLERANCE * u.abs().max(v.abs()),
                    _ => false,
                }
        })
}

/// See [`same_numbers`].
const PRINTED_TOLERANCE: f64 = 1e-6;

/// The GPU runtime's `gpucc-time KERNEL LAUNCHES TOTAL_US` lines.
fn parse_times(output: &str) -> Result<Vec<KernelTime>, CheckError> {
    output
        .lines()
        .filter_map(|l| l.strip_prefix("gpucc-time "))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            match (
                f.first(),
                f.get(1).and_then(|x| x.parse().ok()),
                f.get(2).and_then(|x| x.parse().ok()),
            ) {
                (Some(k), Some(launches), Some(total_us)) => Ok(KernelTime {
                    kernel: k.to_string(),
                    launches,
                    total_us,
                }),
                _ => Err(CheckError(format!(
                    "unreadable timing line: gpucc-time {l}"
                ))),
            }
        })
        .collect()
}

/// A compared array as the driver reports it: name and extents (for `C[17][3]`).
struct Reported {
    name: String,
    extents: Vec<i64>,
}

struct Driver {
    text: String,
    arrays: Vec<Reported>,
}

/// The test driver appended to the generated code: same inputs to both versions, every
/// written array compared.
fn driver(program: &Program, o: &CheckOptions) -> Result<Driver, CheckError> {
    let p = program;
    let f = &p.unit.function;
    let size = |n: &str| {
        o.sizes
            .iter()
            .find(|(x, _)| x == n)
            .map(|(_, v)| *v)
            .unwrap_or(DEFAULT_SIZE)
    };
    let value = |v: &Var| match v {
        Var::Param(n) => size(n),
        Var::Index(_) => 0,
    };
    let mut d =
        String::from("#undef main\n#include <cmath>\n#include <cstdio>\n#include <cstdlib>\n\n");
    // The reference takes the same arguments; arrays are passed as pointers.
    let params: Vec<String> = p
        .unit
        .params
        .iter()
        .map(|param| match param.declarator.dims.is_empty() {
            true => format!(
                "{} {}",
                param.spec.ty.map(|t| t.c_name()).unwrap_or("int"),
                param.declarator.name
            ),
            false => format!("void *{}", param.declarator.name),
        })
        .collect();
    let _ = writeln!(
        d,
        "extern \"C\" void gpucc_reference_{f}({});\n",
        params.join(", ")
    );
    d.push_str("static unsigned gpucc_seed = 20261122u;\nstatic double gpucc_random(void)\n{\n  gpucc_seed = gpucc_seed * 1664525u + 1013904223u;\n  return (gpucc_seed >> 8) / 16777216.0;\n}\n\n");
    d.push_str("int main(void)\n{\n");
    let mut reference_args = Vec::new();
    let mut generated_args = Vec::new();
    let mut reported = Vec::new();
    for param in &p.unit.params {
        let name = &param.declarator.name;
        let ty = param.spec.ty.map(|t| t.c_name()).unwrap_or("int");
        if p.params.contains(name)
            || (param.declarator.dims.is_empty()
                && param.spec.ty.is_some_and(|t| t.is_integer())
                && !p.arrays.iter().any(|a| &a.name == name))
        {
            let _ = writeln!(d, "  {ty} {name} = {};", size(name));
            reference_args.push(name.clone());
            generated_args.push(name.clone());
            continue;
        }
        let Some(array) = p
            .arrays
            .iter()
            .find(|a| &a.name == name && a.kind == ArrayKind::Outside)
        else {
            return Err(CheckError(format!(
                "the check does not know the parameter `{name}`"
            )));
        };
        if array.is_scalar() {
            let _ = writeln!(d, "  {ty} {name} = ({ty})(0.5 + gpucc_random());");
            reference_args.push(name.clone());
            generated_args.push(name.clone());
            continue;
        }
        let extents: Vec<i64> = array
            .extents
            .iter()
            .map(|e| {
                e.as_ref().map(|a| a.eval(&value)).ok_or_else(|| {
                    CheckError(format!(
                        "`{name}` has no size; the check cannot allocate it"
                    ))
                })
            })
            .collect::<Result<_, _>>()?;
        let count: i64 = extents.iter().product();
        let _ = writeln!(
            d,
            "  {ty} *{name}_reference = ({ty} *)calloc({count}, sizeof({ty}));"
        );
        let _ = writeln!(
            d,
            "  {ty} *{name}_generated = ({ty} *)calloc({count}, sizeof({ty}));"
        );
        let fill = if array.elem.is_integer() {
            format!("({ty})(gpucc_random() * 10)")
        } else {
            format!("({ty})(2 * gpucc_random() - 1)")
        };
        let _ = writeln!(d, "  for (long e = 0; e < {count}; e++)\n    {name}_reference[e] = {name}_generated[e] = {fill};");
        let square = extents.len() == 2 && extents[0] == extents[1];
        if o.diagonally_dominant && square && !array.elem.is_integer() {
            // Off-diagonal values are below 1 in magnitude: adding n dominates them.
            let n = extents[0];
            let _ = writeln!(d, "  for (long e = 0; e < {n}; e++)\n    {name}_reference[e * {n} + e] = {name}_generated[e * {n} + e] += ({ty}){n};");
        }
        reference_args.push(format!("{name}_reference"));
        // The generated function keeps the declared type where C++ allows it.
        let constant_inner = array.extents.len() > 1
            && array
                .extents
                .iter()
                .skip(1)
                .all(|e| e.as_ref().and_then(|a| a.as_constant()).is_some())
            && array.extents[0]
                .as_ref()
                .is_none_or(|a| a.as_constant().is_some());
        if constant_inner {
            let inner: String = extents[1..].iter().map(|x| format!("[{x}]")).collect();
            generated_args.push(format!("({ty} (*){inner}){name}_generated"));
        } else {
            generated_args.push(format!("{name}_generated"));
        }
        let written = p.statements.iter().any(|s| {
            p.accesses[s.write].array
                == p.arrays
                    .iter()
                    .position(|a| a.name == array.name)
                    .unwrap_or(usize::MAX)
        });
        if written {
            reported.push(Reported {
                name: name.clone(),
                extents,
            });
        }
    }
    let _ = writeln!(d, "  gpucc_reference_{f}({});", reference_args.join(", "));
    let _ = writeln!(d, "  {f}({});", generated_args.join(", "));
    for r in &reported {
        let array = p
            .arrays
            .iter()
            .find(|a| a.name == r.name)
            .expect("reported arrays exist");
        let ty = array.elem.c_name();
        let count: i64 = r.extents.iter().product();
        let tol = tolerance(array.elem);
        let name = &r.name;
        let _ = writeln!(
            d,
            "  {{\n    double scale = 0, worst = 0;\n    long first = -1;"
        );
        let _ = writeln!(d, "    for (long e = 0; e < {count}; e++)\n      scale = fmax(scale, fabs((double){name}_reference[e]));");
        let _ = writeln!(d, "    scale = scale > 0 ? scale * {RELATIVE_FLOOR:e} : 1;");
        let _ = writeln!(d, "    for (long e = 0; e < {count}; e++) {{\n      {ty} a = {name}_reference[e], b = {name}_generated[e];");
        let _ = writeln!(
            d,
            "      double err = fabs((double)a - (double)b) / fmax(fabs((double)a), scale);"
        );
        // NaN in both (sqrtf of a negative sum) is the same result; NaN in one is not.
        let _ = writeln!(
            d,
            "      if (err != err) err = (a != a && b != b) ? 0 : 1e300;"
        );
        let _ = writeln!(d, "      if (err > worst) worst = err;\n      if (err > {tol:e} && first < 0) first = e;\n    }}");
        let _ = writeln!(
            d,
            "    printf(\"array {name} %ld %.3e %ld\\n\", {count}L, worst, first);\n  }}"
        );
    }
    // On a GPU, a second call with every launch timed (after the comparison: the timed
    // runs repeat each launch, so the arrays no longer hold the function's result).
    let _ = writeln!(
        d,
        "#ifdef GPUCC_GPU\n  if (getenv(\"GPUCC_TIME_RUNS\")) {{\n    gpucc_time_runs = atoi(getenv(\"GPUCC_TIME_RUNS\"));\n    {f}({});\n    gpucc_gpu_check(cudaDeviceSynchronize(), \"the timed run\");\n    gpucc_print_times();\n  }}\n#endif",
        generated_args.join(", ")
    );
    d.push_str("  return 0;\n}\n");
    Ok(Driver {
        text: d,
        arrays: reported,
    })
}

fn parse_report(output: &str, arrays: &[Reported]) -> Result<Outcome, CheckError> {
    let mut comparisons = Vec::new();
    for r in arrays {
        let line = output
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(r.name.as_str()))
            .ok_or_else(|| {
                CheckError(format!(
                    "the check printed nothing for `{}`:\n{output}",
                    r.name
                ))
            })?;
        let fields: Vec<&str> = line.split_whitespace().collect();
        let parse = |k: usize| {
            fields
                .get(k)
                .and_then(|x| x.parse::<f64>().ok())
                .ok_or_else(|| CheckError(format!("unreadable check output: {line}")))
        };
        let elements = parse(2)? as usize;
        let worst = parse(3)?;
        let first = parse(4)? as i64;
        comparisons.push(Comparison {
            array: r.name.clone(),
            elements,
            max_relative_error: worst,
            first_mismatch: (first >= 0).then(|| element_name(&r.name, &r.extents, first)),
        });
    }
    Ok(Outcome::Arrays(comparisons))
}

/// A flat row-major index as `C[17][3]`.
pub fn element_name(array: &str, extents: &[i64], flat: i64) -> String {
    let mut rest = flat;
    let mut index = vec![0; extents.len()];
    for (k, e) in extents.iter().enumerate().rev() {
        index[k] = rest % e.max(&1);
        rest /= e.max(&1);
    }
    let subs: String = index.iter().map(|i| format!("[{i}]")).collect();
    format!("{array}{subs}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launches_become_calls() {
        assert_eq!(
            rewrite_launches("  k<<<dim3(2, 8), dim3(16, 16)>>>(d_A, n);\n  x = a << 2;"),
            "  gpucc_launch<true>(\"k\", k, dim3(2, 8), dim3(16, 16), d_A, n);\n  x = a << 2;"
        );
        let cu = "__global__ void k(float *a) {\n  if (a) { a[0] = 1; }\n}\n__global__ void s(float *a) {\n  { __syncthreads(); }\n}\n";
        assert_eq!(
            rewrite_launches(&format!("{cu}k<<<1, 32>>>();")),
            format!("{cu}gpucc_launch<false>(\"k\", k, 1, 32);")
        );
        assert_eq!(
            rewrite_launches(&format!("{cu}s<<<1, 32>>>(a);")),
            format!("{cu}gpucc_launch<true>(\"s\", s, 1, 32, a);")
        );
    }

    #[test]
    fn kernels_are_instrumented() {
        let cu = "__global__ void k(const float (*__restrict__ A)[N + 1], float *__restrict__ y, int n)\n{\n  __shared__ float s[16][17];\n  y[0] = A[0][n];\n}\nvoid host(void) { int z[3]; }\n";
        assert_eq!(
            instrument(cu),
            "__global__ void k(gpucc_array<const float[N + 1]> A, gpucc_array<float> y, int n)\n{\n  A.gpucc_name = \"A\";\n  y.gpucc_name = \"y\";\n  __shared__ gpucc_shared<float[16][17]> s(\"s\");\n  y[0] = A[0][n];\n}\nvoid host(void) { int z[3]; }\n"
        );
    }

    fn program(text: &str) -> Program {
        use crate::diag::{SourceFile, SourceMap};
        let mut sources = SourceMap::default();
        let id = sources.add(SourceFile::new("t.c".to_string(), text.to_string()));
        let parsed =
            crate::frontend::parse(sources.get(id), id, None, &Default::default()).unwrap();
        crate::poly::lower(parsed.units.into_iter().next().unwrap(), sources.get(id)).unwrap()
    }

    #[test]
    fn diagonally_dominant_inputs_only_when_asked_and_square() {
        let p = program("void f(int n, float A[n][n], float B[n][3], int I[n][n]) {\n  for (int i = 0; i < n; i++)\n    A[i][i] = A[i][i] + B[i][0] + I[i][i];\n}\n");
        let options = |diagonally_dominant| CheckOptions {
            c_file: Path::new("t.c"),
            defines: &[],
            include_dirs: &[],
            sizes: &[],
            diagonally_dominant,
        };
        let plain = driver(&p, &options(false)).unwrap().text;
        let dominant = driver(&p, &options(true)).unwrap().text;
        let line = "A_reference[e * 67 + e] = A_generated[e * 67 + e] += (float)67;";
        assert!(!plain.contains("e * 67 + e"), "{plain}");
        assert!(dominant.contains(line), "{dominant}");
        assert!(
            !dominant.contains("B_reference[e *") && !dominant.contains("I_reference[e *"),
            "{dominant}"
        );
    }

    #[test]
    fn printed_numbers_may_differ_in_their_last_digits_on_a_gpu() {
        assert!(same_numbers(
            "checksum 5201320.1646\n",
            "checksum 5201320.0162\n"
        ));
        assert!(!same_numbers(
            "checksum 5201320.1646\n",
            "checksum 5201330.1646\n"
        ));
        assert!(!same_numbers("checksum 1\n", "checksum 1 2\n"));
        assert!(!same_numbers("sum 3\n", "total 3\n"));
        assert!(!same_numbers("a\nb\n", "a b\n"));
    }

    #[test]
    fn element_names_are_row_major() {
        assert_eq!(element_name("C", &[4, 5], 17), "C[3][2]");
        assert_eq!(element_name("x", &[10], 0), "x[0]");
    }
}
