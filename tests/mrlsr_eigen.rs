//! The precomputed-eigendecomposition path of paper B's model (what the page's Web Worker
//! hands to the main thread): the round trip reproduces the in-place fit, the payload really
//! decomposes K (checked here by forming QΛQᵀ in full, independently of the constructor's
//! probes), a KRR fit through it matches a Cholesky solve, and corrupted or foreign payloads are
//! refused with a message.
#![cfg(not(target_arch = "wasm32"))]

use kernel_playground::data::Dataset;
use kernel_playground::datasets::regression::{Friedman1, Sine1d};
use kernel_playground::kernels::{Bandwidth, Kernel};
use kernel_playground::solvers::mrlsr::{EigenPayload, MrlsrModel, MrlsrOutcome, EIGEN_CHECK_TOL};
use nalgebra::{DMatrix, DVector};

const GAUSS: Kernel = Kernel::gaussian(Bandwidth::Heuristic);

fn friedman(n: usize, seed: u64) -> Dataset {
    Friedman1 { n, sigma: 1.0, seed }.generate().unwrap()
}

fn payload_for(data: &Dataset, kernel: &Kernel) -> EigenPayload {
    let k = kernel.resolve(&data.x).unwrap();
    EigenPayload::compute(&data.x, &data.y, k).unwrap()
}

fn refused(data: &Dataset, p: EigenPayload) -> String {
    match MrlsrModel::from_dataset_with_eigen(data, &GAUSS, p) {
        Ok(_) => panic!("a bad payload was accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn round_trip_gives_the_same_fit_as_the_in_place_eigendecomposition() {
    for (data, kernel) in [
        (friedman(120, 3), GAUSS),
        (Sine1d { n: 80, sigma: 0.2, seed: 5 }.generate().unwrap(), GAUSS),
        (friedman(60, 4), Kernel::polynomial(2, 1.0)),
    ] {
        let direct = MrlsrModel::from_dataset(&data, &kernel).unwrap();
        let payload = payload_for(&data, &kernel);
        assert_eq!(
            payload,
            direct.eigen_payload(),
            "the worker's computation is the constructor's"
        );
        let adopted = MrlsrModel::from_dataset_with_eigen(&data, &kernel, payload.clone()).unwrap();
        assert_eq!(adopted.gram(), direct.gram());
        assert_eq!(adopted.eigenvalues(), direct.eigenvalues());
        assert_eq!(adopted.y_prime(), direct.y_prime());
        for &(m, lambda) in
            &[(1.2, 1e-3), (1.5, 1e-2), (2.0, 1e-4), (3.0, 1e-3), (0.5, 1e-2), (1.0, 1e-3)]
        {
            let a = direct.fit(m, lambda).unwrap();
            let b = adopted.fit(m, lambda).unwrap();
            assert_eq!(a, b, "m = {m}, λ = {lambda}: same bits in, same fit out");
        }
        // Independent of both constructors: QΛQᵀ formed in full reproduces K.
        let n = payload.n;
        let q = DMatrix::from_column_slice(n, n, &payload.vectors);
        let lam = DMatrix::from_diagonal(&DVector::from_column_slice(&payload.values));
        let rec = &q * lam * q.transpose();
        let rel = (&rec - direct.gram()).norm() / direct.gram().norm();
        assert!(rel < 1e-12, "‖QΛQᵀ − K‖/‖K‖ = {rel:e}");
        let orth = (q.transpose() * &q - DMatrix::<f64>::identity(n, n)).norm();
        assert!(orth < 1e-12 * n as f64, "‖QᵀQ − I‖ = {orth:e}");
    }
}

#[test]
fn krr_through_an_adopted_payload_matches_a_cholesky_solve() {
    let data = friedman(90, 11);
    let model =
        MrlsrModel::from_dataset_with_eigen(&data, &GAUSS, payload_for(&data, &GAUSS)).unwrap();
    let n = data.n();
    for &lambda in &[1e-4, 1e-2, 1.0] {
        let a = model.gram() + DMatrix::<f64>::identity(n, n) * (n as f64 * lambda);
        let reference = a.cholesky().expect("positive definite").solve(&data.y);
        let fit = model.krr(lambda).unwrap();
        let rel = (&fit.alpha - &reference).norm() / reference.norm();
        assert!(rel < 1e-9, "λ = {lambda}: {rel:e}");
    }
}

#[test]
fn flipping_eigenvector_signs_is_still_a_valid_decomposition_with_the_same_f() {
    // The check must not be stricter than the mathematics: −q_j is an eigenvector too.
    let data = friedman(70, 2);
    let direct = MrlsrModel::from_dataset(&data, &GAUSS).unwrap();
    let mut p = direct.eigen_payload();
    let n = p.n;
    for j in (0..n).step_by(3) {
        for v in &mut p.vectors[j * n..(j + 1) * n] {
            *v = -*v;
        }
    }
    let flipped = MrlsrModel::from_dataset_with_eigen(&data, &GAUSS, p).unwrap();
    let (a, b) = match (direct.fit(1.5, 1e-3).unwrap(), flipped.fit(1.5, 1e-3).unwrap()) {
        (MrlsrOutcome::Theorem1(a), MrlsrOutcome::Theorem1(b)) => (a, b),
        _ => panic!("m = 1.5 is in Theorem 1"),
    };
    assert!((&a.alpha - &b.alpha).norm() <= 1e-10 * a.alpha.norm());
    assert!((a.c0 - b.c0).abs() <= 1e-12 * a.c0);
}

#[test]
fn corrupted_or_foreign_payloads_are_refused_with_a_clear_message() {
    let data = friedman(80, 7);
    let good = payload_for(&data, &GAUSS);
    let n = good.n;

    let mut p = good.clone();
    p.values.pop();
    assert!(refused(&data, p).contains("79 eigenvalues for n = 80"));

    let mut p = good.clone();
    p.vectors.truncate(n * n - 1);
    assert!(refused(&data, p).contains("eigenvector entries"));

    let mut p = good.clone();
    p.n = 81;
    assert!(refused(&data, p).contains("n = 81"));

    let mut p = good.clone();
    p.values[5] = f64::NAN;
    assert!(refused(&data, p).contains("eigenvalue 5 is NaN"));

    let mut p = good.clone();
    p.vectors[17] = f64::INFINITY;
    assert!(refused(&data, p).contains("entry 17"));

    // One entry of Q moved by 1e-4: not orthonormal any more.
    let mut p = good.clone();
    p.vectors[3 * n + 7] += 1e-4;
    let msg = refused(&data, p);
    assert!(msg.contains("not orthonormal"), "{msg}");

    // Two eigenvalues swapped: Q is fine but QΛQᵀ is not K.
    let mut p = good.clone();
    let (i, j) = {
        let imax = (0..n).max_by(|&a, &b| good.values[a].total_cmp(&good.values[b])).unwrap();
        (imax, (imax + 1) % n)
    };
    p.values.swap(i, j);
    let msg = refused(&data, p);
    assert!(msg.contains("does not reproduce this Gram matrix"), "{msg}");

    // A payload of other data of the same size (another seed) is refused.
    let other = payload_for(&friedman(80, 8), &GAUSS);
    let msg = refused(&data, other);
    assert!(msg.contains("other data"), "{msg}");

    // Every message names what was checked.
    let mut p = good.clone();
    p.values[0] *= 1.5;
    assert!(refused(&data, p).starts_with("invalid parameter eigendecomposition: "));

    // A perturbation at rounding level is accepted (the tolerance is not an equality test).
    let mut p = good;
    for v in p.vectors.iter_mut().step_by(7) {
        *v *= 1.0 + 1e-15;
    }
    const { assert!(EIGEN_CHECK_TOL > 1e-12) };
    MrlsrModel::from_dataset_with_eigen(&data, &GAUSS, p).unwrap();
}

#[test]
fn payload_inputs_are_checked_like_the_model() {
    let data = friedman(30, 1);
    let k = GAUSS.resolve(&data.x).unwrap();
    let zeros = DVector::zeros(30);
    assert!(EigenPayload::compute(&data.x, &zeros, k.clone())
        .unwrap_err()
        .to_string()
        .contains("every target is 0"));
    let mut x = data.x.clone();
    x[(2, 3)] = f64::NAN;
    assert!(EigenPayload::compute(&x, &data.y, k).is_err());
}

#[test]
fn cv_grid_shape_check_for_grids_from_a_worker() {
    use kernel_playground::papers::mrlsr::cv::{self, CvGrid};
    let data = friedman(40, 2);
    let k = GAUSS.resolve(&data.x).unwrap();
    let g = cv::cv_grid(&data, k, &[1.2, 2.0], &[1e-3, 1e-1, 1.0], 3, 1).unwrap();
    let (i, j) = g.check().unwrap();
    assert_eq!(g.rmse[i][j], g.best_rmse);
    // A JSON round trip (the shape a worker's message carries) keeps the grid and its check
    // (serde_json's default float parsing may move the last bit, hence the tolerance).
    let back: CvGrid = serde_json::from_str(&serde_json::to_string(&g).unwrap()).unwrap();
    assert_eq!(
        (&back.ms, &back.lambdas, back.best_m, back.best_lambda),
        (&g.ms, &g.lambdas, g.best_m, g.best_lambda)
    );
    for (r, s) in back.rmse.iter().flatten().zip(g.rmse.iter().flatten()) {
        assert!((r - s).abs() <= 1e-15 * s.abs());
    }
    assert_eq!(back.check().unwrap(), (i, j));
    let mut bad = g.clone();
    bad.rmse[1].pop();
    assert!(bad.check().unwrap_err().to_string().contains("2 × 3"));
    let mut bad = g.clone();
    bad.best_m = 7.0;
    assert!(bad.check().unwrap_err().to_string().contains("not on the grid"));
    let mut bad = g;
    bad.lambdas.clear();
    assert!(bad.check().is_err());
    assert!(cv::check_lambda_curves(&[1e-3, 1e-2], &[vec![1.0, 2.0], vec![3.0]])
        .unwrap_err()
        .to_string()
        .contains("curve 2"));
    assert!(cv::check_lambda_curves(&[1e-3, -1.0], &[]).is_err());
    cv::check_lambda_curves(&[1e-3, 1e-2], &[vec![1.0, f64::NAN]]).unwrap();
}
