//! Scalar privatisation (array expansion): a scalar declared once for the whole code
//! (`DATA_TYPE w;` at the top of a PolyBench kernel) is one location, so every loop
//! around its uses carries its anti and output dependences, and none of them can run in
//! parallel. When every value the scalar holds is written and read within one iteration
//! of the loops around all its uses, each such iteration can have its own copy: the
//! scalar becomes private to those loops, exactly as if it had been declared inside them
//! (`ArrayKind::Private`, an array indexed by their indices), and the memory-based
//! dependences between iterations disappear. pet and PPCG find the same by live-range
//! analysis and array expansion (Feautrier's expansion of a scalar into an array indexed
//! by the loops; seed 004 takes such temporaries as given, declared in the loop body).
//!
//! A scalar is first split into its live ranges (webs: its writes and the reads they
//! reach, by the flow dependences); each range gets the loops `L` around all of its uses
//! (outermost first, cut before the outermost one that carries a flow dependence of it).
//! The scalar becomes one private copy per range when every range has such loops and:
//! - no loop of `L` carries a flow (value-based) dependence of it: no value crosses
//!   iterations;
//! - every read has a write before it in the same iteration (no read sees the value the
//!   scalar had before the code);
//! - its value after the code is dead: a local of the compiled function, a parameter
//!   passed by value, or for a `#pragma scop` region a variable of the enclosing function
//!   that nothing after the region mentions.

use super::Dependences;
use crate::frontend::UnitKind;
use crate::poly::affine::{Aff, PwAff, Var};
use crate::poly::isl::{Ctx, IslError, Map, Set};
use crate::poly::{AccessId, ArrayId, ArrayKind, LoopId, Program};

/// A scalar made private to loops.
#[derive(Clone, Debug, PartialEq)]
pub struct Privatized {
    pub array: ArrayId,
    /// The loops each of whose iterations has its own copy, outermost first.
    pub loops: Vec<LoopId>,
    /// The loops that ran in order before it (sequential) and no longer do.
    pub freed: Vec<LoopId>,
}

/// One live range of a scalar (a *web*: its writes and the reads they reach, linked by
/// flow dependences) made private to loops.
#[derive(Clone, Debug, PartialEq)]
pub struct Web {
    pub array: ArrayId,
    pub accesses: Vec<AccessId>,
    pub loops: Vec<LoopId>,
}

/// The scalars of `p` that can be private: each live range with its loops. A scalar
/// reused for unrelated values (PolyBench ludcmp's `w`, one range per loop nest) splits
/// into one private copy per range, where every range qualifies.
pub fn candidates(p: &Program, deps: &Dependences) -> Result<Vec<Web>, IslError> {
    let ctx = Ctx::new();
    let mut out = Vec::new();
    for (a, array) in p.arrays.iter().enumerate() {
        if !array.is_scalar() || matches!(array.kind, ArrayKind::Private { .. }) {
            continue;
        }
        let accesses: Vec<AccessId> = (0..p.accesses.len())
            .filter(|&x| p.accesses[x].array == a)
            .collect();
        if accesses.is_empty() || !dead_after(p, a) {
            continue;
        }
        let flows: Vec<&super::Dependence> = deps
            .dependences
            .iter()
            .filter(|d| d.kind == super::DepKind::Flow && d.array == a)
            .collect();
        let mut webs = Vec::new();
        for members in webs_of(&accesses, &flows) {
            let mut statements = members.iter().map(|x| p.accesses[*x].statement);
            let first = statements.next().expect("a web has an access");
            // The loops around every use.
            let mut loops = p.statements[first].loops.clone();
            for s in statements {
                let common = loops
                    .iter()
                    .zip(&p.statements[s].loops)
                    .take_while(|(x, y)| x == y)
                    .count();
                loops.truncate(common);
            }
            // Only the loops outside every loop that carries one of its values.
            let carries = |l: LoopId| {
                flows
                    .iter()
                    .any(|d| d.carried_by == Some(l) && members.contains(&d.sink_access))
            };
            if let Some(k) = loops.iter().position(|&l| carries(l)) {
                loops.truncate(k);
            }
            if loops.is_empty() {
                webs.clear();
                break;
            }
            webs.push(Web {
                array: a,
                accesses: members,
                loops,
            });
        }
        if webs.is_empty() || reads_value_from_before(p, deps, &ctx, a)? {
            continue;
        }
        // Worth it where a loop of a range carries one of its dependences, or where the
        // ranges share the location.
        let helps = webs.len() > 1
            || deps.dependences.iter().any(|d| {
                d.array == a
                    && d.carried_by
                        .is_some_and(|l| webs.iter().any(|w| w.loops.contains(&l)))
            });
        if helps {
            out.extend(webs);
        }
    }
    Ok(out)
}

/// The accesses of one scalar grouped by the flow dependences between them (union-find).
fn webs_of(accesses: &[AccessId], flows: &[&super::Dependence]) -> Vec<Vec<AccessId>> {
    let mut parent: Vec<usize> = (0..accesses.len()).collect();
    fn root(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    let index = |a: AccessId| accesses.iter().position(|&x| x == a);
    for d in flows {
        if let (Some(x), Some(y)) = (index(d.source_access), index(d.sink_access)) {
            let (rx, ry) = (root(&mut parent, x), root(&mut parent, y));
            parent[rx] = ry;
        }
    }
    let mut groups: Vec<(usize, Vec<AccessId>)> = Vec::new();
    for (k, &a) in accesses.iter().enumerate() {
        let r = root(&mut parent, k);
        match groups.iter_mut().find(|(x, _)| *x == r) {
            Some((_, members)) => members.push(a),
            None => groups.push((r, vec![a])),
        }
    }
    groups.into_iter().map(|(_, members)| members).collect()
}

/// Makes each web private to its loops: indexed by their indices, as the lowering models
/// a scalar declared inside loops. A scalar's first web keeps its array; each other web
/// gets a copy of the declaration (the same name: the code declares it once per kernel).
/// Returns the array of each web.
pub fn expand(p: &mut Program, webs: &[Web]) -> Vec<ArrayId> {
    let mut out = Vec::new();
    let mut seen: Vec<ArrayId> = Vec::new();
    for web in webs {
        let id = if seen.contains(&web.array) {
            p.arrays.push(p.arrays[web.array].clone());
            p.arrays.len() - 1
        } else {
            seen.push(web.array);
            web.array
        };
        let subscripts: Vec<PwAff> = web
            .loops
            .iter()
            .map(|l| PwAff::from_aff(Aff::var(Var::Index(p.loops[*l].iterator.clone()))))
            .collect();
        for &a in &web.accesses {
            p.accesses[a].array = id;
            p.accesses[a].subscripts = subscripts.clone();
        }
        p.arrays[id].kind = ArrayKind::Private {
            loops: web.loops.clone(),
        };
        out.push(id);
    }
    out
}

/// Whether nothing can read the value the code leaves in scalar `a`.
fn dead_after(p: &Program, a: ArrayId) -> bool {
    let array = &p.arrays[a];
    match (&p.unit.kind, &array.kind) {
        // A local of the function, or a parameter passed by value.
        (UnitKind::Function, ArrayKind::Local | ArrayKind::Outside) => true,
        (UnitKind::Scop(_), ArrayKind::Outside) => p.unit.dead_after.contains(&array.name),
        // Declared in the region: visible after it only at its top level.
        (UnitKind::Scop(_), ArrayKind::Local) => !declared_at_top_level(p, a),
        (_, ArrayKind::Private { .. }) => true,
    }
}

/// Whether `array` is declared by a statement at the top level of the unit's body (for a
/// `#pragma scop` region: in the block around the region, so visible after it).
pub fn declared_at_top_level(p: &Program, array: ArrayId) -> bool {
    p.unit
        .body
        .iter()
        .any(|s| match &p.unit.ast.stmts[*s].kind {
            crate::frontend::ast::StmtKind::Decl(d) => d
                .declarators
                .iter()
                .any(|x| x.name_span == p.arrays[array].span),
            _ => false,
        })
}

/// Whether some read of `array` can read the value it had before the code: an instance
/// of the read that no write of the code reaches.
pub fn reads_value_from_before(
    p: &Program,
    deps: &Dependences,
    ctx: &Ctx,
    array: ArrayId,
) -> Result<bool, IslError> {
    for (r, access) in p.accesses.iter().enumerate() {
        if access.is_write || access.array != array {
            continue;
        }
        let mut unreached = Set::parse(ctx, &p.domain_text(access.statement))?;
        for d in &deps.dependences {
            if d.kind == super::DepKind::Flow && d.sink_access == r {
                unreached = unreached.subtract(&Map::parse(ctx, &d.relation)?.range()?)?;
            }
        }
        if !unreached.is_empty()? {
            return Ok(true);
        }
    }
    Ok(false)
}
