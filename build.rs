//! Build script: runs LALRPOP over `grammar/` (the tools isl's build needs are checked by
//! `scripts/build-check`, which Cargo runs before isl-rs's build).

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
}
