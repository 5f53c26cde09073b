//! Macros: the table of definitions in effect (from the system preprocessor when it runs,
//! else from the file's own `#define` lines; `-D` always wins), and an expander that keeps
//! spans: every token a macro produces carries the span of the macro's use, so errors inside
//! an expansion point at the code the user wrote.

use crate::diag::Span;
use crate::frontend::lexer::{lex, Tok, Token};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::Command;

/// One `#define`.
#[derive(Clone, Debug)]
pub struct Macro {
    pub name: String,
    /// `None` for an object-like macro.
    pub params: Option<Vec<String>>,
    pub variadic: bool,
    pub body: Vec<Token>,
}

/// The macros in effect for the compiled unit.
#[derive(Clone, Debug, Default)]
pub struct MacroTable {
    macros: HashMap<String, Macro>,
}

/// Where the macro table came from.
#[derive(Clone, Debug, PartialEq)]
pub enum MacroSource {
    SystemPreprocessor,
    /// Only the file's own `#define` lines: the system preprocessor was not asked.
    FileOnly,
    /// Only the file's own `#define` lines: the system preprocessor failed (why).
    PreprocessorFailed(String),
}

impl MacroSource {
    /// A note for diagnostics when macros from headers may be missing.
    pub fn note(&self) -> Option<String> {
        match self {
            MacroSource::PreprocessorFailed(why) => Some(format!(
                "the C preprocessor failed ({why}), so macros from headers are unknown; pass -I DIR for missing headers"
            )),
            _ => None,
        }
    }
}

impl MacroTable {
    pub fn get(&self, name: &str) -> Option<&Macro> {
        self.macros.get(name)
    }

    pub fn insert(&mut self, m: Macro) {
        self.macros.insert(m.name.clone(), m);
    }

    /// Adds the definition in a `#define` directive's text (`define N 10`); other
    /// directives and malformed definitions are ignored.
    pub fn add_directive(&mut self, directive: &str) {
        if let Some(m) = parse_define(directive) {
            self.insert(m);
        }
    }

    /// Adds or replaces `NAME` with `VALUE` as `-D NAME=VALUE` does.
    pub fn define(&mut self, name: &str, value: &str) {
        self.add_directive(&format!("define {name} {value}"));
    }

    /// The value of an object-like macro whose expansion is an arithmetic constant
    /// (`N`, `(2 * M + 1)`, `1.5f`), for recipes that use the C file's constants.
    pub fn constant(&self, name: &str) -> Option<f64> {
        let m = self.get(name)?;
        if m.params.is_some() {
            return None;
        }
        let tokens = expand(&lex(name, 0), self).ok()?;
        let mut eval = ConstEval {
            tokens: &tokens,
            pos: 0,
        };
        let v = eval.sum()?;
        (eval.pos == tokens.len()).then_some(v)
    }

    /// The function-like macros of the table alone.
    pub fn function_like(&self) -> MacroTable {
        MacroTable {
            macros: self
                .macros
                .iter()
                .filter(|(_, m)| m.params.is_some())
                .map(|(k, m)| (k.clone(), m.clone()))
                .collect(),
        }
    }

    /// The names of all macros in the table.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.macros.keys().map(|s| s.as_str())
    }
}

/// Evaluates `+ - * / %`, parentheses, casts to arithmetic types and numbers.
struct ConstEval<'a> {
    tokens: &'a [Token],
    pos: usize,
}

impl ConstEval<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.pos).map(|t| &t.tok)
    }

    fn sum(&mut self) -> Option<f64> {
        let mut v = self.product()?;
        loop {
            match self.peek() {
                Some(Tok::Punct("+")) => {
                    self.pos += 1;
                    v += self.product()?;
                }
                Some(Tok::Punct("-")) => {
                    self.pos += 1;
                    v -= self.product()?;
                }
                _ => return Some(v),
            }
        }
    }

    fn product(&mut self) -> Option<f64> {
        let mut v = self.unary()?;
        loop {
            match self.peek() {
                Some(Tok::Punct("*")) => {
                    self.pos += 1;
                    v *= self.unary()?;
                }
                Some(Tok::Punct("/")) => {
                    self.pos += 1;
                    let d = self.unary()?;
                    // C's integer division truncates.
                    v = if v.fract() == 0.0 && d.fract() == 0.0 && d != 0.0 {
                        (v / d).trunc()
                    } else {
                        v / d
                    };
                }
                Some(Tok::Punct("%")) => {
                    self.pos += 1;
                    let d = self.unary()?;
                    v %= d;
                }
                _ => return Some(v),
            }
        }
    }

    fn unary(&mut self) -> Option<f64> {
        match self.peek()?.clone() {
            Tok::Punct("-") => {
                self.pos += 1;
                Some(-self.unary()?)
            }
            Tok::Punct("+") => {
                self.pos += 1;
                self.unary()
            }
            Tok::Punct("(") => {
                self.pos += 1;
                // A cast `(int)`, `(double)` or a parenthesised expression.
                if let Some(Tok::Kw(k)) = self.peek() {
                    if matches!(*k, "int" | "long" | "unsigned" | "float" | "double") {
                        while !matches!(self.peek(), Some(Tok::Punct(")")) | None) {
                            self.pos += 1;
                        }
                        self.pos += 1;
                        return self.unary();
                    }
                }
                let v = self.sum()?;
                (self.peek() == Some(&Tok::Punct(")"))).then(|| self.pos += 1)?;
                Some(v)
            }
            Tok::Int(v) => {
                self.pos += 1;
                Some(v as f64)
            }
            Tok::Float(text) => {
                self.pos += 1;
                text.trim_end_matches(['f', 'F', 'l', 'L']).parse().ok()
            }
            _ => None,
        }
    }
}

/// Parses the text of a `#define` directive (without the `#`).
pub fn parse_define(directive: &str) -> Option<Macro> {
    let rest = directive.strip_prefix("define")?;
    if !rest.starts_with(|c: char| c.is_whitespace()) {
        return None;
    }
    let tokens = lex(rest, 0);
    let (name, name_end) = match tokens.first() {
        Some(Token {
            tok: Tok::Ident(n),
            span,
            ..
        }) => (n.clone(), span.end),
        Some(Token {
            tok: Tok::Kw(k),
            span,
            ..
        }) => (k.to_string(), span.end),
        _ => return None,
    };
    let mut rest = &tokens[1..];
    let mut params = None;
    let mut variadic = false;
    // A function-like macro has `(` right after its name, with no space.
    if let Some(t) = rest.first() {
        if t.tok == Tok::Punct("(") && t.span.start == name_end {
            let close = rest.iter().position(|t| t.tok == Tok::Punct(")"))?;
            let mut names = Vec::new();
            for t in &rest[1..close] {
                match &t.tok {
                    Tok::Ident(p) => names.push(p.clone()),
                    Tok::Punct("...") => variadic = true,
                    Tok::Punct(",") => {}
                    _ => return None,
                }
            }
            params = Some(names);
            rest = &rest[close + 1..];
        }
    }
    Some(Macro {
        name,
        params,
        variadic,
        body: rest.to_vec(),
    })
}

/// Builds the macro table for a file: the system preprocessor's view (`cc -E -dM`, with the
/// command line's `-D` and `-I`) when it runs, else the file's own `#define` lines; then the
/// `-D` definitions on top, so that they win over the file's.
pub fn collect(
    path: Option<&Path>,
    file_tokens: &[Token],
    defines: &[(String, String)],
    include_dirs: &[std::path::PathBuf],
    use_system_preprocessor: bool,
) -> (MacroTable, MacroSource) {
    let mut table = MacroTable::default();
    let source = match (use_system_preprocessor, path) {
        (true, Some(path)) => match system_macros(path, defines, include_dirs) {
            Ok(text) => {
                for line in text.lines() {
                    if let Some(d) = line.strip_prefix('#') {
                        table.add_directive(d.trim_start());
                    }
                }
                MacroSource::SystemPreprocessor
            }
            Err(why) => MacroSource::PreprocessorFailed(why),
        },
        _ => MacroSource::FileOnly,
    };
    if source != MacroSource::SystemPreprocessor {
        for t in file_tokens {
            if let Tok::Directive(d) = &t.tok {
                table.add_directive(d);
            }
        }
    }
    for (name, value) in defines {
        table.define(name, value);
    }
    (table, source)
}

fn system_macros(
    path: &Path,
    defines: &[(String, String)],
    include_dirs: &[std::path::PathBuf],
) -> Result<String, String> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let mut cmd = Command::new(&cc);
    cmd.args(["-E", "-dM", "-x", "c"]);
    for (n, v) in defines {
        cmd.arg(format!("-D{n}={v}"));
    }
    for dir in include_dirs {
        cmd.arg("-I").arg(dir);
    }
    cmd.arg(path);
    let out = cmd
        .output()
        .map_err(|e| format!("could not run `{cc}`: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let first = err
            .lines()
            .find(|l| l.contains("error"))
            .unwrap_or("")
            .trim();
        return Err(format!("`{cc} -E` failed: {first}"));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The file's text with `-D NAME=VALUE` applied as gpucc applies it (the command line
/// wins over the file): each `#define NAME` line of the file becomes `#define NAME VALUE`;
/// names the file does not define are defined at the top. Generated files and the
/// reference build of a check use it, so that they agree with what gpucc compiled.
pub fn apply_defines(text: &str, defines: &[(String, String)]) -> String {
    if defines.is_empty() {
        return text.to_string();
    }
    let Defined { mut top, edits } = define_edits(text, defines);
    let mut at = 0;
    for (start, end, replacement) in edits {
        top.push_str(&text[at..start]);
        top.push_str(&replacement);
        at = end;
    }
    top.push_str(&text[at..]);
    top
}

/// What [`apply_defines`] does to a text: the lines it puts first, and its replacements
/// of the text's `#define`s (start, end, new text), in the text's order.
pub struct Defined {
    pub top: String,
    pub edits: Vec<(usize, usize, String)>,
}

/// [`apply_defines`]'s changes to `text`, for a caller that makes other edits too.
pub fn define_edits(text: &str, defines: &[(String, String)]) -> Defined {
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut found = vec![false; defines.len()];
    for t in lex(text, 0) {
        let Tok::Directive(d) = &t.tok else { continue };
        let Some(m) = parse_define(d) else { continue };
        // The last -D of a name wins, as on a compiler's command line.
        if let Some(k) = defines.iter().rposition(|(n, _)| *n == m.name) {
            found[k] = true;
            let (name, value) = &defines[k];
            edits.push((
                t.span.start,
                t.span.end,
                format!("#define {name} {value} /* gpucc: -D {name}={value} */"),
            ));
        }
    }
    let mut top = String::new();
    for (k, (name, value)) in defines.iter().enumerate() {
        let last = defines.iter().rposition(|(n, _)| n == name) == Some(k);
        if last
            && !defines
                .iter()
                .enumerate()
                .any(|(j, (n, _))| n == name && found[j])
        {
            top.push_str(&format!(
                "#define {name} {value} /* gpucc: -D {name}={value} */\n"
            ));
        }
    }
    Defined { top, edits }
}

/// Whether `text` has a `#define` line: [`define_edits`] of a text made by adding `text`
/// to another is that other's only where it has none.
pub fn has_define_line(text: &str) -> bool {
    text.lines().any(|line| {
        line.trim_start()
            .strip_prefix('#')
            .is_some_and(|rest| rest.trim_start().starts_with("define"))
    })
}

/// An error during expansion (runaway recursion, a malformed call), at the macro's use.
#[derive(Clone, Debug, PartialEq)]
pub struct ExpandError {
    pub span: Span,
    pub message: String,
}

const MAX_DEPTH: usize = 64;
const MAX_TOKENS: usize = 1_000_000;

/// Expands every macro use in `tokens`.
pub fn expand(tokens: &[Token], table: &MacroTable) -> Result<Vec<Token>, ExpandError> {
    let mut out = Vec::with_capacity(tokens.len());
    let mut active = HashSet::new();
    expand_into(tokens, table, &mut active, 0, None, &mut out)?;
    Ok(out)
}

fn expand_into(
    tokens: &[Token],
    table: &MacroTable,
    active: &mut HashSet<String>,
    depth: usize,
    use_span: Option<Span>,
    out: &mut Vec<Token>,
) -> Result<(), ExpandError> {
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        let span = use_span.unwrap_or(t.span);
        let name = match &t.tok {
            Tok::Ident(n) => n,
            _ => {
                out.push(Token { span, ..t.clone() });
                i += 1;
                continue;
            }
        };
        let m = match table.get(name) {
            Some(m) if !active.contains(name) => m,
            _ => {
                out.push(Token { span, ..t.clone() });
                i += 1;
                continue;
            }
        };
        if depth >= MAX_DEPTH {
            return Err(ExpandError {
                span,
                message: format!(
                    "macro `{name}` expands too deeply (more than {MAX_DEPTH} levels)"
                ),
            });
        }
        let (replacement, consumed, call_span) = match &m.params {
            None => (m.body.clone(), 1, t.span),
            Some(params) => {
                if tokens.get(i + 1).map(|t| &t.tok) != Some(&Tok::Punct("(")) {
                    // A function-like macro's name without arguments is an ordinary name.
                    out.push(Token { span, ..t.clone() });
                    i += 1;
                    continue;
                }
                let (args, end) = split_arguments(tokens, i + 1, span)?;
                let call_span = t.span.to(tokens[end].span);
                let args = if params.is_empty() && args.len() == 1 && args[0].is_empty() {
                    Vec::new()
                } else {
                    args
                };
                if args.len() != params.len() && !(m.variadic && args.len() >= params.len()) {
                    return Err(ExpandError {
                        span: use_span.unwrap_or(call_span),
                        message: format!(
                            "macro `{name}` takes {} argument(s) but {} were given",
                            params.len(),
                            args.len()
                        ),
                    });
                }
                let body = substitute(m, params, &args, table, active, depth)?;
                (body, end - i + 1, call_span)
            }
        };
        active.insert(name.clone());
        let inner_span = Some(use_span.unwrap_or(call_span));
        expand_into(&replacement, table, active, depth + 1, inner_span, out)?;
        active.remove(name);
        if out.len() > MAX_TOKENS {
            return Err(ExpandError {
                span,
                message: format!("macro expansion produces more than {MAX_TOKENS} tokens"),
            });
        }
        i += consumed;
    }
    Ok(())
}

/// Splits `( a, (b, c), d )` starting at `open` into argument token lists; returns them
/// with the index of the closing parenthesis.
fn split_arguments(
    tokens: &[Token],
    open: usize,
    span: Span,
) -> Result<(Vec<Vec<Token>>, usize), ExpandError> {
    let mut args = vec![Vec::new()];
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(open + 1) {
        match t.tok {
            Tok::Punct("(") => depth += 1,
            Tok::Punct(")") if depth == 0 => return Ok((args, k)),
            Tok::Punct(")") => depth -= 1,
            Tok::Punct(",") if depth == 0 => {
                args.push(Vec::new());
                continue;
            }
            _ => {}
        }
        args.last_mut()
            .expect("args starts non-empty")
            .push(t.clone());
    }
    Err(ExpandError {
        span,
        message: "unterminated macro argument list".into(),
    })
}

/// The body of a function-like macro with its arguments substituted: fully expanded
/// arguments for plain uses, unexpanded ones around `#` and `##`.
fn substitute(
    m: &Macro,
    params: &[String],
    args: &[Vec<Token>],
    table: &MacroTable,
    active: &mut HashSet<String>,
    depth: usize,
) -> Result<Vec<Token>, ExpandError> {
    let arg_of = |tok: &Tok| -> Option<&[Token]> {
        match tok {
            Tok::Ident(n) if n == "__VA_ARGS__" && m.variadic => {
                Some(args.get(params.len()).map(|a| a.as_slice()).unwrap_or(&[]))
            }
            Tok::Ident(n) => params
                .iter()
                .position(|p| p == n)
                .map(|k| args[k].as_slice()),
            _ => None,
        }
    };
    let body = &m.body;
    let mut out: Vec<Token> = Vec::new();
    let mut k = 0;
    while k < body.len() {
        let t = &body[k];
        let next_is_paste = body.get(k + 1).map(|t| &t.tok) == Some(&Tok::Punct("##"));
        let prev_is_paste = k > 0 && body[k - 1].tok == Tok::Punct("##");
        if t.tok == Tok::Punct("#") {
            if let Some(arg) = body.get(k + 1).and_then(|n| arg_of(&n.tok)) {
                let text: Vec<String> = arg.iter().map(token_text).collect();
                out.push(Token {
                    tok: Tok::Str(text.join(" ")),
                    ..t.clone()
                });
                k += 2;
                continue;
            }
        }
        if t.tok == Tok::Punct("##") {
            // Paste the last output token with the next body token (or argument).
            let next = body.get(k + 1);
            let right: Vec<Token> = match next {
                Some(n) => arg_of(&n.tok)
                    .map(|a| a.to_vec())
                    .unwrap_or_else(|| vec![n.clone()]),
                None => Vec::new(),
            };
            if let (Some(left), Some(first)) = (out.pop(), right.first()) {
                let pasted = format!("{}{}", token_text(&left), token_text(first));
                let mut relexed = lex(&pasted, 0);
                for r in &mut relexed {
                    r.span = left.span;
                }
                out.extend(relexed);
                out.extend(right[1..].iter().cloned());
            }
            k += 2;
            continue;
        }
        match arg_of(&t.tok) {
            Some(arg) if next_is_paste || prev_is_paste => out.extend(arg.iter().cloned()),
            Some(arg) => {
                let mut expanded = Vec::new();
                expand_into(arg, table, active, depth + 1, None, &mut expanded)?;
                out.extend(expanded);
            }
            None => out.push(t.clone()),
        }
        k += 1;
    }
    Ok(out)
}

/// The text of a token, for `#` and `##`.
pub fn token_text(t: &Token) -> String {
    match &t.tok {
        Tok::Ident(s) | Tok::Float(s) => s.clone(),
        Tok::Kw(k) | Tok::Punct(k) => k.to_string(),
        Tok::Int(v) | Tok::Char(v) => v.to_string(),
        Tok::Str(s) => format!("\"{s}\""),
        Tok::Directive(d) => format!("#{d}"),
        Tok::Error(_) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand_text(defs: &[&str], src: &str) -> String {
        let mut table = MacroTable::default();
        for d in defs {
            table.add_directive(d);
        }
        expand(&lex(src, 0), &table)
            .unwrap()
            .iter()
            .map(token_text)
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn object_and_function_like() {
        assert_eq!(
            expand_text(&["define N 10", "define M (N+1)"], "A[M]"),
            "A [ ( 10 + 1 ) ]"
        );
        assert_eq!(
            expand_text(&["define SQ(x) ((x)*(x))"], "SQ(a+1) SQ"),
            "( ( a + 1 ) * ( a + 1 ) ) SQ"
        );
    }

    #[test]
    fn polybench_style() {
        let defs = [
            "define POLYBENCH_C99_SELECT(x,y) x",
            "define POLYBENCH_PADDING_FACTOR 0",
            "define POLYBENCH_2D(var, dim1, dim2, ddim1, ddim2) var[POLYBENCH_C99_SELECT(dim1, ddim1) + POLYBENCH_PADDING_FACTOR][POLYBENCH_C99_SELECT(dim2, ddim2) + POLYBENCH_PADDING_FACTOR]",
            "define SCALAR_VAL(x) x##f",
            "define N 64",
        ];
        assert_eq!(
            expand_text(&defs, "POLYBENCH_2D(A,N,N,n,n) SCALAR_VAL(1.5)"),
            "A [ 64 + 0 ] [ 64 + 0 ] 1.5f"
        );
    }

    #[test]
    fn self_reference_stops_and_spans_point_at_use() {
        assert_eq!(expand_text(&["define X X+1"], "X"), "X + 1");
        let mut table = MacroTable::default();
        table.add_directive("define N 10");
        let out = expand(&lex("a N", 0), &table).unwrap();
        assert_eq!(out[1].span, Span::new(2, 3));
    }

    #[test]
    fn command_line_defines_replace_the_files() {
        let text = "#define N 128\n#ifndef M\n#define M 7\n#endif\nint x;\n";
        let out = apply_defines(
            text,
            &[("N".into(), "100".into()), ("Q".into(), "1".into())],
        );
        assert_eq!(
            out,
            "#define Q 1 /* gpucc: -D Q=1 */\n#define N 100 /* gpucc: -D N=100 */\n#ifndef M\n#define M 7\n#endif\nint x;\n"
        );
    }

    #[test]
    fn the_defines_edits_are_what_apply_defines_makes_of_the_text() {
        let text = "int a;\n  #  define N 128\n#pragma unroll\nint define;\n";
        let defines = [("N".to_string(), "64".to_string())];
        let d = define_edits(text, &defines);
        assert_eq!(d.top, "");
        assert_eq!(d.edits.len(), 1);
        let (start, end, new) = &d.edits[0];
        let edited = format!("{}{new}{}", &text[..*start], &text[*end..]);
        assert_eq!(edited, apply_defines(text, &defines));
        // Only a directive line is a `#define` line.
        assert!(has_define_line(text));
        assert!(!has_define_line(
            "#pragma unroll\nint define;\n// #define\n"
        ));
    }

    #[test]
    fn constants_for_recipes() {
        let mut table = MacroTable::default();
        for d in [
            "define N 1024",
            "define M (N/3 + 1)",
            "define F 1.5f",
            "define G(x) x",
            "define S \"s\"",
        ] {
            table.add_directive(d);
        }
        assert_eq!(table.constant("N"), Some(1024.0));
        assert_eq!(table.constant("M"), Some(342.0));
        assert_eq!(table.constant("F"), Some(1.5));
        assert_eq!(table.constant("G"), None);
        assert_eq!(table.constant("S"), None);
    }

    #[test]
    fn runaway_expansion_is_an_error() {
        let mut table = MacroTable::default();
        for k in 0..40 {
            table.add_directive(&format!("define M{k} M{} M{}", k + 1, k + 1));
        }
        assert!(expand(&lex("M0", 0), &table).is_err());
        let mut table = MacroTable::default();
        table.add_directive("define F(x) x");
        assert!(expand(&lex("F(1", 0), &table).is_err());
    }
}
