//! Dependences and loop kinds of classic kernels, checked against answers derived by hand
//! (not against a snapshot): these say what is *right*, the snapshots only what is.

use crate::harness::gpucc_on;
use serde_json::Value;
use std::path::Path;

fn report(kernel: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testsuite/deps")
        .join(kernel);
    let (code, out, err) = gpucc_on("deps", &path, &["--json"]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("deps --json prints JSON")
}

/// `(loop name, kind)` in source order.
fn loop_kinds(r: &Value) -> Vec<(String, String)> {
    r["loops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["name"].as_str().unwrap().to_string(),
                l["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn kinds(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// A dependence as `(source, sink, array, distance, carried_by)`.
type Dep = (String, String, String, Vec<Option<i64>>, Option<String>);

/// The dependences of one kind.
fn dependences(r: &Value, kind: &str) -> Vec<Dep> {
    r["dependences"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["kind"] == kind)
        .map(|d| {
            (
                d["source"].as_str().unwrap().to_string(),
                d["sink"].as_str().unwrap().to_string(),
                d["array"].as_str().unwrap().to_string(),
                d["distance"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_i64())
                    .collect(),
                d["carried_by"].as_str().map(String::from),
            )
        })
        .collect()
}

fn dep(s: &str, t: &str, a: &str, dist: &[Option<i64>], by: Option<&str>) -> Dep {
    (
        s.into(),
        t.into(),
        a.into(),
        dist.to_vec(),
        by.map(String::from),
    )
}

#[test]
fn matrix_product_ijk() {
    let r = report("matmul_ijk.c");
    // C[i][j] += A[i][k]*B[k][j]: only k carries (the accumulation into C[i][j]).
    assert_eq!(
        loop_kinds(&r),
        kinds(&[("i", "parallel"), ("j", "parallel"), ("k", "reduction")])
    );
    assert_eq!(r["loops"][2]["reductions"][0]["op"], "+");
    assert_eq!(r["loops"][2]["reductions"][0]["array"], "C");
    // Value-based flow: each iteration reads what the previous k wrote, distance exactly 1.
    assert_eq!(
        dependences(&r, "flow"),
        vec![dep(
            "S0",
            "S0",
            "C",
            &[Some(0), Some(0), Some(1)],
            Some("k")
        )]
    );
    // Memory-based anti and output dependences on C: any later k.
    assert_eq!(
        dependences(&r, "anti"),
        vec![dep("S0", "S0", "C", &[Some(0), Some(0), None], Some("k"))]
    );
    assert_eq!(
        dependences(&r, "output"),
        vec![dep("S0", "S0", "C", &[Some(0), Some(0), None], Some("k"))]
    );
    assert_eq!(
        r["dependences"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["kind"] == "anti")
            .unwrap()["direction"],
        serde_json::json!(["=", "=", "<"])
    );
}

#[test]
fn matrix_product_kij_carries_the_update_on_the_outer_loop() {
    let r = report("matmul_kij.c");
    // The updated element C[i][j] moves with the inner loops, so k is not a reduction of
    // one location per iteration of the outer loops: it stays sequential in this order.
    assert_eq!(
        loop_kinds(&r),
        kinds(&[("k", "sequential"), ("i", "parallel"), ("j", "parallel")])
    );
    assert_eq!(
        dependences(&r, "flow"),
        vec![dep(
            "S0",
            "S0",
            "C",
            &[Some(1), Some(0), Some(0)],
            Some("k")
        )]
    );
}

#[test]
fn gauss_seidel_has_no_parallel_loop() {
    let r = report("gauss_seidel.c");
    assert_eq!(
        loop_kinds(&r),
        kinds(&[
            ("t", "sequential"),
            ("i", "sequential"),
            ("j", "sequential")
        ])
    );
    let flow = dependences(&r, "flow");
    let expected = [
        // A[i-1][j] and A[i][j-1] read values written earlier in the same sweep...
        dep("S0", "S0", "A", &[Some(0), Some(1), Some(0)], Some("i")),
        dep("S0", "S0", "A", &[Some(0), Some(0), Some(1)], Some("j")),
        // ...A[i+1][j] and A[i][j+1] the previous sweep's values.
        dep("S0", "S0", "A", &[Some(1), Some(-1), Some(0)], Some("t")),
    ];
    for d in expected {
        assert!(flow.contains(&d), "{d:?} not in {flow:?}");
    }
}

#[test]
fn jacobi_time_loop_is_sequential_space_loops_parallel() {
    let r = report("jacobi2d.c");
    assert_eq!(
        loop_kinds(&r),
        kinds(&[
            ("t", "sequential"),
            ("i", "parallel"),
            ("j", "parallel"),
            ("i", "parallel"),
            ("j", "parallel")
        ])
    );
    let flow = dependences(&r, "flow");
    // B flows from the first nest to the second in the same time step; A flows back to the
    // next time step, from each of the five points of the stencil.
    assert!(
        flow.contains(&dep("S0", "S1", "B", &[Some(0)], None)),
        "{flow:?}"
    );
    assert_eq!(
        flow.iter()
            .filter(|d| d.0 == "S1" && d.1 == "S0" && d.4.as_deref() == Some("t"))
            .count(),
        5
    );
    assert_eq!(r["units"][0]["kind"], "scop");
}

#[test]
fn triangular_solve_outer_loop_is_sequential() {
    let r = report("trisolve.c");
    assert_eq!(
        loop_kinds(&r),
        kinds(&[("i", "sequential"), ("j", "reduction")])
    );
    // x[j] (j < i) is read after the iteration j wrote it: carried by i, distance >= 1.
    let flow = dependences(&r, "flow");
    assert!(
        flow.contains(&dep("S2", "S1", "x", &[None], Some("i"))),
        "{flow:?}"
    );
    let d = r["dependences"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["kind"] == "flow" && d["source"] == "S2" && d["sink"] == "S1")
        .unwrap();
    assert_eq!(d["direction"], serde_json::json!(["<"]));
    assert_eq!(r["units"][0]["params"], serde_json::json!(["n"]));
}

#[test]
fn recurrence_is_carried_by_the_outer_loop_only() {
    let r = report("recurrence.c");
    assert_eq!(
        loop_kinds(&r),
        kinds(&[("i", "sequential"), ("j", "parallel")])
    );
    assert_eq!(
        dependences(&r, "flow"),
        vec![dep("S0", "S0", "A", &[Some(1), Some(0)], Some("i"))]
    );
}

#[test]
fn transposition_has_no_dependences() {
    let r = report("transpose.c");
    assert_eq!(
        loop_kinds(&r),
        kinds(&[("i", "parallel"), ("j", "parallel")])
    );
    assert!(r["dependences"].as_array().unwrap().is_empty());
}

#[test]
fn lu_pivot_loop_is_sequential() {
    let r = report("lu.c");
    assert_eq!(
        loop_kinds(&r),
        kinds(&[("k", "sequential"), ("i", "parallel"), ("j", "parallel")])
    );
}

#[test]
fn private_scalars_do_not_serialise_loops() {
    // `float sum` (conv2d) and `float expArg` (MRI-Q) are declared inside the parallel
    // loops: each iteration has its own copy.
    let r = report("conv2d.c");
    assert_eq!(
        loop_kinds(&r),
        kinds(&[
            ("i", "parallel"),
            ("j", "parallel"),
            ("p", "reduction"),
            ("q", "reduction")
        ])
    );
    let r = report("mriq.c");
    assert_eq!(
        loop_kinds(&r),
        kinds(&[("i", "parallel"), ("k", "reduction")])
    );
    // A scalar declared outside the loop is one location: the dot product's i is a reduction.
    let r = report("dot.c");
    assert_eq!(loop_kinds(&r), kinds(&[("i", "reduction")]));
}

#[test]
fn json_has_the_documented_fields() {
    let r = report("matvec.c");
    for l in r["loops"].as_array().unwrap() {
        for key in [
            "name",
            "line",
            "depth",
            "parallel",
            "reduction",
            "kind",
            "bounds",
        ] {
            assert!(l.get(key).is_some(), "loop lacks {key}: {l}");
        }
    }
    assert_eq!(r["loops"][0]["line"], 4, "`line` is the line of the `for`");
    assert_eq!(r["loops"][1]["depth"], 2);
    for d in r["dependences"].as_array().unwrap() {
        for key in ["kind", "source", "sink", "array", "distance", "carried_by"] {
            assert!(d.get(key).is_some(), "dependence lacks {key}: {d}");
        }
    }
    assert!(!r["statements"].as_array().unwrap().is_empty());
}
