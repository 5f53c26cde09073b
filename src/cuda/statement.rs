//! Statements in generated code: a source statement with its iterators replaced by the
//! values the generated loops give them, and its array references rewritten for the
//! GPU (device pointers, the read-only cache, data-copy temporaries, linearised
//! subscripts for arrays with symbolic sizes).

use super::cexpr::{from_ir, CExpr};
use crate::codegen::ir::Expr;
use crate::frontend::ast::{AssignOp, ExprId, ExprKind, StepOp, UnaryOp};
use crate::poly::{AccessId, ArrayKind, StatementKind};
use crate::transform::{Placement, Transformed};

/// How to print the array references of one statement instance.
pub struct Context<'a> {
    pub t: &'a Transformed,
    /// The statement's source id.
    pub statement: usize,
    /// Its iterators' values.
    pub args: &'a [Expr],
    /// Accesses whose data lives elsewhere (a copy's temporary, a reduction's partial
    /// result): what to print instead.
    pub rewrites: &'a dyn Fn(AccessId) -> Option<CExpr>,
    /// The statement runs in a kernel (scalars in device memory are reached through their
    /// pointers).
    pub in_kernel: bool,
}

impl Context<'_> {
    fn iterator_value(&self, name: &str) -> Option<CExpr> {
        let st = &self.t.program.statements[self.statement];
        let k = st
            .loops
            .iter()
            .position(|l| self.t.program.loops[*l].iterator == name)?;
        Some(from_ir(&self.args[k], &|id| CExpr::name(id)))
    }

    pub(super) fn access_of(&self, e: ExprId) -> Option<AccessId> {
        let st = &self.t.program.statements[self.statement];
        std::iter::once(&st.write)
            .chain(&st.reads)
            .copied()
            .find(|a| self.t.program.accesses[*a].expr == Some(e))
    }

    /// The statement as C, without the `;`.
    pub fn statement(&self) -> CExpr {
        let st = &self.t.program.statements[self.statement];
        match st.kind {
            StatementKind::Assign(e) => self.expr(e),
            StatementKind::Init { value } => {
                let target = (self.rewrites)(st.write)
                    .unwrap_or_else(|| self.scalar(self.t.program.accesses[st.write].array));
                CExpr::Assign("=", Box::new(target), Box::new(self.expr(value)))
            }
        }
    }

    fn expr(&self, e: ExprId) -> CExpr {
        let ast = &self.t.program.unit.ast;
        let expr = &ast.exprs[e];
        if let Some(a) = self.access_of(e) {
            return self.access(a, e);
        }
        let b = |x: ExprId| Box::new(self.expr(x));
        match &expr.kind {
            ExprKind::Int(v) => CExpr::Int(*v),
            ExprKind::Float(text) => CExpr::Atom(text.clone()),
            ExprKind::Name(n) => self
                .iterator_value(n)
                .unwrap_or_else(|| CExpr::name(n.clone())),
            ExprKind::Index { .. } => {
                unreachable!("every array reference of a statement is an access")
            }
            ExprKind::Call { name, args, .. } => {
                // Each argument as C converts it (see `super::ctype`).
                let target = super::ctype::parameter_type(name).or_else(|| {
                    let types: Vec<_> = args.iter().map(|a| self.c_type(*a)).collect();
                    let common = types.iter().copied().reduce(super::ctype::common)?;
                    types.iter().any(|t| *t != common).then_some(common)
                });
                let args = args.iter().map(|a| {
                    let arg = self.expr(*a);
                    match target {
                        Some(ty) if self.c_type(*a) != ty => {
                            CExpr::Cast(ty.c_name().to_string(), Box::new(arg))
                        }
                        _ => arg,
                    }
                });
                CExpr::Call(name.clone(), args.collect())
            }
            ExprKind::Unary { op, operand } => CExpr::Unary(
                match op {
                    UnaryOp::Neg => "-",
                    UnaryOp::Plus => "+",
                    UnaryOp::Not => "!",
                    UnaryOp::BitNot => "~",
                },
                b(*operand),
            ),
            ExprKind::Binary { op, lhs, rhs } => CExpr::Binary(op.c_spelling(), b(*lhs), b(*rhs)),
            ExprKind::Conditional {
                cond,
                then_value,
                else_value,
            } => CExpr::Cond(b(*cond), b(*then_value), b(*else_value)),
            ExprKind::Cast { ty, operand } => CExpr::Cast(ty.c_name().to_string(), b(*operand)),
            ExprKind::Assign { op, target, value } => CExpr::Assign(
                match op {
                    AssignOp::Set => "=",
                    AssignOp::Compound(o) => compound(o.c_spelling()),
                },
                b(*target),
                b(*value),
            ),
            ExprKind::Step { op, prefix, target } => {
                let op = match op {
                    StepOp::Increment => "++",
                    StepOp::Decrement => "--",
                };
                if *prefix {
                    CExpr::Unary(op, b(*target))
                } else {
                    CExpr::Postfix(op, b(*target))
                }
            }
        }
    }

    /// An array reference (or a scalar variable).
    fn access(&self, a: AccessId, e: ExprId) -> CExpr {
        let p = &self.t.program;
        let access = &p.accesses[a];
        let array = &p.arrays[access.array];
        // The source subscripts (a private variable's expansion is not in the text).
        let mut subscripts = Vec::new();
        let mut base = e;
        while let ExprKind::Index { base: b, index } = &p.unit.ast.exprs[base].kind {
            subscripts.push(self.expr(*index));
            base = *b;
        }
        subscripts.reverse();
        if let Some(element) = (self.rewrites)(a) {
            return element;
        }
        if array.is_scalar() {
            return self.scalar(access.array);
        }
        if matches!(array.kind, ArrayKind::Private { .. }) {
            return CExpr::index(CExpr::name(array.name.clone()), subscripts);
        }
        global_reference(self.t, access.array, subscripts, !access.is_write)
    }
}

impl Context<'_> {
    /// A scalar variable: `sum`, or `*sum` in a kernel when it lives in device memory.
    fn scalar(&self, array: crate::poly::ArrayId) -> CExpr {
        let name = CExpr::name(self.t.program.arrays[array].name.clone());
        if self.in_kernel && crate::codegen::in_device_memory(self.t, array) {
            CExpr::Unary("*", Box::new(name))
        } else {
            name
        }
    }
}

/// A reference to an element of an array in device memory: through its constant-memory
/// copy, linearised for symbolic sizes, through the read-only cache for reads.
pub fn global_reference(
    t: &Transformed,
    array: crate::poly::ArrayId,
    subscripts: Vec<CExpr>,
    read: bool,
) -> CExpr {
    let a = &t.program.arrays[array];
    let placement = t.placement(array);
    let name = if placement == Placement::Constant {
        super::constant_name(t, a)
    } else {
        a.name.clone()
    };
    let reference = if has_symbolic_inner_dims(a) {
        CExpr::Index(
            Box::new(CExpr::name(name)),
            Box::new(linearize(&a.dim_texts, subscripts)),
        )
    } else {
        CExpr::index(CExpr::name(name), subscripts)
    };
    if read && placement == Placement::ReadOnlyCache {
        CExpr::Call("__ldg".into(), vec![CExpr::Unary("&", Box::new(reference))])
    } else {
        reference
    }
}

/// Whether an array's dimensions after the first are not all constants (C++ has no
/// variable-length array types, so such arrays are indexed through a flat pointer).
pub fn has_symbolic_inner_dims(array: &crate::poly::Array) -> bool {
    array
        .extents
        .iter()
        .skip(1)
        .any(|e| e.as_ref().and_then(|a| a.as_constant()).is_none())
}

/// `A[i][j]` of an `n x m` array as `(size_t)i * m + j`: the offset is computed in 64 bits,
/// as C computes `A[i][j]` (an `int` product overflows past 2^31 elements, 8 GiB of floats).
/// Zero subscripts are left out (`A[0][j]` is `A[j]`), and a subscript's own sum joins the
/// offset's (`(size_t)i * m + n - 1 - j`: integer sums reassociate).
fn linearize(dim_texts: &[String], subscripts: Vec<CExpr>) -> CExpr {
    let mut acc: Option<CExpr> = None;
    // Whether `acc` is already computed in 64 bits (its first product is).
    let mut wide = false;
    for (k, s) in subscripts.into_iter().enumerate() {
        if k > 0 {
            acc = acc.map(|a| {
                // An extent written as an expression (`n + 1`) keeps its parentheses.
                let text = &dim_texts[k];
                let simple = text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                let dim = CExpr::name(if simple {
                    text.clone()
                } else {
                    format!("({text})")
                });
                let a = if wide {
                    a
                } else {
                    CExpr::Cast("size_t".into(), Box::new(a))
                };
                wide = true;
                CExpr::bin("*", a, dim)
            });
        }
        if matches!(s, CExpr::Int(0)) {
            continue;
        }
        acc = Some(match acc {
            None => s,
            Some(a) => add_terms(a, s),
        });
    }
    acc.unwrap_or(CExpr::Int(0))
}

/// `a + s`, with the sums and differences of `s` spliced into `a`'s: `a + j - 1`, not
/// `a + (j - 1)`.
fn add_terms(a: CExpr, s: CExpr) -> CExpr {
    match s {
        CExpr::Binary(op @ ("+" | "-"), l, r) => CExpr::Binary(op, Box::new(add_terms(a, *l)), r),
        other => CExpr::bin("+", a, other),
    }
}

fn compound(op: &str) -> &'static str {
    match op {
        "+" => "+=",
        "-" => "-=",
        "*" => "*=",
        "/" => "/=",
        "%" => "%=",
        "<<" => "<<=",
        ">>" => ">>=",
        "&" => "&=",
        "^" => "^=",
        _ => "|=",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::cexpr::print;

    #[test]
    fn symbolic_subscripts_are_linearised_in_64_bits_without_zeros() {
        let dims: Vec<String> = ["n", "m + 2", "p"].iter().map(|s| s.to_string()).collect();
        let name = |s: &str| CExpr::name(s);
        let sum = |a: &str, c: i64| CExpr::bin("+", name(a), CExpr::Int(c));
        let cases = [
            (
                vec![name("i"), name("j"), name("k")],
                "((size_t)i * (m + 2) + j) * p + k",
            ),
            (
                vec![CExpr::Int(0), sum("i", 1), name("j")],
                "(size_t)(i + 1) * p + j",
            ),
            (
                vec![name("i"), CExpr::Int(0), CExpr::Int(0)],
                "(size_t)i * (m + 2) * p",
            ),
            (vec![CExpr::Int(0), CExpr::Int(0), CExpr::Int(0)], "0"),
            (
                vec![
                    name("i"),
                    CExpr::bin("-", CExpr::bin("-", name("m"), CExpr::Int(1)), name("j")),
                    name("k"),
                ],
                "((size_t)i * (m + 2) + m - 1 - j) * p + k",
            ),
        ];
        for (subscripts, expected) in cases {
            assert_eq!(print(&linearize(&dims, subscripts)), expected);
        }
    }
}
