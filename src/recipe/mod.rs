//! Recipe stage: parses a recipe (a Lua subset, `grammar/recipe.lalrpop`) and runs it
//! on a program, command by command (the commands are in [`crate::transform`]).
//!
//! Entry points: [`parse`] and [`run`]. Free names are parameters, bound by `-P NAME=VALUE`,
//! by the C file's `#define` constants, or declared with their candidate values for the
//! tuner: `TI = param("TI", {16, 32, 64}, 32)`. Errors point into the recipe file.

pub mod ast;
mod budget;
mod interp;
pub mod lexer;
mod value;

pub use interp::{run, ParamDecl, RunOptions, RunResult};
pub use value::number_text;

use crate::diag::{Diagnostic, Diagnostics, SourceFile, SourceId, Span};
use crate::limits::Limits;
use ast::{RStmtId, RecipeAst};
use lalrpop_util::ParseError;
use lexer::{lex, Tok, Token};

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused_parens, clippy::pedantic)]
    grammar,
    "/recipe.rs"
);

/// A parsed recipe.
#[derive(Clone, Debug)]
pub struct Recipe {
    pub source: SourceId,
    pub ast: RecipeAst,
    pub body: Vec<RStmtId>,
}

/// Parses the recipe in `file`. Nesting deeper than the `recipe-depth` limit
/// ([`crate::limits::current`]) is refused here, before the recipe runs: the parser and
/// the AST's arenas nest nothing on the stack, but the interpreter recurses once per level.
pub fn parse(file: &SourceFile, source: SourceId) -> Result<Recipe, Diagnostics> {
    let limits = crate::limits::current();
    let tokens = lex(&file.text);
    check_tokens(source, &tokens, &limits)?;
    let mut ast = RecipeAst::default();
    let stream = tokens
        .iter()
        .map(|t| (t.span.start, t.tok.clone(), t.span.end));
    let body = grammar::ChunkParser::new()
        .parse(&mut ast, stream)
        .map_err(|e| vec![syntax_error(source, &file.text, &tokens, e)])?;
    // Nodes are made innermost first: the first too deep is where the limit is crossed.
    let too_deep = |depth: u32| u64::from(depth) > limits.recipe_depth;
    let deep = ast
        .exprs
        .iter()
        .find(|(_, e)| too_deep(e.depth))
        .map(|(_, e)| (e.span, "this expression"))
        .or_else(|| {
            ast.stmts
                .iter()
                .find(|(_, s)| too_deep(s.depth))
                .map(|(_, s)| (s.span, "this statement"))
        });
    if let Some((span, what)) = deep {
        let (message, hint) = limits.exceeded("recipe-depth", what);
        return Err(vec![
            Diagnostic::error(source, span, message).with_hint(hint)
        ]);
    }
    Ok(Recipe { source, ast, body })
}

/// Refuses unreadable text, Lua outside the recipe subset, and brackets nested deeper than
/// the `recipe-depth` limit, before parsing.
fn check_tokens(source: SourceId, tokens: &[Token], limits: &Limits) -> Result<(), Diagnostics> {
    let mut depth = 0u64;
    for t in tokens {
        let refusal = match &t.tok {
            Tok::Error(what) => Some((
                format!("syntax error: {what}"),
                match *what {
                    "invalid escape sequence" => "the escapes are \\n \\t \\r \\\\ \\\" \\' \\a \\b \\f \\v, \\ddd and \\xXX (ASCII) and \\u{XXXX}; write other characters as they are".to_string(),
                    _ => "check the text at this place".to_string(),
                },
            )),
            Tok::Kw(k @ ("while" | "repeat" | "until")) => Some((
                format!("`{k}` loops are not supported in recipes"),
                "use a numeric `for i = 1, n do ... end` loop".to_string(),
            )),
            Tok::Kw("function") => Some((
                "functions cannot be defined in recipes".to_string(),
                "write the commands out, or use a `for` loop".to_string(),
            )),
            Tok::Kw(k @ ("return" | "break" | "goto")) => Some((
                format!("`{k}` is not supported in recipes"),
                "recipes run from top to bottom; use `if` to skip commands".to_string(),
            )),
            Tok::Punct(p @ (":" | "::" | "...")) => Some((
                format!("`{p}` is not supported in recipes"),
                "recipes call commands by name: `tile(\"i\", 16)`".to_string(),
            )),
            Tok::Punct("(" | "[" | "{") => {
                depth += 1;
                (depth > limits.recipe_depth)
                    .then(|| limits.exceeded("recipe-depth", "this bracket"))
            }
            Tok::Punct(")" | "]" | "}") => {
                depth = depth.saturating_sub(1);
                None
            }
            _ => None,
        };
        if let Some((message, hint)) = refusal {
            return Err(vec![
                Diagnostic::error(source, t.span, message).with_hint(hint)
            ]);
        }
    }
    Ok(())
}

fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Name(n) => format!("name `{n}`"),
        Tok::Number(v) => format!("number `{v}`"),
        Tok::Str(s) => format!("string \"{s}\""),
        Tok::Kw(k) => format!("keyword `{k}`"),
        Tok::Punct(p) => format!("`{p}`"),
        Tok::Error(e) => e.to_string(),
    }
}

fn syntax_error(
    source: SourceId,
    text: &str,
    tokens: &[Token],
    e: ParseError<usize, Tok, ()>,
) -> Diagnostic {
    let hint = "recipes are Lua: `NAME = value`, command calls `tile_by_index({\"i\"}, {16}, ...)`, tables `{...}`, `if`, numeric `for`";
    match e {
        ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => {
            let names: Vec<String> = expected
                .iter()
                .take(6)
                .map(|x| match x.trim_matches('"') {
                    "Name" => "a name".to_string(),
                    "Number" => "a number".to_string(),
                    "Str" => "a string".to_string(),
                    other => format!("`{other}`"),
                })
                .collect();
            let expected = match names.as_slice() {
                [] => "something else".to_string(),
                [one] => one.clone(),
                [init @ .., last] => format!("{} or {last}", init.join(", ")),
            };
            // A token on a later line than the one before it: what is missing is at the
            // end of that earlier line.
            let before = tokens.iter().rev().find(|t| t.span.end <= l);
            match before {
                Some(prev)
                    if text
                        .get(prev.span.end..l)
                        .is_some_and(|gap| gap.contains('\n')) =>
                {
                    Diagnostic::error(
                        source,
                        prev.span,
                        format!(
                            "syntax error: expected {expected} before {} on the next line",
                            describe(&tok)
                        ),
                    )
                    .with_label(format!("expected {expected} after this"))
                    .with_hint(hint)
                }
                _ => Diagnostic::error(
                    source,
                    Span::new(l, r),
                    format!("syntax error: unexpected {}", describe(&tok)),
                )
                .with_label(format!("expected {expected}"))
                .with_hint(hint),
            }
        }
        ParseError::UnrecognizedEof { .. } => {
            let end = tokens.last().map(|t| t.span.end).unwrap_or(0);
            Diagnostic::error(
                source,
                Span::new(end, end),
                "syntax error: the recipe ends in the middle of a statement",
            )
            .with_hint("check for a missing `)`, `}` or `end`")
        }
        ParseError::ExtraToken { token: (l, tok, r) } => Diagnostic::error(
            source,
            Span::new(l, r),
            format!("syntax error: unexpected {}", describe(&tok)),
        )
        .with_hint(hint),
        ParseError::InvalidToken { location } => Diagnostic::error(
            source,
            Span::new(location, location + 1),
            "syntax error: invalid token",
        )
        .with_hint(hint),
        ParseError::User { error: () } => {
            Diagnostic::error(source, Span::new(0, 0), "syntax error").with_hint(hint)
        }
    }
}
