//! `testsuite/recipe/*.lua`: each recipe command's effect on a small kernel, shown by
//! `print_code()`; the `.cu` each recipe makes must also compute what its C computes, and
//! nvcc must compile it for sm_90 and sm_80 without warnings or register spills.
//! `testsuite/recipe/reject/*.lua`: recipes gpucc must refuse, with their rendered
//! diagnostics. A recipe's first line names its C file and options:
//! `-- gpucc-args: testsuite/recipe/kernels/matmul.c -P TI=32`.

use crate::harness::{case_files, gpucc, nvcc, relative, scratch_path, verify_cases};
use std::path::{Path, PathBuf};

/// The C file and the options a recipe case names on its first line.
fn recipe_case_args(path: &Path) -> (PathBuf, Vec<String>) {
    let text = std::fs::read_to_string(path).unwrap();
    let line = text.lines().next().unwrap_or("");
    let rest = line.strip_prefix("-- gpucc-args:").unwrap_or_else(|| {
        panic!(
            "{}: the first line must be `-- gpucc-args: FILE.c ...`",
            relative(path)
        )
    });
    let mut words = rest.split_whitespace().map(String::from);
    let c_file = words.next().expect("a C file");
    (
        Path::new(env!("CARGO_MANIFEST_DIR")).join(c_file),
        words.collect(),
    )
}

/// Runs the case; returns the exit code, the report to snapshot and the `.cu` written.
fn run_recipe_case(path: &Path) -> (i32, String, Option<String>) {
    let (c_file, options) = recipe_case_args(path);
    let out = scratch_path(&format!(
        "recipe-{}.cu",
        path.file_stem().unwrap().to_string_lossy()
    ));
    let _ = std::fs::remove_file(&out);
    let mut args = vec![relative(&c_file), "--recipe".to_string(), relative(path)];
    args.extend(options);
    let shown = format!("gpucc {}", args.join(" "));
    args.extend(["-o".to_string(), out.display().to_string()]);
    let (code, stdout, stderr) = gpucc(&args);
    // The success line names the scratch file; the rest of stderr is the case's.
    let stderr: String = stderr
        .lines()
        .filter(|l| !l.starts_with("gpucc: wrote "))
        .map(|l| format!("{l}\n"))
        .collect();
    let cu = std::fs::read_to_string(&out).ok();
    let _ = std::fs::remove_file(&out);
    let mut report = format!("{shown}\nexit code {code}\n");
    if !stdout.is_empty() {
        report.push_str(&format!("--- output\n{stdout}"));
    }
    if !stderr.is_empty() {
        report.push_str(&format!("--- diagnostics\n{stderr}"));
    }
    (code, report, cu)
}

#[test]
fn recipe_commands() {
    insta::with_settings!({snapshot_path => "recipe/snapshots", prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::glob!("recipe/*.lua", |path| {
            let (code, report, cu) = run_recipe_case(path);
            assert_eq!(code, 0, "{report}");
            assert!(cu.is_some(), "{}: no .cu written", relative(path));
            insta::assert_snapshot!(report);
        });
    });
}

#[test]
fn recipe_refusals() {
    insta::with_settings!({snapshot_path => "recipe/snapshots", prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::glob!("recipe/reject/*.lua", |path| {
            let (code, report, cu) = run_recipe_case(path);
            assert_eq!(code, 1, "{report}");
            assert!(cu.is_none(), "{}: a refused recipe wrote a .cu", relative(path));
            assert!(report.contains("error"), "{report}");
            insta::assert_snapshot!(report);
        });
    });
}

#[test]
fn recipe_outputs_compute_what_the_c_computes() {
    verify_cases(&case_files("recipe", "lua"), |path| {
        let (c_file, options) = recipe_case_args(path);
        match run_recipe_case(path) {
            (0, _, Some(cu)) => Ok((c_file, options, cu)),
            (_, report, _) => Err(report),
        }
    });
}

#[test]
fn recipe_outputs_compile_with_nvcc() {
    let Some(nvcc) = nvcc() else {
        if std::env::var_os("GPUCC_SKIP_NVCC").is_some() {
            eprintln!("nvcc not found and GPUCC_SKIP_NVCC is set: the nvcc checks are skipped");
            return;
        }
        panic!("nvcc not found: run scripts/install-cuda-toolchain (or set GPUCC_NVCC, or GPUCC_SKIP_NVCC=1 to skip)");
    };
    let cases = case_files("recipe", "lua");
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(path) = cases.get(k) else { break };
                let name = relative(path);
                let cu = match run_recipe_case(path) {
                    (0, _, Some(cu)) => cu,
                    (_, report, _) => {
                        failures.lock().unwrap().push(report);
                        continue;
                    }
                };
                let file = scratch_path(&format!(
                    "{}.cu",
                    path.file_stem().unwrap().to_string_lossy()
                ));
                std::fs::write(&file, cu).unwrap();
                for arch in ["sm_90", "sm_80"] {
                    let out = std::process::Command::new(&nvcc)
                        .args(["-arch", arch, "-cubin", "-Xptxas", "-v", "-o"])
                        .arg(file.with_extension(format!("{arch}.cubin")))
                        .arg(&file)
                        .output()
                        .expect("nvcc runs");
                    let stderr = String::from_utf8_lossy(&out.stderr);
                    let problem = if !out.status.success() {
                        Some("fails".to_string())
                    } else if stderr.contains("warning") {
                        Some("warns".to_string())
                    } else {
                        stderr
                            .lines()
                            .find(|l| {
                                l.contains("bytes spill stores")
                                    && !l.contains(" 0 bytes spill stores, 0 bytes spill loads")
                            })
                            .map(|l| format!("spills ({})", l.trim()))
                    };
                    if let Some(problem) = problem {
                        failures
                            .lock()
                            .unwrap()
                            .push(format!("{name}: nvcc -arch={arch} {problem}:\n{stderr}"));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
