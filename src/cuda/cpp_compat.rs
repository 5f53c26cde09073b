//! C that C++ refuses, made valid C++ in the text the `.cu` copies through.
//!
//! nvcc compiles a `.cu` as C++, and C++ has no implicit conversion from `void *`: the
//! C idiom `float *a = malloc(n * sizeof(float));` is an error there. [`allocation_casts`]
//! finds the results of `malloc`, `calloc` and `realloc` that C converts implicitly and
//! returns, for each, the cast C++ needs (the declared type of what receives it), so that
//! [`push_copied`] can insert them while the file's text is copied. Recognised:
//!
//! - a declaration whose initialiser is the call: `float *a = malloc(...), *b = calloc(...);`
//!   `DATA_TYPE (*data)[M] = malloc(...);` (a type may be a keyword, a typedef of the file,
//!   or an identifier the file does not define, such as a macro from a header);
//! - an assignment of the call to a pointer declared earlier (a local, a global or a
//!   parameter): `p = realloc(p, n);`, `if ((p = malloc(n)) == NULL)`;
//! - `return malloc(...);` in a function that returns a pointer.
//!
//! The call must be the whole initialiser or right-hand side; anything else (already cast,
//! `*q = malloc(...)`, a member, a conditional) is left as written, as is every token inside
//! comments, strings and preprocessor lines (the C lexer never yields them as tokens).

use crate::frontend::lexer::{lex, Tok, Token};
use std::collections::{HashMap, HashSet};

/// A cast to insert: `text` (`(float *)`) goes right before byte `at` of the file.
#[derive(Clone, Debug, PartialEq)]
pub struct Cast {
    pub at: usize,
    pub text: String,
}

/// The casts C++ needs in the C file `text`, sorted by offset.
pub fn allocation_casts(text: &str) -> Vec<Cast> {
    let tokens: Vec<Token> = lex(text, 0)
        .into_iter()
        .filter(|t| !matches!(t.tok, Tok::Directive(_)))
        .collect();
    let mut scan = Scan {
        text,
        tokens: &tokens,
        scopes: vec![HashMap::new()],
        typedefs: HashSet::new(),
        parameters: Vec::new(),
        function_returns: Vec::new(),
        pending_return: None,
        casts: Vec::new(),
    };
    scan.run();
    scan.casts.sort_by_key(|c| c.at);
    scan.casts
}

/// Appends `text[from..to]` to `out` with the casts that fall inside the range.
pub fn push_copied(out: &mut String, text: &str, from: usize, to: usize, casts: &[Cast]) {
    let mut at = from;
    for cast in casts.iter().filter(|c| c.at >= from && c.at < to) {
        out.push_str(&text[at..cast.at]);
        out.push_str(&cast.text);
        at = cast.at;
    }
    out.push_str(&text[at..to]);
}

const ALLOCATORS: &[&str] = &["malloc", "calloc", "realloc"];

/// Keywords that name or qualify a type.
const TYPE_KEYWORDS: &[&str] = &[
    "void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool",
];
const QUALIFIERS: &[&str] = &["const", "volatile"];
/// Keywords that may start a declaration but have no place in a cast.
const STORAGE: &[&str] = &[
    "static",
    "extern",
    "register",
    "auto",
    "inline",
    "__inline",
    "__inline__",
    "typedef",
];
const RESTRICT: &[&str] = &["restrict", "__restrict", "__restrict__"];

/// What a declarator makes of its name, at the outermost level.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Derived {
    Plain,
    Pointer,
    Array,
    Function,
}

struct Declarator {
    name: usize,
    derived: Derived,
    /// Token range `[start, end)` of the declarator.
    start: usize,
    end: usize,
    /// The `( ... )` of a function declarator that directly follows the name.
    parameters: Option<(usize, usize)>,
}

struct Specifiers {
    /// Token range of the specifiers, storage classes included.
    start: usize,
    end: usize,
    is_typedef: bool,
    /// Whether the type is an identifier the file does not define as a type.
    guessed_type: bool,
}

struct Scan<'a> {
    text: &'a str,
    tokens: &'a [Token],
    /// Per block: name -> the cast for a pointer, `None` for anything else (it shadows).
    scopes: Vec<HashMap<String, Option<String>>>,
    typedefs: HashSet<String>,
    /// Parameters of the function whose body starts at the next `{`.
    parameters: Vec<(String, Option<String>)>,
    /// The return cast of each function being scanned, with the scope depth of its body.
    function_returns: Vec<(usize, Option<String>)>,
    pending_return: Option<Option<String>>,
    casts: Vec<Cast>,
}

impl Scan<'_> {
    fn run(&mut self) {
        let mut i = 0;
        let mut statement_start = true;
        while i < self.tokens.len() {
            match &self.tokens[i].tok {
                Tok::Punct("{") => {
                    let mut scope = HashMap::new();
                    scope.extend(self.parameters.drain(..));
                    self.scopes.push(scope);
                    if let Some(ret) = self.pending_return.take() {
                        self.function_returns.push((self.scopes.len(), ret));
                    }
                    statement_start = true;
                    i += 1;
                    continue;
                }
                Tok::Punct("}") => {
                    if self.function_returns.last().map(|f| f.0) == Some(self.scopes.len()) {
                        self.function_returns.pop();
                    }
                    if self.scopes.len() > 1 {
                        self.scopes.pop();
                    }
                    statement_start = true;
                    i += 1;
                    continue;
                }
                Tok::Punct(";") => {
                    statement_start = true;
                    i += 1;
                    continue;
                }
                Tok::Kw("for") if self.is_punct(i + 1, "(") => {
                    statement_start = true;
                    i += 2;
                    continue;
                }
                _ => {}
            }
            if statement_start {
                statement_start = false;
                if let Some(end) = self.declaration(i) {
                    i = end;
                    continue;
                }
            }
            self.assignment(i);
            self.return_statement(i);
            i += 1;
        }
    }

    fn is_punct(&self, i: usize, p: &str) -> bool {
        matches!(self.tokens.get(i), Some(Token { tok: Tok::Punct(q), .. }) if *q == p)
    }

    fn ident(&self, i: usize) -> Option<&str> {
        match self.tokens.get(i) {
            Some(Token {
                tok: Tok::Ident(s), ..
            }) => Some(s),
            _ => None,
        }
    }

    fn keyword(&self, i: usize) -> Option<&'static str> {
        match self.tokens.get(i) {
            Some(Token {
                tok: Tok::Kw(k), ..
            }) => Some(k),
            _ => None,
        }
    }

    /// The index just past the bracket that closes the one at `open`.
    fn skip_group(&self, open: usize) -> Option<usize> {
        let mut depth = 0i32;
        for (j, t) in self.tokens.iter().enumerate().skip(open) {
            match t.tok {
                Tok::Punct("(" | "[" | "{") => depth += 1,
                Tok::Punct(")" | "]" | "}") => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(j + 1);
                    }
                    if depth < 0 {
                        return None;
                    }
                }
                _ => {}
            }
        }
        None
    }

    fn is_type_name(&self, name: &str) -> bool {
        self.typedefs.contains(name) && !self.scopes.iter().any(|s| s.contains_key(name))
    }

    /// Declaration specifiers starting at `i`: storage classes, qualifiers and one type.
    fn specifiers(&self, i: usize) -> Option<Specifiers> {
        let mut j = i;
        let mut has_type = false;
        let mut is_typedef = false;
        let mut guessed_type = false;
        loop {
            if let Some(k) = self.keyword(j) {
                if TYPE_KEYWORDS.contains(&k) {
                    has_type = true;
                } else if k == "typedef" {
                    is_typedef = true;
                } else if ["struct", "union", "enum"].contains(&k) {
                    has_type = true;
                    if self.ident(j + 1).is_some() {
                        j += 1;
                    }
                    if self.is_punct(j + 1, "{") {
                        j = self.skip_group(j + 1)? - 1;
                    }
                } else if !(QUALIFIERS.contains(&k)
                    || STORAGE.contains(&k)
                    || RESTRICT.contains(&k))
                {
                    break;
                }
                j += 1;
                continue;
            }
            if let Some(name) = self.ident(j) {
                if has_type {
                    break;
                }
                let known = self.is_type_name(name);
                // An identifier the file does not define as a type (a header's macro, say)
                // is taken for one where an expression could not continue that way.
                let declarator_follows = self.ident(j + 1).is_some()
                    || self.is_punct(j + 1, "*")
                    || (self.is_punct(j + 1, "(") && self.is_punct(j + 2, "*"));
                if known || declarator_follows {
                    has_type = true;
                    guessed_type = !known;
                    j += 1;
                    continue;
                }
            }
            break;
        }
        (has_type && j > i).then_some(Specifiers {
            start: i,
            end: j,
            is_typedef,
            guessed_type,
        })
    }

    /// A declarator starting at `i`, ending before `=`, `,`, `;`, `{` or `)`.
    fn declarator(&self, i: usize) -> Option<Declarator> {
        let mut j = i;
        let mut stars = false;
        loop {
            if self.is_punct(j, "*") {
                stars = true;
            } else if !self
                .keyword(j)
                .is_some_and(|k| QUALIFIERS.contains(&k) || RESTRICT.contains(&k))
            {
                break;
            }
            j += 1;
        }
        let (name, inner, mut k, mut parameters) = if self.ident(j).is_some() {
            (j, None, j + 1, None)
        } else if self.is_punct(j, "(") {
            let inner = self.declarator(j + 1)?;
            if !self.is_punct(inner.end, ")") {
                return None;
            }
            (
                inner.name,
                Some(inner.derived),
                inner.end + 1,
                inner.parameters,
            )
        } else {
            return None;
        };
        let mut suffix = None;
        while self.is_punct(k, "[") || self.is_punct(k, "(") {
            let close = self.skip_group(k)?;
            if suffix.is_none() {
                suffix = Some(if self.is_punct(k, "[") {
                    Derived::Array
                } else {
                    Derived::Function
                });
                if inner.is_none() && self.is_punct(k, "(") {
                    parameters = Some((k + 1, close - 1));
                }
            }
            k = close;
        }
        let derived = match inner {
            Some(d) if d != Derived::Plain => d,
            _ => match suffix {
                Some(s) => s,
                None if stars => Derived::Pointer,
                None => Derived::Plain,
            },
        };
        Some(Declarator {
            name,
            derived,
            start: i,
            end: k,
            parameters,
        })
    }

    /// The text of tokens `[start, end)` as a type: words separated by a space, brackets
    /// as written, storage classes and `restrict` left out (C++ has no `restrict`).
    fn type_text(&self, ranges: &[(usize, usize)], skip: usize) -> String {
        let mut out = String::new();
        let mut previous_word = false;
        for &(start, end) in ranges {
            let mut j = start;
            while j < end {
                let t = &self.tokens[j];
                if j == skip {
                    j += 1;
                    continue;
                }
                if let Tok::Kw(k) = t.tok {
                    if STORAGE.contains(&k) || RESTRICT.contains(&k) {
                        j += 1;
                        continue;
                    }
                }
                if matches!(t.tok, Tok::Punct("[")) {
                    let close = self.skip_group(j).unwrap_or(end);
                    out.push_str(&self.text[t.span.start..self.tokens[close - 1].span.end]);
                    previous_word = false;
                    j = close;
                    continue;
                }
                let word = matches!(t.tok, Tok::Ident(_) | Tok::Kw(_) | Tok::Int(_));
                if previous_word && (word || matches!(t.tok, Tok::Punct("*" | "("))) {
                    out.push(' ');
                }
                out.push_str(&self.text[t.span.start..t.span.end]);
                previous_word = word;
                j += 1;
            }
        }
        out
    }

    /// The cast `(T)` for the name a declarator declares, with the given specifiers.
    fn cast_for(&self, specs: &Specifiers, d: &Declarator) -> String {
        format!(
            "({})",
            self.type_text(&[(specs.start, specs.end), (d.start, d.end)], d.name)
        )
    }

    /// An allocation call starting at `i` that runs to a token in `ends`: the index of
    /// the token after its `)`.
    fn allocation_call(&self, i: usize, ends: &[&str]) -> Option<usize> {
        let name = self.ident(i)?;
        if !ALLOCATORS.contains(&name) || !self.is_punct(i + 1, "(") {
            return None;
        }
        let after = self.skip_group(i + 1)?;
        ends.iter()
            .any(|e| self.is_punct(after, e))
            .then_some(after)
    }

    /// Reads a declaration at `i` (a statement start), records what it declares, adds
    /// the casts its initialisers need, and returns the index of the token that ends it
    /// (`;` or a function body's `{`). `None` when the tokens are not a declaration.
    fn declaration(&mut self, i: usize) -> Option<usize> {
        let specs = self.specifiers(i)?;
        let mut j = specs.end;
        let mut found: Vec<(Declarator, Option<usize>)> = Vec::new();
        loop {
            if self.is_punct(j, ";") && found.is_empty() {
                return Some(j); // `struct S { ... };`
            }
            let d = self.declarator(j)?;
            j = d.end;
            let mut initialiser = None;
            if self.is_punct(j, "=") {
                initialiser = Some(j + 1);
                j = self.skip_initialiser(j + 1)?;
            }
            let function_body = self.is_punct(j, "{") && d.derived == Derived::Function;
            found.push((d, initialiser));
            if function_body || self.is_punct(j, ";") {
                break;
            }
            if !self.is_punct(j, ",") {
                return None;
            }
            j += 1;
        }
        // An identifier taken for a type on a guess followed by `(`: accept only the one
        // shape that cannot be an expression statement in real code.
        if specs.guessed_type && self.is_punct(specs.end, "(") {
            let [(d, Some(init))] = found.as_slice() else {
                return None;
            };
            if d.derived != Derived::Pointer || self.allocation_call(*init, &[";"]).is_none() {
                return None;
            }
        }
        for (d, initialiser) in &found {
            let name = self.ident(d.name).unwrap_or_default().to_string();
            if specs.is_typedef {
                self.typedefs.insert(name);
                continue;
            }
            let cast = (d.derived == Derived::Pointer).then(|| self.cast_for(&specs, d));
            if let (Some(cast), Some(init)) = (&cast, initialiser) {
                if self.allocation_call(*init, &[",", ";"]).is_some() {
                    self.casts.push(Cast {
                        at: self.tokens[*init].span.start,
                        text: cast.clone(),
                    });
                }
            }
            if self.is_punct(j, "{") && d.derived == Derived::Function {
                self.function_definition(&specs, d);
            }
            self.scopes
                .last_mut()
                .expect("the file scope is never popped")
                .insert(name, cast);
        }
        Some(j)
    }

    /// The index of the `,` or `;` that ends an initialiser starting at `i`.
    fn skip_initialiser(&self, i: usize) -> Option<usize> {
        let mut j = i;
        while j < self.tokens.len() {
            match self.tokens[j].tok {
                Tok::Punct("," | ";") => return Some(j),
                Tok::Punct("(" | "[" | "{") => j = self.skip_group(j)?,
                Tok::Punct(")" | "]" | "}") => return None,
                _ => j += 1,
            }
        }
        None
    }

    /// Records the parameters and the return type of a function whose body follows.
    fn function_definition(&mut self, specs: &Specifiers, d: &Declarator) {
        let Some((start, end)) = d.parameters else {
            return;
        };
        // The return type: the declarator without its name and its parameter list.
        let returns_pointer = self.tokens[d.start..d.name]
            .iter()
            .any(|t| t.tok == Tok::Punct("*"))
            && d.name + 1 == start - 1
            && end + 1 == d.end;
        let ret = returns_pointer.then(|| {
            format!(
                "({})",
                self.type_text(&[(specs.start, specs.end), (d.start, d.name)], usize::MAX)
            )
        });
        self.pending_return = Some(ret);
        let mut j = start;
        while j < end {
            let Some(p_specs) = self.specifiers(j) else {
                return;
            };
            let Some(p) = self.declarator(p_specs.end) else {
                return;
            };
            let cast = (p.derived == Derived::Pointer).then(|| self.cast_for(&p_specs, &p));
            let name = self.ident(p.name).unwrap_or_default().to_string();
            // An array parameter is a pointer in C, but `p = malloc(...)` to it is rare
            // enough to leave alone.
            self.parameters.push((name, cast));
            j = p.end + 1;
        }
    }

    /// `p = malloc(...)` with `p` a pointer in scope: the cast goes before `malloc`.
    fn assignment(&mut self, i: usize) {
        let Some(name) = self.ident(i) else {
            return;
        };
        if !self.is_punct(i + 1, "=") || self.allocation_call(i + 2, &[";", ",", ")"]).is_none() {
            return;
        }
        let before_ok = i == 0
            || matches!(
                self.tokens[i - 1].tok,
                Tok::Punct(";" | "{" | "}" | "(" | ")" | "," | "?" | ":") | Tok::Kw("else" | "do")
            );
        if !before_ok {
            return;
        }
        if let Some(Some(cast)) = self.scopes.iter().rev().find_map(|s| s.get(name)) {
            self.casts.push(Cast {
                at: self.tokens[i + 2].span.start,
                text: cast.clone(),
            });
        }
    }

    /// `return malloc(...);` in a function that returns a pointer.
    fn return_statement(&mut self, i: usize) {
        if self.keyword(i) != Some("return") || self.allocation_call(i + 1, &[";"]).is_none() {
            return;
        }
        if let Some((_, Some(cast))) = self.function_returns.last() {
            self.casts.push(Cast {
                at: self.tokens[i + 1].span.start,
                text: cast.clone(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpp(c: &str) -> String {
        let casts = allocation_casts(c);
        let mut out = String::new();
        push_copied(&mut out, c, 0, c.len(), &casts);
        out
    }

    #[test]
    fn declarations_with_several_declarators() {
        assert_eq!(
            cpp("float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float));"),
            "float *a = (float *)malloc(n * sizeof(float)), *b = (float *)malloc(n * sizeof(float));"
        );
        assert_eq!(
            cpp("void f(void) { double x = 2.0, *p = calloc(4, sizeof(double)), y; }"),
            "void f(void) { double x = 2.0, *p = (double *)calloc(4, sizeof(double)), y; }"
        );
    }

    #[test]
    fn pointers_to_arrays_and_macro_types() {
        // DATA_TYPE is a macro from a header the scan does not read.
        assert_eq!(
            cpp("int main(void) {\n  DATA_TYPE (*data)[M] = malloc(sizeof(DATA_TYPE[N][M]));\n  DATA_TYPE *mean = malloc(sizeof(DATA_TYPE[M]));\n}"),
            "int main(void) {\n  DATA_TYPE (*data)[M] = (DATA_TYPE (*)[M])malloc(sizeof(DATA_TYPE[N][M]));\n  DATA_TYPE *mean = (DATA_TYPE *)malloc(sizeof(DATA_TYPE[M]));\n}"
        );
        assert_eq!(
            cpp("float (*A)[N + 1][M] = malloc(sizeof(float[K][N + 1][M]));"),
            "float (*A)[N + 1][M] = (float (*)[N + 1][M])malloc(sizeof(float[K][N + 1][M]));"
        );
    }

    #[test]
    fn typedef_names_qualifiers_and_storage_classes() {
        assert_eq!(
            cpp("typedef float real;\ntypedef real row[64];\nstatic const real *restrict v = malloc(8);\nrow *m = malloc(sizeof(row) * 4);"),
            "typedef float real;\ntypedef real row[64];\nstatic const real *restrict v = (const real *)malloc(8);\nrow *m = (row *)malloc(sizeof(row) * 4);"
        );
        assert_eq!(
            cpp("unsigned long **pp = malloc(8); int * const q = malloc(4);"),
            "unsigned long **pp = (unsigned long **)malloc(8); int * const q = (int *const)malloc(4);"
        );
    }

    #[test]
    fn calloc_and_realloc_assigned_to_pointers_declared_earlier() {
        let c = "float *p;\nint n;\nvoid g(double *q, int m) {\n  p = calloc(n, sizeof(float));\n  p = realloc(p, 2 * n * sizeof(float));\n  q = malloc(m * sizeof(double));\n  if ((p = malloc(n)) == 0)\n    n = 0;\n}";
        assert_eq!(
            cpp(c),
            "float *p;\nint n;\nvoid g(double *q, int m) {\n  p = (float *)calloc(n, sizeof(float));\n  p = (float *)realloc(p, 2 * n * sizeof(float));\n  q = (double *)malloc(m * sizeof(double));\n  if ((p = (float *)malloc(n)) == 0)\n    n = 0;\n}"
        );
    }

    #[test]
    fn inner_declarations_shadow_and_end_with_their_block() {
        let c = "float *p;\nvoid f(void) {\n  { int *p; p = malloc(4); }\n  p = malloc(4);\n  for (double *d = malloc(8); d; d = 0) {}\n}";
        assert_eq!(
            cpp(c),
            "float *p;\nvoid f(void) {\n  { int *p; p = (int *)malloc(4); }\n  p = (float *)malloc(4);\n  for (double *d = (double *)malloc(8); d; d = 0) {}\n}"
        );
    }

    #[test]
    fn returns_of_functions_that_return_pointers() {
        let c = "static float *random_array(int n)\n{\n  return malloc(n * sizeof(float));\n}\nint f(void) { return malloc(1); }";
        assert_eq!(
            cpp(c),
            "static float *random_array(int n)\n{\n  return (float *)malloc(n * sizeof(float));\n}\nint f(void) { return malloc(1); }"
        );
    }

    #[test]
    fn casts_already_there_are_left_alone() {
        let c = "float *a = (float *)malloc(4);\nvoid f(float *p) { p = (float *)realloc(p, 8); }";
        assert_eq!(cpp(c), c);
    }

    #[test]
    fn comments_strings_and_directives_are_left_alone() {
        let c = "// float *a = malloc(4);\n/* p = malloc(4); */\n#define ALLOC(n) malloc(n)\nconst char *s = \"float *x = malloc(4);\";\nvoid f(void) { puts(\"p = malloc(1)\"); }";
        assert_eq!(cpp(c), c);
    }

    #[test]
    fn what_is_not_recognised_is_left_alone() {
        let c = "void f(float **q, struct S *s, int c) {\n  *q = malloc(4);\n  s->p = malloc(4);\n  q[0] = malloc(4);\n  float *a = c ? malloc(4) : 0;\n  float *b = malloc(4) + 0;\n  undeclared = malloc(4);\n  free(*q);\n  int n = 3, m = n * 2;\n}";
        assert_eq!(cpp(c), c);
    }

    #[test]
    fn only_the_copied_ranges_get_casts() {
        let c = "float *a = malloc(4);\nfloat *b = malloc(4);\n";
        let casts = allocation_casts(c);
        assert_eq!(casts.len(), 2);
        let mut out = String::new();
        let second = c.find("float *b").unwrap();
        push_copied(&mut out, c, second, c.len(), &casts);
        assert_eq!(out, "float *b = (float *)malloc(4);\n");
    }

    #[test]
    fn the_whole_programs_of_the_testsuite() {
        let c = "static float *random_array(int n)\n{\n  float *a = malloc(n * sizeof(float));\n  for (int i = 0; i < n; i++)\n    a[i] = (float)rand() / RAND_MAX;\n  return a;\n}\nint main(void)\n{\n  float *kx = random_array(NUM_K), *ky = random_array(NUM_K);\n  float *qr = malloc(NUM_X * sizeof(float)), *qi = malloc(NUM_X * sizeof(float));\n  compute_q(kx, ky, qr, qi);\n  printf(\"Qr[0] = %f\\n\", qr[0]);\n  free(kx); free(ky); free(qr); free(qi);\n  return 0;\n}\n";
        let out = cpp(c);
        assert!(
            out.contains("float *a = (float *)malloc(n * sizeof(float));"),
            "{out}"
        );
        assert!(
            out.contains("float *qr = (float *)malloc(NUM_X * sizeof(float)), *qi = (float *)malloc(NUM_X * sizeof(float));"),
            "{out}"
        );
        assert_eq!(allocation_casts(c).len(), 3);
    }
}
