//! `gpucc project`: the projection on every strategy kernel, the table over every device
//! description (a snapshot), the C timed on this machine (and stopped at its limit), and
//! the errors.

use crate::harness::{case_files, gpucc, relative};

fn project(args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["project".to_string()];
    all.extend(args.iter().map(|s| s.to_string()));
    gpucc(&all)
}

fn json_of(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}):\n{out}"))
}

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn every_strategy_kernel_is_projected_with_its_copies() {
    let kernels = case_files("strategy/kernels", "c");
    assert!(kernels.len() >= 40, "{} kernels", kernels.len());
    for path in kernels {
        let file = relative(&path);
        let (code, out, err) = project(&[&file, "--no-cpu", "--json"]);
        assert_eq!(code, 0, "{file}: {err}");
        let v = json_of(&out);
        assert!(v["cpu"].is_null(), "{file}");
        let d = &v["devices"][0];
        assert!(f(&d["kernel_us"]) > 0.0, "{file}: {d}");
        let copies = d["copies"].as_array().unwrap();
        // Every kernel reads something from the caller and gives something back.
        assert!(copies.iter().any(|c| c["direction"] == "in"), "{file}: {d}");
        assert!(
            copies.iter().any(|c| c["direction"] == "out"),
            "{file}: {d}"
        );
        // Each copy costs the link's fixed cost plus its bytes at the link's rate.
        let link = &d["link"];
        let expected: f64 = copies
            .iter()
            .map(|c| {
                f(&link["copy_latency_us"])
                    + c["bytes"].as_f64().unwrap_or(0.0) / (f(&link["gb_s"]) * 1e3)
            })
            .sum();
        assert!(
            (f(&d["copy_us"]) - expected).abs() <= 1e-9 * expected,
            "{file}: {d}"
        );
        assert!((f(&d["total_us"]) - f(&d["kernel_us"]) - f(&d["copy_us"])).abs() < 1e-6);
    }
}

#[test]
fn every_device_description_is_in_the_table() {
    let (code, out, err) = project(&[
        "testsuite/strategy/kernels/gemv_n.c",
        "--device",
        "all",
        "--no-cpu",
    ]);
    assert_eq!(code, 0, "{err}");
    insta::with_settings!({snapshot_path => "project/snapshots", prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::assert_snapshot!("project@gemv_n_all_devices", out);
    });
    let (_, json, _) = project(&[
        "testsuite/strategy/kernels/gemv_n.c",
        "--device",
        "all",
        "--no-cpu",
        "--json",
    ]);
    let v = json_of(&json);
    let ids: Vec<&str> = (v["devices"].as_array().unwrap().iter())
        .map(|d| d["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["a100", "h100", "h200", "v100"]);
    // A slower link makes the same bytes take longer.
    let copy = |id: &str| {
        let d = v["devices"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["id"] == id)
            .unwrap();
        f(&d["copy_us"])
    };
    assert!(copy("v100") > copy("a100") && copy("a100") > copy("h100"));
}

#[test]
fn the_c_is_timed_and_the_speedups_are_its_time_over_the_gpus() {
    // A small product, so the C runs its five calls in well under a second.
    let (code, out, err) = project(&[
        "testsuite/strategy/kernels/gemm_symbolic.c",
        "--size",
        "ni=64",
        "--size",
        "nj=64",
        "--size",
        "nk=64",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json_of(&out);
    let cpu = &v["cpu"];
    assert_eq!(cpu["measured"], true, "{cpu}");
    assert_eq!(cpu["at_least"], false, "{cpu}");
    let runs: Vec<f64> = cpu["runs"].as_array().unwrap().iter().map(f).collect();
    assert!(!runs.is_empty() && runs.iter().all(|r| *r > 0.0), "{cpu}");
    let seconds = f(&cpu["seconds"]);
    assert!(
        runs.contains(&seconds),
        "the median is one of the calls: {cpu}"
    );
    let sizes: Vec<(String, i64)> = (v["sizes"].as_array().unwrap().iter())
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["value"].as_i64().unwrap(),
            )
        })
        .collect();
    assert!(sizes.contains(&("ni".to_string(), 64)), "{sizes:?}");
    let d = &v["devices"][0];
    let cpu_us = seconds * 1e6;
    assert!((f(&d["speedup_kernels"]) - cpu_us / f(&d["kernel_us"])).abs() < 1e-6 * cpu_us);
    assert!((f(&d["speedup_total"]) - cpu_us / f(&d["total_us"])).abs() < 1e-6 * cpu_us);
    // The text says the same, and that the GPU times are predictions.
    let (code, text, err) = project(&[
        "testsuite/strategy/kernels/gemm_symbolic.c",
        "--size",
        "ni=64",
        "--size",
        "nj=64",
        "--size",
        "nk=64",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("per call of `gemm_symbolic`, measured (cc -O3"),
        "{text}"
    );
    assert!(
        text.contains("predicted by the emulator, not measured"),
        "{text}"
    );
}

#[test]
fn a_call_past_the_limit_is_stopped_and_gives_a_lower_bound() {
    // A 2048 x 1024 x 1024 product takes seconds in C: stopped after one.
    let (code, out, err) = project(&[
        "testsuite/strategy/kernels/gemm_symbolic.c",
        "--size",
        "ni=2048",
        "--cpu-seconds",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("over 1 s per call of `gemm_symbolic` (stopped"),
        "{out}"
    );
    assert!(out.contains(">="), "the speedups are lower bounds: {out}");
}

#[test]
fn the_errors_say_what_is_wrong() {
    let gemv = "testsuite/strategy/kernels/gemv_n.c";
    let (code, _, err) = project(&[gemv, "--device", "nosuch"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("there is no device named `nosuch`"), "{err}");
    let (code, _, err) = project(&[
        "testsuite/strategy/kernels/gemm_symbolic.c",
        "--size",
        "q=3",
        "--no-cpu",
    ]);
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("--size names q"), "{err}");
    let (code, _, err) = project(&[gemv, "--cpu-seconds", "0"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = project(&["testsuite/project/no_such_file.c"]);
    assert_eq!(code, 1, "{err}");
    // A region in `main` cannot be called apart: the projection is printed, the C
    // is not timed, and the exit code says a check could not run.
    let (code, out, err) = project(&["testsuite/project/region_in_main.c"]);
    assert_eq!(code, 4, "{err}");
    assert!(
        out.contains("C on this machine: not measured: the region is in `main`"),
        "{out}"
    );
    assert!(
        err.contains("hint: move the region into a function of its own"),
        "{err}"
    );
    // A C that fails when it runs.
    let (code, out, err) = project(&["testsuite/project/fails_when_run.c"]);
    assert_eq!(code, 4, "{err}");
    assert!(out.contains("not measured: the original program"), "{out}");
}
