//! The text `gpucc library` writes besides the variants: the test program's inputs, the
//! templates (`templates/library/`) rendered, and kernel names made unique in the file.

use crate::poly::Program;

/// The size each size parameter has in the test program and in gpucc's check: not a
/// multiple of any tile, so that every variant's remainders run.
pub(super) const TEST_SIZE: i64 = 67;

/// An input of the test program.
#[derive(serde::Serialize)]
pub(super) struct TestInput {
    pub name: String,
    /// `size`, `scalar` or `array`.
    pub kind: &'static str,
    ctype: String,
    /// An array's element count, as C.
    count: String,
    integer: bool,
    written: bool,
    tolerance: String,
    /// A size of the code (a parameter of `check_class`).
    is_size: bool,
}

/// The test program's inputs, one per parameter of the function.
pub(super) fn test_inputs(p: &Program) -> Result<Vec<TestInput>, String> {
    let mut out = Vec::new();
    for param in &p.unit.params {
        let d = &param.declarator;
        let ty = param.spec.ty.map_or("int", |t| t.c_name()).to_string();
        let integer = param.spec.ty.is_none_or(|t| t.is_integer());
        let array = p.arrays.iter().position(|a| a.name == d.name);
        let base = TestInput {
            name: d.name.clone(),
            kind: "size",
            ctype: ty.clone(),
            count: String::new(),
            integer,
            written: false,
            tolerance: String::new(),
            is_size: p.params.contains(&d.name),
        };
        if d.dims.is_empty() {
            let kind = if integer { "size" } else { "scalar" };
            out.push(TestInput { kind, ..base });
            continue;
        }
        let Some(k) = array else {
            return Err(format!(
                "the test program cannot make `{}`: `{}` does not use it",
                d.name, p.unit.function
            ));
        };
        let a = &p.arrays[k];
        if a.dim_texts.iter().any(|t| t.trim().is_empty()) {
            return Err(format!(
                "the test program cannot size `{}` (`[]`): give its dimensions in the declaration",
                a.name
            ));
        }
        let count = a
            .dim_texts
            .iter()
            .map(|t| format!("(size_t)({t})"))
            .collect::<Vec<_>>()
            .join(" * ");
        let written = p.statements.iter().any(|s| p.accesses[s.write].array == k);
        let tolerance = match a.elem.c_name() {
            "double" => "1e-9",
            "float" => "1e-3",
            _ => "0",
        };
        out.push(TestInput {
            kind: "array",
            ctype: a.elem.c_name().to_string(),
            count,
            integer: a.elem.is_integer(),
            written,
            tolerance: tolerance.to_string(),
            ..base
        });
    }
    Ok(out)
}

/// Renders one of `templates/library/`.
pub(super) fn render(template: &str, context: &tera::Context) -> Result<String, String> {
    let mut t = tera::Tera::default();
    t.autoescape_on(Vec::new());
    t.add_raw_templates([
        (
            "header.h",
            include_str!("../../templates/library/header.h.tera"),
        ),
        (
            "library.cu",
            include_str!("../../templates/library/library.cu.tera"),
        ),
        (
            "test.cu",
            include_str!("../../templates/library/test.cu.tera"),
        ),
        (
            "Makefile",
            include_str!("../../templates/library/Makefile.tera"),
        ),
    ])
    .map_err(|e| format!("a library template does not parse: {e:?}"))?;
    t.render(template, context)
        .map_err(|e| format!("the library template {template} failed: {e:?}"))
}

/// `text` with every whole-word occurrence of the identifier `from` replaced by `to`.
pub(super) fn rename_identifier(text: &str, from: &str, to: &str) -> String {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(from) {
        let before = rest[..at].chars().last().or_else(|| out.chars().last());
        let after = rest[at + from.len()..].chars().next();
        out.push_str(&rest[..at]);
        if before.is_some_and(ident) || after.is_some_and(ident) {
            out.push_str(from);
        } else {
            out.push_str(to);
        }
        rest = &rest[at + from.len()..];
    }
    out.push_str(rest);
    out
}
