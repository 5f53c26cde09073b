//! `gpucc emulate`: the predicted time of a program's kernels on a device, with the
//! sensitivity analysis that names each kernel's bottleneck (seed 000).

use super::compile::{compile_quietly, device, RecipeSource};
use super::{EmulateArgs, EXIT_OK};
use crate::emulator::{self, ptxas, Detail, Estimate};
use crate::tune::format_us;
use std::fmt::Write as _;
use std::io::Write;

pub(super) fn emulate_command(
    a: &EmulateArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
    color: bool,
) -> i32 {
    let device = match device(&a.target.device, err) {
        Ok(d) => d,
        Err(code) => return code,
    };
    let source = match &a.recipe {
        Some(path) => RecipeSource::File(path),
        None => RecipeSource::Generate(&a.sizes),
    };
    let compiled = match compile_quietly(&a.input, &device, source, &a.param, &a.sizes, err, color)
    {
        Ok(c) => c,
        Err(code) => return code,
    };
    let (t, g) = &compiled.unit;
    let params = &compiled.program().params;
    let sizes = sizes_used(params, &a.sizes);
    // Registers as ptxas counts them when nvcc is at hand.
    let nvcc = if a.estimate_registers {
        None
    } else {
        ptxas::nvcc()
    };
    let without = |why: &str| ptxas::Native {
        sass: Err(why.to_string()),
        ..ptxas::Native::default()
    };
    let (mut native, registers_note) = match nvcc {
        None if a.estimate_registers => (
            without("--estimate-registers: nvcc not run"),
            "registers estimated (--estimate-registers)".to_string(),
        ),
        None => (
            without("nvcc not found"),
            "registers estimated (nvcc not found; scripts/install-cuda-toolchain installs it)"
                .to_string(),
        ),
        Some(nvcc) => match ptxas::compile(&nvcc, &compiled.text, &device.arch, !a.ir_streams) {
            Ok(n) => (n, "registers from ptxas".to_string()),
            Err(why) => (without(&why), format!("registers estimated ({why})")),
        },
    };
    if a.ir_streams {
        native.sass = Err("--ir-streams".to_string());
    }
    if native.sass.is_ok() {
        native.lines = g
            .kernels
            .iter()
            .map(|k| crate::cuda::node_lines(t, k, &compiled.text))
            .collect();
    }
    // Timed apart: one emulation is what ranking a variant costs, the first in a process
    // (which pays for fresh memory) and the next (as in the ranking of many variants);
    // the sensitivity analysis replays it once per raised latency and gap.
    let time = || {
        let start = std::time::Instant::now();
        let _ = emulator::estimate(t, g, &device, &a.sizes, Detail::Time, &native);
        start.elapsed().as_secs_f64() * 1e3
    };
    let emulation_ms = (time(), time());
    let start = std::time::Instant::now();
    let e = match emulator::estimate(t, g, &device, &a.sizes, Detail::Regions, &native) {
        Ok(k) => k,
        Err(why) => {
            let _ = writeln!(
                err,
                "error: {why}\n  = hint: use smaller tiles or less shared memory"
            );
            return super::EXIT_USER_ERROR;
        }
    };
    let timing = (emulation_ms, start.elapsed().as_secs_f64() * 1e3);
    let recipe = match &a.recipe {
        Some(p) => p.display().to_string(),
        None => "the recipe gpucc chooses".to_string(),
    };
    let text = if a.json {
        json(&e, &device, &recipe, &sizes, timing)
    } else {
        let unit = compiled.program().unit.describe();
        report(&e, &device, &unit, &recipe, &registers_note, &sizes)
    };
    let _ = write!(out, "{text}");
    EXIT_OK
}

fn report(
    e: &Estimate,
    d: &crate::device::Device,
    unit: &str,
    recipe: &str,
    registers: &str,
    sizes: &[Size],
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{unit} with {recipe}, on the {}: abstract kernel emulation (seed 000) of {}; {registers}; an estimate, not a measurement",
        d.name,
        streams(e)
    );
    if !sizes.is_empty() {
        let text: Vec<String> = sizes
            .iter()
            .map(|x| {
                let how = if x.assumed { " (assumed)" } else { "" };
                format!("{} = {}{how}", x.name, x.value)
            })
            .collect();
        let _ = writeln!(s, "sizes known only at run time: {}", text.join(", "));
        if let Some(x) = sizes.iter().find(|x| x.assumed) {
            let _ = writeln!(
                s,
                "  = note: an assumed size is a guess; give the real one with --size {}=VALUE",
                x.name
            );
        }
    }
    for k in &e.kernels {
        let w = &k.work;
        let seconds = k.time_us * 1e-6;
        let _ = writeln!(s);
        let launched = w.launched_blocks();
        let working = if w.working_share < 1.0 {
            format!(
                " ({:.1}% of their warps pass the guard on the thread's position and do the work)",
                w.working_share * 100.0
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "kernel {}: {} block{} of {} threads{working}, {} launch{}",
            w.name,
            launched,
            if launched == 1.0 { "" } else { "s" },
            w.threads_per_block,
            w.launches,
            if w.launches == 1.0 { "" } else { "es" }
        );
        let _ = writeln!(
            s,
            "  predicted {}   {:.1} GFLOP/s   {:.1} GB/s",
            format_us(k.time_us),
            k.flops / seconds / 1e9,
            k.bytes / seconds / 1e9
        );
        let _ = writeln!(
            s,
            "  occupancy {} block{}/SM = {} warps ({:.0}%), {} wave{}; {} registers per thread ({})",
            k.resident_blocks,
            if k.resident_blocks == 1 { "" } else { "s" },
            k.active_warps,
            k.occupancy * 100.0,
            k.waves,
            if k.waves == 1.0 { "" } else { "s" },
            w.registers,
            if k.registers_from_ptxas {
                "ptxas"
            } else {
                "estimated"
            }
        );
        if w.per_thread.global_insts > 0.0 {
            let _ = writeln!(
                s,
                "  global memory: {:.0}% of the sectors from DRAM, the rest from L2 (arrays {:.1} MB, L2 {:.1} MB)",
                k.dram_share * 100.0,
                w.footprint_bytes / 1e6,
                d.limits.l2_bytes as f64 / 1e6
            );
        }
        let _ = writeln!(s, "  sensitivity to +10% (dT/T per dX/X):   latency    gap");
        for x in &k.sensitivities {
            let _ = writeln!(
                s,
                "    {:<36} {:>7.3} {:>6.3}",
                x.resource, x.latency, x.gap
            );
        }
        if !k.region_sensitivities.is_empty() {
            let _ = writeln!(
                s,
                "  by code region (resources of sensitivity {} or more):   latency    gap",
                emulator::kernel::REGION_THRESHOLD
            );
            for x in &k.region_sensitivities {
                let _ = writeln!(
                    s,
                    "    {:<8} {:<38} {:>7.3} {:>6.3}",
                    x.resource, x.region, x.latency, x.gap
                );
            }
        }
        if let Some(b) = &k.bottleneck {
            let _ = writeln!(s, "  bottleneck: {}, {}-bound", b.resource, b.mode);
        }
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "predicted total: {}", format_us(e.time_us));
    s
}

/// A size known only at run time, at the value the emulation used.
pub(super) struct Size {
    pub name: String,
    pub value: i64,
    /// Not given with `--size`: [`crate::strategy::analysis::ASSUMED_SIZE`].
    pub assumed: bool,
}

/// [`sizes_used`] as (name, value) pairs, what compiling and emulating take.
pub(super) fn size_values(params: &[String], given: &[(String, i64)]) -> Vec<(String, i64)> {
    (sizes_used(params, given).into_iter())
        .map(|s| (s.name, s.value))
        .collect()
}

pub(super) fn sizes_used(params: &[String], given: &[(String, i64)]) -> Vec<Size> {
    params
        .iter()
        .map(|p| match given.iter().rev().find(|(n, _)| n == p) {
            Some((_, v)) => Size {
                name: p.clone(),
                value: *v,
                assumed: false,
            },
            None => Size {
                name: p.clone(),
                value: crate::strategy::analysis::ASSUMED_SIZE,
                assumed: true,
            },
        })
        .collect()
}

/// Where the instruction streams came from, in words.
fn streams(e: &Estimate) -> String {
    match e.kernels.iter().find_map(|k| k.streams.as_ref().err()) {
        None => "instruction streams from the SASS (nvdisasm, with .cu lines)".to_string(),
        Some(why) => format!("instruction streams from the kernel IR ({why})"),
    }
}

fn json(
    e: &Estimate,
    d: &crate::device::Device,
    recipe: &str,
    sizes: &[Size],
    ((emulation_ms, again_ms), sensitivity_ms): ((f64, f64), f64),
) -> String {
    use serde_json::json;
    let items: Vec<serde_json::Value> = e
        .kernels
        .iter()
        .map(|k| {
            let seconds = k.time_us * 1e-6;
            json!({
                "name": k.work.name,
                "predicted_time_us": k.time_us,
                "gflops": k.flops / seconds / 1e9,
                "gbs": k.bytes / seconds / 1e9,
                "blocks": k.work.blocks,
                "launched_blocks": k.work.launched_blocks(),
                "working_share": k.work.working_share,
                "threads_per_block": k.work.threads_per_block,
                "launches": k.work.launches,
                "resident_blocks_per_sm": k.resident_blocks,
                "occupancy": k.occupancy,
                "waves": k.waves,
                "registers_per_thread": k.work.registers,
                "registers_from_ptxas": k.registers_from_ptxas,
                "instruction_source": if k.streams.is_ok() { "SASS" } else { "kernel IR" },
                "registers_estimate": k.registers_estimate,
                "register_copy_words": k.work.register_copy_words,
                "dram_share": k.dram_share,
                "footprint_bytes": k.work.footprint_bytes,
                "floor_us": k.floor_us,
                "bottleneck": k.bottleneck.as_ref().map(|b| b.label()),
                "sensitivities": k.sensitivities.iter().map(|x| json!({
                    "resource": x.resource, "latency": x.latency, "gap": x.gap,
                })).collect::<Vec<_>>(),
                "region_sensitivities": k.region_sensitivities.iter().map(|x| json!({
                    "region": x.region, "resource": x.resource, "latency": x.latency, "gap": x.gap,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let value = json!({
        "device": d.id,
        "recipe": recipe,
        "sizes": sizes.iter().map(|x| json!({
            "name": x.name, "value": x.value, "assumed": x.assumed,
        })).collect::<Vec<_>>(),
        "predicted_time_us": e.time_us,
        "bottleneck": e.slowest().and_then(|k| k.bottleneck.as_ref()).map(|b| b.label()),
        "instruction_source": if e.kernels.iter().all(|k| k.streams.is_ok()) { "SASS" } else { "kernel IR" },
        "instruction_streams": streams(e),
        "registers": if e.kernels.iter().all(|k| k.registers_from_ptxas) { "ptxas" } else { "estimated" },
        "emulation_ms": emulation_ms,
        "second_emulation_ms": again_ms,
        "with_sensitivity_ms": sensitivity_ms,
        "kernels": items,
    });
    serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
}
