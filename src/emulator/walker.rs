//! The walk of one block of a kernel: the middle thread of block `at` of the grid, each
//! loop at its middle iteration (or expanded iteration by iteration for a sink that asks),
//! each guard on the thread's position sampled over the block ([`walk_block`]); and which
//! block stands for the grid ([`representative_block`]). What each statement instance
//! does is in [`instance`].

mod instance;

use crate::codegen::ir::{self, Expr, KernelIr, Node, Op};
use crate::poly::affine::Var;
use crate::poly::program::StatementKind;
use crate::transform::{StmtKind, Transformed};

use super::lanes::Lanes;
use super::ops::{count_ops, Ops};
use super::runs;
use super::threads::{moves_with_the_block, moving_names, sampled_blocks, Share, ThreadSpace};
use super::workload::{
    conjuncts, eval, trip, unrolled, Arith, Counts, Env, Innermost, Mem, Sink, Step, DIMS, L1,
};

/// Kernel `k`'s grid, and the block whose middle thread represents every thread: the
/// middle one of the grid, or, when every block has an SM of its own (at most `sms`
/// blocks: one wave, the kernel lasts as long as its longest block), the one with the
/// most work ([`heaviest_block`]: a triangle's first rows, say).
pub(super) fn representative_block(
    t: &Transformed,
    k: &KernelIr,
    env: &Env,
    sms: i64,
) -> (Vec<i64>, Vec<i64>) {
    // Ranking asks again for the kernels of the nests a variant leaves alone, whose
    // search for the heaviest block walks up to nine blocks (a block's walk depends on
    // the kernel and the values around its launch, as the emulation's memo has it).
    if k.source.is_empty() {
        return representative_block_uncached(t, k, env, sms);
    }
    let key = format!("{}\n{env:?}\n{sms}", k.source);
    REPRESENTATIVE
        .get_or(key, || {
            Ok::<_, std::convert::Infallible>(representative_block_uncached(t, k, env, sms))
        })
        .unwrap_or_else(|never| match never {})
}

/// The representative blocks found in this process, by kernel, launch values and SMs.
static REPRESENTATIVE: crate::poly::memo::Memo<(Vec<i64>, Vec<i64>)> =
    crate::poly::memo::Memo::new(1024);

fn representative_block_uncached(
    t: &Transformed,
    k: &KernelIr,
    env: &Env,
    sms: i64,
) -> (Vec<i64>, Vec<i64>) {
    let grid: Vec<i64> = k
        .grid
        .iter()
        .map(|g| eval(g, env).unwrap_or(1).max(1))
        .collect();
    let blocks: i64 = grid.iter().product();
    let at = if blocks > 1 && blocks <= sms && bounds_move_with_the_block(k) {
        heaviest_block(t, k, env, &grid)
    } else {
        grid.iter().map(|g| g / 2).collect()
    };
    (grid, at)
}

/// Whether a loop bound of kernel `k` depends on the block's position (through
/// `blockIdx` or the prologue's variables): else every block does the same.
fn bounds_move_with_the_block(k: &KernelIr) -> bool {
    fn any_loop(nodes: &[Node], f: &dyn Fn(&Expr) -> bool) -> bool {
        nodes.iter().any(|n| match n {
            Node::For {
                init, cond, body, ..
            } => f(init) || f(cond) || any_loop(body, f),
            Node::If {
                then_branch,
                else_branch,
                ..
            } => any_loop(then_branch, f) || else_branch.as_deref().is_some_and(|b| any_loop(b, f)),
            _ => false,
        })
    }
    let moving = moving_names(k);
    any_loop(&k.body, &|e| moves_with_the_block(e, &moving))
}

/// Of the blocks at both ends and in the middle of each dimension of `grid`, the one whose
/// representative thread does the most (instructions counted); the middle block unless
/// another does more. A block's work varies with its position where guards cut it (the
/// last blocks of a loop with a remainder, a triangle's blocks along its diagonal): most at
/// an end or in the middle. (Five positions a dimension, as guards are sampled, found no
/// heavier block in any of the 144 searches of the strategy kernels, the CUDA cases and
/// PolyBench at MINI and LARGE, and walked 26 blocks for 9 in 2-D: a fifth of 2mm's
/// compile at LARGE.) The positions are searched one dimension at a time, each from the
/// heaviest block so far, and ties go to the block every combination's search
/// ([`sampled_blocks`], the last dimension slowest) would have met first: at most 6
/// blocks walked in 2-D instead of up to 10, and on the 134 compiles of the testsuite
/// and PolyBench at MINI and LARGE, the block every combination's search finds in each
/// of its 195 searches.
fn heaviest_block(t: &Transformed, k: &KernelIr, env: &Env, grid: &[i64]) -> Vec<i64> {
    let middle: Vec<i64> = grid.iter().map(|g| g / 2).collect();
    let work = |at: &[i64]| {
        let mut counts = Counts::default();
        walk_block(t, k, env.clone(), grid, at, &mut counts);
        counts.instructions()
    };
    // Per dimension, its sampled positions; a block's place among every combination's.
    let along: Vec<Vec<i64>> = grid
        .iter()
        .map(|&g| sampled_blocks(&[g], 3).concat())
        .collect();
    let place = |at: &[i64]| -> usize {
        let mut place = 0;
        for d in (0..at.len()).rev() {
            let i = along[d].iter().position(|x| *x == at[d]).unwrap_or(0);
            place = place * along[d].len() + i;
        }
        place
    };
    // The heaviest so far: its work, its place (none for the middle block, which wins
    // every tie), and where it is.
    let mut best: (f64, Option<usize>, Vec<i64>) = (work(&middle), None, middle.clone());
    let mut walked: Vec<Vec<i64>> = Vec::new();
    let mut base: Vec<i64> = grid.iter().map(|g| (g - 1).max(0) / 2).collect();
    for d in 0..grid.len() {
        for &x in &along[d] {
            let mut at = base.clone();
            at[d] = x;
            if at == middle || walked.contains(&at) {
                continue;
            }
            let w = work(&at);
            walked.push(at.clone());
            let p = place(&at);
            let heavier = w > best.0 || (w == best.0 && best.1.is_some_and(|q| p < q));
            if heavier {
                best = (w, Some(p), at);
            }
        }
        if best.1.is_some() {
            base = best.2.clone();
        }
    }
    best.2
}

/// Walks kernel `k` for the middle thread of block `at` of `grid` into `sink`; returns
/// the blocks per launch, the share of them that work, and the block's shape.
pub(super) fn walk_block(
    t: &Transformed,
    k: &KernelIr,
    mut env: Env,
    grid: &[i64],
    at: &[i64],
    sink: &mut dyn Sink,
) -> (f64, f64, Vec<i64>) {
    let blocks: f64 = grid.iter().map(|g| *g as f64).product();
    let block = if k.block.is_empty() {
        vec![1]
    } else {
        k.block.clone()
    };
    let entry_env = env.clone();
    for (d, b) in block.iter().enumerate() {
        env.set(&format!("threadIdx.{}", DIMS[d]), b / 2);
        env.thread_coefficients.push((
            format!("threadIdx.{}", DIMS[d]),
            (i64::from(d == 0), i64::from(d == 1)),
        ));
    }
    for (d, b) in at.iter().enumerate() {
        env.set(&format!("blockIdx.{}", DIMS[d]), *b);
        env.thread_coefficients
            .push((format!("blockIdx.{}", DIMS[d]), (0, 0)));
    }
    for v in &k.prologue {
        if let Some(x) = eval(&v.value, &env) {
            env.set(&v.name, x);
        }
        let c = thread_coefficients(&v.value, &env);
        env.thread_coefficients
            .push((v.name.clone(), c.unwrap_or((0, 0))));
    }
    let walker = Walker {
        t,
        block: &block,
        space: ThreadSpace {
            kernel: k,
            grid,
            block: &block,
            entry: entry_env,
        },
        active: std::cell::Cell::new(1.0),
        fractions: std::cell::RefCell::new(std::collections::HashMap::new()),
        copying: std::cell::Cell::new(Share::ALL),
        shrink: std::cell::Cell::new(1.0),
        sizes: std::cell::RefCell::new(Vec::new()),
        reuse: std::cell::RefCell::new(Vec::new()),
        statements: std::cell::RefCell::new(Vec::new()),
        subscripts: std::cell::RefCell::new(Vec::new()),
        rewrites: std::cell::RefCell::new(Vec::new()),
        lanes: std::cell::RefCell::new(Vec::new()),
        guards: std::cell::RefCell::new(Vec::new()),
        masks: std::cell::RefCell::new(std::collections::HashMap::new()),
        written: (0..t.program.arrays.len())
            .filter(|&a| t.writes(&t.kernels[k.kernel].statements, a))
            .collect(),
        runs: std::cell::RefCell::new(std::collections::HashMap::new()),
        planned: std::cell::RefCell::new(Vec::new()),
    };
    walker.nodes(&k.body, &mut env, 1.0, sink);
    let working_share = walker.active.get();
    let blocks = blocks * working_share;
    // A reduction ends with the block combining its partials (shuffles, a barrier, a few
    // shared-memory accesses) and one atomic per block.
    let warps = (block.iter().product::<i64>() as f64 / 32.0)
        .ceil()
        .max(1.0);
    for _ in &k.reductions {
        sink.region(&|| "the reduction's combine".to_string());
        sink.compute(
            Arith {
                int: 10,
                ..Arith::default()
            },
            1.0,
        );
        sink.load(Mem::shared(1.0), 2.0);
        sink.barrier(1.0);
        sink.atomic(1.0 / warps);
        sink.end_instance();
    }
    (blocks, working_share, block)
}

/// How an expression moves with threadIdx.x and .y (through the prologue's variables and
/// loop variables whose start depends on them); `None` when it is not affine.
fn thread_coefficients(e: &Expr, env: &Env) -> Option<(i64, i64)> {
    let mut cx = 0;
    let mut cy = 0;
    ir::linear_terms(e, &mut |name, c| {
        let moves = env
            .thread_coefficients
            .iter()
            .rev()
            .find(|(n, _)| n == name);
        if let Some((_, (x, y))) = moves {
            cx += c * x;
            cy += c * y;
        }
    })?;
    Some((cx, cy))
}

/// A warp access's move along the threads, its element size and the bytes each lane moves.
type LanesKey = (Step, i64, i64);

/// The share of threads that pass a guard, and its conjuncts left to evaluate per
/// iteration ([`Walker::guard`]).
type MeasuredGuard<'a> = (Option<Share>, Vec<&'a Expr>);

/// Per subscript of an access, the loops of its statement whose iterators it moves with
/// and their coefficients outside divisions, and whether an iterator occurs inside a
/// division (`None`: not affine).
type Subscripts = std::rc::Rc<Vec<SubscriptLoops>>;

/// One subscript's entry of [`Subscripts`].
type SubscriptLoops = Option<(Vec<(usize, i64)>, bool)>;

/// A statement's accesses rewritten to copy temporaries: (copy, access, indices).
type Rewrites = std::rc::Rc<Vec<(usize, crate::poly::AccessId, usize)>>;

/// Which threads of a block pass a guard, in `threadIdx` order.
type Mask = std::rc::Rc<Vec<bool>>;

/// A source statement's operations, and per read whether it is the first of its element
/// (the compiler loads an element written twice once).
type Distinct = (Ops, std::rc::Rc<Vec<bool>>);

struct Walker<'a> {
    t: &'a Transformed,
    block: &'a [i64],
    space: ThreadSpace<'a>,
    /// The share of the blocks' warps that do the work: the smallest share of warps
    /// that pass a guard on the thread's position (a triangle's blocks above its
    /// diagonal do nothing).
    active: std::cell::Cell<f64>,
    /// Guards already measured (by value, as an unrolled tile repeats each guard, and
    /// whether split), with their share and the conjuncts left to evaluate per iteration
    /// ([`Walker::guard`]).
    fractions: std::cell::RefCell<std::collections::HashMap<(&'a Expr, bool), MeasuredGuard<'a>>>,
    /// The threads that run the copies being walked (inside guards around copies only).
    copying: std::cell::Cell<Share>,
    /// In an expanding walk, the share of their iterations the loops about to be walked
    /// expand (see the loops in [`Walker::nodes`]).
    shrink: std::cell::Cell<f64>,
    /// Loop bodies already measured for an expanding walk (by address), with their size.
    sizes: std::cell::RefCell<Vec<(*const Node, f64)>>,
    /// L1 reuse already measured, per (statement, access).
    reuse: std::cell::RefCell<Vec<((usize, usize), L1)>>,
    /// [`Walker::lanes_of`] already computed, per stride and element size.
    lanes: std::cell::RefCell<Vec<(LanesKey, Lanes)>>,
    /// Per source statement already seen: [`Walker::statement`].
    statements: std::cell::RefCell<Vec<(usize, Distinct)>>,
    /// Per (source statement, access) already seen: [`Walker::subscripts`].
    subscripts: std::cell::RefCell<Vec<((usize, usize), Subscripts)>>,
    /// Per transformed statement already seen: its rewritten accesses
    /// ([`Transformed::copy_rewrites`]).
    rewrites: std::cell::RefCell<Vec<(usize, Rewrites)>>,
    /// The guards on the thread's position around the code being walked, each with the
    /// side taken (see [`Walker::running`]).
    guards: std::cell::RefCell<Vec<(&'a Expr, bool)>>,
    /// Guards already evaluated thread by thread (by value): which threads pass.
    masks: std::cell::RefCell<std::collections::HashMap<&'a Expr, Mask>>,
    /// The arrays the kernel writes.
    written: Vec<usize>,
    /// Per statement in a straight-line run, its shared reads as nvcc loads them
    /// ([`runs::plan`]); the node lists planned (by their first node's address).
    runs: std::cell::RefCell<std::collections::HashMap<*const Node, std::rc::Rc<runs::Reads>>>,
    planned: std::cell::RefCell<Vec<*const Node>>,
}

impl<'a> Walker<'a> {
    /// A guard's measure, once per guard (by value): the share of threads that pass it
    /// ([`ThreadSpace::fraction`]); where `split`, of its conjuncts on the position alone,
    /// with the others (a loop's variable: `ty < 8 && kk < 127`, a double-buffered copy)
    /// returned to be evaluated per iteration.
    fn guard(&self, cond: &'a Expr, split: bool) -> (Option<Share>, Vec<&'a Expr>) {
        if let Some((f, rest)) = self.fractions.borrow().get(&(cond, split)) {
            return (*f, rest.clone());
        }
        let (f, rest) = match split.then(|| self.split_guard(cond)).flatten() {
            Some((positional, rest)) => (self.space.fraction(&positional), rest),
            None => (self.space.fraction(cond), Vec::new()),
        };
        self.fractions
            .borrow_mut()
            .insert((cond, split), (f, rest.clone()));
        (f, rest)
    }

    /// A conjunction of conditions on the thread's position and of others: the first part
    /// as one condition, and the others; `None` unless it has both.
    fn split_guard(&self, cond: &'a Expr) -> Option<(Expr, Vec<&'a Expr>)> {
        let mut all = Vec::new();
        conjuncts(cond, &mut all);
        let (positional, rest): (Vec<&Expr>, Vec<&Expr>) = all
            .into_iter()
            .partition(|c| self.space.fraction_applies(c));
        if positional.is_empty() || rest.is_empty() {
            return None;
        }
        let positional = positional.into_iter().cloned().collect::<Vec<_>>();
        let part = if positional.len() == 1 {
            positional.into_iter().next().expect("one conjunct")
        } else {
            Expr::Op(Op::And, positional)
        };
        Some((part, rest))
    }

    /// The size of one iteration of loop `node` (its `body`, at `env`) in `sink`'s
    /// measure (measured once per loop).
    fn size(&self, node: &Node, body: &'a [Node], env: &Env, sink: &dyn Sink) -> f64 {
        let key = std::ptr::from_ref(node);
        if let Some((_, n)) = self.sizes.borrow().iter().find(|(k, _)| *k == key) {
            return *n;
        }
        let n = sink
            .size(&|s| self.nodes(body, &mut env.clone(), 1.0, s))
            .max(1.0);
        self.sizes.borrow_mut().push((key, n));
        n
    }

    /// What source statement `id` computes ([`Distinct`]), found once per statement.
    /// The loops access `a` of source statement `id` moves with, per subscript (its
    /// iterators' coefficients outside divisions, computed once per walk).
    fn subscripts(&self, id: usize, a: usize) -> Subscripts {
        if let Some((_, d)) = self.subscripts.borrow().iter().find(|(k, _)| *k == (id, a)) {
            return d.clone();
        }
        let p = &self.t.program;
        let statement = &p.statements[id];
        let table: Vec<_> = p.accesses[a]
            .subscripts
            .iter()
            .map(|sub| {
                let aff = sub.as_aff()?;
                let mut terms = Vec::new();
                let mut divided = false;
                for (k, l) in statement.loops.iter().enumerate() {
                    let v = Var::Index(p.loops[*l].iterator.clone());
                    let (coef, in_div) = aff.coefficient(&v);
                    divided |= in_div;
                    if coef != 0 {
                        terms.push((k, coef));
                    }
                }
                Some((terms, divided))
            })
            .collect();
        let d = std::rc::Rc::new(table);
        self.subscripts.borrow_mut().push(((id, a), d.clone()));
        d
    }

    /// [`Transformed::copy_rewrites`] of statement `s`, computed once per walk.
    fn rewrites(&self, s: usize) -> Rewrites {
        if let Some((_, r)) = self.rewrites.borrow().iter().find(|(k, _)| *k == s) {
            return r.clone();
        }
        let r = std::rc::Rc::new(self.t.copy_rewrites(s));
        self.rewrites.borrow_mut().push((s, r.clone()));
        r
    }

    fn statement(&self, id: usize) -> Distinct {
        if let Some((_, d)) = self.statements.borrow().iter().find(|(k, _)| *k == id) {
            return d.clone();
        }
        let p = &self.t.program;
        let statement = &p.statements[id];
        let root = match statement.kind {
            StatementKind::Assign(e) | StatementKind::Init { value: e } => e,
        };
        let mut ops = Ops::default();
        count_ops(&p.unit.ast, root, &mut ops);
        let first = statement
            .reads
            .iter()
            .enumerate()
            .map(|(k, &a)| {
                let x = &p.accesses[a];
                !statement.reads[..k]
                    .iter()
                    .any(|&b| p.accesses[b].array == x.array && p.accesses[b].text == x.text)
            })
            .collect();
        let d = (ops, std::rc::Rc::new(first));
        self.statements.borrow_mut().push((id, d.clone()));
        d
    }

    /// Which threads of a block run the code being walked: those on the side taken of
    /// each guard on the thread's position around it, in a block that works
    /// ([`ThreadSpace::mask`]); empty when no such guard is around.
    fn running(&self) -> Vec<bool> {
        let guards = self.guards.borrow();
        let mut running: Vec<bool> = Vec::new();
        for &(cond, taken) in guards.iter() {
            let passes = self.mask(cond);
            if running.is_empty() {
                running = passes.iter().map(|&p| p == taken).collect();
            } else {
                for (r, &p) in running.iter_mut().zip(passes.iter()) {
                    *r = *r && p == taken;
                }
            }
        }
        running
    }

    /// [`ThreadSpace::mask`], evaluated once per guard.
    fn mask(&self, cond: &'a Expr) -> Mask {
        if let Some(m) = self.masks.borrow().get(cond) {
            return m.clone();
        }
        let m = Mask::new(self.space.mask(cond));
        self.masks.borrow_mut().insert(cond, m.clone());
        m
    }

    fn nodes(&self, nodes: &'a [Node], env: &mut Env, mult: f64, sink: &mut dyn Sink) {
        if !self.planned.borrow().contains(&nodes.as_ptr()) {
            self.planned.borrow_mut().push(nodes.as_ptr());
            let plan = runs::planned(self.t, nodes);
            let mut runs = self.runs.borrow_mut();
            runs.extend(plan.iter().map(|(k, v)| (*k, v.clone())));
        }
        for n in nodes {
            if sink.full() {
                return;
            }
            match n {
                Node::For {
                    var,
                    init,
                    cond,
                    step,
                    body,
                } => {
                    let (count, mid) = trip(var, init, cond, *step, env);
                    let unrolled = unrolled(var, init, cond, count, body, &self.t.program.params);
                    let mut inner = env.clone();
                    let moves = thread_coefficients(init, env).unwrap_or((0, 0));
                    inner.thread_coefficients.push((var.clone(), moves));
                    inner.innermost = Some(Innermost {
                        var: var.clone(),
                        count,
                        iteration: None,
                        barrier: self.runs(body, &|k| k == StmtKind::Sync),
                    });
                    if sink.expands() {
                        let first = eval(init, env);
                        let at = |inner: &mut Env, k: i64| {
                            if let Some(f) = first {
                                inner.set(var, f + k * step.max(&1));
                            }
                            if let Some(loop_) = &mut inner.innermost {
                                loop_.iteration = Some(k);
                            }
                        };
                        // A sink that stops when full would see only the first part of
                        // an iteration larger than the room it has left (a copy to
                        // shared memory, say, and none of the computation after it):
                        // the loops of such an iteration expand that share of their
                        // iterations, so that what is seen has the iteration's mix (the
                        // whole, counted, is scaled from it).
                        let mine = self.shrink.replace(1.0);
                        let iterations = if mine < 1.0 {
                            ((count * mine).round() as i64).max(1).min(count as i64)
                        } else {
                            count as i64
                        };
                        let within = match sink.room() {
                            Some(room) => {
                                at(&mut inner, 0);
                                (room / self.size(n, body, &inner, sink)).min(1.0)
                            }
                            None => 1.0,
                        };
                        for k in 0..iterations {
                            if sink.full() {
                                break;
                            }
                            at(&mut inner, k);
                            if !unrolled {
                                sink.region(&|| "control flow".to_string());
                                sink.loop_iteration(1.0);
                            }
                            self.shrink.set(within);
                            self.nodes(body, &mut inner, 1.0, sink);
                        }
                        self.shrink.set(mine);
                    } else {
                        if let Some(m) = mid {
                            inner.set(var, m);
                        }
                        sink.node(std::ptr::from_ref(n) as usize, mult, Some(count), 0.0);
                        sink.region(&|| "control flow".to_string());
                        if !unrolled {
                            sink.loop_iteration(mult * count);
                        }
                        self.nodes(body, &mut inner, mult * count, sink);
                    }
                }
                Node::If {
                    cond,
                    then_branch,
                    else_branch,
                } => {
                    sink.region(&|| "control flow".to_string());
                    sink.branch(mult);
                    // A guard on the thread's position around the computation: the
                    // warps that pass it do the work, the others (a share of the blocks)
                    // nothing. A guard around copies only (the threads that stage a tile)
                    // leaves the other warps the computation: the copies' global traffic
                    // is that of the threads that pass.
                    // A guard that also reads a loop's variable (`ty < 8 && kk < 127`, a
                    // double-buffered copy): the share of threads passing the part on the
                    // position, where the rest holds for this iteration.
                    let (share, others) = self.guard(cond, else_branch.is_none());
                    let rest = others.iter().all(|c| eval(c, env) != Some(0));
                    let taken = match share {
                        Some(f) if else_branch.is_none() => f.warps > 0.0 && rest,
                        Some(f) => f.warps >= 0.5,
                        None => eval(cond, env) != Some(0),
                    };
                    let body: &[Node] = match (taken, else_branch) {
                        (true, _) => then_branch,
                        (false, Some(b)) => b,
                        (false, None) => &[],
                    };
                    let Some(f) = share else {
                        self.nodes(body, env, mult, sink);
                        continue;
                    };
                    let f = if taken {
                        f
                    } else {
                        Share {
                            warps: 1.0 - f.warps,
                            lanes: 1.0,
                        }
                    };
                    self.guards.borrow_mut().push((cond, taken));
                    let computes =
                        |b: &[Node]| self.runs(b, &|k| matches!(k, StmtKind::Compute(_)));
                    if computes(body) {
                        // The warps that take the other branch work too where it computes
                        // (a full-tile kernel's two bodies).
                        let other = if taken {
                            else_branch.as_deref()
                        } else {
                            Some(&then_branch[..])
                        };
                        if !other.is_some_and(computes) {
                            self.active.set(self.active.get().min(f.warps.max(0.0)));
                        }
                        self.nodes(body, env, mult, sink)
                    } else {
                        let outer = self.copying.get();
                        self.copying.set(Share {
                            warps: outer.warps * f.warps,
                            lanes: outer.lanes * f.lanes,
                        });
                        self.nodes(body, env, mult, sink);
                        self.copying.set(outer);
                    }
                    self.guards.borrow_mut().pop();
                }
                Node::Instance {
                    statement,
                    args,
                    stage,
                } => {
                    if !sink.expands() {
                        let words = self.words(*statement);
                        sink.node(std::ptr::from_ref(n) as usize, mult, None, words);
                    }
                    let reads = self.runs.borrow().get(&std::ptr::from_ref(n)).cloned();
                    self.instance(*statement, args, *stage, env, mult, sink, reads.as_deref());
                    sink.end_instance();
                }
                Node::Launch { .. } => {}
            }
        }
    }

    /// The 32-bit words of the elements statement `s` moves per instance (0 for a
    /// barrier; a wide copy's whole vector).
    fn words(&self, s: usize) -> f64 {
        let p = &self.t.program;
        let (array, width) = match self.t.statements[s].kind {
            StmtKind::Sync => return 0.0,
            StmtKind::CopyIn(k) | StmtKind::CopyOut(k) => {
                (self.t.copies[k].array, self.t.copies[k].width)
            }
            StmtKind::Compute(id) => (p.accesses[p.statements[id].write].array, 1),
        };
        (p.arrays[array].elem.size_bytes() as f64 * width as f64 / 4.0).max(1.0)
    }

    /// Whether `nodes` run a statement of a kind `wanted` accepts.
    fn runs(&self, nodes: &[Node], wanted: &dyn Fn(StmtKind) -> bool) -> bool {
        nodes.iter().any(|n| match n {
            Node::For { body, .. } => self.runs(body, wanted),
            Node::If {
                then_branch,
                else_branch,
                ..
            } => {
                self.runs(then_branch, wanted)
                    || else_branch.as_deref().is_some_and(|b| self.runs(b, wanted))
            }
            Node::Instance { statement, .. } => wanted(self.t.statements[*statement].kind),
            Node::Launch { .. } => false,
        })
    }
}
