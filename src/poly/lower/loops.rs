//! Loop headers: the index, its first value, the step and the bound, checked to describe
//! an affine range (`for (int i = lo; i < hi; i += c)`), and the bounds text for reports.

use super::affine_expr::{AffError, NotAffine};
use super::{Binding, Lowerer};
use crate::diag::Diagnostic;
use crate::frontend::ast::*;
use crate::poly::affine::{Aff, Cond, PwAff, Var};
use crate::poly::program::Loop;
use std::collections::HashMap;

/// A loop header as read.
pub(super) struct Header {
    iterator: String,
    step: i64,
    bounds: String,
    first: PwAff,
    bound: Cond,
    iterations: Cond,
}

impl Lowerer<'_> {
    // ------------------------------------------------------------ loops

    pub(super) fn for_loop(&mut self, f: &ForStmt) {
        match self.loop_header(f) {
            Ok(Header {
                iterator,
                step,
                bounds,
                first,
                bound,
                iterations,
            }) => {
                let depth = self.loop_stack.len();
                let position = self.next_position[depth];
                self.next_position[depth] += 1;
                let id = self.loops.len();
                self.loops.push(Loop {
                    iterator: iterator.clone(),
                    parent: self.loop_stack.last().copied(),
                    depth: depth + 1,
                    keyword: f.keyword,
                    line: self.file.line(f.keyword.start),
                    step,
                    bounds,
                    position,
                    context: self.guard.clone(),
                    first,
                    bound,
                    iterations: iterations.clone(),
                });
                let saved = self.guard.clone();
                self.guard = saved.clone().and(iterations);
                self.scopes.push(HashMap::new());
                self.bind(&iterator, Binding::Index(id));
                self.loop_stack.push(id);
                self.next_position.push(0);
                self.stmt(f.body);
                self.next_position.pop();
                self.loop_stack.pop();
                self.scopes.pop();
                self.guard = saved;
            }
            Err(d) => self.diags.push(d),
        }
    }

    /// Reads `for (init; cond; step)`: the index, the step, the bounds text, its first
    /// value, its condition, and the condition on the index that the loop's iterations
    /// satisfy.
    pub(super) fn loop_header(&mut self, f: &ForStmt) -> Result<Header, Diagnostic> {
        let hint = "write the loop as `for (int i = lower; i < upper; i++)` (or `+= step`), with affine bounds";
        // The index and its first value.
        let (name, name_span, first, ty) = match &f.init {
            ForInit::Decl(d) => match d.declarators.as_slice() {
                [Declarator {
                    name,
                    name_span,
                    dims,
                    init: Some(Init::Expr(v)),
                }] if dims.is_empty() => (name.clone(), *name_span, *v, d.spec.ty),
                _ => {
                    return Err(self
                        .error(d.span, "unsupported loop initialization")
                        .with_label("declare one integer index with its first value")
                        .with_hint(hint))
                }
            },
            ForInit::Expr(e) => match &self.expr(*e).kind {
                ExprKind::Assign {
                    op: AssignOp::Set,
                    target,
                    value,
                } => match &self.expr(*target).kind {
                    ExprKind::Name(n) => {
                        let ty = match self.lookup(n) {
                            Some(Binding::Array(a)) if self.arrays[a].is_scalar() => {
                                Some(self.arrays[a].elem)
                            }
                            Some(Binding::Index(_)) => {
                                return Err(self
                                    .error(
                                        self.expr(*target).span,
                                        format!("`{n}` is already the index of an enclosing loop"),
                                    )
                                    .with_hint("give each loop of a nest its own index"))
                            }
                            None => {
                                return Err(self
                                    .error(
                                        self.expr(*target).span,
                                        format!("`{n}` is not declared"),
                                    )
                                    .with_hint(format!(
                                        "declare the index in the loop: `for (int {n} = ...`"
                                    )))
                            }
                            _ => {
                                return Err(self
                                    .error(
                                        self.expr(*target).span,
                                        format!("`{n}` cannot be a loop index"),
                                    )
                                    .with_hint("use a local integer variable as the loop index"))
                            }
                        };
                        (n.clone(), self.expr(*target).span, *value, ty)
                    }
                    _ => {
                        return Err(self
                            .error(self.expr(*e).span, "unsupported loop initialization")
                            .with_hint(hint))
                    }
                },
                _ => {
                    return Err(self
                        .error(self.expr(*e).span, "unsupported loop initialization")
                        .with_hint(hint))
                }
            },
            ForInit::None => {
                return Err(self
                    .error(f.keyword, "this `for` loop does not initialize its index")
                    .with_hint(hint))
            }
        };
        match ty {
            Some(t) if t.is_integer() => {}
            _ => {
                return Err(self
                    .error(
                        name_span,
                        format!("the loop index `{name}` is not an integer"),
                    )
                    .with_hint("loop indices must be `int` (or `long`)"))
            }
        }
        if matches!(self.lookup(&name), Some(Binding::Index(_))) {
            return Err(self
                .error(
                    name_span,
                    format!("`{name}` is already the index of an enclosing loop"),
                )
                .with_hint("give each loop of a nest its own index"));
        }
        if self.params.contains(&name) {
            return Err(self
                .error(
                    name_span,
                    format!("the loop index `{name}` has the name of a parameter"),
                )
                .with_hint("rename the loop index"));
        }
        // The step.
        let step_expr = f.step.ok_or_else(|| {
            self.error(f.keyword, "this `for` loop has no step")
                .with_hint(hint)
        })?;
        let step = self.loop_step(step_expr, &name).ok_or_else(|| {
            self.error(
                self.expr(step_expr).span,
                format!("unsupported step for the loop index `{name}`"),
            )
            .with_label("expected `i++`, `i--`, `i += c` or `i -= c` with a constant `c`")
            .with_hint(hint)
        })?;
        if step < 0 && matches!(ty, Some(ScalarType::UInt | ScalarType::ULong)) {
            return Err(self.error(name_span, format!("the unsigned index `{name}` counts down"))
                .with_hint("use a signed index for a loop that counts down; `i >= 0` is always true for unsigned `i`"));
        }
        let first_pw = self
            .pw(first)
            .map_err(|e| self.affine_error(e, "loop bound"))?;
        // The condition, with the index bound.
        let cond_expr = f.cond.ok_or_else(|| {
            self.error(
                f.keyword,
                format!("this `for` loop has no condition bounding `{name}`"),
            )
            .with_hint(hint)
        })?;
        let id = self.loops.len();
        self.scopes.push(HashMap::new());
        self.bind(&name, Binding::Index(id));
        let cond = self.cond(cond_expr);
        self.scopes.pop();
        let cond = cond.map_err(|e| self.affine_error(e, "loop bound"))?;
        let index = Var::Index(name.clone());
        let mut atoms = Vec::new();
        cond.atoms(&mut atoms);
        for atom in &atoms {
            let bad = match atom {
                Cond::Zero(a) => a.involves(&index),
                Cond::NonNeg(a) => {
                    let (c, in_div) = a.coefficient(&index);
                    in_div || (step > 0 && c > 0) || (step < 0 && c < 0)
                }
                _ => false,
            };
            if bad {
                let bound = if step > 0 { "upper" } else { "lower" };
                return Err(self.error(self.expr(cond_expr).span, format!("unsupported loop condition for `{name}`"))
                    .with_label(format!("this must be an {bound} bound on `{name}`"))
                    .with_hint(format!("write the condition as `{name} < upper` (or `<=`, `min(...)`, `&&` of such bounds){}",
                        if step < 0 { "; for a loop that counts down, `i >= lower`" } else { "" })));
            }
        }
        // Where the loop starts, and its stride.
        let ov = |_| {
            self.affine_error(
                AffError {
                    span: self.expr(first).span,
                    why: NotAffine::TooLarge,
                },
                "loop bound",
            )
        };
        let index_aff = Aff::var(index.clone());
        let mut start = Cond::False;
        for (c, a) in &first_pw.pieces {
            let mut piece = c.clone().and(if step > 0 {
                Cond::le(a, &index_aff).map_err(ov)?
            } else {
                Cond::le(&index_aff, a).map_err(ov)?
            });
            if step.abs() > 1 {
                // (i - first) mod |step| = 0
                let diff = index_aff.sub(a).map_err(ov)?;
                let rem = diff
                    .sub(&diff.floor_div(step.abs()).scale(step.abs()).map_err(ov)?)
                    .map_err(ov)?;
                piece = piece.and(Cond::Zero(rem));
            }
            start = start.or(piece);
        }
        let bounds = self.bounds_text(&name, first, cond_expr, step);
        Ok(Header {
            iterator: name,
            step,
            bounds,
            first: first_pw,
            iterations: start.and(cond.clone()),
            bound: cond,
        })
    }

    /// The constant step of `i++`, `i -= 2`, `i = i + 4`, ...
    pub(super) fn loop_step(&mut self, e: ExprId, name: &str) -> Option<i64> {
        let is_index =
            |l: &Self, x: ExprId| matches!(&l.expr(x).kind, ExprKind::Name(n) if n == name);
        let constant = |l: &mut Self, x: ExprId| l.pw(x).ok().and_then(|p| p.as_constant());
        let step = match self.expr(e).kind.clone() {
            ExprKind::Step { op, target, .. } if is_index(self, target) => match op {
                StepOp::Increment => 1,
                StepOp::Decrement => -1,
            },
            ExprKind::Assign {
                op: AssignOp::Compound(op),
                target,
                value,
            } if is_index(self, target) => {
                let c = constant(self, value)?;
                match op {
                    BinaryOp::Add => c,
                    BinaryOp::Sub => c.checked_neg()?,
                    _ => return None,
                }
            }
            ExprKind::Assign {
                op: AssignOp::Set,
                target,
                value,
            } if is_index(self, target) => match self.expr(value).kind.clone() {
                ExprKind::Binary {
                    op: BinaryOp::Add,
                    lhs,
                    rhs,
                } if is_index(self, lhs) => constant(self, rhs)?,
                ExprKind::Binary {
                    op: BinaryOp::Add,
                    lhs,
                    rhs,
                } if is_index(self, rhs) => constant(self, lhs)?,
                ExprKind::Binary {
                    op: BinaryOp::Sub,
                    lhs,
                    rhs,
                } if is_index(self, lhs) => constant(self, rhs)?.checked_neg()?,
                _ => return None,
            },
            _ => return None,
        };
        (step != 0).then_some(step)
    }

    /// `0 <= i < N`, `0 <= i <= min(N, M)`, or the header's text when it has another form.
    pub(super) fn bounds_text(&self, name: &str, first: ExprId, cond: ExprId, step: i64) -> String {
        let first_text = self.snippet(self.expr(first).span);
        let step_text = if step.abs() == 1 {
            String::new()
        } else {
            format!(", step {step}")
        };
        if let ExprKind::Binary { op, lhs, rhs } = &self.expr(cond).kind {
            if matches!(&self.expr(*lhs).kind, ExprKind::Name(n) if n == name) {
                let rhs_text = self.snippet(self.expr(*rhs).span);
                let text = match (op, step > 0) {
                    (BinaryOp::Lt | BinaryOp::Le, true) => Some(format!(
                        "{first_text} <= {name} {} {rhs_text}",
                        op.c_spelling()
                    )),
                    (BinaryOp::Gt | BinaryOp::Ge, false) => Some(format!(
                        "{first_text} >= {name} {} {rhs_text}",
                        op.c_spelling()
                    )),
                    _ => None,
                };
                if let Some(t) = text {
                    return t + &step_text;
                }
            }
        }
        let rel = if step > 0 { "<=" } else { ">=" };
        format!(
            "{first_text} {rel} {name}, while {}{step_text}",
            self.snippet(self.expr(cond).span)
        )
    }
}
