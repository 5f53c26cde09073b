//! The command line's front door: random argument lists made of gpucc's own vocabulary
//! (commands, options, values that are right, wrong, empty, huge or not ASCII) run through
//! `gpucc::cli::run` as a user's shell would pass them. None may panic; each must end
//! with an exit code of the README's table other than 3 (the inputs are correct C and
//! recipes, so gpucc's own output is never at fault), and a failure must say why on
//! standard error. A tiny kernel keeps the runs that do compile cheap.
//!
//! `GPUCC_FUZZ_SCALE=N` runs N times as many argument lists, `GPUCC_FUZZ_SEED=S` others.

use crate::fuzzing::{scaled, Rng};
use crate::harness::scratch_path;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The argument lists of one run at scale 1.
const LISTS: usize = 300;

const COMMANDS: &[&str] = &["compile", "deps", "verify", "strategies", "emulate", "help"];

const OPTIONS: &[&str] = &[
    "-o",
    "--recipe",
    "-P",
    "-D",
    "-I",
    "--function",
    "--size",
    "--limit",
    "--device",
    "--verify",
    "--no-verify",
    "--verify-size",
    "--explain",
    "--json",
    "--input",
    "--help",
    "--version",
    "-h",
    "-V",
    "--",
    "-",
    "--no-such-option",
    "-Z",
];

const VALUES: &[&str] = &[
    "",
    " ",
    "=",
    "N",
    "N=",
    "=4",
    "N=4",
    "N=0x10",
    "N=010",
    "N=4u",
    " N = 8 ",
    "N=-1",
    "N=0",
    "N=99999999999999999999999",
    "N=1e3",
    "TX=32",
    "TX=abc",
    "n=16",
    "h100",
    "a100",
    "v100",
    "no-such-gpu",
    "reduced",
    "full",
    "7",
    "0",
    "-3",
    "recipe-steps=1000",
    "nest-depth=1",
    "statements=0",
    "check-seconds=1",
    "isl-operations=1",
    "no-such-limit=5",
    "scale",
    "main",
    "é",
    "∑=1",
    "/no/such/file.c",
    "/",
];

/// The files a list may name: the kernel, its recipe, and scratch outputs.
struct Files {
    kernel: String,
    recipe: String,
    outputs: Vec<String>,
}

impl Files {
    fn new() -> Files {
        let kernel = scratch_path("opts.c");
        std::fs::write(
            &kernel,
            "#define N 8\nvoid scale(int n, float A[N])\n{\n  for (int i = 0; i < N; i++)\n    A[i] = 2 * A[i];\n}\n",
        )
        .unwrap();
        let recipe = scratch_path("opts.lua");
        std::fs::write(
            &recipe,
            "TX = param(\"TX\", {4, 8}, 8)\ntile_by_index({\"i\"}, {TX}, {l1_control=\"ii\"}, {\"ii\", \"i\"})\ncudaize(\"scale_kernel\", {}, {block={\"ii\"}, thread={\"i\"}})\n",
        )
        .unwrap();
        Files {
            kernel: kernel.display().to_string(),
            recipe: recipe.display().to_string(),
            outputs: (0..3)
                .map(|k| {
                    scratch_path(&format!("opts-out{k}.cu"))
                        .display()
                        .to_string()
                })
                .collect(),
        }
    }

    fn word(&self, rng: &mut Rng) -> String {
        match rng.below(12) {
            0..=2 => self.kernel.clone(),
            3 => self.recipe.clone(),
            4 => self.outputs[rng.below(self.outputs.len())].clone(),
            5..=7 => rng.pick(OPTIONS).to_string(),
            8 => rng.pick(COMMANDS).to_string(),
            _ => rng.pick(VALUES).to_string(),
        }
    }

    /// An argument list: mostly a command, a file and options with values, sometimes noise.
    fn list(&self, rng: &mut Rng) -> Vec<String> {
        let mut args = Vec::new();
        if !rng.chance(4) {
            args.push(rng.pick(COMMANDS).to_string());
        }
        if !rng.chance(5) {
            args.push(self.kernel.clone());
        }
        for _ in 0..rng.below(7) {
            if rng.chance(2) {
                args.push(rng.pick(OPTIONS).to_string());
            }
            args.push(self.word(rng));
        }
        // What `-o` names is written: a relative name goes to the scratch directory, not
        // to the directory the tests run in (a long campaign left `=4` in the checkout).
        for k in 1..args.len() {
            if args[k - 1] == "-o" && !args[k].is_empty() && !args[k].starts_with(['/', '-']) {
                args[k] = scratch_path(&args[k]).display().to_string();
            }
        }
        args
    }
}

#[test]
fn random_command_lines_end_with_a_documented_exit_code_and_a_reason() {
    let files = Files::new();
    let mut rng = Rng::for_test(0x0F71_0A5E_0000_0001);
    let mut by_code = std::collections::BTreeMap::new();
    for _ in 0..scaled(LISTS) {
        let args = files.list(&mut rng);
        let result = catch_unwind(AssertUnwindSafe(|| crate::harness::gpucc(&args)));
        let Ok((code, _out, err)) = result else {
            panic!("gpucc panicked on the command line {args:?}");
        };
        assert!(
            [0, 1, 2, 4].contains(&code),
            "exit {code} for {args:?}:\n{err}"
        );
        assert!(
            code == 0 || !err.trim().is_empty(),
            "exit {code} without a word on standard error for {args:?}"
        );
        *by_code.entry(code).or_insert(0) += 1;
    }
    // The kernel is never overwritten, whatever `-o` names (its compile's own output).
    let kernel = std::fs::read_to_string(&files.kernel).unwrap();
    assert!(
        kernel.starts_with("#define N 8"),
        "the kernel was overwritten:\n{kernel}"
    );
    println!("option fuzzer: exit codes {by_code:?}");
    // Every kind of outcome is reached, or the lists are too narrow to test much.
    for code in [0, 1, 2] {
        assert!(
            by_code.contains_key(&code),
            "no list exited {code}: {by_code:?}"
        );
    }
}
