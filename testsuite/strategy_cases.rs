//! The strategy stage on the kernels of `testsuite/deps/`: the recipe gpucc writes for
//! each (or why it writes none) is a snapshot, and the `.cu` that recipe makes must
//! compute what the C computes.

use crate::harness::{case_args, case_files, compile_case, programs, relative, verify_cases};

#[test]
fn phase1_recipes() {
    insta::with_settings!({snapshot_path => "strategy/snapshots", prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::glob!("deps/*.c", |path| {
            let program = programs(path).remove(0);
            let deps = gpucc::deps::analyze(&program).unwrap();
            let text = match gpucc::strategy::partition(&program, &deps) {
                Ok(s) => s.recipe,
                Err(why) => format!("no recipe: {why}\n"),
            };
            insta::assert_snapshot!(text);
        });
    });
}

#[test]
fn phase1_outputs_compute_what_the_c_computes() {
    // Kernels without a Phase I recipe (their snapshot says why), and the whole programs
    // whose copied-through `main` is C that C++ (hence nvcc) refuses: `float *a =
    // malloc(...)` needs a cast in C++.
    let skipped = [
        "dot.c",
        "gauss_seidel.c",
        "trisolve.c",
        "mriq.c",
        "covariance.c",
    ];
    let cases: Vec<_> = case_files("deps", "c")
        .into_iter()
        .filter(|p| !skipped.contains(&p.file_name().unwrap().to_str().unwrap()))
        .collect();
    assert!(cases.len() >= 15, "{} cases", cases.len());
    verify_cases(&cases, |path| {
        let cu = compile_case(path);
        assert!(cu.contains("(written by gpucc)"), "{}", relative(path));
        Ok((path.to_path_buf(), case_args(path), cu))
    });
}
