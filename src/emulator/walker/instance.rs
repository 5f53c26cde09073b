//! What one statement instance of the walk does: a copy's loads and stores, a
//! statement's reads, arithmetic and write, each access placed in its memory with what it
//! costs a warp.

use super::{thread_coefficients, SubscriptLoops, Walker};
use crate::codegen::ir::{self, Expr};
use crate::frontend::ast::ScalarType;
use crate::poly::ArrayKind;
use crate::transform::datacopy::Memory;
use crate::transform::{Placement, StmtKind};

use super::super::lanes::{l1_reuse, lanes_at, lanes_of, Lanes};
use super::super::runs;
use super::super::workload::{array_extents, Arith, Env, Mem, Sink, Step, L1};

impl<'a> Walker<'a> {
    /// Walks one statement instance; `planned` gives its shared reads as nvcc loads them in
    /// a straight-line run ([`runs::plan`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn instance(
        &self,
        s: usize,
        args: &[Expr],
        stage: Option<crate::codegen::ir::Stage>,
        env: &Env,
        mult: f64,
        sink: &mut dyn Sink,
        planned: Option<&runs::Reads>,
    ) {
        let t = self.t;
        let st = &t.statements[s];
        sink.region(&|| match st.kind {
            StmtKind::Sync => "barriers".to_string(),
            StmtKind::CopyIn(k) | StmtKind::CopyOut(k) => {
                let c = &t.copies[k];
                let (to, from) = match c.memory {
                    Memory::Shared => ("into shared memory", "back from shared memory"),
                    Memory::Registers => ("into registers", "back from registers"),
                };
                let way = if matches!(st.kind, StmtKind::CopyIn(_)) {
                    to
                } else {
                    from
                };
                format!("copy of {} {way}", t.program.arrays[c.array].name)
            }
            StmtKind::Compute(id) => format!("statement at line {}", t.program.statements[id].line),
        });
        match st.kind {
            StmtKind::Sync => {
                // The kernel's asynchronous copies land before the barrier publishes them.
                if t.kernel_of(s).is_some_and(|k| t.has_async_copies(k)) {
                    sink.wait_copies();
                }
                sink.barrier(mult)
            }
            StmtKind::CopyIn(k) | StmtKind::CopyOut(k) => {
                let copy = &t.copies[k];
                let n = st.iterators.len();
                let rank = copy.sizes.len();
                let elem = t.program.arrays[copy.array].elem.size_bytes() as i64;
                let element: Vec<Option<(i64, i64)>> = args[n..n + rank]
                    .iter()
                    .map(|a| thread_coefficients(a, env))
                    .collect();
                let position: Vec<Option<(i64, i64)>> = args[n - rank..n]
                    .iter()
                    .map(|a| thread_coefficients(a, env))
                    .collect();
                let extents = array_extents(self.t, copy.array, env);
                let (global, shared) = if copy.width > 1 && copy.memory == Memory::Shared {
                    self.vector_copy(copy, &extents, elem)
                } else {
                    (
                        self.global_wide(
                            linearize(&element, &extents),
                            elem,
                            elem * copy.width,
                            copy.array,
                        ),
                        self.shared(linearize(&position, &copy.dims), elem),
                    )
                };
                sink.compute(
                    Arith {
                        int: 2,
                        ..Arith::default()
                    },
                    mult,
                );
                match (st.kind, copy.memory) {
                    // A prefetched copy: the load ahead into a register, the store later.
                    (StmtKind::CopyIn(_), Memory::Shared) if stage.is_some() => {
                        if stage.is_some_and(|x| x.load) {
                            sink.load(global, mult);
                        } else {
                            sink.store(shared, mult);
                        }
                    }
                    (StmtKind::CopyIn(_), Memory::Shared) if copy.asynchronous => {
                        sink.copy_async(global, shared, mult)
                    }
                    (StmtKind::CopyIn(_), Memory::Shared) => {
                        sink.load(global, mult);
                        sink.store(shared, mult);
                    }
                    (StmtKind::CopyIn(_), Memory::Registers) => sink.load(global, mult),
                    (_, Memory::Shared) => {
                        sink.load(shared, mult);
                        sink.store(global, mult);
                    }
                    (_, Memory::Registers) => sink.store(global, mult),
                }
            }
            StmtKind::Compute(id) => {
                let p = &t.program;
                let statement = &p.statements[id];
                let n = st.iterators.len();
                let its: Vec<Option<(i64, i64)>> = args[..n]
                    .iter()
                    .map(|a| thread_coefficients(a, env))
                    .collect();
                // How each iterator moves per iteration of the innermost loop around.
                let along: Vec<Option<i64>> = args[..n]
                    .iter()
                    .map(|a| {
                        let var = &env.innermost.as_ref()?.var;
                        let mut along = 0;
                        ir::linear_terms(a, &mut |x, c| {
                            if x == var {
                                along += c;
                            }
                        })?;
                        Some(along)
                    })
                    .collect();
                // Accesses rewritten to copy temporaries, with their indices' coefficients.
                let mut at = n;
                let mut rewritten: Vec<(usize, usize, Vec<Step>)> = Vec::new();
                for &(copy, a, len) in self.rewrites(s).iter() {
                    let coefs = t.copies[copy]
                        .per_buffer(&args[at..at + len])
                        .iter()
                        .map(|x| thread_coefficients(x, env))
                        .collect();
                    at += len;
                    rewritten.push((a, copy, coefs));
                }
                // Per subscript of access `a`: its move along threadIdx.x and .y, and per
                // iteration of the innermost loop.
                let moves = |a: usize| -> Vec<(Step, Option<i64>)> {
                    self.subscripts(id, a)
                        .iter()
                        .map(|sub| {
                            let Some((terms, false)) = sub else {
                                return (None, None);
                            };
                            let mut total = Some((0, 0));
                            let mut step = Some(0);
                            for &(k, coef) in terms {
                                total = total
                                    .zip(its[k])
                                    .map(|((tx, ty), (x, y))| (tx + coef * x, ty + coef * y));
                                step = step.zip(along[k]).map(|(s, a)| s + coef * a);
                            }
                            (total, step)
                        })
                        .collect()
                };
                // Where each access goes (`None`: a register), computed once per access.
                let place_once = |a: usize| -> Option<Mem> {
                    let access = &p.accesses[a];
                    let array = &p.arrays[access.array];
                    let elem = array.elem.size_bytes() as i64;
                    if let Some((_, copy, coefs)) = rewritten.iter().find(|(x, _, _)| *x == a) {
                        let copy = &t.copies[*copy];
                        if copy.memory != Memory::Shared {
                            return None;
                        }
                        let stride = linearize(coefs, &copy.dims);
                        return match planned.and_then(|p| p.loads.iter().find(|(x, _)| *x == a)) {
                            Some((_, 0)) => None,
                            // A run's wide load: its own passes; `wide` stays that of
                            // the element's (what the SASS's 64- and 128-bit loads of
                            // it take).
                            Some(&(_, words)) if words > 1 => match self.shared(stride, elem) {
                                Mem::Shared { wide, .. } => Some(Mem::Shared {
                                    wavefronts: self
                                        .lanes_of(stride, elem, words as i64 * elem)
                                        .wavefronts,
                                    wide,
                                }),
                                m => Some(m),
                            },
                            _ => Some(self.shared(stride, elem)),
                        };
                    }
                    if array.is_scalar() || matches!(array.kind, ArrayKind::Private { .. }) {
                        return None;
                    }
                    let coefs = moves(a);
                    Some(match t.placement(access.array) {
                        Placement::Constant => Mem::Constant,
                        _ => {
                            let extents = array_extents(self.t, access.array, env);
                            let threads: Vec<Step> = coefs.iter().map(|c| c.0).collect();
                            let stride = linearize(&threads, &extents);
                            let mut m = self.global(stride, elem, access.array);
                            if a != statement.write {
                                let steps: Vec<Step> =
                                    coefs.iter().map(|c| c.1.map(|s| (s, 0))).collect();
                                let step = linearize(&steps, &extents).map(|(s, _)| s);
                                let l1 = self.reuse(s, a, stride, step, elem);
                                if let Mem::Global { l1: slot, .. } = &mut m {
                                    *slot = l1;
                                }
                            }
                            m
                        }
                    })
                };
                let placed: std::cell::RefCell<Vec<(usize, Option<Mem>)>> = Default::default();
                let place = |a: usize| -> Option<Mem> {
                    if let Some(&(_, m)) = placed.borrow().iter().find(|(x, _)| *x == a) {
                        return m;
                    }
                    let m = place_once(a);
                    placed.borrow_mut().push((a, m));
                    m
                };
                // An update of a global element that stays put along the innermost loop
                // (`C[i][j] += ...` in a loop over `k`): the compiler keeps it in a
                // register over the loop (the kernel's pointers are `__restrict__`), reads
                // it before the first iteration and writes it after the last, unless a
                // barrier in the loop makes it go through memory.
                let write = place(statement.write);
                let promoted = env.innermost.as_ref().filter(|l| {
                    statement.update.is_some()
                        && !l.barrier
                        && l.count > 1.0
                        && matches!(write, Some(Mem::Global { .. }))
                        && moves(statement.write).iter().all(|m| m.1 == Some(0))
                });
                // How often it is read (`at_end` false) or written, per instance: once per
                // loop (counted: the share of the loop's iterations; expanded: 1 in the
                // first or last iteration, 0 in the others), else every time.
                let share = |at_end: bool| -> f64 {
                    let Some(l) = promoted else {
                        return 1.0;
                    };
                    match l.iteration {
                        None => 1.0 / l.count,
                        Some(k) if k == if at_end { l.count as i64 - 1 } else { 0 } => 1.0,
                        Some(_) => 0.0,
                    }
                };
                // Reads (an update's read of its target included), the arithmetic, the write.
                // L1 keeps the reads of the statement together.
                // An element read twice is loaded once (nvcc eliminates the second load).
                let mut reads: Vec<(Mem, f64)> = statement
                    .reads
                    .iter()
                    .enumerate()
                    .filter(|&(k, _)| self.statement(id).1[k])
                    .filter_map(|(k, &a)| {
                        let f = if k == 0 { share(false) } else { 1.0 };
                        place(a).filter(|_| f > 0.0).map(|m| (m, f))
                    })
                    .collect();
                let kept: f64 = reads
                    .iter()
                    .map(|(m, _)| match m {
                        Mem::Global { l1, .. } => l1.bytes,
                        _ => 0.0,
                    })
                    .sum();
                for (m, share) in &mut reads {
                    if let Mem::Global { l1, .. } = m {
                        l1.bytes = kept;
                    }
                    sink.load(*m, mult * *share);
                }
                let ty = p.arrays[p.accesses[statement.write].array].elem;
                let ops = self.statement(id).0;
                // In a straight-line run, nvcc addresses shared and register elements with
                // immediate offsets: no address arithmetic for them.
                let index = match planned {
                    Some(_) => {
                        let accesses = statement.reads.iter().chain([&statement.write]);
                        let free = accesses
                            .filter(|&&a| place(a).is_none_or(|m| matches!(m, Mem::Shared { .. })))
                            .count();
                        ops.index.saturating_sub(free as u32)
                    }
                    None => ops.index,
                };
                let mut a = Arith {
                    fused: if matches!(ty, ScalarType::Float | ScalarType::Double) {
                        ops.fused
                    } else {
                        0
                    },
                    special: ops.special,
                    // Range reduction and the like around each special function.
                    fp32: 4 * ops.special,
                    int: index,
                    fp64: 0,
                    update: None,
                };
                // What an earlier statement of the run computed is not computed again.
                let arith = ops.arith.saturating_sub(planned.map_or(0, |p| p.saved));
                match ty {
                    ScalarType::Double => a.fp64 += arith,
                    ScalarType::Float => a.fp32 += arith,
                    _ => a.int += arith,
                }
                if statement.update.is_some() && (write.is_none() || promoted.is_some()) {
                    let values: Option<Vec<_>> = args[..n].iter().map(ir::linear_ref).collect();
                    let write = self.subscripts(id, statement.write);
                    a.update = Some(updated_element(statement, &write, values.as_deref()));
                }
                sink.compute(a, mult);
                if let Some(m) = write.filter(|_| share(true) > 0.0) {
                    sink.store(m, mult * share(true));
                }
            }
        }
    }

    /// A global access whose element moves by `stride` elements along threadIdx.x and .y
    /// (`None`: not affine, every lane its own sector). Inside a guard around copies, the
    /// sectors of the lanes that pass (at least one), spread over all warps.
    fn global(&self, stride: Step, elem: i64, array: usize) -> Mem {
        self.global_wide(stride, elem, elem, array)
    }

    /// [`Self::global`] of an access whose lanes each move `bytes` from their element on
    /// (a wide register copy's vector).
    fn global_wide(&self, stride: Step, elem: i64, bytes: i64, array: usize) -> Mem {
        let c = self.copying.get();
        let l = self.lanes_of(stride, elem, bytes);
        let sectors = (l.sectors * c.lanes).max(1.0) * c.warps;
        Mem::Global {
            sectors,
            asked: (l.asked * c.lanes * c.warps).min(sectors),
            array: Some(array),
            l1: L1::default(),
            read_only: !self.written.contains(&array),
        }
    }

    /// [`crate::emulator::lanes::lanes`] for the walk's block, computed once per stride and element size.
    fn lanes(&self, stride: Step, elem: i64) -> Lanes {
        self.lanes_of(stride, elem, elem)
    }

    /// [`lanes_of`], once per walk for each stride, element size and width (every shared
    /// access of every instance walked asks for its plain and wide forms).
    fn lanes_of(&self, stride: Step, elem: i64, bytes: i64) -> Lanes {
        let key = (stride, elem, bytes);
        if let Some((_, r)) = self.lanes.borrow().iter().find(|(k, _)| *k == key) {
            return *r;
        }
        let r = lanes_of(stride, self.block, elem, bytes);
        self.lanes.borrow_mut().push((key, r));
        r
    }

    /// The L1 reuse of read `access` of statement `s` (measured once per walk).
    fn reuse(&self, s: usize, access: usize, stride: Step, step: Option<i64>, elem: i64) -> L1 {
        if let Some((_, r)) = self.reuse.borrow().iter().find(|(k, _)| *k == (s, access)) {
            return *r;
        }
        let r = l1_reuse(stride, step, self.block, &self.running(), elem);
        self.reuse.borrow_mut().push(((s, access), r));
        r
    }

    /// A wide copy's global load and shared store for a warp: its lanes take consecutive
    /// vectors of the box in row-major order ([`crate::transform::vector::distribution`]),
    /// each `copy.width` elements of `elem` bytes.
    fn vector_copy(
        &self,
        copy: &crate::transform::datacopy::DataCopy,
        extents: &[i64],
        elem: i64,
    ) -> (Mem, Mem) {
        let threads: i64 = self.block.iter().product::<i64>().max(1);
        let rank = copy.sizes.len();
        let bytes = copy.width * elem;
        let row_major = |dims: &[i64], x: &[i64]| -> i64 {
            (0..rank)
                .map(|d| x[d] * dims.get(d + 1..).map_or(1, |e| e.iter().product::<i64>()))
                .sum::<i64>()
                * elem
        };
        let (mut global, mut shared) = (Vec::new(), Vec::new());
        for lane in 0..threads.min(32) {
            let mut x = vec![0; rank];
            let mut rest = lane;
            for d in (0..rank).rev() {
                let n = if d + 1 == rank {
                    copy.sizes[d] / copy.width
                } else {
                    copy.sizes[d]
                };
                x[d] = rest % n.max(1);
                rest /= n.max(1);
            }
            x[rank - 1] *= copy.width;
            global.push(row_major(
                &extents[extents.len().saturating_sub(rank)..],
                &x,
            ));
            shared.push(row_major(&copy.dims, &x));
        }
        let c = self.copying.get();
        let g = lanes_at(global, bytes);
        let sectors = (g.sectors * c.lanes).max(1.0) * c.warps;
        let s = lanes_at(shared, bytes);
        (
            Mem::Global {
                sectors,
                asked: (g.asked * c.lanes * c.warps).min(sectors),
                array: Some(copy.array),
                l1: L1::default(),
                read_only: !self.written.contains(&copy.array),
            },
            Mem::Shared {
                wavefronts: s.wavefronts,
                wide: [s.wavefronts; 2],
            },
        )
    }

    fn shared(&self, stride: Step, elem: i64) -> Mem {
        let wide = |k: i64| self.lanes_of(stride, elem, k * elem).wavefronts;
        Mem::Shared {
            wavefronts: self.lanes(stride, elem).wavefronts,
            wide: [wide(2), wide(4)],
        }
    }
}

/// The key of the element an update instance writes: its statement and, where the
/// iterators' values are linear forms, the written subscripts as linear forms of them.
fn updated_element(
    statement: &crate::poly::Statement,
    subscripts: &[SubscriptLoops],
    iterators: Option<&[ir::LinearRef]>,
) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    statement.write.hash(&mut h);
    if let Some(values) = iterators {
        for (loops, _) in subscripts.iter().flatten() {
            let mut terms: Vec<(&str, i64)> = Vec::new();
            let mut constant = 0i64;
            for &(k, coef) in loops {
                let (t, c) = &values[k];
                constant += coef * c;
                for &(name, x) in t {
                    match terms.iter_mut().find(|(n, _)| *n == name) {
                        Some((_, y)) => *y += coef * x,
                        None => terms.push((name, coef * x)),
                    }
                }
            }
            terms.retain(|(_, c)| *c != 0);
            terms.sort();
            (terms, constant).hash(&mut h);
        }
    }
    h.finish()
}

/// The element offset per thread step along x and y of a row-major array access.
fn linearize(coefs: &[Option<(i64, i64)>], extents: &[i64]) -> Option<(i64, i64)> {
    let mut total = (0i64, 0i64);
    for (d, c) in coefs.iter().enumerate() {
        let (x, y) = (*c)?;
        let below: i64 = extents.get(d + 1..).map_or(1, |e| e.iter().product());
        total.0 = total.0.checked_add(x.checked_mul(below)?)?;
        total.1 = total.1.checked_add(y.checked_mul(below)?)?;
    }
    Some(total)
}
