//! A kernel's launch: its prologue (the block and thread variables from `blockIdx` and
//! `threadIdx`), its grid, and the values each block variable takes, from the values
//! each level takes over the kernel's statements.

use super::ir::{Expr, Op, PrologueVar};
use super::names::{kernel_names, KernelNames};
use super::{guards, kept_set, prefix};
use crate::poly::astbuild;
use crate::poly::isl::{Ctx, IslError, Map, Set};
use crate::poly::memo::Memo;
use crate::transform::cudaize::{Kernel, ThreadKind};
use crate::transform::{LevelId, Transformed};

/// The kernel's prologue (block and thread variables from `blockIdx`/`threadIdx`) and the
/// grid dimensions (host expressions).
pub(super) fn prologue(
    t: &Transformed,
    ctx: &Ctx,
    kernel: &Kernel,
    names: &KernelNames,
) -> Result<(Vec<PrologueVar>, Vec<Expr>), IslError> {
    let idx = |what: &str, d: usize| Expr::Id(format!("{what}.{}", ["x", "y", "z"][d]));
    let plus = |a: Expr, b: Expr| match (a, b) {
        (a, Expr::Int(0)) => a,
        (Expr::Int(0), b) => b,
        (a, b) => Expr::Op(Op::Add, vec![a, b]),
    };
    let mut vars = Vec::new();
    let mut grid = Vec::new();
    // Block values range over the instances; with the host loop values as parameters.
    let mut outer: Vec<String> = t.program.params.clone();
    outer.extend(names.host.iter().cloned());
    let mut firsts = Vec::new();
    for l in &kernel.blocks {
        let values = level_values(t, ctx, kernel, *l, &outer, &[])?;
        let context = Set::parse(ctx, &format!("{}{{ : }}", prefix(&outer)))?;
        // A strided loop (`j += 2`) gets one block per value: `j = min + 2 * blockIdx`.
        let (min, stride, extent) = astbuild::range_exprs(ctx, &context, &values)?;
        firsts.push((min, stride));
        grid.push(extent);
    }
    // CUDA allows at most 65,535 blocks along y: a second block dimension that can have
    // more (a constant size above it, or a symbolic one) is folded into `blockIdx.x`,
    // whose limit is 2^31 - 1.
    let folded = grid.len() == 2 && !within(&grid[1], MAX_GRID[1]);
    for (d, (min, stride)) in firsts.into_iter().enumerate() {
        let position = match (folded, d, &grid[0]) {
            (false, _, _) => idx("blockIdx", d),
            (true, 0, Expr::Int(1)) => Expr::Int(0),
            (true, _, Expr::Int(1)) => idx("blockIdx", 0),
            (true, 0, x) => Expr::Op(Op::PosRem, vec![idx("blockIdx", 0), x.clone()]),
            (true, _, x) => Expr::Op(Op::PosDiv, vec![idx("blockIdx", 0), x.clone()]),
        };
        let position = match stride {
            1 => position,
            s => Expr::Op(Op::Mul, vec![Expr::Int(s), position]),
        };
        vars.push(PrologueVar {
            name: names.blocks[d].clone(),
            value: plus(position, min),
        });
    }
    if folded {
        grid = match (&grid[0], &grid[1]) {
            (Expr::Int(1), y) => vec![y.clone()],
            (Expr::Int(x), Expr::Int(y)) => vec![Expr::Int(x.saturating_mul(*y))],
            _ => vec![Expr::Op(Op::Mul, grid)],
        };
    }
    let mut inner = outer.clone();
    inner.extend(names.blocks.iter().cloned());
    for (d, td) in kernel.threads.iter().enumerate() {
        let value = match td.kind {
            ThreadKind::TilePoint { control } => plus(
                Expr::Op(
                    Op::Mul,
                    vec![Expr::Int(td.size), Expr::Id(t.levels[control].name.clone())],
                ),
                idx("threadIdx", d),
            ),
            ThreadKind::Coordinate => idx("threadIdx", d),
            ThreadKind::Whole => {
                let blocks: Vec<(LevelId, String)> = kernel
                    .blocks
                    .iter()
                    .cloned()
                    .zip(names.blocks.iter().cloned())
                    .collect();
                let values = level_values(t, ctx, kernel, td.per_statement[0].1, &inner, &blocks)?;
                let context = Set::parse(ctx, &format!("{}{{ : }}", prefix(&inner)))?;
                let (min, _, _) = astbuild::range_exprs(ctx, &context, &values)?;
                plus(idx("threadIdx", d), min)
            }
        };
        vars.push(PrologueVar {
            name: names.threads[d].clone(),
            value,
        });
    }
    // The grid is in the kernel's names for the host loops (`i_rev`); each launch
    // writes it with the values it passes for them (cuda::host), which isl may have folded
    // into constants.
    Ok((vars, grid))
}

/// CUDA's limits on `gridDim.x`, `.y` and `.z` (every compute capability since 3.0).
pub const MAX_GRID: [i64; 3] = [(1 << 31) - 1, 65_535, 65_535];

/// Whether a grid extent is a constant no larger than `limit`.
fn within(extent: &Expr, limit: i64) -> bool {
    guards::interval(extent, &[]).is_some_and(|(_, hi)| hi <= limit)
}

/// Each block variable's values as a constraint on a parameter of its name: the values of
/// its loop (their hull, with the loop's stride) in terms of the program's parameters and
/// the host variables.
pub(super) fn block_ranges(
    t: &Transformed,
    ctx: &Ctx,
    kernel: &Kernel,
    names: &KernelNames,
) -> Result<Vec<Set>, IslError> {
    let mut outer: Vec<String> = t.program.params.clone();
    outer.extend(names.host.iter().cloned());
    kernel
        .blocks
        .iter()
        .zip(&names.blocks)
        .map(|(l, name)| {
            level_values(t, ctx, kernel, *l, &outer, &[])?
                .progression_hull()?
                .as_parameter(name)
        })
        .collect()
}

/// The values a level takes over the kernel's source statements, as a one-dimensional set
/// with `params` (host loop values fixed by name, and the given levels fixed to names).
fn level_values(
    t: &Transformed,
    ctx: &Ctx,
    kernel: &Kernel,
    level: LevelId,
    params: &[String],
    fixed: &[(LevelId, String)],
) -> Result<Set, IslError> {
    // The host levels by their names in the kernel (`i_rev` for a loop counting down: the
    // level's own name is its statements' iterator, of another value).
    let host_names = kernel_names(t, kernel).host;
    let mut images: Vec<(String, &str)> = Vec::new();
    for &s in &kernel.statements {
        let st = &t.statements[s];
        let Some(index) = st.levels.iter().position(|(l, _)| *l == level) else {
            continue;
        };
        let mut conds = Vec::new();
        for (l, name) in kernel
            .host_levels
            .iter()
            .copied()
            .zip(host_names.iter().cloned())
            .chain(fixed.iter().cloned())
        {
            if let Some((_, v)) = st.levels.iter().find(|(x, _)| *x == l) {
                conds.push(format!("{v} = {name}"));
            }
        }
        if conds.is_empty() {
            conds.push("0 = 0".into());
        }
        let text = format!(
            "{}{{ {} -> [{}] : {} }}",
            prefix(params),
            t.tuple(s),
            st.levels[index].1,
            conds.join(" and ")
        );
        images.push((text, &st.domain));
    }
    if images.is_empty() {
        return Err(IslError {
            message: "a kernel loop has no statement".into(),
            too_complex: false,
        });
    }
    let key: String = images
        .iter()
        .map(|(map, domain)| format!("{map}\n{domain}\n"))
        .collect();
    kept_set(ctx, &LEVEL_VALUES, key, || {
        let mut all: Option<Set> = None;
        for (map, domain) in &images {
            let image = Map::parse(ctx, map)?
                .intersect_domain(&Set::parse(ctx, domain)?)?
                .range()?;
            all = Some(match all {
                None => image,
                Some(a) => a.union(&image)?,
            });
        }
        Ok(all.expect("a statement"))
    })
}

/// [`level_values`] by the texts of the statements' maps to the level and of their
/// instances: a kernel asks twice (its prologue, its blocks' ranges), and the variants of
/// a nest with the same tiles ask again.
static LEVEL_VALUES: Memo<String> = Memo::new(4096);
