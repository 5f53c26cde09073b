//! What the strategy generator needs to know about a nest's loops and array accesses
//! (seed 004, §5.2 "Preprocessing"): which loops a subscript uses, which loop indexes an
//! array's last dimension (coalescing), which arrays are only read, and the extents of
//! loops and arrays at the problem size.

use crate::deps::{Dependences, LoopKind};
use crate::poly::affine::Var;
use crate::poly::{AccessId, ArrayId, ArrayKind, LoopId, Program, ReductionOp, StatementId};

/// The loop tree of a program, with the questions the phases ask of it.
pub struct Nests<'a> {
    pub p: &'a Program,
    pub deps: &'a Dependences,
    /// Values of the symbolic sizes for estimates (`n` = 1024 unless told otherwise).
    pub sizes: Vec<(String, i64)>,
}

impl<'a> Nests<'a> {
    pub fn new(p: &'a Program, deps: &'a Dependences, sizes: &[(String, i64)]) -> Nests<'a> {
        let sizes = p
            .params
            .iter()
            .map(|n| {
                let v = sizes
                    .iter()
                    .find(|(m, _)| m == n)
                    .map(|(_, v)| *v)
                    .unwrap_or(ASSUMED_SIZE);
                (n.clone(), v)
            })
            .collect();
        Nests { p, deps, sizes }
    }

    /// The loops directly inside `parent` (top-level ones for `None`), in order.
    pub fn children(&self, parent: Option<LoopId>) -> Vec<LoopId> {
        let mut c: Vec<LoopId> = (0..self.p.loops.len())
            .filter(|&l| self.p.loops[l].parent == parent)
            .collect();
        c.sort_by_key(|&l| self.p.loops[l].position);
        c
    }

    /// The statements inside loop `l` (at any depth).
    pub fn statements_in(&self, l: LoopId) -> Vec<StatementId> {
        (0..self.p.statements.len())
            .filter(|&s| self.p.statements[s].loops.contains(&l))
            .collect()
    }

    /// Whether a statement sits directly in `l` (not in a loop inside it).
    pub fn holds_statements(&self, l: LoopId) -> bool {
        self.statements_in(l)
            .iter()
            .any(|&s| self.p.statements[s].loops.last() == Some(&l))
    }

    /// Every loop inside `l`, `l` included.
    pub fn subtree(&self, l: LoopId) -> Vec<LoopId> {
        (0..self.p.loops.len())
            .filter(|&x| self.p.loop_within(x, l))
            .collect()
    }

    pub fn name(&self, l: LoopId) -> &str {
        &self.p.loops[l].iterator
    }

    pub fn kind(&self, l: LoopId) -> &LoopKind {
        &self.deps.loops[l]
    }

    pub fn is_parallel(&self, l: LoopId) -> bool {
        matches!(self.deps.loops[l], LoopKind::Parallel)
    }

    /// The arrays a reduction loop reduces, if every one of its reductions can be split
    /// over threads (a sum, a minimum or a maximum); `None` otherwise.
    pub fn splittable_reduction(&self, l: LoopId) -> Option<Vec<ArrayId>> {
        match &self.deps.loops[l] {
            LoopKind::Reduction(rs) if rs.iter().all(|(op, _)| *op != ReductionOp::Mul) => {
                let mut arrays: Vec<ArrayId> = rs.iter().map(|(_, a)| *a).collect();
                arrays.dedup();
                Some(arrays)
            }
            _ => None,
        }
    }

    /// The band under `root`: `root`, then while a loop holds exactly one loop and no
    /// statement of its own, that loop (a perfectly nested chain).
    pub fn band(&self, root: LoopId) -> Vec<LoopId> {
        let mut band = vec![root];
        loop {
            let last = *band.last().expect("the band starts with the root");
            let inner = self.children(Some(last));
            match inner.as_slice() {
                [only] if !self.holds_statements(last) => band.push(*only),
                _ => return band,
            }
        }
    }

    /// Iterations of loop `l` at the problem size: its range with the loops around it at
    /// their widest (so a triangular loop counts its longest row).
    pub fn extent(&self, l: LoopId) -> Option<i64> {
        let mut best: Option<i64> = None;
        for s in self.statements_in(l) {
            if let Some(e) = self.index_range(s, l) {
                best = Some(best.map_or(e, |b: i64| b.max(e)));
            }
        }
        best
    }

    /// The number of values loop `l`'s index takes in statement `s`'s domain, at the
    /// problem size, from the domain's constraints (isl).
    fn index_range(&self, s: StatementId, l: LoopId) -> Option<i64> {
        self.p.index_range(s, l, &self.sizes)
    }

    /// The loops whose index subscript `dim` of access `a` uses.
    pub fn loops_in_subscript(&self, a: AccessId, dim: usize) -> Vec<LoopId> {
        let access = &self.p.accesses[a];
        let st = &self.p.statements[access.statement];
        let mut vars = Vec::new();
        if let Some(sub) = access.subscripts.get(dim) {
            sub.vars(&mut vars);
        }
        st.loops
            .iter()
            .copied()
            .filter(|l| vars.contains(&Var::Index(self.p.loops[*l].iterator.clone())))
            .collect()
    }

    /// The loops any subscript of access `a` uses.
    pub fn loops_in_access(&self, a: AccessId) -> Vec<LoopId> {
        let rank = self.p.accesses[a].subscripts.len();
        let mut out = Vec::new();
        for d in 0..rank {
            for l in self.loops_in_subscript(a, d) {
                if !out.contains(&l) {
                    out.push(l);
                }
            }
        }
        out
    }

    /// The coefficient of loop `l`'s index in subscript `dim` of access `a` (0 when it
    /// does not occur; `None` when it occurs inside a division or a piecewise value).
    pub fn coefficient(&self, a: AccessId, dim: usize, l: LoopId) -> Option<i64> {
        let access = &self.p.accesses[a];
        let v = Var::Index(self.p.loops[l].iterator.clone());
        let sub = access.subscripts.get(dim)?;
        match sub.as_aff() {
            Some(aff) => match aff.coefficient(&v) {
                (c, false) => Some(c),
                _ => None,
            },
            None => {
                let mut vars = Vec::new();
                sub.vars(&mut vars);
                if vars.contains(&v) {
                    None
                } else {
                    Some(0)
                }
            }
        }
    }

    /// The array accesses of statements `stmts`, arrays only (no scalars, no private
    /// temporaries).
    pub fn array_accesses(&self, stmts: &[StatementId]) -> Vec<AccessId> {
        (0..self.p.accesses.len())
            .filter(|&a| {
                let acc = &self.p.accesses[a];
                let arr = &self.p.arrays[acc.array];
                stmts.contains(&acc.statement)
                    && !arr.is_scalar()
                    && !matches!(arr.kind, ArrayKind::Private { .. })
            })
            .collect()
    }

    /// The arrays that statements `stmts` access, in order of first access.
    pub fn arrays(&self, stmts: &[StatementId]) -> Vec<ArrayId> {
        let mut out = Vec::new();
        for a in self.array_accesses(stmts) {
            let id = self.p.accesses[a].array;
            if !out.contains(&id) {
                out.push(id);
            }
        }
        out
    }

    /// Whether any statement of the whole program writes `array`.
    pub fn is_written(&self, array: ArrayId) -> bool {
        self.p
            .statements
            .iter()
            .any(|s| self.p.accesses[s.write].array == array)
    }

    /// Whether one of statements `stmts` writes `array`.
    pub fn is_written_by(&self, stmts: &[StatementId], array: ArrayId) -> bool {
        stmts
            .iter()
            .any(|&s| self.p.accesses[self.p.statements[s].write].array == array)
    }

    /// The array's size in bytes at the problem size, when it is known.
    pub fn bytes(&self, array: ArrayId) -> Option<i64> {
        let a = &self.p.arrays[array];
        let mut n: i64 = 1;
        for e in &a.extents {
            let e = e.as_ref()?;
            let v = e.eval(&|v| match v {
                Var::Param(p) => self
                    .sizes
                    .iter()
                    .find(|(n, _)| n == p)
                    .map(|(_, v)| *v)
                    .unwrap_or(ASSUMED_SIZE),
                Var::Index(_) => 0,
            });
            n = n.checked_mul(v.max(0))?;
        }
        n.checked_mul(a.elem.size_bytes() as i64)
    }

    /// Whether every extent of the array is a constant (constant memory needs one).
    pub fn constant_size(&self, array: ArrayId) -> bool {
        self.p.arrays[array]
            .extents
            .iter()
            .all(|e| e.as_ref().and_then(|x| x.as_constant()).is_some())
    }

    /// How many of the nest's accesses have loop `l` in their last subscript with
    /// coefficient ±1 (neighbouring iterations touch neighbouring elements).
    pub fn unit_stride_accesses(&self, stmts: &[StatementId], l: LoopId) -> usize {
        self.array_accesses(stmts)
            .into_iter()
            .filter(|&a| {
                let rank = self.p.accesses[a].subscripts.len();
                rank > 0 && matches!(self.coefficient(a, rank - 1, l), Some(1 | -1))
            })
            .count()
    }

    /// Whether loop `l` indexes the last dimension of the array statement `s` writes.
    pub fn indexes_written_last_dim(&self, s: StatementId, l: LoopId) -> bool {
        let w = self.p.statements[s].write;
        let rank = self.p.accesses[w].subscripts.len();
        rank > 0 && self.loops_in_subscript(w, rank - 1).contains(&l)
    }
}

/// The value assumed for a size known only at run time (an `int n` parameter) when
/// gpucc estimates times.
pub const ASSUMED_SIZE: i64 = 1024;
