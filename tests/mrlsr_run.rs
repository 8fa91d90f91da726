//! The steppable Table-1 model selection (`cv::ModelSelectionRun`, used by the page to spread
//! the work over frames) against the one-shot `cv::model_selection` (a separate code path:
//! `cv_grids`), and its progress accounting.
#![cfg(not(target_arch = "wasm32"))]

use kernel_playground::datasets::regression::Friedman1;
use kernel_playground::kernels::{Bandwidth, Kernel};
use kernel_playground::papers::mrlsr::cv::{self, ModelSelectionRun};

const GAUSS: Kernel = Kernel::gaussian(Bandwidth::Heuristic);

fn cfg() -> cv::ModelSelectionConfig {
    cv::ModelSelectionConfig {
        ms: vec![0.5, 1.2, 2.0, 2.8],
        lambdas: cv::log_grid(1e-4, 1e0, 3).unwrap(),
        lambda2s: cv::log_grid(1e-4, 1e0, 3).unwrap(),
        folds: 3,
        train_fraction: 0.7,
        seed: 4,
    }
}

#[test]
fn stepping_gives_the_one_shot_model_selection() {
    let data = Friedman1 { n: 90, sigma: 1.0, seed: 3 }.generate().unwrap();
    let cfg = cfg();
    let reference = cv::model_selection(&data, &GAUSS, &cfg).unwrap();
    let mut run = ModelSelectionRun::new(&data, &GAUSS, &cfg).unwrap();
    assert!(run.finish().is_err(), "finish before the CV is done must refuse");
    assert!(run.partial_grid(0).is_none());
    let total = run.progress().total;
    // Per fold: one eigendecomposition, 4 M-RLSR rows, 1 KRR row.
    assert_eq!(total, 3 * (1 + 4 + 1));
    let mut steps = 0;
    while !run.is_complete() {
        let p = run.step().unwrap();
        steps += 1;
        assert_eq!(p.done, steps);
        if p.fold == 1 && steps == 6 {
            // After the first fold the partial grid is that fold's scores (finite).
            let g = run.partial_grid(0).unwrap();
            assert!(g.best_rmse.is_finite() && g.best_rmse > 0.0);
        }
    }
    assert_eq!(steps, total);
    let got = run.finish().unwrap();
    assert_eq!(got.n_train, reference.n_train);
    assert_eq!(got.mrlsr_cv.best_m, reference.mrlsr_cv.best_m);
    assert_eq!(got.mrlsr_cv.best_lambda, reference.mrlsr_cv.best_lambda);
    assert_eq!(got.krr_cv.best_lambda, reference.krr_cv.best_lambda);
    for (a, b) in got.mrlsr_cv.rmse.iter().flatten().zip(reference.mrlsr_cv.rmse.iter().flatten()) {
        assert!((a - b).abs() <= 1e-12 * b.abs(), "{a} vs {b}");
    }
    assert!((got.mrlsr_test_rmse - reference.mrlsr_test_rmse).abs() <= 1e-12);
    assert!((got.krr_test_rmse - reference.krr_test_rmse).abs() <= 1e-12);
    // The m = 2 row of the M-RLSR grid and the KRR grid share the λ values here: KRR by the
    // closed form and M-RLSR at m = 2 must agree fold by fold.
    for j in 0..3 {
        let a = got.mrlsr_cv.rmse[2][j];
        let b = got.krr_cv.rmse[0][j];
        assert!((a - b).abs() <= 1e-9 * b, "m = 2 row {a} vs KRR {b}");
    }
    // Stepping after completion is a no-op.
    assert_eq!(run.step().unwrap().done, total);
}

#[test]
fn bad_grids_and_sizes_are_refused() {
    let data = Friedman1 { n: 30, sigma: 1.0, seed: 3 }.generate().unwrap();
    let mut c = cfg();
    c.ms = vec![0.0];
    assert!(ModelSelectionRun::new(&data, &GAUSS, &c).is_err());
    let mut c = cfg();
    c.folds = 50;
    assert!(ModelSelectionRun::new(&data, &GAUSS, &c).is_err());
}

/// The page's plots render natively to SVG (they are written against `DrawingBackend`): F with
/// one labelled marker per positive root (two for this m < 1 case, checked by the core's own
/// root count), the minimizer named once, and the equivalence, curve and heatmap plots.
#[test]
fn plots_render_to_svg_with_every_root_marked() {
    use kernel_playground::plots::mrlsr as plot;
    use kernel_playground::solvers::mrlsr::MrlsrModel;
    use plotters::prelude::*;
    let data = kernel_playground::datasets::regression::Sine1d { n: 40, sigma: 0.2, seed: 2 }
        .generate()
        .unwrap();
    let model = MrlsrModel::from_dataset(&data, &GAUSS).unwrap();
    let (m, lambda) = (0.5, 1e-4);
    let (lo, hi) = model.auto_c_range(m, lambda).unwrap();
    let samples = model.sample_f(m, lambda, lo, hi, 300).unwrap();
    let roots = model.positive_roots(m, lambda).unwrap();
    let outcome = model.fit(m, lambda).unwrap();
    let minimizer = outcome.best_fit().map(|f| f.c0);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (640, 360)).into_drawing_area();
        plot::draw_f(&root, &samples, minimizer, 1.0).unwrap();
    }
    assert_eq!(svg.matches("C = ").count(), roots.len(), "one label per root of F");
    assert_eq!(svg.matches("(minimizer)").count(), usize::from(minimizer.is_some()));
    let mut svg2 = String::new();
    {
        let root = SVGBackend::with_string(&mut svg2, (640, 360)).into_drawing_area();
        plot::draw_equivalence_bars(&root, &[1e-14, 0.2, 0.1, 0.3], 1.0).unwrap();
    }
    for z in ["Z₁", "Z₂", "Z₃", "Z₄"] {
        assert!(svg2.contains(z), "{z} labelled");
    }
    let mut svg3 = String::new();
    {
        let root = SVGBackend::with_string(&mut svg3, (640, 360)).into_drawing_area();
        plot::draw_heatmap(
            &root,
            &[0.5, 1.0, 1.5],
            &[1e-3, 1e-2],
            &[vec![0.1, 0.2], vec![0.05, f64::NAN], vec![0.3, 0.4]],
            Some((1, 0)),
            1.0,
        )
        .unwrap();
    }
    // 6 cells + the best-cell outline, as <rect> elements.
    assert!(svg3.matches("<rect").count() >= 7);
}
