//! CUDA stage: the generated loops → the text of the `.cu` file.
//!
//! Entry point: [`emit`]. The `.cu` replaces the input file: everything gpucc did not
//! compile is copied through as written; each compiled unit becomes host code (a drop-in
//! function with the same name and parameters, or the same code in place of a
//! `#pragma scop` region) that allocates device memory, copies in, launches the kernels,
//! copies out and frees, checking every CUDA call; the kernels go right before the
//! function that holds the unit. A header comment records the gpucc version, the input,
//! and the recipe in full with its parameter values.

pub mod cexpr;
mod copies;
pub mod cpp_compat;
mod ctype;
mod host;
pub use host::{transfers, Transfer};
mod kernel;
mod reduction;
mod statement;

use crate::codegen::ir::{Generated, KernelIr, Node};
use crate::diag::{Diagnostics, SourceFile};
use crate::frontend::macros::{apply_defines, define_edits, has_define_line};
use crate::poly::{Array, ArrayId, ArrayKind};
use crate::transform::datacopy::Memory;
use crate::transform::{Placement, StmtKind, Transformed};
use host::{host_text, write_host_nodes};
pub use kernel::node_lines;
use kernel::{kernel_text, local_declaration, write_nodes};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The recipe a `.cu` was made with, for its header comment.
pub struct RecipeInfo<'a> {
    pub path: &'a str,
    pub text: &'a str,
    /// Parameter values, as the recipe used them.
    pub params: &'a [(String, String)],
}

/// What the header comment says, and the command line's macros.
pub struct EmitOptions<'a> {
    pub recipe: Option<RecipeInfo<'a>>,
    /// `-D NAME=VALUE`: the code was compiled with them, so the file's `#define`s of these
    /// names are replaced in the output.
    pub defines: &'a [(String, String)],
    /// The GPU architecture the code is meant for (`sm_90`).
    pub target: &'a str,
    /// The predicted time and bottleneck, for the header.
    pub prediction: Option<&'a str>,
}

/// The `.cu` text for `file`, whose units were compiled to `units`.
pub fn emit(
    file: &SourceFile,
    units: &[(Transformed, Generated)],
    options: &EmitOptions,
) -> Result<String, Diagnostics> {
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut uses_floord = false;
    let uses_vectors = units
        .iter()
        .any(|(t, _)| t.copies.iter().any(|c| c.width > 1 && !c.asynchronous));
    let uses_async = units
        .iter()
        .any(|(t, _)| t.copies.iter().any(|c| c.asynchronous));
    for (t, g) in units {
        let mut kernels = constant_declarations(t);
        kernels.push_str(&reduction::helpers(t));
        for k in &g.kernels {
            uses_floord |= kernel_uses_floord(k);
            kernels.push_str(&kernel_text(t, k));
            kernels.push('\n');
        }
        uses_floord |= g.host.iter().any(node_uses_floord)
            || g.kernels
                .iter()
                .any(|k| k.grid.iter().any(cexpr::uses_floord));
        edits.push((
            t.program.unit.file_scope_at,
            t.program.unit.file_scope_at,
            kernels,
        ));
        let host = host_text(file, t, g)?;
        edits.push((t.program.unit.span.start, t.program.unit.span.end, host));
    }
    edits.sort_by_key(|(start, end, _)| (*start, *end));
    // The `-D` macros go into the file's own text beside the other edits, where what
    // gpucc adds has no `#define` and no edit cuts one: lexing the whole `.cu` again for
    // them took 27 ms of PolyBench 3mm's compile (121 KB).
    let mut top = String::new();
    let mut defined = options.defines.is_empty();
    if !defined && !edits.iter().any(|(_, _, text)| has_define_line(text)) {
        let d = define_edits(&file.text, options.defines);
        let cut = |(a, b, _): &(usize, usize, String)| {
            edits.iter().any(|(start, end, _)| start < b && a < end)
        };
        if !d.edits.iter().any(cut) {
            top = d.top;
            edits.extend(d.edits);
            edits.sort_by_key(|(start, end, _)| (*start, *end));
            defined = true;
        }
    }
    // The copied text must be C++ too: `float *a = malloc(...)` gets its cast.
    let casts = cpp_compat::allocation_casts(&file.text);
    let mut body = String::new();
    let mut at = 0;
    for (start, end, text) in edits {
        cpp_compat::push_copied(&mut body, &file.text, at, start, &casts);
        body.push_str(&text);
        at = end;
    }
    cpp_compat::push_copied(&mut body, &file.text, at, file.text.len(), &casts);
    let mut out = header(file, units, options);
    // The helpers before the file's own text: a function of the file may hold a kernel.
    out.push_str(&prelude_with_helpers(uses_floord, uses_vectors, uses_async));
    out.push_str(&top);
    if defined {
        out.push_str(&body);
    } else {
        out.push_str(&apply_defines(&body, options.defines));
    }
    Ok(out)
}

/// One compiled function unit's parts, for a file that holds several variants of it
/// (`gpucc library`): its kernels (with their constant-memory declarations and helpers),
/// its host function, that function's header, and the helpers the prelude must define.
pub struct UnitParts {
    pub kernels: String,
    pub host: String,
    /// `void f(int n, float *A)`: the host function's header (pointers for arrays with
    /// sizes known at run time).
    pub header: String,
    pub uses_floord: bool,
    pub uses_vectors: bool,
    pub uses_async: bool,
}

/// The parts of a function unit ([`UnitParts`]).
pub fn unit_parts(
    file: &SourceFile,
    t: &Transformed,
    g: &Generated,
) -> Result<UnitParts, Diagnostics> {
    let mut kernels = constant_declarations(t);
    kernels.push_str(&reduction::helpers(t));
    for k in &g.kernels {
        kernels.push_str(&kernel_text(t, k));
        kernels.push('\n');
    }
    Ok(UnitParts {
        kernels,
        host: host_text(file, t, g)?,
        header: host::host_header(file, t),
        uses_floord: g.kernels.iter().any(|k| kernel_uses_floord(k))
            || g.host.iter().any(node_uses_floord)
            || g.kernels
                .iter()
                .any(|k| k.grid.iter().any(cexpr::uses_floord)),
        uses_vectors: t.copies.iter().any(|c| c.width > 1 && !c.asynchronous),
        uses_async: t.copies.iter().any(|c| c.asynchronous),
    })
}

/// The includes, `GPUCC_CHECK` and the helpers a file of several units needs.
pub fn prelude_with_helpers(uses_floord: bool, uses_vectors: bool, uses_async: bool) -> String {
    let mut out = prelude(uses_floord);
    for (used, helpers) in [
        (uses_vectors, copies::VECTOR_HELPERS),
        (uses_async, copies::ASYNC_HELPERS),
    ] {
        if used {
            out.push_str(helpers.trim_start());
            out.push('\n');
        }
    }
    out
}

fn header(file: &SourceFile, units: &[(Transformed, Generated)], o: &EmitOptions) -> String {
    let mut h = String::from("/*\n");
    let _ = writeln!(
        h,
        " * Generated by gpucc {} from {}.",
        env!("CARGO_PKG_VERSION"),
        file.name
    );
    let described: Vec<String> = units
        .iter()
        .map(|(t, _)| t.program.unit.describe())
        .collect();
    let _ = writeln!(
        h,
        " * Compiled: {}; the rest of the file is as written.",
        described.join(", ")
    );
    let _ = writeln!(h, " * Target: {}.", o.target);
    if !o.defines.is_empty() {
        let d: Vec<String> = o
            .defines
            .iter()
            .map(|(n, v)| format!("-D {n}={v}"))
            .collect();
        let _ = writeln!(h, " * Macros: {}.", d.join(" "));
    }
    let _ = writeln!(
        h,
        " * Predicted time: {}.",
        o.prediction.unwrap_or("not estimated")
    );
    if let Some(r) = &o.recipe {
        let _ = writeln!(h, " *\n * Recipe {}:", r.path);
        if !r.params.is_empty() {
            let values: Vec<String> = r.params.iter().map(|(n, v)| format!("{n} = {v}")).collect();
            let _ = writeln!(h, " *   with {}", values.join(", "));
        }
        for line in r.text.lines() {
            let _ = writeln!(h, " *   {}", line.replace("*/", "* /"));
        }
    }
    h.push_str(" */\n");
    h
}

fn prelude(uses_floord: bool) -> String {
    let mut p = String::from(
        "#include <cstdio>\n#include <cstdlib>\n#include <cuda_runtime.h>\n\n\
         /* Stops the program with the place and the reason of a failed CUDA call. */\n\
         #define GPUCC_CHECK(call)                                                   \\\n\
         \x20 do {                                                                      \\\n\
         \x20   cudaError_t gpucc_status = (call);                                      \\\n\
         \x20   if (gpucc_status != cudaSuccess) {                                      \\\n\
         \x20     fprintf(stderr, \"%s:%d: %s: %s\\n\", __FILE__, __LINE__, #call,          \\\n\
         \x20             cudaGetErrorString(gpucc_status));                            \\\n\
         \x20     exit(EXIT_FAILURE);                                                   \\\n\
         \x20   }                                                                       \\\n\
         \x20 } while (0)\n",
    );
    if uses_floord {
        p.push_str(
            "\n/* floor(a / b) for b > 0. */\n\
             static __host__ __device__ inline int gpucc_floord(int a, int b)\n{\n  \
             return a >= 0 ? a / b : -((-a + b - 1) / b);\n}\n",
        );
    }
    p.push('\n');
    p
}

fn node_uses_floord(n: &Node) -> bool {
    match n {
        Node::For {
            init, cond, body, ..
        } => {
            cexpr::uses_floord(init)
                || cexpr::uses_floord(cond)
                || body.iter().any(node_uses_floord)
        }
        Node::If {
            cond,
            then_branch,
            else_branch,
        } => {
            cexpr::uses_floord(cond)
                || then_branch.iter().any(node_uses_floord)
                || else_branch
                    .as_ref()
                    .is_some_and(|b| b.iter().any(node_uses_floord))
        }
        Node::Instance { args, .. } | Node::Launch { args, .. } => {
            args.iter().any(cexpr::uses_floord)
        }
    }
}

fn kernel_uses_floord(k: &KernelIr) -> bool {
    k.body.iter().any(node_uses_floord)
        || k.prologue.iter().any(|p| cexpr::uses_floord(&p.value))
        || k.reductions
            .iter()
            .any(|r| r.target.iter().any(node_uses_floord))
}

/// Lines of C with indentation.
struct Lines {
    out: String,
    indent: usize,
    /// The IR nodes written (their addresses), each with the text of its first line.
    marks: Vec<(usize, String)>,
}

impl Lines {
    fn new(indent: usize) -> Lines {
        Lines {
            out: String::new(),
            indent,
            marks: Vec::new(),
        }
    }

    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }
}

/// What the kernels of a unit touch.
struct Uses {
    arrays: BTreeSet<ArrayId>,
    written: BTreeSet<ArrayId>,
}

fn uses_of(t: &Transformed, statements: &[usize]) -> Uses {
    let p = &t.program;
    let mut uses = Uses {
        arrays: BTreeSet::new(),
        written: BTreeSet::new(),
    };
    for &s in statements {
        if let StmtKind::Compute(id) = t.statements[s].kind {
            let st = &p.statements[id];
            uses.arrays.insert(p.accesses[st.write].array);
            for r in &st.reads {
                uses.arrays.insert(p.accesses[*r].array);
            }
        }
    }
    uses.written = (uses.arrays.iter().copied())
        .filter(|&a| t.writes(statements, a))
        .collect();
    uses
}

/// Arrays that live in device global memory (not private, not a constant local table,
/// not in constant memory).
fn in_global_memory(t: &Transformed, array: ArrayId) -> bool {
    let a = &t.program.arrays[array];
    if t.placement(array) == Placement::Constant {
        return false;
    }
    match a.kind {
        ArrayKind::Private { .. } => false,
        ArrayKind::Local => !(a.is_scalar() || a.is_table()),
        ArrayKind::Outside => !a.is_scalar(),
    }
}

/// The name of an array's copy in constant memory.
pub(crate) fn constant_name(t: &Transformed, a: &Array) -> String {
    let taken = |n: &str| {
        t.program.arrays.iter().any(|x| x.name == n) || t.program.params.iter().any(|x| x == n)
    };
    (0..)
        .map(|k| {
            if k == 0 {
                format!("{}_const", a.name)
            } else {
                format!("{}_const{k}", a.name)
            }
        })
        .find(|n| !taken(n))
        .expect("a free name")
}

/// `__constant__` declarations of the arrays the unit's kernels read from constant
/// memory.
fn constant_declarations(t: &Transformed) -> String {
    let mut out = String::new();
    let mut statements: Vec<usize> = Vec::new();
    for k in &t.kernels {
        statements.extend(&k.statements);
    }
    let uses = uses_of(t, &statements);
    for &a in &uses.arrays {
        if t.placement(a) != Placement::Constant {
            continue;
        }
        let array = &t.program.arrays[a];
        let init = if array.kind == ArrayKind::Local && array.initialized {
            local_declaration(t, a)
                .split_once(" = ")
                .map(|(_, i)| format!(" = {i}"))
                .unwrap_or_default()
        } else {
            String::new()
        };
        let _ = writeln!(out, "/* `{}` in constant memory. */", array.name);
        let _ = writeln!(
            out,
            "__constant__ {} {}{}{init};
",
            array.elem.c_name(),
            constant_name(t, array),
            array.dims_text()
        );
    }
    out
}

/// What `print_code()` shows. Once every statement runs in a kernel: the kernels as the
/// `.cu` will hold them, then the host's loops and launches. Before that: the loop nest
/// as sequential C, under a comment per kernel and data copy declared so far.
pub fn code_text(t: &Transformed) -> Result<String, Diagnostics> {
    let all_in_kernels = (0..t.statements.len())
        .all(|s| t.kernel_of(s).is_some() || !matches!(t.statements[s].kind, StmtKind::Compute(_)));
    if !t.kernels.is_empty() && all_in_kernels {
        let g = crate::codegen::generate(t)?;
        let mut out = constant_declarations(t);
        out.push_str(&reduction::helpers(t));
        for k in &g.kernels {
            out.push_str(&kernel_text(t, k));
            out.push('\n');
        }
        let mut w = Lines::new(0);
        w.line("/* host */");
        write_host_nodes(&mut w, t, &g, &g.host);
        out.push_str(&w.out);
        return Ok(out);
    }
    let nodes = crate::codegen::sequential(t)?;
    let mut w = Lines::new(0);
    for k in &t.kernels {
        let blocks: Vec<&str> = k
            .blocks
            .iter()
            .map(|l| t.levels[*l].name.as_str())
            .collect();
        let threads: Vec<&str> = k.threads.iter().map(|d| d.name.as_str()).collect();
        let reduced: Vec<&str> = k
            .reductions
            .iter()
            .map(|r| t.program.arrays[r.array].name.as_str())
            .collect();
        if k.is_serial() {
            w.line(&format!("/* kernel {}: serial */", k.name));
        } else if reduced.is_empty() {
            w.line(&format!(
                "/* kernel {}: blocks {}; threads {} */",
                k.name,
                blocks.join(", "),
                threads.join(", ")
            ));
        } else {
            w.line(&format!(
                "/* kernel {}: blocks {}; threads {}; reduces {} */",
                k.name,
                blocks.join(", "),
                threads.join(", "),
                reduced.join(", ")
            ));
        }
    }
    for c in &t.copies {
        let memory = match c.memory {
            Memory::Shared => "shared memory",
            Memory::Registers => "registers",
        };
        w.line(&format!(
            "/* {} copied to {memory} as {} */",
            t.program.arrays[c.array].name, c.temp
        ));
    }
    write_nodes(&mut w, t, None, &nodes);
    Ok(w.out)
}
