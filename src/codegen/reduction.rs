//! Where each block's result of a kernel's reduction goes: the element the update
//! statement writes, as expressions of the block and host variables (isl's AST generator
//! writes them, with a guard where a block may hold no instance of the update).

use super::ir::{self, ReductionIr};
use super::{prefix, value_of, KernelNames};
use crate::poly::astbuild;
use crate::poly::isl::{Ctx, IslError, Map, Set, UnionMap};
use crate::transform::cudaize::Kernel;
use crate::transform::{StmtKind, Transformed};

/// One [`ReductionIr`] per reduction of `kernel`.
///
/// A reduction whose element depends on the thread index gets its element in terms of the
/// thread variables too, under `thread_context` (the kernel's, over every kernel variable),
/// with a guard where a thread may hold no instance.
pub fn targets(
    t: &Transformed,
    ctx: &Ctx,
    kernel: &Kernel,
    names: &KernelNames,
    block_ranges: &[Set],
    thread_context: &Set,
) -> Result<Vec<ReductionIr>, IslError> {
    let p = &t.program;
    // The element is a function of the program's parameters and the host and block
    // variables; each block variable ranges over its loop's values.
    let mut params: Vec<String> = p.params.clone();
    params.extend(names.host.iter().cloned());
    params.extend(names.blocks.iter().cloned());
    let mut with_threads = params.clone();
    with_threads.extend(names.threads.iter().cloned());
    let params = &params;
    let mut context = Set::parse(ctx, &format!("{}{{ : }}", prefix(params)))?;
    for range in block_ranges {
        context = context.intersect_params(range)?;
    }
    let context = &context;
    let mut out = Vec::new();
    for (r, reduction) in kernel.reductions.iter().enumerate() {
        let s = reduction.statement;
        let StmtKind::Compute(id) = t.statements[s].kind else {
            panic!("a reduction is the update of a source statement");
        };
        let write = &p.accesses[p.statements[id].write];
        let outs: Vec<String> = (0..write.subscripts.len())
            .map(|k| format!("__e{k}"))
            .collect();
        let mut conds: Vec<String> = kernel
            .host_levels
            .iter()
            .zip(&names.host)
            .chain(kernel.blocks.iter().zip(&names.blocks))
            .map(|(l, name)| format!("{} = {name}", value_of(t, s, *l)))
            .collect();
        for (sub, e) in write.subscripts.iter().zip(&outs) {
            conds.push(sub.equals_text(e));
        }
        let params = if reduction.per_thread {
            for d in 0..kernel.threads.len() {
                if let Some(cond) = super::thread_constraint(t, kernel, s, d, &names.threads[d]) {
                    conds.push(cond);
                }
            }
            &with_threads
        } else {
            params
        };
        if conds.is_empty() {
            conds.push("0 = 0".into());
        }
        let elements = Map::parse(
            ctx,
            &format!(
                "{}{{ {} -> R[{}] : {} }}",
                prefix(params),
                t.tuple(s),
                outs.join(", "),
                conds.join(" and ")
            ),
        )?
        .intersect_domain(&Set::parse(ctx, &t.statements[s].domain)?)?
        .range()?;
        // One element per block, or per thread (cudaize checked it): isl writes each
        // dimension as the value it has, not as a loop.
        let mut time = vec!["0".to_string()];
        time.extend(outs.iter().cloned());
        let schedule = Map::parse(
            ctx,
            &format!(
                "{}{{ R[{}] -> [{}] }}",
                prefix(params),
                outs.join(", "),
                time.join(", ")
            ),
        )?
        .intersect_domain(&elements)?;
        let schedule = UnionMap::of_maps(ctx, &[schedule])?;
        let context = if reduction.per_thread {
            thread_context
        } else {
            context
        };
        let ast = astbuild::build_ast(ctx, context, &schedule, None)?;
        out.push(ReductionIr {
            reduction: r,
            target: ir::from_ast(&ast, s),
        });
    }
    Ok(out)
}
