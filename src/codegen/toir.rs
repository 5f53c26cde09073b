//! isl's AST as gpucc's loops ([`Node`]): each loop named after its level, unrolled or
//! pipelined where the recipe says, and the instances of the copies and tiles whose
//! loops gpucc writes itself ([`super::copyloops`], [`super::pointloops`]) expanded.

use super::ir::{self, Expr, Node};
use super::{copyloops, pointloops, prefetch, unroll};
use crate::poly::astbuild::AstNode;
use crate::transform::datacopy::Memory;
use crate::transform::{LevelId, StmtKind, Transformed};

/// The loop variable isl names `c{dim}` gets the name of the level at that dimension in
/// the statements below it.
pub(super) fn to_ir(t: &Transformed, nodes: &[AstNode], warnings: &mut Vec<String>) -> Vec<Node> {
    let mut out = Vec::new();
    for n in nodes {
        match n {
            AstNode::For {
                iterator,
                init,
                cond,
                inc,
                body,
            } => {
                let body = to_ir(t, body, warnings);
                let level = level_of(t, iterator, &body);
                let name = level
                    .map(|l| t.levels[l].name.clone())
                    .unwrap_or_else(|| iterator.clone());
                let rename = |id: &str| (id == iterator).then(|| name.clone());
                let (init, cond, body) = (
                    ir::rename(init, &rename),
                    ir::rename(cond, &rename),
                    ir::rename_nodes(&body, &rename),
                );
                let step = match inc {
                    Expr::Int(v) => *v,
                    _ => 1,
                };
                // Loops marked for unrolling are written out here, iteration by iteration.
                if let Some(l) = level.filter(|l| t.levels[*l].unroll) {
                    if t.levels[l].prefetch {
                        warnings.push(format!(
                            "loop `{}` was not prefetched: it is unrolled",
                            t.levels[l].name
                        ));
                    }
                    let max = crate::transform::unroll::extent(t, l)
                        .ok()
                        .flatten()
                        .unwrap_or(0)
                        .min(crate::transform::unroll::MAX_UNROLL);
                    match unroll::unroll(&name, &init, &cond, step, &body, max) {
                        Some(nodes) => {
                            out.extend(nodes);
                            continue;
                        }
                        None => warnings.push(format!(
                            "loop `{name}` was not unrolled: it has more than {max} iterations"
                        )),
                    }
                }
                // Copies pipelined with the loop's computation (`prefetch`).
                if let Some(l) = level.filter(|l| t.levels[*l].prefetch) {
                    let copy_of = |s: usize| match t.statements[s].kind {
                        StmtKind::CopyIn(c) if t.copies[c].memory == Memory::Shared => Some(c),
                        _ => None,
                    };
                    let is_sync = |s: usize| t.statements[s].kind == StmtKind::Sync;
                    // The loop of that name around the statements inside this one (a
                    // loop of another nest may have the same name).
                    let max_trips = |var: &str| {
                        let inside = t.statements.iter().filter(|st| st.below_level(l));
                        let found = inside
                            .flat_map(|st| st.levels.iter().map(|(x, _)| *x))
                            .find(|x| t.levels[*x].name == var)?;
                        crate::transform::unroll::extent(t, found).ok().flatten()
                    };
                    let width_of = |c: usize| t.copies[c].width as usize;
                    let staging = prefetch::Staging {
                        copy_of: &copy_of,
                        is_sync: &is_sync,
                        max_trips: &max_trips,
                        width_of: &width_of,
                    };
                    match prefetch::prefetch(&name, &init, &cond, step, &body, &staging) {
                        Ok(nodes) => {
                            out.extend(nodes);
                            continue;
                        }
                        Err(why) => warnings.push(format!(
                            "loop `{}` was not prefetched: {why}",
                            t.levels[l].name
                        )),
                    }
                }
                out.push(Node::For {
                    var: name,
                    init,
                    cond,
                    step,
                    body,
                });
            }
            AstNode::If {
                cond,
                then_branch,
                else_branch,
            } => out.push(Node::If {
                cond: cond.clone(),
                then_branch: to_ir(t, then_branch, warnings),
                else_branch: else_branch.as_ref().map(|b| to_ir(t, b, warnings)),
            }),
            AstNode::User { statement, args } => {
                let s = t
                    .statements
                    .iter()
                    .position(|s| s.name == *statement)
                    .expect("isl only names our statements");
                // A copy isl placed: gpucc writes its loops.
                if args.len() < t.statements[s].iterators.len() {
                    let copy = copyloops::expand(t, s, args)
                        .expect("a placed copy's values are affine in its fixed names");
                    out.extend(to_ir(t, &copy, warnings));
                    continue;
                }
                // A tile isl placed at its first point: gpucc writes its loops.
                if let Some(tile) = pointloops::expand(t, s, args) {
                    out.extend(to_ir(t, &tile, warnings));
                    continue;
                }
                out.push(Node::Instance {
                    statement: s,
                    args: args.clone(),
                    stage: None,
                });
            }
        }
    }
    out
}

/// The level at isl's schedule dimension `c{k}` in the first statement of `body`.
fn level_of(t: &Transformed, iterator: &str, body: &[Node]) -> Option<LevelId> {
    let dim: usize = iterator.strip_prefix('c')?.parse().ok()?;
    let s = first_instance(body)?;
    t.statements[s]
        .levels
        .get(dim.checked_sub(1)? / 2)
        .map(|(l, _)| *l)
}

fn first_instance(nodes: &[Node]) -> Option<usize> {
    nodes.iter().find_map(|n| match n {
        Node::Instance { statement, .. } => Some(*statement),
        Node::For { body, .. } => first_instance(body),
        Node::If {
            then_branch,
            else_branch,
            ..
        } => {
            first_instance(then_branch).or_else(|| else_branch.as_deref().and_then(first_instance))
        }
        Node::Launch { .. } => None,
    })
}
