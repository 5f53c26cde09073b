//! Dependence stage: a [`Program`] → its [`Dependences`] (isl's dataflow analysis) and the
//! kind of every loop (parallel, reduction, sequential).
//!
//! Entry point: [`analyze`]. Flow (read-after-write) dependences are value-based: each read
//! depends only on the last write of the value it reads. Anti (write-after-read), output
//! (write-after-write) and input (read-after-read, for reuse; arrays only, not scalars)
//! dependences are memory-based. Each dependence relation is split by the loop that
//! carries it: the outermost common loop whose index differs between source and sink,
//! or none for a loop-independent dependence (same iteration of every common loop,
//! ordered by the text).

mod classify;
pub mod privatize;
pub mod report;

pub use classify::{classify_loops, LoopKind};

use crate::diag::{Diagnostic, Diagnostics};
use crate::poly::isl::{compute_flow, Bound, Ctx, IslError, Map, Set, Sources, UnionMap};
use crate::poly::{AccessId, ArrayId, LoopId, Program, StatementId};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DepKind {
    /// Read after write (true dependence), value-based.
    Flow,
    /// Write after read.
    Anti,
    /// Write after write.
    Output,
    /// Read after read: not a constraint, a reuse.
    Input,
}

impl DepKind {
    pub fn name(self) -> &'static str {
        match self {
            DepKind::Flow => "flow",
            DepKind::Anti => "anti",
            DepKind::Output => "output",
            DepKind::Input => "input",
        }
    }
}

/// The distance of a dependence along one common loop (sink index minus source index, in
/// the loop's direction of execution), over all its instances.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Distance {
    pub min: Option<i64>,
    pub max: Option<i64>,
}

impl Distance {
    /// The distance when it is the same for every instance.
    pub fn exact(self) -> Option<i64> {
        match (self.min, self.max) {
            (Some(a), Some(b)) if a == b => Some(a),
            _ => None,
        }
    }

    /// The direction: `=`, `<` (sink later), `>`, `<=`, `>=` or `*`.
    pub fn direction(self) -> &'static str {
        match (self.min, self.max) {
            (Some(0), Some(0)) => "=",
            (Some(lo), _) if lo >= 1 => "<",
            (_, Some(hi)) if hi <= -1 => ">",
            (Some(lo), _) if lo >= 0 => "<=",
            (_, Some(hi)) if hi <= 0 => ">=",
            _ => "*",
        }
    }

    /// For people: the number when exact, else `+`, `-`, `0+`, `0-` or `*`.
    pub fn text(self) -> String {
        if let Some(d) = self.exact() {
            return d.to_string();
        }
        match self.direction() {
            "<" => "+",
            ">" => "-",
            "<=" => "0+",
            ">=" => "0-",
            _ => "*",
        }
        .to_string()
    }
}

/// One dependence: the instances of `sink` that depend on instances of `source` through
/// `array`, carried by one loop (or by none).
#[derive(Clone, Debug, PartialEq)]
pub struct Dependence {
    pub kind: DepKind,
    pub source: StatementId,
    pub sink: StatementId,
    pub source_access: AccessId,
    pub sink_access: AccessId,
    pub array: ArrayId,
    /// One per loop common to source and sink, outermost first.
    pub distance: Vec<Distance>,
    pub carried_by: Option<LoopId>,
    /// The instance relation of the source and sink accesses (all carrying levels
    /// together) in isl notation: `[N] -> { S0[i, j, k] -> S0[i', j', k'] : ... }`.
    pub relation: String,
}

/// All dependences of a program and what they make of its loops.
#[derive(Clone, Debug)]
pub struct Dependences {
    pub dependences: Vec<Dependence>,
    /// Indexed by loop id.
    pub loops: Vec<LoopKind>,
    /// The scalars made private to loops ([`privatize`]); the program's accesses to them
    /// are indexed by those loops' indices, and the dependences above are the expanded
    /// program's.
    pub privatized: Vec<privatize::Privatized>,
}

/// A dependence for people: kind, array, lines, accesses and distance (`the flow
/// dependence on `A` from line 9 to line 9 (`A[i][j]` -> `A[i - 1][j]`, distance (1, 0))`).
pub fn describe(p: &Program, d: &Dependence) -> String {
    let distance: Vec<String> = d.distance.iter().map(|x| x.text()).collect();
    // Statements of two nests share no loop: no distance to give.
    let distance = match distance.is_empty() {
        true => String::new(),
        false => format!(", distance ({})", distance.join(", ")),
    };
    format!(
        "the {} dependence on `{}` from line {} to line {} (`{}` -> `{}`{distance})",
        d.kind.name(),
        p.arrays[d.array].name,
        p.statements[d.source].line,
        p.statements[d.sink].line,
        p.accesses[d.source_access].text,
        p.accesses[d.sink_access].text,
    )
}

/// Computes the dependences of `program` and classifies its loops, after making private
/// the scalars that can be ([`privatize`]: `program` is changed for them).
pub fn analyze(program: &mut Program) -> Result<Dependences, Diagnostics> {
    let diagnostic = |p: &Program, e| vec![isl_diagnostic(p, e)];
    let as_written = analyze_as_written(program).map_err(|e| diagnostic(program, e))?;
    let which = privatize::candidates(program, &as_written).map_err(|e| diagnostic(program, e))?;
    if which.is_empty() {
        return Ok(as_written);
    }
    let arrays = privatize::expand(program, &which);
    let mut deps = analyze_as_written(program).map_err(|e| diagnostic(program, e))?;
    deps.privatized = which
        .into_iter()
        .zip(arrays)
        .map(|(web, array)| {
            // The loops no longer sequential because of it.
            let freed = (0..program.loops.len())
                .filter(|&l| {
                    let before = &as_written.loops[l];
                    let own = |d: &Dependence| {
                        web.accesses.contains(&d.source_access)
                            || web.accesses.contains(&d.sink_access)
                    };
                    matches!(before, LoopKind::Sequential(blocking) if blocking
                        .iter()
                        .any(|&k| own(&as_written.dependences[k])))
                        && !matches!(deps.loops[l], LoopKind::Sequential(_))
                })
                .collect();
            privatize::Privatized {
                array,
                loops: web.loops,
                freed,
            }
        })
        .collect();
    Ok(deps)
}

/// The dependences of `program` as it is written, and its loops' kinds (no scalar made
/// private).
pub fn analyze_as_written(program: &Program) -> Result<Dependences, IslError> {
    let dependences = compute(program, &[DepKind::Flow, DepKind::Anti, DepKind::Output])?;
    let loops = classify_loops(program, &dependences);
    Ok(Dependences {
        dependences,
        loops,
        privatized: Vec::new(),
    })
}

fn isl_diagnostic(program: &Program, e: IslError) -> Diagnostic {
    if e.too_complex {
        Diagnostic::error_nowhere(format!(
            "the dependence analysis of {} is too large for isl",
            program.unit.describe()
        ))
        .with_note(e.message)
        .with_hint(crate::poly::isl::too_complex_hint(
            "simplify the loop bounds or split the code into several functions",
        ))
    } else {
        Diagnostic::bug(e.message)
    }
}

/// Adds the input (read-after-read) dependences of `program` to `deps`, after the others
/// (where sorting puts them). Nothing gpucc decides reads them, and they cost more than
/// the rest together (nussinov: 168 of 350 ms), so [`analyze`] leaves them out: only the
/// reports (`gpucc deps`, a recipe's `print_deps`) count and list them.
pub fn add_input_dependences(program: &Program, deps: &mut Dependences) -> Diagnostics {
    match compute(program, &[DepKind::Input]) {
        Ok(input) => {
            deps.dependences.extend(input);
            Vec::new()
        }
        Err(e) => vec![isl_diagnostic(program, e)],
    }
}

/// The dependences of `program` of the `kinds` given, sorted.
fn compute(program: &Program, kinds: &[DepKind]) -> Result<Vec<Dependence>, IslError> {
    let ctx = Ctx::new();
    let texts = |pick: &dyn Fn(AccessId) -> bool| -> Vec<String> {
        (0..program.accesses.len())
            .filter(|a| pick(*a))
            .map(|a| program.access_text(a, true))
            .collect()
    };
    let is_write = |a: AccessId| program.accesses[a].is_write;
    // Each access set is read only where an analysis asked for needs it (the input
    // dependences' array reads are the reports' alone).
    let union = |pick: &dyn Fn(AccessId) -> bool| {
        UnionMap::parse_all(&ctx, texts(pick).iter().map(|s| s.as_str()))
    };
    let reads = || union(&|a| !is_write(a));
    let writes = || union(&is_write);
    let array_reads =
        || union(&|a| !is_write(a) && !program.arrays[program.accesses[a].array].is_scalar());
    let schedule_texts: Vec<String> = (0..program.accesses.len())
        .map(|a| program.schedule_text(program.accesses[a].statement, Some(a)))
        .collect();
    let schedule = UnionMap::parse_all(&ctx, schedule_texts.iter().map(|s| s.as_str()))?;
    let statement_schedules: Vec<Map> = (0..program.statements.len())
        .map(|s| Map::parse(&ctx, &program.schedule_text(s, None)))
        .collect::<Result<_, _>>()?;

    let mut out = Vec::new();
    for &kind in kinds {
        let (sinks, sources, how) = match kind {
            DepKind::Flow => (reads()?, writes()?, Sources::Must),
            DepKind::Anti => (writes()?, reads()?, Sources::May),
            DepKind::Output => (writes()?, writes()?, Sources::May),
            DepKind::Input => (array_reads()?, array_reads()?, Sources::May),
        };
        let relation = compute_flow(&sinks, &sources, how, &schedule)?;
        for map in relation.maps()? {
            split_by_carrying_loop(program, &ctx, kind, &map, &statement_schedules, &mut out)?;
        }
    }
    out.sort_by_key(|d| {
        (
            d.kind,
            d.source,
            d.sink,
            d.source_access,
            d.sink_access,
            d.carried_by
                .map(|l| program.loops[l].depth)
                .unwrap_or(usize::MAX),
        )
    });
    Ok(out)
}

fn parse_id(name: &str, prefix: char) -> Result<usize, IslError> {
    name.strip_prefix(prefix)
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| IslError {
            message: format!("unexpected tuple name `{name}` in a dependence relation"),
            too_complex: false,
        })
}

/// Splits one source-access → sink-access relation into the part carried by each common
/// loop and the loop-independent part.
fn split_by_carrying_loop(
    program: &Program,
    ctx: &Ctx,
    kind: DepKind,
    map: &Map,
    schedules: &[Map],
    out: &mut Vec<Dependence>,
) -> Result<(), IslError> {
    let [s_src, r_src, s_sink, r_sink] = map.tagged_names()?;
    let (source, sink) = (parse_id(&s_src, 'S')?, parse_id(&s_sink, 'S')?);
    let (source_access, sink_access) = (parse_id(&r_src, 'R')?, parse_id(&r_sink, 'R')?);
    // Differences of schedule vectors: loop dimension m of the common loops is 2m + 1.
    let untagged = map.untagged()?;
    let relation = untagged.to_string();
    let deltas = untagged
        .apply_domain(&schedules[source])?
        .apply_range(&schedules[sink])?
        .deltas()?;
    let width = 2 * program.max_depth() + 1;
    let names: Vec<String> = (0..width).map(|k| format!("d{k}")).collect();
    let common = program.common_loops(source, sink);
    let piece = |zero_levels: usize, nonzero: Option<usize>| -> Result<Set, IslError> {
        let mut conds: Vec<String> = (0..zero_levels)
            .map(|m| format!("d{} = 0", 2 * m + 1))
            .collect();
        if let Some(m) = nonzero {
            conds.push(format!("(d{0} < 0 or d{0} > 0)", 2 * m + 1));
        }
        if conds.is_empty() {
            conds.push("0 = 0".into());
        }
        let text = format!(
            "{}{{ [{}] : {} }}",
            program.params_prefix(),
            names.join(", "),
            conds.join(" and ")
        );
        deltas.intersect(&Set::parse(ctx, &text)?)
    };
    let mut levels: Vec<(Set, Option<LoopId>)> = Vec::new();
    for (m, l) in common.iter().enumerate() {
        levels.push((piece(m, Some(m))?, Some(*l)));
    }
    levels.push((piece(common.len(), None)?, None));
    for (set, carried_by) in levels {
        if set.is_empty()? {
            continue;
        }
        let free = set.project_out_params()?;
        let distance = (0..common.len())
            .map(|m| {
                let (lo, hi) = free.dim_range(2 * m + 1)?;
                let finite = |b| match b {
                    Bound::Finite(v) => Some(v),
                    Bound::Infinite => None,
                };
                Ok(Distance {
                    min: finite(lo),
                    max: finite(hi),
                })
            })
            .collect::<Result<_, IslError>>()?;
        out.push(Dependence {
            kind,
            source,
            sink,
            source_access,
            sink_access,
            array: program.accesses[source_access].array,
            distance,
            carried_by,
            relation: relation.clone(),
        });
    }
    Ok(())
}
