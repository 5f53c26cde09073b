//! isl's affine scheduler (`isl_schedule_constraints_compute_schedule`, the
//! Pluto-style search for permutable bands of tiling hyperplanes that PPCG uses), for the
//! `reschedule` recipe command: given statements and the dependences between them, a new
//! order of their instances as a tree of loop bands and sequences, each loop's value an
//! affine expression of a statement's iterators, with the loops isl found parallel
//! (coincident) marked.
//!
//! As in PPCG, isl is asked to make the outermost loop of each band parallel where it can
//! (`schedule_outer_coincidence`): a Gauss–Seidel sweep becomes a sequential wavefront
//! around parallel loops instead of a permutable band of sequential ones.

use super::affine::Aff;
use super::isl::{error, integer_aff, Ctx, IslError, IslResult, Map, Set};
use super::memo::Memo;
use super::watchdog::within_cpu_time;
use isl_rs::{
    LibISLError, MultiAff, Options, PwMultiAff, ScheduleConstraints, ScheduleNode,
    ScheduleNodeType, UnionMap as IslUnionMap, UnionSet,
};
use std::time::Duration;

/// A statement to schedule.
#[derive(Clone, Copy)]
pub struct Statement<'a> {
    /// Its tuple name in the domain and the dependences (`S0`).
    pub name: &'a str,
    /// Its iteration domain.
    pub domain: &'a Set,
    /// The names of its domain's dimensions, for the loop values.
    pub iterators: &'a [String],
}

/// A node of the schedule isl found; statements are indices into the list given.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// Loops, outermost first, around `child`.
    Band {
        members: Vec<Member>,
        child: Box<Node>,
    },
    /// Parts run one after the other.
    Sequence(Vec<Node>),
    /// The statements run here (several at once only where no dependence orders them).
    Leaf(Vec<usize>),
}

/// One loop of a band.
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    /// isl found that the loop carries no dependence (it may run in parallel).
    pub coincident: bool,
    /// The loop's value for each statement it encloses.
    pub values: Vec<(usize, Aff)>,
}

fn err(what: &str, e: LibISLError) -> IslError {
    let text = e.to_string();
    error(
        &format!("isl scheduler: {what}"),
        &text,
        text.contains("Quota"),
    )
}

fn fail(message: String) -> IslError {
    IslError {
        message,
        too_complex: false,
    }
}

/// A schedule of `statements` that runs the sink of each of `dependences` and of
/// `order_only` (relations between the statements' tuples) after its source; only
/// `dependences` keep a loop from being parallel (coincident) and count for locality.
/// isl's search may spend `cpu` of processor time where that is given
/// ([`super::watchdog`]); past it, a `too_complex` error.
pub fn schedule(
    ctx: &Ctx,
    statements: &[Statement],
    dependences: &[Map],
    order_only: &[Map],
    cpu: Option<Duration>,
) -> IslResult<Node> {
    // The strategy generator schedules a serial nest once per plan, and each candidate
    // recipe that replays `reschedule` asks again: the same inputs give the same tree.
    // They come written in different ways (a domain with or without a bound its other
    // constraints imply: ludcmp's one problem came as three texts, 0.45 s each), so isl
    // is given, and the key written from, each input in its simplest form.
    let domains = statements
        .iter()
        .map(|st| st.domain.simplest())
        .collect::<IslResult<Vec<Set>>>()?;
    let statements: Vec<Statement> = statements
        .iter()
        .zip(&domains)
        .map(|(st, domain)| Statement { domain, ..*st })
        .collect();
    let simplest = |maps: &[Map]| {
        maps.iter()
            .map(Map::simplest)
            .collect::<IslResult<Vec<Map>>>()
    };
    let (dependences, order_only) = (simplest(dependences)?, simplest(order_only)?);
    let mut key = String::new();
    for st in &statements {
        key.push_str(&format!(
            "{}|{}|{}\n",
            st.name,
            st.domain,
            st.iterators.join(",")
        ));
    }
    for (tag, maps) in [("d", &dependences), ("o", &order_only)] {
        for m in maps {
            key.push_str(&format!("{tag} {m}\n"));
        }
    }
    SCHEDULED.get_or_once(key, || {
        compute(ctx, &statements, &dependences, &order_only, cpu)
    })
}

/// The schedules found in this process, by their inputs' texts.
static SCHEDULED: Memo<Node> = Memo::new(256);

fn compute(
    ctx: &Ctx,
    statements: &[Statement],
    dependences: &[Map],
    order_only: &[Map],
    cpu: Option<Duration>,
) -> IslResult<Node> {
    let raw = ctx.raw();
    let mut domain: Option<UnionSet> = None;
    for st in statements {
        let one = UnionSet::from_set(st.domain.raw_copy()?).map_err(|e| err("domain", e))?;
        domain = Some(match domain {
            None => one,
            Some(u) => u.union(one).map_err(|e| err("domain", e))?,
        });
    }
    let domain = domain.ok_or_else(|| fail("isl scheduler: no statement to schedule".into()))?;
    let union = |maps: &[&Map]| -> IslResult<IslUnionMap> {
        let mut all = IslUnionMap::empty_ctx(raw).map_err(|e| err("empty", e))?;
        for d in maps {
            let one = IslUnionMap::from_map(d.raw_copy()?).map_err(|e| err("dependence", e))?;
            all = all.union(one).map_err(|e| err("dependence", e))?;
        }
        Ok(all)
    };
    let deps = union(&dependences.iter().collect::<Vec<_>>())?;
    let validity = union(&dependences.iter().chain(order_only).collect::<Vec<_>>())?;
    let constraints = ScheduleConstraints::on_domain(domain)
        .and_then(|c| c.set_validity(validity))
        .and_then(|c| c.set_proximity(deps.copy()?))
        .and_then(|c| c.set_coincidence(deps))
        .map_err(|e| err("constraints", e))?;
    let outer = Options::get_schedule_outer_coincidence(raw).unwrap_or(0);
    let _ = Options::set_schedule_outer_coincidence(raw, 1);
    let search = || {
        constraints
            .compute_schedule()
            .map_err(|e| err("compute_schedule", e))
    };
    let computed = match cpu {
        None => search().map(Some),
        Some(cpu) => within_cpu_time(ctx, cpu, search),
    };
    let _ = Options::set_schedule_outer_coincidence(raw, outer);
    let schedule = computed?.ok_or_else(|| IslError {
        message: format!(
            "none found in {} ms of processor time, the limit `scheduler-milliseconds`",
            cpu.unwrap_or_default().as_millis()
        ),
        too_complex: true,
    })?;
    let root = schedule.get_root().map_err(|e| err("root", e))?;
    let names: Vec<&str> = statements.iter().map(|s| s.name).collect();
    let top = root.child(0).map_err(|e| err("child", e))?;
    convert(&top, &names, statements)
}

fn convert(node: &ScheduleNode, names: &[&str], statements: &[Statement]) -> IslResult<Node> {
    let kind = node.get_type().map_err(|e| err("node type", e))?;
    let child = |k: i32| node.get_child(k).map_err(|e| err("child", e));
    match kind {
        ScheduleNodeType::Band => {
            let n = node.band_n_member().map_err(|e| err("band", e))?;
            let partial = node
                .band_get_partial_schedule_union_map()
                .map_err(|e| err("band", e))?;
            let list = partial.get_map_list().map_err(|e| err("band", e))?;
            let mut members: Vec<Member> = (0..n)
                .map(|m| {
                    Ok(Member {
                        coincident: node
                            .band_member_get_coincident(m)
                            .map_err(|e| err("coincident", e))?,
                        values: Vec::new(),
                    })
                })
                .collect::<IslResult<_>>()?;
            for k in 0..list.n_map().map_err(|e| err("band", e))? {
                let map = list.get_at(k).map_err(|e| err("band", e))?;
                let name = map
                    .get_tuple_name(isl_rs::DimType::In)
                    .map_err(|e| err("tuple", e))?
                    .to_string();
                let s = statement(names, &name)?;
                let values = affine(map, statements[s].iterators, &name)?;
                for (member, value) in members.iter_mut().zip(values) {
                    member.values.push((s, value));
                }
            }
            for member in &mut members {
                member.values.sort_by_key(|(s, _)| *s);
            }
            Ok(Node::Band {
                members,
                child: Box::new(convert(&child(0)?, names, statements)?),
            })
        }
        ScheduleNodeType::Sequence | ScheduleNodeType::Set => {
            let n = node.n_children().map_err(|e| err("children", e))?;
            (0..n)
                .map(|k| convert(&child(k)?, names, statements))
                .collect::<IslResult<Vec<_>>>()
                .map(Node::Sequence)
        }
        ScheduleNodeType::Filter | ScheduleNodeType::Mark | ScheduleNodeType::Context => {
            convert(&child(0)?, names, statements)
        }
        ScheduleNodeType::Leaf => {
            let domain = node.get_domain().map_err(|e| err("leaf", e))?;
            let sets = domain.get_set_list().map_err(|e| err("leaf", e))?;
            let mut here = Vec::new();
            for k in 0..sets.n_set().map_err(|e| err("leaf", e))? {
                let set = sets.get_at(k).map_err(|e| err("leaf", e))?;
                let name = set.get_tuple_name().map_err(|e| err("tuple", e))?;
                here.push(statement(names, name)?);
            }
            here.sort_unstable();
            Ok(Node::Leaf(here))
        }
        other => Err(fail(format!(
            "isl scheduler: a schedule node of kind {other:?}, which gpucc does not read"
        ))),
    }
}

fn statement(names: &[&str], name: &str) -> IslResult<usize> {
    names
        .iter()
        .position(|n| *n == name)
        .ok_or_else(|| fail(format!("isl scheduler: unknown statement `{name}`")))
}

/// The values of a band's members for one statement, as affine expressions of its
/// iterators.
fn affine(map: isl_rs::Map, iterators: &[String], name: &str) -> IslResult<Vec<Aff>> {
    let not_affine = || {
        fail(format!(
            "isl scheduler: the schedule of `{name}` is not an affine function of its iterators"
        ))
    };
    let pma = PwMultiAff::from_map(map).map_err(|e| err("band values", e))?;
    if !pma.isa_multi_aff().map_err(|e| err("band values", e))? {
        return Err(not_affine());
    }
    let ma: MultiAff = pma.as_multi_aff().map_err(|e| err("band values", e))?;
    let n = ma.size().map_err(|e| err("band values", e))?;
    (0..n)
        .map(|k| {
            let a = ma.get_at(k).map_err(|e| err("band values", e))?;
            integer_aff(&a, iterators)?.ok_or_else(not_affine)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_gauss_seidel_sweep_becomes_a_wavefront_around_parallel_loops() {
        let ctx = Ctx::new();
        let domain = Set::parse(
            &ctx,
            "[T, N] -> { S0[t, i, j] : 0 <= t < T and 1 <= i <= N - 2 and 1 <= j <= N - 2 }",
        )
        .unwrap();
        // A[i][j] = f(A[i±1][j±1], ...) at each t: every neighbour, read before or after.
        // The memory-based dependences, computed by hand: every pair of instances that
        // touch the same element, one of them writing it, the earlier first.
        let dep = Map::parse(
            &ctx,
            "[T, N] -> { S0[t, i, j] -> S0[t', i', j'] : 0 <= t, t' < T and 1 <= i, i', j, j' <= N - 2 \
             and -1 <= i' - i <= 1 and -1 <= j' - j <= 1 \
             and (t' > t or (t' = t and (i' > i or (i' = i and j' > j)))) }",
        )
        .unwrap();
        let iterators = names(&["t", "i", "j"]);
        let statements = [Statement {
            name: "S0",
            domain: &domain,
            iterators: &iterators,
        }];
        let node = schedule(&ctx, &statements, &[dep], &[], None).unwrap();
        let Node::Band { members, child } = node else {
            panic!("a band first: {node:?}");
        };
        assert!(!members[0].coincident, "the wavefront is sequential");
        let Node::Band { members: inner, .. } = *child else {
            panic!("then a band: {child:?}");
        };
        assert!(inner.iter().all(|m| m.coincident), "{inner:?}");
        assert_eq!(inner.len(), 2);
    }
}
