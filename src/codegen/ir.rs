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
