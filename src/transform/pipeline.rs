//! `double_buffer("kk")`: the copies into shared memory at the top of loop `kk` get two
//! buffers, and each iteration fills one with the next iteration's tile while its threads
//! compute on the other, as fast GEMMs do (the copies are issued ahead of the
//! computation, so that their loads are in flight while it runs; one barrier per
//! iteration instead of two).
//!
//! The transformation is a schedule change, so that isl writes the loop: the copy of
//! iteration `kk` moves to iteration `kk - 1` (the first one to a prologue before the
//! loop), the temporary gets a leading dimension of 2 indexed by `kk % 2`, the barrier
//! between the copy and the computation goes, and the barrier at the end of each
//! iteration stays (it now also ends the prologue): a buffer is refilled only in the
//! iteration after the one that read it, past that barrier.

use super::datacopy::{order_tie, shared_bytes_with, Memory, Role, MAX_SHARED_BYTES};
use super::{LevelId, StmtKind, TResult, TransformError, Transformed};
use crate::poly::affine::{isl_name, Aff, Var};
use crate::poly::isl::{Ctx, Map, Set};

/// `asynchronous`: the copies are `cp.async` copies ([`super::datacopy::DataCopy::asynchronous`]).
pub fn double_buffer(t: &mut Transformed, level: LevelId, asynchronous: bool) -> TResult<()> {
    let name = t.levels[level].name.clone();
    let copies: Vec<usize> = (0..t.copies.len())
        .filter(|&c| {
            t.copies[c].memory == Memory::Shared && t.copies[c].prefix.last() == Some(&level)
        })
        .collect();
    if copies.is_empty() {
        return Err(TransformError::new(format!(
            "no copy into shared memory runs at the top of loop `{name}`"
        ))
        .hint(format!(
            "copy_to_shared at \"tx\" (or at a loop inside `{name}`) first, then double_buffer(\"{name}\")"
        )));
    }
    if copies.iter().any(|&c| t.copies[c].double.is_some()) {
        return Err(TransformError::new(format!(
            "the copies of loop `{name}` are double-buffered already"
        )));
    }
    if t.levels[level].prefetch {
        return Err(TransformError::new(format!(
            "loop `{name}` is prefetched (its tiles staged in registers); double buffering stages them in shared memory instead"
        ))
        .hint("use one of prefetch and double_buffer"));
    }
    let k = t.copies[copies[0]].kernel;
    let kernel = &t.kernels[k];
    if kernel.hardware_levels().contains(&level) || kernel.host_levels.contains(&level) {
        return Err(TransformError::new(format!(
            "loop `{name}` is mapped to blocks or threads or runs on the host; double buffering overlaps the iterations of a loop each thread runs"
        ))
        .hint("name the loop whose tiles the copies stage (the `kk` of a matrix product)"));
    }
    let bytes = shared_bytes_with(
        t,
        k,
        |i, c| {
            if copies.contains(&i) {
                2
            } else {
                c.buffers()
            }
        },
    );
    if bytes > MAX_SHARED_BYTES {
        return Err(TransformError::new(format!(
            "with two buffers the kernel's shared memory would be {bytes} bytes (at most {MAX_SHARED_BYTES}, the most a GPU gives one block)"
        ))
        .hint("use smaller tiles (a smaller k tile halves what each buffer holds)"));
    }
    let ctx = Ctx::new();
    let prefix_len = t.copies[copies[0]].prefix.len();
    for &c in &copies {
        let s = copy_in(t, c);
        let at = t
            .level_index(s, level)
            .expect("a copy runs inside its prefix");
        // The copy's value of the loop is its own iterator (the copy is made per
        // iteration); anything else is a copy this command cannot move.
        let fixed = t.statements[s].iterators[at].clone();
        if t.statements[s].levels[at].1 != Aff::var(Var::Index(fixed.clone())) {
            return Err(TransformError::new(format!(
                "the copies of loop `{name}` are not made once per iteration of it"
            ))
            .hint("double_buffer the loop whose body starts with the copies"));
        }
        check_consecutive(t, &ctx, s, at, &name)?;
        let shifted = t.statements[s].levels[at]
            .1
            .sub(&Aff::constant(1))
            .map_err(|_| TransformError::new("the loop's values exceed 64-bit integers"))?;
        t.statements[s].levels[at].1 = shifted;
        t.copies[c].double = Some(fixed);
        t.copies[c].asynchronous = asynchronous;
    }
    // The barriers of this place: the one after the copies goes; the one that ends each
    // iteration also ends the prologue.
    let place: Vec<LevelId> = t.copies[copies[0]].prefix.clone();
    let after = order_tie(prefix_len, Role::SyncAfterCopy);
    let end = order_tie(prefix_len, Role::SyncAtEnd);
    let mut ended = false;
    for s in t.kernels[k].statements.clone() {
        let st = &t.statements[s];
        if st.kind != StmtKind::Sync || !st.levels.iter().map(|(l, _)| *l).eq(place.iter().copied())
        {
            continue;
        }
        let domain = Set::parse(&ctx, &st.domain)?;
        if st.order.1 == after {
            t.statements[s].domain = domain.subtract(&domain)?.to_string();
        } else if st.order.1 == end {
            let at = place.len() - 1;
            let tuple = t.tuple(s);
            let mut names: Vec<String> = st.iterators.iter().map(|n| isl_name(n)).collect();
            names[at] = format!("{} - 1", names[at]);
            let shift = Map::parse(
                &ctx,
                &format!(
                    "{}{{ {tuple} -> {}[{}] }}",
                    t.params_prefix(),
                    st.name,
                    names.join(", ")
                ),
            )?;
            t.statements[s].domain = domain.union(&domain.apply(&shift)?)?.to_string();
            ended = true;
        }
    }
    if !ended {
        return Err(TransformError::new(format!(
            "no barrier ends the iterations of loop `{name}` after its tiles are read"
        ))
        .hint("double_buffer a loop inside the kernel whose body starts with the copies"));
    }
    Ok(())
}

/// The copy-in statement of copy `c`.
fn copy_in(t: &Transformed, c: usize) -> usize {
    t.statements
        .iter()
        .position(|s| s.kind == StmtKind::CopyIn(c))
        .expect("a shared copy has a copy-in")
}

/// The values the copy's loop takes (dimension `at` of statement `s`'s instances) are
/// consecutive: each one but the last is followed by the next, so that "the iteration
/// before" is `kk - 1`.
fn check_consecutive(t: &Transformed, ctx: &Ctx, s: usize, at: usize, name: &str) -> TResult<()> {
    let st = &t.statements[s];
    let n = st.iterators.len();
    let dims: Vec<String> = (0..n).map(|d| format!("__d{d}")).collect();
    let project = Map::parse(
        ctx,
        &format!(
            "{}{{ {}[{}] -> [{}] }}",
            t.params_prefix(),
            st.name,
            dims.join(", "),
            dims[..=at].join(", ")
        ),
    )?;
    let values = Set::parse(ctx, &st.domain)?.apply(&project)?;
    let mut next: Vec<String> = dims[..=at].to_vec();
    next[at] = format!("{} + 1", dims[at]);
    let step = Map::parse(
        ctx,
        &format!(
            "{}{{ [{}] -> [{}] }}",
            t.params_prefix(),
            dims[..=at].join(", "),
            next.join(", ")
        ),
    )?;
    // Values whose successor is missing: only the last one per value of the outer loops.
    let gaps = values.subtract(&values.apply(&step.reverse()?)?)?;
    let mut lower: Vec<String> = dims[..=at].to_vec();
    lower[at] = "__v".to_string();
    let earlier = Map::parse(
        ctx,
        &format!(
            "{}{{ [{}] -> [{}] : __v < {} }}",
            t.params_prefix(),
            dims[..=at].join(", "),
            lower.join(", "),
            dims[at]
        ),
    )?;
    let last = values.subtract(&values.apply(&earlier)?)?;
    if !gaps.subtract(&last)?.is_empty()? {
        return Err(TransformError::new(format!(
            "loop `{name}` does not step through consecutive values, so its next iteration's tile is not `{name} + 1`'s"
        ))
        .hint("double_buffer the control loop of a tiled loop (it counts tiles one by one)"));
    }
    Ok(())
}
