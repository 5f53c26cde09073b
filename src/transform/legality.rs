//! Legality: a transformed schedule must run the sink of every dependence (flow, anti,
//! output) after its source. A dependence relation `src -> sink`, mapped through the
//! schedules of its two statements, gives the pairs of time vectors; the schedule is legal
//! when all their differences are lexicographically positive.

use super::{StmtKind, TResult, TransformError, Transformed};
use crate::deps::{DepKind, Dependence, Distance};
use crate::poly::affine::{Aff, Atom, Var};
use crate::poly::isl::{Ctx, Map, Set};
use crate::poly::memo::Memo;
use crate::poly::{AccessId, ScheduleDim, StatementId};
use std::collections::HashMap;

/// The index of the transformed statement of source statement `s`.
pub fn compute_statement(t: &Transformed, s: StatementId) -> usize {
    t.statements
        .iter()
        .position(|st| st.kind == StmtKind::Compute(s))
        .expect("every source statement has a transformed statement")
}

/// The dependences that constrain the order (no input dependences), one per pair of
/// accesses.
pub fn constraining(t: &Transformed) -> Vec<&Dependence> {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for d in &t.deps.dependences {
        if d.kind == DepKind::Input {
            continue;
        }
        let key = (d.kind, d.source_access, d.sink_access);
        if !seen.contains(&key) {
            seen.push(key);
            out.push(d);
        }
    }
    out
}

/// For each constraining dependence, the differences `f(sink) - f(source)` of its
/// instances under the per-statement maps `f` (isl texts from a statement's tuple to a
/// vector, by transformed statement index). Only the dependences that `wanted` accepts
/// (given with the transformed indices of their source and sink) are computed. Each
/// statement's map is parsed once, however many dependences it is in.
pub fn dependence_deltas<'a>(
    t: &'a Transformed,
    ctx: &Ctx,
    map_of: &dyn Fn(usize) -> Option<String>,
    wanted: &dyn Fn(&Dependence, usize, usize) -> bool,
) -> TResult<Vec<(&'a Dependence, Set)>> {
    let wanted: Vec<(&Dependence, usize, usize)> = constraining(t)
        .into_iter()
        .map(|d| {
            (
                d,
                compute_statement(t, d.source),
                compute_statement(t, d.sink),
            )
        })
        .filter(|&(d, src, sink)| wanted(d, src, sink))
        .collect();
    let mut maps: Vec<Option<Map>> = (0..t.statements.len()).map(|_| None).collect();
    for &(_, src, sink) in &wanted {
        for s in [src, sink] {
            if maps[s].is_none() {
                if let Some(text) = map_of(s) {
                    maps[s] = Some(Map::parse(ctx, &text)?);
                }
            }
        }
    }
    let mut out = Vec::new();
    for (d, src, sink) in wanted {
        let (Some(fs), Some(ft)) = (&maps[src], &maps[sink]) else {
            continue;
        };
        let deltas = Map::parse(ctx, &d.relation)?
            .apply_domain(fs)?
            .apply_range(ft)?
            .deltas()?;
        out.push((d, deltas));
    }
    Ok(out)
}

/// The distances of each source-access to sink-access relation of `t`'s dependences,
/// over all its instances (a [`Dependence`] has those of its part carried by one loop,
/// beside the whole relation).
fn distances(t: &Transformed) -> HashMap<(DepKind, AccessId, AccessId), Vec<Distance>> {
    let mut out: HashMap<(DepKind, AccessId, AccessId), Vec<Distance>> = HashMap::new();
    for d in &t.deps.dependences {
        let key = (d.kind, d.source_access, d.sink_access);
        match out.get_mut(&key) {
            None => {
                out.insert(key, d.distance.clone());
            }
            Some(all) => {
                for (a, b) in all.iter_mut().zip(&d.distance) {
                    a.min = a.min.zip(b.min).map(|(x, y)| x.min(y));
                    a.max = a.max.zip(b.max).map(|(x, y)| x.max(y));
                }
            }
        }
    }
    out
}

/// Whether the levels around statements `src` and `sink` keep dependence `d` from one to
/// the other whatever the levels inside. From the outermost level in, until one decides:
///
/// - positions of different subtrees decide (kept where the sink's is the later);
/// - a level with the same value for both statements, a rising function of the index of
///   one source loop around both (counting up, as written), goes by the dependence's
///   distance along that loop (over all its parts): where the value is the index itself
///   (times a positive number, plus a constant), a distance of at least 1 keeps the
///   dependence; where it is never negative, the value never goes down (a tile's
///   `floor(i / 32)` rises by steps), and the levels inside decide for every instance;
/// - anything else leaves the dependence to isl.
///
/// A stencil's time loop keeps every dependence between its sweeps so, and a product's
/// reduction loop `k`, tiled or not, the one that updates `C[i][j]`.
fn kept_outside(
    t: &Transformed,
    positions: &[Vec<usize>],
    distances: &HashMap<(DepKind, AccessId, AccessId), Vec<Distance>>,
    d: &Dependence,
    src: usize,
    sink: usize,
) -> bool {
    let Some(distance) = distances.get(&(d.kind, d.source_access, d.sink_access)) else {
        return false;
    };
    let p = &t.program;
    let common = p.common_loops(d.source, d.sink);
    // Whether common loop `m` counts up, as written, and is the `m`-th index of
    // transformed statement `s` (source statement `id`), by a name of its own.
    let index_at = |s: usize, id: StatementId, m: usize| {
        let (st, ps) = (&t.statements[s], &p.statements[id]);
        let l = common[m];
        let name = &p.loops[l].iterator;
        p.loops[l].step > 0
            && ps.loops.get(m) == Some(&l)
            && st.iterators.get(m) == Some(name)
            && st.iterators.iter().filter(|n| *n == name).count() == 1
            && ps
                .schedule
                .iter()
                .any(|x| matches!(x, ScheduleDim::Loop { id, reversed: false } if *id == l))
    };
    let (a, b) = (&t.statements[src].levels, &t.statements[sink].levels);
    for depth in 0.. {
        let (Some(pa), Some(pb)) = (positions[src].get(depth), positions[sink].get(depth)) else {
            return false;
        };
        if pa != pb {
            return pa < pb;
        }
        let (Some((la, va)), Some((lb, vb))) = (a.get(depth), b.get(depth)) else {
            return false;
        };
        let Some((name, strictly)) = rising(va).filter(|_| la == lb && va == vb) else {
            return false;
        };
        let Some(m) = (0..common.len()).find(|&m| p.loops[common[m]].iterator == name) else {
            return false;
        };
        if !(index_at(src, d.source, m) && index_at(sink, d.sink, m)) {
            return false;
        }
        match distance.get(m).and_then(|x| x.min) {
            Some(lo) if lo >= 1 && strictly => return true,
            // The instances the level does not move forward are decided inside, where
            // all are looked at.
            Some(lo) if lo >= 0 => continue,
            _ => return false,
        }
    }
    false
}

/// The loop index that `value` rises with, alone, and whether strictly: `c * i + k` with
/// `c > 0` strictly, a floor of a rising value (`floor(i / 32)`) by steps; `None` for any
/// other value.
fn rising(value: &Aff) -> Option<(&str, bool)> {
    let mut terms = value.terms.iter();
    let (Some((atom, &c)), None) = (terms.next(), terms.next()) else {
        return None;
    };
    if c <= 0 {
        return None;
    }
    match atom {
        Atom::Var(Var::Index(name)) => Some((name, true)),
        Atom::FloorDiv(inner, d) if *d > 0 => rising(inner).map(|(name, _)| (name, false)),
        _ => None,
    }
}

/// `{ [d0, ..., dn] : d <=lex 0 }` as isl text.
fn lex_nonpositive(prefix: &str, width: usize) -> String {
    let names: Vec<String> = (0..width).map(|k| format!("d{k}")).collect();
    let mut disjuncts = Vec::new();
    for k in 0..=width {
        let mut conds: Vec<String> = (0..k).map(|j| format!("d{j} = 0")).collect();
        if k < width {
            conds.push(format!("d{k} < 0"));
        }
        if conds.is_empty() {
            conds.push("0 = 0".into());
        }
        disjuncts.push(format!("({})", conds.join(" and ")));
    }
    format!(
        "{prefix}{{ [{}] : {} }}",
        names.join(", "),
        disjuncts.join(" or ")
    )
}

/// `{ [a0, ..., an] -> [b0, ..., bn] : a <lex b }` as isl text: the later time vectors.
pub fn lex_later(prefix: &str, width: usize) -> String {
    let a: Vec<String> = (0..width).map(|k| format!("a{k}")).collect();
    let b: Vec<String> = (0..width).map(|k| format!("b{k}")).collect();
    let disjuncts: Vec<String> = (0..width)
        .map(|k| {
            let mut conds: Vec<String> = (0..k).map(|j| format!("b{j} = a{j}")).collect();
            conds.push(format!("b{k} > a{k}"));
            format!("({})", conds.join(" and "))
        })
        .collect();
    format!(
        "{prefix}{{ [{}] -> [{}] : {} }}",
        a.join(", "),
        b.join(", "),
        disjuncts.join(" or ")
    )
}

/// A dependence for people: kind, array, lines, accesses and distance.
pub fn describe(t: &Transformed, d: &Dependence) -> String {
    crate::deps::describe(&t.program, d)
}

/// The schedule of every transformed statement as isl text (what [`check_order`] checks;
/// a command that changes a few statements takes these before it and passes them there).
pub fn schedules(t: &Transformed) -> Vec<String> {
    schedules_at(t, &t.positions())
}

/// [`schedules`] with the statements' [`Transformed::positions`] known.
fn schedules_at(t: &Transformed, positions: &[Vec<usize>]) -> Vec<String> {
    let width = 2 * t.depth() + 1;
    (0..t.statements.len())
        .map(|s| t.schedule_text(s, &positions[s], width))
        .collect()
}

/// Checks that the current schedule respects every dependence; `what` names the command
/// for the message. With `before` (the [`schedules`] of the last checked state), only the
/// dependences of statements whose schedule changed are checked again: the others map to
/// the same time vectors as when they were last found legal.
pub fn check_order(t: &Transformed, what: &str, before: Option<&[String]>) -> TResult<()> {
    let positions = t.positions();
    let now = schedules_at(t, &positions);
    let changed: Vec<bool> = match before {
        Some(b) if b.len() == now.len() => now.iter().zip(b).map(|(x, y)| x != y).collect(),
        _ => vec![true; now.len()],
    };
    // A dependence kept by the levels around the loops that changed needs no isl: one
    // from a nest to the next, asked again for every variant of either, or one a
    // stencil's time loop carries.
    let distances = distances(t);
    let ordered = |d: &Dependence, src: usize, sink: usize| {
        kept_outside(t, &positions, &distances, d, src, sink)
    };
    let ctx = Ctx::new();
    // The differences that reverse a dependence, read once a question is not in the memo.
    let bad: std::cell::OnceCell<Set> = std::cell::OnceCell::new();
    let bad_set = || -> TResult<&Set> {
        if bad.get().is_none() {
            let text = lex_nonpositive(&t.params_prefix(), 2 * t.depth() + 1);
            let _ = bad.set(Set::parse(&ctx, &text)?);
        }
        Ok(bad.get().expect("set above"))
    };
    // The dependences between the same two statements that the memo does not know,
    // judged together first: where their union is not reversed, none is (one computation
    // for the two to four a statement pair has); else each is judged alone below, so
    // that the error names it.
    let mut pairs: Vec<((usize, usize), Vec<&Dependence>)> = Vec::new();
    for d in constraining(t) {
        let (src, sink) = (compute_statement(t, d.source), compute_statement(t, d.sink));
        if !(changed[src] || changed[sink])
            || ordered(d, src, sink)
            || REVERSED
                .get(&verdict_key("", d, &now[src], &now[sink]))
                .is_some()
        {
            continue;
        }
        match pairs.iter_mut().find(|(p, _)| *p == (src, sink)) {
            Some((_, deps)) => deps.push(d),
            None => pairs.push(((src, sink), vec![d])),
        }
    }
    for ((src, sink), deps) in pairs.iter().filter(|(_, deps)| deps.len() > 1) {
        let none_reversed = || -> TResult<bool> {
            // The union in its fewest pieces, asked again for every variant of the nest
            // (a tenth of a 3-D stencil's compile when made each time).
            let key: Vec<&str> = deps.iter().map(|d| d.relation.as_str()).collect();
            let union = UNIONS.get_or(key.join("\n"), || -> TResult<String> {
                let mut relation = Map::parse(&ctx, &deps[0].relation)?;
                for d in &deps[1..] {
                    relation = relation.union(&Map::parse(&ctx, &d.relation)?)?;
                }
                Ok(relation.simplest()?.to_string())
            })?;
            let deltas = Map::parse(&ctx, &union)?
                .apply_domain(&Map::parse(&ctx, &now[*src])?)?
                .apply_range(&Map::parse(&ctx, &now[*sink])?)?
                .deltas()?;
            Ok(deltas.intersect(bad_set()?)?.is_empty()?)
        };
        // An error here (isl's operation limit on the union) leaves each to be judged
        // alone, as before.
        if none_reversed().unwrap_or(false) {
            for d in deps {
                REVERSED.put(verdict_key("", d, &now[*src], &now[*sink]), false);
            }
        }
    }
    let verdicts = dependence_verdicts(
        t,
        &ctx,
        &|s| Some(now[s].clone()),
        &|d, src, sink| (changed[src] || changed[sink]) && !ordered(d, src, sink),
        (&REVERSED, ""),
        &|deltas| Ok(!deltas.intersect(bad_set()?)?.is_empty()?),
    )?;
    match verdicts.into_iter().find(|(_, reversed)| *reversed) {
        Some((d, _)) => Err(TransformError::new(format!("{what} would reverse {}", describe(t, d)))
            .hint("keep the loops that carry this dependence outside, in their original order; `gpucc deps` lists the dependences")),
        None => Ok(()),
    }
}

/// For each constraining dependence between statements that `wanted` accepts, in their
/// order, `judge`'s verdict on its [`dependence_deltas`]. A verdict depends on the
/// dependence's relation, its two statements' maps and the setting named beside the memo
/// only: the strategy generator's variants ask the same questions again and again
/// (gemm_nn: 468 checks of the order, 136 distinct), so verdicts are kept there.
pub fn dependence_verdicts<'a, V: Clone>(
    t: &'a Transformed,
    ctx: &Ctx,
    map_of: &dyn Fn(usize) -> Option<String>,
    wanted: &dyn Fn(&Dependence, usize, usize) -> bool,
    (memo, setting): (&Memo<V>, &str),
    judge: &dyn Fn(&Set) -> TResult<V>,
) -> TResult<Vec<(&'a Dependence, V)>> {
    let maps: Vec<Option<String>> = (0..t.statements.len()).map(map_of).collect();
    let key = |d: &Dependence, src: usize, sink: usize| -> Option<String> {
        Some(verdict_key(
            setting,
            d,
            maps[src].as_ref()?,
            maps[sink].as_ref()?,
        ))
    };
    let known = std::cell::RefCell::new(std::collections::HashMap::new());
    let deltas = dependence_deltas(t, ctx, &|s| maps[s].clone(), &|d, src, sink| {
        let Some(k) = key(d, src, sink).filter(|_| wanted(d, src, sink)) else {
            return false;
        };
        match memo.get(&k) {
            Some(v) => {
                known.borrow_mut().insert(k, v);
                false
            }
            None => true,
        }
    })?;
    let mut known = known.into_inner();
    for (d, deltas) in deltas {
        let v = judge(&deltas)?;
        let (src, sink) = (compute_statement(t, d.source), compute_statement(t, d.sink));
        let k = key(d, src, sink).expect("computed deltas have both maps");
        memo.put(k.clone(), v.clone());
        known.insert(k, v);
    }
    Ok(constraining(t)
        .into_iter()
        .filter_map(|d| {
            let (src, sink) = (compute_statement(t, d.source), compute_statement(t, d.sink));
            let v = known.get(&key(d, src, sink)?)?.clone();
            Some((d, v))
        })
        .collect())
}

/// The memo key of a verdict on dependence `d` under the setting `setting`, with its
/// statements' maps `a` and `b` ([`dependence_verdicts`]).
fn verdict_key(setting: &str, d: &Dependence, a: &str, b: &str) -> String {
    format!("{setting}\n{}\n{a}\n{b}", d.relation)
}

/// Whether a dependence (its relation and its statements' schedules) is reversed.
static REVERSED: Memo<bool> = Memo::new(4096);

/// The union of a statement pair's dependences, simplest ([`Map::simplest`]), by their
/// relations.
static UNIONS: Memo<String> = Memo::new(1024);

/// Runs `change` on `t`, then checks the order it leaves (`what` names the command, as in
/// [`check_order`]); where either fails, `t`'s statements and levels are as before.
pub fn checked_change(
    t: &mut Transformed,
    what: &str,
    change: impl FnOnce(&mut Transformed) -> TResult<()>,
) -> TResult<()> {
    let saved = (t.statements.clone(), t.levels.clone());
    let before = schedules(t);
    let result = change(t).and_then(|()| check_order(t, what, Some(&before)));
    if result.is_err() {
        (t.statements, t.levels) = saved;
    }
    result
}

/// An error unless statement `s` is outside every kernel: `command` changes loops, which
/// must come before `cudaize`.
pub fn check_not_in_kernel(t: &Transformed, s: usize, command: &str) -> TResult<()> {
    if t.kernel_of(s).is_some() {
        return Err(TransformError::new(format!(
            "the statement at line {} is already in a kernel",
            t.source_line(s).unwrap_or(0)
        ))
        .hint(format!("{command} loops before `cudaize`")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transformed(text: &str) -> Transformed {
        let mut p = crate::poly::lowered(text);
        let deps = crate::deps::analyze(&mut p).unwrap();
        Transformed::new(p, deps)
    }

    /// Whether [`kept_outside`] settles each constraining dependence of `t`, with the
    /// text of its accesses.
    fn settled(t: &Transformed) -> Vec<(String, bool)> {
        let (positions, distances) = (t.positions(), distances(t));
        constraining(t)
            .into_iter()
            .map(|d| {
                let (src, sink) = (compute_statement(t, d.source), compute_statement(t, d.sink));
                let p = &t.program;
                let what = format!(
                    "{} {} -> {}",
                    d.kind.name(),
                    p.accesses[d.source_access].text,
                    p.accesses[d.sink_access].text
                );
                (what, kept_outside(t, &positions, &distances, d, src, sink))
            })
            .collect()
    }

    #[test]
    fn a_time_loop_keeps_the_dependences_between_its_sweeps_but_not_those_inside_one() {
        // Two sweeps: every dependence runs from one sweep to the other, or to the next
        // time step; the loops inside may change as they like.
        let jacobi = transformed(
            "#define N 16\nvoid f(float A[N], float B[N]) {\n  for (int t = 0; t < 4; t++) {\n    for (int i = 1; i < N - 1; i++)\n      B[i] = A[i - 1] + A[i + 1];\n    for (int i = 1; i < N - 1; i++)\n      A[i] = B[i - 1] + B[i + 1];\n  }\n}\n",
        );
        let all = settled(&jacobi);
        assert!(!all.is_empty());
        assert!(all.iter().all(|(_, kept)| *kept), "{all:?}");
        // In place: inside a sweep, A[i] reads A[i - 1] written just before. As written,
        // `i` keeps that dependence (distance 1); with `i` run backwards the time loop
        // does not (distance 0 along it), and the check is isl's.
        let mut seidel = transformed(
            "#define N 16\nvoid f(float A[N]) {\n  for (int t = 0; t < 4; t++)\n    for (int i = 1; i < N; i++)\n      A[i] = A[i - 1] + A[i];\n}\n",
        );
        let inside = |t: &Transformed| {
            settled(t)
                .into_iter()
                .find(|(what, _)| what == "flow A[i] -> A[i - 1]")
                .expect("the flow dependence inside a sweep")
                .1
        };
        assert!(inside(&seidel));
        let level = &mut seidel.statements[0].levels[1].1;
        *level = level.scale(-1).unwrap();
        assert!(!inside(&seidel));
        assert!(check_order(&seidel, "reversing `i`", None).is_err());
    }

    #[test]
    fn a_loop_counting_down_or_a_changed_level_leaves_the_dependence_to_isl() {
        let down = transformed(
            "#define N 16\nvoid f(float A[N][N]) {\n  for (int t = 3; t >= 0; t--)\n    for (int i = 0; i < N; i++)\n      A[t][i] = A[t + 1][i];\n}\n",
        );
        assert!(settled(&down).iter().all(|(_, kept)| !kept));
        let mut shifted = transformed(
            "#define N 16\nvoid f(float A[N][N]) {\n  for (int t = 1; t < N; t++)\n    for (int i = 0; i < N; i++)\n      A[t][i] = A[t - 1][i];\n}\n",
        );
        assert!(settled(&shifted).iter().all(|(_, kept)| *kept));
        // The level of `t` is `t + i`, no longer a function of one index: isl decides.
        let level = &mut shifted.statements[0].levels[0].1;
        *level = level.add(&Aff::var(Var::Index("i".into()))).unwrap();
        assert!(settled(&shifted).iter().all(|(_, kept)| !kept));
    }

    /// `t`'s level of loop `name` tiled by `size`, its control level outside it.
    fn tiled(t: &mut Transformed, name: &str, size: i64) {
        let level = t
            .program
            .loops
            .iter()
            .position(|l| l.iterator == name)
            .unwrap();
        super::super::tile::tile(t, level, size, &format!("{name}{name}"), None).unwrap();
    }

    #[test]
    fn a_tile_rises_by_steps_and_leaves_the_decision_to_the_loops_inside() {
        // The product's updates of C[i][j] run along `k`; `floor(k / 4)` never goes back,
        // and `k` inside it moves them forward.
        let mut product = transformed(
            "#define N 16\nvoid f(float A[N][N], float B[N][N], float C[N][N]) {\n  for (int i = 0; i < N; i++)\n    for (int j = 0; j < N; j++)\n      for (int k = 0; k < N; k++)\n        C[i][j] += A[i][k] * B[k][j];\n}\n",
        );
        tiled(&mut product, "k", 4);
        let all = settled(&product);
        assert!(!all.is_empty());
        assert!(all.iter().all(|(_, kept)| *kept), "{all:?}");
        // Distance (1, -1): `i` keeps it; a tile of `j` moved outside `i` does not.
        let mut seidel = transformed(
            "#define N 16\nvoid f(float A[N][N]) {\n  for (int i = 1; i < N; i++)\n    for (int j = 0; j < N - 1; j++)\n      A[i][j] = A[i - 1][j + 1];\n}\n",
        );
        tiled(&mut seidel, "j", 4);
        assert!(settled(&seidel).iter().all(|(_, kept)| *kept));
        seidel.statements[0].levels.swap(0, 1);
        assert!(settled(&seidel).iter().all(|(_, kept)| !kept));
        assert!(check_order(&seidel, "moving the tiles of `j` outside", None).is_err());
    }
}
