//! The values of `-D`, `-P` and `--size`, read as C reads them: blanks around the name
//! and the value are dropped, and a C integer or floating literal (`0x100`, `0400`,
//! `1024u`, `1.5f`) is a number.

/// `-D NAME[=VALUE]`: a macro name and its replacement text (`1` when none is given).
pub(super) fn parse_define(text: &str) -> Result<(String, String), String> {
    let (name, value) = text.split_once('=').unwrap_or((text, "1"));
    let name = name.trim();
    let valid = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if valid {
        Ok((name.to_string(), value.trim().to_string()))
    } else {
        Err(format!(
            "`{name}` is not a macro name (expected NAME=VALUE)"
        ))
    }
}

/// `-P NAME=VALUE`: unlike a macro, a parameter needs its value. A number written as C
/// writes it becomes its decimal value (`0x100` is 256); other text is kept (a string
/// parameter).
pub(super) fn parse_param(text: &str) -> Result<(String, String), String> {
    if !text.contains('=') {
        return Err(format!(
            "`{text}` has no value (expected NAME=VALUE, as `-P TI=32`)"
        ));
    }
    let (name, value) = parse_define(text).map_err(|_| {
        format!("`{text}` does not start with a parameter name (expected NAME=VALUE)")
    })?;
    if value.is_empty() {
        return Err(format!(
            "`{text}` has an empty value (expected NAME=VALUE, as `-P TI=32`)"
        ));
    }
    let value = c_number(&value).map_or(value, number_text);
    Ok((name, value))
}

/// `--size n=100`: a positive integer (as C writes it: `0x100`, `1024u`).
pub(super) fn parse_size(text: &str) -> Result<(String, i64), String> {
    let (name, value) = parse_param(text)?;
    match value.parse::<i64>() {
        Ok(v) if v > 0 => Ok((name, v)),
        _ => Err(format!("`{text}`: a size must be a positive integer")),
    }
}

/// The value of a C numeric literal with an optional sign: decimal, hexadecimal (`0x`),
/// octal (a leading `0`) or binary (`0b`) integers with `u`/`l` suffixes, and decimal
/// floating literals with an `f`/`l` suffix.
pub(super) fn c_number(text: &str) -> Option<f64> {
    let text = text.trim();
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest.trim_start()),
        None => (false, text.strip_prefix('+').unwrap_or(text).trim_start()),
    };
    let value = c_integer(digits).or_else(|| c_floating(digits))?;
    Some(if negative { -value } else { value })
}

fn c_integer(text: &str) -> Option<f64> {
    let body = text.trim_end_matches(['u', 'U', 'l', 'L']);
    let suffix = &text[body.len()..];
    if suffix.len() > 3 {
        return None;
    }
    let (radix, digits) = if let Some(d) = body.strip_prefix("0x").or(body.strip_prefix("0X")) {
        (16, d)
    } else if let Some(d) = body.strip_prefix("0b").or(body.strip_prefix("0B")) {
        (2, d)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    let digits: String = digits.chars().filter(|&c| c != '\'').collect();
    if digits.is_empty() {
        return None;
    }
    u64::from_str_radix(&digits, radix).ok().map(|v| v as f64)
}

fn c_floating(text: &str) -> Option<f64> {
    let body = text.strip_suffix(['f', 'F', 'l', 'L']).unwrap_or(text);
    let numeric = body
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'));
    let starts = body.starts_with(|c: char| c.is_ascii_digit() || c == '.');
    // A floating literal has a point or an exponent (`08` and `1f` are not C).
    let floating = body.contains(['.', 'e', 'E']);
    if !(numeric && starts && floating) {
        return None;
    }
    body.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// A number as the recipe reads it: `256`, `1.5`.
fn number_text(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_read_as_c_reads_them() {
        let p = |t: &str| parse_param(t).map(|(n, v)| format!("{n}={v}"));
        assert_eq!(p("N=0x100"), Ok("N=256".into()));
        assert_eq!(p("N=1024 "), Ok("N=1024".into()));
        assert_eq!(p(" N = 1024"), Ok("N=1024".into()));
        assert_eq!(p("N=0400"), Ok("N=256".into()));
        assert_eq!(p("N=0b101"), Ok("N=5".into()));
        assert_eq!(p("N=1024u"), Ok("N=1024".into()));
        assert_eq!(p("N=64UL"), Ok("N=64".into()));
        assert_eq!(p("N=1'000"), Ok("N=1000".into()));
        assert_eq!(p("N=0"), Ok("N=0".into()));
        assert_eq!(p("N=-4"), Ok("N=-4".into()));
        assert_eq!(p("A=1.5f"), Ok("A=1.5".into()));
        assert_eq!(p("A=2e3"), Ok("A=2000".into()));
        assert_eq!(p("S=shared"), Ok("S=shared".into()));
        assert_eq!(p("S=0xZZ"), Ok("S=0xZZ".into()));
        assert!(p("N= ").unwrap_err().contains("empty value"));
        assert!(p("N").unwrap_err().contains("no value"));
        assert!(p("1N=3").unwrap_err().contains("parameter name"));
    }

    #[test]
    fn sizes_are_positive_integers() {
        assert_eq!(parse_size("n=0x100"), Ok(("n".into(), 256)));
        assert_eq!(parse_size("n = 100 "), Ok(("n".into(), 100)));
        assert!(parse_size("n=0").is_err());
        assert!(parse_size("n=1.5").is_err());
        assert!(parse_size("n=big").is_err());
    }

    #[test]
    fn c_numbers() {
        assert_eq!(c_number("0X1F"), Some(31.0));
        assert_eq!(c_number("010"), Some(8.0));
        assert_eq!(c_number("08"), None);
        assert_eq!(c_number(".5"), Some(0.5));
        assert_eq!(c_number("1e400"), None);
        assert_eq!(c_number("0x"), None);
        assert_eq!(c_number("12uuuu"), None);
        assert_eq!(c_number(""), None);
        assert_eq!(c_number("-"), None);
        assert_eq!(c_number("nan"), None);
        assert_eq!(c_number("1f"), None);
        assert_eq!(c_number("1.f"), Some(1.0));
    }
}
