//! Shared-memory reads in a straight-line run of statements, as nvcc compiles them.
//!
//! After `unroll_to_depth`, a register-tiled kernel's main loop body is a run of
//! statements such as `C_reg[r][q] += A_shared[8 * ty + r][k] * B_shared[k][8 * tx + q]`:
//! each reads two shared elements, but nvcc loads each distinct element once per run and
//! keeps it in a register (the outer-product form: RT_I + RT_J loads feed RT_I x RT_J
//! FMAs), and merges the loads of consecutive, aligned elements into one 64- or 128-bit
//! load (`LDS.64`, `LDS.128`; checked in the SASS of `recipes/sgemm.lua`). Counting one
//! load per statement would make such kernels look shared-memory bound by a factor of
//! the tile size.
//!
//! [`plan`] finds, for each statement of a run, which of its shared reads load and how
//! many 32-bit words each moves (0: the value is in a register already), and the
//! operations it need not do because an earlier statement of the run computed the same
//! subexpression of the same elements (`alpha * A_shared[8 * ty + r][k]`, the same for
//! the 8 statements of a row of the tile: nvcc computes it once). A run ends at a
//! barrier, at a copy (it stores to the temporaries), and at anything but a statement.

use std::collections::{HashMap, HashSet};

use crate::codegen::ir::{self, Linear, Node};
use crate::frontend::ast::{expr_children, Ast, BinaryOp, ExprId, ExprKind};
use crate::transform::datacopy::Memory;
use crate::transform::{StmtKind, Transformed};

/// A statement's part of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reads {
    /// Per rewritten shared read (its access), the words its load moves (0: none, the
    /// value is in a register).
    pub loads: Vec<(usize, u32)>,
    /// Arithmetic operations an earlier statement of the run already did.
    pub saved: u32,
}

/// One shared element as a thread names it: the copy and its subscripts, each a linear
/// form with its terms sorted.
type Element = (usize, Vec<Linear>);

/// The statements of a run so far, each with its shared reads (access, element).
type Run<'a> = Vec<(&'a Node, Vec<(usize, Option<Element>)>)>;

/// The widest load nvcc makes, in bytes.
const WIDEST: i64 = 16;

/// The plans of one node list: each planned statement's node and reads.
pub type Planned = std::rc::Rc<Vec<(*const Node, std::rc::Rc<Reads>)>>;

thread_local! {
    /// While [`keeping`] runs: the plans made, by their node list's address and length.
    static KEPT: std::cell::RefCell<Option<HashMap<(usize, usize), Planned>>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `f` with each node list's plan made once ([`planned`]) however many walks ask for
/// it (a kernel is walked for its counts, for its stream, and for each block sampled in
/// a grid of one wave). Valid while the kernels walked neither move nor change: one
/// estimate of one generated program.
pub fn keeping<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(Option<HashMap<(usize, usize), Planned>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let before = self.0.take();
            let _ = KEPT.try_with(|k| *k.borrow_mut() = before);
        }
    }
    let _restore = Restore(KEPT.with(|k| k.replace(Some(HashMap::new()))));
    f()
}

/// [`plan`] of `nodes`, once per list while [`keeping`] runs.
pub fn planned(t: &Transformed, nodes: &[Node]) -> Planned {
    let key = (nodes.as_ptr() as usize, nodes.len());
    if let Some(hit) = KEPT.with(|k| k.borrow().as_ref().and_then(|m| m.get(&key).cloned())) {
        return hit;
    }
    let made: Planned = std::rc::Rc::new(
        plan(t, nodes)
            .into_iter()
            .map(|(k, v)| (k, std::rc::Rc::new(v)))
            .collect(),
    );
    KEPT.with(|k| {
        if let Some(m) = k.borrow_mut().as_mut() {
            m.insert(key, made.clone());
        }
    });
    made
}

/// The reads of every statement of `nodes` that is in a run of two or more, keyed by the
/// statement's node.
pub fn plan(t: &Transformed, nodes: &[Node]) -> HashMap<*const Node, Reads> {
    let mut out = HashMap::new();
    let mut run: Run = Vec::new();
    for n in nodes {
        let reads = match n {
            Node::Instance {
                statement, args, ..
            } => match t.statements[*statement].kind {
                StmtKind::Compute(_) => Some(shared_reads(t, *statement, args)),
                _ => None,
            },
            _ => None,
        };
        match reads {
            Some(r) => run.push((n, r)),
            None => flush(t, &mut run, &mut out),
        }
    }
    flush(t, &mut run, &mut out);
    out
}

/// The statement's reads that go to a shared copy, each with its element (`None`: a
/// subscript that is not linear, loaded on its own).
fn shared_reads(t: &Transformed, s: usize, args: &[ir::Expr]) -> Vec<(usize, Option<Element>)> {
    let StmtKind::Compute(id) = t.statements[s].kind else {
        return Vec::new();
    };
    let write = t.program.statements[id].write;
    let mut at = t.statements[s].iterators.len();
    let mut out = Vec::new();
    for (copy, a, len) in t.copy_rewrites(s) {
        let subs = t.copies[copy].per_buffer(&args[at..at + len]);
        at += len;
        if t.copies[copy].memory != Memory::Shared || a == write {
            continue;
        }
        let element = subs
            .iter()
            .map(|e| {
                ir::linear(e).map(|(mut terms, c)| {
                    terms.retain(|(_, k)| *k != 0);
                    terms.sort();
                    (terms, c)
                })
            })
            .collect::<Option<Vec<_>>>()
            .map(|subs| (copy, subs));
        out.push((a, element));
    }
    out
}

/// Plans the run and empties it.
fn flush(t: &Transformed, run: &mut Run, out: &mut HashMap<*const Node, Reads>) {
    let run = std::mem::take(run);
    if run.len() < 2 {
        return;
    }
    // Every distinct element, in the order of its first read.
    let mut distinct: Vec<&Element> = Vec::new();
    let mut seen: HashSet<&Element> = HashSet::new();
    for (_, reads) in run.iter() {
        for e in reads.iter().filter_map(|(_, e)| e.as_ref()) {
            if seen.insert(e) {
                distinct.push(e);
            }
        }
    }
    // The words each element's load moves: the first of an aligned group of consecutive
    // elements loads the group, the others nothing.
    let mut words: HashMap<&Element, u32> = HashMap::new();
    for &e in &distinct {
        if words.contains_key(e) {
            continue;
        }
        let group = widest_group(t, e, &seen);
        for (k, member) in group.iter().enumerate() {
            words.insert(*member, if k == 0 { group.len() as u32 } else { 0 });
        }
    }
    let mut loaded: HashSet<&Element> = HashSet::new();
    let mut computed: HashSet<String> = HashSet::new();
    for (node, reads) in &run {
        let loads = reads
            .iter()
            .map(|(a, e)| match e {
                None => (*a, 1),
                Some(e) if !loaded.insert(e) => (*a, 0),
                Some(e) => (*a, words[e]),
            })
            .collect();
        let saved = match node {
            Node::Instance { statement, .. } => reused_ops(t, *statement, reads, &mut computed),
            _ => 0,
        };
        out.insert(std::ptr::from_ref(*node), Reads { loads, saved });
    }
}

/// The operations of statement `s`'s subexpressions that an earlier statement of the run
/// computed (`computed`: their keys); adds this statement's. A subexpression qualifies
/// when it reads only shared elements (`reads`), constants, and names that are neither
/// loop indices nor written by the code (a scalar parameter such as `alpha`).
fn reused_ops(
    t: &Transformed,
    s: usize,
    reads: &[(usize, Option<Element>)],
    computed: &mut HashSet<String>,
) -> u32 {
    let StmtKind::Compute(id) = t.statements[s].kind else {
        return 0;
    };
    let p = &t.program;
    let root = match p.statements[id].kind {
        crate::poly::StatementKind::Assign(e) | crate::poly::StatementKind::Init { value: e } => e,
    };
    let elements: Vec<(ExprId, String)> = reads
        .iter()
        .filter_map(|(a, e)| Some((p.accesses[*a].expr?, format!("{:?}", e.as_ref()?))))
        .collect();
    // Names whose value may differ between the run's statements: loop indices and the
    // scalars the code writes (`s` in `s += x[k] * y[k]`).
    let mut indices: Vec<&str> = p.loops.iter().map(|l| l.iterator.as_str()).collect();
    indices.extend(
        p.statements
            .iter()
            .map(|st| p.arrays[p.accesses[st.write].array].name.as_str()),
    );
    let key = |e: ExprId| subexpression_key(&p.unit.ast, e, &elements, &indices);
    // Only earlier statements count: a subexpression written twice in this statement is
    // counted once already (`count_ops`).
    let mut own = Vec::new();
    let mut saved = 0;
    let mut stack = vec![root];
    while let Some(e) = stack.pop() {
        let kind = &p.unit.ast.exprs[e].kind;
        if matches!(kind, ExprKind::Binary { .. }) {
            if let Some(k) = key(e) {
                if computed.contains(&k) {
                    saved += operations(&p.unit.ast, e);
                    continue;
                }
                own.push(k);
            }
        }
        stack.extend(expr_children(kind));
    }
    computed.extend(own);
    saved
}

/// A subexpression written with its shared elements in place of their references; `None`
/// when it reads anything else that may differ between statements.
fn subexpression_key(
    ast: &Ast,
    e: ExprId,
    elements: &[(ExprId, String)],
    indices: &[&str],
) -> Option<String> {
    let key = |x: ExprId| subexpression_key(ast, x, elements, indices);
    match &ast.exprs[e].kind {
        ExprKind::Int(v) => Some(format!("{v:?}")),
        ExprKind::Float(v) => Some(format!("{v:?}")),
        ExprKind::Name(n) if !indices.contains(&n.as_str()) => Some(n.clone()),
        ExprKind::Index { .. } => elements
            .iter()
            .find(|(x, _)| *x == e)
            .map(|(_, k)| format!("S{k}")),
        ExprKind::Binary { op, lhs, rhs } => Some(format!("({}{op:?}{})", key(*lhs)?, key(*rhs)?)),
        ExprKind::Unary { op, operand } => Some(format!("({op:?}{})", key(*operand)?)),
        ExprKind::Cast { ty, operand } => Some(format!("({ty:?}){}", key(*operand)?)),
        _ => None,
    }
}

/// The binary operations of a subexpression (a division: 4), as the emulator counts them.
fn operations(ast: &Ast, e: ExprId) -> u32 {
    let own = match &ast.exprs[e].kind {
        ExprKind::Binary {
            op: BinaryOp::Div, ..
        } => 4,
        ExprKind::Binary { .. } => 1,
        _ => 0,
    };
    own + expr_children(&ast.exprs[e].kind)
        .into_iter()
        .map(|c| operations(ast, c))
        .sum::<u32>()
}

/// The aligned group of consecutive elements `e` belongs to that one load can move, `e`
/// first (just `e` when there is none): 2 or 4 elements of 4 bytes, 2 of 8, when each
/// is read in the run and the first's address is a multiple of the group's size in every
/// thread (every coefficient of the last subscript and the row's length multiples of the
/// group's length; shared arrays are 16-byte aligned).
fn widest_group<'e>(
    t: &Transformed,
    e: &'e Element,
    distinct: &HashSet<&'e Element>,
) -> Vec<&'e Element> {
    let (copy, subs) = e;
    let c = &t.copies[*copy];
    let elem = t.program.arrays[c.array].elem.size_bytes() as i64;
    let Some((last_terms, last)) = subs.last() else {
        return vec![e];
    };
    let row = if c.dims.len() > 1 {
        c.dims[c.dims.len() - 1]
    } else {
        0
    };
    let mut width = WIDEST / elem.max(1);
    while width >= 2 {
        let aligned = last_terms.iter().all(|(_, k)| k % width == 0) && row % width == 0;
        if aligned {
            let base = last - last.rem_euclid(width);
            let members: Option<Vec<&Element>> = (0..width)
                .map(|k| {
                    let mut member = (*copy, subs.clone());
                    if let Some(last) = member.1.last_mut() {
                        last.1 = base + k;
                    }
                    distinct.get(&member).copied()
                })
                .collect();
            if let Some(mut members) = members {
                // `e` first: it is read first, its load brings the group.
                members.retain(|m| *m != e);
                members.insert(0, e);
                return members;
            }
        }
        width /= 2;
    }
    vec![e]
}
