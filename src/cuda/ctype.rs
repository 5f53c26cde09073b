//! The C types of a statement's expressions, where C and CUDA C++ read a call
//! differently: C's `sqrt` takes a `double` (a `float` argument is widened, and the root
//! computed in double precision), where C++ picks its `float` overload; C's `abs` takes an
//! `int`; `tanh(int)` and `fmax(double, float)` are ambiguous in C++. The writer casts such
//! arguments to the type C converts them to, so that the CUDA computes what the C does.

use super::statement::Context;
use crate::frontend::ast::{BinaryOp, ExprId, ExprKind, ScalarType, UnaryOp};
use crate::poly::MATH_FUNCTIONS;

/// C's usual arithmetic conversions of two operands (after the integer promotions, `int`
/// below `unsigned` below `long` below `unsigned long` below `float` below `double`).
pub fn common(a: ScalarType, b: ScalarType) -> ScalarType {
    a.promoted().max(b.promoted())
}

/// The type C converts the arguments of the math function `name` to, if it has one:
/// `double` for `sqrt`, `float` for `sqrtf`, `int` for `abs`; `None` for the functions
/// gpucc reads as the smaller or larger of two values (`min`, `max`: their arguments
/// meet at their common type).
pub fn parameter_type(name: &str) -> Option<ScalarType> {
    if name == "abs" {
        return Some(ScalarType::Int);
    }
    if !MATH_FUNCTIONS.iter().any(|(f, _)| *f == name) || matches!(name, "min" | "max") {
        return None;
    }
    let single = name
        .strip_suffix('f')
        .is_some_and(|double| MATH_FUNCTIONS.iter().any(|(f, _)| *f == double));
    Some(if single {
        ScalarType::Float
    } else {
        ScalarType::Double
    })
}

impl Context<'_> {
    /// The C type of expression `e` of the statement.
    pub fn c_type(&self, e: ExprId) -> ScalarType {
        let p = &self.t.program;
        if let Some(a) = self.access_of(e) {
            return p.arrays[p.accesses[a].array].elem;
        }
        match &p.unit.ast.exprs[e].kind {
            ExprKind::Int(v) => {
                if i32::try_from(*v).is_ok() {
                    ScalarType::Int
                } else {
                    ScalarType::Long
                }
            }
            ExprKind::Float(text) => {
                if text.ends_with(['f', 'F']) {
                    ScalarType::Float
                } else {
                    ScalarType::Double
                }
            }
            ExprKind::Name(n) => self.name_type(n),
            ExprKind::Index { base, .. } => self.c_type(*base),
            ExprKind::Call { name, args, .. } => match parameter_type(name) {
                Some(t) => t,
                None => args
                    .iter()
                    .map(|a| self.c_type(*a))
                    .reduce(common)
                    .unwrap_or(ScalarType::Int),
            },
            ExprKind::Unary { op, operand } => match op {
                UnaryOp::Not => ScalarType::Int,
                _ => self.c_type(*operand).promoted(),
            },
            ExprKind::Binary { op, lhs, rhs } => match op {
                BinaryOp::Mul
                | BinaryOp::Div
                | BinaryOp::Rem
                | BinaryOp::Add
                | BinaryOp::Sub
                | BinaryOp::BitAnd
                | BinaryOp::BitXor
                | BinaryOp::BitOr => common(self.c_type(*lhs), self.c_type(*rhs)),
                BinaryOp::Shl | BinaryOp::Shr => self.c_type(*lhs).promoted(),
                _ => ScalarType::Int,
            },
            ExprKind::Conditional {
                then_value,
                else_value,
                ..
            } => common(self.c_type(*then_value), self.c_type(*else_value)),
            ExprKind::Cast { ty, .. } => *ty,
            ExprKind::Assign { target, .. } | ExprKind::Step { target, .. } => self.c_type(*target),
        }
    }

    /// A name's type: a loop index, a size, or a scalar variable.
    fn name_type(&self, n: &str) -> ScalarType {
        let p = &self.t.program;
        let declared = |name: &str| {
            p.unit
                .params
                .iter()
                .find(|q| q.declarator.name == name)
                .and_then(|q| q.spec.ty)
        };
        if p.loops.iter().any(|l| l.iterator == n) {
            return declared(n)
                .filter(|t| t.is_integer())
                .unwrap_or(ScalarType::Int);
        }
        if let Some(a) = p.arrays.iter().find(|a| a.name == n) {
            return a.elem;
        }
        declared(n).unwrap_or(ScalarType::Int)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn math_functions_take_what_c_gives_them() {
        assert_eq!(parameter_type("sqrt"), Some(ScalarType::Double));
        assert_eq!(parameter_type("sqrtf"), Some(ScalarType::Float));
        assert_eq!(parameter_type("fabs"), Some(ScalarType::Double));
        assert_eq!(parameter_type("fabsf"), Some(ScalarType::Float));
        assert_eq!(parameter_type("fmaf"), Some(ScalarType::Float));
        assert_eq!(parameter_type("erf"), Some(ScalarType::Double));
        assert_eq!(parameter_type("abs"), Some(ScalarType::Int));
        assert_eq!(parameter_type("min"), None);
        assert_eq!(parameter_type("printf"), None);
    }
}
