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

use crate::poly::affine::Aff;
use crate::poly::astbuild::{AstExpr, AstNode};
use std::borrow::Cow;
use std::collections::HashMap;

/// Where an extra value's expression comes from after the build.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Source {
    /// The `k`-th of the values isl wrote.
    Written(usize),
    Constant(i64),
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
}

/// The statements whose calls need their extra values back, by name: the number of
/// iterators before the extras, and where each extra comes from.
#[derive(Default)]
pub(super) struct Expansions(HashMap<String, (usize, Vec<Source>)>);

impl Expansions {
    pub fn add(&mut self, statement: &str, iterators: usize, extras: &Extras) {
        if !extras.all_written() {
            let sources = extras.sources.clone();
            self.0.insert(statement.to_string(), (iterators, sources));
        }
    }

    /// `nodes` with every call's extra values in full (the nodes themselves, not a copy,
    /// where no call needs them back).
    pub fn applied<'n>(&self, nodes: &'n [AstNode]) -> Cow<'n, [AstNode]> {
        if self.0.is_empty() {
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
                    let Some((iterators, sources)) = self.0.get(statement.as_str()) else {
                        continue;
                    };
                    let written = args.split_off(*iterators);
                    args.extend(sources.iter().map(|s| match s {
                        Source::Written(k) => written[*k].clone(),
                        Source::Constant(c) => AstExpr::Int(*c),
                    }));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::affine::Var;

    fn var(n: &str) -> Aff {
        Aff::var(Var::Index(n.into()))
    }

    #[test]
    fn repeated_and_constant_values_are_not_written() {
        let i = var("i");
        let j = var("j");
        let extras = Extras::of(vec![i.clone(), j.clone(), i.clone(), Aff::constant(-3)]);
        assert_eq!(extras.written, vec![i, j]);
        let mut expansions = Expansions::default();
        expansions.add("S0", 1, &extras);
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
    fn values_all_written_in_order_change_nothing() {
        let extras = Extras::of(vec![var("i"), var("j")]);
        let mut expansions = Expansions::default();
        expansions.add("S0", 2, &extras);
        assert!(expansions.0.is_empty());
    }
}
