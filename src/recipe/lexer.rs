//! Tokens of the recipe language (a Lua subset): names, numbers, strings (`"..."`,
//! `'...'`, `[[...]]`), punctuation, keywords, `--` and `--[[ ]]` comments.

use crate::diag::Span;

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Name(String),
    Number(f64),
    Str(String),
    Kw(&'static str),
    Punct(&'static str),
    /// Text that is not a token, with the reason.
    Error(&'static str),
}

pub const KEYWORDS: &[&str] = &[
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
    "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
];

const PUNCTUATORS: &[&str] = &[
    "...", "==", "~=", "<=", ">=", "//", "..", "::", "+", "-", "*", "/", "%", "^", "#", "<", ">",
    "=", "(", ")", "{", "}", "[", "]", ";", ":", ",", ".",
];

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
}

/// Tokenizes a recipe; never fails (unreadable text becomes [`Tok::Error`]).
pub fn lex(text: &str) -> Vec<Token> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let c = bytes[pos];
        if c.is_ascii_whitespace() {
            pos += 1;
            continue;
        }
        let start = pos;
        if text[pos..].starts_with("--") {
            pos += 2;
            if let Some(level) = long_bracket(&text[pos..]) {
                let close = format!("]{}]", "=".repeat(level));
                match text[pos..].find(&close) {
                    Some(k) => pos += k + close.len(),
                    None => {
                        out.push(Token {
                            tok: Tok::Error("unterminated comment"),
                            span: Span::new(start, bytes.len()),
                        });
                        break;
                    }
                }
            } else {
                while pos < bytes.len() && bytes[pos] != b'\n' {
                    pos += 1;
                }
            }
            continue;
        }
        let tok = if c.is_ascii_alphabetic() || c == b'_' {
            while pos < bytes.len() && (bytes[pos].is_ascii_alphanumeric() || bytes[pos] == b'_') {
                pos += 1;
            }
            let word = &text[start..pos];
            match KEYWORDS.iter().find(|k| **k == word) {
                Some(k) => Tok::Kw(k),
                None => Tok::Name(word.to_string()),
            }
        } else if c.is_ascii_digit()
            || (c == b'.' && bytes.get(pos + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let hex = text[pos..].starts_with("0x") || text[pos..].starts_with("0X");
            if hex {
                pos += 2;
            }
            while pos < bytes.len() {
                let d = bytes[pos];
                let exponent = if hex {
                    d == b'p' || d == b'P'
                } else {
                    d == b'e' || d == b'E'
                };
                if d.is_ascii_alphanumeric() || d == b'.' {
                    pos += 1;
                    if exponent && matches!(bytes.get(pos), Some(b'+' | b'-')) {
                        pos += 1;
                    }
                } else {
                    break;
                }
            }
            let word = &text[start..pos];
            let value = if hex {
                i64::from_str_radix(&word[2..], 16).ok().map(|v| v as f64)
            } else {
                word.parse::<f64>().ok()
            };
            match value {
                Some(v) => Tok::Number(v),
                None => Tok::Error("malformed number"),
            }
        } else if c == b'"' || c == b'\'' {
            pos += 1;
            let mut s = String::new();
            let mut closed = false;
            while pos < bytes.len() {
                let d = bytes[pos];
                if d == c {
                    pos += 1;
                    closed = true;
                    break;
                }
                if d == b'\n' {
                    break;
                }
                if d == b'\\' && pos + 1 < bytes.len() {
                    let e = bytes[pos + 1];
                    s.push(match e {
                        b'n' => '\n',
                        b't' => '\t',
                        other => other as char,
                    });
                    pos += 2;
                    continue;
                }
                let ch = text[pos..].chars().next().unwrap_or(' ');
                s.push(ch);
                pos += ch.len_utf8();
            }
            if closed {
                Tok::Str(s)
            } else {
                Tok::Error("unterminated string")
            }
        } else if let Some(level) = long_bracket(&text[pos..]) {
            let open_len = level + 2;
            let close = format!("]{}]", "=".repeat(level));
            match text[pos + open_len..].find(&close) {
                Some(k) => {
                    let body = &text[pos + open_len..pos + open_len + k];
                    pos += open_len + k + close.len();
                    Tok::Str(body.strip_prefix('\n').unwrap_or(body).to_string())
                }
                None => {
                    pos = bytes.len();
                    Tok::Error("unterminated long string")
                }
            }
        } else if let Some(p) = PUNCTUATORS.iter().find(|p| text[pos..].starts_with(**p)) {
            pos += p.len();
            Tok::Punct(p)
        } else {
            let ch = text[pos..].chars().next().unwrap_or(' ');
            pos += ch.len_utf8().max(1);
            Tok::Error("unexpected character")
        };
        out.push(Token {
            tok,
            span: Span::new(start, pos),
        });
    }
    out
}

/// The level of a long bracket `[[` or `[==[` at the start of `s`.
fn long_bracket(s: &str) -> Option<usize> {
    let rest = s.strip_prefix('[')?;
    let level = rest.chars().take_while(|c| *c == '=').count();
    rest[level..].starts_with('[').then_some(level)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn recipe_tokens() {
        assert_eq!(
            toks("TI = 16 -- a comment\ntile_by_index({\"i\"}, {TI}, {l1_control='ii'})"),
            vec![
                Tok::Name("TI".into()),
                Tok::Punct("="),
                Tok::Number(16.0),
                Tok::Name("tile_by_index".into()),
                Tok::Punct("("),
                Tok::Punct("{"),
                Tok::Str("i".into()),
                Tok::Punct("}"),
                Tok::Punct(","),
                Tok::Punct("{"),
                Tok::Name("TI".into()),
                Tok::Punct("}"),
                Tok::Punct(","),
                Tok::Punct("{"),
                Tok::Name("l1_control".into()),
                Tok::Punct("="),
                Tok::Str("ii".into()),
                Tok::Punct("}"),
                Tok::Punct(")"),
            ]
        );
        assert_eq!(
            toks("--[[ block\n comment ]] x ~= 0x10"),
            vec![Tok::Name("x".into()), Tok::Punct("~="), Tok::Number(16.0)]
        );
        assert_eq!(
            toks("[[long\nstring]]"),
            vec![Tok::Str("long\nstring".into())]
        );
        assert_eq!(toks("\"open"), vec![Tok::Error("unterminated string")]);
    }
}
