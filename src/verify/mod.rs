//! Verify stage: runs a generated `.cu` on the CPU and the original C on the same inputs,
//! and compares what they compute (DESIGN §7).
//!
//! Entry point: [`check`] ([`check_on_cpu`] for the usual case). The original is compiled
//! by the system C compiler (`CC`, else `cc`) as the user's file, with `min`/`max` defined
//! where gpucc reads them and the file does not ([`reference`]). On the CPU the `.cu` is
//! compiled by the system C++ compiler (`CXX`, else `c++`) against gpucc's CPU runtime
//! ([`CPU_RUNTIME`]: blocks in turn, a block's threads as fibers that meet at
//! `__syncthreads()`; precompiled once per compiler, [`pch`]), after [`prepare_for_cpu`]
//! (launches rewritten, kernels instrumented so that the runtime logs their memory
//! accesses and reports races).
//!
//! For a compiled function, and for a `#pragma scop` region in a file without `main`
//! (through the function around it), generated drivers ([`driver`]) make the same
//! pseudo-random inputs in both programs, call the code, and compare every array it
//! writes; for a region in a whole program, both programs run and their outputs are
//! compared. The two are separate programs, each run under the `check-seconds` limit
//! ([`process`]), so that a crash or a hang is said to be the original's or the generated
//! code's.
//!
//! A check that cannot conclude is a [`CheckError`], whose [`CheckFailure`] says whose
//! fault it is: the original (it does not compile, crashes, or cannot be called), the
//! environment (a missing tool, an unwritable directory), the generated code (it does not
//! compile or crashes), or the time limit.
//!
//! On a GPU ([`On::Gpu`]), nvcc compiles the `.cu` with only its launches rewritten, to
//! [`GPU_RUNTIME`]'s wrapper, which can also time every launch with CUDA events.

mod driver;
mod links;
mod outcome;
mod pch;
mod process;
mod reference;
pub mod rewrite;
pub mod shared;
pub mod timing;

pub use outcome::{element_name, report, Comparison, KernelTime, Outcome};
pub use rewrite::{instrument, prepare_for_cpu, rewrite_launches};

use crate::frontend::macros::apply_defines;
use crate::frontend::UnitKind;
use crate::poly::Program;
use process::{compiler, compiler_command, not_run, Scratch};
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
    /// Other sources and objects the program links with (`--link`).
    pub links: &'a [PathBuf],
}

/// Why a check could not conclude, by whose fault (for the exit code and the advice).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckFailure {
    /// The original C does not compile or link (the C compiler's first error, at the
    /// user's file, line and column: [`CheckError::at`]). The user's input.
    OriginalDoesNotCompile,
    /// The original program crashed (a signal) or exited with a failure status.
    OriginalFailed,
    /// The check cannot call the code: a `#pragma scop` region in a file without `main`
    /// whose function takes an array the region does not use, or an array the check
    /// cannot allocate. The hint says how to check it (a `main`, `--function`, sizes).
    CannotDrive,
    /// A tool (the C or C++ compiler, nvcc) is missing or cannot run, or the scratch
    /// directory cannot be written.
    Environment,
    /// The generated code does not compile or link, or the CPU runtime cannot take its
    /// text (a launch with a stream, dynamic shared memory, a kernel it cannot read).
    GeneratedDoesNotCompile,
    /// The generated program crashed, exited with a failure, or was stopped by the CPU
    /// runtime (a launch a GPU refuses, a barrier or shuffle some threads never reach).
    GeneratedFailed,
    /// A program of the check (or a compiler) ran past the `check-seconds` limit; the hint
    /// says how to raise it.
    TimeLimit,
    /// The check's own programs printed something it cannot read: a bug in gpucc.
    Internal,
}

/// A place in a file, from a compiler's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceAt {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

/// A check that could not conclude: what failed (and whose fault that is), what to do,
/// and where, when a compiler said where.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckError {
    pub kind: CheckFailure,
    pub message: String,
    pub hint: Option<String>,
    /// For [`CheckFailure::OriginalDoesNotCompile`]: the C compiler's first error.
    pub at: Option<SourceAt>,
}

impl CheckError {
    pub fn new(kind: CheckFailure, message: impl Into<String>) -> CheckError {
        CheckError {
            kind,
            message: message.into(),
            hint: None,
            at: None,
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> CheckError {
        self.hint = Some(hint.into());
        self
    }
}

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CheckError {}

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

/// What a check found: the comparison, and the kernels' times when they were timed.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    pub outcome: Outcome,
    pub times: Vec<KernelTime>,
}

/// Whether the original C compiles (`cc -fsyntax-only`, with the `-D` and `-I` of the
/// check): gpucc copies the text around the compiled unit as written, so a file that is
/// not C would give a `.cu` that no compiler accepts. The error is
/// [`CheckFailure::OriginalDoesNotCompile`] with the first error's place, or
/// [`CheckFailure::Environment`] when no C compiler runs.
pub fn original_compiles(o: &CheckOptions) -> Result<(), CheckError> {
    let dir = Scratch::new()?;
    let original = std::fs::read_to_string(o.c_file).map_err(|e| {
        CheckError::new(
            CheckFailure::Environment,
            format!("cannot read {}: {e}", o.c_file.display()),
        )
    })?;
    let defined = apply_defines(&original, o.defines);
    let reference_c = dir.write("reference.c", &reference::text(&defined, o.c_file, None))?;
    let includes: Vec<String> = std::iter::once(process::directory_of(o.c_file))
        .chain(o.include_dirs.iter().cloned())
        .map(|d| format!("-I{}", d.display()))
        .collect();
    let cc = compiler("CC", "cc");
    let min_max = reference::min_max_flags(&cc, &reference_c, &defined, &includes, &dir)?;
    let out = process::run_tool(
        compiler_command(&cc)
            .args(["-fsyntax-only", "-w", "-x", "c"])
            .arg(&reference_c)
            .args(&includes)
            .args(&min_max),
        "the C compiler on the original",
    )?;
    if out.status.success() {
        Ok(())
    } else {
        Err(reference::does_not_compile(&out.stderr, &dir, "compile"))
    }
}

/// Checks the `.cu` text `cu` made from `program` against the original C file on the CPU.
pub fn check_on_cpu(program: &Program, cu: &str, o: &CheckOptions) -> Result<Outcome, CheckError> {
    check(program, cu, o, &On::Cpu).map(|c| c.outcome)
}

/// The exit code of the CPU runtime when it finds a race (or a misaligned vector access).
const RACE_EXIT: i32 = 42;

/// The file the generated code is compiled from in the scratch directory (its lines are
/// the `.cu`'s: a compiler's message names them).
const GENERATED_NAME: &str = "generated.cu";

/// The flags of the CPU check's C++ compiles (the precompiled header is made with them).
const CPU_FLAGS: &[&str] = &["-std=c++20", "-O1", NO_IVOPTS, "-w", "-pthread"];

/// GCC 12.2 at -O1 loses track of a store through a pointer its induction-variable
/// optimisation rewrote, and drops the call of the function or the store as having no
/// effect (C and C++ alike, no undefined behaviour: the random nests found two, see
/// testsuite/verify/check/call_the_compiler_dropped.c). Both programs of the check are
/// compiled without it; other compilers ignore the flag.
const NO_IVOPTS: &str = "-fno-ivopts";

/// The flags for a generated file larger than [`LARGE_GENERATED`] bytes: unoptimised. The
/// check's programs run for milliseconds at its reduced sizes, where optimising a large
/// file (fully unrolled loops, every access through the race detector's proxies) takes
/// seconds: 6.5 s of CPU with -O1 against 0.9 s with -O0 for a 59 KB file the random
/// nests made; 4.3 to 7.4 s against 0.9 s for a 30 KB one (program 2158 of seed
/// 20261130, 10 s in all with its check), 3.4 s against 0.9 s for the 28 KB of
/// `testsuite/strategy/kernels/dgemm_nn.c` and 2.2 s against 0.5 s for the 20 KB of
/// `gemm_nn.c`, whose checks then ran 40 and 70 ms instead of 10 and 40 ms.
const CPU_FLAGS_LARGE: &[&str] = &["-std=c++20", "-O0", "-w", "-pthread"];

/// A generated file of more bytes than this is compiled with [`CPU_FLAGS_LARGE`].
const LARGE_GENERATED: usize = 16 * 1024;

/// Checks the `.cu` text `cu` made from `program` against the original C file, running
/// the generated code where `on` says.
pub fn check(
    program: &Program,
    cu: &str,
    o: &CheckOptions,
    on: &On,
) -> Result<Checked, CheckError> {
    let dir = Scratch::new()?;
    let original = std::fs::read_to_string(o.c_file).map_err(|e| {
        CheckError::new(
            CheckFailure::Environment,
            format!("cannot read {}: {e}", o.c_file.display()),
        )
    })?;
    // A function, or a region of a file without `main`, is called by generated drivers.
    let drivers = match program.unit.kind {
        UnitKind::Scop(_) if reference::defines_main(&original) => None,
        _ => Some(driver::drivers(program, &original, o)?),
    };
    let includes: Vec<String> = std::iter::once(process::directory_of(o.c_file))
        .chain(o.include_dirs.iter().cloned())
        .map(|d| format!("-I{}", d.display()))
        .collect();
    let cc = compiler("CC", "cc");

    // The original, compiled while the generated code is prepared and compiled; not at
    // all when this process ran the same program before (`gpucc tune --device gpu` checks
    // each variant it times at one size: at 2048³ the C is most of a check's time).
    let defined = apply_defines(&original, o.defines);
    let reference_text = reference::text(
        &defined,
        o.c_file,
        drivers.as_ref().map(|d| d.reference.as_str()),
    );
    let reference_key = o
        .links
        .is_empty()
        .then(|| format!("{cc}\n{}\n{reference_text}", includes.join(" ")));
    let ran_before = reference_key.as_ref().and_then(|k| REFERENCE_RUNS.get(k));
    let reference_c = dir.write("reference.c", &reference_text)?;
    let reference_exe = dir.0.join("reference");
    let reference_build = match ran_before {
        Some(_) => None,
        None => {
            let min_max = reference::min_max_flags(&cc, &reference_c, &defined, &includes, &dir)?;
            let reference_links = links::build(o, &includes, links::Language::C, &dir)?;
            let build = process::start(
                compiler_command(&cc)
                    .args(["-O1", NO_IVOPTS, "-w", "-x", "c"])
                    .arg(&reference_c)
                    .args(["-x", "none"])
                    .args(&reference_links)
                    .arg("-o")
                    .arg(&reference_exe)
                    .args(&includes)
                    .args(&min_max)
                    .arg("-lm"),
            )
            .map_err(|e| not_run(e, "the C compiler", &cc, 0))?;
            Some(build)
        }
    };
    let generated_links = links::build(o, &includes, links::Language::Cxx, &dir)?;
    let generated_exe = dir.0.join("generated");
    let generated_build = build_generated(
        cu,
        &drivers,
        &includes,
        &generated_links,
        &generated_exe,
        &dir,
        on,
    );
    let limit = process::compile_seconds();
    if let Some(build) = reference_build {
        let built = build
            .finish(limit)
            .map_err(|e| not_run(e, "the C compiler on the original", &cc, limit))?;
        if !built.status.success() {
            return Err(reference::does_not_compile(&built.stderr, &dir, "compile"));
        }
    }
    // The original's run: its results file, or what it printed (kept for the next check).
    let environment = |e: std::io::Error| {
        CheckError::new(
            CheckFailure::Environment,
            format!("cannot write or read the original's results: {e}"),
        )
        .with_hint("set TMPDIR to a directory gpucc can write")
    };
    let run_reference = |results: Option<&Path>| -> Result<Vec<u8>, CheckError> {
        if let Some(bytes) = &ran_before {
            if let Some(path) = results {
                std::fs::write(path, bytes).map_err(environment)?;
            }
            return Ok(bytes.clone());
        }
        let mut command = Command::new(&reference_exe);
        let bytes = match results {
            Some(path) => {
                run_original(command.arg(path))?;
                std::fs::read(path).map_err(environment)?
            }
            None => printed(run_original(&mut command)?).into_bytes(),
        };
        if let Some(k) = &reference_key {
            REFERENCE_RUNS.put(k.clone(), bytes.clone());
        }
        Ok(bytes)
    };
    let (running, what) = generated_build?;
    let built = running
        .finish(limit)
        .map_err(|e| not_run(e, &what, &what, limit))?;
    if !built.status.success() {
        let (first, _) = reference::first_error(&built.stderr, &dir.0);
        return Err(CheckError::new(
            CheckFailure::GeneratedDoesNotCompile,
            format!("the generated code does not compile ({what}'s first error):\n{first}"),
        ));
    }

    let mut times = Vec::new();
    let outcome = match &drivers {
        Some(d) => {
            let results = dir.0.join("reference.out");
            run_reference(Some(&results))?;
            let mut command = Command::new(&generated_exe);
            command.arg(&results);
            if let On::Gpu { time_runs, .. } = on {
                if *time_runs > 0 {
                    command.env("GPUCC_TIME_RUNS", time_runs.to_string());
                }
            }
            match run_generated(&mut command)? {
                Ok((output, _)) => {
                    times = outcome::parse_times(&output)?;
                    outcome::parse_report(&output, &d.arrays)?
                }
                Err(race) => Outcome::Race(race),
            }
        }
        None => {
            let reference = String::from_utf8_lossy(&run_reference(None)?).into_owned();
            match run_generated(&mut Command::new(&generated_exe))? {
                Ok(generated) => {
                    let generated = printed(generated);
                    let same = outcome::same_numbers(&reference, &generated);
                    if let On::Gpu { time_runs, .. } = on {
                        if *time_runs > 0 && same {
                            // Timed in a second run: the repeated launches change its output.
                            let timed = run_generated(
                                Command::new(&generated_exe)
                                    .env("GPUCC_TIME_PROGRAM", time_runs.to_string()),
                            )?
                            .map_err(|race| CheckError::new(CheckFailure::GeneratedFailed, race))?;
                            times = outcome::parse_times(&timed.0)?;
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

/// What the originals this process checked against produced (their results files, or
/// what they printed), by the compiler, the include flags and the program's text; only
/// without `--link` files, whose contents are not in the key. Two (the sizes of a
/// `gpucc tune` run are tuned one after the other): results run to megabytes at large
/// sizes (a 2048² `float` array is 16 MB).
static REFERENCE_RUNS: crate::poly::memo::Memo<Vec<u8>> = crate::poly::memo::Memo::new(2);

/// Prepares the generated code for `on`, writes it with the driver, and starts its
/// compiler; returns the compile under way and the compiler's name for messages.
fn build_generated(
    cu: &str,
    drivers: &Option<driver::Drivers>,
    includes: &[String],
    links: &[PathBuf],
    exe: &Path,
    dir: &Scratch,
    on: &On,
) -> Result<(process::Running, String), CheckError> {
    let prepared = match on {
        On::Cpu => prepare_for_cpu(cu),
        On::Gpu { .. } => rewrite_launches(cu),
    }
    .map_err(|why| {
        CheckError::new(
            CheckFailure::GeneratedDoesNotCompile,
            format!("the check cannot run the generated code: {why}"),
        )
    })?;
    // The `.cu` as a file of its own, so that a compiler's message names its lines; the
    // driver's `main` is the program's.
    dir.write(GENERATED_NAME, &prepared)?;
    let text = match drivers {
        Some(d) => format!(
            "#define main gpucc_generated_main\n#include \"{GENERATED_NAME}\"\n{}",
            d.generated
        ),
        None => format!("#include \"{GENERATED_NAME}\"\n"),
    };
    let (mut command, what) = match on {
        On::Cpu => {
            let cxx = compiler("CXX", "c++");
            // The runtime's header is included first, as nvcc includes cuda_runtime.h.
            let flags = if prepared.len() > LARGE_GENERATED {
                CPU_FLAGS_LARGE
            } else {
                CPU_FLAGS
            };
            let runtime = pch::runtime_dir(&cxx, flags, dir)?;
            let mut c = compiler_command(&cxx);
            c.args(flags)
                .arg(format!("-I{}", runtime.display()))
                .arg("-include")
                .arg(runtime.join("cuda_runtime.h"));
            (c, "the C++ compiler".to_string())
        }
        On::Gpu { nvcc, arch, .. } => {
            let header = dir.write("gpucc_gpu_runtime.h", GPU_RUNTIME)?;
            let mut c = compiler_command(nvcc);
            c.args(["-std=c++17", "-O3", "-w", "-DGPUCC_GPU"])
                .arg(format!("-arch={arch}"));
            // The PyPI toolchain keeps the runtime's libraries in lib/, not lib64/.
            if let Some(lib) = nvcc.parent().and_then(Path::parent).map(|d| d.join("lib")) {
                if lib.join("libcudart_static.a").exists() {
                    c.arg(format!("-L{}", lib.display()));
                }
            }
            c.arg(format!("-I{}", dir.0.display()))
                .arg("-include")
                .arg(header);
            (c, "nvcc".to_string())
        }
    };
    let source = dir.write(
        match on {
            On::Cpu => "check.cpp",
            On::Gpu { .. } => "check.cu",
        },
        &text,
    )?;
    command
        .args(includes)
        .arg(&source)
        .args(links)
        .arg("-o")
        .arg(exe)
        .arg("-lm");
    let program = command.get_program().to_string_lossy().into_owned();
    let running = process::start(&mut command).map_err(|e| not_run(e, &what, &program, 0))?;
    Ok((running, what))
}

/// What a whole program printed, as the check compares it: its standard output, then
/// each line of its standard error marked as such (PolyBench dumps its arrays there),
/// but for the lines gpucc's runtimes add.
fn printed((stdout, stderr): (String, String)) -> String {
    let mut out = stdout;
    for line in stderr
        .lines()
        .filter(|l| !l.starts_with("gpucc CPU runtime: ") && !l.starts_with("gpucc GPU runtime: "))
    {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("(stderr) ");
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Runs the original program: its standard output and error, or why it failed.
fn run_original(cmd: &mut Command) -> Result<(String, String), CheckError> {
    let f = process::run_limited(cmd, "the original program")?;
    if f.status.success() {
        return Ok((f.stdout, f.stderr));
    }
    if f.status.code() == Some(driver::RESULTS_EXIT) {
        return Err(CheckError::new(
            CheckFailure::Environment,
            "the check's copy of the original could not write its results to the scratch directory",
        )
        .with_hint("set TMPDIR to a directory gpucc can write"));
    }
    Err(CheckError::new(
        CheckFailure::OriginalFailed,
        format!(
            "the original program {}{}",
            process::ending(&f.status),
            process::tail(&f.stderr, 10)
        ),
    )
    .with_hint(if process::crashed(&f.status) {
        "the C program itself fails at the check's sizes (see --size): run it on its own to see why"
    } else {
        "the check compares programs that succeed: make the C program exit with status 0"
    }))
}

/// Runs generated code: its standard output and error, or `Err(report)` when the runtime
/// found a race.
fn run_generated(cmd: &mut Command) -> Result<Result<(String, String), String>, CheckError> {
    let f = process::run_limited(cmd, "the generated program")?;
    let runtime_says = f.stderr.lines().find_map(|l| {
        l.strip_prefix("gpucc CPU runtime: ")
            .or_else(|| l.strip_prefix("gpucc GPU runtime: "))
    });
    if f.status.code() == Some(RACE_EXIT) {
        return Ok(Err(runtime_says.unwrap_or("a data race").to_string()));
    }
    if f.status.success() {
        return Ok(Ok((f.stdout, f.stderr)));
    }
    if f.status.code() == Some(driver::RESULTS_EXIT) {
        return Err(CheckError::new(
            CheckFailure::Internal,
            "the generated program could not read the original's results",
        ));
    }
    let message = match runtime_says {
        Some(why) => format!(
            "the generated program {}: {why}",
            if process::crashed(&f.status) {
                "was stopped by the CPU runtime"
            } else {
                "failed"
            }
        ),
        None => format!(
            "the generated program {}{}",
            process::ending(&f.status),
            process::tail(&f.stderr, 10)
        ),
    };
    Err(CheckError::new(CheckFailure::GeneratedFailed, message))
}
