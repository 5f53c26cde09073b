//! What one thread of each kernel does, counted from the generated code (kernel IR):
//! arithmetic by kind, global memory instructions with the 32-byte sectors each moves
//! per warp (from the affine subscripts and the lanes of a warp), shared-memory
//! instructions with their bank conflicts, barriers, and loop and branch overhead.
//!
//! A *representative thread* stands for all: the thread in the middle of the block in the
//! block in the middle of the grid, each loop at its middle iteration for what it holds
//! (so a triangular loop counts half its longest row), each guard decided at that point,
//! except guards on the thread's position: the share of warps that pass one is sampled
//! over the launch, and only that share of the blocks is counted (a triangle's blocks
//! above its diagonal do nothing).
//! Sizes known only at run time take the values the caller gives.

use crate::codegen::ir::Generated;
use crate::codegen::ir::{self, Expr, KernelIr, Node, Op};
use crate::frontend::ast::{BinaryOp, ExprKind, ScalarType};
use crate::poly::affine::Var;
use crate::poly::program::StatementKind;
use crate::poly::ArrayKind;
use crate::transform::datacopy::Memory;
use crate::transform::{Placement, StmtKind, Transformed};

/// How an index moves with threadIdx.x and .y (`None`: not affinely).
type Step = Option<(i64, i64)>;

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
    /// The arrays they touch (sorted).
    pub global_arrays: Vec<usize>,
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
        array: Option<usize>,
        l1: L1,
        /// Read from an array the kernel does not write: `const __restrict__`, read
        /// through the read-only path (`LDG.E.CONSTANT`), which ptxas moves across
        /// `__syncthreads()` (seen in the SASS of GEMV^T's staged tile).
        read_only: bool,
    },
    /// Shared memory: the passes bank conflicts make (1 without conflicts).
    Shared { wavefronts: f64 },
    /// Constant memory (a broadcast).
    Constant,
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
    /// For an update `x op= e` kept in a register: the statement, whose successive
    /// instances form a chain.
    pub update: Option<usize>,
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
    fn loop_iteration(&mut self, mult: f64);
    fn branch(&mut self, mult: f64);
    fn load(&mut self, m: Mem, mult: f64);
    fn store(&mut self, m: Mem, mult: f64);
    fn compute(&mut self, a: Arith, mult: f64);
    fn barrier(&mut self, mult: f64);
    /// An atomic update of global memory.
    fn atomic(&mut self, mult: f64);
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
    fn memory(&mut self, m: Mem, mult: f64) {
        match m {
            Mem::Global { sectors, array, .. } => {
                if let Some(a) = array {
                    if let Err(at) = self.global_arrays.binary_search(&a) {
                        self.global_arrays.insert(at, a);
                    }
                }
                self.global_insts += mult;
                self.global_sectors += sectors * mult;
                self.global_bytes += 32.0 * sectors.min(32.0) * mult;
                self.int += mult;
            }
            Mem::Shared { wavefronts } => {
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
pub struct Site {
    /// Index into [`Generated::kernels`].
    pub kernel: usize,
    pub launches: f64,
    env: Env,
}

impl Site {
    /// Walks the kernel's representative thread into `sink` (the blocks and their shape
    /// are in [`Site::work`]).
    pub fn walk(&self, t: &Transformed, g: &Generated, sink: &mut dyn Sink) {
        walk_kernel(t, &g.kernels[self.kernel], self.env.clone(), sink);
    }

    /// What the kernel's representative thread does, counted, with the kernel's shape.
    pub fn work(&self, t: &Transformed, g: &Generated) -> KernelWork {
        kernel_work(t, &g.kernels[self.kernel], self.launches, self.env.clone())
    }
}

/// Every kernel of `g`, at the sizes `sizes`.
pub fn sites(t: &Transformed, g: &Generated, sizes: &[(String, i64)]) -> Vec<Site> {
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
    host_launches(&g.host, &mut base.clone(), 1.0, &mut launches);
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
            Site {
                kernel: index,
                launches: count,
                env: env.unwrap_or_else(|| base.clone()),
            }
        })
        .collect()
}

/// Values of variables (parameters, loop variables at their middle iteration).
#[derive(Clone, Debug, Default)]
struct Env {
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
    fn set(&mut self, name: &str, v: i64) {
        // In place when the name has a value (a loop variable, at every iteration).
        match self.values.iter_mut().rev().find(|(n, _)| n == name) {
            Some(entry) => entry.1 = v,
            None => self.values.push((name.to_string(), v)),
        }
    }

    fn get(&self, name: &str) -> Option<i64> {
        self.values
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }
}

/// The value of an isl AST expression, if every name in it has one.
fn eval(e: &Expr, env: &Env) -> Option<i64> {
    Some(match e {
        Expr::Int(v) => *v,
        Expr::Id(n) => env.get(n)?,
        Expr::Op(op, args) => {
            let a = |k: usize| eval(&args[k], env);
            match op {
                Op::Add => a(0)?.checked_add(a(1)?)?,
                Op::Sub => a(0)?.checked_sub(a(1)?)?,
                Op::Mul => a(0)?.checked_mul(a(1)?)?,
                Op::Neg => -a(0)?,
                Op::Div | Op::PosDiv => a(0)?.checked_div(a(1)?)?,
                Op::FloorDiv => a(0)?.checked_div_euclid(a(1)?)?,
                Op::PosRem | Op::ZeroRem => a(0)?.checked_rem_euclid(a(1)?)?,
                Op::Min => args
                    .iter()
                    .map(|x| eval(x, env))
                    .collect::<Option<Vec<_>>>()?
                    .into_iter()
                    .min()?,
                Op::Max => args
                    .iter()
                    .map(|x| eval(x, env))
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
            }
        }
    })
}

/// A loop's trip count and the value of its variable at the middle iteration.
fn trip(var: &str, init: &Expr, cond: &Expr, step: i64, env: &Env) -> (f64, Option<i64>) {
    let Some(first) = eval(init, env) else {
        return (1.0, None);
    };
    let mut last: Option<i64> = None;
    let mut bounds = Vec::new();
    conjuncts(cond, &mut bounds);
    for c in bounds {
        if let Expr::Op(op @ (Op::Le | Op::Lt), args) = c {
            if args[0] == Expr::Id(var.to_string()) {
                if let Some(ub) = eval(&args[1], env) {
                    let ub = if *op == Op::Lt { ub - 1 } else { ub };
                    last = Some(last.map_or(ub, |l| l.min(ub)));
                }
            }
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

fn conjuncts<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    match e {
        Expr::Op(Op::And, args) => args.iter().for_each(|a| conjuncts(a, out)),
        other => out.push(other),
    }
}

fn host_launches(nodes: &[Node], env: &mut Env, mult: f64, out: &mut Vec<(usize, f64, Env)>) {
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
                host_launches(body, &mut inner, mult * count, out);
            }
            Node::If {
                then_branch,
                else_branch,
                cond,
            } => match eval(cond, env) {
                Some(0) => {
                    if let Some(b) = else_branch {
                        host_launches(b, env, mult, out)
                    }
                }
                _ => host_launches(then_branch, env, mult, out),
            },
            Node::Launch { kernel, .. } => out.push((*kernel, mult, env.clone())),
            Node::Instance { .. } => {}
        }
    }
}

fn kernel_work(t: &Transformed, k: &KernelIr, launches: f64, env: Env) -> KernelWork {
    let mut counts = Counts::default();
    let (blocks, working_share, block) = walk_kernel(t, k, env.clone(), &mut counts);
    let mut shared_bytes = 0;
    let mut register_words = 0;
    for c in &t.copies {
        if c.kernel != k.kernel {
            continue;
        }
        let elems: i64 = c.dims.iter().product();
        let bytes = elems * t.program.arrays[c.array].elem.size_bytes() as i64;
        match c.memory {
            Memory::Shared => shared_bytes += bytes,
            Memory::Registers => register_words += (bytes + 3) / 4,
        }
    }
    let footprint_bytes = counts
        .global_arrays
        .iter()
        .map(|&a| {
            let elems: f64 = array_extents(t, a, &env)
                .iter()
                .map(|&e| e as f64)
                .product();
            elems * t.program.arrays[a].elem.size_bytes() as f64
        })
        .sum();
    KernelWork {
        name: k.name.clone(),
        footprint_bytes,
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
        registers: (24 + 2 * register_words).min(255),
        register_copy_words: register_words,
        per_thread: counts,
    }
}

/// Walks kernel `k` for its representative thread into `sink`; returns the blocks per
/// launch and the block's shape.
fn walk_kernel(
    t: &Transformed,
    k: &KernelIr,
    mut env: Env,
    sink: &mut dyn Sink,
) -> (f64, f64, Vec<i64>) {
    let grid: Vec<i64> = k
        .grid
        .iter()
        .map(|g| eval(g, &env).unwrap_or(1).max(1))
        .collect();
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
    for (d, g) in grid.iter().enumerate() {
        env.set(&format!("blockIdx.{}", DIMS[d]), g / 2);
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
            grid: &grid,
            block: &block,
            entry: entry_env,
        },
        active: std::cell::Cell::new(1.0),
        fractions: std::cell::RefCell::new(Vec::new()),
        copying: std::cell::Cell::new(Share::ALL),
        reuse: std::cell::RefCell::new(Vec::new()),
        written: (0..t.program.arrays.len())
            .filter(|&a| t.writes(&t.kernels[k.kernel].statements, a))
            .collect(),
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
        sink.load(Mem::Shared { wavefronts: 1.0 }, 2.0);
        sink.barrier(1.0);
        sink.atomic(1.0 / warps);
        sink.end_instance();
    }
    (blocks, working_share, block)
}

/// How an expression moves with threadIdx.x and .y (through the prologue's variables and
/// loop variables whose start depends on them); `None` when it is not affine.
fn thread_coefficients(e: &Expr, env: &Env) -> Option<(i64, i64)> {
    let (terms, _) = ir::linear(e)?;
    let mut cx = 0;
    let mut cy = 0;
    for (name, c) in terms {
        if let Some((_, (x, y))) = env
            .thread_coefficients
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
        {
            cx += c * x;
            cy += c * y;
        }
    }
    Some((cx, cy))
}

const DIMS: [&str; 3] = ["x", "y", "z"];

struct Walker<'a> {
    t: &'a Transformed,
    block: &'a [i64],
    space: ThreadSpace<'a>,
    /// The share of the blocks' warps that do the work: the smallest share of warps
    /// that pass a guard on the thread's position (a triangle's blocks above its
    /// diagonal do nothing).
    active: std::cell::Cell<f64>,
    /// Guards already measured (by address), with their share.
    fractions: std::cell::RefCell<Vec<(*const Expr, Option<Share>)>>,
    /// The threads that run the copies being walked (inside guards around copies only).
    copying: std::cell::Cell<Share>,
    /// L1 reuse already measured, per (statement, access).
    reuse: std::cell::RefCell<Vec<((usize, usize), L1)>>,
    /// The arrays the kernel writes.
    written: Vec<usize>,
}

/// The threads of a launch, for guards that depend on where a thread is.
struct ThreadSpace<'a> {
    kernel: &'a KernelIr,
    grid: &'a [i64],
    block: &'a [i64],
    /// The values at the kernel's entry (sizes, host loop variables).
    entry: Env,
}

impl ThreadSpace<'_> {
    /// How many threads pass `cond`: the share of warps of which a lane passes, sampled
    /// over up to 5 blocks per grid dimension (evenly spaced, both ends included) and, in
    /// each warp, its first, middle and last lane (a guard affine in the position passes
    /// an interval of lanes); and the share of the lanes of those warps that pass, every
    /// lane counted in the first block. `None` when `cond` reads anything but the position
    /// and the entry's values, or does not depend on the position.
    fn fraction(&self, cond: &Expr) -> Option<Share> {
        let mut names = Vec::new();
        free_names(cond, &mut names);
        let positional = |n: &str| {
            n.starts_with("threadIdx.")
                || n.starts_with("blockIdx.")
                || self.kernel.prologue.iter().any(|v| v.name == n)
        };
        if !names.iter().any(|n| positional(n))
            || !names
                .iter()
                .all(|n| positional(n) || self.entry.get(n).is_some())
        {
            return None;
        }
        let samples = |extent: i64| -> Vec<i64> {
            let mut v: Vec<i64> = (0..5).map(|k| k * (extent - 1).max(0) / 4).collect();
            v.dedup();
            v
        };
        let per_dim: Vec<Vec<i64>> = self.grid.iter().map(|&g| samples(g)).collect();
        let threads: i64 = self.block.iter().product();
        let mut env = self.entry.clone();
        let (mut active, mut total) = (0u64, 0u64);
        let (mut lanes_in, mut lanes_of) = (0u64, 0u64);
        let mut block_index = vec![0usize; per_dim.len()];
        // The names once, not per sampled lane (this runs in every ranking's emulation).
        let block_names: Vec<String> = (0..per_dim.len())
            .map(|d| format!("blockIdx.{}", DIMS[d]))
            .collect();
        let thread_names: Vec<String> = (0..self.block.len())
            .map(|d| format!("threadIdx.{}", DIMS[d]))
            .collect();
        loop {
            for (d, values) in per_dim.iter().enumerate() {
                env.set(&block_names[d], values[block_index[d]]);
            }
            let first_block = block_index.iter().all(|&b| b == 0);
            for warp in 0..(threads + 31) / 32 {
                let mut passes = |id: i64| {
                    let mut rest = id;
                    for (d, b) in self.block.iter().enumerate() {
                        env.set(&thread_names[d], rest % b);
                        rest /= b;
                    }
                    for v in &self.kernel.prologue {
                        if let Some(x) = eval(&v.value, &env) {
                            env.set(&v.name, x);
                        }
                    }
                    eval(cond, &env) != Some(0)
                };
                let lanes = [0, 15, 31].map(|l| (warp * 32 + l).min(threads - 1));
                let passed = lanes.iter().any(|&id| passes(id));
                if passed && first_block {
                    let all = warp * 32..(warp * 32 + 32).min(threads);
                    lanes_of += all.end.saturating_sub(all.start) as u64;
                    lanes_in += all.filter(|&id| passes(id)).count() as u64;
                }
                active += u64::from(passed);
                total += 1;
            }
            // The next sampled block, odometer-wise.
            let mut d = 0;
            while d < block_index.len() {
                block_index[d] += 1;
                if block_index[d] < per_dim[d].len() {
                    break;
                }
                block_index[d] = 0;
                d += 1;
            }
            if d == block_index.len() {
                break;
            }
        }
        Some(Share {
            warps: active as f64 / total.max(1) as f64,
            lanes: if lanes_of == 0 {
                1.0
            } else {
                lanes_in as f64 / lanes_of as f64
            },
        })
    }
}

/// The threads that pass a guard: the share of warps with a lane that passes, and the
/// share of those warps' lanes that pass.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Share {
    warps: f64,
    lanes: f64,
}

impl Share {
    const ALL: Share = Share {
        warps: 1.0,
        lanes: 1.0,
    };
}

fn free_names<'e>(e: &'e Expr, out: &mut Vec<&'e str>) {
    match e {
        Expr::Id(n) => out.push(n),
        Expr::Op(_, args) => args.iter().for_each(|a| free_names(a, out)),
        _ => {}
    }
}

impl Walker<'_> {
    fn guard_share(&self, cond: &Expr) -> Option<Share> {
        let key = cond as *const Expr;
        if let Some((_, f)) = self.fractions.borrow().iter().find(|(k, _)| *k == key) {
            return *f;
        }
        let f = self.space.fraction(cond);
        self.fractions.borrow_mut().push((key, f));
        f
    }

    fn nodes(&self, nodes: &[Node], env: &mut Env, mult: f64, sink: &mut dyn Sink) {
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
                        for k in 0..count as i64 {
                            if sink.full() {
                                return;
                            }
                            if let Some(f) = first {
                                inner.set(var, f + k * step.max(&1));
                            }
                            if let Some(loop_) = &mut inner.innermost {
                                loop_.iteration = Some(k);
                            }
                            sink.region(&|| "control flow".to_string());
                            sink.loop_iteration(1.0);
                            self.nodes(body, &mut inner, 1.0, sink);
                        }
                    } else {
                        if let Some(m) = mid {
                            inner.set(var, m);
                        }
                        sink.node(std::ptr::from_ref(n) as usize, mult, Some(count), 0.0);
                        sink.region(&|| "control flow".to_string());
                        sink.loop_iteration(mult * count);
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
                    let share = self.guard_share(cond);
                    let taken = match share {
                        Some(f) if else_branch.is_none() => f.warps > 0.0,
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
                    if self.runs(body, &|k| matches!(k, StmtKind::Compute(_))) {
                        self.active.set(self.active.get().min(f.warps.max(0.0)));
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
                }
                Node::Instance { statement, args } => {
                    if !sink.expands() {
                        let words = self.words(*statement);
                        sink.node(std::ptr::from_ref(n) as usize, mult, None, words);
                    }
                    self.instance(*statement, args, env, mult, sink);
                    sink.end_instance();
                }
                Node::Launch { .. } => {}
            }
        }
    }

    /// The 32-bit words of the elements statement `s` moves (0 for a barrier).
    fn words(&self, s: usize) -> f64 {
        let p = &self.t.program;
        let array = match self.t.statements[s].kind {
            StmtKind::Sync => return 0.0,
            StmtKind::CopyIn(k) | StmtKind::CopyOut(k) => self.t.copies[k].array,
            StmtKind::Compute(id) => p.accesses[p.statements[id].write].array,
        };
        (p.arrays[array].elem.size_bytes() as f64 / 4.0).max(1.0)
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

    fn instance(&self, s: usize, args: &[Expr], env: &Env, mult: f64, sink: &mut dyn Sink) {
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
            StmtKind::Sync => sink.barrier(mult),
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
                let global = self.global(linearize(&element, &extents), elem, copy.array);
                let shared = self.shared(linearize(&position, &copy.dims), elem);
                sink.compute(
                    Arith {
                        int: 2,
                        ..Arith::default()
                    },
                    mult,
                );
                match (st.kind, copy.memory) {
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
                        let (terms, _) = ir::linear(a)?;
                        Some(terms.iter().find(|(x, _)| x == var).map_or(0, |(_, c)| *c))
                    })
                    .collect();
                // Accesses rewritten to copy temporaries, with their indices' coefficients.
                let mut at = n;
                let mut rewritten: Vec<(usize, usize, Vec<Step>)> = Vec::new();
                for (copy, a, index) in t.copy_indices(s) {
                    let coefs = args[at..at + index.len()]
                        .iter()
                        .map(|x| thread_coefficients(x, env))
                        .collect();
                    at += index.len();
                    rewritten.push((a, copy, coefs));
                }
                // Per subscript of access `a`: its move along threadIdx.x and .y, and per
                // iteration of the innermost loop.
                let moves = |a: usize| -> Vec<(Step, Option<i64>)> {
                    p.accesses[a]
                        .subscripts
                        .iter()
                        .map(|sub| {
                            let Some(aff) = sub.as_aff() else {
                                return (None, None);
                            };
                            let mut total = Some((0, 0));
                            let mut step = Some(0);
                            for (k, l) in statement.loops.iter().enumerate() {
                                let v = Var::Index(p.loops[*l].iterator.clone());
                                let (coef, in_div) = aff.coefficient(&v);
                                if in_div {
                                    return (None, None);
                                }
                                if coef != 0 {
                                    total = total
                                        .zip(its[k])
                                        .map(|((tx, ty), (x, y))| (tx + coef * x, ty + coef * y));
                                    step = step.zip(along[k]).map(|(s, a)| s + coef * a);
                                }
                            }
                            (total, step)
                        })
                        .collect()
                };
                // Where each access goes (`None`: a register).
                let place = |a: usize| -> Option<Mem> {
                    let access = &p.accesses[a];
                    let array = &p.arrays[access.array];
                    let elem = array.elem.size_bytes() as i64;
                    if let Some((_, copy, coefs)) = rewritten.iter().find(|(x, _, _)| *x == a) {
                        let copy = &t.copies[*copy];
                        return (copy.memory == Memory::Shared)
                            .then(|| self.shared(linearize(coefs, &copy.dims), elem));
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
                let mut reads: Vec<(Mem, f64)> = statement
                    .reads
                    .iter()
                    .enumerate()
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
                let root = match statement.kind {
                    StatementKind::Assign(e) | StatementKind::Init { value: e } => e,
                };
                let mut ops = Ops::default();
                count_ops(&p.unit.ast, root, &mut ops);
                let mut a = Arith {
                    special: ops.special,
                    // Range reduction and the like around each special function.
                    fp32: 4 * ops.special,
                    int: ops.index,
                    fp64: 0,
                    update: None,
                };
                match ty {
                    ScalarType::Double => a.fp64 += ops.arith,
                    ScalarType::Float => a.fp32 += ops.arith,
                    _ => a.int += ops.arith,
                }
                if statement.update.is_some() && (write.is_none() || promoted.is_some()) {
                    a.update = Some(id);
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
        let c = self.copying.get();
        Mem::Global {
            sectors: (lanes(stride, self.block, elem).0 * c.lanes).max(1.0) * c.warps,
            array: Some(array),
            l1: L1::default(),
            read_only: !self.written.contains(&array),
        }
    }

    /// The L1 reuse of read `access` of statement `s` (measured once per walk).
    fn reuse(&self, s: usize, access: usize, stride: Step, step: Option<i64>, elem: i64) -> L1 {
        if let Some((_, r)) = self.reuse.borrow().iter().find(|(k, _)| *k == (s, access)) {
            return *r;
        }
        let r = l1_reuse(stride, step, self.block, elem);
        self.reuse.borrow_mut().push(((s, access), r));
        r
    }

    fn shared(&self, stride: Step, elem: i64) -> Mem {
        Mem::Shared {
            wavefronts: lanes(stride, self.block, elem).1,
        }
    }
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

/// The 32-byte sectors a warp's access touches, and the shared-memory passes it needs
/// (the most distinct 4-byte words that fall in one of the 32 banks).
pub fn lanes(stride: Option<(i64, i64)>, block: &[i64], elem: i64) -> (f64, f64) {
    let Some((sx, sy)) = stride else {
        return (32.0, 32.0);
    };
    let bx = block.first().copied().unwrap_or(1).max(1);
    let by = block.get(1).copied().unwrap_or(1).max(1);
    let threads: i64 = block.iter().product::<i64>().max(1);
    let mut sectors: Vec<i64> = Vec::with_capacity(64);
    let mut words: Vec<i64> = Vec::with_capacity(64);
    for lane in 0..threads.min(32) {
        let (tx, ty) = (lane % bx, (lane / bx) % by);
        let addr = (sx * tx + sy * ty) * elem;
        let first = addr.div_euclid(32);
        let last = (addr + elem - 1).div_euclid(32);
        sectors.extend(first..=last);
        words.extend(addr.div_euclid(4)..(addr + elem).div_euclid(4).max(addr.div_euclid(4) + 1));
    }
    sectors.sort_unstable();
    sectors.dedup();
    words.sort_unstable();
    words.dedup();
    let mut per_bank = [0u32; 32];
    for w in &words {
        per_bank[w.rem_euclid(32) as usize] += 1;
    }
    let wavefronts = per_bank.iter().copied().max().unwrap_or(1).max(1);
    (sectors.len().max(1) as f64, wavefronts as f64)
}

/// The L1 reuse of a global read whose element moves by `stride` elements along
/// threadIdx.x and .y and by `step` elements per iteration of the innermost loop around
/// it (`None`: no loop in the thread, or not affine): of the sectors the block's warps ask
/// for in one iteration, the share that another warp of the block asked for in the same
/// iteration or that the block touched in the iteration before; and the bytes the block
/// keeps in L1 for that (two iterations' sectors). Averaged over where the first element
/// falls in its sector. `None` stride: no reuse.
pub fn l1_reuse(stride: Step, step: Option<i64>, block: &[i64], elem: i64) -> L1 {
    let Some((sx, sy)) = stride else {
        return L1::default();
    };
    let bx = block.first().copied().unwrap_or(1).max(1);
    let by = block.get(1).copied().unwrap_or(1).max(1);
    let threads = block.iter().product::<i64>().clamp(1, 1024);
    let distinct = |mut v: Vec<i64>| {
        v.sort_unstable();
        v.dedup();
        v
    };
    let offsets: Vec<i64> = (0..32).step_by(elem.clamp(1, 32) as usize).collect();
    let (mut hits, mut bytes, mut lines) = (0.0, 0.0, 0.0);
    let warps = (threads + 31) / 32;
    for &base in &offsets {
        let sector = |t: i64, shift: i64| {
            let (tx, ty) = (t % bx, (t / bx) % by);
            (base + (sx * tx + sy * ty + shift) * elem).div_euclid(32)
        };
        let per_warp =
            |w: i64| distinct((w..(w + 32).min(threads)).map(|t| sector(t, 0)).collect());
        let asked: usize = (0..threads).step_by(32).map(|w| per_warp(w).len()).sum();
        lines += (0..threads)
            .step_by(32)
            .map(|w| distinct(per_warp(w).iter().map(|s| s.div_euclid(4)).collect()).len())
            .sum::<usize>() as f64
            / warps as f64;
        let now = distinct((0..threads).map(|t| sector(t, 0)).collect());
        let (new, kept) = match step {
            Some(d) => {
                let next = distinct((0..threads).map(|t| sector(t, d)).collect());
                let fresh = next
                    .iter()
                    .filter(|x| now.binary_search(x).is_err())
                    .count();
                (fresh, now.len() + fresh)
            }
            None => (now.len(), now.len()),
        };
        hits += 1.0 - new as f64 / asked.max(1) as f64;
        bytes += 32.0 * kept as f64;
    }
    let n = offsets.len() as f64;
    L1 {
        hits: (hits / n).clamp(0.0, 1.0),
        bytes: bytes / n,
        lines: lines / n,
    }
}

#[derive(Default)]
struct Ops {
    arith: u32,
    special: u32,
    index: u32,
}

/// Arithmetic in a statement: operators and calls, and one integer operation per array
/// access for its address (affine subscripts are strength-reduced by nvcc).
fn count_ops(ast: &crate::frontend::ast::Ast, e: crate::frontend::ast::ExprId, ops: &mut Ops) {
    match &ast.exprs[e].kind {
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Name(_) => {}
        ExprKind::Index { base, index } => {
            // One address update per access: nvcc strength-reduces affine subscripts to
            // a pointer increment, or an immediate offset once a loop is unrolled.
            if !matches!(ast.exprs[*base].kind, ExprKind::Index { .. }) {
                ops.index += 1;
            }
            count_ops(ast, *base, ops);
            let mut sub = Ops::default();
            count_ops(ast, *index, &mut sub);
            ops.special += sub.special;
        }
        ExprKind::Call { name, args, .. } => {
            let special = [
                "sin", "cos", "tan", "exp", "log", "pow", "sqrt", "sinf", "cosf", "tanf", "expf",
                "logf", "powf", "sqrtf", "exp2", "exp2f", "log2", "log2f", "rsqrt", "rsqrtf",
                "atan", "atanf", "atan2", "atan2f", "tanh", "tanhf", "cbrt", "cbrtf",
            ];
            if special.contains(&name.as_str()) {
                ops.special += 1;
            } else {
                ops.arith += 1;
            }
            args.iter().for_each(|a| count_ops(ast, *a, ops));
        }
        ExprKind::Unary { operand, .. } | ExprKind::Cast { operand, .. } => {
            count_ops(ast, *operand, ops)
        }
        ExprKind::Binary { op, lhs, rhs } => {
            ops.arith += match op {
                BinaryOp::Div => 4,
                _ => 1,
            };
            count_ops(ast, *lhs, ops);
            count_ops(ast, *rhs, ops);
        }
        ExprKind::Conditional {
            cond,
            then_value,
            else_value,
        } => {
            ops.arith += 1;
            count_ops(ast, *cond, ops);
            count_ops(ast, *then_value, ops);
            count_ops(ast, *else_value, ops);
        }
        ExprKind::Assign { op, target, value } => {
            if !matches!(op, crate::frontend::ast::AssignOp::Set) {
                ops.arith += 1;
            }
            count_ops(ast, *target, ops);
            count_ops(ast, *value, ops);
        }
        ExprKind::Step { target, .. } => {
            ops.arith += 1;
            count_ops(ast, *target, ops);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{l1_reuse, lanes, L1};

    #[test]
    fn a_coalesced_float_warp_moves_four_sectors() {
        assert_eq!(lanes(Some((1, 0)), &[32, 8], 4), (4.0, 1.0));
        // Doubles: eight sectors, and two words per lane spread over the banks.
        assert_eq!(lanes(Some((1, 0)), &[32], 8).0, 8.0);
    }

    #[test]
    fn a_broadcast_is_one_sector_and_one_pass() {
        assert_eq!(lanes(Some((0, 0)), &[32, 8], 4), (1.0, 1.0));
    }

    #[test]
    fn a_column_walk_touches_a_sector_per_lane_and_conflicts_on_banks() {
        // Stride 1024 floats along x: 32 sectors; in shared memory, 32 lanes on one bank.
        assert_eq!(lanes(Some((1024, 0)), &[32], 4), (32.0, 32.0));
        // Padded to 1025: no conflicts.
        assert_eq!(lanes(Some((1025, 0)), &[32], 4).1, 1.0);
    }

    #[test]
    fn a_narrow_block_spreads_a_warp_over_rows() {
        // 16 x 16 threads: a warp is two rows of 16; rows 1024 floats apart.
        assert_eq!(lanes(Some((1, 1024)), &[16, 16], 4).0, 4.0);
        assert_eq!(lanes(None, &[16, 16], 4).0, 32.0);
    }

    #[test]
    fn a_broadcast_is_fetched_by_one_warp_and_served_to_the_others() {
        // 8 warps ask for the same sector: one miss, seven hits.
        let r = l1_reuse(Some((0, 0)), None, &[32, 8], 4);
        assert_eq!(
            r,
            L1 {
                hits: 0.875,
                bytes: 32.0,
                lines: 1.0
            }
        );
    }

    #[test]
    fn a_coalesced_stream_reuses_only_the_sector_it_straddles() {
        // Each warp reads its own 128 bytes: nothing to reuse in the same iteration.
        assert_eq!(l1_reuse(Some((1, 0)), None, &[32], 4).hits, 0.0);
        // Moving on by 128 bytes per iteration: where the first element is not at a
        // sector's start (7 of 8 alignments), one of the five sectors was read before.
        let r = l1_reuse(Some((1, 0)), Some(32), &[32], 4);
        assert!((r.hits - 7.0 / 8.0 * 0.2).abs() < 1e-12, "{r:?}");
    }

    #[test]
    fn a_thread_walking_along_its_own_row_hits_in_the_sector_it_read_before() {
        // Rows 1024 floats apart, one float further per iteration: a new sector in one
        // iteration of eight (when the first element is a sector's last).
        let r = l1_reuse(Some((1024, 0)), Some(1), &[32], 4);
        assert_eq!(r.hits, 7.0 / 8.0);
        assert_eq!(r.lines, 32.0);
        // The block keeps its 32 sectors, and 32 more in the iteration that crosses.
        assert_eq!(r.bytes, (7.0 * 1024.0 + 2048.0) / 8.0);
    }

    #[test]
    fn an_access_that_is_not_affine_in_the_threads_is_not_served_by_l1() {
        assert_eq!(l1_reuse(None, Some(1), &[32, 8], 4), L1::default());
    }
}
