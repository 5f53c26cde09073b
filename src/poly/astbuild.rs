//! isl's AST generator (`isl_ast_build`), which isl-rs does not bind: the few functions
//! gpucc needs are declared here (isl is linked statically by isl-rs) and wrapped so that
//! the result is a plain Rust tree ([`AstNode`], [`AstExpr`]) that other stages can read
//! without touching isl.

use super::isl::{progression_step, Ctx, IslError, IslResult, Set, UnionMap};
use super::memo::Memo;
use isl_rs::{ASTExpr, ASTExprOpType, ASTExprType, ASTNode, Context, LibISLError, PwAff};
#[allow(non_camel_case_types)]
type uintptr_t = usize;

extern "C" {
    fn isl_ast_build_from_context(set: uintptr_t) -> uintptr_t;
    fn isl_ast_build_set_options(build: uintptr_t, options: uintptr_t) -> uintptr_t;
    fn isl_ast_build_node_from_schedule_map(build: uintptr_t, schedule: uintptr_t) -> uintptr_t;
    fn isl_ast_build_node_from_schedule(build: uintptr_t, schedule: uintptr_t) -> uintptr_t;
    fn isl_ast_build_expr_from_pw_aff(build: uintptr_t, pa: uintptr_t) -> uintptr_t;
    fn isl_ast_build_free(build: uintptr_t) -> uintptr_t;
    // isl-rs 0.3.1 maps isl_ast_node_type off by one (isl numbers `for` 1, not 0, and a
    // user node makes it panic), so the type is read here.
    fn isl_ast_node_get_type(node: uintptr_t) -> i32;
}

/// `enum isl_ast_node_type` of isl 0.27 (`isl/ast_type.h`).
fn node_type(node: &ASTNode) -> IslResult<NodeType> {
    Ok(match unsafe { isl_ast_node_get_type(node.ptr) } {
        1 => NodeType::For,
        2 => NodeType::If,
        3 => NodeType::Block,
        4 => NodeType::Mark,
        5 => NodeType::User,
        other => {
            return Err(IslError {
                message: format!("isl AST generation: node of unknown type {other}"),
                too_complex: false,
            })
        }
    })
}

enum NodeType {
    For,
    If,
    Block,
    Mark,
    User,
}

/// An operator of an [`AstExpr`], as isl's AST generator uses them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AstOp {
    And,
    Or,
    Max,
    Min,
    Neg,
    Add,
    Sub,
    Mul,
    /// Exact division.
    Div,
    /// Floor of the quotient (`floord`).
    FloorDiv,
    /// Quotient of a non-negative dividend by a positive divisor (C `/`).
    PosDiv,
    /// Remainder of a non-negative dividend by a positive divisor (C `%`).
    PosRem,
    /// Remainder whose only use is comparison with zero (C `%`).
    ZeroRem,
    /// `a ? b : c`
    Select,
    Eq,
    Le,
    Lt,
    Ge,
    Gt,
    /// A call `f(args)`: the first argument is the callee's name.
    Call,
}

/// An expression of the generated AST: integers, identifiers (loop iterators and
/// parameters) and operations.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AstExpr {
    Int(i64),
    Id(String),
    Op(AstOp, Vec<AstExpr>),
}

/// A node of the generated AST.
#[derive(Clone, Debug, PartialEq)]
pub enum AstNode {
    /// `for (iterator = init; cond; iterator += inc) body`
    For {
        iterator: String,
        init: AstExpr,
        cond: AstExpr,
        inc: AstExpr,
        body: Vec<AstNode>,
    },
    If {
        cond: AstExpr,
        then_branch: Vec<AstNode>,
        else_branch: Option<Vec<AstNode>>,
    },
    /// An instance of a statement: its name and the values of its iteration vector.
    User {
        statement: String,
        args: Vec<AstExpr>,
    },
}

fn err(what: &str, e: LibISLError) -> IslError {
    let text = e.to_string();
    super::isl::error(
        &format!("isl AST generation: {what}"),
        &text,
        text.contains("Quota"),
    )
}

/// Checks the context's error state after a raw call that returned `ptr`.
fn check(ctx: &Context, ptr: uintptr_t, what: &str) -> IslResult<uintptr_t> {
    let e = ctx.last_error();
    if ptr == 0 || e != isl_rs::Error::None_ {
        let message = ctx.last_error_msg().to_string();
        ctx.reset_error();
        return Err(super::isl::error(
            &format!("isl AST generation: {what} failed"),
            &message,
            e == isl_rs::Error::Quota,
        ));
    }
    Ok(ptr)
}

/// An AST builder in a context (the constraints on the parameters that hold where the
/// generated code runs), freed on drop.
struct Build {
    ptr: uintptr_t,
}

impl Drop for Build {
    fn drop(&mut self) {
        if self.ptr != 0 {
            unsafe {
                isl_ast_build_free(self.ptr);
            }
        }
    }
}

impl Build {
    fn new(ctx: &Ctx, context: &Set) -> IslResult<Build> {
        let raw = ctx.raw();
        let mut set = context.raw_copy()?;
        set.do_not_free_on_drop();
        let ptr = unsafe { isl_ast_build_from_context(set.ptr) };
        Ok(Build {
            ptr: check(raw, ptr, "isl_ast_build_from_context")?,
        })
    }

    fn set_options(mut self, ctx: &Ctx, options: &UnionMap) -> IslResult<Build> {
        let mut opts = options.raw_copy()?;
        opts.do_not_free_on_drop();
        let ptr = unsafe { isl_ast_build_set_options(self.ptr, opts.ptr) };
        self.ptr = 0; // consumed by isl
        Ok(Build {
            ptr: check(ctx.raw(), ptr, "isl_ast_build_set_options")?,
        })
    }
}

/// Generates the AST that executes `schedule` (statement instances → time vectors, all
/// time vectors in one space) in `context`; `options` are isl's AST build options
/// (`{ [..] -> unroll[d] }`, ...).
pub fn build_ast(
    ctx: &Ctx,
    context: &Set,
    schedule: &UnionMap,
    options: Option<&UnionMap>,
) -> IslResult<Vec<AstNode>> {
    // The strategy generator compiles each variant whole, so the kernels of the nests a
    // variant leaves alone are built again and again: the same schedule in the same
    // context gives the same AST (1754's 48 builds were 14 distinct ones). Printing the
    // key takes operations too: the build's own.
    ctx.restart_operations();
    built(memo_key(schedule, context, options), || {
        on_its_own(ctx, || build_ast_uncached(ctx, context, schedule, options))
    })
}

/// [`BUILT`]'s key of a build.
fn memo_key(schedule: &UnionMap, context: &Set, options: Option<&UnionMap>) -> String {
    format!(
        "{schedule}\n{context}\n{}",
        options.map(|o| o.to_string()).unwrap_or_default()
    )
}

/// The ASTs built in this process (a compile builds a few hundred).
static BUILT: Memo<Vec<AstNode>> = Memo::new(4096);

/// The builds that ran out of isl's operations, by the limit and [`BUILT`]'s key.
static TOO_COMPLEX: Memo<IslError> = Memo::new(1024);

/// The AST [`BUILT`] keeps under `key`, else what `build` gives. A build that runs out of
/// operations with the whole budget to itself ([`on_its_own`]) runs out again, whichever
/// compile asks: its failure is kept too, under the limit in force. (The nest fuzzer's
/// program 300, seed 20261201: four candidates asked for one kernel whose build isl gave
/// up, 2.6 to 5.1 s each, which was most of a 17 s compile.)
fn built(key: String, build: impl FnOnce() -> IslResult<Vec<AstNode>>) -> IslResult<Vec<AstNode>> {
    let failed = format!("{}\n{key}", budget());
    if let Some(e) = TOO_COMPLEX.get(&failed) {
        return Err(e);
    }
    let result = BUILT.get_or_once(key, || match TOO_COMPLEX.get(&failed) {
        Some(e) => Err(e),
        None => build(),
    });
    if let Err(e) = &result {
        if e.too_complex {
            TOO_COMPLEX.put(failed, e.clone());
        }
    }
    result
}

/// The operations one build may spend: a tenth of `--limit isl-operations`. A loop nest's
/// code is a smaller computation than a unit's dependences: no build of the testsuite's
/// kernels or of PolyBench/C at MINI and LARGE needs a twentieth (their 134 `.cu` files are
/// the same with half a million), while a fuzzed nest with strided, `min`-bounded loops
/// spent 6 s on one build that succeeded and 6 s on one that ran out (program 12 of
/// `scripts/fuzz --scale 4 --seed 20261204`: 12.2 s to compile, 5.5 s with a tenth).
fn budget() -> u64 {
    (crate::limits::current().isl_operations / 10).max(1)
}

/// `f`, an isl computation in `ctx` with the build's [`budget`] to itself (counted from
/// nothing, and the whole limit again from nothing after it): what it spends, and whether
/// it runs out, depends on its inputs alone, not on the work before it.
fn on_its_own<T>(ctx: &Ctx, f: impl FnOnce() -> IslResult<T>) -> IslResult<T> {
    ctx.restart_operations_with(budget());
    let result = f();
    ctx.restart_operations();
    result
}

/// [`build_ast`] of `schedule` (without options) in `context`, then, where `narrower`
/// gives a subset of `context` from that AST (a kernel's full tiles, from its guards:
/// [`crate::codegen`]), the AST in it too. One schedule tree serves both builds (making
/// the tree is about half of a build's time). Each map of `schedule` is simplified in
/// `context` already.
pub fn build_ast_narrowed(
    ctx: &Ctx,
    context: &Set,
    schedule: &UnionMap,
    narrower: impl FnOnce(&[AstNode]) -> IslResult<Option<Set>>,
) -> IslResult<(Vec<AstNode>, Option<Vec<AstNode>>)> {
    // One tree for both builds, made at the first that is not in the memo.
    let tree = std::cell::OnceCell::new();
    ctx.restart_operations();
    let build_in = |within: &Set| -> IslResult<Vec<AstNode>> {
        let tree = match tree.get() {
            Some(t) => t,
            None => {
                let made = on_its_own(ctx, || super::schedtree::Tree::of(schedule, None))?;
                tree.get_or_init(|| made)
            }
        };
        on_its_own(ctx, || match tree {
            Some(t) => build_from_tree(ctx, within, t),
            None => build_ast_uncached(ctx, within, schedule, None),
        })
    };
    let key = memo_key(schedule, context, None);
    let wide = built(key.clone(), || build_in(context))?;
    let Some(narrow) = narrower(&wide)? else {
        return Ok((wide, None));
    };
    let narrow = built(format!("{key}(narrowed to {narrow})"), || build_in(&narrow))?;
    Ok((wide, Some(narrow)))
}

fn build_from_tree(
    ctx: &Ctx,
    context: &Set,
    tree: &super::schedtree::Tree,
) -> IslResult<Vec<AstNode>> {
    let build = Build::new(ctx, context)?;
    let mut schedule = tree
        .schedule
        .copy()
        .map_err(|e| err("cannot copy the schedule tree", e))?;
    schedule.do_not_free_on_drop();
    let ptr = unsafe { isl_ast_build_node_from_schedule(build.ptr, schedule.ptr) };
    let mut ast = converted(ctx, ptr, "isl_ast_build_node_from_schedule")?;
    tree.rename(&mut ast);
    Ok(ast)
}

/// The AST isl's `what` returned (`ptr`, null on an error), as gpucc's nodes.
fn converted(ctx: &Ctx, ptr: uintptr_t, what: &str) -> IslResult<Vec<AstNode>> {
    let node = ASTNode {
        ptr: check(ctx.raw(), ptr, what)?,
        should_free_on_drop: true,
    };
    convert_node(&node)
}

fn build_ast_uncached(
    ctx: &Ctx,
    context: &Set,
    schedule: &UnionMap,
    options: Option<&UnionMap>,
) -> IslResult<Vec<AstNode>> {
    // Options name flat dimensions: only a build without them takes the tree.
    if options.is_none() {
        if let Some(tree) = super::schedtree::Tree::of(schedule, Some(context))? {
            return build_from_tree(ctx, context, &tree);
        }
    }
    let mut build = Build::new(ctx, context)?;
    if let Some(o) = options {
        build = build.set_options(ctx, o)?;
    }
    let mut sched = schedule.raw_copy()?;
    sched.do_not_free_on_drop();
    let ptr = unsafe { isl_ast_build_node_from_schedule_map(build.ptr, sched.ptr) };
    converted(ctx, ptr, "isl_ast_build_node_from_schedule_map")
}

/// The expression isl writes for a piecewise affine value (`[N] -> { [(N + 15) / 16] }`)
/// in `context`.
pub fn expr_from_pw_aff(ctx: &Ctx, context: &Set, pw_aff: &str) -> IslResult<AstExpr> {
    let build = Build::new(ctx, context)?;
    let pa = PwAff::read_from_str(ctx.raw(), pw_aff)
        .map_err(|e| err(&format!("cannot read `{pw_aff}`"), e))?;
    let mut pa = pa;
    pa.do_not_free_on_drop();
    let ptr = unsafe { isl_ast_build_expr_from_pw_aff(build.ptr, pa.ptr) };
    let ptr = check(ctx.raw(), ptr, "isl_ast_build_expr_from_pw_aff")?;
    convert_expr(&ASTExpr {
        ptr,
        should_free_on_drop: true,
    })
}

/// The values of a one-dimensional set as a progression in `context`: its smallest value,
/// the stride between consecutive values (1 unless every value is `min + stride * e`) and
/// the number of steps from the smallest to the largest (`(max - min) / stride + 1`), the
/// first and the last as expressions of the parameters.
pub fn range_exprs(ctx: &Ctx, context: &Set, values: &Set) -> IslResult<(AstExpr, i64, AstExpr)> {
    let build = Build::new(ctx, context)?;
    let set = values.raw_copy()?;
    let stride = progression_step(&set.get_stride(0).map_err(|e| err("get_stride", e))?);
    let min = set
        .copy()
        .and_then(|s| s.dim_min(0))
        .map_err(|e| err("dim_min", e))?;
    let max = set.dim_max(0).map_err(|e| err("dim_max", e))?;
    let one = isl_rs::Val::one(ctx.raw()).map_err(|e| err("one", e))?;
    let steps = max
        .sub(min.copy().map_err(|e| err("copy", e))?)
        .and_then(|d| {
            if stride == 1 {
                return Ok(d);
            }
            // max - min is a multiple of the stride: both are values of the set.
            let s = isl_rs::Val::int_from_si(ctx.raw(), stride)?;
            d.scale_down_val(s)?.floor()
        })
        .and_then(|d| d.add_constant_val(one))
        .and_then(|d| d.coalesce())
        .map_err(|e| err("extent", e))?;
    let to_expr = |pa: PwAff| -> IslResult<AstExpr> {
        let mut pa = pa.coalesce().map_err(|e| err("coalesce", e))?;
        pa.do_not_free_on_drop();
        let ptr = unsafe { isl_ast_build_expr_from_pw_aff(build.ptr, pa.ptr) };
        let ptr = check(ctx.raw(), ptr, "isl_ast_build_expr_from_pw_aff")?;
        convert_expr(&ASTExpr {
            ptr,
            should_free_on_drop: true,
        })
    };
    Ok((to_expr(min)?, stride, to_expr(steps)?))
}

fn convert_node(node: &ASTNode) -> IslResult<Vec<AstNode>> {
    Ok(match node_type(node)? {
        NodeType::For => {
            let iterator =
                match convert_expr(&node.for_get_iterator().map_err(|e| err("iterator", e))?)? {
                    AstExpr::Id(name) => name,
                    other => {
                        return Err(IslError {
                            message: format!(
                                "isl AST generation: a loop iterator is not a name: {other:?}"
                            ),
                            too_complex: false,
                        })
                    }
                };
            vec![AstNode::For {
                iterator,
                init: convert_expr(&node.for_get_init().map_err(|e| err("init", e))?)?,
                cond: convert_expr(&node.for_get_cond().map_err(|e| err("cond", e))?)?,
                inc: convert_expr(&node.for_get_inc().map_err(|e| err("inc", e))?)?,
                body: convert_node(&node.for_get_body().map_err(|e| err("body", e))?)?,
            }]
        }
        NodeType::If => {
            let has_else = node.if_has_else_node().map_err(|e| err("has else", e))?;
            vec![AstNode::If {
                cond: convert_expr(&node.if_get_cond().map_err(|e| err("if cond", e))?)?,
                then_branch: convert_node(&node.if_get_then_node().map_err(|e| err("then", e))?)?,
                else_branch: if has_else {
                    Some(convert_node(
                        &node.if_get_else_node().map_err(|e| err("else", e))?,
                    )?)
                } else {
                    None
                },
            }]
        }
        NodeType::Block => {
            let list = node.block_get_children().map_err(|e| err("children", e))?;
            let n = list.n_ast_node().map_err(|e| err("n children", e))?;
            let mut out = Vec::new();
            for k in 0..n {
                out.extend(convert_node(&list.get_at(k).map_err(|e| err("child", e))?)?);
            }
            out
        }
        NodeType::Mark => convert_node(&node.mark_get_node().map_err(|e| err("mark", e))?)?,
        NodeType::User => {
            let call = convert_expr(&node.user_get_expr().map_err(|e| err("user expr", e))?)?;
            match call {
                AstExpr::Op(AstOp::Call, mut args) if !args.is_empty() => {
                    let statement = match args.remove(0) {
                        AstExpr::Id(name) => name,
                        other => {
                            return Err(IslError {
                                message: format!(
                                    "isl AST generation: a statement call names {other:?}"
                                ),
                                too_complex: false,
                            })
                        }
                    };
                    vec![AstNode::User { statement, args }]
                }
                other => {
                    return Err(IslError {
                        message: format!(
                            "isl AST generation: a user node is not a call: {other:?}"
                        ),
                        too_complex: false,
                    })
                }
            }
        }
    })
}

fn convert_expr(expr: &ASTExpr) -> IslResult<AstExpr> {
    Ok(match expr.get_type().map_err(|e| err("expr type", e))? {
        ASTExprType::Int => {
            let v = expr.get_val().map_err(|e| err("int", e))?;
            AstExpr::Int(v.get_num_si().map_err(|e| err("int value", e))?)
        }
        ASTExprType::Id => {
            let id = expr.get_id().map_err(|e| err("id", e))?;
            AstExpr::Id(id.get_name().map_err(|e| err("id name", e))?.to_string())
        }
        ASTExprType::Op => {
            let op = match expr.get_op_type().map_err(|e| err("op type", e))? {
                ASTExprOpType::And | ASTExprOpType::AndThen => AstOp::And,
                ASTExprOpType::Or | ASTExprOpType::OrElse => AstOp::Or,
                ASTExprOpType::Max => AstOp::Max,
                ASTExprOpType::Min => AstOp::Min,
                ASTExprOpType::Minus => AstOp::Neg,
                ASTExprOpType::Add => AstOp::Add,
                ASTExprOpType::Sub => AstOp::Sub,
                ASTExprOpType::Mul => AstOp::Mul,
                ASTExprOpType::Div => AstOp::Div,
                ASTExprOpType::FdivQ => AstOp::FloorDiv,
                ASTExprOpType::PdivQ => AstOp::PosDiv,
                ASTExprOpType::PdivR => AstOp::PosRem,
                ASTExprOpType::ZdivR => AstOp::ZeroRem,
                ASTExprOpType::Cond | ASTExprOpType::Select => AstOp::Select,
                ASTExprOpType::Eq => AstOp::Eq,
                ASTExprOpType::Le => AstOp::Le,
                ASTExprOpType::Lt => AstOp::Lt,
                ASTExprOpType::Ge => AstOp::Ge,
                ASTExprOpType::Gt => AstOp::Gt,
                ASTExprOpType::Call => AstOp::Call,
                other => {
                    return Err(IslError {
                        message: format!("isl AST generation: unexpected operator {other:?}"),
                        too_complex: false,
                    })
                }
            };
            let n = expr.get_op_n_arg().map_err(|e| err("n args", e))?;
            let args = (0..n)
                .map(|k| convert_expr(&expr.get_op_arg(k).map_err(|e| err("arg", e))?))
                .collect::<IslResult<Vec<_>>>()?;
            AstExpr::Op(op, args)
        }
        ASTExprType::Error => {
            return Err(IslError {
                message: "isl AST generation: an erroneous expression".into(),
                too_complex: false,
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A build has its share of `--limit isl-operations` to itself: the analyses before
    /// it in the same context may have spent theirs. One that runs out of its share is not
    /// run again: its failure is kept (under the limit) and given back at once.
    #[test]
    fn a_build_has_its_share_of_the_operation_budget_and_a_build_that_runs_out_is_not_run_again() {
        let limits = |isl_operations| crate::limits::Limits {
            isl_operations,
            ..Default::default()
        };
        crate::limits::with(limits(200_000), || {
            let ctx = Ctx::new();
            let context = Set::parse(&ctx, "[N] -> { : N >= 1 }").unwrap();
            let schedule = UnionMap::parse(
                &ctx,
                "[N] -> { S0[i, j] -> [floor(i/16), floor(j/16), i, j] : 0 <= j <= i < N }",
            )
            .unwrap();
            // Other work spends the context's operations (each text is new to it).
            let mut k = 0;
            while Set::parse(&ctx, &format!("[N] -> {{ S[i] : 0 <= i < N + {k} }}")).is_ok() {
                k += 1;
            }
            let ast = build_ast(&ctx, &context, &schedule, None).unwrap();
            assert!(matches!(ast[0], AstNode::For { .. }), "{ast:?}");
            // Too few operations for the build itself: it fails as too complex, once.
            let context = Set::parse(&ctx, "[N] -> { : N >= 2 }").unwrap();
            let e = crate::limits::with(limits(50), || {
                build_ast(&ctx, &context, &schedule, None).unwrap_err()
            });
            assert!(e.too_complex, "{e:?}");
            crate::limits::with(limits(50), || {
                let again = built(memo_key(&schedule, &context, None), || {
                    panic!("a build that ran out of operations ran again")
                });
                assert_eq!(again, Err(e));
            });
            // Under another limit the same build is tried again, and fits.
            assert!(build_ast(&ctx, &context, &schedule, None).is_ok());
        });
    }

    #[test]
    fn tiled_loop_nest() {
        let ctx = Ctx::new();
        let context = Set::parse(&ctx, "[N] -> { : N >= 1 }").unwrap();
        let schedule =
            UnionMap::parse(&ctx, "[N] -> { S0[i] -> [floor(i/16), i] : 0 <= i < N }").unwrap();
        let ast = build_ast(&ctx, &context, &schedule, None).unwrap();
        let AstNode::For { iterator, body, .. } = &ast[0] else {
            panic!("{ast:?}")
        };
        assert_eq!(iterator, "c0");
        let AstNode::For { body, .. } = &body[0] else {
            panic!("{ast:?}")
        };
        match &body[0] {
            AstNode::User { statement, args } => {
                assert_eq!(statement, "S0");
                assert_eq!(args, &vec![AstExpr::Id("c1".into())]);
            }
            other => panic!("{other:?}"),
        }
    }

    /// The schedule tree gives the AST of the flat schedule map (an empty option set takes
    /// the map), its loops named after the flat dimensions: statements ending at different
    /// depths, a dimension where one statement loops and the others are constant, a tiled
    /// loop, and a parametric context.
    #[test]
    fn the_schedule_tree_builds_what_the_flat_map_builds() {
        let ctx = Ctx::new();
        let context = Set::parse(&ctx, "[N, t] -> { : N >= 1 and 0 <= t < 4 }").unwrap();
        let no_options = UnionMap::parse(&ctx, "{ }").unwrap();
        for text in [
            "[N, t] -> { S0[i] -> [0, i, 0, 0, 0] : 0 <= i < N; \
             S1[i, j] -> [0, i, 1, j, 0] : 0 <= i < N and 0 <= j <= i; \
             S2[i] -> [1, i, 0, 0, 0] : 0 <= i < 2N }",
            "[N, t] -> { S0[i] -> [0, i, 0, 0, 0] : 0 <= i < N; \
             S1[i, j] -> [0, i, 0, j, 1] : 0 <= i < N and 0 <= j < 8; \
             S2[i] -> [0, i, 0, 3, 0] : 0 <= i < N }",
            "[N, t] -> { S0[i, j] -> [0, floor(i/16), 0, i, 0, j, 0] : 0 <= i < N and \
             4j + t <= 15 and 4j + t >= 0; Y0[k] -> [0, k, 1, 0, 0, 0, 0] : 0 <= 16k < N }",
            // A dimension every statement fixes to the parameter (a kernel's thread) is
            // left out of the tree; one a statement alone fixes keeps its band.
            "[N, t] -> { S0[i] -> [0, t, 0, i, 0] : 0 <= i < N; \
             S1[i] -> [0, t, 1, t, i] : t <= i < N; Y0[] -> [0, t, 2, 0, 0] }",
            "[N, t] -> { S0[i] -> [0, t, 0, i] : 0 <= i < N; S1[i] -> [0, 2t - i, 1, i] : \
             0 <= i < N and i = t }",
        ] {
            let schedule = UnionMap::parse(&ctx, text).unwrap();
            let tree = build_ast(&ctx, &context, &schedule, None).unwrap();
            let flat = build_ast(&ctx, &context, &schedule, Some(&no_options)).unwrap();
            assert_eq!(tree, flat, "{text}");
        }
    }

    #[test]
    fn unroll_option_and_pw_aff_expressions() {
        let ctx = Ctx::new();
        let context = Set::parse(&ctx, "{ : }").unwrap();
        let schedule = UnionMap::parse(&ctx, "{ S0[i] -> [i] : 0 <= i < 3 }").unwrap();
        let options = UnionMap::parse(&ctx, "{ [i] -> unroll[0] }").unwrap();
        let ast = build_ast(&ctx, &context, &schedule, Some(&options)).unwrap();
        assert_eq!(ast.len(), 3, "{ast:?}");
        let context = Set::parse(&ctx, "[N] -> { : N >= 1 }").unwrap();
        let e = expr_from_pw_aff(&ctx, &context, "[N] -> { [(floor((N - 1)/16) + 1)] }").unwrap();
        assert!(matches!(e, AstExpr::Op(..)), "{e:?}");
    }
}
