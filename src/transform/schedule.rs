//! `skew`, `shift`, `fuse` and `reschedule`: the schedule commands that keep a nest's loops but
//! change which instances each loop iteration runs. A loop's value for a statement is an
//! affine expression of the statement's iterators (its `levels`); these commands change
//! those expressions, or merge two sibling loops into one, and the result must respect
//! every dependence ([`legality::check_order`]). Skewing is what makes a wavefront's
//! dependences carried by its outer loop only, so that the inner one can run in parallel
//! (seed `004_bb3a743c09b5659c.txt`, §5.2, "Preprocessing of the Loop Order").

use super::{legality, LevelId, TResult, TransformError, Transformed};
use crate::poly::affine::{Aff, Var};
use crate::poly::isl::{Ctx, Map, Set};
use crate::poly::scheduler;

/// `skew`: loop `level` runs over its value plus `factor` times loop `by`'s, for every
/// statement it encloses (`statement`: that one only). Both loops must enclose each of
/// those statements and be untiled, outside any kernel.
pub fn skew(
    t: &mut Transformed,
    level: LevelId,
    by: LevelId,
    factor: i64,
    statement: Option<usize>,
) -> TResult<()> {
    if level == by {
        return Err(TransformError::new(format!(
            "`{}` cannot be skewed by itself",
            t.levels[level].name
        ))
        .hint("skew an inner loop by an outer one: skew(\"j\", \"i\", 1)"));
    }
    let targets = targets(t, level, statement, "skew")?;
    check_untiled(t, by, "skew")?;
    for &s in &targets {
        if t.level_index(s, by).is_none() {
            return Err(TransformError::new(format!(
                "the loop {} does not enclose the statement at line {}",
                t.describe_level(by),
                t.source_line(s).unwrap_or(0)
            ))
            .hint("skew by a loop that encloses every statement of the skewed one"));
        }
    }
    change(
        t,
        &targets,
        "this skew",
        "skew an inner loop by a positive multiple of an outer one",
        |t, s| {
            let k = t.level_index(s, level).expect("checked above");
            let b = t.level_index(s, by).expect("checked above");
            let st = &t.statements[s];
            st.levels[b].1.scale(factor)?.add(&st.levels[k].1)
        },
        level,
    )
}

/// `shift`: loop `level` runs over its value plus `amount` for every statement it
/// encloses (`statement`: that one only, which moves it against the loop's others).
pub fn shift(
    t: &mut Transformed,
    level: LevelId,
    amount: i64,
    statement: Option<usize>,
) -> TResult<()> {
    let targets = targets(t, level, statement, "shift")?;
    let by = crate::poly::affine::Aff::constant(amount);
    change(
        t,
        &targets,
        "this shift",
        "shift the statements this one depends on too, or by an amount that keeps each dependence's source first",
        |t, s| {
            let k = t.level_index(s, level).expect("checked by targets");
            t.statements[s].levels[k].1.add(&by)
        },
        level,
    )
}

/// `fuse`: the loops that enclose `statements` and share `name` (sibling loops, in the
/// same enclosing loops) become one loop; the statements they hold run in the order of
/// the text at each of its iterations. The loops inside them stay apart. CHiLL's
/// `fuse(stmts, level)`, the inverse of `distribute`.
pub fn fuse(t: &mut Transformed, name: &str, statements: &[usize]) -> TResult<()> {
    let mut loops: Vec<LevelId> = Vec::new();
    let mut depth = None;
    let mut outer: Option<Vec<LevelId>> = None;
    for &s in statements {
        legality::check_not_in_kernel(t, s, "fuse")?;
        let st = &t.statements[s];
        let Some(k) = st
            .levels
            .iter()
            .position(|(l, _)| t.levels[*l].name == name)
        else {
            return Err(TransformError::new(format!(
                "no loop `{name}` encloses the statement at line {}",
                t.source_line(s).unwrap_or(0)
            ))
            .hint("name a loop that encloses every statement listed (`gpucc deps` numbers them)"));
        };
        let prefix: Vec<LevelId> = st.levels[..k].iter().map(|(l, _)| *l).collect();
        if depth.is_some_and(|d| d != k) || outer.as_ref().is_some_and(|o| *o != prefix) {
            return Err(TransformError::new(format!(
                "the loops `{name}` of these statements are not siblings: they are inside different loops"
            ))
            .hint("fuse loops that follow each other inside the same loops"));
        }
        depth = Some(k);
        outer = Some(prefix);
        let level = st.levels[k].0;
        if !loops.contains(&level) {
            loops.push(level);
        }
    }
    if loops.len() < 2 {
        return Err(TransformError::new(format!(
            "the statements listed are in one loop `{name}` already: there is nothing to fuse"
        ))
        .hint("list statements of different loops of that name"));
    }
    for &l in &loops {
        check_untiled(t, l, "fuse")?;
    }
    let into = loops[0];
    let members: Vec<usize> = (0..t.statements.len())
        .filter(|&s| {
            t.statements[s]
                .levels
                .iter()
                .any(|(l, _)| loops.contains(l))
        })
        .collect();
    // Fusing the loops moves every statement that lies between them in the text (in the
    // same enclosing loops) too: refused rather than reordered.
    let first = members.iter().map(|&s| t.statements[s].order).min();
    let last = members.iter().map(|&s| t.statements[s].order).max();
    let prefix = outer.expect("at least two statements");
    if let Some(s) = (0..t.statements.len()).find(|&s| {
        let st = &t.statements[s];
        !members.contains(&s)
            && st.below(&prefix)
            && Some(st.order) > first
            && Some(st.order) < last
    }) {
        return Err(TransformError::new(format!(
            "the statement at line {} lies between the loops to fuse",
            t.source_line(s).unwrap_or(0)
        ))
        .hint("fuse the loops in between too, or only loops that follow each other"));
    }
    let k = depth.expect("at least two statements");
    legality::checked_change(t, "this fusion", |t| {
        for &s in &members {
            t.statements[s].levels[k].0 = into;
        }
        Ok(())
    })
    .map_err(|e| {
        e.hint("shift the later loop's statements by the iterations the dependence spans first (`shift`), or keep the loops apart")
    })
}

/// The statements a command on `level` changes: the one named (which the loop must
/// enclose) or every one the loop encloses; refused for a tiled loop or a kernel's.
fn targets(
    t: &Transformed,
    level: LevelId,
    statement: Option<usize>,
    command: &str,
) -> TResult<Vec<usize>> {
    check_untiled(t, level, command)?;
    let inside = t.statements_in(level);
    let targets = match statement {
        Some(s) if !inside.contains(&s) => {
            return Err(TransformError::new(format!(
                "the loop {} does not enclose the statement at line {}",
                t.describe_level(level),
                t.source_line(s).unwrap_or(0)
            ))
            .hint("name a loop of that statement (`gpucc deps` lists them)"))
        }
        Some(s) => vec![s],
        None => inside,
    };
    for &s in &targets {
        legality::check_not_in_kernel(t, s, command)?;
    }
    Ok(targets)
}

/// A tiled loop, or the control loop of a tile, keeps its tiles' shape: refused.
fn check_untiled(t: &Transformed, level: LevelId, command: &str) -> TResult<()> {
    let tiled = t.levels[level].tile.is_some()
        || t.levels
            .iter()
            .any(|l| l.tile.is_some_and(|tile| tile.control == level));
    if tiled {
        return Err(
            TransformError::new(format!("the loop `{}` is tiled", t.levels[level].name))
                .hint(format!("{command} loops before tiling them")),
        );
    }
    Ok(())
}

/// Gives loop `level` of each of `targets` the value `value` computes, then checks the
/// order; restores the statements when it is illegal.
fn change(
    t: &mut Transformed,
    targets: &[usize],
    what: &str,
    hint: &str,
    value: impl Fn(
        &Transformed,
        usize,
    ) -> Result<crate::poly::affine::Aff, crate::poly::affine::TooLarge>,
    level: LevelId,
) -> TResult<()> {
    let values = targets
        .iter()
        .map(|&s| value(t, s))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| {
            TransformError::new("the loop's new bounds exceed 64-bit integers")
                .hint("use a smaller factor")
        })?;
    legality::checked_change(t, what, |t| {
        for (&s, v) in targets.iter().zip(values) {
            let k = t
                .level_index(s, level)
                .expect("the loop encloses its targets");
            t.statements[s].levels[k].1 = v;
        }
        Ok(())
    })
    .map_err(|e| e.hint(hint))
}

/// `reschedule`: isl's affine scheduler ([`crate::poly::scheduler`]) orders the instances
/// of the statements loop `level` encloses (every statement for `None`) anew, with the
/// loops outside `level` kept: each band of the schedule it finds becomes loops (named
/// after the iterator where a loop runs over one iterator, else `t<depth>`), its sequences
/// the order of their parts. Returns the new loops and the statements' new order. isl's
/// search may spend `cpu` of processor time where that is given ([`scheduler::schedule`]).
pub fn reschedule(
    t: &mut Transformed,
    level: Option<LevelId>,
    cpu: Option<std::time::Duration>,
) -> TResult<Rescheduling> {
    let members: Vec<usize> = match level {
        Some(l) => t.statements_in(l),
        None => (0..t.statements.len()).collect(),
    };
    let depth = |s: usize| level.and_then(|l| t.level_index(s, l)).unwrap_or(0);
    for &s in &members {
        legality::check_not_in_kernel(t, s, "reschedule")?;
        if !matches!(t.statements[s].kind, super::StmtKind::Compute(_)) {
            return Err(
                TransformError::new("a data copy is among the statements to reschedule")
                    .hint("reschedule before copying to shared memory or registers"),
            );
        }
        for &(l, _) in &t.statements[s].levels[depth(s)..] {
            check_untiled(t, l, "reschedule")?;
        }
    }
    let node = isl_schedule(t, &members, &depth, cpu)?;
    let mut new_levels: Vec<Vec<(LevelId, Aff)>> = members
        .iter()
        .map(|&s| t.statements[s].levels[..depth(s)].to_vec())
        .collect();
    let mut ranks = Vec::new();
    let mut created = Vec::new();
    let saved_levels = t.levels.len();
    lay_out(
        t,
        &node,
        &members,
        &mut new_levels,
        &mut ranks,
        &mut created,
    );
    let mut orders: Vec<_> = members.iter().map(|&s| t.statements[s].order).collect();
    orders.sort();
    let result = legality::checked_change(t, "this reschedule", |t| {
        for (k, &s) in members.iter().enumerate() {
            t.statements[s].levels = std::mem::take(&mut new_levels[k]);
        }
        for (rank, &k) in ranks.iter().enumerate() {
            t.statements[members[k]].order = orders[rank];
        }
        Ok(())
    });
    if result.is_err() {
        t.levels.truncate(saved_levels);
    }
    let order = ranks.iter().map(|&k| members[k]).collect();
    result.map(|()| Rescheduling {
        loops: created,
        order,
    })
}

/// What [`reschedule`] made.
#[derive(Clone, Debug, PartialEq)]
pub struct Rescheduling {
    /// The new loops in a walk of the schedule's tree: a loop before the loops inside it.
    pub loops: Vec<NewLoop>,
    /// The rescheduled statements in the order they run (transformed statement indices).
    pub order: Vec<usize>,
}

/// A loop [`reschedule`] made.
#[derive(Clone, Debug, PartialEq)]
pub struct NewLoop {
    pub name: String,
    /// isl found that it carries no dependence.
    pub parallel: bool,
    /// The statements it encloses (transformed statement indices).
    pub statements: Vec<usize>,
}

/// The schedule isl finds for `members` (transformed statement indices) under the
/// dependences between them that the loops outside (their first `depth(s)` levels) do not
/// carry.
fn isl_schedule(
    t: &Transformed,
    members: &[usize],
    depth: &dyn Fn(usize) -> usize,
    cpu: Option<std::time::Duration>,
) -> TResult<scheduler::Node> {
    let ctx = Ctx::new();
    let domains = members
        .iter()
        .map(|&s| Set::parse(&ctx, &t.statements[s].domain))
        .collect::<Result<Vec<_>, _>>()?;
    let mut dependences = Vec::new();
    for d in legality::constraining(t) {
        let (src, sink) = (
            legality::compute_statement(t, d.source),
            legality::compute_statement(t, d.sink),
        );
        if !members.contains(&src) || !members.contains(&sink) {
            continue;
        }
        let relation = Map::parse(&ctx, &d.relation)?
            .wrapped()?
            .intersect(&outside_equal(t, &ctx, src, sink, depth)?.wrapped()?)?
            .unwrapped()?;
        if !relation.is_empty()? {
            dependences.push(relation);
        }
    }
    let order_only = storage_order(t, &ctx, members, depth)?;
    let statements: Vec<scheduler::Statement> = members
        .iter()
        .zip(&domains)
        .map(|(&s, domain)| scheduler::Statement {
            name: &t.statements[s].name,
            domain,
            iterators: &t.statements[s].iterators,
        })
        .collect();
    Ok(scheduler::schedule(
        &ctx,
        &statements,
        &dependences,
        &order_only,
        cpu,
    )?)
}

/// The pairs of instances of statements `src` and `sink` at the same values of the loops
/// kept outside (the first `depth(s)` levels of each).
fn outside_equal(
    t: &Transformed,
    ctx: &Ctx,
    src: usize,
    sink: usize,
    depth: &dyn Fn(usize) -> usize,
) -> TResult<Map> {
    let outside = |s: usize| -> String {
        let values: Vec<String> = t.statements[s].levels[..depth(s)]
            .iter()
            .map(|(_, v)| v.to_string())
            .collect();
        format!(
            "{}{{ {} -> [{}] }}",
            t.params_prefix(),
            t.tuple(s),
            values.join(", ")
        )
    };
    Ok(
        Map::parse(ctx, &outside(src))?
            .apply_range(&Map::parse(ctx, &outside(sink))?.reverse()?)?,
    )
}

/// The order in which the statements among `members` reuse each private scalar's one
/// location: every pair of their instances that touch it, one of them writing, in the
/// order they run now, under the same values of the loops kept outside. The dependence
/// analysis sees one copy per iteration of the scalar's loops, which makes those loops
/// parallel; the code keeps one copy per thread, so a new order must not let a write
/// come between another instance's write and its reads (isl distributed a scalar's
/// definition and its use into two loops: found by the nest fuzzer).
fn storage_order(
    t: &Transformed,
    ctx: &Ctx,
    members: &[usize],
    depth: &dyn Fn(usize) -> usize,
) -> TResult<Vec<Map>> {
    let p = &t.program;
    let schedules = legality::schedules(t);
    let width = 2 * t.depth() + 1;
    let later = Map::parse(ctx, &legality::lex_later(&t.params_prefix(), width))?;
    let mut out = Vec::new();
    for (a, array) in p.arrays.iter().enumerate() {
        if !matches!(array.kind, crate::poly::ArrayKind::Private { .. }) {
            continue;
        }
        // The members that touch it, and whether each writes it.
        let touching: Vec<(usize, bool)> = members
            .iter()
            .filter_map(|&s| {
                let super::StmtKind::Compute(id) = t.statements[s].kind else {
                    return None;
                };
                let mine = p
                    .accesses
                    .iter()
                    .filter(|x| x.statement == id && x.array == a);
                let (mut touches, mut writes) = (false, false);
                for x in mine {
                    touches = true;
                    writes |= x.is_write;
                }
                touches.then_some((s, writes))
            })
            .collect();
        for &(src, src_writes) in &touching {
            for &(sink, sink_writes) in &touching {
                if !src_writes && !sink_writes {
                    continue;
                }
                let relation = Map::parse(ctx, &schedules[src])?
                    .apply_range(&later)?
                    .apply_range(&Map::parse(ctx, &schedules[sink])?.reverse()?)?
                    .intersect_domain(&Set::parse(ctx, &t.statements[src].domain)?)?
                    .intersect_range(&Set::parse(ctx, &t.statements[sink].domain)?)?
                    .wrapped()?
                    .intersect(&outside_equal(t, ctx, src, sink, depth)?.wrapped()?)?
                    .unwrapped()?;
                if !relation.is_empty()? {
                    out.push(relation);
                }
            }
        }
    }
    Ok(out)
}

/// Makes the loops of `node`'s bands, appending each to the levels of the statements it
/// encloses (`levels[k]` for `members[k]`), and lists the statements in the order the
/// schedule's sequences run them (`ranks`, indices into `members`); `created` lists the
/// loops in a walk of the tree.
fn lay_out(
    t: &mut Transformed,
    node: &scheduler::Node,
    members: &[usize],
    levels: &mut [Vec<(LevelId, Aff)>],
    ranks: &mut Vec<usize>,
    created: &mut Vec<NewLoop>,
) {
    match node {
        scheduler::Node::Band {
            members: loops,
            child,
        } => {
            for member in loops {
                let name = loop_name(t, member, members, levels);
                let id = t.new_level(name.clone());
                created.push(NewLoop {
                    name,
                    parallel: member.coincident,
                    statements: member.values.iter().map(|(k, _)| members[*k]).collect(),
                });
                for (k, value) in &member.values {
                    levels[*k].push((id, value.clone()));
                }
            }
            lay_out(t, child, members, levels, ranks, created);
        }
        scheduler::Node::Sequence(parts) => {
            for part in parts {
                lay_out(t, part, members, levels, ranks, created);
            }
        }
        scheduler::Node::Leaf(here) => {
            let mut here = here.clone();
            here.sort_by_key(|&k| t.statements[members[k]].order);
            ranks.extend(here);
        }
    }
}

/// A new loop's name: the iterator it runs over where it is the same one for every
/// statement, else `t<depth>`; never a name of a loop around it, an iterator, a parameter
/// or an array.
fn loop_name(
    t: &Transformed,
    member: &scheduler::Member,
    members: &[usize],
    levels: &[Vec<(LevelId, Aff)>],
) -> String {
    let around = |n: &str| {
        member
            .values
            .iter()
            .any(|(k, _)| levels[*k].iter().any(|(l, _)| t.levels[*l].name == n))
    };
    let iterator = member.values.iter().try_fold(None::<&str>, |name, (k, v)| {
        let st = &t.statements[members[*k]];
        let it = st
            .iterators
            .iter()
            .find(|i| *v == Aff::var(Var::Index(i.to_string())))?;
        match name {
            Some(n) if n != it => None,
            _ => Some(Some(it.as_str())),
        }
    });
    if let Some(Some(name)) = iterator {
        if !around(name) {
            return name.to_string();
        }
    }
    let depth = member
        .values
        .iter()
        .map(|(k, _)| levels[*k].len())
        .max()
        .unwrap_or(0);
    let p = &t.program;
    let taken = |n: &str| {
        around(n)
            || p.params.iter().any(|x| x == n)
            || p.arrays.iter().any(|a| a.name == n)
            || t.statements
                .iter()
                .any(|s| s.iterators.iter().any(|i| i == n))
    };
    let mut name = format!("t{depth}");
    while taken(&name) {
        name.push('_');
    }
    name
}
