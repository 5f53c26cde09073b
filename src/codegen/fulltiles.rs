//! Full tiles. A kernel whose loops guard its statements on the block's place in the
//! iteration space (the diagonal blocks of a triangle, the last tiles of a size that is not
//! a multiple of the tile) keeps those guards in every block: a register-tiled product
//! then tests each unrolled multiply-add, and no shared element is loaded once for the run
//! (nvcc does not hoist loads out of the guards either). [`condition`] finds, from the
//! guards inside the kernel's loops that read only block and thread indices and sizes,
//! when every one of them holds for every thread of the block; the kernel then gets a
//! second body without them, run by the blocks where it holds (`if (full) { ... } else {
//! the guarded body }`). That body is derived from the guarded one ([`narrow`]): the
//! guards and loop bounds the condition implies go, alone or through isl where it takes
//! more than one of its atoms. Where a guard on the thread's place splits a statement in
//! pieces, isl builds the body again in the narrower context instead
//! ([`Launch::full_body`]).

use super::guards;
use super::ir::{self, Expr, Node, Op, PrologueVar};
use crate::poly::isl::{Ctx, IslResult, Set};
use std::cell::RefCell;
use std::collections::HashMap;

/// What the full tiles of a kernel are found from: its launch (threads per block, grid,
/// prologue) and its variables.
pub(super) struct Launch<'a> {
    pub block: &'a [i64],
    pub grid: &'a [Expr],
    pub prologue: &'a [PrologueVar],
    pub blocks: &'a [String],
    pub threads: &'a [ThreadRange],
    /// The names the kernel's isl sets take as parameters: sizes, host loop variables,
    /// block and thread variables.
    pub params: &'a [String],
}

impl Launch<'_> {
    /// The values the thread and block indices take, and hence the prologue's variables;
    /// each variable's range narrowed by the `atoms` that bound it alone (a full tile's
    /// block indices).
    pub fn ranges(&self, atoms: &[Atom]) -> guards::Ranges {
        let mut ranges: guards::Ranges = Vec::new();
        for (d, size) in self.block.iter().enumerate() {
            ranges.push((format!("threadIdx.{}", ["x", "y", "z"][d]), 0, size - 1));
        }
        for (d, g) in self.grid.iter().enumerate() {
            if let Some(n) = guards::interval(g, &[]).map(|(_, hi)| hi) {
                ranges.push((format!("blockIdx.{}", ["x", "y", "z"][d]), 0, n - 1));
            }
        }
        for v in self.prologue {
            if let Some((lo, hi)) = guards::interval(&v.value, &ranges) {
                let (lo, hi) = narrowed(&v.name, lo, hi, atoms);
                ranges.push((v.name.clone(), lo, hi));
            }
        }
        ranges
    }

    /// The full tiles of the kernel whose every block runs `body` in `context`: `None`
    /// where no block is full, or every one is; else the condition ([`condition`]) and
    /// the body its blocks run, derived from `body` ([`narrow`], then pruned over the
    /// narrowed ranges), or, where a guard on the thread's place splits a statement in
    /// that ([`split_statement`]), the context to build it in.
    pub fn full_body(
        &self,
        ctx: &Ctx,
        context: &Set,
        body: &[Node],
    ) -> IslResult<Option<FullBody>> {
        let atoms = condition(body, self.blocks, self.threads, self.params);
        if atoms.is_empty() {
            return Ok(None);
        }
        let names = super::prefix(self.params);
        let full = Set::parse(ctx, &format!("{names}{{ : {} }}", isl_text(&atoms)))?;
        let context_full = context.intersect(&full)?;
        let partial = !context.subtract(&context_full)?.is_empty()?;
        if context_full.is_empty()? || !partial {
            return Ok(None);
        }
        // What the atoms do not imply on their own, isl decides where it reads only
        // block and thread variables and sizes, each condition once.
        let decided = RefCell::new(HashMap::new());
        let exact = |leaf: &Expr| -> bool {
            if let Some(v) = decided.borrow().get(leaf) {
                return *v;
            }
            let holds = isl_negation(leaf, self.params)
                .and_then(|text| {
                    let negation = Set::parse(ctx, &format!("{names}{{ : {text} }}")).ok()?;
                    context_full.intersect(&negation).ok()?.is_empty().ok()
                })
                .unwrap_or(false);
            decided.borrow_mut().insert(leaf.clone(), holds);
            holds
        };
        let narrowed = narrow(
            body.to_vec(),
            &atoms,
            self.blocks,
            self.threads,
            self.params,
            &exact,
        );
        let narrowed = guards::prune(narrowed, &mut self.ranges(&atoms));
        if split_statement(&narrowed, self.params) {
            return Ok(Some((atoms, Err(context_full))));
        }
        Ok(Some((atoms, Ok(narrowed))))
    }
}

/// Whether a statement of `nodes` runs in pieces that a guard on the thread's place (a
/// conjunct that reads no loop variable, only `names`) tells apart: some of its instances
/// under such a guard, others under another or none (a stencil's halo column, copied by
/// thread 0 beside the loop that copies its row). isl's build in the narrower context may
/// make them one loop; a guard that only chooses the threads of a statement (those that
/// copy a tile smaller than the block) it keeps as well.
fn split_statement(nodes: &[Node], names: &[String]) -> bool {
    fn walk<'a>(
        nodes: &'a [Node],
        names: &[String],
        guard: Option<&'a Expr>,
        seen: &mut HashMap<usize, Option<&'a Expr>>,
    ) -> bool {
        nodes.iter().any(|n| match n {
            Node::For { body, .. } => walk(body, names, guard, seen),
            Node::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let mut leaves = Vec::new();
                and_leaves(cond.clone(), &mut leaves);
                let placed = leaves.iter().any(|l| {
                    let mut ids = Vec::new();
                    ir::identifiers(l, &mut ids);
                    ids.iter().all(|i| names.contains(i))
                });
                let inner = if placed { Some(cond) } else { guard };
                walk(then_branch, names, inner, seen)
                    || else_branch
                        .as_ref()
                        .is_some_and(|b| walk(b, names, guard, seen))
            }
            Node::Instance { statement, .. } => *seen.entry(*statement).or_insert(guard) != guard,
            Node::Launch { .. } => false,
        })
    }
    walk(nodes, names, None, &mut HashMap::new())
}

/// The full tiles' condition, and their body or the context isl builds it in
/// ([`Launch::full_body`]).
pub(super) type FullBody = (Vec<Atom>, Result<Vec<Node>, Set>);

/// A linear form `terms + constant >= 0`.
pub(super) type Atom = (Vec<(String, i64)>, i64);

/// How a thread variable ranges over a block: `[0, size)` (`control` none) or
/// `[size * control, size * control + size)`.
pub(super) struct ThreadRange {
    pub name: String,
    pub size: i64,
    pub control: Option<String>,
}

/// The conditions on the block variables (and sizes) under which every guard nested in a
/// loop of `body` that mentions a block variable (or a thread variable that moves with
/// one) and otherwise only thread variables, sizes and constants holds for every thread
/// of the block; empty when there is none.
pub(super) fn condition(
    body: &[Node],
    blocks: &[String],
    threads: &[ThreadRange],
    params: &[String],
) -> Vec<Atom> {
    let mut atoms: Vec<Atom> = Vec::new();
    collect(body, false, &mut |cond| {
        for atom in conjuncts(cond) {
            let Some((terms, c)) = atom else { continue };
            // Guards on the block's place: a block variable, or a thread variable that
            // moves with one.
            let placed = |n: &String| {
                blocks.contains(n) || threads.iter().any(|t| t.name == *n && t.control.is_some())
            };
            if !terms.iter().any(|(n, _)| placed(n)) {
                continue;
            }
            let Some((terms, c)) = worst_case(&terms, c, blocks, threads, params) else {
                continue;
            };
            // A guard whose least over the block's threads does not depend on the block
            // chooses threads (`tx < 8`: the threads that copy, written `s - 16 * jj <= 7`
            // where `s` moves with block `jj`), whatever the block: not a guard on its place.
            if terms.is_empty() {
                continue;
            }
            // Of the same form only the strongest kept.
            let (terms, c) = reduced(terms, c);
            match atoms.iter_mut().find(|(t, _)| *t == terms) {
                Some((_, k)) => *k = (*k).min(c),
                None => atoms.push((terms, c)),
            }
        }
    });
    atoms
}

/// An atom divided by its coefficients' gcd (integers: the constant rounds down).
fn reduced(terms: Vec<(String, i64)>, c: i64) -> Atom {
    let g = terms.iter().fold(0, |g, (_, k)| gcd(g, *k));
    if g > 1 {
        let terms = terms.into_iter().map(|(n, k)| (n, k / g)).collect();
        (terms, c.div_euclid(g))
    } else {
        (terms, c)
    }
}

/// `body` for the blocks where every atom holds: each guard (and loop bound) without the
/// conjuncts that, for every thread of such a block, an atom implies (the same form over
/// the block variables and sizes, at its least over the threads, with a constant at least
/// the atom's). What the atoms imply only together, or through a loop's range, stays for
/// [`guards::prune`] to decide over the narrowed ranges ([`narrowed`]). The full tiles' body
/// is made so from the body of every block instead of by a second isl build, which took
/// a third of a register-tiled kernel's AST generation.
pub(super) fn narrow(
    body: Vec<Node>,
    atoms: &[Atom],
    blocks: &[String],
    threads: &[ThreadRange],
    params: &[String],
    exact: &dyn Fn(&Expr) -> bool,
) -> Vec<Node> {
    let syntactic = |leaf: &Expr| {
        let leaf = conjuncts(leaf);
        let [Some((terms, c))] = leaf.as_slice() else {
            return false;
        };
        let Some((terms, c)) = worst_case(terms, *c, blocks, threads, params) else {
            return false;
        };
        let (terms, c) = reduced(terms, c);
        terms.is_empty() && c >= 0 || atoms.iter().any(|(t, a)| *t == terms && c >= *a)
    };
    let implied = |leaf: &Expr| syntactic(leaf) || exact(leaf);
    narrow_in(body, &implied)
}

fn narrow_in(nodes: Vec<Node>, implied: &dyn Fn(&Expr) -> bool) -> Vec<Node> {
    let mut out = Vec::new();
    for n in nodes {
        match n {
            Node::For {
                var,
                init,
                cond,
                step,
                body,
            } => {
                let at_least =
                    |x: &Expr, y: &Expr| implied(&Expr::Op(Op::Ge, vec![x.clone(), y.clone()]));
                let (init, cond) = guards::loop_without_extremes(init, cond, &at_least);
                out.push(Node::For {
                    var,
                    init,
                    cond,
                    step,
                    body: narrow_in(body, implied),
                })
            }
            Node::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let then_branch = narrow_in(then_branch, implied);
                let else_branch = else_branch.map(|b| narrow_in(b, implied));
                let mut leaves = Vec::new();
                and_leaves(cond, &mut leaves);
                let kept: Vec<Expr> = leaves.into_iter().filter(|l| !implied(l)).collect();
                match kept
                    .into_iter()
                    .reduce(|a, b| Expr::Op(Op::And, vec![a, b]))
                {
                    Some(cond) => out.push(Node::If {
                        cond,
                        then_branch,
                        else_branch,
                    }),
                    None => out.extend(then_branch),
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// The conjuncts of `cond`, in order.
fn and_leaves(cond: Expr, out: &mut Vec<Expr>) {
    match cond {
        Expr::Op(Op::And, args) => {
            for a in args {
                and_leaves(a, out);
            }
        }
        other => out.push(other),
    }
}

/// The range `[lo, hi]` of variable `name`, narrowed by the atoms that bound it alone.
pub(super) fn narrowed(name: &str, mut lo: i64, mut hi: i64, atoms: &[Atom]) -> (i64, i64) {
    for (terms, c) in atoms {
        let [(n, k)] = terms.as_slice() else { continue };
        if n != name {
            continue;
        }
        // k * name + c >= 0.
        if *k > 0 {
            lo = lo.max((-c).div_euclid(*k) + i64::from((-c).rem_euclid(*k) != 0));
        } else {
            hi = hi.min(c.div_euclid(-k));
        }
    }
    (lo, hi)
}

/// The negation of a comparison over `names` alone (no loop variable), as isl constraints
/// (`n - 64*ii - 1 < 64`); `None` for anything else.
pub(super) fn isl_negation(leaf: &Expr, names: &[String]) -> Option<String> {
    let Expr::Op(op, args) = leaf else {
        return None;
    };
    let negated = match op {
        Op::Le => ">",
        Op::Lt => ">=",
        Op::Ge => "<",
        Op::Gt => "<=",
        _ => return None,
    };
    let (a, b) = (isl_expr(&args[0], names)?, isl_expr(&args[1], names)?);
    Some(format!("{a} {negated} {b}"))
}

/// An integer expression over `names` as isl reads it.
fn isl_expr(e: &Expr, names: &[String]) -> Option<String> {
    Some(match e {
        Expr::Int(v) => format!("({v})"),
        Expr::Id(n) => names.contains(n).then(|| n.clone())?,
        Expr::Op(op, args) => {
            let of = |k: usize| isl_expr(&args[k], names);
            match (op, args.len()) {
                (Op::Add, _) => {
                    let parts: Option<Vec<String>> =
                        args.iter().map(|a| isl_expr(a, names)).collect();
                    format!("({})", parts?.join(" + "))
                }
                (Op::Sub, 2) => format!("({} - {})", of(0)?, of(1)?),
                (Op::Neg, 1) => format!("(-{})", of(0)?),
                (Op::Mul, 2) => match (&args[0], &args[1]) {
                    (Expr::Int(k), _) => format!("({k}*{})", of(1)?),
                    (_, Expr::Int(k)) => format!("({k}*{})", of(0)?),
                    _ => return None,
                },
                (Op::FloorDiv | Op::PosDiv, 2) => match &args[1] {
                    Expr::Int(d) if *d > 0 => format!("floor({}/{d})", of(0)?),
                    _ => return None,
                },
                (Op::PosRem, 2) => match &args[1] {
                    Expr::Int(d) if *d > 0 => format!("({} mod {d})", of(0)?),
                    _ => return None,
                },
                (Op::Min | Op::Max, 2) => {
                    let f = if *op == Op::Min { "min" } else { "max" };
                    format!("{f}({}, {})", of(0)?, of(1)?)
                }
                _ => return None,
            }
        }
    })
}

/// The atoms as one condition: `a >= 0 && b >= 0 ...`, with binary `&&`s as isl writes
/// them (the IR's readers take an `And` of two).
pub(super) fn expr(atoms: &[Atom]) -> Expr {
    atoms
        .iter()
        .map(|(terms, c)| Expr::Op(Op::Ge, vec![ir::from_linear(terms, *c), Expr::Int(0)]))
        .reduce(|a, b| Expr::Op(Op::And, vec![a, b]))
        .unwrap_or(Expr::Int(1))
}

/// The atoms as isl constraints: `3*ii - 2*jj + 5 >= 0 and ...`.
pub(super) fn isl_text(atoms: &[Atom]) -> String {
    atoms
        .iter()
        .map(|(terms, c)| {
            let mut s: Vec<String> = terms.iter().map(|(n, k)| format!("{k}*{n}")).collect();
            s.push(c.to_string());
            format!("{} >= 0", s.join(" + "))
        })
        .collect::<Vec<_>>()
        .join(" and ")
}

/// Calls `f` with the condition of every `if` inside a loop of `nodes`.
fn collect(nodes: &[Node], in_loop: bool, f: &mut dyn FnMut(&Expr)) {
    for n in nodes {
        match n {
            Node::For { body, .. } => collect(body, true, f),
            Node::If {
                cond,
                then_branch,
                else_branch,
            } => {
                if in_loop {
                    f(cond);
                }
                collect(then_branch, in_loop, f);
                if let Some(e) = else_branch {
                    collect(e, in_loop, f);
                }
            }
            Node::Instance { .. } | Node::Launch { .. } => {}
        }
    }
}

/// The conjuncts of a condition, each as `linear >= 0` (`None`: not linear, or not an
/// inequality).
fn conjuncts(cond: &Expr) -> Vec<Option<Atom>> {
    match cond {
        Expr::Op(Op::And, args) => args.iter().flat_map(conjuncts).collect(),
        Expr::Op(op @ (Op::Ge | Op::Gt | Op::Le | Op::Lt), args) if args.len() == 2 => {
            let (a, b) = (&args[0], &args[1]);
            let (hi, lo, strict) = match op {
                Op::Ge => (a, b, false),
                Op::Gt => (a, b, true),
                Op::Le => (b, a, false),
                _ => (b, a, true),
            };
            let diff = Expr::Op(Op::Sub, vec![hi.clone(), lo.clone()]);
            vec![ir::linear(&diff).map(|(terms, c)| (terms, c - i64::from(strict)))]
        }
        _ => vec![None],
    }
}

/// `terms + c >= 0` at its least over the threads of a block, as a form over the block
/// variables and sizes; `None` where a name is none of those (a loop index).
fn worst_case(
    terms: &[(String, i64)],
    c: i64,
    blocks: &[String],
    threads: &[ThreadRange],
    params: &[String],
) -> Option<Atom> {
    let mut out: Vec<(String, i64)> = Vec::new();
    let mut constant = c;
    let mut add = |name: &str, k: i64| match out.iter_mut().find(|(n, _)| n == name) {
        Some((_, x)) => *x += k,
        None => out.push((name.to_string(), k)),
    };
    for (name, k) in terms {
        if let Some(t) = threads.iter().find(|t| t.name == *name) {
            // name = size * control + x with 0 <= x < size: the least of k * x.
            if let Some(control) = &t.control {
                add(control, k * t.size);
            }
            if *k < 0 {
                constant += k * (t.size - 1);
            }
        } else if blocks.contains(name) || params.contains(name) {
            add(name, *k);
        } else {
            return None;
        }
    }
    out.retain(|(_, k)| *k != 0);
    out.sort();
    Some((out, constant))
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `for (k ...) if (cond) S0;`
    fn guarded(cond: Expr) -> Vec<Node> {
        vec![Node::For {
            var: "k".into(),
            init: Expr::Int(0),
            cond: Expr::Op(Op::Lt, vec![Expr::Id("k".into()), Expr::Int(8)]),
            step: 1,
            body: vec![Node::If {
                cond,
                then_branch: vec![Node::Instance {
                    statement: 0,
                    args: Vec::new(),
                    stage: None,
                }],
                else_branch: None,
            }],
        }]
    }

    /// Thread `s` of 16 moves with block `jj` (`s = 16 * jj + tx`).
    fn threads() -> Vec<ThreadRange> {
        vec![ThreadRange {
            name: "s".into(),
            size: 16,
            control: Some("jj".into()),
        }]
    }

    fn lt(terms: &[(&str, i64)], c: i64, bound: i64) -> Expr {
        Expr::Op(Op::Lt, vec![ir::from_linear(terms, c), Expr::Int(bound)])
    }

    #[test]
    fn a_guard_on_the_blocks_place_holds_for_every_thread_of_the_full_blocks() {
        // `s < 1000`, s = 16 * jj + tx: every thread passes where 16 * jj + 15 < 1000.
        let body = guarded(lt(&[("s", 1)], 0, 1000));
        let atoms = condition(&body, &["jj".into()], &threads(), &[]);
        assert_eq!(atoms, vec![(vec![("jj".to_string(), -1)], 61)]);
        assert_eq!(isl_text(&atoms), "-1*jj + 61 >= 0");
    }

    #[test]
    fn a_guard_that_chooses_threads_is_not_one_on_the_blocks_place() {
        // `tx < 8` written `s - 16 * jj < 8` (the threads that copy): no block has every
        // thread pass it, and it says nothing of the block; the place guard beside it
        // still gives its condition (dgemm.lua at 4000^3 got no full tiles before).
        let copy = lt(&[("s", 1), ("jj", -16)], 0, 8);
        let body = [guarded(copy.clone()), guarded(lt(&[("s", 1)], 0, 1000))].concat();
        assert_eq!(
            condition(&body, &["jj".into()], &threads(), &[]),
            vec![(vec![("jj".to_string(), -1)], 61)]
        );
        assert!(condition(&guarded(copy), &["jj".into()], &threads(), &[]).is_empty());
    }

    fn instance(s: usize) -> Node {
        Node::Instance {
            statement: s,
            args: Vec::new(),
            stage: None,
        }
    }

    #[test]
    fn the_full_blocks_body_leaves_out_the_guards_the_condition_implies() {
        // for (k < 8) { if (s < 1000 && k < 5) S0; if (s - 16 * jj < 8) S1; }
        // for (c <= min(7, 999 - s)) S2
        // with s = 16 * jj + tx: the condition is jj <= 61.
        let k_lt_5 = Expr::Op(Op::Lt, vec![Expr::Id("k".into()), Expr::Int(5)]);
        let copy = lt(&[("s", 1), ("jj", -16)], 0, 8);
        let body = vec![
            Node::For {
                var: "k".into(),
                init: Expr::Int(0),
                cond: Expr::Op(Op::Lt, vec![Expr::Id("k".into()), Expr::Int(8)]),
                step: 1,
                body: vec![
                    Node::If {
                        cond: Expr::Op(Op::And, vec![lt(&[("s", 1)], 0, 1000), k_lt_5.clone()]),
                        then_branch: vec![instance(0)],
                        else_branch: None,
                    },
                    Node::If {
                        cond: copy.clone(),
                        then_branch: vec![instance(1)],
                        else_branch: None,
                    },
                ],
            },
            Node::For {
                var: "c".into(),
                init: Expr::Int(0),
                cond: Expr::Op(
                    Op::Le,
                    vec![
                        Expr::Id("c".into()),
                        Expr::Op(
                            Op::Min,
                            vec![Expr::Int(7), ir::from_linear(&[("s", -1)], 999)],
                        ),
                    ],
                ),
                step: 1,
                body: vec![instance(2)],
            },
        ];
        let blocks = ["jj".to_string()];
        let atoms = condition(&body, &blocks, &threads(), &[]);
        assert_eq!(atoms, vec![(vec![("jj".to_string(), -1)], 61)]);
        let never = |_: &Expr| false;
        let full = narrow(body, &atoms, &blocks, &threads(), &[], &never);
        let Node::For { body: inner, .. } = &full[0] else {
            panic!("{full:?}")
        };
        // The place guard goes, the loop's and the choice of threads stay.
        assert!(
            matches!(&inner[0], Node::If { cond, .. } if *cond == k_lt_5),
            "{inner:?}"
        );
        assert!(
            matches!(&inner[1], Node::If { cond, .. } if *cond == copy),
            "{inner:?}"
        );
        // 999 - s >= 7 for every thread of a block with jj <= 61 (s <= 991).
        let Node::For { cond, .. } = &full[1] else {
            panic!("{full:?}")
        };
        assert_eq!(
            *cond,
            Expr::Op(Op::Le, vec![Expr::Id("c".into()), Expr::Int(7)])
        );
        // A guard that only chooses the threads of a statement: the derived body stands.
        let names = ["jj".to_string(), "s".to_string()];
        assert!(!split_statement(&full, &names));
        // Statement 1 also run outside that guard: isl builds the body instead.
        let mut split = full.clone();
        split.push(instance(1));
        assert!(split_statement(&split, &names));
    }

    #[test]
    fn what_the_atoms_do_not_imply_alone_goes_to_isl_as_a_negation() {
        let names = ["ii".to_string(), "n".to_string(), "ty".to_string()];
        // n - 64 * ii - 1 >= (ty + 9) / 8: its negation.
        let leaf = Expr::Op(
            Op::Ge,
            vec![
                ir::from_linear(&[("n", 1), ("ii", -64)], -1),
                Expr::Op(
                    Op::PosDiv,
                    vec![ir::from_linear(&[("ty", 1)], 9), Expr::Int(8)],
                ),
            ],
        );
        assert_eq!(
            isl_negation(&leaf, &names).as_deref(),
            Some("((n + (-64*ii)) + (-1)) < floor((ty + (9))/8)")
        );
        let ctx = crate::poly::isl::Ctx::new();
        let text = isl_negation(&leaf, &names).expect("a negation");
        let set =
            Set::parse(&ctx, &format!("[ii, n, ty] -> {{ : {text} }}")).expect("isl reads it");
        assert!(!set.is_empty().expect("decided"));
        // A loop variable, or an operation isl would not read: none.
        let k = Expr::Op(Op::Lt, vec![Expr::Id("k".into()), Expr::Int(5)]);
        assert_eq!(isl_negation(&k, &names), None);
        let and = Expr::Op(Op::And, vec![leaf.clone(), leaf]);
        assert_eq!(isl_negation(&and, &names), None);
    }

    #[test]
    fn a_range_narrows_by_the_atoms_on_its_variable_alone() {
        let atoms = vec![
            (vec![("jj".to_string(), -1)], 13),
            (vec![("jj".to_string(), 4)], -3),
            (vec![("jj".to_string(), 1), ("n".to_string(), 1)], 0),
        ];
        // jj <= 13 and 4 * jj >= 3 (jj >= 1); the atom with `n` says nothing alone.
        assert_eq!(narrowed("jj", 0, 17, &atoms), (1, 13));
        assert_eq!(narrowed("ii", 0, 17, &atoms), (0, 17));
    }
}
