//! The AST of the compiled C subset: expressions and statements in arenas, each with the
//! span of its text in the original file (macro expansions carry the span of the macro
//! use), and its nesting depth, so that depth limits are checked without recursion.

use crate::arena::{Arena, Id};
use crate::diag::Span;

pub type ExprId = Id<Expr>;
pub type StmtId = Id<Stmt>;

/// The scalar types of the subset, in the order of C's usual arithmetic conversions once
/// the types narrower than `int` are promoted to it ([`ScalarType::promoted`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarType {
    /// `char` (signed, as on x86-64 and in CUDA there) and `signed char`.
    Char,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    Float,
    Double,
}

impl ScalarType {
    /// The C spelling.
    pub fn c_name(self) -> &'static str {
        match self {
            ScalarType::Char => "char",
            ScalarType::UChar => "unsigned char",
            ScalarType::Short => "short",
            ScalarType::UShort => "unsigned short",
            ScalarType::Int => "int",
            ScalarType::UInt => "unsigned int",
            ScalarType::Long => "long",
            ScalarType::ULong => "unsigned long",
            ScalarType::Float => "float",
            ScalarType::Double => "double",
        }
    }

    pub fn is_integer(self) -> bool {
        !matches!(self, ScalarType::Float | ScalarType::Double)
    }

    /// The type an operand of this type has in arithmetic: C's integer promotions take
    /// `char` and `short` (signed or not) to `int`.
    pub fn promoted(self) -> ScalarType {
        match self {
            ScalarType::Char | ScalarType::UChar | ScalarType::Short | ScalarType::UShort => {
                ScalarType::Int
            }
            t => t,
        }
    }

    pub fn size_bytes(self) -> usize {
        match self {
            ScalarType::Char | ScalarType::UChar => 1,
            ScalarType::Short | ScalarType::UShort => 2,
            ScalarType::Int | ScalarType::UInt | ScalarType::Float => 4,
            ScalarType::Long | ScalarType::ULong | ScalarType::Double => 8,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Plus,
    Not,
    BitNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
}

impl BinaryOp {
    pub fn c_spelling(self) -> &'static str {
        match self {
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitXor => "^",
            BinaryOp::BitOr => "|",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
        }
    }
}

/// `=` or a compound assignment `op=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssignOp {
    Set,
    Compound(BinaryOp),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepOp {
    Increment,
    Decrement,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Int(i64),
    /// A floating literal as written.
    Float(String),
    Name(String),
    /// `base[index]`; `A[i][j]` is `Index(Index(A, i), j)`.
    Index {
        base: ExprId,
        index: ExprId,
    },
    Call {
        name: String,
        name_span: Span,
        args: Vec<ExprId>,
    },
    Unary {
        op: UnaryOp,
        operand: ExprId,
    },
    Binary {
        op: BinaryOp,
        lhs: ExprId,
        rhs: ExprId,
    },
    Conditional {
        cond: ExprId,
        then_value: ExprId,
        else_value: ExprId,
    },
    Cast {
        ty: ScalarType,
        operand: ExprId,
    },
    Assign {
        op: AssignOp,
        target: ExprId,
        value: ExprId,
    },
    /// `x++`, `--x`, ...
    Step {
        op: StepOp,
        prefix: bool,
        target: ExprId,
    },
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
    /// 1 for a leaf; 1 + the deepest child otherwise.
    pub depth: u32,
}

/// An array dimension in a declaration: `[]` or `[N]`.
#[derive(Clone, Debug)]
pub enum Dim {
    Unsized(Span),
    Sized(ExprId),
}

/// An initializer: an expression or a brace list (`{1, 2, 3}`).
#[derive(Clone, Debug)]
pub enum Init {
    Expr(ExprId),
    List(Vec<Init>, Span),
}

#[derive(Clone, Debug)]
pub struct Declarator {
    pub name: String,
    pub name_span: Span,
    pub dims: Vec<Dim>,
    pub init: Option<Init>,
}

/// The type part of a declaration (`const float`).
#[derive(Clone, Copy, Debug)]
pub struct DeclSpec {
    /// `None` for `void`.
    pub ty: Option<ScalarType>,
    pub is_const: bool,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Decl {
    pub spec: DeclSpec,
    pub declarators: Vec<Declarator>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ForInit {
    None,
    Decl(Decl),
    Expr(ExprId),
}

#[derive(Clone, Debug)]
pub struct ForStmt {
    /// The `for` keyword.
    pub keyword: Span,
    pub init: ForInit,
    pub cond: Option<ExprId>,
    pub step: Option<ExprId>,
    pub body: StmtId,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    Expr(ExprId),
    Decl(Decl),
    Block(Vec<StmtId>),
    For(ForStmt),
    If {
        cond: ExprId,
        then_branch: StmtId,
        else_branch: Option<StmtId>,
    },
    Empty,
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
    /// Statement nesting depth: 1 for a simple statement.
    pub depth: u32,
}

/// A function parameter (or, for a `#pragma scop` region, a declaration from outside it).
#[derive(Clone, Debug)]
pub struct Param {
    pub spec: DeclSpec,
    pub declarator: Declarator,
}

/// A function definition of the subset.
#[derive(Clone, Debug)]
pub struct Function {
    pub spec: DeclSpec,
    pub name: String,
    pub name_span: Span,
    pub params: Vec<Param>,
    pub body: Vec<StmtId>,
    pub span: Span,
}

/// The arenas of one unit.
#[derive(Clone, Debug, Default)]
pub struct Ast {
    pub exprs: Arena<Expr>,
    pub stmts: Arena<Stmt>,
}

impl Ast {
    /// Allocates an expression, computing its depth from its children.
    pub fn expr(&mut self, kind: ExprKind, span: Span) -> ExprId {
        let depth = 1 + expr_children(&kind)
            .iter()
            .map(|c| self.exprs[*c].depth)
            .max()
            .unwrap_or(0);
        self.exprs.alloc(Expr { kind, span, depth })
    }

    /// Allocates a statement, computing its depth from its sub-statements.
    pub fn stmt(&mut self, kind: StmtKind, span: Span) -> StmtId {
        let children: Vec<StmtId> = match &kind {
            StmtKind::Block(b) => b.clone(),
            StmtKind::For(f) => vec![f.body],
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => std::iter::once(*then_branch).chain(*else_branch).collect(),
            _ => Vec::new(),
        };
        let depth = 1 + children
            .iter()
            .map(|c| self.stmts[*c].depth)
            .max()
            .unwrap_or(0);
        self.stmts.alloc(Stmt { kind, span, depth })
    }

    /// An expression statement. A chain of assignments (`a = b = e;`, as PolyBench's
    /// deriche writes) becomes a block of plain ones, the innermost first (`b = e; a =
    /// b;`): C gives `a` the value `b` holds after its assignment. A chain whose inner
    /// target has side effects of its own stays as written (and is refused).
    pub fn expr_statement(&mut self, e: ExprId, span: Span) -> StmtId {
        if let ExprKind::Assign { op, target, value } = self.exprs[e].kind.clone() {
            if let ExprKind::Assign {
                target: inner_target,
                ..
            } = self.exprs[value].kind
            {
                if !self.assigns(inner_target) {
                    let first = self.expr_statement(value, span);
                    let read = self.duplicate(inner_target);
                    let outer = self.expr(
                        ExprKind::Assign {
                            op,
                            target,
                            value: read,
                        },
                        self.exprs[e].span,
                    );
                    let second = self.stmt(StmtKind::Expr(outer), span);
                    return self.stmt(StmtKind::Block(vec![first, second]), span);
                }
            }
        }
        self.stmt(StmtKind::Expr(e), span)
    }

    /// Whether an expression assigns anything (`=`, `+=`, `++`, ...).
    fn assigns(&self, e: ExprId) -> bool {
        matches!(
            self.exprs[e].kind,
            ExprKind::Assign { .. } | ExprKind::Step { .. }
        ) || expr_children(&self.exprs[e].kind)
            .into_iter()
            .any(|c| self.assigns(c))
    }

    /// A copy of an expression tree, with new ids.
    fn duplicate(&mut self, e: ExprId) -> ExprId {
        let Expr { kind, span, .. } = self.exprs[e].clone();
        let kind = match kind {
            ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Name(_) => kind,
            ExprKind::Index { base, index } => ExprKind::Index {
                base: self.duplicate(base),
                index: self.duplicate(index),
            },
            ExprKind::Call {
                name,
                name_span,
                args,
            } => ExprKind::Call {
                name,
                name_span,
                args: args.into_iter().map(|a| self.duplicate(a)).collect(),
            },
            ExprKind::Unary { op, operand } => ExprKind::Unary {
                op,
                operand: self.duplicate(operand),
            },
            ExprKind::Binary { op, lhs, rhs } => ExprKind::Binary {
                op,
                lhs: self.duplicate(lhs),
                rhs: self.duplicate(rhs),
            },
            ExprKind::Conditional {
                cond,
                then_value,
                else_value,
            } => ExprKind::Conditional {
                cond: self.duplicate(cond),
                then_value: self.duplicate(then_value),
                else_value: self.duplicate(else_value),
            },
            ExprKind::Cast { ty, operand } => ExprKind::Cast {
                ty,
                operand: self.duplicate(operand),
            },
            ExprKind::Assign { op, target, value } => ExprKind::Assign {
                op,
                target: self.duplicate(target),
                value: self.duplicate(value),
            },
            ExprKind::Step { op, prefix, target } => ExprKind::Step {
                op,
                prefix,
                target: self.duplicate(target),
            },
        };
        self.expr(kind, span)
    }
}

/// The direct sub-expressions of an expression kind.
pub fn expr_children(kind: &ExprKind) -> Vec<ExprId> {
    match kind {
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Name(_) => Vec::new(),
        ExprKind::Index { base, index } => vec![*base, *index],
        ExprKind::Call { args, .. } => args.clone(),
        ExprKind::Unary { operand, .. } | ExprKind::Cast { operand, .. } => vec![*operand],
        ExprKind::Binary { lhs, rhs, .. } => vec![*lhs, *rhs],
        ExprKind::Conditional {
            cond,
            then_value,
            else_value,
        } => vec![*cond, *then_value, *else_value],
        ExprKind::Assign { target, value, .. } => vec![*target, *value],
        ExprKind::Step { target, .. } => vec![*target],
    }
}
