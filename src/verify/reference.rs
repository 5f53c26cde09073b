//! The original C as the check compiles it: the user's text (with `-D` applied) after a
//! `#line` directive, so that the C compiler's messages name the user's file and lines;
//! before it, what gpucc's reading of the file assumes and C does not give: `min`, `max`,
//! `MIN`, `MAX`, `imin` and `imax` (which gpucc takes as the smaller or larger of two
//! values), defined only when the file uses them without defining or declaring them
//! itself (as a macro or a function, in the file or a header it includes, as the C
//! preprocessor sees it).
//!
//! Also here: the first error of a compiler's output, for a person.

use super::process::{compiler_command, run_tool, Scratch};
use super::{CheckError, CheckFailure, SourceAt};
use crate::frontend::lexer::{lex, Tok, Token};
use std::path::Path;

/// The names gpucc reads as `min` and `max` (`crate::poly::lower`'s `AFFINE_MIN` and
/// `AFFINE_MAX`, and the `min`/`max` calls of statements).
pub(super) const MIN_MAX: &[(&str, bool)] = &[
    ("min", true),
    ("max", false),
    ("MIN", true),
    ("MAX", false),
    ("imin", true),
    ("imax", false),
];

/// The text of the reference: the definitions that `-DGPUCC_DEFINE_<name>` switches on,
/// the file's main renamed when `driver` (the driver's C, which calls the code) follows,
/// then the file's text under its own name.
pub(super) fn text(original: &str, c_file: &Path, driver: Option<&str>) -> String {
    let mut t = String::from(
        "/* gpucc's check: the original, and what gpucc assumes that the file does not define. */\n",
    );
    for (name, smaller) in MIN_MAX {
        let op = if *smaller { "<" } else { ">" };
        t.push_str(&format!(
            "#ifdef GPUCC_DEFINE_{name}\n#define {name}(a, b) ((a) {op} (b) ? (a) : (b))\n#endif\n"
        ));
    }
    if driver.is_some() {
        t.push_str("#define main gpucc_reference_main\n");
    }
    t.push_str(&format!(
        "#line 1 {}\n",
        c_string(&c_file.display().to_string())
    ));
    t.push_str(original);
    if let Some(d) = driver {
        t.push_str("\n#line 1 \"gpucc-check-driver.c\"\n");
        t.push_str(d);
    }
    t
}

/// `s` as a C string literal.
pub(super) fn c_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The `-DGPUCC_DEFINE_<name>` flags for the names of [`MIN_MAX`] the original uses and
/// does not define. `reference` is the written file; `flags` the compiler's include flags.
/// The C preprocessor runs only when the file may use one: it names one, or a header of
/// its own that it includes does ([`may_use_min_max`]).
pub(super) fn min_max_flags(
    cc: &str,
    reference: &Path,
    original: &str,
    flags: &[String],
    scratch: &Scratch,
) -> Result<Vec<String>, CheckError> {
    let dirs: Vec<&Path> = flags
        .iter()
        .filter_map(|f| f.strip_prefix("-I"))
        .map(Path::new)
        .collect();
    if !may_use_min_max(original, &dirs, &mut Vec::new()) {
        return Ok(Vec::new());
    }
    let out = run_tool(
        compiler_command(cc)
            .args(["-E", "-dD", "-w", "-x", "c"])
            .arg(reference)
            .args(flags),
        "the C preprocessor on the original",
    )?;
    if !out.status.success() {
        return Err(does_not_compile(&out.stderr, scratch, "compile"));
    }
    Ok(undefined_uses(&out.stdout)
        .into_iter()
        .map(|n| format!("-DGPUCC_DEFINE_{n}"))
        .collect())
}

/// Whether C `text` may call a name of [`MIN_MAX`]: it names one, or one of the headers
/// it includes with quotes (found as the C preprocessor finds them, in `dirs`: the
/// including file's directory first) may, in turn. A header gpucc cannot find or read, an
/// include it cannot read (`#include NAME`), and token pasting (`##`, which can make a
/// name) may; headers included with angle brackets are the system's and do not (as for
/// the file itself). `seen`: the headers read so far (each is read once).
fn may_use_min_max(text: &str, dirs: &[&Path], seen: &mut Vec<std::path::PathBuf>) -> bool {
    let tokens = lex(text, 0);
    let named = |t: &Token| matches!(&t.tok, Tok::Ident(n) if MIN_MAX.iter().any(|(m, _)| m == n));
    // In the code, or in a directive: a macro's body, a condition, a paste.
    let names_one = tokens.iter().any(|t| match &t.tok {
        Tok::Directive(d) => pastes_may_name(d) || lex(d, 0).iter().any(named),
        _ => named(t),
    });
    if names_one {
        return true;
    }
    tokens.iter().any(|t| {
        let Tok::Directive(d) = &t.tok else {
            return false;
        };
        let Some(rest) = d.strip_prefix("include") else {
            return false;
        };
        let rest = rest.trim_start();
        if rest.starts_with('<') {
            return false;
        }
        let Some(name) = rest
            .strip_prefix('"')
            .and_then(|r| r.split_once('"'))
            .map(|(name, _)| name)
        else {
            return true;
        };
        let Some(path) = dirs.iter().map(|d| d.join(name)).find(|p| p.is_file()) else {
            return true;
        };
        if seen.contains(&path) {
            return false;
        }
        seen.push(path.clone());
        let Ok(header) = std::fs::read_to_string(&path) else {
            return true;
        };
        let here = super::process::directory_of(&path);
        let inner: Vec<&Path> = std::iter::once(here.as_path())
            .chain(dirs.iter().copied())
            .collect();
        may_use_min_max(&header, &inner, seen)
    })
}

/// Whether token pasting in the directive `d` (`#define SCALAR_VAL(x) x##f`) may make a
/// name of [`MIN_MAX`]: a chain `a ## b ## c` makes a name that ends with its last
/// operand, so one whose last operand is a word of the macro's body (not a parameter)
/// that none of the names ends with makes none of them.
fn pastes_may_name(d: &str) -> bool {
    if !d.contains("##") {
        return false;
    }
    // Pasting outside a definition: gpucc does not follow it.
    let Some(defined) = crate::frontend::macros::parse_define(d) else {
        return true;
    };
    let params = defined.params.unwrap_or_default();
    let body = &defined.body;
    let paste = |k: usize| body.get(k).is_some_and(|t| t.tok == Tok::Punct("##"));
    (0..body.len()).any(|k| {
        if !paste(k) || paste(k + 2) {
            return false;
        }
        let ends = |word: &str| MIN_MAX.iter().any(|(m, _)| m.ends_with(word));
        match body.get(k + 1).map(|t| &t.tok) {
            Some(Tok::Ident(w)) if !params.contains(w) && w != "__VA_ARGS__" => ends(w),
            Some(Tok::Kw(w)) => ends(w),
            _ => true,
        }
    })
}

/// Keywords after which `name(` declares a function rather than calling one.
const DECLARING: &[&str] = &[
    "void",
    "char",
    "short",
    "int",
    "long",
    "float",
    "double",
    "signed",
    "unsigned",
    "_Bool",
    "static",
    "extern",
    "inline",
    "__inline",
    "__inline__",
    "const",
    "volatile",
    "register",
    "struct",
    "union",
    "enum",
];

/// The names of [`MIN_MAX`] that preprocessed C (`cc -E -dD`) calls but neither defines
/// as a macro nor declares (nor uses as a member: `ops->min(a, b)`).
pub(super) fn undefined_uses(preprocessed: &str) -> Vec<&'static str> {
    let tokens = lex(preprocessed, 0);
    let mut result = Vec::new();
    for (name, _) in MIN_MAX {
        let (mut called, mut declared, mut macro_defined) = (false, false, false);
        for (k, t) in tokens.iter().enumerate() {
            match &t.tok {
                Tok::Directive(d) => {
                    let mut words = d.split(|c: char| c.is_whitespace() || c == '(');
                    match (words.next(), words.next()) {
                        (Some("define"), Some(n)) if n == *name => macro_defined = true,
                        (Some("undef"), Some(n)) if n == *name => macro_defined = false,
                        _ => {}
                    }
                }
                Tok::Ident(n) if n == name => {
                    if tokens.get(k + 1).map(|t| &t.tok) != Some(&Tok::Punct("(")) {
                        continue;
                    }
                    match k.checked_sub(1).map(|j| &tokens[j].tok) {
                        Some(Tok::Ident(_)) => declared = true,
                        Some(Tok::Kw(kw)) if DECLARING.contains(kw) => declared = true,
                        Some(Tok::Punct(".") | Tok::Punct("->")) => declared = true,
                        _ => called = true,
                    }
                }
                _ => {}
            }
        }
        if called && !declared && !macro_defined {
            result.push(*name);
        }
    }
    result
}

/// The error of an original that the C compiler refuses (`what`: "compile" or "link"):
/// its first error, with the place in the user's file.
pub(super) fn does_not_compile(stderr: &str, scratch: &Scratch, what: &str) -> CheckError {
    let (text, at) = first_error(stderr, &scratch.0);
    let linking = at.is_none() && (text.contains("undefined reference") || text.contains("ld:"));
    let what = if linking { "link" } else { what };
    let mut e = CheckError::new(
        CheckFailure::OriginalDoesNotCompile,
        format!("the original C does not {what} (the C compiler's first error):\n{text}"),
    )
    .with_hint(if linking {
        "the check builds the file as a program with the system C compiler (CC): give the other files it links with as --link FILE (PolyBench: --link utilities/polybench.c), or check with --no-verify"
    } else {
        "the check compiles the whole file with the system C compiler (CC); make the file compile on its own, or check with --no-verify"
    });
    e.at = at;
    e
}

/// The first error in a compiler's output, with its context lines (the source line and
/// the caret), paths in the scratch directory shortened; and its place, when it has one.
pub(super) fn first_error(stderr: &str, scratch: &Path) -> (String, Option<SourceAt>) {
    let scratch = format!("{}/", scratch.display());
    let lines: Vec<String> = stderr
        .lines()
        .map(|l| l.replace(&scratch, ""))
        .filter(|l| !l.starts_with("collect2:") && !l.trim().is_empty())
        .collect();
    let error = lines
        .iter()
        .position(|l| l.contains(": error:") || l.contains(": fatal error:"));
    if let Some(k) = error {
        let mut text = vec![lines[k].clone()];
        text.extend(
            lines[k + 1..]
                .iter()
                .take_while(|l| l.starts_with(' '))
                .take(6)
                .cloned(),
        );
        return (text.join("\n"), location(&lines[k]));
    }
    // A linker's message: `/usr/bin/ld: /tmp/ccX.o: in function `f':` is noise.
    let link: Vec<String> = lines
        .iter()
        .filter(|l| !l.ends_with(':') || l.contains("error"))
        .map(|l| {
            let l = l.rsplit_once("ld: ").map_or(l.as_str(), |(_, rest)| rest);
            let l = match l.split_once(".o: ") {
                Some((object, rest)) if !object.contains(' ') => rest,
                _ => l,
            };
            l.to_string()
        })
        .take(4)
        .collect();
    let text = if link.is_empty() {
        lines.iter().take(10).cloned().collect::<Vec<_>>()
    } else {
        link
    };
    (text.join("\n"), None)
}

/// `file.c:4:12: error: ...` → the file, line and column.
fn location(line: &str) -> Option<SourceAt> {
    let head = line
        .split(": error:")
        .next()?
        .split(": fatal error:")
        .next()?;
    let mut parts = head.rsplitn(3, ':');
    let column = parts.next()?.trim().parse().ok()?;
    let line_number = parts.next()?.trim().parse().ok()?;
    let file = parts.next()?.to_string();
    Some(SourceAt {
        file,
        line: line_number,
        column,
    })
}

/// Whether the file defines `main` (the scan of gpucc's frontend: function definitions at
/// file scope).
pub(super) fn defines_main(original: &str) -> bool {
    let tokens = lex(original, 0);
    crate::frontend::scan::scan(&tokens)
        .functions
        .iter()
        .any(|f| f.name == "main")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_and_max_are_defined_only_where_the_file_has_none() {
        assert_eq!(
            undefined_uses("int f(int n) { return min(n, 3); }"),
            ["min"]
        );
        assert_eq!(
            undefined_uses("#define min(a, b) ((a) < (b) ? (a) : (b))\nint f(int n) { return n; }"),
            Vec::<&str>::new()
        );
        assert_eq!(
            undefined_uses("static inline int min(int a, int b) { return a < b ? a : b; }\nint f(int n) { return min(n, 3) + max(n, 2) + MIN(n, 1); }"),
            ["max", "MIN"]
        );
        assert_eq!(
            undefined_uses("typedef int I;\nI imax(I a, I b);\nint f(struct ops *o, int n) { return imax(n, 1) + o->min(n, 2); }"),
            Vec::<&str>::new()
        );
        assert_eq!(
            undefined_uses("#define max(a, b) a\n#undef max\nint f(int n) { return max(n, 2); }"),
            ["max"]
        );
    }

    /// Runs [`may_use_min_max`] on `file` in a directory holding `headers` (name, text),
    /// the directory searched as `-I` would.
    fn may_use_with(file: &str, headers: &[(&str, &str)]) -> bool {
        let dir = Scratch::new().expect("a scratch directory");
        for (name, text) in headers {
            let path = dir.0.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        may_use_min_max(file, &[dir.0.as_path()], &mut Vec::new())
    }

    #[test]
    fn the_preprocessor_runs_only_where_the_file_or_its_own_headers_name_min_or_max() {
        let plain = "#include <stdio.h>\n#include \"sizes.h\"\nint f(int n) { return n + N; }";
        // Neither the file nor its header names one: no preprocessor.
        assert!(!may_use_with(plain, &[("sizes.h", "#define N 10\n")]));
        // The file calls one, or a macro of its header does, or a header it includes does.
        assert!(may_use_with("int f(int n) { return min(n, 3); }", &[]));
        assert!(may_use_with(
            plain,
            &[("sizes.h", "#define N min(4, 10)\n")]
        ));
        assert!(may_use_with(
            plain,
            &[
                ("sizes.h", "#include \"inner/more.h\"\n#define N 10\n"),
                ("inner/more.h", "#include \"deepest.h\"\n"),
                (
                    "inner/deepest.h",
                    "static int g(int a) { return MAX(a, 1); }\n"
                ),
            ]
        ));
        // What gpucc cannot read may: a missing header, a computed include, pasting.
        assert!(may_use_with(plain, &[]));
        assert!(may_use_with(
            "#define H \"sizes.h\"\n#include H\n",
            &[("sizes.h", "")]
        ));
        assert!(may_use_with(
            plain,
            &[("sizes.h", "#define CAT(a, b) a##b\n")]
        ));
        // A header that includes itself is read once.
        assert!(!may_use_with(
            plain,
            &[("sizes.h", "#include \"sizes.h\"\n#define N 1\n")]
        ));
    }

    #[test]
    fn the_first_error_names_the_users_file() {
        let stderr = "/tmp/s/reference.c: In function 'main':\nbad.c:4:1: error: unknown type name 'this'\n    4 | this is not C at all;\n      | ^~~~\nbad.c:4:9: error: expected '='\n";
        let (text, at) = first_error(stderr, Path::new("/tmp/s"));
        assert_eq!(
            text,
            "bad.c:4:1: error: unknown type name 'this'\n    4 | this is not C at all;\n      | ^~~~"
        );
        assert_eq!(
            at,
            Some(SourceAt {
                file: "bad.c".into(),
                line: 4,
                column: 1
            })
        );
        let link = "/usr/bin/ld: /tmp/s/reference.o: in function `f':\nminmax.c:(.text+0x3b): undefined reference to `min'\ncollect2: error: ld returned 1 exit status\n";
        let (text, at) = first_error(link, Path::new("/tmp/s"));
        assert_eq!(text, "minmax.c:(.text+0x3b): undefined reference to `min'");
        assert_eq!(at, None);
    }

    #[test]
    fn main_is_found_by_the_scan() {
        assert!(defines_main("int main(void) { return 0; }"));
        assert!(!defines_main("/* int main(void) {} */ void f(void) { }"));
    }
}
