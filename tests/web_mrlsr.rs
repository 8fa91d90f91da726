//! wasm-bindgen tests of paper B's page exports in headless Chromium: build and fit, refit on
//! an m change (the cached eigendecomposition), draw into real canvases, refuse bad input.
//! Run with `wasm-pack test --headless --chrome -- --test web_mrlsr`.
#![cfg(target_arch = "wasm32")]

use kernel_playground::web::mrlsr::{
    check_mrlsr_spec, draw_cv_heatmap, draw_equivalence_report, mrlsr_eigen, mrlsr_equivalence,
    MrlsrPage, MrlsrSelection,
};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

mod browser;
use browser::{canvas, err_text, get, num, pixels};

wasm_bindgen_test_configure!(run_in_browser);

/// A page spec with a small model selection (its `selection` section): 3 folds × (1 + 3 + 1) units.
const SEL_SPEC: &str = r#"{"paper":"mrlsr","data":{"kind":"sine","n":60,"sigma":0.2,"seed":3},"kernel":{"kind":"gaussian","bandwidth":"heuristic"},"m":1.5,"lambda":1e-3,
    "selection":{"data":{"kind":"friedman","n":60,"sigma":1,"seed":1},"kernel":{"kind":"gaussian","bandwidth":"heuristic"},"folds":3,
    "ms":{"from":0.5,"to":1.5,"step":0.5},"lambdas":{"from":1e-3,"to":1e-1,"count":2},"lambda2s":{"from":1e-3,"to":1e-1,"count":2},"train_fraction":0.7,"seed":1}}"#;

fn sine_spec(m: f64, lambda: f64) -> String {
    format!(
        r#"{{"data":{{"kind":"sine","n":60,"sigma":0.2,"seed":3}},"kernel":{{"kind":"gaussian","bandwidth":"heuristic"}},"m":{m},"lambda":{lambda}}}"#
    )
}

#[wasm_bindgen_test]
fn fits_refits_on_m_and_satisfies_the_root_equation() {
    let mut page = MrlsrPage::new(&sine_spec(1.5, 1e-3)).map_err(|_| ()).expect("valid spec");
    let s0 = page.summary().map_err(|_| ()).expect("summary");
    assert_eq!(num(&s0, "n"), 60.0);
    assert_eq!(get(&s0, &["kind"]).as_string().as_deref(), Some("theorem1"));
    let c0 = num(&s0, "c0");
    let norm = num(&s0, "norm_h");
    // Theorem 1: C₀ = ‖f‖_H^(m−2) at the root (eq. 6 restated).
    assert!(
        (c0 - norm.powf(1.5 - 2.0)).abs() <= 1e-8 * c0,
        "C₀ {c0} vs ‖f‖^(m−2) {}",
        norm.powf(-0.5)
    );
    // λ₂ = (m/2)·C₀·λ (Proposition 5.1) and KRR(λ₂) has the same RKHS norm (same f on the data).
    assert!((num(&s0, "lambda2") - 0.75 * c0 * 1e-3).abs() <= 1e-12 * c0);
    assert!((num(&s0, "krr_norm_h") - norm).abs() <= 1e-7 * norm);
    let eigen_ms = num(&s0, "eigen_ms");
    // Refit at m = 3: the eigendecomposition is not redone (its time is unchanged).
    let s1 = page.refit(3.0, 1e-3).map_err(|_| ()).expect("refit");
    assert_eq!(num(&s1, "eigen_ms"), eigen_ms);
    let c1 = num(&s1, "c0");
    let norm1 = num(&s1, "norm_h");
    assert!(c1 != c0);
    assert!((c1 - norm1.powf(1.0)).abs() <= 1e-8 * c1, "m = 3: C₀ = ‖f‖");
    // m = 2 is KRR: C₀ = 1 and λ₂ = λ.
    let s2 = page.refit(2.0, 1e-2).map_err(|_| ()).expect("refit");
    assert_eq!(num(&s2, "c0"), 1.0);
    assert!((num(&s2, "lambda2") - 1e-2).abs() < 1e-15);
    // m ≤ 1: outside the theorem, with the core's message.
    let s3 = page.refit(0.5, 1e-3).map_err(|_| ()).expect("refit");
    assert_eq!(get(&s3, &["kind"]).as_string().as_deref(), Some("outside"));
    assert!(get(&s3, &["message"]).as_string().unwrap_or_default().contains("outside Theorem 1"));
}

#[wasm_bindgen_test]
fn draws_into_canvases_and_repaints_on_m() {
    let mut page = MrlsrPage::new(&sine_spec(1.5, 1e-3)).map_err(|_| ()).expect("valid spec");
    let fit = canvas(480, 300);
    let fplot = canvas(480, 300);
    let blank = pixels(&fit);
    page.draw_fit(fit.clone(), 1.0).map_err(|_| ()).expect("draw fit");
    page.draw_f(fplot.clone(), 1.0).map_err(|_| ()).expect("draw F");
    let a = pixels(&fit);
    let fa = pixels(&fplot);
    assert_ne!(a, blank, "the fit canvas is painted");
    page.refit(3.5, 1e-1).map_err(|_| ()).expect("refit");
    page.draw_fit(fit.clone(), 1.0).map_err(|_| ()).expect("draw fit");
    page.draw_f(fplot.clone(), 1.0).map_err(|_| ()).expect("draw F");
    assert_ne!(pixels(&fit), a, "the fitted curve moved");
    assert_ne!(pixels(&fplot), fa, "F changed");
    // m < 1 draws F with its roots too.
    page.refit(0.5, 1e-3).map_err(|_| ()).expect("refit");
    page.draw_f(fplot.clone(), 1.0).map_err(|_| ()).expect("draw F outside");
    // 10-D data: predicted against true.
    let spec = r#"{"data":{"kind":"friedman","n":80,"sigma":1,"seed":2},"kernel":{"kind":"gaussian","bandwidth":"heuristic"},"m":1.2,"lambda":1e-3}"#;
    let p10 = MrlsrPage::new(spec).map_err(|_| ()).expect("friedman");
    let c = canvas(400, 300);
    let before = pixels(&c);
    p10.draw_fit(c.clone(), 1.0).map_err(|_| ()).expect("scatter");
    assert_ne!(pixels(&c), before);
}

#[wasm_bindgen_test]
fn equivalence_and_selection_through_the_exports() {
    let mut page = MrlsrPage::new(&sine_spec(1.5, 1e-3)).map_err(|_| ()).expect("valid spec");
    let rep = page.equivalence(4, 5, 1).map_err(|_| ()).expect("equivalence");
    let parts = js_sys::Array::from(&get(&rep, &["parts"]));
    assert_eq!(parts.length(), 4);
    let d1 = num(&parts.get(0), "diff_rkhs");
    let d2 = num(&parts.get(1), "diff_rkhs");
    // Z₁: the same f up to the conditioning of the Cholesky solve of K + nλ₂I at the small λ
    // chosen here (K is numerically singular on 15 points); other parts: a different f.
    assert!(d1 < 1e-5 * d2 && d2 > 1e-3, "Z₁ {d1}, Z₂ {d2}");
    let (b, c) = (canvas(300, 200), canvas(300, 200));
    let blank = pixels(&b);
    page.draw_equivalence(b.clone(), c.clone(), 1.0).map_err(|_| ()).expect("draw");
    assert_ne!(pixels(&b), blank);
    let sel_spec = SEL_SPEC;
    let mut sel = MrlsrSelection::new(sel_spec).map_err(|_| ()).expect("selection");
    let mut calls = 0;
    loop {
        let st = sel.run_for(0.0).map_err(|_| ()).expect("step");
        calls += 1;
        if get(&st, &["complete"]).as_bool() == Some(true) {
            let r = get(&st, &["result"]);
            assert!(num(&get(&r, &["mrlsr_cv"]), "best_rmse") > 0.0);
            break;
        }
        assert!(calls < 100);
    }
    // A zero budget still does one unit per call: 3 folds × (1 + 3 + 1) units.
    assert_eq!(calls, 15);
    let h = canvas(300, 200);
    let blank = pixels(&h);
    sel.draw_heatmap(h.clone(), 1.0).map_err(|_| ()).expect("heatmap");
    assert_ne!(pixels(&h), blank);
}

fn refusal(spec: &str) -> String {
    match MrlsrPage::new(spec) {
        Ok(_) => String::new(),
        Err(e) => err_text(e),
    }
}

#[wasm_bindgen_test]
fn bad_input_is_refused_with_a_message_and_the_page_keeps_its_fit() {
    assert!(refusal(&sine_spec(1.5, 0.0)).contains("lambda"));
    assert!(refusal(&sine_spec(1.5, -1.0)).contains("lambda"));
    assert!(refusal(&sine_spec(0.0, 1e-3)).contains('m'));
    assert!(refusal(&sine_spec(-2.0, 1e-3)).contains('m'));
    let mu0 = r#"{"data":{"kind":"sine","n":30,"sigma":0.2,"seed":1},"kernel":{"kind":"gaussian","bandwidth":{"fixed":0}},"m":1.5,"lambda":1e-3}"#;
    assert!(!refusal(mu0).is_empty());
    let big = r#"{"data":{"kind":"friedman","n":5000,"sigma":1,"seed":1},"kernel":{"kind":"linear"},"m":1.5,"lambda":1e-3}"#;
    assert!(refusal(big).contains("budget"));
    let zero_y = r#"{"data":{"kind":"csv","text":"x,y\n1,0\n2,0\n3,0\n"},"kernel":{"kind":"linear"},"m":1.5,"lambda":1e-3}"#;
    assert!(refusal(zero_y).contains("every target is 0"));
    // Duplicate inputs: a singular K proceeds with a warning.
    let dup = r#"{"data":{"kind":"csv","text":"x,y\n1,1\n1,2\n2,3\n3,1\n"},"kernel":{"kind":"gaussian","bandwidth":"heuristic"},"m":1.5,"lambda":1e-3}"#;
    let p = MrlsrPage::new(dup).map_err(|_| ()).expect("singular K proceeds");
    let s = p.summary().map_err(|_| ()).expect("summary");
    assert!(get(&s, &["warning"]).as_string().is_some(), "singular K warns");
    // A refit with a bad λ or m fails and keeps the previous fit.
    let mut page = MrlsrPage::new(&sine_spec(1.5, 1e-3)).map_err(|_| ()).expect("valid");
    let c0 = num(&page.summary().map_err(|_| ()).expect("s"), "c0");
    assert!(page.refit(1.5, -1.0).is_err());
    assert!(page.refit(0.0, 1e-3).is_err());
    assert!(page.refit(f64::NAN, 1e-3).is_err());
    assert_eq!(num(&page.summary().map_err(|_| ()).expect("s"), "c0"), c0);
}

/// The worker's result object as the page receives it: (values, vectors, eigen_ms).
fn eigen_payload(spec: &str) -> (Vec<f64>, Vec<f64>, f64) {
    let r = mrlsr_eigen(spec).map_err(|_| ()).expect("eigen");
    let values = js_sys::Float64Array::from(get(&r, &["values"])).to_vec();
    let vectors = js_sys::Float64Array::from(get(&r, &["vectors"])).to_vec();
    assert_eq!(num(&r, "n") as usize, values.len());
    assert_eq!(vectors.len(), values.len() * values.len());
    (values, vectors, num(&r, "eigen_ms"))
}

#[wasm_bindgen_test]
fn eigen_payload_path_gives_the_same_refit_as_the_direct_path() {
    for spec in [
        sine_spec(1.5, 1e-3),
        r#"{"data":{"kind":"friedman","n":90,"sigma":1,"seed":4},"kernel":{"kind":"gaussian","bandwidth":"heuristic"},"m":1.2,"lambda":1e-3}"#.to_string(),
    ] {
        let mut direct = MrlsrPage::new(&spec).map_err(|_| ()).expect("direct");
        let (values, vectors, eigen_ms) = eigen_payload(&spec);
        assert!(eigen_ms >= 0.0, "the worker-side timer runs: {eigen_ms}");
        let mut adopted = MrlsrPage::from_eigen(&spec, values, vectors, eigen_ms).map_err(|_| ()).expect("adopt");
        assert_eq!(num(&adopted.summary().map_err(|_| ()).expect("s"), "eigen_ms"), eigen_ms);
        for (m, lambda) in [(1.2, 1e-3), (1.5, 1e-2), (2.0, 1e-4), (3.0, 1e-3), (0.5, 1e-2)] {
            let a = direct.refit(m, lambda).map_err(|_| ()).expect("direct refit");
            let b = adopted.refit(m, lambda).map_err(|_| ()).expect("adopted refit");
            for key in ["c0", "norm_h", "lambda2", "objective", "krr_norm_h", "iterations"] {
                let (x, y) = (num(&a, key), num(&b, key));
                assert!(x == y || (x.is_nan() && y.is_nan()), "m = {m}, λ = {lambda}: {key} {x} vs {y}");
            }
            assert_eq!(get(&a, &["digest"]).as_string(), get(&b, &["digest"]).as_string());
        }
        // Both draw the same picture.
        let (c1, c2) = (canvas(320, 200), canvas(320, 200));
        direct.draw_fit(c1.clone(), 1.0).map_err(|_| ()).expect("draw");
        adopted.draw_fit(c2.clone(), 1.0).map_err(|_| ()).expect("draw");
        assert_eq!(pixels(&c1), pixels(&c2));
    }
}

#[wasm_bindgen_test]
fn a_corrupted_or_foreign_payload_is_refused_without_a_panic() {
    let spec = sine_spec(1.5, 1e-3);
    let (values, vectors, ms) = eigen_payload(&spec);
    let mut v2 = vectors.clone();
    v2[5] += 1e-3;
    let e = MrlsrPage::from_eigen(&spec, values.clone(), v2, ms)
        .err()
        .map(err_text)
        .unwrap_or_default();
    assert!(e.contains("not orthonormal"), "{e}");
    let e = MrlsrPage::from_eigen(&spec, values[1..].to_vec(), vectors.clone(), ms)
        .err()
        .map(err_text)
        .unwrap_or_default();
    assert!(e.contains("eigendecomposition"), "{e}");
    // The payload of another seed's data of the same size.
    let other = sine_spec(1.5, 1e-3).replace("\"seed\":3", "\"seed\":4");
    let (ov, oq, _) = eigen_payload(&other);
    let e = MrlsrPage::from_eigen(&spec, ov, oq, ms).err().map(err_text).unwrap_or_default();
    assert!(e.contains("other data"), "{e}");
    // The module still works afterwards (no panic killed it).
    MrlsrPage::from_eigen(&spec, values, vectors, ms).map_err(|_| ()).expect("the good payload");
}

#[wasm_bindgen_test]
fn spec_check_and_drawing_posted_results() {
    let ok = check_mrlsr_spec(&sine_spec(1.5, 1e-3)).map_err(|_| ()).expect("valid");
    assert_eq!(num(&ok, "n"), 60.0);
    let big = r#"{"data":{"kind":"sine","n":5000,"sigma":0.2,"seed":3},"kernel":{"kind":"gaussian","bandwidth":"heuristic"},"m":1.5,"lambda":1e-3}"#;
    assert!(check_mrlsr_spec(big).err().map(err_text).unwrap_or_default().contains("budget"));
    let mu0 = r#"{"data":{"kind":"sine","n":50,"sigma":0.2,"seed":3},"kernel":{"kind":"gaussian","bandwidth":{"fixed":0}},"m":1.5,"lambda":1e-3}"#;
    assert!(check_mrlsr_spec(mu0).is_err());
    // The equivalence report as a worker posts it draws through the free function.
    let rep = mrlsr_equivalence(&format!(
        r#"{},"equivalence":{{"parts":4,"folds":5,"seed":1}}}}"#,
        sine_spec(1.5, 1e-3).trim_end_matches('}')
    ))
    .map_err(|_| ())
    .expect("equivalence");
    let (b, c) = (canvas(300, 200), canvas(300, 200));
    let (b0, c0) = (pixels(&b), pixels(&c));
    draw_equivalence_report(b.clone(), c.clone(), rep.clone(), 1.0)
        .map_err(|_| ())
        .expect("draw report");
    assert_ne!(pixels(&b), b0);
    assert_ne!(pixels(&c), c0);
    // A malformed report or grid is refused, not drawn, and nothing panics.
    let bad = js_sys::JSON::parse(
        r#"{"lambda":1,"lambda2":1,"lambdas":[1e-3,1e-2],"curves":[[1]],"parts":[]}"#,
    )
    .expect("json");
    assert!(draw_equivalence_report(b.clone(), c.clone(), bad, 1.0)
        .err()
        .map(err_text)
        .unwrap_or_default()
        .contains("curve 1"));
    let h = canvas(300, 200);
    let bad_grid = js_sys::JSON::parse(r#"{"ms":[1,2],"lambdas":[1e-3],"rmse":[[0.1]],"best_m":1,"best_lambda":1e-3,"best_rmse":0.1,"failures":0}"#).expect("json");
    assert!(draw_cv_heatmap(h.clone(), bad_grid, 1.0)
        .err()
        .map(err_text)
        .unwrap_or_default()
        .contains("2 × 1"));
    assert!(draw_cv_heatmap(h.clone(), JsValue::from_str("nonsense"), 1.0).is_err());
    let sel_spec = SEL_SPEC;
    let mut sel = MrlsrSelection::new(sel_spec).map_err(|_| ()).expect("selection");
    assert!(
        sel.partial_grid().map_err(|_| ()).expect("grid").is_null(),
        "no grid before the first fold"
    );
    let blank = pixels(&h);
    while get(&sel.run_for(0.0).map_err(|_| ()).expect("step"), &["complete"]).as_bool()
        != Some(true)
    {}
    let g = sel.partial_grid().map_err(|_| ()).expect("grid");
    draw_cv_heatmap(h.clone(), g, 1.0).map_err(|_| ()).expect("heatmap");
    assert_ne!(pixels(&h), blank);
}
