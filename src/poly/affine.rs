//! Quasi-affine expressions (affine forms over loop indices and parameters, with floor
//! division by constants), piecewise forms of them (for `min`, `max`, `?:` and C's
//! truncating division), and affine conditions. They are printed in isl's syntax, which is
//! how [`super::lower`] hands domains and accesses to isl.

use std::collections::BTreeMap;
use std::fmt::{self, Write};

/// A variable of an affine expression: a loop index (by name; names are unique along a
/// loop nest) or a symbolic parameter.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Var {
    Index(String),
    Param(String),
}

impl Var {
    pub fn name(&self) -> &str {
        match self {
            Var::Index(n) | Var::Param(n) => n,
        }
    }
}

/// A term of an affine form: a variable, or `floor(aff / d)` with `d >= 2`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Atom {
    Var(Var),
    FloorDiv(Box<Aff>, i64),
}

/// `sum(coefficient * atom) + constant`, in canonical form (no zero coefficients).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Aff {
    pub terms: BTreeMap<Atom, i64>,
    pub constant: i64,
}

/// Arithmetic left the range of 64-bit integers, or a value split into more than
/// [`MAX_PIECES`] cases (nested `min`/`max`/`?:`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooLarge;

/// The most cases a piecewise value may have; deeper nests of `min`, `max` and `?:` are
/// refused rather than analysed in exponential time.
pub const MAX_PIECES: usize = 64;

/// The most disjuncts a condition may expand to (see [`Cond::disjuncts`]).
pub const MAX_DISJUNCTS: u64 = 4096;

fn check_pieces(n: usize) -> Result<(), TooLarge> {
    if n > MAX_PIECES {
        Err(TooLarge)
    } else {
        Ok(())
    }
}

impl Aff {
    pub fn constant(c: i64) -> Aff {
        Aff {
            terms: BTreeMap::new(),
            constant: c,
        }
    }

    pub fn var(v: Var) -> Aff {
        let mut terms = BTreeMap::new();
        terms.insert(Atom::Var(v), 1);
        Aff { terms, constant: 0 }
    }

    pub fn as_constant(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }

    pub fn add(&self, other: &Aff) -> Result<Aff, TooLarge> {
        let mut out = self.clone();
        for (atom, c) in &other.terms {
            let entry = out.terms.entry(atom.clone()).or_insert(0);
            *entry = entry.checked_add(*c).ok_or(TooLarge)?;
            if *entry == 0 {
                out.terms.remove(atom);
            }
        }
        out.constant = out.constant.checked_add(other.constant).ok_or(TooLarge)?;
        Ok(out)
    }

    pub fn scale(&self, k: i64) -> Result<Aff, TooLarge> {
        if k == 0 {
            return Ok(Aff::constant(0));
        }
        let mut terms = BTreeMap::new();
        for (atom, c) in &self.terms {
            terms.insert(atom.clone(), c.checked_mul(k).ok_or(TooLarge)?);
        }
        Ok(Aff {
            terms,
            constant: self.constant.checked_mul(k).ok_or(TooLarge)?,
        })
    }

    pub fn sub(&self, other: &Aff) -> Result<Aff, TooLarge> {
        self.add(&other.scale(-1)?)
    }

    /// `floor(self / d)` for `d >= 1`, folded when constant.
    pub fn floor_div(&self, d: i64) -> Aff {
        debug_assert!(d >= 1, "floor_div takes a positive divisor");
        if d == 1 {
            return self.clone();
        }
        match self.as_constant() {
            Some(c) => Aff::constant(c.div_euclid(d)),
            None => {
                let mut terms = BTreeMap::new();
                terms.insert(Atom::FloorDiv(Box::new(self.clone()), d), 1);
                Aff { terms, constant: 0 }
            }
        }
    }

    /// The expression with variables replaced (`None`: kept).
    pub fn substitute(&self, f: &dyn Fn(&Var) -> Option<Aff>) -> Result<Aff, TooLarge> {
        let mut out = Aff::constant(self.constant);
        for (atom, c) in &self.terms {
            let value = match atom {
                Atom::Var(v) => f(v).unwrap_or_else(|| Aff::var(v.clone())),
                Atom::FloorDiv(inner, d) => inner.substitute(f)?.floor_div(*d),
            };
            out = out.add(&value.scale(*c)?)?;
        }
        Ok(out)
    }

    /// Whether the variable occurs anywhere (also inside divisions).
    pub fn involves(&self, v: &Var) -> bool {
        self.terms.keys().any(|a| match a {
            Atom::Var(x) => x == v,
            Atom::FloorDiv(inner, _) => inner.involves(v),
        })
    }

    /// The coefficient of `v` outside divisions, and whether `v` occurs inside one.
    pub fn coefficient(&self, v: &Var) -> (i64, bool) {
        let direct = self.terms.get(&Atom::Var(v.clone())).copied().unwrap_or(0);
        let in_div = self.terms.keys().any(|a| match a {
            Atom::FloorDiv(inner, _) => inner.involves(v),
            Atom::Var(_) => false,
        });
        (direct, in_div)
    }

    /// Evaluates with the values of the variables (floor division as isl defines it).
    pub fn eval(&self, value: &dyn Fn(&Var) -> i64) -> i64 {
        let mut sum = self.constant as i128;
        for (atom, c) in &self.terms {
            let v = match atom {
                Atom::Var(x) => value(x) as i128,
                Atom::FloorDiv(inner, d) => (inner.eval(value) as i128).div_euclid(*d as i128),
            };
            sum += *c as i128 * v;
        }
        sum.clamp(i64::MIN as i128, i64::MAX as i128) as i64
    }

    /// All variables that occur.
    pub fn vars(&self, out: &mut Vec<Var>) {
        for atom in self.terms.keys() {
            match atom {
                Atom::Var(v) => {
                    if !out.contains(v) {
                        out.push(v.clone())
                    }
                }
                Atom::FloorDiv(inner, _) => inner.vars(out),
            }
        }
    }
}

/// Names that isl's parser reserves; variables with these names get a `_` appended.
const ISL_KEYWORDS: &[&str] = &[
    "and", "or", "not", "exists", "implies", "mod", "min", "max", "floor", "ceil", "floord",
    "ceild", "infty", "NaN", "rat", "true", "false",
];

/// A C name as an isl identifier.
pub fn isl_name(name: &str) -> String {
    if ISL_KEYWORDS.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

impl fmt::Display for Aff {
    /// isl syntax: `2*i + floor((j)/4) - 1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (atom, c) in &self.terms {
            let atom_text = match atom {
                Atom::Var(v) => isl_name(v.name()),
                Atom::FloorDiv(inner, d) => format!("floor(({inner})/{d})"),
            };
            let (sign, mag) = if *c < 0 {
                ("-", c.unsigned_abs())
            } else {
                ("+", *c as u64)
            };
            match (first, sign) {
                (true, "-") => f.write_str("-")?,
                (true, _) => {}
                (false, s) => write!(f, " {s} ")?,
            }
            if mag == 1 {
                f.write_str(&atom_text)?;
            } else {
                write!(f, "{mag}*{atom_text}")?;
            }
            first = false;
        }
        if first {
            write!(f, "{}", self.constant)
        } else if self.constant > 0 {
            write!(f, " + {}", self.constant)
        } else if self.constant < 0 {
            write!(f, " - {}", self.constant.unsigned_abs())
        } else {
            Ok(())
        }
    }
}

/// An affine condition: a boolean formula over `aff >= 0` and `aff = 0`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Cond {
    True,
    False,
    /// `aff >= 0`
    NonNeg(Aff),
    /// `aff = 0`
    Zero(Aff),
    And(Vec<Cond>),
    Or(Vec<Cond>),
}

impl Cond {
    /// `a <= b`
    pub fn le(a: &Aff, b: &Aff) -> Result<Cond, TooLarge> {
        Ok(Cond::NonNeg(b.sub(a)?))
    }

    /// `a < b`
    pub fn lt(a: &Aff, b: &Aff) -> Result<Cond, TooLarge> {
        Ok(Cond::NonNeg(b.sub(a)?.add(&Aff::constant(-1))?))
    }

    pub fn eq(a: &Aff, b: &Aff) -> Result<Cond, TooLarge> {
        Ok(Cond::Zero(a.sub(b)?))
    }

    pub fn and(self, other: Cond) -> Cond {
        match (self, other) {
            (Cond::True, c) | (c, Cond::True) => c,
            (Cond::False, _) | (_, Cond::False) => Cond::False,
            (Cond::And(mut a), Cond::And(b)) => {
                a.extend(b);
                Cond::And(a)
            }
            (Cond::And(mut a), c) | (c, Cond::And(mut a)) => {
                a.push(c);
                Cond::And(a)
            }
            (a, b) => Cond::And(vec![a, b]),
        }
    }

    pub fn or(self, other: Cond) -> Cond {
        match (self, other) {
            (Cond::False, c) | (c, Cond::False) => c,
            (Cond::True, _) | (_, Cond::True) => Cond::True,
            (Cond::Or(mut a), Cond::Or(b)) => {
                a.extend(b);
                Cond::Or(a)
            }
            (Cond::Or(mut a), c) | (c, Cond::Or(mut a)) => {
                a.push(c);
                Cond::Or(a)
            }
            (a, b) => Cond::Or(vec![a, b]),
        }
    }

    /// The negation, with the negation pushed down to the comparisons.
    pub fn negate(&self) -> Result<Cond, TooLarge> {
        Ok(match self {
            Cond::True => Cond::False,
            Cond::False => Cond::True,
            // not (a >= 0)  <=>  -a - 1 >= 0
            Cond::NonNeg(a) => Cond::NonNeg(a.scale(-1)?.add(&Aff::constant(-1))?),
            // not (a = 0)  <=>  a >= 1 or a <= -1
            Cond::Zero(a) => Cond::NonNeg(a.add(&Aff::constant(-1))?)
                .or(Cond::NonNeg(a.scale(-1)?.add(&Aff::constant(-1))?)),
            Cond::And(cs) => {
                let mut out = Cond::False;
                for c in cs {
                    out = out.or(c.negate()?);
                }
                out
            }
            Cond::Or(cs) => {
                let mut out = Cond::True;
                for c in cs {
                    out = out.and(c.negate()?);
                }
                out
            }
        })
    }

    /// How many conjunctions the formula has in disjunctive normal form (saturating): isl
    /// works in that form, so a condition with too many is refused before isl sees it.
    pub fn disjuncts(&self) -> u64 {
        match self {
            Cond::Or(cs) => cs
                .iter()
                .map(|c| c.disjuncts())
                .fold(0u64, |a, b| a.saturating_add(b)),
            Cond::And(cs) => cs
                .iter()
                .map(|c| c.disjuncts())
                .fold(1u64, |a, b| a.saturating_mul(b)),
            _ => 1,
        }
    }

    /// Every comparison in the formula.
    pub fn atoms(&self, out: &mut Vec<Cond>) {
        match self {
            Cond::And(cs) | Cond::Or(cs) => cs.iter().for_each(|c| c.atoms(out)),
            Cond::True | Cond::False => {}
            atom => out.push(atom.clone()),
        }
    }

    /// Evaluates with the values of the variables.
    pub fn eval(&self, value: &dyn Fn(&Var) -> i64) -> bool {
        match self {
            Cond::True => true,
            Cond::False => false,
            Cond::NonNeg(a) => a.eval(value) >= 0,
            Cond::Zero(a) => a.eval(value) == 0,
            Cond::And(cs) => cs.iter().all(|c| c.eval(value)),
            Cond::Or(cs) => cs.iter().any(|c| c.eval(value)),
        }
    }
}

impl fmt::Display for Cond {
    /// isl syntax: `(i >= 0 and N - i - 1 >= 0) or ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cond::True => f.write_str("0 = 0"),
            Cond::False => f.write_str("1 = 0"),
            Cond::NonNeg(a) => write!(f, "{a} >= 0"),
            Cond::Zero(a) => write!(f, "{a} = 0"),
            Cond::And(cs) | Cond::Or(cs) => {
                let joiner = if matches!(self, Cond::And(_)) {
                    " and "
                } else {
                    " or "
                };
                let mut text = String::new();
                for (k, c) in cs.iter().enumerate() {
                    if k > 0 {
                        text.push_str(joiner);
                    }
                    write!(text, "({c})")?;
                }
                f.write_str(&text)
            }
        }
    }
}

/// A piecewise quasi-affine value: `aff_k` where `cond_k` holds (the conditions of a
/// well-formed value are disjoint and cover where it is used).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PwAff {
    pub pieces: Vec<(Cond, Aff)>,
}

impl PwAff {
    pub fn from_aff(a: Aff) -> PwAff {
        PwAff {
            pieces: vec![(Cond::True, a)],
        }
    }

    /// The affine form, if there is a single unconditional piece.
    pub fn as_aff(&self) -> Option<&Aff> {
        match self.pieces.as_slice() {
            [(Cond::True, a)] => Some(a),
            _ => None,
        }
    }

    pub fn as_constant(&self) -> Option<i64> {
        self.as_aff().and_then(Aff::as_constant)
    }

    /// Combines two values piece by piece.
    pub fn combine(
        &self,
        other: &PwAff,
        op: impl Fn(&Aff, &Aff) -> Result<Aff, TooLarge>,
    ) -> Result<PwAff, TooLarge> {
        check_pieces(self.pieces.len() * other.pieces.len())?;
        let mut pieces = Vec::new();
        for (c1, a1) in &self.pieces {
            for (c2, a2) in &other.pieces {
                let cond = c1.clone().and(c2.clone());
                if cond != Cond::False {
                    pieces.push((cond, op(a1, a2)?));
                }
            }
        }
        Ok(PwAff { pieces })
    }

    pub fn map(&self, op: impl Fn(&Aff) -> Result<Aff, TooLarge>) -> Result<PwAff, TooLarge> {
        let pieces = self
            .pieces
            .iter()
            .map(|(c, a)| Ok((c.clone(), op(a)?)))
            .collect::<Result<_, _>>()?;
        Ok(PwAff { pieces })
    }

    /// `cond ? self : other`
    pub fn select(cond: &Cond, then: &PwAff, otherwise: &PwAff) -> Result<PwAff, TooLarge> {
        check_pieces(then.pieces.len() + otherwise.pieces.len())?;
        let not = cond.negate()?;
        let mut pieces = Vec::new();
        for (c, a) in &then.pieces {
            pieces.push((cond.clone().and(c.clone()), a.clone()));
        }
        for (c, a) in &otherwise.pieces {
            pieces.push((not.clone().and(c.clone()), a.clone()));
        }
        pieces.retain(|(c, _)| *c != Cond::False);
        Ok(PwAff { pieces })
    }

    /// The condition `self <op> other` for a comparison built by `cmp` on affine pieces.
    pub fn compare(
        &self,
        other: &PwAff,
        cmp: impl Fn(&Aff, &Aff) -> Result<Cond, TooLarge>,
    ) -> Result<Cond, TooLarge> {
        check_pieces(self.pieces.len() * other.pieces.len())?;
        let mut out = Cond::False;
        for (c1, a1) in &self.pieces {
            for (c2, a2) in &other.pieces {
                out = out.or(c1.clone().and(c2.clone()).and(cmp(a1, a2)?));
            }
        }
        Ok(out)
    }

    /// The condition `name = self` in isl syntax, for an output dimension of an access.
    pub fn equals_text(&self, name: &str) -> String {
        match self.as_aff() {
            Some(a) => format!("{name} = {a}"),
            None => {
                let parts: Vec<String> = self
                    .pieces
                    .iter()
                    .map(|(c, a)| format!("(({c}) and {name} = {a})"))
                    .collect();
                format!("({})", parts.join(" or "))
            }
        }
    }

    pub fn eval(&self, value: &dyn Fn(&Var) -> i64) -> Option<i64> {
        self.pieces
            .iter()
            .find(|(c, _)| c.eval(value))
            .map(|(_, a)| a.eval(value))
    }

    pub fn vars(&self, out: &mut Vec<Var>) {
        for (c, a) in &self.pieces {
            let mut atoms = Vec::new();
            c.atoms(&mut atoms);
            for atom in atoms {
                if let Cond::NonNeg(x) | Cond::Zero(x) = atom {
                    x.vars(out);
                }
            }
            a.vars(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i() -> Aff {
        Aff::var(Var::Index("i".into()))
    }
    fn n() -> Aff {
        Aff::var(Var::Param("N".into()))
    }

    #[test]
    fn canonical_arithmetic_and_printing() {
        let e = i()
            .scale(2)
            .unwrap()
            .add(&n())
            .unwrap()
            .sub(&Aff::constant(1))
            .unwrap();
        assert_eq!(e.to_string(), "2*i + N - 1");
        assert_eq!(i().sub(&i()).unwrap(), Aff::constant(0));
        assert_eq!(i().floor_div(4).to_string(), "floor((i)/4)");
        assert_eq!(Aff::constant(-7).floor_div(2), Aff::constant(-4));
        assert_eq!(Aff::var(Var::Index("min".into())).to_string(), "min_");
    }

    #[test]
    fn negation_is_exact() {
        let c = Cond::lt(&i(), &n()).unwrap();
        let not = c.negate().unwrap();
        for (iv, nv) in [(0, 5), (5, 5), (6, 5), (-3, 0)] {
            let val = |v: &Var| if v.name() == "i" { iv } else { nv };
            assert_eq!(c.eval(&val), !not.eval(&val));
        }
        let z = Cond::Zero(i());
        let nz = z.negate().unwrap();
        for iv in -2..3 {
            assert_eq!(nz.eval(&|_| iv), iv != 0);
        }
    }

    #[test]
    fn overflow_is_reported() {
        assert_eq!(
            Aff::constant(i64::MAX).add(&Aff::constant(1)),
            Err(TooLarge)
        );
        assert_eq!(i().scale(i64::MAX).unwrap().scale(2), Err(TooLarge));
    }

    #[test]
    fn min_as_pieces() {
        let m = PwAff::select(
            &Cond::lt(&i(), &n()).unwrap(),
            &PwAff::from_aff(i()),
            &PwAff::from_aff(n()),
        )
        .unwrap();
        for (iv, nv) in [(1, 5), (7, 5)] {
            let val = |v: &Var| if v.name() == "i" { iv } else { nv };
            assert_eq!(m.eval(&val), Some(iv.min(nv)));
        }
    }
}
