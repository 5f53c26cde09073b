//! Tokens of the recipe language (a Lua subset): names, numbers, strings (`"..."`,
//! `'...'`, `[[...]]`), punctuation, keywords, `--` and `--[[ ]]` comments.

use crate::diag::Span;
use std::iter::Peekable;

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
            let (tok, end, bad_escape) = short_string(text, pos);
            pos = end;
            if let Some(escape) = bad_escape {
                out.push(escape);
            }
            tok
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

/// A short string (`"..."` or `'...'`) starting at `start`: its token, the offset after
/// it, and the first invalid escape as an error token of its own (located at the escape).
/// Offsets only ever move by whole characters, so non-ASCII text is never split.
fn short_string(text: &str, start: usize) -> (Tok, usize, Option<Token>) {
    let quote = text.as_bytes()[start] as char;
    let mut s = String::new();
    let mut bad_escape = None;
    let mut chars = text[start + 1..]
        .char_indices()
        .map(|(k, c)| (start + 1 + k, c))
        .peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            _ if c == quote => return (Tok::Str(s), at + 1, bad_escape),
            '\n' => return (Tok::Error("unterminated string"), at, bad_escape),
            // A `\` that ends the text leaves the string unterminated.
            '\\' if chars.peek().is_none() => break,
            '\\' => match escape(&mut chars) {
                Ok(ch) => s.push(ch),
                Err(()) => {
                    let end = chars.peek().map_or(text.len(), |(k, _)| *k);
                    bad_escape.get_or_insert(Token {
                        tok: Tok::Error("invalid escape sequence"),
                        span: Span::new(at, end),
                    });
                }
            },
            _ => s.push(c),
        }
    }
    (Tok::Error("unterminated string"), text.len(), bad_escape)
}

/// The character of the escape after a `\\` (Lua's, except that `\\ddd` and `\\xXX` must
/// be ASCII: a recipe's text is characters, not bytes). An invalid escape consumes the
/// characters that make it invalid.
fn escape(chars: &mut Peekable<impl Iterator<Item = (usize, char)>>) -> Result<char, ()> {
    let (_, e) = chars.next().ok_or(())?;
    let code = match e {
        'n' | '\n' => return Ok('\n'),
        '\r' => {
            chars.next_if(|(_, c)| *c == '\n');
            return Ok('\n');
        }
        't' => return Ok('\t'),
        'r' => return Ok('\r'),
        'a' => return Ok('\x07'),
        'b' => return Ok('\x08'),
        'f' => return Ok('\x0c'),
        'v' => return Ok('\x0b'),
        '\\' | '"' | '\'' => return Ok(e),
        'x' => digits(chars, 16, 2, 0).filter(|v| *v < 0x80),
        '0'..='9' => {
            let first = e.to_digit(10).unwrap_or(0);
            let value = digits(chars, 10, 2, first).unwrap_or(first);
            (value < 0x80).then_some(value)
        }
        'u' => {
            if chars.peek().map(|(_, c)| *c) != Some('{') {
                return Err(());
            }
            chars.next();
            let value = digits(chars, 16, 6, 0);
            if chars.peek().map(|(_, c)| *c) != Some('}') {
                return Err(());
            }
            chars.next();
            value
        }
        _ => None,
    };
    code.and_then(char::from_u32).ok_or(())
}

/// Up to `most` digits in `radix` from `chars`, appended to `value`; `None` when there is
/// none.
fn digits(
    chars: &mut Peekable<impl Iterator<Item = (usize, char)>>,
    radix: u32,
    most: usize,
    mut value: u32,
) -> Option<u32> {
    let mut count = 0;
    while count < most {
        let Some(d) = chars.peek().and_then(|(_, d)| d.to_digit(radix)) else {
            break;
        };
        value = value.saturating_mul(radix).saturating_add(d);
        count += 1;
        chars.next();
    }
    (count > 0).then_some(value)
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

    #[test]
    fn escapes() {
        assert_eq!(
            toks(
                r#""a\n\t\\\"\'\65\x41\u{e9}\
b""#
            ),
            vec![Tok::Str("a\n\t\\\"'AAé\nb".into())]
        );
        assert_eq!(toks(r"'\105'"), vec![Tok::Str("i".into())]);
    }

    #[test]
    fn a_bad_escape_is_an_error_at_the_escape() {
        // `\é`: the escaped character is two bytes long (this used to panic).
        let tokens = lex("x = \"\\é\"");
        assert_eq!(tokens[2].tok, Tok::Error("invalid escape sequence"));
        assert_eq!(tokens[2].span, Span::new(5, 8));
        assert_eq!(tokens[3].tok, Tok::Str(String::new()));
        for bad in [
            r#""\q""#,
            r#""\xé""#,
            r#""\xff""#,
            r#""\200""#,
            r#""\u{110000}""#,
            r#""\u41""#,
        ] {
            assert!(
                toks(bad).contains(&Tok::Error("invalid escape sequence")),
                "{bad}"
            );
        }
    }

    #[test]
    fn non_ascii_text_never_splits_a_character() {
        let samples = [
            "x = \"\\é\" y = 'ü\\€' -- ça\n--[[ é ]] z = [[ñ]] 1é é1 _ü \"\\",
            "\"\\",
            "'\\\u{10348}'",
            "--[==[ 🦀 ]=] ]==] é",
            "0xé 1e+é .é \"\\x\" \"\\u{é",
        ];
        for text in samples {
            for (end, _) in text.char_indices().chain([(text.len(), ' ')]) {
                let prefix = &text[..end];
                for t in lex(prefix) {
                    assert!(prefix.is_char_boundary(t.span.start), "{prefix:?}");
                    assert!(prefix.is_char_boundary(t.span.end), "{prefix:?}");
                }
            }
        }
        assert_eq!(toks("é"), vec![Tok::Error("unexpected character")]);
        assert_eq!(toks("\"\\"), vec![Tok::Error("unterminated string")]);
        assert_eq!(toks("--[[ é"), vec![Tok::Error("unterminated comment")]);
    }
}
