//! Strategy stage: writes a recipe for a program that comes without one (DESIGN §9; seed
//! 004, §5.3, Phase I "computation partitioning").
//!
//! Entry point: [`partition`]. Today it makes one recipe, with no data placement: each
//! loop nest whose outer loops carry dependences keeps them on the host (time steps, a
//! loop of launches); under them, the first parallel loop and a parallel loop directly
//! inside it are tiled and mapped to blocks and threads, the one that indexes the last
//! dimension of the written array on `threadIdx.x` so that writes coalesce. Loops inside
//! the mapped ones, parallel or not, run in each thread. The recipe goes through the
//! normal recipe interpreter, so every step is checked against the dependences.

use crate::deps::{Dependences, LoopKind};
use crate::poly::affine::Var;
use crate::poly::{LoopId, Program};
use std::fmt::Write as _;

/// Threads along `threadIdx.x` for a 2-D mapping, and along `threadIdx.y`.
const TILE_X: i64 = 32;
const TILE_Y: i64 = 8;
/// Threads per block for a 1-D mapping.
const TILE_1D: i64 = 128;

/// A generated recipe, with the reasons for its decisions.
#[derive(Clone, Debug)]
pub struct Strategy {
    /// Recipe text, commented so that a person can read and edit it.
    pub recipe: String,
}

/// One kernel to make: its statements, the loops mapped (x first) and its name.
struct Nest {
    first_statement: usize,
    host: Vec<LoopId>,
    mapped: Vec<LoopId>,
    /// The array the first statement writes, and whether `mapped[0]` indexes its last
    /// dimension.
    written: String,
    coalesced: bool,
}

/// Makes the Phase I recipe of `program`, or says why there is none.
pub fn partition(program: &Program, deps: &Dependences) -> Result<Strategy, String> {
    let p = program;
    let children = |parent: Option<LoopId>| -> Vec<LoopId> {
        let mut c: Vec<LoopId> = (0..p.loops.len())
            .filter(|&l| p.loops[l].parent == parent)
            .collect();
        c.sort_by_key(|&l| p.loops[l].position);
        c
    };
    let statements_in = |l: LoopId| -> Vec<usize> {
        (0..p.statements.len())
            .filter(|&s| p.statements[s].loops.contains(&l))
            .collect()
    };
    let top_statements: Vec<usize> = (0..p.statements.len())
        .filter(|&s| p.statements[s].loops.is_empty())
        .collect();
    if let Some(&s) = top_statements.first() {
        return Err(format!(
            "statement {} (line {}) is outside every loop; gpucc puts every statement in a kernel",
            p.statements[s].name, p.statements[s].line
        ));
    }
    let mut nests = Vec::new();
    let mut stack: Vec<(LoopId, Vec<LoopId>)> = children(None)
        .into_iter()
        .map(|l| (l, Vec::new()))
        .collect();
    stack.reverse();
    while let Some((l, host)) = stack.pop() {
        if !matches!(deps.loops[l], LoopKind::Parallel) {
            // A loop that carries a dependence stays on the host, around what it holds.
            let inner = children(Some(l));
            let direct = statements_in(l)
                .into_iter()
                .any(|s| p.statements[s].loops.last() == Some(&l));
            if inner.is_empty() || direct {
                return Err(format!(
                    "loop `{}` (line {}) carries a dependence and holds statements directly; gpucc cannot run it on the GPU yet",
                    p.loops[l].iterator, p.loops[l].line
                ));
            }
            let mut host = host.clone();
            host.push(l);
            for c in inner.into_iter().rev() {
                stack.push((c, host.clone()));
            }
            continue;
        }
        // A parallel loop: blocks and threads. A second one directly inside it, holding
        // everything the first holds, makes the mapping 2-D.
        let mut mapped = vec![l];
        let inner = children(Some(l));
        if let [only] = inner.as_slice() {
            let all_inside = statements_in(l) == statements_in(*only);
            if all_inside && matches!(deps.loops[*only], LoopKind::Parallel) {
                mapped.push(*only);
            }
        }
        let statements = statements_in(l);
        // threadIdx.x: the loop that indexes the written array's last dimension.
        let write = &p.accesses[p.statements[statements[0]].write];
        let mut last = Vec::new();
        if let Some(sub) = write.subscripts.last() {
            sub.vars(&mut last);
        }
        let indexes_last = |l: &LoopId| last.contains(&Var::Index(p.loops[*l].iterator.clone()));
        mapped.sort_by_key(|l| !indexes_last(l));
        let coalesced = indexes_last(&mapped[0]);
        nests.push(Nest {
            first_statement: statements[0],
            host,
            mapped,
            written: p.arrays[write.array].name.clone(),
            coalesced,
        });
    }
    if nests.is_empty() {
        return Err("no loop nest".into());
    }
    Ok(Strategy {
        recipe: write_recipe(p, &nests),
    })
}

fn write_recipe(p: &Program, nests: &[Nest]) -> String {
    let mut r = String::new();
    let _ = writeln!(
        r,
        "-- Written by gpucc for {} (Phase I: computation partitioning).",
        p.unit.describe()
    );
    let _ = writeln!(
        r,
        "-- Replay it with --recipe, or edit it: recipes/README.md documents each command."
    );
    // Loop names seen in several nests need the statement number to say which is meant.
    let several = nests.len() > 1;
    for (k, nest) in nests.iter().enumerate() {
        let name = |l: LoopId| p.loops[l].iterator.clone();
        let suffix = if k == 0 { String::new() } else { k.to_string() };
        let control = |l: LoopId| format!("{0}{0}{suffix}", name(l));
        let stmt = if several {
            format!("{}, ", nest.first_statement)
        } else {
            String::new()
        };
        let kernel = if several {
            format!("{}_kernel{k}", p.unit.function)
        } else {
            format!("{}_kernel", p.unit.function)
        };
        let _ = writeln!(r);
        if !nest.host.is_empty() {
            let host: Vec<String> = nest
                .host
                .iter()
                .map(|&l| format!("`{}`", name(l)))
                .collect();
            let _ = writeln!(
                r,
                "-- {} carr{} dependences: {} on the host, around the launches.",
                host.join(", "),
                if host.len() == 1 { "ies" } else { "y" },
                if host.len() == 1 {
                    "it stays"
                } else {
                    "they stay"
                }
            );
        }
        let x = nest.mapped[0];
        let sizes: Vec<i64> = if nest.mapped.len() == 2 {
            vec![TILE_X, TILE_Y]
        } else {
            vec![TILE_1D]
        };
        let _ = writeln!(
            r,
            "-- `{}` carries no dependence: {} threads along x, over blocks{}.",
            name(x),
            sizes[0],
            if nest.mapped.len() == 2 {
                format!("; `{}` too: {} along y", name(nest.mapped[1]), sizes[1])
            } else {
                String::new()
            }
        );
        if nest.coalesced {
            let _ = writeln!(r, "-- `{}` indexes the last dimension of `{}`, so neighbours along x write neighbours (coalesced).", name(x), nest.written);
        } else {
            let _ = writeln!(
                r,
                "-- No mapped loop indexes the last dimension of `{}`: its writes are strided.",
                nest.written
            );
        }
        let loops: Vec<String> = nest
            .mapped
            .iter()
            .map(|&l| format!("\"{}\"", name(l)))
            .collect();
        let size_text: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
        let controls: Vec<String> = nest
            .mapped
            .iter()
            .enumerate()
            .map(|(j, &l)| format!("l{}_control=\"{}\"", j + 1, control(l)))
            .collect();
        let order: Vec<String> = nest
            .mapped
            .iter()
            .map(|&l| format!("\"{}\"", control(l)))
            .chain(nest.mapped.iter().map(|&l| format!("\"{}\"", name(l))))
            .collect();
        let _ = writeln!(
            r,
            "tile_by_index({stmt}{{{}}}, {{{}}}, {{{}}}, {{{}}})",
            loops.join(", "),
            size_text.join(", "),
            controls.join(", "),
            order.join(", ")
        );
        let blocks: Vec<String> = nest
            .mapped
            .iter()
            .map(|&l| format!("\"{}\"", control(l)))
            .collect();
        let _ = writeln!(
            r,
            "cudaize({stmt}\"{kernel}\", {{}}, {{block={{{}}}, thread={{{}}}}})",
            blocks.join(", "),
            loops.join(", ")
        );
    }
    r
}
