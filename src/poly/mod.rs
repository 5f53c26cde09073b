//! Polyhedral stage: a [`Unit`] → a [`Program`] (iteration domains, access relations, the
//! original schedule), checked by isl for out-of-bounds accesses.
//!
//! Entry point: [`lower`]. This module is the only one that uses isl (through the safe
//! wrappers in [`isl`]); domains and accesses are exact affine data ([`affine`]) printed
//! as isl text.

pub mod affine;
pub mod bounds;
pub mod isl;
mod lower;
pub mod program;

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

/// The iteration domain of statement `s` as isl prints it after simplification
/// (`[N] -> { S0[i, j] : 0 <= i < N and 0 <= j < N }`).
pub fn simplified_domain(program: &Program, s: StatementId) -> String {
    let ctx = isl::Ctx::new();
    isl::Set::parse(&ctx, &program.domain_text(s))
        .and_then(|set| set.simplify())
        .map(|set| set.to_string())
        .unwrap_or_else(|e| format!("<{e}>"))
}
