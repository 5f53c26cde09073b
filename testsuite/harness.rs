//! Helpers shared by the test files.

use std::path::Path;

/// The options a case file asks for on its first line (`// gpucc-args: -D N=8`).
pub fn case_args(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .next()
        .and_then(|l| l.strip_prefix("// gpucc-args:"))
        .map(|rest| rest.split_whitespace().map(String::from).collect())
        .unwrap_or_default()
}

/// `path` relative to the crate root, as tests pass it to gpucc (so that diagnostics in
/// snapshots do not depend on where the checkout is).
pub fn relative(path: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Runs gpucc in-process with `args` (without the program name); returns the exit code,
/// standard output and standard error.
pub fn gpucc(args: &[String]) -> (i32, String, String) {
    let mut argv = vec!["gpucc".to_string()];
    argv.extend(args.iter().cloned());
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = gpucc::cli::run(&argv, &mut out, &mut err, false);
    (
        code,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

/// `gpucc <command> <case file> <its args> <extra>`.
pub fn gpucc_on(command: &str, path: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args = vec![command.to_string(), relative(path)];
    args.extend(case_args(path));
    args.extend(extra.iter().map(|s| s.to_string()));
    gpucc(&args)
}
