//! `unroll` and `unroll_to_depth`: loops the code generator writes out, iteration by
//! iteration (isl's `unroll` option), so that the compiler sees straight-line code and
//! register copies get constant indices. Unrolling by a factor smaller than the trip count
//! first tiles the loop by that factor and unrolls the tile. Unrolling never changes the
//! order of instances.

use super::{tile, LevelId, TResult, TransformError, Transformed};
use crate::poly::affine::isl_name;
use crate::poly::isl::{Bound, Ctx, IslResult, Map, Set};
use crate::poly::memo::Memo;

/// The most iterations a loop may have to be unrolled completely.
pub const MAX_UNROLL: i64 = 256;

/// The most copies of one statement that unrolling may write (the product of its unrolled
/// loops' trip counts): beyond that the straight-line code only slows down nvcc, and
/// every later stage, for nothing (four loops of 48 and 24 iterations once made 1.3
/// million lines of CUDA).
pub const MAX_COPIES: i64 = 1024;

/// The most copies of a compute statement inside `level` that its unrolled loops would
/// write with `level` unrolled too (`count` iterations).
fn most_copies(t: &Transformed, level: LevelId, count: i64) -> TResult<i64> {
    let mut most = 1;
    for s in t.statements_in(level) {
        if matches!(t.statements[s].kind, super::StmtKind::Compute(_)) {
            most = most.max(copies(t, s, level, count)?);
        }
    }
    Ok(most)
}

/// The copies of statement `s` its unrolled loops write, with `level` unrolled too
/// (`count` iterations) where it encloses `s`.
fn copies(t: &Transformed, s: usize, level: LevelId, count: i64) -> TResult<i64> {
    let mut n: i64 = 1;
    for (l, _) in &t.statements[s].levels {
        if *l == level {
            n = n.saturating_mul(count.max(1));
        } else if t.levels[*l].unroll {
            n = n.saturating_mul(extent(t, *l)?.unwrap_or(MAX_UNROLL).max(1));
        }
    }
    Ok(n)
}

/// The copies of its compute statements that kernel `k` would hold, with `level`
/// unrolled (`count` iterations).
fn kernel_copies(t: &Transformed, k: usize, level: LevelId, count: i64) -> TResult<i64> {
    let mut total: i64 = 0;
    for &s in &t.kernels[k].statements {
        if matches!(t.statements[s].kind, super::StmtKind::Compute(_)) {
            total = total.saturating_add(copies(t, s, level, count)?);
        }
    }
    Ok(total)
}

/// An error if unrolling `level` (`name`) by `count` would take a statement past
/// [`MAX_COPIES`] copies.
fn check_copies(t: &Transformed, level: LevelId, count: i64, name: &str) -> TResult<()> {
    let n = most_copies(t, level, count)?;
    if n > MAX_COPIES {
        return Err(TransformError::new(format!(
            "unrolling loop `{name}` would write {n} copies of a statement (at most {MAX_COPIES})"
        ))
        .hint("unroll by a smaller factor, or fewer loops"));
    }
    Ok(())
}

/// The largest number of iterations `level` runs for one iteration of the loops around
/// it, if that is bounded by a constant.
pub fn extent(t: &Transformed, level: LevelId) -> TResult<Option<i64>> {
    extent_within(t, level, None)
}

/// The largest number of values `level` takes for fixed values of the levels `outer`
/// (all levels around it when `None`), if that is bounded by a constant.
pub fn extent_within(
    t: &Transformed,
    level: LevelId,
    outer: Option<&[LevelId]>,
) -> TResult<Option<i64>> {
    // Per statement, `{ [outer] -> [value] }` over its domain, with its number of outer
    // values (copies may sit under fewer loops); pairs with equal outer values differ by
    // at most extent - 1.
    let mut pairs: Vec<(usize, String, String)> = Vec::new();
    for s in t.statements_in(level) {
        let st = &t.statements[s];
        let k = t
            .level_index(s, level)
            .expect("statements_in returns statements with the level");
        let outer_values: Vec<String> = match outer {
            None => st.levels[..k].iter().map(|(_, v)| v.to_string()).collect(),
            Some(list) => st
                .levels
                .iter()
                .filter(|(l, _)| list.contains(l))
                .map(|(_, v)| v.to_string())
                .collect(),
        };
        let text = format!(
            "{}{{ {} -> [[{}] -> [{}]] }}",
            t.params_prefix(),
            t.tuple(s),
            outer_values.join(", "),
            st.levels[k].1
        );
        pairs.push((outer_values.len(), text, st.domain.clone()));
    }
    let key: Vec<String> = pairs
        .iter()
        .map(|(n, map, domain)| format!("{n}\n{map}\n{domain}"))
        .collect();
    Ok(EXTENTS.get_or(key.join("\n"), || largest_extent(&pairs))?)
}

/// The extents found in this process, by their statements' texts (each variant of a nest
/// asks again for the same loops).
static EXTENTS: Memo<Option<i64>> = Memo::new(4096);

/// [`extent_within`] of the statements' `(arity, pairs, domain)`.
fn largest_extent(statements: &[(usize, String, String)]) -> IslResult<Option<i64>> {
    let ctx = Ctx::new();
    let mut groups: Vec<(usize, Map)> = Vec::new();
    for (arity, text, domain) in statements {
        let to_pair = Map::parse(&ctx, text)?.intersect_domain(&Set::parse(&ctx, domain)?)?;
        let pairs = to_pair.range_unwrapped()?;
        match groups.iter_mut().find(|(n, _)| n == arity) {
            Some((_, all)) => *all = all.union(&pairs)?,
            None => groups.push((*arity, pairs)),
        }
    }
    // Over the statements at once: the loop runs over the union of their values (one
    // statement under `if (j >= 1)`, one under `if (i + j < 5)`: 4 values each, 5 for the
    // loop; counted per statement, unrolling dropped the fifth).
    let mut largest = 0i64;
    for (_, pairs) in &groups {
        let same_outer = pairs.reverse()?.apply_range(pairs)?;
        let deltas = same_outer.deltas()?.project_out_params()?;
        if deltas.is_empty()? {
            continue;
        }
        match deltas.dim_range(0)? {
            (_, Bound::Finite(hi)) => largest = largest.max(hi + 1),
            _ => return Ok(None),
        }
    }
    Ok(Some(largest))
}

/// The smallest value `level` takes over all its statements, if it is a constant.
pub fn first_value(t: &Transformed, level: LevelId) -> TResult<Option<i64>> {
    let ctx = Ctx::new();
    let mut lowest: Option<i64> = None;
    for s in t.statements_in(level) {
        let st = &t.statements[s];
        let k = t
            .level_index(s, level)
            .expect("statements_in returns statements with the level");
        let text = format!(
            "{}{{ {} -> [{}] }}",
            t.params_prefix(),
            t.tuple(s),
            st.levels[k].1
        );
        let values = Map::parse(&ctx, &text)?
            .intersect_domain(&Set::parse(&ctx, &st.domain)?)?
            .range()?;
        if values.is_empty()? {
            continue;
        }
        match values.dim_range(0)? {
            (Bound::Finite(lo), _) => lowest = Some(lowest.map_or(lo, |x: i64| x.min(lo))),
            _ => return Ok(None),
        }
    }
    Ok(lowest)
}

/// Unrolls `level` by `factor` (0: completely).
pub fn unroll(t: &mut Transformed, level: LevelId, factor: i64) -> TResult<()> {
    if factor < 0 {
        return Err(
            TransformError::new(format!("unroll factor {factor} is negative"))
                .hint("use a positive factor, or 0 to unroll completely"),
        );
    }
    if factor == 1 {
        return Ok(());
    }
    let name = t.levels[level].name.clone();
    let count = extent(t, level)?;
    match count {
        Some(n) if factor == 0 || factor >= n => {
            if n > MAX_UNROLL {
                return Err(TransformError::new(format!(
                    "loop `{name}` has {n} iterations, too many to unroll completely"
                ))
                .hint(format!(
                    "unroll by a factor (at most {MAX_UNROLL}), or tile the loop first"
                )));
            }
            check_copies(t, level, n, &name)?;
            t.levels[level].unroll = true;
        }
        None if factor == 0 => {
            return Err(TransformError::new(format!(
                "loop `{name}` has no constant trip count and cannot be unrolled completely"
            ))
            .hint("give a factor (`unroll(\"k\", 4)`), or tile the loop first"));
        }
        _ => {
            check_copies(t, level, factor, &name)?;
            let control = fresh_name(t, &format!("{name}_u"));
            tile::tile(t, level, factor, &control, None)?;
            t.levels[level].unroll = true;
        }
    }
    Ok(())
}

/// `base`, or `base2`, `base3`, ... whichever no loop or variable uses yet.
pub fn fresh_name(t: &Transformed, base: &str) -> String {
    fresh_name_where(t, base, |_| true)
}

/// [`fresh_name`], among the names that `free` also accepts.
pub fn fresh_name_where(t: &Transformed, base: &str, free: impl Fn(&str) -> bool) -> String {
    (1..)
        .map(|k| {
            if k == 1 {
                base.to_string()
            } else {
                format!("{base}{k}")
            }
        })
        .find(|n| tile::check_fresh_name(t, n).is_ok() && isl_name(n) == *n && free(n))
        .expect("some name is free")
}

/// Unrolls, in every cudaized statement, the `depth` innermost loops that run inside one
/// thread (it stops at a thread or block loop), innermost first. Loops without a small
/// constant trip count, and loops that would take a statement, or a kernel's statements
/// together, past [`MAX_COPIES`] copies, are left alone (a serial kernel of a random nest
/// once unrolled to 3,700 lines, whose check compiled for 7 s); they are returned, with why, for a warning.
pub fn unroll_to_depth(t: &mut Transformed, depth: usize) -> TResult<Vec<String>> {
    // (level, its position in the statement: the innermost are unrolled first)
    let mut targets: Vec<(LevelId, usize)> = Vec::new();
    for s in 0..t.statements.len() {
        // Copies unroll their own loops; barriers have none of their own.
        if !matches!(t.statements[s].kind, super::StmtKind::Compute(_)) {
            continue;
        }
        let Some(kernel) = t.kernel_of(s) else {
            continue;
        };
        let hardware = t.kernels[kernel].hardware_levels();
        let levels: Vec<LevelId> = t.statements[s].levels.iter().map(|(l, _)| *l).collect();
        // The loops a thread runs, innermost first: inside the outermost thread loop, the
        // thread loops themselves left out (a cyclic tile's control loops `iii`, `jjj`
        // sit between the thread loops `i` and `j`).
        let threads: Vec<LevelId> = t.kernels[kernel]
            .threads
            .iter()
            .flat_map(|d| d.per_statement.iter().map(|(_, l)| *l))
            .collect();
        let first = levels
            .iter()
            .position(|l| threads.contains(l))
            .map_or(0, |k| k + 1);
        for (k, l) in levels
            .iter()
            .enumerate()
            .skip(first)
            .rev()
            .filter(|(_, l)| !threads.contains(l))
            .take_while(|(_, l)| !hardware.contains(l))
            .take(depth)
        {
            match targets.iter_mut().find(|(x, _)| x == l) {
                Some(entry) => entry.1 = entry.1.max(k),
                None => targets.push((*l, k)),
            }
        }
    }
    targets.sort_by_key(|&(_, k)| std::cmp::Reverse(k));
    let mut skipped = Vec::new();
    for (l, _) in targets {
        let name = &t.levels[l].name;
        match extent(t, l)? {
            Some(n) if n <= MAX_UNROLL => {
                let copies = most_copies(t, l, n)?;
                let mut kernels: Vec<usize> = t
                    .statements_in(l)
                    .iter()
                    .filter_map(|&s| t.kernel_of(s))
                    .collect();
                kernels.sort_unstable();
                kernels.dedup();
                let mut largest = (0, 0);
                for k in kernels {
                    largest = largest.max((kernel_copies(t, k, l, n)?, k));
                }
                if copies > MAX_COPIES {
                    skipped.push(format!(
                        "`{name}` (a statement would have {copies} copies, more than {MAX_COPIES})"
                    ));
                } else if largest.0 > MAX_COPIES {
                    skipped.push(format!(
                        "`{name}` (kernel `{}` would hold {} statements, more than {MAX_COPIES})",
                        t.kernels[largest.1].name, largest.0
                    ));
                } else {
                    t.levels[l].unroll = true;
                }
            }
            Some(n) => skipped.push(format!("`{name}` ({n} iterations, more than {MAX_UNROLL})")),
            None => skipped.push(format!("`{name}` (no constant trip count)")),
        }
    }
    Ok(skipped)
}

/// `prefetch("kk")`: the code generator pipelines the copies into shared memory at the top
/// of loop `kk` (each tile's elements loaded into registers one iteration ahead, see
/// [`crate::codegen::prefetch::prefetch`]). The loop must run inside a kernel, not on its blocks
/// or threads, and hold copies into shared memory.
pub fn prefetch(t: &mut Transformed, level: LevelId) -> TResult<()> {
    let name = t.levels[level].name.clone();
    let inside = |s: &super::TStatement| s.below_level(level);
    let Some(k) = t
        .kernels
        .iter()
        .position(|k| k.statements.iter().any(|s| inside(&t.statements[*s])))
    else {
        return Err(
            TransformError::new(format!("loop `{name}` is in no kernel"))
                .hint("put prefetch after the `cudaize` and `copy_to_shared` commands"),
        );
    };
    if t.kernels[k].hardware_levels().contains(&level) {
        return Err(TransformError::new(format!(
            "loop `{name}` is mapped to blocks or threads; a prefetch pipelines the iterations of a loop each thread runs"
        ))
        .hint("name the loop whose tiles the copies stage (the `kk` of a matrix product)"));
    }
    if t.levels[level].unroll {
        return Err(TransformError::new(format!(
            "loop `{name}` is unrolled; a prefetch pipelines the iterations of a loop"
        ))
        .hint("unroll the loops inside it instead"));
    }
    let staged = t.statements.iter().any(|s| {
        inside(s)
            && matches!(s.kind, super::StmtKind::CopyIn(c)
                if t.copies[c].memory == super::datacopy::Memory::Shared && t.copies[c].kernel == k)
    });
    if !staged {
        return Err(TransformError::new(format!(
            "no copy into shared memory runs inside loop `{name}`"
        ))
        .hint("copy_to_shared an array whose tile the loop's iterations read, then prefetch"));
    }
    if t.copies
        .iter()
        .any(|c| c.double.is_some() && c.prefix.last() == Some(&level))
    {
        return Err(TransformError::new(format!(
            "loop `{name}`'s copies are double-buffered in shared memory; a prefetch would stage them in registers as well"
        ))
        .hint("use one of prefetch and double_buffer"));
    }
    t.levels[level].prefetch = true;
    Ok(())
}
