//! Affine expressions from C: the (quasi-)affine value of an integer expression over loop
//! indices and parameters, affine conditions, and the diagnostics for what is not affine.

use super::{Binding, Lowerer, AFFINE_MAX, AFFINE_MIN};
use crate::diag::{Diagnostic, Span};
use crate::frontend::ast::*;
use crate::poly::affine::{Aff, Cond, PwAff, TooLarge, Var};

/// Why an expression is not (quasi-)affine.
#[derive(Clone, Debug)]
pub(super) enum NotAffine {
    Indirect(String),
    Data(String),
    Product,
    DivisionByVariable,
    DivisionByZero,
    Float,
    Call(String),
    Undeclared(String),
    TooLarge,
    Other(&'static str),
}

pub(super) struct AffError {
    pub(super) span: Span,
    pub(super) why: NotAffine,
}

pub(super) type AffResult<T> = Result<T, AffError>;

impl Lowerer<'_> {
    // ------------------------------------------------------------ affine expressions

    /// The (quasi-)affine value of an integer expression over loop indices and parameters.
    pub(super) fn pw(&mut self, e: ExprId) -> AffResult<PwAff> {
        let expr = self.expr(e).clone();
        let span = expr.span;
        let fail = |why| AffError { span, why };
        let ov = |_: TooLarge| AffError {
            span,
            why: NotAffine::TooLarge,
        };
        Ok(match &expr.kind {
            ExprKind::Int(v) => PwAff::from_aff(Aff::constant(*v)),
            ExprKind::Float(_) => return Err(fail(NotAffine::Float)),
            ExprKind::Name(n) => match self.lookup(n) {
                Some(Binding::Index(l)) => PwAff::from_aff(Aff::var(Var::Index(
                    self.loops
                        .get(l)
                        .map(|l| l.iterator.clone())
                        .unwrap_or(n.clone()),
                ))),
                Some(Binding::Param) => {
                    self.used_params.insert(n.clone());
                    PwAff::from_aff(Aff::var(Var::Param(n.clone())))
                }
                Some(Binding::Array(_)) => return Err(fail(NotAffine::Data(n.clone()))),
                None => return Err(fail(NotAffine::Undeclared(n.clone()))),
            },
            ExprKind::Index { .. } => {
                let mut base = e;
                while let ExprKind::Index { base: b, .. } = &self.expr(base).kind {
                    base = *b;
                }
                let name = match &self.expr(base).kind {
                    ExprKind::Name(n) => n.clone(),
                    _ => "?".into(),
                };
                return Err(fail(NotAffine::Indirect(name)));
            }
            ExprKind::Call { name, args, .. }
                if args.len() == 2
                    && (AFFINE_MIN.contains(&name.as_str())
                        || AFFINE_MAX.contains(&name.as_str())) =>
            {
                let a = self.pw(args[0])?;
                let b = self.pw(args[1])?;
                let a_first = if AFFINE_MIN.contains(&name.as_str()) {
                    a.compare(&b, Cond::le).map_err(ov)?
                } else {
                    b.compare(&a, Cond::le).map_err(ov)?
                };
                PwAff::select(&a_first, &a, &b).map_err(ov)?
            }
            ExprKind::Call { name, .. } => return Err(fail(NotAffine::Call(name.clone()))),
            ExprKind::Unary { op, operand } => match op {
                UnaryOp::Plus => self.pw(*operand)?,
                UnaryOp::Neg => self.pw(*operand)?.map(|a| a.scale(-1)).map_err(ov)?,
                UnaryOp::Not => {
                    let c = self.cond(e)?;
                    return self.bool_value(&c, span);
                }
                UnaryOp::BitNot => return Err(fail(NotAffine::Other("a bitwise operation"))),
            },
            ExprKind::Binary { op, lhs, rhs } => match op {
                BinaryOp::Add => self
                    .pw(*lhs)?
                    .combine(&self.pw(*rhs)?, |a, b| a.add(b))
                    .map_err(ov)?,
                BinaryOp::Sub => self
                    .pw(*lhs)?
                    .combine(&self.pw(*rhs)?, |a, b| a.sub(b))
                    .map_err(ov)?,
                BinaryOp::Mul => {
                    let (a, b) = (self.pw(*lhs)?, self.pw(*rhs)?);
                    match (a.as_constant(), b.as_constant()) {
                        (Some(c), _) => b.map(|x| x.scale(c)).map_err(ov)?,
                        (_, Some(c)) => a.map(|x| x.scale(c)).map_err(ov)?,
                        _ => return Err(fail(NotAffine::Product)),
                    }
                }
                BinaryOp::Div | BinaryOp::Rem => {
                    let a = self.pw(*lhs)?;
                    let Some(d) = self.pw(*rhs)?.as_constant() else {
                        return Err(fail(NotAffine::DivisionByVariable));
                    };
                    if d == 0 {
                        return Err(fail(NotAffine::DivisionByZero));
                    }
                    truncating(&a, d, *op == BinaryOp::Rem).map_err(ov)?
                }
                BinaryOp::Shl | BinaryOp::Shr => {
                    let a = self.pw(*lhs)?;
                    match self.pw(*rhs)?.as_constant() {
                        Some(k) if (0..62).contains(&k) => {
                            if *op == BinaryOp::Shl {
                                a.map(|x| x.scale(1 << k)).map_err(ov)?
                            } else {
                                a.map(|x| Ok(x.floor_div(1 << k))).map_err(ov)?
                            }
                        }
                        _ => {
                            return Err(fail(NotAffine::Other("a shift by a non-constant amount")))
                        }
                    }
                }
                BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor => {
                    return Err(fail(NotAffine::Other("a bitwise operation")))
                }
                _ => {
                    let c = self.cond(e)?;
                    return self.bool_value(&c, span);
                }
            },
            ExprKind::Conditional {
                cond,
                then_value,
                else_value,
            } => {
                let c = self.cond(*cond)?;
                let (t, f) = (self.pw(*then_value)?, self.pw(*else_value)?);
                PwAff::select(&c, &t, &f).map_err(ov)?
            }
            ExprKind::Cast { ty, operand } => {
                if !ty.is_integer() {
                    return Err(fail(NotAffine::Float));
                }
                self.pw(*operand)?
            }
            ExprKind::Assign { .. } | ExprKind::Step { .. } => {
                return Err(fail(NotAffine::Other("an assignment")))
            }
        })
    }

    /// A condition as a value: 1 where it holds, 0 elsewhere.
    pub(super) fn bool_value(&self, c: &Cond, span: Span) -> AffResult<PwAff> {
        PwAff::select(
            c,
            &PwAff::from_aff(Aff::constant(1)),
            &PwAff::from_aff(Aff::constant(0)),
        )
        .map_err(|_| AffError {
            span,
            why: NotAffine::TooLarge,
        })
    }

    /// An affine condition.
    pub(super) fn cond(&mut self, e: ExprId) -> AffResult<Cond> {
        let expr = self.expr(e).clone();
        let ov = |_: TooLarge| AffError {
            span: expr.span,
            why: NotAffine::TooLarge,
        };
        match &expr.kind {
            ExprKind::Binary {
                op: BinaryOp::And,
                lhs,
                rhs,
            } => Ok(self.cond(*lhs)?.and(self.cond(*rhs)?)),
            ExprKind::Binary {
                op: BinaryOp::Or,
                lhs,
                rhs,
            } => Ok(self.cond(*lhs)?.or(self.cond(*rhs)?)),
            ExprKind::Unary {
                op: UnaryOp::Not,
                operand,
            } => self.cond(*operand)?.negate().map_err(ov),
            ExprKind::Binary { op, lhs, rhs }
                if matches!(
                    op,
                    BinaryOp::Lt
                        | BinaryOp::Le
                        | BinaryOp::Gt
                        | BinaryOp::Ge
                        | BinaryOp::Eq
                        | BinaryOp::Ne
                ) =>
            {
                let (a, b) = (self.pw(*lhs)?, self.pw(*rhs)?);
                match op {
                    BinaryOp::Lt => a.compare(&b, Cond::lt),
                    BinaryOp::Le => a.compare(&b, Cond::le),
                    BinaryOp::Gt => b.compare(&a, Cond::lt),
                    BinaryOp::Ge => b.compare(&a, Cond::le),
                    BinaryOp::Eq => a.compare(&b, Cond::eq),
                    _ => a.compare(&b, |x, y| Ok(Cond::lt(x, y)?.or(Cond::lt(y, x)?))),
                }
                .map_err(ov)
            }
            _ => {
                let v = self.pw(e)?;
                v.compare(&PwAff::from_aff(Aff::constant(0)), |x, y| {
                    Ok(Cond::lt(x, y)?.or(Cond::lt(y, x)?))
                })
                .map_err(ov)
            }
        }
    }

    /// The diagnostic for an expression that must be affine in `context`.
    pub(super) fn affine_error(&self, err: AffError, context: &str) -> Diagnostic {
        let text = self.snippet(err.span);
        let general = "gpucc needs affine expressions here: sums of loop indices and integer parameters times constants (with `/`, `%` by constants, `min`, `max`, `?:`)";
        let (message, hint) = match err.why {
            NotAffine::Indirect(array) if context == "subscript" => (
                format!("indirect subscript: `{text}` reads the array `{array}`"),
                "indirect accesses (like `A[idx[i]]`) cannot be analysed; gpucc compiles loops whose subscripts are affine in loop indices and parameters".to_string(),
            ),
            NotAffine::Indirect(array) if context == "`if` condition" => (
                format!("the `if` condition depends on the data in `{array}`"),
                "gpucc needs conditions on loop indices and parameters; for a choice that depends on data, assign a conditional value instead: `A[i] = A[i] < 0 ? 0 : A[i];`".to_string(),
            ),
            NotAffine::Indirect(array) => (
                format!("the {context} depends on the data in `{array}`"),
                format!("{general}; a value read from an array is not known before the loop runs"),
            ),
            NotAffine::Data(name) => (
                format!("{context} depends on `{name}`, a variable that holds data"),
                format!("{general}; a variable assigned in the code is data, not a parameter"),
            ),
            NotAffine::Product => (
                format!("non-affine {context}: `{text}` multiplies two values that are not constants"),
                general.to_string(),
            ),
            NotAffine::DivisionByVariable => (
                format!("non-affine {context}: `{text}` divides by a value that is not a constant"),
                general.to_string(),
            ),
            NotAffine::DivisionByZero => (format!("division by zero in a {context}"), "check the divisor".to_string()),
            NotAffine::Float => (
                format!("{context} `{text}` is not an integer"),
                "subscripts, bounds and conditions are integer expressions".to_string(),
            ),
            NotAffine::Call(name) => {
                return self.unknown_function(&name, err.span).with_note(format!("`{name}` is used in a {context}, which must be affine"));
            }
            NotAffine::Undeclared(name) => return self.undeclared(&name, err.span),
            NotAffine::TooLarge => (
                format!("{context} `{text}` is too large to analyse"),
                "its numbers exceed 64 bits or it splits into too many cases (nested `min`, `max`, `?:`); simplify it".to_string(),
            ),
            NotAffine::Other(what) => (format!("non-affine {context}: `{text}` uses {what}"), general.to_string()),
        };
        self.error(err.span, message).with_hint(hint)
    }
}

/// C's truncating `a / d` (or `a % d`) for a constant `d != 0`, exact for negative values.
fn truncating(a: &PwAff, d: i64, remainder: bool) -> Result<PwAff, TooLarge> {
    let m = d.checked_abs().ok_or(TooLarge)?;
    let zero = Aff::constant(0);
    let mut pieces = Vec::new();
    for (c, x) in &a.pieces {
        if let Some(v) = x.as_constant() {
            let q = if remainder {
                v.checked_rem(d)
            } else {
                v.checked_div(d)
            }
            .ok_or(TooLarge)?;
            pieces.push((c.clone(), Aff::constant(q)));
            continue;
        }
        // x >= 0: floor(x / m); x < 0: -floor(-x / m); then the sign of d.
        let nonneg = c.clone().and(Cond::le(&zero, x)?);
        let neg = c.clone().and(Cond::lt(x, &zero)?);
        for (cond, q) in [
            (nonneg, x.floor_div(m)),
            (neg, x.scale(-1)?.floor_div(m).scale(-1)?),
        ] {
            let q = if d < 0 { q.scale(-1)? } else { q };
            let value = if remainder { x.sub(&q.scale(d)?)? } else { q };
            pieces.push((cond, value));
        }
    }
    Ok(PwAff { pieces })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncating_division_matches_c() {
        let i = PwAff::from_aff(Aff::var(Var::Index("i".into())));
        for d in [3i64, -3, 2, 7] {
            let q = truncating(&i, d, false).unwrap();
            let r = truncating(&i, d, true).unwrap();
            for v in -10..=10i64 {
                assert_eq!(q.eval(&|_| v), Some(v / d), "{v} / {d}");
                assert_eq!(r.eval(&|_| v), Some(v % d), "{v} % {d}");
            }
        }
    }
}
