//! Codegen stage: a [`Transformed`] program → loops ([`Generated`]): the host code (the
//! loops that stay on the host around kernel launches) and each kernel's body, from isl's
//! AST generator.
//!
//! Entry point: [`generate`]. A kernel's body is generated with its host loop values,
//! block loop values and thread loop values as parameters (set from `blockIdx` and
//! `threadIdx` in the kernel's prologue), so isl writes only the loops each thread runs,
//! and guards the remainders of tiles that do not divide the iteration space.

mod copyloops;
mod divisions;
mod extras;
mod finals;
mod fulltiles;
pub mod guards;
mod host;
pub mod ir;
mod launch;
mod names;
mod pointloops;
pub mod prefetch;
mod privates;
mod reduction;
pub mod reuse;
mod scalars;
mod toir;
pub mod unroll;

pub use launch::MAX_GRID;
pub use names::{coordinate_name, kernel_names, level_variable, KernelNames};
pub use scalars::in_device_memory;

use crate::diag::{Diagnostic, Diagnostics};
use crate::poly::affine::isl_name;
use crate::poly::astbuild;
use crate::poly::isl::{Ctx, IslError, Map, Set, UnionMap};
use crate::poly::memo::Memo;
use crate::transform::cudaize::{Kernel, ThreadKind};
use crate::transform::{Hw, LevelId, StmtKind, Transformed};
use ir::{Generated, KernelIr, Node, PrologueVar, ReductionIr};
use launch::{block_ranges, prologue};
use toir::to_ir;

/// Generates the host code and the kernels of `t`.
pub fn generate(t: &Transformed) -> Result<Generated, Diagnostics> {
    check_all_in_kernels(t)?;
    privates::check(t)?;
    let ctx = Ctx::new();
    let generated = (|| -> Result<Generated, IslError> {
        let positions = t.positions();
        let width = 2 * t.depth() + 1;
        let host = host::host_code(t, &ctx, &positions, width)?;
        let mut warnings = Vec::new();
        let program = reuse::program_digest(t);
        let kernels = (0..t.kernels.len())
            .map(|k| {
                let source =
                    reuse::kernel_source(t, program, k, &positions, kernel_width(t, k, width));
                let (ir, kernel_warnings) = reuse::kept(t, k, source, |source| {
                    let mut w = Vec::new();
                    let ir = kernel_code(t, &ctx, k, &positions, width, &mut w)?;
                    Ok((KernelIr { source, ..ir }, w))
                })?;
                warnings.extend(kernel_warnings);
                Ok(ir)
            })
            .collect::<Result<_, IslError>>()?;
        Ok(Generated {
            host,
            kernels,
            device_scalars: scalars::device_scalars(t, &ctx)?,
            warnings,
            finals: finals::final_values(&t.program, &ctx)?,
        })
    })();
    let generated = generated.map_err(|e| vec![isl_failure(e)])?;
    check_grids(&generated)?;
    Ok(generated)
}

/// What codegen says when isl fails: the problem is too large for it, or a bug.
fn isl_failure(e: IslError) -> Diagnostic {
    if e.too_complex {
        Diagnostic::error_nowhere("the transformed loops are too complex for isl's code generator")
            .with_note(e.message)
            .with_hint(crate::poly::isl::too_complex_hint(
                "use simpler tile sizes or fewer transformations",
            ))
    } else {
        Diagnostic::bug(e.message)
    }
}

/// Refuses a launch with more blocks along a dimension than CUDA allows (after folding
/// `y` into `x`): it would fail at run time, or, where the count overflows, compute part
/// of the result.
fn check_grids(g: &Generated) -> Result<(), Diagnostics> {
    let mut diags = Vec::new();
    for k in &g.kernels {
        for (d, extent) in k.grid.iter().enumerate() {
            let Some((_, most)) = guards::interval(extent, &[]) else {
                continue;
            };
            if most > MAX_GRID[d] {
                let axis = ["x", "y", "z"][d];
                diags.push(
                    Diagnostic::error_nowhere(format!(
                        "kernel `{}` needs {most} blocks along {axis}; CUDA allows at most {}",
                        k.name, MAX_GRID[d]
                    ))
                    .with_hint("use larger tiles for the block loops, or split the loop nest"),
                );
            }
        }
    }
    if diags.is_empty() {
        Ok(())
    } else {
        Err(diags)
    }
}

/// The transformed loops of the source statements as sequential code (no kernels, no
/// copies): what `print_code` shows.
pub fn sequential(t: &Transformed) -> Result<Vec<Node>, Diagnostics> {
    let ctx = Ctx::new();
    let built = (|| -> Result<Vec<Node>, IslError> {
        let positions = t.positions();
        let width = 2 * t.depth() + 1;
        let mut schedule = Vec::new();
        for (s, st) in t.statements.iter().enumerate() {
            if !matches!(st.kind, StmtKind::Compute(_)) {
                continue;
            }
            let map = Map::parse(&ctx, &t.schedule_text(s, &positions[s], width))?
                .intersect_domain(&Set::parse(&ctx, &st.domain)?)?;
            schedule.push(map);
        }
        let schedule = UnionMap::of_maps(&ctx, &schedule)?;
        let context = Set::parse(&ctx, &format!("{}{{ : }}", prefix(&t.program.params)))?;
        let ast = astbuild::build_ast(&ctx, &context, &schedule, None)?;
        Ok(to_ir(t, &ast, &mut Vec::new()))
    })();
    built.map_err(|e| vec![Diagnostic::bug(e.message)])
}

/// Every source statement must run in a kernel.
fn check_all_in_kernels(t: &Transformed) -> Result<(), Diagnostics> {
    let source = t.program.unit.source;
    let diags: Diagnostics = t
        .statements
        .iter()
        .enumerate()
        .filter(|(s, _)| t.kernel_of(*s).is_none())
        .filter_map(|(_, st)| match st.kind {
            StmtKind::Compute(id) => Some(
                Diagnostic::error(
                    source,
                    t.program.statements[id].span,
                    "this statement is not in any kernel",
                )
                .with_label("no `cudaize` puts it in a kernel")
                .with_hint(format!(
                    "add a `cudaize` command whose block loops enclose this statement, or a serial kernel for it: `cudaize({id}, \"name\", {{}}, {{}})`"
                )),
            ),
            _ => None,
        })
        .collect();
    if diags.is_empty() {
        Ok(())
    } else {
        Err(diags)
    }
}

/// `[N, t, ii] -> `
fn prefix(names: &[String]) -> String {
    if names.is_empty() {
        String::new()
    } else {
        format!("[{}] -> ", names.join(", "))
    }
}

/// The isl text of level `l`'s value in statement `s`.
fn value_of(t: &Transformed, s: usize, l: LevelId) -> String {
    t.statements[s]
        .levels
        .iter()
        .find(|(x, _)| *x == l)
        .map(|(_, v)| v.to_string())
        .expect("the statement has the level")
}

/// The length of kernel `k`'s time vectors: as long as its deepest statement needs, of
/// the program's `width`. The program's deeper nests would only pad them with zeros,
/// each a level isl's AST generation works through for every statement (two barriers: 37
/// ms with ten such levels, 13 ms without); the dimensions kept keep their numbers
/// (`c{k}`, see `level_of`).
fn kernel_width(t: &Transformed, k: usize, width: usize) -> usize {
    t.kernels[k]
        .statements
        .iter()
        .map(|&s| 2 * t.statements[s].levels.len() + 1)
        .max()
        .map_or(width, |w| w.min(width))
}

fn kernel_code(
    t: &Transformed,
    ctx: &Ctx,
    k: usize,
    positions: &[Vec<usize>],
    width: usize,
    warnings: &mut Vec<String>,
) -> Result<KernelIr, IslError> {
    let kernel = &t.kernels[k];
    let width = kernel_width(t, k, width);
    let names = kernel_names(t, kernel);
    let mut params: Vec<String> = t.program.params.clone();
    params.extend(names.host.iter().cloned());
    params.extend(names.blocks.iter().cloned());
    params.extend(names.threads.iter().cloned());
    let (prologue, grid) = prologue(t, ctx, kernel, &names)?;
    let (context, block_ranges) = launch_context(t, ctx, kernel, &names, &params, &prologue)?;
    let context_text = context.to_string();
    let mut schedule = Vec::new();
    let mut expansions = extras::Expansions::new(copyloops::IslOrder::of(t, &names));
    for &s in &kernel.statements {
        let st = &t.statements[s];
        // A copy whose loops gpucc writes: isl places one instance per value of the
        // loops around it, made per its fixed names ([`copyloops`]).
        let placed = copyloops::placed(t, s);
        // The points of a tile that gpucc writes: isl places the statement at the
        // first point of each tile ([`pointloops`]).
        let points = pointloops::points(t, s);
        let mut conds = Vec::new();
        for dim in points.iter().flat_map(|p| &p.dims) {
            let x = isl_name(&st.iterators[dim.iterator]);
            conds.push(format!("({x}) mod {} = 0", dim.size));
        }
        if matches!(st.kind, StmtKind::Compute(_)) {
            for (l, name) in kernel
                .host_levels
                .iter()
                .zip(&names.host)
                .chain(kernel.blocks.iter().zip(&names.blocks))
            {
                conds.push(format!("{} = {name}", value_of(t, s, *l)));
            }
            for d in 0..kernel.threads.len() {
                if let Some(cond) = thread_constraint(t, kernel, s, d, &names.threads[d]) {
                    conds.push(cond);
                }
            }
        } else {
            // Copies and barriers say which kernel variables their instances fix.
            for (hw, value) in &st.bindings {
                if placed.as_ref().is_some_and(|p| p.shared) && matches!(hw, Hw::Thread(_)) {
                    continue;
                }
                let name = match hw {
                    Hw::Host(k) => &names.host[*k],
                    Hw::Block(d) => &names.blocks[*d],
                    Hw::Thread(d) => &names.threads[*d],
                };
                conds.push(format!("{value} = {name}"));
            }
        }
        // A value a condition gives a kernel variable is that variable, in the schedule's
        // dimensions and in the copy indices: isl need not divide to find it
        // (`floor((floor((i)/4))/16)` is `ii`, `i - 64*floor((floor((i)/4))/16)` is
        // `i - 64*ii`).
        let mut named: Vec<(&str, &str)> = conds
            .iter()
            .filter_map(|c| c.rsplit_once(" = "))
            .filter(|(value, name)| {
                value.starts_with("floor((")
                    && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            })
            .collect();
        named.sort_by_key(|(value, _)| std::cmp::Reverse(value.len()));
        let by_name = |text: String| {
            named
                .iter()
                .fold(text, |text, (value, name)| text.replace(value, name))
        };
        let mut dims: Vec<String> = t
            .schedule_dims(s, &positions[s], width)
            .into_iter()
            .map(by_name)
            .collect();
        let tuple = match &placed {
            Some(p) => {
                for d in &mut dims[2 * p.levels + 1..] {
                    *d = "0".into();
                }
                let names: Vec<String> = (st.iterators[..p.iterators].iter())
                    .map(|n| isl_name(n))
                    .collect();
                format!("{}[{}]", st.name, names.join(", "))
            }
            None => t.tuple(s),
        };
        if let Some(p) = &points {
            for d in &mut dims[2 * p.levels + 1..] {
                *d = "0".into();
            }
        }
        let sched = format!(
            "{}{{ {} -> [{}] }}",
            prefix(&params),
            tuple,
            dims.join(", ")
        );
        let mut domain = Set::parse(ctx, placed.as_ref().map_or(&st.domain, |p| p.per))?;
        for dim in points
            .iter()
            .flat_map(|p| &p.dims)
            .filter(|d| d.unguarded())
        {
            let first = format!(
                "{}{{ {} : {} >= {} }}",
                prefix(&params),
                t.tuple(s),
                isl_name(&st.iterators[dim.iterator]),
                dim.first
            );
            domain = (domain.drop_constraints_involving(dim.iterator, 1)?)
                .intersect(&Set::parse(ctx, &first)?)?;
        }
        // Indices into copy temporaries ride along as extra dimensions of the instance, so
        // that isl writes them in terms of the generated loops.
        let mut extras = if placed.is_some() {
            Vec::new()
        } else {
            t.extra_values(s)
        };
        if points.is_some() {
            extras.push(pointloops::points_mark());
        }
        // The conditions restrict the instances, not the time vectors: in the domain,
        // isl reads them in a space of half the dimensions (twice as fast for a
        // register-tiled product's statement).
        if !conds.is_empty() {
            let fixed = format!("{}{{ {tuple} : {} }}", prefix(&params), conds.join(" and "));
            domain = domain.intersect(&Set::parse(ctx, &fixed)?)?;
        }
        let its: Vec<String> = st.iterators.iter().map(|n| isl_name(n)).collect();
        let extend = |values: &[crate::poly::affine::Aff]| {
            extension(ctx, &params, &tuple, &st.name, &its, values, &by_name)
        };
        let mut extras = extras::Extras::of(extras);
        // The domain with the values isl writes.
        let mut extended = None;
        if !extras.written.is_empty() {
            // The values affine in the instances the kernel runs are gpucc's to write.
            let with = domain.apply(&extend(&extras.written)?)?;
            let forms = with.affine_forms(&its)?;
            extended = Some(with);
            if extras.settle(forms.into_iter().skip(its.len()).collect()) {
                extended = match extras.written.is_empty() {
                    true => None,
                    false => Some(domain.apply(&extend(&extras.written)?)?),
                };
            }
        }
        let sched = match extended {
            Some(with) => {
                let names: Vec<String> = (0..extras.written.len())
                    .map(|k| format!("__w{k}"))
                    .collect();
                let instance = format!(
                    "{}[{}]",
                    st.name,
                    [&its[..], &names[..]].concat().join(", ")
                );
                domain = with;
                sched.replacen(&tuple, &instance, 1)
            }
            None => sched,
        };
        // What the context says need not be said again: isl would simplify each level's
        // pieces against it, over and over. In the instances, not the schedule's map of
        // twice the dimensions ([`astbuild::build_ast_narrowed`] takes the maps as they are).
        let domain = gisted(ctx, &domain, &context, &context_text)?;
        let mut map = Map::parse(ctx, &sched)?.intersect_domain(&domain)?;
        // The values the launch fixes (a thread's `i = 4 * it1`, a copy's block `i0 =
        // ii1`) are gpucc's to write too: isl writes each argument of a call on its own.
        let fixed: Vec<(usize, crate::poly::affine::Aff)> = (domain.affine_forms(&[])?)
            .into_iter()
            .enumerate()
            .filter_map(|(k, form)| Some((k, form?)))
            .collect();
        if !fixed.is_empty() {
            let dims: Vec<usize> = fixed.iter().map(|(k, _)| *k).collect();
            map = map.project_out_inputs(&dims)?;
        }
        expansions.add(&st.name, &its, &extras, fixed);
        schedule.push(map);
    }
    let schedule = UnionMap::of_maps(ctx, &schedule)?;
    // The blocks where no guard on their place holds back a thread get a body without
    // those guards ([`fulltiles`]), built by isl in the context where they all hold.
    let threads: Vec<fulltiles::ThreadRange> = (kernel.threads.iter().enumerate())
        .filter_map(|(d, td)| {
            let name = names.threads[d].clone();
            match td.kind {
                ThreadKind::Coordinate => Some(fulltiles::ThreadRange {
                    name,
                    size: td.size,
                    control: None,
                }),
                ThreadKind::TilePoint { control } => {
                    let c = t.levels[control].name.clone();
                    names.blocks.contains(&c).then_some(fulltiles::ThreadRange {
                        name,
                        size: td.size,
                        control: Some(c),
                    })
                }
                ThreadKind::Whole => None,
            }
        })
        .collect();
    let block: Vec<i64> = kernel.threads.iter().map(|d| d.size).collect();
    let launch = fulltiles::Launch {
        block: &block,
        grid: &grid,
        prologue: &prologue,
        blocks: &names.blocks,
        threads: &threads,
        params: &params,
    };
    let mut body = Vec::new();
    let mut full = None;
    let (_, ast_full) = astbuild::build_ast_narrowed(ctx, &context, &schedule, |ast| {
        body = to_ir(t, &expansions.applied(ast), warnings);
        let Some((atoms, derived)) = launch.full_body(ctx, &context, &body)? else {
            return Ok(None);
        };
        let (nodes, rebuild) = match derived {
            Ok(nodes) => (Some(nodes), None),
            Err(context_full) => (None, Some(context_full)),
        };
        full = Some((atoms, nodes));
        Ok(rebuild)
    })?;
    let full = full.and_then(|(atoms, derived)| {
        let built = || ast_full.map(|ast| to_ir(t, &expansions.applied(&ast), &mut Vec::new()));
        Some((atoms, derived.or_else(built)?))
    });
    if let Some((atoms, then_branch)) = full {
        body = vec![Node::If {
            cond: fulltiles::expr(&atoms),
            then_branch,
            else_branch: Some(body),
        }];
    }
    // The launch bounds the thread and block indices, hence the prologue's variables.
    let mut ranges = launch.ranges(&[]);
    let body = guards::prune(body, &mut ranges);
    let reductions = reduction::targets(t, ctx, kernel, &names, &block_ranges, &context)?
        .into_iter()
        .map(|r| ReductionIr {
            target: guards::prune(r.target, &mut ranges),
            ..r
        })
        .collect();
    Ok(KernelIr {
        source: String::new(),
        kernel: k,
        name: kernel.name.clone(),
        host_vars: names.host,
        prologue,
        body,
        grid,
        block,
        reductions,
    })
}

/// Gisted instance sets, by the texts of the set and the context: the variants of a
/// nest share most of their statements, and a kernel met again with one statement
/// changed asks for the others' again (half of a 3mm compile's 385).
static GISTED: Memo<String> = Memo::new(4096);

/// `domain.gist_params(context)`, kept by the texts (`context_text`: the context's).
fn gisted(ctx: &Ctx, domain: &Set, context: &Set, context_text: &str) -> Result<Set, IslError> {
    kept_set(ctx, &GISTED, format!("{domain}\n{context_text}"), || {
        domain.gist_params(context)
    })
}

/// The set `memo` keeps for `key` (the texts it is computed from), read back in `ctx`;
/// else the one `compute` makes, kept as text (a computed set is used as it is, not
/// read back from its text).
fn kept_set(
    ctx: &Ctx,
    memo: &Memo<String>,
    key: String,
    compute: impl FnOnce() -> Result<Set, IslError>,
) -> Result<Set, IslError> {
    if let Some(text) = memo.get(&key) {
        return Set::parse(ctx, &text);
    }
    let set = compute()?;
    memo.put(key, set.to_string());
    Ok(set)
}

/// What a kernel's code may assume of its parameters: each thread variable within its
/// block's tile (or the block's threads), each block variable within the values of its
/// loop; and those ranges of the block variables.
fn launch_context(
    t: &Transformed,
    ctx: &Ctx,
    kernel: &Kernel,
    names: &KernelNames,
    params: &[String],
    prologue: &[PrologueVar],
) -> Result<(Set, Vec<Set>), IslError> {
    let mut context_conds = Vec::new();
    for (d, td) in kernel.threads.iter().enumerate() {
        let name = &names.threads[d];
        match td.kind {
            ThreadKind::TilePoint { control } => {
                let c = &t.levels[control].name;
                context_conds.push(format!(
                    "{size}*{c} <= {name} < {size}*{c} + {size}",
                    size = td.size
                ));
            }
            ThreadKind::Coordinate => context_conds.push(format!("0 <= {name} < {}", td.size)),
            ThreadKind::Whole => {
                // `name = first + threadIdx`: with an affine `first`, the launch bounds it.
                let value = prologue.iter().find(|v| v.name == *name).map(|v| &v.value);
                let thread = format!("threadIdx.{}", ["x", "y", "z"][d]);
                if let Some((terms, c)) = value.and_then(ir::linear) {
                    let first: Vec<(String, i64)> =
                        terms.into_iter().filter(|(n, _)| *n != thread).collect();
                    let first = ir::from_linear(&first, c);
                    if let Some((terms, c)) = ir::linear(&first) {
                        let mut text: Vec<String> =
                            terms.iter().map(|(n, k)| format!("{k}*{n}")).collect();
                        text.push(c.to_string());
                        let first = format!("({})", text.join(" + "));
                        context_conds.push(format!("{first} <= {name} < {first} + {}", td.size));
                    }
                }
            }
        }
    }
    if context_conds.is_empty() {
        context_conds.push("0 = 0".into());
    }
    let mut context = Set::parse(
        ctx,
        &format!("{}{{ : {} }}", prefix(params), context_conds.join(" and ")),
    )?;
    // Each block variable ranges over the values of its loop: with that known, isl does not
    // guard what the grid already bounds.
    let block_ranges = block_ranges(t, ctx, kernel, names)?;
    for range in &block_ranges {
        context = context.intersect_params(range)?;
    }
    Ok((context, block_ranges))
}

/// The constraint tying statement `s`'s thread loop `d` to the kernel variable `name`.
pub(crate) fn thread_constraint(
    t: &Transformed,
    kernel: &Kernel,
    s: usize,
    d: usize,
    name: &str,
) -> Option<String> {
    thread_value(t, kernel, s, d).map(|v| format!("{v} = {name}"))
}

/// The isl text of the index along thread dimension `d` that runs statement `s`'s
/// instance (`None`: every thread along `d` runs it).
pub(crate) fn thread_value(t: &Transformed, kernel: &Kernel, s: usize, d: usize) -> Option<String> {
    let td = &kernel.threads[d];
    let level = kernel.thread_level(d, s)?;
    let v = value_of(t, s, level);
    Some(match td.kind {
        ThreadKind::Coordinate => format!("({v}) - {0}*floor(({v})/{0})", td.size),
        _ => v,
    })
}

/// The map from a statement's instances (`tuple`, its iterators `its`) to the instances
/// extended by `extras` (`S[its, __w0, ...]`, `__wk` the k-th extra's value), its names
/// written `by_name`. Many extras differ only in their constant (a register tile's indices
/// into a shared copy: `i mod 16 + 1`, `i mod 16 + 2`, ...): isl reads each distinct
/// rest once (`__v`), and the extras as those plus constants, a map with no divisions.
/// Read as one text, each floor division is an existential that isl simplifies again
/// against all the others (a stencil's thirty extras: 11 ms a read, against 1 ms).
fn extension(
    ctx: &Ctx,
    params: &[String],
    tuple: &str,
    statement: &str,
    its: &[String],
    extras: &[crate::poly::affine::Aff],
    by_name: &dyn Fn(String) -> String,
) -> Result<Map, IslError> {
    let mut rests: Vec<String> = Vec::new();
    let mut defs = Vec::new();
    for (k, a) in extras.iter().enumerate() {
        let rest = by_name(
            crate::poly::affine::Aff {
                terms: a.terms.clone(),
                constant: 0,
            }
            .to_string(),
        );
        let v = match rests.iter().position(|r| *r == rest) {
            Some(v) => v,
            None => {
                rests.push(rest);
                rests.len() - 1
            }
        };
        defs.push(format!("__w{k} = __v{v} + {}", a.constant));
    }
    let vs: Vec<String> = (0..rests.len()).map(|v| format!("__v{v}")).collect();
    let ws: Vec<String> = (0..extras.len()).map(|k| format!("__w{k}")).collect();
    let middle = format!("{statement}[{}]", [its, &vs[..]].concat().join(", "));
    let rests_defs: Vec<String> = (rests.iter().enumerate())
        .map(|(v, r)| format!("__v{v} = {r}"))
        .collect();
    let first = Map::parse(
        ctx,
        &format!(
            "{}{{ {tuple} -> {middle} : {} }}",
            prefix(params),
            rests_defs.join(" and ")
        ),
    )?;
    let second = Map::parse(
        ctx,
        &format!(
            "{}{{ {middle} -> {statement}[{}] : {} }}",
            prefix(params),
            [its, &ws[..]].concat().join(", "),
            defs.join(" and ")
        ),
    )?;
    first.apply_range(&second)
}
