//! Lowering: a unit's AST → a [`Program`]. Resolves names, turns loop headers, `if`
//! conditions and subscripts into exact affine data, builds each statement's domain,
//! accesses and schedule, and refuses (with the construct named and pointed at) what is not
//! affine: `A[i*j]`, `A[idx[i]]`, bounds that depend on data, unknown functions.

mod affine_expr;
mod loops;

use crate::diag::{Diagnostic, Diagnostics, SourceFile, SourceId, Span};
use crate::frontend::ast::*;
use crate::frontend::Unit;
use crate::poly::affine::{Aff, Cond, PwAff, TooLarge, Var};
use crate::poly::program::*;
use affine_expr::{AffError, NotAffine};
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
        // The dimensions as written, unless a macro wrote the whole declarator
        // (`POLYBENCH_2D(A, M, N, m, n)`): then their values.
        let dim_texts = d
            .dims
            .iter()
            .zip(&extents)
            .map(|(dim, extent)| match (dim, extent) {
                (Dim::Sized(e), Some(value)) => {
                    let span = self.expr(*e).span;
                    let from_same_macro =
                        span.start <= d.name_span.start && d.name_span.end <= span.end;
                    if from_same_macro {
                        value.to_string()
                    } else {
                        self.snippet(span)
                    }
                }
                _ => String::new(),
            })
            .collect();
        self.arrays.push(Array {
            name: d.name.clone(),
            elem,
            extents,
            dim_texts,
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
                        let write = l.new_access(id, a, true, Vec::new(), d.name_span, None)?;
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
                        Err(TooLarge) => self.diags.push(self.affine_error(
                            AffError {
                                span: self.expr(*cond).span,
                                why: NotAffine::TooLarge,
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
        let disjuncts = self.guard.disjuncts()
            + self.accesses[first_access..]
                .iter()
                .flat_map(|a| &a.subscripts)
                .map(|s| s.pieces.len() as u64)
                .sum::<u64>();
        if disjuncts > super::affine::MAX_DISJUNCTS {
            self.accesses.truncate(first_access);
            self.diags.push(
                self.error(
                    span,
                    "the conditions around this statement are too complex to analyse",
                )
                .with_note(format!(
                    "they expand to more than {} cases",
                    super::affine::MAX_DISJUNCTS
                ))
                .with_hint(
                    "simplify the loop bounds and `if` conditions (fewer `||`, `min`, `max`, `?:`)",
                ),
            );
            return;
        }
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
        self.new_access(statement, a, is_write, subscripts, span, Some(e))
    }

    fn new_access(
        &mut self,
        statement: StatementId,
        array: ArrayId,
        is_write: bool,
        mut subscripts: Vec<PwAff>,
        span: Span,
        expr: Option<ExprId>,
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
            expr,
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
}
