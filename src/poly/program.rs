//! The polyhedral program: arrays, the loop tree, statements with their iteration domains,
//! accesses and original (2d+1) schedule. Domains and accesses are kept as exact affine
//! data ([`Cond`], [`PwAff`]) and handed to isl as text by the builders here.

use super::affine::{isl_name, Aff, Cond, PwAff};
use crate::diag::Span;
use crate::frontend::ast::{ExprId, ScalarType};
use crate::frontend::Unit;

pub type ArrayId = usize;
pub type LoopId = usize;
pub type StatementId = usize;
pub type AccessId = usize;

/// Where an array (or scalar, an array of rank 0) comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum ArrayKind {
    /// A parameter of the function, or for a scop region a declaration outside it.
    Outside,
    /// Declared inside the compiled code, outside every loop.
    Local,
    /// A scalar declared inside loops: each iteration of those loops has its own copy, so
    /// it is modelled as an array indexed by their indices (the loops, outermost first).
    Private { loops: Vec<LoopId> },
}

#[derive(Clone, Debug)]
pub struct Array {
    pub name: String,
    pub elem: ScalarType,
    /// One extent per dimension; `None` for an unsized first dimension (`float A[][N]`).
    pub extents: Vec<Option<Aff>>,
    /// The dimensions as written (`N`, `M + 1`; empty for `[]`).
    pub dim_texts: Vec<String>,
    pub kind: ArrayKind,
    /// The declaration.
    pub span: Span,
    pub is_const: bool,
    /// The declaration has an initializer.
    pub initialized: bool,
}

impl Array {
    pub fn rank(&self) -> usize {
        match &self.kind {
            ArrayKind::Private { loops } => loops.len(),
            _ => self.extents.len(),
        }
    }

    pub fn is_scalar(&self) -> bool {
        self.extents.is_empty()
    }

    /// A constant table declared with its values inside the compiled code
    /// (`const float w[5] = {...};`): each kernel declares its own copy, in registers or
    /// local memory, unless it is placed in constant memory. It is never in global memory.
    pub fn is_table(&self) -> bool {
        self.kind == ArrayKind::Local && self.is_const && self.initialized && !self.is_scalar()
    }

    /// The dimensions as written: `[N][N]`.
    pub fn dims_text(&self) -> String {
        self.dim_texts.iter().map(|d| format!("[{d}]")).collect()
    }
}

/// A `for` loop of the source.
#[derive(Clone, Debug)]
pub struct Loop {
    pub iterator: String,
    pub parent: Option<LoopId>,
    /// 1 for an outermost loop.
    pub depth: usize,
    /// The `for` keyword.
    pub keyword: Span,
    pub line: usize,
    /// The constant step (negative for a loop that counts down).
    pub step: i64,
    /// The iteration range for people: `0 <= i < N`.
    pub bounds: String,
    /// Its place among its siblings (the constant schedule dimension before it).
    pub position: usize,
    /// Where its header runs: the bounds of the loops around it and the `if` conditions
    /// (for the value its index keeps after the loop).
    pub context: Cond,
    /// The index's first value.
    pub first: PwAff,
    /// The loop's condition (`i < N && i < M`), without the start.
    pub bound: Cond,
    /// The values the index takes: from `first` by `step` while `bound` holds.
    pub iterations: Cond,
}

/// A reduction operator of an update `x op= e`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReductionOp {
    Add,
    Mul,
    Min,
    Max,
}

impl ReductionOp {
    pub fn symbol(self) -> &'static str {
        match self {
            ReductionOp::Add => "+",
            ReductionOp::Mul => "*",
            ReductionOp::Min => "min",
            ReductionOp::Max => "max",
        }
    }
}

/// A statement of the form `x = x op e` (or `x op= e`): the read of `x` that it updates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Update {
    pub op: ReductionOp,
    pub read: AccessId,
}

/// What a statement computes.
#[derive(Clone, Debug)]
pub enum StatementKind {
    /// An assignment expression (`=`, `op=`, `++`, `--`).
    Assign(ExprId),
    /// A scalar declaration's initializer: `float s = value;`.
    Init { value: ExprId },
}

/// One element of a 2d+1 schedule vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScheduleDim {
    /// The position among siblings.
    Position(usize),
    /// A loop's index; `reversed` for a loop that counts down.
    Loop { id: LoopId, reversed: bool },
}

/// A statement instance set with its accesses.
#[derive(Clone, Debug)]
pub struct Statement {
    /// `S0`, `S1`, ... in textual order.
    pub name: String,
    pub kind: StatementKind,
    pub span: Span,
    pub line: usize,
    /// The statement's text, white space folded.
    pub text: String,
    /// The enclosing loops, outermost first.
    pub loops: Vec<LoopId>,
    /// The iteration domain: the loop bounds and `if` conditions around the statement.
    pub domain: Cond,
    /// The original schedule, 2d+1 form (positions and loop indices alternating).
    pub schedule: Vec<ScheduleDim>,
    pub write: AccessId,
    /// Reads in evaluation order (for `x += e`, the read of `x` first).
    pub reads: Vec<AccessId>,
    pub update: Option<Update>,
}

/// One array reference of a statement.
#[derive(Clone, Debug)]
pub struct Access {
    pub statement: StatementId,
    pub array: ArrayId,
    pub is_write: bool,
    /// One per dimension of the array (for a private scalar, its loops' indices).
    pub subscripts: Vec<PwAff>,
    pub span: Span,
    /// The reference as written, e.g. `A[i][k]`.
    pub text: String,
    /// The reference's expression in the unit's AST (`None` for the variable a
    /// declaration initialises).
    pub expr: Option<ExprId>,
}

/// A lowered unit.
#[derive(Clone, Debug)]
pub struct Program {
    pub unit: Unit,
    /// Integer parameters kept symbolic (isl parameters), in order of declaration.
    pub params: Vec<String>,
    pub arrays: Vec<Array>,
    pub loops: Vec<Loop>,
    pub statements: Vec<Statement>,
    pub accesses: Vec<Access>,
}

impl Program {
    /// The deepest loop nesting.
    pub fn max_depth(&self) -> usize {
        self.loops.iter().map(|l| l.depth).max().unwrap_or(0)
    }

    /// `[N, M] -> ` (or nothing without parameters): the prefix of every isl text.
    pub fn params_prefix(&self) -> String {
        if self.params.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = self.params.iter().map(|p| isl_name(p)).collect();
            format!("[{}] -> ", names.join(", "))
        }
    }

    /// `S0[i, j]`
    pub fn instance_tuple(&self, s: StatementId) -> String {
        let st = &self.statements[s];
        let names: Vec<String> = st
            .loops
            .iter()
            .map(|l| isl_name(&self.loops[*l].iterator))
            .collect();
        format!("{}[{}]", st.name, names.join(", "))
    }

    /// The iteration domain as isl text: `[N] -> { S0[i, j] : ... }`.
    pub fn domain_text(&self, s: StatementId) -> String {
        format!(
            "{}{{ {} : {} }}",
            self.params_prefix(),
            self.instance_tuple(s),
            self.statements[s].domain
        )
    }

    /// The access relation as isl text, restricted to the statement's domain; `tagged`
    /// puts the access's name in the domain (`[S0[i] -> R3[]] -> A[...]`), as isl's flow
    /// analysis needs to tell references apart.
    pub fn access_text(&self, a: AccessId, tagged: bool) -> String {
        let access = &self.accesses[a];
        let st = &self.statements[access.statement];
        let mut conds = vec![format!("{}", st.domain)];
        // Plain affine subscripts go in the tuple (isl then prints `A[i, j + 1]`);
        // piecewise ones are constraints on named output dimensions.
        let affine: Option<Vec<&Aff>> = access.subscripts.iter().map(|s| s.as_aff()).collect();
        let outs: Vec<String> = match affine {
            Some(affs) => affs.iter().map(|a| a.to_string()).collect(),
            None => {
                let outs: Vec<String> = (0..access.subscripts.len())
                    .map(|k| format!("__o{k}"))
                    .collect();
                for (k, sub) in access.subscripts.iter().enumerate() {
                    conds.push(sub.equals_text(&outs[k]));
                }
                outs
            }
        };
        format!(
            "{}{{ {} -> {}[{}] : {} }}",
            self.params_prefix(),
            self.tagged_instance(a, tagged),
            isl_name(&self.arrays[access.array].name),
            outs.join(", "),
            conds.join(" and ")
        )
    }

    /// The name isl gives access `a` in tagged relations.
    pub fn access_tag(a: AccessId) -> String {
        format!("R{a}")
    }

    fn tagged_instance(&self, a: AccessId, tagged: bool) -> String {
        let tuple = self.instance_tuple(self.accesses[a].statement);
        if tagged {
            format!("[{tuple} -> {}[]]", Program::access_tag(a))
        } else {
            tuple
        }
    }

    /// The schedule of the statement of access `a` (tagged with `a` or not), padded with
    /// zeros to the program's 2d+1 width.
    pub fn schedule_text(&self, s: StatementId, tag: Option<AccessId>) -> String {
        let width = 2 * self.max_depth() + 1;
        let st = &self.statements[s];
        let mut dims: Vec<String> = st
            .schedule
            .iter()
            .map(|d| match d {
                ScheduleDim::Position(p) => p.to_string(),
                ScheduleDim::Loop { id, reversed } => {
                    let name = isl_name(&self.loops[*id].iterator);
                    if *reversed {
                        format!("-{name}")
                    } else {
                        name
                    }
                }
            })
            .collect();
        dims.resize(width, "0".to_string());
        let domain = match tag {
            Some(a) => self.tagged_instance(a, true),
            None => self.instance_tuple(s),
        };
        format!(
            "{}{{ {} -> [{}] }}",
            self.params_prefix(),
            domain,
            dims.join(", ")
        )
    }

    /// The loops shared by two statements (outermost first).
    pub fn common_loops(&self, a: StatementId, b: StatementId) -> Vec<LoopId> {
        self.statements[a]
            .loops
            .iter()
            .zip(&self.statements[b].loops)
            .take_while(|(x, y)| x == y)
            .map(|(x, _)| *x)
            .collect()
    }

    /// The body of loop `parent` (the top level for `None`) in program order: its loops
    /// (`Ok`) and the statements directly in it (`Err`), each with its place among them
    /// (the schedule's constant dimension before it).
    pub fn body(&self, parent: Option<LoopId>) -> Vec<(usize, Result<LoopId, StatementId>)> {
        let mut entries: Vec<(usize, Result<LoopId, StatementId>)> = (self.loops.iter())
            .enumerate()
            .filter(|(_, l)| l.parent == parent)
            .map(|(l, lp)| (lp.position, Ok(l)))
            .collect();
        for (s, st) in self.statements.iter().enumerate() {
            if st.loops.last().copied() == parent {
                let pos = match st.schedule.last() {
                    Some(ScheduleDim::Position(x)) => *x,
                    _ => 0,
                };
                entries.push((pos, Err(s)));
            }
        }
        entries.sort_by_key(|(pos, _)| *pos);
        entries
    }

    /// Whether loop `inner` is `outer` or nested in it.
    pub fn loop_within(&self, inner: LoopId, outer: LoopId) -> bool {
        let mut l = Some(inner);
        while let Some(id) = l {
            if id == outer {
                return true;
            }
            l = self.loops[id].parent;
        }
        false
    }
}

impl Program {
    /// The number of values loop `l`'s index takes in statement `s`'s domain with the
    /// parameters at `sizes` (isl's bounds of the loop's dimension; for a triangular loop
    /// its longest row); `None` when a parameter is missing or isl cannot tell.
    pub fn index_range(&self, s: StatementId, l: LoopId, sizes: &[(String, i64)]) -> Option<i64> {
        use super::isl::Bound;
        let k = self.statements[s].loops.iter().position(|x| *x == l)?;
        let set = self.domain_at(s, sizes)?;
        match set.dim_range(k).ok()? {
            (Bound::Finite(lo), Bound::Finite(hi)) => {
                Some((hi - lo) / self.loops[l].step.abs() + 1)
            }
            _ => None,
        }
    }

    /// Statement `s`'s domain with the parameters at `sizes`, the parameters projected out
    /// (those without a value: any value); `None` when isl cannot read it.
    fn domain_at(&self, s: StatementId, sizes: &[(String, i64)]) -> Option<super::isl::Set> {
        use super::isl::{Ctx, Set};
        let fix: Vec<String> = sizes
            .iter()
            .filter(|(n, _)| self.params.contains(n))
            .map(|(n, v)| format!("{} = {v}", isl_name(n)))
            .collect();
        let mut text = self.domain_text(s);
        if !fix.is_empty() {
            let body = text.trim_end().trim_end_matches('}').to_string();
            text = format!("{body} and {} }}", fix.join(" and "));
        }
        Set::parse(&Ctx::new(), &text)
            .ok()?
            .project_out_params()
            .ok()
    }

    /// The number of values each loop around statement `s` takes (outermost first) when
    /// its domain, with the parameters at `sizes`, is a box (every loop's range the same
    /// whatever the loops around it): its instances are then their product. `None` for
    /// other domains (triangles, strides, guards), a missing size, or when isl cannot tell.
    pub fn box_ranges(&self, s: StatementId, sizes: &[(String, i64)]) -> Option<Vec<i64>> {
        use super::isl::Bound;
        let set = self.domain_at(s, sizes)?.simplify().ok()?;
        if set.is_empty().ok()? || !set.is_box().ok()? {
            return None;
        }
        (0..self.statements[s].loops.len())
            .map(|k| match set.dim_range(k).ok()? {
                (Bound::Finite(lo), Bound::Finite(hi)) if hi >= lo => Some(hi - lo + 1),
                _ => None,
            })
            .collect()
    }

    /// Whether the values the code writes into `array` depend, through any chain of
    /// statements, on a `float` value that the code computes (not an input): the program's
    /// `float` results may come out in another order on a GPU (a reduction split over
    /// threads, fused multiply-adds), and a `double` computed from them inherits their
    /// rounding, not a `double`'s.
    pub fn computed_from_floats(&self, array: ArrayId) -> bool {
        let float = crate::frontend::ast::ScalarType::Float;
        let mut tainted: Vec<bool> = self
            .arrays
            .iter()
            .enumerate()
            .map(|(a, x)| {
                x.elem == float
                    && self
                        .statements
                        .iter()
                        .any(|s| self.accesses[s.write].array == a)
            })
            .collect();
        loop {
            let mut changed = false;
            for st in &self.statements {
                let w = self.accesses[st.write].array;
                if !tainted[w] && st.reads.iter().any(|r| tainted[self.accesses[*r].array]) {
                    tainted[w] = true;
                    changed = true;
                }
            }
            if !changed {
                return tainted[array];
            }
        }
    }

    /// The most updates (`x += e`, `x = fmaxf(x, e)`, ...) one element of `array` receives
    /// at `sizes`: for each updating statement, the product of the ranges of its loops
    /// that its written element does not depend on (1 when nothing updates the array).
    /// A floating-point sum's rounding error grows with it.
    pub fn updates_per_element(&self, array: ArrayId, sizes: &[(String, i64)]) -> i64 {
        let mut most = 1i64;
        for (s, st) in self.statements.iter().enumerate() {
            let write = &self.accesses[st.write];
            if write.array != array || st.update.is_none() {
                continue;
            }
            let mut vars = Vec::new();
            for sub in &write.subscripts {
                sub.vars(&mut vars);
            }
            let mut n = 1i64;
            for &l in &st.loops {
                let index = super::affine::Var::Index(self.loops[l].iterator.clone());
                if !vars.contains(&index) {
                    n = n.saturating_mul(self.index_range(s, l, sizes).unwrap_or(1));
                }
            }
            most = most.max(n);
        }
        most
    }
}
