//! `testsuite/cuda/*.c` compiled with the recipe their first line names: the `.cu` is the
//! snapshot; every `.cu` runs on the CPU against its C source; nvcc compiles every `.cu`
//! for sm_90 and sm_80 without errors, warnings or register spills, and ptxas's
//! registers, shared memory and spills per kernel are the second snapshot.

use crate::harness::{
    case_args, case_files, compile_case, gpucc_on, nvcc, relative, scratch_path, verify_cases,
};

#[test]
fn cuda_snapshots() {
    insta::with_settings!({snapshot_path => "cuda/snapshots", prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::glob!("cuda/*.c", |path| {
            insta::assert_snapshot!(compile_case(path));
        });
    });
}

#[test]
fn generated_code_computes_what_the_c_computes() {
    verify_cases(&case_files("cuda", "c"), |path| {
        Ok((path.to_path_buf(), case_args(path), compile_case(path)))
    });
}

/// ptxas's report per kernel: `sm_90 sgemm_kernel: 44 registers, 5440 bytes shared, 0 spills`.
fn ptxas_summary(arch: &str, stderr: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut kernel = String::new();
    for line in stderr.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            let mangled = rest.split('\'').next().unwrap_or("");
            // _Z<length><name>...
            let digits: String = mangled
                .trim_start_matches("_Z")
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            let len: usize = digits.parse().unwrap_or(0);
            let start = 2 + digits.len();
            kernel = mangled
                .get(start..start + len)
                .unwrap_or(mangled)
                .to_string();
        } else if line.contains("bytes spill stores") {
            let spills: Vec<i64> = line
                .split(',')
                .filter_map(|p| p.split_whitespace().next().and_then(|n| n.parse().ok()))
                .collect();
            out.push(format!(
                "{arch} {kernel}: spills {} stores, {} loads",
                spills.get(1).unwrap_or(&-1),
                spills.get(2).unwrap_or(&-1)
            ));
        } else if line.contains("Used") && line.contains("registers") {
            out.push(format!(
                "{arch} {kernel}: {}",
                line.split("Used").nth(1).unwrap_or("").trim()
            ));
        }
    }
    out
}

#[test]
fn nvcc_compiles_every_generated_file() {
    let Some(nvcc) = nvcc() else {
        if std::env::var_os("GPUCC_SKIP_NVCC").is_some() {
            eprintln!("nvcc not found and GPUCC_SKIP_NVCC is set: the nvcc checks are skipped");
            return;
        }
        panic!("nvcc not found: run scripts/install-cuda-toolchain (or set GPUCC_NVCC, or GPUCC_SKIP_NVCC=1 to skip)");
    };
    insta::with_settings!({snapshot_path => "cuda/snapshots", prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::glob!("cuda/*.c", |path| {
            let cu = scratch_path(&format!("{}.cu", path.file_stem().unwrap().to_string_lossy()));
            std::fs::write(&cu, compile_case(path)).unwrap();
            let mut summary = Vec::new();
            for arch in ["sm_90", "sm_80"] {
                let out = std::process::Command::new(&nvcc)
                    .args(["-arch", arch, "-cubin", "-Xptxas", "-v", "-o"])
                    .arg(cu.with_extension(format!("{arch}.cubin")))
                    .arg(&cu)
                    .output()
                    .expect("nvcc runs");
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert!(out.status.success(), "{}: nvcc -arch={arch} failed:\n{stderr}", relative(path));
                for line in stderr.lines() {
                    assert!(!line.contains("warning"), "{}: nvcc -arch={arch} warns: {line}", relative(path));
                }
                let lines = ptxas_summary(arch, &stderr);
                for l in &lines {
                    assert!(!l.contains("spills") || l.ends_with("spills 0 stores, 0 loads"), "{}: {l}", relative(path));
                }
                summary.extend(lines);
            }
            insta::assert_snapshot!("ptxas", summary.join("\n"));
        });
    });
}

/// Issue 19's measure of a GEMM's main loop without a GPU: FMAs per shared-memory load
/// instruction in the SASS for sm_90 (every shared load of these kernels is in the main
/// loop, and every FMA). The outer-product register tile with 16-byte aligned shared
/// rows gives RI x RJ FMAs for RI + RJ values read 128 bits at a time: at least 8 for
/// SGEMM, 4 for DGEMM (two doubles per load).
#[test]
fn gemm_main_loops_issue_many_fmas_per_shared_load() {
    let Some(nvcc) = nvcc() else {
        if std::env::var_os("GPUCC_SKIP_NVCC").is_some() {
            eprintln!("nvcc not found and GPUCC_SKIP_NVCC is set: the SASS check is skipped");
            return;
        }
        panic!("nvcc not found: run scripts/install-cuda-toolchain (or set GPUCC_NVCC, or GPUCC_SKIP_NVCC=1 to skip)");
    };
    let cuobjdump = nvcc.with_file_name("cuobjdump");
    for (case, size, fma, least) in [
        ("testsuite/cuda/sgemm_outer.c", "N=4096", "FFMA", 8.0),
        ("testsuite/cuda/dgemm.c", "N=2048", "DFMA", 4.0),
    ] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(case);
        let cu = scratch_path("gemm-sass.cu");
        let (code, _, err) = gpucc_on("compile", &path, &["-D", size, "-o", cu.to_str().unwrap()]);
        assert_eq!(code, 0, "{case}: {err}");
        let cubin = cu.with_extension("cubin");
        let out = std::process::Command::new(&nvcc)
            .args(["-arch", "sm_90", "-cubin", "-o"])
            .arg(&cubin)
            .arg(&cu)
            .output()
            .expect("nvcc runs");
        assert!(
            out.status.success(),
            "{case}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = std::process::Command::new(&cuobjdump)
            .arg("-sass")
            .arg(&cubin)
            .output()
            .expect("cuobjdump runs");
        let sass = String::from_utf8_lossy(&out.stdout);
        let opcodes: Vec<&str> = sass
            .lines()
            .filter_map(|l| l.split("*/").nth(1))
            .filter_map(|l| l.split_whitespace().find(|w| !w.starts_with('@')))
            .collect();
        let fmas = opcodes.iter().filter(|o| o.starts_with(fma)).count() as f64;
        let loads = opcodes.iter().filter(|o| o.starts_with("LDS")).count() as f64;
        assert!(loads > 0.0, "{case}: no shared-memory load in the SASS");
        assert!(
            fmas / loads >= least,
            "{case} at {size}: {fmas} {fma} for {loads} LDS, {:.2} per load (at least {least})",
            fmas / loads
        );
    }
}

/// gpucc writes the loops of a shared copy of a box itself (isl places one instance per
/// tile step): here a 1-D tile of 34 elements (32 and a halo of 2) in a block of 32 x 8
/// threads, so that the threads along y stay idle, the second round is partial and the
/// last block's tile ends past the array. The loop's bound and the guards are the ones
/// isl wrote before, and the CPU check accepts the `.cu` at sizes that leave partial
/// tiles.
#[test]
fn a_box_copied_by_gpucc_s_own_loops_is_checked() {
    let source = scratch_path("window.c");
    std::fs::write(
        &source,
        "#define N 50\n#define M 99\n\
         void window(float B[N][M], const float A[N][M], const float x[M + 2])\n{\n\
           for (int i = 0; i < N; i++)\n\
             for (int j = 0; j < M; j++)\n\
               B[i][j] = A[i][j] * (x[j] + x[j + 1] + x[j + 2]);\n}\n",
    )
    .unwrap();
    let text = compiled_and_checked(
        &source,
        "tile_by_index({\"i\", \"j\"}, {8, 32}, {l1_control=\"ii\", l2_control=\"jj\"}, {\"ii\", \"jj\", \"i\", \"j\"})\n\
         cudaize(\"window_kernel\", {}, {block={\"jj\", \"ii\"}, thread={\"j\", \"i\"}})\n\
         copy_to_shared(\"tx\", \"x\")\n",
        &[],
    );
    for expected in [
        "if (ty == 0)",
        "x_shared0 <= min(-((j + 27) / 32) + 3, jj - (j + 30) / 32 + 1)",
        "x_shared[tx + 32 * x_shared0] = x[32 * jj + tx + 32 * x_shared0];",
    ] {
        assert!(text.contains(expected), "no `{expected}` in:\n{text}");
    }
}

/// A register tile whose footprint is its box, clipped to the array: gpucc writes the
/// loops of its copy in and out (isl places one instance per thread) and the loops over
/// its points in the product's statement (isl places one instance per tile, at its first
/// point). At 99, the last tiles are partial along both dimensions: the rows and columns
/// past the array are guarded as isl guarded them, and the CPU check accepts the result.
#[test]
fn a_register_tile_written_by_gpucc_s_own_loops_is_checked() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let recipe = std::fs::read_to_string(root.join("recipes/sgemm_outer.lua")).unwrap();
    let source = scratch_path("sgemm99.c");
    std::fs::write(
        &source,
        "#define N 99\n\
         void sgemm(const float A[N][N], const float B[N][N], float C[N][N])\n{\n\
           for (int i = 0; i < N; i++)\n\
             for (int j = 0; j < N; j++)\n\
               for (int k = 0; k < N; k++)\n\
                 C[i][j] += A[i][k] * B[k][j];\n}\n",
    )
    .unwrap();
    let text = compiled_and_checked(&source, &recipe, &["-P", "TI=64", "-P", "RJ=4"]);
    for expected in [
        "if (8 * ii + ty < 12) {",
        "if (32 * jj + tx < 24)\n      C_reg[7][3] = C[64 * ii + 8 * ty + 7][128 * jj + 4 * tx + 3];",
        "if (32 * jj + tx < 24)\n      C[64 * ii + 8 * ty + 7][128 * jj + 4 * tx + 3] = C_reg[7][3];",
        "if (32 * jj + tx < 24)\n        C_reg[7][3] += A_shared[8 * ty + 7][1] * B_shared[1][128 * jj + 4 * tx + 3];",
    ] {
        assert!(text.contains(expected), "no `{expected}` in:\n{text}");
    }
}

/// A nine-point stencil's footprint is a union of nine shifted boxes that fills its box:
/// copied as the box, the copy is one loop nest (one assignment to the tile) that the CPU
/// check accepts at sizes that leave partial tiles; copied as the union, isl split it into
/// five cases and its AST took three times as long to build.
#[test]
fn a_footprint_that_fills_its_box_is_copied_as_one_loop_nest() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testsuite/strategy/kernels/stencil2d_9pt.c");
    let text = compiled_and_checked(
        &path,
        "tile_by_index({\"j\", \"i\"}, {32, 32}, {l1_control=\"jj\", l2_control=\"ii\"}, {\"ii\", \"jj\", \"i\", \"j\"})\n\
         tile_by_index({\"i\"}, {4}, {l1_control=\"ir\"}, {\"ii\", \"jj\", \"i\", \"j\", \"ir\"})\n\
         cudaize(\"stencil2d_9pt_kernel\", {}, {block={\"jj\", \"ii\"}, thread={\"j\", \"i\"}})\n\
         copy_to_shared(\"tx\", \"A\", -16)\n\
         unroll(\"ir\")\n",
        &["-D", "N=100", "-D", "M=99"],
    );
    let copies = text
        .lines()
        .filter(|l| l.trim_start().starts_with("A_shared[") && l.contains("] = A["))
        .count();
    assert_eq!(copies, 1, "the copy is not one loop nest:\n{text}");
}

/// The `.cu` of `source` compiled with the recipe text `recipe` (written to a scratch
/// file) and `options`, once the CPU check has accepted it with the same options.
fn compiled_and_checked(source: &std::path::Path, recipe: &str, options: &[&str]) -> String {
    let name = source.file_stem().unwrap().to_str().unwrap();
    let recipe_path = scratch_path(&format!("{name}.lua"));
    std::fs::write(&recipe_path, recipe).unwrap();
    let cu = scratch_path(&format!("{name}.cu"));
    let mut args = vec!["--recipe", recipe_path.to_str().unwrap()];
    args.extend(options);
    args.extend(["-o", cu.to_str().unwrap()]);
    let (code, _, err) = gpucc_on("compile", source, &args);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&cu).unwrap();
    let options: Vec<String> = options.iter().map(|o| o.to_string()).collect();
    verify_cases(std::slice::from_ref(&source.to_path_buf()), |_| {
        Ok((source.to_path_buf(), options.clone(), text.clone()))
    });
    text
}
