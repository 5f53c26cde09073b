//! The threads of a launch, for guards that depend on where a thread is: which share of a
//! launch's warps and lanes pass one ([`ThreadSpace::fraction`]), and which threads of a
//! block ([`ThreadSpace::mask`]), sampled over the grid.
//!
//! A guard is written out in the position alone before its threads are counted (the
//! prologue's variables in terms of `threadIdx` and `blockIdx`, the entry's values as
//! numbers): each of the hundreds of lanes sampled then evaluates a few operations, where
//! it evaluated the whole prologue by name (a register-tiled product of unknown sizes
//! measures thousands of guards per ranking).

use super::workload::{apply, eval, Env, DIMS};
use crate::codegen::ir::{Expr, KernelIr, Op};

/// The prologue's variables of kernel `k` that depend on the block's position.
pub(super) fn moving_names(k: &KernelIr) -> Vec<&str> {
    let mut moving: Vec<&str> = Vec::new();
    for v in &k.prologue {
        if moves_with_the_block(&v.value, &moving) {
            moving.push(&v.name);
        }
    }
    moving
}

/// Whether `e` depends on the block's position: reads `blockIdx` or a `moving` name.
pub(super) fn moves_with_the_block(e: &Expr, moving: &[&str]) -> bool {
    let mut names = Vec::new();
    free_names(e, &mut names);
    names
        .iter()
        .any(|n| n.starts_with("blockIdx.") || moving.contains(n))
}

/// Positions per grid dimension at which guards are sampled ([`ThreadSpace::fraction`]).
const GUARD_SAMPLES: i64 = 5;

/// [`ThreadSpace::fraction`]'s shares, by the guard in the position and the launch's
/// shape, for the rest of the process.
static FRACTIONS: crate::poly::memo::Memo<Share> = crate::poly::memo::Memo::new(1 << 16);

/// The blocks of `grid` at `per_dimension` evenly spaced positions along each dimension,
/// both ends included, every combination (the first dimension fastest, the block at the
/// origin first).
pub(super) fn sampled_blocks(grid: &[i64], per_dimension: i64) -> Vec<Vec<i64>> {
    let mut blocks = vec![Vec::new()];
    for &extent in grid {
        let last = per_dimension - 1;
        let mut along: Vec<i64> = (0..per_dimension)
            .map(|k| k * (extent - 1).max(0) / last)
            .collect();
        along.dedup();
        blocks = along
            .iter()
            .flat_map(|&x| blocks.iter().map(move |b| [b.as_slice(), &[x]].concat()))
            .collect();
    }
    blocks
}

/// The threads of a launch, for guards that depend on where a thread is.
pub(super) struct ThreadSpace<'a> {
    pub kernel: &'a KernelIr,
    pub grid: &'a [i64],
    pub block: &'a [i64],
    /// The values at the kernel's entry (sizes, host loop variables).
    pub entry: Env,
}

impl ThreadSpace<'_> {
    /// `cond` in the position alone: each prologue variable replaced by its value in
    /// terms of `threadIdx` and `blockIdx`, each value the entry has by that number, and
    /// each operation on numbers alone by its result.
    fn on_position(&self, cond: &Expr) -> Expr {
        let mut defined: Vec<(&str, Expr)> = Vec::with_capacity(self.kernel.prologue.len());
        for v in &self.kernel.prologue {
            let value = self.resolve(&v.value, &defined);
            defined.push((&v.name, value));
        }
        self.resolve(cond, &defined)
    }

    fn resolve(&self, e: &Expr, defined: &[(&str, Expr)]) -> Expr {
        match e {
            Expr::Int(_) => e.clone(),
            Expr::Id(n) if n.starts_with("threadIdx.") || n.starts_with("blockIdx.") => e.clone(),
            Expr::Id(n) => match defined.iter().rev().find(|(name, _)| name == n) {
                Some((_, value)) => value.clone(),
                None => self.entry.get(n).map_or_else(|| e.clone(), Expr::Int),
            },
            Expr::Op(op, args) => {
                let args: Vec<Expr> = args.iter().map(|a| self.resolve(a, defined)).collect();
                let numbers = args.iter().all(|a| matches!(a, Expr::Int(_)));
                let e = Expr::Op(*op, args);
                match numbers.then(|| eval(&e, &Env::default())).flatten() {
                    Some(v) => Expr::Int(v),
                    None => e,
                }
            }
        }
    }

    /// Whether thread `id` (in `threadIdx` order) passes `cond`, a guard in the position
    /// alone ([`Self::on_position`]) read by [`Positional::new`]; `at` holds the block's
    /// position after the thread's.
    fn passes(&self, cond: &Positional, at: &mut [i64], id: i64) -> bool {
        let mut rest = id;
        for (d, b) in self.block.iter().enumerate() {
            at[d] = rest % b;
            rest /= b;
        }
        cond.eval(at) != Some(0)
    }

    /// Which threads of a block pass `cond`, a guard on the thread's position, in
    /// `threadIdx` order: of the blocks [`ThreadSpace::fraction`] samples, the one where
    /// most pass (a block that works, not one a triangle's diagonal cuts); any block when
    /// `cond` does not depend on the block's position.
    pub fn mask(&self, cond: &Expr) -> Vec<bool> {
        let block_dependent = moves_with_the_block(cond, &moving_names(self.kernel));
        let cond = &self.positional(cond);
        let mut position = vec![0; self.block.len() + self.grid.len()];
        let threads: i64 = self.block.iter().product::<i64>().max(1);
        let count = |m: &[bool]| m.iter().filter(|&&x| x).count();
        let mut best: Vec<bool> = Vec::new();
        for at in sampled_blocks(self.grid, GUARD_SAMPLES) {
            position[self.block.len()..].copy_from_slice(&at);
            let passes: Vec<bool> = (0..threads)
                .map(|id| self.passes(cond, &mut position, id))
                .collect();
            if best.is_empty() || count(&passes) > count(&best) {
                best = passes;
            }
            if count(&best) == best.len() || !block_dependent {
                break;
            }
        }
        best
    }

    /// How many threads pass `cond`: the share of warps of which a lane passes, sampled
    /// over up to 5 blocks per grid dimension (evenly spaced, both ends included) and, in
    /// each warp, its first, middle and last lane (a guard affine in the position passes
    /// an interval of lanes); and the share of the lanes of those warps that pass, every
    /// lane counted in the first block. `None` when `cond` reads anything but the position
    /// and the entry's values, or does not depend on the position.
    pub fn fraction(&self, cond: &Expr) -> Option<Share> {
        if !self.fraction_applies(cond) {
            return None;
        }
        // The share depends on the guard in the position alone and on the launch's
        // shape: the same guard comes back at other sites and in other variants.
        let on = self.on_position(cond);
        let key = format!("{on:?} {:?} {:?}", self.block, self.grid);
        let share = FRACTIONS.get_or(key, || {
            Ok::<_, std::convert::Infallible>(self.measured_fraction(&on))
        });
        share.ok()
    }

    /// [`Self::fraction`] of `on`, a guard in the position alone, measured.
    fn measured_fraction(&self, on: &Expr) -> Share {
        let cond = &self.placed(on);
        let threads: i64 = self.block.iter().product();
        let mut position = vec![0; self.block.len() + self.grid.len()];
        let (mut active, mut total) = (0u64, 0u64);
        let (mut lanes_in, mut lanes_of) = (0u64, 0u64);
        for (k, at) in sampled_blocks(self.grid, GUARD_SAMPLES)
            .into_iter()
            .enumerate()
        {
            position[self.block.len()..].copy_from_slice(&at);
            let first_block = k == 0;
            for warp in 0..(threads + 31) / 32 {
                let mut passes = |id: i64| self.passes(cond, &mut position, id);
                // Three lanes first (most guards split warps at their edges); where none
                // passes, every lane, for a range narrower than a warp (8 of 64 threads
                // in a small stencil's block: lanes 0, 15 and 31 all miss it).
                let lanes = [0, 15, 31].map(|l| (warp * 32 + l).min(threads - 1));
                let passed = lanes.iter().any(|&id| passes(id))
                    || (warp * 32..(warp * 32 + 32).min(threads)).any(&mut passes);
                if passed && first_block {
                    let all = warp * 32..(warp * 32 + 32).min(threads);
                    lanes_of += all.end.saturating_sub(all.start) as u64;
                    lanes_in += all.filter(|&id| passes(id)).count() as u64;
                }
                active += u64::from(passed);
                total += 1;
            }
        }
        Share {
            warps: active as f64 / total.max(1) as f64,
            lanes: if lanes_of == 0 {
                1.0
            } else {
                lanes_in as f64 / lanes_of as f64
            },
        }
    }

    /// Whether `cond` reads the position and otherwise only the entry's values (what
    /// [`Self::fraction`] measures).
    pub fn fraction_applies(&self, cond: &Expr) -> bool {
        let mut names = Vec::new();
        free_names(cond, &mut names);
        let positional = |n: &str| {
            n.starts_with("threadIdx.")
                || n.starts_with("blockIdx.")
                || self.kernel.prologue.iter().any(|v| v.name == n)
        };
        names.iter().any(|n| positional(n))
            && names
                .iter()
                .all(|n| positional(n) || self.entry.get(n).is_some())
    }
}

impl ThreadSpace<'_> {
    /// `cond` in the position alone ([`Self::on_position`]), read for the lanes sampled.
    fn positional(&self, cond: &Expr) -> Positional {
        self.placed(&self.on_position(cond))
    }

    /// `on`, a guard in the position alone, with its names read as places.
    fn placed(&self, on: &Expr) -> Positional {
        let names: Vec<String> = (0..self.block.len())
            .map(|d| format!("threadIdx.{}", DIMS[d]))
            .chain((0..self.grid.len()).map(|d| format!("blockIdx.{}", DIMS[d])))
            .collect();
        Positional::new(on, &names).into_conjunction(names.len())
    }
}

/// A guard in the position alone, its names read as places in the position (the
/// `threadIdx` components, then the `blockIdx` ones): each lane sampled evaluates it
/// without looking names up (syr2k's triangular guards: a quarter of a compile was
/// their evaluation by name). It has [`eval`]'s value, a name without a place having
/// none.
enum Positional {
    Int(i64),
    At(usize),
    Unknown,
    Op(Op, Vec<Positional>),
    /// A conjunction of comparisons (each `form op 0`), as most guards on the position
    /// are: evaluated as sums of products and quotients, not operation by operation
    /// (syr2k's triangular guards, such as `8 * blockIdx.y >= (64 * blockIdx.x +
    /// threadIdx.x - threadIdx.y + 7) / 8`, are evaluated millions of times a compile).
    Conjunction(Vec<(Form, Op)>),
}

/// A sum of the places' constant multiples, constant multiples of quotients and
/// remainders of such sums by constants, and a constant.
#[derive(Clone, Debug, PartialEq)]
struct Form {
    constant: i64,
    /// Per place, its coefficient.
    coefficients: Vec<i64>,
    /// `(multiple, op, dividend, divisor)`: `op` is a division or a remainder, as
    /// [`apply`] computes it.
    terms: Vec<(i64, Op, Form, i64)>,
}

impl Form {
    fn constant(places: usize, v: i64) -> Form {
        Form {
            constant: v,
            coefficients: vec![0; places],
            terms: Vec::new(),
        }
    }

    /// Its value, when it is a constant.
    fn value(&self) -> Option<i64> {
        (self.terms.is_empty() && self.coefficients.iter().all(|c| *c == 0))
            .then_some(self.constant)
    }

    /// `self + k * other`.
    fn plus(mut self, k: i64, other: Form) -> Option<Form> {
        self.constant = self.constant.checked_add(other.constant.checked_mul(k)?)?;
        for (x, y) in self.coefficients.iter_mut().zip(&other.coefficients) {
            *x = x.checked_add(y.checked_mul(k)?)?;
        }
        for (m, op, f, d) in other.terms {
            self.terms.push((m.checked_mul(k)?, op, f, d));
        }
        Some(self)
    }

    fn times(self, k: i64) -> Option<Form> {
        Form::constant(self.coefficients.len(), 0).plus(k, self)
    }

    /// Its value at `at` ([`apply`]'s, but for an overflow inside the sum that its
    /// total does not have).
    fn eval(&self, at: &[i64]) -> Option<i64> {
        let mut v = i128::from(self.constant);
        for (c, x) in self.coefficients.iter().zip(at) {
            v += i128::from(*c) * i128::from(*x);
        }
        for (m, op, f, d) in &self.terms {
            let x = f.eval(at)?;
            let q = match op {
                Op::FloorDiv => x.checked_div_euclid(*d)?,
                Op::Div | Op::PosDiv => x.checked_div(*d)?,
                _ => x.checked_rem_euclid(*d)?,
            };
            v += i128::from(*m) * i128::from(q);
        }
        i64::try_from(v).ok()
    }
}

impl Positional {
    fn new(e: &Expr, names: &[String]) -> Positional {
        match e {
            Expr::Int(v) => Positional::Int(*v),
            Expr::Id(n) => match names.iter().position(|x| x == n) {
                Some(k) => Positional::At(k),
                None => Positional::Unknown,
            },
            Expr::Op(op, args) => Positional::Op(
                *op,
                args.iter().map(|a| Positional::new(a, names)).collect(),
            ),
        }
    }

    /// [`eval`] at the position `at`.
    fn eval(&self, at: &[i64]) -> Option<i64> {
        match self {
            Positional::Int(v) => Some(*v),
            Positional::At(k) => Some(at[*k]),
            Positional::Unknown => None,
            Positional::Op(op, args) => apply(*op, args.len(), |k| args[k].eval(at)),
            Positional::Conjunction(conjuncts) => {
                for (form, op) in conjuncts {
                    let v = form.eval(at)?;
                    let holds = match op {
                        Op::Eq => v == 0,
                        Op::Le => v <= 0,
                        Op::Lt => v < 0,
                        Op::Ge => v >= 0,
                        _ => v > 0,
                    };
                    if !holds {
                        return Some(0);
                    }
                }
                Some(1)
            }
        }
    }

    /// The same guard as a [`Positional::Conjunction`] over `places` places where it is
    /// one (comparisons of [`Form`]s joined by `&&`), else as it is.
    fn into_conjunction(self, places: usize) -> Positional {
        let mut conjuncts = Vec::new();
        match self.conjuncts(places, &mut conjuncts) {
            Some(()) => Positional::Conjunction(conjuncts),
            None => self,
        }
    }

    fn conjuncts(&self, places: usize, out: &mut Vec<(Form, Op)>) -> Option<()> {
        match self {
            Positional::Op(Op::And, args) if args.len() == 2 => {
                args[0].conjuncts(places, out)?;
                args[1].conjuncts(places, out)
            }
            Positional::Op(op @ (Op::Eq | Op::Le | Op::Lt | Op::Ge | Op::Gt), args)
                if args.len() == 2 =>
            {
                let form = args[0].form(places)?.plus(-1, args[1].form(places)?)?;
                out.push((form, *op));
                Some(())
            }
            _ => None,
        }
    }

    /// The expression as a [`Form`] of the places, where it is one.
    fn form(&self, places: usize) -> Option<Form> {
        match self {
            Positional::Int(v) => Some(Form::constant(places, *v)),
            Positional::At(k) => {
                let mut f = Form::constant(places, 0);
                f.coefficients[*k] = 1;
                Some(f)
            }
            Positional::Op(op @ (Op::Add | Op::Sub), args) if args.len() == 2 => {
                let k = if *op == Op::Add { 1 } else { -1 };
                args[0].form(places)?.plus(k, args[1].form(places)?)
            }
            Positional::Op(Op::Neg, args) if args.len() == 1 => args[0].form(places)?.times(-1),
            Positional::Op(Op::Mul, args) if args.len() == 2 => {
                let (a, b) = (args[0].form(places)?, args[1].form(places)?);
                match (a.value(), b.value()) {
                    (Some(k), _) => b.times(k),
                    (_, Some(k)) => a.times(k),
                    _ => None,
                }
            }
            Positional::Op(
                op @ (Op::Div | Op::PosDiv | Op::FloorDiv | Op::PosRem | Op::ZeroRem),
                args,
            ) if args.len() == 2 => {
                let d = args[1].form(places)?.value().filter(|d| *d != 0)?;
                let mut f = Form::constant(places, 0);
                f.terms.push((1, *op, args[0].form(places)?, d));
                Some(f)
            }
            _ => None,
        }
    }
}

/// The threads that pass a guard: the share of warps with a lane that passes, and the
/// share of those warps' lanes that pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Share {
    pub warps: f64,
    pub lanes: f64,
}

impl Share {
    pub const ALL: Share = Share {
        warps: 1.0,
        lanes: 1.0,
    };
}

pub(super) fn free_names<'e>(e: &'e Expr, out: &mut Vec<&'e str>) {
    match e {
        Expr::Id(n) => out.push(n),
        Expr::Op(_, args) => args.iter().for_each(|a| free_names(a, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: &str) -> Expr {
        Expr::Id(n.to_string())
    }

    fn op(o: Op, args: Vec<Expr>) -> Expr {
        Expr::Op(o, args)
    }

    /// A guard read as a conjunction of forms passes the same positions as read operation
    /// by operation: divisions truncating and flooring, remainders, negative values.
    #[test]
    fn a_guard_as_a_conjunction_has_the_operations_value_everywhere() {
        let names: Vec<String> = ["threadIdx.x", "threadIdx.y", "blockIdx.x", "blockIdx.y"]
            .map(String::from)
            .to_vec();
        let (tx, ty, bx, by) = (id(&names[0]), id(&names[1]), id(&names[2]), id(&names[3]));
        let int = Expr::Int;
        // 8 * by + ty >= (64 * bx + tx - ty + 7) / 8 && (tx - 2 * ty) floordiv 3 < bx
        //   && -(ty) + (tx % 4) * 2 <= 5 && by == by
        let dividend = op(
            Op::Add,
            vec![
                op(
                    Op::Sub,
                    vec![
                        op(
                            Op::Add,
                            vec![op(Op::Mul, vec![int(64), bx.clone()]), tx.clone()],
                        ),
                        ty.clone(),
                    ],
                ),
                int(7),
            ],
        );
        let first = op(
            Op::Ge,
            vec![
                op(
                    Op::Add,
                    vec![op(Op::Mul, vec![int(8), by.clone()]), ty.clone()],
                ),
                op(Op::Div, vec![dividend, int(8)]),
            ],
        );
        let second = op(
            Op::Lt,
            vec![
                op(
                    Op::FloorDiv,
                    vec![
                        op(
                            Op::Sub,
                            vec![tx.clone(), op(Op::Mul, vec![int(2), ty.clone()])],
                        ),
                        int(3),
                    ],
                ),
                bx.clone(),
            ],
        );
        let third = op(
            Op::Le,
            vec![
                op(
                    Op::Add,
                    vec![
                        op(Op::Neg, vec![ty.clone()]),
                        op(
                            Op::Mul,
                            vec![op(Op::PosRem, vec![tx.clone(), int(4)]), int(2)],
                        ),
                    ],
                ),
                int(5),
            ],
        );
        let fourth = op(Op::Eq, vec![by.clone(), by.clone()]);
        let guard = op(
            Op::And,
            vec![
                op(Op::And, vec![first.clone(), second.clone()]),
                op(Op::And, vec![third.clone(), fourth]),
            ],
        );
        let with_min = op(
            Op::Le,
            vec![tx.clone(), op(Op::Min, vec![ty.clone(), bx.clone()])],
        );
        let guards = [
            (&first, true),
            (&second, true),
            (&third, true),
            (&guard, true),
            (&with_min, false),
        ];
        for (e, read_as_forms) in guards {
            let tree = Positional::new(e, &names);
            let conjunction = Positional::new(e, &names).into_conjunction(names.len());
            assert_eq!(
                matches!(conjunction, Positional::Conjunction(_)),
                read_as_forms
            );
            let mut passed = 0;
            for x in -9..=9 {
                for y in -5..=5 {
                    for b in [-2, 0, 1, 3] {
                        for c in [-1, 0, 2] {
                            let at = [x, y, b, c];
                            assert_eq!(tree.eval(&at), conjunction.eval(&at), "at {at:?}");
                            passed += usize::from(tree.eval(&at) != Some(0));
                        }
                    }
                }
            }
            // Neither always nor never: the comparison says something.
            assert!(passed > 0 && passed < 19 * 11 * 4 * 3, "{passed}");
        }
    }
}
