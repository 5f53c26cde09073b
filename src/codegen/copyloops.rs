//! The loops of a copy of a box, written by gpucc ([`crate::transform::boxcopy`]): isl
//! places one instance of the copy per value of the loops around it, and each becomes
//! here the rounds that spread the box over the block's threads (a shared copy) or the
//! loops over each thread's own box (a register copy), with the guards that keep it
//! inside the box and the array. The nodes are those isl would give the copy's
//! statement (loops named by their schedule dimension, `c{2l+1}` for the statement's
//! level `l`; instances with the copy's iterators and the element), so the rest of
//! codegen reads them as isl's.

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
    let simple = (copy.memory == Memory::Registers || matches!(st.kind, StmtKind::CopyIn(_)))
        && copy.width == 1
        && copy.double.is_none()
        && !copy.asynchronous;
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
    let own = b.dims.iter().filter(|d| !matches!(d, BoxDim::One)).count();
    b.levels.len() - own
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
    // value); guards where the dimension has no loop.
    let mut outer: Vec<Expr> = b
        .idle
        .iter()
        .map(|d| cmp(Op::Eq, coordinates[*d].clone(), Expr::Int(0)))
        .collect();
    let mut loops: Vec<(String, Expr, Expr)> = Vec::new();
    let (mut xs, mut elements) = (Vec::new(), Vec::new());
    for (d, dim) in b.dims.iter().enumerate() {
        let size = copy.sizes[d];
        let offset = expr(&copy.offsets[d], &value)?;
        let extent = expr(&b.extents[d], &value)?;
        let (before, past) = b.clips[d];
        let iterator = |level: usize| format!("c{}", 2 * level + 1);
        // The values of `step * r + start` (r from 0) inside the box and the array.
        let mut bounded = |level: usize, step: i64, start: Expr| -> Expr {
            let it = iterator(level);
            let mut lows = vec![Expr::Int(0)];
            let beyond = sum(vec![(1, offset.clone()), (1, start.clone())]);
            // The last round, where only part of it is inside the box, bounded by each
            // thread's place (`start` is at least 0).
            let mut highs = vec![if (size - 1) / step * step + step > size && step > 1 {
                let left = sum(vec![(1, Expr::Int(size - 1)), (-1, start.clone())]);
                quotient(&left, step, &ranges, false)
            } else {
                Expr::Int((size - 1) / step)
            }];
            if past {
                let left = sum(vec![
                    (1, extent.clone()),
                    (-1, beyond.clone()),
                    (1, Expr::Int(-1)),
                ]);
                // After a constant, before a bound of the thread's place, as isl has them.
                let at = usize::from(matches!(highs[0], Expr::Int(_)));
                highs.insert(at, quotient(&left, step, &ranges, false));
            }
            if before {
                lows.push(quotient(&beyond, step, &ranges, true));
            }
            let x = sum(vec![(1, start), (step, Expr::Id(it.clone()))]);
            loops.push((it, extreme(Op::Max, lows), extreme(Op::Min, highs)));
            x
        };
        let x = match *dim {
            BoxDim::Threads {
                dim,
                size: threads,
                rounds,
                level,
            } if rounds > 1 => bounded(level, threads, coordinates[dim].clone()),
            BoxDim::Loop { level } => bounded(level, 1, Expr::Int(0)),
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
        };
        let element = sum(vec![(1, offset), (1, x.clone())]);
        if !matches!(
            dim,
            BoxDim::Loop { .. } | BoxDim::Threads { rounds: 2.., .. }
        ) {
            if before {
                outer.push(cmp(Op::Ge, element.clone(), Expr::Int(0)));
            }
            if past {
                outer.push(cmp(Op::Lt, element.clone(), extent));
            }
        }
        xs.push(x);
        elements.push(element);
    }
    outer.retain(|g| ir::truth(g) != Some(true));
    // Terms in isl's order: the parameters as the kernel lists them (the program's, then
    // the host, block and thread variables), then the loops from the outermost.
    let isl = IslOrder::of(t, &names);
    let rank = |n: &str| isl.rank(n);
    let ordered = |e: &Expr| ordered(e, &rank);
    let mut outer: Vec<Expr> = outer.iter().map(ordered).collect();
    // Guards on later names after those on earlier ones, as isl sorts constraints.
    outer.sort_by_key(|g| {
        let mut ids = Vec::new();
        ir::identifiers(g, &mut ids);
        ids.iter().map(|n| rank(n)).max()
    });
    let loops: Vec<(String, Expr, Expr)> = (loops.iter())
        .map(|(it, first, last)| (it.clone(), ordered(first), ordered(last)))
        .collect();
    let mut args = fixed.to_vec();
    args.extend(xs.iter().map(ordered));
    args.extend(elements.iter().map(ordered));
    let body = nest(&loops, t.statements[s].name.clone(), args);
    Some(guarded(outer, body))
}

/// The loops `(iterator, first, last)`, the outermost first, around one instance of
/// `statement`.
pub(super) fn nest(
    loops: &[(String, Expr, Expr)],
    statement: String,
    args: Vec<Expr>,
) -> Vec<AstNode> {
    let mut body = vec![AstNode::User { statement, args }];
    for (it, first, last) in loops.iter().rev() {
        body = vec![AstNode::For {
            iterator: it.clone(),
            init: first.clone(),
            cond: Expr::Op(Op::Le, vec![Expr::Id(it.clone()), last.clone()]),
            inc: Expr::Int(1),
            body,
        }];
    }
    body
}

/// The order of the terms of a sum as isl writes them: the parameters as the kernel lists
/// them (the program's, then the host, block and thread variables), then the loops from
/// the outermost.
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

/// `floor(e / d)` for a linear `e` (negated with `negate`): the terms with multiples of
/// `d` divided out, the rest divided as C does where it is never negative (`ranges`: names
/// never negative, with their largest value where known), or shifted by a multiple of `d`
/// to be so, as isl writes it (`62 - (it + 8) / 16` for `floor((999 - it) / 16)`).
fn quotient(e: &Expr, d: i64, ranges: &[(String, Option<i64>)], negate: bool) -> Expr {
    let sign = if negate { -1 } else { 1 };
    let Some((terms, c)) = ir::linear(e) else {
        let q = Expr::Op(Op::FloorDiv, vec![e.clone(), Expr::Int(d)]);
        return if negate {
            Expr::Op(Op::Neg, vec![q])
        } else {
            q
        };
    };
    let (whole, rest): (Vec<_>, Vec<_>) = terms.into_iter().partition(|(_, k)| k % d == 0);
    let whole: Vec<(String, i64)> = whole.into_iter().map(|(n, k)| (n, sign * k / d)).collect();
    let range = |n: &str| ranges.iter().find(|(x, _)| x == n).map(|(_, hi)| *hi);
    // The least (`most` false) or most value of the rest over the names' ranges.
    let value = |most: bool| {
        rest.iter().try_fold(c, |acc, (n, k)| {
            let hi = range(n)?;
            Some(acc + if (*k > 0) == most { k * hi? } else { 0 })
        })
    };
    let (least, most) = (value(false), value(true));
    // One quotient over every value (`ty / 8` for `ty < 8`; every term divided out).
    if let (Some(lo), Some(hi)) = (least, most) {
        if lo.div_euclid(d) == hi.div_euclid(d) {
            return ir::from_linear(&whole, sign * lo.div_euclid(d));
        }
    }
    let signed = |rest: &[(String, i64)]| rest.iter().all(|(n, k)| range(n).is_some() && *k > 0);
    let negated: Vec<(String, i64)> = rest.iter().map(|(n, k)| (n.clone(), -k)).collect();
    let (q, r) = (c.div_euclid(d), c.rem_euclid(d));
    // floor(e / d) = constant + added * (dividend / d), divided as C does only where the
    // dividend is never negative.
    let (constant, added, op, dividend) =
        if c >= 0 && signed(&rest) || least.is_some_and(|l| l >= 0) && !signed(&negated) {
            (0, 1, Op::PosDiv, ir::from_linear(&rest, c))
        } else if signed(&rest) {
            // floor((v + c) / d) = q + (v + r) / d, c = q * d + r, v >= 0.
            (q, 1, Op::PosDiv, ir::from_linear(&rest, r))
        } else if signed(&negated) {
            // floor((c - v) / d) = q - (v + d - 1 - r) / d.
            (q, -1, Op::PosDiv, ir::from_linear(&negated, d - 1 - r))
        } else {
            (0, 1, Op::FloorDiv, ir::from_linear(&rest, c))
        };
    let constant = sign * constant;
    // As isl writes it, the constant last (`jj - (j + 252) / 256 + 1`), which the CUDA
    // writer turns into `<` bounds (`< jj - (j + 252) / 256 + 2`), as nvcc has them.
    let q = Expr::Op(op, vec![dividend, Expr::Int(d)]);
    let subtract = added * sign < 0;
    let e = match (whole.is_empty(), subtract) {
        (true, false) => q,
        (true, true) => Expr::Op(Op::Neg, vec![q]),
        (false, false) => Expr::Op(Op::Add, vec![ir::from_linear(&whole, 0), q]),
        (false, true) => Expr::Op(Op::Sub, vec![ir::from_linear(&whole, 0), q]),
    };
    match constant {
        0 => e,
        c => Expr::Op(Op::Add, vec![e, Expr::Int(c)]),
    }
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

fn cmp(op: Op, a: Expr, b: Expr) -> Expr {
    ir::simplify(&Expr::Op(op, vec![a, b]))
}

/// `sum(k * e)`, its affine parts in canonical form.
pub(super) fn sum(parts: Vec<(i64, Expr)>) -> Expr {
    let e = parts
        .into_iter()
        .filter(|(k, _)| *k != 0)
        .map(|(k, e)| match k {
            1 => e,
            k => Expr::Op(Op::Mul, vec![Expr::Int(k), e]),
        })
        .reduce(|acc, x| Expr::Op(Op::Add, vec![acc, x]))
        .unwrap_or(Expr::Int(0));
    ir::simplify(&e)
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

    /// The value of an expression, dividing as C does (`/` truncates).
    fn eval(e: &Expr, at: &dyn Fn(&str) -> i64) -> i64 {
        let arg = |k: usize| match e {
            Expr::Op(_, args) => eval(&args[k], at),
            _ => unreachable!(),
        };
        match e {
            Expr::Int(v) => *v,
            Expr::Id(n) => at(n),
            Expr::Op(op, args) => match op {
                Op::Add => args.iter().map(|a| eval(a, at)).sum(),
                Op::Sub => arg(0) - arg(1),
                Op::Mul => arg(0) * arg(1),
                Op::Neg => -arg(0),
                Op::PosDiv => arg(0) / arg(1),
                Op::FloorDiv => arg(0).div_euclid(arg(1)),
                Op::Min => args.iter().map(|a| eval(a, at)).min().unwrap(),
                Op::Max => args.iter().map(|a| eval(a, at)).max().unwrap(),
                other => panic!("{other:?}"),
            },
        }
    }

    /// `quotient` is `floor(e / d)` (or its negation) at every value of the names in their
    /// ranges, whichever form it writes: C's `/` only where the dividend is never negative.
    #[test]
    fn quotients_are_floors_in_every_form() {
        // `tx` in [0, 15], `it` never negative, `ii` of any sign.
        let ranges = vec![("tx".to_string(), Some(15)), ("it".to_string(), None)];
        let forms: Vec<(Vec<(&str, i64)>, i64)> = vec![
            (vec![("tx", -1)], 999),
            (vec![("tx", 1)], -1),
            (vec![("tx", 1)], 19),
            (vec![("it", -1), ("ii", 64)], 999),
            (vec![("it", 1), ("ii", -16)], -1),
            (vec![("it", 1), ("tx", -1)], 5),
            (vec![("ii", 3)], 7),
            (vec![("tx", -3)], 2),
            (vec![("tx", 2)], 1),
        ];
        for (terms, c) in forms {
            let e = ir::from_linear(&terms, c);
            for d in [2, 4, 16, 64] {
                for negate in [false, true] {
                    let q = quotient(&e, d, &ranges, negate);
                    for tx in 0..16 {
                        for it in [0, 1, 7, 8, 100, 1023] {
                            for ii in [-3, 0, 5] {
                                let at = |n: &str| match n {
                                    "tx" => tx,
                                    "it" => it,
                                    _ => ii,
                                };
                                let want = eval(&e, &at).div_euclid(d);
                                let want = if negate { -want } else { want };
                                assert_eq!(eval(&q, &at), want, "{e:?} / {d}: {q:?}");
                            }
                        }
                    }
                }
            }
        }
    }

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
