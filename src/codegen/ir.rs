//! The kernel IR: what codegen hands to the CUDA writer. Loops, guards, statement
//! instances and launches, with expressions over loop variables and parameters.

use crate::poly::astbuild::AstNode;
pub use crate::poly::astbuild::{AstExpr as Expr, AstOp as Op};

/// isl's AST as IR nodes, as isl wrote it: its loops keep isl's iterator names, and every
/// instance is one of `statement` with isl's arguments (a reduction's target, a final
/// value's assignment).
pub fn from_ast(nodes: &[AstNode], statement: usize) -> Vec<Node> {
    nodes
        .iter()
        .map(|n| match n {
            AstNode::For {
                iterator,
                init,
                cond,
                inc,
                body,
            } => Node::For {
                var: iterator.clone(),
                init: init.clone(),
                cond: cond.clone(),
                step: match inc {
                    Expr::Int(v) => *v,
                    _ => 1,
                },
                body: from_ast(body, statement),
            },
            AstNode::If {
                cond,
                then_branch,
                else_branch,
            } => Node::If {
                cond: cond.clone(),
                then_branch: from_ast(then_branch, statement),
                else_branch: else_branch.as_ref().map(|b| from_ast(b, statement)),
            },
            AstNode::User { args, .. } => Node::Instance {
                statement,
                args: args.clone(),
                stage: None,
            },
        })
        .collect()
}

/// A node of generated code (host or kernel).
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// `for (var = init; cond; var += step)`
    For {
        var: String,
        init: Expr,
        cond: Expr,
        step: i64,
        body: Vec<Node>,
    },
    If {
        cond: Expr,
        then_branch: Vec<Node>,
        else_branch: Option<Vec<Node>>,
    },
    /// An instance of a transformed statement, with the values of its iterators; a copy
    /// into shared memory may be split in two stages (`prefetch`): the load into a
    /// register, and the store from it.
    Instance {
        statement: usize,
        args: Vec<Expr>,
        stage: Option<Stage>,
    },
    /// A kernel launch (host code only), with the values of the kernel's host loop
    /// variables.
    Launch { kernel: usize, args: Vec<Expr> },
}

/// Half of a copy into shared memory split around a prefetch: the load of the element
/// into register `slot` of the copy's staging array, or the store of it into the shared
/// tile.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stage {
    pub slot: usize,
    pub load: bool,
}

/// How a kernel variable gets its value at the start of the kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct PrologueVar {
    pub name: String,
    pub value: Expr,
}

/// A generated kernel.
#[derive(Clone, Debug)]
pub struct KernelIr {
    /// What it was generated from ([`super::reuse::kernel_source`]): work derived from the
    /// kernel alone is the same for the same text.
    pub source: String,
    /// Index into [`crate::transform::Transformed::kernels`].
    pub kernel: usize,
    pub name: String,
    /// Loop variables of the host code the kernel reads (a time step `t`).
    pub host_vars: Vec<String>,
    /// Block and thread variables, computed from `blockIdx`/`threadIdx` in this order.
    pub prologue: Vec<PrologueVar>,
    pub body: Vec<Node>,
    /// `gridDim` per used dimension (host expressions), and `blockDim`.
    pub grid: Vec<Expr>,
    pub block: Vec<i64>,
    /// How the kernel's reductions (`reduce=`) end, one per entry of the kernel's
    /// `reductions`: after the body, each block combines its threads' partial results and
    /// folds them into the element `target` names.
    pub reductions: Vec<ReductionIr>,
}

/// Where a block's combined partial result of a reduction goes.
#[derive(Clone, Debug)]
pub struct ReductionIr {
    /// Index into the kernel's [`crate::transform::cudaize::Kernel::reductions`].
    pub reduction: usize,
    /// Guards (over the block and host variables) around one [`Node::Instance`] of the
    /// updating statement whose `args` are the subscripts of the element the block updates
    /// (none for a scalar), not the statement's iterators.
    pub target: Vec<Node>,
}

/// A scalar of the unit that a kernel writes: it lives in device memory while the unit
/// runs, and kernels reach it through a pointer.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceScalar {
    pub array: crate::poly::ArrayId,
    /// Its value from before the unit can be read: copy it in.
    pub copy_in: bool,
    /// Its value is visible after the unit: copy it out.
    pub copy_out: bool,
    /// Declared at the top level of a `#pragma scop` region, so visible after it: the host
    /// code declares it (before the block that replaces the region) to copy it out into.
    pub host_declaration: bool,
}

/// All generated code of a unit.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The host code: loops that stay on the host, and launches.
    pub host: Vec<Node>,
    /// Shared with [`super::KERNELS`]: the tuner's variants of one nest leave the other
    /// nests' kernels as they were, and a copy of each (unrolled bodies) cost more than
    /// the look-up.
    pub kernels: Vec<std::sync::Arc<KernelIr>>,
    /// Scalars in device memory.
    pub device_scalars: Vec<DeviceScalar>,
    /// What could not be done as the recipe asked, for the user.
    pub warnings: Vec<String>,
    /// The values a `#pragma scop` region leaves in the loop indices declared around it.
    pub finals: Vec<FinalValue>,
}

/// The value the original code leaves in a loop index declared outside the compiled
/// region (`int i; ... for (i = 0; i < n; i++) ...; printf("%d", i)`), which the GPU code
/// does not compute: host code that sets it. Each `Instance` of `code` stands for
/// `var = <its last argument>;`.
#[derive(Clone, Debug)]
pub struct FinalValue {
    pub var: String,
    pub code: Vec<Node>,
}

impl Generated {
    /// Whether kernels reach `array` (a scalar) through a pointer to device memory.
    pub fn in_device_memory(&self, array: crate::poly::ArrayId) -> bool {
        self.device_scalars.iter().any(|d| d.array == array)
    }
}

/// Replaces identifiers by name in an expression.
pub fn rename(e: &Expr, map: &dyn Fn(&str) -> Option<String>) -> Expr {
    match e {
        Expr::Int(v) => Expr::Int(*v),
        Expr::Id(n) => Expr::Id(map(n).unwrap_or_else(|| n.clone())),
        Expr::Op(op, args) => Expr::Op(*op, args.iter().map(|a| rename(a, map)).collect()),
    }
}

/// Replaces identifiers by name in every expression of a tree (loop variables too).
pub fn rename_nodes(nodes: &[Node], map: &dyn Fn(&str) -> Option<String>) -> Vec<Node> {
    nodes
        .iter()
        .map(|n| match n {
            Node::For {
                var,
                init,
                cond,
                step,
                body,
            } => Node::For {
                var: map(var).unwrap_or_else(|| var.clone()),
                init: rename(init, map),
                cond: rename(cond, map),
                step: *step,
                body: rename_nodes(body, map),
            },
            Node::If {
                cond,
                then_branch,
                else_branch,
            } => Node::If {
                cond: rename(cond, map),
                then_branch: rename_nodes(then_branch, map),
                else_branch: else_branch.as_ref().map(|b| rename_nodes(b, map)),
            },
            Node::Instance {
                statement,
                args,
                stage,
            } => Node::Instance {
                statement: *statement,
                args: args.iter().map(|a| rename(a, map)).collect(),
                stage: *stage,
            },
            Node::Launch { kernel, args } => Node::Launch {
                kernel: *kernel,
                args: args.iter().map(|a| rename(a, map)).collect(),
            },
        })
        .collect()
}

/// Every identifier an expression mentions.
pub fn identifiers(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Int(_) => {}
        Expr::Id(n) => {
            if !out.contains(n) {
                out.push(n.clone())
            }
        }
        Expr::Op(_, args) => args.iter().for_each(|a| identifiers(a, out)),
    }
}

/// An affine isl expression as `(terms in order of appearance, constant)`; `None` when it
/// is not a sum of integer multiples of names.
/// A linear form: its terms (name, coefficient) and its constant.
pub type Linear = (Vec<(String, i64)>, i64);

pub fn linear(e: &Expr) -> Option<Linear> {
    let (terms, c) = linear_ref(e)?;
    Some((
        terms.into_iter().map(|(n, k)| (n.to_string(), k)).collect(),
        c,
    ))
}

/// [`linear`] with the names borrowed from the expression (the emulator asks it of
/// every subscript of every statement instance it walks).
pub fn linear_ref(e: &Expr) -> Option<(Vec<(&str, i64)>, i64)> {
    fn add<'e>(
        e: &'e Expr,
        scale: i64,
        terms: &mut Vec<(&'e str, i64)>,
        c: &mut i64,
    ) -> Option<()> {
        match e {
            Expr::Int(v) => *c += scale * v,
            Expr::Id(n) => match terms.iter_mut().find(|(x, _)| *x == n) {
                Some((_, k)) => *k += scale,
                None => terms.push((n, scale)),
            },
            Expr::Op(Op::Add, args) => {
                for a in args {
                    add(a, scale, terms, c)?;
                }
            }
            Expr::Op(Op::Sub, args) => {
                add(&args[0], scale, terms, c)?;
                add(&args[1], -scale, terms, c)?;
            }
            Expr::Op(Op::Neg, args) => add(&args[0], -scale, terms, c)?,
            Expr::Op(Op::Mul, args) => match (&args[0], &args[1]) {
                (Expr::Int(k), x) | (x, Expr::Int(k)) => add(x, scale * k, terms, c)?,
                _ => return None,
            },
            _ => return None,
        }
        Some(())
    }
    let mut terms = Vec::new();
    let mut c = 0;
    add(e, 1, &mut terms, &mut c)?;
    Some((terms, c))
}

/// A linear form as an expression: `3 * a + b - 4`.
pub fn from_linear<S: AsRef<str>>(terms: &[(S, i64)], constant: i64) -> Expr {
    let mut parts: Vec<Expr> = terms
        .iter()
        .filter(|(_, c)| *c != 0)
        .map(|(n, c)| match c {
            1 => Expr::Id(n.as_ref().to_string()),
            c => Expr::Op(
                Op::Mul,
                vec![Expr::Int(*c), Expr::Id(n.as_ref().to_string())],
            ),
        })
        .collect();
    if constant != 0 || parts.is_empty() {
        parts.push(Expr::Int(constant));
    }
    let mut it = parts.into_iter();
    let first = it.next().expect("at least one part");
    it.fold(first, |acc, x| Expr::Op(Op::Add, vec![acc, x]))
}

/// An expression with affine parts in canonical form and constant comparisons decided.
pub fn simplify(e: &Expr) -> Expr {
    if let Some((terms, c)) = linear_ref(e) {
        return from_linear(&terms, c);
    }
    match e {
        Expr::Op(op, args) => {
            let args: Vec<Expr> = args.iter().map(simplify).collect();
            // `a <= min(x, y)` is `a <= x && a <= y` (and alike), so that a side that is
            // always true can go.
            let split = |bound: &Expr, side: Op, cmp: Op, left: bool| -> Option<Expr> {
                let Expr::Op(o, xs) = bound else { return None };
                (*o == side && xs.len() == 2).then(|| {
                    let one = |x: &Expr| {
                        let pair = if left {
                            vec![args[0].clone(), x.clone()]
                        } else {
                            vec![x.clone(), args[1].clone()]
                        };
                        Expr::Op(cmp, pair)
                    };
                    simplify(&Expr::Op(Op::And, vec![one(&xs[0]), one(&xs[1])]))
                })
            };
            let split = match op {
                Op::Le | Op::Lt => split(&args[1], Op::Min, *op, true)
                    .or_else(|| split(&args[0], Op::Max, *op, false)),
                Op::Ge | Op::Gt => split(&args[1], Op::Max, *op, true)
                    .or_else(|| split(&args[0], Op::Min, *op, false)),
                _ => None,
            };
            if let Some(e) = split {
                return e;
            }
            let e = Expr::Op(*op, args);
            if let Some(b) = truth(&e) {
                return Expr::Int(b as i64);
            }
            // `true && x` is `x`; `false || x` is `x`.
            match (op, &e) {
                (Op::And | Op::Or, Expr::Op(_, xs)) => {
                    let neutral = *op == Op::And;
                    match (truth(&xs[0]), truth(&xs[1])) {
                        (Some(b), _) if b == neutral => xs[1].clone(),
                        (_, Some(b)) if b == neutral => xs[0].clone(),
                        _ => e,
                    }
                }
                _ => e,
            }
        }
        other => other.clone(),
    }
}

/// The value of a condition whose sides differ by a constant (`4*t + 2 <= 4*t + 3`).
pub fn truth(e: &Expr) -> Option<bool> {
    let Expr::Op(op, args) = e else {
        return match e {
            Expr::Int(v) => Some(*v != 0),
            _ => None,
        };
    };
    let difference = || truth_difference(&args[0], &args[1]);
    match op {
        Op::Le => difference().map(|d| d <= 0),
        Op::Lt => difference().map(|d| d < 0),
        Op::Ge => difference().map(|d| d >= 0),
        Op::Gt => difference().map(|d| d > 0),
        Op::Eq => difference().map(|d| d == 0),
        Op::And => match (truth(&args[0]), truth(&args[1])) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        Op::Or => match (truth(&args[0]), truth(&args[1])) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// `e` with the identifier `var` replaced by `value`, simplified.
pub fn substitute_expr(e: &Expr, var: &str, value: &Expr) -> Expr {
    fn sub(e: &Expr, var: &str, value: &Expr) -> Expr {
        match e {
            Expr::Id(n) if n == var => value.clone(),
            Expr::Op(op, args) => Expr::Op(*op, args.iter().map(|a| sub(a, var, value)).collect()),
            other => other.clone(),
        }
    }
    simplify(&sub(e, var, value))
}

/// Replaces the identifier `var` by `value` everywhere in the nodes, simplifying.
pub fn substitute(nodes: &[Node], var: &str, value: &Expr) -> Vec<Node> {
    let s = |e: &Expr| substitute_expr(e, var, value);
    let mut out = Vec::new();
    for n in nodes {
        match n {
            Node::For {
                var: v,
                init,
                cond,
                step,
                body,
            } => out.push(Node::For {
                var: v.clone(),
                init: s(init),
                cond: s(cond),
                step: *step,
                body: substitute(body, var, value),
            }),
            Node::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let cond = s(cond);
                match truth(&cond) {
                    Some(true) => out.extend(substitute(then_branch, var, value)),
                    Some(false) => out.extend(
                        else_branch
                            .as_ref()
                            .map(|b| substitute(b, var, value))
                            .unwrap_or_default(),
                    ),
                    None => out.push(Node::If {
                        cond,
                        then_branch: substitute(then_branch, var, value),
                        else_branch: else_branch.as_ref().map(|b| substitute(b, var, value)),
                    }),
                }
            }
            Node::Instance {
                statement,
                args,
                stage,
            } => out.push(Node::Instance {
                statement: *statement,
                args: args.iter().map(s).collect(),
                stage: *stage,
            }),
            Node::Launch { kernel, args } => out.push(Node::Launch {
                kernel: *kernel,
                args: args.iter().map(s).collect(),
            }),
        }
    }
    out
}

/// `a - b` when it is a constant.
pub(super) fn truth_difference(a: &Expr, b: &Expr) -> Option<i64> {
    let (ta, ca) = linear(a)?;
    let (tb, cb) = linear(b)?;
    let mut d = ta;
    for (n, c) in tb {
        match d.iter_mut().find(|(x, _)| *x == n) {
            Some((_, k)) => *k -= c,
            None => d.push((n, -c)),
        }
    }
    d.iter().all(|(_, c)| *c == 0).then_some(ca - cb)
}

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

/// The value of a condition for every value of the variables in `ranges`, if it is one.
fn decide(e: &Expr, ranges: &[(String, i64, i64)]) -> Option<bool> {
    let Expr::Op(op, args) = e else {
        return truth(e);
    };
    let difference = || {
        interval(
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
}
