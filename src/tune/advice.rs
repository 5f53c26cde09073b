//! The optimizations `gpucc advise` suggests (seed 002, GPA, `002_7273ee2baaa1853a.txt` §3.3: a catalogue
//! of optimizations, each matched to the stall pattern that calls for it, each with an
//! estimated speedup). Here every suggestion is a recipe the strategy generator compiled
//! and the emulator predicted: the speedup is the emulator's, not a formula. What a
//! candidate changes is read from the transformed programs (what is staged in shared
//! memory or kept in registers, the register tile, wide and pipelined copies, unrolling,
//! the block's shape), and each change belongs to one entry of the catalogue.

use crate::transform::datacopy::Memory;
use crate::transform::{Placement, Transformed};
use std::collections::BTreeSet;

/// What a transformed program does, as far as the catalogue goes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Features {
    /// Arrays staged in shared memory.
    pub shared: BTreeSet<String>,
    /// Arrays whose shared-memory copy is padded against bank conflicts.
    pub padded: BTreeSet<String>,
    /// Arrays kept in registers, with the elements each thread keeps.
    pub registers: Vec<(String, i64)>,
    /// Arrays read through the read-only data cache.
    pub read_only: BTreeSet<String>,
    /// Arrays in constant memory.
    pub constant: BTreeSet<String>,
    /// Copies that move several elements at once (`float4`).
    pub wide: bool,
    /// Double-buffered copies.
    pub pipelined: bool,
    /// Loops unrolled.
    pub unrolled: bool,
    /// Threads per block of each kernel.
    pub threads: Vec<i64>,
}

/// The features of `t`.
pub fn features(t: &Transformed) -> Features {
    let p = &t.program;
    let mut f = Features::default();
    for c in &t.copies {
        let name = p.arrays[c.array].name.clone();
        match c.memory {
            Memory::Shared => {
                if c.dims.last() > c.sizes.last() {
                    f.padded.insert(name.clone());
                }
                f.shared.insert(name);
            }
            Memory::Registers => {
                let elements: i64 = c.sizes.iter().product();
                if !f.registers.iter().any(|(n, _)| *n == name) {
                    f.registers.push((name, elements));
                }
            }
        }
        f.wide |= c.width > 1;
        f.pipelined |= c.double.is_some();
    }
    for (a, placement) in &t.placements {
        let name = p.arrays[*a].name.clone();
        match placement {
            Placement::ReadOnlyCache => {
                f.read_only.insert(name);
            }
            Placement::Constant => {
                f.constant.insert(name);
            }
            Placement::Global => {}
        }
    }
    f.unrolled = t.levels.iter().any(|l| l.unroll);
    f.threads = (t.kernels.iter())
        .map(|k| k.threads.iter().map(|d| d.size).product())
        .collect();
    f
}

/// An entry of the catalogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// Stage arrays in shared memory.
    Shared,
    /// A tile of outputs per thread, in registers (the outer-product form).
    RegisterTile,
    /// Keep an updated element in registers.
    Registers,
    /// Read through the read-only data cache or constant memory.
    ReadOnly,
    /// Copy several elements at once.
    Wide,
    /// Fetch the next tile while computing this one.
    Pipelined,
    /// Unroll loops.
    Unroll,
    /// Pad shared-memory copies against bank conflicts.
    Padding,
    /// Fuse kernels into fewer, or split one into several.
    Kernels,
    /// Another block shape or tile sizes.
    Shape,
}

impl Kind {
    /// The name in the report.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Shared => "stage in shared memory",
            Kind::RegisterTile => "register tiles",
            Kind::Registers => "keep in registers",
            Kind::ReadOnly => "read-only or constant cache",
            Kind::Wide => "wide loads and stores",
            Kind::Pipelined => "pipelined copies (double buffering)",
            Kind::Unroll => "unroll",
            Kind::Padding => "pad shared memory against bank conflicts",
            Kind::Kernels => "fuse or split kernels",
            Kind::Shape => "block shape and tile sizes",
        }
    }

    /// The emulator's resources whose stalls the change addresses (seed 002 §3.3's
    /// matching of optimizations to stall reasons); empty for a change of shape, which
    /// addresses occupancy.
    pub fn addresses(self) -> &'static [&'static str] {
        match self {
            Kind::Shared | Kind::Registers | Kind::ReadOnly => &["dram", "l2", "lsu"],
            Kind::RegisterTile => &["shared", "lsu"],
            Kind::Wide => &["lsu", "shared"],
            Kind::Pipelined => &["barrier", "dram", "l2"],
            Kind::Unroll => &["int", "branch"],
            Kind::Padding => &["shared"],
            Kind::Kernels => &["dram", "l2"],
            Kind::Shape => &[],
        }
    }
}

/// One change from the current code to a candidate.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub kind: Kind,
    /// `A, B in shared memory`.
    pub what: String,
}

/// What `to` changes from `from`, in the order of the catalogue.
pub fn changes(from: &Features, to: &Features) -> Vec<Change> {
    let mut out = Vec::new();
    let mut add = |kind, what: String| out.push(Change { kind, what });
    let staged: Vec<&str> = (to.shared.difference(&from.shared))
        .map(|s| s.as_str())
        .collect();
    if !staged.is_empty() {
        add(
            Kind::Shared,
            format!("{} in shared memory", staged.join(", ")),
        );
    }
    let tile = |f: &Features| f.registers.iter().map(|(_, n)| *n).max().unwrap_or(0);
    let tiled = tile(to) > 1 && tile(to) > tile(from);
    if tiled {
        let (name, n) = (to.registers.iter())
            .max_by_key(|(_, n)| *n)
            .expect("a register copy");
        add(
            Kind::RegisterTile,
            format!("each thread keeps {n} elements of {name} in registers"),
        );
    }
    let kept: Vec<&str> = (to.registers.iter())
        .filter(|(n, _)| !from.registers.iter().any(|(m, _)| m == n))
        .map(|(n, _)| n.as_str())
        .collect();
    if !kept.is_empty() && !tiled {
        add(Kind::Registers, format!("{} in registers", kept.join(", ")));
    }
    let cached: Vec<&str> = (to.read_only.difference(&from.read_only))
        .map(|s| s.as_str())
        .collect();
    if !cached.is_empty() {
        add(
            Kind::ReadOnly,
            format!("{} through the read-only cache", cached.join(", ")),
        );
    }
    let constant: Vec<&str> = (to.constant.difference(&from.constant))
        .map(|s| s.as_str())
        .collect();
    if !constant.is_empty() {
        add(
            Kind::ReadOnly,
            format!("{} in constant memory", constant.join(", ")),
        );
    }
    if to.wide && !from.wide {
        add(Kind::Wide, "copies in vectors of 2 or 4 elements".into());
    }
    if to.pipelined && !from.pipelined {
        add(Kind::Pipelined, "double-buffered copies".into());
    }
    if to.unrolled && !from.unrolled {
        add(Kind::Unroll, "inner loops unrolled".into());
    }
    let padded: Vec<&str> = (to.padded.difference(&from.padded))
        .filter(|a| from.shared.contains(*a))
        .map(|s| s.as_str())
        .collect();
    if !padded.is_empty() {
        add(
            Kind::Padding,
            format!("{} padded in shared memory", padded.join(", ")),
        );
    }
    if to.threads.len() != from.threads.len() {
        add(
            Kind::Kernels,
            format!(
                "{} kernel{} instead of {}",
                to.threads.len(),
                if to.threads.len() == 1 { "" } else { "s" },
                from.threads.len()
            ),
        );
    }
    if to.threads != from.threads && to.threads.len() == from.threads.len() {
        let list = |t: &[i64]| {
            let v: Vec<String> = t.iter().map(|x| x.to_string()).collect();
            v.join(", ")
        };
        add(
            Kind::Shape,
            format!(
                "{} threads per block instead of {}",
                list(&to.threads),
                list(&from.threads)
            ),
        );
    }
    out
}

/// A candidate: its recipe, its predicted time, and what it changes.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub recipe: String,
    pub time_us: f64,
    pub changes: Vec<Change>,
}

/// For each entry of the catalogue that some candidate faster than `current_us` makes,
/// the candidate to suggest: among those that make it, the ones with the fewest other
/// entries (a shape change is a parameter, not counted), and of those the fastest.
/// Ranked by speedup, fastest first; one candidate may serve several entries.
pub fn select(candidates: &[Candidate], current_us: f64) -> Vec<(Kind, usize)> {
    let kinds = [
        Kind::Shared,
        Kind::RegisterTile,
        Kind::Registers,
        Kind::ReadOnly,
        Kind::Wide,
        Kind::Pipelined,
        Kind::Unroll,
        Kind::Padding,
        Kind::Kernels,
        Kind::Shape,
    ];
    let main = |c: &Candidate| c.changes.iter().filter(|x| x.kind != Kind::Shape).count();
    let mut out: Vec<(Kind, usize)> = Vec::new();
    for kind in kinds {
        let best = (candidates.iter().enumerate())
            .filter(|(_, c)| c.time_us < current_us && c.changes.iter().any(|x| x.kind == kind))
            .filter(|(_, c)| kind != Kind::Shape || main(c) == 0)
            .min_by(|(_, a), (_, b)| main(a).cmp(&main(b)).then(a.time_us.total_cmp(&b.time_us)));
        if let Some((k, _)) = best {
            out.push((kind, k));
        }
    }
    out.sort_by(|a, b| candidates[a.1].time_us.total_cmp(&candidates[b.1].time_us));
    out
}

/// The part of candidate `c`'s gain that the changes of `kinds` make: the time of the
/// fastest candidate that makes the same changes but those (shapes aside), or the current
/// code's when they are all `c` changes; `None` when gpucc compiled no such candidate
/// (its variants make them only together with others).
pub fn without(candidates: &[Candidate], c: usize, kinds: &[Kind], current_us: f64) -> Option<f64> {
    let main = |x: &Candidate| -> Vec<Change> {
        (x.changes.iter())
            .filter(|y| y.kind != Kind::Shape)
            .cloned()
            .collect()
    };
    let rest: Vec<Change> = (main(&candidates[c]).into_iter())
        .filter(|k| !kinds.contains(&k.kind))
        .collect();
    if rest.is_empty() {
        return Some(current_us);
    }
    (candidates.iter())
        .filter(|x| main(x) == rest)
        .map(|x| x.time_us)
        .min_by(f64::total_cmp)
}

/// The advice: the entries [`select`] chose, those served by one candidate together
/// (in the order of `chosen`), without those whose own part makes the code slower.
pub fn advice(candidates: &[Candidate], current_us: f64) -> Vec<(Vec<Kind>, usize)> {
    let mut out: Vec<(Vec<Kind>, usize)> = Vec::new();
    for (kind, c) in select(candidates, current_us) {
        match out.iter_mut().find(|(_, x)| *x == c) {
            Some((kinds, _)) => kinds.push(kind),
            None => out.push((vec![kind], c)),
        }
    }
    out.retain(|(kinds, c)| {
        without(candidates, *c, kinds, current_us).is_none_or(|base| base >= candidates[*c].time_us)
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(shared: &[&str], registers: &[(&str, i64)], threads: i64) -> Features {
        Features {
            shared: shared.iter().map(|s| s.to_string()).collect(),
            registers: registers.iter().map(|(n, k)| (n.to_string(), *k)).collect(),
            threads: vec![threads],
            ..Features::default()
        }
    }

    #[test]
    fn each_change_is_one_entry_of_the_catalogue() {
        let naive = with(&[], &[], 256);
        let tiled = with(&["A", "B"], &[("C", 16)], 256);
        let c = changes(&naive, &tiled);
        let kinds: Vec<Kind> = c.iter().map(|x| x.kind).collect();
        assert_eq!(kinds, [Kind::Shared, Kind::RegisterTile]);
        assert_eq!(c[0].what, "A, B in shared memory");
        assert_eq!(c[1].what, "each thread keeps 16 elements of C in registers");
        assert!(changes(&tiled, &tiled).is_empty());
        let wider = with(&[], &[], 128);
        assert_eq!(changes(&naive, &wider)[0].kind, Kind::Shape);
        // Padding where the array was staged already; another number of kernels.
        let staged = with(&["A"], &[], 256);
        let mut padded = staged.clone();
        padded.padded.insert("A".into());
        assert_eq!(
            changes(&staged, &padded),
            [Change {
                kind: Kind::Padding,
                what: "A padded in shared memory".into()
            }]
        );
        let mut constant = naive.clone();
        constant.constant.insert("w".into());
        assert_eq!(
            changes(&naive, &constant),
            [Change {
                kind: Kind::ReadOnly,
                what: "w in constant memory".into()
            }]
        );
        let mut split = naive.clone();
        split.threads = vec![256, 256];
        assert_eq!(changes(&naive, &split)[0].what, "2 kernels instead of 1");
    }

    #[test]
    fn the_suggestion_for_an_entry_changes_least_then_runs_fastest() {
        let c = |time_us, kinds: &[Kind]| Candidate {
            recipe: String::new(),
            time_us,
            changes: kinds
                .iter()
                .map(|&kind| Change {
                    kind,
                    what: String::new(),
                })
                .collect(),
        };
        let candidates = [
            c(10.0, &[Kind::Shared, Kind::RegisterTile, Kind::Shape]),
            c(40.0, &[Kind::Shared, Kind::Shape]),
            c(50.0, &[Kind::Shared]),
            c(90.0, &[Kind::Shape]),
            c(200.0, &[Kind::ReadOnly]),
        ];
        let chosen = select(&candidates, 100.0);
        // Shared staging alone: the faster of the two that change nothing else; register
        // tiles only come with staging; nothing slower than the current code.
        assert_eq!(
            chosen,
            [(Kind::RegisterTile, 0), (Kind::Shared, 1), (Kind::Shape, 3)]
        );
        // Register tiles' own part: against staging alone, the fastest such (40 us).
        assert_eq!(
            without(&candidates, 0, &[Kind::RegisterTile], 100.0),
            Some(40.0)
        );
        // Staging alone: against the current code.
        assert_eq!(without(&candidates, 2, &[Kind::Shared], 100.0), Some(100.0));
        // Staging, given tiles: no candidate has tiles without staging.
        assert_eq!(without(&candidates, 0, &[Kind::Shared], 100.0), None);
        // A change that is slower on its own is no advice; one candidate, one entry.
        let more = [
            c(10.0, &[Kind::Shared, Kind::RegisterTile, Kind::Unroll]),
            c(
                11.0,
                &[
                    Kind::Shared,
                    Kind::RegisterTile,
                    Kind::Unroll,
                    Kind::Pipelined,
                ],
            ),
            c(50.0, &[Kind::Shared]),
        ];
        assert_eq!(
            advice(&more, 100.0),
            [
                (vec![Kind::RegisterTile, Kind::Unroll], 0),
                (vec![Kind::Shared], 2)
            ]
        );
    }
}
