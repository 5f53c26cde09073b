//! No input, however broken, may make gpucc panic (or hang): random bytes, random token
//! sequences, mutations of real kernels, and absurd nesting all end in a result or a
//! diagnostic.

use crate::fuzzing::{report, scaled, timed, Rng};
use gpucc::diag::{render, SourceFile, SourceMap};
use gpucc::frontend::{self, FrontendOptions};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// The name `scripts/fuzz` reads this target's figures by.
const TARGET: &str = "frontend fuzzer";

/// Runs every stage that applies; returns how far it got (for the test's statistics).
fn compile(text: &str) -> Stage {
    let mut sources = SourceMap::default();
    let id = sources.add(SourceFile::new("fuzz.c", text));
    let options = FrontendOptions::default();
    let parsed = match frontend::parse(sources.get(id), id, None, &options) {
        Ok(p) => p,
        Err(d) => {
            let _ = render(&sources, &d, false);
            return Stage::Refused;
        }
    };
    let mut stage = Stage::Parsed;
    for unit in parsed.units {
        match gpucc::poly::lower(unit, sources.get(id)) {
            Ok(mut p) => {
                if gpucc::deps::analyze(&mut p).is_ok() {
                    stage = Stage::Analysed;
                }
            }
            Err(d) => {
                let _ = render(&sources, &d, false);
            }
        }
    }
    stage
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Stage {
    Refused,
    Parsed,
    Analysed,
}

fn must_not_panic(text: &str) -> Stage {
    match timed(TARGET, || catch_unwind(AssertUnwindSafe(|| compile(text)))) {
        Ok(stage) => stage,
        Err(_) => panic!("gpucc panicked on this input:\n{text:?}"),
    }
}

#[test]
fn random_bytes() {
    let mut rng = Rng::for_test(0x9E37_79B9_7F4A_7C15);
    for _ in 0..scaled(1000) {
        let len = rng.below(400);
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        must_not_panic(&String::from_utf8_lossy(&bytes));
    }
    report(TARGET);
}

const VOCABULARY: &[&str] = &[
    "void",
    "f",
    "(",
    ")",
    "float",
    "double",
    "int",
    "const",
    "A",
    "B",
    "x",
    "n",
    "N",
    "i",
    "j",
    "k",
    "[",
    "]",
    "{",
    "}",
    "for",
    "if",
    "else",
    "=",
    "+=",
    "-=",
    "*=",
    "/=",
    ";",
    ",",
    "<",
    "<=",
    ">",
    ">=",
    "==",
    "!=",
    "++",
    "--",
    "+",
    "-",
    "*",
    "/",
    "%",
    "?",
    ":",
    "&&",
    "||",
    "!",
    "0",
    "1",
    "2",
    "10",
    "1.5f",
    "min",
    "max",
    "sqrtf",
    "while",
    "return",
    "&",
    "->",
    ".",
    "\n#pragma scop\n",
    "\n#pragma endscop\n",
    "\n#define N 8\n",
    "\n#define F(a) a*a\n",
    "F",
    "unsigned",
    "long",
    "struct",
    "\"s\"",
    "'c'",
    "/*",
    "*/",
    "//",
    "#",
    "\\",
    "\n",
];

#[test]
fn random_token_sequences() {
    let mut rng = Rng::for_test(0x0123_4567_89AB_CDEF);
    for _ in 0..scaled(1000) {
        let len = 1 + rng.below(150);
        let words: Vec<&str> = (0..len)
            .map(|_| VOCABULARY[rng.below(VOCABULARY.len())])
            .collect();
        must_not_panic(&words.join(" "));
    }
    report(TARGET);
}

#[test]
fn mutations_of_real_kernels() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testsuite");
    let mut kernels = Vec::new();
    for dir in ["deps", "frontend/accept"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap().flatten() {
            if entry.path().extension().is_some_and(|e| e == "c") {
                kernels.push(std::fs::read_to_string(entry.path()).unwrap());
            }
        }
    }
    let mut rng = Rng::for_test(0xDEAD_BEEF_CAFE_F00D);
    let mut analysed = 0;
    for _ in 0..scaled(1000) {
        let mut text: Vec<char> = kernels[rng.below(kernels.len())].chars().collect();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(text.len() + 1);
            match rng.below(3) {
                0 => {
                    let end = (at + 1 + rng.below(8)).min(text.len());
                    text.drain(at.min(end)..end);
                }
                1 => {
                    let word = VOCABULARY[rng.below(VOCABULARY.len())];
                    for (k, c) in word.chars().enumerate() {
                        text.insert(at + k, c);
                    }
                }
                _ => {
                    let end = (at + 1 + rng.below(20)).min(text.len());
                    let piece: Vec<char> = text[at.min(end)..end].to_vec();
                    for (k, c) in piece.into_iter().enumerate() {
                        text.insert(at + k, c);
                    }
                }
            }
        }
        if must_not_panic(&text.iter().collect::<String>()) == Stage::Analysed {
            analysed += 1;
        }
    }
    // The mutations must also reach the later stages, not only the parser.
    assert!(
        analysed > 50,
        "only {analysed} mutants reached the dependence analysis"
    );
    report(TARGET);
}

fn in_function(body: &str) -> String {
    format!("void f(int n, float A[10], float B[10][10]) {{\n{body}\n}}\n")
}

#[test]
fn absurd_nesting_is_refused_not_a_crash() {
    let deep_loops: String = (0..10_000)
        .map(|k| format!("for (int i{k} = 0; i{k} < 2; i{k}++) "))
        .collect();
    let cases = [
        in_function(&format!("{deep_loops} A[0] = 1;")),
        in_function(&format!(
            "A[0] = {}1{};",
            "(".repeat(100_000),
            ")".repeat(100_000)
        )),
        in_function(&format!("A[0] = {}1;", "1 + ".repeat(100_000))),
        in_function(&format!("A[0] = {}1;", "-".repeat(100_000))),
        in_function(&format!(
            "{}A[0] = 1;{}",
            "{".repeat(100_000),
            "}".repeat(100_000)
        )),
        in_function(&format!("{}A[0] = 1;", "if (n > 0) ".repeat(50_000))),
        "{".repeat(200_000),
        format!("void f() {{ {} }}", "(".repeat(300_000)),
    ];
    for text in &cases {
        assert_eq!(
            must_not_panic(text),
            Stage::Refused,
            "{}",
            &text[..200.min(text.len())]
        );
    }
}

#[test]
fn exponential_expansions_are_refused() {
    // Macros that double at every level: 2^40 tokens if expanded.
    let mut text: String = (1..40)
        .map(|k| format!("#define M{k} M{} + M{}\n", k - 1, k - 1))
        .collect();
    text.push_str("#define M0 1\n");
    text.push_str(&in_function("A[0] = M39;"));
    assert_ne!(must_not_panic(&text), Stage::Analysed);
    // Nested min: 2^20 cases if split naively.
    let mut bound = "n".to_string();
    for _ in 0..20 {
        bound = format!("min({bound}, {bound})");
    }
    let text = in_function(&format!("for (int i = 0; i < {bound}; i++) A[0] = 1;"));
    assert_ne!(must_not_panic(&text), Stage::Analysed);
    // Conjunctions of disjunctions: 2^40 conjunctions in disjunctive normal form.
    let cond: Vec<String> = (0..40).map(|k| format!("(n > {k} || n < -{k})")).collect();
    let text = in_function(&format!(
        "for (int i = 0; i < 10; i++) if ({}) A[i] = 1;",
        cond.join(" && ")
    ));
    assert_ne!(must_not_panic(&text), Stage::Analysed);
}

#[test]
fn a_megabyte_of_noise() {
    let mut rng = Rng::seeded(42);
    let text: String = (0..1_000_000)
        .map(|_| (32 + rng.below(95)) as u8 as char)
        .collect();
    must_not_panic(&text);
}
