//! Glue between the LALRPOP grammar (`grammar/c.lalrpop`) and the frontend: the parser's
//! user errors, declaration-specifier validation, and syntax errors turned into diagnostics.

use crate::diag::{Diagnostic, SourceId, Span};
use crate::frontend::ast::*;
use crate::frontend::lexer::{Tok, Token};
use lalrpop_util::ParseError;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, unused_parens, clippy::pedantic)]
    grammar,
    "/c.rs"
);

/// An error raised by a grammar action: a construct outside the subset, at a span.
#[derive(Clone, Debug, PartialEq)]
pub struct UserError {
    pub span: Span,
    pub message: String,
    pub hint: String,
}

impl UserError {
    pub fn new(span: Span, message: &str, hint: &str) -> UserError {
        UserError {
            span,
            message: message.to_string(),
            hint: hint.to_string(),
        }
    }
}

/// `for (init; cond; step)` before its body is parsed.
pub struct ForHead {
    pub keyword: Span,
    pub init: ForInit,
    pub cond: Option<ExprId>,
    pub step: Option<ExprId>,
}

impl ForHead {
    pub fn into_for(self, body: StmtId) -> ForStmt {
        ForStmt {
            keyword: self.keyword,
            init: self.init,
            cond: self.cond,
            step: self.step,
            body,
        }
    }
}

/// Validates a sequence of declaration-specifier keywords (`const unsigned long`).
pub fn decl_spec(words: &[(&'static str, Span)], span: Span) -> Result<DeclSpec, UserError> {
    let count = |w: &str| words.iter().filter(|(x, _)| *x == w).count();
    let at = |w: &str| {
        words
            .iter()
            .find(|(x, _)| *x == w)
            .map(|(_, s)| *s)
            .unwrap_or(span)
    };
    for unsupported in ["_Bool"] {
        if count(unsupported) > 0 {
            return Err(UserError::new(
                at(unsupported),
                &format!("the type `{unsupported}` is not supported"),
                "use `int` for integers, `float` or `double` for data",
            ));
        }
    }
    if count("volatile") > 0 {
        return Err(UserError::new(
            at("volatile"),
            "`volatile` is not supported",
            "remove the qualifier; gpucc compiles ordinary array code",
        ));
    }
    let longs = count("long");
    let unsigned = count("unsigned") > 0;
    let base_words = [
        "void", "int", "float", "double", "long", "unsigned", "signed", "char", "short",
    ];
    if !words.iter().any(|(w, _)| base_words.contains(w)) {
        return Err(UserError::new(
            span,
            "a declaration needs a type",
            "write the type, e.g. `int` or `float`",
        ));
    }
    let invalid = || {
        UserError::new(
            span,
            "invalid combination of type specifiers",
            "use one of `char`, `short`, `int`, `long`, `unsigned`, `float`, `double`",
        )
    };
    if count("signed") > 0 && unsigned {
        return Err(invalid());
    }
    let ty = if count("void") > 0 {
        if words.iter().any(|(w, _)| base_words[1..].contains(w)) || count("void") > 1 {
            return Err(invalid());
        }
        None
    } else if count("float") + count("double") > 0 {
        if count("float") + count("double") > 1
            || unsigned
            || count("int") + count("char") + count("short") > 0
        {
            return Err(invalid());
        }
        if count("double") == 1 && longs > 0 {
            return Err(UserError::new(
                at("long"),
                "`long double` is not supported",
                "use `double`",
            ));
        }
        if longs > 0 {
            return Err(invalid());
        }
        Some(if count("float") == 1 {
            ScalarType::Float
        } else {
            ScalarType::Double
        })
    } else if count("char") > 0 {
        if count("char") > 1 || count("int") + count("short") + longs > 0 {
            return Err(invalid());
        }
        Some(if unsigned {
            ScalarType::UChar
        } else {
            ScalarType::Char
        })
    } else if count("short") > 0 {
        if count("short") > 1 || count("int") > 1 || longs > 0 {
            return Err(invalid());
        }
        Some(if unsigned {
            ScalarType::UShort
        } else {
            ScalarType::Short
        })
    } else {
        if count("int") > 1 || longs > 2 {
            return Err(invalid());
        }
        Some(match (unsigned, longs > 0) {
            (false, false) => ScalarType::Int,
            (true, false) => ScalarType::UInt,
            (false, true) => ScalarType::Long,
            (true, true) => ScalarType::ULong,
        })
    };
    Ok(DeclSpec {
        ty,
        is_const: count("const") > 0,
        span,
    })
}

type LalrError = ParseError<usize, Tok, UserError>;

fn spanned(tokens: &[Token]) -> impl Iterator<Item = (usize, Tok, usize)> + '_ {
    tokens
        .iter()
        .map(|t| (t.span.start, t.tok.clone(), t.span.end))
}

/// Parses a function definition.
pub fn parse_function(
    source: SourceId,
    tokens: &[Token],
    ast: &mut Ast,
) -> Result<Function, Diagnostic> {
    grammar::FunctionParser::new()
        .parse(ast, spanned(tokens))
        .map_err(|e| syntax_error(source, tokens, e))
}

/// Parses the statements of a `#pragma scop` region.
pub fn parse_statements(
    source: SourceId,
    tokens: &[Token],
    ast: &mut Ast,
) -> Result<Vec<StmtId>, Diagnostic> {
    grammar::StmtsParser::new()
        .parse(ast, spanned(tokens))
        .map_err(|e| syntax_error(source, tokens, e))
}

/// Parses a parameter list (the text between a function's parentheses).
pub fn parse_params(
    source: SourceId,
    tokens: &[Token],
    ast: &mut Ast,
) -> Result<Vec<Param>, Diagnostic> {
    grammar::ParamListParser::new()
        .parse(ast, spanned(tokens))
        .map_err(|e| syntax_error(source, tokens, e))
}

/// Parses one declaration ending in `;`.
pub fn parse_declaration(
    source: SourceId,
    tokens: &[Token],
    ast: &mut Ast,
) -> Result<Decl, Diagnostic> {
    grammar::DeclarationParser::new()
        .parse(ast, spanned(tokens))
        .map_err(|e| syntax_error(source, tokens, e))
}

/// Turns a LALRPOP error into a diagnostic with a readable list of what was expected.
fn syntax_error(source: SourceId, tokens: &[Token], error: LalrError) -> Diagnostic {
    match error {
        ParseError::User { error } => {
            Diagnostic::error(source, error.span, error.message).with_hint(error.hint)
        }
        ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => Diagnostic::error(
            source,
            Span::new(l, r),
            format!("syntax error: unexpected {}", describe(&tok)),
        )
        .with_label(expected_text(&expected))
        .with_hint("gpucc compiles a subset of C; see \"The accepted C subset\" in the README"),
        ParseError::ExtraToken { token: (l, tok, r) } => Diagnostic::error(
            source,
            Span::new(l, r),
            format!("syntax error: unexpected {}", describe(&tok)),
        ),
        ParseError::UnrecognizedEof { location, expected } => {
            let span = tokens
                .last()
                .map(|t| Span::new(t.span.end, t.span.end))
                .unwrap_or(Span::new(location, location));
            Diagnostic::error(source, span, "syntax error: unexpected end of input")
                .with_label(expected_text(&expected))
        }
        ParseError::InvalidToken { location } => Diagnostic::error(
            source,
            Span::new(location, location + 1),
            "syntax error: invalid token",
        ),
    }
}

/// How a token is named in a message.
pub fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Ident(name) => format!("identifier `{name}`"),
        Tok::Kw(k) => format!("keyword `{k}`"),
        Tok::Int(v) => format!("number `{v}`"),
        Tok::Float(v) => format!("number `{v}`"),
        Tok::Str(_) => "string literal".to_string(),
        Tok::Char(_) => "character literal".to_string(),
        Tok::Punct(p) => format!("`{p}`"),
        Tok::Directive(d) => format!("preprocessor line `#{d}`"),
        Tok::Error(what) => what.to_string(),
    }
}

fn expected_text(expected: &[String]) -> String {
    let mut names: Vec<String> = Vec::new();
    for e in expected {
        let name = match e.as_str() {
            "Ident" => "an identifier".to_string(),
            "IntLit" | "FloatLit" | "CharLit" => "a number".to_string(),
            "StrLit" => continue,
            quoted => format!("`{}`", quoted.trim_matches('"')),
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    match names.len() {
        0 => "not expected here".to_string(),
        1 => format!("expected {}", names[0]),
        2..=6 => format!("expected one of {}", names.join(", ")),
        _ => format!("expected one of {}, ...", names[..6].join(", ")),
    }
}
