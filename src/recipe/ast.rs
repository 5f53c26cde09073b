//! The AST of a recipe, in arenas with spans into the recipe file.

use crate::arena::{Arena, Id};
use crate::diag::Span;

pub type RExprId = Id<RExpr>;
pub type RStmtId = Id<RStmt>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    Concat,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
    Len,
}

/// A field of a table constructor.
#[derive(Clone, Debug)]
pub enum Field {
    /// `{a, b}`
    Positional(RExprId),
    /// `{name = value}`
    Named(String, Span, RExprId),
    /// `{[key] = value}`
    Keyed(RExprId, RExprId),
}

#[derive(Clone, Debug)]
pub enum RExprKind {
    Nil,
    Bool(bool),
    Number(f64),
    Str(String),
    Name(String),
    Table(Vec<Field>),
    Call {
        name: String,
        name_span: Span,
        args: Vec<RExprId>,
    },
    Index {
        base: RExprId,
        key: RExprId,
    },
    Binary {
        op: BinOp,
        lhs: RExprId,
        rhs: RExprId,
    },
    Unary {
        op: UnOp,
        operand: RExprId,
    },
}

#[derive(Clone, Debug)]
pub struct RExpr {
    pub kind: RExprKind,
    pub span: Span,
    pub depth: u32,
}

#[derive(Clone, Debug)]
pub enum RStmtKind {
    Assign {
        name: String,
        name_span: Span,
        value: RExprId,
    },
    Local {
        name: String,
        name_span: Span,
        value: Option<RExprId>,
    },
    Call(RExprId),
    If {
        arms: Vec<(RExprId, Vec<RStmtId>)>,
        otherwise: Option<Vec<RStmtId>>,
    },
    For {
        var: String,
        var_span: Span,
        start: RExprId,
        end: RExprId,
        step: Option<RExprId>,
        body: Vec<RStmtId>,
    },
    Empty,
}

#[derive(Clone, Debug)]
pub struct RStmt {
    pub kind: RStmtKind,
    pub span: Span,
    pub depth: u32,
}

/// The arenas of one recipe.
#[derive(Clone, Debug, Default)]
pub struct RecipeAst {
    pub exprs: Arena<RExpr>,
    pub stmts: Arena<RStmt>,
}

impl RecipeAst {
    pub fn expr(&mut self, kind: RExprKind, span: Span) -> RExprId {
        let children: Vec<RExprId> = match &kind {
            RExprKind::Table(fields) => fields
                .iter()
                .flat_map(|f| match f {
                    Field::Positional(e) | Field::Named(_, _, e) => vec![*e],
                    Field::Keyed(k, v) => vec![*k, *v],
                })
                .collect(),
            RExprKind::Call { args, .. } => args.clone(),
            RExprKind::Index { base, key } => vec![*base, *key],
            RExprKind::Binary { lhs, rhs, .. } => vec![*lhs, *rhs],
            RExprKind::Unary { operand, .. } => vec![*operand],
            _ => Vec::new(),
        };
        let depth = 1 + children
            .iter()
            .map(|c| self.exprs[*c].depth)
            .max()
            .unwrap_or(0);
        self.exprs.alloc(RExpr { kind, span, depth })
    }

    pub fn stmt(&mut self, kind: RStmtKind, span: Span) -> RStmtId {
        let children: Vec<RStmtId> = match &kind {
            RStmtKind::If { arms, otherwise } => arms
                .iter()
                .flat_map(|(_, b)| b.iter().copied())
                .chain(otherwise.iter().flatten().copied())
                .collect(),
            RStmtKind::For { body, .. } => body.clone(),
            _ => Vec::new(),
        };
        let depth = 1 + children
            .iter()
            .map(|c| self.stmts[*c].depth)
            .max()
            .unwrap_or(0);
        self.stmts.alloc(RStmt { kind, span, depth })
    }
}
