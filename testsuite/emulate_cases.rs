//! `gpucc emulate`: snapshots of its report for the shipped recipes (the base cases of
//! `testsuite/cuda/`), and the properties the issue asks of the emulator on whole kernels:
//! SGEMM's register- and shared-memory-tiled recipe is predicted faster than one element
//! per thread, every kernel gets a bottleneck, and more blocks than fit at once take more
//! waves; guards around copies, and updates nvcc keeps in registers.

use crate::harness::{case_args, case_files, gpucc, nvcc, relative};

fn emulate_json(args: &[&str]) -> serde_json::Value {
    let mut v = vec!["emulate".to_string()];
    v.extend(args.iter().filter(|s| !s.is_empty()).map(|s| s.to_string()));
    v.push("--json".into());
    let (code, out, err) = gpucc(&v);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn emulate_reports_for_the_shipped_recipes() {
    // The cases that use a recipe of recipes/ at its default parameters.
    let cases: Vec<_> = case_files("cuda", "c")
        .into_iter()
        .filter(|p| {
            let args = case_args(p);
            args.iter().any(|a| a.starts_with("recipes/"))
                && !args.iter().any(|a| a == "-P" || a == "-D")
        })
        .collect();
    assert!(cases.len() >= 8, "{} cases", cases.len());
    for path in cases {
        let mut args = vec!["emulate".to_string(), relative(&path)];
        args.extend(case_args(&path));
        let (code, out, err) = gpucc(&args);
        assert_eq!(code, 0, "{}: {err}", relative(&path));
        assert!(out.contains("bottleneck: "), "{out}");
        if nvcc().is_none() {
            // The reports say where registers come from: ptxas, where the toolchain is.
            eprintln!("nvcc not found: the emulate snapshots are not compared");
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        insta::with_settings!({snapshot_path => "emulate/snapshots", prepend_module_to_snapshot => false, omit_expression => true, input_file => &path}, {
            insta::assert_snapshot!(format!("emulate@{name}"), out);
        });
    }
}

#[test]
fn the_tiled_sgemm_beats_one_element_per_thread_and_both_name_a_bottleneck() {
    // Streams from the SASS (where nvcc is installed) and from the kernel IR.
    for streams in ["--ir-streams", ""] {
        tiled_beats_naive(streams);
    }
}

fn tiled_beats_naive(streams: &str) {
    // At 1024 x 1024: at the file's 128, the tiled recipe's 16 blocks leave most of the
    // 132 SMs idle and one element per thread is predicted faster, as it would be.
    let tiled = emulate_json(&[
        "testsuite/cuda/sgemm.c",
        "-D",
        "N=1024",
        "--recipe",
        "recipes/sgemm.lua",
        streams,
    ]);
    let naive = emulate_json(&[
        "testsuite/cuda/sgemm.c",
        "-D",
        "N=1024",
        "--recipe",
        "testsuite/emulate/sgemm_one_per_thread.lua",
        streams,
    ]);
    let time = |v: &serde_json::Value| v["predicted_time_us"].as_f64().unwrap();
    assert!(
        time(&tiled) < time(&naive),
        "{}: tiled {} us, naive {} us",
        tiled["instruction_streams"],
        time(&tiled),
        time(&naive)
    );
    for v in [&tiled, &naive] {
        let b = v["bottleneck"].as_str().unwrap();
        assert!(b.ends_with(":latency") || b.ends_with(":throughput"), "{b}");
        // A slower resource never makes the kernel faster.
        for s in v["kernels"][0]["sensitivities"].as_array().unwrap() {
            for x in ["latency", "gap"] {
                assert!(s[x].as_f64().unwrap() >= 0.0, "{s}");
            }
        }
        assert!(v["emulation_ms"].as_f64().unwrap() > 0.0, "{v}");
        // Region by region: the SGEMM statement is where the time goes.
        let regions = v["kernels"][0]["region_sensitivities"].as_array().unwrap();
        assert!(
            regions.iter().any(|r| r["region"]
                .as_str()
                .unwrap()
                .starts_with("statement at line")),
            "{v}"
        );
    }
}

#[test]
fn registers_come_from_ptxas_when_nvcc_is_installed() {
    if nvcc().is_none() {
        eprintln!("nvcc not found: ptxas's registers not checked");
        return;
    }
    let v = emulate_json(&["testsuite/cuda/sgemm.c", "--recipe", "recipes/sgemm.lua"]);
    assert_eq!(v["registers"], "ptxas", "{v}");
    let k = &v["kernels"][0];
    assert_eq!(k["registers_from_ptxas"], true, "{v}");
    assert!(k["registers_per_thread"].as_i64().unwrap() > 0, "{v}");
}

#[test]
fn streams_come_from_the_sass_when_nvcc_is_installed() {
    let args = ["testsuite/cuda/sgemm.c", "--recipe", "recipes/sgemm.lua"];
    let source = |extra: &[&str]| {
        let v = emulate_json(&[&args[..], extra].concat());
        (
            v["instruction_source"].as_str().unwrap().to_string(),
            v["instruction_streams"].as_str().unwrap().to_string(),
        )
    };
    let (ir, why) = source(&["--ir-streams"]);
    assert_eq!(
        (ir.as_str(), why.contains("--ir-streams")),
        ("kernel IR", true),
        "{why}"
    );
    let (ir, why) = source(&["--estimate-registers"]);
    assert_eq!(ir, "kernel IR", "{why}");
    if nvcc().is_none() {
        eprintln!("nvcc not found: SASS streams not checked");
        return;
    }
    let (sass, why) = source(&[]);
    assert_eq!(sass, "SASS", "{why}");
}

#[test]
fn more_blocks_than_fit_take_more_waves() {
    let small = emulate_json(&[
        "testsuite/cuda/sgemm.c",
        "-D",
        "N=256",
        "--recipe",
        "testsuite/emulate/sgemm_one_per_thread.lua",
    ]);
    let large = emulate_json(&[
        "testsuite/cuda/sgemm.c",
        "-D",
        "N=2048",
        "--recipe",
        "testsuite/emulate/sgemm_one_per_thread.lua",
    ]);
    let waves = |v: &serde_json::Value| v["kernels"][0]["waves"].as_f64().unwrap();
    assert_eq!(waves(&small), 1.0);
    assert!(waves(&large) > 1.0, "{}", waves(&large));
    assert!(
        large["predicted_time_us"].as_f64() > small["predicted_time_us"].as_f64(),
        "{large} {small}"
    );
}

#[test]
fn emulate_errors() {
    let (code, _, err) = gpucc(&[
        "emulate".into(),
        "testsuite/cuda/sgemm.c".into(),
        "--device".into(),
        "gtx280".into(),
    ]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = gpucc(&[
        "emulate".into(),
        "testsuite/cuda/sgemm.c".into(),
        "--recipe".into(),
        "no/such.lua".into(),
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("cannot read the recipe"), "{err}");
}

/// `gpucc emulate --json` of SYRK's lower triangle (N = K = 512) with a recipe of its
/// calibration set, registers estimated.
fn syrk_lower(recipe: &str) -> serde_json::Value {
    let recipe = format!("benchmarks/calibration/syrk_lower/{recipe}");
    emulate_json(&[
        "testsuite/strategy/kernels/syrk_lower.c",
        "-D",
        "N=512",
        "-D",
        "K=512",
        "--recipe",
        &recipe,
        "--estimate-registers",
    ])
}

/// SYRK's lower triangle: the representative thread, in the middle of the launch, is
/// above the diagonal and skips the work; the guard's share of warps (about half) is
/// counted instead of nothing.
#[test]
fn a_triangle_guarded_by_position_counts_the_warps_that_pass() {
    let v = syrk_lower("variant01_nest1.lua");
    // 8 x 128 blocks of 64 x 4 threads; those wholly above the diagonal (a bit under
    // half) do nothing, and are not counted.
    let blocks = v["kernels"][0]["blocks"].as_f64().unwrap();
    assert!(blocks > 0.5 * 1024.0 && blocks < 0.65 * 1024.0, "{blocks}");
    // The report says how many are launched, and the share that works.
    assert_eq!(
        v["kernels"][0]["launched_blocks"].as_f64(),
        Some(1024.0),
        "{v}"
    );
    let share = v["kernels"][0]["working_share"].as_f64().unwrap();
    assert!((share * 1024.0 - blocks).abs() < 1e-6, "{v}");
    assert!(v["kernels"][0]["gflops"].as_f64().unwrap() > 0.0, "{v}");
    assert_ne!(v["bottleneck"], "branch:throughput", "{v}");
}

/// A 1-D stencil at N = 10: eight of a block's 64 threads (`i` from 1 to 8) do the work,
/// all in the first warp. Lanes 0, 15 and 31, which the guard's share samples first, all
/// miss them; the warp still passes, and its work is counted (it was once predicted as
/// nothing, below what the lower bound allows).
#[test]
fn a_guard_narrower_than_a_warp_still_counts_the_warp_that_passes_it() {
    let v = emulate_json(&[
        "testsuite/strategy/kernels/stencil1d_3pt.c",
        "-D",
        "N=10",
        "-D",
        "TSTEPS=2",
    ]);
    for k in v["kernels"].as_array().unwrap() {
        assert_eq!(k["working_share"].as_f64(), Some(0.5), "{v}");
    }
    assert!(v["kernels"][0]["gflops"].as_f64().unwrap() > 0.0, "{v}");
}

/// SYRK with one thread per column `j` walking the rows `i >= j`: 2 blocks, each on an SM
/// of its own, and the kernel lasts as long as the first block, whose threads have the
/// most rows. The representative thread is taken from that block (not the middle of the
/// grid, whose threads have the fewest rows).
#[test]
fn a_single_wave_lasts_as_long_as_its_busiest_block() {
    let v = syrk_lower("variant05_nest1.lua");
    let k = &v["kernels"][0];
    assert_eq!(k["blocks"].as_f64(), Some(2.0), "{v}");
    assert_eq!(k["waves"].as_f64(), Some(1.0), "{v}");
    // Three flops per (i, k); the rows of a thread of the first block: 257 to 512.
    let flops = k["gflops"].as_f64().unwrap() * k["predicted_time_us"].as_f64().unwrap() * 1e3;
    let rows = flops / (2.0 * 256.0) / (3.0 * 512.0);
    assert!(rows > 256.0 && rows <= 512.0, "{rows} rows per thread");
}

/// A distance matrix's tile loop: each iteration copies 272 rows into shared memory, then
/// computes on them, more than the 2000 instructions an IR stream emulates. The emulated
/// part has the iteration's mix, so the computation weighs in the time (it was all copies,
/// the computation's regions 0.01 of the time, when the stream was the first 2000).
#[test]
fn an_iteration_longer_than_the_stream_is_emulated_in_its_mix() {
    let v = emulate_json(&[
        "testsuite/strategy/kernels/distance_matrix.c",
        "-D",
        "NX=1024",
        "-D",
        "NY=2048",
        "--recipe",
        "benchmarks/calibration/distance_matrix/variant06_nest1.lua",
        "--estimate-registers",
    ]);
    let regions = v["kernels"][0]["region_sensitivities"].as_array().unwrap();
    let weight = |region: &str| -> f64 {
        regions
            .iter()
            .filter(|r| r["region"] == region)
            .map(|r| r["latency"].as_f64().unwrap() + r["gap"].as_f64().unwrap())
            .sum()
    };
    let computation = weight("statement at line 15");
    let copies = weight("copy of Y into shared memory");
    assert!(computation > 0.1, "{computation} {v}");
    assert!(copies < 0.6, "{copies} {v}");
}

/// GEMV^T stages 16 elements of `x` per tile with the threads `tx < 16`: that guard is
/// around the copy only, so every block still computes (16 blocks of 256 at N = 4096).
#[test]
fn a_guard_around_a_copy_leaves_every_block_its_work() {
    let v = emulate_json(&[
        "testsuite/strategy/kernels/gemv_t.c",
        "-D",
        "M=4096",
        "-D",
        "N=4096",
        "--recipe",
        "benchmarks/calibration/gemv_t/variant04_nest1.lua",
        "--estimate-registers",
    ]);
    assert_eq!(v["kernels"][0]["blocks"].as_f64(), Some(16.0), "{v}");
}

/// `C[i][j] += ...` in the loop over `k`, with `C` left in global memory (no register
/// copy): nvcc keeps the element in a register over the loop (the pointers are
/// `__restrict__`), so the traffic is close to that of the recipe that copies `C` to
/// registers, not one read and one write of `C` per multiply-add.
#[test]
fn an_update_that_stays_put_along_the_inner_loop_is_kept_in_a_register() {
    let bytes = |recipe: &str| {
        let v = emulate_json(&[
            "testsuite/strategy/kernels/gemm_nn.c",
            "-D",
            "N=512",
            "--recipe",
            recipe,
            "--estimate-registers",
        ]);
        let k = &v["kernels"][0];
        k["gbs"].as_f64().unwrap() * k["predicted_time_us"].as_f64().unwrap()
    };
    let in_memory = bytes("benchmarks/calibration/gemm_nn/variant05_nest1.lua");
    let in_registers = bytes("benchmarks/calibration/gemm_nn/variant01_nest1.lua");
    assert!(
        in_memory < 2.0 * in_registers,
        "C in global memory: {in_memory} bytes; in registers: {in_registers}"
    );
}

/// No prediction is faster than the device allows (issue 19): every kernel of every
/// recipe case takes at least its floor, the time its compulsory DRAM traffic takes at
/// the device's bandwidth or its arithmetic at the pipes' peak, whichever is longer; and
/// the floor of a kernel launched once is positive (it reads its arrays from DRAM).
#[test]
fn no_kernel_is_predicted_faster_than_the_device_allows() {
    for path in case_files("cuda", "c") {
        let case = relative(&path);
        let mut args = vec![case.clone()];
        args.extend(case_args(&path));
        args.push("--ir-streams".into());
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let v = emulate_json(&argv);
        for k in v["kernels"].as_array().unwrap() {
            let time = k["predicted_time_us"].as_f64().unwrap();
            let floor = k["floor_us"].as_f64().unwrap();
            let launches = k["launches"].as_f64().unwrap().max(1.0);
            assert!(
                floor > 0.0 || launches > 1.0,
                "{case}: kernel {} has no floor",
                k["name"]
            );
            assert!(
                time >= floor * launches,
                "{case}: kernel {} predicted at {time:.2} us, below its floor {floor:.2} us x {launches} launches",
                k["name"]
            );
        }
    }
}

/// The floor's bandwidth is the streaming rate gpucc measured, not the vendor's peak: the
/// block-per-row SGEMV at 16384² on the H200 (1 GiB of `A`, read once) was predicted at
/// 4,580 GB/s, under the 4.8 TB/s of NVIDIA's figure but above the 4,480 GB/s a streaming
/// read reached (`devices/h200.toml`'s DRAM gap; measured 255.8 us, 4,197 GB/s).
#[test]
fn a_streaming_kernel_is_not_predicted_above_the_measured_dram_rate() {
    let v = emulate_json(&[
        "benchmarks/vendor/sgemv.c",
        "-D",
        "M=16384",
        "-D",
        "N=16384",
        "--recipe",
        "recipes/matvec_rows.lua",
        "--device",
        "h200",
        "--ir-streams",
        "--estimate-registers",
    ]);
    let kernels = v["kernels"].as_array().unwrap();
    let sum = kernels
        .iter()
        .find(|k| k["name"] == "matvec_kernel")
        .expect("the sum's kernel");
    let time_us = sum["predicted_time_us"].as_f64().unwrap();
    let gb_s = 16384.0 * 16384.0 * 4.0 / (time_us * 1e3);
    assert!(
        gb_s <= 4480.6,
        "predicted {time_us:.1} us: {gb_s:.0} GB/s of A"
    );
}

/// Arithmetic as nvcc issues it (issue 19): `C += A * B` is one fused multiply-add, and in
/// an unrolled register tile `alpha * A_shared[..][k]`, the same for a row of the tile, is
/// computed once, not once per statement. So the outer-product gemm_nn (`C += alpha * A *
/// B`, with `C *= beta` before) does at most 20% more FP32 work than the same tiling of
/// `C += A * B`, as its SASS does (8 FMUL and 64 FFMA per k step, against 64): counted
/// per statement and operator, it did 3 times as much.
#[test]
fn fused_multiply_adds_and_a_runs_common_products_are_counted_once() {
    let floor = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["-D", "N=2048", "--estimate-registers"]);
        emulate_json(&all)["kernels"][0]["floor_us"]
            .as_f64()
            .unwrap()
    };
    let plain = floor(&[
        "benchmarks/vendor/sgemm.c",
        "-D",
        "M=2048",
        "-D",
        "K=2048",
        "--recipe",
        "recipes/sgemm_outer.lua",
    ]);
    let scaled = floor(&[
        "testsuite/strategy/kernels/gemm_nn.c",
        "--recipe",
        "benchmarks/calibration/outer/gemm_nn_outer.lua",
        "-P",
        "TX=128",
        "-P",
        "TY=128",
        "-P",
        "TK=16",
        "-P",
        "RX=8",
        "-P",
        "RY=8",
    ]);
    assert!(
        scaled < 1.2 * plain,
        "FP32 floor of alpha * A * B: {scaled} us; of A * B: {plain} us"
    );
}
