//! Transform stage: the loop transformations of recipes, each checked against the
//! dependences, on a schedule that codegen turns into loops.
//!
//! The transformed program ([`Transformed`]) gives every statement a list of *levels*:
//! the loops around it, outermost first, each a quasi-affine expression of the statement's
//! iterators (`i`, `floor(i/16)`, ...). Statements that share a level share that loop.
//! The order of sibling loops and statements is derived from the text's order
//! ([`TStatement::order`]), so permuting the loops of one statement but not of its
//! neighbour distributes the loop nest, as CHiLL does. Entry points: [`Transformed::new`]
//! and the commands in the submodules ([`tile`], [`permute`], [`unroll`], [`cudaize`] with
//! [`serial`] kernels and [`reduction`]s, [`datacopy`]); every command that changes the
//! order of instances is checked by [`legality`].

pub mod boxcopy;
pub mod cudaize;
pub mod datacopy;
mod footprint;
pub mod legality;
pub mod permute;
pub mod pipeline;
pub mod reduction;
mod registers;
pub mod schedule;
pub mod serial;
pub mod tile;
pub mod unroll;
pub mod vector;

use crate::deps::Dependences;
use crate::poly::affine::{isl_name, Aff, Var};
use crate::poly::{ArrayId, Program, StatementId};

pub type LevelId = usize;

/// A loop of the transformed program.
#[derive(Clone, Debug)]
pub struct Level {
    /// The loop index's name in generated code.
    pub name: String,
    /// For the point loop of a tiled loop: its control loop and the tile size.
    pub tile: Option<Tile>,
    /// Fully unrolled by the code generator.
    pub unroll: bool,
    /// Its copies into shared memory pipelined by the code generator (`prefetch`).
    pub prefetch: bool,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tile {
    pub control: LevelId,
    pub size: i64,
    /// The point loop runs outside its control loop (a cyclic distribution: CHiLL's
    /// tile loop above its control): its value is the offset in the tile, `i mod size`,
    /// and the control loop inside it steps from tile to tile.
    pub outside: bool,
}

/// What a statement of the transformed program does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StmtKind {
    /// A statement of the source.
    Compute(StatementId),
    /// Loads the footprint of a data copy into its temporary.
    CopyIn(usize),
    /// Stores a data copy's temporary back to its array.
    CopyOut(usize),
    /// `__syncthreads()` for the shared-memory copies of a kernel.
    Sync,
}

/// A statement of the transformed program.
#[derive(Clone, Debug)]
pub struct TStatement {
    /// Its name in isl texts (`S0`, `C0_in`, `Y0`).
    pub name: String,
    pub kind: StmtKind,
    /// The names of its domain's dimensions.
    pub iterators: Vec<String>,
    /// Its iteration domain, isl text (`[N] -> { S0[i, j] : ... }`).
    pub domain: String,
    /// The loops around it, outermost first, each with its value.
    pub levels: Vec<(LevelId, Aff)>,
    /// Sibling order: (the source statement it follows, tie-breaker); see
    /// [`Transformed::positions`].
    pub order: (usize, i32),
    /// For copies and barriers: the values of the kernel's host, block and thread
    /// variables at each instance (source statements get them from their levels).
    pub bindings: Vec<(Hw, Aff)>,
}

/// A variable of a kernel that a statement's instance fixes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hw {
    /// The k-th loop that stays on the host.
    Host(usize),
    /// `blockIdx.x` (0) or `.y` (1).
    Block(usize),
    /// `threadIdx.x` (0), `.y`, `.z`.
    Thread(usize),
}

/// Where an array lives on the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    Global,
    /// `__constant__` memory (read-only, at most 64 KB).
    Constant,
    /// Read through the read-only data cache: `const __restrict__` and `__ldg`.
    ReadOnlyCache,
}

/// A failed transformation: what is wrong, and how to fix it.
#[derive(Clone, Debug, PartialEq)]
pub struct TransformError {
    pub message: String,
    pub notes: Vec<String>,
    pub hint: Option<String>,
}

impl TransformError {
    /// A copy whose index arithmetic would not fit in 64-bit integers.
    pub(crate) fn too_large() -> TransformError {
        TransformError::new("the copy's index arithmetic exceeds 64-bit integers")
            .hint("use smaller sizes")
    }

    pub fn new(message: impl Into<String>) -> TransformError {
        TransformError {
            message: message.into(),
            notes: Vec::new(),
            hint: None,
        }
    }

    pub fn note(mut self, note: impl Into<String>) -> TransformError {
        self.notes.push(note.into());
        self
    }

    pub fn hint(mut self, hint: impl Into<String>) -> TransformError {
        self.hint = Some(hint.into());
        self
    }
}

impl From<crate::poly::isl::IslError> for TransformError {
    fn from(e: crate::poly::isl::IslError) -> TransformError {
        if e.too_complex {
            TransformError::new("the transformation is too complex for isl to check")
                .note(e.message)
                .hint(crate::poly::isl::too_complex_hint(
                    "use simpler tile sizes or fewer transformations",
                ))
        } else {
            TransformError::new(format!("internal error: {}", e.message))
                .note("this is a bug in gpucc, not in your recipe; please report it")
        }
    }
}

pub type TResult<T> = Result<T, TransformError>;

/// The program as the recipe has transformed it so far.
#[derive(Clone, Debug)]
pub struct Transformed {
    pub program: Program,
    pub deps: Dependences,
    pub levels: Vec<Level>,
    pub statements: Vec<TStatement>,
    pub kernels: Vec<cudaize::Kernel>,
    pub copies: Vec<datacopy::DataCopy>,
    pub placements: Vec<(ArrayId, Placement)>,
}

impl TStatement {
    /// Whether the statement runs inside loop `l`.
    pub fn below_level(&self, l: LevelId) -> bool {
        self.levels.iter().any(|(x, _)| *x == l)
    }

    /// Whether the statement runs inside the loops `prefix` (outermost first) with a level
    /// of its own below them: one of the loops or statements directly inside `prefix`.
    pub fn below(&self, prefix: &[LevelId]) -> bool {
        self.levels.len() > prefix.len() && self.levels.iter().zip(prefix).all(|((l, _), p)| l == p)
    }
}

impl Transformed {
    /// Whether kernel `k` copies with `cp.async`: its barriers wait for the copies first.
    pub fn has_async_copies(&self, k: usize) -> bool {
        self.copies.iter().any(|c| c.kernel == k && c.asynchronous)
    }

    /// The program as written: one level per source loop.
    pub fn new(program: Program, deps: Dependences) -> Transformed {
        let levels = program
            .loops
            .iter()
            .map(|l| Level {
                name: l.iterator.clone(),
                tile: None,
                unroll: false,
                prefetch: false,
            })
            .collect();
        let statements = program
            .statements
            .iter()
            .enumerate()
            .map(|(s, st)| TStatement {
                name: st.name.clone(),
                kind: StmtKind::Compute(s),
                iterators: st
                    .loops
                    .iter()
                    .map(|l| program.loops[*l].iterator.clone())
                    .collect(),
                domain: program.domain_text(s),
                levels: st
                    .loops
                    .iter()
                    .map(|l| {
                        let lp = &program.loops[*l];
                        let index = Aff::var(Var::Index(lp.iterator.clone()));
                        // A loop counting down runs its index from high to low.
                        let value = if lp.step < 0 {
                            index.scale(-1).unwrap_or(index)
                        } else {
                            index
                        };
                        (*l, value)
                    })
                    .collect(),
                order: (s, 0),
                bindings: Vec::new(),
            })
            .collect();
        Transformed {
            program,
            deps,
            levels,
            statements,
            kernels: Vec::new(),
            copies: Vec::new(),
            placements: Vec::new(),
        }
    }

    /// The source statements (not copies or barriers) that a level encloses.
    pub fn statements_in(&self, level: LevelId) -> Vec<usize> {
        (0..self.statements.len())
            .filter(|s| self.statements[*s].below_level(level))
            .collect()
    }

    /// Adds a level and returns its id.
    pub fn new_level(&mut self, name: impl Into<String>) -> LevelId {
        self.levels.push(Level {
            name: name.into(),
            tile: None,
            unroll: false,
            prefetch: false,
        });
        self.levels.len() - 1
    }

    /// The deepest nesting of levels.
    pub fn depth(&self) -> usize {
        self.statements
            .iter()
            .map(|s| s.levels.len())
            .max()
            .unwrap_or(0)
    }

    /// Every statement's sibling positions: `p[d]` is the position, among the children of
    /// its first `d` levels, of the subtree that holds it. Children are ordered by the
    /// smallest [`TStatement::order`] they hold.
    pub fn positions(&self) -> Vec<Vec<usize>> {
        let mut out: Vec<Vec<usize>> = self
            .statements
            .iter()
            .map(|s| vec![0; s.levels.len() + 1])
            .collect();
        let all: Vec<usize> = (0..self.statements.len()).collect();
        self.assign_positions(&all, 0, &mut out);
        out
    }

    fn assign_positions(&self, group: &[usize], depth: usize, out: &mut [Vec<usize>]) {
        // Children: a level shared by statements, or a statement with no level here.
        let mut children: Vec<(Option<LevelId>, Vec<usize>)> = Vec::new();
        for &s in group {
            let key = self.statements[s].levels.get(depth).map(|(l, _)| *l);
            match key.and_then(|k| children.iter_mut().find(|(c, _)| *c == Some(k))) {
                Some((_, members)) => members.push(s),
                None => children.push((key, vec![s])),
            }
        }
        children
            .sort_by_key(|(_, members)| members.iter().map(|s| self.statements[*s].order).min());
        for (position, (level, members)) in children.iter().enumerate() {
            for &s in members {
                out[s][depth] = position;
            }
            if level.is_some() {
                self.assign_positions(members, depth + 1, out);
            }
        }
    }

    /// The prefix `[N, M] -> ` of isl texts.
    pub fn params_prefix(&self) -> String {
        self.program.params_prefix()
    }

    /// Statement `s`'s schedule in the 2d+1 form, as isl text over its domain's tuple
    /// (`[N] -> { S0[i, j] -> [0, floor((i)/16), 0, i, 0, j, 0] }`), padded to `width`.
    pub fn schedule_text(&self, s: usize, positions: &[usize], width: usize) -> String {
        format!(
            "{}{{ {} -> [{}] }}",
            self.params_prefix(),
            self.tuple(s),
            self.schedule_dims(s, positions, width).join(", ")
        )
    }

    /// The dimensions of [`Self::schedule_text`]: each level's position and value.
    pub fn schedule_dims(&self, s: usize, positions: &[usize], width: usize) -> Vec<String> {
        let st = &self.statements[s];
        let mut dims = Vec::with_capacity(width);
        for (d, (_, value)) in st.levels.iter().enumerate() {
            dims.push(positions[d].to_string());
            dims.push(value.to_string());
        }
        dims.push(positions[st.levels.len()].to_string());
        dims.resize(width, "0".to_string());
        dims
    }

    /// `S0[i, j]`
    pub fn tuple(&self, s: usize) -> String {
        let st = &self.statements[s];
        let names: Vec<String> = st.iterators.iter().map(|n| isl_name(n)).collect();
        format!("{}[{}]", st.name, names.join(", "))
    }

    /// The index of the level in statement `s`'s list.
    pub fn level_index(&self, s: usize, level: LevelId) -> Option<usize> {
        self.statements[s]
            .levels
            .iter()
            .position(|(l, _)| *l == level)
    }

    /// The accesses of source statement `s` rewritten to copy temporaries, in a fixed
    /// order: (copy, access, the offsets of its rewrite).
    fn rewrites_of(&self, s: usize) -> Vec<(usize, crate::poly::AccessId, &[Aff])> {
        let StmtKind::Compute(id) = self.statements[s].kind else {
            return Vec::new();
        };
        let p = &self.program;
        let mut out = Vec::new();
        for (c, copy) in self.copies.iter().enumerate() {
            for (a, offsets) in &copy.rewrites {
                if p.accesses[*a].statement == id {
                    out.push((c, *a, offsets.as_slice()));
                }
            }
        }
        out
    }

    /// The shape of [`Self::copy_indices`] without computing the indices: (copy, access,
    /// number of indices), for the emulator, which reads the indices isl wrote.
    pub fn copy_rewrites(&self, s: usize) -> Vec<(usize, crate::poly::AccessId, usize)> {
        self.rewrites_of(s)
            .into_iter()
            .map(|(c, a, offsets)| {
                let copy = &self.copies[c];
                let subscripts = self.program.accesses[a].subscripts.len();
                let buffer = usize::from(copy.double.is_some() && !copy.prefix.is_empty());
                (
                    c,
                    a,
                    buffer + subscripts.min(offsets.len()).min(copy.strides.len()),
                )
            })
            .collect()
    }

    /// The indices into copy temporaries of a source statement's rewritten accesses, in a
    /// fixed order: (copy, access, index per dimension over the statement's iterators).
    /// Codegen hands them to isl with the statement, so that isl writes them simplified.
    pub fn copy_indices(&self, s: usize) -> Vec<(usize, crate::poly::AccessId, Vec<Aff>)> {
        let p = &self.program;
        let mut out = Vec::new();
        for (c, a, offsets) in self.rewrites_of(s) {
            let copy = &self.copies[c];
            let mut index: Vec<Aff> = Vec::new();
            // A double-buffered copy's buffer: the iteration of its loop, modulo 2.
            if let Some(level) = copy.prefix.last().filter(|_| copy.double.is_some()) {
                let at = self
                    .level_index(s, *level)
                    .expect("a copy's statements run inside its loops");
                index.push(modulo_2(&self.statements[s].levels[at].1));
            }
            index.extend(
                p.accesses[a]
                    .subscripts
                    .iter()
                    .zip(offsets)
                    .zip(&copy.strides)
                    .map(|((sub, off), &stride)| {
                        let sub = sub.as_aff().expect("copies refuse piecewise subscripts");
                        sub.sub(off)
                            .expect("a copy's offsets were computed within 64 bits")
                            .floor_div(stride)
                    }),
            );
            out.push((c, a, index));
        }
        out
    }

    /// Values isl computes with each instance of statement `s`, beyond its iterators: for
    /// a source statement the indices into copy temporaries ([`Self::copy_indices`]), for
    /// a copy the element of the array it moves (offset plus position in the box).
    pub fn extra_values(&self, s: usize) -> Vec<Aff> {
        match self.statements[s].kind {
            StmtKind::Compute(_) => self
                .copy_indices(s)
                .into_iter()
                .flat_map(|(_, _, index)| index)
                .collect(),
            StmtKind::CopyIn(c) | StmtKind::CopyOut(c) => {
                let copy = &self.copies[c];
                let mut values: Vec<Aff> = copy
                    .offsets
                    .iter()
                    .enumerate()
                    .zip(&copy.strides)
                    .map(|((k, off), &stride)| {
                        Aff::var(Var::Index(format!("__x{k}")))
                            .scale(stride)
                            .and_then(|x| off.add(&x))
                            .expect("a copy's offsets were computed within 64 bits")
                    })
                    .collect();
                // A double-buffered copy's buffer follows the element.
                if let Some(name) = &copy.double {
                    values.push(modulo_2(&Aff::var(Var::Index(name.clone()))));
                }
                values
            }
            StmtKind::Sync => Vec::new(),
        }
    }

    /// The placement of an array (global unless a command chose another).
    pub fn placement(&self, array: ArrayId) -> Placement {
        self.placements
            .iter()
            .find(|(a, _)| *a == array)
            .map(|(_, p)| *p)
            .unwrap_or(Placement::Global)
    }

    /// Whether one of `statements` (transformed statement indices) writes `array`: the
    /// arrays a kernel does not write are `const __restrict__` in its signature, and nvcc
    /// reads them through the read-only path (`LDG.E.CONSTANT`).
    pub fn writes(&self, statements: &[usize], array: ArrayId) -> bool {
        statements.iter().any(|&s| match self.statements[s].kind {
            StmtKind::Compute(id) => {
                let st = &self.program.statements[id];
                self.program.accesses[st.write].array == array
            }
            _ => false,
        })
    }

    /// The kernel a statement belongs to, if it has been cudaized.
    pub fn kernel_of(&self, s: usize) -> Option<usize> {
        self.kernels.iter().position(|k| k.statements.contains(&s))
    }

    /// The levels named `name` among the loops around `among` (all statements when
    /// `None`), outermost first, without repetitions.
    pub fn levels_named(&self, name: &str, among: Option<&[usize]>) -> Vec<LevelId> {
        let all: Vec<usize> = (0..self.statements.len()).collect();
        let mut found = Vec::new();
        for &s in among.unwrap_or(&all) {
            for (l, _) in &self.statements[s].levels {
                if self.levels[*l].name == name && !found.contains(l) {
                    found.push(*l);
                }
            }
        }
        found
    }

    /// The source line of transformed statement `s` (`None` for copies and barriers).
    pub fn source_line(&self, s: usize) -> Option<usize> {
        match self.statements[s].kind {
            StmtKind::Compute(id) => Some(self.program.statements[id].line),
            _ => None,
        }
    }

    /// The source lines of the statements a level encloses, for messages.
    pub fn describe_level(&self, level: LevelId) -> String {
        let lines: Vec<String> = self
            .statements_in(level)
            .iter()
            .filter_map(|s| self.source_line(*s).map(|l| l.to_string()))
            .collect();
        if lines.is_empty() {
            format!("`{}`", self.levels[level].name)
        } else {
            format!(
                "`{}` (around line {})",
                self.levels[level].name,
                lines.join(", ")
            )
        }
    }
}

/// `v mod 2` of an integer affine value.
fn modulo_2(v: &Aff) -> Aff {
    v.sub(
        &v.floor_div(2)
            .scale(2)
            .expect("a loop's value halved and doubled fits in 64 bits"),
    )
    .expect("a loop's value modulo 2 fits in 64 bits")
}
