//! The test-only loss of losses/test_weighted_square.rs (one file and one `#[cfg(test)]` line of
//! `catalogue!`) read by everything that reads the loss catalogue: the exported catalogue the
//! pages build their selects from, paper A's and paper C's schemas, the strict spec parser, and
//! `kplay run`'s engine for papers A and C — each run checked against something written out
//! here, not the loss's own formulas: paper C's optimality condition `(K + (λ/w)I)c = y` with K
//! computed here, and paper A's run against the square loss's file with γ·w in place of γ (the
//! weighted objective `γ Σ w(t − y)²/2` is the square loss's at γ·w).

use serde_json::Value;

use crate::losses::{catalogue_json, Loss, LossDef, TestWeightedSquare};
use crate::papers::{run, Spec};

fn number_list(v: &Value) -> Vec<f64> {
    v.as_array().expect("a list").iter().map(|x| x.as_f64().expect("a number")).collect()
}

#[test]
fn the_test_loss_is_in_the_catalogue_and_schemas_the_pages_read() {
    assert!(Loss::ALL.contains(&Loss::TestWeightedSquare { w: 2.0 }));
    let cat: Value = serde_json::from_str(&catalogue_json()).expect("JSON");
    let entry = cat
        .as_array()
        .expect("a list")
        .iter()
        .find(|e| e["kind"] == "test_weighted_square")
        .expect("the test loss's entry");
    assert_eq!(entry["parameters"][0]["name"], "w");
    assert_eq!(entry["parameters"][0]["default"], 2.0);
    assert_eq!(entry["smooth_dual"], true);
    assert_eq!(entry["box_quadratic"], true);
    assert_eq!(entry["classification"], false);
    // Every entry's kind is the spec's tag (serde's name of the variant), and the dispatch
    // reaches the loss's own file.
    for l in Loss::ALL {
        let v = serde_json::to_value(l).expect("serializes");
        assert_eq!(v["kind"], l.name());
    }
    assert_eq!(Loss::TestWeightedSquare { w: 3.0 }.value(1.0, 2.0), 1.5);
    for (paper, path) in [("lp", "model.loss"), ("dinuzzo", "loss")] {
        let schema = crate::papers::spec_schema(paper).expect("a paper");
        let kind = schema.field(&format!("{path}.kind")).expect("the loss select");
        let json = serde_json::to_value(kind).expect("serializes");
        let options = json["options"].as_array().expect("options");
        assert!(options.iter().any(|o| o["value"] == "test_weighted_square"), "{paper}");
        let w = schema.field(&format!("{path}.w")).expect("the weight's field");
        let json = serde_json::to_value(w).expect("serializes");
        assert_eq!(json["when"][0]["values"][0], "test_weighted_square", "{paper}");
    }
}

#[test]
fn the_strict_spec_parser_reads_it_and_names_a_bad_field() {
    let read =
        |text: &str| crate::spec_json::json_value(text).and_then(crate::spec_json::typed::<Loss>);
    let l = read(r#"{"kind": "test_weighted_square", "w": 0.5}"#).expect("a spec loss");
    assert_eq!(l, Loss::TestWeightedSquare { w: 0.5 });
    assert_eq!(serde_json::to_value(l).expect("serializes")["w"], 0.5);
    let bad = read(r#"{"kind": "test_weighted_square", "w": 0.5, "v": 1}"#).expect_err("unknown");
    assert!(bad.to_string().contains("`v`"), "{bad}");
    let missing = read(r#"{"kind": "test_weighted_square"}"#).expect_err("no w");
    assert!(missing.to_string().contains("`w`"), "{missing}");
    let zero = Loss::TestWeightedSquare { w: 0.0 }.validate().expect_err("w = 0");
    assert!(zero.to_string().contains("loss.w"), "{zero}");
    let spec = |w: &str| {
        format!(
            r#"{{"paper": "lp", "data": {{"kind": "sparse_regression", "n": 10, "d": 12, "k": 2,
                "seed": 1, "sigma": 0.05}},
              "model": {{"gamma": 1, "p": 1.5, "problem": "lp_regression",
                "loss": {{"kind": "test_weighted_square", "w": {w}}}}},
              "solver": {{"algorithm": "prox_dual", "tol": 1e-8, "max_iter": 100}}}}"#
        )
    };
    let refused = Spec::from_json(&spec("-1")).and_then(|s| run(&s)).expect_err("w < 0");
    assert!(refused.to_string().contains("loss.w"), "{refused}");
    assert!(Spec::from_json(&spec("1")).and_then(|s| run(&s)).is_ok());
}

/// Paper A through `kplay run`'s engine: the weighted loss at (w, γ) and the square loss at
/// (1, γ·w) are one problem, so the two files must give the same optimum.
#[test]
fn kplay_run_solves_paper_a_with_it() {
    let spec = |loss: &str, gamma: f64, algorithm: &str| {
        let text = format!(
            r#"{{"paper": "lp", "data": {{"kind": "sparse_regression", "n": 30, "d": 40, "k": 3,
                "seed": 1, "sigma": 0.05}},
              "model": {{"gamma": {gamma}, "p": 1.5, "problem": "lp_regression", "loss": {loss}}},
              "solver": {{"algorithm": "{algorithm}", "tol": 1e-11, "max_iter": 50000}}}}"#
        );
        run(&Spec::from_json(&text).expect("a spec")).expect("runs").to_json()
    };
    for algorithm in ["prox_dual", "dual_newton"] {
        let weighted = spec(r#"{"kind": "test_weighted_square", "w": 2.5}"#, 4.0, algorithm);
        let square = spec(r#"{"kind": "square"}"#, 10.0, algorithm);
        for r in [&weighted, &square] {
            assert_eq!(r["status"], "converged", "{algorithm}: {}", r["status"]);
        }
        let (fw, fs) =
            (weighted["primal"].as_f64().expect("F"), square["primal"].as_f64().expect("F"));
        assert!((fw - fs).abs() <= 1e-9 * fs, "{algorithm}: F {fw} vs {fs}");
        let (ww, ws) =
            (number_list(&weighted["solution"]["w"]), number_list(&square["solution"]["w"]));
        let scale = ws.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        let diff = ww.iter().zip(&ws).fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()));
        assert!(diff <= 1e-6 * scale, "{algorithm}: max |w − w_square| = {diff}");
        assert!(weighted["rel_gap"].as_f64().expect("gap") < 1e-9, "{algorithm}");
    }
}

/// Paper C through `kplay run`'s engine, every method and rule that takes the loss: at the
/// optimum `−λc = ∂L(y, Kc) = w(Kc − y)`, i.e. `(K + (λ/w)I)c = y`, with the linear kernel's
/// K written out here.
#[test]
fn kplay_run_solves_paper_c_with_it() {
    let (w, lambda) = (2.5, 0.3);
    let methods = [
        r#"{"kind": "coordinate", "rule": "cyclic", "max_sweeps": 50000, "seed": 1, "tol": 1e-12}"#,
        r#"{"kind": "coordinate", "rule": "greedy", "max_sweeps": 50000, "seed": 1, "tol": 1e-12}"#,
        r#"{"kind": "coordinate", "rule": "greedy_pairs", "max_sweeps": 50000, "seed": 1,
            "tol": 1e-12}"#,
        r#"{"kind": "fixed_point", "step": {"kind": "inverse_norm"}, "max_sweeps": 50000,
            "tol": 1e-12}"#,
    ];
    for method in methods {
        let text = format!(
            r#"{{"paper": "dinuzzo", "race": false, "lambda": {lambda},
                "data": {{"kind": "regression", "n": 30, "noise": 0.1, "outliers": 0.1, "seed": 1}},
                "kernel": {{"kind": "linear"}},
                "loss": {{"kind": "test_weighted_square", "w": {w}}}, "method": {method}}}"#
        );
        let spec = Spec::from_json(&text).expect("a spec");
        let report = run(&spec).expect("runs").to_json();
        assert_eq!(report["status"], "converged", "{method}: {report}");
        let c = number_list(&report["solution"]["c"]);
        let data = crate::papers::data(&spec).expect("data");
        let n = data.x.nrows();
        assert_eq!(c.len(), n);
        let mut worst = 0.0_f64;
        for i in 0..n {
            let kc: f64 = (0..n).map(|j| data.x.row(i).dot(&data.x.row(j)) * c[j]).sum();
            worst = worst.max((kc + lambda / w * c[i] - data.y[i]).abs());
        }
        assert!(worst < 1e-6, "{method}: max |(K + (λ/w)I)c − y| = {worst}");
    }
    // The weight reaches the file: w = 1 is the square loss's resolvent.
    let one = Loss::TestWeightedSquare { w: TestWeightedSquare::DEFAULT.w / 2.0 };
    let s = Loss::Square;
    assert_eq!(one.neg_resolvent(0.7, -0.2, 1.3, 0.4), s.neg_resolvent(0.7, -0.2, 1.3, 0.4));
}
