//! The command line as a user meets it: the real binary, its exit codes and messages.

use std::process::Command;

fn gpucc(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gpucc"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the gpucc binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn help_and_version_exit_zero() {
    let (code, out, _) = gpucc(&["--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("deps"), "{out}");
    let (code, out, _) = gpucc(&["--version"]);
    assert_eq!(code, 0);
    assert!(out.contains(env!("CARGO_PKG_VERSION")), "{out}");
    let (code, out, _) = gpucc(&["deps", "--help"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("--json") && out.contains("--function"),
        "{out}"
    );
}

#[test]
fn usage_errors_exit_two() {
    assert_eq!(gpucc(&[]).0, 2);
    assert_eq!(gpucc(&["deps"]).0, 2);
    // Not a command: taken as the file to compile, which does not exist.
    let (code, _, err) = gpucc(&["frobnicate"]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot read `frobnicate`"), "{err}");
    let (code, _, err) = gpucc(&["deps", "testsuite/deps/dot.c", "-D", "1N=3"]);
    assert_eq!(code, 2);
    assert!(err.contains("not a macro name"), "{err}");
}

#[test]
fn user_errors_exit_one_with_a_located_diagnostic() {
    let (code, out, err) = gpucc(&["deps", "testsuite/frontend/reject/while_loop.c"]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.contains("testsuite/frontend/reject/while_loop.c:4:3"),
        "{err}"
    );
    let (code, _, err) = gpucc(&["deps", "no/such/file.c"]);
    assert_eq!(code, 1);
    assert!(err.contains("cannot read"), "{err}");
}

#[test]
fn success_exits_zero_and_prints_the_report() {
    let (code, out, err) = gpucc(&["deps", "testsuite/deps/matmul_ijk.c"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("reduction (+ on C)"), "{out}");
    let (code, out, _) = gpucc(&["deps", "testsuite/deps/matmul_ijk.c", "--json"]);
    assert_eq!(code, 0);
    assert!(serde_json::from_str::<serde_json::Value>(&out).is_ok());
}

#[test]
fn define_overrides_the_files_define() {
    // matmul_ijk.c says `#define N 128`; -D N=8 wins, and the bounds use it.
    let (code, out, _) = gpucc(&["deps", "testsuite/deps/matmul_ijk.c", "--json", "-D", "N=8"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let domain = v["statements"][0]["domain"].as_str().unwrap();
    assert!(domain.contains("<= 7"), "{domain}");
}

#[test]
fn the_json_report_says_which_scalars_became_private_and_what_it_freed() {
    let (code, out, err) = gpucc(&["deps", "testsuite/deps/private_scalar.c", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let array = |name: &str| {
        v["arrays"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no array {name}: {out}"))
    };
    let t = array("t");
    assert_eq!(t["privatized"], true, "{t}");
    assert_eq!(t["kind"], "private");
    assert_eq!(t["private_to"], serde_json::json!(["i", "j"]));
    assert_eq!(t["freed"], serde_json::json!(["i", "j"]));
    // `s` carries a value across iterations; `last` is read after the loops.
    for shared in ["s", "last"] {
        assert_eq!(array(shared)["privatized"], false, "{shared}");
        assert_eq!(array(shared)["kind"], "local", "{shared}");
    }
}

#[test]
fn compile_writes_the_cu_and_says_so() {
    let out = std::env::temp_dir().join(format!("gpucc-cli-{}.cu", std::process::id()));
    let out_s = out.to_str().unwrap();
    let (code, stdout, err) = gpucc(&[
        "examples/sgemm.c",
        "--function",
        "sgemm",
        "--recipe",
        "recipes/sgemm.lua",
        "-o",
        out_s,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        err.contains("gpucc: wrote") && err.contains("sgemm_kernel"),
        "{err}"
    );
    let cu = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    assert!(cu.contains("__global__ void sgemm_kernel("), "{cu}");
    assert!(cu.contains("int main(void)"), "main is copied through");
}

#[test]
fn compile_usage_and_input_errors() {
    // No recipe, and no parallel loop even in the order isl's scheduler finds: gpucc
    // still compiles, to one GPU thread, and says why it could do no better.
    let out = std::env::temp_dir().join(format!("gpucc-cli-prefix-{}.cu", std::process::id()));
    let (code, _, err) = gpucc(&[
        "testsuite/strategy/kernels/prefix_sum.c",
        "-o",
        out.to_str().unwrap(),
        "--no-verify",
    ]);
    let _ = std::fs::remove_file(&out);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("in one GPU thread (correct, but slow)")
            && err.contains("every loop of the nest at line 8 carries a dependence")
            && err.contains("isl's scheduler finds no order with a parallel loop"),
        "{err}"
    );
    // A Gauss-Seidel sweep has no parallel loop as written, but a wavefront of parallel
    // ones in isl's order: that is what gpucc runs.
    let (code, _, err) = gpucc(&[
        "testsuite/deps/gauss_seidel.c",
        "-o",
        out.to_str().unwrap(),
        "--no-verify",
    ]);
    let _ = std::fs::remove_file(&out);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("in isl's order (`reschedule`)") && !err.contains("in one GPU thread"),
        "{err}"
    );
    // Two functions and no --function or scop region: an input error listing them.
    let (code, _, err) = gpucc(&[
        "testsuite/deps/mriq.c",
        "--recipe",
        "recipes/mriq.lua",
        "-o",
        "/dev/null",
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("--function"), "{err}");
    // A missing recipe file.
    let (code, _, err) = gpucc(&[
        "examples/sgemm.c",
        "--function",
        "sgemm",
        "--recipe",
        "no/such.lua",
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("cannot read the recipe `no/such.lua`"),
        "{err}"
    );
    // A malformed -P.
    let (code, _, err) = gpucc(&[
        "examples/sgemm.c",
        "--function",
        "sgemm",
        "--recipe",
        "recipes/sgemm.lua",
        "-P",
        "TI",
    ]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn compile_without_a_recipe_writes_one() {
    let out = std::env::temp_dir().join(format!("gpucc-cli-phase1-{}.cu", std::process::id()));
    let out_s = out.to_str().unwrap();
    let (code, stdout, err) = gpucc(&[
        "examples/sgemm.c",
        "--function",
        "sgemm",
        "-D",
        "N=64",
        "-o",
        out_s,
        "--verify",
    ]);
    let cu = std::fs::read_to_string(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    assert_eq!(code, 0, "{stdout}{err}");
    assert!(stdout.contains("verified"), "{stdout}");
    assert!(
        cu.contains("Recipe (written by gpucc):")
            && cu.contains("cudaize(\"sgemm_kernel\"")
            && cu.contains("Predicted time: ")
            && cu.contains("(emulated, not measured)"),
        "{cu}"
    );
}

#[test]
fn a_recipe_for_a_file_with_two_regions_is_refused() {
    let (code, _, err) = gpucc(&["testsuite/recipe/kernels/two_regions.c", "-o", "/dev/null"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("has 2 `#pragma scop` regions, and a recipe describes one"),
        "{err}"
    );
}

/// The README's table of limits lists every limit with its default, as gpucc has them.
#[test]
fn the_readme_lists_every_limit_with_its_default() {
    let readme =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
            .unwrap();
    let section = readme
        .split("## Limits")
        .nth(1)
        .expect("the README has a Limits section");
    let rows: Vec<(String, u64)> = section
        .lines()
        .take_while(|l| !l.starts_with("## "))
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let name = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            Some((name.to_string(), cells.get(2)?.parse().ok()?))
        })
        .collect();
    let limits = gpucc::limits::Limits::default().describe();
    assert_eq!(rows.len(), limits.len(), "README rows: {rows:?}");
    for (name, value, _) in limits {
        assert!(
            rows.contains(&(name.to_string(), value)),
            "the README does not list `{name}` with its default {value}: {rows:?}"
        );
    }
}

#[test]
fn sizes_given_with_dash_d_are_reduced_for_the_check_like_defined_ones() {
    // At full size the check would run a 100000 x 100 x 100000 product on the CPU (and stop
    // at its time limit); scaled, it runs in a moment.
    let out = std::env::temp_dir().join(format!("gpucc-cli-dash-d-{}.cu", std::process::id()));
    let out_s = out.to_string_lossy().into_owned();
    let (code, _, err) = gpucc(&[
        "benchmarks/vendor/sgemm.c",
        "-D",
        "M=100000",
        "-D",
        "K=100000",
        "-D",
        "N=100",
        "--recipe",
        "recipes/sgemm_outer.lua",
        "--verify",
        "-o",
        &out_s,
    ]);
    let _ = std::fs::remove_file(&out);
    assert_eq!(code, 0, "{err}");
    // N is scaled too, to the least size a check reduces to.
    assert!(
        err.contains("checking the same recipe at M=67, N=9, K=67"),
        "{err}"
    );
}

/// On a terminal, the check shows a spinner that a thread of its own draws on standard
/// error: the compile must still end. It hung at "checking on the CPU (0s)" while the
/// command held standard error's lock from start to end. The terminal is `script`'s
/// (util-linux, in every Debian); where there is none, there is no terminal to test.
#[test]
fn a_compile_on_a_terminal_ends() {
    let script = std::path::Path::new("/usr/bin/script");
    if !script.exists() {
        eprintln!("skipped: no /usr/bin/script to give gpucc a terminal");
        return;
    }
    let out = std::env::temp_dir().join(format!("gpucc-cli-tty-{}.cu", std::process::id()));
    let command = format!(
        "{} testsuite/strategy/kernels/gemm_nn.c -o {}",
        env!("CARGO_BIN_EXE_gpucc"),
        out.display()
    );
    let mut child = Command::new(script)
        .args(["-qec", &command, "/dev/null"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("script runs");
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("script can be waited for") {
            break status;
        }
        if started.elapsed() > std::time::Duration::from_secs(300) {
            let _ = child.kill();
            let _ = std::fs::remove_file(&out);
            panic!("gpucc on a terminal did not end in 300 s (a lock held across threads?)");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let transcript = child.wait_with_output().expect("script's output");
    let text = String::from_utf8_lossy(&transcript.stdout).into_owned();
    let written = out.exists();
    let _ = std::fs::remove_file(&out);
    let complaint = String::from_utf8_lossy(&transcript.stderr);
    if !status.success() && complaint.contains("pseudo-terminal") {
        eprintln!("skipped: script could not make a terminal here: {complaint}");
        return;
    }
    assert!(status.success(), "{text}");
    assert!(written, "{text}");
    // The spinner did draw: the terminal was one.
    assert!(text.contains("checking on the CPU"), "{text}");
}
