//! The CPU runtime's front door (`gpucc::verify::rewrite`: the text surgery that makes any
//! `.cu` run on gpucc's CPU runtime) must not panic on any text: random bytes, token soups
//! of CUDA words, and mutations of the testsuite's `.cu` snapshots and of the hand-written
//! `.cu` files of `testsuite/verify/`. Where it succeeds, the lines are kept (a compiler's
//! message about the rewritten text points at the `.cu`'s line).
//!
//! Deterministic: xorshift with fixed seeds. `GPUCC_FUZZ_SCALE=N` runs N times as many
//! inputs; `GPUCC_FUZZ_SEED=S` offsets the seeds (a failure prints its input, so it can be
//! replayed by hand).

use crate::fuzzing::{report, scaled, timed, Rng};
use gpucc::verify::rewrite::{
    array_param, instrument, kernel_has_barriers, prepare_for_cpu, rewrite_launches, split_params,
    Code,
};
use gpucc::verify::shared::shared_declarations;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// The name `scripts/fuzz` reads this target's figures by.
const TARGET: &str = "runtime fuzzer";

fn newlines(text: &str) -> usize {
    text.bytes().filter(|&b| b == b'\n').count()
}

/// Every entry of the front door on `text`; panics (with the input) if one panics, or if a
/// rewriting that succeeds changes the number of lines.
fn must_not_panic(text: &str) -> bool {
    timed(TARGET, || rewrite_must_not_panic(text))
}

fn rewrite_must_not_panic(text: &str) -> bool {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let launches = rewrite_launches(text);
        let instrumented = instrument(text);
        let prepared = prepare_for_cpu(text);
        for out in [&launches, &instrumented, &prepared].into_iter().flatten() {
            assert_eq!(newlines(out), newlines(text), "lines changed:\n{out}");
        }
        let _ = split_params(text);
        let _ = array_param(text);
        if let Ok(body) = shared_declarations(text, &mut Vec::new()) {
            assert_eq!(newlines(&body), newlines(text), "lines changed:\n{body}");
        }
        let _ = kernel_has_barriers(text, "k");
        let code = Code::new(text);
        for (k, b) in text.bytes().enumerate().take(64) {
            if b == b'(' || b == b'{' {
                let _ = code.matching(k, b, if b == b'(' { b')' } else { b'}' });
            }
        }
        let _ = code.find("<<<", 0);
        prepared.is_ok()
    }));
    match result {
        Ok(prepared) => prepared,
        Err(_) => panic!("the CPU runtime's rewriting panicked on this input:\n{text:?}"),
    }
}

#[test]
fn random_bytes() {
    let mut rng = Rng::for_test(0x5EED_0001_D00D_F00D);
    for _ in 0..scaled(2000) {
        let len = rng.below(300);
        // Mostly printable, with the bytes that matter to the rewriting and some UTF-8.
        let bytes: Vec<u8> = (0..len)
            .map(|_| match rng.below(8) {
                0 => b"<>(){}[];,*\"'/\\\n"[rng.below(16)],
                1 => rng.next() as u8,
                _ => 32 + rng.below(95) as u8,
            })
            .collect();
        must_not_panic(&String::from_utf8_lossy(&bytes));
    }
    report(TARGET);
}

const VOCABULARY: &[&str] = &[
    "__global__",
    "void",
    "k",
    "kernel",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "<<<",
    ">>>",
    "<",
    ">",
    ",",
    ";",
    "*",
    "&",
    "float",
    "const",
    "__restrict__",
    "A",
    "B",
    "n",
    "16",
    "0",
    "dim3",
    "__shared__",
    "extern",
    "__syncthreads();",
    "__shfl_down_sync",
    "__launch_bounds__",
    "(*",
    "(&",
    "reinterpret_cast<",
    ">(",
    "A + 16",
    "[]",
    "=",
    "+=",
    "\"",
    "'",
    "\"<<<\"",
    "'}'",
    "/*",
    "*/",
    "//",
    "\n",
    "#define",
    "é",
    "∑",
];

#[test]
fn token_soups() {
    let mut rng = Rng::for_test(0x5EED_0002_CAFE_BABE);
    let mut prepared = 0;
    for _ in 0..scaled(3000) {
        let len = 1 + rng.below(60);
        let words: Vec<&str> = (0..len)
            .map(|_| VOCABULARY[rng.below(VOCABULARY.len())])
            .collect();
        let sep = if rng.below(2) == 0 { " " } else { "" };
        if must_not_panic(&words.join(sep)) {
            prepared += 1;
        }
    }
    assert!(
        prepared > 0,
        "no soup was ever prepared: the fuzzing reaches nothing"
    );
    report(TARGET);
}

/// The `.cu` texts of the testsuite: the snapshots of generated code and the hand-written
/// files (each must be prepared as it is).
fn real_cuda() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testsuite");
    let mut files = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let name = path.to_string_lossy().to_string();
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            if name.ends_with(".cu") {
                files.push((name, text));
            } else if name.ends_with(".snap") && text.contains("__global__") {
                // The snapshot's body, after its `---` header.
                let body = text.splitn(3, "---\n").nth(2).unwrap_or(&text);
                files.push((name, body.to_string()));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn the_testsuites_cuda_is_prepared_as_it_is() {
    let files = real_cuda();
    assert!(files.len() > 10, "only {} .cu files found", files.len());
    for (name, text) in &files {
        if let Err(why) = prepare_for_cpu(text) {
            panic!("{name}: {why}");
        }
        assert!(must_not_panic(text));
    }
}

#[test]
fn mutations_of_real_cuda() {
    let files = real_cuda();
    let mut rng = Rng::for_test(0x5EED_0003_DEAD_BEEF);
    let mut prepared = 0;
    let total = scaled(1500);
    for _ in 0..total {
        let (_, text) = &files[rng.below(files.len())];
        let mut text: Vec<char> = text.chars().collect();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(text.len() + 1);
            match rng.below(4) {
                0 => {
                    let end = (at + 1 + rng.below(12)).min(text.len());
                    text.drain(at.min(end)..end);
                }
                1 => {
                    let word = VOCABULARY[rng.below(VOCABULARY.len())];
                    for (k, c) in word.chars().enumerate() {
                        text.insert(at + k, c);
                    }
                }
                2 => {
                    // A bracket or quote alone, where it hurts most.
                    let c = ['(', ')', '{', '}', '"', '\'', '<', '>', ';', ','][rng.below(10)];
                    text.insert(at, c);
                }
                _ => {
                    let end = (at + 1 + rng.below(40)).min(text.len());
                    let piece: Vec<char> = text[at.min(end)..end].to_vec();
                    for (k, c) in piece.into_iter().enumerate() {
                        text.insert(at + k, c);
                    }
                }
            }
        }
        if must_not_panic(&text.iter().collect::<String>()) {
            prepared += 1;
        }
    }
    // Mutants must reach the rewriting's far end too, not only its first refusal.
    assert!(
        prepared > total / 10,
        "only {prepared} of {total} mutants were prepared"
    );
    report(TARGET);
}
