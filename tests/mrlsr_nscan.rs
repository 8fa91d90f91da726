//! §4's stability scans against n (lesson B10, B11), computed by the core on the engine's model
//! (K's eigendecomposition, Theorem 1), checked against closed forms built here: kernel ridge by
//! a Cholesky solve, M-RLSR's C₀ by bisection of F (eq. 6) on nalgebra's eigendecomposition.
#![cfg(not(target_arch = "wasm32"))]

use kernel_playground::papers::mrlsr::{
    build_data, log_log_fit, DataSpec, MrlsrChecked, MrlsrSpec, NScanRun, ScanKind,
};
use nalgebra::{DMatrix, DVector, SymmetricEigen};

fn spec(m: f64) -> MrlsrSpec {
    let text = format!(
        r#"{{"data": {{"kind": "sine", "n": 100, "sigma": 0.2, "seed": 1}},
        "kernel": {{"kind": "gaussian", "bandwidth": {{"fixed": 0.1}}}}, "m": {m}, "lambda": 0.001}}"#
    );
    serde_json::from_str(&text).unwrap()
}

/// The scan's input: the spec checked within the page's budget.
fn checked(s: &MrlsrSpec) -> MrlsrChecked {
    MrlsrChecked::for_page(s).unwrap()
}

fn data(n: usize) -> (DMatrix<f64>, DVector<f64>) {
    let d = build_data(&DataSpec::Sine { n, sigma: 0.2, seed: 1, drop: None }, 2000).unwrap();
    let k = DMatrix::from_fn(n, n, |i, j| (-(d.x.row(i) - d.x.row(j)).norm_squared() / 0.1).exp());
    (k, d.y)
}

fn ridge(k: &DMatrix<f64>, y: &DVector<f64>, shift: f64) -> DVector<f64> {
    let n = y.len();
    (k + DMatrix::identity(n, n) * shift).cholesky().unwrap().solve(y)
}

fn drop(k: &DMatrix<f64>, y: &DVector<f64>, i: usize) -> (DMatrix<f64>, DVector<f64>) {
    (k.clone().remove_row(i).remove_column(i), y.clone().remove_row(i))
}

/// λ₂ = (m/2)C₀λ with C₀ the root of F by bisection.
fn lambda2(k: &DMatrix<f64>, y: &DVector<f64>, m: f64, lambda: f64) -> f64 {
    let e = SymmetricEigen::new(k.clone());
    let n = y.len() as f64;
    let dmax = e.eigenvalues.max();
    let yp = e.eigenvectors.transpose() * y;
    let f = |c: f64| {
        let s: f64 = e
            .eigenvalues
            .iter()
            .zip(yp.iter())
            .filter(|(d, _)| **d > n * f64::EPSILON * dmax)
            .map(|(d, v)| 4.0 * d * v * v / (2.0 * d + lambda * m * n * c).powi(2))
            .sum();
        s.powf(m / 2.0 - 1.0) - c
    };
    let (mut lo, mut hi) = (0.0, 1.0);
    while f(hi) > 0.0 {
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    m / 2.0 * 0.5 * (lo + hi) * lambda
}

fn close(a: f64, b: f64, tol: f64, what: &str) {
    assert!((a - b).abs() <= tol * b.abs(), "{what}: core {a}, here {b}");
}

#[test]
fn the_stability_scan_is_the_closed_forms() {
    let scan =
        NScanRun::new(&checked(&spec(2.0)), ScanKind::Stability).unwrap().run_to_end().unwrap();
    assert_eq!(scan.ns, vec![12, 25, 50, 100]);
    let lambda_b = 100.0 * 1e-3;
    for (j, &n) in scan.ns.iter().enumerate() {
        let (k, y) = data(n);
        let h = |a: &DVector<f64>| (&k * a).dot(a).sqrt();
        let (a, b) = (ridge(&k, &y, n as f64 * 1e-3), ridge(&k, &y, lambda_b));
        let (mut ca, mut cb) = (0.0f64, 0.0f64);
        for i in 0..n {
            let (ki, yi) = drop(&k, &y, i);
            let ai = ridge(&ki, &yi, (n - 1) as f64 * 1e-3).insert_row(i, 0.0);
            let bi = ridge(&ki, &yi, lambda_b).insert_row(i, 0.0);
            ca = ca.max(h(&(&a - ai)));
            cb = cb.max(h(&(&b - bi)));
        }
        close(scan.series[0].values[j], ca, 1e-6, &format!("A at n = {n}"));
        close(scan.series[1].values[j], cb, 1e-6, &format!("B at n = {n}"));
    }
    // The lesson's claims (B10): A falls faster than −0.8, B between −0.7 and −0.3.
    let (sa, sb) = (scan.series[0].slope, scan.series[1].slope);
    assert!(sa < -0.8 && (-0.7..-0.3).contains(&sb), "slopes {sa}, {sb}");
    let (s, _) = log_log_fit(&scan.ns, &scan.series[0].values).unwrap();
    assert_eq!(s, sa);
}

#[test]
fn the_lambda2_scan_is_theorem_one_by_bisection() {
    let scan =
        NScanRun::new(&checked(&spec(1.5)), ScanKind::Lambda2Move).unwrap().run_to_end().unwrap();
    for (j, &n) in scan.ns.iter().enumerate() {
        let (k, y) = data(n);
        let l2 = lambda2(&k, &y, 1.5, 1e-3);
        let mut moved = 0.0f64;
        for i in 0..n {
            let (ki, yi) = drop(&k, &y, i);
            moved = moved.max((lambda2(&ki, &yi, 1.5, 1e-3) - l2).abs());
        }
        close(scan.series[0].values[j], moved, 1e-5, &format!("λ₂ move at n = {n}"));
    }
    // The lesson's claim (B11): the slope is below −0.5.
    assert!(scan.series[0].slope < -0.5, "slope {}", scan.series[0].slope);
}

#[test]
fn a_scan_refuses_what_it_cannot_scan_naming_it() {
    let mut s = spec(1.5);
    s.kernel = serde_json::from_str(r#"{"kind": "gaussian", "bandwidth": "heuristic"}"#).unwrap();
    let e = NScanRun::new(&checked(&s), ScanKind::Stability).err().unwrap().to_string();
    assert!(e.contains("scan") && e.contains("heuristic"), "{e}");
    let mut s = spec(1.0);
    s.data = DataSpec::Sine { n: 300, sigma: 0.2, seed: 1, drop: None };
    assert!(NScanRun::new(&checked(&s), ScanKind::Stability)
        .err()
        .unwrap()
        .to_string()
        .contains("200"));
    assert!(NScanRun::new(&checked(&spec(1.0)), ScanKind::Lambda2Move)
        .err()
        .unwrap()
        .to_string()
        .contains("m > 1"));
    // A spec field out of range is refused by the spec's own check, naming its path, before
    // any scan starts (the scan takes only a checked spec).
    let mut s = spec(1.5);
    s.lambda = -1.0;
    let e = MrlsrChecked::for_page(&s).err().unwrap().to_string();
    assert!(e.contains("lambda"), "{e}");
}
