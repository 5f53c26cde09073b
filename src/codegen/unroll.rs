//! Loops written out iteration by iteration (`unroll`, and the copy loops of `prefetch`).

use super::ir::{simplify, substitute, truth_difference, Expr, Node, Op};

/// The trip count of `for (var = init; cond; var += step)` when it is a constant: `var <=
/// ub` or `var < ub` with `ub - init` constant, and a positive step.
pub fn constant_trips(var: &str, init: &Expr, cond: &Expr, step: i64) -> Option<i64> {
    match cond {
        Expr::Op(op @ (Op::Le | Op::Lt), args) if step >= 1 && args[0] == Expr::Id(var.into()) => {
            truth_difference(&args[1], init).map(|d| match op {
                Op::Le => d.div_euclid(step) + 1,
                _ => (d - 1).div_euclid(step) + 1,
            })
        }
        _ => None,
    }
}

/// A loop written out iteration by iteration, at most `max` of them: without guards when
/// its trip count is a constant, else each iteration under the loop's condition. `None`
/// when it would take more than `max` iterations.
pub fn unroll(
    var: &str,
    init: &Expr,
    cond: &Expr,
    step: i64,
    body: &[Node],
    max: i64,
) -> Option<Vec<Node>> {
    if step < 1 {
        return None;
    }
    let constant = constant_trips(var, init, cond, step);
    if constant.is_none() && step == 1 {
        if let Some(nodes) = unroll_from_a_bound(var, init, cond, body, max) {
            return Some(nodes);
        }
    }
    let count = constant.unwrap_or(max);
    if count > max {
        return None;
    }
    let mut out = Vec::new();
    for k in 0..count.max(0) {
        let value = simplify(&Expr::Op(Op::Add, vec![init.clone(), Expr::Int(k * step)]));
        let iteration = substitute(body, var, &value);
        if constant.is_some() {
            out.extend(iteration);
        } else {
            out.extend(substitute(
                &[Node::If {
                    cond: cond.clone(),
                    then_branch: iteration,
                    else_branch: None,
                }],
                var,
                &value,
            ));
        }
    }
    Some(out)
}

/// A loop from `max(l1, l2, ...)` with a condition `var <= u && ...`, where some `u - lk`
/// is a constant (a tile of a known size, cut by the domain's bounds: a cyclic tile whose
/// first rows lie outside a stencil's interior), written out from `lk`: each iteration
/// `lk + k` under the other bounds, which the loop's own start and condition held. The
/// iterations' values are then affine in the tile's position, not `max(...) + k`.
fn unroll_from_a_bound(
    var: &str,
    init: &Expr,
    cond: &Expr,
    body: &[Node],
    max: i64,
) -> Option<Vec<Node>> {
    let lowers: Vec<&Expr> = match init {
        Expr::Op(Op::Max, args) => args.iter().collect(),
        other => vec![other],
    };
    let mut conjuncts = Vec::new();
    conjuncts_of(cond, &mut conjuncts);
    // The pair of a lower bound and an upper bound conjunct with the fewest iterations.
    let mut best: Option<(i64, usize, usize)> = None;
    for (a, lower) in lowers.iter().enumerate() {
        for (b, c) in conjuncts.iter().enumerate() {
            let Some(count) = constant_trips(var, lower, c, 1) else {
                continue;
            };
            if best.is_none_or(|(n, _, _)| count < n) {
                best = Some((count, a, b));
            }
        }
    }
    let (count, a, b) = best?;
    if count > max {
        return None;
    }
    let var_id = Expr::Id(var.into());
    let mut guards: Vec<Expr> = lowers
        .iter()
        .enumerate()
        .filter(|(k, _)| *k != a)
        .map(|(_, l)| Expr::Op(Op::Ge, vec![var_id.clone(), (*l).clone()]))
        .collect();
    guards.extend(
        conjuncts
            .iter()
            .enumerate()
            .filter(|(k, _)| *k != b)
            .map(|(_, c)| c.clone()),
    );
    let mut out = Vec::new();
    for k in 0..count.max(0) {
        let value = simplify(&Expr::Op(Op::Add, vec![lowers[a].clone(), Expr::Int(k)]));
        let iteration = substitute(body, var, &value);
        if guards.is_empty() {
            out.extend(iteration);
            continue;
        }
        let guard = guards
            .iter()
            .cloned()
            .reduce(|x, y| Expr::Op(Op::And, vec![x, y]))
            .expect("guards");
        out.extend(substitute(
            &[Node::If {
                cond: guard,
                then_branch: iteration,
                else_branch: None,
            }],
            var,
            &value,
        ));
    }
    Some(out)
}

/// The conjuncts of `e` (`a && b && c`: `a`, `b`, `c`), with `v <= min(x, y)` as
/// `v <= x` and `v <= y`.
fn conjuncts_of(e: &Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::Op(Op::And, args) => args.iter().for_each(|x| conjuncts_of(x, out)),
        Expr::Op(op @ (Op::Le | Op::Lt), args) => match &args[1] {
            Expr::Op(Op::Min, bounds) => bounds
                .iter()
                .for_each(|b| conjuncts_of(&Expr::Op(*op, vec![args[0].clone(), b.clone()]), out)),
            _ => out.push(e.clone()),
        },
        other => out.push(other.clone()),
    }
}
