//! Build script: runs LALRPOP over `grammar/` (the tools isl's build needs are checked by
//! `scripts/build-check`, which Cargo runs before isl-rs's build), and embeds the device
//! descriptions of `benchmarks/devices/*.toml` into the binary.

use std::fmt::Write as _;

fn main() {
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
    embed_devices(&out_dir);
}

/// Writes `devices.rs`: `(file stem, text)` for every device description, sorted by name.
fn embed_devices(out_dir: &str) {
    println!("cargo:rerun-if-changed=benchmarks/devices");
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = std::path::Path::new(&root).join("benchmarks/devices");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut code = String::from("pub const EMBEDDED: &[(&str, &str)] = &[\n");
    for f in files {
        println!("cargo:rerun-if-changed={}", f.display());
        let stem = f.file_stem().unwrap_or_default().to_string_lossy();
        let _ = writeln!(
            code,
            "    ({stem:?}, include_str!({:?})),",
            f.display().to_string()
        );
    }
    code.push_str("];\n");
    if let Err(e) = std::fs::write(std::path::Path::new(out_dir).join("devices.rs"), code) {
        eprintln!("error: cannot write devices.rs: {e}");
        std::process::exit(1);
    }
}
