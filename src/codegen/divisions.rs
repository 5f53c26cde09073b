//! Division and remainder in the loops gpucc writes ([`super::copyloops`],
//! [`super::pointloops`]): affine expressions divided as isl writes them, with C's `/`
//! and `%` only where the dividend is never negative, and conditions on them as simple as
//! the ranges of their names allow.

use super::ir::{self, Expr, Op};

pub(super) fn cmp(op: Op, a: Expr, b: Expr) -> Expr {
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

/// Name `n`'s range: `None` where it may be negative, else its largest value where known.
fn range(ranges: &[(String, Option<i64>)], n: &str) -> Option<Option<i64>> {
    ranges.iter().find(|(x, _)| x == n).map(|(_, hi)| *hi)
}

/// Terms with their coefficients, and a constant.
type Part<A> = (Vec<(A, i64)>, i64);

/// `terms + c` as `m * high + low`, where `low` is from 0 to `m - 1` (`top`: a term's
/// largest value, its least 0): `high` (the terms that are multiples of `m`, divided, and
/// the constant's quotient) and `low` (the other terms and the constant's remainder).
fn radix<A: Clone>(
    terms: &[(A, i64)],
    c: i64,
    m: i64,
    top: impl Fn(&A) -> Option<i64>,
) -> Option<(Part<A>, Part<A>)> {
    let (high, low): (Vec<_>, Vec<_>) = terms.iter().cloned().partition(|(_, k)| k % m == 0);
    let cl = c.rem_euclid(m);
    let (lo, hi) = low.iter().try_fold((cl, cl), |(lo, hi), (a, k)| {
        let top = top(a)?;
        Some(if *k > 0 {
            (lo, hi + k * top)
        } else {
            (lo + k * top, hi)
        })
    })?;
    if lo < 0 || hi >= m {
        return None;
    }
    let high = high.into_iter().map(|(a, k)| (a, k / m)).collect();
    Some(((high, c.div_euclid(m)), (low, cl)))
}

/// `floor(e / d)` and `e mod d` for an `e` never negative (`ranges`: names never
/// negative, with their largest value where known). Where `e` is `l + m * h` for an `m`
/// that divides `d` and an `l` from 0 to `m - 1`, they are `floor(h / (d / m))` and
/// `l + m * (h mod (d / m))`, as isl writes them (`tx + 16 * ty` by 32: `ty / 2` and
/// `tx + 16 * (ty % 2)` where `tx` is below 16).
pub(super) fn split(e: &Expr, d: i64, ranges: &[(String, Option<i64>)]) -> (Expr, Expr) {
    if d == 1 {
        return (e.clone(), Expr::Int(0));
    }
    if let Some((terms, c)) = ir::linear(e) {
        let top = |n: &String| range(ranges, n)?;
        for m in (2..=d).rev().filter(|m| d % m == 0) {
            let Some(((high, ch), (low, cl))) = radix(&terms, c, m, top) else {
                continue;
            };
            let (l, h) = (ir::from_linear(&low, cl), ir::from_linear(&high, ch));
            let (q, r) = split(&h, d / m, ranges);
            return (q, sum(vec![(1, l), (m, r)]));
        }
    }
    (quotient(e, d, ranges, false), remainder(e, d, ranges))
}

/// `e` with each `/` and `%` of an affine dividend never negative ([`quotient`],
/// [`remainder`]) without the multiples of the divisor that keep it so (`(it - 16 * ii) %
/// 2` is `it % 2` where `it` is never negative).
pub(super) fn tidy(e: &Expr, ranges: &[(String, Option<i64>)]) -> Expr {
    let Expr::Op(op, args) = e else {
        return e.clone();
    };
    let args: Vec<Expr> = args.iter().map(|a| tidy(a, ranges)).collect();
    match (op, args.as_slice()) {
        (Op::PosRem, [a, Expr::Int(d)]) => remainder(a, *d, ranges),
        (Op::PosDiv, [a, Expr::Int(d)]) if ir::linear(a).is_some() => {
            let q = quotient(a, *d, ranges, false);
            if matches!(&q, Expr::Op(Op::FloorDiv, _)) {
                e.clone()
            } else {
                q
            }
        }
        _ => Expr::Op(*op, args),
    }
}

/// The condition `e < 0`, for an `e` affine in names and in `/` and `%` terms, as
/// simply as the ranges of its terms allow (`ranges`: names never negative, with their
/// largest value where known): a quotient alone multiplied out (`floor(b / k) + r < 0`
/// is `b + k * r < 0`), and `m * h + l < 0` written `h < 0` where `l` is from 0 to `m - 1`
/// (`16 * ty + tx - 3200 < 0` is `ty - 200 < 0` where `tx` is below 16), as isl writes
/// them.
pub(super) fn negative(e: &Expr, ranges: &[(String, Option<i64>)]) -> Expr {
    let (mut terms, mut c) = atoms(e);
    let quotients: Vec<usize> = (0..terms.len())
        .filter(|&i| matches!(terms[i].0, Expr::Op(Op::PosDiv, _)))
        .collect();
    if let [i] = quotients[..] {
        if let (Expr::Op(_, args), 1) = &terms[i] {
            if let [b, Expr::Int(k)] = args.as_slice() {
                let (k, b) = (*k, b.clone());
                terms.remove(i);
                for (_, x) in terms.iter_mut() {
                    *x *= k;
                }
                c *= k;
                let (more, d) = atoms(&b);
                terms.extend(more);
                c += d;
            }
        }
    }
    let top = |a: &Expr| -> Option<i64> {
        match a {
            Expr::Id(n) => range(ranges, n)?,
            Expr::Op(Op::PosRem, args) => match args.as_slice() {
                [_, Expr::Int(d)] => Some(d - 1),
                _ => None,
            },
            _ => None,
        }
    };
    loop {
        let largest = terms.iter().map(|(_, k)| k.abs()).max().unwrap_or(0);
        let tightened = (2..=largest).rev().find_map(|m| {
            let (high, _) = radix(&terms, c, m, top)?;
            (!high.0.is_empty()).then_some(high)
        });
        match tightened {
            Some(high) => (terms, c) = high,
            None => break,
        }
    }
    let lhs = terms.into_iter().map(|(a, k)| (k, a)).collect::<Vec<_>>();
    cmp(Op::Lt, sum(lhs), Expr::Int(-c))
}

/// `e` as a sum of terms (names, and any other expression that is not a sum or a
/// multiple) times their coefficients, plus a constant.
fn atoms(e: &Expr) -> (Vec<(Expr, i64)>, i64) {
    fn walk(e: &Expr, k: i64, terms: &mut Vec<(Expr, i64)>, c: &mut i64) {
        let args = match e {
            Expr::Op(_, args) => args.as_slice(),
            _ => &[],
        };
        match (e, args) {
            (Expr::Int(v), _) => *c += k * v,
            (Expr::Op(Op::Add, _), _) => args.iter().for_each(|a| walk(a, k, terms, c)),
            (Expr::Op(Op::Sub, _), [a, b]) => {
                walk(a, k, terms, c);
                walk(b, -k, terms, c);
            }
            (Expr::Op(Op::Neg, _), [a]) => walk(a, -k, terms, c),
            (Expr::Op(Op::Mul, _), [Expr::Int(m), a]) => walk(a, k * m, terms, c),
            _ => match terms.iter_mut().find(|(a, _)| a == e) {
                Some((_, x)) => *x += k,
                None => terms.push((e.clone(), k)),
            },
        }
    }
    let (mut terms, mut c) = (Vec::new(), 0);
    walk(e, 1, &mut terms, &mut c);
    terms.retain(|(_, k)| *k != 0);
    (terms, c)
}

/// `e mod d` for an `e` never negative: the terms that are multiples of `d` left out
/// where what is left is never negative (`ranges`: names never negative, with their
/// largest value where known), and the `%` too where that is below `d` (`tx % 4`,
/// `4 * ty + tx` modulo 4).
pub(super) fn remainder(e: &Expr, d: i64, ranges: &[(String, Option<i64>)]) -> Expr {
    let whole = Expr::Op(Op::PosRem, vec![e.clone(), Expr::Int(d)]);
    let Some((terms, c)) = ir::linear(e) else {
        return whole;
    };
    let rest: Vec<(String, i64)> = terms.into_iter().filter(|(_, k)| k % d != 0).collect();
    let c = c.rem_euclid(d);
    if !rest
        .iter()
        .all(|(n, k)| *k > 0 && range(ranges, n).is_some())
    {
        return whole;
    }
    let most = rest
        .iter()
        .try_fold(c, |acc, (n, k)| Some(acc + k * range(ranges, n)??));
    let left = ir::from_linear(&rest, c);
    if most.is_some_and(|m| m < d) {
        return left;
    }
    Expr::Op(Op::PosRem, vec![left, Expr::Int(d)])
}

/// `floor(e / d)` for a linear `e` (negated with `negate`): the terms with multiples of
/// `d` divided out, the rest divided as C does where it is never negative (`ranges`: names
/// never negative, with their largest value where known), or shifted by a multiple of `d`
/// to be so, as isl writes it (`62 - (it + 8) / 16` for `floor((999 - it) / 16)`).
pub(super) fn quotient(e: &Expr, d: i64, ranges: &[(String, Option<i64>)], negate: bool) -> Expr {
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
    let range = |n: &str| range(ranges, n);
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The value of each name.
    type At<'a> = &'a dyn Fn(&str) -> i64;

    /// The value of an expression, dividing as C does (`/` truncates).
    pub(crate) fn eval(e: &Expr, at: &dyn Fn(&str) -> i64) -> i64 {
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
                Op::PosRem => arg(0) % arg(1),
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

    /// `split` and `remainder` are the quotient and remainder, and `negative` the
    /// condition `e < 0`, at every value of the names in their ranges, whichever form
    /// they write.
    #[test]
    fn vector_digits_divide_and_compare_exactly() {
        // `tx` in [0, 15], `ty` in [0, 7], `c` never negative.
        let ranges = vec![
            ("tx".to_string(), Some(15)),
            ("ty".to_string(), Some(7)),
            ("c".to_string(), None),
        ];
        let forms: Vec<(Vec<(&str, i64)>, i64)> = vec![
            (vec![("tx", 1), ("ty", 16)], 0),
            (vec![("tx", 1), ("ty", 16), ("c", 128)], 0),
            (vec![("tx", 1), ("ty", 16), ("c", 96)], 3),
            (vec![("tx", 2), ("ty", 32)], 1),
            (vec![("tx", 1)], 5),
        ];
        let values = |f: &dyn Fn(At)| {
            for tx in 0..16 {
                for ty in 0..8 {
                    for c in [0, 1, 2, 5] {
                        let at = move |n: &str| match n {
                            "tx" => tx,
                            "ty" => ty,
                            _ => c,
                        };
                        f(&at);
                    }
                }
            }
        };
        for (terms, c) in &forms {
            let e = ir::from_linear(terms, *c);
            for d in [1, 2, 4, 8, 16, 32, 48, 64] {
                let (q, r) = split(&e, d, &ranges);
                let m = remainder(&e, d, &ranges);
                values(&|at| {
                    let v = eval(&e, at);
                    assert_eq!(eval(&q, at), v.div_euclid(d), "{e:?} / {d}: {q:?}");
                    assert_eq!(eval(&r, at), v.rem_euclid(d), "{e:?} % {d}: {r:?}");
                    if d > 1 {
                        assert_eq!(eval(&m, at), v.rem_euclid(d), "{e:?} % {d}: {m:?}");
                    }
                });
                // Conditions on the quotient and the remainder against a bound.
                for bound in [0, 3, 17, 100, 200] {
                    let over = sum(vec![(1, q.clone()), (-1, Expr::Int(bound))]);
                    let rest = sum(vec![
                        (4, r.clone()),
                        (1, Expr::Id("c".into())),
                        (-1, Expr::Int(bound)),
                    ]);
                    for g in [over, rest] {
                        let cond = negative(&g, &ranges);
                        values(&|at| {
                            let want = eval(&g, at) < 0;
                            assert_eq!(truth(&cond, at), want, "{g:?} < 0: {cond:?}");
                        });
                    }
                }
            }
        }
    }

    fn truth(e: &Expr, at: &dyn Fn(&str) -> i64) -> bool {
        match e {
            Expr::Op(Op::Lt, args) => eval(&args[0], at) < eval(&args[1], at),
            Expr::Op(Op::Le, args) => eval(&args[0], at) <= eval(&args[1], at),
            Expr::Op(Op::Gt, args) => eval(&args[0], at) > eval(&args[1], at),
            Expr::Op(Op::Ge, args) => eval(&args[0], at) >= eval(&args[1], at),
            Expr::Int(v) => *v != 0,
            other => panic!("{other:?}"),
        }
    }
}
