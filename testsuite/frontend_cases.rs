//! `testsuite/frontend/accept/*.c` are lowered and their programs snapshotted;
//! `testsuite/frontend/reject/*.c` must be refused with exit code 1, and the rendered
//! diagnostics are the snapshot.

use crate::harness::{case_args, frontend_options, gpucc_on, relative};
use gpucc::diag::{SourceFile, SourceMap};
use gpucc::frontend;

#[test]
fn accept() {
    insta::with_settings!({snapshot_path => "frontend/snapshots", prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::glob!("frontend/accept/*.c", |path| {
            let rel = relative(path);
            let text = std::fs::read_to_string(path).unwrap();
            let mut sources = SourceMap::default();
            let id = sources.add(SourceFile::new(rel.clone(), text));
            let opts = frontend_options(&case_args(path));
            let parsed = frontend::parse(sources.get(id), id, Some(std::path::Path::new(&rel)), &opts)
                .unwrap_or_else(|d| panic!("{}", gpucc::diag::render(&sources, &d, false)));
            let mut dump = String::new();
            for unit in parsed.units {
                let program = gpucc::poly::lower(unit, sources.get(id))
                    .unwrap_or_else(|d| panic!("{}", gpucc::diag::render(&sources, &d, false)));
                dump.push_str(&gpucc::poly::dump(&program));
            }
            insta::assert_snapshot!(dump);
        });
    });
}

#[test]
fn reject() {
    insta::with_settings!({snapshot_path => "frontend/snapshots", prepend_module_to_snapshot => false, omit_expression => true}, {
        insta::glob!("frontend/reject/*.c", |path| {
            let (code, out, err) = gpucc_on("deps", path, &[]);
            assert_eq!(code, 1, "{} must be refused with exit code 1\nstdout:\n{out}\nstderr:\n{err}", relative(path));
            assert!(out.is_empty(), "nothing on stdout for a refused input");
            assert!(err.starts_with("error"), "a diagnostic: {err}");
            insta::assert_snapshot!(err);
        });
    });
}
