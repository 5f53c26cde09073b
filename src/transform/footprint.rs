//! The footprint of a data copy: the elements of its array that the statements inside the
//! copy's loop access, per value of the loops around the copy (and, for registers, per
//! thread), as an isl relation from those values to the elements.
//!
//! What isl finds about a footprint (its box, whether threads share it, whether its
//! vectors are whole, the copy's instances) depends on the footprint's texts only, and is
//! kept by them for the rest of the process: the strategy generator compiles every variant
//! of a program from the start, so a copy in a nest that the variant leaves alone asks the
//! same questions again (mm2: 199 copies made in its ranking, of 65 distinct footprints).

use super::registers::{check_private_to_threads, lattice_box, LatticeBox};
use super::{StmtKind, TResult, Transformed};
use crate::poly::affine::{isl_name, Aff};
use crate::poly::isl::{Ctx, Map, Set};
use crate::poly::memo::Memo;
use crate::poly::{AccessId, Array, ArrayId};
use std::cell::OnceCell;

/// One access of the array by a statement in the copy's scope.
struct Part {
    write: bool,
    /// The transformed statement.
    statement: usize,
    /// `{ S0[i, j] -> [[ii, jj] -> A[__e0, __e1]] : ii = ... and __e0 = i }`
    relation: String,
    /// The statement's iteration domain.
    domain: String,
}

/// The footprint of one copy, read by isl only when a question about it is not known.
pub(super) struct Footprints<'a> {
    ctx: &'a Ctx,
    parts: Vec<Part>,
    /// Everything the relations are read from: the memos' key.
    key: String,
    all: OnceCell<Map>,
}

impl<'a> Footprints<'a> {
    /// The accesses of `array` by the scope's statements (`(statement, _)`), or those of
    /// them in `only`; `values(j, i)` is the value (isl text) of fixed name `names[j]` at an
    /// instance of the scope's `i`-th statement.
    pub fn new(
        ctx: &'a Ctx,
        t: &Transformed,
        scope: &[(usize, usize)],
        names: &[String],
        values: &dyn Fn(usize, usize) -> String,
        array: ArrayId,
        only: Option<&[AccessId]>,
    ) -> Footprints<'a> {
        let p = &t.program;
        let name = isl_name(&p.arrays[array].name);
        let mut parts = Vec::new();
        for (i, (s, _)) in scope.iter().enumerate() {
            let StmtKind::Compute(id) = t.statements[*s].kind else {
                continue;
            };
            let st = &p.statements[id];
            for a in std::iter::once(&st.write).chain(&st.reads) {
                let access = &p.accesses[*a];
                if access.array != array || only.is_some_and(|o| !o.contains(a)) {
                    continue;
                }
                let mut conds: Vec<String> = names
                    .iter()
                    .enumerate()
                    .map(|(j, n)| format!("{n} = {}", values(j, i)))
                    .collect();
                let outs: Vec<String> = (0..access.subscripts.len())
                    .map(|k| format!("__e{k}"))
                    .collect();
                for (k, sub) in access.subscripts.iter().enumerate() {
                    conds.push(sub.equals_text(&outs[k]));
                }
                parts.push(Part {
                    write: access.is_write,
                    statement: *s,
                    relation: format!(
                        "{}{{ {} -> [[{}] -> {name}[{}]] : {} }}",
                        t.params_prefix(),
                        t.tuple(*s),
                        names.join(", "),
                        outs.join(", "),
                        conds.join(" and ")
                    ),
                    domain: t.statements[*s].domain.clone(),
                });
            }
        }
        let mut key = String::new();
        for part in &parts {
            key.push_str(if part.write { "w\n" } else { "r\n" });
            key.push_str(&part.relation);
            key.push('\n');
            key.push_str(&part.domain);
            key.push('\n');
        }
        Footprints {
            ctx,
            parts,
            key,
            all: OnceCell::new(),
        }
    }

    /// Whether the scope reads (`reads`) or writes (`writes`) the array at all.
    pub fn any(&self, reads: bool, writes: bool) -> bool {
        self.parts.iter().any(|x| wanted(x, reads, writes, None))
    }

    /// The elements the reads and/or writes (of statement `only`) access; `None` where
    /// there are none.
    pub fn map(&self, reads: bool, writes: bool, only: Option<usize>) -> TResult<Option<Map>> {
        let mut all: Option<Map> = None;
        for part in self.parts.iter().filter(|x| wanted(x, reads, writes, only)) {
            let m = Map::parse(self.ctx, &part.relation)?
                .intersect_domain(&Set::parse(self.ctx, &part.domain)?)?
                .range_unwrapped()?;
            all = Some(match all {
                None => m,
                Some(x) => x.union(&m)?,
            });
        }
        Ok(all)
    }

    /// Every element the scope accesses.
    pub fn all(&self) -> TResult<&Map> {
        if self.all.get().is_none() {
            let all = self
                .map(true, true, None)?
                .expect("the scope uses the array");
            let _ = self.all.set(all);
        }
        Ok(self.all.get().expect("set above"))
    }

    /// The box of every element (registers: of the lattice of a thread's elements), per
    /// value of the fixed names; `None` where it has no constant size.
    pub fn bounding_box(
        &self,
        t: &Transformed,
        names: &[String],
        array: &str,
        lattice: bool,
    ) -> TResult<Option<LatticeBox>> {
        let key = format!("{lattice}\n{names:?}\n{array}\n{}", self.key);
        BOXES.get_or(key, || {
            let all = self.all()?;
            if lattice {
                lattice_box(t, self.ctx, all, names, array)
            } else {
                Ok(all.range_fixed_box(names)?.map(|(offsets, sizes)| {
                    let dense = vec![1; sizes.len()];
                    (offsets, sizes, dense)
                }))
            }
        })
    }

    /// [`check_private_to_threads`] of every element (a pass is kept, a refusal asked
    /// again).
    pub fn check_private(
        &self,
        t: &Transformed,
        threads: &[bool],
        names: &[String],
        array: &str,
        written: bool,
    ) -> TResult<()> {
        let key = format!("{threads:?}\n{names:?}\n{array}\n{written}\n{}", self.key);
        PASSED.get_or(key, || {
            check_private_to_threads(t, self.ctx, threads, names, self.all()?, array, written)
        })
    }

    /// [`super::vector::check`] of every element (a pass is kept).
    #[allow(clippy::too_many_arguments)]
    pub fn check_vectors(
        &self,
        params_prefix: &str,
        array: &Array,
        names: &[String],
        offsets: &[Aff],
        sizes: &[i64],
        dims: &[i64],
        width: i64,
    ) -> TResult<()> {
        let key = format!(
            "vector\n{}\n{:?}\n{:?}\n{names:?}\n{offsets:?}\n{sizes:?}\n{dims:?}\n{width}\n{}",
            array.name, array.elem, array.extents, self.key
        );
        PASSED.get_or(key, || {
            super::vector::check(
                params_prefix,
                self.ctx,
                array,
                self.all()?,
                names,
                offsets,
                sizes,
                dims,
                width,
            )
        })
    }

    /// The instances of a copy of the reads (`reads`) or the writes: `instance`, the
    /// isl text of a relation from the footprint's wrapped pairs to the copy's instances,
    /// applied to them; the domain as isl text, and whether it is the box (below).
    ///
    /// With an exact `hull` (a register copy's), the footprint is copied and the flag
    /// says whether it is the box. With another (a shared copy-in's), a footprint that
    /// spans its box along every
    /// dimension is copied as the box instead. A stencil's footprint is a union of shifted
    /// boxes (a 3-D seven-point stencil's, a cross of seven), and isl's AST for copying
    /// exactly that union took 3 s a kernel (`stencil3d_heat.c`), with loop bounds of a
    /// dozen `min`s and `max`es each; the box's took 80 ms, and its few extra elements (the
    /// cross's corners: 5% there) are elements of the array, read and never used. A
    /// footprint that is its box (a nine-point stencil's nine boxes fill it) is copied as
    /// the box too: the same elements, but isl's text of the union split the copy into five
    /// cases and made its AST three times as slow to build. A footprint with a gap along
    /// some dimension keeps its exact copy: its box may be most of the array (reads far
    /// apart, like SYRK's `A[i][k]` and `A[j][k]`, get copies of their own before that:
    /// `datacopy`'s reference groups).
    pub fn instances(
        &self,
        reads: bool,
        instance: &str,
        hull: Option<&Hull>,
    ) -> TResult<(String, bool)> {
        let key = format!("{reads}\n{instance}\n{hull:?}\n{}", self.key);
        INSTANCES.get_or(key, || {
            let fp = self
                .map(reads, !reads, None)?
                .expect("a copy is made of accesses it has")
                .wrapped()?;
            let copied = match hull.filter(|h| reads || h.exact) {
                None => (fp, false),
                Some(hull) => {
                    let boxed = Map::parse(self.ctx, &hull.boxed)?
                        .intersect_domain(&fp.unwrapped()?.domain()?)?
                        .wrapped()?;
                    if hull.exact {
                        // A register copy copies its footprint; that it is its box
                        // (clipped to the array) lets gpucc write its loops.
                        let equal =
                            boxed.subtract(&fp)?.is_empty()? && fp.subtract(&boxed)?.is_empty()?;
                        (fp, equal)
                    } else {
                        let mut spans = true;
                        for p in &hull.projections {
                            if !spans {
                                break;
                            }
                            let along = Map::parse(self.ctx, p)?;
                            spans = boxed
                                .apply(&along)?
                                .subtract(&fp.apply(&along)?)?
                                .is_empty()?;
                        }
                        if spans {
                            (boxed, true)
                        } else {
                            (fp, false)
                        }
                    }
                }
            };
            let (copied, boxed) = copied;
            Ok((
                copied.apply(&Map::parse(self.ctx, instance)?)?.to_string(),
                boxed,
            ))
        })
    }
}

/// The reads of `array` by the scope's statements, in groups whose subscripts differ by
/// constants (uniformly generated references): a stencil's reads make one group, SYRK's
/// `A[i][k]` and `A[j][k]` two.
pub(super) fn reference_groups(
    t: &Transformed,
    scope: &[(usize, usize)],
    array: ArrayId,
) -> Vec<Vec<AccessId>> {
    let p = &t.program;
    let near = |a: AccessId, b: AccessId| {
        let (x, y) = (&p.accesses[a].subscripts, &p.accesses[b].subscripts);
        x.len() == y.len()
            && x.iter()
                .zip(y)
                .all(|(x, y)| match (x.as_aff(), y.as_aff()) {
                    (Some(x), Some(y)) => x.sub(y).ok().and_then(|d| d.as_constant()).is_some(),
                    _ => false,
                })
    };
    let mut groups: Vec<Vec<AccessId>> = Vec::new();
    for (s, _) in scope {
        let StmtKind::Compute(id) = t.statements[*s].kind else {
            continue;
        };
        for &a in &p.statements[id].reads {
            if p.accesses[a].array != array {
                continue;
            }
            match groups.iter_mut().find(|g| near(g[0], a)) {
                Some(g) => g.push(a),
                None => groups.push(vec![a]),
            }
        }
    }
    groups
}

/// The box a copy-in may copy instead of its footprint ([`Footprints::instances`]).
#[derive(Debug)]
pub struct Hull {
    /// `{ [fixed] -> A[e] : ... }`: the footprint's box, clipped to the array's bounds.
    pub boxed: String,
    /// For each dimension `d`, `{ [[fixed] -> A[e]] -> [[fixed] -> A[e_d]] }`.
    pub projections: Vec<String>,
    /// Only say whether the footprint is the box, and copy the footprint (a register
    /// copy, in or out).
    pub exact: bool,
}

fn wanted(part: &Part, reads: bool, writes: bool, only: Option<usize>) -> bool {
    (if part.write { writes } else { reads }) && only.is_none_or(|o| o == part.statement)
}

/// Footprints' boxes, by their texts.
static BOXES: Memo<Option<LatticeBox>> = Memo::new(4096);
/// The checks of footprints that passed, by their texts and settings.
static PASSED: Memo<()> = Memo::new(4096);
/// Copies' instances, by their texts.
static INSTANCES: Memo<(String, bool)> = Memo::new(4096);
