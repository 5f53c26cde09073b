//! `reduce={...}` in a `cudaize` mapping: the updates `x += e` (`x -= e`, `x = x + e`,
//! `x = min(x, e)`, `x = max(x, e)`) of a listed variable may run in different threads and
//! blocks of one launch. Each thread accumulates its instances into a private partial
//! result, the block combines its threads' partial results, and one thread per block
//! folds the block's result into the variable with an atomic operation (codegen and the
//! CUDA writer make that code; this module decides what is legal and records it).
//!
//! Legal when the dependences that would cross threads or blocks are exactly those of one
//! update statement on the variable (checked in [`super::cudaize`]), no other statement of
//! the kernel touches the variable, and each thread updates one element: the same for all
//! the threads of a block (it may depend on the block and host loops), or one that
//! depends on the thread index (a column sum split over blocks of rows: then each thread
//! folds its own partial result into its element atomically, with no combining in the
//! block). An element that changes with a loop inside the thread is refused, since each
//! thread keeps one partial result per variable.

use super::cudaize::{coordinate_values, mapping_text, Kernel};
use super::{unroll, StmtKind, TResult, TransformError, Transformed};
use crate::deps::Dependence;
use crate::frontend::ast::ScalarType;
use crate::poly::isl::{Ctx, Map, Set};
use crate::poly::{ArrayId, ArrayKind, ReductionOp, StatementId};

/// A variable whose updates a kernel splits across its threads and blocks.
#[derive(Clone, Debug)]
pub struct Reduction {
    pub array: ArrayId,
    /// The (transformed) statement that updates it.
    pub statement: usize,
    /// How the partial results combine: `Add` (also for `-=`), `Min` or `Max`.
    pub op: ReductionOp,
    /// The name of each thread's partial result.
    pub partial: String,
    /// The element depends on the thread index: each thread folds its partial result into
    /// its element itself, instead of the block combining its threads' results.
    pub per_thread: bool,
}

/// The array that dependence `d` accumulates into, when `d` links two instances of one
/// update statement through the element it updates (a reduction dependence).
pub fn reduction_dependence(t: &Transformed, d: &Dependence) -> Option<ArrayId> {
    if d.source != d.sink {
        return None;
    }
    let st = &t.program.statements[d.source];
    let update = st.update?;
    let own = [update.read, st.write];
    (own.contains(&d.source_access) && own.contains(&d.sink_access)).then_some(d.array)
}

/// Whether read `r` of source statement `id` never reads an element that the statement's
/// update writes in the same launch of `kernel` (the loops it keeps on the host at the
/// same values): `x[i] -= L[i][j] * x[j]` over `j < i`, with `i` on the host. Then the
/// threads' partial results are the only pending writes, and the read sees what the C
/// sees.
fn reads_apart(t: &Transformed, kernel: &Kernel, id: StatementId, r: usize) -> bool {
    let p = &t.program;
    let st = &p.statements[id];
    // Each host loop must be one of the statement's source loops (not a tile of one).
    let host: Vec<&str> = kernel
        .host_levels
        .iter()
        .map(|l| t.levels[*l].name.as_str())
        .collect();
    let fixed: Vec<usize> = (0..st.loops.len())
        .filter(|&k| host.contains(&p.loops[st.loops[k]].iterator.as_str()))
        .collect();
    if fixed.len() != host.len() {
        return false;
    }
    let ctx = Ctx::new();
    let apart = || -> Result<bool, crate::poly::isl::IslError> {
        let write = Map::parse(&ctx, &p.access_text(st.write, false))?;
        let read = Map::parse(&ctx, &p.access_text(r, false))?;
        // Pairs of instances, the first writing what the second reads.
        let pairs = write.apply_range(&read.reverse()?)?;
        let dims: Vec<String> = (0..st.loops.len()).map(|k| format!("d{k}")).collect();
        let mut same: Vec<String> = fixed.iter().map(|k| format!("d{k} = 0")).collect();
        same.push("0 = 0".into());
        // The differences live in the statement's space (`S1[d0, d1]`).
        let name = &st.name;
        let launch = Set::parse(
            &ctx,
            &format!(
                "{}{{ {name}[{}] : {} }}",
                p.params_prefix(),
                dims.join(", "),
                same.join(" and ")
            ),
        )?;
        pairs.deltas()?.intersect(&launch)?.is_empty()
    };
    apart().unwrap_or(false)
}

/// Checks the variables `names` of `reduce={...}` for `kernel` and records them.
pub fn reductions(t: &Transformed, kernel: &Kernel, names: &[String]) -> TResult<Vec<Reduction>> {
    let p = &t.program;
    let mut out: Vec<Reduction> = Vec::new();
    // The kernel's source statements: (transformed index, source id).
    let statements: Vec<(usize, StatementId)> = kernel
        .statements
        .iter()
        .filter_map(|s| match t.statements[*s].kind {
            StmtKind::Compute(id) => Some((*s, id)),
            _ => None,
        })
        .collect();
    let line = |id: StatementId| p.statements[id].line;
    for name in names {
        let Some(a) = p.arrays.iter().position(|x| x.name == *name) else {
            let mut written: Vec<&str> = statements
                .iter()
                .map(|(_, id)| {
                    p.arrays[p.accesses[p.statements[*id].write].array]
                        .name
                        .as_str()
                })
                .collect();
            written.dedup();
            return Err(
                TransformError::new(format!("there is no variable named `{name}`"))
                    .note(format!("the kernel writes: {}", written.join(", ")))
                    .hint("list in `reduce=` the variables that the kernel's updates (`x += e`) accumulate into"),
            );
        };
        if out.iter().any(|r| r.array == a) {
            return Err(
                TransformError::new(format!("`{name}` is listed twice in `reduce=`"))
                    .hint("list each variable once"),
            );
        }
        let not_reduced = |why: String| {
            TransformError::new(format!("`{name}` is not reduced in this kernel: {why}"))
                .hint("list in `reduce=` only variables that one update statement of the kernel (`x += e`, `x = x + e`) accumulates into")
        };
        if matches!(p.arrays[a].kind, ArrayKind::Private { .. }) {
            return Err(not_reduced(format!(
                "`{name}` is declared inside the loops, so every iteration has its own"
            )));
        }
        let uses = |id: StatementId| {
            let st = &p.statements[id];
            std::iter::once(&st.write)
                .chain(&st.reads)
                .any(|x| p.accesses[*x].array == a)
        };
        let writers: Vec<(usize, StatementId)> = statements
            .iter()
            .copied()
            .filter(|(_, id)| p.accesses[p.statements[*id].write].array == a)
            .collect();
        let (s, id) = match writers.as_slice() {
            [] => return Err(not_reduced("no statement of the kernel writes it".into())),
            [one] => *one,
            several => {
                let lines: Vec<String> = several
                    .iter()
                    .map(|(_, id)| line(*id).to_string())
                    .collect();
                return Err(not_reduced(format!(
                    "{} statements of the kernel write it (lines {})",
                    several.len(),
                    lines.join(", ")
                )));
            }
        };
        let st = &p.statements[id];
        let Some(update) = st.update else {
            return Err(not_reduced(format!(
                "line {} assigns it (`{}`) instead of updating it",
                st.line, st.text
            )));
        };
        if let Some((_, other)) = statements.iter().find(|(x, o)| *x != s && uses(*o)) {
            return Err(TransformError::new(format!(
                "`{name}` is also used at line {} (`{}`) in this kernel; with `reduce=`, only its update may touch it",
                line(*other),
                p.statements[*other].text
            ))
            .note("the kernel's threads hold partial results until the kernel ends, so no other statement of the kernel may read or write the variable")
            .hint("cudaize that statement in a kernel of its own (a serial kernel: `cudaize(k, \"name\", {}, {})`)"));
        }
        if let Some(r) = st.reads.iter().find(|r| {
            **r != update.read && p.accesses[**r].array == a && !reads_apart(t, kernel, id, **r)
        }) {
            return Err(TransformError::new(format!(
                "line {} reads `{}` besides the element it updates",
                st.line, p.accesses[*r].text
            ))
            .note("in one launch it can read an element that the threads are still summing")
            .hint("`reduce=` allows other reads of the variable only where they never touch an element the same launch updates (`x[j]` for `j < i` beside `x[i] -= e`)"));
        }
        if update.op == ReductionOp::Mul {
            return Err(TransformError::new(format!(
                "line {} multiplies (`{}`); gpucc splits only sums (`+=`, `-=`), minima and maxima across threads",
                st.line, st.text
            ))
            .note("CUDA has no atomic multiplication to combine the blocks' products")
            .hint("keep the product loop sequential inside each thread (no `reduce=`)"));
        }
        let elem = p.arrays[a].elem;
        if matches!(
            elem,
            ScalarType::Long
                | ScalarType::ULong
                | ScalarType::Char
                | ScalarType::UChar
                | ScalarType::Short
                | ScalarType::UShort
        ) {
            return Err(TransformError::new(format!(
                "`{name}` is a `{}`, for which CUDA has no atomic operations",
                elem.c_name()
            ))
            .hint("accumulate into an `int`, `unsigned`, `float` or `double`"));
        }
        let target = &p.accesses[st.write].text;
        let per_thread = match location(t, kernel, s)? {
            Location::PerBlock => false,
            Location::PerThread => true,
            Location::InsideThread => {
                return Err(TransformError::new(format!(
                    "`{target}`, the element that line {} updates, changes with a loop that runs inside each thread",
                    st.line
                ))
                .note("each thread keeps one partial result per variable, so the element must be the same for all of a thread's updates")
                .hint(format!("map the loops that choose the element of `{name}` to blocks or threads (or keep them on the host), and keep inside the threads only the summed loops")));
            }
        };
        let partial = unroll::fresh_name(t, &format!("{name}_part"));
        out.push(Reduction {
            array: a,
            statement: s,
            op: update.op,
            partial,
            per_thread,
        });
    }
    Ok(out)
}

/// The hint for a mapping refused because it splits the reduction dependence `d` into
/// `array`, listed in no `reduce=`.
pub fn missing_reduce_hint(
    t: &Transformed,
    kernel: &Kernel,
    d: &Dependence,
    array: ArrayId,
) -> TResult<String> {
    let p = &t.program;
    let name = &p.arrays[array].name;
    let st = &p.statements[d.source];
    if st.update.is_some_and(|u| u.op == ReductionOp::Mul) {
        return Ok(
            "a product cannot be split across threads: keep its loop sequential inside each thread"
                .into(),
        );
    }
    let s = super::legality::compute_statement(t, d.source);
    Ok(match location(t, kernel, s)? {
        Location::PerBlock | Location::PerThread => format!(
            "to split the reduction into `{name}` across threads and blocks, list it in `reduce=`: {}",
            mapping_text(t, kernel, Some(array))
        ),
        Location::InsideThread => format!(
            "the element of `{name}` that line {} updates changes with a loop inside each thread: keep the reduction loop sequential inside each thread, or map the loops that choose the element to blocks or threads and the reduction loop to threads or blocks with `reduce={{\"{name}\"}}`",
            st.line
        ),
    })
}

/// How the element an update statement writes varies over a kernel's instances.
enum Location {
    /// The same for all threads of a block (it may change with the block and host loops).
    PerBlock,
    /// It changes with the thread index.
    PerThread,
    /// It changes within one thread, with a loop the thread runs.
    InsideThread,
}

fn location(t: &Transformed, kernel: &Kernel, s: usize) -> TResult<Location> {
    let p = &t.program;
    let StmtKind::Compute(id) = t.statements[s].kind else {
        panic!("a reduction is the update of a source statement");
    };
    let write = &p.accesses[p.statements[id].write];
    let coords = coordinate_values(t, kernel, s).expect("the update is in the kernel");
    let per_block = kernel.host_levels.len() + kernel.blocks.len();
    let (nc, nl) = (coords.len(), write.subscripts.len());
    if nl == 0 {
        return Ok(Location::PerBlock);
    }
    let cs: Vec<String> = (0..nc).map(|k| format!("__c{k}")).collect();
    let ls: Vec<String> = (0..nl).map(|k| format!("__l{k}")).collect();
    let mut conds: Vec<String> = cs
        .iter()
        .zip(&coords)
        .map(|(c, v)| format!("{c} = {v}"))
        .collect();
    for (sub, l) in write.subscripts.iter().zip(&ls) {
        conds.push(sub.equals_text(l));
    }
    let mut dims = cs;
    dims.extend(ls);
    let ctx = Ctx::new();
    let values = Map::parse(
        &ctx,
        &format!(
            "{}{{ {} -> [{}] : {} }}",
            t.params_prefix(),
            t.tuple(s),
            dims.join(", "),
            conds.join(" and ")
        ),
    )?
    .intersect_domain(&Set::parse(&ctx, &t.statements[s].domain)?)?
    .range()?;
    // Differences between any two instances' coordinates and elements.
    let n = dims.len();
    let xs: Vec<String> = (0..n).map(|k| format!("x{k}")).collect();
    let ys: Vec<String> = (0..n).map(|k| format!("y{k}")).collect();
    let deltas = Map::parse(
        &ctx,
        &format!(
            "{}{{ [{}] -> [{}] }}",
            t.params_prefix(),
            xs.join(", "),
            ys.join(", ")
        ),
    )?
    .intersect_domain(&values)?
    .intersect_range(&values)?
    .deltas()?;
    let moves: Vec<String> = (nc..n).map(|k| format!("d{k} < 0 or d{k} > 0")).collect();
    let differs_with_same = |same: usize| -> TResult<bool> {
        let mut conds: Vec<String> = (0..same).map(|k| format!("d{k} = 0")).collect();
        conds.push(format!("({})", moves.join(" or ")));
        let names: Vec<String> = (0..n).map(|k| format!("d{k}")).collect();
        let set = Set::parse(
            &ctx,
            &format!(
                "{}{{ [{}] : {} }}",
                t.params_prefix(),
                names.join(", "),
                conds.join(" and ")
            ),
        )?;
        Ok(!deltas.intersect(&set)?.is_empty()?)
    };
    Ok(if !differs_with_same(per_block)? {
        Location::PerBlock
    } else if differs_with_same(nc)? {
        Location::InsideThread
    } else {
        Location::PerThread
    })
}
