//! Strategy stage: writes recipes for a program that comes without one — the
//! Transformation Strategy Generator of seed 004 (Chapters 4 and 5; DESIGN §9).
//!
//! Entry point: [`plan`]. The program is cut into *items* in program order: nests whose
//! loops can be mapped to blocks and threads ([`Item::Parallel`]), and statements that must
//! run in one thread ([`Item::Serial`]: code outside loops, or nests whose every loop
//! carries a dependence — the fallback, slow but correct). For each parallel nest:
//!
//! - Phase I ([`partition`], §5.3): candidate mappings of its loops to blocks and threads;
//! - Phase II ([`placement`], §5.4): where each array may go;
//! - Phase III ([`variants`], §5.5, §5.7): every subset of the placements, with tile-size
//!   parameters whose candidate values obey the device and the occupancy rule
//!   ([`occupancy`]).
//!
//! [`plan_distributed`] does the same for the program with the loops that hold several
//! nests distributed ([`distribution`]), its recipes starting with the `distribute`
//! commands; the plan keeps the program its loop ids belong to ([`Plan::program`]).
//!
//! [`Plan::recipe`] writes the recipe of one choice of variants, commented so that a person
//! can read, edit and replay it. The stage does not judge legality or speed: the recipe
//! interpreter checks every command against the dependences, and the tuner ([`crate::tune`])
//! ranks what is legal.

pub mod analysis;
pub mod distribution;
pub mod occupancy;
pub mod partition;
pub mod placement;
pub mod rescheduled;
mod text;
pub mod variants;

use crate::deps::Dependences;
use crate::device::Device;
use crate::poly::{LoopId, Program, StatementId};
use analysis::Nests;
use std::sync::Arc;
pub use variants::{Param, Variant};

/// The strategy of a program: its items and, for each parallel nest, the variants.
#[derive(Clone, Debug)]
pub struct Plan {
    /// `function sgemm`, for comments.
    pub unit: String,
    pub function: String,
    pub device: String,
    /// The device's `nvcc -arch`.
    pub arch: String,
    pub items: Vec<Item>,
    /// The program whose loops and statements the items name: the one compiled, or that
    /// program with loops distributed ([`distribution`]), with its dependences.
    pub program: Arc<Program>,
    pub deps: Arc<Dependences>,
    /// Recipe lines that turn the compiled program into `program` (none when they are
    /// the same): every recipe of the plan starts with them.
    pub prelude: Vec<String>,
}

/// A part of the program that becomes kernels.
#[derive(Clone, Debug)]
pub enum Item {
    Parallel(Nest),
    Serial(SerialRun),
}

/// A loop nest mapped to blocks and threads.
#[derive(Clone, Debug)]
pub struct Nest {
    pub root: LoopId,
    /// Its statements, in order.
    pub statements: Vec<StatementId>,
    /// Loops around it that stay on the host (time steps).
    pub host: Vec<LoopId>,
    /// Every variant of Phase III, in the order the phases produced them.
    pub variants: Vec<Variant>,
}

impl Nest {
    /// What the nest computes with its arrays named by their order of appearance: its
    /// statements' text, the loops around each (iterator, bounds, step), its host loops,
    /// and the type and extents of each array. Two nests with the same signature are one
    /// computation on other arrays (heat-3d's two sweeps, `A` to `B` then `B` to `A`), so
    /// their kernels' emulated times are the same functions of their tile sizes.
    pub fn signature(&self, p: &Program) -> String {
        self.described(p, false)
    }

    /// The [`Nest::signature`] with the sizes left out: in the loops' bounds and the
    /// arrays' extents, every name but the nest's own loop indices reads `_`, and every
    /// number `#`. Two nests with the same shape are one computation at other sizes
    /// (3mm's three products), whose best tile sizes are near each other's.
    pub fn shape(&self, p: &Program) -> String {
        self.described(p, true)
    }

    fn described(&self, p: &Program, shape: bool) -> String {
        let iterators: Vec<&str> = (self.statements.iter())
            .flat_map(|&s| &p.statements[s].loops)
            .map(|&l| p.loops[l].iterator.as_str())
            .collect();
        let sized = |text: &str| -> String {
            if shape {
                without_sizes(text, &iterators)
            } else {
                text.to_string()
            }
        };
        let mut arrays: Vec<usize> = Vec::new();
        let mut out = format!("host {:?}\n", self.host);
        for &s in &self.statements {
            let st = &p.statements[s];
            for &l in &st.loops {
                let l = &p.loops[l];
                out.push_str(&format!(
                    "for {} {} {}; ",
                    l.iterator,
                    sized(&l.bounds),
                    l.step
                ));
            }
            // The text, each identifier that names an array replaced by its place.
            let mut word = String::new();
            for c in st.text.chars().chain(std::iter::once(' ')) {
                if c.is_ascii_alphanumeric() || c == '_' {
                    word.push(c);
                    continue;
                }
                if !word.is_empty() {
                    match p.arrays.iter().position(|a| a.name == word) {
                        Some(a) => {
                            let place = arrays.iter().position(|&b| b == a).unwrap_or_else(|| {
                                arrays.push(a);
                                arrays.len() - 1
                            });
                            out.push_str(&format!("@{place}"));
                        }
                        None => out.push_str(&word),
                    }
                    word.clear();
                }
                out.push(c);
            }
            out.push('\n');
        }
        for a in arrays {
            let a = &p.arrays[a];
            let dims: Vec<String> = a.dim_texts.iter().map(|d| sized(d)).collect();
            out.push_str(&format!("{} {:?} {:?}\n", a.elem.c_name(), dims, a.kind));
        }
        out
    }
}

/// `text` with every identifier that is not one of `keep` written `_`, and every number
/// `#`.
fn without_sizes(text: &str, keep: &[&str]) -> String {
    let mut out = String::new();
    let mut word = String::new();
    for c in text.chars().chain(std::iter::once('\0')) {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if word.starts_with(|x: char| x.is_ascii_digit()) {
            out.push('#');
        } else if !word.is_empty() && !keep.contains(&word.as_str()) {
            out.push('_');
        } else {
            out.push_str(&word);
        }
        word.clear();
        if c != '\0' {
            out.push(c);
        }
    }
    out
}

/// Statements run by a single thread, in order.
#[derive(Clone, Debug)]
pub struct SerialRun {
    pub statements: Vec<StatementId>,
    pub why: String,
    /// Loops around it that stay on the host, launching it at each iteration between the
    /// parallel nests inside them (the statements of a loop that carries a dependence).
    pub host: Vec<LoopId>,
    /// Its nests in the order isl's scheduler finds, with parallel loops: the tuner runs
    /// each so where the emulator ranks it faster.
    pub rescheduled: Vec<rescheduled::Rescheduled>,
}

/// `line 7` or `lines 7-9`: where statements are, for people.
pub fn lines(p: &Program, statements: &[StatementId]) -> String {
    let l: Vec<usize> = statements.iter().map(|s| p.statements[*s].line).collect();
    let (lo, hi) = (
        l.iter().min().copied().unwrap_or(0),
        l.iter().max().copied().unwrap_or(0),
    );
    if lo == hi {
        format!("line {lo}")
    } else {
        format!("lines {lo}-{hi}")
    }
}

/// `line 7 runs` or `lines 7-9 run`.
pub fn lines_run(p: &Program, statements: &[StatementId]) -> String {
    let l = lines(p, statements);
    if l.starts_with("lines") {
        format!("{l} run")
    } else {
        format!("{l} runs")
    }
}

impl SerialRun {
    /// Its nests that the tuner chose to run rescheduled.
    pub fn chosen_rescheduled(&self) -> Vec<&rescheduled::Rescheduled> {
        self.rescheduled
            .iter()
            .filter(|x| x.chosen.is_some())
            .collect()
    }

    /// The statements that one thread runs (none of a nest run rescheduled).
    pub fn in_one_thread(&self) -> Vec<StatementId> {
        self.parts_in_one_thread().concat()
    }

    /// The statements that one thread runs, cut where the nests run rescheduled were: each
    /// part a kernel of its own.
    pub fn parts_in_one_thread(&self) -> Vec<Vec<StatementId>> {
        let chosen = self.chosen_rescheduled();
        let mut parts: Vec<Vec<StatementId>> = Vec::new();
        let mut part: Vec<StatementId> = Vec::new();
        for s in &self.statements {
            if chosen.iter().any(|x| x.statements.contains(s)) {
                if !part.is_empty() {
                    parts.push(std::mem::take(&mut part));
                }
            } else {
                part.push(*s);
            }
        }
        if !part.is_empty() {
            parts.push(part);
        }
        parts
    }
}

impl Plan {
    /// Whether some code runs in one thread inside loops of launches.
    pub fn splits_loops(&self) -> bool {
        self.items
            .iter()
            .any(|i| matches!(i, Item::Serial(run) if !run.host.is_empty()))
    }

    /// The parallel nests, in order.
    pub fn nests(&self) -> Vec<&Nest> {
        self.items
            .iter()
            .filter_map(|i| match i {
                Item::Parallel(n) => Some(n),
                Item::Serial(_) => None,
            })
            .collect()
    }

    /// Runs parallel nest `k` in one thread instead (none of its variants was legal),
    /// merging it with serial neighbours.
    pub fn demote(&mut self, k: usize, why: String) {
        let mut seen = 0;
        for item in &mut self.items {
            if let Item::Parallel(n) = item {
                if seen == k {
                    *item = Item::Serial(SerialRun {
                        statements: n.statements.clone(),
                        why,
                        host: n.host.clone(),
                        rescheduled: Vec::new(),
                    });
                    break;
                }
                seen += 1;
            }
        }
        self.items = merge_serial(std::mem::take(&mut self.items));
    }

    /// The recipe for `chosen[k]` (the variant of parallel nest `k`), unrolling the
    /// innermost `unroll` loops of the threads, with `notes` in its header.
    pub fn recipe(&self, chosen: &[&Variant], unroll: usize, notes: &[String]) -> String {
        text::recipe(self, chosen, unroll, notes, None)
    }

    /// The commands of parallel nest `k` with `variant` alone (named as in the whole
    /// recipe, after the prelude), to check that they are legal.
    pub fn nest_recipe(&self, k: usize, variant: &Variant) -> String {
        let chosen: Vec<&Variant> = self
            .nests()
            .iter()
            .enumerate()
            .map(|(j, n)| if j == k { variant } else { &n.variants[0] })
            .collect();
        text::recipe(self, &chosen, 0, &[], Some(k))
    }
}

/// Cuts `program` into items and makes the variants of each parallel nest for `device`.
/// `sizes` gives values to symbolic sizes for the estimates ([`analysis::ASSUMED_SIZE`]
/// otherwise).
///
/// With `split`, a loop that carries a dependence around parallel nests and other code
/// stays on the host and the other code runs in one thread at each of its iterations;
/// without, such a nest runs whole in one thread (fewer launches: faster for short
/// loops). The tuner ranks both.
pub fn plan(
    program: &Program,
    deps: &Dependences,
    device: &Device,
    sizes: &[(String, i64)],
    split: bool,
) -> Plan {
    let n = Nests::new(program, deps, sizes);
    let items = merge_serial(walk(&n, None, &[], device, split));
    Plan {
        unit: program.unit.describe(),
        function: program.unit.function.clone(),
        device: device.name.clone(),
        arch: device.arch.clone(),
        items,
        program: Arc::new(program.clone()),
        deps: Arc::new(deps.clone()),
        prelude: Vec::new(),
    }
}

/// [`plan`] of the program with loops distributed, its recipes starting with the
/// commands that distribute them.
pub fn plan_distributed(
    d: &distribution::Distributed,
    device: &Device,
    sizes: &[(String, i64)],
    split: bool,
) -> Plan {
    Plan {
        prelude: d.commands.clone(),
        ..plan(&d.program, &d.deps, device, sizes, split)
    }
}

/// The items under `parent` (the top level for `None`), with `host` loops around them.
fn walk(
    n: &Nests,
    parent: Option<LoopId>,
    host: &[LoopId],
    device: &Device,
    split: bool,
) -> Vec<Item> {
    let p = n.p;
    let mut items = Vec::new();
    for (_, entry) in p.body(parent) {
        match entry {
            Err(s) => items.push(Item::Serial(SerialRun {
                statements: vec![s],
                why: match parent {
                    None => "outside every loop".to_string(),
                    Some(l) if host.last() == Some(&l) => format!(
                        "in the body of `{}` (line {}), which carries a dependence: at each of its iterations",
                        p.loops[l].iterator, p.loops[l].line
                    ),
                    Some(_) => "between loop nests".to_string(),
                },
                host: host.to_vec(),
                rescheduled: Vec::new(),
            })),
            Ok(l) => items.extend(nest_items(n, l, host, device, split)),
        }
    }
    items
}

/// The items of the loop nest rooted at `l`.
fn nest_items(n: &Nests, l: LoopId, host: &[LoopId], device: &Device, split: bool) -> Vec<Item> {
    let statements = n.statements_in(l);
    // The nest in one thread, or in the order isl's scheduler finds where that has a
    // parallel loop (the tuner ranks both).
    let serial = |why: String| {
        let (why, rescheduled) = match rescheduled::rescheduled(n.p, n.deps, l, &statements, host) {
            Ok(r) => (why, vec![r]),
            Err(not) => (format!("{why}; {not}"), Vec::new()),
        };
        vec![Item::Serial(SerialRun {
            statements: statements.clone(),
            why,
            host: host.to_vec(),
            rescheduled,
        })]
    };
    let partitions = partition::candidates(n, l);
    if !partitions.is_empty() {
        let mut all = Vec::new();
        for part in &partitions {
            let c = placement::candidates(n, l, &statements, part);
            all.extend(variants::variants(n, part, &c, device));
        }
        if all.is_empty() {
            return vec![Item::Serial(SerialRun {
                statements,
                why: format!(
                    "no mapping of the nest at line {} fits the device",
                    n.p.loops[l].line
                ),
                host: host.to_vec(),
                rescheduled: Vec::new(),
            })];
        }
        return vec![Item::Parallel(Nest {
            root: l,
            statements,
            host: host.to_vec(),
            variants: all,
        })];
    }
    let any_mappable = n
        .subtree(l)
        .iter()
        .any(|x| n.is_parallel(*x) || n.splittable_reduction(*x).is_some());
    if !any_mappable {
        // The dependence that keeps the outermost loop sequential, for people.
        let carried = match &n.deps.loops[l] {
            crate::deps::LoopKind::Sequential(d) => d.first().map(|&d| {
                format!(
                    " (`{}` carries {})",
                    n.name(l),
                    crate::deps::describe(n.p, &n.deps.dependences[d])
                )
            }),
            _ => None,
        };
        return serial(format!(
            "every loop of the nest at line {} carries a dependence{}",
            n.p.loops[l].line,
            carried.unwrap_or_default()
        ));
    }
    // A loop that carries dependences around other nests: a loop of launches on the host,
    // the parts of its body that cannot run in parallel (its own statements, sequential
    // inner nests) in one thread at each iteration, between the launches (as PPCG does).
    if !split && n.holds_statements(l) {
        return serial(format!(
            "`{}` (line {}) carries a dependence and holds statements of its own",
            n.name(l),
            n.p.loops[l].line
        ));
    }
    let mut inner_host = host.to_vec();
    inner_host.push(l);
    let inner = walk(n, Some(l), &inner_host, device, split);
    if !split && inner.iter().any(|i| matches!(i, Item::Serial(_))) {
        return serial(format!(
            "`{}` (line {}) carries a dependence and part of its body cannot run in parallel",
            n.name(l),
            n.p.loops[l].line
        ));
    }
    if !inner.iter().any(|i| matches!(i, Item::Parallel(_))) {
        return serial(format!(
            "`{}` (line {}) carries a dependence and no part of its body can run in parallel",
            n.name(l),
            n.p.loops[l].line
        ));
    }
    inner
}

/// Consecutive serial items under the same host loops as one run. A run inside host loops
/// that no parallel nest keeps on the host any more (all of them demoted) moves out to
/// the loops that some nest still keeps, or to the top level.
fn merge_serial(mut items: Vec<Item>) -> Vec<Item> {
    let hosts: Vec<Vec<LoopId>> = items
        .iter()
        .filter_map(|i| match i {
            Item::Parallel(n) => Some(n.host.clone()),
            Item::Serial(_) => None,
        })
        .collect();
    for item in &mut items {
        if let Item::Serial(run) = item {
            while !run.host.is_empty() && !hosts.iter().any(|h| h.starts_with(&run.host)) {
                run.host.pop();
            }
        }
    }
    let mut out: Vec<Item> = Vec::new();
    for item in items {
        match (out.last_mut(), item) {
            (Some(Item::Serial(prev)), Item::Serial(next)) if prev.host == next.host => {
                prev.statements.extend(next.statements);
                prev.rescheduled.extend(next.rescheduled);
                if !prev.why.contains(&next.why) {
                    prev.why = format!("{}; {}", prev.why, next.why);
                }
            }
            (_, item) => out.push(item),
        }
    }
    out
}
