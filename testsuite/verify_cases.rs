//! `gpucc verify` as a user runs it: a correct `.cu` passes, and deliberately broken
//! variants of it (mutants) are each rejected, every time; a missing barrier is reported
//! as the race it is.

use crate::harness::{compile_case, gpucc, scratch_path};
use std::path::Path;

const CASE: &str = "testsuite/cuda/sgemm_100.c";

/// The SGEMM recipe's `.cu` at N = 100 (tiles of 64 x 16 and k tiles of 16 do not divide it).
fn sgemm_100() -> String {
    compile_case(&Path::new(env!("CARGO_MANIFEST_DIR")).join(CASE))
}

/// `cu` checked in this process against the SGEMM case at N = 100, on `on`.
fn check_sgemm_100(
    cu: &str,
    on: &gpucc::verify::On,
) -> Result<gpucc::verify::Checked, gpucc::verify::CheckError> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(CASE);
    let args = vec!["-D".to_string(), "N=100".to_string()];
    let program = crate::harness::programs_with(&path, &args).remove(0);
    let opts = crate::harness::frontend_options(&args);
    let check = gpucc::verify::CheckOptions {
        c_file: &path,
        defines: &opts.defines,
        include_dirs: &opts.include_dirs,
        sizes: &[],
        diagonally_dominant: false,
        links: &[],
    };
    gpucc::verify::check(&program, cu, &check, on)
}

fn verify(cu: &str, name: &str) -> (i32, String, String) {
    verify_against(CASE, cu, name, &["-D", "N=100"])
}

/// `gpucc verify C_FILE X.cu EXTRA...` on the text `cu`, written to a scratch `name`.
fn verify_against(c_file: &str, cu: &str, name: &str, extra: &[&str]) -> (i32, String, String) {
    let path = scratch_path(name);
    std::fs::write(&path, cu).unwrap();
    let mut args: Vec<String> = ["verify", c_file, path.to_str().unwrap()]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    let result = gpucc(&args);
    let _ = std::fs::remove_file(&path);
    result
}

/// A hand-written `.cu` of `testsuite/verify/`.
fn verify_case(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testsuite/verify")
            .join(name),
    )
    .unwrap()
}

/// `gpucc verify` of the text `cu` against the row sums of `testsuite/verify/rowsum.c`.
fn rowsum_check(cu: &str, name: &str) -> (i32, String, String) {
    verify_against("testsuite/verify/rowsum.c", cu, name, &[])
}

/// `cu` (`name`) verifies against the row sums, and the mutant with the first `from`
/// replaced by `to` (`mutant`) fails its check (exit 1): the mutant's output and errors.
fn rowsum_mutant_fails(
    cu: &str,
    name: &str,
    from: &str,
    to: &str,
    mutant: &str,
) -> (String, String) {
    let (code, out, err) = rowsum_check(cu, name);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("verified"), "{out}{err}");
    assert!(cu.contains(from), "{name} has no `{from}`");
    let (code, out, err) = rowsum_check(&cu.replacen(from, to, 1), mutant);
    assert_eq!(code, 1, "{out}{err}");
    (out, err)
}

#[test]
fn the_generated_file_verifies() {
    let (code, out, err) = verify(&sgemm_100(), "sgemm_100.cu");
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("  C  10000 elements") && out.contains("verified"),
        "{out}"
    );
}

/// Each mutant replaces the first occurrence of a piece of the `.cu`.
#[test]
fn every_mutant_is_rejected() {
    let good = sgemm_100();
    let mutants = [
        (
            "off-by-one loop bound",
            "for (int kk = 0; kk < 7; kk++)",
            "for (int kk = 0; kk < 6; kk++)",
        ),
        (
            "wrong subscript",
            "C_reg[0] += A_shared[4 * ty][1]",
            "C_reg[0] += A_shared[4 * ty][2]",
        ),
        ("missing barrier", "    __syncthreads();\n", ""),
        (
            "wrong remainder guard",
            "if (16 * jj + tx < 100 && ty + 16 * kk < 100)",
            "if (16 * jj + tx < 100 && ty + 16 * kk < 96)",
        ),
        ("two arrays swapped", "(d_A, d_B, d_C)", "(d_B, d_A, d_C)"),
    ];
    for (what, from, to) in mutants {
        assert!(
            good.contains(from),
            "{what}: the .cu no longer holds `{from}`; update the mutant"
        );
        let bad = good.replacen(from, to, 1);
        let (code, out, err) = verify(&bad, &format!("{}.cu", what.replace(' ', "_")));
        assert_eq!(code, 1, "{what}: not rejected\n{out}{err}");
        let expected = if what == "missing barrier" {
            "NOT verified: data race in kernel sgemm_kernel on A_shared["
        } else {
            "DIFFERENT, first at C["
        };
        assert!(out.contains(expected), "{what}:\n{out}{err}");
    }
}

#[test]
fn a_file_that_does_not_compile_is_not_verified() {
    let (code, _, err) = verify("this is not CUDA", "garbage.cu");
    assert_eq!(code, 1);
    assert!(err.contains("the check could not run"), "{err}");
}

#[test]
fn verify_usage_errors() {
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    // Neither a .cu nor a recipe.
    let (code, _, err) = gpucc(&args(&["verify", CASE]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--recipe"), "{err}");
    // Both.
    let (code, _, _) = gpucc(&args(&[
        "verify",
        CASE,
        "x.cu",
        "--recipe",
        "recipes/sgemm.lua",
    ]));
    assert_eq!(code, 2);
    // A size the code does not have.
    let (code, _, err) = gpucc(&args(&[
        "verify",
        CASE,
        "--recipe",
        "recipes/sgemm.lua",
        "--size",
        "m=10",
    ]));
    assert_eq!(code, 2);
    assert!(
        err.contains("not a size parameter") && err.contains("no sizes known only at run time"),
        "{err}"
    );
}

#[test]
fn verify_with_a_recipe_compiles_and_checks_at_chosen_sizes() {
    let args: Vec<String> = [
        "verify",
        "testsuite/cuda/matvec.c",
        "--recipe",
        "recipes/matvec.lua",
        "--size",
        "m=45",
        "--size",
        "n=77",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let (code, out, err) = gpucc(&args);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("  y  45 elements"), "{out}");
}

/// A float sum of 16384 products split over a block's threads differs from the C's
/// sequential sum by more than the fixed tolerance of 1e-4 (1.4e-4 here; an SGEMV on an
/// H200 at 16384^2: 1.65e-4), and within the rounding bound of a sum of that length.
#[test]
fn a_long_float_sum_in_another_order_is_held_to_its_rounding_bound() {
    let args: Vec<String> = [
        "verify",
        "benchmarks/vendor/sgemv.c",
        "--recipe",
        "recipes/matvec_rows.lua",
        "-D",
        "M=64",
        "-D",
        "N=16384",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let (code, out, err) = gpucc(&args);
    assert_eq!(code, 0, "{out}{err}");
    let error: f64 = out
        .split("max relative error ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("no error figure in {out}"));
    assert!(error > 1e-4 && error < 2e-3, "{out}");
    assert!(
        out.contains("  y  64 elements") && out.contains("same"),
        "{out}"
    );
}

/// The hand-written tiled matrix product of `testsuite/verify/`: it verifies; without
/// either of its barriers, or with blocks writing one another's elements, it is a race.
#[test]
fn races_in_a_hand_written_kernel_are_reported() {
    let good = verify_case("matmul_tiled.cu");
    let check = |cu: &str, name: &str| verify_against("testsuite/verify/matmul.c", cu, name, &[]);
    let (code, out, err) = check(&good, "matmul_tiled.cu");
    assert_eq!(code, 0, "{out}{err}");
    let barrier = "    __syncthreads();\n";
    let first = good.find(barrier).expect("a first barrier");
    let second = first
        + barrier.len()
        + good[first + barrier.len()..]
            .find(barrier)
            .expect("a second barrier");
    let without = |at: usize| format!("{}{}", &good[..at], &good[at + barrier.len()..]);
    let cases = [
        (without(first), "data race in kernel matmul_tiled on As[0][1]: thread (0, 0, 0) reads it and thread (1, 0, 0) writes it in block (0, 0, 0) with no __syncthreads() between"),
        (without(second), "data race in kernel matmul_tiled on As[0][0]: thread (0, 0, 0) writes it and thread (1, 0, 0) reads it in block (0, 0, 0) with no __syncthreads() between"),
        (good.replacen("C[row * N + col] = sum;", "C[threadIdx.y * N + threadIdx.x] = sum;", 1), "data race in kernel matmul_tiled on C[0]: block (0, 0, 0) writes it and block (1, 0, 0) writes it in the same launch"),
    ];
    for (k, (cu, expected)) in cases.iter().enumerate() {
        // Twice: the report must not depend on luck.
        for _ in 0..2 {
            let (code, out, err) = check(cu, &format!("race{k}.cu"));
            assert_eq!(code, 1, "{out}{err}");
            assert!(
                out.contains(expected),
                "expected `{expected}`, got:\n{out}{err}"
            );
        }
    }
}

/// Host code as the CUDA samples write it (issue 20): `#include <cuda_runtime.h>`, typed
/// `cudaMalloc(&d, bytes)`, pinned host memory, a stream with asynchronous copies and a
/// launch on it, events, `cudaMemset`, `cudaMemcpyToSymbol` with an offset. The CPU runtime
/// takes all of it; the check verifies it, and a wrong offset is found.
#[test]
fn host_code_in_the_style_of_the_cuda_samples_is_checked() {
    // The constant lands at scale[0] instead: scale[1] stays 0 and every sum is lost.
    let (out, err) = rowsum_mutant_fails(
        &verify_case("rowsum_samples_style.cu"),
        "rowsum_samples_style.cu",
        "sizeof(float), sizeof(float), cudaMemcpyHostToDevice",
        "sizeof(float), 0, cudaMemcpyHostToDevice",
        "rowsum_samples_style_offset.cu",
    );
    assert!(out.contains("DIFFERENT"), "{out}{err}");
}

/// The warp shuffles and atomics people write by hand (issue 20): a butterfly with
/// `__shfl_xor_sync`, a broadcast with `__shfl_sync`, a scan with `__shfl_up_sync`,
/// `atomicOr` and `atomicInc`: verified; the butterfly written with `__shfl_down_sync`
/// leaves lane 7 a partial sum, and the check finds it.
#[test]
fn every_warp_shuffle_and_the_atomic_family_run_as_on_a_gpu() {
    let (out, err) = rowsum_mutant_fails(
        &verify_case("rowsum_shuffles.cu"),
        "rowsum_shuffles.cu",
        "v += __shfl_xor_sync(0xffffffffu, v, offset);",
        "v += __shfl_down_sync(0xffffffffu, v, offset);",
        "rowsum_shuffles_down.cu",
    );
    assert!(out.contains("DIFFERENT"), "{out}{err}");
}

/// Dynamic shared memory as the CUDA samples use it (`extern __shared__ float sdata[]`,
/// sized by the launch): verified; a launch that gives half the bytes is caught at the
/// first element past them, a missing barrier is the race it is, and an element no thread
/// wrote reads as a NaN (the runtime fills shared memory with 0xFF before each block), not
/// as a zero.
#[test]
fn dynamic_shared_memory_written_by_hand_is_checked() {
    let good = verify_case("rowsum_dynamic_shared.cu");
    let (out, err) = rowsum_mutant_fails(
        &good,
        "rowsum_dynamic_shared.cu",
        "<<<N, N, N * sizeof(float)>>>",
        "<<<N, N, N / 2 * sizeof(float)>>>",
        "rowsum_dynamic_shared_short.cu",
    );
    assert!(
        out.contains("NOT verified: kernel rowsum_kernel reaches bytes 128 to 131 of dynamic shared memory through sdata, but its launch gave 128 bytes"),
        "{out}{err}"
    );
    let (out, err) = rowsum_mutant_fails(
        &good,
        "rowsum_dynamic_shared.cu",
        "  __syncthreads();\n  for",
        "  for",
        "rowsum_dynamic_shared_race.cu",
    );
    assert!(
        out.contains("NOT verified: data race in kernel rowsum_kernel on sdata["),
        "{out}{err}"
    );
    let (out, err) = rowsum_mutant_fails(
        &good,
        "rowsum_dynamic_shared.cu",
        "  sdata[j] = A[",
        "  if (j > 0) sdata[j] = A[",
        "rowsum_dynamic_shared_unwritten.cu",
    );
    assert!(out.contains("DIFFERENT, first at s[0]"), "{out}{err}");
}

/// Shared memory declared at file scope, as some CUDA code does (`extern __shared__ float
/// sdata[];` before the kernels, seen by each; a static `__shared__` array beside it): the
/// check takes both (the C++ compiler refused the `extern` form: "conflicting
/// specifiers"), and finds the races on each: a missing barrier, every thread writing one
/// element.
#[test]
fn shared_memory_declared_at_file_scope_is_checked() {
    let good = verify_case("rowsum_dynamic_shared.cu")
        .replacen("  extern __shared__ float sdata[];\n", "", 1)
        .replacen(
            "__global__ void rowsum_kernel",
            "extern __shared__ float sdata[];\n__shared__ float first[1];\n\n__global__ void rowsum_kernel",
            1,
        )
        .replacen(
            "    s[blockIdx.x] += sdata[0];",
            "    first[0] = sdata[0];\n  __syncthreads();\n  if (j == 0)\n    s[blockIdx.x] += first[0];",
            1,
        );
    assert!(good.starts_with("//") && good.contains("\nextern __shared__ float sdata[];\n"));
    let (out, err) = rowsum_mutant_fails(
        &good,
        "rowsum_file_scope_shared.cu",
        "  __syncthreads();\n  for",
        "  for",
        "rowsum_file_scope_shared_race.cu",
    );
    assert!(
        out.contains("NOT verified: data race in kernel rowsum_kernel on sdata["),
        "{out}{err}"
    );
    let (out, err) = rowsum_mutant_fails(
        &good,
        "rowsum_file_scope_shared.cu",
        "  if (j == 0)\n    first[0]",
        "  first[0]",
        "rowsum_file_scope_shared_race2.cu",
    );
    assert!(
        out.contains("NOT verified: data race in kernel rowsum_kernel on first["),
        "{out}{err}"
    );
}

/// A pointer into dynamic shared memory (`float *part = &sdata[0];`, as CUDA code often
/// splits one buffer into several): its accesses are logged and checked as the array's
/// are. A missing barrier between the steps through `part` is the race it is (before,
/// the check only saw the wrong sums), and an index past the launch's bytes is said.
#[test]
fn pointers_into_dynamic_shared_memory_are_checked() {
    let good = verify_case("rowsum_dynamic_shared.cu")
        .replacen(
            "  unsigned j = threadIdx.x;\n",
            "  unsigned j = threadIdx.x;\n  float *part = &sdata[0];\n",
            1,
        )
        .replacen(
            "      sdata[j] += sdata[j + half];",
            "      part[j] += part[j + half];",
            1,
        );
    assert!(good.contains("part[j] += part[j + half];\n    __syncthreads();"));
    let (out, err) = rowsum_mutant_fails(
        &good,
        "rowsum_shared_pointer.cu",
        "part[j] += part[j + half];\n    __syncthreads();",
        "part[j] += part[j + half];",
        "rowsum_shared_pointer_race.cu",
    );
    assert!(
        out.contains("NOT verified: data race in kernel rowsum_kernel on part["),
        "{out}{err}"
    );
    let (out, err) = rowsum_mutant_fails(
        &good,
        "rowsum_shared_pointer.cu",
        "part[j + half]",
        "part[j + half + N]",
        "rowsum_shared_pointer_past.cu",
    );
    assert!(
        out.contains("of dynamic shared memory through part, but its launch gave 256 bytes"),
        "{out}{err}"
    );
}

/// Shared tiles over the 48 KB a block may declare statically (double-buffered DGEMM
/// tiles of 53,760 bytes): gpucc declares them in dynamic shared memory and raises the
/// kernel's limit before the launch. The check verifies that `.cu`, and finds what would
/// go wrong on a GPU: two tiles that overlap (a race), a launch that gives too few bytes,
/// and a launch without the raised limit (a GPU refuses it).
#[test]
fn dynamic_shared_tiles_are_checked() {
    let c_file = "testsuite/cuda/dgemm.c";
    let size = ["-D", "N=144"];
    let cu = recipe_cu(c_file, "testsuite/recipe/double_buffer_dynamic.lua", &size);
    let check = |cu: &str, name: &str| verify_against(c_file, cu, name, &size);
    let (code, out, err) = check(&cu, "dynamic_good.cu");
    assert_eq!(code, 0, "{out}{err}");
    for expected in [
        "extern __shared__ __align__(16) unsigned char gpucc_shared_memory[];",
        "double (&A_shared)[2][128][18] = *reinterpret_cast<double (*)[2][128][18]>(gpucc_shared_memory + 0);",
        "double (&B_shared)[2][16][66] = *reinterpret_cast<double (*)[2][16][66]>(gpucc_shared_memory + 36864);",
        "GPUCC_CHECK(cudaFuncSetAttribute(dgemm_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 53760));",
        "dgemm_kernel<<<dim3(2, 3), dim3(16, 16), 53760>>>(d_A, d_B, d_C);",
    ] {
        assert!(cu.contains(expected), "no `{expected}` in:\n{cu}");
    }
    let mutants = [
        (
            cu.replacen("gpucc_shared_memory + 36864", "gpucc_shared_memory + 0", 1),
            "NOT verified: data race in kernel dgemm_kernel on B_shared[",
        ),
        (
            cu.replacen("16), 53760>>>", "16), 36864>>>", 1),
            "NOT verified: kernel dgemm_kernel reaches bytes 36864 to 53759 of dynamic shared memory through B_shared, but its launch gave 36864 bytes",
        ),
        (
            cu.lines()
                .filter(|l| !l.contains("cudaFuncSetAttribute"))
                .collect::<Vec<_>>()
                .join("\n"),
            "the launch of dgemm_kernel asks for 53760 bytes of dynamic shared memory, which a GPU refuses",
        ),
    ];
    for (k, (mutant, expected)) in mutants.iter().enumerate() {
        let (code, out, err) = check(mutant, &format!("dynamic_mutant{k}.cu"));
        assert_ne!(code, 0, "{out}{err}");
        assert!(
            format!("{out}{err}").contains(expected),
            "expected `{expected}`, got:\n{out}{err}"
        );
    }
}

/// Atomics do not race; the same update as a plain `+=` does.
#[test]
fn atomics_are_not_races() {
    let (out, err) = rowsum_mutant_fails(
        &verify_case("rowsum_atomic.cu"),
        "rowsum_atomic.cu",
        "atomicAdd(&s[i], ",
        "s[i] += (",
        "rowsum_plain.cu",
    );
    assert!(
        out.contains("data race in kernel rowsum_kernel on s[0]"),
        "{out}{err}"
    );
}

/// The block reductions gpucc writes for `reduce=` (warp shuffles, then the warps' results
/// through shared memory; or a tree in shared memory) verify at a size with several blocks;
/// without a barrier they race; a shuffle that a lane of its mask never reaches stops the
/// CPU runtime, as it would hang or read garbage on a GPU; a wrong shuffle offset gives a
/// wrong sum.
#[test]
fn block_reductions_are_checked_barrier_by_barrier_and_lane_by_lane() {
    let compile = |recipe: &str| {
        let out = scratch_path("reduction.cu");
        let args: Vec<String> = [
            "testsuite/deps/dot.c",
            "--recipe",
            recipe,
            "-o",
            out.to_str().unwrap(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let (code, _, err) = gpucc(&args);
        assert_eq!(code, 0, "{err}");
        let cu = std::fs::read_to_string(&out).unwrap();
        let _ = std::fs::remove_file(&out);
        cu
    };
    let check = |cu: &str, name: &str| {
        verify_against("testsuite/deps/dot.c", cu, name, &["--size", "n=1000"])
    };
    let warps = compile("testsuite/recipe/dot.lua");
    let tree = compile("testsuite/recipe/reduce_tree.lua");
    for (cu, name) in [(&warps, "warps.cu"), (&tree, "tree.cu")] {
        let (code, out, err) = check(cu, name);
        assert_eq!(code, 0, "{name}: {out}{err}");
    }
    let mutants = [
        (
            &warps,
            "missing barrier",
            "  __syncthreads();\n",
            "",
            "NOT verified: data race in kernel dot_kernel on sum_warps[",
        ),
        (
            &warps,
            "half a warp shuffles",
            "if (warp == 0) {",
            "if (lane < 16) {",
            "lane 16 is named in a shuffle's mask but has ended",
        ),
        (
            &warps,
            "wrong shuffle offset",
            "for (int offset = 16;",
            "for (int offset = 8;",
            "DIFFERENT, first at result[0]",
        ),
        (
            &tree,
            "missing barrier in the tree",
            "    __syncthreads();\n",
            "",
            "NOT verified: data race in kernel dot_kernel on sum_parts[",
        ),
    ];
    for (good, what, from, to, expected) in mutants {
        assert!(
            good.contains(from),
            "{what}: the .cu no longer holds `{from}`; update the mutant"
        );
        let (code, out, err) = check(
            &good.replacen(from, to, 1),
            &format!("{}.cu", what.replace(' ', "_")),
        );
        assert_eq!(code, 1, "{what}: not rejected\n{out}{err}");
        assert!(
            out.contains(expected) || err.contains(expected),
            "{what}: expected `{expected}`:\n{out}{err}"
        );
    }
}

/// `--device gpu` where there is no GPU says so and exits 1; a wrong `--device`, or
/// `--time` without a GPU, is a usage error.
#[test]
fn verify_on_a_gpu_needs_one() {
    let run = |extra: &[&str]| {
        let mut a = vec![
            "verify",
            CASE,
            "--recipe",
            "recipes/sgemm.lua",
            "-D",
            "N=40",
        ];
        a.extend(extra);
        gpucc(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    };
    if gpucc::gpu::probe().is_err() {
        let (code, _, err) = run(&["--device", "gpu"]);
        assert_eq!(code, 1, "{err}");
        assert!(
            err.contains("error: --device gpu: ") && err.contains("= hint: check on the CPU"),
            "{err}"
        );
    }
    let (code, _, err) = run(&["--device", "h100"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("a check runs on `cpu`, `gpu` or `cpu,gpu`"),
        "{err}"
    );
    let (code, _, err) = run(&["--time"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("add `--device gpu`"), "{err}");
    let (code, _, err) = run(&["--device", "gpu", "--time", "--runs", "0"]);
    assert_eq!(code, 2, "{err}");
}

/// The program a GPU check runs (the `.cu` with its launches wrapped, the driver, the
/// timing pass) is built by nvcc wherever nvcc is; where a GPU is present it passes and
/// reports a time for the kernel, elsewhere only running it fails.
#[test]
fn the_gpu_check_builds_with_nvcc() {
    let Some(nvcc) = crate::harness::nvcc() else {
        assert!(
            std::env::var_os("GPUCC_SKIP_NVCC").is_some(),
            "nvcc not found: run scripts/install-cuda-toolchain"
        );
        return;
    };
    let gpu = gpucc::gpu::probe();
    let arch = gpu.as_ref().map_or("sm_90".to_string(), |g| g.arch.clone());
    let on = gpucc::verify::On::Gpu {
        nvcc: &nvcc,
        arch: &arch,
        time_runs: 3,
    };
    match (check_sgemm_100(&sgemm_100(), &on), gpu) {
        (Ok(checked), Ok(_)) => {
            assert!(checked.outcome.passed(), "{checked:?}");
            assert_eq!(checked.times.len(), 1, "{checked:?}");
            assert!(checked.times[0].launches == 1 && checked.times[0].total_us > 0.0);
        }
        // Without a GPU the program nvcc built fails at its first CUDA call.
        (Err(e), Err(_)) => assert_eq!(e.kind, gpucc::verify::CheckFailure::GeneratedFailed, "{e}"),
        (result, gpu) => panic!("{result:?} with {gpu:?}"),
    }
}

/// Checks in one process run the original once per program (`gpucc tune --device gpu`
/// checks every variant it times at one size): the later checks compare against its kept
/// results, and still tell a wrong kernel from a right one.
#[test]
fn checks_in_one_process_share_the_original_run() {
    let good = sgemm_100();
    let from = "C_reg[0] += A_shared[4 * ty][1]";
    assert!(good.contains(from), "the .cu no longer holds `{from}`");
    let bad = good.replacen(from, "C_reg[0] += A_shared[4 * ty][2]", 1);
    for (cu, passes) in [(&good, true), (&bad, false), (&good, true)] {
        let checked = check_sgemm_100(cu, &gpucc::verify::On::Cpu)
            .unwrap_or_else(|e| panic!("the check did not run: {e}"));
        assert_eq!(checked.outcome.passed(), passes, "{checked:?}");
    }
}

/// The same infinity in both programs is the same result, and it does not hide the other
/// elements' errors: the check once called an infinity in both a difference (the random
/// nests found it), and an array's scale was its largest element, infinite.
#[test]
fn an_infinity_in_both_is_the_same_and_hides_no_other_error() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("testsuite/verify/infinity.c");
    let good = compile_case(&case);
    let check = |cu: &str, name: &str| verify_against("testsuite/verify/infinity.c", cu, name, &[]);
    let (code, out, err) = check(&good, "infinity.cu");
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("  A  64 elements  max relative error 0.00e0  same"),
        "{out}"
    );
    assert!(good.contains("A[i] * 3;"), "update the mutant:\n{good}");
    let bad = good.replacen("A[i] * 3;", "A[i] * 3.001f;", 1);
    let (code, out, err) = check(&bad, "infinity_wrong.cu");
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("DIFFERENT, first at A[1]"), "{out}");
}

/// The `.cu` that `recipe` makes of `c_file` (with `extra` options), unchecked: the good
/// program a case's mutants are made from.
fn recipe_cu(c_file: &str, recipe: &str, extra: &[&str]) -> String {
    let out = scratch_path("recipe.cu");
    let mut args: Vec<String> = [c_file, "--recipe", recipe, "--no-verify", "-o"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.push(out.display().to_string());
    args.extend(extra.iter().map(|s| s.to_string()));
    let (code, _, err) = gpucc(&args);
    assert_eq!(code, 0, "{err}");
    let cu = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    cu
}

/// A wide copy (`copy_to_shared(..., {width=4})`) checks each of its vector's elements: a
/// vector load moved off its 16-byte boundary stops the program as the GPU would (a
/// misaligned address), and without the barrier after the copy the race on the shared
/// tile is found through the vector's elements.
#[test]
fn wide_copies_are_checked_element_by_element() {
    let c_file = "testsuite/recipe/kernels/matmul.c";
    let cu = recipe_cu(
        c_file,
        "testsuite/recipe/copy_to_shared_wide.lua",
        &["-D", "N=128"],
    );
    let check = |cu: &str, name: &str| verify_against(c_file, cu, name, &["-D", "N=128"]);
    let (code, out, err) = check(&cu, "wide_good.cu");
    assert_eq!(code, 0, "{out}{err}");
    let load = "gpucc_load_vector<float4>(&A[64 * ii + 4 * ty + tx / 4][16 * kk + 4 * (tx % 4)])";
    assert!(cu.contains(load), "the wide copy of A changed:\n{cu}");
    let shifted = cu.replacen(load, &load.replace("4 * (tx % 4)]", "4 * (tx % 4) + 1]"), 1);
    let (code, out, err) = check(&shifted, "wide_misaligned.cu");
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        format!("{out}{err}")
            .contains("misaligned 16-byte vector access in kernel matmul_kernel at A["),
        "{out}{err}"
    );
    let barrier = "    __syncthreads();\n";
    assert!(cu.contains(barrier));
    let (code, out, err) = check(&cu.replacen(barrier, "", 1), "wide_race.cu");
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("NOT verified: data race in kernel matmul_kernel on A_shared["),
        "{out}{err}"
    );
}

/// A wide register copy (`copy_to_registers(..., {width=4})`) around the k loop and the
/// statement beside it (`C[i][j] *= beta`): it verifies, a vector load of C moved off its
/// 16-byte boundary stops the program, and scaling C in global memory instead of in the
/// copy is a wrong result (the copy's load before it keeps the old value).
#[test]
fn wide_register_copies_are_checked() {
    let c_file = "testsuite/strategy/kernels/gemm_nn.c";
    let args = ["-D", "N=128"];
    let cu = recipe_cu(c_file, "testsuite/recipe/copy_to_registers_wide.lua", &args);
    let check = |cu: &str, name: &str| verify_against(c_file, cu, name, &args);
    let (code, out, err) = check(&cu, "wide_reg_good.cu");
    assert_eq!(code, 0, "{out}{err}");
    let load = "gpucc_load_vector<float4>(&C[64 * ii + 4 * ty][64 * jj + 4 * tx])";
    assert!(cu.contains(load), "the wide copy of C changed:\n{cu}");
    let shifted = cu.replacen(load, &load.replace("4 * tx]", "4 * tx + 2]"), 1);
    let (code, out, err) = check(&shifted, "wide_reg_misaligned.cu");
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        format!("{out}{err}")
            .contains("misaligned 16-byte vector access in kernel gemm_nn_kernel at C["),
        "{out}{err}"
    );
    let scale = "C_reg[r - 64 * ii - 4 * ty][q - 64 * jj - 4 * tx] *= beta;";
    assert!(cu.contains(scale), "the scaling of C changed:\n{cu}");
    let in_global = cu.replacen(scale, "C[r][q] *= beta;", 1);
    let (code, out, err) = check(&in_global, "wide_reg_scaled_late.cu");
    assert_eq!(code, 1, "{out}{err}");
}

/// Double-buffered shared tiles (`double_buffer`): the check finds the race a missing
/// barrier makes (a buffer refilled while another thread still reads it) and the wrong
/// result of reading the buffer being filled.
#[test]
fn double_buffers_are_checked() {
    let c_file = "testsuite/recipe/kernels/matmul_100.c";
    let cu = recipe_cu(c_file, "testsuite/recipe/double_buffer.lua", &[]);
    let check = |cu: &str, name: &str| verify_against(c_file, cu, name, &[]);
    let (code, out, err) = check(&cu, "double_good.cu");
    assert_eq!(code, 0, "{out}{err}");
    // One barrier per iteration, in each of the kernel's two bodies (the full tiles' and
    // the guarded one, `src/codegen/fulltiles.rs`).
    let barriers: Vec<&str> = cu
        .lines()
        .filter(|l| l.trim() == "__syncthreads();")
        .collect();
    assert_eq!(barriers.len(), 2, "one barrier per iteration:\n{cu}");
    // Without the full tiles' barrier (the blocks that run it race).
    let barrier = format!("{}\n", barriers[0]);
    let (code, out, err) = check(&cu.replacen(&barrier, "", 1), "double_race.cu");
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("NOT verified: data race in kernel matmul_kernel on "),
        "{out}{err}"
    );
    let read = "A_shared[kk % 2]";
    assert!(cu.contains(read), "{cu}");
    let (code, out, err) = check(
        &cu.replacen(read, "A_shared[(kk + 1) % 2]", 1),
        "double_wrong.cu",
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("DIFFERENT") || out.contains("data race"),
        "{out}{err}"
    );
}
