//! Writes the recipe of a choice of variants: commands in the recipe language, each
//! preceded by comments that say why (recipes/README.md documents the commands).

use super::{Item, Plan, Variant};
use crate::poly::{LoopId, Program, StatementId};
use std::fmt::Write as _;

/// The recipe of `chosen` (one variant per parallel nest); with `only`, just that
/// nest's commands (named as in the whole recipe), to check them on their own.
pub fn recipe(
    plan: &Plan,
    chosen: &[&Variant],
    unroll: usize,
    notes: &[String],
    only: Option<usize>,
) -> String {
    let mut r = String::new();
    let _ = writeln!(
        r,
        "-- Written by gpucc for {} (the strategy generator of seed 004, Chapters 4-5),",
        plan.unit
    );
    let _ = writeln!(r, "-- for {}.", plan.device);
    for note in notes {
        let _ = writeln!(r, "-- {note}");
    }
    let _ = writeln!(
        r,
        "-- Replay it with --recipe, or edit it: recipes/README.md documents each command."
    );
    let p: &Program = &plan.program;
    if !plan.prelude.is_empty() {
        let _ = writeln!(r);
        for line in &plan.prelude {
            let _ = writeln!(r, "{line}");
        }
    }
    let kernels = plan.items.len();
    let several = kernels > 1;
    let names = Names::new(p);
    let mut k = 0;
    for item in &plan.items {
        let Item::Parallel(nest) = item else {
            continue;
        };
        if only.is_some_and(|o| o != k) {
            k += 1;
            continue;
        }
        let v = chosen[k];
        let sfx = if k == 0 { String::new() } else { k.to_string() };
        let kernel = if several {
            format!("{}_kernel{k}", plan.function)
        } else {
            format!("{}_kernel", plan.function)
        };
        let _ = writeln!(r);
        let _ = writeln!(
            r,
            "-- {} (line {}): {}; {}.",
            if several {
                format!("Nest {}", k + 1)
            } else {
                "The nest".to_string()
            },
            p.loops[nest.root].line,
            v.partition.describe(p),
            v.placement.describe(p)
        );
        for reason in v.partition.reasons.iter().chain(&v.reasons) {
            let _ = writeln!(r, "-- {reason}");
        }
        write_nest(
            &mut r,
            p,
            &names,
            nest.statements.as_slice(),
            v,
            &sfx,
            &kernel,
            several,
        );
        k += 1;
    }
    let serial_runs: Vec<&super::SerialRun> = plan
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Serial(s) => Some(s),
            Item::Parallel(_) => None,
        })
        .collect();
    if only.is_some() {
        return r;
    }
    // Each run in one thread, but for the nests the tuner chose to run rescheduled: what
    // is left of the run is cut where they were (`SerialRun::parts_in_one_thread`).
    let mut parts: Vec<(&super::SerialRun, Vec<StatementId>)> = Vec::new();
    let mut rescheduled = 0;
    for run in &serial_runs {
        for x in run.chosen_rescheduled() {
            let kernel = format!(
                "{}_rescheduled{}",
                plan.function,
                if rescheduled == 0 {
                    String::new()
                } else {
                    rescheduled.to_string()
                }
            );
            rescheduled += 1;
            let _ = writeln!(r);
            let _ = writeln!(
                r,
                "-- {} ({}): in isl's order (`reschedule`): {}.",
                capitalized(super::lines(p, &x.statements)),
                run.why,
                x.describe(p)
            );
            let nest = rescheduled - 1;
            x.write(&mut r, p, several, &kernel, &|l, sfx| match nest {
                0 => names.control(l, sfx),
                n => names.control(l, &format!("_r{n}{sfx}")),
            });
        }
        parts.extend(
            run.parts_in_one_thread()
                .into_iter()
                .map(|part| (*run, part)),
        );
    }
    let split = rescheduled > 0;
    for (j, (run, statements)) in parts.iter().enumerate() {
        let _ = writeln!(r);
        let _ = writeln!(
            r,
            "-- {} in one thread: {}.",
            capitalized(super::lines_run(p, statements)),
            run.why
        );
        let name = if parts.len() > 1 {
            format!("{}_serial{j}", plan.function)
        } else {
            format!("{}_serial", plan.function)
        };
        let stmt = if several || split || !run.host.is_empty() {
            format!("{}, ", statements[0])
        } else {
            String::new()
        };
        let _ = writeln!(r, "cudaize({stmt}\"{name}\", {{}}, {{}})");
    }
    if unroll > 0 {
        let _ = writeln!(r);
        let _ = writeln!(
            r,
            "-- Unroll the innermost {unroll} loop level{} of each thread (§4.2.3).",
            if unroll == 1 { "" } else { "s" }
        );
        let _ = writeln!(r, "unroll_to_depth({unroll})");
    }
    r
}

/// `text` with a capital first letter.
fn capitalized(text: String) -> String {
    let mut c = text.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => text,
    }
}

/// Fresh names for the loops the recipe makes.
struct Names {
    taken: Vec<String>,
}

impl Names {
    fn new(p: &Program) -> Names {
        let mut taken: Vec<String> = p.loops.iter().map(|l| l.iterator.clone()).collect();
        taken.extend(p.arrays.iter().map(|a| a.name.clone()));
        taken.extend(p.params.iter().cloned());
        Names { taken }
    }

    /// `ii` for `i` (with the nest's suffix), avoiding names the program uses.
    fn control(&self, base: &str, sfx: &str) -> String {
        self.fresh(&format!("{base}{base}{sfx}"))
    }

    /// `name`, or `name_` (and so on) if the program uses it.
    fn fresh(&self, name: &str) -> String {
        let mut name = name.to_string();
        while self.taken.contains(&name) {
            name.push('_');
        }
        name
    }
}

/// The statement argument of a nest's commands (`"3, "`; empty when the recipe has one
/// nest): the deepest of `stmts` inside every loop of `needed`.
fn statement_arg(p: &Program, stmts: &[StatementId], needed: &[LoopId], several: bool) -> String {
    if !several {
        return String::new();
    }
    let stmt = stmts
        .iter()
        .filter(|s| needed.iter().all(|l| p.statements[**s].loops.contains(l)))
        .max_by_key(|s| p.statements[**s].loops.len())
        .copied()
        .unwrap_or(stmts[0]);
    format!("{stmt}, ")
}

#[allow(clippy::too_many_arguments)]
fn write_nest(
    r: &mut String,
    p: &Program,
    names: &Names,
    stmts: &[StatementId],
    v: &Variant,
    sfx: &str,
    kernel: &str,
    several: bool,
) {
    let part = &v.partition;
    let name = |l: LoopId| p.loops[l].iterator.clone();
    if !part.reduce.is_empty() {
        write_sum(r, p, names, stmts, v, sfx, kernel, several);
        return;
    }
    if v.register_tiled() {
        write_outer(r, p, names, stmts, v, sfx, kernel, several);
        return;
    }
    let tiled: Vec<(LoopId, &str)> = std::iter::once((part.x, "TX"))
        .chain(part.y.map(|y| (y, "TY")))
        .chain(v.placement.tiled.map(|k| (k, "TK")))
        .collect();
    write_params(r, v, sfx);
    // The statement the commands name: the deepest inside every tiled loop.
    let needed: Vec<LoopId> = tiled.iter().map(|(l, _)| *l).chain(part.block_y).collect();
    let stmt_arg = statement_arg(p, stmts, &needed, several);
    let controls: Vec<String> = tiled
        .iter()
        .map(|(l, _)| names.control(&name(*l), sfx))
        .collect();
    let quoted = |v: &[String]| -> String {
        v.iter()
            .map(|s| format!("\"{s}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let loops: Vec<String> = tiled.iter().map(|(l, _)| name(*l)).collect();
    let sizes: Vec<String> = tiled
        .iter()
        .map(|(_, role)| format!("{role}{sfx}"))
        .collect();
    let control_fields: Vec<String> = controls
        .iter()
        .enumerate()
        .map(|(j, c)| format!("l{}_control=\"{c}\"", j + 1))
        .collect();
    // The order: host loops, blocks, the staged loop's tiles, threads, the rest.
    let mut order: Vec<String> = part.host.iter().map(|l| name(*l)).collect();
    order.extend(part.block_y.map(name));
    let x_control = controls[0].clone();
    let y_control = part.y.map(|_| controls[1].clone());
    let k_control = v
        .placement
        .tiled
        .map(|_| controls[controls.len() - 1].clone());
    order.extend(y_control.clone());
    order.push(x_control.clone());
    order.extend(k_control.clone());
    order.extend(part.y.map(name));
    order.push(name(part.x));
    order.extend(part.inner.iter().map(|l| name(*l)));
    if let Some(k) = v.placement.tiled {
        if !part.inner.contains(&k) {
            order.push(name(k));
        }
    }
    let _ = writeln!(
        r,
        "tile_by_index({stmt_arg}{{{}}}, {{{}}}, {{{}}}, {{{}}})",
        quoted(&loops),
        sizes.join(", "),
        control_fields.join(", "),
        quoted(&order)
    );
    // RT rows per thread, TY / RT apart: the y loop tiled again with its tile loop
    // outside its control (a cyclic tile), the control innermost and unrolled.
    let rows = match (v.value("RT"), part.y) {
        (Some(_), Some(y)) => {
            let (y, yr) = (name(y), names.fresh(&format!("{}r{sfx}", name(y))));
            order.push(yr.clone());
            let _ = writeln!(
                r,
                "tile_by_index({stmt_arg}{{\"{y}\"}}, {{TY{sfx} / RT{sfx}}}, {{l1_control=\"{yr}\"}}, {{{}}})",
                quoted(&order)
            );
            Some(yr)
        }
        _ => None,
    };
    let mut blocks = vec![x_control];
    blocks.extend(y_control);
    blocks.extend(part.block_y.map(name));
    let mut threads = vec![name(part.x)];
    threads.extend(part.y.map(name));
    let reduce = if part.reduce.is_empty() {
        String::new()
    } else {
        let arrays: Vec<String> = part
            .reduce
            .iter()
            .map(|a| p.arrays[*a].name.clone())
            .collect();
        format!(", reduce={{{}}}", quoted(&arrays))
    };
    let _ = writeln!(
        r,
        "cudaize({stmt_arg}\"{kernel}\", {{}}, {{block={{{}}}, thread={{{}}}{reduce}}})",
        quoted(&blocks),
        quoted(&threads)
    );
    let copy_level = k_control.unwrap_or_else(|| "tx".to_string());
    write_copies(
        r,
        p,
        v,
        &copy_level,
        |a| {
            if p.arrays[a].extents.len() >= 2 {
                "-16".to_string()
            } else {
                "0".to_string()
            }
        },
        |_| String::new(),
    );
    if let Some(yr) = rows {
        let _ = writeln!(r, "unroll({stmt_arg}\"{yr}\")");
    }
}

/// The data-placement commands of a variant: shared-memory copies (each array's pad and
/// options from `shared_args`), register copies at `copy_level`, constant memory, the
/// read-only cache.
fn write_copies(
    r: &mut String,
    p: &Program,
    v: &Variant,
    copy_level: &str,
    shared_args: impl Fn(crate::poly::ArrayId) -> String,
    register_args: impl Fn(crate::poly::ArrayId) -> String,
) {
    for a in &v.placement.shared {
        let _ = writeln!(
            r,
            "copy_to_shared(\"tx\", \"{}\", {})",
            p.arrays[*a].name,
            shared_args(*a)
        );
    }
    for a in &v.placement.registers {
        let _ = writeln!(
            r,
            "copy_to_registers(\"{copy_level}\", \"{}\"{})",
            p.arrays[*a].name,
            register_args(*a)
        );
    }
    for a in &v.placement.constant {
        let _ = writeln!(r, "copy_to_constant(\"{}\")", p.arrays[*a].name);
    }
    for a in &v.placement.read_only_cache {
        let _ = writeln!(r, "copy_to_texture(\"{}\")", p.arrays[*a].name);
    }
}

/// The commands of the outer-product form (`recipes/sgemm_outer.lua`): the thread loops
/// and the staged loop tiled by the register tile and TK, the threads' control loops by
/// the block tile; the staged loop runs outside the register tile, which is unrolled
/// whole with the TK iterations of a shared tile.
#[allow(clippy::too_many_arguments)]
fn write_outer(
    r: &mut String,
    p: &Program,
    names: &Names,
    stmts: &[StatementId],
    v: &Variant,
    sfx: &str,
    kernel: &str,
    several: bool,
) {
    let part = &v.partition;
    let name = |l: LoopId| p.loops[l].iterator.clone();
    let (Some(y), Some(k)) = (part.y, v.placement.tiled) else {
        unreachable!("the outer-product form has a y loop and a staged loop");
    };
    write_params(r, v, sfx);
    let stmt_arg = statement_arg(p, stmts, &[part.x, y, k], several);
    let (x, y, k) = (name(part.x), name(y), name(k));
    let fresh = |base: &str, what: &str| names.fresh(&format!("{base}{what}{sfx}"));
    let (xt, xr, yt, yr) = (
        fresh(&x, "t"),
        fresh(&x, "r"),
        fresh(&y, "t"),
        fresh(&y, "r"),
    );
    let (xx, yy, kk) = (
        names.control(&x, sfx),
        names.control(&y, sfx),
        names.control(&k, sfx),
    );
    let host: Vec<String> = part
        .host
        .iter()
        .map(|l| format!("\"{}\", ", name(*l)))
        .collect();
    let host = host.concat();
    // The loops on the threads, and those each thread runs its register tile with
    // (unrolled below).
    let (threads, (xr, yr)) = if v.interleaved {
        // Block tiles, then each one's rows and columns TY / RY and TX / RX apart: the
        // tile loops stay on the threads, their controls (RY and RX values) innermost.
        let _ = writeln!(
            r,
            "tile_by_index({stmt_arg}{{\"{y}\", \"{x}\", \"{k}\"}}, {{TY{sfx}, TX{sfx}, TK{sfx}}}, {{l1_control=\"{yy}\", l2_control=\"{xx}\", l3_control=\"{kk}\"}}, {{{host}\"{yy}\", \"{xx}\", \"{kk}\", \"{y}\", \"{x}\", \"{k}\"}})"
        );
        let _ = writeln!(
            r,
            "tile_by_index({stmt_arg}{{\"{y}\", \"{x}\"}}, {{TY{sfx} / RY{sfx}, TX{sfx} / RX{sfx}}}, {{l1_control=\"{yr}\", l2_control=\"{xr}\"}}, {{{host}\"{yy}\", \"{xx}\", \"{kk}\", \"{y}\", \"{x}\", \"{k}\", \"{yr}\", \"{xr}\"}})"
        );
        ((x.clone(), y.clone()), (xr, yr))
    } else {
        let _ = writeln!(
            r,
            "tile_by_index({stmt_arg}{{\"{y}\", \"{x}\", \"{k}\"}}, {{RY{sfx}, RX{sfx}, TK{sfx}}}, {{l1_control=\"{yt}\", l1_tile=\"{yr}\", l2_control=\"{xt}\", l2_tile=\"{xr}\", l3_control=\"{kk}\"}}, {{{host}\"{yt}\", \"{xt}\", \"{kk}\", \"{yr}\", \"{xr}\", \"{k}\"}})"
        );
        let _ = writeln!(
            r,
            "tile_by_index({stmt_arg}{{\"{yt}\", \"{xt}\"}}, {{TY{sfx} / RY{sfx}, TX{sfx} / RX{sfx}}}, {{l1_control=\"{yy}\", l2_control=\"{xx}\"}}, {{{host}\"{yy}\", \"{xx}\", \"{kk}\", \"{yt}\", \"{xt}\", \"{k}\", \"{yr}\", \"{xr}\"}})"
        );
        ((xt, yt), (xr, yr))
    };
    let _ = writeln!(
        r,
        "cudaize({stmt_arg}\"{kernel}\", {{}}, {{block={{\"{xx}\", \"{yy}\"}}, thread={{\"{}\", \"{}\"}}}})",
        threads.0, threads.1
    );
    if v.wide {
        let _ = writeln!(
            r,
            "-- Wide copies: each thread moves a vector of its tiles (one 64- or 128-bit load and store) per copy instruction, and its accumulators a row at a time where the rows are vectors, which the emulator ranked faster."
        );
    }
    write_copies(
        r,
        p,
        v,
        &kk,
        |a| {
            let elem = p.arrays[a].elem;
            let pad = super::variants::outer_pad(elem.size_bytes() as i64);
            match crate::transform::vector::widths(elem).next() {
                Some(w) if v.wide => format!("{pad}, {{width={w}}}"),
                _ => pad.to_string(),
            }
        },
        |a| {
            // A thread's row of RX accumulators, loaded and stored in vectors (next to
            // each other only in blocks).
            let rx = v.value("RX").unwrap_or(1);
            match crate::transform::vector::widths(p.arrays[a].elem).next() {
                Some(w) if v.wide && !v.interleaved && rx % w == 0 => format!(", {{width={w}}}"),
                _ => String::new(),
            }
        },
    );
    if v.double {
        let _ = writeln!(
            r,
            "-- Double-buffered: each iteration of `{kk}` copies the next tiles (cp.async) while the threads compute on these, which the emulator ranked faster."
        );
        let _ = writeln!(r, "double_buffer(\"{kk}\", {{async=true}})");
    }
    for l in [&xr, &yr, &k] {
        let _ = writeln!(r, "unroll({stmt_arg}\"{l}\")");
    }
    // A register tile of 64 words takes ptxas just over 128 registers (130 for 8 x 4
    // doubles), one 256-thread block per SM; bounded to 128, two fit. Measured on an
    // H100: the default DGEMM 1.26 -> 1.07 ms at 2048^3, 9.82 -> 8.11 ms at 4096^3
    // (benchmarks/results/launch-bounds-*-e09aad5.json).
    let words = v
        .placement
        .registers
        .iter()
        .map(|a| (p.arrays[*a].elem.size_bytes() as i64 / 4).max(1))
        .max()
        .unwrap_or(1);
    let tile = v.value("RX").unwrap_or(1) * v.value("RY").unwrap_or(1) * words;
    if tile >= 64 {
        let _ = writeln!(
            r,
            "-- {tile} words of accumulators a thread: registers bounded so that two blocks fit on an SM."
        );
        let _ = writeln!(r, "launch_bounds(\"{kernel}\", 2)");
    }
}

/// The commands of a parallel sum, which keep the order the sum runs in (a reduction may
/// not be reordered): the threads' loops stay where they are, their tile loops run inside
/// each thread, and the blocks take the outermost level.
#[allow(clippy::too_many_arguments)]
fn write_sum(
    r: &mut String,
    p: &Program,
    names: &Names,
    stmts: &[StatementId],
    v: &Variant,
    sfx: &str,
    kernel: &str,
    several: bool,
) {
    let part = &v.partition;
    let name = |l: LoopId| p.loops[l].iterator.clone();
    write_params(r, v, sfx);
    // A statement split off: its own nest and kernel, and statement numbers from here on.
    if let (Some((s, l)), Some(d)) = (part.split, part.distributed_in(p)) {
        let (i, ii) = (
            name(l),
            names.fresh(&format!("{}{}s{sfx}", name(l), name(l))),
        );
        let outside: Vec<String> = p.statements[s]
            .loops
            .iter()
            .take_while(|x| **x != l)
            .map(|x| format!("\"{}\", ", name(*x)))
            .collect();
        // Only the split statement is named: the sum's statements keep their nest together.
        let _ = writeln!(r, "distribute({{{s}}}, \"{}\")", name(d));
        let _ = writeln!(
            r,
            "tile_by_index({s}, {{\"{i}\"}}, {{256}}, {{l1_control=\"{ii}\"}}, {{{}\"{ii}\", \"{i}\"}})",
            outside.concat()
        );
        let _ = writeln!(
            r,
            "cudaize({s}, \"{kernel}_init\", {{}}, {{block={{\"{ii}\"}}, thread={{\"{i}\"}}}})"
        );
    }
    let stmt_arg = statement_arg(p, stmts, &[part.x], several || part.split.is_some());
    let x = name(part.x);
    let xx = names.control(&x, sfx);
    let host: Vec<String> = part
        .host
        .iter()
        .map(|l| format!("\"{}\"", name(*l)))
        .collect();
    let order = |rest: &[String]| -> String {
        host.iter()
            .cloned()
            .chain(rest.iter().map(|s| format!("\"{s}\"")))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (blocks, threads) = if let Some(sum) = part.blocks_sum {
        let (sum, sx) = (name(sum), names.control(&name(sum), sfx));
        let _ = writeln!(
            r,
            "tile_by_index({stmt_arg}{{\"{x}\", \"{sum}\"}}, {{TX{sfx}, TR{sfx}}}, {{l1_control=\"{xx}\", l2_control=\"{sx}\"}}, {{{}}})",
            order(&[xx.clone(), sx.clone(), x.clone(), sum.clone()])
        );
        (vec![xx.clone(), sx], vec![x.clone()])
    } else if let Some(y) = part.y {
        let y = name(y);
        let yy = names.control(&y, sfx);
        let _ = writeln!(
            r,
            "tile_by_index({stmt_arg}{{\"{y}\", \"{x}\"}}, {{TY{sfx}, TX{sfx}}}, {{l1_control=\"{yy}\", l2_control=\"{xx}\"}}, {{{}}})",
            order(&[yy.clone(), y.clone(), xx.clone(), x.clone()])
        );
        (vec![yy], vec![x.clone(), y])
    } else if let Some(b) = part.block_y {
        let b = name(b);
        let _ = writeln!(
            r,
            "tile_by_index({stmt_arg}{{\"{x}\"}}, {{TX{sfx}}}, {{l1_control=\"{xx}\"}}, {{{}}})",
            order(&[b.clone(), xx.clone(), x.clone()])
        );
        (vec![b], vec![x.clone()])
    } else {
        let xb = names.fresh(&format!("{x}b{sfx}"));
        let _ = writeln!(
            r,
            "tile_by_index({stmt_arg}{{\"{x}\"}}, {{TX{sfx} * TR{sfx}}}, {{l1_control=\"{xb}\"}}, {{{}}})",
            order(&[xb.clone(), x.clone()])
        );
        let _ = writeln!(
            r,
            "tile_by_index({stmt_arg}{{\"{x}\"}}, {{TX{sfx}}}, {{l1_control=\"{xx}\"}}, {{{}}})",
            order(&[xb.clone(), xx.clone(), x.clone()])
        );
        (vec![xb], vec![x.clone()])
    };
    let quoted = |v: &[String]| -> String {
        v.iter()
            .map(|s| format!("\"{s}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let reduce: Vec<String> = part
        .reduce
        .iter()
        .map(|a| p.arrays[*a].name.clone())
        .collect();
    let _ = writeln!(
        r,
        "cudaize({stmt_arg}\"{kernel}\", {{}}, {{block={{{}}}, thread={{{}}}, reduce={{{}}}}})",
        quoted(&blocks),
        quoted(&threads),
        quoted(&reduce)
    );
    for a in &v.placement.constant {
        let _ = writeln!(r, "copy_to_constant(\"{}\")", p.arrays[*a].name);
    }
    for a in &v.placement.read_only_cache {
        let _ = writeln!(r, "copy_to_texture(\"{}\")", p.arrays[*a].name);
    }
}

/// `TX = param("TX", {32, 64}, 64)` for each parameter of the variant.
fn write_params(r: &mut String, v: &Variant, sfx: &str) {
    for param in &v.params {
        let candidates: Vec<String> = param.candidates.iter().map(|c| c.to_string()).collect();
        let _ = writeln!(
            r,
            "{0}{sfx} = param(\"{0}{sfx}\", {{{1}}}, {2})",
            param.role,
            candidates.join(", "),
            param.value
        );
    }
}
