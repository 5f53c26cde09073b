//! Polyhedral stage: a [`Unit`] → a [`Program`] (iteration domains, access relations, the
//! original schedule), checked by isl for out-of-bounds accesses.
//!
//! Entry point: [`lower`]. This module is the only one that uses isl (through the safe
//! wrappers in [`isl`]); domains and accesses are exact affine data ([`affine`]) printed
//! as isl text.

pub mod affine;
pub mod astbuild;
pub mod bounds;
pub mod isl;
mod lower;
pub mod memo;
pub mod program;
mod reader;
mod schedtree;
pub mod scheduler;
mod watchdog;

pub use lower::MATH_FUNCTIONS;
pub use program::*;

use crate::diag::{Diagnostics, SourceFile};
use crate::frontend::Unit;

/// Lowers a unit of `file` and proves its accesses stay within their arrays.
pub fn lower(unit: Unit, file: &SourceFile) -> Result<Program, Diagnostics> {
    let program = lower::lower(unit, file)?;
    bounds::check_bounds(&program, &isl::Ctx::new())?;
    Ok(program)
}

/// The program of C text `text`, its first function (tests' inputs; `t.c` in messages).
#[cfg(test)]
pub(crate) fn lowered(text: &str) -> Program {
    use crate::diag::SourceMap;
    let mut sources = SourceMap::default();
    let id = sources.add(SourceFile::new("t.c".to_string(), text.to_string()));
    let parsed = crate::frontend::parse(sources.get(id), id, None, &Default::default()).unwrap();
    lower(parsed.units.into_iter().next().unwrap(), sources.get(id)).unwrap()
}

/// The iteration domain of statement `s` as isl prints it after simplification
/// (`[N] -> { S0[i, j] : 0 <= i < N and 0 <= j < N }`).
pub fn simplified_domain(program: &Program, s: StatementId) -> String {
    simplified(&isl::Ctx::new(), &program.domain_text(s), false)
}

fn simplified(ctx: &isl::Ctx, text: &str, is_map: bool) -> String {
    let result = if is_map {
        isl::Map::parse(ctx, text)
            .and_then(|m| m.simplify())
            .map(|m| m.to_string())
    } else {
        isl::Set::parse(ctx, text)
            .and_then(|s| s.simplify())
            .map(|s| s.to_string())
    };
    result.unwrap_or_else(|e| format!("<{e}>"))
}

/// A readable listing of everything the program holds: parameters, arrays, loops, and
/// per statement its domain, schedule and accesses (isl-simplified). For tests and for
/// looking inside gpucc.
pub fn dump(program: &Program) -> String {
    use std::fmt::Write;
    let ctx = isl::Ctx::new();
    let mut out = String::new();
    let _ = writeln!(out, "{}", program.unit.describe());
    let _ = writeln!(
        out,
        "parameters: {}",
        if program.params.is_empty() {
            "(none)".to_string()
        } else {
            program.params.join(", ")
        }
    );
    let _ = writeln!(out, "arrays:");
    for a in &program.arrays {
        let kind = match &a.kind {
            ArrayKind::Outside => "outside".to_string(),
            ArrayKind::Local => "local".to_string(),
            ArrayKind::Private { loops } => {
                let names: Vec<&str> = loops
                    .iter()
                    .map(|l| program.loops[*l].iterator.as_str())
                    .collect();
                format!("private to {}", names.join(", "))
            }
        };
        let konst = if a.is_const { "const " } else { "" };
        let _ = writeln!(
            out,
            "  {konst}{} {}{}  ({kind})",
            a.elem.c_name(),
            a.name,
            a.dims_text()
        );
    }
    let _ = writeln!(out, "loops:");
    for (l, lp) in program.loops.iter().enumerate() {
        let _ = writeln!(
            out,
            "  L{l} {}{}  line {}  {}",
            "  ".repeat(lp.depth - 1),
            lp.iterator,
            lp.line,
            lp.bounds
        );
    }
    let _ = writeln!(out, "statements:");
    for (s, st) in program.statements.iter().enumerate() {
        let _ = writeln!(out, "  {}  line {}  {}", st.name, st.line, st.text);
        let _ = writeln!(
            out,
            "    domain    {}",
            simplified(&ctx, &program.domain_text(s), false)
        );
        let _ = writeln!(
            out,
            "    schedule  {}",
            simplified(&ctx, &program.schedule_text(s, None), true)
        );
        for a in std::iter::once(&st.write).chain(&st.reads) {
            let access = &program.accesses[*a];
            let verb = if access.is_write { "write" } else { "read " };
            let _ = writeln!(
                out,
                "    {verb}     {}  {}",
                access.text,
                simplified(&ctx, &program.access_text(*a, false), true)
            );
        }
        if let Some(u) = st.update {
            let _ = writeln!(
                out,
                "    update    {} of {}",
                u.op.symbol(),
                program.accesses[u.read].text
            );
        }
    }
    out
}
