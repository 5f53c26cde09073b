//! The dependence report (`gpucc deps`, the recipe command `print_deps`): text for
//! people and JSON for programs.

use super::{DepKind, Dependence, Dependences, LoopKind};
use crate::diag::SourceMap;
use crate::frontend::UnitKind;
use crate::poly::{Program, StatementId};
use serde_json::{json, Value};
use std::fmt::Write;

/// Left-aligned columns separated by two spaces (the last column is not padded).
fn table(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::from("  ");
        for (c, cell) in row.iter().enumerate() {
            line.push_str(cell);
            if c + 1 < row.len() {
                line.push_str(&" ".repeat(widths[c] - cell.chars().count() + 2));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn unit_title(sources: &SourceMap, p: &Program) -> String {
    let file = sources.get(p.unit.source);
    let line = file.line(p.unit.span.start);
    let params = if p.params.is_empty() {
        String::new()
    } else {
        format!(", parameters {}", p.params.join(", "))
    };
    format!("{} ({}:{line}){params}", p.unit.describe(), file.name)
}

fn distance_text(d: &Dependence) -> String {
    let parts: Vec<String> = d.distance.iter().map(|x| x.text()).collect();
    format!("({})", parts.join(", "))
}

fn reduction_text(p: &Program, ops: &[(crate::poly::ReductionOp, usize)]) -> String {
    let parts: Vec<String> = ops
        .iter()
        .map(|(op, a)| format!("{} on {}", op.symbol(), p.arrays[*a].name))
        .collect();
    parts.join(", ")
}

fn loop_kind_text(p: &Program, deps: &Dependences, kind: &LoopKind) -> String {
    match kind {
        LoopKind::Parallel => "parallel".into(),
        LoopKind::Reduction(ops) => format!("reduction ({})", reduction_text(p, ops)),
        LoopKind::Sequential(blocking) => {
            let d = &deps.dependences[blocking[0]];
            let more = if blocking.len() > 1 {
                format!(" and {} more", blocking.len() - 1)
            } else {
                String::new()
            };
            format!(
                "sequential ({} {} -> {} on {}, distance {}{more})",
                d.kind.name(),
                p.statements[d.source].name,
                p.statements[d.sink].name,
                p.arrays[d.array].name,
                distance_text(d)
            )
        }
    }
}

fn loop_names(p: &Program, s: StatementId) -> Vec<String> {
    p.statements[s]
        .loops
        .iter()
        .map(|l| p.loops[*l].iterator.clone())
        .collect()
}

/// The text report of every unit, each under a title with its place in the file.
pub fn text(sources: &SourceMap, programs: &[(Program, Dependences)], show_input: bool) -> String {
    let mut out = String::new();
    for (k, (p, deps)) in programs.iter().enumerate() {
        if k > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "{}", unit_title(sources, p));
        out.push_str(&program_text(p, deps, show_input));
    }
    out
}

/// The loops, statements and dependences of one program.
pub fn program_text(p: &Program, deps: &Dependences, show_input: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "\nloops");
    if p.loops.is_empty() {
        out.push_str("  (none)\n");
    }
    let rows: Vec<Vec<String>> = p
        .loops
        .iter()
        .enumerate()
        .map(|(l, lp)| {
            vec![
                format!("{}{}", "  ".repeat(lp.depth - 1), lp.iterator),
                format!("line {}", lp.line),
                lp.bounds.clone(),
                loop_kind_text(p, deps, &deps.loops[l]),
            ]
        })
        .collect();
    out.push_str(&table(&rows));
    if !deps.privatized.is_empty() {
        let _ = writeln!(out, "\nprivate scalars (declared once, written before read in each iteration: each iteration gets its own copy)");
        let rows: Vec<Vec<String>> = deps
            .privatized
            .iter()
            .map(|v| {
                let names = |ls: &[usize]| -> String {
                    let n: Vec<&str> = ls.iter().map(|l| p.loops[*l].iterator.as_str()).collect();
                    n.join(", ")
                };
                vec![
                    p.arrays[v.array].name.clone(),
                    format!("private to {}", names(&v.loops)),
                    if v.freed.is_empty() {
                        "no loop freed (others still order them)".to_string()
                    } else {
                        format!("no longer sequential: {}", names(&v.freed))
                    },
                ]
            })
            .collect();
        out.push_str(&table(&rows));
    }
    let _ = writeln!(out, "\nstatements");
    let rows: Vec<Vec<String>> = p
        .statements
        .iter()
        .enumerate()
        .map(|(s, st)| {
            let loops = loop_names(p, s);
            vec![
                st.name.clone(),
                format!("line {}", st.line),
                st.text.clone(),
                if loops.is_empty() {
                    "outside loops".into()
                } else {
                    format!("in {}", loops.join(", "))
                },
            ]
        })
        .collect();
    out.push_str(&table(&rows));
    let _ = writeln!(out, "\ndependences");
    if deps.dependences.is_empty() {
        out.push_str("  (none)\n");
    }
    let hidden = deps
        .dependences
        .iter()
        .filter(|d| d.kind == DepKind::Input && !show_input)
        .count();
    let rows: Vec<Vec<String>> = deps
        .dependences
        .iter()
        .filter(|d| show_input || d.kind != DepKind::Input)
        .map(|d| {
            vec![
                d.kind.name().to_string(),
                format!(
                    "{} -> {}",
                    p.statements[d.source].name, p.statements[d.sink].name
                ),
                format!(
                    "{} -> {}",
                    p.accesses[d.source_access].text, p.accesses[d.sink_access].text
                ),
                format!("distance {}", distance_text(d)),
                match d.carried_by {
                    Some(l) => format!("carried by {}", p.loops[l].iterator),
                    None => "loop-independent".into(),
                },
            ]
        })
        .collect();
    out.push_str(&table(&rows));
    if hidden > 0 {
        let _ = writeln!(
            out,
            "  ({hidden} input {}, reuse between reads, not shown: --input lists them)",
            if hidden == 1 {
                "dependence"
            } else {
                "dependences"
            }
        );
    }
    out
}

/// The JSON report: one object with every unit's loops, statements, arrays and
/// dependences (each tagged with its unit's index).
pub fn json(file_name: &str, sources: &SourceMap, programs: &[(Program, Dependences)]) -> String {
    let mut units = Vec::new();
    let mut loops = Vec::new();
    let mut statements = Vec::new();
    let mut arrays = Vec::new();
    let mut dependences = Vec::new();
    for (u, (p, deps)) in programs.iter().enumerate() {
        let file = sources.get(p.unit.source);
        units.push(json!({
            "index": u,
            "kind": match p.unit.kind { UnitKind::Function => "function", UnitKind::Scop(_) => "scop" },
            "function": p.unit.function,
            "line": file.line(p.unit.span.start),
            "params": p.params,
        }));
        for (l, lp) in p.loops.iter().enumerate() {
            let kind = &deps.loops[l];
            let reductions: Vec<Value> = match kind {
                LoopKind::Reduction(ops) => ops
                    .iter()
                    .map(|(op, a)| json!({"op": op.symbol(), "array": p.arrays[*a].name}))
                    .collect(),
                _ => Vec::new(),
            };
            loops.push(json!({
                "unit": u,
                "id": format!("L{l}"),
                "name": lp.iterator,
                "line": lp.line,
                "depth": lp.depth,
                "parent": lp.parent.map(|x| format!("L{x}")),
                "bounds": lp.bounds,
                "step": lp.step,
                "kind": kind.name(),
                "parallel": matches!(kind, LoopKind::Parallel),
                "reduction": matches!(kind, LoopKind::Reduction(_)),
                "reductions": reductions,
            }));
        }
        for (s, st) in p.statements.iter().enumerate() {
            let access_texts = |ids: &[usize]| -> Vec<String> {
                ids.iter().map(|a| p.accesses[*a].text.clone()).collect()
            };
            statements.push(json!({
                "unit": u,
                "name": st.name,
                "line": st.line,
                "text": st.text,
                "loops": loop_names(p, s),
                "domain": crate::poly::simplified_domain(p, s),
                "writes": access_texts(&[st.write]),
                "reads": access_texts(&st.reads),
                "update": st.update.map(|x| x.op.symbol()),
            }));
        }
        for (id, a) in p.arrays.iter().enumerate() {
            let private_to: Vec<&str> = match &a.kind {
                crate::poly::ArrayKind::Private { loops } => loops
                    .iter()
                    .map(|l| p.loops[*l].iterator.as_str())
                    .collect(),
                _ => Vec::new(),
            };
            let privatized = deps.privatized.iter().find(|v| v.array == id);
            let dims: Vec<Option<String>> = a
                .extents
                .iter()
                .map(|e| e.as_ref().map(|x| x.to_string()))
                .collect();
            arrays.push(json!({
                "unit": u,
                "name": a.name,
                "type": a.elem.c_name(),
                "dims": dims,
                "kind": match &a.kind {
                    crate::poly::ArrayKind::Outside => "parameter",
                    crate::poly::ArrayKind::Local => "local",
                    crate::poly::ArrayKind::Private { .. } => "private",
                },
                "private_to": private_to,
                "privatized": privatized.is_some(),
                "freed": privatized
                    .map(|v| v.freed.iter().map(|l| p.loops[*l].iterator.clone()).collect())
                    .unwrap_or_else(Vec::new),
            }));
        }
        for d in &deps.dependences {
            dependences.push(json!({
                "unit": u,
                "kind": d.kind.name(),
                "source": p.statements[d.source].name,
                "sink": p.statements[d.sink].name,
                "array": p.arrays[d.array].name,
                "source_access": p.accesses[d.source_access].text,
                "sink_access": p.accesses[d.sink_access].text,
                "source_line": p.statements[d.source].line,
                "sink_line": p.statements[d.sink].line,
                "distance": d.distance.iter().map(|x| x.exact()).collect::<Vec<_>>(),
                "direction": d.distance.iter().map(|x| x.direction()).collect::<Vec<_>>(),
                "carried_by": d.carried_by.map(|l| p.loops[l].iterator.clone()),
                "carried_by_id": d.carried_by.map(|l| format!("L{l}")),
                "level": d.carried_by.map(|l| p.loops[l].depth),
            }));
        }
    }
    let doc = json!({
        "file": file_name,
        "units": units,
        "loops": loops,
        "statements": statements,
        "arrays": arrays,
        "dependences": dependences,
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".into());
    text.push('\n');
    text
}
