//! `cudaize`: makes a kernel of the statements inside the named block loops, mapping up to
//! two loops to the grid (`blockIdx.x`, `.y`) and up to three to the threads of a block
//! (`threadIdx.x`, `.y`, `.z`), in the order listed. The loops outside the first block
//! loop stay on the host (a time loop becomes a loop of launches). Legal only when no
//! dependence links instances that would run in different blocks, or in different
//! threads, of one launch, except the updates of a variable listed in `reduce=`, whose
//! partial results the kernel combines ([`super::reduction`]). Without block and thread
//! loops, `cudaize` makes a serial kernel ([`super::serial`]).

use super::legality::{dependence_verdicts, describe};
use super::reduction::{self, Reduction};
use super::{unroll, LevelId, TResult, TransformError, Transformed};
use crate::poly::isl::{Ctx, Set};
use crate::poly::memo::Memo;
use crate::poly::ArrayId;

/// How a thread index is computed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ThreadKind {
    /// The point loop of a tile whose control loop runs on the host or over blocks: the
    /// kernel variable is the loop's value, `size * control + threadIdx`.
    TilePoint { control: LevelId },
    /// A loop with a constant trip count: the kernel variable is its value,
    /// `first + threadIdx`.
    Whole,
    /// The point loop of a tile whose control loop runs inside the kernel: the kernel
    /// variable is the thread index, `value mod size`.
    Coordinate,
}

/// A loop mapped to a thread index.
#[derive(Clone, Debug)]
pub struct ThreadDim {
    /// The name given in `thread={...}`.
    pub name: String,
    /// The level it is in each compute statement of the kernel.
    pub per_statement: Vec<(usize, LevelId)>,
    /// Threads along this index (`blockDim`).
    pub size: i64,
    pub kind: ThreadKind,
}

/// A kernel: statements run by a grid of thread blocks.
#[derive(Clone, Debug)]
pub struct Kernel {
    pub name: String,
    /// Levels mapped to `blockIdx.x` and `.y`.
    pub blocks: Vec<LevelId>,
    /// Loops mapped to `threadIdx.x`, `.y`, `.z`.
    pub threads: Vec<ThreadDim>,
    /// Its statements (transformed statement indices): source statements, then the
    /// copies and barriers added inside it.
    pub statements: Vec<usize>,
    /// The loops around it that stay on the host.
    pub host_levels: Vec<LevelId>,
    /// Array sizes given to `cudaize` (C expressions), for arrays whose size the
    /// declaration does not say.
    pub sizes: Vec<(ArrayId, String)>,
    /// The variables whose updates are split across the threads and blocks (`reduce=`).
    pub reductions: Vec<Reduction>,
    /// Blocks that should reside on an SM at once (`launch_bounds`): written as
    /// `__launch_bounds__(threads, n)`, which caps ptxas's registers per thread.
    pub min_blocks: Option<i64>,
}

impl Kernel {
    /// A kernel run by one thread of one block, in program order (no block or thread
    /// loops).
    pub fn is_serial(&self) -> bool {
        self.blocks.is_empty() && self.threads.is_empty()
    }

    /// Every level mapped to a block or thread index.
    pub fn hardware_levels(&self) -> Vec<LevelId> {
        let mut out = self.blocks.clone();
        for t in &self.threads {
            out.extend(t.per_statement.iter().map(|(_, l)| *l));
        }
        out
    }

    /// The level a statement has for thread index `dim`.
    pub fn thread_level(&self, dim: usize, s: usize) -> Option<LevelId> {
        self.threads[dim]
            .per_statement
            .iter()
            .find(|(x, _)| *x == s)
            .map(|(_, l)| *l)
    }

    /// Threads per block.
    pub fn block_size(&self) -> i64 {
        self.threads.iter().map(|t| t.size).product()
    }
}

/// What `cudaize` was asked.
pub struct Request<'a> {
    pub name: &'a str,
    pub blocks: &'a [String],
    pub threads: &'a [String],
    /// The variables named in `reduce={...}`.
    pub reductions: &'a [String],
    pub sizes: Vec<(ArrayId, String)>,
    /// Restrict to the loops around this source statement.
    pub statement: Option<usize>,
}

/// `launch_bounds("k", n)`: kernel `k` is compiled so that `n` of its blocks fit on an
/// SM at once as far as registers go (`__launch_bounds__(threads, n)`: ptxas keeps each
/// thread within `registers per SM / (threads x n)` registers, spilling what does not
/// fit).
pub fn launch_bounds(t: &mut Transformed, name: &str, blocks: i64) -> TResult<()> {
    let Some(k) = t.kernels.iter().position(|k| k.name == name) else {
        let names: Vec<String> = t.kernels.iter().map(|k| format!("`{}`", k.name)).collect();
        return Err(
            TransformError::new(format!("there is no kernel `{name}`")).hint(if names.is_empty() {
                "put launch_bounds after the `cudaize` that makes the kernel".to_string()
            } else {
                format!("the kernels are {}", names.join(", "))
            }),
        );
    };
    if t.kernels[k].is_serial() {
        return Err(TransformError::new(format!(
            "kernel `{name}` is serial: one thread of one block runs it"
        ))
        .hint("launch bounds are for kernels with block and thread loops"));
    }
    if !(1..=32).contains(&blocks) {
        return Err(TransformError::new(format!(
            "{blocks} blocks per SM; an SM holds 1 to 32 blocks"
        ))
        .hint("2 asks ptxas for at most half the SM's registers per block"));
    }
    t.kernels[k].min_blocks = Some(blocks);
    Ok(())
}

pub fn cudaize(t: &mut Transformed, r: Request) -> TResult<()> {
    if r.blocks.len() > 2 {
        return Err(TransformError::new(format!(
            "{} block loops; a kernel maps at most 2 loops to blocks",
            r.blocks.len()
        ))
        .hint("tile or fuse loops so that at most two are mapped to `block`"));
    }
    if r.threads.len() > 3 {
        return Err(TransformError::new(format!(
            "{} thread loops; a kernel maps at most 3 loops to threads",
            r.threads.len()
        ))
        .hint("map at most three loops to `thread`"));
    }
    check_kernel_name(t, r.name)?;
    if r.blocks.is_empty() && r.threads.is_empty() {
        if !r.reductions.is_empty() {
            return Err(TransformError::new(
                "`reduce=` splits a reduction across threads, and this kernel has no block or thread loops",
            )
            .hint("map the reduction loop to threads (`thread={\"i\"}`), or drop `reduce=`: a serial kernel runs its updates in order"));
        }
        return super::serial::cudaize_serial(t, r.name, r.statement, r.sizes);
    }
    let candidates: Vec<usize> = match r.statement {
        Some(s) => vec![s],
        None => (0..t.statements.len())
            .filter(|s| t.kernel_of(*s).is_none())
            .collect(),
    };
    let mut blocks = Vec::new();
    for name in r.blocks {
        let level = unique_level(t, name, &candidates)?;
        if blocks.contains(&level) {
            return Err(
                TransformError::new(format!("`{name}` is listed twice")).hint("map each loop once")
            );
        }
        blocks.push(level);
    }
    // The kernel: every statement inside all block loops (or, without blocks, inside the
    // first thread loop).
    let region: Vec<usize> = if blocks.is_empty() {
        let first = unique_level(t, &r.threads[0], &candidates)?;
        t.statements_in(first)
    } else {
        (0..t.statements.len())
            .filter(|s| blocks.iter().all(|b| t.level_index(*s, *b).is_some()))
            .collect()
    };
    if let Some(s) = region.iter().find(|s| t.kernel_of(**s).is_some()) {
        let k = t.kernel_of(*s).expect("found above");
        return Err(TransformError::new(format!(
            "these loops are already in kernel `{}`",
            t.kernels[k].name
        ))
        .hint("cudaize each loop nest once"));
    }
    let host_levels = host_levels(t, &region, &blocks, r.threads)?;
    let mut threads = Vec::new();
    for name in r.threads {
        threads.push(thread_dim(t, &region, &blocks, &host_levels, name)?);
    }
    let mut kernel = Kernel {
        name: r.name.to_string(),
        blocks,
        threads,
        statements: region,
        host_levels,
        sizes: r.sizes,
        reductions: Vec::new(),
        min_blocks: None,
    };
    if kernel.block_size() > 1024 {
        let sizes: Vec<String> = kernel.threads.iter().map(|d| d.size.to_string()).collect();
        return Err(TransformError::new(format!(
            "{} threads per block ({}); CUDA allows at most 1024",
            kernel.block_size(),
            sizes.join(" x ")
        ))
        .hint("use smaller tiles for the thread loops"));
    }
    // CUDA's limits on blockDim.x, .y and .z (every compute capability since 2.0).
    for (d, (td, most)) in kernel.threads.iter().zip([1024, 1024, 64]).enumerate() {
        if td.size > most {
            return Err(TransformError::new(format!(
                "{} threads along {} (`{}`); CUDA allows at most {most}",
                td.size,
                ["x", "y", "z"][d],
                td.name
            ))
            .hint("use a smaller tile for this thread loop"));
        }
    }
    kernel.reductions = reduction::reductions(t, &kernel, r.reductions)?;
    check_parallel(t, &kernel)?;
    t.kernels.push(kernel);
    Ok(())
}

fn check_kernel_name(t: &Transformed, name: &str) -> TResult<()> {
    let valid = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(
            TransformError::new(format!("`{name}` is not a valid kernel name"))
                .hint("kernel names are C identifiers"),
        );
    }
    if t.kernels.iter().any(|k| k.name == name) || t.program.unit.function == name {
        return Err(
            TransformError::new(format!("the name `{name}` is already used"))
                .hint("give each kernel its own name"),
        );
    }
    Ok(())
}

/// The one level named `name` among the loops of `among`.
pub fn unique_level(t: &Transformed, name: &str, among: &[usize]) -> TResult<LevelId> {
    let found = t.levels_named(name, Some(among));
    match found.as_slice() {
        [l] => Ok(*l),
        [] => {
            let mut names: Vec<String> = Vec::new();
            for s in among {
                for (l, _) in &t.statements[*s].levels {
                    if !names.contains(&t.levels[*l].name) {
                        names.push(t.levels[*l].name.clone());
                    }
                }
            }
            Err(
                TransformError::new(format!("there is no loop named `{name}`"))
                    .note(if names.is_empty() {
                        "there are no loops".to_string()
                    } else {
                        format!("the loops are: {}", names.join(", "))
                    })
                    .hint(
                        "use the name of a loop index of the code, or a name a tile command gave",
                    ),
            )
        }
        several => {
            let places: Vec<String> = several.iter().map(|l| t.describe_level(*l)).collect();
            Err(TransformError::new(format!(
                "`{name}` names {} different loops: {}",
                several.len(),
                places.join(", ")
            ))
            .hint("give the statement number first to choose one, e.g. `cudaize(1, ...)`"))
        }
    }
}

/// The levels around the kernel that stay on the host: those before the first mapped
/// level, the same for every statement of the kernel.
fn host_levels(
    t: &Transformed,
    region: &[usize],
    blocks: &[LevelId],
    threads: &[String],
) -> TResult<Vec<LevelId>> {
    let mut host: Option<Vec<LevelId>> = None;
    for &s in region {
        let st = &t.statements[s];
        let first = st
            .levels
            .iter()
            .position(|(l, _)| blocks.contains(l) || threads.contains(&t.levels[*l].name))
            .unwrap_or(st.levels.len());
        let prefix: Vec<LevelId> = st.levels[..first].iter().map(|(l, _)| *l).collect();
        match &host {
            None => host = Some(prefix),
            Some(h) if *h == prefix => {}
            Some(_) => {
                return Err(TransformError::new("the block loops are not the outermost loops of the kernel in every statement")
                    .hint("permute the loops so that the block loops come first (after loops that stay on the host)"))
            }
        }
    }
    Ok(host.unwrap_or_default())
}

fn thread_dim(
    t: &Transformed,
    region: &[usize],
    blocks: &[LevelId],
    host: &[LevelId],
    name: &str,
) -> TResult<ThreadDim> {
    let mut per_statement = Vec::new();
    for &s in region {
        let found = t.levels_named(name, Some(&[s]));
        let Some(&level) = found.first() else {
            let line = t.source_line(s).unwrap_or(0);
            return Err(TransformError::new(format!(
                "the statement at line {line} is inside the kernel's block loops but not inside the thread loop `{name}`"
            ))
            .note("every thread would run it, and they would all write the same data")
            .hint("move the statement into the thread loops, or cudaize it in a kernel of its own"));
        };
        if blocks.contains(&level) {
            return Err(
                TransformError::new(format!("`{name}` is already mapped to blocks"))
                    .hint("map a loop to blocks or to threads, not both"),
            );
        }
        per_statement.push((s, level));
    }
    let (_, first) = per_statement[0];
    let tile = t.levels[first].tile;
    if per_statement.iter().any(|(_, l)| t.levels[*l].tile != tile) {
        return Err(TransformError::new(format!(
            "the loops named `{name}` are tiled differently in the kernel's statements"
        ))
        .hint("tile the loop once, before it is distributed"));
    }
    let on_host_or_blocks = |l: LevelId| blocks.contains(&l) || host.contains(&l);
    let (kind, size) = match tile {
        Some(tl) if on_host_or_blocks(tl.control) && !tl.outside => (
            ThreadKind::TilePoint {
                control: tl.control,
            },
            tl.size,
        ),
        Some(tl) => (ThreadKind::Coordinate, tl.size),
        None => {
            let mut outer: Vec<LevelId> = host.to_vec();
            outer.extend_from_slice(blocks);
            let size = unroll::extent_within(t, first, Some(&outer))?;
            match size {
                Some(n) => (ThreadKind::Whole, n.max(1)),
                None => {
                    return Err(TransformError::new(format!(
                        "the thread loop `{name}` has no constant trip count (it depends on the problem size)"
                    ))
                    .hint(format!("tile it and map the tile loop to threads: `tile_by_index({{\"{name}\"}}, {{16}}, {{l1_control=\"{name}{name}\"}}, ...)`")))
                }
            }
        }
    };
    Ok(ThreadDim {
        name: name.to_string(),
        per_statement,
        size,
        kind,
    })
}

/// isl text of the hardware coordinates of a compute statement of `kernel`: its host
/// loop values, block loop values and thread values.
pub fn coordinates_text(t: &Transformed, kernel: &Kernel, s: usize) -> Option<String> {
    let dims = coordinate_values(t, kernel, s)?;
    Some(format!(
        "{}{{ {} -> [{}] }}",
        t.params_prefix(),
        t.tuple(s),
        dims.join(", ")
    ))
}

/// The values (isl expressions over statement `s`'s iterators) of its host loops, block
/// loops and thread indices in `kernel`, in that order.
pub fn coordinate_values(t: &Transformed, kernel: &Kernel, s: usize) -> Option<Vec<String>> {
    if !kernel.statements.contains(&s) {
        return None;
    }
    let st = &t.statements[s];
    let value = |l: LevelId| {
        st.levels
            .iter()
            .find(|(x, _)| *x == l)
            .map(|(_, v)| v.to_string())
    };
    let mut dims: Vec<String> = Vec::new();
    for l in kernel.host_levels.iter().chain(&kernel.blocks) {
        dims.push(value(*l)?);
    }
    for (d, td) in kernel.threads.iter().enumerate() {
        let v = value(kernel.thread_level(d, s)?)?;
        dims.push(match td.kind {
            ThreadKind::Coordinate => format!("({v}) - {0}*floor(({v})/{0})", td.size),
            _ => v,
        });
    }
    Some(dims)
}

/// Which of a launch's blocks or threads a dependence would link (none, `blocks` or
/// `threads`), by its relation, its statements' coordinates and the launch's shape.
static ACROSS: Memo<Option<&'static str>> = Memo::new(4096);

/// No dependence may link instances in different blocks, or different threads, of one
/// launch.
fn check_parallel(t: &Transformed, kernel: &Kernel) -> TResult<()> {
    let ctx = Ctx::new();
    let nh = kernel.host_levels.len();
    let nb = kernel.blocks.len();
    let width = nh + nb + kernel.threads.len();
    let names: Vec<String> = (0..width).map(|k| format!("d{k}")).collect();
    let same_launch: Vec<String> = (0..nh).map(|k| format!("d{k} = 0")).collect();
    let differs = |range: std::ops::Range<usize>| -> String {
        let parts: Vec<String> = range.map(|k| format!("d{k} < 0 or d{k} > 0")).collect();
        if parts.is_empty() {
            "1 = 0".into()
        } else {
            parts.join(" or ")
        }
    };
    let set = |cond: String| -> TResult<Set> {
        let mut conds = same_launch.clone();
        conds.push(format!("({cond})"));
        Ok(Set::parse(
            &ctx,
            &format!(
                "{}{{ [{}] : {} }}",
                t.params_prefix(),
                names.join(", "),
                conds.join(" and ")
            ),
        )?)
    };
    let across_blocks = set(differs(nh..nh + nb))?;
    let across_threads = set(format!(
        "({}) and ({})",
        if nb == 0 {
            "0 = 0".into()
        } else {
            (nh..nh + nb)
                .map(|k| format!("d{k} = 0"))
                .collect::<Vec<_>>()
                .join(" and ")
        },
        differs(nh + nb..width)
    ))?;
    let verdicts = dependence_verdicts(
        t,
        &ctx,
        &|s| coordinates_text(t, kernel, s),
        &|_, _, _| true,
        (&ACROSS, &format!("{nh} {nb} {width}")),
        &|deltas| {
            Ok(if !deltas.intersect(&across_blocks)?.is_empty()? {
                Some("blocks")
            } else if !deltas.intersect(&across_threads)?.is_empty()? {
                Some("threads")
            } else {
                None
            })
        },
    )?;
    for (d, across) in verdicts {
        let reduced = reduction::reduction_dependence(t, d);
        if reduced.is_some_and(|a| kernel.reductions.iter().any(|r| r.array == a)) {
            // The kernel combines the threads' partial results of this update.
            continue;
        }
        let Some(what) = across else {
            continue;
        };
        let carried = d
            .carried_by
            .map(|l| format!(" (carried by `{}`)", t.program.loops[l].iterator))
            .unwrap_or_default();
        let error = TransformError::new(format!(
            "this mapping would run instances linked by {}{carried} in different {what}",
            describe(t, d)
        ));
        let hint = match reduced {
            Some(a) => reduction::missing_reduce_hint(t, kernel, d, a)?,
            None => "map only loops that carry no dependence to blocks and threads; keep the others sequential inside each thread".to_string(),
        };
        return Err(error.hint(hint));
    }
    Ok(())
}

/// The mapping as a recipe writes it, with `reduce` listing `extra` besides the kernel's
/// own: `{block={"ii"}, thread={"i"}, reduce={"sum"}}`.
pub fn mapping_text(t: &Transformed, kernel: &Kernel, extra: Option<ArrayId>) -> String {
    let quoted = |names: Vec<String>| -> String {
        names
            .iter()
            .map(|n| format!("\"{n}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let blocks = kernel
        .blocks
        .iter()
        .map(|l| t.levels[*l].name.clone())
        .collect();
    let threads = kernel.threads.iter().map(|d| d.name.clone()).collect();
    let mut reduce: Vec<String> = kernel
        .reductions
        .iter()
        .map(|r| t.program.arrays[r.array].name.clone())
        .collect();
    reduce.extend(extra.map(|a| t.program.arrays[a].name.clone()));
    let mut parts = Vec::new();
    if !kernel.blocks.is_empty() {
        parts.push(format!("block={{{}}}", quoted(blocks)));
    }
    if !kernel.threads.is_empty() {
        parts.push(format!("thread={{{}}}", quoted(threads)));
    }
    if !reduce.is_empty() {
        parts.push(format!("reduce={{{}}}", quoted(reduce)));
    }
    format!("{{{}}}", parts.join(", "))
}
