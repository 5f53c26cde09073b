//! What one thread of each kernel does, counted from the generated code (kernel IR):
//! arithmetic by kind, global memory instructions with the 32-byte sectors each moves
//! per warp (from the affine subscripts and the lanes of a warp), shared-memory
//! instructions with their bank conflicts, barriers, and loop and branch overhead.
//!
//! A *representative thread* stands for all: the thread in the middle of the block in the
//! block in the middle of the grid (or, in a grid of one wave whose loop bounds move with
//! the block, the block with the most work), each loop at its middle iteration for what
//! it holds (so a triangular loop counts half its longest row), each guard decided at
//! that point, except guards on the thread's position: the share of warps that pass one
//! is sampled over the launch, and only that share of the blocks is counted (a
//! triangle's blocks above its diagonal do nothing).
//! Sizes known only at run time take the values the caller gives.

use crate::codegen::ir::Generated;
use crate::codegen::ir::{self, Expr, KernelIr, Node, Op};
use crate::poly::affine::Var;
use crate::transform::datacopy::{shared_bytes_with, Memory};
use crate::transform::Transformed;

use super::walker::{representative_block, walk_block};

/// How an index moves with threadIdx.x and .y (`None`: not affinely).
pub(super) type Step = Option<(i64, i64)>;

/// The global-memory traffic of one array, per warp, summed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ArrayTraffic {
    pub array: usize,
    /// The 32-byte sectors its accesses move.
    pub sectors: f64,
    /// The bytes their lanes ask for, in sectors.
    pub asked: f64,
}

/// Per-thread counts of one kernel launch (each a warp instruction for the warp).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counts {
    pub fp32: f64,
    pub fp64: f64,
    pub int: f64,
    /// Transcendentals and square roots (special function units).
    pub special: f64,
    /// Global (and read-only cache) loads and stores.
    pub global_insts: f64,
    /// The arrays they touch, each with its traffic (sorted by array).
    pub global_arrays: Vec<ArrayTraffic>,
    /// 32-byte sectors those instructions move, per warp, summed.
    pub global_sectors: f64,
    /// Bytes the warp's lanes ask for, summed (for the DRAM traffic).
    pub global_bytes: f64,
    /// Loads from constant memory (a broadcast when the warp agrees on the address).
    pub constant_insts: f64,
    pub shared_insts: f64,
    /// Shared-memory passes: one per instruction without bank conflicts, more with them.
    pub shared_wavefronts: f64,
    pub syncs: f64,
    pub atomics: f64,
    pub branches: f64,
}

/// Where a memory access goes, and what it costs a warp.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mem {
    /// Global memory (or the read-only cache): the 32-byte sectors the warp moves, the
    /// array (`None` for a reduction's atomic), and what L1 may serve of it.
    Global {
        sectors: f64,
        /// The bytes the lanes ask for, in sectors (at most `sectors`: fewer where the
        /// lanes use part of each sector and leave the rest to other warps).
        asked: f64,
        array: Option<usize>,
        l1: L1,
        /// Read from an array the kernel does not write: `const __restrict__`, read
        /// through the read-only path (`LDG.E.CONSTANT`), which ptxas moves across
        /// `__syncthreads()` (seen in the SASS of GEMV^T's staged tile).
        read_only: bool,
    },
    /// Shared memory: the passes bank conflicts make (1 without conflicts); `wide`, those
    /// of the same access when each lane moves 2 and 4 elements from its own on (a 64- or
    /// 128-bit load that nvcc made of consecutive elements).
    Shared { wavefronts: f64, wide: [f64; 2] },
    /// Constant memory (a broadcast).
    Constant,
}

impl Mem {
    /// A shared-memory access of `wavefronts` passes whose lanes' spans are not known:
    /// a 64- or 128-bit load of it takes two or four times the passes (the lanes of a
    /// conflict-free warp then cover 256 or 512 bytes).
    pub fn shared(wavefronts: f64) -> Mem {
        Mem::Shared {
            wavefronts,
            wide: [2.0 * wavefronts, 4.0 * wavefronts],
        }
    }
}

/// What L1 serves of a global read: the share of its sectors the SM's L1 holds already
/// (another warp of the block touched them in the same iteration, or the warp itself in
/// the iteration before), provided L1 keeps `bytes` for the block (the reads of the
/// statement together, over two iterations). Zero for writes (they go on to L2).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct L1 {
    pub hits: f64,
    pub bytes: f64,
    /// The 128-byte lines a warp's access touches: L1 serves one per pass.
    pub lines: f64,
}

/// The arithmetic of one statement instance.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Arith {
    pub fp32: u32,
    pub fp64: u32,
    pub int: u32,
    pub special: u32,
    /// Of the FP32 and FP64 operations, the fused multiply-adds (two flops each: what the
    /// SASS walk compares lines by).
    pub fused: u32,
    /// For an update `x op= e` kept in a register: the element it updates (the statement
    /// and the linear forms of the written subscripts, hashed), whose successive updates
    /// form a chain. The instances of an unrolled register tile update different elements:
    /// independent chains, as many as the tile has elements.
    pub update: Option<u64>,
}

/// What the walk of a kernel reports, in program order, for the representative thread.
/// [`Counts`] adds the events up (loops walked once, with multiplicities); the emulator's
/// stream builder expands loops iteration by iteration ([`Sink::expands`]).
pub trait Sink {
    /// Whether loops are walked iteration by iteration rather than once with a count.
    fn expands(&self) -> bool {
        false
    }
    /// Whether an expanding sink has seen enough.
    fn full(&self) -> bool {
        false
    }
    /// For an expanding sink that stops when full: how much more it takes (`None`: no
    /// limit).
    fn room(&self) -> Option<f64> {
        None
    }
    /// How much of the room a walk would fill (`walk` walks into the sink it is given).
    fn size(&self, _walk: &dyn Fn(&mut dyn Sink)) -> f64 {
        0.0
    }
    fn loop_iteration(&mut self, mult: f64);
    fn branch(&mut self, mult: f64);
    fn load(&mut self, m: Mem, mult: f64);
    fn store(&mut self, m: Mem, mult: f64);
    fn compute(&mut self, a: Arith, mult: f64);
    fn barrier(&mut self, mult: f64);
    /// An atomic update of global memory.
    fn atomic(&mut self, mult: f64);
    /// An asynchronous copy from global into shared memory (`cp.async`): the thread does
    /// not wait for it until [`Sink::wait_copies`].
    fn copy_async(&mut self, global: Mem, shared: Mem, mult: f64) {
        self.load(global, mult);
        self.store(shared, mult);
    }
    /// The thread waits for its asynchronous copies.
    fn wait_copies(&mut self) {}
    /// The end of a statement instance.
    fn end_instance(&mut self) {}
    /// The events that follow belong to the code region `name` (a statement, a copy,
    /// the loops' control), for the region-wise sensitivity.
    fn region(&mut self, _name: &dyn Fn() -> String) {}
    /// A counting walk reaches `node` of the kernel IR (its address, which
    /// [`crate::cuda::node_lines`] maps to its `.cu` line), `entries` times per thread: a
    /// loop of `trip` iterations per entry, or a statement (`trip` `None`) whose elements
    /// are `words` 32-bit words wide, its events following.
    fn node(&mut self, _node: usize, _entries: f64, _trip: Option<f64>, _words: f64) {}
}

/// Two sinks fed by one walk (neither expands loops): what a kernel does counted and its
/// instructions counted, without walking it twice.
pub struct Both<'a>(pub &'a mut dyn Sink, pub &'a mut dyn Sink);

impl Sink for Both<'_> {
    fn loop_iteration(&mut self, mult: f64) {
        self.0.loop_iteration(mult);
        self.1.loop_iteration(mult);
    }
    fn branch(&mut self, mult: f64) {
        self.0.branch(mult);
        self.1.branch(mult);
    }
    fn load(&mut self, m: Mem, mult: f64) {
        self.0.load(m, mult);
        self.1.load(m, mult);
    }
    fn store(&mut self, m: Mem, mult: f64) {
        self.0.store(m, mult);
        self.1.store(m, mult);
    }
    fn compute(&mut self, a: Arith, mult: f64) {
        self.0.compute(a, mult);
        self.1.compute(a, mult);
    }
    fn barrier(&mut self, mult: f64) {
        self.0.barrier(mult);
        self.1.barrier(mult);
    }
    fn atomic(&mut self, mult: f64) {
        self.0.atomic(mult);
        self.1.atomic(mult);
    }
    fn copy_async(&mut self, global: Mem, shared: Mem, mult: f64) {
        self.0.copy_async(global, shared, mult);
        self.1.copy_async(global, shared, mult);
    }
    fn wait_copies(&mut self) {
        self.0.wait_copies();
        self.1.wait_copies();
    }
    fn end_instance(&mut self) {
        self.0.end_instance();
        self.1.end_instance();
    }
    fn region(&mut self, name: &dyn Fn() -> String) {
        self.0.region(name);
        self.1.region(name);
    }
    fn node(&mut self, node: usize, entries: f64, trip: Option<f64>, words: f64) {
        self.0.node(node, entries, trip, words);
        self.1.node(node, entries, trip, words);
    }
}

impl Sink for Counts {
    fn loop_iteration(&mut self, mult: f64) {
        // Increment, compare and branch per iteration.
        self.int += 2.0 * mult;
        self.branches += mult;
    }
    fn branch(&mut self, mult: f64) {
        self.branches += mult;
        self.int += mult;
    }
    fn load(&mut self, m: Mem, mult: f64) {
        self.memory(m, mult);
    }
    fn store(&mut self, m: Mem, mult: f64) {
        self.memory(m, mult);
    }
    fn compute(&mut self, a: Arith, mult: f64) {
        self.fp32 += a.fp32 as f64 * mult;
        self.fp64 += a.fp64 as f64 * mult;
        self.int += a.int as f64 * mult;
        self.special += a.special as f64 * mult;
    }
    fn barrier(&mut self, mult: f64) {
        self.syncs += mult;
    }
    fn atomic(&mut self, mult: f64) {
        self.atomics += mult;
    }
}

impl Counts {
    /// Warp instructions of every kind.
    pub(super) fn instructions(&self) -> f64 {
        self.fp32
            + self.fp64
            + self.int
            + self.special
            + self.global_insts
            + self.constant_insts
            + self.shared_insts
            + self.syncs
            + self.atomics
            + self.branches
    }

    fn memory(&mut self, m: Mem, mult: f64) {
        match m {
            Mem::Global {
                sectors,
                asked,
                array,
                ..
            } => {
                if let Some(a) = array {
                    let at = match self.global_arrays.binary_search_by_key(&a, |x| x.array) {
                        Ok(at) => at,
                        Err(at) => {
                            let new = ArrayTraffic {
                                array: a,
                                ..ArrayTraffic::default()
                            };
                            self.global_arrays.insert(at, new);
                            at
                        }
                    };
                    self.global_arrays[at].sectors += sectors * mult;
                    self.global_arrays[at].asked += asked * mult;
                }
                self.global_insts += mult;
                self.global_sectors += sectors * mult;
                self.global_bytes += 32.0 * asked * mult;
                self.int += mult;
            }
            Mem::Shared { wavefronts, .. } => {
                self.shared_insts += mult;
                self.shared_wavefronts += wavefronts * mult;
            }
            Mem::Constant => self.constant_insts += mult,
        }
    }
}

/// One kernel of a program, as the model needs it.
#[derive(Clone, Debug)]
pub struct KernelWork {
    pub name: String,
    /// Launches per run of the program (loops on the host around it).
    pub launches: f64,
    /// Blocks per launch that do work: those launched, times `working_share`.
    pub blocks: f64,
    /// The share of the launched blocks' warps that pass the guards on the thread's
    /// position around the computation (1 without such guards).
    pub working_share: f64,
    pub threads_per_block: i64,
    pub shared_bytes: i64,
    /// Registers per thread: an estimate, or ptxas's count when the emulator has it.
    pub registers: i64,
    /// 32-bit words of the kernel's copies to registers (register tiles), per thread.
    pub register_copy_words: i64,
    pub per_thread: Counts,
    /// Bytes of the arrays the kernel reads or writes in global memory (whole arrays).
    pub footprint_bytes: f64,
    /// The bytes of each of them, in the order of `per_thread.global_arrays`.
    pub array_bytes: Vec<f64>,
}

impl KernelWork {
    /// The blocks of a launch: those that do work, over their share.
    pub fn launched_blocks(&self) -> f64 {
        if self.working_share > 0.0 {
            (self.blocks / self.working_share).round()
        } else {
            self.blocks
        }
    }
}

/// A kernel of the program with its launches and the values around its representative
/// launch (the host loops at their middle iteration).
#[derive(Debug)]
pub struct Site {
    /// Index into [`Generated::kernels`].
    pub kernel: usize,
    pub launches: f64,
    env: Env,
    /// The grid, and the block whose middle thread represents them all.
    grid: Vec<i64>,
    at: Vec<i64>,
}

impl Site {
    /// Walks the kernel's representative thread into `sink` (the blocks and their shape
    /// are in [`Site::work`]).
    pub fn walk(&self, t: &Transformed, g: &Generated, sink: &mut dyn Sink) {
        walk_block(
            t,
            &g.kernels[self.kernel],
            self.env.clone(),
            &self.grid,
            &self.at,
            sink,
        );
    }

    /// What the kernel's representative thread does, counted, with the kernel's shape.
    pub fn work(&self, t: &Transformed, g: &Generated) -> KernelWork {
        self.work_with(t, g, None)
    }

    /// [`Site::work`], the same walk also fed to `also` (the emulator counts its stream's
    /// instructions there, instead of walking the kernel again).
    pub fn work_with(
        &self,
        t: &Transformed,
        g: &Generated,
        also: Option<&mut dyn Sink>,
    ) -> KernelWork {
        let k = &g.kernels[self.kernel];
        let mut counts = Counts::default();
        let (env, grid, at) = (self.env.clone(), &self.grid, &self.at);
        let walked = match also {
            Some(also) => walk_block(t, k, env, grid, at, &mut Both(&mut counts, also)),
            None => walk_block(t, k, env, grid, at, &mut counts),
        };
        kernel_work(t, k, self.launches, &self.env, counts, walked)
    }
}

/// Every kernel of `g`, at the sizes `sizes`, for a device of `sms` SMs.
pub fn sites(t: &Transformed, g: &Generated, sizes: &[(String, i64)], sms: i64) -> Vec<Site> {
    let mut env = Env::default();
    for p in &t.program.params {
        let v = sizes
            .iter()
            .find(|(n, _)| n == p)
            .map(|(_, v)| *v)
            .unwrap_or(crate::strategy::analysis::ASSUMED_SIZE);
        env.set(p, v);
    }
    let base = env;
    let mut launches: Vec<(usize, f64, Env)> = Vec::new();
    host_launches(g, &g.host, &mut base.clone(), 1.0, &mut launches);
    g.kernels
        .iter()
        .enumerate()
        .map(|(index, k)| {
            let (count, env) = launches
                .iter()
                .filter(|(x, _, _)| *x == k.kernel)
                .fold((0.0, None), |(n, e), (_, m, env)| {
                    (n + m, e.or(Some(env.clone())))
                });
            let env = env.unwrap_or_else(|| base.clone());
            let (grid, at) = representative_block(t, k, &env, sms);
            Site {
                kernel: index,
                launches: count,
                env,
                grid,
                at,
            }
        })
        .collect()
}

/// Values of variables (parameters, loop variables at their middle iteration).
#[derive(Clone, Debug, Default)]
pub(super) struct Env {
    values: Vec<(String, i64)>,
    /// Per loop variable of a kernel: how it moves with threadIdx.x and .y.
    pub(super) thread_coefficients: Vec<(String, (i64, i64))>,
    /// The innermost loop of the kernel's thread around the walk's position.
    pub(super) innermost: Option<Innermost>,
}

/// The innermost loop around a statement instance.
#[derive(Clone, Debug)]
pub(super) struct Innermost {
    pub(super) var: String,
    pub(super) count: f64,
    /// The iteration being walked when the loop is expanded; `None` when it is counted.
    pub(super) iteration: Option<i64>,
    /// Whether its body holds a barrier (which stops the compiler from keeping a global
    /// element in a register over the loop).
    pub(super) barrier: bool,
}

impl Env {
    pub(super) fn set(&mut self, name: &str, v: i64) {
        // In place when the name has a value (a loop variable, at every iteration).
        match self.values.iter_mut().rev().find(|(n, _)| n == name) {
            Some(entry) => entry.1 = v,
            None => self.values.push((name.to_string(), v)),
        }
    }

    pub(super) fn get(&self, name: &str) -> Option<i64> {
        self.values
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }
}

/// The value of an isl AST expression, if every name in it has one.
pub(super) fn eval(e: &Expr, env: &Env) -> Option<i64> {
    match e {
        Expr::Int(v) => Some(*v),
        Expr::Id(n) => env.get(n),
        Expr::Op(op, args) => apply(*op, args.len(), |k| eval(&args[k], env)),
    }
}

/// The value of operation `op` on `n` arguments, the `k`-th `arg(k)`, if every argument
/// has one ([`eval`]'s arithmetic, checked: an overflow has no value).
pub(super) fn apply(op: Op, n: usize, arg: impl Fn(usize) -> Option<i64>) -> Option<i64> {
    let a = &arg;
    Some(match op {
        Op::Add => a(0)?.checked_add(a(1)?)?,
        Op::Sub => a(0)?.checked_sub(a(1)?)?,
        Op::Mul => a(0)?.checked_mul(a(1)?)?,
        Op::Neg => -a(0)?,
        Op::Div | Op::PosDiv => a(0)?.checked_div(a(1)?)?,
        Op::FloorDiv => a(0)?.checked_div_euclid(a(1)?)?,
        Op::PosRem | Op::ZeroRem => a(0)?.checked_rem_euclid(a(1)?)?,
        Op::Min => (0..n)
            .map(a)
            .collect::<Option<Vec<_>>>()?
            .into_iter()
            .min()?,
        Op::Max => (0..n)
            .map(a)
            .collect::<Option<Vec<_>>>()?
            .into_iter()
            .max()?,
        Op::Select => {
            if a(0)? != 0 {
                a(1)?
            } else {
                a(2)?
            }
        }
        Op::Eq => (a(0)? == a(1)?) as i64,
        Op::Le => (a(0)? <= a(1)?) as i64,
        Op::Lt => (a(0)? < a(1)?) as i64,
        Op::Ge => (a(0)? >= a(1)?) as i64,
        Op::Gt => (a(0)? > a(1)?) as i64,
        Op::And => (a(0)? != 0 && a(1)? != 0) as i64,
        Op::Or => (a(0)? != 0 || a(1)? != 0) as i64,
        Op::Call => return None,
    })
}

/// A loop's trip count and the value of its variable at the middle iteration.
pub(super) fn trip(
    var: &str,
    init: &Expr,
    cond: &Expr,
    step: i64,
    env: &Env,
) -> (f64, Option<i64>) {
    let Some(first) = eval(init, env) else {
        return (1.0, None);
    };
    let mut last: Option<i64> = None;
    for (op, bound) in upper_bounds(var, cond) {
        if let Some(ub) = eval(bound, env) {
            let ub = if op == Op::Lt { ub - 1 } else { ub };
            last = Some(last.map_or(ub, |l| l.min(ub)));
        }
    }
    let Some(last) = last else {
        return (1.0, Some(first));
    };
    let step = step.max(1);
    let n = if last < first {
        0
    } else {
        (last - first) / step + 1
    };
    let mid = first + step * ((n - 1).max(0) / 2);
    (n as f64, Some(mid))
}

/// The most iterations of a loop nvcc unrolls completely (see [`unrolled`]).
const FULL_UNROLL: f64 = 32.0;

/// Whether nvcc unrolls a loop completely, leaving no increment, compare or branch of it:
/// an innermost loop (`body` holds no loop) whose trip count is a constant at compile
/// time (every upper bound on `var` is `init` plus sizes and numbers: `k < 32 * kk + 32`,
/// not `k < min(32 * kk + 32, N - 1)`), of at most [`FULL_UNROLL`] iterations. So the
/// SASS of the testsuite's kernels shows: the 32-iteration `k` loop of GEMM's shared tile
/// and `i` loop of GEMV^T's, the 24-iteration `f` loop of the tensor contraction and the
/// 16-iteration `d` loop of the distance matrix have no branch left (nvcc 13.0, sm_90).
pub(super) fn unrolled(
    var: &str,
    init: &Expr,
    cond: &Expr,
    count: f64,
    body: &[Node],
    sizes: &[String],
) -> bool {
    fn loops(nodes: &[Node]) -> bool {
        nodes.iter().any(|n| match n {
            Node::For { .. } => true,
            Node::If {
                then_branch,
                else_branch,
                ..
            } => loops(then_branch) || else_branch.as_deref().is_some_and(loops),
            _ => false,
        })
    }
    if count > FULL_UNROLL || loops(body) {
        return false;
    }
    let Some((from, _)) = ir::linear(init) else {
        return false;
    };
    let mut bounded = false;
    for (_, bound) in upper_bounds(var, cond) {
        let Some((to, _)) = ir::linear(bound) else {
            return false;
        };
        let coefficient = |terms: &[(String, i64)], name: &str| {
            terms
                .iter()
                .filter(|(n, _)| n == name)
                .map(|(_, c)| c)
                .sum::<i64>()
        };
        let names = from.iter().chain(&to).map(|(n, _)| n);
        if names
            .filter(|n| !sizes.contains(n))
            .any(|n| coefficient(&to, n) != coefficient(&from, n))
        {
            return false;
        }
        bounded = true;
    }
    bounded
}

/// The upper bounds `cond` puts on `var`: each conjunct `var < bound` or `var <= bound`,
/// with its operator.
fn upper_bounds<'a>(var: &str, cond: &'a Expr) -> Vec<(Op, &'a Expr)> {
    let mut all = Vec::new();
    conjuncts(cond, &mut all);
    all.into_iter()
        .filter_map(|c| match c {
            Expr::Op(op @ (Op::Le | Op::Lt), args) if args[0] == Expr::Id(var.to_string()) => {
                Some((*op, &args[1]))
            }
            _ => None,
        })
        .collect()
}

pub(super) fn conjuncts<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    match e {
        Expr::Op(Op::And, args) => args.iter().for_each(|a| conjuncts(a, out)),
        other => out.push(other),
    }
}

fn host_launches(
    g: &Generated,
    nodes: &[Node],
    env: &mut Env,
    mult: f64,
    out: &mut Vec<(usize, f64, Env)>,
) {
    for n in nodes {
        match n {
            Node::For {
                var,
                init,
                cond,
                step,
                body,
            } => {
                let (count, mid) = trip(var, init, cond, *step, env);
                let mut inner = env.clone();
                if let Some(m) = mid {
                    inner.set(var, m);
                }
                host_launches(g, body, &mut inner, mult * count, out);
            }
            Node::If {
                then_branch,
                else_branch,
                cond,
            } => match eval(cond, env) {
                Some(0) => {
                    if let Some(b) = else_branch {
                        host_launches(g, b, env, mult, out)
                    }
                }
                _ => host_launches(g, then_branch, env, mult, out),
            },
            Node::Launch { kernel, args } => {
                // The kernel's names for the host loops (`i_rev`) take the values passed.
                let mut at = env.clone();
                for (name, value) in g.kernels[*kernel].host_vars.iter().zip(args) {
                    if let Some(v) = eval(value, env) {
                        at.set(name, v);
                    }
                }
                out.push((*kernel, mult, at));
            }
            Node::Instance { .. } => {}
        }
    }
}

/// What kernel `k` does, from its representative thread's `counts` and what the walk
/// returned: the launch's blocks, the share of them that work, the block's shape.
fn kernel_work(
    t: &Transformed,
    k: &KernelIr,
    launches: f64,
    env: &Env,
    counts: Counts,
    (blocks, working_share, block): (f64, f64, Vec<i64>),
) -> KernelWork {
    let shared_bytes = shared_bytes_with(t, k.kernel, |_, c| c.buffers());
    let mut register_words = 0;
    for c in &t.copies {
        if c.kernel == k.kernel && c.memory == Memory::Registers {
            let elems: i64 = c.dims.iter().product::<i64>() * c.buffers();
            let bytes = elems * t.program.arrays[c.array].elem.size_bytes() as i64;
            register_words += (bytes + 3) / 4;
        }
    }
    let array_bytes: Vec<f64> = counts
        .global_arrays
        .iter()
        .map(|a| {
            let elems: f64 = array_extents(t, a.array, env)
                .iter()
                .map(|&e| e as f64)
                .product();
            elems * t.program.arrays[a.array].elem.size_bytes() as f64
        })
        .collect();
    KernelWork {
        name: k.name.clone(),
        footprint_bytes: array_bytes.iter().sum(),
        array_bytes,
        launches,
        blocks,
        working_share,
        threads_per_block: block.iter().product(),
        shared_bytes,
        // 24 + 2 per word of register tile: on the 60 kernels of the testsuite's recipe
        // cases, off from ptxas by 8.9 registers on average (24 + 1 per word: 10.0;
        // least squares: 21.9 + 2.33 per word, 9.0), and by 1.1 once both are counted
        // as at least 32, what occupancy sees (benchmarks/registers.py,
        // benchmarks/results/registers-2026-11-23-9adbc76+changes.json).
        // Large tiles (32 words and more) are counted at 2 per word alone, as ptxas
        // counts the outer-product tiles of issue 19 (32 words: 64, 64 words: 128; 24 +
        // 2 per word said 152, one block per SM instead of two); the 24 fade out in
        // between.
        registers: register_estimate(register_words),
        register_copy_words: register_words,
        per_thread: counts,
    }
}

pub(super) const DIMS: [&str; 3] = ["x", "y", "z"];

/// Registers per thread of a kernel whose register tiles hold `words` 32-bit words.
fn register_estimate(words: i64) -> i64 {
    let overhead = (24 * (32 - words)).max(0) / 32;
    (overhead + 2 * words).min(255)
}

/// The extents of an array's dimensions at the problem size (1 when unknown).
pub(super) fn array_extents(t: &Transformed, array: usize, env: &Env) -> Vec<i64> {
    t.program.arrays[array]
        .extents
        .iter()
        .map(|e| {
            e.as_ref()
                .map(|aff| {
                    aff.eval(&|v| match v {
                        Var::Param(p) => env.get(p).unwrap_or(1),
                        Var::Index(_) => 0,
                    })
                })
                .unwrap_or(1)
                .max(1)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{unrolled, Expr, Node, Op};

    #[test]
    fn nvcc_unrolls_short_innermost_loops_of_constant_trip_count() {
        let id = |n: &str| Expr::Id(n.to_string());
        let int = Expr::Int;
        let op = |o, a: Vec<Expr>| Expr::Op(o, a);
        let lt = |ub| op(Op::Lt, vec![id("k"), ub]);
        // `for (k = 32 * kk; k < 32 * kk + 32; k++)`: 32 iterations wherever kk is.
        let init = op(Op::Mul, vec![int(32), id("kk")]);
        let tile_end = op(Op::Add, vec![init.clone(), int(32)]);
        let sizes = ["N".to_string()];
        assert!(unrolled(
            "k",
            &init,
            &lt(tile_end.clone()),
            32.0,
            &[],
            &sizes
        ));
        // From 0 to a size: a constant too (the .cu defines N).
        assert!(unrolled("k", &int(0), &lt(id("N")), 16.0, &[], &sizes));
        // A partial tile at the edge: how many is known only at run time.
        let edge = op(Op::Min, vec![tile_end.clone(), id("N")]);
        assert!(!unrolled("k", &init, &lt(edge), 32.0, &[], &sizes));
        assert!(!unrolled("k", &int(0), &lt(id("tx")), 8.0, &[], &sizes));
        // Too many iterations, or a loop inside.
        assert!(!unrolled("k", &int(0), &lt(int(64)), 64.0, &[], &sizes));
        let inner = Node::For {
            var: "d".to_string(),
            init: int(0),
            cond: op(Op::Lt, vec![id("d"), int(4)]),
            step: 1,
            body: Vec::new(),
        };
        assert!(!unrolled("k", &init, &lt(tile_end), 32.0, &[inner], &sizes));
    }
}
