//! What copies into registers need beyond the other copies (`copy_to_registers`, seed 004
//! §5.4 step 2): the statements beside the copy's loop that it may start with, the lattice
//! box of a thread's elements, and the proof that they are the thread's own.

use super::{LevelId, TResult, TransformError, Transformed};
use crate::poly::affine::{isl_name, Aff};
use crate::poly::isl::{Ctx, Map, Set};

/// The statement beside a register copy's loop that runs before every other use of the
/// array in the thread, alone in its loop (or as a statement of its own) among the
/// scope's statements; `None` if the loop's statements, or a group of several, run first.
/// `scope` holds (statement, depth of the copy's place), the statements beside the loop
/// from `beside_from` on; each sorts among its siblings by its group's first statement.
pub(super) fn first_beside(
    t: &Transformed,
    scope: &[(usize, usize)],
    beside_from: usize,
    prefix: &[LevelId],
) -> Option<usize> {
    let group = |s: usize| t.statements[s].levels[prefix.len()].0;
    let start = |g: LevelId| {
        t.statements
            .iter()
            .filter(|st| st.below(prefix) && st.levels[prefix.len()].0 == g)
            .map(|st| st.order)
            .min()
    };
    let (k, &(first, _)) = scope
        .iter()
        .enumerate()
        .min_by_key(|(_, (s, _))| start(group(*s)))?;
    let alone = scope
        .iter()
        .filter(|(s, _)| group(*s) == group(first))
        .count()
        == 1;
    (k >= beside_from && alone).then_some(first)
}

/// The box of a register copy's footprint (`fixed -> array`) per value of the fixed
/// names `names`, on the lattice of one thread's elements: per dimension the offset, the
/// number of elements and the stride. A thread of a cyclic tile (rows `ty`, `ty + 16`, ...)
/// needs 8 registers along that dimension, not the 113 rows of its bounding box. `None`
/// without a box of constant size.
pub(super) type LatticeBox = (Vec<Aff>, Vec<i64>, Vec<i64>);
pub(super) fn lattice_box(
    t: &Transformed,
    ctx: &Ctx,
    footprint: &Map,
    names: &[String],
    array: &str,
) -> TResult<Option<LatticeBox>> {
    let rank = footprint.range()?.n_dim()?;
    let mut lattice = Vec::new();
    for d in 0..rank {
        lattice.push(footprint.range_stride(d, names)?);
    }
    if lattice.iter().all(Option::is_none) {
        return Ok(footprint
            .range_fixed_box(names)?
            .map(|(offsets, sizes)| (offsets, sizes, vec![1; rank])));
    }
    // Element `e = residue + stride * y` becomes `y`; its box is then dense.
    let es: Vec<String> = (0..rank).map(|d| format!("__e{d}")).collect();
    let ys: Vec<String> = (0..rank).map(|d| format!("__y{d}")).collect();
    let conds: Vec<String> = (0..rank)
        .map(|d| match &lattice[d] {
            Some((stride, residue)) => format!("{} = {residue} + {stride} * {}", es[d], ys[d]),
            None => format!("{} = {}", es[d], ys[d]),
        })
        .collect();
    let compress = Map::parse(
        ctx,
        &format!(
            "{}{{ [[{n}] -> {a}[{}]] -> [[{n}] -> {a}[{}]] : {} }}",
            t.params_prefix(),
            es.join(", "),
            ys.join(", "),
            conds.join(" and "),
            n = names.join(", "),
            a = isl_name(array),
        ),
    )?;
    let compressed = footprint.wrapped()?.apply(&compress)?.unwrapped()?;
    let Some((offsets, sizes)) = compressed.range_fixed_box(names)? else {
        return Ok(None);
    };
    let mut out = Vec::new();
    let mut strides = Vec::new();
    for (offset, l) in offsets.into_iter().zip(lattice) {
        match l {
            Some((stride, residue)) => {
                out.push(
                    offset
                        .scale(stride)
                        .and_then(|o| o.add(&residue))
                        .map_err(|_| TransformError::too_large())?,
                );
                strides.push(stride);
            }
            None => {
                out.push(offset);
                strides.push(1);
            }
        }
    }
    Ok(Some((out, sizes, strides)))
}

/// A register copy is private to its thread: refuse one when two threads of a block use
/// the same element (written: each copy would go stale; read: each thread would load its
/// own copy of shared data), or when the boxes of elements the threads copy overlap
/// although their elements do not (a strided footprint, as a thread's column of a cyclic
/// tile; the copy would carry other threads' elements). `threads[j]`: whether fixed name
/// `names[j]` is a thread variable.
pub(super) fn check_private_to_threads(
    t: &Transformed,
    ctx: &Ctx,
    threads: &[bool],
    names: &[String],
    footprint: &Map,
    array: &str,
    written: bool,
) -> TResult<()> {
    let thread_differs: Vec<String> = threads
        .iter()
        .enumerate()
        .filter(|(_, is_thread)| **is_thread)
        .map(|(j, _)| format!("(d{j} < 0 or d{j} > 0)"))
        .collect();
    if thread_differs.is_empty() {
        return Ok(());
    }
    let same: Vec<String> = threads
        .iter()
        .enumerate()
        .filter(|(_, is_thread)| !**is_thread)
        .map(|(j, _)| format!("d{j} = 0"))
        .collect();
    let mut all = same;
    all.push(format!("({})", thread_differs.join(" or ")));
    let dims: Vec<String> = (0..names.len()).map(|j| format!("d{j}")).collect();
    let bad = Set::parse(
        ctx,
        &format!(
            "{}{{ [{}] : {} }}",
            t.params_prefix(),
            dims.join(", "),
            all.join(" and ")
        ),
    )?;
    let shared = |m: &Map| -> TResult<bool> {
        let deltas = m.apply_range(&m.reverse()?)?.deltas()?;
        Ok(!deltas.intersect(&bad)?.is_empty()?)
    };
    if shared(footprint)? {
        return Err(if written {
            TransformError::new(format!("threads of a block share elements of `{array}`, which the kernel writes: each would keep its own copy in registers"))
                .hint("copy to registers only data that each thread uses alone (a register tile of the output)")
        } else {
            TransformError::new(format!("threads of a block read the same elements of `{array}`: a register copy would load them once per thread"))
                .hint(format!("put data that threads share in shared memory: copy_to_shared(\"tx\", \"{array}\")"))
        });
    }
    // The box per thread, over positional names (two fixed loops may share a name, as a
    // loop and the thread index named after it).
    let positional: Vec<String> = (0..names.len()).map(|j| format!("__f{j}")).collect();
    let Some((offsets, sizes, strides)) = lattice_box(t, ctx, footprint, &positional, array)?
    else {
        return Ok(());
    };
    let outs: Vec<String> = (0..sizes.len()).map(|k| format!("__e{k}")).collect();
    // A dimension with a stride holds its lattice points only.
    let conds: Vec<String> = offsets
        .iter()
        .zip(&sizes)
        .zip(&outs)
        .zip(&strides)
        .map(|(((o, size), e), s)| {
            format!("exists (__y_{e} : {e} = {o} + {s} * __y_{e} and 0 <= __y_{e} < {size})")
        })
        .collect();
    let boxes = Map::parse(
        ctx,
        &format!(
            "{}{{ [{}] -> {}[{}] : {} }}",
            t.params_prefix(),
            positional.join(", "),
            isl_name(array),
            outs.join(", "),
            conds.join(" and ")
        ),
    )?
    .intersect_domain(&footprint.domain()?)?;
    if shared(&boxes)? {
        return Err(TransformError::new(format!("each thread's elements of `{array}` inside this loop are spread out, interleaved with other threads' (a strided footprint): a register copy must be a box, or a lattice, of the thread's own elements"))
            .hint("copy inside the loop whose iterations stride over the threads' elements, or tile so that each thread's elements are neighbours or equally spaced (a cyclic tile)"));
    }
    Ok(())
}
