//! The strategy stage, as a user meets it: every kernel of `testsuite/strategy/kernels/`
//! and `testsuite/deps/` compiles with no recipe (`gpucc FILE.c -o OUT.cu`: gpucc ranks
//! its variants, writes the best, and checks it against the C on the CPU at reduced
//! sizes), and the `.cu` compiles with nvcc for sm_90 and sm_80 with no warnings and no
//! register spills. The recipe gpucc chose for each kernel is a snapshot.

use crate::harness::{case_args, case_files, gpucc, nvcc, relative, scratch_path};
use std::path::{Path, PathBuf};

/// What compiling one kernel without a recipe gave.
struct Outcome {
    path: PathBuf,
    code: i32,
    report: serde_json::Value,
    verified: bool,
    stderr: String,
    cu: Option<PathBuf>,
}

fn compile_without_recipe(path: &Path) -> Outcome {
    let cu = scratch_path(&format!(
        "{}.cu",
        path.file_stem().unwrap().to_string_lossy()
    ));
    let mut args = vec![relative(path)];
    args.extend(case_args(path));
    args.extend([
        "-o".into(),
        cu.display().to_string(),
        "--explain".into(),
        "--json".into(),
    ]);
    let (code, out, err) = gpucc(&args);
    Outcome {
        path: path.to_path_buf(),
        code,
        // The JSON report comes first; the check's verdict follows it.
        report: serde_json::Deserializer::from_str(&out)
            .into_iter::<serde_json::Value>()
            .next()
            .and_then(|v| v.ok())
            .unwrap_or(serde_json::Value::Null),
        verified: out.contains("\nverified: "),
        stderr: err,
        cu: cu.is_file().then_some(cu),
    }
}

/// Runs `f` on every item, two at a time (each compile spends its time in isl and the
/// C++ compiler).
fn in_parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(item) = items.get(k) else { break };
                let r = f(item);
                results.lock().unwrap().push((k, r));
            });
        }
    });
    let mut r = results.into_inner().unwrap();
    r.sort_by_key(|(k, _)| *k);
    r.into_iter().map(|(_, r)| r).collect()
}

#[test]
fn every_kernel_compiles_without_a_recipe_verifies_and_builds() {
    let mut cases = case_files("strategy/kernels", "c");
    assert!(cases.len() >= 25, "{} kernels", cases.len());
    cases.extend(case_files("deps", "c"));
    let outcomes = in_parallel(&cases, |p| compile_without_recipe(p));
    let mut failures = Vec::new();
    let mut parallel = 0;
    for o in &outcomes {
        // `deps/dot.c` and `strategy/kernels/dot.c` both exist: the folder is in the name.
        let folder = o
            .path
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy();
        let name = format!(
            "{folder}__{}",
            o.path.file_name().unwrap().to_string_lossy()
        );
        if o.code != 0 {
            failures.push(format!(
                "{}: exit {}\n{}",
                relative(&o.path),
                o.code,
                o.stderr
            ));
            continue;
        }
        if !o.verified {
            failures.push(format!("{}: not verified\n{}", relative(&o.path), o.stderr));
        }
        if o.report["parallel"] == serde_json::Value::Bool(true) {
            parallel += 1;
        }
        let recipe = o.report["recipe"]
            .as_str()
            .unwrap_or("(no recipe in the report)");
        insta::with_settings!({snapshot_path => "strategy/snapshots", prepend_module_to_snapshot => false, omit_expression => true, input_file => &o.path}, {
            insta::assert_snapshot!(format!("generated_recipe@{name}"), recipe);
        });
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // Only the kernels whose every loop carries a dependence run in one thread.
    assert!(
        parallel * 10 >= outcomes.len() * 8,
        "{parallel} of {} parallel",
        outcomes.len()
    );
    let Some(nvcc) = nvcc() else {
        if std::env::var_os("GPUCC_SKIP_NVCC").is_some() {
            eprintln!("nvcc not found and GPUCC_SKIP_NVCC is set: the nvcc checks are skipped");
            return;
        }
        panic!("nvcc not found: run scripts/install-cuda-toolchain (or set GPUCC_NVCC, or GPUCC_SKIP_NVCC=1 to skip)");
    };
    let built = in_parallel(&outcomes, |o| -> Vec<String> {
        let mut problems = Vec::new();
        let Some(cu) = &o.cu else {
            return vec![format!("{}: no .cu", relative(&o.path))];
        };
        // The case's include directories, for headers the copied-through text includes.
        let args = case_args(&o.path);
        let includes: Vec<String> = args
            .windows(2)
            .filter(|w| w[0] == "-I")
            .flat_map(|w| ["-I".to_string(), w[1].clone()])
            .collect();
        for arch in ["sm_90", "sm_80"] {
            let out = std::process::Command::new(&nvcc)
                .args(&includes)
                .args(["-arch", arch, "-cubin", "-Xptxas", "-v", "-o"])
                .arg(cu.with_extension(format!("{arch}.cubin")))
                .arg(cu)
                .output()
                .expect("nvcc runs");
            let stderr = String::from_utf8_lossy(&out.stderr);
            if !out.status.success() {
                problems.push(format!(
                    "{}: nvcc -arch={arch} failed:\n{stderr}",
                    relative(&o.path)
                ));
            }
            for line in stderr.lines() {
                let spill = line.contains("spill stores") && !line.contains("0 bytes spill stores");
                if line.contains("warning") || spill {
                    problems.push(format!("{}: nvcc -arch={arch}: {line}", relative(&o.path)));
                }
            }
        }
        problems
    });
    let problems: Vec<String> = built.into_iter().flatten().collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn strategies_writes_ranked_recipes_that_replay() {
    let dir = scratch_path("strategies");
    let (code, out, err) = gpucc(&[
        "strategies".into(),
        "testsuite/deps/matvec.c".into(),
        "-o".into(),
        dir.display().to_string(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("ranking in"), "{out}");
    let ranking = std::fs::read_to_string(dir.join("ranking.txt")).unwrap();
    assert!(ranking.contains("chosen.lua"), "{ranking}");
    let first = dir.join("variant01_nest1.lua");
    let text = std::fs::read_to_string(&first).unwrap();
    assert!(text.contains("-- Predicted time on the device:"), "{text}");
    assert!(text.contains("cudaize("), "{text}");
    // A written variant replays with --recipe and computes what the C computes.
    let cu = scratch_path("replayed.cu");
    let (code, _, err) = gpucc(&[
        "testsuite/deps/matvec.c".into(),
        "--recipe".into(),
        first.display().to_string(),
        "-o".into(),
        cu.display().to_string(),
        "--verify".into(),
    ]);
    assert_eq!(code, 0, "{err}");
}

/// Tuning the tile sizes never makes the choice worse than a variant at its default
/// sizes: the chosen recipe's predicted time is at most every variant's. (With the
/// emulator of 00873e6, gemm_nn at 2048 was chosen at a predicted 1.046 ms against its
/// best variant's 1.026 ms: that variant's defaults were not among the 12 combinations
/// tuning tried, and it kept the best of those. Today's emulator ranks other sizes above
/// the defaults there, so this holds with or without the fix; it guards the property.)
#[test]
fn the_tuned_choice_is_predicted_no_slower_than_any_variant() {
    let dir = scratch_path("tuned");
    let (code, _, err) = gpucc(&[
        "strategies".into(),
        "testsuite/strategy/kernels/gemm_nn.c".into(),
        "-D".into(),
        "N=2048".into(),
        "-o".into(),
        dir.display().to_string(),
    ]);
    assert_eq!(code, 0, "{err}");
    let ranking = std::fs::read_to_string(dir.join("ranking.txt")).unwrap();
    let us = |line: &str| -> f64 {
        let f: Vec<&str> = line.split_whitespace().collect();
        let v: f64 = f[1].parse().unwrap();
        match f[2] {
            "ms" => v * 1000.0,
            "us" => v,
            "s" => v * 1e6,
            u => panic!("unit {u} in {line}"),
        }
    };
    let chosen = ranking
        .lines()
        .find(|l| l.starts_with("chosen.lua"))
        .map(us)
        .unwrap();
    for line in ranking.lines().filter(|l| l.starts_with("variant")) {
        assert!(chosen <= us(line) * (1.0 + 1e-9), "{ranking}");
    }
}

#[test]
fn explain_names_the_decisions_and_the_ranking() {
    let cu = scratch_path("explained.cu");
    let (code, out, err) = gpucc(&[
        "testsuite/deps/matmul_kij.c".into(),
        "-o".into(),
        cu.display().to_string(),
        "--explain".into(),
        "--no-verify".into(),
    ]);
    assert_eq!(code, 0, "{err}");
    for expected in [
        "Nest 1",
        "chosen:",
        "Predicted",
        "seed 000",
        "variants compiled",
    ] {
        assert!(out.contains(expected), "missing `{expected}` in:\n{out}");
    }
    assert!(err.contains("gpucc: chose"), "{err}");
}

/// What the ranking skips by its lower bound is what taking the candidates one at a time
/// would skip, not what the threads' timing makes of it: two matrix products in sequence
/// (where the cores once raced, 9 or 10 of 45 candidates skipped from run to run) give
/// the same listing every time.
#[test]
fn the_ranking_lists_the_same_candidates_on_every_run() {
    let cu = scratch_path("same-every-run.cu");
    let run = || {
        let (code, out, err) = gpucc(&[
            "testsuite/strategy/kernels/mm2.c".into(),
            "-o".into(),
            cu.display().to_string(),
            "--explain".into(),
            "--no-verify".into(),
        ]);
        assert_eq!(code, 0, "{err}");
        let summary = err
            .lines()
            .find(|l| l.contains(" among "))
            .map(str::to_string);
        (out, summary.expect("a summary line"))
    };
    let first = run();
    assert!(first.0.contains("not compiled"), "{}", first.0);
    for _ in 0..3 {
        assert_eq!(run(), first);
    }
}

#[test]
fn strategy_errors_are_usage_errors_with_a_hint() {
    let (code, _, err) = gpucc(&[
        "testsuite/deps/matvec.c".into(),
        "--device".into(),
        "gtx280".into(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("no device named `gtx280`") && err.contains("h100"),
        "{err}"
    );
    let (code, _, err) = gpucc(&[
        "testsuite/deps/matvec.c".into(),
        "--recipe".into(),
        "recipes/matvec.lua".into(),
        "--explain".into(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--explain"), "{err}");
    let (code, _, err) = gpucc(&[
        "strategies".into(),
        "testsuite/deps/matvec.c".into(),
        "-o".into(),
        "/proc/gpucc-cannot-write-here".into(),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("cannot create"), "{err}");
}

/// Ranking compiles every variant of a program whole, and reuses the code and the
/// emulation of a kernel whose key ([`gpucc::codegen::reuse::kernel_source`]) it met
/// before: the kernel of a nest a variant leaves alone keeps its key, and a change to a
/// nest (its tiles, its unrolling) changes its kernel's key.
#[test]
fn a_kernel_keeps_its_key_while_its_nest_is_unchanged() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("testsuite/strategy/kernels/mm2.c");
    let mut program = crate::harness::programs_with(&path, &[]).remove(0);
    let deps = gpucc::deps::analyze(&mut program).expect("mm2 analyses");
    let macros = gpucc::frontend::macros::MacroTable::default();
    let generate = |first: i64, second: i64, unroll: bool| {
        let text = format!(
            "tile_by_index(1, {{\"i\", \"j\", \"k\"}}, {{{first}, 32, 8}}, {{l1_control=\"ii\", l2_control=\"jj\", l3_control=\"kk\"}}, {{\"ii\", \"jj\", \"kk\", \"i\", \"j\", \"k\"}})\n\
             cudaize(1, \"first\", {{}}, {{block={{\"jj\", \"ii\"}}, thread={{\"j\", \"i\"}}}})\n\
             tile_by_index(3, {{\"i\", \"l\", \"j\"}}, {{{second}, 32, 8}}, {{l1_control=\"ii1\", l2_control=\"ll1\", l3_control=\"jj1\"}}, {{\"ii1\", \"ll1\", \"jj1\", \"i\", \"l\", \"j\"}})\n\
             cudaize(3, \"second\", {{}}, {{block={{\"ll1\", \"ii1\"}}, thread={{\"l\", \"i\"}}}})\n{}",
            if unroll { "unroll_to_depth(1)\n" } else { "" }
        );
        let mut sources = gpucc::diag::SourceMap::default();
        let id = sources.add(gpucc::diag::SourceFile::new("variant.lua", text));
        let recipe = gpucc::recipe::parse(sources.get(id), id).expect("the recipe parses");
        let options = gpucc::recipe::RunOptions {
            params: &[],
            macros: &macros,
        };
        let t = gpucc::transform::Transformed::new(program.clone(), deps.clone());
        let result = gpucc::recipe::run(&recipe, t, &options).expect("the recipe runs");
        gpucc::codegen::generate(&result.transformed).expect("code is generated")
    };
    let base = generate(4, 4, false);
    let second_changed = generate(4, 8, false);
    let first_changed = generate(8, 4, false);
    let unrolled = generate(4, 4, true);
    let key = |g: &gpucc::codegen::ir::Generated, k: usize| g.kernels[k].source.clone();
    assert_eq!(key(&base, 0), key(&second_changed, 0));
    assert_ne!(key(&base, 1), key(&second_changed, 1));
    assert_ne!(key(&base, 0), key(&first_changed, 0));
    assert_eq!(key(&base, 1), key(&first_changed, 1));
    assert_ne!(key(&base, 0), key(&unrolled, 0));
    assert_ne!(key(&base, 1), key(&unrolled, 1));
    // The kernel kept is the one generated.
    assert_eq!(
        format!("{:?}", base.kernels[0]),
        format!("{:?}", second_changed.kernels[0])
    );
}

/// The `--explain --json` report of compiling `args` (without the check).
fn explained(name: &str, args: &[&str]) -> serde_json::Value {
    explained_to(&scratch_path(name), args)
}

/// [`explained`], writing the `.cu` to `cu`.
fn explained_to(cu: &Path, args: &[&str]) -> serde_json::Value {
    let mut all: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    all.extend([
        "-o".into(),
        cu.display().to_string(),
        "--explain".into(),
        "--json".into(),
        "--no-verify".into(),
    ]);
    let (code, out, err) = gpucc(&all);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// What each refinement of a report tried (its `what`).
fn refinements_tried(report: &serde_json::Value) -> Vec<&str> {
    report["refinements"]
        .as_array()
        .expect("refinements")
        .iter()
        .filter_map(|r| r["what"].as_str())
        .collect()
}

/// The variants' descriptions of nest `k` in a report.
fn variant_descriptions(report: &serde_json::Value, k: usize) -> Vec<String> {
    report["nests"][k]["variants"]
        .as_array()
        .expect("variants")
        .iter()
        .map(|v| v["description"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// An array that an earlier nest writes is read-only in a later nest's kernel: the later
/// nest may stage it in shared memory (mm2's second product reads `tmp`, the first one's
/// result), but not read it through the read-only cache or constant memory, which are
/// placements of the whole program.
#[test]
fn a_nest_may_stage_what_an_earlier_nest_wrote() {
    let report = explained("staged-tmp.cu", &["testsuite/strategy/kernels/mm2.c"]);
    let second = variant_descriptions(&report, 1);
    assert!(
        second
            .iter()
            .any(|d| d.contains("tmp, C in shared memory") || d.contains("tmp in shared memory")),
        "{second:#?}"
    );
    for d in second.iter().chain(&variant_descriptions(&report, 0)) {
        for placed in ["through the read-only cache", "in constant memory"] {
            let Some(part) = d.split("; ").find(|p| p.ends_with(placed)) else {
                continue;
            };
            assert!(!part.contains("tmp"), "`tmp` is written: {d}");
        }
    }
}

/// The outer-product variant is ranked against the others at a tile size that gives every
/// SM a block where one does: at 800 x 900 doubles, the largest tiles (128 x 64) make 104
/// blocks for 132 SMs, and the variant lost to a plain one (PolyBench 2mm).
#[test]
fn the_outer_product_default_fills_the_device() {
    let report = explained(
        "filled.cu",
        &[
            "testsuite/strategy/kernels/dgemm_nn.c",
            "-D",
            "M=800",
            "-D",
            "N=900",
        ],
    );
    let outer: Vec<String> = variant_descriptions(&report, 0)
        .into_iter()
        .filter(|d| d.contains("RX="))
        .collect();
    assert!(!outer.is_empty(), "no outer-product variant");
    let value = |d: &str, name: &str| -> i64 {
        d.split_whitespace()
            .find_map(|w| w.strip_prefix(&format!("{name}=")))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in {d}"))
    };
    for d in &outer {
        let (tx, ty) = (value(d, "TX"), value(d, "TY"));
        let blocks = ((900 + tx - 1) / tx) * ((800 + ty - 1) / ty);
        assert!(blocks >= 132, "{blocks} blocks: {d}");
        assert!(value(d, "RX") <= value(d, "RY"), "{d}");
    }
}

/// A parallel loop whose body holds several loop nests is distributed, so that the loops
/// inside it map to threads too: PolyBench's GEMM order (`C *= beta` in a loop of its own,
/// then the product in i-k-j order) maps only `i` as written; distributed, the product
/// maps in 2-D with register tiles. The tuner ranks both forms and says so.
#[test]
fn a_loop_holding_several_nests_is_distributed() {
    let cu = scratch_path("distributed.cu");
    let report = explained_to(&cu, &["testsuite/strategy/kernels/gemm_scaled_rows.c"]);
    let refinements = report["refinements"].as_array().expect("refinements");
    let distributed = refinements
        .iter()
        .find(|r| {
            r["what"]
                .as_str()
                .unwrap_or_default()
                .contains("distributed")
        })
        .unwrap_or_else(|| panic!("no distribution among {refinements:#?}"));
    assert_eq!(distributed["kept"], true, "{distributed:#?}");
    let chosen = report["nests"][1]["chosen"]
        .as_str()
        .expect("a second nest");
    assert!(chosen.starts_with("2-D threads (`j`, `i`)"), "{chosen}");
    assert!(chosen.contains("C in registers"), "{chosen}");
    let cu = std::fs::read_to_string(&cu).expect("the .cu");
    assert!(cu.contains(" *   distribute({0}, \"i\")"), "{cu}");
    // Where the loop inside holds no parallel loop (the row's sum of a matrix product),
    // nothing is distributed.
    let plain = explained("not-distributed.cu", &["testsuite/strategy/kernels/mm2.c"]);
    let whats = refinements_tried(&plain);
    assert!(
        !whats.iter().any(|w| w.contains("distributed")),
        "{whats:?}"
    );
}

/// Loops that hold several nests but are left whole: a first part of two statements
/// (`distribute` would split it too) and a loop that a private scalar is indexed by (its
/// definition and its uses would land in different nests). Both compile, checked on the
/// CPU, with no `distribute` in their recipes.
#[test]
fn loops_that_distribution_would_break_are_left_whole() {
    for name in ["two_statement_part", "private_scalar"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testsuite/strategy/distribution")
            .join(format!("{name}.c"));
        let o = compile_without_recipe(&path);
        assert_eq!(o.code, 0, "{name}: {}", o.stderr);
        assert!(o.verified, "{name}: not verified: {}", o.stderr);
        let cu = std::fs::read_to_string(o.cu.expect("a .cu")).expect("the .cu");
        assert!(!cu.contains(" *   distribute("), "{name}: {cu}");
        let whats = refinements_tried(&o.report);
        assert!(
            !whats.iter().any(|w| w.contains("distributed")),
            "{name}: {whats:?}"
        );
    }
}

/// The signatures (`Nest::signature`) and shapes (`Nest::shape`) of a file's nests.
fn signatures_and_shapes(file: &str) -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let mut program = crate::harness::programs_with(&path, &[]).remove(0);
    let deps = gpucc::deps::analyze(&mut program).unwrap();
    let device = gpucc::device::Device::default_device();
    let plan = gpucc::strategy::plan(&program, &deps, &device, &[], true);
    plan.nests()
        .iter()
        .map(|n| (n.signature(&program), n.shape(&program)))
        .collect()
}

/// Phase IV searches the tile sizes of twin nests once (`src/tune/values.rs`, `twin`):
/// nests that compute the same on other arrays, as stencil3d_heat's two sweeps (`A` to `B`,
/// then `B` to `A`), have one signature; mm2's two matrix products (other statements,
/// other sizes) do not.
#[test]
fn twin_nests_share_a_signature_and_others_do_not() {
    let heat = signatures_and_shapes("testsuite/strategy/kernels/stencil3d_heat.c");
    assert_eq!(heat.len(), 2, "{heat:?}");
    assert_eq!(heat[0].0, heat[1].0);
    assert!(heat[0].0.contains("@0[i][j][k] = "), "{}", heat[0].0);
    let mm2 = signatures_and_shapes("testsuite/strategy/kernels/mm2.c");
    assert_eq!(mm2.len(), 2, "{mm2:?}");
    assert_ne!(mm2[0].0, mm2[1].0);
}

/// Phase IV searches a nest's tile sizes from those of an earlier nest of the same shape
/// (`near_twin`): 3mm's three products are one computation at other sizes, so one shape
/// and three signatures; twins have one shape too; mm2's products (other statements) do
/// not. The ranking of mm3.c searches so, and its CUDA verifies.
#[test]
fn nests_of_one_computation_at_other_sizes_share_a_shape() {
    let mm3 = signatures_and_shapes("testsuite/strategy/shapes/mm3.c");
    assert_eq!(mm3.len(), 3, "{mm3:?}");
    assert!(mm3.iter().all(|(_, shape)| *shape == mm3[0].1), "{mm3:?}");
    assert_ne!(mm3[0].0, mm3[1].0);
    assert_ne!(mm3[1].0, mm3[2].0);
    assert_ne!(mm3[0].0, mm3[2].0);
    // Sizes are left out, loop indices and statements kept.
    assert!(mm3[0].1.contains("for k # <= k < _ 1;"), "{}", mm3[0].1);
    assert!(!mm3[0].1.contains("320"), "{}", mm3[0].1);
    let heat = signatures_and_shapes("testsuite/strategy/kernels/stencil3d_heat.c");
    assert_eq!(heat[0].1, heat[1].1);
    let mm2 = signatures_and_shapes("testsuite/strategy/kernels/mm2.c");
    assert_ne!(mm2[0].1, mm2[1].1);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("testsuite/strategy/shapes/mm3.c");
    let o = compile_without_recipe(&path);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.verified, "not verified: {}", o.stderr);
}
