//! Paper B (M-RLSR) against independent references: Cholesky solves of KRR, a Newton
//! minimizer of eq. (4) written here in the coordinates of f, F(C) evaluated without the
//! eigendecomposition, optimality residuals, and closed forms.
#![cfg(not(target_arch = "wasm32"))]

use kernel_playground::data::Dataset;
use kernel_playground::datasets::regression::{Friedman1, Sine1d};
use kernel_playground::exec::{Stepper, Stop};
use kernel_playground::kernels::{Bandwidth, Kernel};
use kernel_playground::papers::mrlsr::cv::{self, EquivalenceConfig};
use kernel_playground::solvers::mrlsr::{MrlsrModel, MrlsrOutcome, StationaryKind, MAX_EIGEN_N};
use nalgebra::{DMatrix, DVector};
use proptest::prelude::*;

const GAUSS: Kernel = Kernel::gaussian(Bandwidth::Heuristic);

fn friedman(n: usize, seed: u64) -> Dataset {
    Friedman1 { n, sigma: 1.0, seed }.generate().unwrap()
}

/// `J(α) = ‖y − Kα‖²/n + λ(αᵀKα)^(m/2)` with the real Gram matrix.
fn objective(k: &DMatrix<f64>, y: &DVector<f64>, a: &DVector<f64>, m: f64, lambda: f64) -> f64 {
    let ka = k * a;
    (y - &ka).norm_squared() / y.len() as f64 + lambda * ka.dot(a).max(0.0).powf(0.5 * m)
}

/// Cholesky solve of `(K + nλI)α = y`.
fn krr_cholesky(k: &DMatrix<f64>, y: &DVector<f64>, lambda: f64) -> DVector<f64> {
    let n = y.len();
    let a = k + DMatrix::identity(n, n) * (n as f64 * lambda);
    a.cholesky().expect("K + nλI is positive definite").solve(y)
}

/// Lower Cholesky factor L of K (K = LLᵀ); f's coordinates are b = Lᵀα, so Kα = Lb and
/// αᵀKα = ‖b‖².
fn chol_l(k: &DMatrix<f64>) -> DMatrix<f64> {
    k.clone().cholesky().expect("K is positive definite on this data").l()
}

/// Gradient and Hessian of `J(b) = ‖y − Lb‖²/n + λ‖b‖^m`.
fn grad_hess(
    l: &DMatrix<f64>,
    y: &DVector<f64>,
    b: &DVector<f64>,
    m: f64,
    lambda: f64,
) -> (DVector<f64>, DMatrix<f64>) {
    let n = y.len() as f64;
    let ltl = l.tr_mul(l);
    let nb = b.norm();
    let c = nb.powf(m - 2.0);
    let g = (&ltl * b - l.tr_mul(y)) * (2.0 / n) + b * (lambda * m * c);
    let bh = b / nb;
    let h = &ltl * (2.0 / n)
        + (DMatrix::identity(b.len(), b.len()) + &bh * bh.transpose() * (m - 2.0))
            * (lambda * m * c);
    (g, h)
}

fn jb(l: &DMatrix<f64>, y: &DVector<f64>, b: &DVector<f64>, m: f64, lambda: f64) -> f64 {
    (y - l * b).norm_squared() / y.len() as f64 + lambda * b.norm().powf(m)
}

/// Damped Newton with Armijo backtracking on J(b), from `b`, to gradient ≈ 0.
fn newton_minimize(
    l: &DMatrix<f64>,
    y: &DVector<f64>,
    mut b: DVector<f64>,
    m: f64,
    lambda: f64,
) -> DVector<f64> {
    for _ in 0..500 {
        let (g, h) = grad_hess(l, y, &b, m, lambda);
        if g.norm() <= 1e-14 * (1.0 + y.norm()) {
            break;
        }
        let p = match h.cholesky() {
            Some(ch) => -ch.solve(&g),
            None => -g.clone(),
        };
        let j0 = jb(l, y, &b, m, lambda);
        let slope = g.dot(&p);
        let mut t = 1.0;
        let mut moved = false;
        for _ in 0..60 {
            let trial = &b + &p * t;
            if jb(l, y, &trial, m, lambda) <= j0 + 1e-4 * t * slope {
                b = trial;
                moved = true;
                break;
            }
            t *= 0.5;
        }
        if !moved {
            break;
        }
    }
    b
}

#[test]
fn m2_is_krr_by_cholesky() {
    let data = friedman(40, 1);
    let model = MrlsrModel::from_dataset(&data, &GAUSS).unwrap();
    assert!(model.singularity().is_none());
    for &lambda in &[1e-4, 1e-2, 1.0] {
        let reference = krr_cholesky(model.gram(), &data.y, lambda);
        for fit in [model.fit_theorem1(2.0, lambda).unwrap(), model.krr(lambda).unwrap()] {
            assert_eq!(fit.c0, 1.0);
            assert_eq!(fit.lambda2, lambda);
            let rel = (&fit.alpha - &reference).norm() / reference.norm();
            assert!(rel < 1e-9, "λ = {lambda}: α differs from the Cholesky solve by {rel:e}");
            let fitted_ref = model.gram() * &reference;
            assert!((&fit.fitted - &fitted_ref).norm() < 1e-10 * data.y.norm());
        }
    }
}

#[test]
fn theorem1_matches_newton_minimization() {
    let data = friedman(40, 2);
    let model = MrlsrModel::from_dataset(&data, &GAUSS).unwrap();
    let k = model.gram();
    let l = chol_l(k);
    for &m in &[1.2, 1.5, 3.0] {
        for &lambda in &[1e-3, 1e-1] {
            let fit = model.fit_theorem1(m, lambda).unwrap();
            // Start the reference from a deliberately different point: KRR at 10λ.
            let a0 = krr_cholesky(k, &data.y, 10.0 * lambda);
            let b = newton_minimize(&l, &data.y, l.tr_mul(&a0), m, lambda);
            let j_ref = jb(&l, &data.y, &b, m, lambda);
            let j_thm = objective(k, &data.y, &fit.alpha, m, lambda);
            assert!(
                (j_thm - j_ref).abs() <= 1e-11 * j_ref,
                "m = {m}, λ = {lambda}: J = {j_thm} vs reference {j_ref}"
            );
            assert!(
                (fit.objective - j_thm).abs() <= 1e-10 * j_thm,
                "reported objective {} vs {j_thm}",
                fit.objective
            );
            let f_ref = &l * &b;
            let diff = (&fit.fitted - &f_ref).norm() / f_ref.norm();
            assert!(diff < 1e-7, "m = {m}, λ = {lambda}: fitted values differ by {diff:e}");
            // The reference is a minimizer to rounding, so no point does better.
            assert!(j_thm <= j_ref * (1.0 + 1e-11));
        }
    }
}

#[test]
fn root_residual_and_norm_identity() {
    let data = friedman(60, 3);
    let model = MrlsrModel::from_dataset(&data, &GAUSS).unwrap();
    let k = model.gram();
    let n = data.n() as f64;
    for &m in &[1.1, 1.2, 1.5, 2.5, 3.0, 5.0] {
        for &lambda in &[1e-6, 1e-3, 1.0, 100.0] {
            let fit = model.fit_theorem1(m, lambda).unwrap();
            // F(C₀) ≈ 0, with F evaluated WITHOUT the eigendecomposition: the sum in F is
            // ‖f_C‖² for the KRR solution at λ' = λmC/2 (α'_i = 2y'_i/(2d_i + λmnC)).
            let ac = krr_cholesky(k, &data.y, lambda * m * fit.c0 / 2.0);
            let g = (k * &ac).dot(&ac);
            let f_c0 = g.powf(m / 2.0 - 1.0) - fit.c0;
            assert!(
                f_c0.abs() <= 1e-9 * fit.c0,
                "m = {m}, λ = {lambda}: F(C₀) = {f_c0:e}, C₀ = {}",
                fit.c0
            );
            assert!(fit.f_residual.abs() <= 1e-12 * fit.c0);
            // C₀ = ‖f‖^(m−2) with ‖f‖² = αᵀKα.
            let norm = (k * &fit.alpha).dot(&fit.alpha).sqrt();
            assert!((fit.norm_h - norm).abs() <= 1e-9 * norm);
            assert!((fit.c0 - norm.powf(m - 2.0)).abs() <= 1e-8 * fit.c0);
            assert!((fit.lambda2 - 0.5 * m * fit.c0 * lambda).abs() <= 1e-15 * fit.lambda2);
            assert!(fit.iterations <= 60, "root-solve took {} iterations", fit.iterations);
            // The grid scan finds the same single root (Theorem 1: unique for m > 1).
            let roots = model.positive_roots(m, lambda).unwrap();
            assert_eq!(roots.len(), 1, "m = {m}, λ = {lambda}: {roots:?}");
            assert!((roots[0].0 - fit.c0).abs() <= 1e-10 * fit.c0);
            // Stationarity of eq. (4) w.r.t. α: K[(2/n)(Kα − y) + λmC₀α] = 0.
            let r =
                k * ((k * &fit.alpha - &data.y) * (2.0 / n) + &fit.alpha * (lambda * m * fit.c0));
            assert!(
                r.norm() <= 1e-8 * (k * &data.y).norm() * (2.0 / n),
                "m = {m}, λ = {lambda}: gradient {:e}",
                r.norm()
            );
        }
    }
}

#[test]
fn root_solve_is_steppable_and_monotone_bracket() {
    let data = friedman(30, 4);
    let model = MrlsrModel::from_dataset(&data, &GAUSS).unwrap();
    let mut solve = model.root_solve(1.3, 1e-2);
    let mut width = f64::INFINITY;
    let mut steps = 0;
    while let Some(rec) = solve.step() {
        let (lo, hi) = solve.bracket();
        let w = hi.ln() - lo.ln();
        assert!(w <= width + 1e-12, "the bracket grew");
        assert_eq!(rec.step, Some(solve.c()), "the record's step is C");
        assert!(lo <= solve.c() && solve.c() <= hi);
        width = w;
        steps += 1;
        assert_eq!(rec.iter, steps);
    }
    assert!(steps >= 1);
    // The root solve's own stop: the root found to rounding (the cap is the executor's).
    assert_eq!(solve.stop(), Stop::Converged);
    let fit = model.fit_theorem1(1.3, 1e-2).unwrap();
    assert_eq!(
        fit.iterations, steps,
        "the fit's root solve under the executor took the same steps"
    );
    assert!((solve.c() - fit.c0).abs() <= 1e-12 * fit.c0);
    let json = serde_json::to_value(MrlsrOutcome::Theorem1(fit.clone())).unwrap();
    assert_eq!(json["kind"], "theorem1");
    assert_eq!(json["alpha"].as_array().map(|a| a.len()), Some(30));
    let f_value = solve.record().residual.expect("F(C)");
    assert!(f_value.abs() <= 1e-12 * fit.c0);
}

/// F(C) computed through Cholesky, without the eigendecomposition.
fn f_reference(k: &DMatrix<f64>, y: &DVector<f64>, m: f64, lambda: f64, c: f64) -> f64 {
    let ac = krr_cholesky(k, y, lambda * m * c / 2.0);
    (k * &ac).dot(&ac).powf(m / 2.0 - 1.0) - c
}

#[test]
fn below_one_two_roots_small_is_minimum_large_is_saddle() {
    let data = friedman(40, 5);
    let model = MrlsrModel::from_dataset(&data, &GAUSS).unwrap();
    let k = model.gram();
    let l = chol_l(k);
    let (m, lambda) = (0.5, 1e-2);
    let out = model.fit(m, lambda).unwrap();
    let json = serde_json::to_string(&out).unwrap();
    assert!(
        json.contains("\"kind\":\"outside_theorem\"") && json.contains("\"saddle\""),
        "{}",
        &json[..200.min(json.len())]
    );
    let rep = match out {
        MrlsrOutcome::OutsideTheorem(r) => r,
        MrlsrOutcome::Theorem1(_) => panic!("m < 1 must not be reported as Theorem 1"),
    };
    assert!(rep.message.contains("outside Theorem 1"));
    assert_eq!(rep.stationary.len(), 2, "{}", rep.message);
    let (small, large) = (&rep.stationary[0], &rep.stationary[1]);
    assert!(small.fit.c0 < large.fit.c0);
    for s in &rep.stationary {
        // A root of F, checked by the Cholesky route.
        let fr = f_reference(k, &data.y, m, lambda, s.fit.c0);
        assert!(fr.abs() <= 1e-8 * s.fit.c0, "F(C) = {fr:e} at C = {}", s.fit.c0);
        // A stationary point of J(b) in the coordinates of f.
        let b = l.solve_lower_triangular(&(k * &s.fit.alpha)).unwrap();
        let (g, h) = grad_hess(&l, &data.y, &b, m, lambda);
        assert!(
            g.norm() <= 1e-7 * l.tr_mul(&data.y).norm() / data.n() as f64,
            "gradient {:e}",
            g.norm()
        );
        // The Hessian test, independently: Cholesky succeeds iff positive definite.
        let pd = h.clone().cholesky().is_some();
        assert_eq!(pd, s.kind == StationaryKind::LocalMinimum, "margin {}", s.hessian_margin);
    }
    assert_eq!(small.kind, StationaryKind::LocalMinimum);
    assert_eq!(large.kind, StationaryKind::Saddle);
    // Newton started from the KRR solution descends to the small-C root.
    let b0 = l.tr_mul(&krr_cholesky(k, &data.y, lambda));
    let b = newton_minimize(&l, &data.y, b0, m, lambda);
    let j = jb(&l, &data.y, &b, m, lambda);
    assert!(
        (j - small.fit.objective).abs() <= 1e-9 * j,
        "descent reached {j}, the small root has {}",
        small.fit.objective
    );
    assert!(small.fit.objective < large.fit.objective);
    assert!(rep.zero_objective > small.fit.objective);
    assert_eq!(rep.minimizer, Some(0));
    // F sampled for plotting changes sign exactly at the reported roots.
    let (lo, hi) = model.auto_c_range(m, lambda).unwrap();
    let samples = model.sample_f(m, lambda, lo, hi, 400).unwrap();
    let changes = samples.f.windows(2).filter(|w| (w[0] > 0.0) != (w[1] > 0.0)).count();
    assert_eq!(changes, 2);
    assert_eq!(samples.roots.len(), 2);
    for (i, &c) in samples.c.iter().enumerate().step_by(50) {
        let fr = f_reference(k, &data.y, m, lambda, c);
        assert!(
            (samples.f[i] - fr).abs() <= 1e-8 * (fr.abs() + c),
            "F({c}) = {} vs {fr}",
            samples.f[i]
        );
        assert_eq!(samples.phi[i] > 0.0, samples.f[i] > 0.0);
    }
}

#[test]
fn below_one_large_lambda_no_root_zero_is_best() {
    let data = friedman(30, 6);
    let model = MrlsrModel::from_dataset(&data, &GAUSS).unwrap();
    let out = model.fit(0.5, 1e4).unwrap();
    match &out {
        MrlsrOutcome::OutsideTheorem(r) => {
            assert!(r.stationary.is_empty(), "{}", r.message);
            assert_eq!(r.minimizer, None);
            assert!(
                (r.zero_objective - data.y.norm_squared() / 30.0).abs() < 1e-12 * r.zero_objective
            );
        }
        _ => panic!("expected the outside-theorem report"),
    }
    assert!(out.best_alpha(30).iter().all(|&v| v == 0.0));
}

#[test]
fn m_equal_one_root_iff_threshold() {
    let data = friedman(30, 7);
    let model = MrlsrModel::from_dataset(&data, &GAUSS).unwrap();
    let k = model.gram();
    let l = chol_l(k);
    let n = data.n() as f64;
    // Σ 4 d_i y'_i² = 4 yᵀKy: the threshold λ* = 2√(yᵀKy)/n, computed without the eigenbasis.
    let lstar = 2.0 * (k * &data.y).dot(&data.y).sqrt() / n;
    let below = model.fit(1.0, 0.5 * lstar).unwrap();
    let above = model.fit(1.0, 2.0 * lstar).unwrap();
    match (&below, &above) {
        (MrlsrOutcome::OutsideTheorem(b), MrlsrOutcome::OutsideTheorem(a)) => {
            assert_eq!(b.stationary.len(), 1, "{}", b.message);
            assert_eq!(b.minimizer, Some(0));
            assert!(a.stationary.is_empty(), "{}", a.message);
            assert_eq!(a.minimizer, None);
            // Above the threshold, 0 satisfies the subgradient condition ‖(2/n)Lᵀy‖ ≤ λ.
            assert!(2.0 / n * l.tr_mul(&data.y).norm() <= 2.0 * lstar);
            // Below, the root is the minimizer of a convex problem: Newton agrees.
            let fit = &b.stationary[0].fit;
            let bb = newton_minimize(
                &l,
                &data.y,
                l.tr_mul(&krr_cholesky(k, &data.y, 0.5 * lstar)),
                1.0,
                0.5 * lstar,
            );
            let j = jb(&l, &data.y, &bb, 1.0, 0.5 * lstar);
            assert!((j - fit.objective).abs() <= 1e-10 * j);
        }
        _ => panic!("m = 1 is outside Theorem 1"),
    }
}

#[test]
fn equivalence_zero_on_z1_positive_elsewhere() {
    let data = friedman(240, 8);
    let cfg = EquivalenceConfig {
        m: 1.2,
        lambdas: cv::log_grid(1e-6, 1e0, 7).unwrap(),
        folds: 5,
        parts: 4,
        seed: 9,
    };
    let rep = cv::equivalence_experiment(&data, &GAUSS, &cfg).unwrap();
    assert_eq!(rep.parts.len(), 4);
    assert!(cfg.lambdas.contains(&rep.lambda));
    let z1 = &rep.parts[0];
    assert_eq!(z1.krr_method, "cholesky");
    assert!((z1.own_lambda2 - rep.lambda2).abs() <= 1e-15 * rep.lambda2);
    let y_rms = (data.y.norm_squared() / data.n() as f64).sqrt();
    assert!(z1.diff_rms <= 1e-8 * y_rms, "Z₁: difference {:e}", z1.diff_rms);
    for p in &rep.parts[1..] {
        assert!(
            p.diff_rms >= 1e4 * z1.diff_rms.max(1e-14 * y_rms),
            "part {}: {:e} is not clearly above Z₁'s {:e}",
            p.part,
            p.diff_rms,
            z1.diff_rms
        );
        assert!(p.diff_rkhs > 1e4 * z1.diff_rkhs.max(1e-14));
        assert!((p.own_lambda2 - rep.lambda2).abs() > 1e-6 * rep.lambda2);
    }
    // The λ → λ₂ maps of Proposition 5.1 are increasing (bijective) and differ between parts.
    for c in &rep.curves {
        assert!(c.windows(2).all(|w| w[1] > w[0]), "{c:?}");
    }
    assert!(rep.curves[0] != rep.curves[1]);
}

#[test]
fn cv_helpers() {
    let folds = cv::kfold(23, 5, 1).unwrap();
    assert_eq!(folds.len(), 5);
    let mut seen = [0; 23];
    for f in &folds {
        assert_eq!(f.train.len() + f.test.len(), 23);
        for &i in &f.test {
            seen[i] += 1;
            assert!(!f.train.contains(&i));
        }
    }
    assert!(seen.iter().all(|&c| c == 1));
    let parts = cv::split_parts(10, 4, 3).unwrap();
    let sizes: Vec<usize> = parts.iter().map(|p| p.len()).collect();
    assert_eq!(sizes.iter().sum::<usize>(), 10);
    assert!(sizes.iter().all(|&s| s == 2 || s == 3));
    let g = cv::log_grid(1e-5, 1e2, 7).unwrap();
    assert_eq!(g.len(), 7);
    for (k, v) in g.iter().enumerate() {
        let want = 10f64.powf(-5.0 + 7.0 * k as f64 / 6.0);
        assert!((v - want).abs() <= 1e-13 * want, "{v} vs {want}");
    }
    let ms = cv::step_grid(0.1, 2.9, 0.1).unwrap();
    assert_eq!(ms.len(), 29);
    assert_eq!(ms[28], 2.9);
    assert_eq!(ms[9], 1.0);
    // (1/max y)·√(mean (y − f)²) by hand: y = (1, 4), f = (2, 2): √((1 + 4)/2)/4.
    let r = cv::scaled_rmse(&DVector::from_vec(vec![1.0, 4.0]), &DVector::from_vec(vec![2.0, 2.0]))
        .unwrap();
    assert!((r - (2.5f64).sqrt() / 4.0).abs() < 1e-15);
    assert!(cv::scaled_rmse(&DVector::zeros(3), &DVector::zeros(3)).is_err());
    assert!(cv::kfold(5, 3, 0).is_err());
    assert!(cv::log_grid(0.0, 1.0, 3).is_err());
    assert!(cv::train_test_split(10, 1.0, 0).is_err());
}

#[test]
fn model_selection_small() {
    let data = friedman(120, 10);
    let cfg = cv::ModelSelectionConfig {
        ms: vec![0.5, 1.2, 2.0, 2.8],
        lambdas: cv::log_grid(1e-4, 1e0, 3).unwrap(),
        lambda2s: cv::log_grid(1e-6, 1e0, 7).unwrap(),
        folds: 4,
        train_fraction: 0.7,
        seed: 11,
    };
    let sel = cv::model_selection(&data, &GAUSS, &cfg).unwrap();
    assert_eq!(sel.n_train, 84);
    assert_eq!(sel.mrlsr_cv.rmse.len(), 4);
    let best = sel.mrlsr_cv.rmse.iter().flatten().copied().fold(f64::INFINITY, f64::min);
    assert_eq!(best, sel.mrlsr_cv.best_rmse);
    // The m = 2 row of the M-RLSR grid is KRR at λ₂ = λ: the same folds give the same numbers.
    let krr_by_grid = cv::cv_grid(
        &cv::subset(&data, &cv::train_test_split(120, 0.7, 11).unwrap().0).unwrap(),
        GAUSS
            .resolve(&cv::subset(&data, &cv::train_test_split(120, 0.7, 11).unwrap().0).unwrap().x)
            .unwrap(),
        &[2.0],
        &cfg.lambdas,
        4,
        12,
    )
    .unwrap();
    for j in 0..3 {
        assert!((krr_by_grid.rmse[0][j] - sel.mrlsr_cv.rmse[2][j]).abs() < 1e-12);
    }
    // A sensible fit: much better than predicting 0 (scaled RMSE ≈ mean y / max y ≈ 0.5).
    assert!(
        sel.mrlsr_test_rmse < 0.2 && sel.krr_test_rmse < 0.2,
        "{} {}",
        sel.mrlsr_test_rmse,
        sel.krr_test_rmse
    );
}

#[test]
fn generators() {
    let d = Friedman1 { n: 50, sigma: 0.0, seed: 3 }.generate().unwrap();
    assert_eq!((d.n(), d.d()), (50, 10));
    for i in 0..50 {
        let x: Vec<f64> = (0..10).map(|j| d.x[(i, j)]).collect();
        assert!(x.iter().all(|&v| (0.0..1.0).contains(&v)));
        let y = 10.0 * (std::f64::consts::PI * x[0] * x[1]).sin()
            + 20.0 * (x[2] - 0.5).powi(2)
            + 10.0 * x[3]
            + 5.0 * x[4];
        assert!((d.y[i] - y).abs() < 1e-12);
    }
    let noisy = Friedman1 { n: 2000, sigma: 1.0, seed: 3 }.generate().unwrap();
    let mut resid = 0.0f64;
    for i in 0..2000 {
        let x: Vec<f64> = (0..10).map(|j| noisy.x[(i, j)]).collect();
        resid += (noisy.y[i] - Friedman1::target(&x)).powi(2);
    }
    let sd = (resid / 2000.0).sqrt();
    assert!((sd - 1.0).abs() < 0.06, "noise sd {sd}");
    assert_eq!(
        Friedman1 { n: 20, sigma: 1.0, seed: 4 }.generate().unwrap().digest(),
        Friedman1 { n: 20, sigma: 1.0, seed: 4 }.generate().unwrap().digest()
    );
    let s = Sine1d { n: 30, sigma: 0.0, seed: 1 }.generate().unwrap();
    for i in 0..30 {
        assert!((s.y[i] - (2.0 * std::f64::consts::PI * s.x[(i, 0)]).sin()).abs() < 1e-12);
    }
    assert!(Friedman1 { n: 1, sigma: 1.0, seed: 0 }.generate().is_err());
    assert!(Sine1d { n: 10, sigma: -1.0, seed: 0 }.generate().is_err());
    assert!(Sine1d { n: 10, sigma: f64::NAN, seed: 0 }.generate().is_err());
}

#[test]
fn prediction_on_training_inputs_equals_fitted_and_sine_fit_is_close() {
    let data = Sine1d { n: 60, sigma: 0.1, seed: 2 }.generate().unwrap();
    let kernel = Kernel::gaussian(Bandwidth::Fixed(0.02));
    let model = MrlsrModel::from_dataset(&data, &kernel).unwrap();
    let fit = model.fit_theorem1(1.5, 1e-4).unwrap();
    let p = model.predict(&fit.alpha, &data.x).unwrap();
    assert!((&p - &fit.fitted).norm() <= 1e-8 * data.y.norm());
    let grid = kernel_playground::datasets::regression::curve_grid(0.05, 0.95, 50).unwrap();
    let curve = model.predict(&fit.alpha, &grid).unwrap();
    for i in 0..50 {
        let t = Sine1d::target(grid[(i, 0)]);
        assert!((curve[i] - t).abs() < 0.25, "x = {}: {} vs {t}", grid[(i, 0)], curve[i]);
    }
    assert!(model.predict(&fit.alpha, &DMatrix::zeros(3, 2)).is_err());
    assert!(model.predict(&DVector::zeros(5), &grid).is_err());
}

#[test]
fn singular_gram_proceeds_with_warning_and_stays_optimal() {
    // Duplicate rows: K singular. The fit must still satisfy the optimality condition with the
    // real K, and the warning must name the duplicates.
    let mut data = friedman(30, 12);
    for j in 0..10 {
        data.x[(1, j)] = data.x[(0, j)];
        data.x[(2, j)] = data.x[(0, j)];
    }
    let model = MrlsrModel::from_dataset(&data, &GAUSS).unwrap();
    let s = model.singularity().expect("duplicates make K singular");
    assert_eq!(s.duplicate_rows, 2);
    assert!(s.zero_eigenvalues >= 2);
    assert!(s.message.contains("duplicate"));
    let k = model.gram();
    let n = 30.0;
    for &(m, lambda) in &[(1.5, 1e-2), (2.0, 1e-3), (3.0, 1e-1)] {
        let fit = model.fit_theorem1(m, lambda).unwrap();
        let r = k * ((k * &fit.alpha - &data.y) * (2.0 / n) + &fit.alpha * (lambda * m * fit.c0));
        assert!(r.norm() <= 1e-8 * (k * &data.y).norm() * (2.0 / n));
        // KRR is unique in f: compare with the Cholesky solve (K + nλI is invertible).
        if m == 2.0 {
            let a = krr_cholesky(k, &data.y, lambda);
            assert!((k * &a - &fit.fitted).norm() <= 1e-9 * data.y.norm());
        }
    }
    // Constant inputs with a fixed bandwidth: K = 11ᵀ, and KRR fits the constant ȳ/(1 + λ).
    let x = DMatrix::from_element(8, 2, 0.3);
    let y = DVector::from_fn(8, |i, _| i as f64);
    let model = MrlsrModel::new(&x, &y, &Kernel::gaussian(Bandwidth::Fixed(1.0))).unwrap();
    assert_eq!(model.singularity().unwrap().zero_eigenvalues, 7);
    let fit = model.krr(0.5).unwrap();
    for v in fit.fitted.iter() {
        assert!((v - 3.5 / 1.5).abs() < 1e-12, "{v}");
    }
    // With the bandwidth heuristic, constant inputs are refused (μ = 0).
    assert!(MrlsrModel::new(&x, &y, &GAUSS).is_err());
}

#[test]
fn bad_inputs_are_errors() {
    let data = friedman(10, 13);
    assert!(MrlsrModel::new(&data.x, &DVector::zeros(10), &GAUSS).is_err());
    assert!(MrlsrModel::new(&data.x, &DVector::zeros(9), &GAUSS).is_err());
    let big = DMatrix::from_fn(MAX_EIGEN_N + 1, 1, |i, _| i as f64);
    let err =
        MrlsrModel::new(&big, &DVector::from_element(MAX_EIGEN_N + 1, 1.0), &GAUSS).unwrap_err();
    assert!(err.to_string().contains("3001"), "{err}");
    let model = MrlsrModel::from_dataset(&data, &GAUSS).unwrap();
    for &(m, l) in &[
        (0.0, 1.0),
        (-1.0, 1.0),
        (f64::NAN, 1.0),
        (1.5, 0.0),
        (1.5, -1.0),
        (1.5, f64::INFINITY),
        (f64::INFINITY, 1.0),
    ] {
        assert!(model.fit(m, l).is_err(), "m = {m}, λ = {l}");
    }
    assert!(model.fit_theorem1(1.0, 1.0).is_err());
    assert!(model.fit_theorem1(0.5, 1.0).is_err());
    assert!(model.krr(0.0).is_err());
    assert!(MrlsrModel::new(&data.x, &data.y, &Kernel::gaussian(Bandwidth::Fixed(-1.0))).is_err());
    let mut nan = data.x.clone();
    nan[(0, 0)] = f64::NAN;
    assert!(MrlsrModel::new(&nan, &data.y, &Kernel::gaussian(Bandwidth::Fixed(1.0))).is_err());
    // y orthogonal to the range of K: K = 11ᵀ and y with zero mean.
    let x = DMatrix::from_element(4, 1, 1.0);
    let y = DVector::from_vec(vec![1.0, -1.0, 2.0, -2.0]);
    assert!(MrlsrModel::new(&x, &y, &Kernel::linear()).is_err());
}

fn any_param() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(0.0),
        -10.0..0.0f64,
        1e-9..1e-3f64,
        1e-3..10.0f64,
        10.0..1e6f64,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn never_panics(n in 0usize..14, sigma in any_param(), m in any_param(), lambda in any_param(), seed in 0u64..1000, mu in any_param()) {
        let gen = Sine1d { n, sigma, seed }.generate();
        if n < 2 || !(sigma.is_finite() && sigma >= 0.0) {
            prop_assert!(gen.is_err());
            return Ok(());
        }
        let data = gen.unwrap();
        let kernel = Kernel::gaussian(Bandwidth::Fixed(mu));
        let model = match MrlsrModel::from_dataset(&data, &kernel) {
            Ok(model) => model,
            Err(_) => { prop_assert!(!(mu.is_finite() && mu > 0.0) || data.y.iter().all(|&v| v == 0.0)); return Ok(()); }
        };
        let valid = m.is_finite() && m > 0.0 && m <= 100.0 && lambda.is_finite() && lambda > 0.0;
        let out = model.fit(m, lambda);
        if !valid {
            prop_assert!(out.is_err());
        }
        let _ = model.krr(lambda);
        let _ = model.sample_f(m, lambda, 1e-3, 1e3, 20);
        if let Ok(MrlsrOutcome::Theorem1(fit)) = out {
            prop_assert!(m > 1.0);
            // F(C₀) ≈ 0 and C₀ = ‖f‖^(m−2), with ‖f‖ from the real Gram matrix.
            prop_assert!(fit.f_residual.abs() <= 1e-9 * fit.c0);
            let norm = (model.gram() * &fit.alpha).dot(&fit.alpha).max(0.0).sqrt();
            prop_assert!((fit.c0 - norm.powf(m - 2.0)).abs() <= 1e-6 * fit.c0, "C₀ {} vs ‖f‖^(m−2) {}", fit.c0, norm.powf(m - 2.0));
        }
    }
}

/// The paper-size experiments (synthetic set, n = 2000): Fig. 1 and Table 1. Slow in debug;
/// run with `cargo test --release --test mrlsr paper_size -- --ignored --nocapture`.
#[test]
#[ignore]
fn paper_size_experiments() {
    let data = Friedman1::paper(2024).generate().unwrap();
    let t = std::time::Instant::now();
    let cfg = EquivalenceConfig::paper(7);
    let rep = cv::equivalence_experiment(&data, &GAUSS, &cfg).unwrap();
    println!(
        "Fig. 1 ({:.1} s): m = {}, λ = {:e}, λ₂ = {:e}",
        t.elapsed().as_secs_f64(),
        rep.m,
        rep.lambda,
        rep.lambda2
    );
    println!(
        "  CV on Z₁: {:?}",
        rep.lambdas
            .iter()
            .zip(&rep.cv_rmse)
            .map(|(l, r)| format!("{l:.1e}:{r:.4e}"))
            .collect::<Vec<_>>()
    );
    for p in &rep.parts {
        if let Some(w) = &p.warning {
            println!("  Z{} warning: {w}", p.part);
        }
        println!("  Z{}: n = {}, C₀ = {:.4e}, own λ₂ = {:.4e}, RMS diff = {:.3e}, RKHS diff = {:.3e} (fitted RMS {:.3}), {}", p.part, p.n, p.c0, p.own_lambda2, p.diff_rms, p.diff_rkhs, p.fitted_rms, p.krr_method);
    }
    for (p, c) in rep.curves.iter().enumerate() {
        println!(
            "  λ→λ₂ Z{}: {:?}",
            p + 1,
            c.iter().map(|v| format!("{v:.2e}")).collect::<Vec<_>>()
        );
    }
    let z1 = rep.parts[0].diff_rms;
    assert!(z1 <= 1e-8 * rep.parts[0].fitted_rms);
    assert!(rep.parts[1..].iter().all(|p| p.diff_rms > 1e4 * z1.max(1e-14)));
    let t = std::time::Instant::now();
    let sel = cv::model_selection(&data, &GAUSS, &cv::ModelSelectionConfig::paper(5)).unwrap();
    println!(
        "Table 1 ({:.1} s): n_train = {}, n_test = {}",
        t.elapsed().as_secs_f64(),
        sel.n_train,
        sel.n_test
    );
    println!("  M-RLSR: best m = {}, best λ = {:e}, CV RMSE = {:.4e}, test RMSE = {:.4e}, equivalent λ₂ = {:?}, failures = {}", sel.mrlsr_cv.best_m, sel.mrlsr_cv.best_lambda, sel.mrlsr_cv.best_rmse, sel.mrlsr_test_rmse, sel.mrlsr_equivalent_lambda2, sel.mrlsr_cv.failures);
    println!(
        "  KRR: best λ₂ = {:e}, CV RMSE = {:.4e}, test RMSE = {:.4e}",
        sel.krr_cv.best_lambda, sel.krr_cv.best_rmse, sel.krr_test_rmse
    );
    for (i, row) in sel.mrlsr_cv.rmse.iter().enumerate() {
        println!(
            "  m = {:.1}: {:?}",
            sel.mrlsr_cv.ms[i],
            row.iter().map(|v| format!("{v:.3e}")).collect::<Vec<_>>()
        );
    }
    println!(
        "  KRR row: {:?}",
        sel.krr_cv.rmse[0].iter().map(|v| format!("{v:.3e}")).collect::<Vec<_>>()
    );
    assert!(sel.mrlsr_test_rmse.is_finite() && sel.krr_test_rmse.is_finite());
}
