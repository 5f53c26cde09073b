//! The points of a tile, written by gpucc: the innermost loops of a source statement
//! that run over the tile of an outer loop (`r = i` inside `t = floor(i / R)`: a register
//! tile's points, the `k` of a shared tile). isl places one instance per tile, at its
//! first point, and each becomes here the loops over the tile, with the bounds isl wrote
//! for them (`c4 <= min(899, 8 * it1 + 7)`). A register-tiled product's AST spent most of
//! its time on those loops (`benchmarks/profiles/compile-2026-11-29-points.md`). The
//! nodes are those isl would give the statement (loops named by their schedule
//! dimension, `c{2l+1}` for level `l`), so the rest of codegen (unrolling included)
//! reads them as isl's.

use super::copyloops::{expr, nest, IslOrder};
use super::divisions::sum;
use super::ir::{Expr, Op};
use crate::poly::affine::{Aff, Atom, Cond, Var};
use crate::poly::astbuild::AstNode;
use crate::transform::{LevelId, StmtKind, Transformed};

/// A source statement whose innermost loops, the points of a tile, gpucc writes.
pub(super) struct Points {
    /// The statement's levels around the tile's loops.
    pub levels: usize,
    pub dims: Vec<PointDim>,
    /// The statement's values in a kernel: its iterators, then its copy indices.
    pub values: usize,
}

/// One loop over a tile's points.
pub(super) struct PointDim {
    /// The statement's iterator the loop runs.
    pub iterator: usize,
    /// The tile's size: the outer loop's value is `floor(x / size)`.
    pub size: i64,
    /// The domain's first value of the iterator (a multiple of `size`).
    pub first: i64,
    /// The domain's last value of the iterator, where it cuts some tile.
    pub last: Option<Aff>,
    /// Whether the outer level is a variable of the kernel (a block's or a thread's), not
    /// a loop.
    pub bound: bool,
    /// The statement's values that move with the point (the iterator, the copy indices
    /// that read it), each with its coefficient of the iterator.
    pub moves: Vec<(usize, i64)>,
}

impl PointDim {
    /// Whether the statement is placed at every tile the kernel's variables give, its
    /// loop empty where the tile is past the domain's last value: isl writes no guard
    /// for the tiles of a loop whose bound cuts them.
    pub fn unguarded(&self) -> bool {
        self.last.is_some() && self.bound
    }
}

/// The points of statement `s` that gpucc writes, if any: its innermost levels, each a
/// loop (not a block's or a thread's variable) running an iterator of the statement over
/// the tile an outer level makes of it, with no other statement in these loops; the
/// domain the program's, a range of each such iterator from a multiple of the tile's size
/// to a bound in the parameters; the outer levels constant over a tile and the copy
/// indices affine in its points.
pub(super) fn points(t: &Transformed, s: usize) -> Option<Points> {
    let st = &t.statements[s];
    let StmtKind::Compute(id) = st.kind else {
        return None;
    };
    let n = st.levels.len();
    let iterator_of = |v: &Aff| -> Option<usize> {
        let (atom, k) = v.terms.iter().next()?;
        match (atom, k, v.terms.len(), v.constant) {
            (Atom::Var(Var::Index(x)), 1, 1, 0) => st.iterators.iter().position(|i| i == x),
            _ => None,
        }
    };
    let kernel = &t.kernels[t.kernel_of(s)?];
    // A level the kernel runs as a block's or a thread's variable, not as a loop.
    let bound = |l: LevelId| {
        kernel.blocks.contains(&l)
            || kernel.host_levels.contains(&l)
            || (0..kernel.threads.len()).any(|d| kernel.thread_level(d, s) == Some(l))
    };
    let mut m = n;
    while m > 0 && !bound(st.levels[m - 1].0) && iterator_of(&st.levels[m - 1].1).is_some() {
        m -= 1;
    }
    if m == n {
        return None;
    }
    // No other statement in the tile's loops: none with the same loops down to them.
    let level_ids = |levels: &[(LevelId, Aff)]| levels.iter().map(|(l, _)| *l).collect::<Vec<_>>();
    let around = level_ids(&st.levels[..=m]);
    let shared = (t.statements.iter().enumerate())
        .any(|(o, x)| o != s && x.levels.len() > m && level_ids(&x.levels[..=m]) == around);
    if shared || st.domain != t.program.domain_text(id) {
        return None;
    }
    let mut atoms = Vec::new();
    conjuncts(&t.program.statements[id].domain, &mut atoms)?;
    let extras = t.extra_values(s);
    let mut dims = Vec::new();
    for (_, value) in &st.levels[m..] {
        let iterator = iterator_of(value)?;
        let x = Var::Index(st.iterators[iterator].clone());
        let (control, size) = st.levels[..m]
            .iter()
            .find_map(|(l, v)| Some((*l, tile_of(v, &x)?)))?;
        let outer_steady = st.levels[..m].iter().all(|(_, v)| steady(v, &x, size));
        let extras_affine = extras
            .iter()
            .all(|e| e.terms.keys().all(|a| atom_steady(a, &x, size)));
        if !outer_steady || !extras_affine {
            return None;
        }
        let (first, last) = range(&atoms, &x)?;
        if first.rem_euclid(size) != 0 {
            return None;
        }
        // A constant range of whole tiles is never cut.
        let cut = match last.as_constant() {
            Some(l) => (l - first + 1).rem_euclid(size) != 0,
            None => true,
        };
        let moves = std::iter::once((iterator, 1))
            .chain(
                (extras.iter().enumerate())
                    .map(|(j, e)| (st.iterators.len() + j, e.coefficient(&x).0)),
            )
            .filter(|(_, c)| *c != 0)
            .collect();
        dims.push(PointDim {
            iterator,
            size,
            first,
            last: cut.then_some(last),
            bound: bound(control),
            moves,
        });
    }
    Some(Points {
        levels: m,
        dims,
        values: st.iterators.len() + extras.len(),
    })
}

/// The conjuncts of `c` (`None` where it has a disjunction).
fn conjuncts<'a>(c: &'a Cond, out: &mut Vec<&'a Cond>) -> Option<()> {
    match c {
        Cond::True => Some(()),
        Cond::And(parts) => parts.iter().try_for_each(|p| conjuncts(p, out)),
        Cond::NonNeg(_) | Cond::Zero(_) => {
            out.push(c);
            Some(())
        }
        Cond::False | Cond::Or(_) => None,
    }
}

/// `size` where `v` is `floor(x / size)`.
fn tile_of(v: &Aff, x: &Var) -> Option<i64> {
    let (atom, k) = v.terms.iter().next()?;
    match (atom, k, v.terms.len(), v.constant) {
        (Atom::FloorDiv(inner, size), 1, 1, 0) if **inner == Aff::var(x.clone()) && *size > 1 => {
            Some(*size)
        }
        _ => None,
    }
}

/// Whether `a` has one value over each tile of `size` points of `x` (aligned at 0).
fn steady(a: &Aff, x: &Var, size: i64) -> bool {
    a.coefficient(x).0 == 0 && a.terms.keys().all(|atom| atom_steady(atom, x, size))
}

/// Whether `atom` has one value over each tile of `x`, or is `x` itself.
fn atom_steady(atom: &Atom, x: &Var, size: i64) -> bool {
    match atom {
        Atom::Var(_) => true,
        Atom::FloorDiv(inner, d) => {
            !inner.involves(x)
                || (**inner == Aff::var(x.clone()) && d % size == 0)
                || steady(inner, x, size)
        }
    }
}

/// The first value of `x` in the domain (a constant) and its last (in the parameters):
/// every conjunct with `x` bounds it alone.
fn range(atoms: &[&Cond], x: &Var) -> Option<(i64, Aff)> {
    let (mut first, mut last) = (None, None);
    for c in atoms {
        let Cond::NonNeg(a) = c else {
            if let Cond::Zero(a) = c {
                if a.involves(x) {
                    return None;
                }
            }
            continue;
        };
        let (k, inside) = a.coefficient(x);
        if inside {
            return None;
        }
        if k == 0 {
            continue;
        }
        // a = k * x + rest >= 0, the rest in the parameters.
        let rest = a.sub(&Aff::var(x.clone()).scale(k).ok()?).ok()?;
        if !rest
            .terms
            .keys()
            .all(|atom| matches!(atom, Atom::Var(Var::Param(_))))
        {
            return None;
        }
        match k {
            1 if first.is_none() => first = Some(rest.scale(-1).ok()?.as_constant()?),
            -1 if last.is_none() => last = Some(rest),
            _ => return None,
        }
    }
    Some((first?, last?))
}

/// Statement `s` at the first point of each tile, as isl placed it (`args`: its
/// iterators, its copy indices, and the mark [`points_mark`] added): the loops over the
/// tile's points around the statement.
pub(super) fn expand(t: &Transformed, s: usize, args: &[Expr]) -> Option<Vec<AstNode>> {
    let p = points(t, s)?;
    if args.len() != p.values + 1 {
        return None;
    }
    let k = t.kernel_of(s)?;
    let isl = IslOrder::of(t, &super::kernel_names(t, &t.kernels[k]));
    let param = |v: &Var| match v {
        Var::Param(n) => Some(Expr::Id(n.clone())),
        Var::Index(_) => None,
    };
    let mut args: Vec<Expr> = args[..args.len() - 1].to_vec();
    let mut moved = vec![false; args.len()];
    let mut loops = Vec::new();
    for (d, dim) in p.dims.iter().enumerate() {
        let it = format!("c{}", 2 * (p.levels + d) + 1);
        let origin = args[dim.iterator].clone();
        let end = isl.ordered(&sum(vec![
            (1, origin.clone()),
            (1, Expr::Int(dim.size - 1)),
        ]));
        let last = match &dim.last {
            Some(last) => Expr::Op(Op::Min, vec![isl.ordered(&expr(last, &param)?), end]),
            None => end,
        };
        loops.push((it.clone(), origin.clone(), last, 1));
        // Each value moves with the point: by its coefficient of the iterator.
        let step = sum(vec![(1, Expr::Id(it)), (-1, origin)]);
        for &(j, c) in &dim.moves {
            args[j] = sum(vec![(1, args[j].clone()), (c, step.clone())]);
            moved[j] = true;
        }
    }
    for (a, m) in args.iter_mut().zip(&moved) {
        if *m {
            *a = isl.ordered(a);
        }
    }
    let statement = t.statements[s].name.clone();
    Some(nest(&loops, vec![AstNode::User { statement, args }]))
}

/// The copy index that marks a statement placed at its tiles ([`expand`]): an extra
/// value, 0, so that isl's instance has one argument more than the statement's.
pub(super) fn points_mark() -> Aff {
    Aff::constant(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(n: &str) -> Aff {
        Aff::var(Var::Index(n.into()))
    }

    #[test]
    fn a_tile_is_an_outer_loop_of_the_iterator_divided() {
        let i = Var::Index("i".into());
        assert_eq!(tile_of(&var("i").floor_div(8), &i), Some(8));
        assert_eq!(tile_of(&var("j").floor_div(8), &i), None);
        let shifted = var("i").floor_div(8).add(&Aff::constant(1)).unwrap();
        assert_eq!(tile_of(&shifted, &i), None);
        assert_eq!(
            tile_of(&var("i").add(&Aff::constant(1)).unwrap().floor_div(8), &i),
            None
        );
    }

    #[test]
    fn values_of_whole_tiles_are_steady_and_finer_ones_are_not() {
        let i = Var::Index("i".into());
        // The block's tile of the thread's tile, and a coarser division of the point.
        assert!(steady(&var("i").floor_div(8).floor_div(8), &i, 8));
        assert!(steady(&var("i").floor_div(16), &i, 8));
        assert!(steady(&var("k").floor_div(4), &i, 8));
        // Finer than the tile, or the point itself.
        assert!(!steady(&var("i").floor_div(4), &i, 8));
        assert!(!steady(&var("i"), &i, 8));
        assert!(!steady(
            &var("i").add(&var("j")).unwrap().floor_div(16),
            &i,
            8
        ));
    }

    #[test]
    fn the_range_is_a_constant_start_and_an_end_in_the_parameters() {
        let i = Var::Index("i".into());
        let n = Aff::var(Var::Param("ni".into()));
        let from_0 = Cond::NonNeg(var("i"));
        let to_799 = Cond::NonNeg(Aff::constant(799).sub(&var("i")).unwrap());
        let to_n = Cond::NonNeg(n.sub(&var("i")).unwrap().add(&Aff::constant(-1)).unwrap());
        let (first, last) = range(&[&from_0, &to_799], &i).unwrap();
        assert_eq!((first, last.as_constant()), (0, Some(799)));
        let (_, last) = range(&[&from_0, &to_n], &i).unwrap();
        assert_eq!(last, n.add(&Aff::constant(-1)).unwrap());
        // Bounded by another iterator (a triangle), or twice: not a range of tiles.
        let below_j = Cond::NonNeg(var("j").sub(&var("i")).unwrap());
        assert!(range(&[&from_0, &below_j], &i).is_none());
        assert!(range(&[&from_0, &to_799, &to_n], &i).is_none());
        // No end.
        assert!(range(&[&from_0], &i).is_none());
    }
}
