//! The test-only kernel of kernels/test_imq.rs (one file and one `#[cfg(test)]` line of
//! `catalogue!`) read by everything that reads the catalogue: the exported catalogue the pages
//! build their selects from, the spec parser and the expression parser, the Gram builders, and
//! `kplay run`'s engine — each checked against the kernel's formula written out here.

use crate::kernels::{catalogue_json, expr, CrossJob, Kernel, ResolvedKernel, TestImq};
use nalgebra::{DMatrix, DVector};

fn inputs() -> DMatrix<f64> {
    DMatrix::from_fn(9, 3, |i, j| ((i * 7 + j * 3) % 11) as f64 / 5.0 - 1.0)
}

/// The formula written out, apart from the kernel's file.
fn imq(a: &[f64], b: &[f64], c: f64) -> f64 {
    let d2: f64 = a.iter().zip(b).map(|(u, v)| (u - v).powi(2)).sum();
    (1.0 + d2 / (c * c)).powf(-0.5)
}

#[test]
fn the_test_kernel_is_in_the_catalogue_the_pages_read() {
    assert!(Kernel::ALL.contains(&Kernel::TestImq(TestImq { c: 1.0 })));
    let cat: serde_json::Value = serde_json::from_str(&catalogue_json()).expect("JSON");
    let entry = cat
        .as_array()
        .expect("a list")
        .iter()
        .find(|e| e["kind"] == "test_imq")
        .expect("the test kernel's entry");
    assert_eq!(entry["parameters"][0]["name"], "c");
    assert_eq!(entry["parameters"][0]["field"], "imq-c");
    assert_eq!(entry["parameters"][0]["default"], 1.0);
    // Every entry's kind is the spec's tag (serde's name of the variant).
    for k in Kernel::ALL {
        let v = serde_json::to_value(k).expect("serializes");
        assert_eq!(v["kind"], k.info().kind);
    }
}

#[test]
fn the_spec_parser_and_the_expression_parser_read_it() {
    let k: Kernel = crate::spec_json::typed(
        crate::spec_json::json_value(r#"{"kind": "test_imq", "c": 0.7}"#).expect("JSON"),
    )
    .expect("a spec kernel");
    assert_eq!(k, Kernel::TestImq(TestImq { c: 0.7 }));
    let bad = crate::spec_json::json_value(r#"{"kind": "test_imq", "c": 0.7, "d": 1}"#)
        .and_then(crate::spec_json::typed::<Kernel>)
        .expect_err("an unknown field");
    assert!(bad.to_string().contains("`d`"), "{bad}");
    let e = expr::parse("test_imq(c=0.7) + 0.5·linear").expect("an expression");
    assert_eq!(expr::parse(&e.to_string()).expect("round trip"), e);
    assert_eq!(expr::parse("test_imq").expect("defaults"), Kernel::TestImq(TestImq { c: 1.0 }));
    let x = inputs();
    let refused = Kernel::TestImq(TestImq { c: 0.0 }).resolve(&x).expect_err("c = 0");
    assert!(refused.to_string().contains("kernel.c"), "{refused}");
    let nested = expr::parse("linear + test_imq(c=0)").expect("parses").resolve(&x);
    assert!(nested.expect_err("c = 0").to_string().contains("kernel.of[1].c"));
}

#[test]
fn its_gram_matrices_equal_the_formula() {
    let x = inputs();
    let c = 0.8;
    let r = Kernel::TestImq(TestImq { c }).resolve(&x).expect("c > 0");
    assert_eq!(r, ResolvedKernel::TestImq(TestImq { c }));
    let k = r.gram(&x).expect("finite");
    let sq = ResolvedKernel::squared_norms(&x);
    let diag = r.gram_diagonal(&x, &sq);
    let mut row = DVector::zeros(x.nrows());
    for i in 0..x.nrows() {
        r.gram_row_into(&x, &sq, i, &mut row);
        for j in 0..x.nrows() {
            let (a, b): (Vec<f64>, Vec<f64>) =
                (x.row(i).iter().copied().collect(), x.row(j).iter().copied().collect());
            let want = imq(&a, &b, c);
            assert!((k[(i, j)] - want).abs() < 1e-12, "K[{i},{j}]");
            assert!((row[j] - want).abs() < 1e-12, "row {i}[{j}]");
            assert!((r.eval(&a, &b) - want).abs() < 1e-12, "eval {i},{j}");
        }
        assert!((diag[i] - 1.0).abs() < 1e-12);
    }
    // The sliced build and a composite with it go through the same code.
    let job = CrossJob::gram(r.clone(), x.clone()).expect("budget").finish().expect("done");
    assert_eq!(job, k);
    let sum = expr::parse("test_imq(c=0.8) + linear").expect("parses").resolve(&x).expect("ok");
    let lin = x.clone() * x.transpose();
    let ks = sum.gram(&x).expect("finite");
    assert!((ks - (&k + &lin)).abs().max() < 1e-12);
}

#[test]
fn kplay_run_solves_paper_c_with_it() {
    // Paper C with the square loss: at the optimum −λc = ∂L(y, Kc) = Kc − y, i.e.
    // (K + λI)c = y, with K written out here from the formula.
    let text = r#"{"paper": "dinuzzo", "race": false, "lambda": 0.1,
        "data": {"kind": "classification", "label_noise": 0.05, "n": 40, "seed": 1,
                 "shape": {"kind": "moons", "noise": 0.15}},
        "kernel": {"kind": "test_imq", "c": 0.7}, "loss": {"kind": "square"},
        "method": {"kind": "coordinate", "max_sweeps": 20000, "rule": "cyclic", "seed": 1,
                   "tol": 1e-12}}"#;
    let spec = crate::papers::Spec::from_json(text).expect("a spec");
    let report = crate::papers::run(&spec).expect("runs").to_json();
    assert_eq!(report["status"], "converged", "{report}");
    let c: Vec<f64> = report["solution"]["c"]
        .as_array()
        .expect("c")
        .iter()
        .map(|v| v.as_f64().expect("a number"))
        .collect();
    let data = crate::papers::data(&spec).expect("data");
    let n = data.x.nrows();
    assert_eq!(c.len(), n);
    let rows: Vec<Vec<f64>> = (0..n).map(|i| data.x.row(i).iter().copied().collect()).collect();
    let mut worst = 0.0_f64;
    for i in 0..n {
        let kc: f64 = (0..n).map(|j| imq(&rows[i], &rows[j], 0.7) * c[j]).sum();
        worst = worst.max((kc + 0.1 * c[i] - data.y[i]).abs());
    }
    assert!(worst < 1e-6, "max |(K + λI)c − y| = {worst}");
}
