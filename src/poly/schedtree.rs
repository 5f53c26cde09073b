//! The flat schedules gpucc's stages write (every statement mapped into one time space of
//! `2d + 1` dimensions, `S1[i, j, k] -> [0, i, 0, j, 2, k, 0, 0, 0]`) as isl schedule trees,
//! for the AST generator.
//!
//! Given a flat map, isl's AST generator carries every statement through every dimension
//! of the space: a statement that ends at the fifth dimension still has its constant zeros
//! compared, projected and separated at the other twelve, and statements that a constant
//! dimension puts one after the other are still generated as one set at each level. The
//! same order as a tree spends nothing on either: a dimension on which every statement has
//! a constant becomes a sequence of the statements grouped by that constant (or nothing,
//! where they all have the same one), every other dimension a band of one member, but
//! for one on which several statements take a single value (the block and thread the
//! kernel runs), which is no loop and is left out, as is one on which a statement alone
//! takes a single value with no loop below it. Each
//! statement's map is first simplified in the context the kernel runs in (what the launch
//! already bounds need not be proved again at every level), and each band is simplified
//! against the domain below it. A matrix product's kernel (8 statements in 17 dimensions)
//! was built about four times faster (timed through islpy on the same isl text); the
//! whole compile of a matrix product took half the time.
//! `benchmarks/profiles/compile-2026-11-26-tree.md` has the figures.
//!
//! isl names a loop's iterator after its depth among the bands (`c2` for the third band),
//! where the flat schedule's names were the dimension's (`c5`); [`Tree::rename`] gives
//! the generated loops the flat names back, which later stages read the level from.

use super::astbuild::{AstExpr, AstNode};
use super::isl::{error, IslError, IslResult, Set, UnionMap};
use isl_rs::{DimType, LibISLError, Map, MultiUnionPwAff, Schedule, UnionSet};
use std::collections::HashMap;

/// A flat schedule as a schedule tree.
pub(super) struct Tree {
    pub schedule: Schedule,
    /// For each statement, the flat dimension of each band on its path, outermost first.
    bands: HashMap<String, Vec<usize>>,
}

fn err(what: &str, e: LibISLError) -> IslError {
    let text = e.to_string();
    error(
        &format!("isl schedule tree: {what}"),
        &text,
        text.contains("Quota"),
    )
}

/// One statement's map and the constant of each of its dimensions (where it has one).
struct Statement {
    name: String,
    map: Map,
    fixed: Vec<Option<i64>>,
}

impl Tree {
    /// The tree of `schedule`, whose maps all have the same number of output dimensions,
    /// for code that runs in `context` (constraints on the parameters; none where each map
    /// is simplified in it already, as [`crate::codegen`]'s kernels are); none for an empty
    /// schedule.
    pub fn of(schedule: &UnionMap, context: Option<&Set>) -> IslResult<Option<Tree>> {
        let (statements, width) = statements(schedule, context)?;
        if statements.is_empty() {
            return Ok(None);
        }
        let mut bands = HashMap::new();
        let all: Vec<usize> = (0..statements.len()).collect();
        let mut last_loops = HashMap::new();
        let mut at = Build {
            all: &statements,
            width,
            bands: &mut bands,
            last_loops: &mut last_loops,
        };
        let schedule = at.build(&all, 0)?;
        Ok(Some(Tree { schedule, bands }))
    }

    /// Gives the loops of an AST built from this tree their iterators' names in the flat
    /// schedule (`c<dimension>`).
    pub fn rename(&self, nodes: &mut [AstNode]) {
        self.rename_in(nodes, &mut HashMap::new());
    }

    fn rename_in(&self, nodes: &mut [AstNode], names: &mut HashMap<String, String>) {
        for node in nodes {
            match node {
                AstNode::For {
                    iterator,
                    init,
                    cond,
                    inc,
                    body,
                } => {
                    rename_expr(init, names);
                    let flat = iterator
                        .strip_prefix('c')
                        .and_then(|k| k.parse::<usize>().ok())
                        .and_then(|k| {
                            let statement = first_statement(body)?;
                            self.bands.get(statement)?.get(k).copied()
                        })
                        .map(|d| format!("c{d}"));
                    let old = iterator.clone();
                    let outer = match flat {
                        Some(new) => {
                            *iterator = new.clone();
                            names.insert(old.clone(), new)
                        }
                        None => names.remove(&old),
                    };
                    rename_expr(cond, names);
                    rename_expr(inc, names);
                    self.rename_in(body, names);
                    match outer {
                        Some(o) => names.insert(old, o),
                        None => names.remove(&old),
                    };
                }
                AstNode::If {
                    cond,
                    then_branch,
                    else_branch,
                } => {
                    rename_expr(cond, names);
                    self.rename_in(then_branch, names);
                    if let Some(e) = else_branch {
                        self.rename_in(e, names);
                    }
                }
                AstNode::User { args, .. } => {
                    for a in args {
                        rename_expr(a, names);
                    }
                }
            }
        }
    }
}

fn first_statement(nodes: &[AstNode]) -> Option<&str> {
    nodes.iter().find_map(|n| match n {
        AstNode::For { body, .. } => first_statement(body),
        AstNode::If {
            then_branch,
            else_branch,
            ..
        } => first_statement(then_branch)
            .or_else(|| else_branch.as_deref().and_then(first_statement)),
        AstNode::User { statement, .. } => Some(statement.as_str()),
    })
}

fn rename_expr(e: &mut AstExpr, names: &HashMap<String, String>) {
    match e {
        AstExpr::Int(_) => {}
        AstExpr::Id(name) => {
            if let Some(new) = names.get(name.as_str()) {
                *name = new.clone();
            }
        }
        AstExpr::Op(_, args) => {
            for a in args {
                rename_expr(a, names);
            }
        }
    }
}

/// The statements of `schedule`, each map simplified in `context` (where given), and the
/// width of their time vectors.
fn statements(schedule: &UnionMap, context: Option<&Set>) -> IslResult<(Vec<Statement>, usize)> {
    let mut statements = Vec::new();
    let mut width = 0;
    for map in schedule.maps()? {
        // What the context says need not be said again (the AST generator would
        // simplify each level's pieces against it, over and over).
        let map = match context {
            Some(context) => map
                .raw_copy()?
                .gist_params(context.raw_copy()?)
                .and_then(Map::coalesce)
                .map_err(|e| err("gist", e))?,
            None => map.raw_copy()?,
        };
        width = map.dim(DimType::Out).map_err(|e| err("dim", e))? as usize;
        let name = map
            .get_tuple_name(DimType::In)
            .map_err(|e| err("tuple name", e))?
            .to_string();
        let mut fixed = Vec::with_capacity(width);
        for d in 0..width {
            let v = map
                .plain_get_val_if_fixed(DimType::Out, d as u32)
                .map_err(|e| err("fixed value", e))?;
            let constant = !v.is_nan().map_err(|e| err("is_nan", e))?
                && v.is_int().map_err(|e| err("is_int", e))?;
            fixed.push(if constant {
                Some(v.get_num_si().map_err(|e| err("value", e))?)
            } else {
                None
            });
        }
        statements.push(Statement { name, map, fixed });
    }
    Ok((statements, width))
}

/// What [`Build::build`] works from and records.
struct Build<'a> {
    all: &'a [Statement],
    width: usize,
    /// For each statement, the flat dimension of each band on its path, outermost first.
    bands: &'a mut HashMap<String, Vec<usize>>,
    /// Per statement (alone), its last dimension that is a loop of more than one
    /// iteration, if any.
    last_loops: &'a mut HashMap<usize, Option<usize>>,
}

impl Build<'_> {
    /// The tree that runs `which` statements in the order of their flat schedules'
    /// dimensions `d..width`.
    fn build(&mut self, which: &[usize], d: usize) -> IslResult<Schedule> {
        let (all, width) = (self.all, self.width);
        if d == width {
            let mut domain: Option<UnionSet> = None;
            for &s in which {
                let set = all[s]
                    .map
                    .copy()
                    .and_then(|m| m.domain())
                    .and_then(UnionSet::from_set)
                    .map_err(|e| err("domain", e))?;
                domain = Some(match domain {
                    None => set,
                    Some(u) => u.union(set).map_err(|e| err("union", e))?,
                });
            }
            let domain = domain.ok_or_else(|| error("isl schedule tree", "no statement", false))?;
            return Schedule::from_domain(domain).map_err(|e| err("from_domain", e));
        }
        let constants: Option<Vec<i64>> = which.iter().map(|&s| all[s].fixed[d]).collect();
        if let Some(values) = constants {
            let mut distinct = values.clone();
            distinct.sort_unstable();
            distinct.dedup();
            if distinct.len() == 1 {
                return self.build(which, d + 1);
            }
            let mut sequence: Option<Schedule> = None;
            for v in distinct {
                let group: Vec<usize> = which
                    .iter()
                    .zip(&values)
                    .filter(|(_, x)| **x == v)
                    .map(|(s, _)| *s)
                    .collect();
                let part = self.build(&group, d + 1)?;
                sequence = Some(match sequence {
                    None => part,
                    Some(before) => before.sequence(part).map_err(|e| err("sequence", e))?,
                });
            }
            return sequence.ok_or_else(|| error("isl schedule tree", "no statement", false));
        }
        // A dimension on which several statements take one value for each value of the
        // parameters (the block and thread a kernel runs, `[0, ii, 0, jj, ..]`) is a loop of
        // one iteration: isl would still sort the statements' pieces into components there,
        // pair by pair. Left out, the same AST (a register-tiled matrix product's 8
        // statements: 2.2 times faster). A statement alone keeps its band where a loop
        // follows: the guard isl writes for the one iteration is hoisted out of it.
        if which.len() > 1 && degenerate(all, which, d, width)? {
            return self.build(which, d + 1);
        }
        // A statement alone in a band of one iteration with no loop below it: no guard to
        // hoist out of anything, and isl would still work the band through in the kernel's
        // context (a register-tiled kernel's thread variables, once its points are
        // gpucc's: a fifth of its AST's time).
        if let [s] = which {
            if self.last_loop(*s)?.is_none_or(|last| last < d) {
                return self.build(which, d + 1);
            }
        }
        for &s in which {
            self.bands.entry(all[s].name.clone()).or_default().push(d);
        }
        let below = self.build(which, d + 1)?;
        let mut partial: Option<isl_rs::UnionMap> = None;
        for &s in which {
            let one = all[s]
                .map
                .copy()
                .and_then(|m| m.project_out(DimType::Out, (d + 1) as u32, (width - d - 1) as u32))
                .and_then(|m| m.project_out(DimType::Out, 0, d as u32))
                .and_then(isl_rs::UnionMap::from_map)
                .map_err(|e| err("band", e))?;
            partial = Some(match partial {
                None => one,
                Some(u) => u.union(one).map_err(|e| err("union", e))?,
            });
        }
        let partial = partial.ok_or_else(|| error("isl schedule tree", "no statement", false))?;
        // The band's values only where its statements run: isl's AST generator takes the
        // product of the band with the instances still to schedule, piece by piece, so a
        // band that repeats each statement's domain (4 disjuncts for a stencil's halo copy)
        // multiplies the pieces at every level.
        let domain = below.get_domain().map_err(|e| err("domain", e))?;
        let band = MultiUnionPwAff::from_union_map(partial)
            .and_then(|b| b.gist(domain))
            .map_err(|e| err("band", e))?;
        below
            .insert_partial_schedule(band)
            .map_err(|e| err("insert band", e))
    }

    /// Statement `s`'s last dimension that is a loop of more than one iteration.
    fn last_loop(&mut self, s: usize) -> IslResult<Option<usize>> {
        if let Some(last) = self.last_loops.get(&s) {
            return Ok(*last);
        }
        let mut last = None;
        for d in (0..self.width).rev() {
            if self.all[s].fixed[d].is_none() && !degenerate(self.all, &[s], d, self.width)? {
                last = Some(d);
                break;
            }
        }
        self.last_loops.insert(s, last);
        Ok(last)
    }
}

/// Whether the statements `which` (time vectors of `width` dimensions) take one value at
/// dimension `d` for each value of the parameters: the band would be a loop of one
/// iteration.
fn degenerate(all: &[Statement], which: &[usize], d: usize, width: usize) -> IslResult<bool> {
    let mut values: Option<isl_rs::Set> = None;
    for &s in which {
        let one = all[s]
            .map
            .copy()
            .and_then(|m| m.range())
            .and_then(|r| r.project_out(DimType::Set, (d + 1) as u32, (width - d - 1) as u32))
            .and_then(|r| r.project_out(DimType::Set, 0, d as u32))
            .map_err(|e| err("degenerate", e))?;
        values = Some(match values {
            None => one,
            Some(v) => v.union(one).map_err(|e| err("degenerate", e))?,
        });
    }
    let Some(values) = values else {
        return Ok(false);
    };
    // One value for each value of the parameters: the map from the parameters to the
    // values is single-valued (a subset test; comparing the least and the greatest value,
    // two parametric optimizations, was an eighth of a 3-D stencil's compile).
    let params = values
        .dim(DimType::Param)
        .map_err(|e| err("degenerate", e))?;
    Map::from_range(values)
        .and_then(|m| m.move_dims(DimType::In, 0, DimType::Param, 0, params as u32))
        .and_then(|m| m.is_single_valued())
        .map_err(|e| err("degenerate", e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poly::isl::Ctx;

    /// Whether the statements of `text` take one value at dimension `d` for each value
    /// of the parameters.
    fn one_value(text: &str, d: usize) -> bool {
        let ctx = Ctx::new();
        let context = Set::parse(&ctx, "[N, t] -> { : N >= 1 and 0 <= t < 4 }").unwrap();
        let schedule = UnionMap::parse(&ctx, text).unwrap();
        let (all, width) = statements(&schedule, Some(&context)).unwrap();
        let which: Vec<usize> = (0..all.len()).collect();
        degenerate(&all, &which, d, width).unwrap()
    }

    #[test]
    fn a_statement_alone_gets_no_band_of_one_iteration_without_a_loop_below() {
        let ctx = Ctx::new();
        let context = Set::parse(&ctx, "[N, t] -> { : N >= 1 and 0 <= t < 4 }").unwrap();
        // S0 at the thread `t` alone; S1 at `t`, then in a loop over `i` (whose guard the
        // band of `t` hoists out of it).
        let schedule = UnionMap::parse(
            &ctx,
            "[N, t] -> { S0[i] -> [0, t, 0] : i = t; S1[i] -> [1, t, i] : 0 <= i < N }",
        )
        .unwrap();
        let tree = Tree::of(&schedule, Some(&context)).unwrap().unwrap();
        assert_eq!(tree.bands.get("S0"), None);
        assert_eq!(tree.bands.get("S1"), Some(&vec![1, 2]));
    }

    #[test]
    fn a_dimension_is_degenerate_where_each_parameter_value_gives_one_value() {
        // Both at the thread `t`, one written through its loop variable.
        assert!(one_value(
            "[N, t] -> { S0[i] -> [t, i] : 0 <= i < N; S1[i] -> [2t - i, i] : i = t }",
            0
        ));
        // A value the parameter gives through a division.
        assert!(one_value(
            "[N, t] -> { S0[i] -> [floor(t/2), i] : 0 <= i < N }",
            0
        ));
        // Two statements, two values for the same `t`.
        assert!(!one_value(
            "[N, t] -> { S0[i] -> [t, i] : 0 <= i < N; S1[i] -> [t + 1, i] : 0 <= i < N }",
            0
        ));
        // A loop.
        assert!(!one_value("[N, t] -> { S0[i] -> [t, i] : 0 <= i < N }", 1));
        // One value while N is 1, a loop otherwise.
        assert!(!one_value("[N, t] -> { S0[i] -> [i, 0] : 0 <= i < N }", 0));
    }
}
