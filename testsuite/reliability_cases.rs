//! `testsuite/reliability/*.c`: inputs that once broke gpucc, each run through the real
//! binary as a user runs it, with the exit code and the words it must print. A case
//! says how on its first lines:
//!
//! ```text
//! // gpucc-run: FILE --recipe testsuite/reliability/x.lua --verify
//! // gpucc-exit: 0
//! // gpucc-says: verified: every array the code writes is the same
//! // gpucc-cwd: examples        (optional: the directory it runs in)
//! // gpucc-env: CC=/no/such/cc  (optional, repeatable)
//! ```
//!
//! `FILE` is the case's own path (relative to the directory it runs in); a compile (a
//! command line that names no other command) writes its `.cu` to a scratch file.

use crate::harness::{case_files, relative, scratch_path};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What a case asks for.
struct Case {
    path: PathBuf,
    args: Vec<String>,
    exit: i32,
    says: Vec<String>,
    cwd: PathBuf,
    env: Vec<(String, String)>,
}

const COMMANDS: &[&str] = &["deps", "verify", "strategies", "emulate", "compile"];

fn read_case(path: &Path) -> Case {
    let text = std::fs::read_to_string(path).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let field = |name: &str| -> Vec<String> {
        let prefix = format!("// gpucc-{name}:");
        text.lines()
            .take_while(|l| l.starts_with("//"))
            .filter_map(|l| l.strip_prefix(&prefix))
            .map(|v| v.trim().to_string())
            .collect()
    };
    let cwd = field("cwd")
        .first()
        .map_or(root.to_path_buf(), |d| root.join(d));
    let file = pathdiff(path, &cwd);
    let args = field("run")
        .first()
        .unwrap_or_else(|| panic!("{}: no `// gpucc-run:` line", relative(path)))
        .split_whitespace()
        .map(|w| {
            if w == "FILE" {
                file.clone()
            } else {
                w.to_string()
            }
        })
        .collect();
    let exit = field("exit")
        .first()
        .and_then(|e| e.parse().ok())
        .unwrap_or_else(|| panic!("{}: no `// gpucc-exit:` line", relative(path)));
    let env = field("env")
        .iter()
        .filter_map(|e| e.split_once('='))
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
    Case {
        path: path.to_path_buf(),
        args,
        exit,
        says: field("says"),
        cwd,
        env,
    }
}

/// `path` relative to `dir` (both under the crate root).
fn pathdiff(path: &Path, dir: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rel = path.strip_prefix(root).unwrap_or(path);
    let depth = dir.strip_prefix(root).map_or(0, |d| d.components().count());
    let mut s = "../".repeat(depth);
    s.push_str(&rel.display().to_string());
    s
}

/// Runs a case; `None` when it did what it says, else what went wrong.
fn run(case: &Case) -> Option<String> {
    let mut args = case.args.clone();
    let compiles = !COMMANDS.contains(&args[0].as_str()) || args[0] == "compile";
    let out = scratch_path(&format!(
        "reliability-{}.cu",
        case.path.file_stem().unwrap().to_string_lossy()
    ));
    if compiles && !args.iter().any(|a| a == "-o") {
        args.extend(["-o".to_string(), out.display().to_string()]);
    }
    let output = Command::new(env!("CARGO_BIN_EXE_gpucc"))
        .args(&args)
        .current_dir(&case.cwd)
        .envs(case.env.iter().map(|(n, v)| (n, v)))
        .output()
        .expect("the gpucc binary runs");
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(format!("{}.rejected", out.display()));
    let code = output.status.code().unwrap_or(-1);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let missing: Vec<&String> = case.says.iter().filter(|s| !text.contains(*s)).collect();
    if code == case.exit && missing.is_empty() {
        return None;
    }
    Some(format!(
        "{}: `gpucc {}` exited {code} (expected {}){}\n{text}",
        relative(&case.path),
        args.join(" "),
        case.exit,
        if missing.is_empty() {
            String::new()
        } else {
            format!(", without saying {missing:?}")
        }
    ))
}

#[test]
fn every_input_that_once_broke_gpucc_gets_its_exit_code_and_message() {
    let cases: Vec<Case> = case_files("reliability", "c")
        .iter()
        .map(|p| read_case(p))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(case) = cases.get(k) else { break };
                if let Some(f) = run(case) {
                    failures.lock().unwrap().push(f);
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The README's exit-code table lists what the cases return, and every code it lists but
/// 3 (a bug in gpucc) is returned by some case.
#[test]
fn the_readme_exit_codes_are_the_ones_the_cases_return() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let table = readme
        .split("## Exit codes")
        .nth(1)
        .expect("the README has an exit-code section");
    let documented: Vec<i32> = table
        .lines()
        .take_while(|l| !l.starts_with("## "))
        .filter_map(|l| l.strip_prefix("| ")?.split(' ').next()?.parse().ok())
        .collect();
    let returned: std::collections::BTreeSet<i32> = case_files("reliability", "c")
        .iter()
        .map(|p| read_case(p).exit)
        .collect();
    for code in &returned {
        assert!(
            documented.contains(code),
            "a case exits {code}, which the README does not list"
        );
    }
    // Exit code 3 is gpucc's own wrong output: no case may return it.
    for code in documented.iter().filter(|&&c| c != 3) {
        assert!(
            returned.contains(code),
            "no case of testsuite/reliability exits {code}, which the README lists"
        );
    }
}
