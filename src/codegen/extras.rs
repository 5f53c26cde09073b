//! The extra values a statement's instance carries through isl's AST generation (its
//! indices into copy temporaries, [`crate::transform::Transformed::extra_values`]), so
//! that isl writes them in terms of the generated loops.
//!
//! isl writes every argument of a statement's call on its own: the value gisted against
//! the loops' domain, then turned into an expression (`isl_ast_build_call_from_executed`,
//! 19% of PolyBench 2mm's compile at LARGE). A register-tiled product's statement has
//! nine extras, of which two repeat others and one is the constant 0 (a register tile's
//! index along a dimension it does not span). Only the distinct values that are not
//! constants go to isl; the calls get the rest back after the build ([`Expansions`]). An
//! output of the same value gets the same expression, and a constant is its number, so
//! the code is the code isl writes with all of them.
//!
//! Most of the values left are affine in the instance where the kernel runs it: a
//! register-tiled product's index into a shared copy, `i - 64 * floor(i / 64)`, is
//! `4 * it1 - 64 * ii1` in the thread that runs `i = 4 * it1` of block `ii1`. The
//! extended domain's explicit equalities say so ([`crate::poly::isl::Set::affine_forms`],
//! [`Extras::settle`]); gpucc writes such a value from the call's iterators, which isl
//! writes anyway. The same goes for the instance's own values that the launch fixes,
//! affine in the parameters alone (a thread's `i = 4 * it1`, a placed copy's block
//! `i0 = ii1`): isl's instance leaves them out and the calls get them back at their places
//! ([`Entry::fixed`]). Under callgrind, PolyBench 3mm's compile at LARGE spent 2.71 G
//! instructions in isl's builds with every value and 1.66 G without these (of 11.5 and
//! 9.9 G in all).

use super::copyloops::{expr, IslOrder};
use crate::poly::affine::{Aff, Var};
use crate::poly::astbuild::{AstExpr, AstNode};
use std::borrow::Cow;
use std::collections::HashMap;

/// Where an extra value's expression comes from after the build.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Source {
    /// The `k`-th of the values isl wrote.
    Written(usize),
    Constant(i64),
    /// An affine form of the statement's iterators (by their names in isl) and the
    /// parameters, written from the call's iterators.
    Affine(Aff),
}

/// A statement's extra values, the ones isl must write and where each comes from.
pub(super) struct Extras {
    /// The distinct values that are not constants, in order of first appearance.
    pub written: Vec<Aff>,
    sources: Vec<Source>,
}

impl Extras {
    pub fn of(values: Vec<Aff>) -> Extras {
        let mut written: Vec<Aff> = Vec::new();
        let sources = values
            .into_iter()
            .map(|v| {
                if v.terms.is_empty() {
                    return Source::Constant(v.constant);
                }
                let k = written.iter().position(|w| *w == v).unwrap_or_else(|| {
                    written.push(v);
                    written.len() - 1
                });
                Source::Written(k)
            })
            .collect();
        Extras { written, sources }
    }

    /// Whether isl writes every value, in order (the calls need no change).
    fn all_written(&self) -> bool {
        (self.sources.iter().enumerate()).all(|(k, s)| *s == Source::Written(k))
    }

    /// Takes from isl the written values that `affine` gives a form for (the `k`-th for
    /// the `k`-th of [`Extras::written`]): they come from the call's iterators instead.
    /// Whether any was taken.
    pub fn settle(&mut self, affine: Vec<Option<Aff>>) -> bool {
        let mut renumbered = Vec::new();
        let mut written = Vec::new();
        for (value, form) in std::mem::take(&mut self.written).into_iter().zip(affine) {
            renumbered.push(match form {
                Some(form) => Err(form),
                None => {
                    written.push(value);
                    Ok(written.len() - 1)
                }
            });
        }
        let taken = written.len() < renumbered.len();
        self.written = written;
        for source in &mut self.sources {
            if let Source::Written(k) = *source {
                *source = match &renumbered[k] {
                    Ok(k) => Source::Written(*k),
                    Err(form) => Source::Affine(form.clone()),
                };
            }
        }
        taken
    }
}

/// The statements whose calls need values back, by name ([`Entry`]); and the order in
/// which isl writes the terms of a sum.
pub(super) struct Expansions {
    statements: HashMap<String, Entry>,
    order: IslOrder,
}

/// What a statement's calls need back.
struct Entry {
    /// The statement's iterators' names in isl (the arguments before the extras).
    iterators: Vec<String>,
    /// Where each extra comes from (none where isl writes them all, in order).
    sources: Vec<Source>,
    /// The arguments the launch fixes (affine in the parameters), left out of isl's
    /// instance: their positions in it, ascending.
    fixed: Vec<(usize, Aff)>,
}

impl Expansions {
    pub fn new(order: IslOrder) -> Expansions {
        Expansions {
            statements: HashMap::new(),
            order,
        }
    }

    pub fn add(
        &mut self,
        statement: &str,
        iterators: &[String],
        extras: &Extras,
        fixed: Vec<(usize, Aff)>,
    ) {
        let sources = match extras.all_written() {
            true => Vec::new(),
            false => extras.sources.clone(),
        };
        if sources.is_empty() && fixed.is_empty() {
            return;
        }
        let entry = Entry {
            iterators: iterators.to_vec(),
            sources,
            fixed,
        };
        self.statements.insert(statement.to_string(), entry);
    }

    /// `nodes` with every call's extra values in full (the nodes themselves, not a copy,
    /// where no call needs them back).
    pub fn applied<'n>(&self, nodes: &'n [AstNode]) -> Cow<'n, [AstNode]> {
        if self.statements.is_empty() {
            return Cow::Borrowed(nodes);
        }
        let mut nodes = nodes.to_vec();
        self.apply(&mut nodes);
        Cow::Owned(nodes)
    }

    fn apply(&self, nodes: &mut [AstNode]) {
        for node in nodes {
            match node {
                AstNode::For { body, .. } => self.apply(body),
                AstNode::If {
                    then_branch,
                    else_branch,
                    ..
                } => {
                    self.apply(then_branch);
                    if let Some(e) = else_branch {
                        self.apply(e);
                    }
                }
                AstNode::User { statement, args } => {
                    let Some(entry) = self.statements.get(statement.as_str()) else {
                        continue;
                    };
                    let param = |v: &Var| match v {
                        Var::Param(n) => Some(AstExpr::Id(n.clone())),
                        Var::Index(_) => None,
                    };
                    for (k, form) in &entry.fixed {
                        let value = expr(form, &param).expect("a fixed value is the parameters'");
                        args.insert(*k, self.order.ordered(&value));
                    }
                    if entry.sources.is_empty() {
                        continue;
                    }
                    let written = args.split_off(entry.iterators.len());
                    let value = |v: &Var| match v {
                        Var::Param(n) => Some(AstExpr::Id(n.clone())),
                        Var::Index(n) => {
                            let k = entry.iterators.iter().position(|x| x == n)?;
                            args.get(k).cloned()
                        }
                    };
                    let extras: Vec<AstExpr> = (entry.sources.iter())
                        .map(|s| match s {
                            Source::Written(k) => written[*k].clone(),
                            Source::Constant(c) => AstExpr::Int(*c),
                            Source::Affine(form) => self.order.ordered(
                                &expr(form, &value)
                                    .expect("a settled value's names are the call's"),
                            ),
                        })
                        .collect();
                    args.extend(extras);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::divisions::tests::eval;

    fn var(n: &str) -> Aff {
        Aff::var(Var::Index(n.into()))
    }

    #[test]
    fn repeated_and_constant_values_are_not_written() {
        let i = var("i");
        let j = var("j");
        let extras = Extras::of(vec![i.clone(), j.clone(), i.clone(), Aff::constant(-3)]);
        assert_eq!(extras.written, vec![i, j]);
        let mut expansions = Expansions::new(IslOrder::default());
        expansions.add("S0", &["i".into()], &extras, Vec::new());
        let call = |args: Vec<AstExpr>| AstNode::User {
            statement: "S0".into(),
            args,
        };
        let id = |n: &str| AstExpr::Id(n.into());
        let built = vec![AstNode::If {
            cond: AstExpr::Int(1),
            then_branch: vec![call(vec![id("c0"), id("c1"), id("c2")])],
            else_branch: None,
        }];
        let full = vec![AstNode::If {
            cond: AstExpr::Int(1),
            then_branch: vec![call(vec![
                id("c0"),
                id("c1"),
                id("c2"),
                id("c1"),
                AstExpr::Int(-3),
            ])],
            else_branch: None,
        }];
        assert_eq!(expansions.applied(&built).as_ref(), full.as_slice());
    }

    #[test]
    fn fixed_values_come_back_at_their_places() {
        // `S0[i = 4 * it, k, i mod 4]`: isl writes `k` alone; `i` is the thread's and the
        // extra the constant 0 (isl found it so).
        let extras = Extras::of(vec![Aff::constant(0)]);
        let four_it = Aff::var(Var::Param("it".into())).scale(4).unwrap();
        let mut expansions = Expansions::new(IslOrder::default());
        expansions.add("S0", &["i".into(), "k".into()], &extras, vec![(0, four_it)]);
        let built = [AstNode::User {
            statement: "S0".into(),
            args: vec![AstExpr::Id("c1".into())],
        }];
        let applied = expansions.applied(&built);
        let AstNode::User { args, .. } = &applied[0] else {
            panic!("a call stays a call");
        };
        let four_it = AstExpr::Op(
            crate::poly::astbuild::AstOp::Mul,
            vec![AstExpr::Int(4), AstExpr::Id("it".into())],
        );
        assert_eq!(args, &[four_it, AstExpr::Id("c1".into()), AstExpr::Int(0)]);
    }

    #[test]
    fn values_all_written_in_order_change_nothing() {
        let extras = Extras::of(vec![var("i"), var("j")]);
        let mut expansions = Expansions::new(IslOrder::default());
        expansions.add("S0", &["i".into(), "j".into()], &extras, Vec::new());
        assert!(expansions.statements.is_empty());
    }

    #[test]
    fn settled_values_are_written_from_the_calls_iterators() {
        // `i mod 64` and a buffer that isl keeps; the first is `i - 64 * ii` where the
        // kernel runs the instance.
        let i = var("i");
        let ii = Aff::var(Var::Param("ii".into()));
        let low = i.add(&i.floor_div(64).scale(-64).unwrap()).unwrap();
        let buffer = var("k").floor_div(16);
        let mut extras = Extras::of(vec![low.clone(), buffer.clone(), low]);
        let form = i.add(&ii.scale(-64).unwrap()).unwrap();
        assert!(extras.settle(vec![Some(form), None]));
        assert_eq!(extras.written, vec![buffer]);
        assert!(!extras.settle(vec![None]));
        let mut expansions = Expansions::new(IslOrder::default());
        expansions.add("S0", &["i".into(), "k".into()], &extras, Vec::new());
        let id = |n: &str| AstExpr::Id(n.into());
        let i_arg = AstExpr::Op(
            crate::poly::astbuild::AstOp::Add,
            vec![
                AstExpr::Op(
                    crate::poly::astbuild::AstOp::Mul,
                    vec![AstExpr::Int(64), id("ii")],
                ),
                id("c3"),
            ],
        );
        let built = vec![AstNode::User {
            statement: "S0".into(),
            args: vec![i_arg.clone(), id("c1"), id("b")],
        }];
        let applied = expansions.applied(&built);
        let AstNode::User { args, .. } = &applied[0] else {
            panic!("a call stays a call");
        };
        assert_eq!(args.len(), 5);
        assert_eq!(args[..2], [i_arg, id("c1")]);
        assert_eq!(args[3], id("b"));
        // The settled value, twice: `c3` wherever the loop and the block are.
        for (c3, ii) in [(0, 0), (5, 2), (63, 7)] {
            let at = |n: &str| match n {
                "c3" => c3,
                "ii" => ii,
                _ => panic!("no name `{n}` in the value"),
            };
            assert_eq!(eval(&args[2], &at), c3);
            assert_eq!(eval(&args[4], &at), c3);
        }
    }
}
