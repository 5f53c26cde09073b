//! The recipe interpreter: Lua values and control flow, free names as parameters, and the
//! commands ([`commands`]), each a call into [`crate::transform`] whose errors point at the
//! call. Every statement, expression, string and table is paid for from a [`Budget`], so a
//! recipe ends, within the running command's limits, with a result or a located error.

mod commands;

use super::ast::*;
use super::budget::{Budget, Exceeded, BYTES_PER_STEP, CODE_STEPS, COMMAND_STEPS};
use super::value::{number_text, Table, Value};
use super::Recipe;
use crate::diag::{Diagnostic, Diagnostics, SourceId, Span};
use crate::frontend::macros::MacroTable;
use crate::transform::{TransformError, Transformed};
use std::borrow::Cow;
use std::collections::HashMap;
use std::rc::Rc;

/// A parameter declared with `param(name, candidates, default)`, for the tuner.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamDecl {
    pub name: String,
    pub candidates: Vec<f64>,
    pub default: f64,
    pub span: Span,
}

/// What a recipe runs with.
pub struct RunOptions<'a> {
    /// `-P NAME=VALUE`
    pub params: &'a [(String, String)],
    /// The C file's macros (recipes may use its constants, `N`).
    pub macros: &'a MacroTable,
}

/// What a recipe run produced.
pub struct RunResult {
    pub transformed: Transformed,
    /// The values the recipe's parameters had, in order of first use.
    pub params: Vec<(String, String)>,
    pub declared: Vec<ParamDecl>,
    /// What `print_code`, `print_deps` and `print` wrote.
    pub output: String,
    pub warnings: Diagnostics,
}

pub const COMMANDS: &[&str] = &[
    "tile_by_index",
    "tile",
    "permute",
    "distribute",
    "skew",
    "shift",
    "fuse",
    "reschedule",
    "unroll",
    "unroll_to_depth",
    "cudaize",
    "copy_to_shared",
    "double_buffer",
    "copy_to_registers",
    "copy_to_constant",
    "copy_to_texture",
    "launch_bounds",
    "prefetch",
    "print_code",
    "print_deps",
    "param",
    "print",
];

/// CHiLL's tiling methods by their numbers (`enum TilingMethod`): the names a recipe may
/// pass as `tile_by_index`'s fifth argument.
pub const TILE_METHODS: [&str; 2] = ["strided", "counted"];

/// Runs `recipe` on `t`, within the running command's limits ([`crate::limits::current`]).
pub fn run(
    recipe: &Recipe,
    t: Transformed,
    options: &RunOptions,
) -> Result<RunResult, Diagnostics> {
    let mut i = Interp {
        recipe,
        options,
        t,
        globals: HashMap::new(),
        locals: Vec::new(),
        params: Vec::new(),
        declared: Vec::new(),
        output: String::new(),
        warnings: Vec::new(),
        budget: Budget::new(crate::limits::current()),
        reported_deps: None,
    };
    i.block(&recipe.body).map_err(|d| vec![*d])?;
    for (name, _) in options.params {
        if !i.params.iter().any(|(n, _)| n == name) {
            i.warnings.push(
                Diagnostic::warning(recipe.source, Span::new(0, 0), format!("`-P {name}=...` is not used: the recipe has no free name or param `{name}`"))
                    .with_hint("check the spelling of the parameter"),
            );
        }
    }
    Ok(RunResult {
        transformed: i.t,
        params: i.params,
        declared: i.declared,
        output: i.output,
        warnings: i.warnings,
    })
}

type Arg = (Value, Span);
/// Errors are boxed: results stay small on the stack, which holds one per level of nesting.
type Eval<T> = Result<T, Box<Diagnostic>>;

struct Interp<'a> {
    recipe: &'a Recipe,
    options: &'a RunOptions<'a>,
    t: Transformed,
    globals: HashMap<String, Value>,
    locals: Vec<HashMap<String, Value>>,
    params: Vec<(String, String)>,
    declared: Vec<ParamDecl>,
    output: String,
    warnings: Diagnostics,
    budget: Budget,
    /// The program's dependences with the input ones, for `print_deps` (made at its first
    /// call: the program and its dependences do not change during a run).
    reported_deps: Option<crate::deps::Dependences>,
}

impl<'a> Interp<'a> {
    fn source(&self) -> SourceId {
        self.recipe.source
    }

    fn error(&self, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::error(self.source(), span, message)
    }

    fn transform_error(&self, span: Span, e: TransformError) -> Diagnostic {
        let mut d = self.error(span, e.message);
        d.notes = e.notes;
        d.hint = e.hint;
        d
    }

    /// Spends from the budget; running out is an error at `span`, which `what` names
    /// ("this string", "the recipe's output").
    fn spend(
        &mut self,
        span: Span,
        what: &str,
        f: impl FnOnce(&mut Budget) -> Result<(), Exceeded>,
    ) -> Eval<()> {
        f(&mut self.budget).map_err(|e| Box::new(self.exceeded(span, what, e)))
    }

    fn exceeded(&self, span: Span, what: &str, e: Exceeded) -> Diagnostic {
        let limits = &self.budget.limits;
        let (name, what) = match e {
            Exceeded::Steps => ("recipe-steps", "the recipe".to_string()),
            Exceeded::String(bytes) => ("recipe-string-bytes", format!("{what} ({bytes} bytes)")),
            Exceeded::Table(entries) => (
                "recipe-table-entries",
                format!("{what} ({entries} entries)"),
            ),
            Exceeded::Depth => ("recipe-depth", what.to_string()),
            Exceeded::Stack(levels) => {
                return self
                    .error(
                        span,
                        format!("{what} is nested deeper than gpucc's stack allows ({levels} levels)"),
                    )
                    .with_hint("split it into several statements (a higher `recipe-depth` limit does not help here)");
            }
        };
        let (message, hint) = limits.exceeded(name, &what);
        let d = self.error(span, message).with_hint(hint);
        match e {
            Exceeded::Steps => d.with_label("the recipe was running this").with_note(format!(
                "a step is a statement run or an expression evaluated; building a string costs a step per {BYTES_PER_STEP} bytes, making a table one per entry, a command {COMMAND_STEPS} (print_code {CODE_STEPS})"
            )),
            _ => d,
        }
    }

    fn block(&mut self, stmts: &[RStmtId]) -> Eval<()> {
        self.locals.push(HashMap::new());
        let result = stmts.iter().try_for_each(|s| self.stmt(*s));
        self.locals.pop();
        result
    }

    fn set(&mut self, name: &str, value: Value) {
        for scope in self.locals.iter_mut().rev() {
            if let Some(slot) = scope.get_mut(name) {
                *slot = value;
                return;
            }
        }
        self.globals.insert(name.to_string(), value);
    }

    // The functions between a statement (or expression) and the statements (expressions)
    // inside it are on the stack once per level of nesting. Each keeps to one kind of node
    // and hands errors and the operators' work to functions called after its operands are
    // evaluated, so that a level takes little stack, even in a debug build (see
    // `budget::STACK_BUDGET`).

    /// Runs a statement, one level deeper than the statement around it.
    fn stmt(&mut self, id: RStmtId) -> Eval<()> {
        let recipe: &'a Recipe = self.recipe;
        let stmt = &recipe.ast.stmts[id];
        self.spend(stmt.span, "this statement", enter)?;
        let result = self.run_stmt(stmt);
        self.budget.leave();
        result
    }

    fn run_stmt(&mut self, stmt: &'a RStmt) -> Eval<()> {
        match &stmt.kind {
            RStmtKind::Assign { name, value, .. } => self.assign(name, *value),
            RStmtKind::Local { name, value, .. } => self.local(name, *value),
            RStmtKind::Call(e) => self.expr(*e).map(drop),
            RStmtKind::If { arms, otherwise } => self.if_stmt(arms, otherwise.as_deref()),
            RStmtKind::For { .. } => self.for_loop(stmt),
            RStmtKind::Empty => Ok(()),
        }
    }

    fn assign(&mut self, name: &str, value: RExprId) -> Eval<()> {
        let v = self.expr(value)?;
        self.set(name, v);
        Ok(())
    }

    fn local(&mut self, name: &str, value: Option<RExprId>) -> Eval<()> {
        let v = match value {
            Some(e) => self.expr(e)?,
            None => Value::Nil,
        };
        self.locals
            .last_mut()
            .expect("a block is open")
            .insert(name.to_string(), v);
        Ok(())
    }

    fn if_stmt(
        &mut self,
        arms: &'a [(RExprId, Vec<RStmtId>)],
        otherwise: Option<&'a [RStmtId]>,
    ) -> Eval<()> {
        for (cond, body) in arms {
            if self.expr(*cond)?.truthy() {
                return self.block(body);
            }
        }
        match otherwise {
            Some(body) => self.block(body),
            None => Ok(()),
        }
    }

    fn for_loop(&mut self, stmt: &'a RStmt) -> Eval<()> {
        let RStmtKind::For {
            var,
            start,
            end,
            step,
            body,
            ..
        } = &stmt.kind
        else {
            unreachable!("for_loop runs `for` statements");
        };
        let (from, to, by) = self.loop_range(stmt.span, *start, *end, *step)?;
        let mut v = from;
        while (by > 0.0 && v <= to) || (by < 0.0 && v >= to) {
            // Each iteration costs a step, even with an empty body.
            self.spend(stmt.span, "this loop", |b| b.steps(1))?;
            self.locals
                .push(HashMap::from([(var.clone(), Value::Num(v))]));
            let r = self.block(body);
            self.locals.pop();
            r?;
            v += by;
        }
        Ok(())
    }

    /// The start, end and step of a numeric `for`.
    fn loop_range(
        &mut self,
        span: Span,
        start: RExprId,
        end: RExprId,
        step: Option<RExprId>,
    ) -> Eval<(f64, f64, f64)> {
        let from = self.number(start)?;
        let to = self.number(end)?;
        let by = match step {
            Some(s) => self.number(s)?,
            None => 1.0,
        };
        if by == 0.0 {
            return Err(Box::new(
                self.error(span, "the step of a `for` loop is 0")
                    .with_hint("use a step that is not 0"),
            ));
        }
        Ok((from, to, by))
    }

    fn number(&mut self, e: RExprId) -> Eval<f64> {
        let span = self.recipe.ast.exprs[e].span;
        match self.expr(e)? {
            Value::Num(v) => Ok(v),
            other => Err(Box::new(
                self.error(
                    span,
                    format!("expected a number, found {}", other.type_name()),
                )
                .with_hint("use a number here"),
            )),
        }
    }

    fn lookup(&mut self, name: &str, span: Span) -> Eval<Value> {
        for scope in self.locals.iter().rev() {
            if let Some(v) = scope.get(name) {
                return Ok(v.clone());
            }
        }
        if let Some(v) = self.globals.get(name) {
            return Ok(v.clone());
        }
        // A free name: a C constant, or a parameter.
        let from_command_line = self.options.params.iter().any(|(n, _)| n == name);
        if from_command_line && self.options.macros.constant(name).is_some() {
            return Err(Box::new(self
                .error(span, format!("`{name}` is a `#define` of the C file, and `-P {name}=...` would change it in the recipe only"))
                .with_hint(format!("set it everywhere with `-D {name}=...`"))));
        }
        if let Some((_, text)) = self.options.params.iter().rev().find(|(n, _)| n == name) {
            let v = text
                .parse::<f64>()
                .map(Value::Num)
                .unwrap_or_else(|_| Value::str(text));
            self.record_param(name, &v);
            return Ok(v);
        }
        if let Some(v) = self.options.macros.constant(name) {
            return Ok(Value::Num(v));
        }
        // CHiLL's tiling methods, the fifth argument of CUDA-CHiLL's `tile_by_index`.
        if let Some(k) = TILE_METHODS.iter().position(|m| *m == name) {
            return Ok(Value::Num(k as f64));
        }
        Err(Box::new(self
            .error(span, format!("`{name}` has no value"))
            .with_label("a free name is a parameter")
            .with_hint(format!("pass it on the command line (`-P {name}=16`), or declare it in the recipe: `{name} = param(\"{name}\", {{16, 32, 64}}, 32)`"))))
    }

    fn record_param(&mut self, name: &str, v: &Value) {
        if !self.params.iter().any(|(n, _)| n == name) {
            let text = v.scalar_text().unwrap_or_else(|| v.type_name().into());
            self.params.push((name.to_string(), text));
        }
    }

    /// Evaluates an expression, one level deeper than the expression or statement around it.
    fn expr(&mut self, id: RExprId) -> Eval<Value> {
        let recipe: &'a Recipe = self.recipe;
        let e = &recipe.ast.exprs[id];
        self.spend(e.span, "this expression", enter)?;
        let result = self.eval(e);
        self.budget.leave();
        result
    }

    fn eval(&mut self, e: &'a RExpr) -> Eval<Value> {
        match &e.kind {
            RExprKind::Nil => Ok(Value::Nil),
            RExprKind::Bool(b) => Ok(Value::Bool(*b)),
            RExprKind::Number(v) => Ok(Value::Num(*v)),
            RExprKind::Str(s) => self.literal(s, e.span),
            RExprKind::Name(n) => self.lookup(n, e.span),
            RExprKind::Table(fields) => self.table(fields, e.span),
            RExprKind::Index { base, key } => self.index_expr(*base, *key, e.span),
            RExprKind::Unary { op, operand } => self.unary_expr(*op, *operand, e.span),
            RExprKind::Binary { op, lhs, rhs } => self.binary(*op, *lhs, *rhs, e.span),
            RExprKind::Call {
                name,
                name_span,
                args,
            } => self.call_expr(name, *name_span, args, e.span),
        }
    }

    /// A string literal (copied: it costs what it weighs).
    fn literal(&mut self, s: &str, span: Span) -> Eval<Value> {
        self.spend(span, "this string", |b| b.string(s.len()))?;
        Ok(Value::str(s))
    }

    fn index_expr(&mut self, base: RExprId, key: RExprId, span: Span) -> Eval<Value> {
        let b = self.expr(base)?;
        let k = self.expr(key)?;
        self.index(b, k, span)
    }

    fn unary_expr(&mut self, op: UnOp, operand: RExprId, span: Span) -> Eval<Value> {
        let v = self.expr(operand)?;
        self.unary(op, v, span)
    }

    fn call_expr(
        &mut self,
        name: &str,
        name_span: Span,
        args: &'a [RExprId],
        span: Span,
    ) -> Eval<Value> {
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            let v = self.expr(*a)?;
            values.push((v, self.recipe.ast.exprs[*a].span));
        }
        self.call(name, name_span, span, &values)
    }

    /// `t[k]` and `t.k`.
    fn index(&mut self, b: Value, k: Value, span: Span) -> Eval<Value> {
        match (&b, &k) {
            (Value::Table(t), Value::Num(n)) if n.fract() == 0.0 && *n >= 1.0 => {
                Ok(t.array.get(*n as usize - 1).cloned().unwrap_or(Value::Nil))
            }
            (Value::Table(t), Value::Str(s)) => {
                // Named fields are searched one after another.
                let scanned = (t.fields.len() / BYTES_PER_STEP) as u64;
                self.spend(span, "this expression", |b| b.steps(scanned))?;
                Ok(t.field(s).cloned().unwrap_or(Value::Nil))
            }
            (Value::Table(_), _) => Ok(Value::Nil),
            _ => Err(Box::new(
                self.error(span, format!("cannot index {}", b.type_name()))
                    .with_hint("only tables can be indexed"),
            )),
        }
    }

    fn unary(&mut self, op: UnOp, v: Value, span: Span) -> Eval<Value> {
        match (op, &v) {
            (UnOp::Not, _) => Ok(Value::Bool(!v.truthy())),
            (UnOp::Neg, Value::Num(n)) => Ok(Value::Num(-n)),
            (UnOp::Len, Value::Table(t)) => Ok(Value::Num(t.array.len() as f64)),
            (UnOp::Len, Value::Str(s)) => Ok(Value::Num(s.len() as f64)),
            _ => Err(Box::new(self.error(
                span,
                format!("cannot apply this operator to {}", v.type_name()),
            ))),
        }
    }

    /// A table constructor: `{a, b}`, `{x = 1}`, `{[k] = v}`.
    fn table(&mut self, fields: &'a [Field], span: Span) -> Eval<Value> {
        let mut t = Table::default();
        for f in fields {
            let key = match f {
                Field::Positional(_) => None,
                Field::Named(n, n_span, _) => Some((Value::str(n), *n_span)),
                Field::Keyed(k, _) => Some((self.expr(*k)?, self.recipe.ast.exprs[*k].span)),
            };
            let (Field::Positional(x) | Field::Named(_, _, x) | Field::Keyed(_, x)) = f;
            let v = self.expr(*x)?;
            self.insert(&mut t, key, v, span)?;
        }
        Ok(Value::Table(Rc::new(t)))
    }

    /// Adds an entry to a table under construction: positional (`None`), or under a key
    /// (with the key's span).
    fn insert(
        &mut self,
        t: &mut Table,
        key: Option<(Value, Span)>,
        v: Value,
        span: Span,
    ) -> Eval<()> {
        let entries = t.entries() as u64;
        let (key, key_span) = match key {
            None => {
                self.spend(span, "this table", |b| b.table(entries + 1, 1))?;
                t.array.push(v);
                return Ok(());
            }
            Some(key) => key,
        };
        match key {
            Value::Str(s) => {
                self.spend(span, "this table", |b| b.table(entries + 1, 1))?;
                t.fields.push((s, v));
            }
            Value::Num(n) if n.fract() == 0.0 && n >= 1.0 => {
                // `{[k] = v}` makes the entries up to k.
                let len = t.array.len() as u64;
                if n > len as f64 {
                    let k = n.min(u64::MAX as f64) as u64;
                    let wanted = k.saturating_add(t.fields.len() as u64);
                    self.spend(key_span, "this table", |b| b.table(wanted, k - len))?;
                    t.array.resize(k as usize, Value::Nil);
                }
                t.array[n as usize - 1] = v;
            }
            other => {
                return Err(Box::new(self.error(
                    key_span,
                    format!(
                        "a table key must be a string or a positive integer, not {}",
                        other.type_name()
                    ),
                )))
            }
        }
        Ok(())
    }

    fn binary(&mut self, op: BinOp, lhs: RExprId, rhs: RExprId, span: Span) -> Eval<Value> {
        let a = self.expr(lhs)?;
        match op {
            BinOp::And if !a.truthy() => Ok(a),
            BinOp::Or if a.truthy() => Ok(a),
            BinOp::And | BinOp::Or => self.expr(rhs),
            _ => {
                let b = self.expr(rhs)?;
                self.operate(op, a, b, span)
            }
        }
    }

    /// A binary operator other than `and` and `or`, on its operands' values.
    fn operate(&mut self, op: BinOp, a: Value, b: Value, span: Span) -> Eval<Value> {
        let bad = |i: &Self| {
            i.error(
                span,
                format!(
                    "cannot apply this operator to {} and {}",
                    a.type_name(),
                    b.type_name()
                ),
            )
        };
        // Comparing strings reads them.
        if let (Value::Str(x), Value::Str(y)) = (&a, &b) {
            let read = (x.len().min(y.len()) / BYTES_PER_STEP) as u64;
            self.spend(span, "this expression", |b| b.steps(read))?;
        }
        Ok(match op {
            BinOp::Eq => Value::Bool(a == b),
            BinOp::Ne => Value::Bool(a != b),
            BinOp::Concat => {
                let (Some(x), Some(y)) = (concat_text(&a), concat_text(&b)) else {
                    return Err(Box::new(bad(self)));
                };
                // The size is checked before anything is built.
                let bytes = x.len().saturating_add(y.len());
                self.spend(span, "this string", |b| b.string(bytes))?;
                let mut s = String::with_capacity(bytes);
                s.push_str(&x);
                s.push_str(&y);
                Value::Str(Rc::from(s))
            }
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let ord = match (&a, &b) {
                    (Value::Num(x), Value::Num(y)) => x.partial_cmp(y),
                    (Value::Str(x), Value::Str(y)) => Some(x.cmp(y)),
                    _ => None,
                };
                let Some(ord) = ord else {
                    return Err(Box::new(bad(self)));
                };
                Value::Bool(match op {
                    BinOp::Lt => ord.is_lt(),
                    BinOp::Le => ord.is_le(),
                    BinOp::Gt => ord.is_gt(),
                    _ => ord.is_ge(),
                })
            }
            _ => {
                let (Value::Num(x), Value::Num(y)) = (&a, &b) else {
                    return Err(Box::new(bad(self)));
                };
                let (x, y) = (*x, *y);
                Value::Num(match op {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    BinOp::Mul => x * y,
                    BinOp::Div => x / y,
                    BinOp::FloorDiv => (x / y).floor(),
                    BinOp::Mod => x - (x / y).floor() * y,
                    BinOp::Pow => x.powf(y),
                    _ => unreachable!("handled above"),
                })
            }
        })
    }

    /// Appends to what the recipe printed, which is bounded like a string.
    fn write_output(&mut self, span: Span, text: &str) -> Eval<()> {
        let bytes = self.output.len().saturating_add(text.len());
        self.spend(span, "the recipe's output", |b| {
            b.fits_string(bytes)?;
            b.steps((text.len() / BYTES_PER_STEP) as u64)
        })?;
        self.output.push_str(text);
        Ok(())
    }
}

/// Entering a statement or an expression: a level deeper, and a step.
fn enter(b: &mut Budget) -> Result<(), Exceeded> {
    b.steps(1)?;
    b.enter()
}

/// A string or a number as `..` joins it.
fn concat_text(v: &Value) -> Option<Cow<'_, str>> {
    match v {
        Value::Str(s) => Some(Cow::Borrowed(s)),
        Value::Num(n) => Some(Cow::Owned(number_text(*n))),
        _ => None,
    }
}
