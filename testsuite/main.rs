//! gpucc's testsuite. Inputs are files under `testsuite/<stage>/`; expected outputs are
//! insta snapshots under `testsuite/<stage>/snapshots/`, written on purpose
//! (`INSTA_UPDATE=always cargo test`, then review the diff) and never by CI.
//!
//! A case file may start with `// gpucc-args: ...`: the options gpucc runs it with.

mod advise_cases;
mod calibration_cases;
mod cli_cases;
mod cuda_cases;
mod deps_cases;
mod emulate_cases;
mod frontend_cases;
mod fuzz_nests;
mod fuzz_options;
mod fuzz_recipe;
mod fuzz_runtime;
mod fuzzing;
mod hand_checked;
mod harness;
mod project_cases;
mod recipe_cases;
mod reliability_cases;
mod robustness;
mod strategy_cases;
mod tune_cases;
mod verify_cases;
mod verify_failures;
