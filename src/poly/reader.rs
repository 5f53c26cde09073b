//! A reader for the isl text gpucc writes, faster than isl's own.
//!
//! gpucc's stages hand sets and maps to each other as isl text (`[jj] -> { S0[i, j] ->
//! [0, jj, 0, floor((j)/4)] }`), and isl's parser spends most of its time building a
//! piecewise expression for every term and intersecting one set per constraint with the
//! rest. Its misses were a quarter of the CPU time of PolyBench 3mm's compile (2,111
//! texts, 0.69 s of 2.7 s; `benchmarks/profiles/compile-2026-12-02-reader.md`). The texts
//! gpucc writes are nearly all one conjunction of affine constraints, which this reader
//! turns into the rows of two matrices, equalities and inequalities, from which isl makes
//! the basic map directly (`isl_basic_map_from_constraint_matrices`), about fifty times
//! faster. A `floor(e/d)` is an existentially quantified variable `q` with
//! `d*q <= e <= d*q + d - 1`, which isl's simplification recognises as the integer
//! division it is; `e mod d` is `e - d*floor(e/d)`.
//!
//! It reads: parameters (`[N, M] -> `), a set's tuple or a map's two (named or not, nested
//! as `[[i] -> A[j]]`), each entry a new variable or an affine expression of the ones
//! before (`S0[i, j] -> S0[i, j, __v0]`: the second `i` is the first's value), and
//! constraints joined by `and`, chained (`0 <= i < N`) and parenthesised. For anything else
//! (`or`, `exists`, `ceil`, unions, an identifier it does not know) it answers `None` and
//! isl's parser reads the text, so that what isl accepts or refuses is unchanged. The
//! unit test reads a corpus of texts the compiler wrote and checks that isl prints each
//! object this reader makes exactly as it prints the one its parser makes.

use isl_rs::{BasicMap, BasicSet, Context, DimType, Map as IslMap, Mat, Set as IslSet, Space};
use std::collections::HashMap;

/// `text` as a set, or `None` where this reader does not take the text.
pub(super) fn set(ctx: &Context, text: &str) -> Option<IslSet> {
    let read = Reader::new(text)?.read(false)?;
    let space = match &read.tuples[..] {
        [] => param_space(ctx, &read.params)?,
        [t] => tuple_space(ctx, &read.params, t)?,
        _ => return None,
    };
    let (eq, ineq) = read.matrices(ctx)?;
    let basic = BasicSet::from_constraint_matrices(
        space,
        eq,
        ineq,
        DimType::Cst,
        DimType::Param,
        DimType::Set,
        DimType::Div,
    )
    .ok()?;
    IslSet::from_basic_set(basic).ok()
}

/// `text` as a map, or `None` where this reader does not take the text.
pub(super) fn map(ctx: &Context, text: &str) -> Option<IslMap> {
    let read = Reader::new(text)?.read(true)?;
    let [from, to] = &read.tuples[..] else {
        return None;
    };
    let space = tuple_space(ctx, &read.params, from)?
        .map_from_domain_and_range(tuple_space(ctx, &read.params, to)?)
        .ok()?;
    let (eq, ineq) = read.matrices(ctx)?;
    let basic = BasicMap::from_constraint_matrices(
        space,
        eq,
        ineq,
        DimType::Cst,
        DimType::Param,
        DimType::In,
        DimType::Out,
        DimType::Div,
    )
    .ok()?;
    IslMap::from_basic_map(basic).ok()
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok<'a> {
    Id(&'a str),
    Int(i64),
    Sym(&'static str),
}

const SYMBOLS: [&str; 18] = [
    "->", "<=", ">=", "<", ">", "=", "[", "]", "{", "}", "(", ")", ",", ":", "+", "-", "*", "/",
];

/// Identifiers that isl's parser gives a meaning this reader does not handle.
const KEYWORDS: [&str; 18] = [
    "or", "not", "implies", "exists", "ceil", "ceild", "floord", "min", "max", "infty", "infinity",
    "NaN", "rat", "true", "false", "domain", "schedule", "cst",
];

fn lex(text: &str) -> Option<Vec<Tok<'_>>> {
    let bytes = text.as_bytes();
    let mut toks = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let c = bytes[at];
        if c.is_ascii_whitespace() {
            at += 1;
        } else if c.is_ascii_digit() {
            let start = at;
            while at < bytes.len() && bytes[at].is_ascii_digit() {
                at += 1;
            }
            toks.push(Tok::Int(text[start..at].parse().ok()?));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = at;
            while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
                at += 1;
            }
            let id = &text[start..at];
            if KEYWORDS.contains(&id) {
                return None;
            }
            toks.push(Tok::Id(id));
        } else {
            let sym = SYMBOLS.iter().find(|s| text[at..].starts_with(**s))?;
            at += sym.len();
            toks.push(Tok::Sym(sym));
        }
    }
    // `'` (primed names), `;` (unions), `%`, `!=` and the like end the lexing above.
    Some(toks)
}

/// A tuple: its name and its entries' names (`None` for an entry given by its value), or
/// a wrapped relation of two tuples.
enum Tuple {
    Flat(Option<String>, Vec<Option<String>>),
    Nested(Box<Tuple>, Box<Tuple>),
}

/// An affine form over the columns: the parameters, the tuples' entries in order, then
/// the existentially quantified variables ([`DIV`] and up while reading); its nonzero
/// coefficients by column, in order (`c`), and a constant (`k`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
struct Lin {
    c: Vec<(usize, i64)>,
    k: i64,
}

impl Lin {
    fn constant(k: i64) -> Lin {
        Lin { c: Vec::new(), k }
    }

    fn var(col: usize) -> Lin {
        Lin {
            c: vec![(col, 1)],
            k: 0,
        }
    }

    fn is_constant(&self) -> bool {
        self.c.is_empty()
    }

    /// `self + f * other`, or `None` on overflow.
    fn add_scaled(self, other: &Lin, f: i64) -> Option<Lin> {
        let mut c = Vec::with_capacity(self.c.len() + other.c.len());
        let (mut a, mut b) = (self.c.iter().peekable(), other.c.iter().peekable());
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(&&(i, x)), Some(&&(j, y))) if i == j => {
                    a.next();
                    b.next();
                    (i, x.checked_add(y.checked_mul(f)?)?)
                }
                (Some(&&(i, x)), Some(&&(j, _))) if i < j => {
                    a.next();
                    (i, x)
                }
                (_, Some(&&(j, y))) => {
                    b.next();
                    (j, y.checked_mul(f)?)
                }
                (Some(&&(i, x)), None) => {
                    a.next();
                    (i, x)
                }
                (None, None) => break,
            };
            if next.1 != 0 {
                c.push(next);
            }
        }
        let k = self.k.checked_add(other.k.checked_mul(f)?)?;
        Some(Lin { c, k })
    }

    fn scaled(&self, f: i64) -> Option<Lin> {
        Lin::default().add_scaled(self, f)
    }
}

struct Reader<'a> {
    toks: Vec<Tok<'a>>,
    at: usize,
    /// The names in scope, by column.
    names: HashMap<&'a str, usize>,
    params: Vec<&'a str>,
    /// Columns of the parameters and tuple entries.
    vars: usize,
    tuples: Vec<Tuple>,
    /// Existentially quantified variables: one per distinct `floor(e/d)`.
    divs: HashMap<(Lin, i64), usize>,
    div_order: Vec<(Lin, i64)>,
    eqs: Vec<Lin>,
    ineqs: Vec<Lin>,
}

impl<'a> Reader<'a> {
    fn new(text: &'a str) -> Option<Reader<'a>> {
        Some(Reader {
            toks: lex(text)?,
            at: 0,
            names: HashMap::new(),
            params: Vec::new(),
            vars: 0,
            tuples: Vec::new(),
            divs: HashMap::new(),
            div_order: Vec::new(),
            eqs: Vec::new(),
            ineqs: Vec::new(),
        })
    }

    fn peek(&self) -> Option<Tok<'a>> {
        self.toks.get(self.at).copied()
    }

    fn peek2(&self) -> Option<Tok<'a>> {
        self.toks.get(self.at + 1).copied()
    }

    fn eat(&mut self, sym: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Sym(s)) if s == sym) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, sym: &str) -> Option<()> {
        self.eat(sym).then_some(())
    }

    fn eat_id(&mut self, id: &str) -> bool {
        if self.peek() == Some(Tok::Id(id)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// The whole text: parameters, `{`, one tuple (a set; none for a set of parameters)
    /// or two (`map`), the constraints, `}`.
    fn read(mut self, map: bool) -> Option<Reader<'a>> {
        if self.eat("[") {
            if !self.eat("]") {
                loop {
                    let Some(Tok::Id(p)) = self.peek() else {
                        return None;
                    };
                    self.at += 1;
                    if self.names.insert(p, self.vars).is_some() {
                        return None;
                    }
                    self.params.push(p);
                    self.vars += 1;
                    if self.eat("]") {
                        break;
                    }
                    self.expect(",")?;
                }
            }
            self.expect("->")?;
        }
        self.expect("{")?;
        let has_tuple = !matches!(self.peek(), Some(Tok::Sym(":" | "}")));
        if map || has_tuple {
            let t = self.tuple()?;
            self.tuples.push(t);
        }
        if map {
            self.expect("->")?;
            let t = self.tuple()?;
            self.tuples.push(t);
        }
        if self.eat(":") {
            self.conjunction()?;
        }
        self.expect("}")?;
        (self.at == self.toks.len()).then_some(self)
    }

    /// `Name[e, ...]`, `[e, ...]` or `[tuple -> tuple]`.
    fn tuple(&mut self) -> Option<Tuple> {
        let name = match (self.peek(), self.peek2()) {
            (Some(Tok::Id(n)), Some(Tok::Sym("["))) => {
                self.at += 1;
                Some(n.to_string())
            }
            _ => None,
        };
        self.expect("[")?;
        let nested = matches!(
            (self.peek(), self.peek2()),
            (Some(Tok::Sym("[")), _) | (Some(Tok::Id(_)), Some(Tok::Sym("[")))
        );
        if nested {
            if name.is_some() {
                return None;
            }
            let from = self.tuple()?;
            self.expect("->")?;
            let to = self.tuple()?;
            self.expect("]")?;
            return Some(Tuple::Nested(Box::new(from), Box::new(to)));
        }
        let mut entries = Vec::new();
        if !self.eat("]") {
            loop {
                let fresh = match (self.peek(), self.peek2()) {
                    (Some(Tok::Id(n)), Some(Tok::Sym("," | "]")))
                        if !self.names.contains_key(n) =>
                    {
                        Some(n)
                    }
                    _ => None,
                };
                let col = self.vars;
                self.vars += 1;
                match fresh {
                    Some(n) => {
                        self.at += 1;
                        self.names.insert(n, col);
                        entries.push(Some(n.to_string()));
                    }
                    None => {
                        let value = self.expr()?;
                        self.eqs.push(Lin::var(col).add_scaled(&value, -1)?);
                        entries.push(None);
                    }
                }
                if self.eat("]") {
                    break;
                }
                self.expect(",")?;
            }
        }
        Some(Tuple::Flat(name, entries))
    }

    /// Constraints joined by `and`.
    fn conjunction(&mut self) -> Option<()> {
        loop {
            self.condition()?;
            if !self.eat_id("and") {
                return Some(());
            }
        }
    }

    /// `(conjunction)` or a chain of comparisons.
    fn condition(&mut self) -> Option<()> {
        if matches!(self.peek(), Some(Tok::Sym("("))) {
            let (at, eqs, ineqs) = (self.at, self.eqs.len(), self.ineqs.len());
            let divs = self.div_order.len();
            self.at += 1;
            let ok = self.conjunction().is_some()
                && self.eat(")")
                && matches!(self.peek(), Some(Tok::Id("and") | Tok::Sym(")" | "}")));
            if ok {
                return Some(());
            }
            // An expression in parentheses, as `(k) mod 16 = 0`: read again, with
            // nothing the attempt added (a division without its constraints would be
            // free).
            self.at = at;
            self.eqs.truncate(eqs);
            self.ineqs.truncate(ineqs);
            for key in self.div_order.drain(divs..) {
                self.divs.remove(&key);
            }
        }
        let mut left = self.expr()?;
        let mut compared = false;
        while let Some(Tok::Sym(op @ ("<" | "<=" | ">" | ">=" | "="))) = self.peek() {
            self.at += 1;
            let right = self.expr()?;
            let (small, large) = match op {
                "<" | "<=" => (&left, &right),
                _ => (&right, &left),
            };
            let mut diff = large.clone().add_scaled(small, -1)?;
            match op {
                "=" => self.eqs.push(diff),
                "<" | ">" => {
                    diff.k = diff.k.checked_sub(1)?;
                    self.ineqs.push(diff);
                }
                _ => self.ineqs.push(diff),
            }
            left = right;
            compared = true;
        }
        compared.then_some(())
    }

    /// A sum of terms.
    fn expr(&mut self) -> Option<Lin> {
        let mut sum = if self.eat("-") {
            self.term()?.scaled(-1)?
        } else {
            self.term()?
        };
        loop {
            if self.eat("+") {
                sum = sum.add_scaled(&self.term()?, 1)?;
            } else if self.eat("-") {
                sum = sum.add_scaled(&self.term()?, -1)?;
            } else {
                return Some(sum);
            }
        }
    }

    /// A product of factors, at most one of them not a constant.
    fn term(&mut self) -> Option<Lin> {
        let mut product = self.factor()?;
        while self.eat("*") {
            let f = self.factor()?;
            product = if product.is_constant() {
                f.scaled(product.k)?
            } else if f.is_constant() {
                product.scaled(f.k)?
            } else {
                return None;
            };
        }
        Some(product)
    }

    /// A number (times what follows it, as `8i2`), a name, `(expr)`, `floor(expr/d)`,
    /// `-factor`, each but a number with an optional `mod d`.
    fn factor(&mut self) -> Option<Lin> {
        let value = match self.peek()? {
            Tok::Int(n) => {
                self.at += 1;
                return match self.peek() {
                    // isl reads `8i2` and `2(i + 1)` as products, not `2floor(...)`.
                    Some(Tok::Id(id)) if !["and", "mod", "floor"].contains(&id) => {
                        self.factor()?.scaled(n)
                    }
                    Some(Tok::Sym("(")) => self.factor()?.scaled(n),
                    _ => Some(Lin::constant(n)),
                };
            }
            Tok::Sym("-") => {
                self.at += 1;
                return self.factor()?.scaled(-1);
            }
            Tok::Sym("(") => {
                self.at += 1;
                let e = self.expr()?;
                self.expect(")")?;
                e
            }
            Tok::Id("floor") => {
                self.at += 1;
                self.expect("(")?;
                let e = self.expr()?;
                self.expect("/")?;
                let Some(Tok::Int(d)) = self.peek() else {
                    return None;
                };
                self.at += 1;
                self.expect(")")?;
                self.floor(e, d)?
            }
            Tok::Id(name) if name != "and" && name != "mod" => {
                self.at += 1;
                Lin::var(*self.names.get(name)?)
            }
            _ => return None,
        };
        if self.eat_id("mod") {
            let Some(Tok::Int(d)) = self.peek() else {
                return None;
            };
            self.at += 1;
            let q = self.floor(value.clone(), d)?;
            return value.add_scaled(&q, -d);
        }
        Some(value)
    }

    /// The variable `q = floor(e/d)`: `d*q <= e <= d*q + d - 1`, one per distinct `(e, d)`.
    fn floor(&mut self, e: Lin, d: i64) -> Option<Lin> {
        if d <= 0 {
            return None;
        }
        let key = (e.clone(), d);
        let q = match self.divs.get(&key) {
            Some(&q) => q,
            None => {
                let q = self.div_order.len();
                self.divs.insert(key.clone(), q);
                self.div_order.push(key);
                q
            }
        };
        // Columns of divisions come after every tuple entry, which are not all known yet:
        // they are numbered apart (`DIV + q`) and placed when the matrices are written.
        let col = DIV + q;
        let var = Lin::var(col);
        let low = e.clone().add_scaled(&var, -d)?;
        let mut high = var.scaled(d)?.add_scaled(&e, -1)?;
        high.k = high.k.checked_add(d - 1)?;
        self.ineqs.push(low);
        self.ineqs.push(high);
        Some(var)
    }

    /// The equalities' and inequalities' rows: the constant, the parameters and entries,
    /// the divisions.
    fn matrices(&self, ctx: &Context) -> Option<(Mat, Mat)> {
        let cols = 1 + self.vars + self.div_order.len();
        let mat = |rows: &[Lin]| -> Option<Mat> {
            let mut m = Mat::alloc(ctx, rows.len() as u32, cols as u32).ok()?;
            for (r, row) in rows.iter().enumerate() {
                let mut values = vec![0i64; cols];
                values[0] = row.k;
                for &(c, v) in &row.c {
                    let at = if c >= DIV {
                        1 + self.vars + (c - DIV)
                    } else {
                        1 + c
                    };
                    values[at] = v;
                }
                for (c, &v) in values.iter().enumerate() {
                    m = m
                        .set_element_si(r as i32, c as i32, i32::try_from(v).ok()?)
                        .ok()?;
                }
            }
            Some(m)
        };
        Some((mat(&self.eqs)?, mat(&self.ineqs)?))
    }
}

/// The first column of divisions in a [`Lin`] while reading (far above any entry's).
const DIV: usize = 1 << 16;

fn param_space(ctx: &Context, params: &[&str]) -> Option<Space> {
    let mut space = Space::params_alloc(ctx, params.len() as u32).ok()?;
    for (k, p) in params.iter().enumerate() {
        space = space.set_dim_name(DimType::Param, k as u32, p).ok()?;
    }
    Some(space)
}

/// The set space of tuple `t`, with parameters `params`.
fn tuple_space(ctx: &Context, params: &[&str], t: &Tuple) -> Option<Space> {
    match t {
        Tuple::Flat(name, entries) => {
            let mut space =
                Space::set_alloc(ctx, params.len() as u32, entries.len() as u32).ok()?;
            for (k, p) in params.iter().enumerate() {
                space = space.set_dim_name(DimType::Param, k as u32, p).ok()?;
            }
            for (k, e) in entries.iter().enumerate() {
                if let Some(e) = e {
                    space = space.set_dim_name(DimType::Set, k as u32, e).ok()?;
                }
            }
            if let Some(n) = name {
                space = space.set_tuple_name(DimType::Set, n).ok()?;
            }
            Some(space)
        }
        Tuple::Nested(from, to) => tuple_space(ctx, params, from)?
            .map_from_domain_and_range(tuple_space(ctx, params, to)?)
            .ok()?
            .wrap()
            .ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use isl_rs::Options;

    fn context() -> Context {
        let ctx = Context::alloc();
        let _ = Options::set_on_error(&ctx, 1);
        ctx
    }

    /// Whether the reader's object for `text` is the set or map isl's parser reads (`None`
    /// where the reader declines the text), and whether isl prints the two alike; `Err`
    /// where isl refuses the text.
    fn compared(ctx: &Context, what: &str, text: &str) -> Result<Option<(bool, bool)>, String> {
        let e = |e: isl_rs::LibISLError| e.to_string();
        if what == "set" {
            let theirs = IslSet::read_from_str(ctx, text).map_err(e)?;
            Ok(set(ctx, text).map(|mine| {
                (
                    mine.is_equal(&theirs).unwrap(),
                    mine.to_str().unwrap() == theirs.to_str().unwrap(),
                )
            }))
        } else {
            let theirs = IslMap::read_from_str(ctx, text).map_err(e)?;
            Ok(map(ctx, text).map(|mine| {
                (
                    mine.is_equal(&theirs).unwrap(),
                    mine.to_str().unwrap() == theirs.to_str().unwrap(),
                )
            }))
        }
    }

    /// The reader's objects are isl's, but not always written alike: where the parser
    /// keeps `(i - o7) mod 16 = 0` with the bounds of `o13 = floor(i/16)`, the reader
    /// has the equality `16o13 = i - o7`, and the parser drops some constraints that
    /// others imply. The 134 programs of the testsuite and PolyBench compile to the same
    /// `.cu` with either (`benchmarks/profiles/compile-2026-12-02-reader.md`).
    #[test]
    fn the_reader_makes_of_the_corpus_what_isl_parser_makes() {
        let ctx = context();
        let corpus = include_str!("../../testsuite/poly/isl-texts.txt");
        let (mut read, mut alike, mut total) = (0, 0, 0);
        let mut wrong = Vec::new();
        for line in corpus.lines().filter(|l| !l.starts_with('#')) {
            let (what, text) = line.split_once('\t').expect("kind, tab, text");
            total += 1;
            match compared(&ctx, what, text) {
                Ok(Some((equal, printed_alike))) => {
                    read += 1;
                    alike += usize::from(printed_alike);
                    if !equal {
                        wrong.push(text);
                    }
                }
                Ok(None) => {}
                Err(e) => panic!("isl refuses a text of the corpus ({e}): {text}"),
            }
        }
        assert!(
            wrong.is_empty(),
            "not what isl reads:\n{}",
            wrong.join("\n")
        );
        // The texts it declines are the disjunctions, `exists` and the like. The corpus
        // draws at most 20 texts of each form, so that rare forms weigh more than in a
        // compile.
        assert!(read * 4 >= total * 3, "the reader read {read} of {total}");
        eprintln!("the reader read {read} of {total}; isl prints {alike} alike");
        assert!(alike * 10 >= read * 8, "isl prints {alike} of {read} alike");
    }

    #[test]
    fn the_reader_declines_what_it_does_not_read_and_what_isl_refuses() {
        let ctx = context();
        for (what, text) in [
            ("set", "{ S[i] : i < 0 or i > 9 }"),
            ("set", "{ S[i] : exists (e: i = 2e) }"),
            ("set", "{ S[i] : 0 <= i < ceil((N)/2) }"),
            ("set", "{ S[i] : 0 <= i < N }"),
            ("set", "[N] -> { S[i] : 0 <= i < N; T[j] }"),
            ("set", "{ S[i] : i * i >= 0 }"),
            ("set", "{ S[i] : i / 2 >= 0 }"),
            ("set", "{ S[i] : i >= }"),
            ("set", "{ S[i'] : i' >= 0 }"),
            ("set", "{ S[i] -> T[i] }"),
            ("map", "{ S[i] }"),
            ("map", "{ S[i] -> T[i] : i != 0 }"),
            ("set", "{ S[i] : 0 <= i <= 4294967296 }"),
            ("set", "{ S[i] : 2floor((i)/2) = i }"),
        ] {
            assert!(
                matches!(compared(&ctx, what, text), Ok(None) | Err(_)),
                "{text}"
            );
        }
    }

    #[test]
    fn the_reader_reads_the_forms_gpucc_writes() {
        let ctx = context();
        for (what, text) in [
            (
                "set",
                "[N] -> { S0[i, j] : 0 <= i < N and (j >= 0) and (-j + N - 1 >= 0) }",
            ),
            ("set", "[n] -> { : 2*n >= 3 }"),
            (
                "set",
                "{ S[k, k2] : (k) mod 16 = 0 and 8k2 >= 0 and k2 = 0 }",
            ),
            ("set", "[jj] -> { S[j] : floor((floor((j)/4))/32) = jj }"),
            (
                "set",
                "[a] -> { : ((a - floor((a + 4)/8)) + 1) < 7 and (a) mod 3 = 0 }",
            ),
            ("set", "[ii] -> { A_shared[ii, jj] : jj = ii }"),
            ("set", "{ [[i, j] -> A[a]] : a = i + 1 }"),
            (
                "map",
                "[t] -> { S[i, j] -> [0, t, 0, floor((i)/4), i - 4*floor((i)/4)] }",
            ),
            (
                "map",
                "{ S0[i, j] -> S0[i, j, __v0] : __v0 = i - 8*floor((i)/8) }",
            ),
            (
                "map",
                "{ S0[i, j] -> [[jj, j] -> v1[__e0]] : jj = floor((j)/256) and __e0 = j }",
            ),
            (
                "map",
                "{ [[i] -> A[a]] -> A_shared[x] : 1 * x = a - (8*i) }",
            ),
        ] {
            assert!(
                matches!(compared(&ctx, what, text), Ok(Some((true, _)))),
                "{text}"
            );
        }
    }
}
