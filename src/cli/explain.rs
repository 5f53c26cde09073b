//! What `gpucc FILE.c` says about the recipe it chose: one line always, and with
//! `--explain` the decisions and the ranking (as text or JSON).

use crate::device::Device;
use crate::poly::Program;
use crate::strategy::{lines, lines_run, Item};
use crate::tune::{self, format_us, Ranked};
use std::fmt::Write as _;
use std::io::Write;

/// The chosen mapping of each nest in words, `|` between nests.
pub fn chosen(r: &Ranked) -> String {
    // The plan's program: the compiled one, or it with loops distributed.
    let p: &Program = &r.plan.program;
    let mut chosen: Vec<String> = r.chosen.iter().map(|v| tune::describe(p, v)).collect();
    for item in &r.plan.items {
        if let Item::Serial(run) = item {
            chosen.extend(
                run.chosen_rescheduled()
                    .iter()
                    .filter_map(|x| x.describe_chosen(p)),
            );
        }
    }
    if chosen.is_empty() {
        "no parallel mapping".to_string()
    } else {
        chosen.join(" | ")
    }
}

/// One line on the choice, and a note per part that runs in one thread.
pub fn summary(r: &Ranked, d: &Device, err: &mut dyn Write) {
    // The plan's program: the compiled one, or it with loops distributed.
    let p: &Program = &r.plan.program;
    let what = chosen(r);
    // Sizes known only at run time were ranked at an assumed value: say which.
    let assumed = if p.params.is_empty() {
        String::new()
    } else {
        let sizes: Vec<String> = (p.params.iter())
            .map(|n| format!("{n}={}", crate::strategy::analysis::ASSUMED_SIZE))
            .collect();
        format!(" at {} (assumed)", sizes.join(", "))
    };
    let _ = writeln!(
        err,
        "gpucc: chose {what} among {} candidates{}; predicted {}{assumed} on the {} (estimate, not measured)",
        r.considered + r.skipped,
        if r.skipped > 0 {
            format!(" ({} compiled, {} skipped by their lower bound)", r.considered, r.skipped)
        } else {
            String::new()
        },
        format_us(r.estimate.time_us),
        d.name
    );
    for item in &r.plan.items {
        if let Item::Serial(run) = item {
            let serial = run.in_one_thread();
            if !serial.is_empty() {
                let _ = writeln!(
                    err,
                    "gpucc: note: {} in one GPU thread (correct, but slow): {}",
                    lines_run(p, &serial),
                    run.why
                );
            }
        }
    }
}

pub fn text(r: &Ranked, d: &Device) -> String {
    // The plan's program: the compiled one, or it with loops distributed.
    let p: &Program = &r.plan.program;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Strategy for {} on the {} ({})",
        p.unit.describe(),
        d.name,
        d.arch
    );
    let mut k = 0;
    for item in &r.plan.items {
        match item {
            Item::Parallel(n) => {
                let _ = writeln!(
                    s,
                    "\nNest {} (loop `{}`, line {}{}):",
                    k + 1,
                    p.loops[n.root].iterator,
                    p.loops[n.root].line,
                    if n.host.is_empty() {
                        String::new()
                    } else {
                        let h: Vec<&str> = n
                            .host
                            .iter()
                            .map(|l| p.loops[*l].iterator.as_str())
                            .collect();
                        format!(
                            ", inside host loop{} {}",
                            if h.len() == 1 { "" } else { "s" },
                            h.join(", ")
                        )
                    }
                );
                let mut rows: Vec<&tune::Row> = r.rows.iter().filter(|x| x.nest == k).collect();
                rows.sort_by(|a, b| {
                    let t = |x: &tune::Row| *x.outcome.as_ref().unwrap_or(&f64::INFINITY);
                    t(a).total_cmp(&t(b))
                });
                let ok = rows.iter().filter(|x| x.outcome.is_ok()).count();
                let skipped = rows.iter().filter(|x| x.bound_us.is_some()).count();
                let _ = writeln!(
                    s,
                    "  {} variants compiled and estimated, {} refused by the dependence checks or the device{}",
                    ok,
                    rows.len() - ok - skipped,
                    if skipped > 0 {
                        format!(", {skipped} not compiled (their lower bound is above the fastest time found)")
                    } else {
                        String::new()
                    }
                );
                for (j, row) in rows.iter().enumerate() {
                    match &row.outcome {
                        Ok(t) if j < 12 => {
                            let _ = writeln!(
                                s,
                                "  {:>2}. {:>10}  {}",
                                j + 1,
                                format_us(*t),
                                row.description
                            );
                        }
                        Ok(_) => {}
                        Err(_) if row.bound_us.is_some() => {
                            let _ = writeln!(
                                s,
                                "      skipped     {}: bound {}",
                                row.description,
                                format_us(row.bound_us.unwrap_or_default())
                            );
                        }
                        Err(why) => {
                            let _ = writeln!(s, "      refused     {}: {why}", row.description);
                        }
                    }
                }
                if ok > 12 {
                    let _ = writeln!(s, "      ({} more)", ok - 12);
                }
                if let Some(v) = r.chosen.get(k) {
                    let _ = writeln!(s, "  chosen: {}", tune::describe(p, v));
                    for reason in v.partition.reasons.iter().chain(&v.reasons) {
                        let _ = writeln!(s, "    - {reason}");
                    }
                }
                k += 1;
            }
            Item::Serial(run) => {
                let serial = run.in_one_thread();
                if !serial.is_empty() {
                    let _ = writeln!(s, "\n{} in one thread: {}", lines(p, &serial), run.why);
                }
                for x in run.chosen_rescheduled() {
                    let _ = writeln!(
                        s,
                        "\n{} ({}): {}",
                        lines(p, &x.statements),
                        run.why,
                        x.describe_chosen(p).unwrap_or_default()
                    );
                }
            }
        }
    }
    for x in &r.refinements {
        let _ = writeln!(
            s,
            "\nTried {}: {}",
            x.what,
            match &x.outcome {
                Ok(t) => format!(
                    "{} against {}, {}",
                    format_us(*t),
                    format_us(x.before_us),
                    if x.kept { "kept" } else { "not kept" }
                ),
                Err(e) => format!("refused ({e})"),
            }
        );
    }
    let _ = writeln!(
        s,
        "\nUnrolling: {}",
        if r.unroll == 0 {
            "none (it did not help, or does not apply)".to_string()
        } else {
            format!("the innermost {} loop level(s) of each thread", r.unroll)
        }
    );
    let _ = writeln!(
        s,
        "\nPredicted (abstract kernel emulation, seed 000; an estimate, not a measurement): {} in all, {} candidates compiled{}",
        format_us(r.estimate.time_us),
        r.considered,
        if r.skipped > 0 {
            format!(", {} skipped by their lower bound", r.skipped)
        } else {
            String::new()
        }
    );
    for e in &r.estimate.kernels {
        let w = &e.work;
        let _ = writeln!(
            s,
            "  {:<24} {:>10}  {} launch{} x {} blocks of {} threads, {} blocks/SM ({} warps), {} wave{}; {}",
            w.name,
            format_us(e.time_us),
            w.launches,
            if w.launches == 1.0 { "" } else { "es" },
            w.launched_blocks(),
            w.threads_per_block,
            e.resident_blocks,
            e.active_warps,
            e.waves,
            if e.waves == 1.0 { "" } else { "s" },
            e.verdict()
        );
    }
    s
}

pub fn json(r: &Ranked, d: &Device) -> String {
    // The plan's program: the compiled one, or it with loops distributed.
    let p: &Program = &r.plan.program;
    use serde_json::json;
    let mut nests = Vec::new();
    let mut serial = Vec::new();
    let mut k = 0;
    for item in &r.plan.items {
        match item {
            Item::Parallel(n) => {
                let variants: Vec<serde_json::Value> = r
                    .rows
                    .iter()
                    .filter(|x| x.nest == k)
                    .map(|x| match (&x.outcome, x.bound_us) {
                        (Ok(t), _) => json!({"description": x.description, "predicted_time_us": t}),
                        (Err(_), Some(b)) => {
                            json!({"description": x.description, "skipped_lower_bound_us": b})
                        }
                        (Err(e), None) => json!({"description": x.description, "refused": e}),
                    })
                    .collect();
                nests.push(json!({
                    "line": p.loops[n.root].line,
                    "loop": p.loops[n.root].iterator,
                    "chosen": r.chosen.get(k).map(|v| tune::describe(p, v)),
                    "variants": variants,
                }));
                k += 1;
            }
            Item::Serial(run) => {
                let one = run.in_one_thread();
                if !one.is_empty() {
                    serial.push(json!({
                        "lines": lines(p, &one),
                        "why": run.why,
                    }));
                }
                for x in run.chosen_rescheduled() {
                    nests.push(json!({
                        "line": p.loops[x.root].line,
                        "loop": p.loops[x.root].iterator,
                        "chosen": x.describe_chosen(p),
                        "rescheduled": true,
                        "why": run.why,
                    }));
                }
            }
        }
    }
    let kernels: Vec<serde_json::Value> = r
        .estimate
        .kernels
        .iter()
        .map(|e| {
            json!({
                "name": e.work.name, "predicted_time_us": e.time_us, "launches": e.work.launches,
                "blocks": e.work.blocks, "threads_per_block": e.work.threads_per_block,
                "blocks_per_sm": e.resident_blocks, "waves": e.waves,
                "bottleneck": e.bottleneck.as_ref().map(|b| b.label()),
            })
        })
        .collect();
    let value = json!({
        "unit": p.unit.describe(),
        "device": d.id,
        "predicted_time_us": r.estimate.time_us,
        "candidates_compiled": r.considered,
        "candidates_skipped_by_bound": r.skipped,
        "refinements": r.refinements.iter().map(|x| match &x.outcome {
            Ok(t) => json!({"what": x.what, "predicted_time_us": t, "without_us": x.before_us, "kept": x.kept}),
            Err(e) => json!({"what": x.what, "refused": e, "without_us": x.before_us, "kept": false}),
        }).collect::<Vec<_>>(),
        "parallel": !r.chosen.is_empty(),
        "chosen": r.chosen.iter().map(|v| tune::describe(p, v)).collect::<Vec<_>>(),
        "unroll": r.unroll,
        "nests": nests,
        "serial": serial,
        "kernels": kernels,
        "recipe": r.recipe,
    });
    serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
}
