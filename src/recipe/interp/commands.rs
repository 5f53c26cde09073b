//! The commands of the recipe language and the helpers that read their arguments. A
//! command costs [`COMMAND_STEPS`] steps ([`CODE_STEPS`] for `print_code`), `print` what
//! it writes, and each one step per entry of the tables it reads.

use super::*;
use crate::recipe::budget::CODE_STEPS;
use crate::transform::{cudaize, datacopy, permute, schedule, tile, unroll, LevelId, Placement};

impl Interp<'_> {
    // ------------------------------------------------------------ argument helpers

    fn int(&self, (v, span): &Arg, what: &str) -> Eval<i64> {
        match v {
            Value::Num(n) if n.fract() == 0.0 && n.abs() < 1e15 => Ok(*n as i64),
            Value::Num(n) => Err(Box::new(
                self.error(
                    *span,
                    format!("{what} must be an integer, not {}", number_text(*n)),
                )
                .with_hint("use a whole number"),
            )),
            other => Err(Box::new(self.error(
                *span,
                format!("{what} must be a number, not {}", other.type_name()),
            ))),
        }
    }

    /// The value of `key` in a command's table of options (`{width=4}`), with the table's
    /// place; `None` without the table or the key. Another key, or an argument that is
    /// not a table, is an error (`hint` says what the option is, `usage` how to call).
    fn option(
        &self,
        arg: Option<&Arg>,
        command: &str,
        key: &str,
        hint: &str,
        usage: &str,
    ) -> Eval<Option<Arg>> {
        let Some((value, span)) = arg else {
            return Ok(None);
        };
        let Value::Table(options) = value else {
            return Err(Box::new(
                self.error(*span, format!("{command}'s options must be a table"))
                    .with_hint(usage),
            ));
        };
        if let Some((other, _)) = options.fields.iter().find(|(k, _)| &**k != key) {
            return Err(Box::new(
                self.error(*span, format!("`{other}` is not an option of {command}"))
                    .with_hint(hint),
            ));
        }
        Ok(options.field(key).map(|v| (v.clone(), *span)))
    }

    /// A copy's `{width=W}` option: elements per load and store (1 without it).
    fn copy_width(&self, arg: Option<&Arg>, command: &str, usage: &str) -> Eval<i64> {
        let hint = "the options are {width=W}: elements per load and store (1, 2 or 4)";
        let Some(arg) = self.option(arg, command, "width", hint, usage)? else {
            return Ok(1);
        };
        let w = self.int(&arg, "the width")?;
        if ![1, 2, 4].contains(&w) {
            return Err(Box::new(
                self.error(arg.1, format!("a copy cannot be {w} elements wide"))
                    .with_hint("use width 1, 2 or 4 (a 64- or 128-bit load of 2 or 4 elements)"),
            ));
        }
        Ok(w)
    }

    fn string(&self, (v, span): &Arg, what: &str) -> Eval<String> {
        match v {
            Value::Str(s) => Ok(s.to_string()),
            other => Err(Box::new(
                self.error(
                    *span,
                    format!("{what} must be a string, not {}", other.type_name()),
                )
                .with_hint("write it in quotes: \"i\""),
            )),
        }
    }

    fn names(&self, arg: &Arg, what: &str) -> Eval<Vec<String>> {
        match &arg.0 {
            Value::Table(t) => t
                .array
                .iter()
                .map(|v| self.string(&(v.clone(), arg.1), what))
                .collect(),
            Value::Str(s) => Ok(vec![s.to_string()]),
            other => Err(Box::new(
                self.error(
                    arg.1,
                    format!(
                        "{what} must be a list of loop names, not {}",
                        other.type_name()
                    ),
                )
                .with_hint("write a table: {\"i\", \"j\"}"),
            )),
        }
    }

    /// A table of statement numbers (`{0, 1}`), as transformed statement indices.
    fn statement_list(&self, arg: &Arg) -> Eval<Vec<usize>> {
        let items: Vec<Arg> = match &arg.0 {
            Value::Table(t) if !t.array.is_empty() => {
                t.array.iter().map(|v| (v.clone(), arg.1)).collect()
            }
            Value::Num(_) => vec![arg.clone()],
            other => {
                return Err(Box::new(
                    self.error(
                        arg.1,
                        format!(
                            "the statements must be a list of statement numbers, not {}",
                            other.type_name()
                        ),
                    )
                    .with_hint("write a table: {0, 1}"),
                ))
            }
        };
        let mut out = Vec::new();
        for item in &items {
            let (Some(s), _) = self.statement_arg(std::slice::from_ref(item))? else {
                return Err(Box::new(
                    self.error(arg.1, "the statements must be numbers")
                        .with_hint("write a table: {0, 1}"),
                ));
            };
            if !out.contains(&s) {
                out.push(s);
            }
        }
        Ok(out)
    }

    /// A leading statement number (`tile_by_index(0, ...)`, as later CHiLL writes).
    fn statement_arg<'b>(&self, args: &'b [Arg]) -> Eval<(Option<usize>, &'b [Arg])> {
        match args.first() {
            Some((Value::Num(_), _)) => {
                let n = self.int(&args[0], "the statement number")?;
                let count = self.t.program.statements.len();
                if n < 0 || n as usize >= count {
                    return Err(Box::new(self.error(args[0].1, format!("there is no statement {n}"))
                        .with_hint(format!("statements are numbered from 0 to {} in the order of the text (`gpucc deps` lists them)", count.saturating_sub(1)))));
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
            return Err(Box::new(
                self.error(call, format!("wrong number of arguments ({})", args.len()))
                    .with_hint(format!("write `{usage}`")),
            ));
        }
        Ok(())
    }

    /// A loop by name (or `tx`, `ty`, `tz`, `bx`, `by` for a kernel's thread and block loops).
    /// A loop named by a string argument (`what` it is, for the error), and its level.
    fn loop_level(&self, a: &Arg, what: &str, statement: Option<usize>) -> Eval<(String, LevelId)> {
        let name = self.string(a, what)?;
        let level = self.level(&name, a.1, statement)?;
        Ok((name, level))
    }

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
                    return Err(Box::new(
                        self.error(
                            span,
                            format!(
                                "`{name}` names a thread or block loop, and there is no kernel yet"
                            ),
                        )
                        .with_hint("use `cudaize` first"),
                    ));
                };
                let level = if k < 3 {
                    kernel.threads.get(k).map(|d| d.per_statement[0].1)
                } else {
                    kernel.blocks.get(k - 3).copied()
                };
                return level.ok_or_else(|| {
                    Box::new(
                        self.error(
                            span,
                            format!("kernel `{}` has no `{name}` loop", kernel.name),
                        )
                        .with_hint("check the block and thread loops given to cudaize"),
                    )
                });
            }
        }
        let all: Vec<usize> = (0..t.statements.len()).collect();
        let among = statement.map(|s| vec![s]).unwrap_or(all);
        cudaize::unique_level(t, name, &among).map_err(|e| Box::new(self.transform_error(span, e)))
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
                    .into()
            })
    }

    // ------------------------------------------------------------ commands

    /// Runs the command `name`, after paying for it.
    pub(super) fn call(
        &mut self,
        name: &str,
        name_span: Span,
        call: Span,
        args: &[Arg],
    ) -> Eval<Value> {
        let wrap =
            |i: &Self, r: Result<(), TransformError>| r.map_err(|e| i.transform_error(call, e));
        let read: u64 = args
            .iter()
            .map(|(v, _)| match v {
                Value::Table(t) => t.entries() as u64,
                _ => 0,
            })
            .sum();
        let cost = match name {
            "print" => 0,
            "print_code" => CODE_STEPS,
            _ if COMMANDS.contains(&name) => COMMAND_STEPS,
            _ => 0,
        };
        let cost = cost.saturating_add(read);
        self.spend(call, "this command", |b| b.steps(cost))?;
        match name {
            "param" => return self.param(call, args),
            "print" => {
                let mut line = String::new();
                for (k, (v, span)) in args.iter().enumerate() {
                    if k > 0 {
                        line.push('\t');
                    }
                    let room = self.budget.limits.recipe_string_bytes as usize;
                    let room = room.saturating_sub(self.output.len() + line.len());
                    match v.text(room) {
                        Ok(text) => line.push_str(&text),
                        Err(bytes) => {
                            let bytes = bytes + self.output.len() + line.len();
                            return Err(Box::new(self.exceeded(
                                *span,
                                "the recipe's output",
                                Exceeded::String(bytes as u64),
                            )));
                        }
                    }
                }
                line.push('\n');
                self.write_output(call, &line)?;
            }
            "tile_by_index" => {
                let (stmt, args) = self.statement_arg(args)?;
                let usage = "tile_by_index({\"i\", \"j\"}, {TI, TJ}, {l1_control=\"ii\", l2_control=\"jj\"}, {\"ii\", \"jj\", \"i\", \"j\"}[, counted])";
                self.expect_args(args, 2, 5, call, usage)?;
                // CUDA-CHiLL's fifth argument, CHiLL's tiling method: a `strided` control
                // loop steps through the index by the tile size, a `counted` one (the
                // default) counts tiles. Both make the same tiles, run in the same order;
                // gpucc's control loops count tiles either way.
                if let Some(method) = args.get(4) {
                    let known = match &method.0 {
                        Value::Num(n) => *n == 0.0 || *n == 1.0,
                        Value::Str(s) => super::TILE_METHODS.contains(&s.as_ref()),
                        _ => false,
                    };
                    if !known {
                        return Err(Box::new(
                            self.error(method.1, format!("`{}` is not a tiling method", method.0.scalar_text().unwrap_or_else(|| method.0.type_name().into())))
                                .with_hint("the fifth argument is CHiLL's tiling method: `strided` or `counted` (the default)"),
                        ));
                    }
                }
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
                    return Err(Box::new(
                        self.error(
                            args[1].1,
                            format!("{} loops but {} tile sizes", loops.len(), sizes.len()),
                        )
                        .with_hint("give one tile size per loop"),
                    ));
                }
                let controls = match args.get(2) {
                    Some((Value::Table(t), _)) => t.clone(),
                    Some((Value::Nil, _)) | None => Rc::new(Table::default()),
                    Some(a) => {
                        return Err(Box::new(
                            self.error(
                                a.1,
                                format!("the loop names must be a table, not {}", a.0.type_name()),
                            )
                            .with_hint("write {l1_control=\"ii\"}"),
                        ))
                    }
                };
                // Every name must resolve before the first loop is tiled.
                let levels = loops
                    .iter()
                    .map(|lp| self.level(lp, args[0].1, stmt))
                    .collect::<Eval<Vec<_>>>()?;
                // Each loop is a tiling of its own: one command each.
                let more = COMMAND_STEPS.saturating_mul(levels.len().saturating_sub(1) as u64);
                self.spend(call, "this command", |b| b.steps(more))?;
                let known: Vec<String> = (1..=loops.len())
                    .flat_map(|k| [format!("l{k}_control"), format!("l{k}_tile")])
                    .collect();
                if let Some((key, _)) = controls
                    .fields
                    .iter()
                    .find(|(key, _)| !known.iter().any(|k| **k == **key))
                {
                    return Err(Box::new(
                        self.error(
                            args[2].1,
                            format!("`{key}` is not a loop name this command takes"),
                        )
                        .with_hint(format!("the names are {}", known.join(", "))),
                    ));
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
                let (lp, level) = self.loop_level(&args[0], "the loop", stmt)?;
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
            "distribute" => {
                self.expect_args(args, 2, 2, call, "distribute({0, 1}, \"i\")")?;
                let statements = self.statement_list(&args[0])?;
                let (_, level) =
                    self.loop_level(&args[1], "the loop", statements.first().copied())?;
                let r = permute::distribute(&mut self.t, level, &statements);
                wrap(self, r)?;
            }
            "skew" => {
                let (stmt, args) = self.statement_arg(args)?;
                self.expect_args(args, 3, 3, call, "skew(\"j\", \"i\", 1)")?;
                let (_, level) = self.loop_level(&args[0], "the loop", stmt)?;
                let (_, by) = self.loop_level(&args[1], "the loop to skew by", stmt)?;
                let factor = self.int(&args[2], "the skew factor")?;
                let r = schedule::skew(&mut self.t, level, by, factor, stmt);
                wrap(self, r)?;
            }
            "shift" => {
                let (stmt, args) = self.statement_arg(args)?;
                self.expect_args(args, 2, 2, call, "shift(1, \"i\", 1)")?;
                let (_, level) = self.loop_level(&args[0], "the loop", stmt)?;
                let amount = self.int(&args[1], "the shift")?;
                let r = schedule::shift(&mut self.t, level, amount, stmt);
                wrap(self, r)?;
            }
            "fuse" => {
                self.expect_args(args, 2, 2, call, "fuse({0, 1}, \"i\")")?;
                let statements = self.statement_list(&args[0])?;
                let lp = self.string(&args[1], "the loop")?;
                let r = schedule::fuse(&mut self.t, &lp, &statements);
                wrap(self, r)?;
            }
            "reschedule" => {
                let (stmt, args) = self.statement_arg(args)?;
                self.expect_args(args, 0, 1, call, "reschedule(\"i\")")?;
                let level = match args.first() {
                    Some(a) => Some(self.loop_level(a, "the loop", stmt)?.1),
                    None => None,
                };
                let r = schedule::reschedule(&mut self.t, level, None).map(|_| ());
                wrap(self, r)?;
            }
            "unroll" => {
                let (stmt, args) = self.statement_arg(args)?;
                self.expect_args(args, 1, 2, call, "unroll(\"k\", 4)")?;
                let (_, level) = self.loop_level(&args[0], "the loop", stmt)?;
                let factor = match args.get(1) {
                    Some(a) => self.int(a, "the unroll factor")?,
                    None => 0,
                };
                let r = unroll::unroll(&mut self.t, level, factor);
                wrap(self, r)?;
            }
            "prefetch" => {
                self.expect_args(args, 1, 1, call, "prefetch(\"kk\")")?;
                let (_, level) = self.loop_level(&args[0], "the loop", None)?;
                let r = unroll::prefetch(&mut self.t, level);
                wrap(self, r)?;
            }
            "double_buffer" => {
                let usage = "double_buffer(\"kk\") or double_buffer(\"kk\", {async=true})";
                self.expect_args(args, 1, 2, call, usage)?;
                let (_, level) = self.loop_level(&args[0], "the loop", None)?;
                let hint = "the option is {async=true}: copies with cp.async on sm_80 and later";
                let asynchronous =
                    match self.option(args.get(1), "double_buffer", "async", hint, usage)? {
                        Some((Value::Bool(b), _)) => b,
                        Some((_, span)) => {
                            return Err(Box::new(
                                self.error(span, "`async` must be true or false")
                                    .with_hint(usage),
                            ))
                        }
                        None => false,
                    };
                let r = crate::transform::pipeline::double_buffer(&mut self.t, level, asynchronous);
                wrap(self, r)?;
            }
            "launch_bounds" => {
                let usage = "launch_bounds(\"kernel\", 2)";
                self.expect_args(args, 2, 2, call, usage)?;
                let name = self.string(&args[0], "the kernel name")?;
                let blocks = self.int(&args[1], "the blocks per SM")?;
                let r = cudaize::launch_bounds(&mut self.t, &name, blocks);
                wrap(self, r)?;
            }
            "unroll_to_depth" => {
                self.expect_args(args, 1, 1, call, "unroll_to_depth(2)")?;
                let depth = self.int(&args[0], "the depth")?;
                if depth < 0 {
                    return Err(Box::new(
                        self.error(args[0].1, "the depth is negative")
                            .with_hint("use 1 for the innermost loops, 2 for two levels, ..."),
                    ));
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
                    return Err(Box::new(
                        self.error(mapping_arg.1, "the mapping must be a table")
                            .with_hint(usage),
                    ));
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
                    .find(|(key, _)| !["block", "thread", "reduce"].contains(&&**key))
                {
                    return Err(Box::new(self
                        .error(mapping_arg.1, format!("`{key}` is not part of a mapping"))
                        .with_hint("a mapping has `block={...}`, `thread={...}` and `reduce={...}` (all optional: `{}` makes a serial kernel)")));
                }
                let blocks = loops_of(self, "block")?;
                let threads = loops_of(self, "thread")?;
                let reductions = match mapping.field("reduce") {
                    Some(Value::Table(list)) => list
                        .array
                        .iter()
                        .map(|v| self.string(&(v.clone(), mapping_arg.1), "a reduced variable"))
                        .collect::<Eval<Vec<_>>>()?,
                    Some(Value::Str(v)) => vec![v.to_string()],
                    Some(other) => {
                        return Err(Box::new(
                            self.error(
                                mapping_arg.1,
                                format!(
                                    "`reduce` must be a list of variable names, not {}",
                                    other.type_name()
                                ),
                            )
                            .with_hint("write `reduce={\"sum\"}`"),
                        ))
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
                                Value::Str(s) => s.to_string(),
                                other => return Err(Box::new(
                                    self.error(
                                        *span,
                                        format!("the size of `{name}` is {}", other.type_name()),
                                    )
                                    .with_hint(
                                        "give a number of elements, or a C expression in quotes",
                                    ),
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
                let usage = "copy_to_shared(\"tx\", \"b\", -16) or copy_to_shared(\"tx\", \"b\", 4, {width=4})";
                self.expect_args(args, 2, 4, call, usage)?;
                let (_, level) = self.loop_level(&args[0], "the loop", None)?;
                let array = self.array(&args[1])?;
                let pad = match args.get(2) {
                    Some(a) => self.int(a, "the padding")?,
                    None => 0,
                };
                let width = self.copy_width(args.get(3), "copy_to_shared", usage)?;
                let r = datacopy::copy_to_shared(&mut self.t, level, array, pad, width);
                wrap(self, r)?;
            }
            "copy_to_registers" => {
                let usage = "copy_to_registers(\"kk\", \"c\") or copy_to_registers(\"kk\", \"c\", {width=4})";
                self.expect_args(args, 2, 3, call, usage)?;
                let (_, level) = self.loop_level(&args[0], "the loop", None)?;
                let array = self.array(&args[1])?;
                let width = self.copy_width(args.get(2), "copy_to_registers", usage)?;
                let r = datacopy::copy_to_registers(&mut self.t, level, array, width);
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
                self.write_output(call, &text)?;
            }
            "print_deps" => {
                self.expect_args(args, 0, 0, call, "print_deps()")?;
                // With the input dependences the report counts, which compiling leaves out.
                if self.reported_deps.is_none() {
                    let mut deps = self.t.deps.clone();
                    let failed = crate::deps::add_input_dependences(&self.t.program, &mut deps);
                    if let Some(d) = failed.into_iter().next() {
                        return Err(Box::new(self.error(call, d.message)));
                    }
                    self.reported_deps = Some(deps);
                }
                let deps = self.reported_deps.as_ref().expect("made above");
                let text = crate::deps::report::program_text(&self.t.program, deps, false);
                self.write_output(call, &text)?;
            }
            _ => {
                return Err(Box::new(
                    self.error(name_span, format!("unknown command `{name}`"))
                        .with_note(format!("the commands are: {}", COMMANDS.join(", ")))
                        .with_hint("check the spelling; recipes/README.md documents each command"),
                ))
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
                    other => Err(Box::new(
                        self.error(
                            args[1].1,
                            format!("a candidate value is {}", other.type_name()),
                        )
                        .with_hint("list numbers: {16, 32, 64}"),
                    )),
                })
                .collect::<Eval<_>>()?,
            other => {
                return Err(Box::new(
                    self.error(
                        args[1].1,
                        format!(
                            "the candidate values must be a table, not {}",
                            other.type_name()
                        ),
                    )
                    .with_hint("list them: {16, 32, 64}"),
                ))
            }
        };
        if candidates.is_empty() {
            return Err(Box::new(
                self.error(args[1].1, "no candidate values")
                    .with_hint("list at least one value"),
            ));
        }
        let default = match args.get(2) {
            Some((Value::Num(n), _)) => *n,
            Some((other, span)) => {
                return Err(Box::new(self.error(
                    *span,
                    format!("the default must be a number, not {}", other.type_name()),
                )))
            }
            None => candidates[0],
        };
        if !candidates.contains(&default) {
            let span = args.get(2).map(|a| a.1).unwrap_or(call);
            return Err(Box::new(
                self.error(
                    span,
                    format!(
                        "the default {} is not among the candidates",
                        number_text(default)
                    ),
                )
                .with_hint("make the default one of the candidate values"),
            ));
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
