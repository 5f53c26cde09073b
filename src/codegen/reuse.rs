//! What a kernel is generated from, as a key: the strategy generator compiles every
//! variant of a program whole, so the kernels of the nests a variant leaves alone come
//! back unchanged (mm2: 74 kernels generated in one ranking, 29 of them met before).
//! With the same key, a kernel's code ([`super::generate`]) and its emulation
//! ([`crate::emulator::kernel`]) are the same, and are kept for the rest of the process.
//!
//! The key holds everything of the [`Transformed`] program that generating or emulating
//! the kernel reads: the kernel, its statements with their positions, its copies, the
//! levels it names, the names its variables took (clear of every name of the program),
//! the placements of the arrays it reads and writes, the length of its time vectors, with
//! a digest of the source program. The other nests' loops and statements are left out:
//! no step looks up a loop by a name that another nest's loop may share. Statements,
//! levels and copies are numbered within the kernel ([`Local`]), so that what another
//! nest makes does not change the key (3mm at LARGE: 135 kernels generated in one
//! ranking with the program's numbers, 75 with the kernel's).

use std::collections::BTreeSet;
use std::fmt::Write;
use std::hash::{Hash, Hasher};

use super::ir::{KernelIr, Node};
use crate::poly::isl::IslError;
use crate::poly::memo::Memo;
use crate::poly::ArrayId;
use crate::transform::boxcopy::BoxCopy;
use crate::transform::cudaize::{Kernel, ThreadDim, ThreadKind};
use crate::transform::datacopy::DataCopy;
use crate::transform::reduction::Reduction;
use crate::transform::{Level, LevelId, StmtKind, TStatement, Tile, Transformed};
use std::sync::Arc;

/// A digest of the source program of `t`, for [`kernel_source`].
pub fn program_digest(t: &Transformed) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    format!("{:?}", t.program).hash(&mut hasher);
    hasher.finish()
}

/// The key of kernel `k` of `t` ([`Transformed::positions`] given as `positions`, the
/// schedule's `width`, and [`program_digest`] as `program`).
///
/// The statements, levels and copies of the program are numbered in the order the
/// recipe made them, and barriers named so (`Y3`): a nest's numbers move with what the
/// nests before it made. The key numbers the kernel's own in their order instead
/// ([`Local`]), so that a kernel a variant leaves alone keeps its key when another nest
/// changes; its code is kept with its statements numbered so too ([`Local::ir`]). Every field of what the
/// key describes is written (the destructuring fails to compile when one is added).
pub fn kernel_source(
    t: &Transformed,
    program: u64,
    k: usize,
    positions: &[Vec<usize>],
    width: usize,
) -> String {
    let local = Local::of(t, k);
    let Kernel {
        name,
        blocks,
        threads,
        statements,
        host_levels,
        sizes,
        reductions,
        min_blocks,
    } = &t.kernels[k];
    let mut key = String::new();
    let _ = writeln!(key, "program {program:x} width {width}\nkernel {k} {name}");
    let _ = writeln!(key, "blocks {}", local.levels_of(blocks));
    for ThreadDim {
        name,
        per_statement,
        size,
        kind,
    } in threads
    {
        let per: Vec<String> = (per_statement.iter())
            .map(|(s, l)| format!("{} {}", local.statement(*s), local.level(*l)))
            .collect();
        let kind = match kind {
            ThreadKind::TilePoint { control } => format!("tile point of {}", local.level(*control)),
            other => format!("{other:?}"),
        };
        let _ = writeln!(key, "thread {name} {per:?} {size} {kind}");
    }
    let _ = writeln!(key, "statements {}", statements.len());
    let _ = writeln!(key, "host levels {}", local.levels_of(host_levels));
    let _ = writeln!(key, "sizes {sizes:?} min blocks {min_blocks:?}");
    for Reduction {
        array,
        statement,
        op,
        partial,
        per_thread,
    } in reductions
    {
        let statement = local.statement(*statement);
        let _ = writeln!(
            key,
            "reduction {array:?} {statement} {op:?} {partial} {per_thread}"
        );
    }
    for (p, &s) in statements.iter().enumerate() {
        let TStatement {
            name,
            kind,
            iterators,
            domain,
            levels,
            order,
            bindings,
        } = &t.statements[s];
        // A barrier's name is its number among the program's: its place in the kernel.
        let (name, domain) = match kind {
            StmtKind::Sync => {
                let own = format!("Y_{p}");
                (
                    own.clone(),
                    domain.replacen(&format!("{name}["), &format!("{own}["), 1),
                )
            }
            _ => (name.clone(), domain.clone()),
        };
        let kind = match kind {
            StmtKind::CopyIn(c) => format!("copy in {}", local.copy(*c)),
            StmtKind::CopyOut(c) => format!("copy out {}", local.copy(*c)),
            other => format!("{other:?}"),
        };
        let levels: Vec<String> = (levels.iter())
            .map(|(l, v)| format!("{} = {v}", local.level(*l)))
            .collect();
        let _ = writeln!(
            key,
            "statement s{p} at {:?}: {name} {kind} {iterators:?} {domain} {levels:?} {order:?} {bindings:?}",
            positions[s]
        );
    }
    for (p, &l) in local.levels.iter().enumerate() {
        let Level {
            name,
            tile,
            unroll,
            prefetch,
        } = &t.levels[l];
        let tile = tile.map(
            |Tile {
                 control,
                 size,
                 outside,
             }| format!("{} {size} {outside}", local.level(control)),
        );
        let _ = writeln!(key, "level l{p}: {name} {tile:?} {unroll} {prefetch}");
    }
    for (p, &c) in local.copies.iter().enumerate() {
        let DataCopy {
            array,
            memory,
            temp,
            sizes,
            strides,
            dims,
            kernel,
            fixed_names,
            offsets,
            rewrites,
            width,
            prefix,
            double,
            asynchronous,
            boxed,
        } = &t.copies[c];
        let _ = writeln!(
            key,
            "copy c{p}: {array:?} {memory:?} {temp} {sizes:?} {strides:?} {dims:?} {kernel} {fixed_names:?} {offsets:?} {rewrites:?} {width} {} {double:?} {asynchronous}",
            local.levels_of(prefix)
        );
        for BoxCopy {
            domain,
            levels,
            bindings,
            per,
            dims,
            extents,
            clips,
            coordinates,
            idle,
            nonnegative,
        } in boxed
        {
            let _ = writeln!(
                key,
                "  box {domain} {} {bindings:?} {per} {dims:?} {extents:?} {clips:?} {coordinates:?} {idle:?} {nonnegative:?}",
                local.levels_of(levels)
            );
        }
    }
    // Where the arrays the kernel reads and writes are placed (the emulator reads them).
    let arrays: Vec<ArrayId> = (statements.iter())
        .flat_map(|&s| match t.statements[s].kind {
            StmtKind::Compute(id) => {
                let st = &t.program.statements[id];
                (std::iter::once(&st.write).chain(&st.reads))
                    .map(|a| t.program.accesses[*a].array)
                    .collect()
            }
            StmtKind::CopyIn(c) | StmtKind::CopyOut(c) => vec![t.copies[c].array],
            StmtKind::Sync => Vec::new(),
        })
        .collect();
    let placements: Vec<_> = (t.placements.iter())
        .filter(|(a, _)| arrays.contains(a))
        .collect();
    let _ = writeln!(key, "placements {placements:?}");
    // The names the kernel's variables took, clear of every name of the program.
    let names = super::kernel_names(t, &t.kernels[k]);
    let _ = write!(
        key,
        "names {:?} {:?} {:?}",
        names.host, names.blocks, names.threads
    );
    key
}

/// Kernel `k`'s code and the warnings generating it gave: kept from an earlier program
/// with the same key (`source`, [`kernel_source`]), its statements renumbered as the
/// kernel's are in `t` ([`renumbered`]), else what `build` makes of the key. Code that
/// names a statement not the kernel's is not kept.
pub fn kept(
    t: &Transformed,
    k: usize,
    source: String,
    build: impl FnOnce(String) -> Result<(KernelIr, Vec<String>), IslError>,
) -> Result<(Arc<KernelIr>, Vec<String>), IslError> {
    let now = &t.kernels[k].statements;
    let kept = KERNELS.get_or(source.clone(), || {
        let (mut ir, w) = build(source).map_err(NotKept::Failed)?;
        let mut own = true;
        each_statement(&mut ir, &mut |s| own &= now.contains(s));
        match own {
            true => Ok((Arc::new(ir), now.clone(), w)),
            false => Err(NotKept::Named(Box::new(ir), w)),
        }
    });
    match kept {
        Ok((ir, then, w)) if then == *now => Ok((ir, w)),
        Ok((ir, then, w)) => {
            let ir = renumbered(&ir, &then, now).expect("kept code names the kernel's statements");
            Ok((Arc::new(ir), w))
        }
        Err(NotKept::Named(ir, w)) => Ok((Arc::new(*ir), w)),
        Err(NotKept::Failed(e)) => Err(e),
    }
}

/// The kernels generated in this process, by what they were generated from, with the
/// kernel's statements as they were numbered then and the warnings generating it gave.
static KERNELS: Memo<(Arc<KernelIr>, Vec<usize>, Vec<String>)> = Memo::new(1024);

/// A kernel's code [`KERNELS`] does not keep: generating it failed, or it names a
/// statement that is not the kernel's.
enum NotKept {
    Failed(IslError),
    Named(Box<KernelIr>, Vec<String>),
}

/// `ir`, whose kernel's statements were numbered `then`, with them numbered `now` (the
/// same statements in the same order); `None` where it names another.
fn renumbered(ir: &KernelIr, then: &[usize], now: &[usize]) -> Option<KernelIr> {
    let mut out = ir.clone();
    let mut all = true;
    each_statement(&mut out, &mut |s| match then
        .iter()
        .position(|x| x == s)
        .and_then(|p| now.get(p))
    {
        Some(x) => *s = *x,
        None => all = false,
    });
    all.then_some(out)
}

/// The kernel's own statements, levels and copies in the program's order, numbered
/// from 0 for [`kernel_source`]; a number of another's is written as the program's
/// (`L12`), which no local one is.
struct Local {
    statements: Vec<usize>,
    levels: Vec<LevelId>,
    copies: Vec<usize>,
}

impl Local {
    fn of(t: &Transformed, k: usize) -> Local {
        Local {
            statements: t.kernels[k].statements.clone(),
            levels: levels(t, k).into_iter().collect(),
            copies: (t.copies.iter().enumerate())
                .filter(|(_, c)| c.kernel == k)
                .map(|(c, _)| c)
                .collect(),
        }
    }

    fn statement(&self, s: usize) -> String {
        match self.statements.iter().position(|x| *x == s) {
            Some(p) => format!("s{p}"),
            None => format!("S{s}"),
        }
    }

    fn level(&self, l: LevelId) -> String {
        match self.levels.iter().position(|x| *x == l) {
            Some(p) => format!("l{p}"),
            None => format!("L{l}"),
        }
    }

    fn levels_of(&self, ls: &[LevelId]) -> String {
        let all: Vec<String> = ls.iter().map(|l| self.level(*l)).collect();
        all.join(" ")
    }

    fn copy(&self, c: usize) -> String {
        match self.copies.iter().position(|x| *x == c) {
            Some(p) => format!("c{p}"),
            None => format!("C{c}"),
        }
    }
}

/// Calls `f` with the statement of each instance of `ir` (its body's and its
/// reductions' targets').
fn each_statement(ir: &mut KernelIr, f: &mut dyn FnMut(&mut usize)) {
    fn visit(nodes: &mut [Node], f: &mut dyn FnMut(&mut usize)) {
        for n in nodes {
            match n {
                Node::For { body, .. } => visit(body, f),
                Node::If {
                    then_branch,
                    else_branch,
                    ..
                } => {
                    visit(then_branch, f);
                    visit(else_branch.as_deref_mut().unwrap_or(&mut []), f);
                }
                Node::Instance { statement, .. } => f(statement),
                Node::Launch { .. } => {}
            }
        }
    }
    visit(&mut ir.body, f);
    for r in &mut ir.reductions {
        visit(&mut r.target, f);
    }
}

/// The levels kernel `k` names: its statements', its block, thread and host levels, and
/// their tiles' control levels.
fn levels(t: &Transformed, k: usize) -> BTreeSet<LevelId> {
    let kernel = &t.kernels[k];
    let mut found: BTreeSet<LevelId> = kernel
        .statements
        .iter()
        .flat_map(|&s| t.statements[s].levels.iter().map(|(l, _)| *l))
        .chain(kernel.hardware_levels())
        .chain(kernel.host_levels.iter().copied())
        .collect();
    loop {
        let more: BTreeSet<LevelId> = found
            .iter()
            .filter_map(|&l| t.levels[l].tile.map(|tile| tile.control))
            .filter(|l| !found.contains(l))
            .collect();
        if more.is_empty() {
            return found;
        }
        found.extend(more);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two nests; the recipe tiles the second one and the first as `first` says.
    fn generated(first: &str) -> (Transformed, crate::codegen::ir::Generated) {
        let mut p = crate::poly::lowered(
            "void f(float A[64][64], float B[64][64], float C[64][64], float D[64][64]) {
               for (int i = 0; i < 64; i++)
                 for (int j = 0; j < 64; j++)
                   A[i][j] = D[i][j] * 2;
               for (int i = 0; i < 64; i++)
                 for (int j = 0; j < 64; j++)
                   B[i][j] = C[j][i] + 1;
             }",
        );
        let deps = crate::deps::analyze(&mut p).unwrap();
        let recipe = format!(
            "{first}\n\
             tile_by_index(1, {{\"i\", \"j\"}}, {{16, 16}}, {{l1_control=\"ii1\", l2_control=\"jj1\"}}, {{\"ii1\", \"jj1\", \"i\", \"j\"}})\n\
             cudaize(1, \"second\", {{}}, {{block={{\"jj1\", \"ii1\"}}, thread={{\"j\", \"i\"}}}})\n\
             copy_to_shared(\"tx\", \"C\", 0)"
        );
        let t = crate::tune::interpret(&p, &deps, &Default::default(), &recipe).unwrap();
        let g = crate::codegen::generate(&t).unwrap();
        (t, g)
    }

    #[test]
    fn a_kernel_keeps_its_key_and_code_when_an_earlier_nest_makes_more() {
        // The first nest tiled along one loop, then along both with a copy: the second
        // nest's levels and copy statements get other numbers in the program.
        let (t1, g1) = generated(
            "tile_by_index(0, {\"i\"}, {16}, {l1_control=\"ii\"}, {\"ii\", \"i\", \"j\"})\n\
             cudaize(0, \"first\", {}, {block={\"ii\"}, thread={\"j\", \"i\"}})",
        );
        let (t2, g2) = generated(
            "tile_by_index(0, {\"i\", \"j\"}, {16, 16}, {l1_control=\"ii\", l2_control=\"jj\"}, {\"ii\", \"jj\", \"i\", \"j\"})\n\
             cudaize(0, \"first\", {}, {block={\"jj\", \"ii\"}, thread={\"j\", \"i\"}})\n\
             copy_to_shared(\"tx\", \"D\", 0)",
        );
        assert_ne!(t1.kernels[1].statements, t2.kernels[1].statements);
        assert_ne!(g1.kernels[0].source, g2.kernels[0].source);
        assert_eq!(g1.kernels[1].source, g2.kernels[1].source);
        // The second nest's code, kept from the first program, names the second's
        // statements.
        let mut named = Vec::new();
        each_statement(&mut (*g2.kernels[1]).clone(), &mut |s| named.push(*s));
        assert!(!named.is_empty());
        assert!(named.iter().all(|s| t2.kernels[1].statements.contains(s)));
        let (then, now) = (&t1.kernels[1].statements, &t2.kernels[1].statements);
        let moved = renumbered(&g1.kernels[1], then, now).unwrap();
        assert_eq!(
            format!("{:?}", moved.body),
            format!("{:?}", g2.kernels[1].body)
        );
    }
}
