//! The text of wide and asynchronous copies into shared memory (`copy_to_shared(...,
//! {width=4})`, `double_buffer(..., {async=true})`) with the helpers the `.cu` defines for
//! them, and the index arithmetic their distribution over the threads makes (`tx / 4`,
//! `tx % 4`) written in thread indices.

use super::cexpr::{self, print, CExpr};
use crate::codegen::coordinate_name;
use crate::codegen::ir::{Expr, Op, Stage};
use crate::transform::datacopy::{
    shared_bytes_with, shared_copy_bytes, DataCopy, Memory, STATIC_SHARED_BYTES,
};
use crate::transform::Transformed;

/// A wide copy's instance (`copy.width` elements from `element` on): one vector load and
/// one store through the helpers of [`VECTOR_HELPERS`], or half of it around a prefetch.
pub(super) fn vector_copy_text(
    t: &Transformed,
    copy: &DataCopy,
    temp: CExpr,
    element: Vec<CExpr>,
    stage: Option<Stage>,
) -> String {
    let ty = vector_of(t, copy);
    let load = format!(
        "gpucc_load_vector<{ty}>({})",
        global_address(t, copy, element)
    );
    let store = |value: &str| format!("gpucc_store_vector({}, {value});", address(temp.clone()));
    match stage {
        Some(st) => {
            let reg = format!("{}[{}]", super::kernel::stage_name(copy), st.slot);
            if st.load {
                format!("{reg} = {load};")
            } else {
                store(&reg)
            }
        }
        None => store(&load),
    }
}

/// A wide register copy's instance: one vector load whose lanes go to the thread's
/// elements `lanes` (`C_reg[0][0] = gpucc_lanes.x; ...`), or one vector store of them.
pub(super) fn register_vector_text(
    t: &Transformed,
    copy: &DataCopy,
    lanes: Vec<CExpr>,
    element: Vec<CExpr>,
    is_in: bool,
) -> String {
    let ty = vector_of(t, copy);
    let global = global_address(t, copy, element);
    let lanes: Vec<String> = lanes.iter().map(print).collect();
    if is_in {
        let moves: Vec<String> = lanes
            .iter()
            .zip(["x", "y", "z", "w"])
            .map(|(lane, field)| format!(" {lane} = gpucc_lanes.{field};"))
            .collect();
        format!(
            "{{ const {ty} gpucc_lanes = gpucc_load_vector<{ty}>({global});{} }}",
            moves.concat()
        )
    } else {
        format!(
            "gpucc_store_vector({global}, {ty}{{{}}});",
            lanes.join(", ")
        )
    }
}

/// An asynchronous copy's instance (`double_buffer(..., {async=true})`): one `cp.async` of
/// the element or vector, waited for before the next barrier ([`ASYNC_HELPERS`]).
pub(super) fn async_copy_text(
    t: &Transformed,
    copy: &DataCopy,
    temp: CExpr,
    element: Vec<CExpr>,
) -> String {
    let ty = crate::transform::vector::moved_type(t.program.arrays[copy.array].elem, copy.width);
    format!(
        "gpucc_copy_async<{ty}>({}, {});",
        address(temp),
        global_address(t, copy, element)
    )
}

/// The vector type a wide copy moves (`float4`).
fn vector_of(t: &Transformed, copy: &DataCopy) -> String {
    crate::transform::vector::vector_type(t.program.arrays[copy.array].elem, copy.width)
        .expect("the copy's width was checked")
}

/// `&A[i][j]`, the copied array's element `element`.
fn global_address(t: &Transformed, copy: &DataCopy, element: Vec<CExpr>) -> String {
    let name = CExpr::name(t.program.arrays[copy.array].name.clone());
    address(CExpr::index(name, element))
}

fn address(e: CExpr) -> String {
    print(&CExpr::Unary("&", Box::new(e)))
}

/// The helpers of asynchronous copies: `cp.async` (global to shared memory without a
/// register; 4, 8 or 16 bytes) and the wait for a thread's copies, on sm_80 and later;
/// before that an ordinary load and store. The CPU check's runtime has its own copy.
pub const ASYNC_HELPERS: &str = "\n/* Copies sizeof(V) bytes (4, 8 or 16, aligned) from global into shared memory:
   asynchronously (cp.async) on sm_80 and later, until gpucc_wait_copies(). */
template <class V, class T> static __device__ inline void gpucc_copy_async(T *to, const T *from)
{
#if __CUDA_ARCH__ >= 800
  unsigned shared = (unsigned)__cvta_generic_to_shared(to);
  asm volatile(\"cp.async.ca.shared.global [%0], [%1], %2;\\n\" ::\"r\"(shared), \"l\"(from), \"n\"(sizeof(V)));
#else
  *reinterpret_cast<V *>(to) = *reinterpret_cast<const V *>(from);
#endif
}
/* Waits for the thread's asynchronous copies (before the barrier that publishes them). */
static __device__ inline void gpucc_wait_copies()
{
#if __CUDA_ARCH__ >= 800
  asm volatile(\"cp.async.commit_group;\\n\" ::);
  asm volatile(\"cp.async.wait_group 0;\\n\" ::);
#endif
}
";

/// The helpers of wide copies: a load and a store of a CUDA vector type (`float4`) at an
/// address gpucc proved aligned to its size. The CPU check's runtime has its own
/// overloads, which log each element for its race detector.
pub const VECTOR_HELPERS: &str =
    "\n/* One 64- or 128-bit load or store of consecutive elements (V: float4, double2, ...);
   gpucc proved each address aligned to sizeof(V). */
template <class V, class T> static __device__ inline V gpucc_load_vector(const T *from)
{
  return *reinterpret_cast<const V *>(from);
}
template <class V, class T> static __device__ inline void gpucc_store_vector(T *to, V value)
{
  *reinterpret_cast<V *>(to) = value;
}
";

/// A linear form plus multiples of quotients and remainders of linear forms by constants
/// (a wide copy's `4 * ty + (16 * jj + tx) / 4 - 4 * jj`), in thread indices with what
/// divides evenly taken out of each quotient: `4 * ty + tx / 4`. `None` unless each
/// quotient's dividend is non-negative after that (thread indices and a constant below
/// the divisor), where C's `/` and `%` are the floor's.
pub(super) fn with_quotients(t: &Transformed, k: usize, e: &Expr) -> Option<CExpr> {
    let threads: Vec<String> = (0..t.kernels[k].threads.len())
        .map(|d| coordinate_name(t, d))
        .collect();
    let mut names: Vec<(String, i64)> = Vec::new();
    let mut parts: Vec<(CExpr, i64)> = Vec::new();
    let mut constant = 0;
    fn walk(
        e: &Expr,
        scale: i64,
        names: &mut Vec<(String, i64)>,
        parts: &mut Vec<(&'static str, Expr, i64, i64)>,
        constant: &mut i64,
    ) -> Option<()> {
        match e {
            Expr::Int(v) => *constant += scale * v,
            Expr::Id(n) => names.push((n.clone(), scale)),
            Expr::Op(Op::Add, args) => {
                for a in args {
                    walk(a, scale, names, parts, constant)?;
                }
            }
            Expr::Op(Op::Sub, args) => {
                walk(&args[0], scale, names, parts, constant)?;
                walk(&args[1], -scale, names, parts, constant)?;
            }
            Expr::Op(Op::Neg, args) => walk(&args[0], -scale, names, parts, constant)?,
            Expr::Op(Op::Mul, args) => match (&args[0], &args[1]) {
                (Expr::Int(c), x) | (x, Expr::Int(c)) => {
                    walk(x, scale * c, names, parts, constant)?
                }
                _ => return None,
            },
            Expr::Op(op @ (Op::PosDiv | Op::FloorDiv | Op::PosRem), args) => {
                let Expr::Int(d) = args[1] else { return None };
                let op = if *op == Op::PosRem { "%" } else { "/" };
                parts.push((op, args[0].clone(), d, scale));
            }
            _ => return None,
        }
        Some(())
    }
    let mut raw = Vec::new();
    walk(e, 1, &mut names, &mut raw, &mut constant)?;
    for (op, dividend, d, scale) in raw {
        let (terms, c) = cexpr::linear(&dividend)?;
        let terms = super::kernel::thread_terms(t, k, terms);
        if d <= 1 {
            return None;
        }
        // What divides evenly leaves the quotient (or vanishes from the remainder).
        let (whole, rest): (Vec<_>, Vec<_>) = terms.into_iter().partition(|(_, x)| x % d == 0);
        let (c_whole, c_rest) = (c.div_euclid(d), c.rem_euclid(d));
        if rest.is_empty() && op == "%" {
            constant += scale * c_rest;
            continue;
        }
        if rest.iter().any(|(n, x)| *x < 0 || !threads.contains(n)) {
            return None;
        }
        if op == "/" {
            names.extend(whole.into_iter().map(|(n, x)| (n, scale * x / d)));
            constant += scale * c_whole;
            if rest.is_empty() {
                continue;
            }
        }
        let inner = cexpr::from_linear(&rest, c_rest);
        parts.push((CExpr::bin(op, inner, CExpr::Int(d)), scale));
    }
    let mut merged: Vec<(String, i64)> = Vec::new();
    for (n, x) in super::kernel::thread_terms(t, k, names) {
        match merged.iter_mut().find(|(m, _)| *m == n) {
            Some((_, y)) => *y += x,
            None => merged.push((n, x)),
        }
    }
    merged.retain(|(_, x)| *x != 0);
    let mut out = (!merged.is_empty()).then(|| cexpr::from_linear(&merged, 0));
    for (part, scale) in parts {
        let term = match scale.abs() {
            1 => part,
            m => CExpr::bin("*", CExpr::Int(m), part),
        };
        out = Some(match (out, scale < 0) {
            (None, false) => term,
            (None, true) => CExpr::Unary("-", Box::new(term)),
            (Some(x), false) => CExpr::bin("+", x, term),
            (Some(x), true) => CExpr::bin("-", x, term),
        });
    }
    Some(match (out, constant) {
        (None, c) => CExpr::Int(c),
        (Some(x), 0) => x,
        (Some(x), c) if c > 0 => CExpr::bin("+", x, CExpr::Int(c)),
        (Some(x), c) => CExpr::bin("-", x, CExpr::Int(-c)),
    })
}

/// Where the shared tiles of a kernel go when together they are over the 48 KB a block
/// may declare statically: one `extern __shared__` array of bytes, the launch's dynamic
/// shared memory, with each tile at an offset (a multiple of 16 bytes, the widest vector a
/// copy stores). `None`: static `__shared__` arrays.
pub(super) struct DynamicShared {
    /// Bytes the launch gives (`kernel<<<grid, block, bytes>>>`).
    pub bytes: i64,
    /// (copy index, offset in bytes) of each shared tile, in the copies' order.
    pub offsets: Vec<(usize, i64)>,
}

/// The name of the byte array that holds a kernel's dynamic shared memory.
pub(super) const DYNAMIC_SHARED: &str = "gpucc_shared_memory";

pub(super) fn dynamic_shared(t: &Transformed, kernel: usize) -> Option<DynamicShared> {
    let bytes = shared_bytes_with(t, kernel, |_, c| c.buffers());
    if bytes <= STATIC_SHARED_BYTES {
        return None;
    }
    let mut offsets = Vec::new();
    let mut offset = 0;
    for (i, c) in t.copies.iter().enumerate() {
        if c.kernel == kernel && c.memory == Memory::Shared {
            offsets.push((i, offset));
            offset += shared_copy_bytes(t, c, c.buffers());
        }
    }
    Some(DynamicShared { bytes, offsets })
}
