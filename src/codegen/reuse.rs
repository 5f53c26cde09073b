//! What a kernel is generated from, as a key: the strategy generator compiles every
//! variant of a program whole, so the kernels of the nests a variant leaves alone come
//! back unchanged (mm2: 74 kernels generated in one ranking, 29 of them met before).
//! With the same key, a kernel's code ([`super::generate`]) and its emulation
//! ([`crate::emulator::kernel`]) are the same, and are kept for the rest of the process.
//!
//! The key holds everything of the [`Transformed`] program that generating or emulating
//! the kernel reads: the kernel, its statements with their indices and positions, its
//! copies, the levels it names and the names elsewhere that new names must avoid, with a
//! digest of the source program. The other nests' loops and statements are left out: no
//! step looks up a loop by a name that another nest's loop may share.

use std::collections::BTreeSet;
use std::fmt::Write;
use std::hash::{Hash, Hasher};

use crate::transform::{LevelId, Transformed};

/// A digest of the source program of `t`, for [`kernel_source`].
pub fn program_digest(t: &Transformed) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    format!("{:?}", t.program).hash(&mut hasher);
    hasher.finish()
}

/// The key of kernel `k` of `t` ([`Transformed::positions`] given as `positions`, and
/// [`program_digest`] as `program`).
pub fn kernel_source(t: &Transformed, program: u64, k: usize, positions: &[Vec<usize>]) -> String {
    let kernel = &t.kernels[k];
    let mut key = String::new();
    let _ = writeln!(key, "program {program:x}\nkernel {k} {kernel:?}");
    for &s in &kernel.statements {
        let _ = writeln!(
            key,
            "statement {s} at {:?}: {:?}",
            positions[s], t.statements[s]
        );
    }
    for l in levels(t, k) {
        let _ = writeln!(key, "level {l}: {:?}", t.levels[l]);
    }
    for (c, copy) in t.copies.iter().enumerate().filter(|(_, c)| c.kernel == k) {
        let _ = writeln!(key, "copy {c}: {copy:?}");
    }
    let _ = writeln!(key, "placements {:?}", t.placements);
    // Names a new variable must not take.
    let _ = write!(key, "names");
    for l in &t.levels {
        let _ = write!(key, " {}", l.name);
    }
    for st in &t.statements {
        let _ = write!(key, " {}{:?}", st.name, st.iterators);
    }
    key
}

/// The levels kernel `k` names: its statements', its block, thread and host levels, and
/// their tiles' control levels.
fn levels(t: &Transformed, k: usize) -> BTreeSet<LevelId> {
    let kernel = &t.kernels[k];
    let mut found: BTreeSet<LevelId> = kernel
        .statements
        .iter()
        .flat_map(|&s| t.statements[s].levels.iter().map(|(l, _)| *l))
        .chain(kernel.hardware_levels())
        .chain(kernel.host_levels.iter().copied())
        .collect();
    loop {
        let more: BTreeSet<LevelId> = found
            .iter()
            .filter_map(|&l| t.levels[l].tile.map(|tile| tile.control))
            .filter(|l| !found.contains(l))
            .collect();
        if more.is_empty() {
            return found;
        }
        found.extend(more);
    }
}
