//! `gpucc project`: would porting this C to a GPU pay? GROPHECY (seed 003,
//! `003_5c5ae4136523ccab.txt` §1, §4, §10.2) projects a CPU code's GPU time from its
//! skeleton and a device's specification, without the GPU: here the strategy generator
//! picks the best mapping for each device description and the emulator predicts its
//! kernels; the drop-in's copies to and from the device are timed at the description's
//! host link (the seed's §10.2 leaves them to future work); the C itself is measured on
//! this machine (`cc -O3`), so that the speedup is the measured CPU time over the
//! predicted GPU time, with and without the copies.

use super::compile::{compile_quietly, RecipeSource};
use super::emulate::{size_values, sizes_used, Size};
use super::{InputArgs, EXIT_CHECK_NOT_RUN, EXIT_OK, EXIT_USAGE};
use crate::device::Device;
use crate::tune::format_us;
use crate::verify::timing::{self, CpuTime};
use clap::Args;
use serde_json::json;
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub(super) struct ProjectArgs {
    #[command(flatten)]
    input: InputArgs,
    /// The device to project for, a description in benchmarks/devices/, or `all` for a
    /// table over every description.
    #[arg(long = "device", value_name = "NAME|all", default_value = "h100")]
    device: String,
    /// The value of a size known only at run time (`--size n=4096`); a size not given is
    /// assumed to be 1024, and the report says so.
    #[arg(long = "size", value_name = "NAME=VALUE", value_parser = super::options::parse_size)]
    sizes: Vec<(String, i64)>,
    /// Another source or object file the C links with, for its timed build; repeatable.
    #[arg(long = "link", value_name = "FILE")]
    links: Vec<PathBuf>,
    /// Stop a call of the C that runs longer than this many seconds: the report then says
    /// the C takes at least that long.
    #[arg(long, value_name = "SECONDS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    cpu_seconds: u64,
    /// Do not run the C (no measured CPU time, no speedup).
    #[arg(long)]
    no_cpu: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

impl ProjectArgs {
    pub fn limits(&self) -> crate::limits::Limits {
        self.input.limits()
    }
}

/// One device's projection.
struct Projection {
    device: Device,
    strategy: String,
    kernel_us: f64,
    launches: f64,
    copies: Vec<crate::cuda::Transfer>,
    copy_us: f64,
}

impl Projection {
    fn total_us(&self) -> f64 {
        self.kernel_us + self.copy_us
    }

    fn bytes(&self, to_device: bool) -> f64 {
        (self.copies.iter())
            .filter(|c| c.to_device == to_device)
            .map(|c| c.bytes.unwrap_or(0.0))
            .sum()
    }
}

/// The microseconds of `copies` over `device`'s host link.
fn copy_us(device: &Device, copies: &[crate::cuda::Transfer]) -> f64 {
    let link = &device.host;
    (copies.iter())
        .map(|c| link.copy_latency_us + c.bytes.unwrap_or(0.0) / (link.gb_s * 1e3))
        .sum()
}

pub(super) fn project_command(
    a: &ProjectArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
    color: bool,
) -> i32 {
    let devices = if a.device.eq_ignore_ascii_case("all") {
        Device::all()
    } else {
        match super::compile::device(&a.device, err) {
            Ok(d) => vec![d],
            Err(code) => return code,
        }
    };
    let mut projections = Vec::new();
    let mut program = None;
    for device in devices {
        // What the ranking says is for a compile; the projection says it its own way.
        let source = RecipeSource::Generate(&a.sizes);
        let compiled = match compile_quietly(&a.input, &device, source, &[], &a.sizes, err, color) {
            Ok(c) => c,
            Err(code) => return code,
        };
        let Some(ranked) = compiled.ranked.as_ref() else {
            let _ = writeln!(err, "error: gpucc made no strategy to project");
            return EXIT_USAGE;
        };
        let p = compiled.program();
        let sizes = size_values(&p.params, &a.sizes);
        let copies = crate::cuda::transfers(&compiled.unit.0, &compiled.unit.1, &sizes);
        projections.push(Projection {
            strategy: super::explain::chosen(ranked),
            kernel_us: ranked.estimate.time_us,
            launches: ranked
                .estimate
                .kernels
                .iter()
                .map(|k| k.work.launches)
                .sum(),
            copy_us: copy_us(&device, &copies),
            copies,
            device,
        });
        program.get_or_insert(compiled);
    }
    let Some(compiled) = program else {
        let _ = writeln!(err, "error: there is no device description to project for");
        return EXIT_USAGE;
    };
    let p = compiled.program();
    let sizes = sizes_used(&p.params, &a.sizes);
    let values = size_values(&p.params, &a.sizes);
    let cpu = if a.no_cpu {
        None
    } else {
        let options = a.input.check_options(&values, &a.links);
        Some(timing::time_original(p, &options, a.cpu_seconds))
    };
    let what = describe_input(a, p, &sizes);
    let text = if a.json {
        json_report(&what, &sizes, cpu.as_ref(), &projections)
    } else {
        text_report(&what, &p.unit.function, cpu.as_ref(), &projections)
    };
    let _ = write!(out, "{text}");
    match cpu {
        Some(Err(e)) => {
            let _ = writeln!(
                err,
                "error: the C could not be timed: {}{}",
                e.message,
                e.hint
                    .map(|h| format!("\n  = hint: {h}"))
                    .unwrap_or_default()
            );
            EXIT_CHECK_NOT_RUN
        }
        _ => EXIT_OK,
    }
}

/// `gemm in examples/sgemm.c (N=1024, n=1024 assumed)`.
fn describe_input(a: &ProjectArgs, p: &crate::poly::Program, sizes: &[Size]) -> String {
    let mut values: Vec<String> = a
        .input
        .define
        .iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect();
    values.extend(sizes.iter().map(|s| {
        format!(
            "{}={}{}",
            s.name,
            s.value,
            if s.assumed { " assumed" } else { "" }
        )
    }));
    let at = if values.is_empty() {
        String::new()
    } else {
        format!(" at {}", values.join(", "))
    };
    format!("`{}` in {}{at}", p.unit.function, a.input.file.display())
}

fn megabytes(bytes: f64) -> String {
    if bytes >= 1e9 {
        format!("{:.2} GB", bytes / 1e9)
    } else if bytes >= 1e6 {
        format!("{:.1} MB", bytes / 1e6)
    } else {
        format!("{:.1} kB", bytes / 1e3)
    }
}

fn speedup(cpu_us: f64, gpu_us: f64, at_least: bool) -> String {
    let x = cpu_us / gpu_us;
    let at = if at_least { ">=" } else { "" };
    if x >= 100.0 {
        format!("{at}{x:.0}x")
    } else {
        format!("{at}{x:.1}x")
    }
}

fn cpu_line(cpu: Option<&Result<CpuTime, crate::verify::CheckError>>, function: &str) -> String {
    let flags = timing::FLAGS.join(" ");
    match cpu {
        None => "not measured (--no-cpu)".to_string(),
        Some(Err(e)) => format!("not measured: {}", e.message),
        Some(Ok(CpuTime::Over(limit))) => format!(
            "over {limit:.0} s per call of `{function}` (stopped; cc {flags}; --cpu-seconds raises the limit)"
        ),
        Some(Ok(t @ CpuTime::Measured(runs))) => {
            let lo = runs.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = runs.iter().copied().fold(0.0, f64::max);
            let spread = if runs.len() > 1 {
                format!(", {} to {}", format_us(lo * 1e6), format_us(hi * 1e6))
            } else {
                String::new()
            };
            format!(
                "{} per call of `{function}`, measured (cc {flags}; median of {} call{}{spread})",
                format_us(t.seconds() * 1e6),
                runs.len(),
                if runs.len() == 1 { "" } else { "s" }
            )
        }
    }
}

fn text_report(
    what: &str,
    function: &str,
    cpu: Option<&Result<CpuTime, crate::verify::CheckError>>,
    projections: &[Projection],
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Projection of {what} onto GPUs (seed 003): GPU times predicted by the emulator, not measured"
    );
    let _ = writeln!(s);
    let _ = writeln!(s, "C on this machine: {}", cpu_line(cpu, function));
    let measured = match cpu {
        Some(Ok(t)) => Some((t.seconds() * 1e6, matches!(t, CpuTime::Over(_)))),
        _ => None,
    };
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "{:<28} {:>11} {:>11} {:>11}  {:>9} {:>9}",
        "device", "kernels", "copies", "total", "speedup", "w/ copies"
    );
    for x in projections {
        let (k, t) = match measured {
            Some((cpu_us, over)) => (
                speedup(cpu_us, x.kernel_us, over),
                speedup(cpu_us, x.total_us(), over),
            ),
            None => ("-".to_string(), "-".to_string()),
        };
        let _ = writeln!(
            s,
            "{:<28} {:>11} {:>11} {:>11}  {:>9} {:>9}",
            x.device.name,
            format_us(x.kernel_us),
            format_us(x.copy_us),
            format_us(x.total_us()),
            k,
            t
        );
    }
    for x in projections {
        let _ = writeln!(s);
        let _ = writeln!(s, "{}:", x.device.name);
        let _ = writeln!(s, "  strategy: {}", x.strategy);
        let launches = x.launches.round();
        let _ = writeln!(
            s,
            "  kernels: {} in {launches:.0} launch{} (the emulator's prediction)",
            format_us(x.kernel_us),
            if launches == 1.0 { "" } else { "es" }
        );
        let count = |to: bool| x.copies.iter().filter(|c| c.to_device == to).count();
        let unknown: Vec<&str> = (x.copies.iter())
            .filter(|c| c.bytes.is_none())
            .map(|c| c.name.as_str())
            .collect();
        let _ = writeln!(
            s,
            "  copies: {} in ({}), {} out ({}) over {} at {} GB/s each way, {} us a copy: {}",
            count(true),
            megabytes(x.bytes(true)),
            count(false),
            megabytes(x.bytes(false)),
            x.device.host.link,
            x.device.host.gb_s,
            x.device.host.copy_latency_us,
            format_us(x.copy_us)
        );
        if !unknown.is_empty() {
            let _ = writeln!(
                s,
                "    (the bytes of {} are not known, only cudaize's count: not counted)",
                unknown.join(", ")
            );
        }
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "The copies are timed at the link's peak (benchmarks/devices/: [host]), not measured: copies from the caller's pageable memory run slower, so the totals are lower bounds and the speedups with copies upper bounds. Allocation and freeing on the device are not counted."
    );
    s
}

fn json_report(
    what: &str,
    sizes: &[Size],
    cpu: Option<&Result<CpuTime, crate::verify::CheckError>>,
    projections: &[Projection],
) -> String {
    let cpu_json = match cpu {
        None => json!(null),
        Some(Err(e)) => json!({ "measured": false, "error": e.message }),
        Some(Ok(t)) => json!({
            "measured": true,
            "seconds": t.seconds(),
            "at_least": matches!(t, CpuTime::Over(_)),
            "runs": match t { CpuTime::Measured(r) => r.clone(), CpuTime::Over(_) => Vec::new() },
            "flags": timing::FLAGS,
        }),
    };
    let cpu_us = match cpu {
        Some(Ok(t)) => Some(t.seconds() * 1e6),
        _ => None,
    };
    let devices: Vec<serde_json::Value> = projections
        .iter()
        .map(|x| {
            json!({
                "device": x.device.name,
                "id": x.device.id,
                "strategy": x.strategy,
                "kernel_us": x.kernel_us,
                "launches": x.launches,
                "copies": x.copies.iter().map(|c| json!({
                    "name": c.name,
                    "direction": if c.to_device { "in" } else { "out" },
                    "bytes": c.bytes,
                })).collect::<Vec<_>>(),
                "copy_us": x.copy_us,
                "link": { "name": x.device.host.link, "gb_s": x.device.host.gb_s,
                          "copy_latency_us": x.device.host.copy_latency_us,
                          "source": x.device.host.source },
                "total_us": x.total_us(),
                "speedup_kernels": cpu_us.map(|c| c / x.kernel_us),
                "speedup_total": cpu_us.map(|c| c / x.total_us()),
            })
        })
        .collect();
    let sizes: Vec<serde_json::Value> = (sizes.iter())
        .map(|s| json!({ "name": s.name, "value": s.value, "assumed": s.assumed }))
        .collect();
    let doc = json!({
        "projection": what,
        "gpu_times": "predicted by the emulator, not measured",
        "sizes": sizes,
        "cpu": cpu_json,
        "devices": devices,
    });
    format!(
        "{}\n",
        serde_json::to_string_pretty(&doc).unwrap_or_default()
    )
}
