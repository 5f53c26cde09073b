//! The host code that replaces the compiled unit: device memory for the arrays and the
//! scalars the kernels use, copies in, the host loops and launches, copies out, frees;
//! every CUDA call checked.

use super::cexpr::{from_ir, print, CExpr};
use super::kernel::{kernel_int_params, loop_header};
use super::statement::has_symbolic_inner_dims;
use super::{constant_name, in_global_memory, uses_of, Lines};
use crate::codegen::in_device_memory;
use crate::codegen::ir::{Expr, Generated, KernelIr, Node};
use crate::diag::{Diagnostic, Diagnostics, SourceFile};
use crate::frontend::UnitKind;
use crate::poly::{Array, ArrayId, ArrayKind};
use crate::transform::{Placement, Transformed};

/// The name of an array's device copy, `d_A`, unless the program uses that name.
fn device_name(t: &Transformed, a: &Array) -> String {
    let taken = |n: &str| {
        t.program.arrays.iter().any(|x| x.name == n) || t.program.params.iter().any(|x| x == n)
    };
    (0..)
        .map(|k| {
            if k == 0 {
                format!("d_{}", a.name)
            } else {
                format!("d{k}_{}", a.name)
            }
        })
        .find(|n| !taken(n))
        .expect("a free name")
}

/// The number of elements of `a` given to `cudaize` (a C expression), for an array whose
/// declaration does not say how large it is.
fn given_size(t: &Transformed, a: ArrayId) -> Option<&String> {
    (t.kernels.iter().flat_map(|k| &k.sizes))
        .find(|(x, _)| *x == a)
        .map(|(_, s)| s)
}

/// `sizeof(float[N][N])`, or a product for arrays with symbolic sizes, or the size given
/// to `cudaize`.
fn byte_size(t: &Transformed, a: ArrayId) -> Result<String, Diagnostic> {
    let p = &t.program;
    let array = &p.arrays[a];
    let ty = array.elem.c_name();
    if let Some(size) = given_size(t, a) {
        return Ok(format!("sizeof({ty}) * ({size})"));
    }
    if array.extents[0].is_none() {
        return Err(Diagnostic::error(
            p.unit.source,
            array.span,
            format!("gpucc does not know how large `{}` is", array.name),
        )
        .with_label("its first dimension is not given")
        .with_hint(format!(
            "give its number of elements to cudaize: `cudaize(\"name\", {{{}=...}}, {{...}})`",
            array.name
        )));
    }
    let constant = array
        .extents
        .iter()
        .all(|e| e.as_ref().and_then(|x| x.as_constant()).is_some());
    Ok(if constant {
        format!("sizeof({ty}{})", array.dims_text())
    } else {
        let dims: Vec<String> = array.dim_texts.iter().map(|d| format!("({d})")).collect();
        format!("sizeof({ty}) * {}", dims.join(" * "))
    })
}

/// The arrays the host code allocates and copies.
struct Copied {
    /// In global memory: allocated, copied in when they come from outside the unit.
    global: Vec<ArrayId>,
    /// In constant memory, copied in.
    constant: Vec<ArrayId>,
    /// Those the kernels write (the arrays from outside among them are copied out).
    written: Vec<ArrayId>,
}

fn copied(t: &Transformed) -> Copied {
    let p = &t.program;
    let mut all_statements: Vec<usize> = Vec::new();
    for k in &t.kernels {
        all_statements.extend(&k.statements);
    }
    let uses = uses_of(t, &all_statements);
    let global = (uses.arrays.iter().copied())
        .filter(|a| in_global_memory(t, *a))
        .collect();
    let constant = (uses.arrays.iter().copied())
        .filter(|a| {
            t.placement(*a) == Placement::Constant && p.arrays[*a].kind == ArrayKind::Outside
        })
        .collect();
    Copied {
        global,
        constant,
        written: uses.written.iter().copied().collect(),
    }
}

/// One copy between the host and the device that the host code makes per call.
#[derive(Clone, Debug, PartialEq)]
pub struct Transfer {
    /// The array or scalar copied.
    pub name: String,
    pub to_device: bool,
    /// Its bytes at the sizes, where they are known (not for an array whose size only
    /// `cudaize` gives).
    pub bytes: Option<f64>,
}

/// The copies [`host_text`] writes, in its order (in, then out), with their bytes at
/// `sizes` (values of the program's size parameters).
pub fn transfers(t: &Transformed, g: &Generated, sizes: &[(String, i64)]) -> Vec<Transfer> {
    let p = &t.program;
    let Copied {
        global,
        constant,
        written,
    } = copied(t);
    let bytes = |a: ArrayId| -> Option<f64> {
        let array = &p.arrays[a];
        if given_size(t, a).is_some() {
            return None;
        }
        let value = |v: &crate::poly::affine::Var| match v {
            crate::poly::affine::Var::Param(n) => {
                sizes.iter().find(|(x, _)| x == n).map_or(0, |(_, v)| *v)
            }
            crate::poly::affine::Var::Index(_) => 0,
        };
        let mut n = array.elem.size_bytes() as f64;
        for e in &array.extents {
            n *= e.as_ref()?.eval(&value) as f64;
        }
        Some(n)
    };
    let scalar = |a: ArrayId| Some(p.arrays[a].elem.size_bytes() as f64);
    let copy = |a: ArrayId, to_device: bool, bytes: Option<f64>| Transfer {
        name: p.arrays[a].name.clone(),
        to_device,
        bytes,
    };
    let outside = |a: &&ArrayId| p.arrays[**a].kind == ArrayKind::Outside;
    let mut copies: Vec<Transfer> = Vec::new();
    copies.extend(
        global
            .iter()
            .filter(outside)
            .map(|&a| copy(a, true, bytes(a))),
    );
    copies.extend(
        (g.device_scalars.iter().filter(|d| d.copy_in))
            .map(|d| copy(d.array, true, scalar(d.array))),
    );
    copies.extend(constant.iter().map(|&a| copy(a, true, bytes(a))));
    copies.extend(
        (global.iter().filter(outside))
            .filter(|a| written.contains(a))
            .map(|&a| copy(a, false, bytes(a))),
    );
    copies.extend(
        (g.device_scalars.iter().filter(|d| d.copy_out))
            .map(|d| copy(d.array, false, scalar(d.array))),
    );
    copies
}

pub(super) fn host_text(
    file: &SourceFile,
    t: &Transformed,
    g: &Generated,
) -> Result<String, Diagnostics> {
    let p = &t.program;
    let Copied {
        global,
        constant,
        written,
    } = copied(t);
    let sizes: Vec<Result<String, Diagnostic>> = global.iter().map(|a| byte_size(t, *a)).collect();
    let diags: Diagnostics = sizes
        .iter()
        .filter_map(|s| s.as_ref().err().cloned())
        .collect();
    if !diags.is_empty() {
        return Err(diags);
    }
    let indent = match p.unit.kind {
        UnitKind::Function => 1,
        UnitKind::Scop(_) => {
            let line_start = file.text[..p.unit.span.start]
                .rfind('\n')
                .map(|i| i + 1)
                .unwrap_or(0);
            let spaces = file.text[line_start..p.unit.span.start]
                .chars()
                .take_while(|c| *c == ' ')
                .count();
            (spaces / 2).max(1)
        }
    };
    let mut w = Lines::new(indent);
    match p.unit.kind {
        UnitKind::Function => {
            w.indent = 0;
            w.line(&host_header(file, t));
            w.line("{");
            w.indent = 1;
        }
        UnitKind::Scop(_) => {
            w.indent -= 1;
            // Scalars declared in the region stay visible after it.
            for d in g.device_scalars.iter().filter(|d| d.host_declaration) {
                let array = &p.arrays[d.array];
                w.line(&format!("{} {};", array.elem.c_name(), array.name));
            }
            w.line("{");
            w.indent += 1;
            w.line("/* gpucc: this #pragma scop region runs on the GPU. */");
            // Loop indices declared before the region (`int i, j;` as PolyBench writes)
            // are no longer used by it: say so, or compilers warn about them.
            let mut unused: Vec<&str> = Vec::new();
            for l in &p.loops {
                let outside = p
                    .unit
                    .params
                    .iter()
                    .any(|q| q.declarator.name == l.iterator && q.declarator.dims.is_empty());
                if outside && !unused.contains(&l.iterator.as_str()) {
                    unused.push(&l.iterator);
                }
            }
            let mut voids: Vec<String> = unused.iter().map(|n| format!("(void){n};")).collect();
            // So are the scalars made private to its loops (each thread has its own);
            // one with an initializer is "set but never used" unless its address is.
            for v in &t.deps.privatized {
                let name = p.arrays[v.array].name.as_str();
                if p.unit.params.iter().any(|q| q.declarator.name == name)
                    && !unused.contains(&name)
                {
                    voids.push(format!("(void)&{name};"));
                }
            }
            // Before the loops of launches, whose indices could shadow them.
            if !voids.is_empty() {
                w.line(&voids.join(" "));
            }
        }
    }
    for (a, size) in global.iter().zip(&sizes) {
        let array = &p.arrays[*a];
        let d = device_name(t, array);
        let ty = array.elem.c_name();
        let decl = if array.extents.len() == 1 || has_symbolic_inner_dims(array) {
            format!("{ty} *{d};")
        } else {
            let inner: String = array.dim_texts[1..]
                .iter()
                .map(|x| format!("[{x}]"))
                .collect();
            format!("{ty} (*{d}){inner};")
        };
        w.line(&decl);
        let size = size.as_ref().expect("errors returned above");
        w.line(&format!("GPUCC_CHECK(cudaMalloc((void **)&{d}, {size}));"));
        if array.kind == ArrayKind::Outside {
            w.line(&format!(
                "GPUCC_CHECK(cudaMemcpy({d}, {}, {size}, cudaMemcpyHostToDevice));",
                array.name
            ));
        }
    }
    for d in &g.device_scalars {
        let array = &p.arrays[d.array];
        let name = device_name(t, array);
        let ty = array.elem.c_name();
        w.line(&format!("{ty} *{name};"));
        w.line(&format!(
            "GPUCC_CHECK(cudaMalloc((void **)&{name}, sizeof({ty})));"
        ));
        if d.copy_in {
            w.line(&format!(
                "GPUCC_CHECK(cudaMemcpy({name}, &{}, sizeof({ty}), cudaMemcpyHostToDevice));",
                array.name
            ));
        }
    }
    for a in &constant {
        let array = &p.arrays[*a];
        let size = byte_size(t, *a).map_err(|d| vec![d])?;
        w.line(&format!(
            "GPUCC_CHECK(cudaMemcpyToSymbol({}, {}, {size}));",
            constant_name(t, array),
            array.name
        ));
    }
    for k in &g.kernels {
        if let Some(d) = super::copies::dynamic_shared(t, k.kernel) {
            w.line(&format!(
                "GPUCC_CHECK(cudaFuncSetAttribute({}, cudaFuncAttributeMaxDynamicSharedMemorySize, {}));",
                k.name, d.bytes
            ));
        }
    }
    write_host_nodes(&mut w, t, g, &g.host);
    for (a, size) in global.iter().zip(&sizes) {
        let array = &p.arrays[*a];
        if array.kind == ArrayKind::Outside && written.contains(a) {
            let size = size.as_ref().expect("errors returned above");
            w.line(&format!(
                "GPUCC_CHECK(cudaMemcpy({}, {}, {size}, cudaMemcpyDeviceToHost));",
                array.name,
                device_name(t, array)
            ));
        }
    }
    for d in &g.device_scalars {
        let array = &p.arrays[d.array];
        if d.copy_out {
            w.line(&format!(
                "GPUCC_CHECK(cudaMemcpy(&{}, {}, sizeof({}), cudaMemcpyDeviceToHost));",
                array.name,
                device_name(t, array),
                array.elem.c_name()
            ));
        }
    }
    let scalars = g.device_scalars.iter().map(|d| d.array);
    for a in global.iter().copied().chain(scalars) {
        w.line(&format!(
            "GPUCC_CHECK(cudaFree({}));",
            device_name(t, &p.arrays[a])
        ));
    }
    for f in &g.finals {
        w.line(&format!(
            "/* `{}` as the C leaves it after its last loop. */",
            f.var
        ));
        write_final(&mut w, &f.var, &f.code);
    }
    match p.unit.kind {
        UnitKind::Function => {
            w.indent = 0;
            w.line("}");
        }
        UnitKind::Scop(_) => {
            w.indent -= 1;
            w.line("}");
        }
    }
    let mut text = w.out;
    if matches!(p.unit.kind, UnitKind::Scop(_)) {
        // The region's first line keeps the indentation the file gave it.
        text = text.trim_start().to_string();
        text = text.trim_end().to_string();
    } else {
        text = text.trim_end().to_string();
    }
    Ok(text)
}

/// The host function's header: the source's, unless an array has symbolic sizes (C++ has
/// no variable-length array parameters): then such arrays become pointers.
pub(super) fn host_header(file: &SourceFile, t: &Transformed) -> String {
    let p = &t.program;
    let span = p.unit.header.expect("function units have a header");
    let original = file.text[span.start..span.end].trim_end().to_string();
    // C++ has no variable-length arrays: a parameter with a size that is not a constant
    // becomes a pointer to its first element (row-major, as in C).
    let variable_length = |a: &Array| {
        !a.is_scalar()
            && a.extents
                .iter()
                .any(|e| e.as_ref().is_some_and(|x| x.as_constant().is_none()))
    };
    let symbolic: Vec<&Array> = p
        .arrays
        .iter()
        .filter(|a| a.kind == ArrayKind::Outside && variable_length(a))
        .collect();
    if symbolic.is_empty() {
        return original;
    }
    let open = original.find('(').unwrap_or(original.len());
    let params: Vec<String> = p
        .unit
        .params
        .iter()
        .map(|param| {
            let d = &param.declarator;
            let ty = param.spec.ty.map(|t| t.c_name()).unwrap_or("void");
            let konst = if param.spec.is_const { "const " } else { "" };
            match p
                .arrays
                .iter()
                .find(|a| a.name == d.name && a.kind == ArrayKind::Outside)
            {
                Some(a) if variable_length(a) => format!("{konst}{ty} *{}", d.name),
                Some(a) => format!("{konst}{ty} {}{}", d.name, a.dims_text()),
                None => format!("{konst}{ty} {}", d.name),
            }
        })
        .collect();
    let names: Vec<String> = symbolic.iter().map(|a| format!("`{}`", a.name)).collect();
    format!(
        "/* gpucc: {} {} to the first element (row-major): C++ has no variable-length array parameters. */\n{}({})",
        names.join(", "),
        if names.len() == 1 { "is a pointer" } else { "are pointers" },
        &original[..open],
        params.join(", ")
    )
}

pub(super) fn write_host_nodes(w: &mut Lines, t: &Transformed, g: &Generated, nodes: &[Node]) {
    for n in nodes {
        match n {
            Node::For {
                var,
                init,
                cond,
                step,
                body,
            } => {
                w.line(&format!("{} {{", loop_header(var, init, cond, *step)));
                w.indent += 1;
                write_host_nodes(w, t, g, body);
                w.indent -= 1;
                w.line("}");
            }
            Node::If {
                cond,
                then_branch,
                else_branch,
            } => {
                w.line(&format!(
                    "if ({}) {{",
                    print(&from_ir(cond, &|n| CExpr::name(n)))
                ));
                w.indent += 1;
                write_host_nodes(w, t, g, then_branch);
                w.indent -= 1;
                if let Some(e) = else_branch {
                    w.line("} else {");
                    w.indent += 1;
                    write_host_nodes(w, t, g, e);
                    w.indent -= 1;
                }
                w.line("}");
            }
            Node::Launch { kernel, args } => {
                let k = &g.kernels[*kernel];
                w.line(&launch_text(t, k, args));
                w.line("GPUCC_CHECK(cudaGetLastError());");
            }
            Node::Instance { .. } => unreachable!("host code holds only loops and launches"),
        }
    }
}

/// Host code that sets `var` (each instance assigns its last argument).
fn write_final(w: &mut Lines, var: &str, nodes: &[Node]) {
    let text = |e: &Expr| print(&from_ir(e, &|n| CExpr::name(n)));
    for n in nodes {
        match n {
            Node::For {
                var: v,
                init,
                cond,
                step,
                body,
            } => {
                w.line(&format!("{} {{", loop_header(v, init, cond, *step)));
                w.indent += 1;
                write_final(w, var, body);
                w.indent -= 1;
                w.line("}");
            }
            Node::If { .. } => {
                // `if (a) {...} else if (b) {...} else {...}`: a chain, not a staircase.
                let mut head = "if";
                let mut node = n;
                loop {
                    let Node::If {
                        cond,
                        then_branch,
                        else_branch,
                    } = node
                    else {
                        unreachable!("the chain holds only conditions")
                    };
                    w.line(&format!("{head} ({}) {{", text(cond)));
                    w.indent += 1;
                    write_final(w, var, then_branch);
                    w.indent -= 1;
                    match else_branch.as_deref() {
                        Some([next @ Node::If { .. }]) => {
                            node = next;
                            head = "} else if";
                        }
                        Some(e) => {
                            w.line("} else {");
                            w.indent += 1;
                            write_final(w, var, e);
                            w.indent -= 1;
                            break;
                        }
                        None => break,
                    }
                }
                w.line("}");
            }
            Node::Instance { args, .. } => {
                if let Some(value) = args.last() {
                    w.line(&format!("{var} = {};", text(value)));
                }
            }
            Node::Launch { .. } => unreachable!("a final value holds no launch"),
        }
    }
}

fn launch_text(t: &Transformed, k: &KernelIr, host_values: &[Expr]) -> String {
    let p = &t.program;
    let kernel = &t.kernels[k.kernel];
    let uses = uses_of(t, &kernel.statements);
    let mut args: Vec<String> = Vec::new();
    for &a in &uses.arrays {
        let array = &p.arrays[a];
        if in_global_memory(t, a) || in_device_memory(t, a) {
            args.push(device_name(t, array));
        } else if array.is_scalar() && array.kind == ArrayKind::Outside {
            args.push(array.name.clone());
        }
    }
    args.extend(kernel_int_params(t, k, &uses));
    for v in host_values {
        args.push(print(&from_ir(v, &|n| CExpr::name(n))));
    }
    // The grid in the values this launch passes for the host loops' variables.
    let host_value = |n: &str| match k.host_vars.iter().position(|h| h == n) {
        Some(i) => from_ir(&host_values[i], &|m| CExpr::name(m)),
        None => CExpr::name(n),
    };
    let grid: Vec<String> = k
        .grid
        .iter()
        .map(|g| print(&from_ir(g, &host_value)))
        .collect();
    let block: Vec<String> = k.block.iter().map(|b| b.to_string()).collect();
    let dims = |v: &[String]| {
        if v.is_empty() {
            "1".to_string()
        } else {
            format!("dim3({})", v.join(", "))
        }
    };
    let shared = super::copies::dynamic_shared(t, k.kernel)
        .map(|d| format!(", {}", d.bytes))
        .unwrap_or_default();
    format!(
        "{}<<<{}, {}{shared}>>>({});",
        k.name,
        dims(&grid),
        dims(&block),
        args.join(", ")
    )
}
