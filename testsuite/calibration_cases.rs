//! The emulator against the GPU: every variant of the calibration set timed on an H100
//! (benchmarks/calibrate.py; the file named by benchmarks/calibration/accuracy.json) is
//! emulated as the strategy generator ranks it, and the Spearman rank correlation and the
//! geometric-mean relative error of the predictions must be no worse than the figures
//! recorded with the data (`calibrate.py accuracy`): with instruction streams from the
//! kernel IR (as the strategy generator ranks), and from the SASS where nvcc is installed
//! (`calibrate.py accuracy --sass`). The same for the shipped recipes timed at full size
//! by `benchmarks/vendor.py --mode gpu` (the register-tiled GEMMs of issue 19 among them),
//! against `accuracy-vendor.json` and `accuracy-vendor-sass.json`; and for the 16
//! outer-product GEMMs of `benchmarks/calibration/outer/set.json` (1024^3, timed on an H200,
//! emulated for the H200) against `accuracy-outer.json` and `accuracy-outer-sass.json`.

use crate::harness::gpucc;
use std::path::Path;

fn ranks(xs: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..xs.len()).collect();
    order.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
    let mut r = vec![0.0; xs.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && xs[order[j + 1]] == xs[order[i]] {
            j += 1;
        }
        for &k in &order[i..=j] {
            r[k] = (i + j) as f64 / 2.0 + 1.0;
        }
        i = j + 1;
    }
    r
}

/// Spearman's rank correlation (ties share their mean rank).
fn spearman(a: &[f64], b: &[f64]) -> f64 {
    let (ra, rb) = (ranks(a), ranks(b));
    let n = a.len() as f64;
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let cov: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = ra.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = rb.iter().map(|y| (y - mb).powi(2)).sum();
    cov / (va * vb).sqrt()
}

#[test]
fn spearman_of_known_orders() {
    assert_eq!(spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]), 1.0);
    assert_eq!(spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), -1.0);
    assert!((spearman(&[1.0, 2.0, 3.0, 4.0], &[1.0, 3.0, 2.0, 4.0]) - 0.8).abs() < 1e-12);
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn the_emulator_ranks_and_predicts_the_h100_timings_as_recorded() {
    against_the_timings("accuracy.json", "--estimate-registers");
}

#[test]
fn the_emulator_on_sass_streams_ranks_and_predicts_the_h100_timings_as_recorded() {
    if crate::harness::nvcc().is_none() {
        eprintln!("nvcc not found: the SASS streams' accuracy is not checked");
        return;
    }
    against_the_timings("accuracy-sass.json", "");
}

#[test]
fn the_emulator_ranks_and_predicts_the_shipped_recipes_h100_timings_as_recorded() {
    against_the_timings("accuracy-vendor.json", "--estimate-registers");
}

#[test]
fn the_emulator_on_sass_streams_predicts_the_shipped_recipes_h100_timings_as_recorded() {
    if crate::harness::nvcc().is_none() {
        eprintln!("nvcc not found: the SASS streams' accuracy is not checked");
        return;
    }
    against_the_timings("accuracy-vendor-sass.json", "");
}

#[test]
fn the_emulator_ranks_and_predicts_the_outer_product_gemms_as_recorded() {
    against_the_timings("accuracy-outer.json", "--estimate-registers");
}

#[test]
fn the_emulator_on_sass_streams_predicts_the_outer_product_gemms_as_recorded() {
    if crate::harness::nvcc().is_none() {
        eprintln!("nvcc not found: the SASS streams' accuracy is not checked");
        return;
    }
    against_the_timings("accuracy-outer-sass.json", "");
}

/// `gpucc emulate`'s arguments and the measured microseconds of every timed entry of a
/// results file: a calibration set's (`measured_us`), or the shipped-recipe variants of a
/// `vendor.py` file.
fn timed_entries(results: &serde_json::Value) -> Vec<(Vec<String>, f64)> {
    let strings = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect()
    };
    let mut out = Vec::new();
    for e in results["entries"].as_array().unwrap() {
        if let Some(us) = e["measured_us"].as_f64() {
            let mut args = vec![e["file"].as_str().unwrap().to_string()];
            for d in strings(&e["defines"]) {
                args.extend(["-D".to_string(), d]);
            }
            args.extend([
                "--recipe".to_string(),
                e["recipe"].as_str().unwrap().to_string(),
            ]);
            for p in strings(&e["params"]) {
                args.extend(["-P".to_string(), p]);
            }
            out.push((args, us));
            continue;
        }
        let v = &e["variants"]["recipe"];
        if v["status"] != "measured" || !e["recipe"].is_string() {
            continue;
        }
        let mut args = vec![e["source"].as_str().unwrap().to_string()];
        for (name, value) in e["defines"].as_object().unwrap() {
            args.extend(["-D".to_string(), format!("{name}={value}")]);
        }
        args.extend([
            "--recipe".to_string(),
            e["recipe"].as_str().unwrap().to_string(),
        ]);
        out.push((args, v["time_us"].as_f64().unwrap()));
    }
    out
}

/// Emulates every timed entry (`mode`: `gpucc emulate`'s option, or none) and holds the
/// figures to those recorded in `benchmarks/calibration/<recorded>`.
fn against_the_timings(recorded: &str, mode: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let recorded = json(&root.join("benchmarks/calibration").join(recorded));
    // One results file, or several of one device (calibrate.py accuracy A.json B.json).
    let files: Vec<serde_json::Value> = match &recorded["results"] {
        serde_json::Value::Array(paths) => paths.clone(),
        one => vec![one.clone()],
    };
    let files: Vec<serde_json::Value> = files
        .iter()
        .map(|p| json(&root.join(p.as_str().unwrap())))
        .collect();
    let results = &files[0];
    let entries: Vec<(Vec<String>, f64)> = files.iter().flat_map(timed_entries).collect();
    assert_eq!(
        entries.len() as u64,
        recorded["entries"].as_u64().unwrap(),
        "timed variants in {}",
        recorded["results"]
    );
    // The device the results were timed on (calibrate.py's device_of).
    let name = results["device"].as_str().unwrap().to_lowercase();
    let device = ["h200", "h100", "a100", "v100"]
        .into_iter()
        .find(|d| name.contains(d))
        .unwrap_or_else(|| panic!("{name}: no description in benchmarks/devices/"));
    // Two workers: each emulation is a compile and an emulation.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let predicted = std::sync::Mutex::new(vec![0.0; entries.len()]);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((entry, _)) = entries.get(k) else {
                    break;
                };
                let mut args = vec!["emulate".to_string()];
                args.extend(entry.iter().cloned());
                args.push("--json".to_string());
                if !mode.is_empty() {
                    args.push(mode.to_string());
                }
                args.extend(["--device".to_string(), device.to_string()]);
                let (code, out, err) = gpucc(&args);
                assert_eq!(code, 0, "{args:?}: {err}");
                let v: serde_json::Value = serde_json::from_str(&out).unwrap();
                predicted.lock().unwrap()[k] = v["predicted_time_us"].as_f64().unwrap();
            });
        }
    });
    let predicted = predicted.into_inner().unwrap();
    let measured: Vec<f64> = entries.iter().map(|(_, us)| *us).collect();
    let rho = spearman(&measured, &predicted);
    let log_mean = measured
        .iter()
        .zip(&predicted)
        .map(|(m, p)| ((p - m).abs() / m).max(1e-9).ln())
        .sum::<f64>()
        / measured.len() as f64;
    let geomean = log_mean.exp();
    let (want_rho, want_error) = (
        recorded["spearman"].as_f64().unwrap(),
        recorded["geomean_relative_error"].as_f64().unwrap(),
    );
    eprintln!(
        "calibration ({mode}): {} variants on {}: Spearman {rho:.4} (recorded {want_rho}, target 0.85), geometric-mean relative error {geomean:.4} (recorded {want_error}, target 0.15)",
        measured.len(),
        results["device"]
    );
    // The recorded figures are rounded to 4 places.
    assert!(
        rho >= want_rho - 1e-4,
        "Spearman {rho:.4} fell below the recorded {want_rho}"
    );
    assert!(
        geomean <= want_error + 1e-4,
        "geometric-mean relative error {geomean:.4} rose above the recorded {want_error}"
    );
}
