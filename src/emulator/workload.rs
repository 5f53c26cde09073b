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
use crate::frontend::ast::ScalarType;
use crate::poly::affine::Var;
use crate::poly::program::StatementKind;
use crate::poly::ArrayKind;
use crate::transform::datacopy::{shared_bytes_with, Memory};
use crate::transform::{Placement, StmtKind, Transformed};

use super::lanes::{l1_reuse, lanes_at, lanes_of, Lanes};
use super::ops::{count_ops, Ops};
use super::runs;
use super::threads::{moves_with_the_block, moving_names, sampled_blocks, Share, ThreadSpace};

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
    fn instructions(&self) -> f64 {
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
    thread_coefficients: Vec<(String, (i64, i64))>,
    /// The innermost loop of the kernel's thread around the walk's position.
    innermost: Option<Innermost>,
}

/// The innermost loop around a statement instance.
#[derive(Clone, Debug)]
struct Innermost {
    var: String,
    count: f64,
    /// The iteration being walked when the loop is expanded; `None` when it is counted.
    iteration: Option<i64>,
    /// Whether its body holds a barrier (which stops the compiler from keeping a global
    /// element in a register over the loop).
    barrier: bool,
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
fn trip(var: &str, init: &Expr, cond: &Expr, step: i64, env: &Env) -> (f64, Option<i64>) {
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
fn unrolled(
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

fn conjuncts<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
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

/// Kernel `k`'s grid, and the block whose middle thread represents every thread: the
/// middle one of the grid, or, when every block has an SM of its own (at most `sms`
/// blocks: one wave, the kernel lasts as long as its longest block), the one with the
/// most work ([`heaviest_block`]: a triangle's first rows, say).
fn representative_block(
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
fn walk_block(
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

pub(super) const DIMS: [&str; 3] = ["x", "y", "z"];

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
    /// [`lanes`] already computed, per stride and element size.
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

    /// Walks one statement instance; `planned` gives its shared reads as nvcc loads them in
    /// a straight-line run ([`runs::plan`]).
    #[allow(clippy::too_many_arguments)]
    fn instance(
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

    /// [`lanes`] for the walk's block, computed once per stride and element size.
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

/// Registers per thread of a kernel whose register tiles hold `words` 32-bit words.
fn register_estimate(words: i64) -> i64 {
    let overhead = (24 * (32 - words)).max(0) / 32;
    (overhead + 2 * words).min(255)
}

/// The extents of an array's dimensions at the problem size (1 when unknown).
fn array_extents(t: &Transformed, array: usize, env: &Env) -> Vec<i64> {
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
