//! Build script: checks the tools isl's build needs (so that a missing one gives one clear
//! message instead of a page of autotools output), then runs LALRPOP over `grammar/`.

use std::path::Path;
use std::process::Command;

fn main() {
    check_autotools();
    println!("cargo:rerun-if-changed=grammar");
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    if let Err(e) = lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .set_out_dir(&out_dir)
        .emit_rerun_directives(true)
        .process()
    {
        eprintln!("error: LALRPOP could not process grammar/: {e}");
        std::process::exit(1);
    }
}

/// isl-rs builds isl from source with autotools; say plainly what is missing.
fn check_autotools() {
    let missing: Vec<&str> = ["autoconf", "automake", "libtoolize"]
        .into_iter()
        .filter(|tool| !on_path(tool))
        .collect();
    if !missing.is_empty() {
        eprintln!(
            "\nerror: gpucc needs {} to build isl (the integer set library) from source.\n\
             hint: on Debian or Ubuntu run `sudo apt-get install autoconf automake libtool`,\n\
             \x20     or run `scripts/setup` from the repository root.\n",
            missing.join(", ")
        );
        println!(
            "cargo:warning=missing build tools: {} (apt-get install autoconf automake libtool)",
            missing.join(", ")
        );
        std::process::exit(1);
    }
}

fn on_path(tool: &str) -> bool {
    if let Some(paths) = std::env::var_os("PATH") {
        if std::env::split_paths(&paths).any(|dir| Path::new(&dir).join(tool).is_file()) {
            return true;
        }
    }
    Command::new(tool).arg("--version").output().is_ok()
}
