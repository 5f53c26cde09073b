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

/// Builds a warp's stream from kernel `k`'s SASS into `b` (whose memory shares are set),
/// with the costs of `lines`; returns the whole stream's length in the same entries (for
/// [`super::streams::scale`]), or why the SASS cannot be followed.
pub fn stream(k: &Kernel, lines: &Lines, b: &mut StreamBuilder) -> Result<f64, String> {
    let loops = loops(k, lines)?;
    let ins = &k.instructions;
    if ins.is_empty() {
        return Err("no instructions".to_string());
    }
    // The trip counts of the loops around each instruction.
    let inside = |i: usize, within: Option<(usize, usize)>| -> f64 {
        loops
            .iter()
            .filter(|l| l.head <= i && i <= l.back)
            .filter(|l| within.is_none_or(|(from, to)| from < l.head && l.back < to))
            .map(|l| l.trips)
            .product()
    };
    // Accesses without a line of their own cost what the kernel's accesses cost, in turn.
    // Per instruction: its statement line's index in `lines` and the share of one
    // instance of the statement it does; and the instances each line has done so far.
    let share: Vec<Option<(usize, f64)>> = ins
        .iter()
        .map(|i| {
            let k = lines.lines.iter().position(|l| Some(l.line) == i.line)?;
            let s = &lines.lines[k];
            (s.work > 0.0 && work(i) > 0.0).then(|| (k, work(i) / s.work))
        })
        .collect();
    let mut done = vec![0.0; lines.lines.len()];
    let mut writer: Vec<Option<usize>> = vec![None; UNIFORM_PREDICATES as usize + 8];
    // The k-th time an instruction runs it takes its line's k-th access in turn. Global
    // accesses are counted per line instead: in code ptxas unrolled whole (a GEMV row of
    // 64 iterations) each load runs once, and every one took the line's first access (`A`
    // of `A[i][j] * x[j]`, never `x`): the row predicted 1.6 times too slow. Shared loads
    // keep the count per instruction: ptxas's wide `LDS` serve several lines at once, and
    // counted per line the outer-product GEMMs' error rose (24.8% -> 25.1%).
    let mut turns: Vec<usize> = vec![0; ins.len()];
    let mut global_turns: std::collections::HashMap<(Option<u32>, bool), usize> =
        std::collections::HashMap::new();
    let mut iteration: Vec<f64> = vec![0.0; loops.len()];
    let mut pc = 0;
    let mut came_back = false;
    let mut steps = 0usize;
    while pc < ins.len() && !b.full() && steps < MAX_STEPS {
        steps += 1;
        // Entering a loop that runs no iteration skips it.
        if !came_back {
            if let Some(l) = loops.iter().find(|l| l.head == pc && l.trips == 0.0) {
                pc = l.back + 1;
                continue;
            }
        }
        came_back = false;
        let i = &ins[pc];
        let here = lines.get(i.line);
        if let Some(r) = here.filter(|r| !r.region.is_empty()) {
            b.region(&|| r.region.clone());
        } else if here.is_some_and(|r| r.loop_trip.is_some()) {
            b.region(&|| "control flow".to_string());
        }
        let mut deps: Vec<usize> = i.reads.iter().filter_map(|&r| writer[r as usize]).collect();
        deps.sort_unstable();
        deps.dedup();
        let turn = turns[pc];
        turns[pc] += 1;
        let issued = match i.kind {
            Kind::Fp32 => Some(b.push(FP32, deps, 1)),
            Kind::Fp64 => Some(b.push(FP64, deps, 1)),
            Kind::Int => Some(b.push(INT, deps, 1)),
            Kind::Special => Some(b.push(SFU, deps, 1)),
            Kind::Load(space) | Kind::Store(space) => {
                let store = matches!(i.kind, Kind::Store(_));
                let turn = match space {
                    Space::Global => {
                        let n = global_turns.entry((i.line, store)).or_default();
                        *n += 1;
                        *n - 1
                    }
                    _ => turn,
                };
                let scale = f64::from(i.words) / here.map_or(1.0, |r| r.words.max(1.0));
                // The line's accesses of this kind in turn, else the kernel's.
                let nth = |space: Space| -> Option<Mem> {
                    match here.map(|r| r.accesses(space, store)) {
                        Some(own) if !own.is_empty() => Some(own[turn % own.len()]),
                        _ => {
                            let every =
                                || lines.lines.iter().flat_map(|r| r.accesses(space, store));
                            every().nth(turn % every().count().max(1)).copied()
                        }
                    }
                };
                let m = match space {
                    Space::Global => widen(
                        nth(Space::Global).unwrap_or(Mem::Global {
                            sectors: 4.0,
                            asked: 4.0,
                            array: None,
                            l1: L1::default(),
                            read_only: false,
                        }),
                        scale,
                    ),
                    // A 64- or 128-bit load of elements the IR reads one by one: the
                    // passes of its lanes' wider spans, not the element's times the width.
                    Space::Shared => match nth(Space::Shared) {
                        Some(Mem::Shared { wavefronts, wide }) => Mem::shared(match scale {
                            2.0 => wide[0],
                            4.0 => wide[1],
                            s => wavefronts * s.max(1.0),
                        }),
                        _ => Mem::shared(scale.max(1.0)),
                    },
                    Space::Local => Mem::shared(1.0),
                    Space::Constant => Mem::Constant,
                };
                Some(b.memory(m, deps))
            }
            Kind::Atomic => {
                let issue = b.push(LSU, deps, 1);
                Some(b.push(L2, vec![issue], 1))
            }
            Kind::Shuffle => {
                let issue = b.push(LSU, deps, 1);
                Some(b.push(SHARED, vec![issue], 1))
            }
            Kind::Barrier => {
                b.barrier(1.0);
                None
            }
            Kind::Exit if !i.guarded => break,
            Kind::Branch | Kind::Exit => Some(b.push(BRANCH, deps, 1)),
            // `DEPBAR.LE SB0, 0x0`: the wait for the thread's asynchronous copies.
            Kind::Skip if i.opcode.starts_with("DEPBAR") => {
                b.wait_copies();
                None
            }
            Kind::Skip => None,
        };
        // `LDGSTS` (cp.async): nothing waits for it but a `DEPBAR`.
        if let (Some(d), true) = (issued, i.opcode.starts_with("LDGSTS")) {
            b.copy_issued(d);
        }
        if let Some(d) = issued {
            for &r in &i.writes {
                writer[r as usize] = Some(d);
            }
        }
        if let Some((k, x)) = share[pc] {
            done[k] += x;
        }
        // Where control goes next.
        pc = match (i.kind, i.target) {
            (Kind::Branch, Some(t)) if t <= pc => match loops.iter().position(|l| l.back == pc) {
                Some(l) => {
                    iteration[l] += 1.0;
                    if iteration[l] < loops[l].trips {
                        came_back = true;
                        t
                    } else {
                        iteration[l] = 0.0;
                        pc + 1
                    }
                }
                None if !i.guarded => break,
                None => pc + 1,
            },
            (Kind::Branch, Some(t)) if !i.guarded => t,
            // A guarded branch over code is taken when the code would do more instances
            // of its main statement than the thread does in all (ptxas's unrolled
            // copies for long trip counts, skipped when the count is short). The code
            // counted stops at the next guarded branch forward: a remainder's
            // iterations are guarded one by one (`@!P1 BRA` after each), and the thread
            // does those it has left.
            // A guarded branch over code mostly of statements and loops the IR walk did
            // not reach is taken: that code is a branch the representative thread does
            // not run (a full-tile kernel's guarded body, which ptxas may lay out first).
            (Kind::Branch, Some(t)) if lines.mostly_unwalked(&ins[pc + 1..t]) => t,
            (Kind::Branch, Some(t)) => {
                let mut over: Vec<f64> = vec![0.0; lines.lines.len()];
                let next_guard = (pc + 1..t)
                    .find(|&x| {
                        let i = &ins[x];
                        i.kind == Kind::Branch && i.guarded && i.target.is_some_and(|y| y > x)
                    })
                    .unwrap_or(t);
                for (x, s) in share.iter().enumerate().take(next_guard).skip(pc + 1) {
                    if let Some((k, w)) = *s {
                        over[k] += w * inside(x, Some((pc, t)));
                    }
                }
                let main = (0..over.len()).max_by(|&a, &b| over[a].total_cmp(&over[b]));
                match main {
                    Some(k)
                        if over[k] > 0.0 && done[k] + over[k] > lines.lines[k].instances + 0.5 =>
                    {
                        t
                    }
                    _ => pc + 1,
                }
            }
            _ => pc + 1,
        };
    }
    // A walk that reached the end is the whole path the warp takes. One cut short is
    // scaled by every instruction of the kernel, the paths it did not take too (a copy's
    // unrolled variants for other trip counts, the remainder loops).
    if !b.full() && steps < MAX_STEPS {
        return Ok(b.stream.len() as f64);
    }
    Ok(ins
        .iter()
        .enumerate()
        .map(|(i, x)| entries(x.kind) * inside(i, None))
        .sum())
}

/// The most instructions a SASS walk steps through (a guard against a walk that would
/// not end).
const MAX_STEPS: usize = 1_000_000;

/// A global access `scale` times as wide as the element (a vector load).
fn widen(m: Mem, scale: f64) -> Mem {
    match m {
        Mem::Global {
            sectors,
            asked,
            array,
            l1,
            read_only,
        } if scale > 1.0 => Mem::Global {
            sectors: (sectors * scale).min(64.0),
            asked: (asked * scale).min(64.0),
            array,
            l1: L1 {
                lines: l1.lines * scale,
                ..l1
            },
            read_only,
        },
        m => m,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emulator::saake::Instr;
    use crate::emulator::streams::DRAM;

    /// A kernel as nvdisasm prints it: a loop at line 10 (`for`) whose body, line 11,
    /// loads with `__ldg` (a header's line, credited to line 11) and accumulates with four
    /// FFMAs (ptxas unrolled it four times); the result stored at line 12.
    const SASS: &str = r#"
//--------------------- .text._Z1kPKfPf --------------------------
	.section	.text._Z1kPKfPf,"ax",@progbits
_Z1kPKfPf:
.text._Z1kPKfPf:
	//## File "/tmp/kernels.cu", line 9
        /*0000*/                   S2R R7, SR_TID.X ;
        /*0010*/                   BSSY B0, `(.L_x_1) ;
        /*0020*/                   IMAD.WIDE R2, R7, 0x4, R4 ;
        /*0030*/                   ISETP.GT.AND P0, PT, R7, 0xf, PT ;
.L_x_0:
	//## File "/usr/include/sm_32_intrinsics.hpp", line 134 inlined at "/tmp/kernels.cu", line 11
        /*0040*/              @!P0 LDG.E.CONSTANT R11, desc[UR4][R2.64] ;
	//## File "/tmp/kernels.cu", line 11
        /*0050*/                   LDS.128 R12, [R0] ;
        /*0060*/                   FFMA R9, R11, R12, R9 ;
        /*0070*/                   FFMA R9, R11, R13, R9 ;
        /*0080*/                   FFMA R9, R11, R14, R9 ;
        /*0090*/                   FFMA R9, R11, R15, R9 ;
	//## File "/tmp/kernels.cu", line 10
        /*00a0*/                   IADD3 R2, P1, R2, 0x40, RZ ;
        /*00b0*/                   ISETP.NE.AND P2, PT, R2, R6, PT ;
        /*00c0*/               @P2 BRA `(.L_x_0) ;
.L_x_1:
	//## File "/tmp/kernels.cu", line 12
        /*00d0*/                   STG.E desc[UR4][R4.64], R9 ;
        /*00e0*/                   EXIT ;
.L_x_2:
        /*00f0*/                   BRA `(.L_x_2);
"#;

    fn kernel() -> Kernel {
        let mut k = parse(SASS);
        assert_eq!(k.len(), 1);
        k.remove(0)
    }

    /// The IR's view of the kernel: `iterations` of the loop at line 10, each one instance
    /// of line 11, then the store at line 12.
    fn lines(iterations: f64) -> Lines {
        let global = Mem::Global {
            sectors: 32.0,
            asked: 32.0,
            array: Some(0),
            l1: L1::default(),
            read_only: true,
        };
        let mut l = Lines::new(Vec::new());
        l.lines = vec![
            LineWork {
                line: 10,
                loop_trip: Some((1.0, iterations)),
                ..LineWork::default()
            },
            // Per instance: a global load and a shared load of one word, an FMA (2).
            LineWork {
                line: 11,
                instances: iterations,
                work: 4.0,
                words: 1.0,
                region: "statement at line 3".to_string(),
                global_loads: vec![global],
                shared_loads: vec![Mem::shared(1.0)],
                ..LineWork::default()
            },
            LineWork {
                line: 12,
                instances: 1.0,
                work: 1.0,
                words: 1.0,
                global_stores: vec![Mem::Global {
                    sectors: 4.0,
                    asked: 4.0,
                    array: Some(1),
                    l1: L1::default(),
                    read_only: false,
                }],
                ..LineWork::default()
            },
        ];
        l
    }

    #[test]
    fn a_read_kept_in_a_register_over_the_loop_is_not_taken_by_the_loops_loads() {
        // `C[i][j] += A[i][k] * B[k][j]` with `C` read once before the loop over 512
        // `k`: the loop's SASS loads are those of A and B.
        let global = |sectors| Mem::Global {
            sectors,
            asked: sectors,
            array: None,
            l1: L1::default(),
            read_only: true,
        };
        let mut l = Lines::new(vec![(7, 20)]);
        l.node(7, 512.0, None, 1.0);
        l.load(global(1.0), 1.0);
        l.load(global(2.0), 512.0);
        l.load(global(4.0), 512.0);
        assert_eq!(l.lines[0].global_loads, vec![global(2.0), global(4.0)]);
        assert_eq!(l.lines[0].instances, 512.0);
    }

    #[test]
    fn reads_instructions_lines_registers_and_branch_targets() {
        let k = kernel();
        assert_eq!(k.name, "k");
        let ins = &k.instructions;
        assert_eq!(ins.len(), 16);
        let r = |n: u16| n;
        let p = |n: u16| PREDICATES + n;
        // BSSY names a reconvergence point, not a jump.
        assert_eq!((ins[1].kind, ins[1].target), (Kind::Branch, None));
        // A 64-bit result writes a register pair.
        assert_eq!(ins[2].writes, vec![r(2), r(3)]);
        // ISETP writes its predicate (PT is no register) and reads R7.
        assert_eq!(
            (ins[3].writes.clone(), ins[3].reads.clone()),
            (vec![p(0)], vec![r(7)])
        );
        // A guarded load through a header's line keeps the `.cu` line; it reads its
        // address pair, the uniform descriptor and its guard.
        let load = &ins[4];
        assert_eq!(load.line, Some(11));
        assert!(load.guarded);
        assert_eq!(load.kind, Kind::Load(Space::Global));
        assert_eq!(load.writes, vec![r(11)]);
        assert_eq!(load.reads, vec![r(2), r(3), p(0), UNIFORM + 4]);
        // A 128-bit shared load: four registers, four words.
        assert_eq!(
            (ins[5].writes.clone(), ins[5].words),
            (vec![12, 13, 14, 15], 4)
        );
        // IADD3 with a carry out writes the register and the predicate.
        assert_eq!(ins[10].writes, vec![r(2), p(1)]);
        assert_eq!(
            (ins[12].kind, ins[12].target, ins[12].line),
            (Kind::Branch, Some(4), Some(10))
        );
        assert_eq!(ins[13].kind, Kind::Store(Space::Global));
        assert_eq!(ins[14].kind, Kind::Exit);
    }

    #[test]
    fn a_loop_runs_the_ir_trip_count_over_the_unroll_factor() {
        // Four instances of line 11 per SASS iteration (four FFMAs, four words of LDS,
        // one of LDG: 13 of work against 4 per instance, 3.25, the divisor of 64 nearest
        // it is 4): 64 iterations of the IR loop are 16 of the SASS loop.
        let loops = loops(&kernel(), &lines(64.0)).unwrap();
        assert_eq!(loops.len(), 1, "the end-of-code trap is no loop");
        assert_eq!((loops[0].head, loops[0].back), (4, 12));
        assert_eq!(loops[0].trips, 16.0);
        assert!(loops[0].mapped);
    }

    #[test]
    fn the_stream_follows_ptxas_order_and_register_dependences() {
        let mut b = StreamBuilder::new(1.0, 0.0);
        let total = stream(&kernel(), &lines(64.0), &mut b).unwrap();
        // 16 iterations of the loop's 9 instructions (a global load: 2 entries), and the
        // rest once: S2R, BSSY, IMAD, ISETP; STG (2), EXIT, the trap.
        let per_iteration = 2.0 + 1.0 + 4.0 + 3.0;
        assert_eq!(b.stream.len() as f64, 4.0 + 16.0 * per_iteration + 2.0);
        // EXIT ends the walk: what it walked is all the thread runs (the trap after it
        // is not counted, nor would code on paths not taken be).
        assert_eq!(total, b.stream.len() as f64);
        let fp32: Vec<&Instr> = b
            .stream
            .iter()
            .filter(|i| matches!(i, Instr::Op { resource: FP32, .. }))
            .collect();
        // IMAD runs on the FMA pipe too.
        assert_eq!(fp32.len(), 1 + 16 * 4);
        // The first FFMA waits for the global load (DRAM) and the shared load.
        let first = b
            .stream
            .iter()
            .position(|i| matches!(i, Instr::Op { resource: FP32, deps, .. } if deps.len() == 2))
            .unwrap();
        let Instr::Op { deps, .. } = &b.stream[first] else {
            unreachable!()
        };
        let pipes: Vec<usize> = deps
            .iter()
            .map(|&d| match &b.stream[d] {
                Instr::Op { resource, .. } => *resource,
                Instr::Barrier => usize::MAX,
            })
            .collect();
        assert_eq!(pipes, vec![DRAM, SHARED]);
        // The 128-bit shared load costs four passes; the global load the line's 32 sectors.
        assert!(b.stream.iter().any(|i| matches!(
            i,
            Instr::Op {
                resource: SHARED,
                count: 4,
                ..
            }
        )));
        assert!(b.stream.iter().any(|i| matches!(
            i,
            Instr::Op {
                resource: DRAM,
                count: 32,
                ..
            }
        )));
    }

    #[test]
    fn unrolled_loads_of_one_line_take_its_accesses_in_turn() {
        // `y += A[i][j] * x[j]` unrolled whole by ptxas: each load runs once. The line's
        // accesses in turn, A (32 sectors), x (4), A, x; not A four times.
        let text = r#"
//--------------------- .text._Z1kPKfPf --------------------------
	.section	.text._Z1kPKfPf,"ax",@progbits
_Z1kPKfPf:
.text._Z1kPKfPf:
	//## File "/tmp/kernels.cu", line 11
        /*0000*/                   LDG.E.CONSTANT R11, desc[UR4][R2.64] ;
        /*0010*/                   LDG.E.CONSTANT R12, desc[UR4][R4.64] ;
        /*0020*/                   LDG.E.CONSTANT R13, desc[UR4][R2.64+0x200] ;
        /*0030*/                   LDG.E.CONSTANT R14, desc[UR4][R4.64+0x200] ;
        /*0040*/                   FFMA R9, R11, R12, R9 ;
        /*0050*/                   FFMA R9, R13, R14, R9 ;
	//## File "/tmp/kernels.cu", line 12
        /*0060*/                   STG.E desc[UR4][R6.64], R9 ;
        /*0070*/                   EXIT ;
"#;
        let k = parse(text).remove(0);
        let global = |sectors: f64, array| Mem::Global {
            sectors,
            asked: sectors,
            array: Some(array),
            l1: L1::default(),
            read_only: true,
        };
        let mut l = lines(2.0);
        l.lines.remove(0);
        l.lines[0].global_loads = vec![global(32.0, 0), global(4.0, 1)];
        let mut b = StreamBuilder::new(1.0, 0.0);
        stream(&k, &l, &mut b).unwrap();
        let dram: Vec<u32> = (b.stream.iter())
            .filter_map(|i| match i {
                Instr::Op {
                    resource: DRAM,
                    count,
                    ..
                } => Some(*count),
                _ => None,
            })
            .collect();
        assert_eq!(
            dram,
            vec![32, 4, 32, 4, 4],
            "the loads in turn, then the store"
        );
    }

    /// [`SASS`] with a guard that skips the loop (`@P0 BRA` to the store).
    fn guarded_loop() -> String {
        SASS.replace(
            "        /*0030*/                   ISETP.GT.AND P0, PT, R7, 0xf, PT ;\n",
            "        /*0030*/                   ISETP.GT.AND P0, PT, R7, 0xf, PT ;\n        /*0038*/               @P0 BRA `(.L_x_1) ;\n",
        )
    }

    /// The FP32 instructions of `k`'s stream when line 11 has `instances` instances.
    fn fp32_ops(k: &Kernel, instances: f64) -> usize {
        let mut b = StreamBuilder::new(1.0, 0.0);
        stream(k, &lines(instances), &mut b).unwrap();
        b.stream
            .iter()
            .filter(|i| matches!(i, Instr::Op { resource: FP32, .. }))
            .count()
    }

    #[test]
    fn a_guarded_branch_skips_unrolled_code_the_thread_has_no_instances_for() {
        // One instance of line 11 in all: the unrolled loop (four per iteration) is more
        // than the thread does; the loop itself runs its one iteration when entered, but
        // a guard before it that skips it is taken.
        let k = parse(&guarded_loop()).remove(0);
        let count = |iterations: f64| fp32_ops(&k, iterations);
        assert_eq!(count(1.0), 1, "only the IMAD: the loop is skipped");
        assert_eq!(
            count(64.0),
            1 + 64,
            "the guard falls through: 16 iterations of 4"
        );
    }

    #[test]
    fn a_guarded_branch_over_code_the_walk_did_not_reach_is_taken() {
        // `if (full) { the loop } else { line 30 }` laid out with the else body first:
        // the walk went through the loop (line 10), not line 30's node, so the branch
        // over line 30 is taken and the loop runs its 64 iterations of 4 (not 16).
        let text = guarded_loop().replace(
            "        /*0038*/               @P0 BRA `(.L_x_1) ;\n",
            concat!(
                "        /*0038*/               @!P0 BRA `(.L_x_9) ;\n",
                "\t//## File \"/tmp/kernels.cu\", line 30\n",
                "        /*0039*/                   FADD R9, R9, R9 ;\n",
                "        /*003a*/                   EXIT ;\n",
                ".L_x_9:\n",
            ),
        );
        let k = parse(&text).remove(0);
        let mut l = lines(64.0);
        l.nodes = vec![(1, 10), (2, 11), (3, 12), (4, 30)];
        let mut b = StreamBuilder::new(1.0, 0.0);
        stream(&k, &l, &mut b).unwrap();
        let fp32 = (b.stream.iter())
            .filter(|i| matches!(i, Instr::Op { resource: FP32, .. }))
            .count();
        assert_eq!(
            fp32,
            1 + 64,
            "the IMAD and the loop's FFMAs, not line 30's FADD"
        );
        // Where line 30 was walked too, the branch falls through as before.
        l.lines.push(LineWork {
            line: 30,
            instances: 1.0,
            work: 1.0,
            words: 1.0,
            ..LineWork::default()
        });
        let mut b = StreamBuilder::new(1.0, 0.0);
        stream(&k, &l, &mut b).unwrap();
        let fp32 = (b.stream.iter())
            .filter(|i| matches!(i, Instr::Op { resource: FP32, .. }))
            .count();
        assert_eq!(fp32, 2, "the IMAD and the FADD, then the exit");
    }

    #[test]
    fn a_remainder_guarded_iteration_by_iteration_runs_the_iterations_left() {
        // The unrolled loop skipped, then ptxas's remainder: up to three instances of
        // line 11, each after a guard that skips the rest.
        // (The parser reads no meaning into the addresses.)
        let step = concat!(
            "        /*0000*/              @!P3 BRA `(.L_x_3) ;\n",
            "\t//## File \"/tmp/kernels.cu\", line 11\n",
            "        /*0000*/                   LDG.E.CONSTANT R11, desc[UR4][R2.64] ;\n",
            "        /*0000*/                   LDS R12, [R0] ;\n",
            "        /*0000*/                   FFMA R9, R11, R12, R9 ;\n",
            "\t//## File \"/tmp/kernels.cu\", line 10\n",
        );
        let remainder = format!(
            ".L_x_1:\n\t//## File \"/tmp/kernels.cu\", line 10\n{}.L_x_3:\n",
            step.repeat(3)
        );
        let text = guarded_loop().replace(".L_x_1:\n", &remainder);
        let k = parse(&text).remove(0);
        let ffmas = |instances: f64| fp32_ops(&k, instances);
        // The IMAD, then one FFMA per instance the thread has (counting the whole
        // remainder from the first guard, three instances, would skip it all).
        assert_eq!(ffmas(1.0), 1 + 1);
        assert_eq!(ffmas(2.0), 1 + 2);
    }

    #[test]
    fn unroll_factors_snap_to_divisors_of_a_known_trip_count() {
        assert_eq!(nearest_divisor(13.8, 512.0), 16.0);
        assert_eq!(nearest_divisor(3.25, 64.0), 4.0);
        assert_eq!(nearest_divisor(2.6, 20.5), 3.0, "an average count: rounded");
        assert_eq!(nearest_divisor(0.4, 8.0), 1.0);
    }

    #[test]
    fn opcodes_go_to_their_pipes() {
        for (op, kind) in [
            ("FFMA", Kind::Fp32),
            ("IMAD.WIDE.U32", Kind::Fp32),
            ("DFMA", Kind::Fp64),
            ("IADD3.X", Kind::Int),
            ("LOP3.LUT", Kind::Int),
            ("MUFU.EX2", Kind::Special),
            ("LDG.E.128.CONSTANT", Kind::Load(Space::Global)),
            ("STS.64", Kind::Store(Space::Shared)),
            ("LDL", Kind::Load(Space::Local)),
            ("RED.E.ADD.F32.FTZ.RN", Kind::Atomic),
            ("BAR.SYNC.DEFER_BLOCKING", Kind::Barrier),
            ("NOP", Kind::Skip),
        ] {
            assert_eq!(super::kind(op), kind, "{op}");
        }
    }
}
