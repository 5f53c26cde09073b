//! Data copies (seed 004, §3.4.2 and Table 3.2): `copy_to_registers` and
//! `copy_to_shared` copy the footprint of an array accessed inside a loop into a
//! temporary of constant size, before the loop, and rewrite the accesses inside it;
//! `copy_to_constant` and `copy_to_texture` choose where an array lives.
//!
//! A copy is made of new statements in the same model as the source's: a copy-in before
//! the loop (and, for registers, a copy-out after it) whose instances are the elements of
//! the footprint, and for shared memory `__syncthreads()` after the copy and at the end of
//! the enclosing loop's body. The footprint is computed by isl per value of the loops
//! around the copy (and, for registers, per thread); its bounding box of constant size
//! (isl's simple fixed box hull) gives the temporary's dimensions and the offset
//! subtracted from the subscripts.

use super::boxcopy::{self, BoxCopy, BoxDim};
use super::cudaize::ThreadKind;
use super::footprint::{Footprints, Hull};
use super::registers::first_beside;
use super::{
    unroll, Hw, LevelId, Placement, StmtKind, TResult, TStatement, TransformError, Transformed,
};
use crate::poly::affine::{isl_name, Aff, Var};
use crate::poly::isl::{Ctx, Set};
use crate::poly::{AccessId, ArrayId, ArrayKind};

/// Where a copy's temporary lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Memory {
    Shared,
    Registers,
}

/// A copy of an array's footprint into a temporary, at a place in a kernel.
#[derive(Clone, Debug)]
pub struct DataCopy {
    pub array: ArrayId,
    pub memory: Memory,
    /// The temporary's name in the kernel.
    pub temp: String,
    /// The footprint's box (the temporary's dimensions before padding), in elements of
    /// the temporary: a dimension with a stride counts its lattice points.
    pub sizes: Vec<i64>,
    /// Per dimension, the distance between consecutive elements the copy holds: 1, or for
    /// a register copy of a cyclic tile the lattice of one thread's elements (`C[ty +
    /// 16 * r]`: 16). Element `x` of the temporary is `offset + stride * x` of the array.
    pub strides: Vec<i64>,
    /// The temporary's declared dimensions (shared memory: the last one padded).
    pub dims: Vec<i64>,
    pub kernel: usize,
    /// The names the offsets use for the values the copy is made per (loops around it,
    /// thread variables).
    pub fixed_names: Vec<String>,
    /// Per dimension, the offset of the box (affine in `fixed_names` and parameters).
    pub offsets: Vec<Aff>,
    /// The rewritten accesses, with the offsets in their statement's iterators.
    pub rewrites: Vec<(AccessId, Vec<Aff>)>,
    /// Elements each copy instance moves (a shared copy's `{width=4}`: one `float4`); 1
    /// for one element. Its instances then start at multiples of it along the last
    /// dimension ([`super::vector`]).
    pub width: i64,
    /// The loops around the copy (outermost first): the copy runs at the top of the last.
    pub prefix: Vec<LevelId>,
    /// Double-buffered (`double_buffer`): the name, among `fixed_names`, of the loop whose
    /// iterations alternate between the temporary's two buffers ([`super::pipeline`]).
    pub double: Option<String>,
    /// A double-buffered copy made with asynchronous copies (`double_buffer(...,
    /// {async=true})`: `cp.async` on sm_80 and later), waited for before the barrier that
    /// ends each iteration.
    pub asynchronous: bool,
    /// The copy statements of the box whose loops gpucc writes ([`BoxCopy`]): a shared
    /// copy-in, a register copy's in and out.
    pub boxed: Vec<BoxCopy>,
}

impl DataCopy {
    /// An index into the temporary without its buffer (the first index of a
    /// double-buffered copy's): the element's place in one buffer.
    pub fn per_buffer<'a, T>(&self, index: &'a [T]) -> &'a [T] {
        &index[(self.buffers() - 1) as usize..]
    }

    /// Buffers the temporary holds: 2 when double-buffered, else 1.
    pub fn buffers(&self) -> i64 {
        if self.double.is_some() {
            2
        } else {
            1
        }
    }
}

/// A copy statement's loops and the kernel variables it fixes.
type CopyPlace = (Vec<(LevelId, Aff)>, Vec<(Hw, Aff)>);

/// Registers a copy may use per thread; more would spill.
pub const MAX_REGISTER_ELEMENTS: i64 = 128;
/// Shared memory one block may declare statically (`__shared__` arrays); a kernel whose
/// copies need more declares them in dynamic shared memory (`src/cuda/copies.rs`).
pub const STATIC_SHARED_BYTES: i64 = 48 * 1024;
/// The most shared memory a block of any CUDA device may use (sm_90's 227 KB, with the
/// opt-in attribute; sm_80 has 163 KB, sm_70 96 KB): a device with less refuses the kernel
/// when it is ranked or emulated.
pub const MAX_SHARED_BYTES: i64 = 227 * 1024;

/// Bytes of shared memory the copies of `kernel` take, with `buffers(copy index, copy)`
/// buffers each, each copy's bytes rounded up to 16 (where the next starts in dynamic
/// shared memory, `src/cuda/copies.rs`).
pub fn shared_bytes_with(
    t: &Transformed,
    kernel: usize,
    buffers: impl Fn(usize, &DataCopy) -> i64,
) -> i64 {
    t.copies
        .iter()
        .enumerate()
        .filter(|(_, c)| c.kernel == kernel && c.memory == Memory::Shared)
        .map(|(i, c)| shared_copy_bytes(t, c, buffers(i, c)))
        .sum()
}

/// Bytes of one shared copy with `buffers` buffers, rounded up to 16.
pub fn shared_copy_bytes(t: &Transformed, c: &DataCopy, buffers: i64) -> i64 {
    let bytes = c.dims.iter().product::<i64>()
        * t.program.arrays[c.array].elem.size_bytes() as i64
        * buffers;
    (bytes + 15) / 16 * 16
}

/// What a copy is made per: a name and, per statement of the scope, its value.
struct Fixed {
    name: String,
    hw: Option<Hw>,
    /// The level (prefix levels only) the value belongs to in the schedule.
    level: Option<LevelId>,
    values: Vec<(usize, Aff)>,
}

/// `width`: elements per load and store of the copy-in and copy-out (1, or a vector's:
/// see [`super::vector`]).
pub fn copy_to_registers(
    t: &mut Transformed,
    level: LevelId,
    array: ArrayId,
    width: i64,
) -> TResult<()> {
    // With the statements beside the loop first; where they make the copy impossible (no
    // box of constant size, too many registers, elements other threads use), the loop's
    // own statements alone. A refused copy leaves `t` as it was.
    let copy = |t: &mut Transformed, beside: bool| {
        let how = How {
            memory: Memory::Registers,
            pad: 0,
            width,
            beside,
            only: None,
        };
        make_copy(t, level, array, &how)
    };
    copy(t, true).or_else(|_| copy(t, false))
}

/// `width`: elements per load and store (1, or a vector's: see [`super::vector`]).
pub fn copy_to_shared(
    t: &mut Transformed,
    level: LevelId,
    array: ArrayId,
    pad: i64,
    width: i64,
) -> TResult<()> {
    let how = How {
        memory: Memory::Shared,
        pad,
        width,
        beside: false,
        only: None,
    };
    make_copy(t, level, array, &how)
}

/// How a copy is made.
struct How<'a> {
    memory: Memory,
    /// Shared memory: the last dimension's padding (`copy_to_shared`'s `pad`).
    pad: i64,
    /// Elements per load and store.
    width: i64,
    /// Registers: the statements beside the loop are served too.
    beside: bool,
    /// The accesses the copy serves, where not every access of the array in its scope
    /// ([`reference_groups`]).
    only: Option<&'a [AccessId]>,
}

/// Places an array in constant memory or behind the read-only data cache.
pub fn place(t: &mut Transformed, array: ArrayId, placement: Placement) -> TResult<()> {
    let p = &t.program;
    let a = &p.arrays[array];
    let written = p
        .statements
        .iter()
        .any(|s| p.accesses[s.write].array == array);
    let what = if placement == Placement::Constant {
        "constant memory"
    } else {
        "the read-only data cache"
    };
    if written {
        return Err(TransformError::new(format!(
            "`{}` is written, so it cannot be read through {what}",
            a.name
        ))
        .hint("only arrays the kernels only read can be placed there"));
    }
    if a.is_scalar() {
        return Err(TransformError::new(format!(
            "`{}` is a scalar; kernels receive it as an argument already",
            a.name
        )));
    }
    if a.is_table() && placement == Placement::ReadOnlyCache {
        return Err(TransformError::new(format!(
            "`{}` is a constant table declared inside the compiled code: each kernel holds its own \
             copy, in registers or local memory, and the read-only data cache reads only global memory",
            a.name
        ))
        .hint(format!(
            "use copy_to_constant(\"{}\") to read it from constant memory, or leave it where it is",
            a.name
        )));
    }
    if placement == Placement::Constant && t.copies.iter().any(|c| c.array == array && c.width > 1)
    {
        return Err(TransformError::new(format!(
            "`{}` is copied into shared memory in vectors, which constant memory does not serve",
            a.name
        ))
        .hint("place it in constant memory before the copy, or copy it without a width"));
    }
    if placement == Placement::Constant {
        let elements: Option<i64> = a
            .extents
            .iter()
            .map(|e| e.as_ref().and_then(|x| x.as_constant()))
            .product();
        let Some(n) = elements else {
            return Err(TransformError::new(format!(
                "`{}` has no constant size, and constant memory is declared with one",
                a.name
            ))
            .hint("use copy_to_texture for arrays whose size is a parameter"));
        };
        let bytes = n.saturating_mul(a.elem.size_bytes() as i64);
        if bytes > 64 * 1024 {
            return Err(TransformError::new(format!(
                "`{}` takes {bytes} bytes; constant memory holds 65536",
                a.name
            ))
            .hint("use copy_to_texture (the read-only data cache) for large arrays"));
        }
    }
    t.placements.retain(|(x, _)| *x != array);
    t.placements.push((array, placement));
    Ok(())
}

fn make_copy(t: &mut Transformed, level: LevelId, array: ArrayId, how: &How) -> TResult<()> {
    let (memory, pad, width, beside) = (how.memory, how.pad, how.width, how.beside);
    let p = &t.program;
    let name = p.arrays[array].name.clone();
    let command = if memory == Memory::Shared {
        "copy_to_shared"
    } else {
        "copy_to_registers"
    };
    let Some(k) = t
        .statements_in(level)
        .into_iter()
        .find_map(|s| t.kernel_of(s))
    else {
        return Err(TransformError::new(format!(
            "{command} places data inside a kernel, and loop `{}` is not in one",
            t.levels[level].name
        ))
        .hint("use cudaize first, then copy inside the kernel's loops"));
    };
    let kernel = t.kernels[k].clone();
    if kernel.is_serial() {
        return Err(TransformError::new(format!(
            "kernel `{}` is serial (one thread), and {command} stages data for the threads of a block",
            kernel.name
        ))
        .hint("copy in kernels with block and thread loops"));
    }
    if kernel.reductions.iter().any(|r| r.array == array) {
        return Err(TransformError::new(format!(
            "kernel `{}` reduces `{name}` across its threads: each thread accumulates it in a register already",
            kernel.name
        ))
        .hint("copy only the data the reduction reads"));
    }
    if kernel.blocks.contains(&level) || kernel.host_levels.contains(&level) {
        return Err(TransformError::new(format!(
            "`{}` is a block loop; a copy goes inside the loops a block runs",
            t.levels[level].name
        ))
        .hint("name a loop inside the block loops, or `tx` for the thread loops"));
    }
    if matches!(p.arrays[array].kind, ArrayKind::Private { .. }) || p.arrays[array].is_scalar() {
        return Err(TransformError::new(format!(
            "`{name}` is a scalar or private variable; it is in registers already"
        )));
    }
    let thread_levels: Vec<LevelId> = kernel
        .threads
        .iter()
        .flat_map(|d| d.per_statement.iter().map(|(_, l)| *l))
        .collect();
    let at_threads = thread_levels.contains(&level);
    // The kernel's statements that use the array.
    let users: Vec<usize> = kernel
        .statements
        .iter()
        .copied()
        .filter(|&s| match t.statements[s].kind {
            StmtKind::Compute(id) => {
                let st = &p.statements[id];
                std::iter::once(&st.write)
                    .chain(&st.reads)
                    .any(|a| p.accesses[*a].array == array)
            }
            _ => false,
        })
        .collect();
    // Those inside the copy's place, and where it goes in each.
    let mut scope: Vec<(usize, usize)> = Vec::new();
    for &s in &users {
        let levels = &t.statements[s].levels;
        let at = if at_threads {
            levels.iter().position(|(l, _)| thread_levels.contains(l))
        } else {
            levels.iter().position(|(l, _)| *l == level)
        };
        if let Some(at) = at {
            scope.push((s, at));
        }
    }
    if scope.is_empty() {
        return Err(TransformError::new(format!(
            "`{name}` is not used inside loop `{}`",
            t.levels[level].name
        ))
        .hint("copy an array that the statements inside the loop access"));
    }
    let prefix: Vec<LevelId> = t.statements[scope[0].0].levels[..scope[0].1]
        .iter()
        .map(|(l, _)| *l)
        .collect();
    // A register copy at a loop inside the kernel also holds the array for the statements
    // beside that loop in the same thread (`C[i][j] *= beta` before the k loop): the
    // element is loaded once before the first of them and written back once after the
    // last, instead of a global round trip on each side of the copy.
    let beside_from = scope.len();
    if memory == Memory::Registers && beside && !at_threads {
        for &s in &users {
            if t.statements[s].below(&prefix) && !scope.iter().any(|(x, _)| *x == s) {
                scope.push((s, prefix.len()));
            }
        }
    }
    if scope.iter().any(|(s, at)| {
        t.statements[*s].levels[..*at]
            .iter()
            .map(|(l, _)| *l)
            .ne(prefix.iter().copied())
    }) {
        return Err(TransformError::new(format!(
            "the statements that use `{name}` are not all inside one loop `{}`",
            t.levels[level].name
        ))
        .hint("copy at a loop that encloses every use of the array in the kernel"));
    }
    let written = scope.iter().any(|(s, _)| match t.statements[*s].kind {
        StmtKind::Compute(id) => p.accesses[p.statements[id].write].array == array,
        _ => false,
    });
    if memory == Memory::Shared {
        if written || kernel_writes(t, k, array) {
            return Err(TransformError::new(format!("the kernel writes `{name}`; gpucc copies only arrays a kernel reads to shared memory"))
                .hint("keep a written array in registers (copy_to_registers) or in global memory"));
        }
        if prefix.iter().any(|l| thread_levels.contains(l)) {
            return Err(TransformError::new(format!(
                "a shared-memory copy must be outside the thread loops, and `{}` is inside them",
                t.levels[level].name
            ))
            .hint("copy at `tx` (just outside the thread loops) or at a loop that encloses them"));
        }
    }
    for (s, _) in &scope {
        let StmtKind::Compute(id) = t.statements[*s].kind else {
            continue;
        };
        let st = &p.statements[id];
        if let Some(a) = std::iter::once(&st.write).chain(&st.reads).find(|a| {
            p.accesses[**a].array == array
                && p.accesses[**a]
                    .subscripts
                    .iter()
                    .any(|x| x.as_aff().is_none())
        }) {
            return Err(TransformError::new(format!("`{}` has a subscript with several cases (min, max, ?:, or / and % of values that may be negative)", p.accesses[*a].text))
                .hint("copies need affine subscripts"));
        }
    }

    // Reads whose subscripts are not a constant apart (SYRK's `A[i][k]` and `A[j][k]`: two
    // tiles of rows as far apart as the block is from the diagonal) each get a shared copy
    // of their own: the box of both may be most of the array.
    if memory == Memory::Shared && how.only.is_none() {
        let groups = super::footprint::reference_groups(t, &scope, array);
        if groups.len() > 1 {
            let before = t.clone();
            for group in &groups {
                let one = How {
                    only: Some(group),
                    ..*how
                };
                if let Err(e) = make_copy(t, level, array, &one) {
                    *t = before;
                    return Err(e);
                }
            }
            return Ok(());
        }
    }

    // What the copy is made per: the loops around it, and for registers each thread.
    let names = crate::codegen::kernel_names(t, &kernel);
    let mut fixed: Vec<Fixed> = Vec::new();
    for (d, l) in prefix.iter().enumerate() {
        let hw = kernel
            .host_levels
            .iter()
            .position(|x| x == l)
            .map(Hw::Host)
            .or_else(|| kernel.blocks.iter().position(|x| x == l).map(Hw::Block));
        fixed.push(Fixed {
            // The kernel's name for the level: `i_rev` for a loop counting down, whose
            // level runs over -i (named `i`, it would be the statements' `i`).
            name: crate::codegen::level_variable(t, &kernel, *l),
            hw,
            level: Some(*l),
            values: scope
                .iter()
                .map(|(s, _)| (*s, t.statements[*s].levels[d].1.clone()))
                .collect(),
        });
    }
    if memory == Memory::Registers {
        for (d, td) in kernel.threads.iter().enumerate() {
            let mut values = Vec::new();
            for (s, _) in &scope {
                let l = kernel
                    .thread_level(d, *s)
                    .expect("cudaize gives every statement of a kernel its thread loops");
                let v = t.statements[*s]
                    .levels
                    .iter()
                    .find(|(x, _)| *x == l)
                    .map(|(_, v)| v.clone())
                    .expect("the statement has its thread loop");
                values.push((
                    *s,
                    match td.kind {
                        ThreadKind::Coordinate => v
                            .sub(
                                &v.floor_div(td.size)
                                    .scale(td.size)
                                    .map_err(|_| TransformError::too_large())?,
                            )
                            .map_err(|_| TransformError::too_large())?,
                        _ => v,
                    },
                ));
            }
            fixed.push(Fixed {
                name: names.threads[d].clone(),
                hw: Some(Hw::Thread(d)),
                level: None,
                values,
            });
        }
    }
    let ctx = Ctx::new();
    let fixed_names: Vec<String> = fixed.iter().map(|f| isl_name(&f.name)).collect();
    // The elements the scope's statements read and/or write.
    let fp = Footprints::new(
        &ctx,
        t,
        &scope,
        &fixed_names,
        &|j, i| fixed[j].values[i].1.to_string(),
        array,
        how.only,
    );
    let mut reads = fp.any(true, false);
    let writes = memory == Memory::Registers && fp.any(false, true);
    // No copy-in where the thread's first use of the array is a statement beside the loop
    // that writes every element of the copy without reading it (`Qr[i] = 0.0f`).
    if let Some(first) = first_beside(t, &scope, beside_from, &prefix) {
        let StmtKind::Compute(id) = t.statements[first].kind else {
            unreachable!("the scope holds source statements");
        };
        let reads_it = p.statements[id]
            .reads
            .iter()
            .any(|a| p.accesses[*a].array == array);
        if !reads_it {
            if let Some(w) = fp.map(false, true, Some(first))? {
                if fp.all()?.wrapped()?.subtract(&w.wrapped()?)?.is_empty()? {
                    reads = false;
                }
            }
        }
    }
    let found = fp.bounding_box(t, &fixed_names, &name, memory == Memory::Registers)?;
    let Some((offsets, sizes, strides)) = found else {
        return Err(TransformError::new(format!(
            "the part of `{name}` used inside loop `{}` does not have a constant size",
            t.levels[level].name
        ))
        .hint("tile the loops inside the copy so that each uses a tile of constant size"));
    };
    let elements: i64 = sizes.iter().product();
    let elem = p.arrays[array].elem;
    let mut dims = sizes.clone();
    if memory == Memory::Registers {
        if elements > MAX_REGISTER_ELEMENTS {
            return Err(TransformError::new(format!("each thread would keep {elements} elements of `{name}` in registers (at most {MAX_REGISTER_ELEMENTS})"))
                .hint("use smaller tiles inside the copy's loop"));
        }
        let threads: Vec<bool> = fixed
            .iter()
            .map(|f| matches!(f.hw, Some(Hw::Thread(_))))
            .collect();
        fp.check_private(t, &threads, &fixed_names, &name, written)?;
    } else {
        if let Some(last) = dims.last_mut() {
            if pad < 0 {
                let m = -pad;
                while gcd(*last, m) != 1 {
                    *last += 1;
                }
            } else {
                *last += pad;
            }
        }
        let used = shared_bytes_with(t, k, |_, c| c.buffers());
        let bytes = (dims.iter().product::<i64>() * elem.size_bytes() as i64 + 15) / 16 * 16;
        if used + bytes > MAX_SHARED_BYTES {
            return Err(TransformError::new(format!(
                "the kernel's shared memory would be {} bytes (at most {MAX_SHARED_BYTES}, the most a GPU gives one block)",
                used + bytes
            ))
            .hint("use smaller tiles, or copy fewer arrays to shared memory"));
        }
    }
    if width > 1 {
        if t.placement(array) == Placement::Constant {
            return Err(TransformError::new(format!(
                "`{name}` is in constant memory, which gpucc reads one element at a time"
            ))
            .hint("copy it without a width, or leave it in global memory"));
        }
        if let Some(&stride) = strides.last().filter(|s| **s != 1) {
            return Err(TransformError::new(format!(
                "a thread's elements of `{name}` along its last subscript are {stride} apart, so they do not make one vector"
            ))
            .hint("distribute the tile in blocks (a thread's elements next to each other), or copy without a width"));
        }
        fp.check_vectors(
            &t.params_prefix(),
            &p.arrays[array],
            &fixed_names,
            &offsets,
            &sizes,
            &dims,
            width,
        )?;
    }

    // The rewritten accesses: subscript minus offset, with the offset in each statement's
    // iterators.
    let mut rewrites = Vec::new();
    for (i, (s, _)) in scope.iter().enumerate() {
        let StmtKind::Compute(id) = t.statements[*s].kind else {
            continue;
        };
        let st = &p.statements[id];
        for a in std::iter::once(&st.write).chain(&st.reads) {
            if p.accesses[*a].array != array || how.only.is_some_and(|o| !o.contains(a)) {
                continue;
            }
            let local = offsets
                .iter()
                .map(|o| {
                    o.substitute(&|v| match v {
                        Var::Index(n) => fixed_names
                            .iter()
                            .position(|x| x == n)
                            .map(|j| fixed[j].values[i].1.clone()),
                        Var::Param(_) => None,
                    })
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(|_| TransformError::too_large())?;
            rewrites.push((*a, local));
        }
    }
    for (a, _) in &rewrites {
        if t.copies
            .iter()
            .any(|x| x.rewrites.iter().any(|(b, _)| b == a))
        {
            return Err(
                TransformError::new(format!("`{name}` is copied twice at the same place"))
                    .hint("copy each array once per loop"),
            );
        }
    }
    let c = t.copies.len();
    let temp = temp_name(t, &name, memory);
    // The copy goes right before (and after) the loop it serves: among that loop's
    // siblings, it sorts by the first (last) statement anywhere inside the loop.
    let (s0, at0) = scope[0];
    let placement = t.statements[s0].levels[at0].0;
    if scope[..beside_from]
        .iter()
        .any(|(s, at)| t.statements[*s].levels[*at].0 != placement)
    {
        return Err(TransformError::new(format!(
            "the statements that use `{name}` are in different loops at `{}`",
            t.levels[level].name
        ))
        .hint("copy at a loop that encloses every use of the array in the kernel"));
    }
    // The copy goes around the loop it serves and the statements (or loops) beside it
    // that use the array; among their siblings it sorts by their first (last) statement.
    let placements: Vec<LevelId> = std::iter::once(placement)
        .chain(
            scope[beside_from..]
                .iter()
                .map(|(s, at)| t.statements[*s].levels[*at].0),
        )
        .collect();
    let served: Vec<(usize, i32)> = t
        .statements
        .iter()
        .filter(|st| st.below(&prefix) && placements.contains(&st.levels[prefix.len()].0))
        .map(|st| st.order)
        .collect();
    let first = served
        .iter()
        .min()
        .expect("the scope's statements are served")
        .0;
    let last = served
        .iter()
        .max()
        .expect("the scope's statements are served")
        .0;

    // Copy-in (and copy-out) statements.
    let params_prefix = t.params_prefix();
    // A shared copy-in may copy the footprint's box instead ([`Footprints::instances`]),
    // clipped to the array's bounds, where they are known; a register copy is told
    // whether its footprint is that box.
    let extents = &p.arrays[array].extents;
    let es: Vec<String> = (0..sizes.len()).map(|k| format!("__e{k}")).collect();
    // A wide copy of the box moves whole vectors where the array's rows are whole vectors
    // (the box starts on one: `vector::check`).
    let whole_rows = width == 1
        || (extents.last())
            .and_then(|e| e.as_ref())
            .and_then(|e| e.as_constant())
            .is_some_and(|r| r % width == 0);
    let hull = (whole_rows && extents.len() == sizes.len() && strides.iter().all(|s| *s == 1))
        .then(|| {
            let (fixed, a) = (fixed_names.join(", "), isl_name(&name));
            let mut conds = Vec::new();
            for (d, (o, size)) in offsets.iter().zip(&sizes).enumerate() {
                conds.push(format!("{o} <= __e{d} <= {o} + {}", size - 1));
                conds.push(format!("0 <= __e{d} < {}", extents[d].as_ref()?));
            }
            let projections = es
                .iter()
                .map(|e| {
                    format!(
                        "{params_prefix}{{ [[{fixed}] -> {a}[{}]] -> [[{fixed}] -> {a}[{e}]] }}",
                        es.join(", ")
                    )
                })
                .collect();
            Some(Hull {
                boxed: format!(
                    "{params_prefix}{{ [{fixed}] -> {a}[{}] : {} }}",
                    es.join(", "),
                    conds.join(" and ")
                ),
                projections,
                exact: memory == Memory::Registers,
            })
        })
        .flatten();
    let instances = |reads: bool, label: &str| -> TResult<(Vec<String>, (String, bool))> {
        let xs: Vec<String> = (0..sizes.len()).map(|k| format!("__x{k}")).collect();
        let shift: Vec<String> = xs
            .iter()
            .zip(&es)
            .zip(&offsets)
            .zip(&strides)
            .map(|(((x, e), o), s)| format!("{s} * {x} = {e} - ({o})"))
            .collect();
        let mut shift = shift;
        if width > 1 {
            // An instance per vector, at its first element.
            shift.push(format!("{} mod {width} = 0", xs[xs.len() - 1]));
        }
        let mut iters = fixed_names.clone();
        iters.extend(xs.clone());
        let text = format!(
            "{}{{ [[{}] -> {}[{}]] -> {label}[{}] : {} }}",
            params_prefix,
            fixed_names.join(", "),
            isl_name(&name),
            es.join(", "),
            iters.join(", "),
            shift.join(" and ")
        );
        let hull = hull.as_ref().filter(|h| reads || h.exact);
        Ok((iters, fp.instances(reads, &text, hull)?))
    };
    let copy_levels = |t: &mut Transformed, shared: bool| -> TResult<(CopyPlace, Vec<BoxDim>)> {
        let mut levels: Vec<(LevelId, Aff)> = fixed
            .iter()
            .zip(&fixed_names)
            .filter_map(|(f, n)| f.level.map(|l| (l, Aff::var(Var::Index(n.clone())))))
            .collect();
        let mut bindings: Vec<(Hw, Aff)> = fixed
            .iter()
            .zip(&fixed_names)
            .filter_map(|(f, n)| f.hw.map(|h| (h, Aff::var(Var::Index(n.clone())))))
            .collect();
        let rank = sizes.len();
        if shared && width > 1 {
            let xs: Vec<Aff> = (0..rank).map(super::vector::position).collect();
            let (round, coordinates) = super::vector::distribution(&kernel, &sizes, width, &xs)
                .map_err(|_| TransformError::too_large())?;
            let spread = vec![
                BoxDim::Vectors {
                    round: round.as_ref().map(|_| levels.len())
                };
                rank
            ];
            if let Some(round) = round {
                let l = t.new_level(unroll::fresh_name(t, &temp.to_lowercase()));
                levels.push((l, round));
            }
            for (dim, c) in coordinates.into_iter().enumerate() {
                bindings.push((
                    Hw::Thread(dim),
                    thread_value(t, &kernel, &fixed, &fixed_names, dim, c)?,
                ));
            }
            return Ok(((levels, bindings), spread));
        }
        let mut spread = Vec::new();
        for (d, &size) in sizes.iter().enumerate() {
            let x = Aff::var(Var::Index(format!("__x{d}")));
            // The last array dimension goes to threadIdx.x, the one before to .y, ...
            let thread = if shared {
                (rank - 1 - d < kernel.threads.len()).then_some(rank - 1 - d)
            } else {
                None
            };
            match thread {
                Some(dim) => {
                    let td = &kernel.threads[dim];
                    let rounds = x.floor_div(td.size);
                    let coordinate = x
                        .sub(
                            &rounds
                                .scale(td.size)
                                .map_err(|_| TransformError::too_large())?,
                        )
                        .map_err(|_| TransformError::too_large())?;
                    let l = t.new_level(unroll::fresh_name(
                        t,
                        &format!("{}{}", temp.to_lowercase(), d),
                    ));
                    spread.push(BoxDim::Threads {
                        dim,
                        size: td.size,
                        rounds: (size + td.size - 1) / td.size,
                        level: levels.len(),
                    });
                    levels.push((l, rounds));
                    bindings.push((
                        Hw::Thread(dim),
                        thread_value(t, &kernel, &fixed, &fixed_names, dim, coordinate)?,
                    ));
                }
                // A dimension of size 1 needs no loop.
                None if size == 1 => spread.push(BoxDim::One),
                None => {
                    let l = t.new_level(unroll::fresh_name(
                        t,
                        &format!("{}{}", temp.to_lowercase(), d),
                    ));
                    t.levels[l].unroll = !shared;
                    spread.push(BoxDim::Loop {
                        level: levels.len(),
                    });
                    levels.push((l, x));
                }
            }
        }
        if shared {
            // Threads along an index the copy does not use stay at its first value.
            for dim in 0..kernel.threads.len() {
                if !bindings.iter().any(|(h, _)| *h == Hw::Thread(dim)) {
                    bindings.push((
                        Hw::Thread(dim),
                        thread_value(t, &kernel, &fixed, &fixed_names, dim, Aff::constant(0))?,
                    ));
                }
            }
        }
        Ok(((levels, bindings), spread))
    };
    let extents: Option<Vec<Aff>> = extents.iter().cloned().collect();
    let fixed_levels: Vec<(Option<LevelId>, String)> = fixed
        .iter()
        .zip(&fixed_names)
        .map(|(f, n)| (f.level, n.clone()))
        .collect();
    // gpucc writes the loops of a copy of the box (clipped to the array's extents,
    // known), one element or vector per instance: a shared copy-in's, and a register
    // copy's.
    let describe = |t: &Transformed, st: &TStatement, whole_box: bool, dims: Vec<BoxDim>| match (
        &extents, whole_box,
    ) {
        (Some(extents), true) => boxcopy::describe(
            t,
            &ctx,
            &kernel,
            st,
            boxcopy::Spread {
                fixed: &fixed_levels,
                offsets: &offsets,
                sizes: &sizes,
                extents: extents.clone(),
                dims,
                threads: memory == Memory::Shared,
            },
        ),
        _ => Ok(None),
    };
    let mut new_statements = Vec::new();
    let mut boxed = Vec::new();
    if reads {
        let label = format!("{}_in", temp);
        let (iterators, (domain, whole_box)) = instances(true, &label)?;
        let ((levels, bindings), spread) = copy_levels(t, memory == Memory::Shared)?;
        let st = TStatement {
            name: label,
            kind: StmtKind::CopyIn(c),
            iterators,
            domain,
            levels,
            order: (first, order_tie(prefix.len(), Role::CopyIn)),
            bindings,
        };
        boxed.extend(describe(t, &st, whole_box, spread)?);
        new_statements.push(st);
    }
    if writes {
        let label = format!("{}_out", temp);
        let (iterators, (domain, whole_box)) = instances(false, &label)?;
        let ((levels, bindings), spread) = copy_levels(t, false)?;
        let st = TStatement {
            name: label,
            kind: StmtKind::CopyOut(c),
            iterators,
            domain,
            levels,
            order: (last, order_tie(prefix.len(), Role::CopyOut)),
            bindings,
        };
        boxed.extend(describe(t, &st, whole_box, spread)?);
        new_statements.push(st);
    }
    if memory == Memory::Shared {
        // A barrier after the copy; another at the end of the enclosing loop's body if a
        // loop inside the kernel runs the copy again.
        let copy_in = new_statements.last().expect("a shared copy reads").clone();
        let sync_domain =
            Set::parse(&ctx, &copy_in.domain)?.project_out(fixed_names.len(), sizes.len())?;
        let in_kernel_loop = prefix
            .iter()
            .any(|l| !kernel.blocks.contains(l) && !kernel.host_levels.contains(l));
        for (order, needed) in [
            ((first, order_tie(prefix.len(), Role::SyncAfterCopy)), true),
            (
                (last, order_tie(prefix.len(), Role::SyncAtEnd)),
                in_kernel_loop,
            ),
        ] {
            if !needed {
                continue;
            }
            add_barrier(t, k, &ctx, &sync_domain, &fixed, &fixed_names, order)?;
        }
    }
    let added: Vec<usize> =
        (t.statements.len()..t.statements.len() + new_statements.len()).collect();
    t.statements.extend(new_statements);
    t.kernels[k].statements.extend(added);
    t.copies.push(DataCopy {
        array,
        memory,
        temp,
        sizes,
        strides,
        dims,
        kernel: k,
        fixed_names,
        offsets,
        rewrites,
        width,
        prefix,
        double: None,
        asynchronous: false,
        boxed,
    });
    Ok(())
}

/// The value the kernel's thread variable `dim` has where the thread index is
/// `coordinate`.
fn thread_value(
    t: &Transformed,
    kernel: &super::cudaize::Kernel,
    fixed: &[Fixed],
    names: &[String],
    dim: usize,
    coordinate: Aff,
) -> TResult<Aff> {
    let td = &kernel.threads[dim];
    Ok(match td.kind {
        ThreadKind::Coordinate => coordinate,
        ThreadKind::TilePoint { control } => {
            let j = fixed
                .iter()
                .position(|f| f.level == Some(control))
                .ok_or_else(|| {
                    TransformError::new(format!(
                        "the copy is not inside the loop `{}` that gives the threads their tile",
                        t.levels[control].name
                    ))
                    .hint("copy inside the block loops")
                })?;
            Aff::var(Var::Index(names[j].clone()))
                .scale(td.size)
                .and_then(|a| a.add(&coordinate))
                .map_err(|_| TransformError::too_large())?
        }
        ThreadKind::Whole => {
            let first = unroll::first_value(t, td.per_statement[0].1)?.ok_or_else(|| {
                TransformError::new(format!("the thread loop `{}` does not start at a constant, so the copy cannot be spread over its threads", td.name))
                    .hint("tile the thread loop, or copy to registers")
            })?;
            coordinate
                .add(&Aff::constant(first))
                .map_err(|_| TransformError::too_large())?
        }
    })
}

fn add_barrier(
    t: &mut Transformed,
    k: usize,
    ctx: &Ctx,
    domain: &Set,
    fixed: &[Fixed],
    names: &[String],
    order: (usize, i32),
) -> TResult<()> {
    let levels: Vec<(LevelId, Aff)> = fixed
        .iter()
        .zip(names)
        .filter_map(|(f, n)| f.level.map(|l| (l, Aff::var(Var::Index(n.clone())))))
        .collect();
    let bindings: Vec<(Hw, Aff)> = fixed
        .iter()
        .zip(names)
        .filter_map(|(f, n)| f.hw.map(|h| (h, Aff::var(Var::Index(n.clone())))))
        .collect();
    // One barrier serves every copy at the same place.
    let same_place = |s: &TStatement| {
        s.kind == StmtKind::Sync
            && s.order == order
            && s.levels
                .iter()
                .map(|(l, _)| *l)
                .eq(levels.iter().map(|(l, _)| *l))
    };
    if let Some(existing) = t.statements.iter().position(same_place) {
        let name = t.statements[existing].name.clone();
        let merged = Set::parse(ctx, &t.statements[existing].domain)?
            .union(&domain.set_tuple_name(&name)?)?;
        t.statements[existing].domain = merged.to_string();
        return Ok(());
    }
    let name = format!(
        "Y{}",
        t.statements
            .iter()
            .filter(|s| s.kind == StmtKind::Sync)
            .count()
    );
    t.statements.push(TStatement {
        name: name.clone(),
        kind: StmtKind::Sync,
        iterators: names.to_vec(),
        domain: domain.set_tuple_name(&name)?.to_string(),
        levels,
        order,
        bindings,
    });
    let s = t.statements.len() - 1;
    t.kernels[k].statements.push(s);
    Ok(())
}

/// The statements a copy adds, in the order they run around the loop they serve.
#[derive(Clone, Copy)]
pub(super) enum Role {
    CopyIn,
    SyncAfterCopy,
    SyncAtEnd,
    CopyOut,
}

/// The tie-breaker of a copy statement's order (see [`TStatement::order`]): copies and
/// barriers run before (after) the source statements they serve, and a copy placed
/// outside another (a shorter prefix of loops) before (after) the inner one, so that
/// sibling loops sort right whatever they hold.
pub(super) fn order_tie(prefix_len: usize, role: Role) -> i32 {
    let outer = 10_000 - 10 * prefix_len as i32;
    match role {
        Role::CopyIn => -outer,
        Role::SyncAfterCopy => -outer + 1,
        Role::SyncAtEnd => outer - 1,
        Role::CopyOut => outer,
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// A name for a copy's temporary that no loop and no other copy has: the copy statements
/// are named after it (`D_reg_out`), and two copies of one array in two kernels once got
/// the same name, so that one kernel's copy-out was written with the other's temporary.
fn temp_name(t: &Transformed, array: &str, memory: Memory) -> String {
    let base = match memory {
        Memory::Shared => format!("{array}_shared"),
        Memory::Registers => format!("{array}_reg"),
    };
    unroll::fresh_name_where(t, &base, |n| !t.copies.iter().any(|c| c.temp == n))
}

/// Whether the kernel writes the array anywhere.
fn kernel_writes(t: &Transformed, k: usize, array: ArrayId) -> bool {
    t.kernels[k]
        .statements
        .iter()
        .any(|s| match t.statements[*s].kind {
            StmtKind::Compute(id) => {
                t.program.accesses[t.program.statements[id].write].array == array
            }
            _ => false,
        })
}
