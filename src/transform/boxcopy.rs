//! A shared copy-in of its footprint's box, clipped to the array (or a register copy whose
//! footprint is that box), one element or one vector per instance: what gpucc needs to
//! write its loops itself ([`crate::codegen::copyloops`]). isl then places one instance of the
//! copy per value of the loops around it, instead of generating the loops that spread
//! the box over the threads: those took about half of a 3-D stencil's AST generation and
//! a quarter of a matrix product's (`benchmarks/profiles/compile-2026-11-29-copies.md`).

use super::cudaize::{Kernel, ThreadKind};
use super::{unroll, Hw, LevelId, TResult, TStatement, TransformError, Transformed};
use crate::poly::affine::{Aff, Var};
use crate::poly::isl::{Ctx, Set};
use crate::poly::memo::Memo;

/// How one dimension of the box is spread.
#[derive(Clone, Debug, PartialEq)]
pub enum BoxDim {
    /// Over the threads along kernel thread dimension `dim` (`size` of them), in `rounds`
    /// steps of the statement's level `level` (none where one round covers it).
    Threads {
        dim: usize,
        size: i64,
        rounds: i64,
        level: usize,
    },
    /// A loop of the statement's level `level` that every copying thread runs.
    Loop { level: usize },
    /// A dimension of size 1.
    One,
    /// A dimension of a wide copy's box, whose vectors are spread over the block's
    /// threads in row-major order of the box ([`super::vector::distribution`]), in rounds
    /// of the statement's level `round` (none where one round moves them all).
    Vectors { round: Option<usize> },
}

/// A copy whose instances are its box (`DataCopy::sizes`) clipped to the array's extents,
/// element `x` of the box spread as `dims` say.
#[derive(Clone, Debug, PartialEq)]
pub struct BoxCopy {
    /// The copy-in's domain, levels and bindings as made: a later command that changes
    /// them leaves the copy's loops to isl.
    pub domain: String,
    pub levels: Vec<LevelId>,
    pub bindings: Vec<(Hw, Aff)>,
    /// The values the copy is made per: the domain without the box's dimensions.
    pub per: String,
    pub dims: Vec<BoxDim>,
    /// The array's extent along each dimension.
    pub extents: Vec<Aff>,
    /// Per dimension, whether the box may begin before the array (for some value of the
    /// fixed names), and whether it may end past it.
    pub clips: Vec<(bool, bool)>,
    /// Per kernel thread dimension, the thread's coordinate from the kernel's thread
    /// variable (`Var::Index("__t{d}")`) and the copy's fixed names (none where each
    /// thread copies a box of its own).
    pub coordinates: Vec<Aff>,
    /// Thread dimensions the box does not use: only their first thread copies.
    pub idle: Vec<usize>,
    /// Per fixed name, whether it is never negative.
    pub nonnegative: Vec<bool>,
}

impl BoxCopy {
    /// Whether statement `st` is still the copy this describes.
    pub fn describes(&self, st: &TStatement) -> bool {
        st.domain == self.domain
            && st.bindings == self.bindings
            && st
                .levels
                .iter()
                .map(|(l, _)| *l)
                .eq(self.levels.iter().copied())
    }
}

/// The name [`BoxCopy::coordinates`] give kernel thread variable `d`.
pub fn thread_var(d: usize) -> Var {
    Var::Index(format!("__t{d}"))
}

/// How `datacopy` spread a shared copy of a box: the names it is made per (with their
/// levels), the box, the array's extents, each dimension's spread.
pub(super) struct Spread<'a> {
    pub fixed: &'a [(Option<LevelId>, String)],
    pub offsets: &'a [Aff],
    pub sizes: &'a [i64],
    pub extents: Vec<Aff>,
    pub dims: Vec<BoxDim>,
    /// Whether the block's threads share the box (a shared copy), or each thread copies
    /// a box of its own (a register copy).
    pub threads: bool,
}

/// The description of `copy`, a copy of its box made as `spread` says;
/// `None` where a thread's coordinate is not affine in the kernel's variables.
pub(super) fn describe(
    t: &Transformed,
    ctx: &Ctx,
    kernel: &Kernel,
    copy: &TStatement,
    spread: Spread,
) -> TResult<Option<BoxCopy>> {
    let shared_by = if spread.threads {
        kernel.threads.len()
    } else {
        0
    };
    let coordinates: Option<Vec<Aff>> = (0..shared_by)
        .map(|d| coordinate(t, kernel, spread.fixed, d).ok())
        .collect();
    let Some(coordinates) = coordinates else {
        return Ok(None);
    };
    let names: Vec<&str> = spread.fixed.iter().map(|(_, n)| n.as_str()).collect();
    // Where each thread copies a box of its own, a dimension with a loop does not bound
    // the values the copy is made per (below).
    let loops: Vec<usize> = (spread.dims.iter().enumerate())
        .filter(|(_, dim)| !spread.threads && matches!(dim, BoxDim::Loop { .. }))
        .map(|(d, _)| d)
        .collect();
    let params = t.params_prefix();
    let key = format!(
        "{params}\n{}\n{}\n{names:?}\n{loops:?}\n{:?}\n{:?}\n{:?}",
        copy.domain, copy.name, spread.offsets, spread.sizes, spread.extents
    );
    let (per, clips, nonnegative) =
        BOUNDS.get_or(key, || bounds(ctx, &params, copy, &names, &loops, &spread))?;
    // A wide copy's vectors are spread over every thread.
    let vectors = (spread.dims.iter()).any(|x| matches!(x, BoxDim::Vectors { .. }));
    let idle = (0..shared_by)
        .filter(|d| {
            !vectors
                && !(spread.dims.iter())
                    .any(|x| matches!(x, BoxDim::Threads { dim, .. } if dim == d))
        })
        .collect();
    Ok(Some(BoxCopy {
        domain: copy.domain.clone(),
        levels: copy.levels.iter().map(|(l, _)| *l).collect(),
        bindings: copy.bindings.clone(),
        per,
        dims: spread.dims,
        extents: spread.extents,
        clips,
        coordinates,
        idle,
        nonnegative,
    }))
}

/// What [`describe`] asks isl, by its inputs' texts (each variant of a nest makes the
/// same copies again: 540 descriptions in one compile of PolyBench 3mm at LARGE).
static BOUNDS: Memo<Bounds> = Memo::new(4096);

/// The values a copy is made per (isl text), per dimension whether the box may begin
/// before the array and end past it, and per fixed name whether it is never negative.
type Bounds = (String, Vec<(bool, bool)>, Vec<bool>);

/// [`BOUNDS`]'s computation for `copy`, made per `names`, whose box dimensions `loops`
/// are loops each thread runs over a box of its own.
fn bounds(
    ctx: &Ctx,
    params: &str,
    copy: &TStatement,
    names: &[&str],
    loops: &[usize],
    spread: &Spread,
) -> TResult<Bounds> {
    // Where each thread copies a box of its own, a dimension with a loop does not bound
    // the values the copy is made per: past the array's edge, its loop is empty, and isl
    // writes no guard for that either.
    let mut domain = Set::parse(ctx, &copy.domain)?;
    for &d in loops {
        domain = domain.drop_constraints_involving(names.len() + d, 1)?;
    }
    let per = domain
        .project_out(names.len(), spread.sizes.len())?
        .set_tuple_name(&copy.name)?;
    // Whether some value the copy is made per meets `cond`.
    let tuple = format!("{}[{}]", copy.name, names.join(", "));
    let meets = |cond: String| -> TResult<bool> {
        let set = Set::parse(ctx, &format!("{params}{{ {tuple} : {cond} }}"))?;
        Ok(!per.intersect(&set)?.is_empty()?)
    };
    // Where the box may leave the array (the edge tiles), the copy is clipped.
    let mut clips = Vec::new();
    for ((o, size), e) in spread.offsets.iter().zip(spread.sizes).zip(&spread.extents) {
        clips.push((
            meets(format!("{o} < 0"))?,
            meets(format!("{o} + {size} > {e}"))?,
        ));
    }
    let nonnegative = (names.iter())
        .map(|n| Ok(!meets(format!("{n} < 0"))?))
        .collect::<TResult<_>>()?;
    Ok((per.to_string(), clips, nonnegative))
}

/// The thread's coordinate along kernel thread dimension `dim`, from the kernel's thread
/// variable: the inverse of `datacopy`'s thread value.
fn coordinate(
    t: &Transformed,
    kernel: &Kernel,
    fixed: &[(Option<LevelId>, String)],
    dim: usize,
) -> TResult<Aff> {
    let td = &kernel.threads[dim];
    let var = Aff::var(thread_var(dim));
    let too_large = |_| TransformError::too_large();
    Ok(match td.kind {
        ThreadKind::Coordinate => var,
        ThreadKind::TilePoint { control } => {
            let Some((_, name)) = fixed.iter().find(|(l, _)| *l == Some(control)) else {
                return Err(TransformError::new(
                    "the copy is not inside its threads' tile loop",
                ));
            };
            var.sub(
                &Aff::var(Var::Index(name.clone()))
                    .scale(td.size)
                    .map_err(too_large)?,
            )
            .map_err(too_large)?
        }
        ThreadKind::Whole => {
            let first = unroll::first_value(t, td.per_statement[0].1)?.ok_or_else(|| {
                TransformError::new("the thread loop does not start at a constant")
            })?;
            var.sub(&Aff::constant(first)).map_err(too_large)?
        }
    })
}
