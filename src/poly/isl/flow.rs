//! isl's dataflow analysis, within an operation budget of its own.

use super::*;

/// Which kind of sources a flow computation takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sources {
    /// Must-sources: each sink gets only its last source (value-based).
    Must,
    /// May-sources: each sink gets every earlier source (memory-based).
    May,
}

/// isl's dataflow analysis (`isl_union_access_info_compute_flow`): for each sink access, the
/// source accesses it depends on under `schedule`. Returns the dependence relation from
/// source instances to sink instances (in the spaces of the maps given, tags included).
pub fn compute_flow(
    sinks: &UnionMap,
    sources: &UnionMap,
    kind: Sources,
    schedule: &UnionMap,
) -> IslResult<UnionMap> {
    // isl's dataflow first, within a budget of its own; past it, or where isl fails on its
    // own (below), the memory-based dependences by a join: for may-sources the same set, for
    // must-sources a superset (every transformation it allows is legal, only fewer are).
    // isl 0.27's dataflow fails on some strided nests ("affine expression involves some of
    // the domain dimensions"; the random nests found one: a loop with step 3 inside two
    // others, an update after an inner loop that writes the same element).
    match within_operations(&sinks.ctx, DATAFLOW_OPERATIONS, || {
        dataflow(sinks, sources, kind, schedule)
    }) {
        Ok(Some(flow)) => Ok(flow),
        Ok(None) => every_earlier(sinks, sources, schedule),
        Err(e) if !e.too_complex => {
            sinks.ctx.raw().reset_error();
            every_earlier(sinks, sources, schedule)
        }
        Err(e) => Err(e),
    }
}

/// The operations isl's dataflow may spend before [`every_earlier`] computes the
/// dependences instead. Measured: no dataflow of PolyBench/C 4.2.1 (MINI) or of the
/// testsuite's kernels needs 300,000 (heat-3d's memory-based ones need over 100,000); the
/// random nests' worst ran for minutes (past 200 million), and spends a second here.
const DATAFLOW_OPERATIONS: u64 = 500_000;

fn dataflow(
    sinks: &UnionMap,
    sources: &UnionMap,
    kind: Sources,
    schedule: &UnionMap,
) -> IslResult<UnionMap> {
    let info = UnionAccessInfo::from_sink(sinks.copy_raw()?).map_err(|e| err("from_sink", e))?;
    let info = match kind {
        Sources::Must => info.set_must_source(sources.copy_raw()?),
        Sources::May => info.set_may_source(sources.copy_raw()?),
    }
    .map_err(|e| err("set_source", e))?;
    let info = info
        .set_schedule_map(schedule.copy_raw()?)
        .map_err(|e| err("set_schedule_map", e))?;
    let flow = info.compute_flow().map_err(|e| err("compute_flow", e))?;
    let raw = match kind {
        Sources::Must => flow.get_must_dependence(),
        Sources::May => flow.get_may_dependence(),
    }
    .map_err(|e| err("get_dependence", e))?;
    Ok(UnionMap {
        raw,
        ctx: sinks.ctx.clone(),
    })
}

/// The memory-based dependences: each source access paired with each later sink access
/// of the same element, `{ source -> sink : A(source) = A(sink), t(source) <lex t(sink) }`.
/// isl's dataflow with may-sources alone (no source kills another) computes the same set,
/// but runs for minutes on strided loops with sizes known only at run time (the random
/// nests found one: the anti-dependences of three strided nests, past 100 s), where the
/// join and the lexicographic order take about a second. On PolyBench the dataflow is the
/// faster (adi: 0.5 s against 3.9 s), so it goes first ([`compute_flow`]).
fn every_earlier(sinks: &UnionMap, sources: &UnionMap, schedule: &UnionMap) -> IslResult<UnionMap> {
    let join = || -> IslResult<IslUnionMap> {
        let same_element = sources
            .copy_raw()?
            .apply_range(sinks.copy_raw()?.reverse().map_err(|e| err("reverse", e))?)
            .map_err(|e| err("apply_range", e))?;
        let earlier = schedule
            .copy_raw()?
            .lex_lt_union_map(schedule.copy_raw()?)
            .map_err(|e| err("lex_lt_union_map", e))?;
        same_element
            .intersect(earlier)
            .map_err(|e| err("intersect", e))
    };
    // isl 0.27's coalescing fails on some of these joins ("total dimensionality changed
    // unexpectedly", found by the random nests); it only simplifies, and it works in place,
    // so on failure the join is computed again and kept as it is.
    let raw = match join()?.coalesce() {
        Ok(raw) => raw,
        Err(_) => join()?,
    };
    Ok(UnionMap {
        raw,
        ctx: sinks.ctx.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The join gives the dataflow's memory-based dependences, on a nest where sources
    /// come before and after sinks, in the same and in other statements.
    #[test]
    fn every_earlier_is_the_may_dataflow() {
        let ctx = Ctx::new();
        let writes = UnionMap::parse(
            &ctx,
            "[n] -> { [S0[i, j] -> R0[]] -> A[i + j] : 0 <= i < n and 0 <= j < 2 * i; [S1[i] -> R2[]] -> A[2 * i] : 0 <= i < n }",
        )
        .unwrap();
        let reads = UnionMap::parse(
            &ctx,
            "[n] -> { [S0[i, j] -> R1[]] -> A[j] : 0 <= i < n and 0 <= j < 2 * i; [S1[i] -> R3[]] -> A[i + 1] : 0 <= i < n }",
        )
        .unwrap();
        let schedule = UnionMap::parse(
            &ctx,
            "{ [S0[i, j] -> R0[]] -> [0, i, 0, j]; [S0[i, j] -> R1[]] -> [0, i, 0, j]; [S1[i] -> R2[]] -> [1, i, 0, 0]; [S1[i] -> R3[]] -> [1, i, 0, 0] }",
        )
        .unwrap();
        for (sinks, sources) in [(&writes, &reads), (&writes, &writes), (&reads, &reads)] {
            let join = every_earlier(sinks, sources, &schedule).unwrap();
            let flow = dataflow(sinks, sources, Sources::May, &schedule).unwrap();
            assert!(
                join.raw.is_equal(&flow.raw).unwrap(),
                "join {join} != dataflow {flow}"
            );
        }
    }

    #[test]
    fn value_based_flow() {
        let ctx = Ctx::new();
        // for i: a[i] = a[i-1]: each read depends on the previous iteration's write.
        let w = UnionMap::parse(&ctx, "{ [S[i] -> W[]] -> a[i] : 0 <= i < 10 }").unwrap();
        let r = UnionMap::parse(&ctx, "{ [S[i] -> R[]] -> a[i - 1] : 0 <= i < 10 }").unwrap();
        let sched =
            UnionMap::parse(&ctx, "{ [S[i] -> W[]] -> [i]; [S[i] -> R[]] -> [i] }").unwrap();
        let dep = compute_flow(&r, &w, Sources::Must, &sched).unwrap();
        let maps = dep.maps().unwrap();
        assert_eq!(maps.len(), 1);
        assert_eq!(
            maps[0].tagged_names().unwrap(),
            ["S", "W", "S", "R"].map(String::from)
        );
        let d = maps[0].untagged().unwrap().deltas().unwrap();
        assert_eq!(
            d.dim_range(0).unwrap(),
            (Bound::Finite(1), Bound::Finite(1))
        );
    }
}
