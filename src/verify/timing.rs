//! The original C timed on this machine, for `gpucc project`: GROPHECY (seed 003,
//! `003_5c5ae4136523ccab.txt` §1, §9) weighs a GPU's projected time against the CPU
//! code's own. The function is built with `cc -O3` (and the check's `-D`, `-I` and
//! `--link`), called on the check's pseudo-random inputs at the given sizes (for a
//! `#pragma scop` region, the function around it), and timed
//! call by call: a few calls, fewer when one takes a second or more, and a call that runs
//! past the limit is stopped, which still says the code takes at least that long.

use super::process::{compiler, compiler_command, not_run, Scratch};
use super::{driver, links, process, reference, CheckError, CheckFailure, CheckOptions};
use crate::frontend::macros::apply_defines;
use crate::frontend::UnitKind;
use crate::poly::Program;
use std::process::Command;

/// Calls timed at most.
const RUNS: usize = 5;

/// No call is made once the calls so far took this many seconds together.
const BUDGET_SECONDS: f64 = 1.0;

/// The flags the original is built with.
pub const FLAGS: &[&str] = &["-O3"];

/// What the timing found.
#[derive(Clone, Debug, PartialEq)]
pub enum CpuTime {
    /// Seconds of each call, in order.
    Measured(Vec<f64>),
    /// The first call was stopped after this many seconds.
    Over(f64),
}

impl CpuTime {
    /// The median call in seconds, or the limit passed.
    pub fn seconds(&self) -> f64 {
        match self {
            CpuTime::Measured(runs) => {
                let mut sorted = runs.clone();
                sorted.sort_by(f64::total_cmp);
                sorted[sorted.len() / 2]
            }
            CpuTime::Over(limit) => *limit,
        }
    }
}

/// Times the function of `program` (the original C of `o.c_file`), each call at most
/// `limit_seconds`.
pub fn time_original(
    program: &Program,
    o: &CheckOptions,
    limit_seconds: u64,
) -> Result<CpuTime, CheckError> {
    let original = std::fs::read_to_string(o.c_file).map_err(|e| {
        CheckError::new(
            CheckFailure::Environment,
            format!("cannot read {}: {e}", o.c_file.display()),
        )
    })?;
    // A region is timed by calling the function around it.
    if matches!(program.unit.kind, UnitKind::Scop(_)) && program.unit.function == "main" {
        return Err(CheckError::new(
            CheckFailure::CannotDrive,
            "the region is in `main`, which the timing cannot call apart from the rest of the program",
        )
        .with_hint("move the region into a function of its own, called by `main`"));
    }
    let dir = Scratch::new()?;
    let driver = driver::timing(program, &original, o)?;
    let defined = apply_defines(&original, o.defines);
    let source = dir.write(
        "timed.c",
        &reference::text(&defined, o.c_file, Some(&driver)),
    )?;
    let includes: Vec<String> = std::iter::once(process::directory_of(o.c_file))
        .chain(o.include_dirs.iter().cloned())
        .map(|d| format!("-I{}", d.display()))
        .collect();
    let cc = compiler("CC", "cc");
    let min_max = reference::min_max_flags(&cc, &source, &defined, &includes, &dir)?;
    let link_objects = links::build(o, &includes, links::Language::C, &dir)?;
    let exe = dir.0.join("timed");
    let limit = process::compile_seconds();
    let built = process::start(
        compiler_command(&cc)
            .args(FLAGS)
            .args(["-w", "-x", "c"])
            .arg(&source)
            .args(["-x", "none"])
            .args(&link_objects)
            .arg("-o")
            .arg(&exe)
            .args(&includes)
            .args(&min_max)
            .arg("-lm"),
    )
    .map_err(|e| not_run(e, "the C compiler", &cc, 0))?
    .finish(limit)
    .map_err(|e| not_run(e, "the C compiler on the original", &cc, limit))?;
    if !built.status.success() {
        return Err(reference::does_not_compile(&built.stderr, &dir, "compile"));
    }
    let running = process::start(
        Command::new(&exe)
            .arg(RUNS.to_string())
            .arg(BUDGET_SECONDS.to_string()),
    )
    .map_err(|e| not_run(e, "the timed original", "the timed original", 0))?;
    // Each call up to the limit, after the calls before it (within the budget).
    let total = limit_seconds.saturating_add(BUDGET_SECONDS.ceil() as u64);
    let finished = match running.finish(total) {
        Ok(f) => f,
        Err(process::NotRun::TimedOut) => return Ok(CpuTime::Over(limit_seconds as f64)),
        Err(e) => {
            return Err(not_run(
                e,
                "the timed original",
                "the timed original",
                total,
            ))
        }
    };
    if !finished.status.success() {
        return Err(CheckError::new(
            CheckFailure::OriginalFailed,
            format!(
                "the original program {}{}",
                process::ending(&finished.status),
                process::tail(&finished.stderr, 10)
            ),
        )
        .with_hint("the C program itself fails at these sizes: run it on its own to see why"));
    }
    let runs: Vec<f64> = (finished.stdout.lines())
        .filter_map(|l| l.strip_prefix("gpucc-time "))
        .filter_map(|x| x.trim().parse().ok())
        .collect();
    if runs.is_empty() {
        return Err(CheckError::new(
            CheckFailure::Internal,
            format!(
                "the timed original printed no time:\n{}",
                process::tail(&finished.stdout, 10)
            ),
        ));
    }
    Ok(CpuTime::Measured(runs))
}
