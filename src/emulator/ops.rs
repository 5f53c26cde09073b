//! The operations a source statement issues besides its loads and stores: address
//! arithmetic, arithmetic (a multiply-add once, a common subexpression once) and special
//! functions, counted from its C expression.

use crate::frontend::ast::{BinaryOp, ExprKind};
use crate::poly::program::StatementKind;

#[derive(Clone, Copy, Default)]
pub(super) struct Ops {
    pub arith: u32,
    pub special: u32,
    pub index: u32,
    /// Of `arith`, the multiply-adds fused into one operation.
    pub fused: u32,
}

/// The instructions one instance of source statement `id` issues besides its loads and
/// stores where it is not part of a straight-line run ([`super::runs`]): its address arithmetic,
/// its arithmetic (a fused multiply-add once) and its special functions with their range
/// reduction, as the workload walk counts them (for `gpucc tune`'s lower bound).
pub(crate) fn instance_operations(p: &crate::poly::Program, id: usize) -> u32 {
    let root = match p.statements[id].kind {
        StatementKind::Assign(e) | StatementKind::Init { value: e } => e,
    };
    let mut ops = Ops::default();
    count_ops(&p.unit.ast, root, &mut ops);
    ops.index + ops.arith + 5 * ops.special
}

/// Arithmetic in a statement: operators and calls, and one integer operation per array
/// access for its address (affine subscripts are strength-reduced by nvcc).
pub(super) fn count_ops(
    ast: &crate::frontend::ast::Ast,
    e: crate::frontend::ast::ExprId,
    ops: &mut Ops,
) {
    count_distinct_ops(ast, e, ops, &mut Vec::new());
}

/// [`count_ops`], each pure subexpression counted once however often it is written
/// (`(x - y) * (x - y)` is one subtraction and one product: nvcc eliminates the common
/// subexpression); `seen` holds those counted.
fn count_distinct_ops(
    ast: &crate::frontend::ast::Ast,
    e: crate::frontend::ast::ExprId,
    ops: &mut Ops,
    seen: &mut Vec<crate::frontend::ast::ExprId>,
) {
    let pure = !matches!(
        ast.exprs[e].kind,
        ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Name(_)
            | ExprKind::Assign { .. }
            | ExprKind::Step { .. }
    );
    if pure {
        if seen.iter().any(|&x| same_expr(ast, x, e)) {
            return;
        }
        seen.push(e);
    }
    // `a * b + c` and `c += a * b`: nvcc fuses the sum into the product (FFMA, DFMA,
    // IMAD), one operation for both.
    let fused = match &ast.exprs[e].kind {
        ExprKind::Binary {
            op: BinaryOp::Add | BinaryOp::Sub,
            lhs,
            rhs,
        } => fresh_product(ast, *lhs, seen) || fresh_product(ast, *rhs, seen),
        ExprKind::Assign {
            op: crate::frontend::ast::AssignOp::Compound(BinaryOp::Add | BinaryOp::Sub),
            value,
            ..
        } => fresh_product(ast, *value, seen),
        _ => false,
    };
    let mut count_ops = |ast, e, ops: &mut Ops| count_distinct_ops(ast, e, ops, seen);
    match &ast.exprs[e].kind {
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Name(_) => {}
        ExprKind::Index { base, index } => {
            // One address update per access: nvcc strength-reduces affine subscripts to
            // a pointer increment, or an immediate offset once a loop is unrolled.
            if !matches!(ast.exprs[*base].kind, ExprKind::Index { .. }) {
                ops.index += 1;
            }
            count_ops(ast, *base, ops);
            let mut sub = Ops::default();
            count_distinct_ops(ast, *index, &mut sub, &mut Vec::new());
            ops.special += sub.special;
        }
        ExprKind::Call { name, args, .. } => {
            let special = [
                "sin", "cos", "tan", "exp", "log", "pow", "sqrt", "sinf", "cosf", "tanf", "expf",
                "logf", "powf", "sqrtf", "exp2", "exp2f", "log2", "log2f", "rsqrt", "rsqrtf",
                "atan", "atanf", "atan2", "atan2f", "tanh", "tanhf", "cbrt", "cbrtf",
            ];
            if special.contains(&name.as_str()) {
                ops.special += 1;
            } else {
                ops.arith += 1;
            }
            args.iter().for_each(|a| count_ops(ast, *a, ops));
        }
        ExprKind::Unary { operand, .. } | ExprKind::Cast { operand, .. } => {
            count_ops(ast, *operand, ops)
        }
        ExprKind::Binary { op, lhs, rhs } => {
            ops.fused += u32::from(fused);
            ops.arith += match op {
                BinaryOp::Div => 4,
                _ if fused => 0,
                _ => 1,
            };
            count_ops(ast, *lhs, ops);
            count_ops(ast, *rhs, ops);
        }
        ExprKind::Conditional {
            cond,
            then_value,
            else_value,
        } => {
            ops.arith += 1;
            count_ops(ast, *cond, ops);
            count_ops(ast, *then_value, ops);
            count_ops(ast, *else_value, ops);
        }
        ExprKind::Assign { op, target, value } => {
            ops.fused += u32::from(fused);
            if !matches!(op, crate::frontend::ast::AssignOp::Set) && !fused {
                ops.arith += 1;
            }
            count_ops(ast, *target, ops);
            count_ops(ast, *value, ops);
        }
        ExprKind::Step { target, .. } => {
            ops.arith += 1;
            count_ops(ast, *target, ops);
        }
    }
}

/// Whether `e` is a product not counted yet: a sum with it is one fused multiply-add.
fn fresh_product(
    ast: &crate::frontend::ast::Ast,
    e: crate::frontend::ast::ExprId,
    seen: &[crate::frontend::ast::ExprId],
) -> bool {
    matches!(
        ast.exprs[e].kind,
        ExprKind::Binary {
            op: BinaryOp::Mul,
            ..
        }
    ) && !seen.iter().any(|&x| same_expr(ast, x, e))
}

/// Whether expressions `a` and `b` are written the same (names, literals, operators).
fn same_expr(
    ast: &crate::frontend::ast::Ast,
    a: crate::frontend::ast::ExprId,
    b: crate::frontend::ast::ExprId,
) -> bool {
    use ExprKind as K;
    let same = |x, y| same_expr(ast, x, y);
    match (&ast.exprs[a].kind, &ast.exprs[b].kind) {
        (K::Int(x), K::Int(y)) => x == y,
        (K::Float(x), K::Float(y)) | (K::Name(x), K::Name(y)) => x == y,
        (
            K::Index { base, index },
            K::Index {
                base: b2,
                index: i2,
            },
        ) => same(*base, *b2) && same(*index, *i2),
        (
            K::Call { name, args, .. },
            K::Call {
                name: n2, args: a2, ..
            },
        ) => name == n2 && args.len() == a2.len() && args.iter().zip(a2).all(|(x, y)| same(*x, *y)),
        (
            K::Unary { op, operand },
            K::Unary {
                op: o2,
                operand: p2,
            },
        ) => op == o2 && same(*operand, *p2),
        (
            K::Cast { ty, operand },
            K::Cast {
                ty: t2,
                operand: p2,
            },
        ) => ty == t2 && same(*operand, *p2),
        (
            K::Binary { op, lhs, rhs },
            K::Binary {
                op: o2,
                lhs: l2,
                rhs: r2,
            },
        ) => op == o2 && same(*lhs, *l2) && same(*rhs, *r2),
        (
            K::Conditional {
                cond,
                then_value,
                else_value,
            },
            K::Conditional {
                cond: c2,
                then_value: t2,
                else_value: e2,
            },
        ) => same(*cond, *c2) && same(*then_value, *t2) && same(*else_value, *e2),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::{count_ops, Ops};

    #[test]
    fn a_subexpression_written_twice_is_counted_once() {
        // One subtraction, one product, the `2.0f * x[d]` product fused with the `+` (an
        // FFMA), the `+=`; three address updates: s[0], x[d], y[d].
        let ops = ops_of("s[0] += (x[d] - y[d]) * (x[d] - y[d]) + 2.0f * x[d];");
        assert_eq!((ops.arith, ops.index), (4, 3));
    }

    #[test]
    fn a_sum_with_a_product_is_one_fused_multiply_add() {
        assert_eq!(ops_of("s[0] += x[d] * y[d];").arith, 1);
        assert_eq!(ops_of("s[0] -= x[d] * y[d];").arith, 1);
        // alpha * x[d] is a product of its own; the second product takes the `+=`.
        assert_eq!(ops_of("s[0] += alpha * x[d] * y[d];").arith, 2);
        assert_eq!(ops_of("s[0] = x[d] * y[d] + 1.0f;").arith, 1);
        // A product already counted is not computed again: its sum is an addition.
        assert_eq!(ops_of("s[0] += x[d] * y[d] + x[d] * y[d];").arith, 2);
        assert_eq!(ops_of("s[0] += x[d] / y[d];").arith, 5);
    }

    /// The operations of `statement`, the body of a loop over `d` in a function of a float
    /// `alpha` and float arrays `s`, `x`, `y`.
    fn ops_of(statement: &str) -> Ops {
        let p = crate::poly::lowered(&format!(
            "void f(float alpha, float s[1], float x[4], float y[4]) {{\n  for (int d = 0; d < 4; d++)\n    {statement}\n}}\n"
        ));
        let crate::poly::program::StatementKind::Assign(root) = p.statements[0].kind else {
            panic!("an assignment");
        };
        let mut ops = Ops::default();
        count_ops(&p.unit.ast, root, &mut ops);
        ops
    }
}
