//! The check on files that used to break it, and checks that cannot conclude, each said
//! as whose fault it is (`CheckFailure`): the original's (it does not compile, crashes, runs
//! past the time limit, or cannot be called), or the generated code's. The cases are the
//! C files of `testsuite/verify/check/` and mutants of `testsuite/verify/matmul_tiled.cu`.

use crate::harness::{
    case_args, frontend_options, gpucc_on, programs_with, relative, scratch_path,
};
use gpucc::limits::Limits;
use gpucc::verify::{check_on_cpu, CheckError, CheckFailure, CheckOptions, Outcome, SourceAt};
use std::path::{Path, PathBuf};

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testsuite/verify/check")
        .join(name)
}

/// The case's CUDA as gpucc compiles it, not checked.
fn compiled(path: &Path) -> String {
    let out = scratch_path("check.cu");
    let (code, _, err) = gpucc_on(
        "compile",
        path,
        &["--no-verify", "-o", out.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{}: {err}", relative(path));
    let cu = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    cu
}

/// Checks `cu` against the C file `path` on the CPU with `limits`.
fn check_with(path: &Path, cu: &str, limits: Limits) -> Result<Outcome, CheckError> {
    let args = case_args(path);
    let opts = frontend_options(&args);
    let program = programs_with(path, &args).remove(0);
    let c_file = PathBuf::from(relative(path));
    let options = CheckOptions {
        c_file: &c_file,
        defines: &opts.defines,
        include_dirs: &opts.include_dirs,
        sizes: &[],
        diagonally_dominant: false,
        links: &[],
    };
    gpucc::limits::with(limits, || check_on_cpu(&program, cu, &options))
}

fn check(path: &Path, cu: &str) -> Result<Outcome, CheckError> {
    check_with(path, cu, Limits::default())
}

fn passes(name: &str) {
    let path = case(name);
    match check(&path, &compiled(&path)) {
        Ok(outcome) => assert!(outcome.passed(), "{name}: {outcome:?}"),
        Err(e) => panic!("{name}: {:?}: {e}", e.kind),
    }
}

/// `min`/`max` (and `MIN`, `imax`, ...) as gpucc reads them are defined for the original
/// where the file has none (it failed to link); a file's own macros or functions stay.
#[test]
fn min_and_max_are_defined_for_the_original_only_where_it_has_none() {
    for name in ["minmax_builtin.c", "minmax_macro.c", "minmax_function.c"] {
        passes(name);
    }
}

/// A `static` or `inline` compiled function (undefined references before), and one beside
/// globals, a static helper and `main` (defined twice before).
#[test]
fn static_and_inline_functions_and_globals_beside_main_are_checked() {
    for name in [
        "static_function.c",
        "inline_function.c",
        "function_beside_main.c",
    ] {
        passes(name);
    }
}

/// A region in a file without `main` is checked through the function around it (the
/// check's link failed before), or, where its parameters cannot be made, the check says
/// how to check it.
/// GCC 12.2 at -O1 miscompiles the original (it dropped the function's stores): the
/// check compiles both programs without the optimisation at fault, and calls the function
/// so that the compiler cannot reason about it from the call.
#[test]
fn an_original_the_c_compiler_miscompiles_at_o1_is_checked_right() {
    for name in [
        "call_the_compiler_dropped.c",
        "region_the_compiler_dropped.c",
    ] {
        passes(name);
    }
}

#[test]
fn a_region_without_main_is_checked_through_its_function() {
    let path = case("region_without_main.c");
    match check(&path, &compiled(&path)) {
        Ok(Outcome::Arrays(compared)) => {
            assert_eq!(compared.len(), 1, "{compared:?}");
            assert_eq!(
                (compared[0].array.as_str(), compared[0].elements),
                ("A", 64)
            );
            assert_eq!(compared[0].first_mismatch, None);
        }
        other => panic!("{other:?}"),
    }
    let path = case("region_without_main_pointer.c");
    let e = check(&path, &compiled(&path)).unwrap_err();
    assert_eq!(e.kind, CheckFailure::CannotDrive, "{e}");
    assert!(
        e.message
            .contains("cannot call `shift`: its parameter `scratch`"),
        "{e}"
    );
    let hint = e.hint.unwrap_or_default();
    assert!(
        hint.contains("`main`") && hint.contains("--function shift"),
        "{hint}"
    );
}

/// A program that runs for ever is stopped at `check-seconds`, and the error names the
/// limit and how to raise it (the check never ended before).
#[test]
fn a_check_past_its_time_limit_is_stopped_and_says_how_to_raise_it() {
    let path = case("endless_original.c");
    let limits = Limits {
        check_seconds: 1,
        ..Limits::default()
    };
    let e = check_with(&path, &compiled(&path), limits).unwrap_err();
    assert_eq!(e.kind, CheckFailure::TimeLimit, "{e}");
    assert!(
        e.message
            .starts_with("the original program reached the limit `check-seconds` (1 "),
        "{e}"
    );
    assert!(
        e.hint
            .as_deref()
            .unwrap_or_default()
            .contains("--limit check-seconds=N"),
        "{e}"
    );
}

fn matmul_tiled() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testsuite/verify/matmul_tiled.cu"),
    )
    .unwrap()
}

fn matmul() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testsuite/verify/matmul.c")
}

/// A mutant of the hand-written `.cu`: `from` replaced by `to` (which must be there).
fn mutant(from: &str, to: &str) -> String {
    let good = matmul_tiled();
    assert!(
        good.contains(from),
        "matmul_tiled.cu no longer holds `{from}`"
    );
    good.replacen(from, to, 1)
}

/// A crash is said as the crash of the program it is (the original's was "failed
/// (signal: 11)" and counted against gpucc).
#[test]
fn crashes_are_said_to_be_the_originals_or_the_generated_codes() {
    let path = case("original_crashes.c");
    let e = check(&path, &compiled(&path)).unwrap_err();
    assert_eq!(e.kind, CheckFailure::OriginalFailed, "{e}");
    assert!(
        e.message
            .starts_with("the original program crashed: segmentation fault"),
        "{e}"
    );
    let cu = mutant(
        "#include <cstdlib>\n",
        "#include <cstdlib>\n#include <csignal>\n",
    );
    let cu = cu.replacen("  CHECK(cudaFree(dA));", "  raise(SIGSEGV);", 1);
    let e = check(&matmul(), &cu).unwrap_err();
    assert_eq!(e.kind, CheckFailure::GeneratedFailed, "{e}");
    assert!(
        e.message
            .starts_with("the generated program crashed: segmentation fault"),
        "{e}"
    );
}

/// Text outside the compiled code that is not C: the original does not compile, said with
/// the C compiler's first error at the user's file, line and column (before: the scratch
/// copy's path, and "a bug in gpucc").
#[test]
fn an_original_that_does_not_compile_is_the_originals_fault() {
    let path = case("original_does_not_compile.c");
    // gpucc itself refuses to compile the file (testsuite/reliability/
    // text_outside_is_not_c.c); the check is given no CUDA, and fails at the original.
    let e = check(&path, "").unwrap_err();
    assert_eq!(e.kind, CheckFailure::OriginalDoesNotCompile, "{e}");
    let file = relative(&path);
    assert!(
        e.message.contains(&format!(
            "{file}:4:1: error: unknown type name 'this'\n    4 | this is not C at all;"
        )),
        "{e}"
    );
    assert_eq!(
        e.at,
        Some(SourceAt {
            file,
            line: 4,
            column: 1
        })
    );
}

/// Generated code that does not compile is the generated code's fault, and the compiler's
/// error points at the `.cu`'s own line (the rewriting for the CPU keeps lines).
#[test]
fn generated_code_that_does_not_compile_is_named_by_its_own_lines() {
    let cu = mutant(
        "      sum += As[threadIdx.y][k] * Bs[k][threadIdx.x];",
        "      sum += undeclared;",
    );
    let line = 1 + cu[..cu.find("undeclared").unwrap()].matches('\n').count();
    let e = check(&matmul(), &cu).unwrap_err();
    assert_eq!(e.kind, CheckFailure::GeneratedDoesNotCompile, "{e}");
    assert!(
        e.message.contains(&format!(
            "generated.cu:{line}:14: error: 'undeclared' was not declared"
        )),
        "{e}"
    );
}

/// The CPU runtime refuses what a GPU refuses: a block of 2048 threads, and 64 KB of
/// dynamic shared memory without the kernel's limit raised first.
#[test]
fn launches_the_runtime_cannot_run_are_said() {
    let too_big = mutant(
        "dim3(N / TILE, N / TILE), dim3(TILE, TILE)",
        "dim3(N / TILE, N / TILE), dim3(64, 32)",
    );
    let e = check(&matmul(), &too_big).unwrap_err();
    assert_eq!(e.kind, CheckFailure::GeneratedFailed, "{e}");
    assert!(e.message.contains("is one a GPU refuses"), "{e}");
    let dynamic = mutant("dim3(TILE, TILE)>>>", "dim3(TILE, TILE), 65536>>>");
    let e = check(&matmul(), &dynamic).unwrap_err();
    assert_eq!(e.kind, CheckFailure::GeneratedFailed, "{e}");
    assert!(
        e.message.contains(
            "the launch of matmul_tiled asks for 65536 bytes of dynamic shared memory, which a GPU refuses"
        ),
        "{e}"
    );
}
