//! The kernel IR: what codegen hands to the CUDA writer. Loops, guards, statement
//! instances and launches, with expressions over loop variables and parameters.

pub use crate::poly::astbuild::{AstExpr as Expr, AstOp as Op};

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
    /// An instance of a transformed statement, with the values of its iterators.
    Instance { statement: usize, args: Vec<Expr> },
    /// A kernel launch (host code only), with the values of the kernel's host loop
    /// variables.
    Launch { kernel: usize, args: Vec<Expr> },
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
}

/// All generated code of a unit.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The host code: loops that stay on the host, and launches.
    pub host: Vec<Node>,
    pub kernels: Vec<KernelIr>,
    /// What could not be done as the recipe asked, for the user.
    pub warnings: Vec<String>,
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
            Node::Instance { statement, args } => Node::Instance {
                statement: *statement,
                args: args.iter().map(|a| rename(a, map)).collect(),
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
pub fn linear(e: &Expr) -> Option<(Vec<(String, i64)>, i64)> {
    fn add(acc: &mut (Vec<(String, i64)>, i64), other: (Vec<(String, i64)>, i64), sign: i64) {
        for (n, c) in other.0 {
            match acc.0.iter_mut().find(|(x, _)| *x == n) {
                Some((_, k)) => *k += sign * c,
                None => acc.0.push((n, sign * c)),
            }
        }
        acc.1 += sign * other.1;
    }
    Some(match e {
        Expr::Int(v) => (Vec::new(), *v),
        Expr::Id(n) => (vec![(n.clone(), 1)], 0),
        Expr::Op(Op::Add, args) => {
            let mut acc = (Vec::new(), 0);
            for a in args {
                add(&mut acc, linear(a)?, 1);
            }
            acc
        }
        Expr::Op(Op::Sub, args) => {
            let mut acc = linear(&args[0])?;
            add(&mut acc, linear(&args[1])?, -1);
            acc
        }
        Expr::Op(Op::Neg, args) => {
            let (t, c) = linear(&args[0])?;
            (t.into_iter().map(|(n, k)| (n, -k)).collect(), -c)
        }
        Expr::Op(Op::Mul, args) => match (&args[0], &args[1]) {
            (Expr::Int(k), x) | (x, Expr::Int(k)) => {
                let (t, c) = linear(x)?;
                (t.into_iter().map(|(n, m)| (n, m * k)).collect(), c * k)
            }
            _ => return None,
        },
        _ => return None,
    })
}

/// A linear form as an expression: `3 * a + b - 4`.
pub fn from_linear(terms: &[(String, i64)], constant: i64) -> Expr {
    let mut parts: Vec<Expr> = terms
        .iter()
        .filter(|(_, c)| *c != 0)
        .map(|(n, c)| match c {
            1 => Expr::Id(n.clone()),
            c => Expr::Op(Op::Mul, vec![Expr::Int(*c), Expr::Id(n.clone())]),
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
    if let Some((terms, c)) = linear(e) {
        return from_linear(&terms, c);
    }
    match e {
        Expr::Op(op, args) => {
            let args: Vec<Expr> = args.iter().map(simplify).collect();
            let e = Expr::Op(*op, args);
            match truth(&e) {
                Some(b) => Expr::Int(b as i64),
                None => e,
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

/// Replaces the identifier `var` by `value` everywhere in the nodes, simplifying.
pub fn substitute(nodes: &[Node], var: &str, value: &Expr) -> Vec<Node> {
    fn sub(e: &Expr, var: &str, value: &Expr) -> Expr {
        match e {
            Expr::Id(n) if n == var => value.clone(),
            Expr::Op(op, args) => Expr::Op(*op, args.iter().map(|a| sub(a, var, value)).collect()),
            other => other.clone(),
        }
    }
    let s = |e: &Expr| simplify(&sub(e, var, value));
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
            Node::Instance { statement, args } => out.push(Node::Instance {
                statement: *statement,
                args: args.iter().map(s).collect(),
            }),
            Node::Launch { kernel, args } => out.push(Node::Launch {
                kernel: *kernel,
                args: args.iter().map(s).collect(),
            }),
        }
    }
    out
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
    // A constant trip count: `var <= ub` or `var < ub` with `ub - init` constant.
    let constant = match cond {
        Expr::Op(op @ (Op::Le | Op::Lt), args) if args[0] == Expr::Id(var.into()) => {
            truth_difference(&args[1], init).map(|d| match op {
                Op::Le => d.div_euclid(step) + 1,
                _ => (d - 1).div_euclid(step) + 1,
            })
        }
        _ => None,
    };
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

/// `a - b` when it is a constant.
fn truth_difference(a: &Expr, b: &Expr) -> Option<i64> {
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
