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
    /// Shared with `reuse::KERNELS` where the kernel's statements keep their numbers: the
    /// tuner's variants of one nest leave the other nests' kernels as they were, and a
    /// copy of each (unrolled bodies) cost more than the look-up.
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

/// [`Linear`] with its names borrowed.
pub type LinearRef<'a> = (Vec<(&'a str, i64)>, i64);

pub fn linear(e: &Expr) -> Option<Linear> {
    let (terms, c) = linear_ref(e)?;
    Some((
        terms.into_iter().map(|(n, k)| (n.to_string(), k)).collect(),
        c,
    ))
}

/// [`linear`] with the names borrowed from the expression, built on [`linear_terms`]
/// (which the emulator reads every subscript of every statement instance with).
pub fn linear_ref(e: &Expr) -> Option<LinearRef<'_>> {
    let mut terms: Vec<(&str, i64)> = Vec::new();
    let c = linear_terms(
        e,
        &mut |n, k| match terms.iter_mut().find(|(x, _)| *x == n) {
            Some((_, c)) => *c += k,
            None => terms.push((n, k)),
        },
    )?;
    Some((terms, c))
}

/// Where `e` is affine, its constant; each name with its coefficient goes to `term` as it
/// is met (a name may come more than once), with nothing allocated.
pub fn linear_terms<'e>(e: &'e Expr, term: &mut dyn FnMut(&'e str, i64)) -> Option<i64> {
    fn add<'e>(
        e: &'e Expr,
        scale: i64,
        term: &mut dyn FnMut(&'e str, i64),
        c: &mut i64,
    ) -> Option<()> {
        match e {
            Expr::Int(v) => *c += scale * v,
            Expr::Id(n) => term(n, scale),
            Expr::Op(Op::Add, args) => {
                for a in args {
                    add(a, scale, term, c)?;
                }
            }
            Expr::Op(Op::Sub, args) => {
                add(&args[0], scale, term, c)?;
                add(&args[1], -scale, term, c)?;
            }
            Expr::Op(Op::Neg, args) => add(&args[0], -scale, term, c)?,
            Expr::Op(Op::Mul, args) => match (&args[0], &args[1]) {
                (Expr::Int(k), x) | (x, Expr::Int(k)) => add(x, scale * k, term, c)?,
                _ => return None,
            },
            _ => return None,
        }
        Some(())
    }
    let mut c = 0;
    add(e, 1, term, &mut c)?;
    Some(c)
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

/// Whether the identifier `var` occurs in `e`.
fn mentions(e: &Expr, var: &str) -> bool {
    match e {
        Expr::Id(n) => n == var,
        Expr::Op(_, args) => args.iter().any(|a| mentions(a, var)),
        _ => false,
    }
}

/// Replaces the identifier `var` by `value` everywhere in the nodes, simplifying.
/// An expression without `var` is kept as it is: the nodes' expressions are simplified
/// already (unrolling a register tile substitutes each loop's variable into every
/// expression of its body, most of which do not have it).
pub fn substitute(nodes: &[Node], var: &str, value: &Expr) -> Vec<Node> {
    let s = |e: &Expr| match mentions(e, var) {
        true => substitute_expr(e, var, value),
        false => e.clone(),
    };
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
