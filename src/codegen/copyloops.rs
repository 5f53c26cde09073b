//! The loops of a copy of a box, written by gpucc ([`crate::transform::boxcopy`]): isl
//! places one instance of the copy per value of the loops around it, and each becomes
//! here the rounds that spread the box over the block's threads (a shared copy) or the
//! loops over each thread's own box (a register copy), with the guards that keep it
//! inside the box and the array. A wide copy moves a vector per instance: a shared one's
//! vectors are numbered in row-major order of the box and spread over the block's threads
//! in rounds, a register one's last loop steps by the width; a double-buffered copy's
//! buffer is its loop's iteration modulo 2. The nodes are those isl would give the copy's
//! statement (loops named by their schedule dimension, `c{2l+1}` for the statement's
//! level `l`; instances with the copy's iterators and the element), so the rest of
//! codegen reads them as isl's.

use super::divisions::{cmp, negative, quotient, remainder, split, sum, tidy};
use super::ir::{self, Expr, Op};
use crate::poly::affine::{Aff, Atom, Var};
use crate::poly::astbuild::AstNode;
use crate::transform::boxcopy::{thread_var, BoxCopy, BoxDim};
use crate::transform::cudaize::ThreadKind;
use crate::transform::datacopy::{DataCopy, Memory};
use crate::transform::{StmtKind, Transformed};

/// The copy statement `s` makes and its box, where gpucc writes its loops.
fn boxed(t: &Transformed, s: usize) -> Option<(&DataCopy, &BoxCopy)> {
    let st = &t.statements[s];
    let (StmtKind::CopyIn(c) | StmtKind::CopyOut(c)) = st.kind else {
        return None;
    };
    let copy = &t.copies[c];
    let simple = copy.memory == Memory::Registers || matches!(st.kind, StmtKind::CopyIn(_));
    let threads = t.kernels[copy.kernel].threads.len();
    // Every value written from the fixed names, the thread variables and parameters.
    let written = |a: &Aff| {
        a.terms.keys().all(|atom| match atom {
            Atom::Var(Var::Param(_)) => true,
            Atom::Var(v @ Var::Index(n)) => {
                copy.fixed_names.contains(n) || (0..threads).any(|d| thread_var(d) == *v)
            }
            Atom::FloorDiv(..) => false,
        })
    };
    // The fixed names: the loops around the copy (its first levels), then, for a register
    // copy, the thread variables its instances bind.
    let fixed = |b: &BoxCopy| {
        let levels = fixed_levels(b);
        let named = |n: &String| Aff::var(Var::Index(n.clone()));
        let around = (st.levels.iter().take(levels))
            .map(|(_, v)| v.clone())
            .eq(copy.fixed_names.iter().take(levels).map(named));
        let bound = copy.fixed_names[levels.min(copy.fixed_names.len())..]
            .iter()
            .all(|n| st.bindings.iter().any(|(_, v)| *v == named(n)));
        match copy.memory {
            Memory::Shared => copy.fixed_names.len() == copy.prefix.len(),
            Memory::Registers => around && bound,
        }
    };
    let b = copy.boxed.iter().find(|b| {
        simple
            && b.describes(st)
            && fixed(b)
            && (copy.offsets.iter())
                .chain(&b.extents)
                .chain(&b.coordinates)
                .all(written)
    })?;
    Some((copy, b))
}

/// The levels of a copy of `b` before the box's own: the loops around it.
fn fixed_levels(b: &BoxCopy) -> usize {
    let own = (b.dims.iter())
        .filter(|d| matches!(d, BoxDim::Threads { .. } | BoxDim::Loop { .. }))
        .count();
    let rounds = (b.dims.iter()).any(|d| matches!(d, BoxDim::Vectors { round: Some(_) }));
    b.levels.len() - own - usize::from(rounds)
}

/// A copy whose loops gpucc writes, as isl places it.
pub(super) struct Placed<'a> {
    /// Its fixed names (its first iterators).
    pub iterators: usize,
    /// The levels around the box's loops.
    pub levels: usize,
    /// The fixed names' values per instance (`{ A_shared_in[ii, kk] : ... }`, the isl
    /// text of the instances isl places).
    pub per: &'a str,
    /// Whether the block's threads share the copy (a shared one: the thread variables
    /// are not fixed by the instance, but spread its box).
    pub shared: bool,
}

/// Where gpucc writes the loops of statement `s`, a copy.
pub(super) fn placed(t: &Transformed, s: usize) -> Option<Placed<'_>> {
    let (copy, b) = boxed(t, s)?;
    Some(Placed {
        iterators: copy.fixed_names.len(),
        levels: fixed_levels(b),
        per: &b.per,
        shared: copy.memory == Memory::Shared,
    })
}

/// The copy of statement `s` at the instance whose fixed names have the values `fixed`.
pub(super) fn expand(t: &Transformed, s: usize, fixed: &[Expr]) -> Option<Vec<AstNode>> {
    let (copy, b) = boxed(t, s)?;
    let names = super::kernel_names(t, &t.kernels[copy.kernel]);
    let value = |v: &Var| -> Option<Expr> {
        match v {
            Var::Param(p) => Some(Expr::Id(p.clone())),
            Var::Index(n) => match copy.fixed_names.iter().position(|x| x == n) {
                Some(j) => fixed.get(j).cloned(),
                None => (0..names.threads.len())
                    .find(|d| thread_var(*d) == *v)
                    .map(|d| Expr::Id(names.threads[d].clone())),
            },
        }
    };
    let coordinates: Vec<Expr> = b
        .coordinates
        .iter()
        .map(|a| expr(a, &value))
        .collect::<Option<_>>()?;
    // Thread variables known not to be negative, with their largest value if known.
    let kernel = &t.kernels[copy.kernel];
    let ranges: Vec<(String, Option<i64>)> = (kernel.threads.iter().enumerate())
        .filter_map(|(d, td)| {
            let name = names.threads[d].clone();
            match td.kind {
                ThreadKind::Coordinate => Some((name, Some(td.size - 1))),
                ThreadKind::TilePoint { control } => {
                    let j = b.levels.iter().position(|l| *l == control)?;
                    b.nonnegative.get(j).copied()?.then_some((name, None))
                }
                ThreadKind::Whole => None,
            }
        })
        .collect();
    // Per dimension: the position in the box, and its loop (iterator, first and last
    // value, step); guards where the dimension has no loop, and inside a wide copy's
    // rounds, on which its clips depend.
    let mut outer: Vec<Expr> = b
        .idle
        .iter()
        .map(|d| cmp(Op::Eq, coordinates[*d].clone(), Expr::Int(0)))
        .collect();
    let mut inner: Vec<Expr> = Vec::new();
    let mut loops: Vec<Loop> = Vec::new();
    let iterator = |level: usize| format!("c{}", 2 * level + 1);
    let mut ranges = ranges;
    // A wide copy's vectors, numbered in row-major order of the box: the thread's number
    // in the block (the first thread dimension fastest), plus the block's size per round
    // ([`crate::transform::vector::distribution`]). The number is worked out in digits
    // (`__d{d}` for the thread's coordinate along dimension `d`, below its size), which
    // become the coordinates once divided.
    let mut spread: Vec<Expr> = Vec::new();
    // Whether the rounds' bounds keep the rows inside the box and the array.
    let mut rows = false;
    let round = b.dims.iter().find_map(|d| match d {
        BoxDim::Vectors { round } => Some(*round),
        _ => None,
    });
    let digit = |d: usize| format!("__d{d}");
    let mut digits = ranges.clone();
    // An expression in digits in the coordinates, its divisions tidied.
    let coordinate = |e: &Expr, ranges: &[(String, Option<i64>)]| {
        let e = (0..coordinates.len()).fold(e.clone(), |e, d| {
            ir::substitute_expr(&e, &digit(d), &coordinates[d])
        });
        tidy(&ir::simplify(&e), ranges)
    };
    if let Some(round) = round {
        let mut parts = Vec::new();
        let mut threads = 1;
        for (d, td) in kernel.threads.iter().enumerate() {
            parts.push((threads, Expr::Id(digit(d))));
            digits.push((digit(d), Some(td.size - 1)));
            threads *= td.size;
        }
        let rank = copy.sizes.len();
        let counts: Vec<i64> = (copy.sizes.iter().enumerate())
            .map(|(d, n)| if d + 1 == rank { n / copy.width } else { *n })
            .collect();
        let total: i64 = counts.iter().product();
        let mut v = sum(parts);
        match round {
            Some(level) => {
                let it = iterator(level);
                // Where each round moves whole rows of the box, and a thread's first row
                // is affine, the rows bound the rounds, clips included (`floor(v / row)`
                // is the thread's first row plus `threads / row` per round).
                let row: i64 = counts[1..].iter().product();
                let start = split(&v, row, &digits).0;
                rows = rank > 1 && threads % row == 0 && ir::linear(&start).is_some();
                let (first, last) = if rows {
                    let offset = expr(&copy.offsets[0], &value)?;
                    let extent = expr(&b.extents[0], &value)?;
                    let clip = Some((&offset, &extent, b.clips[0]));
                    bounds(copy.sizes[0], threads / row, &start, clip, &digits)
                } else {
                    bounds(total, threads, &v, None, &digits)
                };
                v = sum(vec![(1, v), (threads, Expr::Id(it.clone()))]);
                digits.push((it.clone(), None));
                ranges.push((it.clone(), None));
                let (first, last) = (coordinate(&first, &ranges), coordinate(&last, &ranges));
                loops.push((it, first, last, 1));
            }
            None if total < threads => {
                let over = sum(vec![(1, v.clone()), (-1, Expr::Int(total))]);
                outer.push(coordinate(&negative(&over, &digits), &ranges));
            }
            None => {}
        }
        let mut above = 1;
        for d in (0..rank).rev() {
            let q = split(&v, above, &digits).0;
            let x = match d {
                0 => q,
                _ => split(&q, counts[d], &digits).1,
            };
            spread.push(sum(vec![(if d + 1 == rank { copy.width } else { 1 }, x)]));
            above *= counts[d];
        }
        spread.reverse();
    }
    let (mut xs, mut elements) = (Vec::new(), Vec::new());
    for (d, dim) in b.dims.iter().enumerate() {
        let size = copy.sizes[d];
        let offset = expr(&copy.offsets[d], &value)?;
        let extent = expr(&b.extents[d], &value)?;
        let clip = Some((&offset, &extent, b.clips[d]));
        let (before, past) = b.clips[d];
        let x = match *dim {
            BoxDim::Threads {
                dim,
                size: threads,
                rounds,
                level,
            } if rounds > 1 => {
                let (it, start) = (iterator(level), coordinates[dim].clone());
                let (first, last) = bounds(size, threads, &start, clip, &ranges);
                loops.push((it.clone(), first, last, 1));
                sum(vec![(1, start), (threads, Expr::Id(it))])
            }
            BoxDim::Loop { level } => {
                let it = iterator(level);
                let (first, last) = bounds(size, 1, &Expr::Int(0), clip, &ranges);
                // A wide register copy's last loop steps from vector to vector.
                let step = if d + 1 == b.dims.len() { copy.width } else { 1 };
                loops.push((it.clone(), first, last, step));
                Expr::Id(it)
            }
            BoxDim::Threads {
                dim, size: threads, ..
            } => {
                let x = coordinates[dim].clone();
                if threads > size {
                    outer.push(cmp(Op::Lt, x.clone(), Expr::Int(size)));
                }
                x
            }
            BoxDim::One => Expr::Int(0),
            BoxDim::Vectors { round } => {
                // The clips, worked out in digits.
                let element = sum(vec![(1, offset.clone()), (1, spread[d].clone())]);
                let guards = if round.is_some() {
                    &mut inner
                } else {
                    &mut outer
                };
                if before && !(d == 0 && rows) {
                    let under = sum(vec![(-1, element.clone()), (1, Expr::Int(-1))]);
                    guards.push(coordinate(&negative(&under, &digits), &ranges));
                }
                if past && !(d == 0 && rows) {
                    let over = sum(vec![(1, element), (-1, extent.clone())]);
                    guards.push(coordinate(&negative(&over, &digits), &ranges));
                }
                coordinate(&spread[d], &ranges)
            }
        };
        let element = sum(vec![(1, offset), (1, x.clone())]);
        let guards = match dim {
            BoxDim::Loop { .. } | BoxDim::Threads { rounds: 2.., .. } | BoxDim::Vectors { .. } => {
                None
            }
            _ => Some(&mut outer),
        };
        if let Some(guards) = guards {
            if before {
                guards.push(cmp(Op::Ge, element.clone(), Expr::Int(0)));
            }
            if past {
                guards.push(cmp(Op::Lt, element.clone(), extent));
            }
        }
        xs.push(x);
        elements.push(element);
    }
    // A clip of a wide copy that does not depend on its round goes before the rounds.
    let rounds: Vec<&str> = loops.iter().map(|(it, ..)| it.as_str()).collect();
    let (inner, around): (Vec<Expr>, Vec<Expr>) = inner.into_iter().partition(|g| {
        let mut ids = Vec::new();
        ir::identifiers(g, &mut ids);
        ids.iter().any(|n| rounds.contains(&n.as_str()))
    });
    outer.extend(around);
    let kept = |guards: Vec<Expr>| -> Vec<Expr> {
        (guards.into_iter())
            .filter(|g| ir::truth(g) != Some(true))
            .collect()
    };
    let (outer, inner) = (kept(outer), kept(inner));
    // Terms in isl's order: the parameters as the kernel lists them (the program's, then
    // the host, block and thread variables), then the loops from the outermost.
    let isl = IslOrder::of(t, &names);
    let rank = |n: &str| isl.rank(n);
    let ordered = |e: &Expr| ordered(e, &rank);
    // Guards on later names after those on earlier ones, as isl sorts constraints.
    let sorted = |guards: Vec<Expr>| {
        let mut guards: Vec<Expr> = guards.iter().map(ordered).collect();
        guards.sort_by_key(|g| {
            let mut ids = Vec::new();
            ir::identifiers(g, &mut ids);
            ids.iter().map(|n| rank(n)).max()
        });
        guards
    };
    let loops: Vec<Loop> = (loops.iter())
        .map(|(it, first, last, step)| (it.clone(), ordered(first), ordered(last), *step))
        .collect();
    let mut args = fixed.to_vec();
    args.extend(xs.iter().map(ordered));
    args.extend(elements.iter().map(ordered));
    // A double-buffered copy's buffer: its loop's iteration, modulo 2.
    if let Some(name) = &copy.double {
        let j = copy.fixed_names.iter().position(|n| n == name)?;
        let k = fixed.get(j)?;
        args.push(ordered(&if b.nonnegative[j] {
            remainder(k, 2, &ranges)
        } else {
            let floor = Expr::Op(Op::FloorDiv, vec![k.clone(), Expr::Int(2)]);
            sum(vec![(1, k.clone()), (-2, floor)])
        }));
    }
    let user = AstNode::User {
        statement: t.statements[s].name.clone(),
        args,
    };
    let body = nest(&loops, guarded(sorted(inner), vec![user]));
    Some(guarded(sorted(outer), body))
}

/// A loop `(iterator, first, last, step)`.
pub(super) type Loop = (String, Expr, Expr, i64);

/// The first and last value of the loop over the positions `start + step * r` (`r`
/// from 0) of `size` positions of a box, kept inside the array where `clip` says (the
/// box's offset, the array's extent, whether the box may begin before the array and end
/// past it).
fn bounds(
    size: i64,
    step: i64,
    start: &Expr,
    clip: Option<(&Expr, &Expr, (bool, bool))>,
    ranges: &[(String, Option<i64>)],
) -> (Expr, Expr) {
    let mut lows = vec![Expr::Int(0)];
    // The last round, where only part of it is inside the box, bounded by each thread's
    // place (`start` is at least 0).
    let mut highs = vec![if (size - 1) / step * step + step > size && step > 1 {
        let left = sum(vec![(1, Expr::Int(size - 1)), (-1, start.clone())]);
        quotient(&left, step, ranges, false)
    } else {
        Expr::Int((size - 1) / step)
    }];
    if let Some((offset, extent, (before, past))) = clip {
        let beyond = sum(vec![(1, offset.clone()), (1, start.clone())]);
        if past {
            let left = sum(vec![
                (1, extent.clone()),
                (-1, beyond.clone()),
                (1, Expr::Int(-1)),
            ]);
            // After a constant, before a bound of the thread's place, as isl has them.
            let at = usize::from(matches!(highs[0], Expr::Int(_)));
            highs.insert(at, quotient(&left, step, ranges, false));
        }
        if before {
            lows.push(quotient(&beyond, step, ranges, true));
        }
    }
    (extreme(Op::Max, lows), extreme(Op::Min, highs))
}

/// The loops, the outermost first, around `body`.
pub(super) fn nest(loops: &[Loop], mut body: Vec<AstNode>) -> Vec<AstNode> {
    for (it, first, last, step) in loops.iter().rev() {
        body = vec![AstNode::For {
            iterator: it.clone(),
            init: first.clone(),
            cond: Expr::Op(Op::Le, vec![Expr::Id(it.clone()), last.clone()]),
            inc: Expr::Int(*step),
            body,
        }];
    }
    body
}

/// The order of the terms of a sum as isl writes them: the parameters as the kernel lists
/// them (the program's, then the host, block and thread variables), then the loops from
/// the outermost.
#[derive(Default)]
pub(super) struct IslOrder(Vec<String>);

impl IslOrder {
    pub(super) fn of(t: &Transformed, names: &super::names::KernelNames) -> IslOrder {
        let mut order = t.program.params.clone();
        for n in names.host.iter().chain(&names.blocks).chain(&names.threads) {
            order.push(n.clone());
        }
        IslOrder(order)
    }

    pub(super) fn rank(&self, n: &str) -> usize {
        match self.0.iter().position(|x| *x == n) {
            Some(k) => k,
            None => {
                self.0.len()
                    + n.strip_prefix('c')
                        .and_then(|d| d.parse().ok())
                        .unwrap_or(0)
            }
        }
    }

    /// `e` with its terms in this order ([`ordered`]).
    pub(super) fn ordered(&self, e: &Expr) -> Expr {
        ordered(e, &|n| self.rank(n))
    }
}

fn guarded(guards: Vec<Expr>, body: Vec<AstNode>) -> Vec<AstNode> {
    let mut guards = guards.into_iter();
    let Some(first) = guards.next() else {
        return body;
    };
    let cond = guards.fold(first, |acc, g| Expr::Op(Op::And, vec![acc, g]));
    vec![AstNode::If {
        cond,
        then_branch: body,
        else_branch: None,
    }]
}

/// `min` or `max` of the values, or the one value.
fn extreme(op: Op, mut values: Vec<Expr>) -> Expr {
    if values.len() == 1 {
        return values.pop().expect("one value");
    }
    Expr::Op(op, values)
}

/// `e` with each affine part's terms sorted by `rank` and written as isl does: a negative
/// term subtracted, the constant last (`m - 32 * ii - 1`).
fn ordered(e: &Expr, rank: &dyn Fn(&str) -> usize) -> Expr {
    let Some((mut terms, c)) = ir::linear(e) else {
        return match e {
            Expr::Op(op, args) => Expr::Op(*op, args.iter().map(|a| ordered(a, rank)).collect()),
            other => other.clone(),
        };
    };
    terms.retain(|(_, k)| *k != 0);
    terms.sort_by_key(|(n, _)| rank(n));
    let term = |n: String, k: i64| match k {
        1 => Expr::Id(n),
        k => Expr::Op(Op::Mul, vec![Expr::Int(k), Expr::Id(n)]),
    };
    let mut out: Option<Expr> = None;
    for (n, k) in terms {
        out = Some(match out {
            None => term(n, k),
            Some(acc) if k < 0 => Expr::Op(Op::Sub, vec![acc, term(n, -k)]),
            Some(acc) => Expr::Op(Op::Add, vec![acc, term(n, k)]),
        });
    }
    match (out, c) {
        (None, c) => Expr::Int(c),
        (Some(x), 0) => x,
        (Some(x), c) => Expr::Op(Op::Add, vec![x, Expr::Int(c)]),
    }
}

/// An affine form with each variable's value; `None` where one has none, or the form
/// divides.
pub(super) fn expr(a: &Aff, value: &dyn Fn(&Var) -> Option<Expr>) -> Option<Expr> {
    let mut parts = Vec::new();
    for (atom, k) in &a.terms {
        match atom {
            Atom::Var(v) => parts.push((*k, value(v)?)),
            Atom::FloorDiv(..) => return None,
        }
    }
    parts.push((1, Expr::Int(a.constant)));
    Some(sum(parts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::divisions::tests::eval;

    #[test]
    fn terms_come_in_isls_order_with_the_constant_last() {
        let rank = |n: &str| ["m", "ii", "tx"].iter().position(|x| *x == n).unwrap_or(9);
        let e = ir::from_linear(&[("tx", 1), ("ii", -32), ("m", 1)], -1);
        let o = ordered(&e, &rank);
        let sub = |a, b| Expr::Op(Op::Sub, vec![a, b]);
        let add = |a, b| Expr::Op(Op::Add, vec![a, b]);
        let ii = Expr::Op(Op::Mul, vec![Expr::Int(32), Expr::Id("ii".into())]);
        assert_eq!(
            o,
            add(
                add(sub(Expr::Id("m".into()), ii), Expr::Id("tx".into())),
                Expr::Int(-1)
            )
        );
        let at = |n: &str| {
            [("m", 100), ("ii", 2), ("tx", 5)]
                .iter()
                .find(|(x, _)| *x == n)
                .unwrap()
                .1
        };
        assert_eq!(eval(&o, &at), eval(&e, &at));
    }
}
