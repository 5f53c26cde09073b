//! C expressions for the writer: one tree for everything printed (isl's loop bounds and
//! the source's statements alike), printed with only the parentheses C's precedence needs.

pub use crate::codegen::ir::linear;
use crate::codegen::ir::{Expr, Op};

#[derive(Clone, Debug, PartialEq)]
pub enum CExpr {
    Int(i64),
    /// A literal or name printed as is.
    Atom(String),
    Index(Box<CExpr>, Box<CExpr>),
    Call(String, Vec<CExpr>),
    /// `op x` (`-`, `+`, `!`, `~`, `&`, `++`, `--`)
    Unary(&'static str, Box<CExpr>),
    /// `x op` (`++`, `--`)
    Postfix(&'static str, Box<CExpr>),
    Cast(String, Box<CExpr>),
    Binary(&'static str, Box<CExpr>, Box<CExpr>),
    Cond(Box<CExpr>, Box<CExpr>, Box<CExpr>),
    Assign(&'static str, Box<CExpr>, Box<CExpr>),
}

impl CExpr {
    pub fn name(n: impl Into<String>) -> CExpr {
        CExpr::Atom(n.into())
    }

    pub fn bin(op: &'static str, a: CExpr, b: CExpr) -> CExpr {
        CExpr::Binary(op, Box::new(a), Box::new(b))
    }

    pub fn index(base: CExpr, subscripts: impl IntoIterator<Item = CExpr>) -> CExpr {
        subscripts
            .into_iter()
            .fold(base, |b, s| CExpr::Index(Box::new(b), Box::new(s)))
    }
}

/// Binding strength: larger binds tighter.
fn precedence(e: &CExpr) -> u8 {
    match e {
        CExpr::Int(v) if *v < 0 => 14,
        CExpr::Int(_) | CExpr::Atom(_) => 16,
        CExpr::Index(..) | CExpr::Call(..) | CExpr::Postfix(..) => 15,
        CExpr::Unary(..) | CExpr::Cast(..) => 14,
        CExpr::Binary(op, ..) => binary_precedence(op),
        CExpr::Cond(..) => 3,
        CExpr::Assign(..) => 2,
    }
}

fn binary_precedence(op: &str) -> u8 {
    match op {
        "*" | "/" | "%" => 13,
        "+" | "-" => 12,
        "<<" | ">>" => 11,
        "<" | "<=" | ">" | ">=" => 10,
        "==" | "!=" => 9,
        "&" => 8,
        "^" => 7,
        "|" => 6,
        "&&" => 5,
        "||" => 4,
        _ => 1,
    }
}

impl std::fmt::Display for CExpr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&print(self))
    }
}

/// `e` as C text.
pub fn print(e: &CExpr) -> String {
    let wrap = |x: &CExpr, min: u8| -> String {
        let text = print(x);
        if precedence(x) < min {
            format!("({text})")
        } else {
            text
        }
    };
    match e {
        CExpr::Int(v) => v.to_string(),
        CExpr::Atom(a) => a.clone(),
        CExpr::Index(b, i) => format!("{}[{}]", wrap(b, 15), print(i)),
        CExpr::Call(name, args) => {
            let args: Vec<String> = args.iter().map(print).collect();
            format!("{name}({})", args.join(", "))
        }
        CExpr::Unary(op, x) => {
            let inner = wrap(x, 14);
            // `- -x` and `- -1`, not `--x`.
            if (inner.starts_with('-') && op.ends_with('-'))
                || (inner.starts_with('+') && op.ends_with('+'))
            {
                format!("{op}({inner})")
            } else {
                format!("{op}{inner}")
            }
        }
        CExpr::Postfix(op, x) => format!("{}{op}", wrap(x, 15)),
        CExpr::Cast(ty, x) => format!("({ty}){}", wrap(x, 14)),
        CExpr::Binary(op, a, b) => {
            let p = binary_precedence(op);
            // Left-associative: the right operand needs parentheses at equal precedence,
            // except for `&&` and `||`. `a * (b * c)` keeps them: floating-point `+` and `*`
            // are not associative, and C converts `int * (int * float)` otherwise than
            // `(int * int) * float` (the random nests found the dropped parentheses).
            let right_min =
                if matches!(*op, "&&" | "||") && matches!(&**b, CExpr::Binary(o, ..) if o == op) {
                    p
                } else {
                    p + 1
                };
            format!("{} {op} {}", wrap(a, p), wrap(b, right_min))
        }
        CExpr::Cond(c, a, b) => format!("{} ? {} : {}", wrap(c, 4), wrap(a, 3), wrap(b, 3)),
        CExpr::Assign(op, a, b) => format!("{} {op} {}", wrap(a, 14), wrap(b, 2)),
    }
}

/// An isl/codegen expression as C, with `rename` applied to identifiers.
pub fn from_ir(e: &Expr, rename: &dyn Fn(&str) -> CExpr) -> CExpr {
    let arg = |k: usize, args: &[Expr]| from_ir(&args[k], rename);
    match e {
        Expr::Int(v) => CExpr::Int(*v),
        Expr::Id(n) => rename(n),
        Expr::Op(op, args) => {
            let all = || args.iter().map(|a| from_ir(a, rename)).collect::<Vec<_>>();
            match op {
                Op::Add => match (&args[0], &args[1]) {
                    (_, Expr::Int(v)) if *v < 0 => CExpr::bin("-", arg(0, args), CExpr::Int(-v)),
                    (_, Expr::Op(Op::Neg, inner)) => {
                        CExpr::bin("-", arg(0, args), from_ir(&inner[0], rename))
                    }
                    _ => CExpr::bin("+", arg(0, args), arg(1, args)),
                },
                Op::Sub => CExpr::bin("-", arg(0, args), arg(1, args)),
                Op::Mul => match &args[0] {
                    Expr::Int(-1) => CExpr::Unary("-", Box::new(arg(1, args))),
                    _ => CExpr::bin("*", arg(0, args), arg(1, args)),
                },
                Op::Neg => match &args[0] {
                    Expr::Int(v) => CExpr::Int(-v),
                    _ => CExpr::Unary("-", Box::new(arg(0, args))),
                },
                Op::Div | Op::PosDiv => CExpr::bin("/", arg(0, args), arg(1, args)),
                Op::PosRem | Op::ZeroRem => CExpr::bin("%", arg(0, args), arg(1, args)),
                Op::FloorDiv => CExpr::Call("gpucc_floord".into(), all()),
                Op::Min => fold_call("min", all()),
                Op::Max => fold_call("max", all()),
                Op::And => CExpr::bin("&&", arg(0, args), arg(1, args)),
                Op::Or => CExpr::bin("||", arg(0, args), arg(1, args)),
                Op::Eq => CExpr::bin("==", arg(0, args), arg(1, args)),
                Op::Le => CExpr::bin("<=", arg(0, args), arg(1, args)),
                Op::Lt => CExpr::bin("<", arg(0, args), arg(1, args)),
                // isl writes `m >= i + 1`; C programmers write `i < m`.
                Op::Ge => match &args[1] {
                    Expr::Op(Op::Add, x) if x.len() == 2 && x[1] == Expr::Int(1) => {
                        CExpr::bin("<", from_ir(&x[0], rename), arg(0, args))
                    }
                    _ => CExpr::bin(">=", arg(0, args), arg(1, args)),
                },
                Op::Gt => CExpr::bin(">", arg(0, args), arg(1, args)),
                Op::Select => CExpr::Cond(
                    Box::new(arg(0, args)),
                    Box::new(arg(1, args)),
                    Box::new(arg(2, args)),
                ),
                Op::Call => {
                    let mut all = all();
                    let name = print(&all.remove(0));
                    CExpr::Call(name, all)
                }
            }
        }
    }
}

/// `min(a, b, c)` as `min(min(a, b), c)`: isl's min and max may take more than two
/// arguments.
fn fold_call(name: &str, args: Vec<CExpr>) -> CExpr {
    let mut it = args.into_iter();
    let first = it.next().unwrap_or(CExpr::Int(0));
    it.fold(first, |acc, x| CExpr::Call(name.into(), vec![acc, x]))
}

/// `3 * a - b + 4` from a linear form.
pub fn from_linear(terms: &[(String, i64)], constant: i64) -> CExpr {
    let mut acc: Option<CExpr> = None;
    // Positive terms first: `j - 32 * jj`, not `-32 * jj + j`.
    let ordered = terms
        .iter()
        .filter(|(_, c)| *c > 0)
        .chain(terms.iter().filter(|(_, c)| *c < 0));
    for (n, c) in ordered {
        let mag = c.abs();
        let term = if mag == 1 {
            CExpr::name(n.clone())
        } else {
            CExpr::bin("*", CExpr::Int(mag), CExpr::name(n.clone()))
        };
        acc = Some(match (acc, *c < 0) {
            (None, false) => term,
            (None, true) => CExpr::Unary("-", Box::new(term)),
            (Some(x), false) => CExpr::bin("+", x, term),
            (Some(x), true) => CExpr::bin("-", x, term),
        });
    }
    match (acc, constant) {
        (None, c) => CExpr::Int(c),
        (Some(x), 0) => x,
        (Some(x), c) if c > 0 => CExpr::bin("+", x, CExpr::Int(c)),
        (Some(x), c) => CExpr::bin("-", x, CExpr::Int(-c)),
    }
}

/// Whether an isl expression uses `floord`, for the prelude.
pub fn uses_floord(e: &Expr) -> bool {
    match e {
        Expr::Op(Op::FloorDiv, _) => true,
        Expr::Op(_, args) => args.iter().any(uses_floord),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> CExpr {
        CExpr::name(s)
    }

    #[test]
    fn minimal_parentheses() {
        let e = CExpr::bin("*", CExpr::bin("+", n("a"), n("b")), n("c"));
        assert_eq!(print(&e), "(a + b) * c");
        let e = CExpr::bin("-", n("a"), CExpr::bin("-", n("b"), n("c")));
        assert_eq!(print(&e), "a - (b - c)");
        let e = CExpr::bin("+", CExpr::bin("+", n("a"), n("b")), n("c"));
        assert_eq!(print(&e), "a + b + c");
        let e = CExpr::bin("*", n("a"), CExpr::bin("*", n("b"), n("c")));
        assert_eq!(print(&e), "a * (b * c)");
        let e = CExpr::bin("&&", n("a"), CExpr::bin("&&", n("b"), n("c")));
        assert_eq!(print(&e), "a && b && c");
        let e = CExpr::index(n("A"), [CExpr::bin("+", n("i"), CExpr::Int(1)), n("j")]);
        assert_eq!(print(&e), "A[i + 1][j]");
        let e = CExpr::Unary("-", Box::new(CExpr::Int(-1)));
        assert_eq!(print(&e), "-(-1)");
        let e = CExpr::Cond(
            Box::new(CExpr::bin("<", n("a"), n("b"))),
            Box::new(n("a")),
            Box::new(n("b")),
        );
        assert_eq!(print(&e), "a < b ? a : b");
    }

    #[test]
    fn isl_expressions() {
        let e = Expr::Op(
            Op::Add,
            vec![
                Expr::Op(Op::Mul, vec![Expr::Int(16), Expr::Id("ii".into())]),
                Expr::Int(-1),
            ],
        );
        assert_eq!(print(&from_ir(&e, &|x| n(x))), "16 * ii - 1");
        let e = Expr::Op(
            Op::Min,
            vec![
                Expr::Id("a".into()),
                Expr::Id("b".into()),
                Expr::Id("c".into()),
            ],
        );
        assert_eq!(print(&from_ir(&e, &|x| n(x))), "min(min(a, b), c)");
    }
}
