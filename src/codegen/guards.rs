//! Guards and loop bounds decided over the ranges of the variables (thread and block
//! indices, the loops around them): the conditions that always hold go, and a `min` or
//! `max` whose argument never sets its value loses it.

use super::ir::{linear, truth, Expr, Node, Op};

/// Known value ranges of variables: `(name, least, greatest)`.
pub type Ranges = Vec<(String, i64, i64)>;

/// The least and greatest values of an affine expression over `ranges`.
pub fn interval(e: &Expr, ranges: &[(String, i64, i64)]) -> Option<(i64, i64)> {
    let (terms, c) = linear(e)?;
    let (mut lo, mut hi) = (c, c);
    for (name, k) in terms {
        let &(_, a, b) = ranges.iter().rev().find(|(n, _, _)| *n == name)?;
        let (x, y) = (k.checked_mul(a)?, k.checked_mul(b)?);
        lo = lo.checked_add(x.min(y))?;
        hi = hi.checked_add(x.max(y))?;
    }
    Some((lo, hi))
}

/// The least and greatest values of an expression over `ranges`: affine ones as
/// [`interval`], others by interval arithmetic through sums, constant multiples,
/// divisions and remainders by positive constants, `min` and `max` (`16 * (it % 2) + jt`).
pub fn bounds(e: &Expr, ranges: &[(String, i64, i64)]) -> Option<(i64, i64)> {
    if let Some(r) = interval(e, ranges) {
        return Some(r);
    }
    let Expr::Op(op, args) = e else {
        return None;
    };
    let of = |k: usize| bounds(&args[k], ranges);
    let positive = |k: usize| match args.get(k) {
        Some(Expr::Int(d)) if *d > 0 => Some(*d),
        _ => None,
    };
    match op {
        Op::Add => args.iter().try_fold((0i64, 0i64), |(lo, hi), a| {
            let (x, y) = bounds(a, ranges)?;
            Some((lo.checked_add(x)?, hi.checked_add(y)?))
        }),
        Op::Sub => {
            let ((a, b), (c, d)) = (of(0)?, of(1)?);
            Some((a.checked_sub(d)?, b.checked_sub(c)?))
        }
        Op::Neg => of(0).and_then(|(a, b)| Some((b.checked_neg()?, a.checked_neg()?))),
        Op::Mul => {
            let ((a, b), (c, d)) = (of(0)?, of(1)?);
            let products = [
                a.checked_mul(c)?,
                a.checked_mul(d)?,
                b.checked_mul(c)?,
                b.checked_mul(d)?,
            ];
            Some((*products.iter().min()?, *products.iter().max()?))
        }
        Op::Min | Op::Max => {
            let all: Vec<(i64, i64)> = args
                .iter()
                .map(|a| bounds(a, ranges))
                .collect::<Option<_>>()?;
            let f = if *op == Op::Min { i64::min } else { i64::max };
            let lo = all.iter().map(|r| r.0).reduce(f)?;
            let hi = all.iter().map(|r| r.1).reduce(f)?;
            Some((lo, hi))
        }
        Op::FloorDiv | Op::PosDiv => {
            let d = positive(1)?;
            let (a, b) = of(0)?;
            (*op == Op::FloorDiv || a >= 0).then(|| (a.div_euclid(d), b.div_euclid(d)))
        }
        Op::PosRem => {
            let d = positive(1)?;
            let (a, b) = of(0)?;
            (a >= 0).then(|| if b < d { (a, b) } else { (0, d - 1) })
        }
        _ => None,
    }
}

/// `min(...)` without each argument `x` for which `at_least(x, y)` says that `x >= y`
/// always holds for another argument `y` (so `x` never sets the value), and `max(...)`
/// without each `x` for which `y >= x` always holds; any other expression as it is.
pub(super) fn without_extremes(e: Expr, at_least: &dyn Fn(&Expr, &Expr) -> bool) -> Expr {
    let Expr::Op(op @ (Op::Min | Op::Max), args) = e else {
        return e;
    };
    let never = |x: &Expr, y: &Expr| {
        x == y
            || match op {
                Op::Min => at_least(x, y),
                _ => at_least(y, x),
            }
    };
    let mut kept = args;
    while let Some(i) =
        (0..kept.len()).find(|&i| (0..kept.len()).any(|j| j != i && never(&kept[i], &kept[j])))
    {
        kept.remove(i);
    }
    match kept.len() {
        1 => kept.pop().expect("one argument"),
        _ => Expr::Op(op, kept),
    }
}

/// A loop's start and condition with [`without_extremes`] applied to the start and to the
/// bound of `var <= bound` (or `<`).
pub(super) fn loop_without_extremes(
    init: Expr,
    cond: Expr,
    at_least: &dyn Fn(&Expr, &Expr) -> bool,
) -> (Expr, Expr) {
    let init = without_extremes(init, at_least);
    let cond = match cond {
        Expr::Op(op @ (Op::Le | Op::Lt), mut args) if args.len() == 2 => {
            let bound = args.pop().expect("two arguments");
            args.push(without_extremes(bound, at_least));
            Expr::Op(op, args)
        }
        other => other,
    };
    (init, cond)
}

/// The value of a condition for every value of the variables in `ranges`, if it is one.
fn decide(e: &Expr, ranges: &[(String, i64, i64)]) -> Option<bool> {
    let Expr::Op(op, args) = e else {
        return truth(e);
    };
    let difference = || {
        bounds(
            &Expr::Op(Op::Sub, vec![args[0].clone(), args[1].clone()]),
            ranges,
        )
    };
    let verdict = |always: bool, never: bool| {
        if always {
            Some(true)
        } else if never {
            Some(false)
        } else {
            None
        }
    };
    match op {
        Op::Le => difference().and_then(|(lo, hi)| verdict(hi <= 0, lo > 0)),
        Op::Lt => difference().and_then(|(lo, hi)| verdict(hi < 0, lo >= 0)),
        Op::Ge => difference().and_then(|(lo, hi)| verdict(lo >= 0, hi < 0)),
        Op::Gt => difference().and_then(|(lo, hi)| verdict(lo > 0, hi <= 0)),
        Op::Eq => difference().and_then(|(lo, hi)| verdict(lo == 0 && hi == 0, lo > 0 || hi < 0)),
        Op::And | Op::Or => {
            let a = decide(&args[0], ranges);
            let b = decide(&args[1], ranges);
            let absorbing = *op == Op::Or;
            match (a, b) {
                (Some(x), _) | (_, Some(x)) if x == absorbing => Some(absorbing),
                (Some(_), Some(_)) => Some(!absorbing),
                _ => None,
            }
        }
        _ => truth(e),
    }
}

/// `16*kk < 95` as `kk < 6`: a comparison of one scaled variable with a constant, divided
/// through (so that equal guards look equal and can be merged).
fn normalize_atom(cond: &Expr) -> Expr {
    let Expr::Op(op @ (Op::Le | Op::Lt | Op::Ge | Op::Gt), args) = cond else {
        return cond.clone();
    };
    let Some((terms, c)) = linear(&Expr::Op(Op::Sub, vec![args[0].clone(), args[1].clone()]))
    else {
        return cond.clone();
    };
    let [(v, k)] = terms.as_slice() else {
        return cond.clone();
    };
    if k.abs() < 2 {
        return cond.clone();
    }
    // k*v + c OP 0 with k != 0; as v <= m (an upper bound) or v >= m (a lower bound).
    let (k, c, op) = if *k < 0 {
        let flipped = match op {
            Op::Le => Op::Ge,
            Op::Lt => Op::Gt,
            Op::Ge => Op::Le,
            _ => Op::Lt,
        };
        (-k, -c, flipped)
    } else {
        (*k, c, *op)
    };
    let var = Expr::Id(v.clone());
    match op {
        // k*v <= -c  <=>  v <= floor(-c/k)  <=>  v < floor(-c/k) + 1
        Op::Le => Expr::Op(Op::Lt, vec![var, Expr::Int((-c).div_euclid(k) + 1)]),
        Op::Lt => Expr::Op(Op::Lt, vec![var, Expr::Int((-c - 1).div_euclid(k) + 1)]),
        // k*v >= -c  <=>  v >= ceil(-c/k)
        Op::Ge => Expr::Op(Op::Ge, vec![var, Expr::Int(-((c).div_euclid(k)))]),
        _ => Expr::Op(Op::Ge, vec![var, Expr::Int(-((c - 1).div_euclid(k)))]),
    }
}

/// `cond` without the conjuncts that always hold over `ranges`.
fn prune_condition(cond: &Expr, ranges: &[(String, i64, i64)]) -> Expr {
    match cond {
        Expr::Op(Op::And, args) => {
            let kept: Vec<Expr> = args
                .iter()
                .filter(|a| decide(a, ranges) != Some(true))
                .map(|a| prune_condition(a, ranges))
                .collect();
            match kept.len() {
                0 => Expr::Int(1),
                1 => kept.into_iter().next().unwrap(),
                _ => Expr::Op(Op::And, kept),
            }
        }
        other => normalize_atom(other),
    }
}

/// Removes the guards that always hold (or never do) given the ranges of the variables
/// (thread and block indices, and the loops around each guard). Takes the nodes, so that
/// the statements it keeps move instead of being copied (an unrolled register tile has
/// hundreds).
pub fn prune(nodes: Vec<Node>, ranges: &mut Ranges) -> Vec<Node> {
    let mut out = Vec::new();
    for n in nodes {
        match n {
            Node::For {
                var,
                init,
                cond,
                step,
                body,
            } => {
                let (init, cond) = loop_without_extremes(init, cond, &|x, y| {
                    let d = Expr::Op(Op::Sub, vec![x.clone(), y.clone()]);
                    bounds(&d, ranges).is_some_and(|(lo, _)| lo >= 0)
                });
                let lo = interval(&init, ranges).map(|(lo, _)| lo);
                let hi = match &cond {
                    Expr::Op(op @ (Op::Le | Op::Lt), args) if args[0] == Expr::Id(var.clone()) => {
                        interval(&args[1], ranges)
                            .map(|(_, hi)| if *op == Op::Lt { hi - 1 } else { hi })
                    }
                    _ => None,
                };
                let known = matches!((lo, hi), (Some(_), Some(_))) && step > 0;
                if let (true, Some(lo), Some(hi)) = (known, lo, hi) {
                    ranges.push((var.clone(), lo, hi));
                }
                let body = prune(body, ranges);
                if known {
                    ranges.pop();
                }
                out.push(Node::For {
                    var,
                    init,
                    cond,
                    step,
                    body,
                });
            }
            Node::If {
                cond,
                then_branch,
                else_branch,
            } => match decide(&cond, ranges) {
                Some(true) => out.extend(prune(then_branch, ranges)),
                Some(false) => {
                    out.extend(else_branch.map(|b| prune(b, ranges)).unwrap_or_default())
                }
                None => {
                    let cond = prune_condition(&cond, ranges);
                    let then_branch = prune(then_branch, ranges);
                    let else_branch = else_branch.map(|b| prune(b, ranges));
                    // Consecutive guards with one condition become one.
                    if let (
                        None,
                        Some(Node::If {
                            cond: previous,
                            then_branch: body,
                            else_branch: None,
                        }),
                    ) = (&else_branch, out.last_mut())
                    {
                        if *previous == cond {
                            body.extend(then_branch);
                            continue;
                        }
                    }
                    out.push(Node::If {
                        cond,
                        then_branch,
                        else_branch,
                    })
                }
            },
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::ir::simplify;

    fn id(n: &str) -> Expr {
        Expr::Id(n.into())
    }
    fn op(o: Op, a: Expr, b: Expr) -> Expr {
        Expr::Op(o, vec![a, b])
    }
    fn scaled(k: i64, n: &str) -> Expr {
        op(Op::Mul, Expr::Int(k), id(n))
    }

    #[test]
    fn one_variable_comparisons_are_divided_through() {
        // 16*kk < 95 <=> kk <= 5; 16*kk <= 96 <=> kk <= 6; 16*kk >= 33 <=> kk >= 3.
        assert_eq!(
            normalize_atom(&op(Op::Lt, scaled(16, "kk"), Expr::Int(95))),
            op(Op::Lt, id("kk"), Expr::Int(6))
        );
        assert_eq!(
            normalize_atom(&op(Op::Le, scaled(16, "kk"), Expr::Int(96))),
            op(Op::Lt, id("kk"), Expr::Int(7))
        );
        assert_eq!(
            normalize_atom(&op(Op::Ge, scaled(16, "kk"), Expr::Int(33))),
            op(Op::Ge, id("kk"), Expr::Int(3))
        );
        assert_eq!(
            normalize_atom(&op(Op::Gt, scaled(16, "kk"), Expr::Int(32))),
            op(Op::Ge, id("kk"), Expr::Int(3))
        );
        // -4*t < -8 <=> t > 2.
        assert_eq!(
            normalize_atom(&op(Op::Lt, scaled(-4, "t"), Expr::Int(-8))),
            op(Op::Ge, id("t"), Expr::Int(3))
        );
        // Exhaustively against the original, for small values.
        for k in [-5i64, -2, 2, 3, 16] {
            for c in -20..20 {
                for o in [Op::Le, Op::Lt, Op::Ge, Op::Gt] {
                    let original = op(o, scaled(k, "v"), Expr::Int(c));
                    let normalized = normalize_atom(&original);
                    for v in -30..30 {
                        let holds =
                            |e: &Expr| truth(&simplify(&substitute_expr(e, "v", v))).unwrap();
                        assert_eq!(
                            holds(&original),
                            holds(&normalized),
                            "{original:?} vs {normalized:?} at v = {v}"
                        );
                    }
                }
            }
        }
    }

    fn substitute_expr(e: &Expr, var: &str, value: i64) -> Expr {
        match e {
            Expr::Id(n) if n == var => Expr::Int(value),
            Expr::Op(o, args) => Expr::Op(
                *o,
                args.iter()
                    .map(|a| substitute_expr(a, var, value))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    #[test]
    fn guards_that_the_ranges_decide_go() {
        let stmt = |s| Node::Instance {
            statement: s,
            args: vec![],
            stage: None,
        };
        let guard = |c: Expr, s| Node::If {
            cond: c,
            then_branch: vec![stmt(s)],
            else_branch: None,
        };
        let nodes = vec![Node::For {
            var: "kk".into(),
            init: Expr::Int(0),
            cond: op(Op::Lt, id("kk"), Expr::Int(7)),
            step: 1,
            body: vec![
                guard(op(Op::Lt, scaled(16, "kk"), Expr::Int(100)), 0),
                guard(op(Op::Lt, scaled(16, "kk"), Expr::Int(96)), 1),
                guard(op(Op::Lt, scaled(16, "kk"), Expr::Int(95)), 2),
                guard(
                    op(
                        Op::And,
                        op(Op::Lt, id("tx"), Expr::Int(16)),
                        op(Op::Lt, id("x"), Expr::Int(3)),
                    ),
                    3,
                ),
                guard(op(Op::Gt, id("tx"), Expr::Int(20)), 4),
            ],
        }];
        let mut ranges: Ranges = vec![("tx".into(), 0, 15)];
        let Node::For { body, .. } = &prune(nodes, &mut ranges)[0] else {
            panic!()
        };
        // Always true: unguarded. Equal after division: merged. Never true: gone.
        assert_eq!(body.len(), 3, "{body:?}");
        assert_eq!(body[0], stmt(0));
        assert_eq!(
            body[1],
            Node::If {
                cond: op(Op::Lt, id("kk"), Expr::Int(6)),
                then_branch: vec![stmt(1), stmt(2)],
                else_branch: None
            }
        );
        assert_eq!(body[2], guard(op(Op::Lt, id("x"), Expr::Int(3)), 3));
        assert!(ranges.len() == 1, "the loop's range is dropped after it");
    }

    /// The value of an expression at integer values of its variables (`None`: a division
    /// the expression's own rules leave undefined, or a name without a value).
    fn eval(e: &Expr, at: &[(String, i64)]) -> Option<i64> {
        let of = |k: usize| match e {
            Expr::Op(_, args) => eval(&args[k], at),
            _ => None,
        };
        Some(match e {
            Expr::Int(v) => *v,
            Expr::Id(n) => at.iter().find(|(x, _)| x == n)?.1,
            Expr::Op(op, args) => match op {
                Op::Add => args.iter().map(|a| eval(a, at)).sum::<Option<i64>>()?,
                Op::Sub => of(0)? - of(1)?,
                Op::Neg => -of(0)?,
                Op::Mul => of(0)? * of(1)?,
                Op::Min => of(0)?.min(of(1)?),
                Op::Max => of(0)?.max(of(1)?),
                Op::FloorDiv => of(0)?.div_euclid(of(1)?),
                // C's `/` and `%`, on the non-negative dividends they are written for.
                Op::PosDiv if of(0)? >= 0 => of(0)? / of(1)?,
                Op::PosRem if of(0)? >= 0 => of(0)? % of(1)?,
                _ => return None,
            },
        })
    }

    #[test]
    fn the_bounds_of_an_expression_hold_every_value_it_takes() {
        // Random expressions over three variables of known ranges, each evaluated at
        // every point of the ranges: every value lies within the bounds (a negation once
        // swapped its ends and dropped a guard a transpose needed).
        let ranges: Ranges = vec![("a".into(), -3, 4), ("b".into(), 0, 7), ("c".into(), 2, 5)];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n) as i64
        };
        fn random(depth: u32, next: &mut dyn FnMut(u64) -> i64) -> Expr {
            if depth == 0 || next(4) == 0 {
                return match next(4) {
                    0 => Expr::Int(next(11) - 5),
                    k => Expr::Id(["a", "b", "c"][k as usize - 1].into()),
                };
            }
            let mut sub = || random(depth - 1, next);
            let (x, y) = (sub(), sub());
            match next(9) {
                0 => Expr::Op(Op::Add, vec![x, y]),
                1 => Expr::Op(Op::Sub, vec![x, y]),
                2 => Expr::Op(Op::Neg, vec![x]),
                3 => Expr::Op(Op::Mul, vec![Expr::Int(next(7) - 3), x]),
                4 => Expr::Op(Op::Min, vec![x, y]),
                5 => Expr::Op(Op::Max, vec![x, y]),
                6 => Expr::Op(Op::FloorDiv, vec![x, Expr::Int(next(5) + 1)]),
                7 => Expr::Op(Op::PosDiv, vec![x, Expr::Int(next(5) + 1)]),
                _ => Expr::Op(Op::PosRem, vec![x, Expr::Int(next(5) + 1)]),
            }
        }
        let mut bounded = 0;
        for _ in 0..2000 {
            let e = random(4, &mut next);
            let Some((lo, hi)) = bounds(&e, &ranges) else {
                continue;
            };
            bounded += 1;
            for a in -3..=4 {
                for b in 0..=7 {
                    for c in 2..=5 {
                        let at = [("a".into(), a), ("b".into(), b), ("c".into(), c)];
                        if let Some(v) = eval(&e, &at) {
                            assert!(
                                lo <= v && v <= hi,
                                "{e:?} = {v} at {at:?}, bounds {lo}..={hi}"
                            );
                        }
                    }
                }
            }
        }
        assert!(bounded > 1000, "only {bounded} of 2000 expressions bounded");
    }

    #[test]
    fn a_min_or_max_loses_the_arguments_that_never_set_it() {
        let ranges: Ranges = vec![("jj".into(), 0, 13), ("ty".into(), 0, 7)];
        let ranged = |x: &Expr, y: &Expr| {
            let d = op(Op::Sub, x.clone(), y.clone());
            bounds(&d, &ranges).is_some_and(|(lo, _)| lo >= 0)
        };
        // min(3, 124 - 4 * jj - ty / 8): the second is at least 71 when jj <= 13.
        let far = op(
            Op::Sub,
            op(Op::Sub, Expr::Int(124), scaled(4, "jj")),
            op(Op::PosDiv, id("ty"), Expr::Int(8)),
        );
        let min = op(Op::Min, Expr::Int(3), far.clone());
        assert_eq!(without_extremes(min, &ranged), Expr::Int(3));
        // Either may set min(jj, 5): both kept; max(jj, -1) is jj.
        let both = op(Op::Min, id("jj"), Expr::Int(5));
        assert_eq!(without_extremes(both.clone(), &ranged), both);
        assert_eq!(
            without_extremes(op(Op::Max, id("jj"), Expr::Int(-1)), &ranged),
            id("jj")
        );
        // A loop's start and bound alike; equal arguments leave one.
        let (init, cond) = loop_without_extremes(
            op(Op::Max, Expr::Int(0), op(Op::Sub, id("jj"), Expr::Int(20))),
            op(Op::Le, id("c"), op(Op::Min, far.clone(), far.clone())),
            &ranged,
        );
        assert_eq!(init, Expr::Int(0));
        assert_eq!(cond, op(Op::Le, id("c"), far));
    }

    #[test]
    fn an_equality_is_decided_where_the_ranges_decide_it() {
        let ranges: Ranges = vec![("jj".into(), 1, 14), ("tx".into(), 0, 255)];
        assert_eq!(
            decide(&op(Op::Eq, id("jj"), Expr::Int(0)), &ranges),
            Some(false)
        );
        assert_eq!(decide(&op(Op::Eq, id("tx"), Expr::Int(0)), &ranges), None);
        let zero: Ranges = vec![("jj".into(), 0, 0)];
        assert_eq!(
            decide(&op(Op::Eq, scaled(3, "jj"), Expr::Int(0)), &zero),
            Some(true)
        );
    }
}
