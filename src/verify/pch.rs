//! Where the CPU check finds `cuda_runtime.h` (gpucc's CPU runtime): in a cache directory
//! shared by every check, beside its precompiled form (`cuda_runtime.h.gch`) when the C++
//! compiler is GCC. Parsing the header's standard headers was most of the time of a
//! check's C++ compile; precompiled, it is read once per compiler and header.
//!
//! The cache is `$GPUCC_CACHE_DIR`, else `$XDG_CACHE_HOME/gpucc`, else
//! `$HOME/.cache/gpucc`; one directory per header text, compiler version and flags. Files
//! are written under temporary names and renamed, so checks running in parallel never
//! read a half-written file. Where nothing can be written there, the header goes to the
//! check's scratch directory and is compiled as text (slower, as correct). GCC checks a
//! `.gch` against the compile that uses it and ignores one that does not fit.

use super::process::{compiler_command, run_tool, Scratch};
use super::{CheckError, CPU_RUNTIME};
use std::path::{Path, PathBuf};

/// The cache directories kept (the newest); older ones (other header versions or
/// compilers) are removed when a new one is made.
const KEPT: usize = 4;

/// The directory to pass as `-I` (holding `cuda_runtime.h`) for compiles with `cxx` and
/// `flags`; `cxx --version` also tells whether the compiler can run at all.
pub(super) fn runtime_dir(
    cxx: &str,
    flags: &[&str],
    scratch: &Scratch,
) -> Result<PathBuf, CheckError> {
    let version = version_of(cxx)?;
    match cache_root().and_then(|root| cached(&root, cxx, &version, flags)) {
        Some(dir) => Ok(dir),
        None => {
            scratch.write("cuda_runtime.h", CPU_RUNTIME)?;
            Ok(scratch.0.clone())
        }
    }
}

/// `cxx --version`, asked once per process and compiler (a check of many loop nests in
/// one process asks it once).
fn version_of(cxx: &str) -> Result<String, CheckError> {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static KNOWN: Mutex<Option<HashMap<String, String>>> = Mutex::new(None);
    if let Some(v) = KNOWN
        .lock()
        .ok()
        .and_then(|k| k.as_ref()?.get(cxx).cloned())
    {
        return Ok(v);
    }
    let out = run_tool(compiler_command(cxx).arg("--version"), "the C++ compiler")?;
    if let Ok(mut known) = KNOWN.lock() {
        known
            .get_or_insert_with(HashMap::new)
            .insert(cxx.to_string(), out.stdout.clone());
    }
    Ok(out.stdout)
}

/// The cache's root, from the environment.
fn cache_root() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("GPUCC_CACHE_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = var("XDG_CACHE_HOME") {
        return Some(PathBuf::from(dir).join("gpucc"));
    }
    var("HOME").map(|home| PathBuf::from(home).join(".cache").join("gpucc"))
}

/// FNV-1a, 64 bits: a hash that stays the same across Rust versions and runs.
fn fnv(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain(std::iter::once(0)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// A unique temporary name beside `path`.
fn temporary(path: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let mut name = path.as_os_str().to_owned();
    name.push(format!(
        ".tmp-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    PathBuf::from(name)
}

/// Writes `text` to `path` through a temporary file and a rename.
fn write_atomically(path: &Path, text: &str) -> Option<()> {
    let tmp = temporary(path);
    if std::fs::write(&tmp, text).is_err() || std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
        return None;
    }
    Some(())
}

/// The cache directory for this header, compiler and flags, made (header, then the `.gch`
/// where the compiler is GCC) if it is not there; `None` if it cannot be written.
fn cached(root: &Path, cxx: &str, version: &str, flags: &[&str]) -> Option<PathBuf> {
    let key = fnv(&[CPU_RUNTIME, cxx, version, &flags.join(" ")]);
    let dir = root.join(format!("cpu-runtime-{key:016x}"));
    let header = dir.join("cuda_runtime.h");
    let gch = dir.join("cuda_runtime.h.gch");
    let gcc = is_gcc(version);
    let header_ok = std::fs::read_to_string(&header).is_ok_and(|t| t == CPU_RUNTIME);
    if header_ok && (!gcc || gch.exists()) {
        return Some(dir);
    }
    std::fs::create_dir_all(&dir).ok()?;
    if !header_ok {
        write_atomically(&header, CPU_RUNTIME)?;
    }
    if gcc {
        let tmp = temporary(&gch);
        let built = run_tool(
            compiler_command(cxx)
                .args(flags)
                .args(["-x", "c++-header"])
                .arg(&header)
                .arg("-o")
                .arg(&tmp),
            "the C++ compiler on the CPU runtime's header",
        );
        let renamed =
            matches!(&built, Ok(f) if f.status.success()) && std::fs::rename(&tmp, &gch).is_ok();
        if !renamed {
            // Compiled as text instead: slower, as correct.
            let _ = std::fs::remove_file(&tmp);
        }
    }
    evict(root, &dir);
    Some(dir)
}

/// Whether `--version` is GCC's (`c++ (Debian 12.2.0-14) 12.2.0`, then its copyright by
/// the Free Software Foundation); clang's says `clang`.
fn is_gcc(version: &str) -> bool {
    !version.contains("clang") && version.contains("Free Software Foundation")
}

/// Removes all but the [`KEPT`] newest cache directories (never `current`).
fn evict(root: &Path, current: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    let mut dirs: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("cpu-runtime-"))
        .filter(|e| e.path() != current)
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    dirs.sort_by_key(|d| std::cmp::Reverse(d.0));
    for (_, dir) in dirs.into_iter().skip(KEPT - 1) {
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_is_stable() {
        assert_eq!(fnv(&["a", "b"]), fnv(&["a", "b"]));
        assert_ne!(fnv(&["ab", ""]), fnv(&["a", "b"]));
        assert!(is_gcc("c++ (Debian 12.2.0-14+deb12u1) 12.2.0\nCopyright (C) 2022 Free Software Foundation, Inc.\n"));
        assert!(!is_gcc(
            "Debian clang version 14.0.6\nTarget: x86_64-pc-linux-gnu\n"
        ));
    }

    #[test]
    fn with_gcc_the_header_is_precompiled() {
        let Ok(out) = std::process::Command::new("c++").arg("--version").output() else {
            return;
        };
        let version = String::from_utf8_lossy(&out.stdout).into_owned();
        if !is_gcc(&version) {
            return;
        }
        let root = std::env::temp_dir().join(format!("gpucc-pch-gcc-{}", std::process::id()));
        let dir = cached(&root, "c++", &version, super::super::CPU_FLAGS).unwrap();
        assert!(dir.join("cuda_runtime.h.gch").exists());
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_cache_that_cannot_be_written_is_no_cache() {
        // A file where the root directory should be.
        let file = std::env::temp_dir().join(format!("gpucc-pch-test-{}", std::process::id()));
        std::fs::write(&file, "").unwrap();
        assert_eq!(cached(&file, "c++", "none 1.0", &["-O1"]), None);
        let _ = std::fs::remove_file(&file);
    }

    #[test]
    fn the_header_is_written_and_old_directories_go() {
        let root = std::env::temp_dir().join(format!("gpucc-pch-root-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for k in 0..6 {
            std::fs::create_dir_all(root.join(format!("cpu-runtime-old{k}"))).unwrap();
        }
        // Not GCC: the header only, no compiler run.
        let dir = cached(&root, "no-such-compiler", "other 1.0", &["-O1"]).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("cuda_runtime.h")).unwrap(),
            CPU_RUNTIME
        );
        let left = std::fs::read_dir(&root).unwrap().count();
        assert_eq!(left, KEPT);
        assert_eq!(
            cached(&root, "no-such-compiler", "other 1.0", &["-O1"]),
            Some(dir)
        );
        let _ = std::fs::remove_dir_all(&root);
    }
}
