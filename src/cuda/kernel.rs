//! Kernels as CUDA text: the signature, the prologue that names the block and thread
//! variables, the declarations (private variables, copies, reductions' partial results),
//! the body from the loop tree, and the end of each reduction.

use super::cexpr::{self, from_ir, print, CExpr};
use super::copies;
use super::statement::{self, has_symbolic_inner_dims};
use super::{in_global_memory, uses_of, Lines, Uses};
use crate::codegen::ir::{self, Expr, KernelIr, Node, Op, Stage};
use crate::codegen::{coordinate_name, in_device_memory};
use crate::poly::{AccessId, ArrayId, ArrayKind, StatementId};
use crate::transform::cudaize::ThreadKind;
use crate::transform::datacopy::{DataCopy, Memory};
use crate::transform::{Placement, StmtKind, Transformed};

/// `float (*__restrict__ A)[N]`, `const float *__restrict__ x`, `float alpha`, and for a
/// scalar in device memory `float *__restrict__ sum`.
fn kernel_param(t: &Transformed, a: ArrayId, written: bool) -> String {
    let array = &t.program.arrays[a];
    let ty = array.elem.c_name();
    let konst = if written { "" } else { "const " };
    if array.is_scalar() {
        return if in_device_memory(t, a) {
            format!("{konst}{ty} *__restrict__ {}", array.name)
        } else {
            format!("{ty} {}", array.name)
        };
    }
    if array.extents.len() == 1 || has_symbolic_inner_dims(array) {
        format!("{konst}{ty} *__restrict__ {}", array.name)
    } else {
        let inner: String = array.dim_texts[1..]
            .iter()
            .map(|d| format!("[{d}]"))
            .collect();
        format!("{konst}{ty} (*__restrict__ {}){inner}", array.name)
    }
}

/// The identifiers of a piece of C text (for the sizes written in dimensions).
fn identifiers_in(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        })
        .map(String::from)
        .collect()
}

/// The integer parameters a kernel needs: those its loops, prologue or statements name,
/// and the sizes its flat arrays are indexed with.
pub(super) fn kernel_int_params(t: &Transformed, k: &KernelIr, uses: &Uses) -> Vec<String> {
    let p = &t.program;
    let mut names = Vec::new();
    fn walk(nodes: &[Node], out: &mut Vec<String>) {
        for n in nodes {
            match n {
                Node::For {
                    init, cond, body, ..
                } => {
                    ir::identifiers(init, out);
                    ir::identifiers(cond, out);
                    walk(body, out);
                }
                Node::If {
                    cond,
                    then_branch,
                    else_branch,
                } => {
                    ir::identifiers(cond, out);
                    walk(then_branch, out);
                    if let Some(b) = else_branch {
                        walk(b, out);
                    }
                }
                Node::Instance { args, .. } | Node::Launch { args, .. } => {
                    args.iter().for_each(|a| ir::identifiers(a, out))
                }
            }
        }
    }
    walk(&k.body, &mut names);
    for r in &k.reductions {
        walk(&r.target, &mut names);
    }
    for v in &k.prologue {
        ir::identifiers(&v.value, &mut names);
    }
    for &s in &t.kernels[k.kernel].statements {
        if let StmtKind::Compute(id) = t.statements[s].kind {
            names.extend(statement_names(t, id));
        }
    }
    for a in &uses.arrays {
        let array = &p.arrays[*a];
        if has_symbolic_inner_dims(array) {
            for d in &array.dim_texts[1..] {
                names.extend(identifiers_in(d));
            }
        }
    }
    // The symbolic sizes, and the integer scalars of the unit that only its statements'
    // values read (`A[i] * s`): those are not isl parameters, and the kernel needs them too.
    let scalars = p.unit.params.iter().filter_map(|q| {
        let name = &q.declarator.name;
        let integer = q.declarator.dims.is_empty() && q.spec.ty.is_some_and(|t| t.is_integer());
        (integer && !p.arrays.iter().any(|a| &a.name == name)).then_some(name)
    });
    let mut needed: Vec<String> = Vec::new();
    for x in p.params.iter().chain(scalars) {
        if names.contains(x) && !needed.contains(x) {
            needed.push(x.clone());
        }
    }
    needed
}

/// The C type of the unit's integer scalar `name` (`int` for a size, `long`, ...).
pub(super) fn int_param_type(t: &Transformed, name: &str) -> &'static str {
    t.program
        .unit
        .params
        .iter()
        .find(|q| q.declarator.name == name)
        .and_then(|q| q.spec.ty)
        .map_or("int", |ty| ty.c_name())
}

/// The names a source statement's expressions mention.
fn statement_names(t: &Transformed, s: StatementId) -> Vec<String> {
    let p = &t.program;
    let root = match p.statements[s].kind {
        crate::poly::StatementKind::Assign(e) => e,
        crate::poly::StatementKind::Init { value } => value,
    };
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        let kind = &p.unit.ast.exprs[e].kind;
        if let crate::frontend::ast::ExprKind::Name(n) = kind {
            out.push(n.clone());
        }
        stack.extend(crate::frontend::ast::expr_children(kind));
    }
    out
}

pub(super) fn kernel_text(t: &Transformed, k: &KernelIr) -> String {
    let p = &t.program;
    let kernel = &t.kernels[k.kernel];
    let uses = uses_of(t, &kernel.statements);
    let mut params: Vec<String> = Vec::new();
    for &a in &uses.arrays {
        let array = &p.arrays[a];
        if in_global_memory(t, a)
            || (array.is_scalar() && array.kind == ArrayKind::Outside)
            || in_device_memory(t, a)
        {
            params.push(kernel_param(t, a, uses.written.contains(&a)));
        }
    }
    for n in kernel_int_params(t, k, &uses) {
        params.push(format!("{} {n}", int_param_type(t, &n)));
    }
    for h in &k.host_vars {
        params.push(format!("int {h}"));
    }
    let mut w = Lines::new(0);
    let block_names: Vec<&str> = kernel
        .blocks
        .iter()
        .map(|l| t.levels[*l].name.as_str())
        .collect();
    let block_mapping: Vec<String> = if k.grid.len() < block_names.len() {
        // Folded: more blocks along y than CUDA allows.
        vec![format!(
            "{} -> blockIdx.x ({} fastest; gridDim.y cannot hold them)",
            block_names.join(", "),
            block_names[0]
        )]
    } else {
        (block_names.iter())
            .zip(["blockIdx.x", "blockIdx.y"])
            .map(|(n, i)| format!("{n} -> {i}"))
            .collect()
    };
    let mapping: Vec<String> = block_mapping
        .into_iter()
        .chain(
            kernel
                .threads
                .iter()
                .zip(["threadIdx.x", "threadIdx.y", "threadIdx.z"])
                .map(|(d, i)| format!("{} -> {i}", d.name)),
        )
        .collect();
    let sizes: Vec<String> = k.block.iter().map(|b| b.to_string()).collect();
    if kernel.is_serial() {
        w.line(&format!(
            "/* Kernel {}: serial, one thread runs it in program order. */",
            k.name
        ));
    } else {
        let names = |per_thread: bool| -> Vec<String> {
            kernel
                .reductions
                .iter()
                .filter(|r| r.per_thread == per_thread)
                .map(|r| format!("`{}`", p.arrays[r.array].name))
                .collect()
        };
        let mut reduced = String::new();
        let (across, across_blocks) = (names(false), names(true));
        if !across.is_empty() {
            reduced.push_str(&format!(
                "; reduces {} across its threads",
                across.join(", ")
            ));
        }
        if !across_blocks.is_empty() {
            reduced.push_str(&format!(
                "; reduces {} across its blocks",
                across_blocks.join(", ")
            ));
        }
        w.line(&format!(
            "/* Kernel {}: {}; {} threads per block{reduced}. */",
            k.name,
            mapping.join(", "),
            sizes.join(" x ")
        ));
    }
    w.line(&format!("{}{})", signature(t, k), params.join(", ")));
    w.line("{");
    w.indent += 1;
    // The body first: which prologue variables it reads is known once it is written.
    let mut body = Lines::new(1);
    write_nodes(&mut body, t, Some(k.kernel), &k.body);
    let reductions = super::reduction::reduction_text(t, k);
    let mut used: Vec<String> = identifiers_in(&body.out);
    used.extend(identifiers_in(&reductions.end));
    for v in k.prologue.iter().rev() {
        if used.contains(&v.name) {
            ir::identifiers(&v.value, &mut used);
        }
    }
    // A tiled thread loop's value is its tile's start plus the thread index, which gets a
    // name of its own when the kernel uses it.
    let mut coordinates: Vec<(String, String)> = Vec::new();
    for (d, td) in kernel.threads.iter().enumerate() {
        let level = &t.levels[td.per_statement[0].1].name;
        let name = coordinate_name(t, d);
        if matches!(td.kind, ThreadKind::TilePoint { .. })
            && (used.contains(level) || used.contains(&name))
        {
            let index = format!("threadIdx.{}", ["x", "y", "z"][d]);
            w.line(&format!("const int {name} = {index};"));
            coordinates.push((index, name));
        }
    }
    for v in &k.prologue {
        if used.contains(&v.name) {
            let rename = |n: &str| {
                CExpr::name(
                    coordinates
                        .iter()
                        .find(|(i, _)| i == n)
                        .map(|(_, c)| c.clone())
                        .unwrap_or_else(|| n.to_string()),
                )
            };
            w.line(&format!(
                "const int {} = {};",
                v.name,
                print(&from_ir(&v.value, &rename))
            ));
        }
    }
    let mut declared: Vec<&str> = Vec::new();
    for (a, array) in p.arrays.iter().enumerate() {
        if !uses.arrays.contains(&a) {
            continue;
        }
        match array.kind {
            // A scalar's private live ranges share its name, and one variable per thread:
            // they follow one another in the thread.
            ArrayKind::Private { .. } if declared.contains(&array.name.as_str()) => {}
            ArrayKind::Private { .. } => {
                declared.push(&array.name);
                w.line(&format!(
                    "{} {}{};",
                    array.elem.c_name(),
                    array.name,
                    array.dims_text()
                ));
            }
            ArrayKind::Local
                if array.is_const && array.initialized && t.placement(a) != Placement::Constant =>
            {
                w.line(&format!("{};", local_declaration(t, a)));
            }
            _ => {}
        }
    }
    let dynamic = copies::dynamic_shared(t, k.kernel);
    if let Some(d) = &dynamic {
        w.line(&format!(
            "/* {} bytes of shared tiles, over the 48 KB a block may declare statically: dynamic shared memory (the launch sets its size). */",
            d.bytes
        ));
        w.line(&format!(
            "extern __shared__ __align__(16) unsigned char {}[];",
            copies::DYNAMIC_SHARED
        ));
    }
    for (i, c) in t
        .copies
        .iter()
        .enumerate()
        .filter(|(_, c)| c.kernel == k.kernel)
    {
        let ty = p.arrays[c.array].elem.c_name();
        let buffers = if c.double.is_some() { "[2]" } else { "" };
        let dims: String = c
            .dims
            .iter()
            .filter(|d| **d != 1)
            .map(|d| format!("[{d}]"))
            .collect();
        let dims = format!("{buffers}{dims}");
        // A wide copy's stores need the vector's alignment, which C's is not.
        let align = if c.width > 1 && c.memory == Memory::Shared {
            let bytes = p.arrays[c.array].elem.size_bytes() as i64 * c.width;
            format!("__align__({bytes}) ")
        } else {
            String::new()
        };
        let offset = dynamic
            .as_ref()
            .and_then(|d| d.offsets.iter().find(|(o, _)| *o == i))
            .map(|(_, offset)| offset);
        match (c.memory, offset) {
            (Memory::Shared, Some(offset)) => w.line(&format!(
                "{ty} (&{}){dims} = *reinterpret_cast<{ty} (*){dims}>({} + {offset});",
                c.temp,
                copies::DYNAMIC_SHARED,
            )),
            (Memory::Shared, None) => w.line(&format!("__shared__ {align}{ty} {}{dims};", c.temp)),
            (Memory::Registers, _) => w.line(&format!("{ty} {}{dims};", c.temp)),
        }
    }
    // The registers of prefetched copies, one per element a thread stages.
    for (c, slots) in staged_slots(t, &k.body) {
        let copy = &t.copies[c];
        let ty = crate::transform::vector::moved_type(p.arrays[copy.array].elem, copy.width);
        w.line(&format!("{ty} {}[{slots}];", stage_name(copy)));
    }
    for d in &reductions.declarations {
        w.line(d);
    }
    w.out.push_str(&body.out);
    w.out.push_str(&reductions.end);
    w.indent -= 1;
    w.line("}");
    w.out
}

/// `__global__ void NAME(`, with `__launch_bounds__(threads, n)` where the recipe asked
/// for `n` resident blocks.
fn signature(t: &Transformed, k: &KernelIr) -> String {
    match t.kernels[k.kernel].min_blocks {
        Some(n) => format!(
            "__global__ void __launch_bounds__({}, {n}) {}(",
            k.block.iter().product::<i64>(),
            k.name
        ),
        None => format!("__global__ void {}(", k.name),
    }
}

/// The `.cu` line (1-based) of each loop and statement instance of kernel `k`'s body, by
/// node address (as [`crate::emulator::workload::Sink::node`] reports them), in `cu`, the
/// file that [`super::emit`] wrote: its lines are found in order from the kernel's
/// signature on. A node whose line is not found is left out.
pub fn node_lines(t: &Transformed, k: &KernelIr, cu: &str) -> Vec<(usize, u32)> {
    let mut body = Lines::new(1);
    write_nodes(&mut body, t, Some(k.kernel), &k.body);
    let lines: Vec<&str> = cu.lines().collect();
    let signature = signature(t, k);
    let Some(mut at) = lines.iter().position(|l| l.starts_with(&signature)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (node, text) in &body.marks {
        let text = text.trim();
        if let Some(k) = lines[at..].iter().position(|l| l.trim().starts_with(text)) {
            at += k;
            out.push((*node, at as u32 + 1));
            at += 1;
        }
    }
    out
}

/// The source text of a local array's declaration (`const float w[3] = {...}`).
pub(super) fn local_declaration(t: &Transformed, a: ArrayId) -> String {
    let p = &t.program;
    let array = &p.arrays[a];
    let declaration = format!(
        "const {} {}{}",
        array.elem.c_name(),
        array.name,
        array.dims_text()
    );
    for (_, stmt) in p.unit.ast.stmts.iter() {
        if let crate::frontend::ast::StmtKind::Decl(d) = &stmt.kind {
            if let Some(decl) = d.declarators.iter().find(|x| x.name_span == array.span) {
                if let Some(init) = &decl.init {
                    return format!("{declaration} = {}", initializer_text(p, init));
                }
            }
        }
    }
    declaration
}

/// An initializer (`{0.25f, 0.5f}`) as C.
fn initializer_text(p: &crate::poly::Program, init: &crate::frontend::ast::Init) -> String {
    fn text(p: &crate::poly::Program, init: &crate::frontend::ast::Init) -> String {
        match init {
            crate::frontend::ast::Init::Expr(e) => print(&constant_expr(p, *e)),
            crate::frontend::ast::Init::List(items, _) => {
                let parts: Vec<String> = items.iter().map(|i| text(p, i)).collect();
                format!("{{{}}}", parts.join(", "))
            }
        }
    }
    text(p, init)
}

/// A constant expression of the source (an initializer) as C.
fn constant_expr(p: &crate::poly::Program, e: crate::frontend::ast::ExprId) -> CExpr {
    use crate::frontend::ast::ExprKind;
    let b = |x| Box::new(constant_expr(p, x));
    match &p.unit.ast.exprs[e].kind {
        ExprKind::Int(v) => CExpr::Int(*v),
        ExprKind::Float(f) => CExpr::Atom(f.clone()),
        ExprKind::Unary { operand, .. } => CExpr::Unary("-", b(*operand)),
        ExprKind::Cast { ty, operand } => CExpr::Cast(ty.c_name().into(), b(*operand)),
        ExprKind::Binary { op, lhs, rhs } => CExpr::Binary(op.c_spelling(), b(*lhs), b(*rhs)),
        _ => CExpr::Int(0),
    }
}

/// `for (int k = 0; k < M; k++)` from isl's `k <= M - 1`.
pub(super) fn loop_header(var: &str, init: &Expr, cond: &Expr, step: i64) -> String {
    let id = |n: &str| CExpr::name(n);
    let cond = match cond {
        Expr::Op(Op::Le, args) if args[0] == Expr::Id(var.into()) => match &args[1] {
            Expr::Op(Op::Add, x) if x[1] == Expr::Int(-1) => {
                CExpr::bin("<", id(var), from_ir(&x[0], &id))
            }
            Expr::Op(Op::Add, x) if matches!(x[1], Expr::Int(c) if c >= 0) => {
                let Expr::Int(c) = x[1] else {
                    unreachable!("matched above")
                };
                CExpr::bin(
                    "<",
                    id(var),
                    CExpr::bin("+", from_ir(&x[0], &id), CExpr::Int(c + 1)),
                )
            }
            Expr::Int(v) => CExpr::bin("<", id(var), CExpr::Int(v + 1)),
            _ => from_ir(cond, &id),
        },
        _ => from_ir(cond, &id),
    };
    let step = if step == 1 {
        format!("{var}++")
    } else {
        format!("{var} += {step}")
    };
    format!(
        "for (int {var} = {}; {}; {step})",
        print(&from_ir(init, &id)),
        print(&cond)
    )
}

pub(super) fn write_nodes(w: &mut Lines, t: &Transformed, kernel: Option<usize>, nodes: &[Node]) {
    for n in nodes {
        let at = std::ptr::from_ref(n) as usize;
        match n {
            Node::For {
                var,
                init,
                cond,
                step,
                body,
            } => {
                let head = loop_header(var, init, cond, *step);
                w.marks.push((at, head.clone()));
                write_block(w, t, kernel, &head, body);
            }
            Node::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let head = format!("if ({})", print(&condition(t, kernel, cond)));
                match else_branch {
                    None => write_block(w, t, kernel, &head, then_branch),
                    Some(e) => {
                        w.line(&format!("{head} {{"));
                        w.indent += 1;
                        write_nodes(w, t, kernel, then_branch);
                        w.indent -= 1;
                        w.line("} else {");
                        w.indent += 1;
                        write_nodes(w, t, kernel, e);
                        w.indent -= 1;
                        w.line("}");
                    }
                }
            }
            Node::Instance {
                statement,
                args,
                stage,
            } => {
                let text = instance_text(t, kernel, *statement, args, *stage);
                w.marks.push((at, text.clone()));
                // A barrier publishes the asynchronous copies of the kernel once they land.
                let waits = t.statements[*statement].kind == StmtKind::Sync
                    && kernel.is_some_and(|k| t.has_async_copies(k));
                if waits {
                    w.line("gpucc_wait_copies();");
                }
                w.line(&text)
            }
            Node::Launch { .. } => unreachable!("launches are host code"),
        }
    }
}

/// A loop or `if` head with its body: braces unless the body is one loop, one `if`
/// without `else`, or one statement.
fn write_block(w: &mut Lines, t: &Transformed, kernel: Option<usize>, head: &str, body: &[Node]) {
    let simple = body.len() == 1
        && !matches!(
            body[0],
            Node::If {
                else_branch: Some(_),
                ..
            }
        );
    if simple {
        w.line(head);
        w.indent += 1;
        write_nodes(w, t, kernel, body);
        w.indent -= 1;
    } else {
        w.line(&format!("{head} {{"));
        w.indent += 1;
        write_nodes(w, t, kernel, body);
        w.indent -= 1;
        w.line("}");
    }
}

fn instance_text(
    t: &Transformed,
    kernel: Option<usize>,
    s: usize,
    args: &[Expr],
    stage: Option<Stage>,
) -> String {
    // Copies (and indices into their temporaries) read best in thread indices.
    let in_threads = |e: &Expr| match kernel {
        Some(k) => in_thread_indices(t, k, e),
        None => from_ir(e, &|x| CExpr::name(x)),
    };
    match t.statements[s].kind {
        StmtKind::Compute(id) => {
            // The indices into copy temporaries follow the iterators among the arguments.
            let n = t.statements[s].iterators.len();
            let mut at = n;
            let mut indices: Vec<(AccessId, usize, Vec<CExpr>)> = Vec::new();
            for (c, a, index) in t.copy_indices(s) {
                let values = args[at..at + index.len()].iter().map(in_threads).collect();
                at += index.len();
                indices.push((a, c, values));
            }
            // The update of a reduction accumulates into the thread's partial result.
            let reduction =
                kernel.and_then(|k| t.kernels[k].reductions.iter().find(|r| r.statement == s));
            // Only the update's own accesses: another read of the array (`x[j]` in
            // `x[i] -= L[i][j] * x[j]`) reads an element no thread updates.
            let own = |a: AccessId| {
                let st = &t.program.statements[id];
                a == st.write || st.update.is_some_and(|u| u.read == a)
            };
            let rewrites = |a: AccessId| {
                if let Some(r) =
                    reduction.filter(|r| t.program.accesses[a].array == r.array && own(a))
                {
                    return Some(CExpr::name(r.partial.clone()));
                }
                indices
                    .iter()
                    .find(|(x, _, _)| *x == a)
                    .map(|(_, c, index)| temp_reference(&t.copies[*c], index.clone()))
            };
            let cx = statement::Context {
                t,
                statement: id,
                args: &args[..n],
                rewrites: &rewrites,
                in_kernel: kernel.is_some(),
            };
            format!("{};", print(&cx.statement()))
        }
        StmtKind::Sync => "__syncthreads();".into(),
        StmtKind::CopyIn(c) | StmtKind::CopyOut(c) => {
            let copy = &t.copies[c];
            let n = t.statements[s].iterators.len();
            let value = in_threads;
            // The iterators end with the position in the box; the array element follows
            // (and a double-buffered copy's buffer).
            let mut xs: Vec<CExpr> = args[n - copy.sizes.len()..n].iter().map(value).collect();
            let element: Vec<CExpr> = args[n..n + copy.sizes.len()].iter().map(value).collect();
            if copy.double.is_some() {
                xs.insert(0, value(&args[n + copy.sizes.len()]));
            }
            let is_in = matches!(t.statements[s].kind, StmtKind::CopyIn(_));
            if copy.width > 1 && copy.memory == Memory::Registers {
                // The vector's elements in the thread's copy: the last index and the next.
                let lanes = (0..copy.width)
                    .map(|k| {
                        let mut lane = xs.clone();
                        if let Some(last) = lane.pop() {
                            lane.push(match last {
                                CExpr::Int(x) => CExpr::Int(x + k),
                                x => CExpr::bin("+", x, CExpr::Int(k)),
                            });
                        }
                        temp_reference(copy, lane)
                    })
                    .collect();
                return copies::register_vector_text(t, copy, lanes, element, is_in);
            }
            let temp = temp_reference(copy, xs);
            if copy.asynchronous {
                return copies::async_copy_text(t, copy, temp, element);
            }
            if copy.width > 1 {
                return copies::vector_copy_text(t, copy, temp, element, stage);
            }
            let global = statement::global_reference(t, copy.array, element, is_in);
            let (target, source) = match (stage, is_in) {
                // A prefetched copy: the element goes through the thread's staging array.
                (Some(st), true) => {
                    let reg =
                        CExpr::index(CExpr::name(stage_name(copy)), [CExpr::Int(st.slot as i64)]);
                    if st.load {
                        (reg, global)
                    } else {
                        (temp, reg)
                    }
                }
                (_, true) => (temp, global),
                (_, false) => (global, temp),
            };
            format!(
                "{};",
                print(&CExpr::Assign("=", Box::new(target), Box::new(source)))
            )
        }
    }
}

/// The copies whose elements `nodes` stage through registers, each with its number of
/// slots.
fn staged_slots(t: &Transformed, nodes: &[Node]) -> Vec<(usize, usize)> {
    fn walk(t: &Transformed, nodes: &[Node], out: &mut Vec<(usize, usize)>) {
        for n in nodes {
            match n {
                Node::For { body, .. } => walk(t, body, out),
                Node::If {
                    then_branch,
                    else_branch,
                    ..
                } => {
                    walk(t, then_branch, out);
                    walk(t, else_branch.as_deref().unwrap_or_default(), out);
                }
                Node::Instance {
                    statement,
                    stage: Some(st),
                    ..
                } => {
                    if let StmtKind::CopyIn(c) = t.statements[*statement].kind {
                        match out.iter_mut().find(|(x, _)| *x == c) {
                            Some((_, n)) => *n = (*n).max(st.slot + 1),
                            None => out.push((c, st.slot + 1)),
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(t, nodes, &mut out);
    out.sort_unstable();
    out
}

/// The registers a prefetched copy's elements wait in between their load and their store
/// into shared memory (`A_shared_next`: copies' temporaries have names of their own).
pub fn stage_name(copy: &DataCopy) -> String {
    format!("{}_next", copy.temp)
}

/// An element of a copy's temporary (a double-buffered one's index starts with the
/// buffer); dimensions of size 1 are not declared.
fn temp_reference(copy: &DataCopy, mut index: Vec<CExpr>) -> CExpr {
    let buffer = (copy.double.is_some()).then(|| index.remove(0));
    let kept = index
        .into_iter()
        .zip(&copy.dims)
        .filter(|(_, d)| **d != 1)
        .map(|(i, _)| i);
    CExpr::index(
        CExpr::name(copy.temp.clone()),
        buffer.into_iter().chain(kept),
    )
}

/// An expression of kernel `k` with each thread variable of a tiled loop written as the
/// tile's start plus the thread index (`-16 * jj + j` becomes `tx`).
fn in_thread_indices(t: &Transformed, k: usize, e: &Expr) -> CExpr {
    match cexpr::linear(e) {
        Some((terms, constant)) => cexpr::from_linear(&thread_terms(t, k, terms), constant),
        None => copies::with_quotients(t, k, e).unwrap_or_else(|| from_ir(e, &|x| CExpr::name(x))),
    }
}

/// Linear terms with each tiled thread variable replaced by its tile start plus the
/// thread index.
pub(super) fn thread_terms(
    t: &Transformed,
    k: usize,
    mut terms: Vec<(String, i64)>,
) -> Vec<(String, i64)> {
    let kernel = &t.kernels[k];
    for (d, td) in kernel.threads.iter().enumerate() {
        let ThreadKind::TilePoint { control } = td.kind else {
            continue;
        };
        let name = &t.levels[td.per_statement[0].1].name;
        let Some(at) = terms.iter().position(|(n, _)| n == name) else {
            continue;
        };
        let (_, a) = terms.remove(at);
        let control = t.levels[control].name.clone();
        terms.insert(at, (coordinate_name(t, d), a));
        match terms.iter_mut().find(|(n, _)| *n == control) {
            Some((_, c)) => *c += a * td.size,
            None => terms.insert(at, (control, a * td.size)),
        }
    }
    terms.retain(|(_, c)| *c != 0);
    terms
}

/// A condition as C: a comparison of affine sides is written with the variables on the
/// left and the constant on the right (`tx + 16 * kk < 100`), in thread indices inside a
/// kernel.
pub(super) fn condition(t: &Transformed, kernel: Option<usize>, e: &Expr) -> CExpr {
    use crate::codegen::ir::Op as O;
    let rename = |x: &str| CExpr::name(x);
    let Expr::Op(op @ (O::Le | O::Lt | O::Ge | O::Gt | O::Eq), args) = e else {
        return match e {
            Expr::Op(O::And, args) => CExpr::bin(
                "&&",
                condition(t, kernel, &args[0]),
                condition(t, kernel, &args[1]),
            ),
            Expr::Op(O::Or, args) => CExpr::bin(
                "||",
                condition(t, kernel, &args[0]),
                condition(t, kernel, &args[1]),
            ),
            _ => from_ir(e, &rename),
        };
    };
    let (Some((a, ca)), Some((b, cb))) = (cexpr::linear(&args[0]), cexpr::linear(&args[1])) else {
        return from_ir(e, &rename);
    };
    // lhs - rhs, then `op` against 0.
    let mut d = a;
    for (n, c) in b {
        match d.iter_mut().find(|(x, _)| *x == n) {
            Some((_, k)) => *k -= c,
            None => d.push((n, -c)),
        }
    }
    let d = match kernel {
        Some(k) => thread_terms(t, k, d),
        None => d.into_iter().filter(|(_, c)| *c != 0).collect(),
    };
    let c = ca - cb;
    // Variables on the left, the problem's sizes and the constant on the right.
    type Terms = Vec<(String, i64)>;
    let (vars, sizes): (Terms, Terms) = d
        .into_iter()
        .partition(|(n, _)| !t.program.params.contains(n));
    if vars.is_empty() {
        return from_ir(e, &rename);
    }
    // vars + sizes + c op 0; make the variables' side mostly positive.
    let flip = vars.iter().filter(|(_, k)| *k < 0).count() * 2 > vars.len();
    let sign = if flip { -1 } else { 1 };
    let op = match (op, flip) {
        (O::Le, true) => O::Ge,
        (O::Lt, true) => O::Gt,
        (O::Ge, true) => O::Le,
        (O::Gt, true) => O::Lt,
        (other, _) => *other,
    };
    let left: Vec<(String, i64)> = vars.into_iter().map(|(n, k)| (n, sign * k)).collect();
    let right: Vec<(String, i64)> = sizes.into_iter().map(|(n, k)| (n, -sign * k)).collect();
    let right_c = -sign * c;
    // Integers: `x <= r` is `x < r + 1`, `x > r` is `x >= r + 1`.
    let (spelling, right_c) = match op {
        O::Le => ("<", right_c + 1),
        O::Lt => ("<", right_c),
        O::Ge => (">=", right_c),
        O::Gt => (">=", right_c + 1),
        _ => ("==", right_c),
    };
    CExpr::bin(
        spelling,
        cexpr::from_linear(&left, 0),
        cexpr::from_linear(&right, right_c),
    )
}
