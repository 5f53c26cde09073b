//! The other files a program links with (`--link FILE`, repeatable): sources are compiled
//! for each program of the check in its language, objects and libraries are linked as
//! they are. The original is C, built by the C compiler; the generated program is C++
//! (nvcc compiles a `.cu` as C++, and the CPU check with the C++ compiler), so a C source
//! it links with is compiled as C++ too, as the `.cu`'s calls of its functions expect
//! (PolyBench's `utilities/polybench.c` compiles either way).

use super::process::{self, compiler, compiler_command};
use super::reference::first_error;
use super::{CheckError, CheckFailure, CheckOptions, Scratch};
use std::path::PathBuf;

/// The language a program of the check is built in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    C,
    Cxx,
}

/// Extensions of the sources compiled before linking; any other file is linked as is.
const SOURCES: &[&str] = &["c", "cc", "cpp", "cxx", "C", "c++"];

/// The files to link into the program built in `language`: the objects compiled from
/// the `--link` sources (with the check's `-I` and `-D`), and the other files as given.
pub fn build(
    o: &CheckOptions,
    includes: &[String],
    language: Language,
    dir: &Scratch,
) -> Result<Vec<PathBuf>, CheckError> {
    let mut out = Vec::new();
    for (k, link) in o.links.iter().enumerate() {
        let path = std::fs::canonicalize(link).map_err(|e| {
            CheckError::new(
                CheckFailure::Environment,
                format!("cannot read --link {}: {e}", link.display()),
            )
            .with_hint("give the path of a source or object file the program links with")
        })?;
        let source = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| SOURCES.contains(&e));
        if !source {
            out.push(path);
            continue;
        }
        let (cc, flag, name) = match language {
            Language::C => (compiler("CC", "cc"), "c", "C"),
            Language::Cxx => (compiler("CXX", "c++"), "c++", "C++"),
        };
        let object = dir.0.join(format!("link{k}-{flag}.o"));
        let mut command = compiler_command(&cc);
        command
            .args(["-c", "-O1", "-w", "-x", flag])
            .arg(&path)
            .args(includes)
            .args(o.defines.iter().map(|(n, v)| format!("-D{n}={v}")))
            .arg("-o")
            .arg(&object);
        let built = process::run_tool(&mut command, &format!("the {name} compiler on --link"))?;
        if !built.status.success() {
            let (first, at) = first_error(&built.stderr, &dir.0);
            let mut e = CheckError::new(
                CheckFailure::OriginalDoesNotCompile,
                format!(
                    "--link {} does not compile as {name} (the compiler's first error):\n{first}",
                    link.display()
                ),
            )
            .with_hint(match language {
                Language::C => "the files given with --link are compiled with the system C compiler (CC), with the -I and -D of the command line",
                Language::Cxx => "the generated program is C++, so the C files it links with are compiled as C++ (CXX): make the file valid C++ too, or check with --no-verify",
            });
            e.at = at;
            return Err(e);
        }
        out.push(object);
    }
    Ok(out)
}
