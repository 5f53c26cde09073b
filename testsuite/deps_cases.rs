//! `gpucc deps` on every kernel of `testsuite/deps/`: the text report is the snapshot.

use crate::harness::{gpucc_on, relative};

#[test]
fn deps_reports() {
    insta::with_settings!({snapshot_path => "deps/snapshots", prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::glob!("deps/*.c", |path| {
            let (code, out, err) = gpucc_on("deps", path, &[]);
            assert_eq!(code, 0, "{}: {err}", relative(path));
            insta::assert_snapshot!(out);
        });
    });
}

#[test]
fn there_are_at_least_fifteen_kernels_three_of_them_whole_programs() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testsuite/deps");
    let kernels: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    assert!(kernels.len() >= 15, "{} kernels", kernels.len());
    let programs = kernels
        .iter()
        .filter(|k| k.contains("int main(") && k.contains("printf"))
        .count();
    assert!(programs >= 3, "{programs} whole programs");
}
