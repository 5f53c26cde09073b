//! `prefetch`: a loop's copies into shared memory pipelined with its computation, each
//! element staged in a register one iteration ahead (see [`prefetch`]).

use super::ir::{simplify, substitute, substitute_expr, Expr, Node, Op, Stage};
use super::unroll::{constant_trips, unroll};

/// What [`prefetch`] needs to know of the statements and loops in a body.
pub struct Staging<'a> {
    /// The copy into shared memory a statement makes, if it is one.
    pub copy_of: &'a dyn Fn(usize) -> Option<usize>,
    /// Whether a statement is a barrier.
    pub is_sync: &'a dyn Fn(usize) -> bool,
    /// The most iterations of a copy loop (by its name), where known.
    pub max_trips: &'a dyn Fn(&str) -> Option<i64>,
    /// The elements each instance of a copy moves (a wide copy's vector: 4).
    pub width_of: &'a dyn Fn(usize) -> usize,
}

/// At most this many elements a thread stages in registers for a prefetch.
pub const MAX_STAGED: usize = 64;

/// The loop `for (var = init; cond; var += step) body` with its copies into shared memory
/// pipelined (`prefetch`): `body` starts with the copies (instances for which `copy_of`
/// names a copy into shared memory, in loops of constant trip counts and guards), then a
/// barrier (`is_sync`), then the rest. Each copy is split in two: before the loop the
/// first tile's elements are loaded into registers (one slot per element a thread
/// copies); each iteration stores them into shared memory, passes the barrier, loads the
/// next tile's elements into the same registers, and computes on the shared tile while
/// those loads are in flight. The barrier that ends an iteration (as the copies' own
/// placement has it) keeps the next iteration's stores after every thread's reads.
/// `Err` says why the loop does not have that form.
pub fn prefetch(
    var: &str,
    init: &Expr,
    cond: &Expr,
    step: i64,
    body: &[Node],
    k: &Staging,
) -> Result<Vec<Node>, String> {
    let (copy_of, is_sync, max_trips) = (k.copy_of, k.is_sync, k.max_trips);
    let at = body
        .iter()
        .position(|n| matches!(n, Node::Instance { statement, .. } if is_sync(*statement)))
        .ok_or("no barrier follows its copies at the top of its body")?;
    if at == 0 {
        return Err("its body does not start with copies into shared memory".into());
    }
    let copies = unroll_copies(&body[..at], max_trips)?;
    if !body[at + 1..]
        .iter()
        .any(|n| matches!(n, Node::Instance { statement, .. } if is_sync(*statement)))
    {
        return Err("no barrier ends its iterations after the shared tile is read".into());
    }
    // One slot per element of each copy.
    let mut slots: Vec<(usize, usize)> = Vec::new();
    let loads = stage_nodes(&copies, true, copy_of, &mut slots)?;
    slots.clear();
    let stores = stage_nodes(&copies, false, copy_of, &mut slots)?;
    let staged_total: usize = slots.iter().map(|(c, n)| n * (k.width_of)(*c)).sum();
    if staged_total > MAX_STAGED {
        return Err(format!(
            "a thread would hold {staged_total} elements in registers (at most {MAX_STAGED})"
        ));
    }
    let at_value = |v: &Expr, nodes: &[Node]| substitute(nodes, var, v);
    let next = simplify(&Expr::Op(
        Op::Add,
        vec![Expr::Id(var.into()), Expr::Int(step)],
    ));
    let guarded = |c: &Expr, then_branch: Vec<Node>| Node::If {
        cond: c.clone(),
        then_branch,
        else_branch: None,
    };
    let mut inner = stores;
    inner.push(body[at].clone());
    inner.push(guarded(
        &substitute_expr(cond, var, &next),
        at_value(&next, &loads),
    ));
    inner.extend(body[at + 1..].iter().cloned());
    Ok(vec![
        guarded(&substitute_expr(cond, var, init), at_value(init, &loads)),
        Node::For {
            var: var.to_string(),
            init: init.clone(),
            cond: cond.clone(),
            step,
            body: inner,
        },
    ])
}

/// Copies' nodes with every loop written out: a constant trip count as it is, another
/// (a tile cut by the array's bounds) up to its most iterations (`max_trips`), each under
/// the loop's condition.
fn unroll_copies(
    nodes: &[Node],
    max_trips: &dyn Fn(&str) -> Option<i64>,
) -> Result<Vec<Node>, String> {
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
                let body = unroll_copies(body, max_trips)?;
                let copies = constant_trips(var, init, cond, *step)
                    .or_else(|| max_trips(var))
                    .filter(|most| *most <= MAX_STAGED as i64)
                    .and_then(|most| unroll(var, init, cond, *step, &body, most))
                    .ok_or_else(|| {
                        format!(
                            "the copy loop `{var}` has no known trip count of at most {MAX_STAGED}"
                        )
                    })?;
                out.extend(copies);
            }
            Node::If {
                cond,
                then_branch,
                else_branch,
            } => out.push(Node::If {
                cond: cond.clone(),
                then_branch: unroll_copies(then_branch, max_trips)?,
                else_branch: match else_branch {
                    Some(b) => Some(unroll_copies(b, max_trips)?),
                    None => None,
                },
            }),
            other => out.push(other.clone()),
        }
    }
    Ok(out)
}

/// `nodes` (copies, unrolled) with each copy instance marked as its load (`load`) or its
/// store, numbered per copy in order.
fn stage_nodes(
    nodes: &[Node],
    load: bool,
    copy_of: &dyn Fn(usize) -> Option<usize>,
    slots: &mut Vec<(usize, usize)>,
) -> Result<Vec<Node>, String> {
    let mut out = Vec::new();
    for n in nodes {
        out.push(match n {
            Node::Instance {
                statement, args, ..
            } => {
                let c = copy_of(*statement).ok_or(
                    "statements other than copies into shared memory run before its first barrier",
                )?;
                let slot = match slots.iter_mut().find(|(x, _)| *x == c) {
                    Some((_, k)) => {
                        *k += 1;
                        *k - 1
                    }
                    None => {
                        slots.push((c, 1));
                        0
                    }
                };
                Node::Instance {
                    statement: *statement,
                    args: args.clone(),
                    stage: Some(Stage { slot, load }),
                }
            }
            Node::If {
                cond,
                then_branch,
                else_branch,
            } => Node::If {
                cond: cond.clone(),
                then_branch: stage_nodes(then_branch, load, copy_of, slots)?,
                else_branch: match else_branch {
                    Some(b) => Some(stage_nodes(b, load, copy_of, slots)?),
                    None => None,
                },
            },
            Node::For { .. } => unreachable!("copies are unrolled before they are staged"),
            Node::Launch { .. } => return Err("a launch inside a kernel".into()),
        });
    }
    Ok(out)
}
