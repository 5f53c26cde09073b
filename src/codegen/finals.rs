//! The values a `#pragma scop` region leaves in loop indices declared before it. The
//! drop-in runs the loops on the GPU, whose threads have indices of their own, so an
//! index the code after the region reads (`for (i = 0; i < n; i++) ...; use(i);`) must be
//! set on the host to what the C leaves in it: the value that ended the loop that ran
//! last.
//!
//! With isl: for each loop over the index, the values its index has when the loop ends
//! (the first value of the progression that fails the condition: one step past the last
//! iteration, or the first value when there is none), at the time its header runs (the
//! 2d+1 schedule of the header: positions and the enclosing loops' indices); the latest
//! such time over every loop of the index (lexicographic maximum) gives the value, as code
//! that isl's AST generator writes (`if (n >= 1) i = n;`).

use super::ir::{self, FinalValue, Node};
use crate::frontend::UnitKind;
use crate::poly::affine::isl_name;
use crate::poly::astbuild;
use crate::poly::isl::{Ctx, IslError, Map, Set, UnionMap};
use crate::poly::{ArrayKind, LoopId, Program};

/// The final values of the loop indices a scop region shares with the code around it.
pub fn final_values(p: &Program, ctx: &Ctx) -> Result<Vec<FinalValue>, IslError> {
    if !matches!(p.unit.kind, UnitKind::Scop(_)) {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for l in &p.loops {
        let var = l.iterator.as_str();
        let outside = p
            .arrays
            .iter()
            .any(|a| a.name == var && a.kind == ArrayKind::Outside && a.is_scalar());
        // A local of the enclosing function that nothing reads after the region keeps no
        // final value (the compilers would warn that it is set but never used).
        let dead = p.unit.dead_after.iter().any(|d| d == var);
        if !outside || dead || seen.contains(&var) {
            continue;
        }
        seen.push(var);
        let loops: Vec<LoopId> = (0..p.loops.len())
            .filter(|&k| p.loops[k].iterator == var)
            .collect();
        out.push(FinalValue {
            var: var.to_string(),
            code: final_value_code(p, ctx, &loops)?,
        });
    }
    Ok(out)
}

/// The loops around `l`, outermost first, and `l`.
fn chain(p: &Program, l: LoopId) -> Vec<LoopId> {
    let mut chain = vec![l];
    while let Some(parent) = p.loops[*chain.last().expect("non-empty")].parent {
        chain.push(parent);
    }
    chain.reverse();
    chain
}

fn final_value_code(p: &Program, ctx: &Ctx, loops: &[LoopId]) -> Result<Vec<Node>, IslError> {
    let width = 2 * p.max_depth() + 1;
    let prefix = p.params_prefix();
    let mut all: Option<Set> = None;
    for &l in loops {
        let lp = &p.loops[l];
        let outer = chain(p, l);
        let outer = &outer[..outer.len() - 1];
        let names: Vec<String> = outer
            .iter()
            .map(|o| isl_name(&p.loops[*o].iterator))
            .collect();
        let index = isl_name(&lp.iterator);
        let tuple = |last: &str| {
            let mut t = names.clone();
            t.push(last.to_string());
            format!("[{}]", t.join(", "))
        };
        // One step past an iteration: the loop ends there when the condition fails.
        let iterations = Set::parse(
            ctx,
            &format!(
                "{prefix}{{ {} : {} and {} }}",
                tuple(&index),
                lp.context,
                lp.iterations
            ),
        )?;
        let step = Map::parse(
            ctx,
            &format!(
                "{prefix}{{ {} -> {} }}",
                tuple(&index),
                tuple(&format!("{index} + {}", lp.step))
            ),
        )?;
        let failing = Set::parse(
            ctx,
            &format!(
                "{prefix}{{ {} : {} and not ({}) }}",
                tuple(&index),
                lp.context,
                lp.bound
            ),
        )?;
        let after_last = iterations.apply(&step)?.intersect(&failing)?;
        // No iteration at all: the index keeps its first value.
        let at_first = Set::parse(
            ctx,
            &format!(
                "{prefix}{{ {} : {} }}",
                tuple(&index),
                lp.first.equals_text(&index)
            ),
        )?
        .intersect(&failing)?;
        let ends = after_last.union(&at_first)?;
        // The time the header runs: positions and the enclosing indices (negated for a
        // loop that counts down), then the value.
        let mut time: Vec<String> = Vec::new();
        for &o in outer {
            time.push(p.loops[o].position.to_string());
            let n = isl_name(&p.loops[o].iterator);
            time.push(if p.loops[o].step < 0 {
                format!("-{n}")
            } else {
                n
            });
        }
        time.push(lp.position.to_string());
        time.resize(width, "0".to_string());
        time.push(index.clone());
        let timed = ends.apply(&Map::parse(
            ctx,
            &format!("{prefix}{{ {} -> [{}] }}", tuple(&index), time.join(", ")),
        )?)?;
        all = Some(match all {
            None => timed,
            Some(a) => a.union(&timed)?,
        });
    }
    let Some(all) = all else {
        return Ok(Vec::new());
    };
    let last = all.lexmax()?.set_tuple_name("F")?;
    let dims: Vec<String> = (0..=width).map(|k| format!("t{k}")).collect();
    let identity = Map::parse(
        ctx,
        &format!("{prefix}{{ F[{0}] -> [{0}] }}", dims.join(", ")),
    )?
    .intersect_domain(&last)?;
    let schedule = UnionMap::of_maps(ctx, &[identity])?;
    let context = Set::parse(ctx, &format!("{prefix}{{ : }}"))?;
    let ast = astbuild::build_ast(ctx, &context, &schedule, None)?;
    // A statement instance carries the value as its last argument.
    Ok(ir::from_ast(&ast, 0))
}
