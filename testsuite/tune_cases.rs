//! `gpucc tune`: the lower bound against the emulator, branch and bound against the
//! exhaustive search, the database (resume and merge), a recipe's parameters, and the
//! errors.

use crate::harness::{gpucc, scratch_path};

fn tune(args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["tune".to_string()];
    all.extend(args.iter().map(|s| s.to_string()));
    gpucc(&all)
}

fn json_of(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}):\n{out}"))
}

/// `gpucc tune ARGS --json`, which must succeed: its report of the first size.
fn first_size(args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.push("--json");
    let (code, out, err) = tune(&all);
    assert_eq!(code, 0, "{args:?}: {err}");
    json_of(&out)["sizes"][0].clone()
}

/// Kernels whose whole space the emulator gets through in seconds: a vector, matrix-vector
/// products, stencils in 2-D and 3-D with time steps, a transpose, a reduction.
const KERNELS: &[&str] = &[
    "saxpy",
    "gemv_n",
    "atax",
    "jacobi2d_5pt",
    "stencil3d_heat",
    "transpose_rect",
    "matrix_sum",
    "max_abs",
];

#[test]
fn the_bound_is_below_every_emulated_time_and_pruning_keeps_the_best() {
    for k in KERNELS {
        let file = format!("testsuite/strategy/kernels/{k}.c");
        let run = |exhaustive: bool| {
            let db = scratch_path(&format!("{k}-bound.jsonl"));
            let db = db.display().to_string();
            let mut args = vec![file.as_str(), "--db", &db];
            if exhaustive {
                args.push("--exhaustive");
            }
            first_size(&args)
        };
        let all = run(true);
        let pruned = run(false);
        assert_eq!(all["skipped_by_bound"], 0, "{k}");
        for v in all["variants"].as_array().unwrap() {
            // Every combination of every variant was emulated; none beat its bound.
            assert_eq!(v["below_bound"], 0, "{k}: {v}");
            if let Some(best) = v["best_us"].as_f64() {
                assert!(v["bound_us"].as_f64().unwrap() <= best, "{k}: {v}");
            }
        }
        assert_eq!(
            all["best_us"], pruned["best_us"],
            "{k}: branch and bound lost the best"
        );
        assert!(
            pruned["compiled"].as_u64() <= all["compiled"].as_u64(),
            "{k}: {pruned}"
        );
    }
}

/// The SGEMM's candidates are within a few times of each other; the bound counts what
/// their placements and tile sizes make each SM issue, and tells most of them apart: more
/// than half are skipped, and none of those evaluated beats its bound. (That the best is
/// the exhaustive search's is checked above on smaller spaces, and on this one by
/// `benchmarks/tune_bound.py`: the exhaustive search takes too long for the testsuite.)
#[test]
fn the_bound_skips_most_of_a_matrix_products_candidates() {
    let db = scratch_path("gemm-bound.jsonl");
    let db = db.display().to_string();
    let size = first_size(&["testsuite/strategy/kernels/gemm_nn.c", "--db", &db]);
    let candidates = size["candidates"].as_u64().unwrap();
    assert!(
        size["skipped_by_bound"].as_u64().unwrap() * 2 > candidates,
        "{size}"
    );
    assert!(
        size["emulated"].as_u64().unwrap() * 2 < candidates,
        "{size}"
    );
    for v in size["variants"].as_array().unwrap() {
        assert_eq!(v["below_bound"], 0, "{v}");
    }
    assert!(
        size["best_us"].as_f64() <= size["untuned_us"].as_f64(),
        "{size}"
    );
}

#[test]
fn a_second_run_reads_the_database_and_merging_keeps_each_record_once() {
    let db = scratch_path("resume.jsonl");
    let db_text = db.display().to_string();
    let args = ["testsuite/strategy/kernels/gemv_n.c", "--db", &db_text];
    let first = first_size(&args);
    assert!(first["compiled"].as_u64().unwrap() > 0);
    let records = std::fs::read_to_string(&db).unwrap().lines().count();
    assert_eq!(records as u64, first["compiled"].as_u64().unwrap());
    let second = first_size(&args);
    assert_eq!(second["compiled"], 0, "{second}");
    assert!(second["from_database"].as_u64().unwrap() > 0);
    assert_eq!(first["best_us"], second["best_us"]);
    assert_eq!(first["recipe"], second["recipe"]);
    // Another size is another key: evaluated anew, in the same file.
    let other_size = first_size(&[
        "testsuite/strategy/kernels/gemv_n.c",
        "--db",
        &db_text,
        "-D",
        "N=512",
    ]);
    assert!(other_size["compiled"].as_u64().unwrap() > 0);
    // Merging the file with a copy of itself and another database.
    let copy = scratch_path("resume-copy.jsonl");
    std::fs::copy(&db, &copy).unwrap();
    let other = scratch_path("other.jsonl");
    let other_text = other.display().to_string();
    let (code, _, err) = tune(&["testsuite/strategy/kernels/saxpy.c", "--db", &other_text]);
    assert_eq!(code, 0, "{err}");
    let merged = scratch_path("merged.jsonl");
    let merged_text = merged.display().to_string();
    let (code, out, err) = tune(&[
        "merge",
        &db_text,
        &copy.display().to_string(),
        &other_text,
        "-o",
        &merged_text,
    ]);
    assert_eq!(code, 0, "{err}");
    let unique = std::fs::read_to_string(&db).unwrap().lines().count()
        + std::fs::read_to_string(&other).unwrap().lines().count();
    assert_eq!(
        std::fs::read_to_string(&merged).unwrap().lines().count(),
        unique
    );
    assert!(out.contains("duplicates dropped"), "{out}");
    // The merged database answers both kernels.
    let saxpy = first_size(&["testsuite/strategy/kernels/saxpy.c", "--db", &merged_text]);
    assert_eq!(saxpy["compiled"], 0);
}

#[test]
fn a_recipe_has_its_parameters_tuned_per_size() {
    let db = scratch_path("recipe.jsonl");
    let dir = scratch_path("best");
    let (code, out, err) = tune(&[
        "examples/sgemm.c",
        "--recipe",
        "recipes/sgemm.lua",
        "--size",
        "N=256",
        "--size",
        "N=512",
        "--db",
        &db.display().to_string(),
        "-o",
        &dir.display().to_string(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("size N=256") && out.contains("size N=512"),
        "{out}"
    );
    assert!(
        out.contains(
            "replay        gpucc examples/sgemm.c --recipe recipes/sgemm.lua -D N=256 -P TI="
        ),
        "{out}"
    );
    let written = std::fs::read_to_string(dir.join("sgemm-N256.lua")).unwrap();
    assert!(
        written.starts_with("-- Tuned values (gpucc tune): -P TI="),
        "{written}"
    );
    // A budget of 5 runs leaves the 81 combinations cut short, and says so.
    let size = first_size(&[
        "examples/sgemm.c",
        "--recipe",
        "recipes/sgemm.lua",
        "--size",
        "N=128",
        "--budget",
        "5",
        "--db",
        &scratch_path("budget.jsonl").display().to_string(),
    ]);
    assert_eq!(size["compiled"], 5, "{size}");
    assert_eq!(size["cut_short"], true);
}

#[test]
fn bad_tune_command_lines_are_refused_with_a_reason() {
    let db = scratch_path("errors.jsonl").display().to_string();
    let kernel = "testsuite/strategy/kernels/saxpy.c";
    let (code, _, err) = tune(&[kernel, "--db", &db, "--device", "tpu"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--emulate-as"), "{err}");
    let (code, _, err) = tune(&[kernel, "--db", &db, "--size", "M=64"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("neither a size of the code nor a macro"),
        "{err}"
    );
    for budget in ["0", "10x", "m"] {
        let (code, _, err) = tune(&[kernel, "--db", &db, "--budget", budget]);
        assert_eq!(code, 2, "--budget {budget}: {err}");
    }
    let (code, _, err) = tune(&[kernel, "--db", &db, "--size", "N"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = tune(&[kernel, "--db", &db, "--emulate-as", "nosuchgpu"]);
    assert_eq!(code, 2, "{err}");
    // A database line that is not a record: the file and line, exit 1.
    let broken = scratch_path("broken.jsonl");
    std::fs::write(&broken, "{\"device\": 3}\n").unwrap();
    let (code, _, err) = tune(&[kernel, "--db", &broken.display().to_string()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("broken.jsonl:1:"), "{err}");
    let (code, _, err) = tune(&["merge", &broken.display().to_string(), "-o", &db]);
    assert_eq!(code, 1, "{err}");
    let (code, _, _) = tune(&["merge"]);
    assert_eq!(code, 2);
    // `--timed` without a GPU to time on, or timing nothing: usage errors.
    let (code, _, err) = tune(&[kernel, "--db", &db, "--timed", "3"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("add `--device gpu`"), "{err}");
    let (code, _, err) = tune(&[kernel, "--db", &db, "--device", "gpu", "--timed", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("would time nothing"), "{err}");
    // No GPU here: exit 4 with the reason, never a guess.
    if gpucc::gpu::probe().is_err() {
        let (code, _, err) = tune(&[kernel, "--db", &db, "--device", "gpu"]);
        assert_eq!(code, 4, "{err}");
        assert!(err.contains("error: no GPU to time on: "), "{err}");
        assert!(err.contains("--device emulator"), "{err}");
    }
}

/// Builds the library in `dir` with its test program on gpucc's CPU runtime (the CUDA
/// runtime's stand-in) and runs it: every size class and the fallback against the C.
fn run_library_test_on_the_cpu(dir: &std::path::Path, name: &str, function: &str) -> String {
    use std::process::Command;
    let runtime = dir.join("cpu-runtime");
    std::fs::create_dir_all(&runtime).unwrap();
    std::fs::write(runtime.join("cuda_runtime.h"), gpucc::verify::CPU_RUNTIME).unwrap();
    let mut sources = Vec::new();
    for file in [format!("{name}.cu"), format!("{name}_test.cu")] {
        let text = std::fs::read_to_string(dir.join(&file)).unwrap();
        let prepared = gpucc::verify::prepare_for_cpu(&text)
            .unwrap_or_else(|e| panic!("{file}: the CPU runtime cannot take it: {e}"));
        let path = runtime.join(format!("{file}.cpp"));
        std::fs::write(&path, prepared).unwrap();
        sources.push(path);
    }
    let reference = runtime.join("reference.o");
    let out = Command::new("cc")
        .args(["-O1", "-c"])
        .arg(dir.join(format!("{name}_reference.c")))
        .arg(format!("-D{function}={name}_reference"))
        .arg("-o")
        .arg(&reference)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let exe = runtime.join("test");
    let out = Command::new("c++")
        .args(["-std=c++20", "-O1", "-w", "-pthread"])
        .arg(format!("-I{}", runtime.display()))
        .arg(format!("-I{}", dir.display()))
        .arg("-include")
        .arg(runtime.join("cuda_runtime.h"))
        .args(&sources)
        .arg(&reference)
        .arg("-o")
        .arg(&exe)
        .arg("-lm")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&exe).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

#[test]
fn a_library_is_tuned_per_size_built_by_nvcc_and_its_test_passes_on_the_cpu() {
    // (file, sizes, name, function, size classes, arrays written)
    type Case<'a> = (&'a str, &'a [&'a str], &'a str, &'a str, usize, usize);
    let cases: [Case; 3] = [
        (
            "examples/sgemm_sizes.c",
            &["m,n,k=64..256*2"],
            "sgemm",
            "sgemm",
            3,
            1,
        ),
        (
            "examples/sgemv_sizes.c",
            &["m,n=128..2048*4"],
            "matvec",
            "sgemv",
            3,
            1,
        ),
        (
            "testsuite/tune/jacobi2d_sizes.c",
            &["steps=10", "n,m=128..512*4"],
            "jacobi",
            "jacobi2d",
            2,
            2,
        ),
    ];
    for (file, sizes, name, function, classes, written) in cases {
        let dir = scratch_path(name);
        let db = scratch_path(&format!("{name}.jsonl"));
        let mut args: Vec<String> = vec!["library".into(), file.into()];
        for spec in sizes {
            args.extend(["--sizes".to_string(), spec.to_string()]);
        }
        for extra in ["--budget", "12", "--name", name, "--db"] {
            args.push(extra.to_string());
        }
        args.extend([
            db.display().to_string(),
            "-o".into(),
            dir.display().to_string(),
        ]);
        let (code, out, err) = gpucc(&args);
        assert_eq!(code, 0, "{file}: {err}");
        assert!(
            out.contains(&format!("{classes} size classes"))
                && out.contains("checked against the C"),
            "{out}"
        );
        for f in [
            "Makefile",
            "manifest.json",
            &format!("{name}.h"),
            &format!("{name}.cu"),
        ] {
            assert!(dir.join(f).exists(), "{file}: no {f}");
        }
        let manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap())
                .unwrap();
        assert_eq!(
            manifest["classes"].as_array().unwrap().len(),
            classes,
            "{manifest}"
        );
        // A variant per size class, and the fallback, each in a namespace of its own.
        let variants = manifest["variants"].as_array().unwrap().len();
        assert_eq!(variants, classes + 1, "{manifest}");
        let cu = std::fs::read_to_string(dir.join(format!("{name}.cu"))).unwrap();
        assert_eq!(
            cu.matches(&format!("\nnamespace {name}_v")).count(),
            variants,
            "{cu}"
        );
        let test = run_library_test_on_the_cpu(&dir, name, function);
        assert!(test.contains("all size classes agree with the C"), "{test}");
        assert_eq!(
            test.matches("largest relative error").count(),
            (classes + 1) * written,
            "{test}"
        );
        // nvcc compiles the library (no GPU needed to compile).
        if let Some(nvcc) = crate::harness::nvcc() {
            let out = std::process::Command::new(nvcc)
                .args(["-arch=sm_90", "-c", "-o"])
                .arg(dir.join(format!("{name}.o")))
                .arg(dir.join(format!("{name}.cu")))
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

#[test]
fn a_library_needs_run_time_sizes_and_good_size_lists() {
    let dir = scratch_path("refused").display().to_string();
    let run = |args: &[&str]| {
        let mut all = vec!["library".to_string()];
        all.extend(args.iter().map(|s| s.to_string()));
        all.extend(["-o".to_string(), dir.clone()]);
        gpucc(&all)
    };
    let (code, _, err) = run(&["examples/sgemm.c", "--sizes", "N=256,512"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is a `#pragma scop` region"), "{err}");
    let (code, _, err) = run(&[
        "examples/sgemm.c",
        "--function",
        "sgemm",
        "--sizes",
        "N=256",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no size known at run time"), "{err}");
    let (code, _, err) = run(&["examples/sgemm_sizes.c", "--sizes", "m,n=256"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("gives no value to k"), "{err}");
    let (code, _, err) = run(&["examples/sgemm_sizes.c", "--sizes", "m,n,q=256"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("`q`, which is not a size"), "{err}");
    for bad in [
        "m,n,k=256..64*2",
        "m,n,k=256..1024*1",
        "m,n,k=0",
        "m,n,k",
        "m,,k=4",
    ] {
        let (code, _, err) = run(&["examples/sgemm_sizes.c", "--sizes", bad]);
        assert_eq!(code, 2, "--sizes {bad}: {err}");
    }
    let (code, _, err) = run(&[
        "examples/sgemm_sizes.c",
        "--sizes",
        "m,n,k=64",
        "--name",
        "2x",
    ]);
    assert_eq!(code, 2, "{err}");
    let good = ["examples/sgemm_sizes.c", "--sizes", "m,n,k=64"];
    let (code, _, err) = run(&[&good[..], &["--device", "fpga"]].concat());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("runs on `emulator` or `gpu`"), "{err}");
    // No GPU here: exit 4 with the reason, before anything is tuned or written.
    if gpucc::gpu::probe().is_err() {
        let (code, _, err) = run(&[&good[..], &["--device", "gpu"]].concat());
        assert_eq!(code, 4, "{err}");
        assert!(err.contains("error: no GPU to time on: "), "{err}");
    }
    assert!(!std::path::Path::new(&dir).exists());
}

#[test]
fn shards_run_as_processes_merge_to_what_one_search_finds() {
    let kernel = "testsuite/strategy/kernels/gemv_n.c";
    let single = scratch_path("single.jsonl").display().to_string();
    let one = first_size(&[kernel, "--db", &single]);
    // Two shards at once, each its own process and database.
    let shards: Vec<String> = (1..=2)
        .map(|i| {
            scratch_path(&format!("shard{i}.jsonl"))
                .display()
                .to_string()
        })
        .collect();
    let running: Vec<std::process::Child> = shards
        .iter()
        .enumerate()
        .map(|(i, db)| {
            std::process::Command::new(env!("CARGO_BIN_EXE_gpucc"))
                .args([
                    "tune",
                    kernel,
                    "--db",
                    db,
                    "--shard",
                    &format!("{}/2", i + 1),
                ])
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in running {
        assert!(child.wait().unwrap().success());
    }
    let merged = scratch_path("shards-merged.jsonl").display().to_string();
    let (code, _, err) = tune(&["merge", &shards[0], &shards[1], "-o", &merged]);
    assert_eq!(code, 0, "{err}");
    let again = first_size(&[kernel, "--db", &merged]);
    assert_eq!(again["compiled"], 0, "the shards left work: {again}");
    assert_eq!(again["best_us"], one["best_us"]);
    assert_eq!(again["recipe"], one["recipe"]);
    // The Slurm script names the shards and the merge.
    let script = scratch_path("tune.sbatch");
    let (code, out, err) = tune(&[
        kernel,
        "--size",
        "N=2048",
        "--emit-slurm",
        &format!("4:{}", script.display()),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("4 shards"), "{out}");
    let text = std::fs::read_to_string(&script).unwrap();
    assert!(text.contains("#SBATCH --array=1-4"), "{text}");
    assert!(
        text.contains("--shard \"$SLURM_ARRAY_TASK_ID/4\""),
        "{text}"
    );
    assert!(
        text.contains("gpucc tune merge gpucc-tune.shard-*-of-4.jsonl"),
        "{text}"
    );
    for bad in ["0/2", "3/2", "x", "1/0"] {
        let (code, _, err) = tune(&[kernel, "--shard", bad]);
        assert_eq!(code, 2, "--shard {bad}: {err}");
    }
}
