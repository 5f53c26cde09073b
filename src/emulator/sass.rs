//! Instruction streams from the variant's SASS, when NVIDIA's toolchain is installed
//! (seed 000 §4 emulates the instructions the GPU runs; the kernel IR only approximates
//! them). The `.cu` is compiled with `-lineinfo` ([`super::ptxas::compile`]) and
//! `nvdisasm -c -gi` prints each kernel's instructions with the `.cu` line they come
//! from. Then:
//!
//! - every instruction goes to a pipe by its opcode ([`Kind`]) and waits for the
//!   instructions that wrote the registers and predicates it reads: ptxas's own order and
//!   its own dependences, so its unrolling, its vector loads and how many loads it keeps
//!   in flight are what the emulation sees;
//! - a backward branch closes a loop, mapped by its line to the loop of the kernel IR
//!   written there; its trip count is that loop's (from the polyhedral model, as the
//!   counting walk of [`super::workload`] sees it) over ptxas's unroll factor, the factor
//!   found by comparing the work (flops and memory words) of each statement line in the
//!   SASS loop with one iteration of the IR loop;
//! - a memory instruction costs what the accesses of its line cost in the IR model
//!   (sectors, L1 reuse, bank conflicts; [`super::streams::StreamBuilder`] sends them to
//!   DRAM, L2 or L1 as for IR streams), scaled by its width (`LDS.128`: four words).
//!
//! Forward branches are taken when unconditional, else not (guards fall through: the
//! representative warp does the work). The stream is the walk's first
//! [`super::streams::MAX_INSTRUCTIONS`]; the rest repeats it ([`super::streams::scale`]).

use super::streams::{StreamBuilder, BRANCH, FP32, FP64, INT, L2, LSU, SFU, SHARED};
use super::workload::{Arith, Mem, Sink, L1};

mod stream;
pub use stream::stream;

/// One instruction as nvdisasm prints it.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    /// The `.cu` line it comes from, when nvdisasm says.
    pub line: Option<u32>,
    /// Guarded by a predicate (`@P0`, `@!P0`).
    pub guarded: bool,
    /// The opcode with its modifiers (`LDG.E.CONSTANT`).
    pub opcode: String,
    pub kind: Kind,
    /// Registers and predicates written, and read (the guard included).
    pub writes: Vec<u16>,
    pub reads: Vec<u16>,
    /// 32-bit words a memory instruction moves per thread (`.128`: 4).
    pub words: u32,
    /// A branch's target, an index into the kernel's instructions.
    pub target: Option<usize>,
}

/// What an instruction is, for the pipes of [`super::streams`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Fp32,
    Fp64,
    Int,
    /// The special function unit (`MUFU`) and conversions.
    Special,
    Load(Space),
    Store(Space),
    /// Global atomics and reductions, done in L2.
    Atomic,
    /// `SHFL`: through the shared-memory crossbar.
    Shuffle,
    Barrier,
    Branch,
    Exit,
    /// No cost in the model (`NOP`, fences).
    Skip,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Global,
    Shared,
    /// Local memory (spills): an L1 hit in the model.
    Local,
    Constant,
}

/// One kernel's SASS.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: String,
    pub instructions: Vec<Instruction>,
}

/// A kernel being read: its instructions, its labels (with the instruction each names),
/// and the label each instruction branches to.
type Parsing = (Kernel, Vec<(String, usize)>, Vec<Option<String>>);

/// Reads `nvdisasm -c -gi`: a `.text.<mangled name>:` label starts a kernel, `//## File
/// "...", line N` (with ` inlined at "...", line M` for inlined functions) sets the `.cu`
/// line of the instructions that follow, `.L_x_N:` labels what branches name.
pub fn parse(text: &str) -> Vec<Kernel> {
    let mut kernels = Vec::new();
    let mut current: Option<Parsing> = None;
    let mut line = None;
    let finish = |k: Option<Parsing>, out: &mut Vec<Kernel>| {
        if let Some((mut kernel, labels, targets)) = k {
            for (i, label) in targets.iter().enumerate() {
                kernel.instructions[i].target = label
                    .as_ref()
                    .and_then(|l| labels.iter().find(|(n, _)| n == l).map(|(_, at)| *at));
            }
            out.push(kernel);
        }
    };
    for raw in text.lines() {
        let l = raw.trim();
        if let Some(name) = l.strip_prefix(".text.").and_then(|r| r.strip_suffix(':')) {
            finish(current.take(), &mut kernels);
            line = None;
            current = Some((
                Kernel {
                    name: super::ptxas::demangle(name),
                    instructions: Vec::new(),
                },
                Vec::new(),
                Vec::new(),
            ));
            continue;
        }
        let Some((kernel, labels, targets)) = current.as_mut() else {
            continue;
        };
        if let Some(place) = l.strip_prefix("//## File ") {
            // `-gi`: a header's line (`__ldg` from sm_32_intrinsics.hpp) says where it
            // was inlined; the outermost place is the `.cu` line.
            let outer = place.rsplit(" inlined at ").next().unwrap_or(place);
            let (file, rest) = outer
                .trim_start_matches('"')
                .split_once('"')
                .unwrap_or(("", ""));
            if file.ends_with(".cu") {
                line = rest
                    .split(", line ")
                    .nth(1)
                    .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
                    .and_then(|n| n.parse().ok());
            }
        } else if let Some(label) = l.strip_suffix(':').filter(|x| x.starts_with(".L")) {
            labels.push((label.to_string(), kernel.instructions.len()));
        } else if let Some(rest) = l.strip_prefix("/*").and_then(|r| r.split_once("*/")) {
            let body = rest.1.trim().trim_end_matches(';').trim();
            if body.is_empty() {
                continue;
            }
            let (instruction, target) = instruction(body, line);
            kernel.instructions.push(instruction);
            targets.push(target);
        }
    }
    finish(current, &mut kernels);
    kernels
}

/// One instruction from its text (`@!P0 LDG.E R11, desc[UR4][R8.64]`), with the label a
/// branch names.
fn instruction(body: &str, line: Option<u32>) -> (Instruction, Option<String>) {
    let mut rest = body;
    let mut guard = None;
    if body.starts_with('@') {
        let (g, r) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
        guard = Some(g);
        rest = r.trim();
    }
    let (opcode, operands) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let operands: Vec<&str> = operands
        .split(',')
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .collect();
    let kind = kind(opcode);
    // The destinations: the first operand, and a predicate right after it (`ISETP P0, PT,
    // ...`, `IADD3 R8, P1, ...`: the carry); none for stores, branches and the like.
    let dests = match kind {
        Kind::Store(_) | Kind::Barrier | Kind::Branch | Kind::Exit | Kind::Skip => 0,
        // `LDGSTS [R5], desc[UR4][R2.64]`: into shared memory, no register.
        _ if opcode.starts_with("LDGSTS") => 0,
        Kind::Atomic if opcode.starts_with("RED") => 0,
        _ if operands.len() > 1 && is_predicate(operands[1]) => 2,
        _ => operands.len().min(1),
    };
    let width = dest_width(opcode);
    let mut writes = Vec::new();
    for (k, o) in operands[..dests].iter().enumerate() {
        for r in registers(o) {
            let n = if k == 0 && r < PREDICATES { width } else { 1 };
            writes.extend((0..n).map(|d| r + d).filter(|&x| x < PREDICATES));
            if r >= PREDICATES {
                writes.push(r);
            }
        }
    }
    writes.dedup();
    let mut reads: Vec<u16> = operands[dests..]
        .iter()
        .flat_map(|o| registers(o))
        .collect();
    if let Some(g) = guard {
        reads.extend(registers(g));
    }
    reads.sort_unstable();
    reads.dedup();
    // Only jumps go to their label (`BSSY B0, label` names where threads reconverge).
    let jump = matches!(opcode.split('.').next(), Some("BRA" | "JMP"));
    let target = operands
        .iter()
        .filter(|_| jump)
        .find_map(|o| o.strip_prefix("`(").and_then(|t| t.strip_suffix(')')))
        .map(str::to_string);
    let words = if opcode.contains(".128") {
        4
    } else if opcode.contains(".64") {
        2
    } else {
        1
    };
    (
        Instruction {
            line,
            guarded: guard.is_some(),
            opcode: opcode.to_string(),
            kind,
            writes,
            reads,
            words,
            target: None,
        },
        target,
    )
}

/// Register numbers: R0-R255 as themselves, P0-P7 from [`PREDICATES`], uniform registers
/// and predicates after them (RZ, PT, URZ, UPT are constants: none).
const PREDICATES: u16 = 256;
const UNIFORM: u16 = 264;
const UNIFORM_PREDICATES: u16 = 328;

fn is_predicate(operand: &str) -> bool {
    let o = operand.trim_start_matches('!');
    o == "PT" || (o.len() == 2 && o.starts_with('P') && o.as_bytes()[1].is_ascii_digit())
}

/// The registers an operand names (`desc[UR4][R2.64+0x10]`: UR4, R2 and R3).
fn registers(operand: &str) -> Vec<u16> {
    let mut out = Vec::new();
    let bytes = operand.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_alphanumeric() && bytes[i] != b'_' {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
            i += 1;
        }
        let token = &operand[start..i];
        let number = |prefix: &str| -> Option<u16> {
            let digits = token.strip_prefix(prefix)?;
            (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                .then(|| digits.parse().ok())
                .flatten()
        };
        let pair = operand[i..].starts_with(".64");
        if let Some(n) = number("UR") {
            out.push(UNIFORM + n.min(63));
        } else if let Some(n) = number("UP") {
            out.push(UNIFORM_PREDICATES + n.min(7));
        } else if let Some(n) = number("R") {
            out.push(n.min(255));
            if pair && n < 255 {
                out.push(n + 1);
            }
        } else if let Some(n) = number("P") {
            out.push(PREDICATES + n.min(7));
        }
    }
    out
}

/// Registers the first destination spans: a pair for 64-bit results, four for 128-bit
/// loads.
fn dest_width(opcode: &str) -> u16 {
    let base = opcode.split('.').next().unwrap_or("");
    if opcode.contains(".128") {
        4
    } else if opcode.contains(".64")
        || opcode.contains(".WIDE")
        || matches!(base, "DFMA" | "DADD" | "DMUL" | "DMNMX")
        || ((base == "F2F" || base == "I2F") && opcode[base.len()..].starts_with(".F64"))
    {
        2
    } else {
        1
    }
}

/// What the opcode does. `IMAD` runs on the FMA pipe with `FFMA` (NVIDIA's profiler
/// counts both on its `fma` pipe since Volta).
pub fn kind(opcode: &str) -> Kind {
    let base = opcode.split('.').next().unwrap_or("");
    match base {
        "LDG" | "LD" | "LDGSTS" => Kind::Load(Space::Global),
        "STG" | "ST" => Kind::Store(Space::Global),
        "LDS" | "LDSM" => Kind::Load(Space::Shared),
        "STS" | "ATOMS" => Kind::Store(Space::Shared),
        "LDL" => Kind::Load(Space::Local),
        "STL" => Kind::Store(Space::Local),
        "LDC" => Kind::Load(Space::Constant),
        "ATOMG" | "ATOM" | "RED" | "REDG" => Kind::Atomic,
        "SHFL" => Kind::Shuffle,
        "BAR" => Kind::Barrier,
        "BRA" | "BRX" | "JMP" | "JMX" | "CALL" | "RET" | "BSSY" | "BSYNC" | "WARPSYNC"
        | "BREAK" => Kind::Branch,
        "EXIT" => Kind::Exit,
        "NOP" | "DEPBAR" | "MEMBAR" | "FENCE" | "ERRBAR" | "CCTL" | "YIELD" => Kind::Skip,
        "FFMA" | "FADD" | "FMUL" | "FMNMX" | "FSETP" | "FSEL" | "FSET" | "FCHK" | "FSWZADD"
        | "HFMA2" | "HADD2" | "HMUL2" | "HSETP2" | "HMNMX2" | "F2FP" | "IMAD" | "IMUL" => {
            Kind::Fp32
        }
        "DFMA" | "DADD" | "DMUL" | "DMNMX" | "DSETP" => Kind::Fp64,
        "MUFU" | "I2F" | "F2I" | "F2F" | "I2I" | "FRND" => Kind::Special,
        _ => Kind::Int,
    }
}

/// Floating-point operations of one instruction (an FMA is two).
fn flops(i: &Instruction) -> f64 {
    let base = i.opcode.split('.').next().unwrap_or("");
    match base {
        "FFMA" | "DFMA" => 2.0,
        "FADD" | "FMUL" | "DADD" | "DMUL" | "MUFU" => 1.0,
        _ => 0.0,
    }
}

/// The work of an instruction, in the units the IR's statements are compared in: flops
/// plus the words a global or shared access moves.
fn work(i: &Instruction) -> f64 {
    match i.kind {
        Kind::Load(Space::Global | Space::Shared) | Kind::Store(Space::Global | Space::Shared) => {
            f64::from(i.words)
        }
        _ => flops(i),
    }
}

/// The stream entries an instruction makes: a global access is an issue and a pass
/// through its memory pipe (a shared-memory access only the pass, as in IR streams).
fn entries(k: Kind) -> f64 {
    match k {
        Kind::Load(Space::Global) | Kind::Store(Space::Global) | Kind::Atomic | Kind::Shuffle => {
            2.0
        }
        Kind::Skip => 0.0,
        _ => 1.0,
    }
}

/// What the kernel IR says about the statements and loops written on one `.cu` line.
#[derive(Clone, Debug, Default)]
pub struct LineWork {
    pub line: u32,
    /// A loop written there: entries per thread and iterations per entry.
    pub loop_trip: Option<(f64, f64)>,
    /// Statement instances per thread, and the work of one (flops and words).
    pub instances: f64,
    pub work: f64,
    /// The element's 32-bit words.
    pub words: f64,
    /// The region the statement belongs to.
    pub region: String,
    /// The costs of its accesses, in order.
    pub global_loads: Vec<Mem>,
    pub global_stores: Vec<Mem>,
    pub shared_loads: Vec<Mem>,
    pub shared_stores: Vec<Mem>,
}

impl LineWork {
    /// The accesses of one kind, in order.
    fn accesses(&self, space: Space, store: bool) -> &[Mem] {
        match (space, store) {
            (Space::Global, false) => &self.global_loads,
            (Space::Global, true) => &self.global_stores,
            (_, false) => &self.shared_loads,
            (_, true) => &self.shared_stores,
        }
    }
}

/// Collects [`LineWork`] from a counting walk of the kernel IR, given the `.cu` line of
/// each node ([`crate::cuda::node_lines`]).
pub struct Lines {
    nodes: Vec<(usize, u32)>,
    pub lines: Vec<LineWork>,
    /// The line of the node being walked, and its instances.
    current: Option<(usize, f64)>,
}

impl Lines {
    pub fn new(nodes: Vec<(usize, u32)>) -> Lines {
        Lines {
            nodes,
            lines: Vec::new(),
            current: None,
        }
    }

    fn at(&mut self) -> Option<&mut LineWork> {
        let (k, _) = self.current?;
        self.lines.get_mut(k)
    }

    /// The record of line `line`.
    pub fn get(&self, line: Option<u32>) -> Option<&LineWork> {
        let line = line?;
        self.lines.iter().find(|l| l.line == line)
    }

    /// Whether most of the instructions of `code` that come from the kernel IR's nodes
    /// come from nodes the walk did not reach (ptxas may merge a few of the taken
    /// branch's, a store both branches end with, into the other).
    fn mostly_unwalked(&self, code: &[Instruction]) -> bool {
        let walked = |l: u32| self.lines.iter().any(|w| w.line == l);
        let node = |l: u32| self.nodes.iter().any(|(_, n)| *n == l);
        let (mut yes, mut no) = (0, 0);
        for l in code.iter().filter_map(|i| i.line) {
            if walked(l) {
                no += 1;
            } else if node(l) {
                yes += 1;
            }
        }
        yes > no
    }

    /// The weight of an event of `mult` instances in the current statement's line (at most
    /// 1: the accesses of a guarded copy weigh less than the statement's instances), or
    /// `None` outside a statement.
    fn share(&self, mult: f64) -> Option<f64> {
        let (_, instances) = self.current?;
        Some(if instances > 0.0 {
            (mult / instances).min(1.0)
        } else {
            1.0
        })
    }

    fn record(&mut self, m: Mem, mult: f64, store: bool) {
        let Some(share) = self.share(mult) else {
            return;
        };
        let Some(l) = self.at() else { return };
        let words = l.words;
        let list = match (m, store) {
            (Mem::Global { .. }, false) => &mut l.global_loads,
            (Mem::Global { .. }, true) => &mut l.global_stores,
            (Mem::Shared { .. }, false) => &mut l.shared_loads,
            (Mem::Shared { .. }, true) => &mut l.shared_stores,
            (Mem::Constant, _) => return,
        };
        // An access in fewer than half the instances (an update's element kept in a
        // register over the loop, read before it and written after) is not among those
        // the loop's SASS loads and stores take in turn.
        if share >= 0.5 {
            list.push(m);
        }
        l.work += words * share;
    }
}

impl Sink for Lines {
    fn node(&mut self, node: usize, entries: f64, trip: Option<f64>, words: f64) {
        self.current = None;
        let Some(&(_, line)) = self.nodes.iter().find(|(n, _)| *n == node) else {
            return;
        };
        let k = match self.lines.iter().position(|l| l.line == line) {
            Some(k) => k,
            None => {
                self.lines.push(LineWork {
                    line,
                    ..LineWork::default()
                });
                self.lines.len() - 1
            }
        };
        let l = &mut self.lines[k];
        if let Some(count) = trip {
            let (e, _) = l.loop_trip.unwrap_or((0.0, 0.0));
            l.loop_trip = Some((e + entries, count));
            return;
        }
        l.instances += entries;
        l.words = words;
        self.current = Some((k, entries));
    }
    fn loop_iteration(&mut self, _mult: f64) {}
    fn branch(&mut self, _mult: f64) {}
    fn load(&mut self, m: Mem, mult: f64) {
        self.record(m, mult, false);
    }
    fn store(&mut self, m: Mem, mult: f64) {
        self.record(m, mult, true);
    }
    fn compute(&mut self, a: Arith, mult: f64) {
        let Some(share) = self.share(mult) else {
            return;
        };
        if let Some(l) = self.at() {
            // In flops, as the SASS's lines are measured: a fused multiply-add is two.
            l.work += f64::from(a.fp32 + a.fp64 + a.special + a.fused) * share;
        }
    }
    fn barrier(&mut self, _mult: f64) {}
    fn atomic(&mut self, _mult: f64) {}
    fn end_instance(&mut self) {
        self.current = None;
    }
    fn region(&mut self, name: &dyn Fn() -> String) {
        if let Some(l) = self.at() {
            l.region = name();
        }
    }
}

/// A loop of the SASS: the instructions `head..=back`, the last a backward branch.
#[derive(Clone, Debug, PartialEq)]
pub struct Loop {
    pub head: usize,
    pub back: usize,
    /// Iterations per entry.
    pub trips: f64,
    /// Whether the trip count comes from a loop of the IR (else 1: unknown).
    pub mapped: bool,
}

/// The loops of `k`, innermost first, with their trip counts; `Err` when two loops
/// overlap without nesting (code the walk cannot follow).
pub fn loops(k: &Kernel, lines: &Lines) -> Result<Vec<Loop>, String> {
    let ins = &k.instructions;
    let mut loops: Vec<Loop> = ins
        .iter()
        .enumerate()
        .filter_map(|(back, i)| {
            let head = i.target?;
            // `BRA` to itself after `EXIT` is the end-of-code trap, not a loop.
            (i.kind == Kind::Branch && head < back).then_some(Loop {
                head,
                back,
                trips: 1.0,
                mapped: false,
            })
        })
        .collect();
    loops.sort_by_key(|l| l.back - l.head);
    for (a, x) in loops.iter().enumerate() {
        for y in &loops[a + 1..] {
            let disjoint = x.back < y.head || y.back < x.head;
            let nested = y.head <= x.head && x.back <= y.back;
            if !disjoint && !nested {
                return Err(format!(
                    "loops at SASS instructions {}..{} and {}..{} overlap",
                    x.head, x.back, y.head, y.back
                ));
            }
        }
    }
    // Per loop (innermost first): the IR loop on its branch's line, and ptxas's unroll
    // factor from the work of the statement lines inside.
    let mut factors: Vec<(Option<u32>, f64)> = Vec::new();
    for a in 0..loops.len() {
        let (head, back) = (loops[a].head, loops[a].back);
        let ir_loop = (head..=back)
            .rev()
            .filter_map(|i| lines.get(ins[i].line))
            .find(|l| l.loop_trip.is_some());
        let Some(ir_loop) = ir_loop else {
            factors.push((None, 1.0));
            continue;
        };
        let (entries, count) = ir_loop.loop_trip.unwrap_or((1.0, 1.0));
        let iterations = entries * count;
        // Per statement line: the SASS work in one iteration of this loop.
        let mut per_line: Vec<(u32, f64)> = Vec::new();
        for (i, instruction) in ins.iter().enumerate().take(back + 1).skip(head) {
            let Some(line) = instruction.line else {
                continue;
            };
            let inner: f64 = loops[..a]
                .iter()
                .filter(|l| l.head <= i && i <= l.back && l.head >= head && l.back <= back)
                .map(|l| l.trips)
                .product();
            let w = work(instruction) * inner;
            match per_line.iter_mut().find(|(x, _)| *x == line) {
                Some(e) => e.1 += w,
                None => per_line.push((line, w)),
            }
        }
        // Per line, SASS instances per IR iteration; the unroll factor is their median
        // weighted by work (a line ptxas credits with a few instructions of another
        // statement must not sway it), then the divisor of the trip count nearest to it.
        let mut ratios: Vec<(f64, f64)> = Vec::new();
        for (line, w) in per_line {
            let Some(s) = lines.get(Some(line)) else {
                continue;
            };
            // Statements inside the IR loop: at least one instance per iteration.
            if s.work <= 0.0 || s.instances < 0.5 * iterations || iterations <= 0.0 {
                continue;
            }
            let per_iteration = s.instances / iterations;
            ratios.push((w / s.work / per_iteration, w));
        }
        ratios.sort_by(|a, b| a.0.total_cmp(&b.0));
        let half = ratios.iter().map(|r| r.1).sum::<f64>() / 2.0;
        let mut seen = 0.0;
        let median = ratios.iter().find(|r| {
            seen += r.1;
            seen >= half
        });
        let unroll = nearest_divisor(median.map_or(1.0, |r| r.0), count);
        factors.push((Some(ir_loop.line), unroll));
        loops[a].trips = (count / unroll).round().max(1.0);
        loops[a].mapped = true;
        // Loops of one IR loop side by side with different unroll factors (ptxas's
        // unrolled loop and its remainder) share its iterations: the most unrolled takes
        // what it can, the next the rest. (Copies of one loop in an unrolled outer loop
        // have the same factor, and each its trip count.)
        let siblings: Vec<usize> = (0..=a)
            .filter(|&b| {
                factors[b].0 == Some(ir_loop.line)
                    && factors[b].1 != unroll
                    && (loops[b].back < head || back < loops[b].head)
            })
            .chain([a])
            .collect();
        if siblings.len() > 1 {
            let mut order = siblings.clone();
            order.sort_by(|&x, &y| factors[y].1.total_cmp(&factors[x].1));
            let mut left = count.round();
            for b in order {
                let u = factors[b].1;
                let t = (left / u).floor();
                loops[b].trips = t;
                left -= t * u;
            }
        }
    }
    Ok(loops)
}

/// The unroll factor `ratio` rounded to the nearest divisor of an integral trip `count`
/// (ptxas unrolls by divisors when the count is known), or to the nearest integer.
fn nearest_divisor(ratio: f64, count: f64) -> f64 {
    let r = ratio.round().max(1.0);
    let n = count.round();
    if (count - n).abs() > 1e-9 || n < r {
        return r;
    }
    let n = n as u64;
    (1..=n)
        .filter(|d| n.is_multiple_of(*d))
        .map(|d| d as f64)
        .min_by(|a, b| (a - ratio).abs().total_cmp(&(b - ratio).abs()))
        .unwrap_or(r)
}

#[cfg(test)]
mod tests;
