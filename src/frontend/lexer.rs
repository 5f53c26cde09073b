//! The C tokenizer. It never fails: what it cannot read becomes a [`Tok::Error`] token, so
//! that the file scan can pass over text gpucc does not compile, and the parser reports a
//! lexical error only where it matters (inside the compiled unit).

use crate::diag::Span;

/// A C token. Keywords and punctuators are interned as static strings so that grammar
/// patterns read like C (`Tok::Punct("+=")`).
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Ident(String),
    Kw(&'static str),
    Int(i64),
    /// A floating literal as written (`1.5f`, `2e-3`), so it can be emitted unchanged.
    Float(String),
    Str(String),
    Char(i64),
    Punct(&'static str),
    /// A preprocessor line without its `#`, continuation lines joined.
    Directive(String),
    /// Text the lexer cannot read, with the reason.
    Error(&'static str),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
    /// Whether white space (or a comment) precedes the token; kept for macro stringizing
    /// and for function-like macro definitions (`#define F(x)` versus `#define F (x)`).
    pub space_before: bool,
}

pub const KEYWORDS: &[&str] = &[
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "_Bool",
    "__restrict",
    "__restrict__",
    "__inline",
    "__inline__",
];

/// Longest first, so that the lexer can take the first match.
const PUNCTUATORS: &[&str] = &[
    "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=",
    "-=", "*=", "/=", "%=", "&=", "^=", "|=", "##", "[", "]", "(", ")", "{", "}", ".", "&", "*",
    "+", "-", "~", "!", "/", "%", "<", ">", "^", "|", "?", ":", ";", "=", ",", "#",
];

/// Tokenizes `text`, whose first byte is at offset `base` of its file.
pub fn lex(text: &str, base: usize) -> Vec<Token> {
    Lexer {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        base,
        at_line_start: true,
        tokens: Vec::new(),
    }
    .run()
}

struct Lexer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    base: usize,
    at_line_start: bool,
    tokens: Vec<Token>,
}

impl Lexer<'_> {
    fn run(mut self) -> Vec<Token> {
        let mut space_before = false;
        while self.pos < self.bytes.len() {
            let c = self.bytes[self.pos];
            if c == b'\n' {
                self.pos += 1;
                self.at_line_start = true;
                space_before = true;
                continue;
            }
            if c.is_ascii_whitespace() {
                self.pos += 1;
                space_before = true;
                continue;
            }
            if c == b'\\' && self.peek(1) == Some(b'\n') {
                self.pos += 2;
                continue;
            }
            if c == b'/' && self.peek(1) == Some(b'/') {
                self.skip_line_comment();
                space_before = true;
                continue;
            }
            if c == b'/' && self.peek(1) == Some(b'*') {
                let start = self.pos;
                if !self.skip_block_comment() {
                    self.push(start, Tok::Error("unterminated comment"), true);
                }
                space_before = true;
                continue;
            }
            let start = self.pos;
            let tok = if c == b'#' && self.at_line_start {
                self.directive()
            } else if c.is_ascii_alphabetic() || c == b'_' {
                self.word()
            } else if c.is_ascii_digit()
                || (c == b'.' && self.peek(1).is_some_and(|d| d.is_ascii_digit()))
            {
                self.number()
            } else if c == b'"' {
                self.string()
            } else if c == b'\'' {
                self.char_literal()
            } else if let Some(p) = PUNCTUATORS
                .iter()
                .find(|p| self.text[self.pos..].starts_with(**p))
            {
                self.pos += p.len();
                Tok::Punct(p)
            } else {
                let ch = self.text[self.pos..].chars().next().unwrap_or('\0');
                self.pos += ch.len_utf8().max(1);
                Tok::Error("unexpected character")
            };
            self.at_line_start = false;
            self.push(start, tok, space_before);
            space_before = false;
        }
        self.tokens
    }

    fn peek(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.pos + ahead).copied()
    }

    fn push(&mut self, start: usize, tok: Tok, space_before: bool) {
        self.tokens.push(Token {
            tok,
            span: Span::new(self.base + start, self.base + self.pos),
            space_before,
        });
    }

    fn skip_line_comment(&mut self) {
        while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
            self.pos += 1;
        }
    }

    /// Skips a `/* */` comment; false if it does not end.
    fn skip_block_comment(&mut self) -> bool {
        match self.text[self.pos + 2..].find("*/") {
            Some(end) => {
                self.pos += 2 + end + 2;
                true
            }
            None => {
                self.pos = self.bytes.len();
                false
            }
        }
    }

    fn directive(&mut self) -> Tok {
        self.pos += 1;
        let mut text = String::new();
        while self.pos < self.bytes.len() {
            let c = self.bytes[self.pos];
            if c == b'\\' && self.peek(1) == Some(b'\n') {
                self.pos += 2;
                text.push(' ');
            } else if c == b'\\' && self.peek(1) == Some(b'\r') && self.peek(2) == Some(b'\n') {
                self.pos += 3;
                text.push(' ');
            } else if c == b'\n' {
                break;
            } else if c == b'/' && self.peek(1) == Some(b'*') {
                if !self.skip_block_comment() {
                    break;
                }
                text.push(' ');
            } else if c == b'/' && self.peek(1) == Some(b'/') {
                self.skip_line_comment();
            } else {
                let ch = self.text[self.pos..].chars().next().unwrap_or(' ');
                text.push(ch);
                self.pos += ch.len_utf8();
            }
        }
        Tok::Directive(text.trim().to_string())
    }

    fn word(&mut self) -> Tok {
        let start = self.pos;
        while self.pos < self.bytes.len()
            && (self.bytes[self.pos].is_ascii_alphanumeric() || self.bytes[self.pos] == b'_')
        {
            self.pos += 1;
        }
        let word = &self.text[start..self.pos];
        match KEYWORDS.iter().find(|k| **k == word) {
            Some(k) => Tok::Kw(k),
            None => Tok::Ident(word.to_string()),
        }
    }

    fn number(&mut self) -> Tok {
        let start = self.pos;
        let is_hex = self.bytes[self.pos] == b'0' && matches!(self.peek(1), Some(b'x' | b'X'));
        if is_hex {
            self.pos += 2;
        }
        let mut is_float = false;
        while let Some(c) = self.peek(0) {
            let exponent = if is_hex { b"pP" } else { b"eE" };
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' {
                if c == b'.' || exponent.contains(&c) {
                    is_float = true;
                }
                self.pos += 1;
                if exponent.contains(&c) && matches!(self.peek(0), Some(b'+' | b'-')) {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
        let text = &self.text[start..self.pos];
        if is_float {
            let body = text.trim_end_matches(['f', 'F', 'l', 'L']);
            if body.parse::<f64>().is_ok() || is_hex {
                Tok::Float(text.to_string())
            } else {
                Tok::Error("malformed floating-point literal")
            }
        } else {
            let body = text.trim_end_matches(['u', 'U', 'l', 'L']);
            let (digits, radix) = if is_hex {
                (&body[2..], 16)
            } else if body.len() > 1 && body.starts_with('0') {
                (&body[1..], 8)
            } else {
                (body, 10)
            };
            let well_formed = !digits.is_empty() && digits.chars().all(|c| c.is_digit(radix));
            match i64::from_str_radix(digits, radix) {
                Ok(v) if well_formed => Tok::Int(v),
                _ if well_formed => Tok::Error("integer literal too large"),
                _ => Tok::Error("malformed integer literal"),
            }
        }
    }

    fn string(&mut self) -> Tok {
        self.pos += 1;
        let start = self.pos;
        while let Some(c) = self.peek(0) {
            match c {
                b'\\' => self.pos += 2,
                b'"' => {
                    let s = self.text.get(start..self.pos).unwrap_or("").to_string();
                    self.pos += 1;
                    return Tok::Str(s);
                }
                b'\n' => break,
                _ => self.pos += 1,
            }
        }
        self.pos = self.pos.min(self.bytes.len());
        Tok::Error("unterminated string literal")
    }

    fn char_literal(&mut self) -> Tok {
        self.pos += 1;
        let start = self.pos;
        while let Some(c) = self.peek(0) {
            match c {
                b'\\' => self.pos += 2,
                b'\'' => {
                    let body = self.text.get(start..self.pos).unwrap_or("");
                    self.pos += 1;
                    let value = match body.as_bytes() {
                        [c] => *c as i64,
                        [b'\\', b'n'] => 10,
                        [b'\\', b't'] => 9,
                        [b'\\', b'0'] => 0,
                        [b'\\', c] => *c as i64,
                        _ => return Tok::Error("unsupported character literal"),
                    };
                    return Tok::Char(value);
                }
                b'\n' => break,
                _ => self.pos += 1,
            }
        }
        self.pos = self.pos.min(self.bytes.len());
        Tok::Error("unterminated character literal")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s, 0).into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn numbers_keywords_punctuators() {
        assert_eq!(
            toks("for (int i = 0x10; i <= 1.5e3f; i += 2) a[i] >>= 1;"),
            vec![
                Tok::Kw("for"),
                Tok::Punct("("),
                Tok::Kw("int"),
                Tok::Ident("i".into()),
                Tok::Punct("="),
                Tok::Int(16),
                Tok::Punct(";"),
                Tok::Ident("i".into()),
                Tok::Punct("<="),
                Tok::Float("1.5e3f".into()),
                Tok::Punct(";"),
                Tok::Ident("i".into()),
                Tok::Punct("+="),
                Tok::Int(2),
                Tok::Punct(")"),
                Tok::Ident("a".into()),
                Tok::Punct("["),
                Tok::Ident("i".into()),
                Tok::Punct("]"),
                Tok::Punct(">>="),
                Tok::Int(1),
                Tok::Punct(";"),
            ]
        );
    }

    #[test]
    fn directives_comments_and_spans() {
        let ts = lex("#define N \\\n 10 // c\n/* x */ n", 0);
        assert_eq!(ts[0].tok, Tok::Directive("define N   10".into()));
        assert_eq!(ts[1].tok, Tok::Ident("n".into()));
        assert_eq!(ts[1].span, Span::new(29, 30));
        // `#` not at the start of a line is a punctuator (stringizing in macro bodies).
        assert_eq!(toks("a # b")[1], Tok::Punct("#"));
    }

    #[test]
    fn never_fails_on_garbage() {
        for s in [
            "/* open",
            "\"open",
            "'x",
            "0x",
            "1e+",
            "@`$",
            "\u{0}\u{7f}",
            "99999999999999999999",
        ] {
            let _ = lex(s, 0);
        }
        assert_eq!(
            toks("99999999999999999999"),
            vec![Tok::Error("integer literal too large")]
        );
    }
}
