//! The variables a C nest declares inside its loops (`float t = ...;` in a loop body). The
//! dependence analysis gives such a variable one copy per iteration of its loops
//! ([`crate::deps::privatize`]); a kernel gives it one local variable per thread, alive
//! for one launch. Codegen refuses what that cannot hold.

use super::{thread_value, value_of};
use crate::deps::DepKind;
use crate::diag::{Diagnostic, Diagnostics};
use crate::poly::isl::{Ctx, IslError, Map};
use crate::poly::memo::Memo;
use crate::poly::ArrayKind;
use crate::transform::legality::compute_statement;
use crate::transform::{LevelId, StmtKind, Transformed};

/// The checks of the module, the loops' first.
pub(super) fn check(t: &Transformed) -> Result<(), Diagnostics> {
    check_loops(t)?;
    check_lifetimes(t)
}

/// A variable declared inside loops has one copy per iteration of those loops; in a
/// kernel it becomes one local variable per thread, which is right only if every thread
/// finishes with one copy before it starts the next: the loops it is private to must stay
/// outside the other sequential loops of the statements that use it.
fn check_loops(t: &Transformed) -> Result<(), Diagnostics> {
    let p = &t.program;
    let mut diags = Vec::new();
    for (a, array) in p.arrays.iter().enumerate() {
        let ArrayKind::Private { loops } = &array.kind else {
            continue;
        };
        let own = |l: LevelId| -> bool {
            // A source loop the variable is private to, or a tile control of one.
            loops.contains(&l)
                || t.levels
                    .iter()
                    .enumerate()
                    .any(|(x, lv)| loops.contains(&x) && lv.tile.is_some_and(|tl| tl.control == l))
        };
        for (s, st) in t.statements.iter().enumerate() {
            let StmtKind::Compute(id) = st.kind else {
                continue;
            };
            let statement = &p.statements[id];
            let uses = std::iter::once(&statement.write)
                .chain(&statement.reads)
                .any(|x| p.accesses[*x].array == a);
            if !uses {
                continue;
            }
            let hardware = t
                .kernel_of(s)
                .map(|k| t.kernels[k].hardware_levels())
                .unwrap_or_default();
            let sequential: Vec<LevelId> = st
                .levels
                .iter()
                .map(|(l, _)| *l)
                .filter(|l| !hardware.contains(l))
                .collect();
            if let Some(first_other) = sequential.iter().position(|l| !own(*l)) {
                if let Some(late) = sequential[first_other..].iter().find(|l| own(**l)) {
                    diags.push(
                        Diagnostic::error(p.unit.source, statement.span, format!(
                            "`{}` is declared inside loop `{}`, which now runs inside loop `{}`",
                            array.name, t.levels[*late].name, t.levels[sequential[first_other]].name
                        ))
                        .with_secondary(p.unit.source, array.span, "declared here")
                        .with_note("each thread keeps one copy of the variable, so its loop must finish an iteration before the next begins")
                        .with_hint(format!("keep loop `{}` outside loop `{}`, or map it to threads", t.levels[*late].name, t.levels[sequential[first_other]].name)),
                    );
                    break;
                }
            }
        }
    }
    if diags.is_empty() {
        Ok(())
    } else {
        Err(diags)
    }
}

/// Each value of a declared variable must reach its reads in the thread that wrote it and
/// in the same launch: the statement that sets it and the one that reads it in one kernel,
/// at the same values of the kernel's host loops, blocks and threads. A reschedule can
/// move them apart (isl's order put a definition and its use at different steps of a host
/// loop, one launch each: found by the nest fuzzer); the sequential order stays right, the
/// kernel reads a variable no thread of its launch wrote.
fn check_lifetimes(t: &Transformed) -> Result<(), Diagnostics> {
    let p = &t.program;
    let ctx = Ctx::new();
    let mut diags: Diagnostics = Vec::new();
    // One error per variable.
    let mut refused = Vec::new();
    for d in &t.deps.dependences {
        if d.kind != DepKind::Flow
            || !matches!(p.arrays[d.array].kind, ArrayKind::Private { .. })
            || refused.contains(&d.array)
        {
            continue;
        }
        let (src, sink) = (compute_statement(t, d.source), compute_statement(t, d.sink));
        let (Some(k), Some(k2)) = (t.kernel_of(src), t.kernel_of(sink)) else {
            continue;
        };
        let reaches = k == k2
            && reaches_in_thread(t, &ctx, k, src, sink, &d.relation)
                .map_err(|e| vec![super::isl_failure(e)])?;
        if reaches {
            continue;
        }
        refused.push(d.array);
        let array = &p.arrays[d.array];
        let (set, read) = (&t.kernels[k].name, &t.kernels[k2].name);
        let message = if k == k2 {
            format!(
                "`{}` is set and read in kernel `{set}` by different threads or launches",
                array.name
            )
        } else {
            format!(
                "`{}` is set in kernel `{set}` and read in kernel `{read}`",
                array.name
            )
        };
        diags.push(
            Diagnostic::error(p.unit.source, p.statements[d.sink].span, message)
                .with_label("reads the value set there")
                .with_secondary(p.unit.source, p.statements[d.source].span, "set here")
                .with_note("a variable declared inside loops is one local variable per thread, alive for one launch of its kernel")
                .with_hint("keep the statements that set and read it in one kernel, at the same iteration of the loops that are host loops, blocks or threads (a `reschedule` may have moved them apart)"),
        );
    }
    if diags.is_empty() {
        Ok(())
    } else {
        Err(diags)
    }
}

/// Whether every instance pair of `relation` (from `src`'s instances to `sink`'s) runs at
/// the same values of kernel `k`'s host loops and blocks, and on the same thread: along
/// each thread dimension where `src` has a thread, `sink` has the same one.
fn reaches_in_thread(
    t: &Transformed,
    ctx: &Ctx,
    k: usize,
    src: usize,
    sink: usize,
    relation: &str,
) -> Result<bool, IslError> {
    let kernel = &t.kernels[k];
    let levels: Vec<LevelId> = kernel
        .host_levels
        .iter()
        .chain(&kernel.blocks)
        .copied()
        .collect();
    let mut values: [Vec<String>; 2] =
        [src, sink].map(|s| levels.iter().map(|l| value_of(t, s, *l)).collect());
    for dim in 0..kernel.threads.len() {
        match (
            thread_value(t, kernel, src, dim),
            thread_value(t, kernel, sink, dim),
        ) {
            (Some(a), Some(b)) => {
                values[0].push(a);
                values[1].push(b);
            }
            // Every thread sets it, or (the sink on every thread) some do not.
            (None, _) => {}
            (Some(_), None) => return Ok(false),
        }
    }
    let [at_src, at_sink] = [(src, &values[0]), (sink, &values[1])].map(|(s, v)| {
        format!(
            "{}{{ {} -> [{}] }}",
            t.params_prefix(),
            t.tuple(s),
            v.join(", ")
        )
    });
    // Every variant of a nest asks again (the ranking compiles dozens).
    let key = format!("{at_src}\n{at_sink}\n{relation}");
    REACHES.get_or(key, || {
        let same = Map::parse(ctx, &at_src)?.apply_range(&Map::parse(ctx, &at_sink)?.reverse()?)?;
        Map::parse(ctx, relation)?
            .wrapped()?
            .subtract(&same.wrapped()?)?
            .is_empty()
    })
}

/// [`reaches_in_thread`]'s answers in this process, by their texts.
static REACHES: Memo<bool> = Memo::new(4096);
