//! The file scan: finds, in the tokens of a whole C file, the function definitions, the
//! `#pragma scop` regions, the scalar `typedef`s and the file-scope declarations, without
//! parsing anything else. What gpucc does not compile may be any C; the scan only needs the
//! braces and parentheses to balance where it looks.

use crate::diag::Span;
use crate::frontend::lexer::{Tok, Token};
use std::collections::HashMap;
use std::ops::Range;

/// A function definition, by token indices into the file's tokens.
#[derive(Clone, Debug)]
pub struct FunctionOutline {
    pub name: String,
    pub name_span: Span,
    /// The first token of the definition (its return type).
    pub start: usize,
    pub lparen: usize,
    pub rparen: usize,
    pub lbrace: usize,
    /// The closing brace (or the last token, when the file ends first).
    pub rbrace: usize,
}

/// A `#pragma scop` ... `#pragma endscop` region.
#[derive(Clone, Debug)]
pub struct ScopOutline {
    /// The `#pragma scop` directive token.
    pub begin: usize,
    /// The `#pragma endscop` directive token.
    pub end: usize,
    /// The function it is in (index into [`Outline::functions`]).
    pub function: Option<usize>,
}

/// What the scan found.
#[derive(Clone, Debug, Default)]
pub struct Outline {
    pub functions: Vec<FunctionOutline>,
    pub scops: Vec<ScopOutline>,
    /// `typedef float real;` gives `real` → the tokens `float`.
    pub typedefs: HashMap<String, Vec<Token>>,
    /// Token ranges of file-scope declarations, each ending with its `;`.
    pub declarations: Vec<Range<usize>>,
    /// Unbalanced `#pragma scop`/`endscop` lines, with what is wrong.
    pub pragma_errors: Vec<(Span, String)>,
}

/// Which pragma a directive is, if any.
fn scop_pragma(tok: &Tok) -> Option<bool> {
    if let Tok::Directive(d) = tok {
        let words: Vec<&str> = d.split_whitespace().collect();
        match words.as_slice() {
            ["pragma", "scop"] => return Some(true),
            ["pragma", "endscop"] => return Some(false),
            _ => {}
        }
    }
    None
}

/// Scans the tokens of a whole file.
pub fn scan(tokens: &[Token]) -> Outline {
    let mut outline = Outline::default();
    let mut decl_start = 0;
    let mut parens: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i].tok {
            Tok::Directive(_) => {
                if scop_pragma(&tokens[i].tok).is_some() {
                    outline
                        .pragma_errors
                        .push((tokens[i].span, "`#pragma scop` outside a function".into()));
                }
                decl_start = i + 1;
            }
            Tok::Punct("(") => parens.push(i),
            Tok::Punct(")") => {
                parens.pop();
            }
            Tok::Punct(";") if parens.is_empty() => {
                record_declaration(&mut outline, tokens, decl_start..i + 1);
                decl_start = i + 1;
            }
            Tok::Punct("{") => {
                let close = matching_brace(tokens, i);
                if let Some(f) = function_at(tokens, decl_start, i, close) {
                    scan_body(&mut outline, tokens, &f);
                    outline.functions.push(f);
                    decl_start = close + 1;
                    parens.clear();
                }
                i = close;
            }
            _ => {}
        }
        i += 1;
    }
    outline
}

/// The index of the `}` matching the `{` at `open`, or the last token.
fn matching_brace(tokens: &[Token], open: usize) -> usize {
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(open) {
        match t.tok {
            Tok::Punct("{") => depth += 1,
            Tok::Punct("}") => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    tokens.len() - 1
}

/// A function definition if the `{` at `lbrace` opens one: `... name ( ... ) {`.
fn function_at(
    tokens: &[Token],
    start: usize,
    lbrace: usize,
    rbrace: usize,
) -> Option<FunctionOutline> {
    let rparen = lbrace.checked_sub(1)?;
    if tokens[rparen].tok != Tok::Punct(")") || rparen <= start {
        return None;
    }
    let mut depth = 0usize;
    let mut lparen = None;
    for k in (start..=rparen).rev() {
        match tokens[k].tok {
            Tok::Punct(")") => depth += 1,
            Tok::Punct("(") => {
                depth -= 1;
                if depth == 0 {
                    lparen = Some(k);
                    break;
                }
            }
            _ => {}
        }
    }
    let lparen = lparen?;
    let name_tok = lparen.checked_sub(1).filter(|k| *k >= start)?;
    let Tok::Ident(name) = &tokens[name_tok].tok else {
        return None;
    };
    Some(FunctionOutline {
        name: name.clone(),
        name_span: tokens[name_tok].span,
        start,
        lparen,
        rparen,
        lbrace,
        rbrace,
    })
}

/// Finds the scop regions of a function body.
fn scan_body(outline: &mut Outline, tokens: &[Token], f: &FunctionOutline) {
    let function = Some(outline.functions.len());
    let mut open: Option<usize> = None;
    for (k, token) in tokens.iter().enumerate().take(f.rbrace + 1).skip(f.lbrace) {
        match (scop_pragma(&token.tok), open) {
            (Some(true), None) => open = Some(k),
            (Some(true), Some(_)) => outline.pragma_errors.push((
                token.span,
                "`#pragma scop` inside another scop region".into(),
            )),
            (Some(false), Some(begin)) => {
                outline.scops.push(ScopOutline {
                    begin,
                    end: k,
                    function,
                });
                open = None;
            }
            (Some(false), None) => outline.pragma_errors.push((
                token.span,
                "`#pragma endscop` without a `#pragma scop` before it".into(),
            )),
            (None, _) => {}
        }
    }
    if let Some(begin) = open {
        outline.pragma_errors.push((
            tokens[begin].span,
            "`#pragma scop` without a `#pragma endscop` in the same function".into(),
        ));
    }
}

fn record_declaration(outline: &mut Outline, tokens: &[Token], range: Range<usize>) {
    let decl = &tokens[range.clone()];
    if decl.first().map(|t| &t.tok) == Some(&Tok::Kw("typedef")) && decl.len() >= 4 {
        let words = &decl[1..decl.len() - 2];
        if let Tok::Ident(name) = &decl[decl.len() - 2].tok {
            if words.iter().all(|t| matches!(t.tok, Tok::Kw(_))) {
                outline.typedefs.insert(name.clone(), words.to_vec());
            }
        }
        return;
    }
    if range.len() > 1 {
        outline.declarations.push(range);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::lexer::lex;

    #[test]
    fn finds_functions_regions_typedefs() {
        let src = "#include <stdio.h>\ntypedef double real;\nstruct s { int a; };\nint g[4] = {1,2};\n\
                   static void k(int n, real A[n]) {\n#pragma scop\n for(;;) ; \n#pragma endscop\n}\n\
                   int main(void) { if (1) { k(1, 0); } return 0; }\n";
        let tokens = lex(src, 0);
        let o = scan(&tokens);
        let names: Vec<_> = o.functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["k", "main"]);
        assert_eq!(o.scops.len(), 1);
        assert_eq!(o.scops[0].function, Some(0));
        assert!(o.typedefs.contains_key("real"));
        assert_eq!(o.declarations.len(), 2, "struct s and g");
        assert!(o.pragma_errors.is_empty());
    }

    #[test]
    fn unbalanced_input_does_not_panic() {
        for src in [
            "{",
            "}",
            "f() {",
            ")(){",
            "#pragma endscop",
            "void f() {\n#pragma scop\n}",
        ] {
            let _ = scan(&lex(src, 0));
        }
        let o = scan(&lex("void f() {\n#pragma scop\n}", 0));
        assert_eq!(o.pragma_errors.len(), 1);
    }
}
