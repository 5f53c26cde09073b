//! `gpucc advise`: the report on every strategy kernel, the advice for a naive matrix
//! product (a snapshot: shared-memory staging and register tiles with their speedups and
//! recipe edits), applying the top advice, and the errors.

use crate::harness::{case_args, case_files, gpucc, relative, scratch_path};

fn run(args: &[&str]) -> (i32, String, String) {
    gpucc(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
}

fn json_of(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}):\n{out}"))
}

const NAIVE: &[&str] = &[
    "advise",
    "testsuite/cuda/sgemm.c",
    "-D",
    "N=1024",
    "--recipe",
    "testsuite/emulate/sgemm_one_per_thread.lua",
];

#[test]
fn every_strategy_kernel_gets_a_report() {
    for path in case_files("strategy/kernels", "c") {
        let file = relative(&path);
        let (code, out, err) = run(&["advise", &file, "--json"]);
        assert_eq!(code, 0, "{file}: {err}");
        let v = json_of(&out);
        let now = v["predicted_us"].as_f64().unwrap();
        assert!(now > 0.0, "{file}");
        assert!(!v["kernels"].as_array().unwrap().is_empty(), "{file}");
        // gpucc's own choice is the fastest variant it compiled, and advise emulates as
        // the ranking does: no variant is predicted faster.
        assert_eq!(v["advice"].as_array().unwrap().len(), 0, "{file}: {out}");
    }
}

#[test]
fn every_recipe_case_gets_a_report() {
    // The cases of testsuite/cuda/ with their recipes: advice on a user's recipe.
    for path in case_files("cuda", "c") {
        let file = relative(&path);
        let mut args = vec!["advise".to_string(), file.clone()];
        args.extend(case_args(&path));
        args.push("--json".into());
        let (code, out, err) = gpucc(&args);
        assert_eq!(code, 0, "{file}: {err}");
        let v = json_of(&out);
        let now = v["predicted_us"].as_f64().unwrap();
        for a in v["advice"].as_array().unwrap() {
            let speedup = a["speedup"].as_f64().unwrap();
            let predicted = a["predicted_us"].as_f64().unwrap();
            assert!(
                (speedup - now / predicted).abs() < 1e-9 * speedup,
                "{file}: {a}"
            );
            // A piece of advice whose own part is known never slows the code down.
            if let Some(own) = a["own_speedup"].as_f64() {
                assert!(own >= 1.0, "{file}: {a}");
            }
        }
    }
}

#[test]
fn a_naive_matrix_product_is_told_to_stage_in_shared_memory_and_tile_in_registers() {
    let (code, out, err) = run(NAIVE);
    assert_eq!(code, 0, "{err}");
    insta::with_settings!({snapshot_path => "advise/snapshots", prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::assert_snapshot!("advise@sgemm_one_per_thread", out);
    });
    let mut args = NAIVE.to_vec();
    args.push("--json");
    let (_, json, _) = run(&args);
    let v = json_of(&json);
    let now = v["predicted_us"].as_f64().unwrap();
    let advice = v["advice"].as_array().unwrap();
    let named = |what: &str| {
        advice
            .iter()
            .find(|a| {
                a["optimizations"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|o| o == what)
            })
            .unwrap_or_else(|| panic!("no advice `{what}`: {json}"))
    };
    for what in ["stage in shared memory", "register tiles"] {
        let a = named(what);
        let speedup = a["speedup"].as_f64().unwrap();
        assert!(speedup > 1.0, "{what}: {a}");
        assert!((speedup - now / a["predicted_us"].as_f64().unwrap()).abs() < 1e-9);
        let edit = a["edit"].as_array().unwrap();
        assert!(
            edit.iter()
                .any(|l| l.as_str().unwrap().starts_with("+ copy_to_shared(")),
            "{a}"
        );
    }
    // The naive kernel is limited by its loads: the first cause is a memory one.
    let first = &v["kernels"][0]["causes"][0]["resource"];
    assert!(
        ["shared", "l2", "dram", "lsu"].contains(&first.as_str().unwrap()),
        "{first}"
    );
}

#[test]
fn applying_the_top_advice_makes_the_time_fall_as_estimated() {
    let mut args = NAIVE.to_vec();
    args.push("--json");
    let (_, json, _) = run(&args);
    let v = json_of(&json);
    let estimated = v["advice"][0]["predicted_us"].as_f64().unwrap();
    let recipe = scratch_path("advised.lua");
    let recipe = recipe.display().to_string();
    let mut apply = NAIVE.to_vec();
    apply.extend(["--apply", "1", "-o", &recipe]);
    let (code, _, err) = run(&apply);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("gpucc: wrote"), "{err}");
    // Emulated as the ranking emulates (kernel IR, registers estimated).
    let (code, out, err) = run(&[
        "emulate",
        "testsuite/cuda/sgemm.c",
        "-D",
        "N=1024",
        "--recipe",
        &recipe,
        "--ir-streams",
        "--estimate-registers",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let after = json_of(&out)["predicted_time_us"].as_f64().unwrap();
    let before = v["predicted_us"].as_f64().unwrap();
    assert!(after < before, "{after} us after, {before} us before");
    assert!(
        (after - estimated).abs() <= 0.02 * estimated,
        "estimated {estimated} us, emulated {after} us"
    );
    // The written recipe also compiles and verifies on the CPU.
    let (code, _, err) = run(&[
        "testsuite/cuda/sgemm.c",
        "-D",
        "N=64",
        "--recipe",
        &recipe,
        "--verify",
        "-o",
        &scratch_path("advised.cu").display().to_string(),
    ]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn the_errors_say_what_is_wrong() {
    let mut args = NAIVE.to_vec();
    args.extend(["--apply", "99"]);
    let (code, _, err) = run(&args);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("there is no advice 99"), "{err}");
    let (code, _, err) = run(&[
        "advise",
        "testsuite/strategy/kernels/saxpy.c",
        "--device",
        "nosuch",
    ]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&[
        "advise",
        "testsuite/strategy/kernels/saxpy.c",
        "-o",
        "x.lua",
    ]);
    assert_eq!(code, 2, "-o without --apply: {err}");
    let (code, _, err) = run(&[
        "advise",
        "testsuite/cuda/sgemm.c",
        "--recipe",
        "testsuite/project/no_such_recipe.lua",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("cannot read the recipe"), "{err}");
}
