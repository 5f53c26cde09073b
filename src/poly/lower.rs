//! Lowering: a unit's AST → a [`Program`]. Resolves names, turns loop headers, `if`
//! conditions and subscripts into exact affine data, builds each statement's domain,
//! accesses and schedule, and refuses (with the construct named and pointed at) what is not
//! affine: `A[i*j]`, `A[idx[i]]`, bounds that depend on data, unknown functions.

use super::affine::{Aff, Cond, Overflow, PwAff, Var};
use super::program::*;
use crate::diag::{Diagnostic, Diagnostics, SourceFile, SourceId, Span};
use crate::frontend::ast::*;
use crate::frontend::Unit;
use std::collections::{HashMap, HashSet};

/// `<math.h>` functions (and CUDA's `min`/`max`) that compiled code may call, with their
/// number of arguments.
pub const MATH_FUNCTIONS: &[(&str, usize)] = &[
    ("sqrt", 1),
    ("sqrtf", 1),
    ("cbrt", 1),
    ("cbrtf", 1),
    ("exp", 1),
    ("expf", 1),
    ("exp2", 1),
    ("exp2f", 1),
    ("expm1", 1),
    ("expm1f", 1),
    ("log", 1),
    ("logf", 1),
    ("log2", 1),
    ("log2f", 1),
    ("log10", 1),
    ("log10f", 1),
    ("log1p", 1),
    ("log1pf", 1),
    ("sin", 1),
    ("sinf", 1),
    ("cos", 1),
    ("cosf", 1),
    ("tan", 1),
    ("tanf", 1),
    ("asin", 1),
    ("asinf", 1),
    ("acos", 1),
    ("acosf", 1),
    ("atan", 1),
    ("atanf", 1),
    ("sinh", 1),
    ("sinhf", 1),
    ("cosh", 1),
    ("coshf", 1),
    ("tanh", 1),
    ("tanhf", 1),
    ("fabs", 1),
    ("fabsf", 1),
    ("floor", 1),
    ("floorf", 1),
    ("ceil", 1),
    ("ceilf", 1),
    ("round", 1),
    ("roundf", 1),
    ("trunc", 1),
    ("truncf", 1),
    ("erf", 1),
    ("erff", 1),
    ("erfc", 1),
    ("erfcf", 1),
    ("abs", 1),
    ("pow", 2),
    ("powf", 2),
    ("fmin", 2),
    ("fminf", 2),
    ("fmax", 2),
    ("fmaxf", 2),
    ("atan2", 2),
    ("atan2f", 2),
    ("fmod", 2),
    ("fmodf", 2),
    ("hypot", 2),
    ("hypotf", 2),
    ("copysign", 2),
    ("copysignf", 2),
    ("min", 2),
    ("max", 2),
    ("fma", 3),
    ("fmaf", 3),
];

/// Functions that mean `min`/`max` in bounds and subscripts.
const AFFINE_MIN: &[&str] = &["min", "MIN", "imin"];
const AFFINE_MAX: &[&str] = &["max", "MAX", "imax"];

/// Lowers a unit of `file` to its polyhedral program.
pub fn lower(unit: Unit, file: &SourceFile) -> Result<Program, Diagnostics> {
    let mut l = Lowerer {
        file,
        source: unit.source,
        assigned: assigned_names(&unit.ast),
        unit: &unit,
        scopes: vec![HashMap::new()],
        loop_stack: Vec::new(),
        guard: Cond::True,
        next_position: vec![0],
        params: Vec::new(),
        used_params: HashSet::new(),
        arrays: Vec::new(),
        loops: Vec::new(),
        statements: Vec::new(),
        accesses: Vec::new(),
        diags: Vec::new(),
    };
    for p in &unit.params {
        l.declare_outside(p);
    }
    l.scopes.push(HashMap::new());
    for s in &unit.body {
        l.stmt(*s);
    }
    if !l.diags.is_empty() {
        return Err(l.diags);
    }
    let used = l.used_params;
    let params = l.params.into_iter().filter(|p| used.contains(p)).collect();
    let (arrays, loops, statements, accesses) = (l.arrays, l.loops, l.statements, l.accesses);
    Ok(Program {
        unit,
        params,
        arrays,
        loops,
        statements,
        accesses,
    })
}

/// What a name means at a place in the code.
#[derive(Clone, Copy, Debug)]
enum Binding {
    /// The index of an enclosing loop.
    Index(LoopId),
    /// A symbolic integer parameter.
    Param,
    /// An array or a scalar variable.
    Array(ArrayId),
}

/// Why an expression is not (quasi-)affine.
#[derive(Clone, Debug)]
enum NotAffine {
    Indirect(String),
    Data(String),
    Product,
    DivisionByVariable,
    DivisionByZero,
    Float,
    Call(String),
    Undeclared(String),
    Overflow,
    Other(&'static str),
}

struct AffError {
    span: Span,
    why: NotAffine,
}

type AffResult<T> = Result<T, AffError>;

struct Lowerer<'a> {
    file: &'a SourceFile,
    source: SourceId,
    unit: &'a Unit,
    /// Every name assigned somewhere in the unit: an `int` parameter that is assigned is
    /// data, not a symbolic size.
    assigned: HashSet<String>,
    scopes: Vec<HashMap<String, Binding>>,
    loop_stack: Vec<LoopId>,
    /// The conjunction of the enclosing loops' bounds and `if` conditions.
    guard: Cond,
    /// The next sibling position at each loop depth.
    next_position: Vec<usize>,
    params: Vec<String>,
    used_params: HashSet<String>,
    arrays: Vec<Array>,
    loops: Vec<Loop>,
    statements: Vec<Statement>,
    accesses: Vec<Access>,
    diags: Diagnostics,
}

/// The names that are targets of assignments or `++`/`--` anywhere in the AST.
fn assigned_names(ast: &Ast) -> HashSet<String> {
    let mut out = HashSet::new();
    for (_, e) in ast.exprs.iter() {
        let target = match &e.kind {
            ExprKind::Assign { target, .. } | ExprKind::Step { target, .. } => *target,
            _ => continue,
        };
        let mut t = target;
        loop {
            match &ast.exprs[t].kind {
                ExprKind::Index { base, .. } => t = *base,
                ExprKind::Name(n) => {
                    out.insert(n.clone());
                    break;
                }
                _ => break,
            }
        }
    }
    out
}

impl Lowerer<'_> {
    fn expr(&self, e: ExprId) -> &Expr {
        &self.unit.ast.exprs[e]
    }

    fn error(&self, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::error(self.source, span, message)
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn bind(&mut self, name: &str, b: Binding) {
        self.scopes
            .last_mut()
            .expect("a scope is open")
            .insert(name.to_string(), b);
    }

    fn snippet(&self, span: Span) -> String {
        self.file.snippet(span)
    }

    // ------------------------------------------------------------ declarations

    /// A function parameter, or a declaration from outside a scop region.
    fn declare_outside(&mut self, p: &Param) {
        let d = &p.declarator;
        let Some(ty) = p.spec.ty else {
            self.diags.push(
                self.error(
                    p.spec.span,
                    format!("parameter `{}` has type `void`", d.name),
                )
                .with_hint("give it a scalar type such as `int` or `float`"),
            );
            return;
        };
        if d.dims.is_empty() && ty.is_integer() && !self.assigned.contains(&d.name) {
            self.params.push(d.name.clone());
            self.bind(&d.name, Binding::Param);
            return;
        }
        if let Some(a) = self.new_array(d, ty, p.spec.is_const, ArrayKind::Outside) {
            self.bind(&d.name, Binding::Array(a));
        }
    }

    /// Declares an array or scalar; reports dimensions that are not constant or affine
    /// in the parameters.
    fn new_array(
        &mut self,
        d: &Declarator,
        elem: ScalarType,
        is_const: bool,
        kind: ArrayKind,
    ) -> Option<ArrayId> {
        let mut extents = Vec::new();
        for (k, dim) in d.dims.iter().enumerate() {
            match dim {
                Dim::Unsized(_) if k == 0 && kind == ArrayKind::Outside => extents.push(None),
                Dim::Unsized(span) => {
                    self.diags.push(
                        self.error(
                            *span,
                            format!("array `{}` needs the size of this dimension", d.name),
                        )
                        .with_hint("only the first dimension of a parameter may be left empty"),
                    );
                    return None;
                }
                Dim::Sized(e) => match self.pw(*e) {
                    Ok(pw) => match pw.as_aff() {
                        Some(a)
                            if !a
                                .terms
                                .keys()
                                .any(|t| matches!(t, super::affine::Atom::Var(Var::Index(_)))) =>
                        {
                            extents.push(Some(a.clone()))
                        }
                        _ => {
                            self.diags.push(
                                self.error(self.expr(*e).span, format!("unsupported size for a dimension of `{}`", d.name))
                                    .with_hint("a dimension is a constant, or an affine expression of integer parameters"),
                            );
                            return None;
                        }
                    },
                    Err(err) => {
                        self.diags.push(self.affine_error(err, "array dimension"));
                        return None;
                    }
                },
            }
        }
        if let Some(Some(c)) = extents.iter().find(|e| {
            e.as_ref()
                .and_then(|a| a.as_constant())
                .is_some_and(|c| c <= 0)
        }) {
            let c = c.as_constant().unwrap_or(0);
            self.diags.push(
                self.error(
                    d.name_span,
                    format!("array `{}` has a dimension of size {c}", d.name),
                )
                .with_hint("array dimensions must be positive"),
            );
            return None;
        }
        let dims_text = d
            .dims
            .iter()
            .map(|dim| match dim {
                Dim::Unsized(_) => "[]".to_string(),
                Dim::Sized(e) => format!("[{}]", self.snippet(self.expr(*e).span)),
            })
            .collect();
        self.arrays.push(Array {
            name: d.name.clone(),
            elem,
            extents,
            dims_text,
            kind,
            span: d.name_span,
            is_const,
            initialized: d.init.is_some(),
        });
        Some(self.arrays.len() - 1)
    }

    /// A declaration inside the compiled code.
    fn local_decl(&mut self, decl: &Decl, stmt_span: Span) {
        let Some(ty) = decl.spec.ty else {
            self.diags.push(
                self.error(decl.spec.span, "a variable cannot have type `void`")
                    .with_hint("use a scalar type such as `int` or `float`"),
            );
            return;
        };
        for d in &decl.declarators {
            if let Some(Binding::Index(_)) = self.lookup(&d.name) {
                self.diags.push(
                    self.error(
                        d.name_span,
                        format!("`{}` is the index of an enclosing loop", d.name),
                    )
                    .with_hint("give the variable another name"),
                );
                continue;
            }
            let kind = if self.loop_stack.is_empty() {
                ArrayKind::Local
            } else {
                ArrayKind::Private {
                    loops: self.loop_stack.clone(),
                }
            };
            let Some(a) = self.new_array(d, ty, decl.spec.is_const, kind) else {
                continue;
            };
            self.bind(&d.name, Binding::Array(a));
            match &d.init {
                None => {}
                Some(Init::Expr(value)) if d.dims.is_empty() => {
                    let value = *value;
                    self.statement(stmt_span, StatementKind::Init { value }, |l, id| {
                        let mut reads = Vec::new();
                        l.collect_reads(value, id, &mut reads)?;
                        let write = l.new_access(id, a, true, Vec::new(), d.name_span)?;
                        Ok((write, reads.into_iter().map(|(_, r)| r).collect(), None))
                    });
                }
                Some(init) => self.check_constant_initializer(init, &d.name),
            }
        }
    }

    /// An array initializer (`{1, 2, 3}`) must be constant: it is data, not a statement.
    fn check_constant_initializer(&mut self, init: &Init, name: &str) {
        match init {
            Init::List(items, _) => items
                .iter()
                .for_each(|i| self.check_constant_initializer(i, name)),
            Init::Expr(e) => {
                if !self.is_constant(*e) {
                    self.diags.push(
                        self.error(
                            self.expr(*e).span,
                            format!("the initializer of `{name}` is not a constant"),
                        )
                        .with_hint(
                            "initialize arrays with constants, or assign their elements in a loop",
                        ),
                    );
                }
            }
        }
    }

    fn is_constant(&self, e: ExprId) -> bool {
        match &self.expr(e).kind {
            ExprKind::Int(_) | ExprKind::Float(_) => true,
            ExprKind::Unary { operand, .. } | ExprKind::Cast { operand, .. } => {
                self.is_constant(*operand)
            }
            ExprKind::Binary { lhs, rhs, .. } => self.is_constant(*lhs) && self.is_constant(*rhs),
            _ => false,
        }
    }

    // ------------------------------------------------------------ statements

    fn stmt(&mut self, id: StmtId) {
        let stmt = &self.unit.ast.stmts[id];
        let span = stmt.span;
        match &stmt.kind {
            StmtKind::Empty => {}
            StmtKind::Block(body) => {
                self.scopes.push(HashMap::new());
                for s in body {
                    self.stmt(*s);
                }
                self.scopes.pop();
            }
            StmtKind::Decl(d) => self.local_decl(d, span),
            StmtKind::Expr(e) => self.assignment(*e, span),
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let c = match self.cond(*cond) {
                    Ok(c) => c,
                    Err(err) => {
                        self.diags.push(self.affine_error(err, "`if` condition"));
                        return;
                    }
                };
                let saved = self.guard.clone();
                self.guard = saved.clone().and(c.clone());
                self.scopes.push(HashMap::new());
                self.stmt(*then_branch);
                self.scopes.pop();
                if let Some(e) = else_branch {
                    match c.negate() {
                        Ok(not) => {
                            self.guard = saved.clone().and(not);
                            self.scopes.push(HashMap::new());
                            self.stmt(*e);
                            self.scopes.pop();
                        }
                        Err(Overflow) => self.diags.push(self.affine_error(
                            AffError {
                                span: self.expr(*cond).span,
                                why: NotAffine::Overflow,
                            },
                            "`if` condition",
                        )),
                    }
                }
                self.guard = saved;
            }
            StmtKind::For(f) => self.for_loop(f),
        }
    }

    /// Creates statement `S<n>` with the accesses `build` makes, at the current place.
    fn statement(
        &mut self,
        span: Span,
        kind: StatementKind,
        build: impl FnOnce(
            &mut Self,
            StatementId,
        ) -> Result<(AccessId, Vec<AccessId>, Option<Update>), Diagnostic>,
    ) {
        let id = self.statements.len();
        let first_access = self.accesses.len();
        let (write, reads, update) = match build(self, id) {
            Ok(x) => x,
            Err(d) => {
                self.accesses.truncate(first_access);
                self.diags.push(d);
                return;
            }
        };
        let depth = self.loop_stack.len();
        let position = self.next_position[depth];
        self.next_position[depth] += 1;
        let mut schedule = Vec::new();
        for l in &self.loop_stack {
            let lp = &self.loops[*l];
            schedule.push(ScheduleDim::Position(lp.position));
            schedule.push(ScheduleDim::Loop {
                id: *l,
                reversed: lp.step < 0,
            });
        }
        schedule.push(ScheduleDim::Position(position));
        self.statements.push(Statement {
            name: format!("S{id}"),
            kind,
            span,
            line: self.file.line(span.start),
            text: self.snippet(span),
            loops: self.loop_stack.clone(),
            domain: self.guard.clone(),
            schedule,
            write,
            reads,
            update,
        });
    }

    /// An expression statement: it must be an assignment or `++`/`--`.
    fn assignment(&mut self, e: ExprId, span: Span) {
        let expr = self.expr(e).clone();
        match expr.kind {
            ExprKind::Assign { op, target, value } => {
                self.statement(span, StatementKind::Assign(e), |l, id| {
                    let mut reads = Vec::new();
                    let mut update = None;
                    if let AssignOp::Compound(bop) = op {
                        let r = l.access_of(target, id, false)?;
                        reads.push((target, r));
                        update = match bop {
                            BinaryOp::Add | BinaryOp::Sub => Some(Update { op: ReductionOp::Add, read: r }),
                            BinaryOp::Mul => Some(Update { op: ReductionOp::Mul, read: r }),
                            _ => None,
                        };
                    }
                    l.collect_reads(value, id, &mut reads)?;
                    let write = l.access_of(target, id, true)?;
                    if op == AssignOp::Set {
                        update = l.explicit_update(value, write, &reads);
                    }
                    if update.is_some_and(|u| reads.iter().filter(|(_, r)| l.same_location(*r, u.read)).count() > 1) {
                        update = None;
                    }
                    Ok((write, reads.into_iter().map(|(_, r)| r).collect(), update))
                });
            }
            ExprKind::Step { target, .. } => {
                self.statement(span, StatementKind::Assign(e), |l, id| {
                    let r = l.access_of(target, id, false)?;
                    let write = l.access_of(target, id, true)?;
                    Ok((write, vec![r], Some(Update { op: ReductionOp::Add, read: r })))
                });
            }
            _ => self.diags.push(
                self.error(span, "this statement does nothing gpucc can compile")
                    .with_label("not an assignment")
                    .with_hint("statements in compiled code assign a value: `x = ...;`, `A[i] += ...;`, `x++;`"),
            ),
        }
    }

    /// `x = x + e`, `x = e * x`, `x = max(x, e)`: the update form of an assignment.
    fn explicit_update(
        &self,
        value: ExprId,
        write: AccessId,
        reads: &[(ExprId, AccessId)],
    ) -> Option<Update> {
        let read_of = |e: ExprId| {
            reads
                .iter()
                .find(|(x, _)| *x == e)
                .map(|(_, r)| *r)
                .filter(|r| self.same_location(*r, write))
        };
        match &self.expr(value).kind {
            ExprKind::Binary { op, lhs, rhs } => {
                let op_kind = match op {
                    BinaryOp::Add => ReductionOp::Add,
                    BinaryOp::Mul => ReductionOp::Mul,
                    BinaryOp::Sub => {
                        return read_of(*lhs).map(|read| Update {
                            op: ReductionOp::Add,
                            read,
                        });
                    }
                    _ => return None,
                };
                read_of(*lhs)
                    .or_else(|| read_of(*rhs))
                    .map(|read| Update { op: op_kind, read })
            }
            ExprKind::Call { name, args, .. } if args.len() == 2 => {
                let op = match name.as_str() {
                    "fmin" | "fminf" | "min" => ReductionOp::Min,
                    "fmax" | "fmaxf" | "max" => ReductionOp::Max,
                    _ => return None,
                };
                read_of(args[0])
                    .or_else(|| read_of(args[1]))
                    .map(|read| Update { op, read })
            }
            _ => None,
        }
    }

    /// Whether two accesses touch the same element in every instance.
    fn same_location(&self, a: AccessId, b: AccessId) -> bool {
        let (x, y) = (&self.accesses[a], &self.accesses[b]);
        x.array == y.array && x.subscripts == y.subscripts
    }

    // ------------------------------------------------------------ loops

    fn for_loop(&mut self, f: &ForStmt) {
        match self.loop_header(f) {
            Ok((iterator, step, bounds, loop_cond)) => {
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
                });
                let saved = self.guard.clone();
                self.guard = saved.clone().and(loop_cond);
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

    /// Reads `for (init; cond; step)`: the index, the step, the bounds text, and the
    /// condition on the index that the loop's iterations satisfy.
    fn loop_header(&mut self, f: &ForStmt) -> Result<(String, i64, String, Cond), Diagnostic> {
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
                    why: NotAffine::Overflow,
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
        Ok((name, step, bounds, start.and(cond)))
    }

    /// The constant step of `i++`, `i -= 2`, `i = i + 4`, ...
    fn loop_step(&mut self, e: ExprId, name: &str) -> Option<i64> {
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
    fn bounds_text(&self, name: &str, first: ExprId, cond: ExprId, step: i64) -> String {
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

    // ------------------------------------------------------------ accesses

    /// The access of an lvalue or array reference `e` (a name or `A[..][..]`).
    fn access_of(
        &mut self,
        e: ExprId,
        statement: StatementId,
        is_write: bool,
    ) -> Result<AccessId, Diagnostic> {
        let mut subs = Vec::new();
        let mut base = e;
        while let ExprKind::Index { base: b, index } = &self.expr(base).kind {
            subs.push(*index);
            base = *b;
        }
        subs.reverse();
        let span = self.expr(e).span;
        let name = match &self.expr(base).kind {
            ExprKind::Name(n) => n.clone(),
            _ => {
                return Err(self
                    .error(self.expr(base).span, "only named arrays can be indexed")
                    .with_hint("index an array declared as a parameter or a local: `A[i]`"))
            }
        };
        let a = match self.lookup(&name) {
            Some(Binding::Array(a)) => a,
            Some(Binding::Index(_)) if is_write => {
                return Err(self
                    .error(
                        span,
                        format!("the loop index `{name}` is assigned inside its loop"),
                    )
                    .with_hint("gpucc needs loops whose index changes only in the `for` header"))
            }
            Some(Binding::Index(_)) | Some(Binding::Param) => {
                let what = if matches!(self.lookup(&name), Some(Binding::Param)) {
                    "an integer parameter"
                } else {
                    "a loop index"
                };
                return Err(self
                    .error(span, format!("`{name}` is {what}, not an array"))
                    .with_hint("only arrays can be indexed"));
            }
            None => return Err(self.undeclared(&name, self.expr(base).span)),
        };
        let array = &self.arrays[a];
        if subs.len() != array.extents.len() {
            let dims = array.extents.len();
            let msg = if subs.is_empty() {
                format!("the array `{name}` is used as a value")
            } else {
                format!(
                    "`{name}` has {dims} dimension{} but is indexed with {}",
                    if dims == 1 { "" } else { "s" },
                    subs.len()
                )
            };
            return Err(self
                .error(span, msg)
                .with_secondary(self.source, array.span, "declared here")
                .with_hint("use one subscript per dimension: pointers to rows are not supported"));
        }
        let mut subscripts: Vec<PwAff> = match &array.kind {
            ArrayKind::Private { loops } => loops
                .iter()
                .map(|l| PwAff::from_aff(Aff::var(Var::Index(self.loops[*l].iterator.clone()))))
                .collect(),
            _ => Vec::new(),
        };
        for s in subs {
            let pw = self
                .pw(s)
                .map_err(|err| self.affine_error(err, "subscript"))?;
            subscripts.push(pw);
        }
        self.new_access(statement, a, is_write, subscripts, span)
    }

    fn new_access(
        &mut self,
        statement: StatementId,
        array: ArrayId,
        is_write: bool,
        mut subscripts: Vec<PwAff>,
        span: Span,
    ) -> Result<AccessId, Diagnostic> {
        if let ArrayKind::Private { loops } = &self.arrays[array].kind {
            if subscripts.is_empty() {
                subscripts = loops
                    .iter()
                    .map(|l| PwAff::from_aff(Aff::var(Var::Index(self.loops[*l].iterator.clone()))))
                    .collect();
            }
        }
        self.accesses.push(Access {
            statement,
            array,
            is_write,
            subscripts,
            span,
            text: self.snippet(span),
        });
        Ok(self.accesses.len() - 1)
    }

    /// The reads of a value expression, in evaluation order, with the expression of each.
    fn collect_reads(
        &mut self,
        e: ExprId,
        statement: StatementId,
        out: &mut Vec<(ExprId, AccessId)>,
    ) -> Result<(), Diagnostic> {
        let expr = self.expr(e).clone();
        match &expr.kind {
            ExprKind::Int(_) | ExprKind::Float(_) => {}
            ExprKind::Name(n) => match self.lookup(n) {
                Some(Binding::Array(_)) => {
                    let r = self.access_of(e, statement, false)?;
                    out.push((e, r));
                }
                Some(_) => {}
                None => return Err(self.undeclared(n, expr.span)),
            },
            ExprKind::Index { .. } => {
                let r = self.access_of(e, statement, false)?;
                out.push((e, r));
            }
            ExprKind::Call {
                name,
                name_span,
                args,
            } => {
                match MATH_FUNCTIONS.iter().find(|(f, _)| f == name) {
                    Some((_, arity)) if *arity == args.len() => {}
                    Some((_, arity)) => {
                        return Err(self
                            .error(
                                expr.span,
                                format!(
                                    "`{name}` takes {arity} argument{}",
                                    if *arity == 1 { "" } else { "s" }
                                ),
                            )
                            .with_hint("check the call"))
                    }
                    None => return Err(self.unknown_function(name, *name_span)),
                }
                for a in args {
                    self.collect_reads(*a, statement, out)?;
                }
            }
            ExprKind::Unary { operand, .. } | ExprKind::Cast { operand, .. } => {
                self.collect_reads(*operand, statement, out)?
            }
            ExprKind::Binary { lhs, rhs, .. } => {
                self.collect_reads(*lhs, statement, out)?;
                self.collect_reads(*rhs, statement, out)?;
            }
            ExprKind::Conditional {
                cond,
                then_value,
                else_value,
            } => {
                self.collect_reads(*cond, statement, out)?;
                self.collect_reads(*then_value, statement, out)?;
                self.collect_reads(*else_value, statement, out)?;
            }
            ExprKind::Assign { .. } | ExprKind::Step { .. } => {
                return Err(self
                    .error(expr.span, "assignment inside an expression")
                    .with_hint("write each assignment as its own statement"))
            }
        }
        Ok(())
    }

    fn undeclared(&self, name: &str, span: Span) -> Diagnostic {
        self.error(span, format!("`{name}` is not declared"))
            .with_hint("declare it as a parameter of the function, a local variable, or a `#define` constant (or pass -D)")
    }

    fn unknown_function(&self, name: &str, span: Span) -> Diagnostic {
        self.error(span, format!("call of unknown function `{name}`"))
            .with_label("not a <math.h> function")
            .with_hint("compiled code may call only <math.h> functions (and `min`/`max`); write the computation inline, or make it a macro")
    }

    // ------------------------------------------------------------ affine expressions

    /// The (quasi-)affine value of an integer expression over loop indices and parameters.
    fn pw(&mut self, e: ExprId) -> AffResult<PwAff> {
        let expr = self.expr(e).clone();
        let span = expr.span;
        let fail = |why| AffError { span, why };
        let ov = |_: Overflow| AffError {
            span,
            why: NotAffine::Overflow,
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
    fn bool_value(&self, c: &Cond, span: Span) -> AffResult<PwAff> {
        PwAff::select(
            c,
            &PwAff::from_aff(Aff::constant(1)),
            &PwAff::from_aff(Aff::constant(0)),
        )
        .map_err(|_| AffError {
            span,
            why: NotAffine::Overflow,
        })
    }

    /// An affine condition.
    fn cond(&mut self, e: ExprId) -> AffResult<Cond> {
        let expr = self.expr(e).clone();
        let ov = |_: Overflow| AffError {
            span: expr.span,
            why: NotAffine::Overflow,
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
    fn affine_error(&self, err: AffError, context: &str) -> Diagnostic {
        let text = self.snippet(err.span);
        let general = "gpucc needs affine expressions here: sums of loop indices and integer parameters times constants (with `/`, `%` by constants, `min`, `max`, `?:`)";
        let (message, hint) = match err.why {
            NotAffine::Indirect(array) => (
                format!("indirect {context}: `{text}` reads the array `{array}`"),
                "indirect accesses (like `A[idx[i]]`) cannot be analysed; gpucc compiles loops whose subscripts and bounds are affine".to_string(),
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
            NotAffine::Overflow => (
                format!("{context} `{text}` overflows 64-bit integers"),
                "use smaller constants".to_string(),
            ),
            NotAffine::Other(what) => (format!("non-affine {context}: `{text}` uses {what}"), general.to_string()),
        };
        self.error(err.span, message).with_hint(hint)
    }
}

/// C's truncating `a / d` (or `a % d`) for a constant `d != 0`, exact for negative values.
fn truncating(a: &PwAff, d: i64, remainder: bool) -> Result<PwAff, Overflow> {
    let m = d.checked_abs().ok_or(Overflow)?;
    let zero = Aff::constant(0);
    let mut pieces = Vec::new();
    for (c, x) in &a.pieces {
        if let Some(v) = x.as_constant() {
            let q = if remainder {
                v.checked_rem(d)
            } else {
                v.checked_div(d)
            }
            .ok_or(Overflow)?;
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
