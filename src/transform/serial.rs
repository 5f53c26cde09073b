//! Serial kernels: `cudaize("name", {}, {})`, a mapping with no block and no thread loops,
//! makes a kernel that one thread of one block runs (`<<<1, 1>>>`), in program order. It
//! is the fallback for code that cannot run in parallel (all its loops carry
//! dependences) and the home of statements outside all loops, and it is always legal:
//! one thread runs its statements in their order, and kernels launch in program order.
//!
//! A serial kernel takes whole *top-level items* (outermost loop nests, and statements
//! outside all loops) whose statements are in no kernel yet: with a statement number, the
//! maximal run of consecutive such items that holds that statement; without one, the
//! only such run (several are an error that lists them).

use super::cudaize::Kernel;
use super::{StmtKind, TResult, TransformError, Transformed};
use crate::poly::ArrayId;

pub fn cudaize_serial(
    t: &mut Transformed,
    name: &str,
    statement: Option<usize>,
    sizes: Vec<(ArrayId, String)>,
) -> TResult<()> {
    let items = top_level_items(t);
    let free = |item: &[usize]| item.iter().all(|s| t.kernel_of(*s).is_none());
    let describe = |s: usize| {
        match t.statements[s].kind {
        StmtKind::Compute(id) => (id, t.program.statements[id].line),
        _ => panic!("only kernels hold copies and barriers, and a serial kernel takes no kernel's statements"),
    }
    };
    // Maximal runs of consecutive free items, as ranges of item indices.
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    for (k, item) in items.iter().enumerate() {
        if !free(item) {
            continue;
        }
        match runs.last_mut() {
            Some(r) if r.end == k => r.end = k + 1,
            _ => runs.push(k..k + 1),
        }
    }
    // A run of whole top-level items, or of items under loops kept on the host.
    let whole = |run: std::ops::Range<usize>| -> (Vec<usize>, Vec<usize>) {
        let mut statements: Vec<usize> = items[run].iter().flatten().copied().collect();
        statements.sort_unstable();
        (statements, Vec::new())
    };
    let (statements, host_levels) = match statement {
        Some(s) => {
            let (id, line) = describe(s);
            if let Some(k) = t.kernel_of(s) {
                return Err(TransformError::new(format!(
                    "statement {id} (line {line}) is in kernel `{}` already",
                    t.kernels[k].name
                ))
                .hint("give the number of a statement that is in no kernel yet"));
            }
            let item = items
                .iter()
                .position(|i| i.contains(&s))
                .expect("every statement is in a top-level item");
            match runs.iter().find(|r| r.contains(&item)) {
                Some(r) => whole(r.clone()),
                None => match nested_run(t, s) {
                    Some(found) => found,
                    None => {
                        let k = items[item]
                            .iter()
                            .find_map(|x| t.kernel_of(*x))
                            .expect("an item that is not free holds a kernel's statement");
                        return Err(TransformError::new(format!(
                        "statement {id} (line {line}) shares its outermost loop with statements of kernel `{}`",
                        t.kernels[k].name
                    ))
                    .note("a serial kernel takes whole loop nests")
                    .hint("give the other statements of the nest a kernel first with a statement number, or make one serial kernel of the whole nest before mapping any of it"));
                    }
                },
            }
        }
        None => match runs.as_slice() {
            [one] => whole(one.clone()),
            [] => {
                // Statements left in loop nests that other kernels took part of.
                let left = (0..t.statements.len()).find(|s| t.kernel_of(*s).is_none());
                return Err(match left {
                    None => TransformError::new("every statement is in a kernel already")
                        .hint("remove this cudaize"),
                    Some(s) => {
                        let (id, line) = describe(s);
                        let k = items
                            .iter()
                            .find(|i| i.contains(&s))
                            .and_then(|i| i.iter().find_map(|x| t.kernel_of(*x)))
                            .expect("a statement in no run shares its item with a kernel");
                        TransformError::new(format!(
                            "statement {id} (line {line}) is in no kernel, but shares its outermost loop with kernel `{}`",
                            t.kernels[k].name
                        ))
                        .note("a serial kernel takes whole loop nests")
                        .hint("give it a kernel with block or thread loops, or make one serial kernel of the whole nest before mapping any of it")
                    }
                });
            }
            several => {
                let listed: Vec<String> = several
                    .iter()
                    .map(|r| {
                        let members: Vec<(usize, usize)> = items[r.clone()]
                            .iter()
                            .flatten()
                            .map(|s| describe(*s))
                            .collect();
                        let ids: Vec<String> =
                            members.iter().map(|(id, _)| id.to_string()).collect();
                        let lines: Vec<String> =
                            members.iter().map(|(_, l)| l.to_string()).collect();
                        format!(
                            "statement{} {} (line{} {})",
                            if ids.len() == 1 { "" } else { "s" },
                            ids.join(", "),
                            if lines.len() == 1 { "" } else { "s" },
                            lines.join(", ")
                        )
                    })
                    .collect();
                let first = describe(items[several[0].start][0]).0;
                return Err(TransformError::new(format!(
                    "the statements in no kernel form {} separate runs, and a serial kernel takes one",
                    several.len()
                ))
                .note(format!("the runs: {}", listed.join("; ")))
                .hint(format!(
                    "give a statement number first to choose a run: `cudaize({first}, \"{name}\", {{}}, {{}})`"
                )));
            }
        },
    };
    t.kernels.push(Kernel {
        name: name.to_string(),
        blocks: Vec::new(),
        threads: Vec::new(),
        statements,
        host_levels,
        sizes,
        reductions: Vec::new(),
        min_blocks: None,
    });
    Ok(())
}

/// For statement `s` inside loops that the nest's other kernels keep on the host (a loop
/// of launches): the run of consecutive items in no kernel under the innermost such loop
/// that holds `s`, and those loops. One thread runs the run at each iteration of them,
/// launched between the other kernels in program order. `None` when no kernel keeps a
/// loop around `s` on the host, or one maps a loop around it to blocks or threads.
fn nested_run(t: &Transformed, s: usize) -> Option<(Vec<usize>, Vec<usize>)> {
    let levels: Vec<usize> = t.statements[s].levels.iter().map(|(l, _)| *l).collect();
    let mut depth = 0;
    for k in &t.kernels {
        for &x in &k.statements {
            let shared = levels
                .iter()
                .zip(&t.statements[x].levels)
                .take_while(|(a, (b, _))| *a == b)
                .count();
            if shared == 0 {
                continue;
            }
            if k.host_levels.len() < shared || k.host_levels[..shared] != levels[..shared] {
                return None;
            }
            depth = depth.max(shared);
        }
    }
    if depth == 0 {
        return None;
    }
    let host = levels[..depth].to_vec();
    // The items under those loops, by their position in the innermost one's body.
    let positions = t.positions();
    let mut items: Vec<(usize, Vec<usize>)> = Vec::new();
    for (x, st) in t.statements.iter().enumerate() {
        let under = st.levels.len() >= depth
            && st.levels[..depth]
                .iter()
                .map(|(l, _)| *l)
                .eq(host.iter().copied());
        if !under {
            continue;
        }
        let at = positions[x][depth];
        match items.iter_mut().find(|(p, _)| *p == at) {
            Some((_, members)) => members.push(x),
            None => items.push((at, vec![x])),
        }
    }
    items.sort_by_key(|(at, _)| *at);
    let free = |item: &[usize]| item.iter().all(|x| t.kernel_of(*x).is_none());
    let k = items.iter().position(|(_, m)| m.contains(&s))?;
    if !free(&items[k].1) {
        return None;
    }
    let (mut lo, mut hi) = (k, k + 1);
    while lo > 0 && free(&items[lo - 1].1) {
        lo -= 1;
    }
    while hi < items.len() && free(&items[hi].1) {
        hi += 1;
    }
    let mut statements: Vec<usize> = items[lo..hi].iter().flat_map(|(_, m)| m.clone()).collect();
    statements.sort_unstable();
    Some((statements, host))
}

/// The statements of each top-level item (an outermost loop nest, or a statement outside
/// all loops), in program order.
fn top_level_items(t: &Transformed) -> Vec<Vec<usize>> {
    let positions = t.positions();
    let mut items: Vec<(usize, Vec<usize>)> = Vec::new();
    for (s, p) in positions.iter().enumerate() {
        match items.iter_mut().find(|(at, _)| *at == p[0]) {
            Some((_, members)) => members.push(s),
            None => items.push((p[0], vec![s])),
        }
    }
    items.sort_by_key(|(at, _)| *at);
    items.into_iter().map(|(_, members)| members).collect()
}
