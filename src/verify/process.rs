//! Running the check's tools and programs: the scratch directory, the compilers, and every
//! child process bounded by the `check-seconds` limit (`crate::limits`), with its failure
//! said as what it is (a tool that cannot start, a crash with its signal, the limit).

use super::{CheckError, CheckFailure};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A scratch directory removed on drop (kept when `GPUCC_KEEP_CHECK` is set).
pub(super) struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new() -> Result<Scratch, CheckError> {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "gpucc-check-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).map_err(|e| {
            CheckError::new(
                CheckFailure::Environment,
                format!(
                    "cannot create the check's scratch directory {}: {e}",
                    dir.display()
                ),
            )
            .with_hint("set TMPDIR to a directory gpucc can write")
        })?;
        Ok(Scratch(dir))
    }

    /// Writes `text` to the file `name` of the directory.
    pub fn write(&self, name: &str, text: &str) -> Result<PathBuf, CheckError> {
        let path = self.0.join(name);
        std::fs::write(&path, text).map_err(|e| {
            CheckError::new(
                CheckFailure::Environment,
                format!("cannot write {}: {e}", path.display()),
            )
            .with_hint("set TMPDIR to a directory gpucc can write")
        })?;
        Ok(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::env::var_os("GPUCC_KEEP_CHECK").is_none() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// The compiler named by the environment variable `var` (`CC`, `CXX`), else `default`.
pub(super) fn compiler(var: &str, default: &str) -> String {
    std::env::var(var)
        .ok()
        .filter(|c| !c.trim().is_empty())
        .unwrap_or_else(|| default.to_string())
}

/// A compiler's command with the C locale (plain quotes in its messages).
pub(super) fn compiler_command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut c = Command::new(program);
    c.env("LC_ALL", "C");
    c
}

/// How a finished child ended.
#[derive(Debug)]
pub(super) struct Finished {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// How a child did not finish.
pub(super) enum NotRun {
    /// It could not be started (the tool is missing); the reason.
    Spawn(std::io::Error),
    /// It ran past the limit and was stopped.
    TimedOut,
}

/// The most bytes kept of a child's output stream (more is read and dropped, so that a
/// program printing without end cannot fill the memory before the limit stops it).
const MAX_OUTPUT: usize = 64 << 20;

/// A child started, its output drained by two threads; killed if dropped unfinished.
pub(super) struct Running {
    child: Option<Child>,
    readers: Vec<std::thread::JoinHandle<Vec<u8>>>,
    started: Instant,
}

fn drain(mut from: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buffer = [0u8; 1 << 16];
        loop {
            match from.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = MAX_OUTPUT.saturating_sub(kept.len());
                    kept.extend_from_slice(&buffer[..n.min(room)]);
                }
            }
        }
        kept
    })
}

/// Starts `cmd` with no input and its output captured.
pub(super) fn start(cmd: &mut Command) -> Result<Running, NotRun> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(NotRun::Spawn)?;
    let mut readers = Vec::new();
    if let Some(out) = child.stdout.take() {
        readers.push(drain(out));
    }
    if let Some(err) = child.stderr.take() {
        readers.push(drain(err));
    }
    Ok(Running {
        child: Some(child),
        readers,
        started: Instant::now(),
    })
}

impl Running {
    /// Waits for the child, at most `seconds` from its start; past that it is killed.
    pub fn finish(mut self, seconds: u64) -> Result<Finished, NotRun> {
        let limit = Duration::from_secs(seconds);
        let mut pause = Duration::from_millis(1);
        let Some(mut child) = self.child.take() else {
            return Err(NotRun::TimedOut);
        };
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if self.started.elapsed() >= limit => {
                    let _ = child.kill();
                    let _ = child.wait();
                    // The output threads end when the pipes close (a grandchild that
                    // kept them open is not waited for).
                    return Err(NotRun::TimedOut);
                }
                Ok(None) => {
                    std::thread::sleep(pause.min(limit.saturating_sub(self.started.elapsed())));
                    pause = (pause * 2).min(Duration::from_millis(5));
                }
                Err(e) => return Err(NotRun::Spawn(e)),
            }
        };
        let mut outputs = std::mem::take(&mut self.readers)
            .into_iter()
            .map(|r| r.join().unwrap_or_default());
        let stdout = outputs.next().unwrap_or_default();
        let stderr = outputs.next().unwrap_or_default();
        Ok(Finished {
            status,
            stdout: String::from_utf8_lossy(&stdout).into_owned(),
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        })
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The limit on each program of a check, in seconds (`check-seconds`).
pub(super) fn check_seconds() -> u64 {
    crate::limits::current().check_seconds
}

/// The limit on each compiler run of a check: `check-seconds`, but never less than ten
/// minutes (a limit lowered for the programs must not stop a slow compile; a compiler that
/// hangs is still stopped).
pub(super) fn compile_seconds() -> u64 {
    check_seconds().max(600)
}

/// Runs the program `cmd` under `check-seconds`; `what` names it in messages ("the
/// original program"). A program that cannot start is [`CheckFailure::Environment`]; the
/// limit is [`CheckFailure::TimeLimit`].
pub(super) fn run_limited(cmd: &mut Command, what: &str) -> Result<Finished, CheckError> {
    run_for(cmd, what, check_seconds())
}

/// Runs the tool `cmd` (a compiler) under [`compile_seconds`].
pub(super) fn run_tool(cmd: &mut Command, what: &str) -> Result<Finished, CheckError> {
    run_for(cmd, what, compile_seconds())
}

fn run_for(cmd: &mut Command, what: &str, seconds: u64) -> Result<Finished, CheckError> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    start(cmd)
        .and_then(|r| r.finish(seconds))
        .map_err(|e| not_run(e, what, &program, seconds))
}

/// The error of a child that did not finish (within `seconds`).
pub(super) fn not_run(e: NotRun, what: &str, program: &str, seconds: u64) -> CheckError {
    match e {
        NotRun::Spawn(e) => CheckError::new(
            CheckFailure::Environment,
            format!("cannot run {what} (`{program}`): {e}"),
        )
        .with_hint(if e.kind() == std::io::ErrorKind::NotFound {
            "install it, or name another one with the CC or CXX environment variable (GPUCC_NVCC for nvcc)"
        } else {
            "check that it can be run from this shell"
        }),
        NotRun::TimedOut => {
            let (message, hint) = crate::limits::current().exceeded("check-seconds", what);
            // A compiler's limit may be longer than `check-seconds` (`compile_seconds`).
            let message = if seconds == check_seconds() {
                message
            } else {
                format!("{what} ran for {seconds} seconds")
            };
            CheckError::new(CheckFailure::TimeLimit, format!("{message}; it was stopped"))
                .with_hint(&hint)
        }
    }
}

/// How a program that did not succeed ended, in words: `crashed: segmentation fault
/// (signal 11)`, `exited with status 1`.
pub(super) fn ending(status: &ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("crashed: {} (signal {signal})", signal_name(signal)),
        _ => format!("ended abnormally ({status})"),
    }
}

/// Whether the program was ended by a signal.
pub(super) fn crashed(status: &ExitStatus) -> bool {
    use std::os::unix::process::ExitStatusExt;
    status.signal().is_some()
}

/// What a signal means, for a person (Linux numbering).
fn signal_name(signal: i32) -> &'static str {
    match signal {
        4 => "illegal instruction",
        6 => "aborted",
        7 => "bus error",
        8 => "arithmetic exception",
        9 => "killed (out of memory?)",
        11 => "segmentation fault",
        13 => "broken pipe",
        15 => "terminated",
        24 => "CPU time limit exceeded",
        25 => "file size limit exceeded",
        _ => "a signal",
    }
}

/// The last `lines` lines of a program's error output, indented, or nothing.
pub(super) fn tail(stderr: &str, lines: usize) -> String {
    let all: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    let from = all.len().saturating_sub(lines);
    all[from..]
        .iter()
        .map(|l| format!("\n  {l}"))
        .collect::<String>()
}

/// The directory that holds `file`: `.` for a bare file name (whose `parent()` is the
/// empty path, which `-I` would take as a missing argument).
pub(super) fn directory_of(file: &Path) -> PathBuf {
    match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_past_the_limit_is_stopped() {
        let started = Instant::now();
        let r = start(Command::new("sleep").arg("30")).ok().unwrap();
        assert!(matches!(r.finish(1), Err(NotRun::TimedOut)));
        assert!(started.elapsed() < Duration::from_secs(20));
    }

    #[test]
    fn crashes_are_named() {
        let r = start(Command::new("sh").args(["-c", "kill -SEGV $$"]))
            .ok()
            .unwrap();
        let f = r.finish(60).ok().unwrap();
        assert!(crashed(&f.status));
        assert!(ending(&f.status).starts_with("crashed: segmentation fault"));
        let r = start(Command::new("sh").args(["-c", "echo out; echo err >&2; exit 3"]))
            .ok()
            .unwrap();
        let f = r.finish(60).ok().unwrap();
        assert_eq!(ending(&f.status), "exited with status 3");
        assert_eq!((f.stdout.as_str(), f.stderr.as_str()), ("out\n", "err\n"));
    }

    #[test]
    fn a_missing_tool_is_the_environment() {
        let e = run_tool(
            &mut Command::new("gpucc-no-such-compiler"),
            "the C compiler",
        )
        .unwrap_err();
        assert_eq!(e.kind, CheckFailure::Environment);
        assert!(e.message.contains("cannot run the C compiler"), "{e}");
    }
}
