//! The recipe interpreter: Lua values and control flow, free names as parameters, and the
//! commands, each a call into [`crate::transform`] whose errors point at the call.

use super::ast::*;
use super::Recipe;
use crate::diag::{Diagnostic, Diagnostics, SourceId, Span};
use crate::frontend::macros::MacroTable;
use crate::transform::{
    cudaize, datacopy, permute, tile, unroll, LevelId, Placement, TransformError, Transformed,
};
use std::collections::HashMap;
use std::rc::Rc;

/// A value of the recipe language.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Nil,
    Bool(bool),
    Num(f64),
    Str(String),
    Table(Rc<Table>),
}

/// A Lua table: positional values (`{a, b}`) and named fields (`{x = 1}`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub array: Vec<Value>,
    pub fields: Vec<(String, Value)>,
}

impl Table {
    fn field(&self, name: &str) -> Option<&Value> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

impl Value {
    fn type_name(&self) -> &'static str {
        match self {
            Value::Nil => "nil",
            Value::Bool(_) => "a boolean",
            Value::Num(_) => "a number",
            Value::Str(_) => "a string",
            Value::Table(_) => "a table",
        }
    }

    fn truthy(&self) -> bool {
        !matches!(self, Value::Nil | Value::Bool(false))
    }

    /// As Lua's `tostring` would write it (integers without `.0`).
    pub fn text(&self) -> String {
        match self {
            Value::Nil => "nil".into(),
            Value::Bool(b) => b.to_string(),
            Value::Num(v) => number_text(*v),
            Value::Str(s) => s.clone(),
            Value::Table(t) => {
                let mut parts: Vec<String> = t.array.iter().map(|v| v.text()).collect();
                parts.extend(t.fields.iter().map(|(n, v)| format!("{n}={}", v.text())));
                format!("{{{}}}", parts.join(", "))
            }
        }
    }
}

fn number_text(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

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

/// The most loop iterations a recipe may run (a runaway loop is an error, not a hang).
const MAX_STEPS: u64 = 1_000_000;

pub const COMMANDS: &[&str] = &[
    "tile_by_index",
    "tile",
    "permute",
    "unroll",
    "unroll_to_depth",
    "cudaize",
    "copy_to_shared",
    "copy_to_registers",
    "copy_to_constant",
    "copy_to_texture",
    "print_code",
    "print_deps",
    "param",
    "print",
];

/// Runs `recipe` on `t`.
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
        steps: 0,
    };
    i.block(&recipe.body).map_err(|d| vec![d])?;
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
type Eval<T> = Result<T, Diagnostic>;

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
    steps: u64,
}

impl Interp<'_> {
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

    fn stmt(&mut self, id: RStmtId) -> Eval<()> {
        let stmt = self.recipe.ast.stmts[id].clone();
        match &stmt.kind {
            RStmtKind::Assign { name, value, .. } => {
                let v = self.expr(*value)?;
                self.set(name, v);
            }
            RStmtKind::Local { name, value, .. } => {
                let v = match value {
                    Some(e) => self.expr(*e)?,
                    None => Value::Nil,
                };
                self.locals
                    .last_mut()
                    .expect("a block is open")
                    .insert(name.clone(), v);
            }
            RStmtKind::Call(e) => {
                self.expr(*e)?;
            }
            RStmtKind::If { arms, otherwise } => {
                for (cond, body) in arms {
                    if self.expr(*cond)?.truthy() {
                        return self.block(body);
                    }
                }
                if let Some(body) = otherwise {
                    self.block(body)?;
                }
            }
            RStmtKind::For {
                var,
                start,
                end,
                step,
                body,
                ..
            } => {
                let from = self.number(*start)?;
                let to = self.number(*end)?;
                let by = match step {
                    Some(s) => self.number(*s)?,
                    None => 1.0,
                };
                if by == 0.0 {
                    return Err(self
                        .error(stmt.span, "the step of a `for` loop is 0")
                        .with_hint("use a step that is not 0"));
                }
                let mut v = from;
                while (by > 0.0 && v <= to) || (by < 0.0 && v >= to) {
                    self.steps += 1;
                    if self.steps > MAX_STEPS {
                        return Err(self
                            .error(
                                stmt.span,
                                format!("the recipe runs more than {MAX_STEPS} loop iterations"),
                            )
                            .with_hint("check the loop's bounds"));
                    }
                    self.locals
                        .push(HashMap::from([(var.clone(), Value::Num(v))]));
                    let r = self.block(body);
                    self.locals.pop();
                    r?;
                    v += by;
                }
            }
            RStmtKind::Empty => {}
        }
        Ok(())
    }

    fn number(&mut self, e: RExprId) -> Eval<f64> {
        let span = self.recipe.ast.exprs[e].span;
        match self.expr(e)? {
            Value::Num(v) => Ok(v),
            other => Err(self
                .error(
                    span,
                    format!("expected a number, found {}", other.type_name()),
                )
                .with_hint("use a number here")),
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
            return Err(self
                .error(span, format!("`{name}` is a `#define` of the C file, and `-P {name}=...` would change it in the recipe only"))
                .with_hint(format!("set it everywhere with `-D {name}=...`")));
        }
        if let Some((_, text)) = self.options.params.iter().rev().find(|(n, _)| n == name) {
            let v = text
                .parse::<f64>()
                .map(Value::Num)
                .unwrap_or_else(|_| Value::Str(text.clone()));
            self.record_param(name, &v);
            return Ok(v);
        }
        if let Some(v) = self.options.macros.constant(name) {
            return Ok(Value::Num(v));
        }
        Err(self
            .error(span, format!("`{name}` has no value"))
            .with_label("a free name is a parameter")
            .with_hint(format!("pass it on the command line (`-P {name}=16`), or declare it in the recipe: `{name} = param(\"{name}\", {{16, 32, 64}}, 32)`")))
    }

    fn record_param(&mut self, name: &str, v: &Value) {
        if !self.params.iter().any(|(n, _)| n == name) {
            self.params.push((name.to_string(), v.text()));
        }
    }

    fn expr(&mut self, id: RExprId) -> Eval<Value> {
        let e = self.recipe.ast.exprs[id].clone();
        Ok(match &e.kind {
            RExprKind::Nil => Value::Nil,
            RExprKind::Bool(b) => Value::Bool(*b),
            RExprKind::Number(v) => Value::Num(*v),
            RExprKind::Str(s) => Value::Str(s.clone()),
            RExprKind::Name(n) => self.lookup(n, e.span)?,
            RExprKind::Table(fields) => {
                let mut t = Table::default();
                for f in fields {
                    match f {
                        Field::Positional(x) => {
                            let v = self.expr(*x)?;
                            t.array.push(v);
                        }
                        Field::Named(n, _, x) => {
                            let v = self.expr(*x)?;
                            t.fields.push((n.clone(), v));
                        }
                        Field::Keyed(k, x) => {
                            let key = self.expr(*k)?;
                            let v = self.expr(*x)?;
                            match key {
                                Value::Str(s) => t.fields.push((s, v)),
                                Value::Num(n) if n.fract() == 0.0 && (1.0..=1e6).contains(&n) => {
                                    let k = n as usize;
                                    if t.array.len() < k {
                                        t.array.resize(k, Value::Nil);
                                    }
                                    t.array[k - 1] = v;
                                }
                                other => {
                                    let span = self.recipe.ast.exprs[*k].span;
                                    return Err(self.error(span, format!("a table key must be a string or a positive integer, not {}", other.type_name())));
                                }
                            }
                        }
                    }
                }
                Value::Table(Rc::new(t))
            }
            RExprKind::Index { base, key } => {
                let b = self.expr(*base)?;
                let k = self.expr(*key)?;
                match (&b, &k) {
                    (Value::Table(t), Value::Num(n)) if n.fract() == 0.0 && *n >= 1.0 => {
                        t.array.get(*n as usize - 1).cloned().unwrap_or(Value::Nil)
                    }
                    (Value::Table(t), Value::Str(s)) => t.field(s).cloned().unwrap_or(Value::Nil),
                    (Value::Table(_), _) => Value::Nil,
                    _ => {
                        return Err(self
                            .error(e.span, format!("cannot index {}", b.type_name()))
                            .with_hint("only tables can be indexed"))
                    }
                }
            }
            RExprKind::Unary { op, operand } => {
                let v = self.expr(*operand)?;
                match (op, &v) {
                    (UnOp::Not, _) => Value::Bool(!v.truthy()),
                    (UnOp::Neg, Value::Num(n)) => Value::Num(-n),
                    (UnOp::Len, Value::Table(t)) => Value::Num(t.array.len() as f64),
                    (UnOp::Len, Value::Str(s)) => Value::Num(s.len() as f64),
                    _ => {
                        return Err(self.error(
                            e.span,
                            format!("cannot apply this operator to {}", v.type_name()),
                        ))
                    }
                }
            }
            RExprKind::Binary { op, lhs, rhs } => self.binary(*op, *lhs, *rhs, e.span)?,
            RExprKind::Call {
                name,
                name_span,
                args,
            } => {
                let mut values = Vec::new();
                for a in args {
                    let v = self.expr(*a)?;
                    values.push((v, self.recipe.ast.exprs[*a].span));
                }
                self.call(name, *name_span, e.span, &values)?
            }
        })
    }

    fn binary(&mut self, op: BinOp, lhs: RExprId, rhs: RExprId, span: Span) -> Eval<Value> {
        if op == BinOp::And {
            let a = self.expr(lhs)?;
            return if a.truthy() { self.expr(rhs) } else { Ok(a) };
        }
        if op == BinOp::Or {
            let a = self.expr(lhs)?;
            return if a.truthy() { Ok(a) } else { self.expr(rhs) };
        }
        let a = self.expr(lhs)?;
        let b = self.expr(rhs)?;
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
        Ok(match op {
            BinOp::Eq => Value::Bool(a == b),
            BinOp::Ne => Value::Bool(a != b),
            BinOp::Concat => match (&a, &b) {
                (Value::Str(_) | Value::Num(_), Value::Str(_) | Value::Num(_)) => {
                    Value::Str(a.text() + &b.text())
                }
                _ => return Err(bad(self)),
            },
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let ord = match (&a, &b) {
                    (Value::Num(x), Value::Num(y)) => x.partial_cmp(y),
                    (Value::Str(x), Value::Str(y)) => Some(x.cmp(y)),
                    _ => None,
                };
                let Some(ord) = ord else {
                    return Err(bad(self));
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
                    return Err(bad(self));
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

    // ------------------------------------------------------------ argument helpers

    fn int(&self, (v, span): &Arg, what: &str) -> Eval<i64> {
        match v {
            Value::Num(n) if n.fract() == 0.0 && n.abs() < 1e15 => Ok(*n as i64),
            Value::Num(n) => Err(self
                .error(
                    *span,
                    format!("{what} must be an integer, not {}", number_text(*n)),
                )
                .with_hint("use a whole number")),
            other => Err(self.error(
                *span,
                format!("{what} must be a number, not {}", other.type_name()),
            )),
        }
    }

    fn string(&self, (v, span): &Arg, what: &str) -> Eval<String> {
        match v {
            Value::Str(s) => Ok(s.clone()),
            other => Err(self
                .error(
                    *span,
                    format!("{what} must be a string, not {}", other.type_name()),
                )
                .with_hint("write it in quotes: \"i\"")),
        }
    }

    fn names(&self, arg: &Arg, what: &str) -> Eval<Vec<String>> {
        match &arg.0 {
            Value::Table(t) => t
                .array
                .iter()
                .map(|v| self.string(&(v.clone(), arg.1), what))
                .collect(),
            Value::Str(s) => Ok(vec![s.clone()]),
            other => Err(self
                .error(
                    arg.1,
                    format!(
                        "{what} must be a list of loop names, not {}",
                        other.type_name()
                    ),
                )
                .with_hint("write a table: {\"i\", \"j\"}")),
        }
    }

    /// A leading statement number (`tile_by_index(0, ...)`, as later CHiLL writes).
    fn statement_arg<'b>(&self, args: &'b [Arg]) -> Eval<(Option<usize>, &'b [Arg])> {
        match args.first() {
            Some((Value::Num(_), _)) => {
                let n = self.int(&args[0], "the statement number")?;
                let count = self.t.program.statements.len();
                if n < 0 || n as usize >= count {
                    return Err(self.error(args[0].1, format!("there is no statement {n}"))
                        .with_hint(format!("statements are numbered from 0 to {} in the order of the text (`gpucc deps` lists them)", count.saturating_sub(1))));
                }
                Ok((
                    Some(crate::transform::legality::compute_statement(
                        &self.t, n as usize,
                    )),
                    &args[1..],
                ))
            }
            _ => Ok((None, args)),
        }
    }

    fn expect_args(
        &self,
        args: &[Arg],
        min: usize,
        max: usize,
        call: Span,
        usage: &str,
    ) -> Eval<()> {
        if args.len() < min || args.len() > max {
            return Err(self
                .error(call, format!("wrong number of arguments ({})", args.len()))
                .with_hint(format!("write `{usage}`")));
        }
        Ok(())
    }

    /// A loop by name (or `tx`, `ty`, `tz`, `bx`, `by` for a kernel's thread and block loops).
    fn level(&self, name: &str, span: Span, statement: Option<usize>) -> Eval<LevelId> {
        let t = &self.t;
        let alias = ["tx", "ty", "tz", "bx", "by"]
            .iter()
            .position(|a| *a == name);
        if let Some(k) = alias {
            if t.levels_named(name, None).is_empty() {
                let kernel = statement
                    .and_then(|s| t.kernel_of(s))
                    .or(t.kernels.len().checked_sub(1));
                let Some(kernel) = kernel.map(|k| &t.kernels[k]) else {
                    return Err(self
                        .error(
                            span,
                            format!(
                                "`{name}` names a thread or block loop, and there is no kernel yet"
                            ),
                        )
                        .with_hint("use `cudaize` first"));
                };
                let level = if k < 3 {
                    kernel.threads.get(k).map(|d| d.per_statement[0].1)
                } else {
                    kernel.blocks.get(k - 3).copied()
                };
                return level.ok_or_else(|| {
                    self.error(
                        span,
                        format!("kernel `{}` has no `{name}` loop", kernel.name),
                    )
                    .with_hint("check the block and thread loops given to cudaize")
                });
            }
        }
        let all: Vec<usize> = (0..t.statements.len()).collect();
        let among = statement.map(|s| vec![s]).unwrap_or(all);
        cudaize::unique_level(t, name, &among).map_err(|e| self.transform_error(span, e))
    }

    fn array(&self, (v, span): &Arg) -> Eval<usize> {
        let name = self.string(&(v.clone(), *span), "the array")?;
        self.t
            .program
            .arrays
            .iter()
            .position(|a| a.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = self
                    .t
                    .program
                    .arrays
                    .iter()
                    .filter(|a| !a.is_scalar())
                    .map(|a| a.name.as_str())
                    .collect();
                self.error(*span, format!("there is no array named `{name}`"))
                    .with_note(format!("the arrays are: {}", names.join(", ")))
                    .with_hint("use the name of an array of the code")
            })
    }

    // ------------------------------------------------------------ commands

    fn call(&mut self, name: &str, name_span: Span, call: Span, args: &[Arg]) -> Eval<Value> {
        let wrap =
            |i: &Self, r: Result<(), TransformError>| r.map_err(|e| i.transform_error(call, e));
        match name {
            "param" => return self.param(call, args),
            "print" => {
                let parts: Vec<String> = args.iter().map(|(v, _)| v.text()).collect();
                self.output.push_str(&parts.join("\t"));
                self.output.push('\n');
            }
            "tile_by_index" => {
                let (stmt, args) = self.statement_arg(args)?;
                let usage = "tile_by_index({\"i\", \"j\"}, {TI, TJ}, {l1_control=\"ii\", l2_control=\"jj\"}, {\"ii\", \"jj\", \"i\", \"j\"})";
                self.expect_args(args, 2, 4, call, usage)?;
                let loops = self.names(&args[0], "the loops")?;
                let sizes: Vec<i64> = match &args[1].0 {
                    Value::Table(t) => t
                        .array
                        .iter()
                        .map(|v| self.int(&(v.clone(), args[1].1), "a tile size"))
                        .collect::<Eval<_>>()?,
                    _ => vec![self.int(&args[1], "a tile size")?],
                };
                if sizes.len() != loops.len() {
                    return Err(self
                        .error(
                            args[1].1,
                            format!("{} loops but {} tile sizes", loops.len(), sizes.len()),
                        )
                        .with_hint("give one tile size per loop"));
                }
                let controls = match args.get(2) {
                    Some((Value::Table(t), _)) => (**t).clone(),
                    Some((Value::Nil, _)) | None => Table::default(),
                    Some(a) => {
                        return Err(self
                            .error(
                                a.1,
                                format!("the loop names must be a table, not {}", a.0.type_name()),
                            )
                            .with_hint("write {l1_control=\"ii\"}"))
                    }
                };
                // Every name must resolve before the first loop is tiled.
                let levels = loops
                    .iter()
                    .map(|lp| self.level(lp, args[0].1, stmt))
                    .collect::<Eval<Vec<_>>>()?;
                let known: Vec<String> = (1..=loops.len())
                    .flat_map(|k| [format!("l{k}_control"), format!("l{k}_tile")])
                    .collect();
                if let Some((key, _)) = controls.fields.iter().find(|(key, _)| !known.contains(key))
                {
                    return Err(self
                        .error(
                            args[2].1,
                            format!("`{key}` is not a loop name this command takes"),
                        )
                        .with_hint(format!("the names are {}", known.join(", "))));
                }
                for (k, ((lp, size), level)) in loops.iter().zip(&sizes).zip(levels).enumerate() {
                    let control = match controls.field(&format!("l{}_control", k + 1)) {
                        Some(v) => self.string(&(v.clone(), args[2].1), "a control loop name")?,
                        None => format!("{lp}{lp}"),
                    };
                    let point = match controls.field(&format!("l{}_tile", k + 1)) {
                        Some(v) => Some(self.string(&(v.clone(), args[2].1), "a tile loop name")?),
                        None => None,
                    };
                    let r = tile::tile(&mut self.t, level, *size, &control, point.as_deref())
                        .map(|_| ());
                    wrap(self, r)?;
                }
                if let Some(order) = args.get(3) {
                    let names = self.names(order, "the loop order")?;
                    let levels = names
                        .iter()
                        .map(|n| self.level(n, order.1, stmt))
                        .collect::<Eval<Vec<_>>>()?;
                    let r = permute::permute(&mut self.t, &levels, None);
                    wrap(self, r)?;
                }
            }
            "tile" => {
                let (stmt, args) = self.statement_arg(args)?;
                self.expect_args(args, 2, 4, call, "tile(\"i\", 16, \"ii\")")?;
                let lp = self.string(&args[0], "the loop")?;
                let level = self.level(&lp, args[0].1, stmt)?;
                let size = self.int(&args[1], "the tile size")?;
                let control = match args.get(2) {
                    Some(a) => self.string(a, "the control loop name")?,
                    None => format!("{lp}{lp}"),
                };
                let point = match args.get(3) {
                    Some(a) => Some(self.string(a, "the tile loop name")?),
                    None => None,
                };
                let r =
                    tile::tile(&mut self.t, level, size, &control, point.as_deref()).map(|_| ());
                wrap(self, r)?;
            }
            "permute" => {
                let (stmt, args) = self.statement_arg(args)?;
                self.expect_args(args, 1, 1, call, "permute({\"j\", \"i\"})")?;
                let names = self.names(&args[0], "the loop order")?;
                let levels = names
                    .iter()
                    .map(|n| self.level(n, args[0].1, stmt))
                    .collect::<Eval<Vec<_>>>()?;
                let targets = stmt.map(|s| vec![s]);
                let r = permute::permute(&mut self.t, &levels, targets.as_deref());
                wrap(self, r)?;
            }
            "unroll" => {
                let (stmt, args) = self.statement_arg(args)?;
                self.expect_args(args, 1, 2, call, "unroll(\"k\", 4)")?;
                let lp = self.string(&args[0], "the loop")?;
                let level = self.level(&lp, args[0].1, stmt)?;
                let factor = match args.get(1) {
                    Some(a) => self.int(a, "the unroll factor")?,
                    None => 0,
                };
                let r = unroll::unroll(&mut self.t, level, factor);
                wrap(self, r)?;
            }
            "unroll_to_depth" => {
                self.expect_args(args, 1, 1, call, "unroll_to_depth(2)")?;
                let depth = self.int(&args[0], "the depth")?;
                if depth < 0 {
                    return Err(self
                        .error(args[0].1, "the depth is negative")
                        .with_hint("use 1 for the innermost loops, 2 for two levels, ..."));
                }
                if self.t.kernels.is_empty() {
                    self.warnings.push(
                        Diagnostic::warning(
                            self.source(),
                            call,
                            "unroll_to_depth does nothing before `cudaize`",
                        )
                        .with_hint(
                            "it unrolls loops inside kernels: put it after the `cudaize` commands",
                        ),
                    );
                }
                let skipped = unroll::unroll_to_depth(&mut self.t, depth as usize)
                    .map_err(|e| self.transform_error(call, e))?;
                if !skipped.is_empty() {
                    self.warnings.push(
                        Diagnostic::warning(self.source(), call, format!("not unrolled: {}", skipped.join(", ")))
                            .with_hint(format!("a loop is unrolled completely only with a constant trip count of at most {}, and only while no statement gets more than {} copies", unroll::MAX_UNROLL, unroll::MAX_COPIES)),
                    );
                }
            }
            "cudaize" => {
                let (stmt, args) = self.statement_arg(args)?;
                let usage =
                    "cudaize(\"kernel\", {a=N*N}, {block={\"ii\", \"jj\"}, thread={\"i\", \"j\"}})";
                self.expect_args(args, 2, 3, call, usage)?;
                let kernel = self.string(&args[0], "the kernel name")?;
                let (sizes_arg, mapping_arg) = if args.len() == 3 {
                    (Some(&args[1]), &args[2])
                } else {
                    (None, &args[1])
                };
                let Value::Table(mapping) = &mapping_arg.0 else {
                    return Err(self
                        .error(mapping_arg.1, "the mapping must be a table")
                        .with_hint(usage));
                };
                let loops_of = |i: &Self, key: &str| -> Eval<Vec<String>> {
                    match mapping.field(key) {
                        Some(v) => i.names(&(v.clone(), mapping_arg.1), key),
                        None => Ok(Vec::new()),
                    }
                };
                if let Some((key, _)) = mapping
                    .fields
                    .iter()
                    .find(|(key, _)| !["block", "thread", "reduce"].contains(&key.as_str()))
                {
                    return Err(self
                        .error(mapping_arg.1, format!("`{key}` is not part of a mapping"))
                        .with_hint("a mapping has `block={...}`, `thread={...}` and `reduce={...}` (all optional: `{}` makes a serial kernel)"));
                }
                let blocks = loops_of(self, "block")?;
                let threads = loops_of(self, "thread")?;
                let reductions = match mapping.field("reduce") {
                    Some(Value::Table(list)) => list
                        .array
                        .iter()
                        .map(|v| self.string(&(v.clone(), mapping_arg.1), "a reduced variable"))
                        .collect::<Eval<Vec<_>>>()?,
                    Some(Value::Str(v)) => vec![v.clone()],
                    Some(other) => {
                        return Err(self
                            .error(
                                mapping_arg.1,
                                format!(
                                    "`reduce` must be a list of variable names, not {}",
                                    other.type_name()
                                ),
                            )
                            .with_hint("write `reduce={\"sum\"}`"))
                    }
                    None => Vec::new(),
                };
                let mut sizes = Vec::new();
                if let Some((Value::Table(table), span)) = sizes_arg {
                    for (name, v) in &table.fields {
                        let a = self.array(&(Value::Str(name.clone()), *span))?;
                        let text =
                            match v {
                                Value::Num(n) => number_text(*n),
                                Value::Str(s) => s.clone(),
                                other => return Err(self
                                    .error(
                                        *span,
                                        format!("the size of `{name}` is {}", other.type_name()),
                                    )
                                    .with_hint(
                                        "give a number of elements, or a C expression in quotes",
                                    )),
                            };
                        sizes.push((a, text));
                    }
                }
                let request = cudaize::Request {
                    name: &kernel,
                    blocks: &blocks,
                    threads: &threads,
                    reductions: &reductions,
                    sizes,
                    statement: stmt,
                };
                let r = cudaize::cudaize(&mut self.t, request);
                wrap(self, r)?;
            }
            "copy_to_shared" => {
                self.expect_args(args, 2, 3, call, "copy_to_shared(\"tx\", \"b\", -16)")?;
                let lp = self.string(&args[0], "the loop")?;
                let level = self.level(&lp, args[0].1, None)?;
                let array = self.array(&args[1])?;
                let pad = match args.get(2) {
                    Some(a) => self.int(a, "the padding")?,
                    None => 0,
                };
                let r = datacopy::copy_to_shared(&mut self.t, level, array, pad);
                wrap(self, r)?;
            }
            "copy_to_registers" => {
                self.expect_args(args, 2, 2, call, "copy_to_registers(\"kk\", \"c\")")?;
                let lp = self.string(&args[0], "the loop")?;
                let level = self.level(&lp, args[0].1, None)?;
                let array = self.array(&args[1])?;
                let r = datacopy::copy_to_registers(&mut self.t, level, array);
                wrap(self, r)?;
            }
            "copy_to_constant" | "copy_to_texture" => {
                self.expect_args(args, 1, 1, call, &format!("{name}(\"b\")"))?;
                let array = self.array(&args[0])?;
                let placement = if name == "copy_to_constant" {
                    Placement::Constant
                } else {
                    Placement::ReadOnlyCache
                };
                let r = datacopy::place(&mut self.t, array, placement);
                wrap(self, r)?;
            }
            "print_code" => {
                self.expect_args(args, 0, 0, call, "print_code()")?;
                let text = crate::cuda::code_text(&self.t).map_err(|d| {
                    d.into_iter()
                        .next()
                        .unwrap_or_else(|| self.error(call, "print_code failed"))
                })?;
                self.output.push_str(&text);
            }
            "print_deps" => {
                self.expect_args(args, 0, 0, call, "print_deps()")?;
                self.output.push_str(&crate::deps::report::program_text(
                    &self.t.program,
                    &self.t.deps,
                    false,
                ));
            }
            _ => {
                return Err(self
                    .error(name_span, format!("unknown command `{name}`"))
                    .with_note(format!("the commands are: {}", COMMANDS.join(", ")))
                    .with_hint("check the spelling; recipes/README.md documents each command"))
            }
        }
        Ok(Value::Nil)
    }

    /// `param("TI", {16, 32, 64}, 32)`: the value of `-P TI=...`, else the default.
    fn param(&mut self, call: Span, args: &[Arg]) -> Eval<Value> {
        self.expect_args(args, 2, 3, call, "param(\"TI\", {16, 32, 64}, 32)")?;
        let name = self.string(&args[0], "the parameter's name")?;
        let candidates: Vec<f64> = match &args[1].0 {
            Value::Table(t) => t
                .array
                .iter()
                .map(|v| match v {
                    Value::Num(n) => Ok(*n),
                    other => Err(self
                        .error(
                            args[1].1,
                            format!("a candidate value is {}", other.type_name()),
                        )
                        .with_hint("list numbers: {16, 32, 64}")),
                })
                .collect::<Eval<_>>()?,
            other => {
                return Err(self
                    .error(
                        args[1].1,
                        format!(
                            "the candidate values must be a table, not {}",
                            other.type_name()
                        ),
                    )
                    .with_hint("list them: {16, 32, 64}"))
            }
        };
        if candidates.is_empty() {
            return Err(self
                .error(args[1].1, "no candidate values")
                .with_hint("list at least one value"));
        }
        let default = match args.get(2) {
            Some((Value::Num(n), _)) => *n,
            Some((other, span)) => {
                return Err(self.error(
                    *span,
                    format!("the default must be a number, not {}", other.type_name()),
                ))
            }
            None => candidates[0],
        };
        if !candidates.contains(&default) {
            let span = args.get(2).map(|a| a.1).unwrap_or(call);
            return Err(self
                .error(
                    span,
                    format!(
                        "the default {} is not among the candidates",
                        number_text(default)
                    ),
                )
                .with_hint("make the default one of the candidate values"));
        }
        self.declared.push(ParamDecl {
            name: name.clone(),
            candidates: candidates.clone(),
            default,
            span: call,
        });
        let value = match self.options.params.iter().rev().find(|(n, _)| *n == name) {
            Some((_, text)) => {
                let v: f64 = text.parse().map_err(|_| {
                    self.error(call, format!("-P {name}={text} is not a number"))
                        .with_hint(format!(
                            "pass a number, e.g. -P {name}={}",
                            number_text(default)
                        ))
                })?;
                if !candidates.contains(&v) {
                    self.warnings.push(
                        Diagnostic::warning(
                            self.source(),
                            call,
                            format!("-P {name}={text} is not one of the candidate values"),
                        )
                        .with_hint(
                            "the tuner only tries the candidates; this value is used as given",
                        ),
                    );
                }
                v
            }
            None => default,
        };
        let v = Value::Num(value);
        self.record_param(&name, &v);
        Ok(v)
    }
}
