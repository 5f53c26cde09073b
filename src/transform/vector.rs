//! Wide copies into shared memory (`copy_to_shared(..., {width=W})`): each thread moves
//! `W` consecutive elements with one 64- or 128-bit load and one store (`float4`,
//! `double2`, ...), as every fast GEMM loads its tiles. isl proves what the hardware
//! needs, or the copy is refused with the reason: both addresses aligned to the vector's
//! size, and every group of `W` elements copied whole.
//!
//! The block's threads take the copy's vectors in row-major order of its box, thread
//! `threadIdx.x + TX * (threadIdx.y + TY * threadIdx.z)` the vector of that number (and
//! the block's size further on per round), so that a warp reads consecutive vectors
//! whatever the box's shape: a 128 x 16 tile of floats is 4 vectors a row, 64 rows a
//! round for 256 threads, not 4 of every 16 threads busy.

use super::cudaize::Kernel;
use super::{TResult, TransformError};
use crate::frontend::ast::ScalarType;
use crate::poly::affine::{isl_name, Aff, Var};
use crate::poly::isl::{Ctx, Map, Set};
use crate::poly::Array;

/// The CUDA vector type of `width` elements of `elem` (`float4`), where CUDA has one of
/// 8 or 16 bytes.
pub fn vector_type(elem: ScalarType, width: i64) -> Option<String> {
    let base = match elem {
        ScalarType::Float => "float",
        ScalarType::Double => "double",
        ScalarType::Int => "int",
        ScalarType::UInt => "uint",
        _ => return None,
    };
    let bytes = elem.size_bytes() as i64 * width;
    (width >= 2 && (bytes == 8 || bytes == 16)).then(|| format!("{base}{width}"))
}

/// The type one instance of a copy of `width` elements of `elem` moves: the vector type,
/// or the element's for a copy of one element.
pub fn moved_type(elem: ScalarType, width: i64) -> String {
    vector_type(elem, width).unwrap_or_else(|| elem.c_name().to_string())
}

/// The widths a copy of `elem` may use, widest first.
pub fn widths(elem: ScalarType) -> impl Iterator<Item = i64> {
    [4, 2]
        .into_iter()
        .filter(move |w| vector_type(elem, *w).is_some())
}

/// What a wide copy needs of a shared copy: its footprint `footprint` (the fixed names
/// `names` to the array's elements), the box's offsets and sizes, the temporary's declared
/// dimensions. `Ok` when every vector is aligned and whole; else the reason.
#[allow(clippy::too_many_arguments)]
pub fn check(
    params_prefix: &str,
    ctx: &Ctx,
    array: &Array,
    footprint: &Map,
    names: &[String],
    offsets: &[Aff],
    sizes: &[i64],
    dims: &[i64],
    width: i64,
) -> TResult<()> {
    let name = &array.name;
    let Some(ty) = vector_type(array.elem, width) else {
        return Err(TransformError::new(format!(
            "a copy of `{name}` ({}) cannot be {width} elements wide: CUDA's vector loads take 8 or 16 bytes of float, double, int or unsigned",
            array.elem.c_name()
        ))
        .hint(widths_hint(array.elem)));
    };
    let last = sizes.len() - 1;
    if sizes[last] % width != 0 {
        return Err(TransformError::new(format!(
            "the copy of `{name}` is {} elements wide, not a multiple of {width}",
            sizes[last]
        ))
        .hint(format!(
            "tile the loop along `{name}`'s last subscript by a multiple of {width}"
        )));
    }
    if dims[last] % width != 0 {
        return Err(TransformError::new(format!(
            "the shared copy of `{name}` has rows of {} elements (padded), not a multiple of {width}, so its {ty} stores would not be aligned",
            dims[last]
        ))
        .hint(format!("pad by a multiple of {width} (or 0)")));
    }
    if sizes.len() >= 2 || array.extents.len() >= 2 {
        let row = array
            .extents
            .last()
            .and_then(|e| e.as_ref())
            .and_then(|e| e.as_constant());
        match row {
            Some(r) if r % width == 0 => {}
            Some(r) => {
                return Err(TransformError::new(format!(
                    "`{name}`'s rows are {r} elements long, not a multiple of {width}, so the {ty} loads of rows after the first would not be aligned"
                ))
                .hint("copy one element at a time (no width), or give the array rows of a multiple of the width"))
            }
            None => {
                return Err(TransformError::new(format!(
                    "`{name}`'s row length is not a constant, so gpucc cannot prove its {ty} loads aligned"
                ))
                .hint("fix the sizes with -P N=... (or -D), or copy one element at a time"))
            }
        }
    }
    // The box starts on a vector boundary of the array wherever the copy runs.
    let ns = names.join(", ");
    let misaligned = Set::parse(
        ctx,
        &format!(
            "{params_prefix}{{ [{ns}] : ({}) mod {width} > 0 }}",
            offsets[last]
        ),
    )?
    .intersect(&footprint.domain()?)?;
    if !misaligned.is_empty()? {
        return Err(TransformError::new(format!(
            "the part of `{name}` copied does not always start at a multiple of {width} elements (it starts at {}), so its {ty} loads would not be aligned",
            offsets[last]
        ))
        .hint(format!("tile so that each tile of `{name}`'s last subscript starts at a multiple of {width}")));
    }
    // Every vector the copy touches is copied whole: at the array's edges (a tile cut by
    // a bound) a vector would read past what the code reads.
    let rank = sizes.len();
    let es: Vec<String> = (0..rank).map(|d| format!("__e{d}")).collect();
    let gs: Vec<String> = (0..rank).map(|d| format!("__g{d}")).collect();
    let mut conds: Vec<String> = (0..last)
        .map(|d| format!("{} = {}", gs[d], es[d]))
        .collect();
    conds.push(format!(
        "{w} * floor({e} / {w}) <= {g} < {w} * floor({e} / {w}) + {w}",
        w = width,
        e = es[last],
        g = gs[last]
    ));
    let a = isl_name(name);
    let widen = Map::parse(
        ctx,
        &format!(
            "{params_prefix}{{ [[{ns}] -> {a}[{}]] -> [[{ns}] -> {a}[{}]] : {} }}",
            es.join(", "),
            gs.join(", "),
            conds.join(" and ")
        ),
    )?;
    let used = footprint.wrapped()?;
    if !used.apply(&widen)?.subtract(&used)?.is_empty()? {
        return Err(TransformError::new(format!(
            "the copy of `{name}` would move elements the code does not read (a tile cut by a bound or a stride), so its vectors are not whole"
        ))
        .hint(format!("choose sizes that are multiples of the tile and of {width}, or copy one element at a time")));
    }
    Ok(())
}

fn widths_hint(elem: ScalarType) -> String {
    let ws: Vec<String> = widths(elem).map(|w| w.to_string()).collect();
    if ws.is_empty() {
        format!("copy `{}` one element at a time", elem.c_name())
    } else {
        format!("use width {}", ws.join(" or "))
    }
}

/// The schedule of a wide copy's instances (`xs`: the position in the box, the last one a
/// multiple of `width`): the round each instance runs in (`None` when one round holds
/// them all) and the thread coordinate per thread dimension that moves it.
pub fn distribution(
    kernel: &Kernel,
    sizes: &[i64],
    width: i64,
    xs: &[Aff],
) -> Result<(Option<Aff>, Vec<Aff>), crate::poly::affine::TooLarge> {
    let last = sizes.len() - 1;
    // The vector's number in row-major order of the box.
    let mut linear = Aff::constant(0);
    let mut total = 1i64;
    for d in (0..sizes.len()).rev() {
        let (x, n) = if d == last {
            (xs[d].floor_div(width), sizes[d] / width)
        } else {
            (xs[d].clone(), sizes[d])
        };
        linear = linear.add(&x.scale(total)?)?;
        total = total.checked_mul(n).ok_or(crate::poly::affine::TooLarge)?;
    }
    let threads: i64 = kernel.threads.iter().map(|d| d.size).product();
    let (round, within) = if total > threads {
        let round = linear.floor_div(threads);
        let within = linear.sub(&round.scale(threads)?)?;
        (Some(round), within)
    } else {
        (None, linear)
    };
    let mut coordinates = Vec::new();
    let mut below = 1i64;
    for (d, td) in kernel.threads.iter().enumerate() {
        let above = within.floor_div(below);
        let c = if d + 1 == kernel.threads.len() {
            above
        } else {
            above.sub(&within.floor_div(below * td.size).scale(td.size)?)?
        };
        coordinates.push(c);
        below *= td.size;
    }
    Ok((round, coordinates))
}

/// `Var::Index` of a name: the copy's position variables.
pub fn position(d: usize) -> Aff {
    Aff::var(Var::Index(format!("__x{d}")))
}
