//! The CUDA text of a kernel's reductions (`reduce=`): each thread's partial result in a
//! register, initialised to the operator's identity; after the body, the block combines
//! its threads' partial results (warp shuffles, then the warps' results through shared
//! memory; or a tree in shared memory when the block is not a whole number of warps); one
//! thread then folds the block's result into the variable with an atomic operation. When
//! the element depends on the thread index, each thread folds its own result instead.

use super::cexpr::{from_ir, print, CExpr};
use super::kernel::{condition, loop_header};
use super::statement::global_reference;
use super::Lines;
use crate::codegen::coordinate_name;
use crate::codegen::ir::{KernelIr, Node};
use crate::frontend::ast::ScalarType;
use crate::poly::ReductionOp;
use crate::transform::reduction::Reduction;
use crate::transform::Transformed;
use std::fmt::Write as _;

/// Threads per warp.
const WARP: i64 = 32;

/// What a kernel's reductions add to its text: declarations (the partial results and the
/// shared arrays that combine them) and the code after the body.
pub(super) struct ReductionText {
    pub declarations: Vec<String>,
    pub end: String,
}

/// How a block combines its threads' partial results.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// One thread: nothing to combine.
    Single,
    /// Whole warps: shuffles within each warp, then warp 0 combines the warps' results.
    Warps { warps: i64 },
    /// A tree in shared memory, for blocks that are not a whole number of warps.
    Tree,
}

pub(super) fn reduction_text(t: &Transformed, k: &KernelIr) -> ReductionText {
    let kernel = &t.kernels[k.kernel];
    let mut declarations = Vec::new();
    let mut end = Lines::new(1);
    if kernel.reductions.is_empty() {
        return ReductionText {
            declarations,
            end: end.out,
        };
    }
    let threads: i64 = k.block.iter().product();
    let shape = if threads == 1 {
        Shape::Single
    } else if threads % WARP == 0 {
        Shape::Warps {
            warps: threads / WARP,
        }
    } else {
        Shape::Tree
    };
    let name = |base: &str| local_name(t, k, base);
    // The thread's index in the block, as CUDA numbers the threads of warps.
    let (tid, lane, warp) = (name("tid"), name("lane"), name("warp"));
    let comment = |reduction: &Reduction| {
        let what = what(reduction.op);
        let array = &t.program.arrays[reduction.array].name;
        match shape {
            Shape::Single => format!("/* The block's {what} of `{array}`. */"),
            Shape::Warps { warps: 1 } => format!(
                "/* The block's {what} of `{array}`: its warp combines its threads' partial results. */"
            ),
            Shape::Warps { .. } => format!(
                "/* The block's {what} of `{array}`: each warp combines its threads' partial results, then warp 0 the warps'. */"
            ),
            Shape::Tree => format!(
                "/* The block's {what} of `{array}`: a tree over shared memory, halving the active threads at each step. */"
            ),
        }
    };
    // Elements that depend on the thread index: each thread folds its own result.
    for (r, reduction) in kernel.reductions.iter().enumerate() {
        let array = &t.program.arrays[reduction.array];
        let ty = array.elem;
        let partial = &reduction.partial;
        declarations.push(format!(
            "{} {partial} = {};",
            ty.c_name(),
            identity(reduction.op, ty)
        ));
        if reduction.per_thread {
            end.line(&format!(
                "/* Each thread's {} of `{}` goes to its own element, atomically: threads of other blocks add to it too. */",
                what(reduction.op),
                array.name
            ));
            write_target(&mut end, t, k, reduction, &k.reductions[r].target, partial);
        }
    }
    let Some(first) = kernel.reductions.iter().find(|r| !r.per_thread) else {
        return ReductionText {
            declarations,
            end: end.out,
        };
    };
    // The first reduction's comment, then the thread's place in the block and its warp.
    end.line(&comment(first));
    let linear = if k.block.len() == 1 {
        "threadIdx.x".to_string()
    } else {
        end.line(&format!("const int {tid} = {};", linear_index(&k.block)));
        tid.clone()
    };
    if let Shape::Warps { warps } = shape {
        end.line(&format!("const int {lane} = {linear} % {WARP};"));
        if warps > 1 {
            end.line(&format!("const int {warp} = {linear} / {WARP};"));
        }
    }
    for (r, reduction) in kernel.reductions.iter().enumerate() {
        if reduction.per_thread {
            continue;
        }
        let array = &t.program.arrays[reduction.array];
        let ty = array.elem;
        let partial = &reduction.partial;
        if !std::ptr::eq(reduction, first) {
            end.line(&comment(reduction));
        }
        let target = &k.reductions[r].target;
        let combine = |into: &str, from: &str| combine(reduction.op, ty, into, from);
        let shuffles = |w: &mut Lines, first: i64| {
            let offset = name("offset");
            w.line(&format!(
                "for (int {offset} = {first}; {offset} > 0; {offset} /= 2)"
            ));
            w.indent += 1;
            w.line(&combine(
                partial,
                &format!("__shfl_down_sync(0xffffffffu, {partial}, {offset})"),
            ));
            w.indent -= 1;
        };
        match shape {
            Shape::Single => {
                write_target(&mut end, t, k, reduction, target, partial);
            }
            Shape::Warps { warps } => {
                shuffles(&mut end, WARP / 2);
                if warps == 1 {
                    end.line(&format!("if ({lane} == 0)"));
                    end.indent += 1;
                    write_target(&mut end, t, k, reduction, target, partial);
                    end.indent -= 1;
                    continue;
                }
                let shared = name(&format!("{}_warps", array.name));
                declarations.push(format!("__shared__ {} {shared}[{warps}];", ty.c_name()));
                end.line(&format!("if ({lane} == 0)"));
                end.line(&format!("  {shared}[{warp}] = {partial};"));
                end.line("__syncthreads();");
                end.line(&format!("if ({warp} == 0) {{"));
                end.indent += 1;
                if warps == WARP {
                    end.line(&format!("{partial} = {shared}[{lane}];"));
                } else {
                    end.line(&format!(
                        "{partial} = {lane} < {warps} ? {shared}[{lane}] : {};",
                        identity(reduction.op, ty)
                    ));
                }
                shuffles(&mut end, power_of_two_at_least(warps) / 2);
                end.line(&format!("if ({lane} == 0)"));
                end.indent += 1;
                write_target(&mut end, t, k, reduction, target, partial);
                end.indent -= 2;
                end.line("}");
            }
            Shape::Tree => {
                let shared = name(&format!("{}_parts", array.name));
                declarations.push(format!("__shared__ {} {shared}[{threads}];", ty.c_name()));
                let stride = name("stride");
                end.line(&format!("{shared}[{linear}] = {partial};"));
                end.line("__syncthreads();");
                let top = power_of_two_at_least(threads);
                end.line(&format!(
                    "for (int {stride} = {}; {stride} > 0; {stride} /= 2) {{",
                    top / 2
                ));
                end.indent += 1;
                if top == threads {
                    end.line(&format!("if ({linear} < {stride})"));
                } else {
                    end.line(&format!(
                        "if ({linear} < {stride} && {linear} + {stride} < {threads})"
                    ));
                }
                end.indent += 1;
                end.line(&combine(
                    &format!("{shared}[{linear}]"),
                    &format!("{shared}[{linear} + {stride}]"),
                ));
                end.indent -= 1;
                end.line("__syncthreads();");
                end.indent -= 1;
                end.line("}");
                end.line(&format!("if ({linear} == 0)"));
                end.indent += 1;
                write_target(&mut end, t, k, reduction, target, &format!("{shared}[0]"));
                end.indent -= 1;
            }
        }
    }
    ReductionText {
        declarations,
        end: end.out,
    }
}

/// `sum`, `minimum`, `maximum`: what a reduction computes, for comments.
fn what(op: ReductionOp) -> &'static str {
    match op {
        ReductionOp::Min => "minimum",
        ReductionOp::Max => "maximum",
        _ => "sum",
    }
}

/// `threadIdx.x + 16 * threadIdx.y`: the linear index of a thread in a block of `block`.
fn linear_index(block: &[i64]) -> String {
    let mut parts = vec!["threadIdx.x".to_string()];
    let mut stride = 1;
    for d in 1..block.len() {
        stride *= block[d - 1];
        parts.push(format!("{stride} * threadIdx.{}", ["x", "y", "z"][d]));
    }
    parts.join(" + ")
}

fn power_of_two_at_least(n: i64) -> i64 {
    let mut p = 1;
    while p < n {
        p *= 2;
    }
    p
}

/// The value that leaves a partial result unchanged.
fn identity(op: ReductionOp, ty: ScalarType) -> &'static str {
    use ScalarType::*;
    match (op, ty) {
        (ReductionOp::Min, Float | Double) => "INFINITY",
        (ReductionOp::Max, Float | Double) => "-INFINITY",
        (ReductionOp::Min, Int) => "INT_MAX",
        (ReductionOp::Max, Int) => "INT_MIN",
        (ReductionOp::Min, UInt) => "UINT_MAX",
        (_, Float) => "0.0f",
        (_, Double) => "0.0",
        (_, UInt) => "0u",
        _ => "0",
    }
}

/// `into += from;`, `into = fminf(into, from);`, ...
fn combine(op: ReductionOp, ty: ScalarType, into: &str, from: &str) -> String {
    let f = match (op, ty) {
        (ReductionOp::Min, ScalarType::Float) => "fminf",
        (ReductionOp::Max, ScalarType::Float) => "fmaxf",
        (ReductionOp::Min, ScalarType::Double) => "fmin",
        (ReductionOp::Max, ScalarType::Double) => "fmax",
        (ReductionOp::Min, _) => "min",
        (ReductionOp::Max, _) => "max",
        _ => return format!("{into} += {from};"),
    };
    format!("{into} = {f}({into}, {from});")
}

/// The atomic operation that folds a block's result into the variable.
fn atomic(op: ReductionOp, ty: ScalarType) -> &'static str {
    let floating = matches!(ty, ScalarType::Float | ScalarType::Double);
    match op {
        ReductionOp::Min if floating => "gpucc_atomic_min",
        ReductionOp::Max if floating => "gpucc_atomic_max",
        ReductionOp::Min => "atomicMin",
        ReductionOp::Max => "atomicMax",
        _ => "atomicAdd",
    }
}

/// The guarded atomic update of the element a block's result goes to.
fn write_target(
    w: &mut Lines,
    t: &Transformed,
    k: &KernelIr,
    reduction: &Reduction,
    nodes: &[Node],
    value: &str,
) {
    for n in nodes {
        let block = |w: &mut Lines, head: String, body: &[Node]| {
            if body.len() == 1 {
                w.line(&head);
                w.indent += 1;
                write_target(w, t, k, reduction, body, value);
                w.indent -= 1;
            } else {
                w.line(&format!("{head} {{"));
                w.indent += 1;
                write_target(w, t, k, reduction, body, value);
                w.indent -= 1;
                w.line("}");
            }
        };
        match n {
            Node::For {
                var,
                init,
                cond,
                step,
                body,
            } => block(w, loop_header(var, init, cond, *step), body),
            Node::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let head = format!("if ({})", print(&condition(t, Some(k.kernel), cond)));
                block(w, head, then_branch);
                if let Some(e) = else_branch {
                    block(w, "else".into(), e);
                }
            }
            Node::Instance { args, .. } => {
                let array = &t.program.arrays[reduction.array];
                let address = if array.is_scalar() {
                    CExpr::name(array.name.clone())
                } else {
                    let subscripts = args
                        .iter()
                        .map(|a| from_ir(a, &|x| CExpr::name(x)))
                        .collect();
                    CExpr::Unary(
                        "&",
                        Box::new(global_reference(t, reduction.array, subscripts, false)),
                    )
                };
                w.line(&format!(
                    "{}({}, {value});",
                    atomic(reduction.op, array.elem),
                    print(&address)
                ));
            }
            Node::Launch { .. } => unreachable!("launches are host code"),
        }
    }
}

/// A name for a kernel-local variable that the program and the kernel do not use.
fn local_name(t: &Transformed, k: &KernelIr, base: &str) -> String {
    let kernel = &t.kernels[k.kernel];
    let taken = |n: &str| {
        t.levels.iter().any(|l| l.name == n)
            || t.program.params.iter().any(|p| p == n)
            || t.program.arrays.iter().any(|a| a.name == n)
            || t.copies.iter().any(|c| c.temp == n)
            || kernel.reductions.iter().any(|r| r.partial == n)
            || k.prologue.iter().any(|v| v.name == n)
            || (0..kernel.threads.len()).any(|d| coordinate_name(t, d) == n)
    };
    (1..)
        .map(|j| {
            if j == 1 {
                base.to_string()
            } else {
                format!("{base}{j}")
            }
        })
        .find(|n| !taken(n))
        .expect("a free name")
}

/// Device functions the unit's reductions call that CUDA lacks: atomic minimum and
/// maximum of floating-point values, as compare-and-swap loops on their bits.
pub(super) fn helpers(t: &Transformed) -> String {
    let mut out = String::new();
    let mut needed: Vec<(ReductionOp, ScalarType)> = Vec::new();
    for r in t.kernels.iter().flat_map(|k| &k.reductions) {
        let ty = t.program.arrays[r.array].elem;
        let key = (r.op, ty);
        if matches!(r.op, ReductionOp::Min | ReductionOp::Max)
            && matches!(ty, ScalarType::Float | ScalarType::Double)
            && !needed.contains(&key)
        {
            needed.push(key);
        }
    }
    needed.sort_by_key(|(op, ty)| (*op == ReductionOp::Max, *ty == ScalarType::Double));
    for (op, ty) in needed {
        let (name, cmp) = match op {
            ReductionOp::Min => ("gpucc_atomic_min", "<"),
            _ => ("gpucc_atomic_max", ">"),
        };
        let (bits, to_value, to_bits) = match ty {
            ScalarType::Float => ("int", "__int_as_float", "__float_as_int"),
            _ => (
                "unsigned long long int",
                "__longlong_as_double",
                "(unsigned long long int)__double_as_longlong",
            ),
        };
        let what = if op == ReductionOp::Min {
            "atomicMin"
        } else {
            "atomicMax"
        };
        let _ = writeln!(
            out,
            "/* {what} for `{0}`, which CUDA lacks: compare and swap until the stored value is no {1} than `value`. */\n\
             static __device__ inline void {name}({0} *address, {0} value)\n{{\n  \
             {bits} *stored = ({bits} *)address;\n  \
             {bits} old = *stored;\n  \
             while (value {cmp} {to_value}(old)) {{\n    \
             {bits} assumed = old;\n    \
             old = atomicCAS(stored, assumed, {to_bits}(value));\n    \
             if (old == assumed)\n      \
             break;\n  \
             }}\n}}\n",
            ty.c_name(),
            if op == ReductionOp::Min { "greater" } else { "less" }
        );
    }
    out
}
