//! Fails the build with one clear message when autoconf, automake or libtool is missing.

use std::path::Path;

fn main() {
    let missing: Vec<&str> = ["autoconf", "automake", "libtoolize", "make"]
        .into_iter()
        .filter(|tool| !on_path(tool))
        .collect();
    if !missing.is_empty() {
        eprintln!(
            "\nerror: building gpucc needs {} (isl, the integer set library, is built from source with autotools).\n\
             hint: run `scripts/setup` from the repository root, or `sudo apt-get install autoconf automake libtool make`.\n",
            missing.join(", ")
        );
        std::process::exit(1);
    }
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| Path::new(&dir).join(tool).is_file()))
        .unwrap_or(false)
}
