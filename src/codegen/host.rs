//! The host code around the kernels: a launch per kernel, in the loops that stay on the
//! host, from isl's AST generator.

use super::ir::{self, Expr, Node};
use super::{prefix, value_of};
use crate::poly::astbuild::{self, AstNode};
use crate::poly::isl::{Ctx, IslError, Map, Set, UnionMap};
use crate::transform::Transformed;

/// The host code: a launch statement `K<k>[host loop values]` per kernel, scheduled where
/// the kernel's loops are.
pub(super) fn host_code(
    t: &Transformed,
    ctx: &Ctx,
    positions: &[Vec<usize>],
    width: usize,
) -> Result<Vec<Node>, IslError> {
    let params = t.program.params.clone();
    let mut schedule = Vec::new();
    for (k, kernel) in t.kernels.iter().enumerate() {
        let first = kernel.statements[0];
        let host_names: Vec<String> = kernel
            .host_levels
            .iter()
            .map(|l| t.levels[*l].name.clone())
            .collect();
        // Where the kernel runs: the host loop values of its statements' instances.
        let mut domain: Option<Set> = None;
        for &s in &kernel.statements {
            let st = &t.statements[s];
            let values: Vec<String> = kernel
                .host_levels
                .iter()
                .map(|l| value_of(t, s, *l))
                .collect();
            let to_launch = Map::parse(
                ctx,
                &format!(
                    "{}{{ {} -> K{k}[{}] }}",
                    prefix(&params),
                    t.tuple(s),
                    values.join(", ")
                ),
            )?;
            let image = to_launch
                .intersect_domain(&Set::parse(ctx, &st.domain)?)?
                .range()?;
            domain = Some(match domain {
                None => image,
                Some(d) => d.union(&image)?,
            });
        }
        let Some(domain) = domain else { continue };
        let mut dims = Vec::new();
        for (d, name) in host_names.iter().enumerate() {
            dims.push(positions[first][d].to_string());
            dims.push(name.clone());
        }
        dims.push(positions[first][host_names.len()].to_string());
        dims.resize(width, "0".into());
        let text = format!(
            "{}{{ K{k}[{}] -> [{}] }}",
            prefix(&params),
            host_names.join(", "),
            dims.join(", ")
        );
        schedule.push(Map::parse(ctx, &text)?.intersect_domain(&domain)?);
    }
    let schedule = UnionMap::of_maps(ctx, &schedule)?;
    let context = Set::parse(ctx, &format!("{}{{ : }}", prefix(&params)))?;
    let ast = astbuild::build_ast(ctx, &context, &schedule, None)?;
    Ok(host_ir(t, &ast))
}

/// Host IR: loops renamed after the host levels of the launches they hold.
fn host_ir(t: &Transformed, nodes: &[AstNode]) -> Vec<Node> {
    nodes
        .iter()
        .map(|n| match n {
            AstNode::For {
                iterator,
                init,
                cond,
                inc,
                body,
            } => {
                let body = host_ir(t, body);
                let name = first_launch(&body)
                    .and_then(|k| {
                        let dim: usize = iterator.strip_prefix('c')?.parse().ok()?;
                        let l = t.kernels[k].host_levels.get(dim.checked_sub(1)? / 2)?;
                        Some(t.levels[*l].name.clone())
                    })
                    .unwrap_or_else(|| iterator.clone());
                let rename = |id: &str| (id == iterator).then(|| name.clone());
                Node::For {
                    var: name.clone(),
                    init: ir::rename(init, &rename),
                    cond: ir::rename(cond, &rename),
                    step: match inc {
                        Expr::Int(v) => *v,
                        _ => 1,
                    },
                    body: ir::rename_nodes(&body, &rename),
                }
            }
            AstNode::If {
                cond,
                then_branch,
                else_branch,
            } => Node::If {
                cond: cond.clone(),
                then_branch: host_ir(t, then_branch),
                else_branch: else_branch.as_ref().map(|b| host_ir(t, b)),
            },
            AstNode::User { statement, args } => Node::Launch {
                kernel: statement[1..]
                    .parse()
                    .expect("host statements are named K<k>"),
                // The values of the host loop variables; isl writes them as expressions of
                // the loops around (a loop with one iteration may be folded away).
                args: args.clone(),
            },
        })
        .collect()
}

fn first_launch(nodes: &[Node]) -> Option<usize> {
    nodes.iter().find_map(|n| match n {
        Node::Launch { kernel, .. } => Some(*kernel),
        Node::For { body, .. } => first_launch(body),
        Node::If {
            then_branch,
            else_branch,
            ..
        } => first_launch(then_branch).or_else(|| else_branch.as_deref().and_then(first_launch)),
        _ => None,
    })
}
