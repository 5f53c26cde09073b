//! Frontend stage: a C file → the [`Unit`]s gpucc compiles, as ASTs with spans.
//!
//! Entry point: [`parse`]. The file may hold any C; the scan ([`scan`]) finds the unit to
//! compile — the function named by `--function`, else every `#pragma scop` region, else the
//! file's only function — and only that text is macro-expanded ([`macros`]) and parsed
//! ([`parser`], grammar in `grammar/c.lalrpop`). Constructs outside the subset are refused
//! with a diagnostic that names them and points at them. The rest of the file is left for
//! the emitter to copy through; [`Unit::span`] says which text a unit replaces.

pub mod ast;
pub mod lexer;
pub mod macros;
pub mod parser;
pub mod scan;

use crate::diag::{Diagnostic, Diagnostics, SourceFile, SourceId, Span};
use ast::{Ast, Param, StmtId, StmtKind};
use lexer::{lex, Tok, Token};
use macros::{MacroSource, MacroTable};
use scan::{FunctionOutline, Outline};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// How to read the file.
#[derive(Clone, Debug, Default)]
pub struct FrontendOptions {
    /// Compile this function (`--function`).
    pub function: Option<String>,
    /// `-D NAME=VALUE`, in order; they override the file's `#define`s.
    pub defines: Vec<(String, String)>,
    /// `-I DIR`.
    pub include_dirs: Vec<PathBuf>,
    /// Ask the system preprocessor (`cc -E -dM`) for the macros in effect, so that headers
    /// and conditionals are understood. Without it, the file's own `#define`s are used.
    pub system_preprocessor: bool,
}

/// Whether a unit is a whole function or a `#pragma scop` region.
#[derive(Clone, Debug, PartialEq)]
pub enum UnitKind {
    Function,
    /// The n-th (from 0) scop region of the file.
    Scop(usize),
}

/// One piece of code gpucc compiles.
#[derive(Clone, Debug)]
pub struct Unit {
    pub source: SourceId,
    pub kind: UnitKind,
    /// The function's name (for a scop region, the function it is in).
    pub function: String,
    /// For a function, its parameters; for a scop region, the declarations from outside it
    /// (globals, the enclosing function's parameters and locals) of the names it uses.
    pub params: Vec<Param>,
    pub body: Vec<StmtId>,
    pub ast: Ast,
    /// The text of the file this unit replaces in the output.
    pub span: Span,
    /// For a function, its header (return type, name, parameters), up to the `{`.
    pub header: Option<Span>,
    /// For a scop region, the names of [`Unit::params`] that are parameters or locals of
    /// the enclosing function and that nothing after the region mentions: the values the
    /// region leaves in them are dead (setting them only makes compilers warn).
    pub dead_after: Vec<String>,
    /// Where file-scope code that the unit needs (kernels) can go: the start of the
    /// function definition that holds the unit.
    pub file_scope_at: usize,
}

impl Unit {
    /// A name for messages: `function matmul` or `scop region 1 in main`.
    pub fn describe(&self) -> String {
        match self.kind {
            UnitKind::Function => format!("function {}", self.function),
            UnitKind::Scop(k) => format!("scop region {} in {}", k + 1, self.function),
        }
    }
}

/// A parsed file: its units and the macros they were expanded with.
#[derive(Clone, Debug)]
pub struct ParsedFile {
    pub units: Vec<Unit>,
    pub macros: MacroTable,
    pub macro_source: MacroSource,
}

/// The deepest expression or statement nesting accepted (deeper input is refused, so that
/// no later recursive walk can overflow the stack).
pub const MAX_NESTING: u32 = 200;

/// Reads the file `source` of `file` (its path, if any, for the system preprocessor) and
/// returns the units to compile.
pub fn parse(
    file: &SourceFile,
    source: SourceId,
    path: Option<&Path>,
    options: &FrontendOptions,
) -> Result<ParsedFile, Diagnostics> {
    if file.text.trim().is_empty() {
        return Err(vec![Diagnostic::error_nowhere(format!(
            "`{}` is empty",
            file.name
        ))
        .with_hint(
            "give gpucc a C file with a function whose loops it should compile",
        )]);
    }
    let tokens = lex(&file.text, 0);
    let outline = scan::scan(&tokens);
    let (macros, macro_source) = macros::collect(
        path,
        &tokens,
        &options.defines,
        &options.include_dirs,
        options.system_preprocessor,
    );
    let reader = UnitReader {
        source,
        tokens: &tokens,
        outline: &outline,
        macros: &macros,
    };
    let units = reader.units(file, options).map_err(|mut diags| {
        if let Some(note) = macro_source.note() {
            diags.iter_mut().for_each(|d| d.notes.push(note.clone()));
        }
        diags
    })?;
    Ok(ParsedFile {
        units,
        macros,
        macro_source,
    })
}

struct UnitReader<'a> {
    source: SourceId,
    tokens: &'a [Token],
    outline: &'a Outline,
    macros: &'a MacroTable,
}

impl UnitReader<'_> {
    fn units(
        &self,
        file: &SourceFile,
        options: &FrontendOptions,
    ) -> Result<Vec<Unit>, Diagnostics> {
        let functions = &self.outline.functions;
        if let Some(name) = &options.function {
            return match functions.iter().find(|f| &f.name == name) {
                Some(f) => Ok(vec![self.function_unit(f).map_err(|d| vec![d])?]),
                None => Err(vec![Diagnostic::error_nowhere(format!(
                    "`{}` has no function named `{name}`",
                    file.name
                ))
                .with_note(function_list(functions))
                .with_hint("pass one of these names to --function")]),
            };
        }
        if !self.outline.pragma_errors.is_empty() {
            return Err(self
                .outline
                .pragma_errors
                .iter()
                .map(|(span, msg)| {
                    Diagnostic::error(self.source, *span, msg.clone())
                        .with_hint("mark each region with `#pragma scop` before it and `#pragma endscop` after it, inside one function")
                })
                .collect());
        }
        if !self.outline.scops.is_empty() {
            let mut units = Vec::new();
            let mut errors = Vec::new();
            for k in 0..self.outline.scops.len() {
                match self.scop_unit(k) {
                    Ok(u) => units.push(u),
                    Err(d) => errors.push(d),
                }
            }
            return if errors.is_empty() {
                Ok(units)
            } else {
                Err(errors)
            };
        }
        match functions.as_slice() {
            [] => Err(vec![Diagnostic::error_nowhere(format!(
                "`{}` has no function definition",
                file.name
            ))
            .with_hint("gpucc compiles a function (or `#pragma scop` regions inside one); put the loops in a function")]),
            [f] => Ok(vec![self.function_unit(f).map_err(|d| vec![d])?]),
            several => Err(vec![Diagnostic::error_nowhere(format!(
                "`{}` has {} functions; which one should gpucc compile?",
                file.name,
                several.len()
            ))
            .with_note(function_list(several))
            .with_hint("name it with `--function NAME`, or mark the loops with `#pragma scop` and `#pragma endscop`")]),
        }
    }

    fn function_unit(&self, f: &FunctionOutline) -> Result<Unit, Diagnostic> {
        let tokens = self.prepare(&self.tokens[f.start..=f.rbrace])?;
        let mut ast = Ast::default();
        let function = parser::parse_function(self.source, &tokens, &mut ast)?;
        if let Some(ty) = function.spec.ty {
            return Err(Diagnostic::error(
                self.source,
                function.spec.span,
                format!("function `{}` returns a value (`{}`)", f.name, ty.c_name()),
            )
            .with_label("gpucc compiles functions that return `void`")
            .with_hint("return results through an array parameter, e.g. `float result[1]`"));
        }
        check_nesting(self.source, &ast)?;
        check_size(self.source, &ast, &function.body)?;
        Ok(Unit {
            source: self.source,
            kind: UnitKind::Function,
            function: function.name,
            params: function.params,
            body: function.body,
            ast,
            span: Span::new(
                self.tokens[f.start].span.start,
                self.tokens[f.rbrace].span.end,
            ),
            header: Some(Span::new(
                self.tokens[f.start].span.start,
                self.tokens[f.lbrace].span.start,
            )),
            dead_after: Vec::new(),
            file_scope_at: self.tokens[f.start].span.start,
        })
    }

    fn scop_unit(&self, index: usize) -> Result<Unit, Diagnostic> {
        let scop = &self.outline.scops[index];
        let tokens = self.prepare(&self.tokens[scop.begin + 1..scop.end])?;
        let mut ast = Ast::default();
        let body = parser::parse_statements(self.source, &tokens, &mut ast)?;
        let used: HashSet<&str> = tokens
            .iter()
            .filter_map(|t| match &t.tok {
                Tok::Ident(n) => Some(n.as_str()),
                _ => None,
            })
            .collect();
        let f = scop.function.map(|k| &self.outline.functions[k]);
        let params = self.outside_declarations(f, scop.begin, &tokens, &used, &mut ast)?;
        check_nesting(self.source, &ast)?;
        check_size(self.source, &ast, &body)?;
        let dead_after = match f {
            Some(f) => {
                let function_start = self.tokens[f.start].span.start;
                let after: HashSet<&str> = self.tokens[scop.end + 1..f.rbrace]
                    .iter()
                    .filter_map(|t| match &t.tok {
                        Tok::Ident(n) => Some(n.as_str()),
                        _ => None,
                    })
                    .collect();
                params
                    .iter()
                    .filter(|p| p.declarator.name_span.start >= function_start)
                    .map(|p| p.declarator.name.clone())
                    .filter(|n| !after.contains(n.as_str()))
                    .collect()
            }
            None => Vec::new(),
        };
        Ok(Unit {
            source: self.source,
            kind: UnitKind::Scop(index),
            function: f.map(|f| f.name.clone()).unwrap_or_default(),
            params,
            body,
            ast,
            span: Span::new(
                self.tokens[scop.begin].span.start,
                self.tokens[scop.end].span.end,
            ),
            header: None,
            dead_after,
            file_scope_at: f
                .map(|f| self.tokens[f.start].span.start)
                .unwrap_or(self.tokens[scop.begin].span.start),
        })
    }

    /// The declarations visible at a scop region for the names it uses: file-scope ones,
    /// then the enclosing function's parameters, then its locals before the region (later
    /// ones shadow earlier ones). A used name whose only declaration gpucc cannot read (a
    /// pointer, say) is reported with that declaration's error.
    fn outside_declarations(
        &self,
        function: Option<&FunctionOutline>,
        region_start: usize,
        region: &[Token],
        used: &HashSet<&str>,
        ast: &mut Ast,
    ) -> Result<Vec<Param>, Diagnostic> {
        let mut found: HashMap<String, Param> = HashMap::new();
        let mut refused: HashMap<String, Diagnostic> = HashMap::new();
        let mut chunks: Vec<(&[Token], ChunkKind)> = self
            .outline
            .declarations
            .iter()
            .map(|r| (&self.tokens[r.clone()], ChunkKind::Declaration))
            .collect();
        if let Some(f) = function {
            for param in split_top_level(&self.tokens[f.lparen + 1..f.rparen], ",") {
                chunks.push((param, ChunkKind::Param));
            }
            for stmt in declaration_chunks(&self.tokens[f.lbrace + 1..region_start]) {
                chunks.push((stmt, ChunkKind::Declaration));
            }
        }
        for (chunk, kind) in chunks {
            let Some(expanded) = self.expand(chunk).ok().filter(|t| starts_declaration(t)) else {
                continue;
            };
            let names: Vec<(String, usize)> = declared_names(&expanded)
                .into_iter()
                .filter(|(n, _)| used.contains(n.as_str()))
                .collect();
            if names.is_empty() {
                continue;
            }
            let refuse = |d: Diagnostic,
                          found: &mut HashMap<String, Param>,
                          refused: &mut HashMap<String, Diagnostic>| {
                for (n, _) in &names {
                    found.remove(n);
                    refused.insert(n.clone(), d.clone());
                }
            };
            if let Some(d) = self.pointer_declaration(&expanded, &names) {
                refuse(d, &mut found, &mut refused);
                continue;
            }
            let parsed = check_tokens(self.source, &expanded).and_then(|()| match kind {
                ChunkKind::Param => parser::parse_params(self.source, &expanded, ast),
                ChunkKind::Declaration => parser::parse_declaration(self.source, &expanded, ast)
                    .map(|d| {
                        d.declarators
                            .into_iter()
                            .map(|declarator| ast::Param {
                                spec: d.spec,
                                declarator,
                            })
                            .collect()
                    }),
            });
            match parsed {
                Ok(params) => {
                    for p in params {
                        refused.remove(&p.declarator.name);
                        if used.contains(p.declarator.name.as_str()) {
                            found.insert(p.declarator.name.clone(), p);
                        }
                    }
                }
                Err(d) => refuse(d, &mut found, &mut refused),
            }
        }
        let mut params: Vec<Param> = found.into_values().collect();
        params.sort_by_key(|p| p.declarator.name_span.start);
        // A used name declared only in a form gpucc cannot read is an error only if
        // the region does not declare it itself; lowering reports undeclared names.
        let declared_inside = names_declared(ast);
        if let Some((name, d)) = refused
            .into_iter()
            .filter(|(n, _)| !declared_inside.contains(n))
            .min_by_key(|(_, d)| d.primary_span().map(|(_, s)| s.start))
        {
            let first_use = region
                .iter()
                .find(|t| matches!(&t.tok, Tok::Ident(n) if *n == name))
                .map(|t| t.span);
            let d = match first_use {
                Some(span) => d.with_secondary(self.source, span, format!("`{name}` is used here")),
                None => d,
            };
            return Err(d.with_note(format!(
                "the `#pragma scop` region uses `{name}`, whose declaration gpucc cannot read"
            )));
        }
        Ok(params)
    }

    /// A declaration that makes one of `names` (declared names with their token index) a
    /// pointer: `double *A`, `double (*A)[N]`.
    fn pointer_declaration(
        &self,
        tokens: &[Token],
        names: &[(String, usize)],
    ) -> Option<Diagnostic> {
        names.iter().find(|(_, k)| *k > 0 && tokens[k - 1].tok == Tok::Punct("*")).map(|(n, k)| {
            Diagnostic::error(self.source, tokens[*k].span, format!("`{n}` is declared as a pointer"))
                .with_label("gpucc needs arrays with known dimensions")
                .with_hint(format!(
                    "declare `{n}` as an array (`double {n}[N][M]`), for example as a global or a function parameter"
                ))
        })
    }

    /// The tokens of a unit, ready for the parser: directives dropped (conditionals and
    /// includes refused), macros expanded, scalar typedefs replaced by their types, and
    /// constructs outside the subset refused.
    fn prepare(&self, tokens: &[Token]) -> Result<Vec<Token>, Diagnostic> {
        let out = self.expand(tokens)?;
        check_tokens(self.source, &out)?;
        Ok(out)
    }

    /// Directives dropped (conditionals and includes refused), macros expanded, scalar
    /// typedefs replaced.
    fn expand(&self, tokens: &[Token]) -> Result<Vec<Token>, Diagnostic> {
        let mut kept = Vec::with_capacity(tokens.len());
        for t in tokens {
            if let Tok::Directive(d) = &t.tok {
                let word = d.split_whitespace().next().unwrap_or("");
                if matches!(
                    word,
                    "if" | "ifdef" | "ifndef" | "elif" | "else" | "endif" | "include"
                ) {
                    return Err(Diagnostic::error(
                        self.source,
                        t.span,
                        format!("`#{word}` inside the code gpucc compiles is not supported"),
                    )
                    .with_hint(
                        "move the directive outside the function, or choose the variant with -D",
                    ));
                }
                continue;
            }
            kept.push(t.clone());
        }
        let expanded = macros::expand(&kept, self.macros).map_err(|e| {
            Diagnostic::error(self.source, e.span, e.message)
                .with_hint("check the macro's definition and its arguments")
        })?;
        let mut out = Vec::with_capacity(expanded.len());
        for t in expanded {
            match &t.tok {
                Tok::Ident(n) if self.outline.typedefs.contains_key(n) => {
                    out.extend(self.outline.typedefs[n].iter().map(|w| Token {
                        span: t.span,
                        ..w.clone()
                    }));
                }
                _ => out.push(t),
            }
        }
        Ok(out)
    }
}

#[derive(Clone, Copy)]
enum ChunkKind {
    Param,
    Declaration,
}

fn function_list(functions: &[FunctionOutline]) -> String {
    if functions.is_empty() {
        return "the file defines no functions".into();
    }
    let names: Vec<&str> = functions.iter().map(|f| f.name.as_str()).collect();
    format!("the file defines: {}", names.join(", "))
}

/// Whether tokens begin like a declaration (a type or storage keyword), after expansion.
fn starts_declaration(tokens: &[Token]) -> bool {
    matches!(
        tokens.first().map(|t| &t.tok),
        Some(Tok::Kw(
            "int"
                | "long"
                | "short"
                | "char"
                | "float"
                | "double"
                | "unsigned"
                | "signed"
                | "void"
                | "const"
                | "static"
                | "extern"
                | "register"
                | "volatile"
                | "restrict"
                | "_Bool"
                | "struct"
                | "union"
                | "enum"
                | "auto"
        ))
    )
}

/// The names a declaration declares, with their token indices: identifiers outside
/// brackets, braces and initializers (`A` and `n` in `double A[N][M], n = 2 * m;`).
fn declared_names(tokens: &[Token]) -> Vec<(String, usize)> {
    let (mut brackets, mut parens, mut in_initializer) = (0i32, 0i32, false);
    let mut names = Vec::new();
    for (k, t) in tokens.iter().enumerate() {
        match &t.tok {
            Tok::Punct("[" | "{") => brackets += 1,
            Tok::Punct("]" | "}") => brackets -= 1,
            Tok::Punct("(") => parens += 1,
            Tok::Punct(")") => parens -= 1,
            Tok::Punct("=") if brackets == 0 && parens == 0 => in_initializer = true,
            Tok::Punct(",") if brackets == 0 && parens == 0 => in_initializer = false,
            Tok::Ident(n) if brackets == 0 && !in_initializer => names.push((n.clone(), k)),
            _ => {}
        }
    }
    names
}

/// Splits tokens at `sep` outside parentheses, brackets and braces.
fn split_top_level<'t>(tokens: &'t [Token], sep: &str) -> Vec<&'t [Token]> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (k, t) in tokens.iter().enumerate() {
        match t.tok {
            Tok::Punct("(" | "[" | "{") => depth += 1,
            Tok::Punct(")" | "]" | "}") => depth -= 1,
            Tok::Punct(p) if p == sep && depth == 0 => {
                parts.push(&tokens[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&tokens[start..]);
    parts.retain(|p| !p.is_empty());
    parts
}

/// The `;`-terminated pieces of a function body that start like declarations.
fn declaration_chunks(tokens: &[Token]) -> Vec<&[Token]> {
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut parens = 0i32;
    for (k, t) in tokens.iter().enumerate() {
        match t.tok {
            Tok::Punct("(") => parens += 1,
            Tok::Punct(")") => parens -= 1,
            Tok::Punct("{" | "}") if parens == 0 => start = k + 1,
            Tok::Directive(_) => start = k + 1,
            Tok::Punct(";") if parens == 0 => {
                chunks.push(&tokens[start..=k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    chunks
}

/// Names declared by declarations inside the unit's AST.
fn names_declared(ast: &Ast) -> HashSet<String> {
    let mut names = HashSet::new();
    for (_, stmt) in ast.stmts.iter() {
        let decl = match &stmt.kind {
            ast::StmtKind::Decl(d) => d,
            ast::StmtKind::For(ast::ForStmt {
                init: ast::ForInit::Decl(d),
                ..
            }) => d,
            _ => continue,
        };
        names.extend(decl.declarators.iter().map(|d| d.name.clone()));
    }
    names
}

/// Refuses, before parsing, tokens the lexer could not read, keywords outside the subset,
/// and nesting deeper than [`MAX_NESTING`].
fn check_tokens(source: SourceId, tokens: &[Token]) -> Result<(), Diagnostic> {
    let mut depth = 0u32;
    for t in tokens {
        let refusal: Option<(&str, &str)> = match &t.tok {
            Tok::Error(what) => {
                return Err(Diagnostic::error(source, t.span, format!("syntax error: {what}"))
                    .with_hint("check the characters at this place"))
            }
            Tok::Kw("while") => Some(("`while` loops are not supported",
                "gpucc compiles `for` loops with affine bounds; rewrite it as a `for` loop whose trip count is known")),
            Tok::Kw("do") => Some(("`do`-`while` loops are not supported",
                "gpucc compiles `for` loops with affine bounds; rewrite it as a `for` loop whose trip count is known")),
            Tok::Kw("goto") => Some(("`goto` is not supported", "structure the code with `for` loops and `if`")),
            Tok::Kw("break") => Some(("`break` is not supported",
                "every loop runs all its iterations; express an early exit in the loop's bounds or with `if`")),
            Tok::Kw("continue") => Some(("`continue` is not supported",
                "put the rest of the loop body under an `if` instead")),
            Tok::Kw("switch" | "case" | "default") => Some(("`switch` is not supported", "use `if` with affine conditions")),
            Tok::Kw("return") => Some(("`return` is not supported in the code gpucc compiles",
                "gpucc compiles functions that return nothing (`void`); return results through an array parameter")),
            Tok::Kw("struct" | "union") => Some(("structs and unions are not supported", "pass the fields as separate arrays")),
            Tok::Kw("enum") => Some(("enums are not supported", "use `#define` constants")),
            Tok::Kw("typedef") => Some(("a `typedef` inside the code gpucc compiles is not supported", "move it to file scope")),
            Tok::Kw("sizeof") => Some(("`sizeof` is not supported", "use the sizes of the arrays directly")),
            Tok::Punct("->") => Some(("member access through a pointer is not supported",
                "gpucc compiles array code; pass the data as arrays")),
            Tok::Punct("...") => Some(("variadic functions are not supported", "give the function fixed parameters")),
            Tok::Punct("(" | "[" | "{") => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(too_deep(source, t.span));
                }
                None
            }
            Tok::Punct(")" | "]" | "}") => {
                depth = depth.saturating_sub(1);
                None
            }
            _ => None,
        };
        if let Some((message, hint)) = refusal {
            return Err(Diagnostic::error(source, t.span, message).with_hint(hint));
        }
    }
    Ok(())
}

fn too_deep(source: SourceId, span: Span) -> Diagnostic {
    Diagnostic::error(
        source,
        span,
        format!("the code is nested too deeply (more than {MAX_NESTING} levels)"),
    )
    .with_hint("split the expression or the loop nest; real loop code is far shallower")
}

/// Refuses expressions and statements nested deeper than [`MAX_NESTING`] (which the
/// bracket check cannot see: `a+a+...+a`, `for (...) for (...) ...` without braces).
fn check_nesting(source: SourceId, ast: &Ast) -> Result<(), Diagnostic> {
    if let Some((_, e)) = ast.exprs.iter().find(|(_, e)| e.depth > MAX_NESTING) {
        return Err(too_deep(source, e.span));
    }
    if let Some((_, s)) = ast.stmts.iter().find(|(_, s)| s.depth > MAX_NESTING) {
        return Err(too_deep(source, s.span));
    }
    Ok(())
}

/// Refuses a unit with more nested loops than the limit `nest-depth` or more statements
/// than `statements` ([`crate::limits::current`]): the dependence analysis and the code
/// generation grow quickly with both (a 16-deep nest of one statement took 11 s to compile,
/// a 50-deep one minutes), so a huge input stops with a message, not a long wait.
fn check_size(source: SourceId, ast: &Ast, body: &[StmtId]) -> Result<(), Diagnostic> {
    let limits = crate::limits::current();
    // The outermost `for` of each nest and the `for` that reached the limit.
    let mut too_deep: Option<(Span, Span)> = None;
    let mut statements: Vec<Span> = Vec::new();
    // (statement, loops around it, the outermost of them)
    let mut work: Vec<(StmtId, u64, Option<Span>)> =
        body.iter().rev().map(|&s| (s, 0, None)).collect();
    while let Some((id, depth, outer)) = work.pop() {
        let stmt = &ast.stmts[id];
        match &stmt.kind {
            StmtKind::Expr(_) => statements.push(stmt.span),
            StmtKind::Block(b) => work.extend(b.iter().rev().map(|&s| (s, depth, outer))),
            StmtKind::For(f) => {
                let outer = outer.or(Some(f.keyword));
                if depth + 1 > limits.nest_depth && too_deep.is_none() {
                    too_deep = outer.map(|o| (o, f.keyword));
                }
                work.push((f.body, depth + 1, outer));
            }
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                work.push((*then_branch, depth, outer));
                work.extend(else_branch.map(|e| (e, depth, outer)));
            }
            StmtKind::Decl(_) | StmtKind::Empty => {}
        }
    }
    if let Some((outer, at)) = too_deep {
        let (message, hint) = limits.exceeded("nest-depth", "this loop nest");
        return Err(Diagnostic::error(source, at, message)
            .with_label(format!("loop {} of the nest", limits.nest_depth + 1))
            .with_secondary(source, outer, "the nest starts here")
            .with_hint(hint));
    }
    if statements.len() as u64 > limits.statements {
        statements.sort_by_key(|s| s.start);
        let at = statements[limits.statements as usize];
        let (message, hint) = limits.exceeded(
            "statements",
            &format!("this code ({} statements)", statements.len()),
        );
        return Err(Diagnostic::error(source, at, message)
            .with_label(format!("statement {} of the code", limits.statements + 1))
            .with_hint(hint));
    }
    Ok(())
}
