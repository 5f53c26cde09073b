//! gpucc's testsuite. Inputs are files under `testsuite/<stage>/`; expected outputs are
//! insta snapshots under `testsuite/<stage>/snapshots/`, written on purpose
//! (`INSTA_UPDATE=always cargo test`, then review the diff) and never by CI.
//!
//! insta keeps one process-wide list of the `glob!` runs under way, so a snapshot that
//! differs in a test running beside a `glob!` test is counted as that test's failure
//! ("glob! resulted in N snapshot assertion failures" in `cuda_cases`, say, for a report
//! of `emulate_cases`): run with `INSTA_UPDATE=new` and look for the `.snap.new` files.
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
