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

/// Frontend options from a case's `gpucc-args` (the options that concern the C file).
pub fn frontend_options(args: &[String]) -> gpucc::frontend::FrontendOptions {
    let mut o = gpucc::frontend::FrontendOptions {
        system_preprocessor: true,
        ..Default::default()
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--function" => o.function = it.next().cloned(),
            "-I" => o.include_dirs.extend(it.next().map(Into::into)),
            "-D" => {
                if let Some(d) = it.next() {
                    let (n, v) = d.split_once('=').unwrap_or((d, "1"));
                    o.defines.push((n.into(), v.into()));
                }
            }
            "--recipe" | "-P" | "-o" | "--limit" => {
                it.next();
            }
            other => panic!("unknown gpucc-args option {other}"),
        }
    }
    o
}

/// The lowered programs of a C file with the options `args` (`-D`, `--function`, ...).
pub fn programs_with(path: &Path, args: &[String]) -> Vec<gpucc::poly::Program> {
    use gpucc::diag::{render, SourceFile, SourceMap};
    let rel = relative(path);
    let text = std::fs::read_to_string(path).unwrap();
    let mut sources = SourceMap::default();
    let id = sources.add(SourceFile::new(rel.clone(), text));
    let opts = frontend_options(args);
    let parsed = gpucc::frontend::parse(sources.get(id), id, Some(Path::new(&rel)), &opts)
        .unwrap_or_else(|d| panic!("{}", render(&sources, &d, false)));
    parsed
        .units
        .into_iter()
        .map(|u| {
            gpucc::poly::lower(u, sources.get(id))
                .unwrap_or_else(|d| panic!("{}", render(&sources, &d, false)))
        })
        .collect()
}

/// Compiles a case to CUDA in-process; returns the `.cu` text.
pub fn compile_case(path: &Path) -> String {
    let out = scratch_path(&format!(
        "{}.cu",
        path.file_stem().unwrap().to_string_lossy()
    ));
    let (code, _, err) = gpucc_on("compile", path, &["-o", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{}: {err}", relative(path));
    let text = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    text
}

/// A fresh file name in a scratch directory of this test process: `name` with a number
/// no other call gets, since tests run in parallel.
pub fn scratch_path(name: &str) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("gpucc-testsuite-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!(
        "{}-{name}",
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ))
}

/// nvcc: `GPUCC_NVCC`, else the project's `.nvidia/` (scripts/install-cuda-toolchain),
/// else `PATH`; the same lookup as `gpucc emulate`'s.
pub fn nvcc() -> Option<std::path::PathBuf> {
    gpucc::emulator::ptxas::nvcc()
}

/// The case files in `testsuite/<dir>` with extension `ext`, sorted.
pub fn case_files(dir: &str, ext: &str) -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testsuite")
        .join(dir);
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    cases.sort();
    cases
}

/// What a case compiles to, for [`verify_cases`]: the C file, its gpucc options, the `.cu`.
pub type Compiled = Result<(std::path::PathBuf, Vec<String>, String), String>;

/// Verifies each case's `.cu` against its C on the CPU, cases in parallel (each check
/// spends most of its time in the C++ compiler); fails with every failure.
pub fn verify_cases(cases: &[std::path::PathBuf], compile: impl Fn(&Path) -> Compiled + Sync) {
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(path) = cases.get(k) else { break };
                let failure = match compile(path) {
                    Err(report) => Some(report),
                    Ok((c_file, options, cu)) => {
                        let opts = frontend_options(&options);
                        let program = programs_with(&c_file, &options).remove(0);
                        let check = gpucc::verify::CheckOptions {
                            c_file: &c_file,
                            defines: &opts.defines,
                            include_dirs: &opts.include_dirs,
                            sizes: &[],
                            diagonally_dominant: false,
                            links: &[],
                        };
                        match gpucc::verify::check_on_cpu(&program, &cu, &check) {
                            Ok(outcome) if outcome.passed() => None,
                            Ok(outcome) => Some(format!("{}: {outcome:?}", relative(path))),
                            Err(e) => Some(format!("{}: {e}", relative(path))),
                        }
                    }
                };
                failures.lock().unwrap().extend(failure);
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
